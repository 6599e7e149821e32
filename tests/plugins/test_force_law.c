/* tests: "test_force_law" — linear penalty f = k max(-g, 0). */
#include <stdlib.h>

#include "shard/contact_law.h"

typedef struct tfl_self {
  double k;
} tfl_self;

static const shard_param_spec params[] = {
    {"stiffness", SHARD_PARAM_REAL, NULL, 0.0, SHARD_INF, "N/m", SHARD_PARAM_REQUIRED | SHARD_PARAM_MIN_EXCLUSIVE,
     NULL, "penalty stiffness k"},
};

static int tfl_create(const shard_params *p, const shard_scales *scales, void **out_self, shard_msg *msg) {
  tfl_self *s = malloc(sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "test_force_law: out of memory");
  s->k = shard_params_real(p, "stiffness");
  *out_self = s;
  return SHARD_OK;
}

static void tfl_destroy(void *self) { free(self); }

static void tfl_force(const void *self, int32_t n, const double *g, double *out_f, double *out_k,
                      double *out_energy) {
  const tfl_self *s = self;
  for (int32_t i = 0; i < n; ++i) {
    double pen = g[i] < 0.0 ? -g[i] : 0.0;
    out_f[i] = s->k * pen;
    out_k[i] = g[i] < 0.0 ? s->k : 0.0;
    out_energy[i] = 0.5 * s->k * pen * pen;
  }
}

static double tfl_max_stiffness(const void *self) { return ((const tfl_self *)self)->k; }

static const shard_contact_law_ops ops = {
    .create = tfl_create, .destroy = tfl_destroy, .force = tfl_force, .max_stiffness = tfl_max_stiffness};

static const shard_plugin desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_CONTACT_LAW),
    .name = "test_force_law",
    .version = "0.1.0",
    .summary = "linear penalty (test plugin)",
    .params = params,
    .n_params = SHARD_NPARAMS(params),
    .ops_size = sizeof ops,
    .caps = SHARD_CAP_FORCE_LAW,
    .ops = &ops,
};
SHARD_PLUGIN_SINGLE(desc)
