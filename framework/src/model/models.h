/* host: the models the case format knows (model.type), each behind the model
 * interface (interface.h), and the outputs of every run whatever its model. */
#ifndef SHARD_MODEL_MODELS_H
#define SHARD_MODEL_MODELS_H

#include "case/case.h"
#include "model/interface.h"

/* The models as variants of the case's `model` section (model.type and the
 * model's keys; case/case_spec.c). */
#define SHARD_N_MODELS 3
extern const shard_case_variant shard_model_variants[SHARD_N_MODELS];

/* The model the case selects (model.type): its ops, or NULL (msg says why). */
const shard_model_ops *shard_model_ops_for(const shard_case *c, shard_msg *msg);

/* The output tables of the models, one entry per distinct set of tables with
 * the model types it serves (for docs/outputs.md); returns how many (at most
 * max written). */
size_t shard_models_docs(shard_out_model_doc *out, size_t max);
/* Every summary key / history column a run may write, whatever its model:
 * the run's own tables, then each model's. shard_models_*_tables fill `out`
 * (at most max) and return how many; *_find return the field or NULL. */
size_t shard_models_summary_tables(const shard_out_table **out, size_t max);
size_t shard_models_history_tables(const shard_out_table **out, size_t max);
const shard_out_field *shard_models_find_summary(const char *name);
const shard_out_field *shard_models_find_history(const char *name);

#endif
