/* shard — output files described as data: one table per file (a column or
 * key: name, type, unit, description, and which runs write it). The host
 * writes CSV headers, the Frictionless Data package (datapackage.json) and
 * docs/outputs.md from these tables; a model declares its own history
 * columns, summary keys and files with them (shard/model.h).
 *
 * Missing values: an empty CSV field, `~` (YAML null) in summary.yaml. */
#ifndef SHARD_OUTPUTS_PUBLIC_H
#define SHARD_OUTPUTS_PUBLIC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum shard_out_type {
  SHARD_OUT_INTEGER,
  SHARD_OUT_NUMBER,
  SHARD_OUT_STRING,
  SHARD_OUT_BOOLEAN
} shard_out_type;

/* Which runs write a column or key: every bit of a field's `when` must be
 * among the run's flags (0: every run). The low 16 bits are the host's; the
 * high 16 are a model's own (SHARD_OUT_MODEL_BIT(k), k < 16), named for the
 * docs by the model (shard_model_outputs.when_words). SHARD_OUT_SOMETIMES
 * marks what even such a run writes only in some cases (said in the
 * description). */
enum {
  SHARD_OUT_FRACTURE = 1u << 2,  /* a `fracture` section */
  SHARD_OUT_LOADING = 1u << 5,   /* prescribed motion that is released (model.loading) */
  SHARD_OUT_STOP = 1u << 6,      /* time.stop: dissipation_settled */
  SHARD_OUT_SOMETIMES = 1u << 7, /* not in every such run (see the description) */
  SHARD_OUT_PROBES = 1u << 8     /* output.probes */
};
#define SHARD_OUT_MODEL_BIT(k) (1u << (16 + (k)))
#define SHARD_OUT_MODEL_BITS 16

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

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif
