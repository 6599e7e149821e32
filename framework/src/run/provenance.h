/* host: the output directory (lock, stale results removed) and case.resolved.yaml,
 * provenance.yaml, the run hash. */
#ifndef SHARD_RUN_PROVENANCE_H
#define SHARD_RUN_PROVENANCE_H

#include "run/state.h"

int run_lock_out_dir(run *r, shard_dir_lock *lock, shard_msg *msg);
int run_write_provenance(run *r, shard_msg *msg);

#endif
