/* tests: the LCP solver contract, run on EVERY lcp_solver plugin found in
 * SHARD_PLUGIN_DIR (loaded through the registry; none is skipped).
 *
 * Problem set (fixed-seed PRNG of this file, no external state):
 *   - random SPD (n 5..200), PSD-degenerate Gram matrices (a solution built
 *     in), 1D-contact tridiagonals (diag ~1.02, off ~-0.49, q mixed sign) up
 *     to n = 5000, nonsymmetric P-matrices (diagonally dominant, and positive
 *     definite = SPD + skew), W′ = H M⁻¹(M − Δt²/4 K)M⁻¹Hᵀ of a fragmented 1D
 *     P1 bar with contacts between adjacent element ends at Δt = 0.7, 0.99
 *     and 0.999 Δt_c,
 *     and problems without a solution;
 *   - every problem of the Siconos set (SHARD_SICONOS_DIR/mtx).
 *
 * A plugin with a CHOICE parameter `method` runs once per method ("siconos:pgs"),
 * each with the caps its instance reports (shard_lcp_solver_caps).
 * Which solver runs on which problem is decided by its caps only:
 *   SHARD_CAP_LCP_GENERAL   every problem (dense solvers: n <= DENSE_N);
 *   SHARD_CAP_LCP_NEEDS_PSD symmetric positive semidefinite problems;
 *   neither                 positive diagonal and (symmetric PSD or strictly
 *                           row diagonally dominant) — projected iterations;
 *   every solver            the infeasible problems.
 * Expected outcomes: a solver must solve every admitted problem known to have
 * a solution (Siconos: lemke the 15 named in SICONOS_LEMKE_OK, others by
 * class); must never report OK on a problem without solution.
 *
 * Bound asserted on every OK: z >= 0 exactly, w = Mz + q >= -tol·s, and
 * shard_lcp_residual(z) = max|min(z_i, w_i)| / s <= tol, with
 * s = max(|q|_inf, |Mz|_inf) and tol the solver's own `tolerance` parameter
 * default (lemke 1e-9, pgs 1e-12, mprgp 1e-10); the reported residual must
 * match the recomputed one. Solutions of problems with a unique solution
 * (SPD, P-matrix, bar W′) agree between solvers to 1e-8 relative.
 *
 * A solver may refuse a problem size at setup with SHARD_ERR_UNSUPPORTED
 * (dense limits, enumeration); the problem then counts as not admitted.
 * solve must not allocate unless the caps say SHARD_CAP_LCP_ALLOCATES: the
 * test binary counts malloc/calloc/realloc calls (its own definitions
 * forward to glibc's; unavailable under AddressSanitizer, which owns them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <stddef.h>

#include "contact/contact.h"
#include "cu_runner.h"
#include "io/mtx.h"
#include "loader/registry.h"
#include "shard/lcp_solver.h"
#include "spec_probe.h"

#define DENSE_N 2000 /* dense view built up to this n (lemke's dense_max default) */
#define MAX_SOLVERS 16

/* ------------------------------------------------------ allocation counter */

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ALLOC_COUNTING 0
#endif
#endif
#ifndef ALLOC_COUNTING
#if defined(__SANITIZE_ADDRESS__) || !defined(__GLIBC__)
#define ALLOC_COUNTING 0
#else
#define ALLOC_COUNTING 1
#endif
#endif

typedef struct alloc_counter {
  int on;
  long long calls;
} alloc_counter;
static alloc_counter allocs; /* test-only state: interposed allocator */

#if ALLOC_COUNTING
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
void *malloc(size_t n);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t n);
void *malloc(size_t n) {
  if (allocs.on) ++allocs.calls;
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t size) {
  if (allocs.on) ++allocs.calls;
  return __libc_calloc(n, size);
}
void *realloc(void *p, size_t n) {
  if (allocs.on) ++allocs.calls;
  return __libc_realloc(p, n);
}
#endif

static void alloc_count_start(void) {
  allocs.calls = 0;
  allocs.on = 1;
}
static long long alloc_count_stop(void) {
  allocs.on = 0;
  return allocs.calls;
}

/* ------------------------------------------------------------------ PRNG */

typedef struct rng {
  uint64_t s;
} rng;
static uint64_t rng_next(rng *r) { /* splitmix64 */
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double rng_uniform(rng *r, double lo, double hi) {
  return lo + (hi - lo) * (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* -------------------------------------------------------------- problems */

enum { CLS_SPD, CLS_PSD, CLS_TRIDIAG, CLS_PMAT, CLS_BAR, CLS_INFEASIBLE, CLS_SICONOS };

typedef struct tproblem {
  char name[96];
  int cls;
  int32_t n;
  shard_mtx_matrix m;
  double *dense; /* n <= DENSE_N */
  double *q;
  uint32_t flags;
  int symmetric, psd, posdiag, diagdom; /* properties, by construction or checked */
  int tridz;                           /* tridiagonal Z-matrix with positive diagonal, in row order */
  int mmatrix;                         /* tridz and a P-matrix (nonsingular M-matrix), by construction */
  int solvable;                        /* 1 a solution exists, -1 none exists, 0 unknown */
  int unique;                          /* the solution is unique (compare solvers) */
} tproblem;

static void problem_free(tproblem *p) {
  shard_mtx_matrix_free(&p->m);
  free(p->dense);
  free(p->q);
  memset(p, 0, sizeof *p);
}

/* dense row-major a (n x n) -> problem matrix */
static void set_from_dense(tproblem *p, const double *a) {
  int32_t n = p->n;
  int64_t nnz = 0;
  for (int64_t k = 0; k < (int64_t)n * n; ++k) nnz += a[k] != 0.0;
  int32_t *ri = malloc((size_t)nnz * sizeof *ri), *ci = malloc((size_t)nnz * sizeof *ci);
  double *v = malloc((size_t)nnz * sizeof *v);
  int64_t k = 0;
  for (int32_t i = 0; i < n; ++i)
    for (int32_t j = 0; j < n; ++j)
      if (a[(size_t)i * n + j] != 0.0) ri[k] = i, ci[k] = j, v[k++] = a[(size_t)i * n + j];
  shard_msg msg;
  CU_ASSERT_EQUAL_FATAL(shard_mtx_from_triplets(n, n, nnz, ri, ci, v, &p->m, &msg), SHARD_OK);
  free(ri);
  free(ci);
  free(v);
}

static void finish(tproblem *p) {
  shard_msg msg;
  shard_csr c = shard_mtx_view(&p->m);
  if (p->n <= DENSE_N && !p->dense) CU_ASSERT_EQUAL_FATAL(shard_mtx_csr_to_dense(&c, &p->dense, &msg), SHARD_OK);
  p->flags = (p->symmetric ? SHARD_LCP_SYMMETRIC : 0u) | (p->psd ? SHARD_LCP_PSD : 0u);
  /* positive diagonal, strict row diagonal dominance */
  p->posdiag = 1;
  p->diagdom = 1;
  for (int32_t i = 0; i < p->n; ++i) {
    double d = 0.0, off = 0.0;
    for (int32_t k = c.rowptr[i]; k < c.rowptr[i + 1]; ++k)
      if (c.colind[k] == i) d += c.val[k];
      else off += fabs(c.val[k]);
    if (!(d > 0.0)) p->posdiag = 0;
    if (!(d > off)) p->diagdom = 0;
  }
  /* the class of SHARD_CAP_LCP_TRIDIAGONAL_Z */
  p->tridz = p->posdiag;
  for (int32_t i = 0; i < p->n; ++i)
    for (int32_t k = c.rowptr[i]; k < c.rowptr[i + 1]; ++k) {
      const int32_t j = c.colind[k];
      if (j != i && c.val[k] != 0.0 && (j < i - 1 || j > i + 1 || !(c.val[k] < 0.0))) p->tridz = 0;
    }
  /* a strictly diagonally dominant Z-matrix with positive diagonal is a nonsingular M-matrix */
  if (p->tridz && p->diagdom) p->mmatrix = 1;
}

static tproblem *new_problem(tproblem *set, int *count, int cls, int32_t n, const char *fmt, int tag) {
  tproblem *p = &set[(*count)++];
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, fmt, tag);
  p->cls = cls;
  p->n = n;
  p->q = calloc((size_t)n, sizeof *p->q);
  return p;
}

/* G (r x n) random; returns GᵀG / r in a (n x n) */
static void gram(rng *r, int32_t rows, int32_t n, double *a) {
  double *g = malloc((size_t)rows * n * sizeof *g);
  for (int64_t k = 0; k < (int64_t)rows * n; ++k) g[k] = rng_uniform(r, -1.0, 1.0);
  for (int32_t i = 0; i < n; ++i)
    for (int32_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (int32_t k = 0; k < rows; ++k) s += g[(size_t)k * n + i] * g[(size_t)k * n + j];
      a[(size_t)i * n + j] = s / rows;
    }
  free(g);
}

static void add_spd(tproblem *set, int *count, rng *r, int32_t n, int tag) {
  tproblem *p = new_problem(set, count, CLS_SPD, n, "spd_%d", tag);
  snprintf(p->name, sizeof p->name, "spd_%d_n%d", tag, (int)n);
  double *a = malloc((size_t)n * n * sizeof *a);
  gram(r, n + 5, n, a);
  for (int32_t i = 0; i < n; ++i) a[(size_t)i * n + i] += 0.1;
  set_from_dense(p, a);
  for (int32_t i = 0; i < n; ++i) p->q[i] = rng_uniform(r, -1.0, 1.0);
  p->symmetric = p->psd = 1;
  p->solvable = p->unique = 1;
  finish(p);
  free(a);
}

/* rank-deficient Gram matrix; q = w* − M z* with z*, w* >= 0 complementary */
static void add_psd(tproblem *set, int *count, rng *r, int32_t n, int32_t rank, int tag) {
  tproblem *p = new_problem(set, count, CLS_PSD, n, "psd_%d", tag);
  snprintf(p->name, sizeof p->name, "psd_degenerate_%d_n%d_rank%d", tag, (int)n, (int)rank);
  double *a = malloc((size_t)n * n * sizeof *a);
  double *zs = malloc((size_t)n * sizeof *zs);
  gram(r, rank, n, a);
  for (int32_t i = 0; i < n; ++i) zs[i] = rng_uniform(r, 0.0, 1.0) < 0.5 ? rng_uniform(r, 0.1, 1.0) : 0.0;
  for (int32_t i = 0; i < n; ++i) {
    double mz = 0.0;
    for (int32_t j = 0; j < n; ++j) mz += a[(size_t)i * n + j] * zs[j];
    /* w* = 0 where z* > 0; elsewhere w* >= 0, sometimes exactly 0 (degenerate) */
    double ws = zs[i] > 0.0 ? 0.0 : (rng_uniform(r, 0.0, 1.0) < 0.3 ? 0.0 : rng_uniform(r, 0.0, 1.0));
    p->q[i] = ws - mz;
  }
  set_from_dense(p, a);
  p->symmetric = p->psd = 1;
  p->solvable = 1;
  finish(p);
  free(a);
  free(zs);
}

/* 1D-contact-shaped tridiagonal: diag 1.02(1+ε), off −0.49(1+ε), SPD */
static void add_tridiag(tproblem *set, int *count, rng *r, int32_t n, int tag) {
  tproblem *p = new_problem(set, count, CLS_TRIDIAG, n, "tridiag_%d", tag);
  snprintf(p->name, sizeof p->name, "tridiag_contact_n%d", (int)n);
  int64_t nnz = 3 * (int64_t)n - 2;
  int32_t *ri = malloc((size_t)nnz * sizeof *ri), *ci = malloc((size_t)nnz * sizeof *ci);
  double *v = malloc((size_t)nnz * sizeof *v);
  double *off = malloc((size_t)n * sizeof *off);
  for (int32_t i = 0; i + 1 < n; ++i) off[i] = -0.49 * (1.0 + rng_uniform(r, -0.01, 0.0));
  int64_t k = 0;
  for (int32_t i = 0; i < n; ++i) {
    if (i > 0) ri[k] = i, ci[k] = i - 1, v[k++] = off[i - 1];
    ri[k] = i, ci[k] = i, v[k++] = 1.02 * (1.0 + rng_uniform(r, 0.0, 0.01));
    if (i + 1 < n) ri[k] = i, ci[k] = i + 1, v[k++] = off[i];
    p->q[i] = rng_uniform(r, -1.0, 0.5); /* compressive (< 0) and separating (> 0) */
  }
  shard_msg msg;
  CU_ASSERT_EQUAL_FATAL(shard_mtx_from_triplets(n, n, k, ri, ci, v, &p->m, &msg), SHARD_OK);
  p->symmetric = p->psd = 1;
  p->solvable = p->unique = 1;
  finish(p);
  free(ri);
  free(ci);
  free(v);
  free(off);
}

/* Random tridiagonal Z-matrices that are nonsingular M-matrices: A with
 * off-diagonals -U(0, 1) and diagonal (1 + margin) times its row's
 * off-diagonal sum (strictly diagonally dominant), then, unless kind 0,
 * D_r A D_c with positive diagonal scalings exp(U(-1, 1)) (kind
 * 1: D_r = D_c, symmetric when A is; kind 2: independent, nonsymmetric):
 * still an M-matrix, no longer diagonally dominant. kind 3: diagonal only.
 * q = U(-1, 1): both signs. Unique solution. */
static void add_mmatrix(tproblem *set, int *count, rng *r, int32_t n, int kind, int tag) {
  static const char *const what[] = {"dominant", "scaled_sym", "scaled_nonsym", "diagonal"};
  tproblem *p = new_problem(set, count, CLS_TRIDIAG, n, "m_%d", tag);
  snprintf(p->name, sizeof p->name, "tridiag_m_%s_n%d", what[kind], (int)n);
  const int64_t nnz = 3 * (int64_t)n;
  int32_t *ri = malloc((size_t)nnz * sizeof *ri), *ci = malloc((size_t)nnz * sizeof *ci);
  double *v = malloc((size_t)nnz * sizeof *v);
  double *lo = malloc((size_t)n * sizeof *lo), *up = malloc((size_t)n * sizeof *up);
  double *dr = malloc((size_t)n * sizeof *dr), *dc = malloc((size_t)n * sizeof *dc);
  const int sym = kind != 2;
  for (int32_t i = 0; i < n; ++i) {
    up[i] = i + 1 < n && kind != 3 ? -rng_uniform(r, 0.0, 1.0) : 0.0;
    dr[i] = kind == 1 || kind == 2 ? exp(rng_uniform(r, -1.0, 1.0)) : 1.0;
    dc[i] = kind == 2 ? exp(rng_uniform(r, -1.0, 1.0)) : dr[i];
  }
  for (int32_t i = 0; i < n; ++i) lo[i] = i > 0 && kind != 3 ? (sym ? up[i - 1] : -rng_uniform(r, 0.0, 1.0)) : 0.0;
  int64_t k = 0;
  for (int32_t i = 0; i < n; ++i) {
    const double diag = kind == 3 ? rng_uniform(r, 0.5, 2.0) : (1.0 + rng_uniform(r, 0.02, 0.2)) * (-lo[i] - up[i]) + 1e-3;
    if (i > 0 && lo[i] != 0.0) ri[k] = i, ci[k] = i - 1, v[k++] = dr[i] * lo[i] * dc[i - 1];
    ri[k] = i, ci[k] = i, v[k++] = dr[i] * diag * dc[i];
    if (i + 1 < n && up[i] != 0.0) ri[k] = i, ci[k] = i + 1, v[k++] = dr[i] * up[i] * dc[i + 1];
    p->q[i] = rng_uniform(r, -1.0, 1.0);
  }
  shard_msg msg;
  CU_ASSERT_EQUAL_FATAL(shard_mtx_from_triplets(n, n, k, ri, ci, v, &p->m, &msg), SHARD_OK);
  p->symmetric = p->psd = sym; /* symmetric M-matrices are positive definite */
  p->solvable = p->unique = 1;
  finish(p);
  CU_ASSERT_FATAL(p->tridz);
  p->mmatrix = 1;
  free(ri), free(ci), free(v), free(lo), free(up), free(dr), free(dc);
}

/* nonsymmetric P-matrices: strictly row diagonally dominant (kind 0) or
 * positive definite SPD + skew (kind 1) */
static void add_pmatrix(tproblem *set, int *count, rng *r, int32_t n, int kind, int tag) {
  tproblem *p = new_problem(set, count, CLS_PMAT, n, "pmat_%d", tag);
  snprintf(p->name, sizeof p->name, "pmatrix_%s_%d_n%d", kind == 0 ? "diagdom" : "posdef", tag, (int)n);
  double *a = calloc((size_t)n * n, sizeof *a);
  if (kind == 0) {
    for (int32_t i = 0; i < n; ++i) {
      double off = 0.0;
      for (int32_t j = 0; j < n; ++j)
        if (j != i && rng_uniform(r, 0.0, 1.0) < 0.4) {
          a[(size_t)i * n + j] = rng_uniform(r, -1.0, 1.0);
          off += fabs(a[(size_t)i * n + j]);
        }
      a[(size_t)i * n + i] = off * rng_uniform(r, 1.05, 1.5) + 0.1;
    }
  } else {
    gram(r, n + 3, n, a);
    for (int32_t i = 0; i < n; ++i) {
      a[(size_t)i * n + i] += 0.2;
      for (int32_t j = 0; j < i; ++j) {
        double s = rng_uniform(r, -1.0, 1.0);
        a[(size_t)i * n + j] += s;
        a[(size_t)j * n + i] -= s;
      }
    }
  }
  for (int32_t i = 0; i < n; ++i) p->q[i] = rng_uniform(r, -1.0, 1.0);
  set_from_dense(p, a);
  p->solvable = p->unique = 1;
  finish(p);
  free(a);
}

/* Fragmented 1D P1 bar: n_el elements with their own two nodes (lumped mass
 * m = ρ A h_e / 2 per node, element stiffness EA/h_e), a contact between the
 * facing ends of adjacent elements (g = u_{2e+2} − u_{2e+1}), Δt a fraction
 * (0.99: diagonal ≈ 1.02/m, off-diagonal ≈ −0.49/m) of the stable step min h_e / c. W′ = H (M⁻¹ − Δt²/4 M⁻¹ K M⁻¹) Hᵀ is
 * tridiagonal, and positive definite below the stable step. */
static void add_bar(tproblem *set, int *count, rng *r, int32_t n_el, double dt_fraction, int tag) {
  const int32_t n = n_el - 1;
  tproblem *p = new_problem(set, count, CLS_BAR, n, "bar_%d", tag);
  snprintf(p->name, sizeof p->name, "bar_w_prime_%d_contacts%d_dt%.3f", tag, (int)n, dt_fraction);
  const double rho = 7800.0, young = 2.0e11, area = 1e-4, length = 1.0;
  const double c = sqrt(young / rho);
  double *h = malloc((size_t)n_el * sizeof *h);
  double hsum = 0.0, hmin = HUGE_VAL;
  for (int32_t e = 0; e < n_el; ++e) hsum += (h[e] = 1.0 + rng_uniform(r, -0.2, 0.2));
  for (int32_t e = 0; e < n_el; ++e) {
    h[e] *= length / hsum;
    if (h[e] < hmin) hmin = h[e];
  }
  const double dt = dt_fraction * hmin / c;
  /* node 2e, 2e+1 belong to element e */
  const int32_t nodes = 2 * n_el;
  double *mass = malloc((size_t)nodes * sizeof *mass);
  for (int32_t e = 0; e < n_el; ++e) mass[2 * e] = mass[2 * e + 1] = rho * area * h[e] / 2.0;
  /* K entry between nodes a, b (same element only) */
#define BAR_K(a_, b_) ((a_) / 2 != (b_) / 2 ? 0.0 : ((a_) == (b_) ? 1.0 : -1.0) * young * area / h[(a_) / 2])
  int32_t *ri = malloc((size_t)(3 * n) * sizeof *ri), *ci = malloc((size_t)(3 * n) * sizeof *ci);
  double *v = malloc((size_t)(3 * n) * sizeof *v);
  int64_t k = 0;
  for (int32_t i = 0; i < n; ++i) {
    const int32_t ni[2] = {2 * i + 1, 2 * i + 2};
    const double hi[2] = {-1.0, 1.0};
    for (int32_t j = i - 1; j <= i + 1; ++j) {
      if (j < 0 || j >= n) continue;
      const int32_t nj[2] = {2 * j + 1, 2 * j + 2};
      double s = 0.0;
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
          double t = (ni[a] == nj[b] ? 1.0 / mass[ni[a]] : 0.0) -
                     dt * dt / 4.0 * BAR_K(ni[a], nj[b]) / (mass[ni[a]] * mass[nj[b]]);
          s += hi[a] * hi[b] * t;
        }
      ri[k] = i, ci[k] = j, v[k++] = s;
    }
    /* q = H v: relative velocities of the facing ends, mixed sign */
    p->q[i] = rng_uniform(r, -10.0, 5.0);
  }
#undef BAR_K
  shard_msg msg;
  CU_ASSERT_EQUAL_FATAL(shard_mtx_from_triplets(n, n, k, ri, ci, v, &p->m, &msg), SHARD_OK);
  p->symmetric = p->psd = 1;
  p->solvable = p->unique = 1;
  finish(p);
  free(h);
  free(mass);
  free(ri);
  free(ci);
  free(v);
}

static void add_infeasible(tproblem *set, int *count) {
  /* M = [-1], q = [-1]: w = -z - 1 < 0 for every z >= 0 */
  tproblem *p = new_problem(set, count, CLS_INFEASIBLE, 1, "infeasible_negative_%d", 1);
  double a1[1] = {-1.0};
  set_from_dense(p, a1);
  p->q[0] = -1.0;
  p->solvable = -1;
  finish(p);
  /* M = [0], q = [-1]: w = -1 */
  p = new_problem(set, count, CLS_INFEASIBLE, 1, "infeasible_zero_%d", 1);
  double a0[1] = {0.0};
  set_from_dense(p, a0);
  p->q[0] = -1.0;
  p->symmetric = p->psd = 1;
  p->solvable = -1;
  finish(p);
  /* PSD, positive diagonal: w1 + w2 = -2 < 0 always */
  p = new_problem(set, count, CLS_INFEASIBLE, 2, "infeasible_psd_%d", 2);
  double a2[4] = {1.0, -1.0, -1.0, 1.0};
  set_from_dense(p, a2);
  p->q[0] = p->q[1] = -1.0;
  p->symmetric = p->psd = 1;
  p->solvable = -1;
  finish(p);
  /* PSD Gram matrix with d = (2, 0, 0, 1, 2) >= 0, Md = 0, qᵀd = -1 < 0:
   * infeasible (Farkas). Minimising iterations follow the ray d until
   * rounding in Mz makes w look complementary (residual ~1e-12 at |z| ~
   * 1e14): the residual's noise check must refuse that "solution". */
  p = new_problem(set, count, CLS_INFEASIBLE, 5, "infeasible_psd_ray_%d", 5);
  const double a5[25] = {5, -2, -2, 2, -6, -2, 8, 8, -4, 4, -2, 8, 8, -4, 4, 2, -4, -4, 4, -4, -6, 4, 4, -4, 8};
  const double q5[5] = {-1, 0, -1, -1, 1};
  set_from_dense(p, a5);
  memcpy(p->q, q5, sizeof q5);
  p->symmetric = p->psd = 1;
  p->solvable = -1;
  finish(p);
}

#define MAX_PROBLEMS 96

static int generate(tproblem *set) {
  rng r = {20261202u};
  int count = 0;
  const int32_t spd_n[] = {5, 8, 12, 20, 30, 50, 75, 100, 150, 200};
  for (int i = 0; i < 10; ++i) add_spd(set, &count, &r, spd_n[i], i);
  const int32_t psd_n[][2] = {{5, 2}, {10, 4}, {20, 10}, {40, 15}, {60, 30}, {100, 50}};
  for (int i = 0; i < 6; ++i) add_psd(set, &count, &r, psd_n[i][0], psd_n[i][1], i);
  const int32_t tri_n[] = {10, 100, 500, 1000, 2000, 5000};
  for (int i = 0; i < 6; ++i) add_tridiag(set, &count, &r, tri_n[i], i);
  const int32_t pm_n[] = {4, 10, 25, 60, 120, 200, 6, 15, 40, 100};
  for (int i = 0; i < 10; ++i) add_pmatrix(set, &count, &r, pm_n[i], i < 6 ? 0 : 1, i);
  const int32_t bar_el[] = {3, 11, 51, 201, 1001};
  for (int i = 0; i < 5; ++i) add_bar(set, &count, &r, bar_el[i], 0.99, i);
  add_bar(set, &count, &r, 51, 0.7, 5);
  add_bar(set, &count, &r, 400, 0.999, 6);
  add_psd(set, &count, &r, 200, 120, 6);
  const int32_t m_n[] = {1, 2, 3, 10, 100, 1000, 10000, 100000};
  for (int i = 0; i < 8; ++i)
    for (int kind = 0; kind < 3; ++kind) add_mmatrix(set, &count, &r, m_n[i], kind, 10 * i + kind);
  add_mmatrix(set, &count, &r, 50, 3, 99);
  add_infeasible(set, &count);
  return count;
}

/* --------------------------------------------------- Siconos problem set */

/* Siconos' own lexicographic Lemke solves these 15 dense problems; ours must. */
static const char *const SICONOS_LEMKE_OK[] = {
    "lcp_CPS_1",   "lcp_CPS_2",  "lcp_CPS_4",      "lcp_CPS_4bis", "lcp_CPS_5",
    "lcp_Pang_isolated_sol", "lcp_deudeu", "lcp_enum_fails", "lcp_exp_murty", "lcp_exp_murty2",
    "lcp_inf_sol_perturbed", "lcp_mmc", "lcp_ortiz", "lcp_tobenna", "lcp_trivial",
};
static const char *const SICONOS_ALL[] = {
    "lcp_CPS_1", "lcp_CPS_2", "lcp_CPS_3", "lcp_CPS_4", "lcp_CPS_4bis", "lcp_CPS_5", "lcp_Pang_isolated_sol",
    "lcp_Pang_isolated_sol_perturbed", "lcp_deudeu", "lcp_deudeu_block", "lcp_enum_fails", "lcp_exp_murty",
    "lcp_exp_murty2", "lcp_inf_sol_perturbed", "lcp_mmc", "lcp_ortiz", "lcp_ortiz_block", "lcp_tobenna",
    "lcp_trivial", "lcp_trivial_block",
};
#define N_SICONOS ((int)(sizeof SICONOS_ALL / sizeof SICONOS_ALL[0]))

static int in_list(const char *name, const char *const *list, int n) {
  for (int i = 0; i < n; ++i)
    if (strcmp(name, list[i]) == 0) return 1;
  return 0;
}

/* symmetric PSD check on a dense copy: Cholesky of M + ε‖M‖ I */
static int check_psd(const tproblem *p) {
  const int32_t n = p->n;
  double norm = 0.0;
  for (int64_t k = 0; k < (int64_t)n * n; ++k) norm = fmax(norm, fabs(p->dense[k]));
  double *l = malloc((size_t)n * n * sizeof *l);
  memcpy(l, p->dense, (size_t)n * n * sizeof *l);
  for (int32_t i = 0; i < n; ++i) l[(size_t)i * n + i] += 1e-10 * (norm > 0 ? norm : 1.0);
  int ok = 1;
  for (int32_t j = 0; j < n && ok; ++j) {
    double d = l[(size_t)j * n + j];
    for (int32_t k = 0; k < j; ++k) d -= l[(size_t)j * n + k] * l[(size_t)j * n + k];
    if (!(d > 0.0)) {
      ok = 0;
      break;
    }
    d = sqrt(d);
    l[(size_t)j * n + j] = d;
    for (int32_t i = j + 1; i < n; ++i) {
      double s = l[(size_t)i * n + j];
      for (int32_t k = 0; k < j; ++k) s -= l[(size_t)i * n + k] * l[(size_t)j * n + k];
      l[(size_t)i * n + j] = s / d;
    }
  }
  free(l);
  return ok;
}

static int load_siconos(const char *name, tproblem *p) {
  char mpath[1024], qpath[1024];
  snprintf(mpath, sizeof mpath, "%s/mtx/%s.M.mtx", SHARD_SICONOS_DIR, name);
  snprintf(qpath, sizeof qpath, "%s/mtx/%s.q.mtx", SHARD_SICONOS_DIR, name);
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "%s", name);
  p->cls = CLS_SICONOS;
  shard_msg msg;
  int st = shard_mtx_read_csr(mpath, &p->m, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "reading %.300s: %.300s", mpath, msg.text);
  if (st != SHARD_OK) return 0;
  int32_t nq = 0;
  st = shard_mtx_read_vector(qpath, &nq, &p->q, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "reading %.300s: %.300s", qpath, msg.text);
  if (st != SHARD_OK) return 0;
  CU_ASSERT_EQUAL(nq, p->m.nrows);
  CU_ASSERT_EQUAL(p->m.nrows, p->m.ncols);
  p->n = nq;
  shard_csr c = shard_mtx_view(&p->m);
  CU_ASSERT_EQUAL_FATAL(shard_mtx_csr_to_dense(&c, &p->dense, &msg), SHARD_OK);
  p->symmetric = 1;
  for (int32_t i = 0; i < p->n; ++i)
    for (int32_t j = 0; j < i; ++j)
      if (p->dense[(size_t)i * p->n + j] != p->dense[(size_t)j * p->n + i]) p->symmetric = 0;
  p->psd = p->symmetric && check_psd(p);
  p->solvable = in_list(name, SICONOS_LEMKE_OK, 15) ? 1 : 0; /* lemke's success proves one exists */
  if (strstr(name, "_block")) p->solvable = 1; /* the same problems as their dense twins */
  finish(p);
  return 1;
}

/* -------------------------------------------------------------- solvers */

typedef struct tsolver {
  const shard_plugin *desc;
  const shard_lcp_solver_ops *ops;
  double tol; /* default of its `tolerance` parameter (1e-9 if none) */
  shard_param_value values[32];
  shard_params params;
  int method_key;  /* index of a CHOICE parameter `method`, -1 if none */
  char method[32]; /* this variant's method */
  char label[80];  /* "name" or "name:method" */
  uint64_t caps;   /* of an instance with these parameters */
} tsolver;

static void default_values(tsolver *s) {
  const shard_plugin *d = s->desc;
  CU_ASSERT_FATAL(d->n_params <= 32);
  s->tol = 1e-9;
  for (uint32_t k = 0; k < d->n_params; ++k) {
    const shard_param_spec *sp = &d->params[k];
    shard_param_value *v = &s->values[k];
    memset(v, 0, sizeof *v);
    if (!sp->def) continue;
    v->set = 1;
    if (sp->type == SHARD_PARAM_REAL || sp->type == SHARD_PARAM_INT) {
      v->real = strtod(sp->def, NULL);
      v->integer = (long long)v->real;
    } else if (sp->type == SHARD_PARAM_BOOL) {
      v->boolean = strcmp(sp->def, "true") == 0;
    } else {
      v->string = sp->def;
    }
    if (strcmp(sp->key, "tolerance") == 0 && sp->type == SHARD_PARAM_REAL) s->tol = v->real;
  }
  s->params.specs = d->params;
  s->params.count = d->n_params;
  s->params.values = s->values;
}

/* The caps an instance with s's parameters reports. */
static void instance_caps(tsolver *s) {
  shard_msg msg = {{0}};
  void *self = NULL;
  s->params.values = s->values;
  s->caps = s->desc->caps;
  const int st = s->ops->create(&s->params, &self, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "%s: create with defaults: %.300s", s->label, msg.text);
  if (st != SHARD_OK) return;
  s->caps = shard_lcp_solver_caps(s->desc, self);
  s->ops->destroy(self);
}

static int load_solvers(shard_registry **reg, tsolver *out) {
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL_FATAL(shard_registry_create(reg, &msg), SHARD_OK);
  int st = shard_registry_load_dir(*reg, SHARD_PLUGIN_DIR, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "loading %.300s: %.300s", SHARD_PLUGIN_DIR, msg.text);
  int n = 0;
  for (size_t i = 0; i < shard_registry_count(*reg); ++i) {
    const shard_plugin *d = shard_registry_at(*reg, i)->desc;
    if (d->kind != SHARD_KIND_LCP_SOLVER) continue;
    int mk = -1;
    for (uint32_t k = 0; k < d->n_params; ++k)
      if (d->params[k].type == SHARD_PARAM_CHOICE && strcmp(d->params[k].key, "method") == 0) mk = (int)k;
    /* one variant per method, else one */
    const char *ch = mk >= 0 ? d->params[mk].choices : "";
    for (;;) {
      const size_t len = strcspn(ch, "|");
      CU_ASSERT_FATAL(n < MAX_SOLVERS && len < sizeof out[n].method);
      tsolver *s = &out[n++];
      s->desc = d;
      s->ops = d->ops;
      default_values(s);
      s->method_key = mk;
      memcpy(s->method, ch, len);
      s->method[len] = '\0';
      if (mk >= 0) {
        s->values[mk].set = 1;
        s->values[mk].string = s->method;
        snprintf(s->label, sizeof s->label, "%s:%s", d->name, s->method);
      } else {
        snprintf(s->label, sizeof s->label, "%s", d->name);
      }
      instance_caps(s);
      if (ch[len] != '|') break;
      ch += len + 1;
    }
  }
  /* GENERAL solvers first: they provide the reference solutions */
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if ((out[j].caps & SHARD_CAP_LCP_GENERAL) && !(out[i].caps & SHARD_CAP_LCP_GENERAL)) {
        tsolver t = out[i];
        out[i] = out[j];
        out[j] = t;
      }
  for (int i = 0; i < n; ++i) {
    out[i].params.values = out[i].values;
    if (out[i].method_key >= 0) out[i].values[out[i].method_key].string = out[i].method;
  }
  CU_CHECK_MSG(n >= 3, "expected at least lemke, pgs and a PSD solver; found %d LCP solvers", n);
  return n;
}

static const tsolver *find_solver(const tsolver *solvers, int ns, const char *name) {
  for (int i = 0; i < ns; ++i)
    if (strcmp(solvers[i].desc->name, name) == 0) return &solvers[i];
  return NULL;
}

/* the loaded solver of the tridiagonal Z class (the last one), NULL when none */
static const tsolver *find_tridiagonal(const tsolver *solvers, int ns) {
  const tsolver *t = NULL;
  for (int i = 0; i < ns; ++i)
    if (solvers[i].caps & SHARD_CAP_LCP_TRIDIAGONAL_Z) t = &solvers[i];
  return t;
}

/* the nonzeros of the row-major n x n matrix a as CSR, into rowptr (n + 1
 * entries) and col, val (room for the nonzeros) */
static shard_csr dense_csr(int n, const double *a, int32_t *rowptr, int32_t *col, double *val) {
  int32_t nnz = 0;
  rowptr[0] = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      if (a[(size_t)i * n + j] != 0.0) col[nnz] = j, val[nnz++] = a[(size_t)i * n + j];
    rowptr[i + 1] = nnz;
  }
  return (shard_csr){n, n, rowptr, col, val};
}

/* The explicit class mapping of the header comment. */
static int admits(const tsolver *s, const tproblem *p) {
  if (p->cls == CLS_INFEASIBLE) return 1;
  const uint64_t caps = s->caps;
  if ((caps & SHARD_CAP_LCP_DENSE) && !(caps & SHARD_CAP_LCP_SPARSE) && p->n > DENSE_N) return 0;
  if (caps & SHARD_CAP_LCP_TRIDIAGONAL_Z) return p->tridz;
  if (caps & SHARD_CAP_LCP_GENERAL) return 1;
  if (caps & SHARD_CAP_LCP_NEEDS_PSD) return p->symmetric && p->psd;
  return p->posdiag && ((p->symmetric && p->psd) || p->diagdom);
}

/* Whether the solver must solve it (admitted and known solvable). */
static int must_solve(const tsolver *s, const tproblem *p) {
  if (!admits(s, p) || p->solvable != 1) return 0;
  /* the exact chain solver: every M-matrix of its structure (Siconos
   * problems of its structure included, when they are M-matrices) */
  if (s->caps & SHARD_CAP_LCP_TRIDIAGONAL_Z) return p->mmatrix;
  if (p->cls == CLS_SICONOS) {
    if (s->caps & SHARD_CAP_LCP_GENERAL)
      return in_list(p->name, SICONOS_LEMKE_OK, 15) || strstr(p->name, "_block") != NULL;
    /* external symmetric PSD problems with positive diagonal */
    return p->symmetric && p->psd && p->posdiag;
  }
  /* projected iterations (neither cap) are required on positive definite and
   * diagonally dominant problems; on the rank-deficient PSD ones they are run
   * (and must not claim a wrong solution) but may stall: Gauss-Seidel
   * converges there only sublinearly */
  if (!(s->caps & (SHARD_CAP_LCP_GENERAL | SHARD_CAP_LCP_NEEDS_PSD))) return p->unique || p->diagdom;
  return 1;
}

typedef struct outcome {
  int refused; /* setup refused the size (SHARD_ERR_UNSUPPORTED) */
  int status;
  int64_t iterations;
  double residual;
  double *z;
} outcome;

/* Solve p with s, assert the contract; z returned in out->z (malloc'ed). */
static void run_one(const tsolver *s, const tproblem *p, outcome *out) {
  shard_msg msg = {{0}};
  void *self = NULL;
  out->z = calloc((size_t)p->n, sizeof *out->z);
  out->status = SHARD_ERR_INTERNAL;
  out->refused = 0;
  int st = s->ops->create(&s->params, &self, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "%s: create with defaults: %.300s", s->label, msg.text);
  if (st != SHARD_OK) return;
  shard_csr c = shard_mtx_view(&p->m);
  st = s->ops->setup(self, p->n, c.rowptr[p->n], &msg);
  if (st == SHARD_ERR_UNSUPPORTED && msg.text[0]) {
    out->refused = 1;
    out->status = st;
    s->ops->destroy(self);
    return;
  }
  CU_CHECK_MSG(st == SHARD_OK, "%s on %s: setup: %.300s", s->label, p->name, msg.text);
  if (st == SHARD_OK) {
    double *w = calloc((size_t)p->n, sizeof *w);
    shard_lcp_problem prob = {p->n, &c, p->dense, p->q, p->flags};
    shard_lcp_report rep = {SHARD_ERR_INTERNAL, -1, NAN};
    alloc_count_start();
    st = s->ops->solve(self, &prob, out->z, w, &rep, &msg);
    const long long nalloc = alloc_count_stop();
    CU_CHECK_MSG(nalloc == 0 || (s->caps & SHARD_CAP_LCP_ALLOCATES),
                 "%s on %s: solve allocated %lld times without SHARD_CAP_LCP_ALLOCATES", s->label, p->name,
                 nalloc);
    CU_CHECK_MSG(st == rep.status || st < 0, "%s on %s: returned %d but report status %d", s->label, p->name,
                 st, rep.status);
    out->status = st < 0 ? st : rep.status;
    out->iterations = rep.iterations;
    out->residual = rep.residual;
    if (out->status == SHARD_OK) {
      /* our own check of the returned z */
      double *w2 = calloc((size_t)p->n, sizeof *w2);
      double res = shard_lcp_residual(&prob, out->z, w2);
      double sc = 1e-300, zmin = 0.0, wmin = 0.0;
      for (int32_t i = 0; i < p->n; ++i) {
        sc = fmax(sc, fmax(fabs(p->q[i]), fabs(w2[i] - p->q[i])));
        zmin = fmin(zmin, out->z[i]);
        wmin = fmin(wmin, w2[i]);
      }
      CU_CHECK_MSG(zmin >= 0.0, "%s on %s: OK with z_min = %g < 0", s->label, p->name, zmin);
      CU_CHECK_MSG(wmin >= -s->tol * sc, "%s on %s: OK with w_min = %g < -tol*s = %g", s->label, p->name,
                   wmin, -s->tol * sc);
      CU_CHECK_MSG(res <= s->tol, "%s on %s: OK with residual %.3g > tolerance %.3g", s->label, p->name, res,
                   s->tol);
      CU_CHECK_MSG(fabs(res - rep.residual) <= 1e-3 * res + 1e-15,
                   "%s on %s: reported residual %.6g, recomputed %.6g", s->label, p->name, rep.residual, res);
      double wdiff = 0.0;
      for (int32_t i = 0; i < p->n; ++i) wdiff = fmax(wdiff, fabs(w[i] - w2[i]));
      CU_CHECK_MSG(wdiff <= 1e-12 * sc, "%s on %s: returned w differs from Mz+q by %g", s->label, p->name,
                   wdiff);
      free(w2);
    } else {
      CU_CHECK_MSG(msg.text[0] != '\0', "%s on %s: status %d without a message", s->label, p->name,
                   out->status);
    }
    free(w);
  }
  s->ops->destroy(self);
}

static void run_set(tproblem *set, int np, const char *what) {
  shard_registry *reg = NULL;
  tsolver solvers[MAX_SOLVERS];
  int ns = load_solvers(&reg, solvers);
  int runs = 0, ran[MAX_SOLVERS] = {0};
  for (int k = 0; k < np; ++k) {
    const tproblem *p = &set[k];
    double *ref = NULL;
    const char *ref_name = NULL;
    for (int i = 0; i < ns; ++i) {
      const tsolver *s = &solvers[i];
      if (!admits(s, p)) continue;
      outcome o;
      run_one(s, p, &o);
      if (o.refused) {
        printf("    %-16s %-40s n=%-5d refused at setup (size)\n", s->label, p->name, (int)p->n);
        free(o.z);
        continue;
      }
      ++runs;
      ++ran[i];
      printf("    %-16s %-40s n=%-5d status=%-18s iterations=%-6lld residual=%.3g\n", s->label, p->name,
             (int)p->n, shard_status_str(o.status), (long long)o.iterations, o.residual);
      if (must_solve(s, p))
        CU_CHECK_MSG(o.status == SHARD_OK, "%s must solve %s (n = %d) but reported '%s'", s->label, p->name,
                     (int)p->n, shard_status_str(o.status));
      if (p->solvable == -1) {
        CU_CHECK_MSG(o.status != SHARD_OK, "%s reports a solution of %s, which has none", s->label, p->name);
        /* PSD is copositive-plus: ray termination of a pivoting method proves infeasibility */
        if ((s->caps & SHARD_CAP_LCP_GENERAL) && p->symmetric && p->psd)
          CU_CHECK_MSG(o.status == SHARD_NO_SOLUTION, "%s on %s (PSD, infeasible) reported '%s', expected '%s'",
                       s->label, p->name, shard_status_str(o.status), shard_status_str(SHARD_NO_SOLUTION));
        /* a PSD solver on a PSD problem: a recoverable status, not an input error */
        if ((s->caps & SHARD_CAP_LCP_NEEDS_PSD) && p->symmetric && p->psd)
          CU_CHECK_MSG(o.status == SHARD_NO_SOLUTION || o.status == SHARD_NOT_CONVERGED,
                       "%s on %s (PSD, infeasible) reported '%s'", s->label, p->name,
                       shard_status_str(o.status));
      }
      if (o.status == SHARD_OK && p->unique) {
        if (!ref) {
          ref = o.z;
          ref_name = s->label;
          o.z = NULL;
        } else {
          double dmax = 0.0, zmax = 1.0;
          for (int32_t j = 0; j < p->n; ++j) {
            dmax = fmax(dmax, fabs(o.z[j] - ref[j]));
            zmax = fmax(zmax, fabs(ref[j]));
          }
          CU_CHECK_MSG(dmax <= 1e-8 * zmax, "%s and %s disagree on %s: max |dz| = %.3g (|z|_inf = %.3g)",
                       s->label, ref_name, p->name, dmax, zmax);
        }
      }
      free(o.z);
    }
    free(ref);
  }
  printf("    %s: %d solver runs on %d problems\n", what, runs, np);
  for (int i = 0; i < ns; ++i) CU_CHECK_MSG(ran[i] > 0, "%s ran on none of the %s problems", solvers[i].label, what);
  shard_registry_destroy(reg);
}

/* ----------------------------------------------------------------- tests */

static void test_lcp_contract_descriptors(void) {
  shard_registry *reg = NULL;
  tsolver solvers[MAX_SOLVERS];
  int ns = load_solvers(&reg, solvers);
  int have_general = 0, have_psd = 0;
  long long create_allocs = 0;
  for (int i = 0; i < ns; ++i) {
    const tsolver *s = &solvers[i];
    const shard_plugin *d = s->desc;
    /* instance caps change the class only; the counter sees plugin code */
    CU_CHECK_MSG((s->caps & ~(SHARD_CAP_LCP_GENERAL | SHARD_CAP_LCP_NEEDS_PSD)) ==
                     (d->caps & ~(SHARD_CAP_LCP_GENERAL | SHARD_CAP_LCP_NEEDS_PSD)),
                 "%s: instance caps 0x%llx against the descriptor's 0x%llx", s->label, (unsigned long long)s->caps,
                 (unsigned long long)d->caps);
    {
      shard_msg m0 = {{0}};
      void *probe = NULL;
      alloc_count_start();
      const int cst = s->ops->create(&s->params, &probe, &m0);
      create_allocs += alloc_count_stop();
      if (cst == SHARD_OK) s->ops->destroy(probe);
    }
    CU_CHECK_MSG(d->caps & (SHARD_CAP_LCP_DENSE | SHARD_CAP_LCP_SPARSE), "%s declares neither a dense nor a sparse view",
                 d->name);
    CU_CHECK_MSG(d->ops_size >= sizeof(shard_lcp_solver_ops), "%s: ops_size %u", d->name, d->ops_size);
    have_general |= (s->caps & SHARD_CAP_LCP_GENERAL) != 0;
    have_psd |= (s->caps & SHARD_CAP_LCP_NEEDS_PSD) != 0;
    s->ops->destroy(NULL); /* must be accepted */
    /* solve beyond the setup size fails cleanly (no allocation in solve) */
    shard_msg msg = {{0}};
    void *self = NULL;
    CU_ASSERT_EQUAL_FATAL(s->ops->create(&s->params, &self, &msg), SHARD_OK);
    CU_CHECK_MSG(s->ops->setup(self, 2, 4, &msg) == SHARD_OK, "%s: setup(2): %.300s", d->name, msg.text);
    int32_t rp[4] = {0, 1, 2, 3};
    int32_t ci[3] = {0, 1, 2};
    double v[3] = {1, 1, 1}, q[3] = {-1, -1, -1}, dense[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, z[3] = {0}, w[3];
    shard_csr c = {3, 3, rp, ci, v};
    shard_lcp_problem prob = {3, &c, dense, q, SHARD_LCP_SYMMETRIC | SHARD_LCP_PSD};
    shard_lcp_report rep;
    msg.text[0] = '\0';
    int st = s->ops->solve(self, &prob, z, w, &rep, &msg);
    CU_CHECK_MSG(st < 0 && msg.text[0], "%s: solve with n = 3 after setup(2) returned %d (%.300s)", d->name, st, msg.text);
    /* setup again, larger: now it solves (z = 1) */
    CU_ASSERT_EQUAL(s->ops->setup(self, 3, 3, &msg), SHARD_OK);
    st = s->ops->solve(self, &prob, z, w, &rep, &msg);
    CU_CHECK_MSG(st == SHARD_OK, "%s on I z - 1: %.300s", d->name, msg.text);
    for (int k = 0; k < 3; ++k) CU_NEAR(z[k], 1.0, 1e-9);
    s->ops->destroy(self);
    /* create called directly re-checks the table against the specs: a value
     * beyond each finite end (and at an open one), NaN, and a defaulted key
     * left without a value are refused with the key named */
    for (uint32_t k = 0; k < d->n_params; ++k) {
      const shard_param_spec *sp = &d->params[k];
      double bad[SPEC_PROBE_MAX];
      const int nb = spec_probe_out_of_range(sp, bad);
      if (nb == 0) continue;
      for (int j = 0; j <= nb; ++j) {
        tsolver t = *s;
        t.params.values = t.values;
        if (j < nb) {
          t.values[k].real = bad[j];
          t.values[k].integer = (long long)(isfinite(bad[j]) ? bad[j] : 0);
        } else {
          if (!sp->def) continue;
          t.values[k].set = 0;
        }
        shard_msg m2 = {{0}};
        void *bad_self = &t; /* must be reset */
        st = t.ops->create(&t.params, &bad_self, &m2);
        CU_CHECK_MSG(st == SHARD_ERR_INPUT && bad_self == NULL && strstr(m2.text, sp->key),
                     "%s: %s = %g%s: create returned %d, self %p, message '%.300s' (must name the key)", d->name,
                     sp->key, j < nb ? bad[j] : 0.0, j < nb ? "" : " (unset)", st, bad_self, m2.text);
        if (st == SHARD_OK) t.ops->destroy(bad_self);
      }
    }
  }
  CU_ASSERT(have_general);
  CU_ASSERT(have_psd);
  if (ALLOC_COUNTING)
    CU_CHECK_MSG(create_allocs >= ns, "the allocation counter saw %lld allocations in %d creates (not interposed?)",
                 create_allocs, ns);
  else
    printf("\n    (allocation counting unavailable in this build: AddressSanitizer or not glibc)");
  shard_registry_destroy(reg);
}

static void test_lcp_contract_generated(void) {
  tproblem *set = calloc(MAX_PROBLEMS, sizeof *set);
  int np = generate(set);
  CU_CHECK_MSG(np >= 40, "only %d generated problems", np);
  run_set(set, np, "generated");
  for (int k = 0; k < np; ++k) problem_free(&set[k]);
  free(set);
}

static void test_lcp_contract_siconos(void) {
  tproblem set[N_SICONOS];
  int np = 0;
  for (int i = 0; i < N_SICONOS; ++i)
    if (load_siconos(SICONOS_ALL[i], &set[np])) ++np;
  CU_ASSERT_EQUAL(np, N_SICONOS);
  run_set(set, np, "siconos");
  for (int k = 0; k < np; ++k) problem_free(&set[k]);
}

/* lemke by name on the 15 problems (also covered by run_set's must_solve,
 * stated here once more so that the acceptance bullet is one test) */
static void test_lcp_contract_lemke_siconos_15(void) {
  shard_registry *reg = NULL;
  tsolver solvers[MAX_SOLVERS];
  int ns = load_solvers(&reg, solvers);
  const tsolver *lemke = find_solver(solvers, ns, "lemke");
  CU_ASSERT_PTR_NOT_NULL_FATAL(lemke);
  int solved = 0;
  for (int i = 0; i < 15; ++i) {
    tproblem p;
    if (!load_siconos(SICONOS_LEMKE_OK[i], &p)) continue;
    outcome o;
    run_one(lemke, &p, &o);
    CU_CHECK_MSG(o.status == SHARD_OK, "lemke on %s: %s", p.name, shard_status_str(o.status));
    solved += o.status == SHARD_OK;
    free(o.z);
    problem_free(&p);
  }
  CU_ASSERT_EQUAL(solved, 15);
  shard_registry_destroy(reg);
}

/* iterative solvers (neither GENERAL) warm-started at a solution stop at once */
static void test_lcp_contract_warm_start(void) {
  shard_registry *reg = NULL;
  tsolver solvers[MAX_SOLVERS];
  int ns = load_solvers(&reg, solvers);
  tproblem set[4];
  int np = 0;
  rng r = {7u};
  add_spd(set, &np, &r, 40, 99);
  add_tridiag(set, &np, &r, 300, 99);
  for (int i = 0; i < ns; ++i) {
    const tsolver *s = &solvers[i];
    if (s->caps & SHARD_CAP_LCP_GENERAL) continue;
    for (int k = 0; k < np; ++k) {
      const tproblem *p = &set[k];
      if (!admits(s, p)) continue; /* a solver of a structural class: its problems only */
      shard_msg msg;
      void *self = NULL;
      CU_ASSERT_EQUAL_FATAL(s->ops->create(&s->params, &self, &msg), SHARD_OK);
      shard_csr c = shard_mtx_view(&p->m);
      CU_ASSERT_EQUAL_FATAL(s->ops->setup(self, p->n, c.rowptr[p->n], &msg), SHARD_OK);
      double *z = calloc((size_t)p->n, sizeof *z), *w = calloc((size_t)p->n, sizeof *w);
      shard_lcp_problem prob = {p->n, &c, p->dense, p->q, p->flags};
      shard_lcp_report cold, warm;
      CU_ASSERT_EQUAL(s->ops->solve(self, &prob, z, w, &cold, &msg), SHARD_OK);
      CU_ASSERT_EQUAL(s->ops->solve(self, &prob, z, w, &warm, &msg), SHARD_OK);
      CU_CHECK_MSG(warm.iterations <= 2 && warm.iterations < cold.iterations,
                   "%s on %s: warm start took %lld iterations (cold %lld)", s->label, p->name,
                   (long long)warm.iterations, (long long)cold.iterations);
      /* negative warm-start entries are clipped, not trusted */
      for (int32_t j = 0; j < p->n; ++j) z[j] = -1.0;
      CU_ASSERT_EQUAL(s->ops->solve(self, &prob, z, w, &warm, &msg), SHARD_OK);
      CU_ASSERT(warm.residual <= s->tol);
      free(z);
      free(w);
      s->ops->destroy(self);
    }
  }
  for (int k = 0; k < np; ++k) problem_free(&set[k]);
  shard_registry_destroy(reg);
}

/* setup may be called again between solves with other (larger) sizes: a
 * solver set up small, then for the problem's size, then once more for it,
 * solves as one set up once (same status, same z bit for bit). Under
 * AddressSanitizer the arrays of the earlier setups must not leak. */
static void test_lcp_contract_setup_again(void) {
  shard_registry *reg = NULL;
  tsolver solvers[MAX_SOLVERS];
  const int ns = load_solvers(&reg, solvers);
  tproblem set[2];
  int np = 0;
  rng r = {11u};
  add_spd(set, &np, &r, 40, 98);
  add_tridiag(set, &np, &r, 60, 98);
  int checked = 0;
  for (int i = 0; i < ns; ++i) {
    const tsolver *s = &solvers[i];
    for (int k = 0; k < np; ++k) {
      const tproblem *p = &set[k];
      if (!admits(s, p)) continue;
      shard_csr c = shard_mtx_view(&p->m);
      const shard_lcp_problem prob = {p->n, &c, p->dense, p->q, p->flags};
      double *z[2], *w = calloc((size_t)p->n, sizeof *w);
      shard_lcp_report rep[2];
      int st[2];
      int refused = 0;
      for (int again = 0; again < 2 && !refused; ++again) {
        shard_msg msg = {{0}};
        void *self = NULL;
        CU_ASSERT_EQUAL_FATAL(s->ops->create(&s->params, &self, &msg), SHARD_OK);
        if (!again && s->ops->setup(self, p->n, c.rowptr[p->n], &msg) == SHARD_ERR_UNSUPPORTED) {
          refused = 1; /* a size this solver refuses: not admitted */
          s->ops->destroy(self);
          break;
        }
        if (again) {
          CU_ASSERT_EQUAL_FATAL(s->ops->setup(self, 3, 9, &msg), SHARD_OK);
          CU_ASSERT_EQUAL_FATAL(s->ops->setup(self, p->n / 2, c.rowptr[p->n] / 2, &msg), SHARD_OK);
        }
        if (again) CU_ASSERT_EQUAL_FATAL(s->ops->setup(self, p->n, c.rowptr[p->n], &msg), SHARD_OK);
        CU_ASSERT_EQUAL_FATAL(s->ops->setup(self, p->n, c.rowptr[p->n], &msg), SHARD_OK);
        z[again] = calloc((size_t)p->n, sizeof(double));
        st[again] = s->ops->solve(self, &prob, z[again], w, &rep[again], &msg);
        s->ops->destroy(self);
      }
      if (refused) {
        free(w);
        continue;
      }
      CU_CHECK_MSG(st[0] == st[1] && rep[0].status == rep[1].status && rep[0].iterations == rep[1].iterations,
                   "%s on %s: set up again: status %d/%d, %lld iterations, once: %d/%d, %lld", s->label, p->name,
                   st[1], rep[1].status, (long long)rep[1].iterations, st[0], rep[0].status,
                   (long long)rep[0].iterations);
      CU_CHECK_MSG(memcmp(z[0], z[1], (size_t)p->n * sizeof(double)) == 0, "%s on %s: z differs after a second setup",
                   s->label, p->name);
      if (must_solve(s, p)) CU_CHECK_MSG(rep[1].status == SHARD_OK, "%s on %s: not solved after a second setup", s->label, p->name);
      free(z[0]), free(z[1]), free(w);
      ++checked;
    }
  }
  CU_ASSERT(checked >= 4);
  for (int k = 0; k < np; ++k) problem_free(&set[k]);
  shard_registry_destroy(reg);
}

/* One LCP through the host's block split (shard_contact_lcp_solve) with pgs
 * as the primary solver, z starting at 0; the step's statistics in *st. */
static void host_pgs_solve(const tsolver *pgs, int closed_form, const shard_csr *w, const double *q, double *z,
                           shard_step_stats *st) {
  const int32_t n = w->nrows;
  shard_msg msg = {{0}};
  shard_contact *c = NULL;
  void *self = NULL;
  CU_ASSERT_EQUAL_FATAL(shard_contact_create(&c, 2 * n, n, 2, n, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(pgs->ops->create(&pgs->params, &self, &msg), SHARD_OK);
  shard_contact_policy pol = {.primary = {"pgs", pgs->ops, self, pgs->desc->caps, 10 * pgs->tol},
                              .scalar_closed_form = closed_form};
  CU_ASSERT_EQUAL_FATAL(shard_contact_set_policy(c, &pol, &msg), SHARD_OK);
  memset(st, 0, sizeof *st);
  for (int32_t i = 0; i < n; ++i) z[i] = 0.0;
  CU_ASSERT_EQUAL(shard_contact_lcp_solve(c, w, q, SHARD_LCP_SYMMETRIC | SHARD_LCP_PSD, z, st, &msg), SHARD_OK);
  shard_contact_destroy(c);
  pgs->ops->destroy(self);
}

/* The host's block split (contact.c): W of six rows in four independent
 * blocks, three of one contact (q < 0, q > 0, q = 0) and one of three.
 * With lcp.scalar_blocks: closed_form the one-contact blocks get
 * z = max(0, -q/w) without a solver call; handed to pgs they give the same z
 * (to pgs's tolerance), and the three-contact block is untouched by the rule. */
static void test_lcp_contract_scalar_blocks(void) {
  shard_registry *reg = NULL;
  tsolver solvers[MAX_SOLVERS];
  const int ns = load_solvers(&reg, solvers);
  const tsolver *pgs = find_solver(solvers, ns, "pgs");
  CU_ASSERT_PTR_NOT_NULL_FATAL(pgs);
  /* rows 0, 2, 5: scalar blocks; rows 1, 3, 4: a tridiagonal SPD block */
  int32_t rowptr[] = {0, 1, 3, 4, 7, 9, 10};
  int32_t col[] = {0, 1, 3, 2, 1, 3, 4, 3, 4, 5};
  double val[] = {4.0, 2.0, -0.5, 0.25, -0.5, 3.0, -1.0, -1.0, 2.5, 1e-3};
  const shard_csr w = {6, 6, rowptr, col, val};
  const double q[] = {-2.0, -1.0, 3.0, 0.5, -2.0, 0.0};
  double z_by[2][6];
  shard_step_stats st_by[2];
  for (int closed = 0; closed < 2; ++closed) {
    host_pgs_solve(pgs, closed, &w, q, z_by[closed], &st_by[closed]);
    CU_ASSERT_EQUAL(st_by[closed].lcp_blocks, 4);
    CU_ASSERT_EQUAL(st_by[closed].lcp_max_block, 3);
  }
  /* exact scalar solutions in closed form, bit for bit */
  CU_ASSERT_EQUAL(z_by[1][0], 0.5);
  CU_ASSERT_EQUAL(z_by[1][2], 0.0);
  CU_ASSERT_EQUAL(z_by[1][5], 0.0);
  for (int i = 0; i < 6; ++i)
    CU_CHECK_MSG(fabs(z_by[0][i] - z_by[1][i]) <= 1e-10 * (1.0 + fabs(z_by[1][i])), "z[%d]: solver %.17g, closed form %.17g",
                 i, z_by[0][i], z_by[1][i]);
  /* complementarity of the coupled block */
  for (int i = 1; i < 5; i += (i == 1 ? 2 : 1)) {
    double wi = q[i];
    for (int32_t k = rowptr[i]; k < rowptr[i + 1]; ++k) wi += val[k] * z_by[1][col[k]];
    CU_CHECK_MSG(wi >= -1e-12 && z_by[1][i] >= 0.0 && fabs(wi * z_by[1][i]) <= 1e-12, "row %d: w %.3g z %.3g", i, wi,
                 z_by[1][i]);
  }
  CU_CHECK_MSG(st_by[1].lcp_iterations < st_by[0].lcp_iterations, "closed form still iterated: %lld against %lld",
               (long long)st_by[1].lcp_iterations, (long long)st_by[0].lcp_iterations);
  shard_registry_destroy(reg);
}

/* A solver that reports success for whatever it returns: z = 0 (status OK,
 * residual 0), or z = `bias` everywhere when its self points at a bias. */
static int liar_solve(void *self, const shard_lcp_problem *p, double *z, double *w, shard_lcp_report *rep,
                      shard_msg *msg) {
  (void)msg;
  const double bias = self ? *(const double *)self : 0.0;
  for (int32_t i = 0; i < p->n; ++i) z[i] = bias, w[i] = 0.0;
  rep->status = SHARD_OK, rep->iterations = 1, rep->residual = 0.0;
  return SHARD_OK;
}
static int liar_setup(void *self, int32_t n_max, int64_t nnz_max, shard_msg *msg) {
  (void)self, (void)n_max, (void)nnz_max, (void)msg;
  return SHARD_OK;
}
static const shard_lcp_solver_ops liar_ops = {.setup = liar_setup, .solve = liar_solve};

/* The host checks every solution a solver reports as solved: z = 0 on a
 * block with approaching contacts (w = q < 0), a negative z and a z with
 * z > 0 and w > 0 are each a failed solve (SHARD_ERR_NUMERIC naming the
 * contact and the condition), and with a fallback the block is solved again
 * by it, its own solution checked in turn and counted as a fallback. */
static void test_lcp_contract_host_checks_solutions(void) {
  shard_registry *reg = NULL;
  tsolver solvers[MAX_SOLVERS];
  const int ns = load_solvers(&reg, solvers);
  const tsolver *pgs = find_solver(solvers, ns, "pgs");
  CU_ASSERT_PTR_NOT_NULL_FATAL(pgs);
  /* one tridiagonal SPD block of three contacts, two approaching */
  int32_t rowptr[] = {0, 2, 5, 7};
  int32_t col[] = {0, 1, 0, 1, 2, 1, 2};
  double val[] = {2.0, -0.5, -0.5, 2.0, -0.5, -0.5, 2.0};
  const shard_csr w = {3, 3, rowptr, col, val};
  const double q[] = {-1.0, 0.5, -2.0};
  const struct {
    double bias;
    const char *what;
  } lies[] = {{0.0, "violated constraint (w < 0)"}, {-1.0, "negative impulse"}, {5.0, "not complementary"}};
  for (size_t k = 0; k < sizeof lies / sizeof lies[0]; ++k) {
    shard_msg msg = {{0}};
    shard_contact *c = NULL;
    CU_ASSERT_EQUAL_FATAL(shard_contact_create(&c, 6, 3, 2, 3, &msg), SHARD_OK);
    double bias = lies[k].bias, z[3] = {0, 0, 0};
    shard_step_stats st;
    memset(&st, 0, sizeof st);
    shard_contact_policy pol = {.primary = {"liar", &liar_ops, &bias, SHARD_CAP_LCP_SPARSE, 1e-9}};
    CU_ASSERT_EQUAL_FATAL(shard_contact_set_policy(c, &pol, &msg), SHARD_OK);
    const int rc = shard_contact_lcp_solve(c, &w, q, SHARD_LCP_SYMMETRIC | SHARD_LCP_PSD, z, &st, &msg);
    CU_CHECK_MSG(rc == SHARD_ERR_NUMERIC && strstr(msg.text, "lcp 'liar': block of 3 contacts: reported success") &&
                     strstr(msg.text, lies[k].what),
                 "z = %g accepted or misreported: status %d, '%.300s'", bias, rc, msg.text);
    shard_contact_destroy(c);
  }
  /* with pgs as the fallback the block is solved */
  shard_msg msg = {{0}};
  shard_contact *c = NULL;
  void *self = NULL;
  CU_ASSERT_EQUAL_FATAL(shard_contact_create(&c, 6, 3, 2, 3, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(pgs->ops->create(&pgs->params, &self, &msg), SHARD_OK);
  shard_contact_policy pol = {.primary = {"liar", &liar_ops, NULL, SHARD_CAP_LCP_SPARSE, 1e-9},
                              .fallback = {"pgs", pgs->ops, self, pgs->desc->caps, 10 * pgs->tol}};
  CU_ASSERT_EQUAL_FATAL(shard_contact_set_policy(c, &pol, &msg), SHARD_OK);
  double z[3] = {0, 0, 0};
  shard_step_stats st;
  memset(&st, 0, sizeof st);
  CU_ASSERT_EQUAL(shard_contact_lcp_solve(c, &w, q, SHARD_LCP_SYMMETRIC | SHARD_LCP_PSD, z, &st, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(st.lcp_fallbacks, 1);
  for (int i = 0; i < 3; ++i) {
    double wi = q[i];
    for (int32_t e = rowptr[i]; e < rowptr[i + 1]; ++e) wi += val[e] * z[col[e]];
    CU_CHECK_MSG(z[i] >= 0.0 && wi >= -1e-10 && fabs(z[i] * wi) <= 1e-10, "fallback row %d: z %.3g w %.3g", i, z[i],
                 wi);
  }
  CU_CHECK_MSG(z[0] > 0.0 && z[2] > 0.0, "the approaching contacts got no impulse: %g %g", z[0], z[2]);
  shard_contact_destroy(c);
  pgs->ops->destroy(self);
  shard_registry_destroy(reg);
}

/* A solver wrapped to count its solve calls (self: a counted_solver). */
typedef struct counted_solver {
  const shard_lcp_solver_ops *ops;
  void *self;
  int calls;
} counted_solver;
static int counted_solve(void *self, const shard_lcp_problem *p, double *z, double *w, shard_lcp_report *rep,
                         shard_msg *msg) {
  counted_solver *c = self;
  c->calls++;
  return c->ops->solve(c->self, p, z, w, rep, msg);
}
static int counted_setup(void *self, int32_t n_max, int64_t nnz_max, shard_msg *msg) {
  counted_solver *c = self;
  return c->ops->setup(c->self, n_max, nnz_max, msg);
}
static const shard_lcp_solver_ops counted_ops = {.setup = counted_setup, .solve = counted_solve};

/* Dispatch by class: with a primary declaring SHARD_CAP_LCP_TRIDIAGONAL_Z,
 * the host checks each block and sends one outside the class (here a
 * 2-contact block with a positive off-diagonal, and a full 3 x 3 SPD
 * block) to the fallback without calling the primary, counting it with the
 * fallbacks; the in-class blocks (a chain of 4, and a scalar one handed to
 * the solver) are solved by the primary, exactly. Without a fallback the
 * first block outside the class stops the solve with a message naming
 * lcp.fallback; with lcp.dump it is written. */
static void test_lcp_contract_class_dispatch(void) {
  shard_registry *reg = NULL;
  tsolver solvers[MAX_SOLVERS];
  const int ns = load_solvers(&reg, solvers);
  const tsolver *tri = find_tridiagonal(solvers, ns), *lemke = find_solver(solvers, ns, "lemke");
  CU_ASSERT_PTR_NOT_NULL_FATAL(tri);
  CU_ASSERT_PTR_NOT_NULL_FATAL(lemke);
  enum { N = 10 };
  /* rows 0-3 chain (Z), 4-5 positive coupling, 6-8 full SPD, 9 alone */
  double a[N][N] = {{0}};
  for (int i = 0; i < 4; ++i) {
    a[i][i] = 2.0 + 0.1 * i;
    if (i > 0) a[i][i - 1] = a[i - 1][i] = -0.9;
  }
  a[4][4] = a[5][5] = 2.0, a[4][5] = a[5][4] = 0.5;
  for (int i = 6; i < 9; ++i)
    for (int j = 6; j < 9; ++j) a[i][j] = i == j ? 3.0 : -0.5;
  a[9][9] = 1.5;
  const double q[N] = {-1.0, 0.5, -2.0, 0.2, -1.0, -1.0, -1.0, 2.0, -0.5, -3.0};
  int32_t rowptr[N + 1], col[N * N];
  double val[N * N];
  const shard_csr w = dense_csr(N, &a[0][0], rowptr, col, val);
  char tmpdir[] = "/tmp/shard_dispatch_XXXXXX";
  CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmpdir));
  for (int with_fallback = 1; with_fallback >= 0; --with_fallback) {
    shard_msg msg = {{0}};
    shard_contact *c = NULL;
    void *tself = NULL, *lself = NULL;
    CU_ASSERT_EQUAL_FATAL(shard_contact_create(&c, 2 * N, N, 2, N, &msg), SHARD_OK);
    CU_ASSERT_EQUAL_FATAL(tri->ops->create(&tri->params, &tself, &msg), SHARD_OK);
    CU_ASSERT_EQUAL_FATAL(lemke->ops->create(&lemke->params, &lself, &msg), SHARD_OK);
    counted_solver prim = {tri->ops, tself, 0};
    shard_contact_policy pol = {.primary = {tri->desc->name, &counted_ops, &prim, tri->caps, 10 * tri->tol},
                                .scalar_closed_form = 0,
                                .dump = !with_fallback,
                                .dump_dir = tmpdir};
    if (with_fallback) pol.fallback = (shard_contact_solver){"lemke", lemke->ops, lself, lemke->caps, 10 * lemke->tol};
    CU_ASSERT_EQUAL_FATAL(shard_contact_set_policy(c, &pol, &msg), SHARD_OK);
    double z[N] = {0};
    shard_step_stats st;
    memset(&st, 0, sizeof st);
    const int rc = shard_contact_lcp_solve(c, &w, q, SHARD_LCP_SYMMETRIC, z, &st, &msg);
    if (with_fallback) {
      CU_CHECK_MSG(rc == SHARD_OK, "dispatch: %d '%.300s'", rc, msg.text);
      CU_CHECK_MSG(prim.calls == 2, "the primary was called %d times (expected 2: the chain and the scalar block)",
                   prim.calls);
      CU_ASSERT_EQUAL(st.lcp_fallbacks, 2);
      CU_ASSERT_EQUAL(st.lcp_blocks, 4);
      for (int i = 0; i < N; ++i) {
        double wi = q[i];
        for (int32_t e = rowptr[i]; e < rowptr[i + 1]; ++e) wi += val[e] * z[col[e]];
        CU_CHECK_MSG(z[i] >= 0.0 && wi >= -1e-12 && fabs(z[i] * wi) <= 1e-12, "row %d: z %.3g w %.3g", i, z[i], wi);
      }
      CU_ASSERT_EQUAL(z[9], 2.0); /* 3 / 1.5 by the primary, exact */
    } else {
      CU_CHECK_MSG(rc == SHARD_ERR_UNSUPPORTED && strstr(msg.text, "outside the solver's class") &&
                       strstr(msg.text, "W[0][1] = 0.5") && strstr(msg.text, "lcp.fallback"),
                   "no fallback: %d '%.400s'", rc, msg.text);
      CU_CHECK_MSG(prim.calls == 1, "the primary was called %d times (expected 1: the chain)", prim.calls);
      char path[256];
      snprintf(path, sizeof path, "%s/lcp_step0_block1.M.mtx", tmpdir);
      FILE *f = fopen(path, "r");
      CU_CHECK_MSG(f != NULL, "no dump of the refused block at %s (message '%.300s')", path, msg.text);
      if (f) fclose(f), remove(path);
      snprintf(path, sizeof path, "%s/lcp_step0_block1.q.mtx", tmpdir);
      remove(path);
    }
    shard_contact_destroy(c);
    tri->ops->destroy(tself);
    lemke->ops->destroy(lself);
  }
  remove(tmpdir);
  shard_registry_destroy(reg);
}

/* Batched chain blocks: a W of interval blocks that is tridiagonal Z as a
 * whole (chains of 4 and 2 rows, two single rows) goes to a primary of that
 * class in one call; z is bit for bit the block-by-block one (scalar blocks
 * in closed form there), and the block statistics are the same. */
static void test_lcp_contract_batched_blocks(void) {
  shard_registry *reg = NULL;
  tsolver solvers[MAX_SOLVERS];
  const int ns = load_solvers(&reg, solvers);
  const tsolver *tri = find_tridiagonal(solvers, ns);
  CU_ASSERT_PTR_NOT_NULL_FATAL(tri);
  enum { N = 8 };
  double a[N][N] = {{0}};
  const int blk[N] = {0, 0, 0, 0, 1, 2, 2, 3};
  for (int i = 0; i < N; ++i) {
    a[i][i] = 2.0 + 0.1 * i;
    if (i > 0 && blk[i] == blk[i - 1]) a[i][i - 1] = a[i - 1][i] = -0.9 + 0.05 * i;
  }
  const double q[N] = {-1.0, 0.5, -2.0, 0.2, -1.5, -1.0, 3.0, 0.25};
  int32_t rowptr[N + 1], col[3 * N];
  double val[3 * N];
  const shard_csr w = dense_csr(N, &a[0][0], rowptr, col, val);
  double z_by[2][N];
  shard_step_stats st_by[2];
  int calls[2];
  for (int batch = 0; batch < 2; ++batch) {
    shard_msg msg = {{0}};
    shard_contact *c = NULL;
    void *tself = NULL;
    CU_ASSERT_EQUAL_FATAL(shard_contact_create(&c, 2 * N, N, 2, N, &msg), SHARD_OK);
    CU_ASSERT_EQUAL_FATAL(tri->ops->create(&tri->params, &tself, &msg), SHARD_OK);
    counted_solver prim = {tri->ops, tself, 0};
    shard_contact_policy pol = {.primary = {tri->desc->name, &counted_ops, &prim, tri->caps, 10 * tri->tol},
                                .scalar_closed_form = 1,
                                .batch_blocks = batch};
    CU_ASSERT_EQUAL_FATAL(shard_contact_set_policy(c, &pol, &msg), SHARD_OK);
    memset(&st_by[batch], 0, sizeof st_by[batch]);
    for (int i = 0; i < N; ++i) z_by[batch][i] = 0.0;
    CU_ASSERT_EQUAL(shard_contact_lcp_solve(c, &w, q, SHARD_LCP_SYMMETRIC, z_by[batch], &st_by[batch], &msg),
                    SHARD_OK);
    calls[batch] = prim.calls;
    shard_contact_destroy(c);
    tri->ops->destroy(tself);
  }
  CU_CHECK_MSG(calls[0] == 2 && calls[1] == 1, "solver calls: %d block by block (expected 2), %d batched (expected 1)",
               calls[0], calls[1]);
  CU_ASSERT_EQUAL(st_by[0].lcp_blocks, 4);
  CU_ASSERT_EQUAL(st_by[1].lcp_blocks, 4);
  CU_ASSERT_EQUAL(st_by[1].lcp_max_block, 4);
  CU_ASSERT_EQUAL(st_by[1].lcp_fallbacks, 0);
  for (int i = 0; i < N; ++i)
    CU_CHECK_MSG(memcmp(&z_by[0][i], &z_by[1][i], sizeof(double)) == 0, "z[%d]: by block %.17g, batched %.17g", i,
                 z_by[0][i], z_by[1][i]);
  CU_ASSERT(z_by[1][4] > 0.0 && z_by[1][6] == 0.0);
  shard_registry_destroy(reg);
}

/* A solver that returns a NaN impulse in z[0] and reports success. */
static int nan_solve(void *self, const shard_lcp_problem *p, double *z, double *w, shard_lcp_report *rep,
                     shard_msg *msg) {
  (void)self, (void)msg;
  for (int32_t i = 0; i < p->n; ++i) z[i] = 0.0, w[i] = p->q[i];
  z[0] = NAN;
  rep->status = SHARD_OK, rep->iterations = 1, rep->residual = 0.0;
  return SHARD_OK;
}
static const shard_lcp_solver_ops nan_ops = {.setup = liar_setup, .solve = nan_solve};

/* The batched path keeps the guards of the block-by-block one. A W of
 * interval blocks with one block outside the tridiagonal Z class (a
 * positive coupling) is not handed over whole: the primary sees only the
 * chain (a whole-W call would be a second one, refused), the other block
 * goes to the fallback. A primary of the class returning a NaN impulse
 * with success is caught on the batched call and again on the first block,
 * which stops the solve with the host's message. */
static void test_lcp_contract_batched_guards(void) {
  shard_registry *reg = NULL;
  tsolver solvers[MAX_SOLVERS];
  const int ns = load_solvers(&reg, solvers);
  const tsolver *tri = find_tridiagonal(solvers, ns), *lemke = find_solver(solvers, ns, "lemke");
  CU_ASSERT_PTR_NOT_NULL_FATAL(tri);
  CU_ASSERT_PTR_NOT_NULL_FATAL(lemke);
  enum { N = 7 };
  /* rows 0-3 chain (Z), 4-5 positive coupling, 6 alone */
  double a[N][N] = {{0}};
  for (int i = 0; i < 4; ++i) {
    a[i][i] = 2.0 + 0.1 * i;
    if (i > 0) a[i][i - 1] = a[i - 1][i] = -0.9;
  }
  a[4][4] = a[5][5] = 2.0, a[4][5] = a[5][4] = 0.5;
  a[6][6] = 1.5;
  const double q[N] = {-1.0, 0.5, -2.0, 0.2, -1.0, -1.0, -3.0};
  int32_t rowptr[N + 1], col[N * N];
  double val[N * N];
  const shard_csr w = dense_csr(N, &a[0][0], rowptr, col, val);
  {
    shard_msg msg = {{0}};
    shard_contact *c = NULL;
    void *tself = NULL, *lself = NULL;
    CU_ASSERT_EQUAL_FATAL(shard_contact_create(&c, 2 * N, N, 2, N, &msg), SHARD_OK);
    CU_ASSERT_EQUAL_FATAL(tri->ops->create(&tri->params, &tself, &msg), SHARD_OK);
    CU_ASSERT_EQUAL_FATAL(lemke->ops->create(&lemke->params, &lself, &msg), SHARD_OK);
    counted_solver prim = {tri->ops, tself, 0};
    shard_contact_policy pol = {.primary = {tri->desc->name, &counted_ops, &prim, tri->caps, 10 * tri->tol},
                                .fallback = {"lemke", lemke->ops, lself, lemke->caps, 10 * lemke->tol},
                                .scalar_closed_form = 1,
                                .batch_blocks = 1};
    CU_ASSERT_EQUAL_FATAL(shard_contact_set_policy(c, &pol, &msg), SHARD_OK);
    double z[N] = {0};
    shard_step_stats st;
    memset(&st, 0, sizeof st);
    const int rc = shard_contact_lcp_solve(c, &w, q, SHARD_LCP_SYMMETRIC, z, &st, &msg);
    CU_CHECK_MSG(rc == SHARD_OK, "mixed classes: %d '%.300s'", rc, msg.text);
    CU_CHECK_MSG(prim.calls == 1, "the primary was called %d times (expected 1: the chain alone)", prim.calls);
    CU_ASSERT_EQUAL(st.lcp_fallbacks, 1);
    CU_ASSERT_EQUAL(st.lcp_blocks, 3);
    for (int i = 0; i < N; ++i) {
      double wi = q[i];
      for (int32_t e = rowptr[i]; e < rowptr[i + 1]; ++e) wi += val[e] * z[col[e]];
      CU_CHECK_MSG(z[i] >= 0.0 && wi >= -1e-12 && fabs(z[i] * wi) <= 1e-12, "row %d: z %.3g w %.3g", i, z[i], wi);
    }
    shard_contact_destroy(c);
    tri->ops->destroy(tself);
    lemke->ops->destroy(lself);
  }
  {
    /* two chains of two rows: W of the class, batched */
    int32_t rp2[] = {0, 2, 4, 6, 8};
    int32_t col2[] = {0, 1, 0, 1, 2, 3, 2, 3};
    double val2[] = {2.0, -0.5, -0.5, 2.0, 2.0, -0.5, -0.5, 2.0};
    const shard_csr w2 = {4, 4, rp2, col2, val2};
    const double q2[] = {-1.0, -1.0, -1.0, -1.0};
    shard_msg msg = {{0}};
    shard_contact *c = NULL;
    CU_ASSERT_EQUAL_FATAL(shard_contact_create(&c, 8, 4, 2, 4, &msg), SHARD_OK);
    counted_solver prim = {&nan_ops, NULL, 0};
    shard_contact_policy pol = {.primary = {"nan", &counted_ops, &prim,
                                            SHARD_CAP_LCP_SPARSE | SHARD_CAP_LCP_TRIDIAGONAL_Z, 1e-9},
                                .scalar_closed_form = 1,
                                .batch_blocks = 1};
    CU_ASSERT_EQUAL_FATAL(shard_contact_set_policy(c, &pol, &msg), SHARD_OK);
    double z[4] = {0};
    shard_step_stats st;
    memset(&st, 0, sizeof st);
    const int rc = shard_contact_lcp_solve(c, &w2, q2, SHARD_LCP_SYMMETRIC, z, &st, &msg);
    CU_CHECK_MSG(rc == SHARD_ERR_NUMERIC && strstr(msg.text, "lcp 'nan': block of 2 contacts") &&
                     strstr(msg.text, "non-finite impulse returned"),
                 "NaN impulse: %d '%.300s'", rc, msg.text);
    CU_CHECK_MSG(prim.calls == 2, "the primary was called %d times (expected 2: W whole, then the first block)",
                 prim.calls);
    shard_contact_destroy(c);
  }
  shard_registry_destroy(reg);
}

/* The block split's two paths agree bit for bit: a banded W (rows in space
 * order on a chain: blocks are runs of rows, found in one pass) and the same
 * W with its rows interleaved across blocks (found by union-find), each
 * block keeping its rows' relative order, give the same blocks, the same
 * block problems, hence the same z, sweeps and residuals. */
static void test_lcp_contract_block_paths(void) {
  shard_registry *reg = NULL;
  tsolver solvers[MAX_SOLVERS];
  const int ns = load_solvers(&reg, solvers);
  const tsolver *pgs = find_solver(solvers, ns, "pgs");
  CU_ASSERT_PTR_NOT_NULL_FATAL(pgs);
  enum { N = 8 };
  /* banded: rows 0-2 and 4-7 tridiagonal SPD blocks, row 3 alone */
  double dense[N][N] = {{0}};
  const int blk[N] = {0, 0, 0, 1, 2, 2, 2, 2};
  for (int i = 0; i < N; ++i) {
    dense[i][i] = 3.0 + 0.25 * i;
    if (i > 0 && blk[i] == blk[i - 1]) dense[i][i - 1] = dense[i - 1][i] = -1.0 - 0.1 * i;
  }
  const double qb[N] = {-2.0, 1.0, -3.0, -1.0, -0.5, 2.0, -4.0, -1.5};
  const int perm[N] = {0, 2, 5, 1, 3, 4, 6, 7}; /* banded row i -> interleaved row perm[i] */
  double z_by[2][N];
  shard_step_stats st_by[2];
  for (int path = 0; path < 2; ++path) {
    int32_t rowptr[N + 1], col[N * N];
    double val[N * N], q[N];
    int src[N]; /* interleaved row -> banded row */
    for (int i = 0; i < N; ++i) src[path ? perm[i] : i] = i;
    int32_t nnz = 0;
    rowptr[0] = 0;
    for (int r = 0; r < N; ++r) {
      for (int cc = 0; cc < N; ++cc) {
        const double x = dense[src[r]][src[cc]];
        if (x != 0.0) col[nnz] = cc, val[nnz++] = x;
      }
      rowptr[r + 1] = nnz;
      q[r] = qb[src[r]];
    }
    const shard_csr w = {N, N, rowptr, col, val};
    double z[N];
    host_pgs_solve(pgs, 1, &w, q, z, &st_by[path]);
    for (int i = 0; i < N; ++i) z_by[path][src[i]] = z[i];
  }
  CU_ASSERT_EQUAL(st_by[0].lcp_blocks, 3);
  CU_ASSERT_EQUAL(st_by[0].lcp_max_block, 4);
  CU_ASSERT_EQUAL(st_by[1].lcp_blocks, st_by[0].lcp_blocks);
  CU_ASSERT_EQUAL(st_by[1].lcp_max_block, st_by[0].lcp_max_block);
  CU_ASSERT_EQUAL(st_by[1].lcp_iterations, st_by[0].lcp_iterations);
  CU_ASSERT_EQUAL(st_by[1].lcp_residual, st_by[0].lcp_residual);
  for (int i = 0; i < N; ++i)
    CU_CHECK_MSG(memcmp(&z_by[0][i], &z_by[1][i], sizeof(double)) == 0, "z[%d]: banded %.17g, interleaved %.17g", i,
                 z_by[0][i], z_by[1][i]);
  CU_CHECK_MSG(z_by[0][3] == 1.0 / 3.75 && z_by[0][6] > 0.0, "z[3] %.17g (closed form 1/3.75), z[6] %.3g", z_by[0][3],
               z_by[0][6]);
  shard_registry_destroy(reg);
}

/* `shard lcp` end to end: exit codes and output */
static int run_cli(const char *args, char *out, size_t outlen) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' --plugin-path '%s' lcp %s 2>&1", SHARD_EXE, SHARD_PLUGIN_DIR, args);
  FILE *f = popen(cmd, "r");
  if (!f) return -1;
  size_t used = fread(out, 1, outlen - 1, f);
  out[used] = '\0';
  int st = pclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_lcp_contract_cli(void) {
  static char out[65536];
  char args[1024];
  const char *d = SHARD_SICONOS_DIR "/mtx";
  snprintf(args, sizeof args, "--solver lemke %s/lcp_deudeu.M.mtx %s/lcp_deudeu.q.mtx", d, d);
  int rc = run_cli(args, out, sizeof out);
  CU_CHECK_MSG(rc == 0, "exit %d: %.600s", rc, out);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "status: ok"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "iterations: "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "residual: "));
  /* deudeu: M = [[2,1],[1,2]], q = [-5,-6] -> z = (4/3, 7/3) */
  const char *zs = strstr(out, "z:\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(zs);
  double z0 = 0, z1 = 0;
  CU_ASSERT_EQUAL(sscanf(zs + 3, "%lf %lf", &z0, &z1), 2);
  CU_NEAR(z0, 4.0 / 3.0, 1e-14);
  CU_NEAR(z1, 7.0 / 3.0, 1e-14);

  snprintf(args, sizeof args, "--solver pgs --set omega=1.3 --set tolerance=1e-13 %s/lcp_deudeu.M.mtx %s/lcp_deudeu.q.mtx", d, d);
  rc = run_cli(args, out, sizeof out);
  CU_CHECK_MSG(rc == 0, "exit %d: %.600s", rc, out);

  snprintf(args, sizeof args, "--solver lemk %s/lcp_deudeu.M.mtx %s/lcp_deudeu.q.mtx", d, d);
  rc = run_cli(args, out, sizeof out);
  CU_CHECK_MSG(rc == 2 && strstr(out, "unknown LCP solver 'lemk'; did you mean 'lemke'?"), "exit %d: %.600s", rc, out);

  snprintf(args, sizeof args, "--solver pgs --set omega=2.5 %s/lcp_deudeu.M.mtx %s/lcp_deudeu.q.mtx", d, d);
  rc = run_cli(args, out, sizeof out);
  CU_CHECK_MSG(rc == 2 && strstr(out, "'omega' value 2.5 outside (0, 2)"), "exit %d: %.600s", rc, out);

  snprintf(args, sizeof args, "--solver pgs --set omgea=1.5 %s/lcp_deudeu.M.mtx %s/lcp_deudeu.q.mtx", d, d);
  rc = run_cli(args, out, sizeof out);
  CU_CHECK_MSG(rc == 2 && strstr(out, "did you mean 'omega'?"), "exit %d: %.600s", rc, out);

  /* size mismatch between M and q */
  snprintf(args, sizeof args, "--solver lemke %s/lcp_deudeu.M.mtx %s/lcp_CPS_2.q.mtx", d, d);
  rc = run_cli(args, out, sizeof out);
  CU_CHECK_MSG(rc == 2 && strstr(out, "has 3 entries but M"), "exit %d: %.600s", rc, out);

  /* missing file */
  rc = run_cli("--solver lemke /nonexistent/M.mtx /nonexistent/q.mtx", out, sizeof out);
  CU_CHECK_MSG(rc == 2 && strstr(out, "/nonexistent/M.mtx: cannot open"), "exit %d: %.600s", rc, out);

  /* no solution found: exit 3 */
  snprintf(args, sizeof args, "--solver lemke %s/lcp_CPS_3.M.mtx %s/lcp_CPS_3.q.mtx", d, d);
  rc = run_cli(args, out, sizeof out);
  CU_CHECK_MSG(rc == 3 && strstr(out, "ray termination after"), "exit %d: %.600s", rc, out);

  /* the benchmark mode */
  rc = run_cli("--solver mprgp --bench tridiag --n 1000 --repeat 2", out, sizeof out);
  CU_CHECK_MSG(rc == 0 && strstr(out, "status=ok") && strstr(out, "n=1000"), "exit %d: %.600s", rc, out);
}

static const cu_test_def tests[] = {
    {"test_lcp_contract_descriptors", test_lcp_contract_descriptors},
    {"test_lcp_contract_generated", test_lcp_contract_generated},
    {"test_lcp_contract_siconos", test_lcp_contract_siconos},
    {"test_lcp_contract_lemke_siconos_15", test_lcp_contract_lemke_siconos_15},
    {"test_lcp_contract_warm_start", test_lcp_contract_warm_start},
    {"test_lcp_contract_setup_again", test_lcp_contract_setup_again},
    {"test_lcp_contract_scalar_blocks", test_lcp_contract_scalar_blocks},
    {"test_lcp_contract_host_checks_solutions", test_lcp_contract_host_checks_solutions},
    {"test_lcp_contract_block_paths", test_lcp_contract_block_paths},
    {"test_lcp_contract_class_dispatch", test_lcp_contract_class_dispatch},
    {"test_lcp_contract_batched_blocks", test_lcp_contract_batched_blocks},
    {"test_lcp_contract_batched_guards", test_lcp_contract_batched_guards},
    {"test_lcp_contract_cli", test_lcp_contract_cli},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "lcp_contract", tests); }
