/* host: the models among the registry's plugins (SHARD_KIND_MODEL,
 * shard/model.h): the one a case selects, and the output tables of all of
 * them for the docs and the campaign's column checks. */
#ifndef SHARD_MODEL_MODELS_H
#define SHARD_MODEL_MODELS_H

#include "case/case.h"
#include "io/outputs.h"
#include "loader/registry.h"
#include "shard/model.h"

/* The model plugin the case selects (model.type), or NULL (msg says why:
 * unknown, with the models there are). */
const shard_loaded_plugin *shard_model_plugin_for(const shard_case *c, const shard_registry *reg, shard_msg *msg);

/* The output tables of every model plugin the registry finds (it loads the
 * search path), one entry per distinct set of tables with the model names it
 * serves (for docs/outputs.md); returns how many (at most max written). */
size_t shard_models_docs(const shard_registry *reg, shard_out_model_doc *out, size_t max);
/* Every summary key / history column a run may write, whatever its model:
 * the run's own tables, then each model's. shard_models_*_tables fill `out`
 * (at most max) and return how many; *_find return the field or NULL. Without
 * a registry: the run's own tables only. */
size_t shard_models_summary_tables(const shard_registry *reg, const shard_out_table **out, size_t max);
size_t shard_models_history_tables(const shard_registry *reg, const shard_out_table **out, size_t max);
const shard_out_field *shard_models_find_summary(const shard_registry *reg, const char *name);
const shard_out_field *shard_models_find_history(const shard_registry *reg, const char *name);

#endif
