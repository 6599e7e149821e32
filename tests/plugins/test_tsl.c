/* tests: "test_tsl" — linear softening t = sigma_c (1 - delta_max/delta_c),
 * unloading to the origin (secant). */
#include <stdlib.h>

#include "shard/tsl.h"

static int tt_create(const shard_params *p, const shard_scales *scales, void **out_self, shard_msg *msg) {
  *out_self = NULL;
  return SHARD_OK;
}

static void tt_destroy(void *self) { (void)self; }

static void tt_evaluate(const void *self, const shard_tsl_batch *b, int commit) {
  for (int32_t i = 0; i < b->n; ++i) {
    double dmax = b->delta[i] > b->delta_max[i] ? b->delta[i] : b->delta_max[i];
    double tmax = dmax >= b->delta_c[i] ? 0.0 : b->sigma_c[i] * (1.0 - dmax / b->delta_c[i]);
    double ks = dmax > 0.0 ? tmax / dmax : 0.0;
    double d = b->delta[i] > 0.0 ? b->delta[i] : 0.0;
    b->traction[i] = ks * d;
    b->stiffness[i] = ks;
    b->reversible[i] = 0.5 * ks * d * d;
    if (commit) b->delta_max[i] = dmax;
  }
}

static double tt_max_stiffness(const void *self) { return SHARD_INF; }

static const shard_tsl_ops ops = {
    .create = tt_create, .destroy = tt_destroy, .evaluate = tt_evaluate, .max_stiffness = tt_max_stiffness};

static const shard_plugin desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_TSL),
    .name = "test_tsl",
    .version = "0.1.0",
    .summary = "linear softening (test plugin)",
    .ops_size = sizeof ops,
    .ops = &ops,
};
SHARD_PLUGIN_SINGLE(desc)
