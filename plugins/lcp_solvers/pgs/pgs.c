/* pgs — sparse projected Gauss–Seidel with over-relaxation for
 *     0 <= z ⊥ w = M z + q >= 0,
 * on the CSR view:  z_i <- max(0, z_i - ω (q_i + Σ_k M_ik z_k) / M_ii),
 * rows in order, using the newest z. Each sweep is O(nnz). Converges for
 * symmetric positive semidefinite M with positive diagonal and 0 < ω < 2
 * (when a solution exists), and for strictly diagonally dominant M (ω = 1).
 * See README.md. */
#include <math.h>
#include <stdlib.h>

#include "shard/lcp_solver.h"

typedef struct pgs {
  double omega;
  double tolerance;
  long long max_sweeps;
  int32_t n_max;
  double *dinv; /* 1 / M_ii */
} pgs;

static const shard_param_spec pgs_params[] = {
    {"omega", SHARD_PARAM_REAL, "1.0", 0.0, 2.0, "1", SHARD_PARAM_MIN_EXCLUSIVE | SHARD_PARAM_MAX_EXCLUSIVE, NULL,
     "relaxation factor ω (1: plain projected Gauss–Seidel, > 1 over-relaxation)"},
    {"tolerance", SHARD_PARAM_REAL, "1e-12", 0.0, 1.0, "1", SHARD_PARAM_MIN_EXCLUSIVE, NULL,
     "stop when the complementarity residual (shard_lcp_residual, relative) is at most this"},
    {"max_sweeps", SHARD_PARAM_INT, "10000", 1.0, 1e12, "1", 0, NULL,
     "sweep cap; reaching it reports no convergence"},
};

static int pgs_create(const shard_params *params, void **out_self, shard_msg *msg) {
  *out_self = NULL;
  const int rc = shard_params_check(params, msg);
  if (rc != SHARD_OK) return rc;
  pgs *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->omega = shard_params_real(params, "omega");
  s->tolerance = shard_params_real(params, "tolerance");
  s->max_sweeps = shard_params_int(params, "max_sweeps");
  *out_self = s;
  return SHARD_OK;
}

static int pgs_setup(void *self, int32_t n_max, int64_t nnz_max, shard_msg *msg) {
  pgs *s = self;
  if (n_max < 1) return shard_msg_set(msg, SHARD_ERR_INPUT, "setup needs n_max >= 1 (got %d)", (int)n_max);
  free(s->dinv);
  s->n_max = 0;
  s->dinv = malloc((size_t)n_max * sizeof *s->dinv);
  if (!s->dinv) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for n = %d", (int)n_max);
  s->n_max = n_max;
  return SHARD_OK;
}

static void pgs_destroy(void *self) {
  pgs *s = self;
  if (!s) return;
  free(s->dinv);
  free(s);
}

static int pgs_solve(void *self, const shard_lcp_problem *p, double *z, double *w, shard_lcp_report *report,
                     shard_msg *msg) {
  pgs *s = self;
  const int32_t n = p->n;
  const shard_csr *a = p->csr;
  const int rc = shard_lcp_check_problem(p, s->n_max, report, msg);
  if (rc != SHARD_OK) return rc;
  for (int32_t i = 0; i < n; ++i) {
    double d = 0.0;
    for (int32_t k = a->rowptr[i]; k < a->rowptr[i + 1]; ++k)
      if (a->colind[k] == i) d += a->val[k];
    if (!(d > 0.0) || !isfinite(d))
      return shard_msg_set(msg, SHARD_ERR_INPUT,
                           "diagonal entry M[%d][%d] = %g is not positive; projected Gauss-Seidel needs a "
                           "positive diagonal (use lemke for such problems)",
                           (int)i, (int)i, d);
    s->dinv[i] = 1.0 / d;
  }
  for (int32_t i = 0; i < n; ++i)
    if (!(z[i] > 0.0) || !isfinite(z[i])) z[i] = 0.0; /* warm start, clipped */

  const double omega = s->omega, tol = s->tolerance;
  long long sweep = 0;
  double res = HUGE_VAL, noise = 0.0;
  int status = SHARD_NOT_CONVERGED;
  while (sweep < s->max_sweeps) {
    ++sweep;
    /* residual estimate on the fly: |min(z_i, w_i)| at the moment row i is
     * visited; an exact O(nnz) check only when the estimate says done */
    double est = 0.0, scale = 1e-300;
    for (int32_t i = 0; i < n; ++i) {
      double mz = 0.0;
      for (int32_t k = a->rowptr[i]; k < a->rowptr[i + 1]; ++k) mz += a->val[k] * z[a->colind[k]];
      const double wi = mz + p->q[i];
      const double m = fabs(z[i] < wi ? z[i] : wi);
      if (!(m <= est)) est = m;
      if (fabs(mz) > scale) scale = fabs(mz);
      if (fabs(p->q[i]) > scale) scale = fabs(p->q[i]);
      const double zi = z[i] - omega * wi * s->dinv[i];
      z[i] = zi > 0.0 ? zi : 0.0;
    }
    if (!isfinite(est)) break;
    if ((sweep & 63) == 0) {
      /* diverging iterates (no solution): once rounding in Mz + q exceeds the
       * tolerance, no later iterate can be certified */
      noise = shard_lcp_residual_noise(p, z);
      if (!(noise <= tol)) break;
    }
    if (est <= tol * scale) {
      res = shard_lcp_residual(p, z, w);
      if (res <= tol) {
        noise = shard_lcp_residual_noise(p, z);
        status = noise <= tol ? SHARD_OK : SHARD_NOT_CONVERGED;
        break;
      }
    }
  }
  if (status != SHARD_OK) res = shard_lcp_residual(p, z, w);
  report->iterations = sweep;
  report->residual = res;
  report->status = status;
  if (status != SHARD_OK && noise > tol)
    shard_msg_set(msg, status,
                  "residual %.3g after %lld sweeps certifies nothing: the rounding level of Mz + q is %.3g "
                  "(tolerance %.3g); z grows without bound, the LCP probably has no solution",
                  res, sweep, noise, tol);
  else if (status != SHARD_OK)
    shard_msg_set(msg, status, "no convergence after %lld sweeps (residual %.3g, tolerance %.3g)", sweep, res,
                  tol);
  return status;
}

static const shard_lcp_solver_ops pgs_ops = {
    .create = pgs_create,
    .setup = pgs_setup,
    .solve = pgs_solve,
    .destroy = pgs_destroy,
};

static const shard_plugin pgs_desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_LCP_SOLVER),
    .name = "pgs",
    .version = "1.0.0",
    .summary = "sparse projected Gauss-Seidel with over-relaxation (positive diagonal; PSD or diagonally dominant)",
    .params = pgs_params,
    .n_params = SHARD_NPARAMS(pgs_params),
    .ops_size = sizeof(shard_lcp_solver_ops),
    .caps = SHARD_CAP_LCP_SPARSE,
    .ops = &pgs_ops,
    .doc = "Projected successive over-relaxation on the CSR view, warm-started from the incoming z. O(nnz) per "
           "sweep and no setup beyond the diagonal. Converges for symmetric positive semidefinite matrices with "
           "positive diagonal (0 < omega < 2) when a solution exists, and for strictly diagonally dominant "
           "matrices; elsewhere it may stall, which is reported as no convergence.",
};

SHARD_PLUGIN_SINGLE(pgs_desc)
