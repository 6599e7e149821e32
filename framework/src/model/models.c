/* host: the models among the registry's plugins (see models.h). */
#include "model/models.h"

#include <stdio.h>
#include <string.h>

#include "loader/plugin_calls.h"

const shard_loaded_plugin *shard_model_plugin_for(const shard_case *c, const shard_registry *reg, shard_msg *msg) {
  const char *type = shard_case_string(c, "model.type");
  const shard_loaded_plugin *lp = type ? shard_registry_find(reg, SHARD_KIND_MODEL, type) : NULL;
  if (lp) return lp;
  char names[512] = "";
  size_t k = 0;
  for (size_t i = 0; i < shard_registry_count(reg) && k < sizeof names; ++i) {
    const shard_plugin *d = shard_registry_at(reg, i)->desc;
    if (d->kind != SHARD_KIND_MODEL) continue;
    const int w = snprintf(names + k, sizeof names - k, "%s%s", k ? ", " : "", d->name);
    if (w < 0) break;
    k += (size_t)w;
  }
  shard_msg_set(msg, SHARD_ERR_INPUT, "%s: unknown model type '%s' (models: %s)", shard_case_path(c),
                type ? type : "(none)", k ? names : "none found");
  return NULL;
}

/* the model plugins' ops, every file of the search path looked at */
static size_t model_ops(const shard_registry *reg, const shard_model_ops **ops, const char **names, size_t max) {
  size_t n = 0;
  if (!reg) return 0;
  shard_registry_load_every(reg);
  for (size_t i = 0; i < shard_registry_count(reg) && n < max; ++i) {
    const shard_plugin *d = shard_registry_at(reg, i)->desc;
    const shard_model_ops *o = shard_model_ops_of(d);
    if (!o) continue;
    ops[n] = o;
    names[n++] = d->name;
  }
  return n;
}

#define MAX_MODELS 32

size_t shard_models_docs(const shard_registry *reg, shard_out_model_doc *out, size_t max) {
  const shard_model_ops *ops[MAX_MODELS];
  const char *names[MAX_MODELS];
  const size_t nm = model_ops(reg, ops, names, MAX_MODELS);
  size_t n = 0;
  for (size_t i = 0; i < nm; ++i) {
    const shard_model_outputs *o = ops[i]->outputs;
    size_t k = 0;
    while (k < n && out[k].history != o->history) ++k; /* models sharing their tables: one entry */
    if (k == n) {
      if (n == max) break;
      out[n] = (shard_out_model_doc){.history = o->history, .summary = o->summary, .files = o->files,
                                     .n_files = o->n_files, .when_words = o->when_words};
      snprintf(out[n++].names, sizeof out[0].names, "%s", names[i]);
    } else {
      const size_t len = strlen(out[k].names);
      snprintf(out[k].names + len, sizeof out[k].names - len, ", %s", names[i]);
    }
  }
  return n;
}

static size_t tables(const shard_registry *reg, int summary, const shard_out_table **out, size_t max) {
  const shard_model_ops *ops[MAX_MODELS];
  const char *names[MAX_MODELS];
  const size_t nm = model_ops(reg, ops, names, MAX_MODELS);
  size_t n = 0;
  if (n < max) out[n++] = summary ? &shard_out_summary : &shard_out_history;
  for (size_t i = 0; i < nm && n < max; ++i) {
    const shard_out_table *t = summary ? ops[i]->outputs->summary : ops[i]->outputs->history;
    size_t k = 0;
    while (k < n && out[k] != t) ++k;
    if (t && k == n) out[n++] = t;
  }
  return n;
}

size_t shard_models_summary_tables(const shard_registry *reg, const shard_out_table **out, size_t max) {
  return tables(reg, 1, out, max);
}
size_t shard_models_history_tables(const shard_registry *reg, const shard_out_table **out, size_t max) {
  return tables(reg, 0, out, max);
}

static const shard_out_field *find(const shard_registry *reg, int summary, const char *name) {
  const shard_out_table *t[MAX_MODELS + 1];
  const size_t n = tables(reg, summary, t, MAX_MODELS + 1);
  for (size_t i = 0; i < n; ++i) {
    const shard_out_field *f = shard_out_find(t[i], name, ~0u);
    if (f) return f;
  }
  return NULL;
}

const shard_out_field *shard_models_find_summary(const shard_registry *reg, const char *name) {
  return find(reg, 1, name);
}
const shard_out_field *shard_models_find_history(const shard_registry *reg, const char *name) {
  return find(reg, 0, name);
}
