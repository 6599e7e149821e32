/* host: what a caller gives `shard run` (run.h) and what it reports back:
 * the options, progress reports and the stopped result. */
#ifndef SHARD_RUN_OPTIONS_H
#define SHARD_RUN_OPTIONS_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

/* What a progress report carries (about twice a second, and once at the end). */
typedef struct shard_run_progress {
  int64_t step, nsteps;
  double t;       /* simulated time [s] */
  double rate;    /* steps per second of wall time */
  double eta;     /* estimated seconds left */
  int final;      /* the last report of the run */
} shard_run_progress;

typedef struct shard_run_options {
  const char *out_dir;   /* run directory (created) */
  /* progress reports (the library never prints): NULL for none */
  void (*on_progress)(void *ctx, const shard_run_progress *p);
  void *progress_ctx;
  int restart;           /* continue the run in out_dir from its last checkpoint */
  int resume;            /* continue from out_dir's checkpoint when it is this run's, else start over */
  int64_t *continued_from; /* if not NULL: the step a restart or resume continued from, -1 when it started over */
  /* if not NULL: set nonzero (by a signal handler, say) to stop the run
   * after the step in progress, see SHARD_RUN_STOPPED */
  volatile sig_atomic_t *stop;
  /* if not NULL: the last step made, stored (relaxed) after every step and
   * once before the first — a heartbeat another thread can watch cheaply */
  atomic_llong *step_now;
  /* threads the plugins may use in their loops (0 or 1: one); the results do
   * not depend on it, so it is no part of the case or the run hash */
  int32_t threads;
  int32_t thread_grain; /* loops shorter than this stay in one thread (0: the plugins' default) */
} shard_run_options;

/* shard_run_case's result when *opt->stop was set: a run that writes
 * checkpoints (time.checkpoint_every) leaves DIR/checkpoint.bin at its last
 * step and its partial history, no summary, so that --resume continues it
 * bit for bit; any other run writes its outputs up to that step with status
 * "stopped". */
#define SHARD_RUN_STOPPED 4

#endif
