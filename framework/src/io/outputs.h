/* host: the output files of runs and campaigns described as data — one table
 * per file (column or key: name, type, unit, description, and which runs
 * write it). The CSV headers, the Frictionless Data package
 * (datapackage.json, Table Schema) written beside the CSVs, the documentation
 * of summary.yaml and docs/outputs.md (`shard schema outputs`) all come from
 * these tables, so they cannot drift apart.
 *
 * Missing values: an empty CSV field, `~` (YAML null) in summary.yaml. */
#ifndef SHARD_OUTPUTS_H
#define SHARD_OUTPUTS_H

#include <stddef.h>
#include <stdio.h>

#include "shard/status.h"

typedef enum shard_out_type {
  SHARD_OUT_INTEGER,
  SHARD_OUT_NUMBER,
  SHARD_OUT_STRING,
  SHARD_OUT_BOOLEAN
} shard_out_type;

/* Which runs write a column or key: every bit of a field's `when` must be
 * among the run's flags (0: every run). SHARD_OUT_SOMETIMES marks what even
 * such a run writes only in some cases (said in the description). */
enum {
  SHARD_OUT_PARTICLE = 1u << 0,  /* model.type particle */
  SHARD_OUT_BAR = 1u << 1,       /* model.type bar */
  SHARD_OUT_FRACTURE = 1u << 2,  /* a `fracture` section */
  SHARD_OUT_REF_BALL = 1u << 3,  /* the bouncing-ball reference */
  SHARD_OUT_REF_BAR = 1u << 4,   /* the impacting-bar reference */
  SHARD_OUT_LOADING = 1u << 5,   /* prescribed end velocities (model.loading) */
  SHARD_OUT_STOP = 1u << 6,      /* time.stop: dissipation_settled */
  SHARD_OUT_SOMETIMES = 1u << 7  /* not in every such run (see the description) */
};

typedef struct shard_out_field {
  const char *name; /* column, or dotted summary key */
  shard_out_type type;
  const char *unit; /* SI unit; "1" dimensionless; "" none (counts, ids, text) */
  unsigned when;
  const char *fmt; /* printf format of a number column ("%.15g"); NULL: integer or text */
  const char *description;
} shard_out_field;

typedef struct shard_out_table {
  const char *file; /* "history.csv", "summary.yaml", ... */
  const char *title;
  const char *description;
  const shard_out_field *fields;
  size_t n_fields;
  unsigned when; /* runs that write the file (0: every run) */
} shard_out_table;

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
    "energy balance error since the start over the largest energy so far (relative)")                                  \
  X(H_U, "u", SHARD_OUT_NUMBER, "m", SHARD_OUT_PARTICLE, "%.15g", "particle position")                                 \
  X(H_V, "v", SHARD_OUT_NUMBER, "m/s", SHARD_OUT_PARTICLE, "%.15g", "particle velocity")                               \
  X(H_A, "a", SHARD_OUT_NUMBER, "m/s^2", SHARD_OUT_PARTICLE, "%.15g", "particle acceleration")                         \
  X(H_GAP, "gap", SHARD_OUT_NUMBER, "m", SHARD_OUT_PARTICLE, "%.15g", "gap to the obstacle (negative: overlap)")      \
  X(H_IMPULSE, "impulse", SHARD_OUT_NUMBER, "N s", SHARD_OUT_PARTICLE, "%.15g", "contact impulse of the step")         \
  X(H_FORCE, "force", SHARD_OUT_NUMBER, "N", SHARD_OUT_PARTICLE, "%.15g",                                              \
    "contact force (impulse / dt, or the penalty force)")                                                              \
  X(H_U_CONTACT, "u_contact", SHARD_OUT_NUMBER, "m", SHARD_OUT_BAR, "%.15g",                                           \
    "displacement of the bar's contact node (empty without a reference contact node)")                                 \
  X(H_V_CONTACT, "v_contact", SHARD_OUT_NUMBER, "m/s", SHARD_OUT_BAR, "%.15g",                                         \
    "velocity of the bar's contact node (empty without a reference contact node)")                                     \
  X(H_FORCE_CONTACT, "force_contact", SHARD_OUT_NUMBER, "N", SHARD_OUT_BAR, "%.15g",                                   \
    "force at the bar's contact node (0 without contact)")                                                             \
  X(H_MOMENTUM, "momentum", SHARD_OUT_NUMBER, "kg m/s", SHARD_OUT_BAR, "%.15g", "total linear momentum of the bar")   \
  X(H_COHESIVE_REVERSIBLE, "cohesive_reversible", SHARD_OUT_NUMBER, "J", SHARD_OUT_FRACTURE, "%.15g",                  \
    "recoverable energy stored in the cohesive interfaces")                                                            \
  X(H_COHESIVE_WORK, "cohesive_work", SHARD_OUT_NUMBER, "J", SHARD_OUT_FRACTURE, "%.15g",                              \
    "work done on the cohesive interfaces since the start")                                                            \
  X(H_FRACTURE_DISSIPATION, "fracture_dissipation", SHARD_OUT_NUMBER, "J", SHARD_OUT_FRACTURE, "%.15g",                \
    "energy dissipated by fracture: cohesive_work - cohesive_reversible")                                              \
  X(H_INTERFACES, "interfaces", SHARD_OUT_INTEGER, "", SHARD_OUT_FRACTURE, NULL, "cohesive interfaces so far")        \
  X(H_BROKEN, "broken", SHARD_OUT_INTEGER, "", SHARD_OUT_FRACTURE, NULL,                                               \
    "fully broken interfaces (opening beyond delta_c)")                                                                \
  X(H_FRAGMENTS, "fragments", SHARD_OUT_INTEGER, "", SHARD_OUT_FRACTURE, NULL, "fragments: broken + 1")               \
  X(H_INSERTIONS, "insertions", SHARD_OUT_INTEGER, "", SHARD_OUT_FRACTURE, NULL, "cohesive insertions so far")        \
  X(H_U_REF, "u_ref", SHARD_OUT_NUMBER, "m", SHARD_OUT_REF_BALL, "%.15g",                                              \
    "reference (exact) position of the bouncing ball")                                                                 \
  X(H_V_REF, "v_ref", SHARD_OUT_NUMBER, "m/s", SHARD_OUT_REF_BALL, "%.15g",                                            \
    "reference (exact) velocity of the bouncing ball")                                                                 \
  X(H_U_REF_BAR, "u_ref", SHARD_OUT_NUMBER, "m", SHARD_OUT_REF_BAR, "%.15g",                                           \
    "1D wave solution: displacement of the contact node")                                                              \
  X(H_V_REF_BAR, "v_ref", SHARD_OUT_NUMBER, "m/s", SHARD_OUT_REF_BAR, "%.15g",                                         \
    "1D wave solution: velocity of the contact node")                                                                  \
  X(H_FORCE_REF, "force_ref", SHARD_OUT_NUMBER, "N", SHARD_OUT_REF_BAR, "%.15g", "1D wave solution: contact force")

#define SHARD_OUT_ID_(id, ...) id,
enum shard_history_column { SHARD_HISTORY_COLUMNS(SHARD_OUT_ID_) SHARD_HISTORY_N };
#undef SHARD_OUT_ID_

/* the tables of the files */
extern const shard_out_table shard_out_history;            /* history.csv */
extern const shard_out_table shard_out_fragments;          /* fragments.csv */
extern const shard_out_table shard_out_fragment_sizes;     /* fragment_sizes.csv */
extern const shard_out_table shard_out_fragment_histogram; /* fragment_histogram.csv */
extern const shard_out_table shard_out_interfaces;         /* interfaces.csv */
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
/* The package of a run directory: the CSVs the flags write (history.csv,
 * and for fracture runs fragments.csv, fragment_sizes.csv,
 * fragment_histogram.csv, interfaces.csv). */
int shard_out_write_run_package(const char *dir, unsigned flags, shard_msg *msg);

/* ---- docs ---------------------------------------------------------------------- */

/* The generated part of docs/outputs.md: a table per file. */
int shard_out_write_markdown(FILE *out);

#endif
