/* host: checkpoints of a run (docs/cases.md, checkpoints): writing, checking and restoring them,
 * with the partial history. */
#ifndef SHARD_RUN_RESTART_H
#define SHARD_RUN_RESTART_H

#include "run/state.h"

int run_checkpoint_write(run *r, int64_t k, shard_msg *msg);
int run_checkpoint_restore(run *r, shard_msg *msg);
int run_checkpoint_header(const char *dir, char hash[64], int64_t *step);
int run_checkpoint_resumable(const run *r);

#endif
