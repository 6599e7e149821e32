/* shard — command-line entry point. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

typedef struct command {
  const char *name;
  int (*fn)(const shard_cli *cli, int argc, char **argv);
  const char *usage;
} command;

static const command commands[] = {
    {"run", shard_cmd_run, "run CASE.yaml [-o DIR] [--set key.path=value ...]"},
    {"validate", shard_cmd_validate, "validate FILE.yaml [--set key.path=value ...]"},
    {"plugins", shard_cmd_plugins, "plugins"},
    {"describe", shard_cmd_describe, "describe NAME [--markdown]"},
    {"schema", shard_cmd_schema, "schema [case]"},
    {"lcp", shard_cmd_lcp, "lcp --solver NAME M.mtx q.mtx"},
    {"campaign", shard_cmd_campaign, "campaign CAMPAIGN.yaml [-o DIR] [-j N] [--slice K/N] [--resume] [--timeout S] | campaign merge OUT_DIR DIR..."},
};

static void usage(FILE *out) {
  fprintf(out, "usage: shard [--plugin-path DIR[:DIR...]] COMMAND ...\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i) fprintf(out, "  shard %s\n", commands[i].usage);
  fprintf(out, "\nexit codes: 0 success, 2 bad input, 3 numerical failure, 1 other errors\n");
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
  for (size_t k = 0; k < sizeof commands / sizeof commands[0]; ++k)
    if (strcmp(argv[i], commands[k].name) == 0) return commands[k].fn(&cli, argc - i, argv + i);
  fprintf(stderr, "shard: unknown command '%s'\n", argv[i]);
  usage(stderr);
  return SHARD_EXIT_INPUT;
}
