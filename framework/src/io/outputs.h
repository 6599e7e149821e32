/* host: the output files of runs and campaigns described as data — one table
 * per file (the types: shard/outputs.h). The CSV headers, the Frictionless Data package
 * (datapackage.json, Table Schema) written beside the CSVs, the documentation
 * of summary.yaml and docs/outputs.md (`shard schema outputs`) all come from
 * these tables, so they cannot drift apart.
 *
 * Missing values: an empty CSV field, `~` (YAML null) in summary.yaml. */
#ifndef SHARD_OUTPUTS_H
#define SHARD_OUTPUTS_H

#include <stddef.h>
#include <stdio.h>

#include "shard/outputs.h"
#include "shard/status.h"

/* ---- history.csv: one X-macro, the columns in file order ------------------
 * X(ID, name, type, unit, when, fmt, description); run.c fills a value per
 * ID for a row and writes the columns its run writes, empty when not finite. */
#define SHARD_HISTORY_COLUMNS(X)                                                                                       \
  X(H_STEP, "step", SHARD_OUT_INTEGER, "", 0, NULL, "time step number (0: the initial state)")                        \
  X(H_T, "t", SHARD_OUT_NUMBER, "s", 0, "%.15g", "time")                                                               \
  X(H_EVENT, "event", SHARD_OUT_INTEGER, "", 0, NULL,                                                                  \
    "1 when the row was written for an event (contact set changed, interface inserted, release, stop), else 0")        \
  X(H_N_ACTIVE, "n_active", SHARD_OUT_INTEGER, "", 0, NULL, "active contacts at the end of the step")                 \
  X(H_LCP_BLOCKS, "lcp_blocks", SHARD_OUT_INTEGER, "", 0, NULL, "LCP blocks solved in the step")                      \
  X(H_LCP_ITERATIONS, "lcp_iterations", SHARD_OUT_INTEGER, "", 0, NULL, "LCP solver iterations in the step")          \
  X(H_LCP_RESIDUAL, "lcp_residual", SHARD_OUT_NUMBER, "1", 0, "%.3e",                                                  \
    "largest LCP residual of the step, in the solver's own (scaled) measure")                                          \
  X(H_LCP_FALLBACKS, "lcp_fallbacks", SHARD_OUT_INTEGER, "", 0, NULL, "LCP blocks handed to the fallback solver")     \
  X(H_MAX_PENETRATION, "max_penetration", SHARD_OUT_NUMBER, "m", 0, "%.6e",                                            \
    "largest penetration (-gap) over the contacts, 0 without overlap")                                                 \
  X(H_KINETIC, "kinetic", SHARD_OUT_NUMBER, "J", 0, "%.15g", "kinetic energy")                                         \
  X(H_ELASTIC, "elastic", SHARD_OUT_NUMBER, "J", 0, "%.15g", "elastic strain energy of the elements")                 \
  X(H_PENALTY, "penalty", SHARD_OUT_NUMBER, "J", 0, "%.15g", "energy stored in penalty contact springs")               \
  X(H_CONTACT_DISSIPATION, "contact_dissipation", SHARD_OUT_NUMBER, "J", 0, "%.15g",                                   \
    "energy dissipated by contact since the start (docs/theory.md, energy balance)")                                   \
  X(H_EXTERNAL_WORK, "external_work", SHARD_OUT_NUMBER, "J", 0, "%.15g",                                               \
    "work of body forces and prescribed ends since the start")                                                         \
  X(H_ALGORITHMIC_ENERGY, "algorithmic_energy", SHARD_OUT_NUMBER, "J", 0, "%.15g",                                     \
    "the scheme's stored energy H (E - dt^2/8 a'Ma for Newmark forms, else E)")                                        \
  X(H_BALANCE_DRIFT, "balance_drift", SHARD_OUT_NUMBER, "1", 0, "%.6e",                                                \
    "energy balance error since the start over the largest energy so far (relative)")

#define SHARD_OUT_ID_(id, ...) id,
enum shard_history_column { SHARD_HISTORY_COLUMNS(SHARD_OUT_ID_) SHARD_HISTORY_N };
#undef SHARD_OUT_ID_

/* the tables of the files */
/* the run's own: its history columns and summary keys; the model's follow
 * them (its tables: shard/model.h, shard_model_outputs) */
extern const shard_out_table shard_out_history;            /* history.csv */
extern const shard_out_table shard_out_summary;            /* summary.yaml (dotted keys) */
extern const shard_out_table shard_out_campaign_runs;      /* campaign.csv: the run columns */
extern const shard_out_table shard_out_statistics;         /* statistics.csv: per statistic column */
extern const shard_out_table shard_out_pooled_sizes;       /* a campaign's fragment_sizes.csv */

/* a run's flags (SHARD_OUT_*) include every bit of f->when */
int shard_out_writes(const shard_out_field *f, unsigned flags);
/* the field of a table by name among those the flags write (flags ~0u: any) */
const shard_out_field *shard_out_find(const shard_out_table *t, const char *name, unsigned flags);
/* The header line of a CSV: the columns the flags write, comma-separated, "\n". */
void shard_out_header(FILE *f, const shard_out_table *t, unsigned flags);
/* The same over the columns of n tables in turn (NULL tables skipped). */
void shard_out_header_n(FILE *f, const shard_out_table *const *t, size_t n, unsigned flags);

/* ---- datapackage.json --------------------------------------------------------- */

/* A CSV resource of a package: its file name and its fields (in file order). */
typedef struct shard_out_resource {
  const char *path;
  const char *title;
  const char *description;
  const shard_out_field *const *fields;
  size_t n_fields;
} shard_out_resource;

/* Write dir/datapackage.json (atomically): a Frictionless Data Package named
 * `name` with one tabular resource per CSV (Table Schema: name, type, unit,
 * description; missingValues [""]). */
int shard_out_write_package(const char *dir, const char *name, const char *description,
                            const shard_out_resource *res, size_t n, shard_msg *msg);
/* The package of a run directory: history.csv (the run's columns, then the
 * model's `model_history`) and the model's `files` the flags write. */
int shard_out_write_run_package(const char *dir, unsigned flags, const shard_out_table *model_history,
                                const shard_out_table *const *files, size_t n_files, shard_msg *msg);

/* ---- docs ---------------------------------------------------------------------- */

/* The outputs of one model for the docs: the model types it serves
 * ("particle, bar"), its tables and the words of its own `when` bits. */
typedef struct shard_out_model_doc {
  char names[128];
  const shard_out_table *history, *summary;
  const shard_out_table *const *files;
  size_t n_files;
  const char *const *when_words; /* SHARD_OUT_MODEL_BITS entries (NULL: none) */
} shard_out_model_doc;

/* The generated part of docs/outputs.md: a table per file, the run's, then
 * each model's. */
int shard_out_write_markdown(FILE *out, const shard_out_model_doc *models, size_t n_models);

#endif
