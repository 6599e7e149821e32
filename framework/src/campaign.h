/* host: campaigns (docs/campaigns.md) — a base case plus a sweep, run point by point
 * in separate processes, collected into one tidy table, plotted.
 *
 *   base: ball_e1.yaml                 # or `case:` with an inline case
 *   set: {output.every: 1000}          # fixed overrides of every run
 *   sweep:                             # cartesian product, first key slowest
 *     integrator.plugin: [nsn, moreau_jean, cd_lagrange]
 *     time.dt: {logspace: [-6, -1, 50]}
 *     zip: {model.elements: [10, 20], var.h: [0.1, 0.05]}   # one zipped axis
 *   derived: {time.end: 10 * time_dt}  # expressions of the swept values
 *   timeout: 600                       # per run, seconds
 *   stall_timeout: 600                 # no step for this long: killed, failed (0: off)
 *   statistics: {over: fracture.strength.seed}   # mean and 95% interval over a swept key
 *   plots: [...]
 *
 * Loading validates the file strictly (file:line:col errors in a shard_diag)
 * and, given a registry, every run's overrides as a case, before anything
 * runs. Execution, the table, the statistics and the plots are in
 * campaign_exec.c, campaign_table.c, campaign_stats.c and campaign_plot.c.
 * Nothing here prints. */
#ifndef SHARD_CAMPAIGN_H
#define SHARD_CAMPAIGN_H

#include <stddef.h>
#include <stdio.h>

#include "diag.h"
#include "registry.h"

#define SHARD_CAMPAIGN_MAX_RUNS 100000

typedef struct shard_campaign shard_campaign;

/* One point of the sweep. */
typedef struct shard_campaign_run {
  size_t index;
  const char *const *values; /* one per parameter column (shard_campaign_param) */
  const char *const *sets;   /* "key.path=value" passed to `shard run`: fixed, swept, derived */
  size_t n_sets;
  double cost;               /* the file's `cost` expression for this run (0 without one) */
} shard_campaign_run;

/* Load and validate a campaign file. With reg non-NULL each run is also
 * validated as a case (shard_case_load with its --set list). SHARD_OK, or
 * SHARD_ERR_INPUT with every problem in d (or SHARD_ERR_NOMEM). */
int shard_campaign_load(const char *path, const shard_registry *reg, shard_campaign **out, shard_diag *d);
void shard_campaign_destroy(shard_campaign *c);

const char *shard_campaign_path(const shard_campaign *c);
const char *shard_campaign_name(const shard_campaign *c);
/* The base case file, or NULL for an inline case (written to a run's
 * campaign directory by shard_campaign_write_case). */
const char *shard_campaign_base(const shard_campaign *c);
/* The base case's text (the file's, or the inline case with the campaign
 * file's line and column positions kept). */
const char *shard_campaign_case_text(const shard_campaign *c);
/* sha256 of the base case text and of the campaign file (hex). */
const char *shard_campaign_case_hash(const shard_campaign *c);
const char *shard_campaign_hash(const shard_campaign *c);
/* Per-run time limit in seconds from the file (0: none). */
double shard_campaign_timeout(const shard_campaign *c);
/* The stall watchdog: a run that makes no step for this many seconds is
 * killed and marked failed ("stalled: ..."); the file's `stall_timeout`, else
 * SHARD_CAMPAIGN_STALL_DEFAULT; 0: no watchdog. */
#define SHARD_CAMPAIGN_STALL_DEFAULT 600.0
double shard_campaign_stall_timeout(const shard_campaign *c);
/* 1 if the file gives `cost`, an estimate of each run's cost: the runs then
 * start costliest first (ties in index order), so that with -j N the long
 * runs do not come last; their indices, directories and table rows stay. */
int shard_campaign_has_cost(const shard_campaign *c);
/* The registry the campaign was loaded with (NULL: none). */
const shard_registry *shard_campaign_registry(const shard_campaign *c);

size_t shard_campaign_n_params(const shard_campaign *c);
const char *shard_campaign_param(const shard_campaign *c, size_t i); /* dotted path, swept then derived */
size_t shard_campaign_n_runs(const shard_campaign *c);
const shard_campaign_run *shard_campaign_run_at(const shard_campaign *c, size_t i);

/* The shortest decimal text that reads back as x; integers without exponent
 * ("1e-06", "0.1", "3"). */
void shard_format_number(double x, char *buf, size_t n);

/* `shard validate` of a campaign file: shard_campaign_load then destroy. */
int shard_campaign_validate_file(const char *path, const shard_registry *reg, shard_diag *d);
/* 1 if `path` is a YAML file whose top level has a `sweep` key (a cheap
 * scan, no validation), else 0. */
int shard_campaign_is_campaign(const char *path);
/* JSON Schema (draft 2020-12) of campaign files; `case` refers to
 * case.schema.json beside it. */
int shard_schema_write_campaign(const shard_registry *reg, FILE *out);

/* ---- plots (campaign_plot.c) ------------------------------------------------ */

/* A `plots:` entry. Columns are table columns (data: campaign) or the
 * runs' history.csv columns (data: history). */
typedef struct shard_campaign_plot {
  const char *file;   /* base name of the outputs under DIR/plots/ */
  const char *title, *xlabel, *ylabel;
  const char *x;
  const char *const *y;
  size_t n_y;
  const char *const *series; /* group-by parameter columns */
  size_t n_series;
  const char *const *where_cols; /* keep rows whose parameter equals the value */
  const char *const *where_vals;
  size_t n_where;
  int logx, logy;
  int history;                   /* data: history */
  const char *const *ref_cols;   /* history columns drawn once (from the first run) */
  size_t n_ref_cols;
  const char *const *ref_exprs;  /* reference curves, expressions of x */
  const char *const *ref_titles;
  size_t n_refs;
  double xscale, yscale;         /* applied to x and y (and the reference curves' x) */
  int has_fit_range;
  double fit_lo, fit_hi;         /* slopes fitted over x in [lo, hi] */
  int statistics;                /* table: statistics (statistics.csv instead of campaign.csv) */
  const char *const *yerror;     /* error bar columns, one per y; NULL: no error bars */
  size_t n_yerror;
} shard_campaign_plot;

size_t shard_campaign_n_plots(const shard_campaign *c);
const shard_campaign_plot *shard_campaign_plot_at(const shard_campaign *c, size_t i);

/* ---- statistics across a swept key (campaign_stats.c) ------------------------ */

/* A `statistics:` block. */
typedef struct shard_campaign_statistics {
  const char *over;            /* the swept key averaged over (e.g. a seed) */
  const char *const *group;    /* the other swept keys: one row per distinct combination */
  size_t n_group;
  const char *const *columns;  /* statistic columns; NULL: every numeric result column */
  size_t n_columns;
} shard_campaign_statistics;

/* The campaign's `statistics:` block, or NULL. */
const shard_campaign_statistics *shard_campaign_stats(const shard_campaign *c);
/* 1 for the table columns that hold no result (index, status, exit_code,
 * signal, host, message): never statistic columns. */
int shard_campaign_fixed_column(const char *name);

/* ---- the table (campaign_table.c) -------------------------------------------- */

/* Columns are kept in order of first use; cells are text, empty when absent. */
typedef struct shard_table shard_table;

shard_table *shard_table_create(void);
void shard_table_destroy(shard_table *t);
/* Append a column (no-op if present); its position. */
int shard_table_column(shard_table *t, const char *name);
/* Append a row; its position, or -1 when out of memory. */
int shard_table_add_row(shard_table *t, long index);
/* Set a cell (creating its column when new). SHARD_OK or SHARD_ERR_NOMEM. */
int shard_table_set(shard_table *t, int row, const char *column, const char *value);
size_t shard_table_n_rows(const shard_table *t);
size_t shard_table_n_cols(const shard_table *t);
const char *shard_table_col_name(const shard_table *t, size_t col);
int shard_table_find_col(const shard_table *t, const char *name); /* -1 if absent */
long shard_table_row_index(const shard_table *t, size_t row);
int shard_table_row_line(const shard_table *t, size_t row); /* its CSV line when read from a file, else 0 */
const char *shard_table_get(const shard_table *t, size_t row, size_t col); /* "" when empty */
/* Sort rows by index (stable). */
void shard_table_sort(shard_table *t);
/* RFC 4180 CSV, quoted only when needed, "\n" line ends. */
int shard_table_write_csv(const shard_table *t, FILE *out);
/* Write dir/name atomically (temporary file + rename). */
int shard_table_write_file(const shard_table *t, const char *dir, const char *name, shard_msg *msg);
/* The same without the index column (a table keyed by other columns). */
int shard_table_write_file_unindexed(const shard_table *t, const char *dir, const char *name, shard_msg *msg);
/* Read a CSV written by shard_table_write_csv (RFC 4180); the first column
 * must be `index`, a run number below SHARD_CAMPAIGN_MAX_RUNS (digits only;
 * "path:line: ..." errors). */
int shard_table_read_csv(const char *path, shard_table **out, shard_msg *msg);

/* The fixed columns of a campaign table, after `index` and the parameters. */
extern const char *const shard_campaign_run_columns[];
extern const size_t shard_campaign_n_run_columns;

/* The scalars of a YAML file flattened with dots ("reference.eta"), in file
 * order, into row `row` of t; keys listed in `skip` are left out. Empty
 * values are not set. SHARD_OK, or SHARD_ERR_IO/INPUT with msg. */
int shard_table_add_yaml(shard_table *t, int row, const char *path, const char *const *skip, size_t n_skip,
                         shard_msg *msg);

/* Join slice tables (any number, each with the columns index, parameters,
 * run columns, summary scalars) into one table identical to a single-machine
 * run: rows sorted by index, summary columns in order of first appearance
 * over the sorted rows. Duplicate indices and mismatched parameter columns
 * are errors (SHARD_ERR_INPUT with msg). */
int shard_table_merge(shard_table *const *parts, size_t n, shard_table **out, shard_msg *msg);

/* The statistics table of a campaign table (shard_campaign_stats(c) must not
 * be NULL), rows indexed by group from 0: per group (the distinct values of
 * the group columns, in order of first appearance) the group columns, `n`
 * (runs with status ok), `failed` (the other runs), and for each statistic
 * column C over the ok runs with a number in C: C.mean, C.std (n - 1),
 * C.ci95 (half-width t_{0.975,n-1} std / sqrt(n)), C.min, C.max; empty where
 * undefined. A column with fewer numbers than ok runs in some group gets a
 * C.n column before C.mean. SHARD_OK, or SHARD_ERR_INPUT with msg (a group
 * column missing from the table, a listed column that is not numeric). */
int shard_campaign_statistics_table(const shard_campaign *c, const shard_table *t, shard_table **out, shard_msg *msg);
/* Write dir/statistics.csv (atomically, without the index column) when the
 * campaign has a `statistics:` block; SHARD_OK and nothing written without. */
int shard_campaign_write_statistics(const shard_campaign *c, const shard_table *t, const char *dir, shard_msg *msg);

/* Pool the fragment sizes of each statistics group: every ok run's
 * dir/runs/N/fragment_sizes.csv (written by fracture runs), each size also
 * over its own run's mean, sorted by that ratio, into dir/fragment_sizes.csv
 * (atomically) with the group columns, `runs` (runs pooled in the group),
 * size, size_over_mean and cumulative_number; *pooled_runs (may be NULL)
 * counts the runs read. SHARD_OK and nothing written without a `statistics:`
 * block or when no run has the file (a table merged away from its run
 * directories). */
int shard_campaign_write_pooled_sizes(const shard_campaign *c, const shard_table *t, const char *dir, size_t *pooled_runs,
                                      shard_msg *msg);

/* Write dir/datapackage.json (atomically): a Frictionless Data Package with
 * one resource per table of the campaign directory — campaign.csv (t), and
 * statistics.csv and the pooled fragment_sizes.csv when the campaign has a
 * `statistics:` block (the latter when dir holds it) — each with its Table
 * Schema: name, type, unit and description of every column (run columns and
 * summary keys from outputs.h, parameters from the case format's key
 * tables). c may be NULL (a merged table without its campaign file). */
int shard_campaign_write_package(const shard_campaign *c, const shard_table *t, const char *dir, shard_msg *msg);

/* ---- execution (campaign_exec.c) ------------------------------------------------ */

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

/* Write the inline case (or a copy of the base) to dir/case.yaml. */
int shard_campaign_write_case(const shard_campaign *c, const char *dir, char *out_path, size_t size, shard_msg *msg);

/* ---- plots (campaign_plot.c) ------------------------------------------------ */

typedef struct shard_plot_report {
  size_t written;  /* scripts and data written */
  size_t rendered; /* PNG/SVG rendered by gnuplot */
  int have_gnuplot;
  size_t failed;   /* plots with nothing to draw (not rendered), or that gnuplot failed on */
  char failure[1024]; /* why, for the first of them */
} shard_plot_report;

/* Write DIR/plots/<file>.dat + .gp (+ .slopes.csv for log-log plots) for
 * every plot of the campaign from its table (the statistics table computed
 * from it for `table: statistics`, the runs' history.csv for `data:
 * history`), and render them when gnuplot is on PATH. A plot without a
 * single data point (no ok run has a number in its columns) is written but
 * not rendered; it and a plot gnuplot fails on count in rep->failed. */
int shard_campaign_plots(const shard_campaign *c, const shard_table *t, const char *dir, shard_plot_report *rep,
                        shard_msg *msg);

#endif
