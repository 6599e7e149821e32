/* shard — command-line entry point. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

typedef struct command {
  const char *name;
  int (*fn)(const shard_cli *cli, int argc, char **argv);
  const char *usage;
} command;

static int cmd_help(const shard_cli *cli, int argc, char **argv);

/* One line per command or subcommand in `shard help`; dispatch takes the
 * first entry of a name. Every command answers -h, --help and `shard help`. */
static const command commands[] = {
    {"run", shard_cmd_run, "run CASE.yaml [-o DIR] [--set key.path=value ...] [--resume] | run --restart DIR"},
    {"validate", shard_cmd_validate, "validate FILE.yaml [--set key.path=value ...]"},
    {"plugins", shard_cmd_plugins, "plugins"},
    {"describe", shard_cmd_describe, "describe NAME [--markdown]"},
    {"schema", shard_cmd_schema, "schema [case|campaign] [--markdown]"},
    {"lcp", shard_cmd_lcp, "lcp --solver NAME M.mtx q.mtx [--set key=value ...]"},
    {"campaign", shard_cmd_campaign, "campaign CAMPAIGN.yaml [-o DIR] [-j N] [--slice K/N] [--resume] [--timeout S]"},
    {"campaign", shard_cmd_campaign, "campaign merge OUT_DIR DIR|TABLE.csv ... [--campaign CAMPAIGN.yaml]"},
    {"help", cmd_help, "help [COMMAND [SUBCOMMAND]]"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out) {
  fprintf(out, "usage: shard [--plugin-path DIR[:DIR...]] COMMAND ...\n"
               "       shard --version\n\ncommands:\n");
  for (size_t i = 0; i < N_COMMANDS; ++i) fprintf(out, "  shard %s\n", commands[i].usage);
  fprintf(out, "\n`shard COMMAND --help` or `shard help COMMAND` describes a command.\n"
               "exit codes: 0 success, 2 bad input, 3 numerical failure, 1 other errors\n");
}

static const command *find_command(const char *name) {
  for (size_t k = 0; k < N_COMMANDS; ++k)
    if (strcmp(name, commands[k].name) == 0) return &commands[k];
  return NULL;
}

/* shard help [COMMAND [SUBCOMMAND ...]]: the command's own --help */
static int cmd_help(const shard_cli *cli, int argc, char **argv) {
  if (argc < 2) {
    usage(stdout);
    return SHARD_EXIT_OK;
  }
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
    printf("usage: shard help [COMMAND [SUBCOMMAND]]\n"
           "prints the usage of COMMAND (as `shard COMMAND --help` does), or the list of commands\n");
    return SHARD_EXIT_OK;
  }
  const command *c = find_command(argv[1]);
  if (!c) {
    fprintf(stderr, "shard help: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return SHARD_EXIT_INPUT;
  }
  char help[] = "--help";
  char *sub[8];
  int n = 0;
  for (int i = 1; i < argc && n < 6; ++i) sub[n++] = argv[i];
  sub[n++] = help;
  sub[n] = NULL;
  return c->fn(cli, n, sub);
}

int main(int argc, char **argv) {
  shard_cli cli = {0};
  int i = 1;
  while (i < argc && argv[i][0] == '-') {
    if (strcmp(argv[i], "--plugin-path") == 0 && i + 1 < argc) {
      cli.plugin_path = argv[i + 1];
      i += 2;
    } else if (strncmp(argv[i], "--plugin-path=", 14) == 0) {
      cli.plugin_path = argv[i] + 14;
      i += 1;
    } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      return SHARD_EXIT_OK;
    } else if (strcmp(argv[i], "--version") == 0) {
      printf("shard %s\n", SHARD_VERSION);
      return SHARD_EXIT_OK;
    } else {
      fprintf(stderr, "shard: unknown option '%s'\n", argv[i]);
      usage(stderr);
      return SHARD_EXIT_INPUT;
    }
  }
  if (i >= argc) {
    usage(stderr);
    return SHARD_EXIT_INPUT;
  }
  const command *c = find_command(argv[i]);
  if (c) return c->fn(&cli, argc - i, argv + i);
  fprintf(stderr, "shard: unknown command '%s'\n", argv[i]);
  usage(stderr);
  return SHARD_EXIT_INPUT;
}
