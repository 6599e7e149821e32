/* mprgp — Dostál's MPRGP (modified proportioning with reduced gradient
 * projections) for the LCP with a symmetric positive semidefinite M, i.e. the
 * bound-constrained QP
 *     min ½ zᵀ M z + qᵀ z   subject to  z >= 0,
 * whose KKT conditions are exactly 0 <= z ⊥ w = M z + q >= 0.
 *
 * Jacobi preconditioning is applied as a symmetric diagonal scaling of the
 * problem, z = D y with D = diag(M)^(-1/2): M̃ = D M D, q̃ = D q. The scaling
 * maps the orthant onto itself, so the scaled LCP is equivalent and MPRGP's
 * theory applies to it unchanged; M̃ is never formed (M̃ v = D M D v).
 * Gradient g = M̃ y + q̃ = D w.
 *
 * Each iteration costs one or two products with M (O(nnz)) and O(n) vector
 * work. ‖M̃‖ is bounded by Gershgorin (an upper bound, so ᾱ stays in the
 * convergent range). See README.md for the algorithm and references. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "shard/lcp_solver.h"

typedef struct mprgp {
  double tolerance;
  long long max_iterations;
  double alpha_factor; /* ᾱ = alpha_factor / ‖M̃‖ */
  double gamma;        /* Γ, proportioning threshold */
  int32_t n_max;
  double *d;  /* D = diag(M)^(-1/2) (1 where M_ii = 0) */
  double *y;  /* scaled iterate */
  double *g;  /* gradient M̃ y + q̃ */
  double *p;  /* conjugate direction */
  double *ap; /* M̃ p */
  double *t;  /* scratch for M̃ v */
} mprgp;

static const shard_param_spec mprgp_params[] = {
    {"tolerance", SHARD_PARAM_REAL, "1e-10", 0.0, 1.0, "1", SHARD_PARAM_MIN_EXCLUSIVE, NULL,
     "stop when the complementarity residual (shard_lcp_residual, relative) is at most this"},
    {"max_iterations", SHARD_PARAM_INT, "10000", 1.0, 1e12, "1", 0, NULL,
     "iteration cap (CG, expansion and proportioning steps); reaching it reports no convergence"},
    {"alpha_factor", SHARD_PARAM_REAL, "1.9", 0.0, 2.0, "1", SHARD_PARAM_MIN_EXCLUSIVE, NULL,
     "fixed projection step ᾱ = alpha_factor / ‖D M D‖ (Gershgorin bound), in (0, 2/‖D M D‖]"},
    {"gamma", SHARD_PARAM_REAL, "1.0", 0.0, SHARD_INF, "1", SHARD_PARAM_MIN_EXCLUSIVE, NULL,
     "proportioning threshold Γ: a proportioning step is taken when ‖β‖² > Γ² φ̃ᵀφ"},
};

static int mprgp_create(const shard_params *params, void **out_self, shard_msg *msg) {
  *out_self = NULL;
  const int rc = shard_params_check(params, msg);
  if (rc != SHARD_OK) return rc;
  mprgp *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->tolerance = shard_params_real(params, "tolerance");
  s->max_iterations = shard_params_int(params, "max_iterations");
  s->alpha_factor = shard_params_real(params, "alpha_factor");
  s->gamma = shard_params_real(params, "gamma");
  *out_self = s;
  return SHARD_OK;
}

static void mprgp_free_arrays(mprgp *s) {
  free(s->d);
  free(s->y);
  free(s->g);
  free(s->p);
  free(s->ap);
  free(s->t);
  s->d = s->y = s->g = s->p = s->ap = s->t = NULL;
  s->n_max = 0;
}

static int mprgp_setup(void *self, int32_t n_max, int64_t nnz_max, shard_msg *msg) {
  mprgp *s = self;
  if (n_max < 1) return shard_msg_set(msg, SHARD_ERR_INPUT, "setup needs n_max >= 1 (got %d)", (int)n_max);
  mprgp_free_arrays(s);
  size_t n = (size_t)n_max;
  s->d = malloc(n * sizeof *s->d);
  s->y = malloc(n * sizeof *s->y);
  s->g = malloc(n * sizeof *s->g);
  s->p = malloc(n * sizeof *s->p);
  s->ap = malloc(n * sizeof *s->ap);
  s->t = malloc(n * sizeof *s->t);
  if (!s->d || !s->y || !s->g || !s->p || !s->ap || !s->t) {
    mprgp_free_arrays(s);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for n = %d", (int)n_max);
  }
  s->n_max = n_max;
  return SHARD_OK;
}

static void mprgp_destroy(void *self) {
  mprgp *s = self;
  if (!s) return;
  mprgp_free_arrays(s);
  free(s);
}

/* M[i][j] from the CSR (columns sorted), 0 when absent */
static double csr_entry(const shard_csr *a, int32_t i, int32_t j) {
  int32_t lo = a->rowptr[i], hi = a->rowptr[i + 1] - 1;
  while (lo <= hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (a->colind[mid] == j) return a->val[mid];
    if (a->colind[mid] < j)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return 0.0;
}

/* out = D M D v (t: scratch) */
static void scaled_matvec(const mprgp *s, const shard_csr *a, const double *v, double *out) {
  for (int32_t i = 0; i < a->nrows; ++i) s->t[i] = s->d[i] * v[i];
  for (int32_t i = 0; i < a->nrows; ++i) {
    double acc = 0.0;
    for (int32_t k = a->rowptr[i]; k < a->rowptr[i + 1]; ++k) acc += a->val[k] * s->t[a->colind[k]];
    out[i] = s->d[i] * acc;
  }
}

/* g = D M D y + D q */
static void gradient(const mprgp *s, const shard_lcp_problem *p) {
  scaled_matvec(s, p->csr, s->y, s->g);
  for (int32_t i = 0; i < p->n; ++i) s->g[i] += s->d[i] * p->q[i];
}

/* free gradient φ_i = g_i on the free set (y_i > 0), 0 on the active set */
static inline double phi(const mprgp *s, int32_t i) { return s->y[i] > 0.0 ? s->g[i] : 0.0; }

/* p = φ(y) */
static void restart_direction(mprgp *s, int32_t n) {
  for (int32_t i = 0; i < n; ++i) s->p[i] = phi(s, i);
}

/* largest α with y - α p >= 0 (HUGE_VAL when no p_i > 0) */
static double feasible_step(const mprgp *s, int32_t n) {
  double af = HUGE_VAL;
  for (int32_t i = 0; i < n; ++i)
    if (s->p[i] > 0.0) {
      const double t = s->y[i] / s->p[i];
      if (t < af) af = t;
    }
  return af;
}

/* O(n) estimate of shard_lcp_residual from the recurred gradient: z = D y,
 * w = g / D (D_i = 1 on zero-diagonal rows, where w = g). */
static double residual_estimate(const mprgp *s, const shard_lcp_problem *p) {
  double r = 0.0, sc = 1e-300;
  for (int32_t i = 0; i < p->n; ++i) {
    const double zi = s->d[i] * s->y[i];
    const double wi = s->g[i] / s->d[i];
    const double mz = wi - p->q[i];
    if (fabs(mz) > sc) sc = fabs(mz);
    if (fabs(p->q[i]) > sc) sc = fabs(p->q[i]);
    const double m = fabs(fmin(zi, wi));
    if (!(m <= r)) r = m;
  }
  return r / sc;
}

static int mprgp_solve(void *self, const shard_lcp_problem *prob, double *z, double *w, shard_lcp_report *report,
                       shard_msg *msg) {
  mprgp *s = self;
  const int32_t n = prob->n;
  const shard_csr *a = prob->csr;
  const int rc = shard_lcp_check_problem(prob, s->n_max, report, msg);
  if (rc != SHARD_OK) return rc;

  if (!(prob->flags & SHARD_LCP_SYMMETRIC)) {
    /* not declared symmetric: check (O(nnz log), no allocation) */
    double big = 0.0;
    for (int32_t k = 0; k < a->rowptr[n]; ++k)
      if (fabs(a->val[k]) > big) big = fabs(a->val[k]);
    for (int32_t i = 0; i < n; ++i)
      for (int32_t k = a->rowptr[i]; k < a->rowptr[i + 1]; ++k) {
        const int32_t j = a->colind[k];
        if (j == i) continue;
        const double v = a->val[k], t = csr_entry(a, j, i);
        if (fabs(v - t) > 1e-12 * (fabs(v) + fabs(t)) + 1e-14 * big)
          return shard_msg_set(msg, SHARD_ERR_INPUT,
                               "M is not symmetric (M[%d][%d] = %g, M[%d][%d] = %g); mprgp needs a symmetric "
                               "positive semidefinite matrix (use lemke)",
                               (int)i, (int)j, v, (int)j, (int)i, t);
      }
  }
  /* Jacobi scaling and the Gershgorin bound of ‖D M D‖ */
  for (int32_t i = 0; i < n; ++i) {
    double dii = 0.0;
    for (int32_t k = a->rowptr[i]; k < a->rowptr[i + 1]; ++k)
      if (a->colind[k] == i) dii += a->val[k];
    if (dii < 0.0 || !isfinite(dii))
      return shard_msg_set(msg, SHARD_ERR_INPUT,
                           "diagonal entry M[%d][%d] = %g is negative: M is not positive semidefinite "
                           "(mprgp needs a symmetric PSD matrix; use lemke)",
                           (int)i, (int)i, dii);
    s->d[i] = dii > 0.0 ? 1.0 / sqrt(dii) : 1.0;
  }
  double norm = 0.0;
  for (int32_t i = 0; i < n; ++i) {
    double row = 0.0;
    for (int32_t k = a->rowptr[i]; k < a->rowptr[i + 1]; ++k) row += fabs(a->val[k]) * s->d[a->colind[k]];
    row *= s->d[i];
    if (row > norm) norm = row;
  }
  if (!isfinite(norm))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "the matrix has non-finite entries");
  for (int32_t i = 0; i < n; ++i)
    if (!isfinite(prob->q[i])) return shard_msg_set(msg, SHARD_ERR_INPUT, "q[%d] is not finite", (int)i);
  if (norm == 0.0) norm = 1.0;
  const double abar = s->alpha_factor / norm;
  const double gamma2 = s->gamma * s->gamma;
  const double tol = s->tolerance;
  const double curv_eps = 1e-14 * norm;

  /* warm start from the incoming z, projected */
  for (int32_t i = 0; i < n; ++i) s->y[i] = (z[i] > 0.0 && isfinite(z[i])) ? z[i] / s->d[i] : 0.0;
  gradient(s, prob);
  restart_direction(s, n);

  long long it = 0;
  int status = SHARD_NOT_CONVERGED;
  const char *why = NULL;
  char noise_text[200];
  while (it < s->max_iterations) {
    if (residual_estimate(s, prob) <= tol) {
      for (int32_t i = 0; i < n; ++i) z[i] = s->d[i] * s->y[i];
      if (shard_lcp_residual(prob, z, w) <= tol) {
        const double noise = shard_lcp_residual_noise(prob, z);
        if (noise <= tol) {
          status = SHARD_OK;
        } else {
          snprintf(noise_text, sizeof noise_text,
                   "the residual certifies nothing: the rounding level of Mz + q is %.3g; z grows without "
                   "bound, the LCP probably has no solution",
                   noise);
          why = noise_text;
        }
        break;
      }
      /* the recurred gradient has drifted: recompute it and restart CG */
      gradient(s, prob);
      restart_direction(s, n);
    }
    if ((it & 63) == 63) {
      /* diverging iterates (no solution): once rounding in Mz + q exceeds the
       * tolerance, no later iterate can be certified */
      for (int32_t i = 0; i < n; ++i) z[i] = s->d[i] * s->y[i];
      const double noise = shard_lcp_residual_noise(prob, z);
      if (!(noise <= tol)) {
        snprintf(noise_text, sizeof noise_text,
                 "the iterates grow without bound (rounding level of Mz + q %.3g above the tolerance): the LCP "
                 "probably has no solution",
                 noise);
        why = noise_text;
        break;
      }
    }
    ++it;
    /* ‖β‖² (chopped gradient) and φ̃ᵀφ (reduced free gradient) */
    double bb = 0.0, pf = 0.0;
    for (int32_t i = 0; i < n; ++i) {
      if (s->y[i] > 0.0) {
        const double f = s->g[i];
        const double fr = fmin(s->y[i] / abar, f);
        pf += fr * f;
      } else if (s->g[i] < 0.0) {
        bb += s->g[i] * s->g[i];
      }
    }
    if (!isfinite(bb) || !isfinite(pf)) {
      why = "non-finite iterate";
      break;
    }
    if (bb <= gamma2 * pf) {
      /* proportional iterate: conjugate gradient step, or expansion */
      scaled_matvec(s, a, s->p, s->ap);
      double pap = 0.0, gp = 0.0, pp = 0.0;
      for (int32_t i = 0; i < n; ++i) {
        pap += s->p[i] * s->ap[i];
        gp += s->g[i] * s->p[i];
        pp += s->p[i] * s->p[i];
      }
      if (pp == 0.0) { /* φ = 0 and β = 0: stationary; the residual check decides */
        gradient(s, prob);
        restart_direction(s, n);
        continue;
      }
      if (pap < -curv_eps * pp) {
        status = SHARD_ERR_INPUT;
        why = "negative curvature pᵀMp < 0: M is not positive semidefinite";
        break;
      }
      const double af = feasible_step(s, n);
      const double acg = pap > curv_eps * pp ? gp / pap : HUGE_VAL;
      if (acg <= af) {
        for (int32_t i = 0; i < n; ++i) {
          const double yi = s->y[i] - acg * s->p[i];
          s->y[i] = yi > 0.0 ? yi : 0.0;
          s->g[i] -= acg * s->ap[i];
        }
        double fap = 0.0;
        for (int32_t i = 0; i < n; ++i) fap += phi(s, i) * s->ap[i];
        const double beta = fap / pap;
        for (int32_t i = 0; i < n; ++i) s->p[i] = phi(s, i) - beta * s->p[i];
      } else {
        if (af == HUGE_VAL) {
          status = SHARD_NO_SOLUTION;
          why = "the objective decreases without bound along a feasible ray (zero curvature): no solution exists";
          break;
        }
        /* expansion: to the boundary, then a fixed-step projected gradient step */
        for (int32_t i = 0; i < n; ++i) {
          const double yi = s->y[i] - af * s->p[i];
          s->y[i] = yi > 0.0 ? yi : 0.0;
          s->g[i] -= af * s->ap[i];
        }
        for (int32_t i = 0; i < n; ++i) {
          const double yi = s->y[i] - abar * phi(s, i);
          s->y[i] = yi > 0.0 ? yi : 0.0;
        }
        gradient(s, prob);
        restart_direction(s, n);
      }
    } else {
      /* proportioning: release the active constraints along the chopped gradient β */
      for (int32_t i = 0; i < n; ++i) s->p[i] = (s->y[i] > 0.0 || s->g[i] >= 0.0) ? 0.0 : s->g[i];
      scaled_matvec(s, a, s->p, s->ap);
      double pap = 0.0;
      for (int32_t i = 0; i < n; ++i) pap += s->p[i] * s->ap[i];
      if (pap < -curv_eps * bb) {
        status = SHARD_ERR_INPUT;
        why = "negative curvature pᵀMp < 0: M is not positive semidefinite";
        break;
      }
      if (pap <= curv_eps * bb) {
        status = SHARD_NO_SOLUTION;
        why = "the objective decreases without bound along a feasible ray (zero curvature): no solution exists";
        break;
      }
      const double acg = bb / pap; /* gᵀβ = ‖β‖² */
      for (int32_t i = 0; i < n; ++i) {
        const double yi = s->y[i] - acg * s->p[i];
        s->y[i] = yi > 0.0 ? yi : 0.0;
        s->g[i] -= acg * s->ap[i];
      }
      restart_direction(s, n);
    }
  }
  if (status != SHARD_OK) {
    for (int32_t i = 0; i < n; ++i) z[i] = isfinite(s->y[i]) ? s->d[i] * s->y[i] : 0.0;
  }
  report->iterations = it;
  report->residual = shard_lcp_residual(prob, z, w);
  report->status = status;
  if (status == SHARD_NOT_CONVERGED)
    shard_msg_set(msg, status, "no convergence after %lld iterations (residual %.3g, tolerance %.3g)%s%s", it,
                  report->residual, tol, why ? ": " : "", why ? why : "");
  else if (status != SHARD_OK)
    shard_msg_set(msg, status, "%s (after %lld iterations)", why, it);
  return status;
}

static const shard_lcp_solver_ops mprgp_ops = {
    .create = mprgp_create,
    .setup = mprgp_setup,
    .solve = mprgp_solve,
    .destroy = mprgp_destroy,
};

static const shard_plugin mprgp_desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_LCP_SOLVER),
    .name = "mprgp",
    .version = "1.0.0",
    .summary = "Dostal's MPRGP (projected CG for the bound-constrained QP), symmetric PSD, any size",
    .params = mprgp_params,
    .n_params = SHARD_NPARAMS(mprgp_params),
    .ops_size = sizeof(shard_lcp_solver_ops),
    .caps = SHARD_CAP_LCP_SPARSE | SHARD_CAP_LCP_NEEDS_PSD,
    .ops = &mprgp_ops,
    .doc = "Modified proportioning with reduced gradient projections (Dostal 2009) on min 1/2 z'Mz + q'z, z >= 0, "
           "with Jacobi scaling: conjugate gradient steps on the free set, expansion steps (feasible step plus a "
           "fixed-step projected gradient step) when a constraint is hit, proportioning steps that release "
           "constraints. Linear cost per iteration; detects unbounded (infeasible) PSD problems.",
};

SHARD_PLUGIN_SINGLE(mprgp_desc)
