/* host: the run's part of the system the integrators see: the contact
 * services (W over the active rows, the block-wise LCP solve with the case's
 * policy) for whatever model, installed over the model's own system ops. */
#ifndef SHARD_RUN_SYSTEM_H
#define SHARD_RUN_SYSTEM_H

#include "run/state.h"

/* Create the contact service for r->sys and install the run's system ops
 * (sys->ops, sys->host). */
int run_system_setup(run *r, shard_msg *msg);
void run_system_teardown(run *r);

#endif
