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
 * runs. Execution, the table, the statistics, the data package and the plots
 * are in campaign_exec.h, campaign_table.h, campaign_stats.h,
 * campaign_package.h and campaign_plot.h: they use this module, it uses none
 * of them. Nothing here prints. */
#ifndef SHARD_CAMPAIGN_H
#define SHARD_CAMPAIGN_H

#include <stddef.h>
#include <stdio.h>

#include "core/diag.h"
#include "loader/registry.h"

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

/* Write the inline case (or a copy of the base) to dir/case.yaml. */
int shard_campaign_write_case(const shard_campaign *c, const char *dir, char *out_path, size_t size, shard_msg *msg);

#endif
