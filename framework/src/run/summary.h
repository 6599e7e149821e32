/* host: summary.yaml at the end of a run (the model adds its keys). */
#ifndef SHARD_RUN_SUMMARY_H
#define SHARD_RUN_SUMMARY_H

#include "run/state.h"

int run_write_summary(run *r, FILE *f, const char *status, const char *message, int64_t steps, double wall_total);

#endif
