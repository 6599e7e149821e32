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
/* Between steps, when the system's DOFs or rows outgrew them: grow the
 * contact service (shard_contact_reserve), the run's previous state and
 * gaps, and the integrator's storage through its reserve slot (capacities up by half at least,
 * never beyond ndof_max / ncon_max; amortised over insertions). Nothing for
 * an integrator without the slot (sized for ndof_max / ncon_max at setup).
 * SHARD_ERR_NOMEM names what and how much; the integrator keeps its old
 * storage and the run stops with what it computed. */
int run_system_reserve(run *r, shard_msg *msg);
/* The run's own part of it: the previous state (u_prev, v_prev), the gaps,
 * and the impact restitutions (new rows get the law's e at zero kinematics,
 * as the set-up gave every row not there yet; a velocity-dependent law
 * recomputes them each step). */
int run_state_reserve(run *r, shard_msg *msg);

#endif
