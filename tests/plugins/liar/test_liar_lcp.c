/* tests: "test_liar_lcp" — an LCP solver that lies: it returns z = 0 (or
 * z = `value` everywhere) with status OK and residual 0 whatever the problem,
 * for the host's own check of solutions (tests/e2e/lcp_host_check.sh). */
#include <stdlib.h>

#include "shard/lcp_solver.h"

typedef struct liar {
  double value;
} liar;

static const shard_param_spec params[] = {
    {"value", SHARD_PARAM_REAL, "0", -SHARD_INF, SHARD_INF, "N s", 0, NULL, "the impulse returned for every contact"},
    {"tolerance", SHARD_PARAM_REAL, "1e-12", 0.0, 1.0, "1", SHARD_PARAM_MIN_EXCLUSIVE, NULL,
     "the residual it claims to reach (it claims 0)"},
};

static int liar_create(const shard_params *p, void **out_self, shard_msg *msg) {
  int st = shard_params_check(p, msg);
  if (st != SHARD_OK) return st;
  liar *s = malloc(sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "test_liar_lcp: out of memory");
  s->value = shard_params_real(p, "value");
  *out_self = s;
  return SHARD_OK;
}

static int liar_setup(void *self, int32_t n_max, int64_t nnz_max, shard_msg *msg) {
  (void)self, (void)n_max, (void)nnz_max, (void)msg;
  return SHARD_OK;
}

static int liar_solve(void *self, const shard_lcp_problem *prob, double *z, double *w, shard_lcp_report *report,
                      shard_msg *msg) {
  (void)msg;
  const liar *s = self;
  for (int32_t i = 0; i < prob->n; ++i) z[i] = s->value, w[i] = 0.0;
  report->status = SHARD_OK;
  report->iterations = 1;
  report->residual = 0.0;
  return SHARD_OK;
}

static void liar_destroy(void *self) { free(self); }

static const shard_lcp_solver_ops ops = {
    .create = liar_create, .setup = liar_setup, .solve = liar_solve, .destroy = liar_destroy};

static const shard_plugin desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_LCP_SOLVER),
    .name = "test_liar_lcp",
    .version = "0.1.0",
    .summary = "returns z = 0 and reports success (test plugin)",
    .params = params,
    .n_params = SHARD_NPARAMS(params),
    .ops_size = sizeof ops,
    .caps = SHARD_CAP_LCP_GENERAL | SHARD_CAP_LCP_SPARSE,
    .ops = &ops,
};
SHARD_PLUGIN_SINGLE(desc)
