/* placeholder until the owning change lands */
#include <stdio.h>

#include "commands.h"

int shard_cmd_lcp(const shard_cli *cli, int argc, char **argv) {
  fprintf(stderr, "shard lcp: not available in this build\n");
  return SHARD_EXIT_FAIL;
}
