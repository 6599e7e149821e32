/* lemke — Lemke's complementary pivoting method with the lexicographic
 * minimum-ratio rule (degenerate-safe, no cycling), for dense LCPs
 *     0 <= z ⊥ w = M z + q >= 0.
 *
 * Augmented system  w - M z - d z0 = q,  covering vector d = 1. The basis
 * inverse B⁻¹ (n x n, row-major) and the basic values x = B⁻¹ q are kept
 * explicitly (revised tableau): a pivot costs O(n²) — one B⁻¹ times the
 * entering column, one rank-one update — and memory is n² doubles, which
 * is why the plugin is meant for n up to a few thousand (`dense_max`).
 * See README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shard/lcp_solver.h"

/* relative level below which basic values and B⁻¹ entries count as exact
 * zeros in the lexicographic ratio test */
#define LEX_EPS 1e-11

typedef struct lemke {
  double tolerance;       /* accepted shard_lcp_residual */
  double pivot_tolerance; /* pivot candidates: a_i > pivot_tolerance * max_k |a_k| */
  long long max_pivots;   /* 0: automatic */
  long long dense_max;
  int refine_steps;
  int32_t n_max;
  double *binv; /* n_max² */
  double *x;    /* basic values */
  double *col;  /* B⁻¹ times the entering column */
  double *tmp;  /* scratch: a column of M, refinement residual */
  double *zs;   /* scratch: z assembled from the basis */
  int32_t *basis;  /* variable of basis row i */
  int32_t *where;  /* basis row of variable v, -1 when nonbasic (2n+1) */
  int32_t *cand;   /* candidate rows of the ratio test */
} lemke;

static const shard_param_spec lemke_params[] = {
    {"tolerance", SHARD_PARAM_REAL, "1e-9", 0.0, 1.0, "1", SHARD_PARAM_MIN_EXCLUSIVE, NULL,
     "largest accepted complementarity residual (shard_lcp_residual, relative) of the final z"},
    {"pivot_tolerance", SHARD_PARAM_REAL, "1e-11", 0.0, 1e-3, "1", SHARD_PARAM_MIN_EXCLUSIVE, NULL,
     "entries of the entering column below this fraction of its largest entry are not pivot candidates"},
    {"max_pivots", SHARD_PARAM_INT, "0", 0.0, 1e15, "1", 0, NULL,
     "pivot cap (0: automatic, 100 n + 1000); reaching it reports no convergence"},
    {"dense_max", SHARD_PARAM_INT, "2000", 1.0, 20000.0, "1", 0, NULL,
     "largest n accepted by setup (memory n² doubles, a pivot costs O(n²))"},
    {"refine_steps", SHARD_PARAM_INT, "2", 0.0, 10.0, "1", 0, NULL,
     "iterative refinement steps of the final basic solution with the original matrix"},
};

static int lemke_create(const shard_params *params, void **out_self, shard_msg *msg) {
  *out_self = NULL;
  const int rc = shard_params_check(params, msg);
  if (rc != SHARD_OK) return rc;
  lemke *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->tolerance = shard_params_real(params, "tolerance");
  s->pivot_tolerance = shard_params_real(params, "pivot_tolerance");
  s->max_pivots = shard_params_int(params, "max_pivots");
  s->dense_max = shard_params_int(params, "dense_max");
  s->refine_steps = (int)shard_params_int(params, "refine_steps");
  *out_self = s;
  return SHARD_OK;
}

static void lemke_free_arrays(lemke *s) {
  free(s->binv);
  free(s->x);
  free(s->col);
  free(s->tmp);
  free(s->zs);
  free(s->basis);
  free(s->where);
  free(s->cand);
  s->binv = s->x = s->col = s->tmp = s->zs = NULL;
  s->basis = s->where = s->cand = NULL;
  s->n_max = 0;
}

static int lemke_setup(void *self, int32_t n_max, int64_t nnz_max, shard_msg *msg) {
  lemke *s = self;
  if (n_max < 1) return shard_msg_set(msg, SHARD_ERR_INPUT, "setup needs n_max >= 1 (got %d)", (int)n_max);
  if (n_max > s->dense_max)
    return shard_msg_set(msg, SHARD_ERR_UNSUPPORTED,
                         "n = %d exceeds dense_max = %lld (dense tableau of n² doubles, O(n²) per pivot); "
                         "use a sparse solver such as pgs or mprgp, or raise dense_max",
                         (int)n_max, s->dense_max);
  lemke_free_arrays(s);
  size_t n = (size_t)n_max;
  s->binv = malloc(n * n * sizeof *s->binv);
  s->x = malloc(n * sizeof *s->x);
  s->col = malloc(n * sizeof *s->col);
  s->tmp = malloc(n * sizeof *s->tmp);
  s->zs = malloc(n * sizeof *s->zs);
  s->basis = malloc(n * sizeof *s->basis);
  s->where = malloc((2 * n + 1) * sizeof *s->where);
  s->cand = malloc(n * sizeof *s->cand);
  if (!s->binv || !s->x || !s->col || !s->tmp || !s->zs || !s->basis || !s->where || !s->cand) {
    lemke_free_arrays(s);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for n = %d", (int)n_max);
  }
  s->n_max = n_max;
  return SHARD_OK;
}

static void lemke_destroy(void *self) {
  lemke *s = self;
  if (!s) return;
  lemke_free_arrays(s);
  free(s);
}

/* Variables: w_i = i, z_j = n + j, z0 = 2n. */
static int32_t complement(int32_t v, int32_t n) { return v < n ? v + n : v - n; }

/* col = B⁻¹ a_v for the column a_v of [I, -M, -d] (d = 1). */
static void entering_column(const lemke *s, const double *m, int32_t n, int32_t v) {
  const double *b = s->binv;
  if (v < n) {
    for (int32_t i = 0; i < n; ++i) s->col[i] = b[(size_t)i * (size_t)n + (size_t)v];
    return;
  }
  if (v < 2 * n) {
    const int32_t j = v - n;
    for (int32_t k = 0; k < n; ++k) s->tmp[k] = -m[(size_t)k * (size_t)n + (size_t)j];
  } else {
    for (int32_t k = 0; k < n; ++k) s->tmp[k] = -1.0;
  }
  /* sparse columns of M (contact operators are banded): gather the nonzeros
   * once, then each row of B⁻¹ is read only where they are (s->cand is free
   * scratch until the ratio test) */
  int32_t nz = 0;
  for (int32_t k = 0; k < n; ++k)
    if (s->tmp[k] != 0.0) s->cand[nz++] = k;
  if (nz < n / 4) {
    for (int32_t i = 0; i < n; ++i) {
      const double *row = b + (size_t)i * (size_t)n;
      double acc = 0.0;
      for (int32_t c = 0; c < nz; ++c) acc += row[s->cand[c]] * s->tmp[s->cand[c]];
      s->col[i] = acc;
    }
    return;
  }
  for (int32_t i = 0; i < n; ++i) {
    const double *row = b + (size_t)i * (size_t)n;
    double acc = 0.0;
    for (int32_t k = 0; k < n; ++k) acc += row[k] * s->tmp[k];
    s->col[i] = acc;
  }
}

/* Pivot on row r of the column in s->col; variable v enters. */
static void pivot(lemke *s, int32_t n, int32_t r, int32_t v) {
  double *b = s->binv;
  const double pr = s->col[r];
  double *brow = b + (size_t)r * (size_t)n;
  const double inv = 1.0 / pr;
  for (int32_t k = 0; k < n; ++k) brow[k] *= inv;
  s->x[r] *= inv;
  for (int32_t i = 0; i < n; ++i) {
    if (i == r) continue;
    const double f = s->col[i];
    if (f == 0.0) continue;
    double *row = b + (size_t)i * (size_t)n;
    for (int32_t k = 0; k < n; ++k) row[k] -= f * brow[k];
    s->x[i] -= f * s->x[r];
  }
  const int32_t leaving = s->basis[r];
  s->where[leaving] = -1;
  s->basis[r] = v;
  s->where[v] = r;
}

/* Keep among cand[0..nc) the rows minimising value(i)/col[i]; values of
 * magnitude <= flush (round-off of exact zeros) count as 0, ratios within a
 * relative 1e-12 of the minimum tie. Returns the new count. */
static int32_t keep_min(const lemke *s, int32_t nc, const double *vals, size_t stride, double flush) {
  double best = HUGE_VAL;
  for (int32_t c = 0; c < nc; ++c) {
    const int32_t i = s->cand[c];
    const double v = vals[(size_t)i * stride];
    const double t = (fabs(v) <= flush ? 0.0 : v) / s->col[i];
    if (t < best) best = t;
  }
  const double lim = best + 1e-12 * fabs(best);
  int32_t m = 0;
  for (int32_t c = 0; c < nc; ++c) {
    const int32_t i = s->cand[c];
    const double v = vals[(size_t)i * stride];
    if ((fabs(v) <= flush ? 0.0 : v) / s->col[i] <= lim) s->cand[m++] = i;
  }
  return m;
}

/* flush level of column j of B⁻¹: a fraction of its largest entry over all
 * rows (round-off of exact zeros is relative to the column, not to the few
 * candidate rows, which may all be zero) */
static double flush_level(const lemke *s, int32_t n, int32_t j) {
  double big = 0.0;
  for (int32_t i = 0; i < n; ++i) {
    const double v = fabs(s->binv[(size_t)i * (size_t)n + (size_t)j]);
    if (v > big) big = v;
  }
  return LEX_EPS * big;
}

/* Lexicographic minimum-ratio test on the column s->col. Returns the pivot
 * row, or -1 when the column has no positive entry (ray). */
static int32_t ratio_test(lemke *s, int32_t n) {
  double amax = 0.0;
  for (int32_t i = 0; i < n; ++i)
    if (fabs(s->col[i]) > amax) amax = fabs(s->col[i]);
  if (!(amax > 0.0)) return -1;
  const double eps = s->pivot_tolerance * amax;
  int32_t nc = 0;
  for (int32_t i = 0; i < n; ++i)
    if (s->col[i] > eps) s->cand[nc++] = i;
  if (nc == 0) return -1;
  /* basic values are >= 0 in exact arithmetic; round-off negatives count as 0 */
  for (int32_t c = 0; c < nc; ++c)
    if (s->x[s->cand[c]] < 0.0) s->x[s->cand[c]] = 0.0;
  double xmax = 0.0;
  for (int32_t i = 0; i < n; ++i)
    if (fabs(s->x[i]) > xmax) xmax = fabs(s->x[i]);
  nc = keep_min(s, nc, s->x, 1, LEX_EPS * xmax);
  if (nc > 1) {
    /* z0 leaving ends the method: take it whenever it ties */
    for (int32_t c = 0; c < nc; ++c)
      if (s->basis[s->cand[c]] == 2 * n) return s->cand[c];
  }
  for (int32_t j = 0; j < n && nc > 1; ++j)
    nc = keep_min(s, nc, s->binv + j, (size_t)n, flush_level(s, n, j));
  if (nc > 1) { /* numerically dependent rows: largest pivot */
    int32_t best = s->cand[0];
    for (int32_t c = 1; c < nc; ++c)
      if (s->col[s->cand[c]] > s->col[best]) best = s->cand[c];
    return best;
  }
  return s->cand[0];
}

/* z from the current basis (z0 ignored), with iterative refinement of the
 * basic values against the original data: x += B⁻¹ (q - B x). */
static void extract_z(lemke *s, const shard_lcp_problem *p, double *z) {
  const int32_t n = p->n;
  for (int step = 0; step <= s->refine_steps; ++step) {
    for (int32_t j = 0; j < n; ++j) {
      const int32_t r = s->where[n + j];
      s->zs[j] = r >= 0 ? s->x[r] : 0.0;
    }
    if (step == s->refine_steps) break;
    /* B x = w_B - M z_B - d z0 ; residual q - B x */
    const int32_t r0 = s->where[2 * n];
    const double z0 = r0 >= 0 ? s->x[r0] : 0.0;
    for (int32_t i = 0; i < n; ++i) {
      const double *row = p->dense + (size_t)i * (size_t)n;
      double mz = 0.0;
      for (int32_t j = 0; j < n; ++j) mz += row[j] * s->zs[j];
      const int32_t rw = s->where[i];
      s->tmp[i] = p->q[i] - ((rw >= 0 ? s->x[rw] : 0.0) - mz - z0);
    }
    for (int32_t i = 0; i < n; ++i) {
      const double *row = s->binv + (size_t)i * (size_t)n;
      double acc = 0.0;
      for (int32_t k = 0; k < n; ++k) acc += row[k] * s->tmp[k];
      s->col[i] = acc;
    }
    for (int32_t i = 0; i < n; ++i) s->x[i] += s->col[i];
  }
  for (int32_t j = 0; j < n; ++j) z[j] = s->zs[j] > 0.0 ? s->zs[j] : 0.0;
}

static int lemke_solve(void *self, const shard_lcp_problem *p, double *z, double *w, shard_lcp_report *report,
                       shard_msg *msg) {
  lemke *s = self;
  const int32_t n = p->n;
  const int rc = shard_lcp_check_problem(p, s->n_max, report, msg);
  if (rc != SHARD_OK) return rc;
  if (!p->dense)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "the problem has no dense view (lemke has SHARD_CAP_LCP_DENSE)");
  int trivial = 1;
  for (int32_t i = 0; i < n; ++i) {
    if (!isfinite(p->q[i]))
      return shard_msg_set(msg, SHARD_ERR_INPUT, "q[%d] is not finite", (int)i);
    if (p->q[i] < 0.0) trivial = 0;
  }
  for (size_t k = 0; k < (size_t)n * (size_t)n; ++k)
    if (!isfinite(p->dense[k]))
      return shard_msg_set(msg, SHARD_ERR_INPUT, "M[%d][%d] is not finite", (int)(k / (size_t)n),
                           (int)(k % (size_t)n));
  if (trivial) {
    for (int32_t i = 0; i < n; ++i) z[i] = 0.0;
    report->status = SHARD_OK;
    report->residual = shard_lcp_residual(p, z, w);
    return SHARD_OK;
  }
  const long long cap = s->max_pivots > 0 ? s->max_pivots : 100LL * n + 1000;

  /* initial basis: all w, B = I, x = q */
  for (int32_t i = 0; i < n; ++i) {
    double *row = s->binv + (size_t)i * (size_t)n;
    memset(row, 0, (size_t)n * sizeof *row);
    row[i] = 1.0;
    s->x[i] = p->q[i];
    s->basis[i] = i;
  }
  for (int32_t v = 0; v <= 2 * n; ++v) s->where[v] = v < n ? v : -1;

  /* first pivot: z0 enters on the lexicographically most negative row of
   * (q_i, e_i) / d_i, which makes every row lexicographically positive */
  int32_t r = 0;
  for (int32_t i = 1; i < n; ++i)
    if (s->x[i] < s->x[r] || (s->x[i] == s->x[r] && i > r)) r = i;
  entering_column(s, p->dense, n, 2 * n);
  pivot(s, n, r, 2 * n);
  long long pivots = 1;
  int32_t entering = complement(r, n);
  int status = SHARD_OK;
  for (;;) {
    if (pivots >= cap) {
      status = SHARD_NOT_CONVERGED;
      break;
    }
    entering_column(s, p->dense, n, entering);
    r = ratio_test(s, n);
    if (r < 0) {
      status = SHARD_NO_SOLUTION;
      break;
    }
    const int32_t leaving = s->basis[r];
    pivot(s, n, r, entering);
    ++pivots;
    if (leaving == 2 * n) break;
    entering = complement(leaving, n);
  }
  extract_z(s, p, z);
  report->iterations = pivots;
  report->residual = shard_lcp_residual(p, z, w);
  const double noise = status == SHARD_OK ? shard_lcp_residual_noise(p, z) : 0.0;
  if (status == SHARD_OK && report->residual <= s->tolerance && !(noise <= s->tolerance)) {
    status = SHARD_NOT_CONVERGED;
    shard_msg_set(msg, status,
                  "terminal basis after %lld pivots, but the rounding level %.3g of Mz + q exceeds the tolerance "
                  "%.3g: the residual %.3g certifies nothing (huge z)",
                  pivots, noise, s->tolerance, report->residual);
  } else if (status == SHARD_OK && !(report->residual <= s->tolerance)) {
    status = SHARD_NOT_CONVERGED;
    shard_msg_set(msg, status,
                  "terminal basis after %lld pivots, but its residual %.3g exceeds the tolerance %.3g "
                  "(ill-conditioned basis)",
                  pivots, report->residual, s->tolerance);
  } else if (status == SHARD_NO_SOLUTION) {
    shard_msg_set(msg, status,
                  "ray termination after %lld pivots: no solution found (the LCP may be infeasible, or M "
                  "is outside the classes Lemke's method processes, e.g. copositive-plus, P-matrices)",
                  pivots);
  } else if (status == SHARD_NOT_CONVERGED) {
    shard_msg_set(msg, status, "pivot cap reached (%lld pivots, max_pivots) without a solution; residual %.3g",
                  pivots, report->residual);
  }
  report->status = status;
  return status;
}

static const shard_lcp_solver_ops lemke_ops = {
    .create = lemke_create,
    .setup = lemke_setup,
    .solve = lemke_solve,
    .destroy = lemke_destroy,
};

static const shard_plugin lemke_desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_LCP_SOLVER),
    .name = "lemke",
    .version = "1.0.0",
    .summary = "Lemke's complementary pivoting, lexicographic ratio test, dense (n up to ~2000)",
    .params = lemke_params,
    .n_params = SHARD_NPARAMS(lemke_params),
    .ops_size = sizeof(shard_lcp_solver_ops),
    .caps = SHARD_CAP_LCP_GENERAL | SHARD_CAP_LCP_DENSE,
    .ops = &lemke_ops,
    .doc = "Lemke's method with covering vector d = 1 and the lexicographic minimum-ratio rule, which cannot "
           "cycle on degenerate problems. Terminates with a solution, with a secondary ray (reported as no "
           "solution found) or at the pivot cap (no convergence). Solves every LCP with a P-matrix and every "
           "feasible LCP with a copositive-plus matrix (Cottle, Pang & Stone 1992).",
};

SHARD_PLUGIN_SINGLE(lemke_desc)
