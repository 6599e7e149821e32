/* host: the time loop: one integrator step, commit and insertion, energies, history rows, stopping
 * rules, checkpoints. */
#ifndef SHARD_RUN_LOOP_H
#define SHARD_RUN_LOOP_H

#include "run/state.h"

void run_impact_restitution(run *r, const shard_contact_law_ops *ops, int32_t n);
int run_loop(run *r, int64_t *out_steps, shard_msg *msg);

#endif
