/* host: `shard run` — build the components of a case, run the time loop,
 * write history.csv, summary.yaml and the provenance files atomically. */
#ifndef SHARD_RUN_H
#define SHARD_RUN_H

#include <stdint.h>

#include "case/case.h"
#include "io/fsio.h" /* shard_mkdirs, shard_write_atomic (declared there) */
#include "loader/registry.h"
#include "run/options.h"

/* Exit-code style result: 0 ok, 2 bad input (diag holds the errors, or msg),
 * 3 numerical failure (outputs written up to the failing step),
 * SHARD_RUN_STOPPED (4) stopped on request, 1 other. */
int shard_run_case(const shard_case *c, const shard_registry *reg, const shard_run_options *opt, shard_diag *diag,
                   shard_msg *msg);

/* What `run` does before its first step, writing nothing: model, plugins,
 * LCP policy, time step and its stability, reference, integrator set-up and
 * start. The same exit-code style: 0 (the run would start), 2 (bad input:
 * diag holds the errors, or msg), 1 other. */
int shard_run_check(const shard_case *c, const shard_registry *reg, shard_diag *diag, shard_msg *msg);

/* 1 when DIR holds a checkpoint a run can continue from (the current format,
 * its partial history still there), with the step it was written at; whether
 * it is a given run's is decided when that run starts (its run hash). */
int shard_run_checkpoint_step(const char *dir, int64_t *step);


#endif
