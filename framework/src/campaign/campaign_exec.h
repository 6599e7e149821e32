/* host: execution of a campaign: runs in separate processes, slices, resume, the table. */
#ifndef SHARD_CAMPAIGN_EXEC_H
#define SHARD_CAMPAIGN_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "campaign/campaign.h"
#include "campaign/campaign_table.h"

/* Digits of a run directory's number: dir/runs/0007 (at least 4). */
int shard_campaign_index_width(size_t n_runs);

/* What `--resume` does with run i of a campaign in out_dir: */
typedef enum shard_campaign_run_state {
  SHARD_CAMPAIGN_RUN_START,    /* start it */
  SHARD_CAMPAIGN_RUN_DONE,     /* reuse it: finished ok with an unchanged key */
  SHARD_CAMPAIGN_RUN_CONTINUE  /* continue it from its checkpoint (at *step), if the run hash agrees */
} shard_campaign_run_state;
shard_campaign_run_state shard_campaign_run_status(const shard_campaign *c, const char *out_dir, size_t i,
                                                   int64_t *step);

typedef struct shard_campaign_progress {
  size_t total;     /* runs of this slice */
  size_t done;      /* finished (ok or failed), including resumed */
  size_t failed;
  size_t running;
  size_t skipped;   /* reused by --resume */
  double elapsed;   /* seconds since start */
  double eta;       /* seconds, < 0 when unknown */
  const char *last; /* "run 12: ok" of the run that just finished, or NULL */
} shard_campaign_progress;

typedef struct shard_campaign_options {
  const char *out_dir;     /* campaign directory (created) */
  const char *exe;         /* the shard executable spawned for each run */
  const char *plugin_path; /* --plugin-path passed on to the runs, or NULL */
  int jobs;                /* parallel runs, >= 1 */
  int slice_k, slice_n;    /* run indices with index % n == k - 1; n = 0: all */
  int have_range;          /* --runs A-B: only indices first..last (and the slice's) */
  size_t range_first, range_last;
  int resume;              /* reuse finished runs with an unchanged key */
  double timeout;          /* seconds per run, overrides the file's; 0: the file's */
  double stall_timeout;    /* seconds without a step before a run is killed, overrides the file's;
                              0: the file's, < 0: no watchdog */
  int handle_signals;      /* SIGINT/SIGTERM stop the campaign cleanly */
  int threads_per_run;     /* `shard run --threads` of each run; <= 1: none given (one thread) */
  void (*progress)(void *ctx, const shard_campaign_progress *p);
  void *progress_ctx;
} shard_campaign_options;

typedef struct shard_campaign_result {
  size_t total, ok, failed, skipped;
  size_t stopped;         /* runs stopped part-way with the campaign: rows with status `interrupted` */
  int interrupted;        /* stopped by a signal: the table has what finished, and the stopped runs */
  char table_path[4096];  /* the table written */
} shard_campaign_result;

/* Whether run i is one of those the options select (slice and range), and
 * whether the slice and range fit the campaign (else SHARD_ERR_INPUT). */
int shard_campaign_selected(const shard_campaign_options *opt, size_t i);
int shard_campaign_check_selection(const shard_campaign *c, const shard_campaign_options *opt, shard_msg *msg);

/* Run the campaign (or its slice) and write the table: DIR/campaign.csv, or
 * DIR/campaign.slice-K-of-N.csv. SHARD_OK when the table was written (runs
 * may have failed: see res), else an error with msg. */
int shard_campaign_execute(const shard_campaign *c, const shard_campaign_options *opt, shard_table **out_table,
                           shard_campaign_result *res, shard_msg *msg);

#endif
