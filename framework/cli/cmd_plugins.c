/* placeholder until the owning change lands */
#include <stdio.h>

#include "commands.h"

int shard_cmd_plugins(const shard_cli *cli, int argc, char **argv) {
  fprintf(stderr, "shard plugins: not available in this build\n");
  return SHARD_EXIT_FAIL;
}
