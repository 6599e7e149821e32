/* tests: "test_lcp" — projected Gauss–Seidel on the CSR view, with a
 * parameter table that exercises every parameter type (for `shard describe`). */
#include <math.h>
#include <stdlib.h>

#include "shard/lcp_solver.h"

typedef struct tl_self {
  long long max_iter;
  double tol, omega;
  int warm_start;
} tl_self;

static const shard_param_spec params[] = {
    {"max_iter", SHARD_PARAM_INT, "500", 1, 1e9, "1", 0, NULL, "largest number of sweeps"},
    {"tol", SHARD_PARAM_REAL, "1e-12", 0.0, 1.0, "1", SHARD_PARAM_MIN_EXCLUSIVE, NULL,
     "stop when the residual is below"},
    {"omega", SHARD_PARAM_REAL, "1", 0.0, 2.0, "1", SHARD_PARAM_MIN_EXCLUSIVE | SHARD_PARAM_MAX_EXCLUSIVE, NULL,
     "relaxation factor"},
    {"warm_start", SHARD_PARAM_BOOL, "true", 0, 0, "", 0, NULL, "start from the given z"},
    {"on_fail", SHARD_PARAM_CHOICE, "stop", 0, 0, "", 0, "stop|zero", "what to report when not converged"},
    {"label", SHARD_PARAM_STRING, NULL, 0, 0, "", 0, NULL, "free text"},
};

static int tl_create(const shard_params *p, void **out_self, shard_msg *msg) {
  tl_self *s = malloc(sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "test_lcp: out of memory");
  s->max_iter = shard_params_int(p, "max_iter");
  s->tol = shard_params_real(p, "tol");
  s->omega = shard_params_real(p, "omega");
  s->warm_start = shard_params_bool(p, "warm_start");
  *out_self = s;
  return SHARD_OK;
}

static int tl_setup(void *self, int32_t n_max, int64_t nnz_max, shard_msg *msg) { return SHARD_OK; }

static int tl_solve(void *self, const shard_lcp_problem *prob, double *z, double *w, shard_lcp_report *report,
                    shard_msg *msg) {
  const tl_self *s = self;
  const shard_csr *a = prob->csr;
  if (!s->warm_start)
    for (int32_t i = 0; i < prob->n; ++i) z[i] = 0.0;
  for (int32_t i = 0; i < prob->n; ++i)
    if (z[i] < 0.0) z[i] = 0.0;
  double r = shard_lcp_residual(prob, z, w);
  long long it = 0;
  while (r > s->tol && it < s->max_iter) {
    for (int32_t i = 0; i < prob->n; ++i) {
      double d = 0.0, wi = prob->q[i];
      for (int32_t k = a->rowptr[i]; k < a->rowptr[i + 1]; ++k) {
        wi += a->val[k] * z[a->colind[k]];
        if (a->colind[k] == i) d = a->val[k];
      }
      if (d > 0.0) z[i] = fmax(0.0, z[i] - s->omega * wi / d);
    }
    ++it;
    r = shard_lcp_residual(prob, z, w);
  }
  report->iterations = it;
  report->residual = r;
  report->status = r <= s->tol ? SHARD_OK : SHARD_NOT_CONVERGED;
  return report->status;
}

static void tl_destroy(void *self) { free(self); }

static const shard_lcp_solver_ops ops = {.create = tl_create, .setup = tl_setup, .solve = tl_solve, .destroy = tl_destroy};

static const shard_plugin desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_LCP_SOLVER),
    .name = "test_lcp",
    .version = "0.1.0",
    .summary = "projected Gauss-Seidel (test plugin)",
    .params = params,
    .n_params = SHARD_NPARAMS(params),
    .ops_size = sizeof ops,
    .caps = SHARD_CAP_LCP_NEEDS_PSD | SHARD_CAP_LCP_SPARSE,
    .ops = &ops,
};
SHARD_PLUGIN_SINGLE(desc)
