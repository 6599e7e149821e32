/* tridiag — exact solver for LCPs 0 <= z ⊥ w = M z + q >= 0 whose matrix is
 * a tridiagonal Z-matrix (positive diagonal, off-diagonals <= 0) that is a
 * P-matrix, i.e. a nonsingular M-matrix: the blocks of the 1D contact
 * operator W′ on a chain of adjacent contacts.
 *
 * Chandrasekaran's monotone active-set iteration: start from A = {i : q_i < 0},
 * solve M_AA z_A = -q_A (z = 0 elsewhere) by one Thomas sweep per run of
 * consecutive active rows, add every inactive row whose w_i = q_i + (Mz)_i
 * is negative, repeat. For an M-matrix z grows monotonically, inactive w
 * decreases monotonically, A only grows: at most n sweeps, in practice a
 * few. A non-positive Thomas pivot proves M_AA is no M-matrix: the block is
 * refused (SHARD_ERR_INPUT). See README.md. */
#include <math.h>
#include <stdlib.h>

#include "shard/lcp_solver.h"

typedef struct tridiag {
  double tolerance;
  int32_t n_max;
  double *d, *l, *u; /* M_ii, M_i,i-1, M_i,i+1 */
  double *cp, *rp;   /* Thomas: modified super-diagonal and right-hand side */
  unsigned char *act;
} tridiag;

static const shard_param_spec tridiag_params[] = {
    {"tolerance", SHARD_PARAM_REAL, "1e-12", 0.0, 1.0, "1", SHARD_PARAM_MIN_EXCLUSIVE, NULL,
     "largest accepted complementarity residual (shard_lcp_residual, relative) of the final z; the method is "
     "exact, so this only guards against rounding on ill-conditioned blocks"},
};

static int tridiag_create(const shard_params *params, void **out_self, shard_msg *msg) {
  *out_self = NULL;
  const int rc = shard_params_check(params, msg);
  if (rc != SHARD_OK) return rc;
  tridiag *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->tolerance = shard_params_real(params, "tolerance");
  *out_self = s;
  return SHARD_OK;
}

static void release(tridiag *s) {
  free(s->d), free(s->l), free(s->u), free(s->cp), free(s->rp), free(s->act);
  s->d = s->l = s->u = s->cp = s->rp = NULL;
  s->act = NULL;
  s->n_max = 0;
}

static int tridiag_setup(void *self, int32_t n_max, int64_t nnz_max, shard_msg *msg) {
  tridiag *s = self;
  (void)nnz_max;
  if (n_max < 1) return shard_msg_set(msg, SHARD_ERR_INPUT, "setup needs n_max >= 1 (got %d)", (int)n_max);
  release(s);
  const size_t n = (size_t)n_max;
  s->d = malloc(n * sizeof *s->d);
  s->l = malloc(n * sizeof *s->l);
  s->u = malloc(n * sizeof *s->u);
  s->cp = malloc(n * sizeof *s->cp);
  s->rp = malloc(n * sizeof *s->rp);
  s->act = malloc(n);
  if (!s->d || !s->l || !s->u || !s->cp || !s->rp || !s->act) {
    release(s);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for n = %d", (int)n_max);
  }
  s->n_max = n_max;
  return SHARD_OK;
}

static void tridiag_destroy(void *self) {
  tridiag *s = self;
  if (!s) return;
  release(s);
  free(s);
}

/* The three diagonals from the CSR view (duplicates summed), and the class
 * check: entries only on |i - j| <= 1, a positive finite diagonal,
 * off-diagonals finite and <= 0, q finite. SHARD_OK or SHARD_ERR_INPUT. */
static int extract(tridiag *s, const shard_lcp_problem *p, shard_msg *msg) {
  const shard_csr *a = p->csr;
  for (int32_t i = 0; i < p->n; ++i) {
    double d = 0.0, l = 0.0, u = 0.0;
    for (int32_t k = a->rowptr[i]; k < a->rowptr[i + 1]; ++k) {
      const int32_t j = a->colind[k];
      const double v = a->val[k];
      if (j == i) d += v;
      else if (j == i - 1) l += v;
      else if (j == i + 1) u += v;
      else if (v != 0.0)
        return shard_msg_set(msg, SHARD_ERR_INPUT,
                             "M[%d][%d] = %g is outside the tridiagonal band; this solver takes tridiagonal "
                             "Z-matrices only (use lemke or pgs for such problems)",
                             (int)i, (int)j, v);
    }
    if (!(d > 0.0) || !isfinite(d))
      return shard_msg_set(msg, SHARD_ERR_INPUT,
                           "diagonal entry M[%d][%d] = %g is not positive; this solver takes tridiagonal "
                           "Z-matrices with a positive diagonal only",
                           (int)i, (int)i, d);
    if (!(l <= 0.0) || !(u <= 0.0) || !isfinite(l) || !isfinite(u)) {
      const int lower = !(l <= 0.0) || !isfinite(l);
      return shard_msg_set(msg, SHARD_ERR_INPUT,
                           "off-diagonal entry M[%d][%d] = %g is not <= 0: not a Z-matrix, which this solver "
                           "requires (use lemke or pgs for such problems)",
                           (int)i, (int)(lower ? i - 1 : i + 1), lower ? l : u);
    }
    if (!isfinite(p->q[i]))
      return shard_msg_set(msg, SHARD_ERR_INPUT, "q[%d] = %g is not finite", (int)i, p->q[i]);
    s->d[i] = d, s->l[i] = l, s->u[i] = u;
  }
  return SHARD_OK;
}

/* On rows lo .. hi-1 (a component: no coupling to rows outside):
 * z_A = -M_AA⁻¹ q_A, one Thomas sweep per run of consecutive active rows,
 * z = 0 on inactive rows. Returns -1 when every pivot was positive, else
 * the row whose pivot was not (M_AA is then no M-matrix). */
static int32_t solve_active(tridiag *s, const double *q, int32_t lo, int32_t hi, double *z) {
  const double *d = s->d, *l = s->l, *u = s->u;
  double *cp = s->cp, *rp = s->rp;
  const unsigned char *act = s->act;
  int32_t i = lo;
  while (i < hi) {
    if (!act[i]) {
      z[i++] = 0.0;
      continue;
    }
    const int32_t a = i;
    double piv = d[a];
    cp[a] = u[a] / piv;
    rp[a] = -q[a] / piv;
    for (++i; i < hi && act[i]; ++i) {
      piv = d[i] - l[i] * cp[i - 1];
      if (!(piv > 0.0) || !isfinite(piv)) return i;
      cp[i] = u[i] / piv;
      rp[i] = (-q[i] - l[i] * rp[i - 1]) / piv;
    }
    const int32_t b = i - 1;
    z[b] = rp[b];
    for (int32_t k = b - 1; k >= a; --k) z[k] = rp[k] - cp[k] * z[k + 1];
  }
  return -1;
}

/* w_i = q_i + (Mz)_i of row i of the component lo .. hi-1 */
static inline double row_w(const tridiag *s, const double *q, const double *z, int32_t lo, int32_t hi, int32_t i) {
  double w = q[i] + s->d[i] * z[i];
  if (i > lo) w += s->l[i] * z[i - 1];
  if (i + 1 < hi) w += s->u[i] * z[i + 1];
  return w;
}

/* One component lo .. hi-1. Warm start: the incoming z's support as the
 * active set, one pass, kept when it is the solution (z_A >= 0, inactive
 * w >= 0). Else Chandrasekaran from A = {q < 0}, grown by the rows with
 * w < 0. The passes are added to *passes; -1 when solved, else the row
 * of a non-positive pivot. */
static int32_t solve_component(tridiag *s, const double *q, int32_t lo, int32_t hi, double *z, int64_t *passes) {
  unsigned char *act = s->act;
  int any = 0;
  for (int32_t i = lo; i < hi; ++i) any |= (act[i] = z[i] > 0.0 && isfinite(z[i]));
  if (any) {
    ++*passes;
    if (solve_active(s, q, lo, hi, z) < 0) {
      int ok = 1;
      for (int32_t i = lo; i < hi && ok; ++i) ok = act[i] ? z[i] >= 0.0 : row_w(s, q, z, lo, hi, i) >= 0.0;
      if (ok) return -1;
    }
  }
  for (int32_t i = lo; i < hi; ++i) act[i] = q[i] < 0.0;
  for (;;) {
    ++*passes;
    const int32_t bad = solve_active(s, q, lo, hi, z);
    if (bad >= 0) return bad;
    int grown = 0;
    for (int32_t i = lo; i < hi; ++i)
      if (!act[i] && row_w(s, q, z, lo, hi, i) < 0.0) act[i] = 1, grown = 1;
    if (!grown) break;
  }
  /* for an M-matrix z_A >= 0; a negative entry is rounding of a zero */
  for (int32_t i = lo; i < hi; ++i)
    if (z[i] < 0.0) z[i] = 0.0;
  return -1;
}

/* shard_lcp_residual and shard_lcp_residual_noise in one pass over the
 * three diagonals (the same sums in the same order as the CSR's, for a
 * CSR with sorted columns): w = Mz + q out, the residual returned, its
 * rounding level in *noise. */
static double residual_noise(const tridiag *s, const double *q, int32_t n, const double *z, double *w,
                             double *noise) {
  double sc = 1e-300, r = 0.0, nz = 0.0;
  for (int32_t i = 0; i < n; ++i) {
    double mz = 0.0, mabs = fabs(q[i]), t;
    if (i > 0) t = s->l[i] * z[i - 1], mz += t, mabs += fabs(t);
    t = s->d[i] * z[i], mz += t, mabs += fabs(t);
    if (i + 1 < n) t = s->u[i] * z[i + 1], mz += t, mabs += fabs(t);
    w[i] = mz + q[i];
    if (fabs(mz) > sc) sc = fabs(mz);
    if (fabs(q[i]) > sc) sc = fabs(q[i]);
    const double m = fabs(z[i] < w[i] ? z[i] : w[i]);
    if (!(m <= r)) r = m;
    const double e = (DBL_EPSILON / 2) * mabs;
    if (!(e <= nz)) nz = e;
  }
  *noise = nz / sc;
  return r / sc;
}

static int tridiag_solve(void *self, const shard_lcp_problem *p, double *z, double *w, shard_lcp_report *report,
                         shard_msg *msg) {
  tridiag *s = self;
  const int32_t n = p->n;
  const double *q = p->q;
  int rc = shard_lcp_check_problem(p, s->n_max, report, msg);
  if (rc != SHARD_OK) return rc;
  if ((rc = extract(s, p, msg)) != SHARD_OK) return rc;
  int64_t sweeps = 0;
  /* independent components (runs of rows coupled by nonzero off-diagonals)
   * are solved one after the other: a block-diagonal matrix of many chain
   * blocks costs what its blocks cost one by one */
  for (int32_t lo = 0; lo < n;) {
    int32_t hi = lo + 1;
    while (hi < n && (s->l[hi] != 0.0 || s->u[hi - 1] != 0.0)) ++hi;
    const int32_t bad = solve_component(s, q, lo, hi, z, &sweeps);
    if (bad >= 0) {
      report->iterations = sweeps;
      return shard_msg_set(msg, SHARD_ERR_INPUT,
                           "Thomas pivot of row %d is not positive on the active rows: the block is not an "
                           "M-matrix (a tridiagonal Z-matrix that is not a P-matrix), which this solver "
                           "requires (use lemke for such problems)",
                           (int)bad);
    }
    lo = hi;
  }

  double noise = 0.0;
  const double res = residual_noise(s, q, n, z, w, &noise);
  report->iterations = sweeps;
  report->residual = res;
  if (res <= s->tolerance && noise <= s->tolerance) {
    report->status = SHARD_OK;
    return SHARD_OK;
  }
  report->status = SHARD_NOT_CONVERGED;
  return shard_msg_set(msg, SHARD_NOT_CONVERGED,
                       "the active set of %lld sweeps gives residual %.3g (rounding level %.3g) above the tolerance "
                       "%.3g: the block is too ill-conditioned for this tolerance",
                       (long long)sweeps, res, noise, s->tolerance);
}

static const shard_lcp_solver_ops tridiag_ops = {
    .create = tridiag_create,
    .setup = tridiag_setup,
    .solve = tridiag_solve,
    .destroy = tridiag_destroy,
};

static const shard_plugin tridiag_desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_LCP_SOLVER),
    .name = "tridiag",
    .version = "1.0.0",
    .summary = "exact active-set solver for tridiagonal M-matrices (chain blocks of 1D contact); Thomas sweeps",
    .params = tridiag_params,
    .n_params = SHARD_NPARAMS(tridiag_params),
    .ops_size = sizeof(shard_lcp_solver_ops),
    .caps = SHARD_CAP_LCP_SPARSE | SHARD_CAP_LCP_TRIDIAGONAL_Z,
    .ops = &tridiag_ops,
    .doc = "Chandrasekaran's monotone active-set method on the CSR view: starting from the rows with q < 0, "
           "solve the active rows exactly by Thomas sweeps and add the inactive rows whose w became negative, "
           "until none does (at most n sweeps, a few in practice). Takes tridiagonal Z-matrices (positive "
           "diagonal, off-diagonals <= 0) that are P-matrices (nonsingular M-matrices); any other block is "
           "refused with SHARD_ERR_INPUT. The host sends blocks outside this class to lcp.fallback.",
};

SHARD_PLUGIN_SINGLE(tridiag_desc)
