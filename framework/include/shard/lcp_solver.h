/* shard — LCP solver plugins: find z with 0 <= z ⊥ w = M z + q >= 0. */
#ifndef SHARD_LCP_SOLVER_H
#define SHARD_LCP_SOLVER_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "shard/plugin.h"
#include "shard/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* problem flags, as known by whoever built the operator */
#define SHARD_LCP_SYMMETRIC 0x1u
#define SHARD_LCP_PSD 0x2u      /* positive semidefinite */
#define SHARD_LCP_ZMATRIX 0x4u  /* off-diagonals <= 0 */

typedef struct shard_lcp_problem {
  int32_t n;
  const shard_csr *csr; /* always present */
  const double *dense;  /* row-major n*n; present for solvers with SHARD_CAP_LCP_DENSE */
  const double *q;
  uint32_t flags;
} shard_lcp_problem;

typedef struct shard_lcp_report {
  int status;          /* SHARD_OK, SHARD_NOT_CONVERGED, SHARD_NO_SOLUTION, < 0 fatal */
  int64_t iterations;  /* pivots, sweeps or Newton steps */
  double residual;     /* shard_lcp_residual() of the returned z */
} shard_lcp_report;

typedef struct shard_lcp_solver_ops {
  /* validate and store parameters; no large allocation */
  int (*create)(const shard_params *params, void **out_self, shard_msg *msg);
  /* allocate for problems up to n_max unknowns and nnz_max CSR entries.
   * May be called again between solves, with other (in practice larger)
   * sizes, when the host's contact storage grows as rows are inserted: it
   * then frees or reuses what an earlier call allocated (no leak) and the
   * solves after it behave as after a single setup for the new sizes. */
  int (*setup)(void *self, int32_t n_max, int64_t nnz_max, shard_msg *msg);
  /* z: initial guess in (may be ignored), solution out; w out. No allocation. */
  int (*solve)(void *self, const shard_lcp_problem *prob, double *z, double *w, shard_lcp_report *report,
               shard_msg *msg);
  void (*destroy)(void *self); /* accepts NULL */
  /* Appended (ABI 1.1), optional: the problem classes of this instance
   * (SHARD_CAP_LCP_GENERAL / SHARD_CAP_LCP_NEEDS_PSD / neither) when its
   * parameters choose among methods of different classes. It returns caps in
   * the descriptor's form; only the class bits may differ from the
   * descriptor's. Absent (ops_size too small) or NULL: the descriptor's caps.
   * Read it with shard_lcp_solver_caps. */
  uint64_t (*caps)(const void *self);
} shard_lcp_solver_ops;

/* The caps of a created instance: the `caps` slot when the plugin has it,
 * else the descriptor's. */
static inline uint64_t shard_lcp_solver_caps(const shard_plugin *desc, const void *self) {
  const shard_lcp_solver_ops *ops = (const shard_lcp_solver_ops *)desc->ops;
  const uint64_t cls = SHARD_CAP_LCP_GENERAL | SHARD_CAP_LCP_NEEDS_PSD;
  if (desc->ops_size < offsetof(shard_lcp_solver_ops, caps) + sizeof ops->caps || !ops->caps || !self)
    return desc->caps;
  return (desc->caps & ~cls) | (ops->caps(self) & cls);
}

/* The entry check of every solve: resets the report to "input error, no
 * iterations, residual unknown" and checks that 1 <= n <= n_max and that the
 * CSR view is n x n. Returns SHARD_OK or SHARD_ERR_INPUT with the message. */
static inline int shard_lcp_check_problem(const shard_lcp_problem *p, int32_t n_max, shard_lcp_report *report,
                                          shard_msg *msg) {
  report->status = SHARD_ERR_INPUT;
  report->iterations = 0;
  report->residual = NAN;
  if (p->n < 1 || p->n > n_max)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "problem size n = %d outside the setup size 1..%d", (int)p->n,
                         (int)n_max);
  if (!p->csr || p->csr->nrows != p->n || p->csr->ncols != p->n)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "the CSR view is missing or not %d x %d", (int)p->n, (int)p->n);
  return SHARD_OK;
}

/* The complementarity residual every solver reports, so that solvers compare:
 *   r = max_i |min(z_i, w_i)| / s,   s = max(1e-300, |q|_inf, max_i |(M z)_i|)
 * with w = M z + q recomputed from the CSR view; w is overwritten. A z with a
 * negative entry has residual >= |z_i| / s. */
static inline double shard_lcp_residual(const shard_lcp_problem *p, const double *z, double *w) {
  double s = 1e-300, r = 0.0;
  const shard_csr *a = p->csr;
  for (int32_t i = 0; i < p->n; ++i) {
    double mz = 0.0;
    for (int32_t k = a->rowptr[i]; k < a->rowptr[i + 1]; ++k) mz += a->val[k] * z[a->colind[k]];
    w[i] = mz + p->q[i];
    if (fabs(mz) > s) s = fabs(mz);
    if (fabs(p->q[i]) > s) s = fabs(p->q[i]);
  }
  for (int32_t i = 0; i < p->n; ++i) {
    double m = fabs(z[i] < w[i] ? z[i] : w[i]); /* inline min; a NaN propagates into r */
    if (!(m <= r)) r = m; /* also catches NaN */
  }
  return r / s;
}

/* Appended (LCP solvers change): how far shard_lcp_residual can be trusted.
 * The rounding level of w = Mz + q relative to the residual's scale s,
 *   ρ = max_i u (|q_i| + Σ_k |M_ik z_k|) / s,   u = 2⁻⁵³,
 * estimates the error of the residual itself (the worst case is larger by
 * up to the row length). When ρ exceeds a solver's
 * tolerance, a small residual certifies nothing: e.g. iterates that follow
 * a ray of an infeasible problem (Md = 0, d >= 0, qᵀd < 0) grow until
 * cancellation in Mz makes w look complementary. Solvers then report
 * SHARD_NOT_CONVERGED instead of SHARD_OK. O(nnz), no allocation. */
static inline double shard_lcp_residual_noise(const shard_lcp_problem *p, const double *z) {
  double s = 1e-300, noise = 0.0;
  const shard_csr *a = p->csr;
  for (int32_t i = 0; i < p->n; ++i) {
    double mz = 0.0, mabs = fabs(p->q[i]);
    for (int32_t k = a->rowptr[i]; k < a->rowptr[i + 1]; ++k) {
      const double t = a->val[k] * z[a->colind[k]];
      mz += t;
      mabs += fabs(t);
    }
    if (fabs(mz) > s) s = fabs(mz);
    if (fabs(p->q[i]) > s) s = fabs(p->q[i]);
    const double e = (DBL_EPSILON / 2) * mabs; /* 2^-53 */
    if (!(e <= noise)) noise = e; /* also catches NaN */
  }
  return noise / s;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
