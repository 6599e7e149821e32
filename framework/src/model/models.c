/* host: the models the case format knows, by model.type (see models.h). */
#include "model/models.h"

#include <string.h>

#include "model/chain.h"
#include "model/line.h"

const shard_case_variant shard_model_variants[] = {
    {"particle", "a point mass under gravity above a floor", shard_particle_specs, SHARD_PARTICLE_N_SPECS},
    {"bar", "a 1D P1 bar with lumped mass, walls and (later) cohesive facets", shard_bar_specs, SHARD_BAR_N_SPECS},
    {"chain", "point masses joined by springs of their own stiffness, between optional rigid walls",
     shard_chain_specs, SHARD_CHAIN_N_SPECS},
};

/* the ops of each variant, in the same order */
static const struct {
  const char *type;
  const shard_model_ops *ops;
} models[SHARD_N_MODELS] = {
    {"particle", &shard_line_model_ops}, {"bar", &shard_line_model_ops}, {"chain", &shard_chain_model_ops}};
#define N_MODELS SHARD_N_MODELS

const shard_model_ops *shard_model_ops_for(const shard_case *c, shard_msg *msg) {
  const char *type = shard_case_string(c, "model.type");
  for (size_t i = 0; type && i < N_MODELS; ++i)
    if (strcmp(type, models[i].type) == 0) return models[i].ops;
  shard_msg_set(msg, SHARD_ERR_INPUT, "unknown model type '%s'", type ? type : "(none)");
  return NULL;
}

size_t shard_models_docs(shard_out_model_doc *out, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < N_MODELS; ++i) {
    const shard_model_outputs *o = models[i].ops->outputs;
    size_t k = 0;
    while (k < n && out[k].history != o->history) ++k; /* models sharing their tables: one entry */
    if (k == n) {
      if (n == max) break;
      out[n] = (shard_out_model_doc){.history = o->history, .summary = o->summary, .files = o->files,
                                     .n_files = o->n_files};
      snprintf(out[n++].names, sizeof out[0].names, "%s", models[i].type);
    } else {
      const size_t len = strlen(out[k].names);
      snprintf(out[k].names + len, sizeof out[k].names - len, ", %s", models[i].type);
    }
  }
  return n;
}

static size_t tables(int summary, const shard_out_table **out, size_t max) {
  size_t n = 0;
  if (n < max) out[n++] = summary ? &shard_out_summary : &shard_out_history;
  for (size_t i = 0; i < N_MODELS && n < max; ++i) {
    const shard_model_outputs *o = models[i].ops->outputs;
    const shard_out_table *t = summary ? o->summary : o->history;
    size_t k = 0;
    while (k < n && out[k] != t) ++k;
    if (t && k == n) out[n++] = t;
  }
  return n;
}

size_t shard_models_summary_tables(const shard_out_table **out, size_t max) { return tables(1, out, max); }
size_t shard_models_history_tables(const shard_out_table **out, size_t max) { return tables(0, out, max); }

static const shard_out_field *find(int summary, const char *name) {
  const shard_out_table *t[16];
  const size_t n = tables(summary, t, 16);
  for (size_t i = 0; i < n; ++i) {
    const shard_out_field *f = shard_out_find(t[i], name, ~0u);
    if (f) return f;
  }
  return NULL;
}

const shard_out_field *shard_models_find_summary(const char *name) { return find(1, name); }
const shard_out_field *shard_models_find_history(const char *name) { return find(0, name); }
