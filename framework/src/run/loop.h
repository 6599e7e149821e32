/* host: the time loop: one integrator step, commit and insertion, energies, history rows, stopping
 * rules, checkpoints. */
#ifndef SHARD_RUN_LOOP_H
#define SHARD_RUN_LOOP_H

#include "run/state.h"

int run_loop(run *r, int64_t *out_steps, shard_msg *msg);

#endif
