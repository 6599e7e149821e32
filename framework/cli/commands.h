/* the `shard` command: one function per subcommand, one file each. Each
 * returns the process exit code (README.md#using-it): 0 success, 2 bad input (nothing
 * run), 3 numerical failure, 1 anything else. argv[0] is the subcommand. */
#ifndef SHARD_CLI_COMMANDS_H
#define SHARD_CLI_COMMANDS_H

#define SHARD_EXIT_OK 0
#define SHARD_EXIT_FAIL 1
#define SHARD_EXIT_INPUT 2
#define SHARD_EXIT_NUMERIC 3

/* Global options parsed by main before the subcommand (--plugin-path). */
typedef struct shard_cli {
  const char *plugin_path; /* --plugin-path DIR[:DIR...] or NULL */
} shard_cli;

/* --threads VALUE: a count of threads >= 1, or 0 / auto for the cores
 * online; 0 and *out set on success, -1 (nothing set) for anything else */
int shard_cli_parse_threads(const char *value, int *out);
/* the threads a run gets for --threads N: N, with OMP_WAIT_POLICY=PASSIVE
 * in the environment unless it is set; in a build without OpenMP, for
 * N > 1, one warning on stderr (the command's name first) and 1 */
int shard_cli_threads_available(const char *cmd, int threads);

int shard_cmd_run(const shard_cli *cli, int argc, char **argv);
int shard_cmd_validate(const shard_cli *cli, int argc, char **argv);
int shard_cmd_plugins(const shard_cli *cli, int argc, char **argv);
int shard_cmd_describe(const shard_cli *cli, int argc, char **argv);
int shard_cmd_schema(const shard_cli *cli, int argc, char **argv);
int shard_cmd_lcp(const shard_cli *cli, int argc, char **argv);
int shard_cmd_campaign(const shard_cli *cli, int argc, char **argv);

#endif
