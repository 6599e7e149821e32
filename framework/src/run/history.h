/* host: history.csv: which columns a run writes (io/outputs.h), its header, rows, and its
 * publication at the end. */
#ifndef SHARD_RUN_HISTORY_H
#define SHARD_RUN_HISTORY_H

#include "run/state.h"

unsigned run_out_flags(const run *r);
void run_history_header(run *r);
int run_history_error(run *r, int64_t step, double t, shard_msg *msg);
int run_history_row(run *r, int64_t step, double t, int event, shard_msg *msg);
int run_history_publish(run *r, int64_t steps, shard_msg *msg);

#endif
