/* host: the run against the analytic reference of its model (ball, bar impact): set-up and the
 * error sums of each step. */
#ifndef SHARD_RUN_COMPARE_H
#define SHARD_RUN_COMPARE_H

#include "run/state.h"

int run_setup_reference(run *r, shard_msg *msg);
void run_reference_step(run *r, double t);

#endif
