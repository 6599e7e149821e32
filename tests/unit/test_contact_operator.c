/* tests: the contact operator W = H_R M^-1 (M - c K) M^-1 H_R^T over the
 * active rows (contact/contact.c) for constraint rows wider than the 1D
 * models' two entries — a 2D node pair has four — against the dense product,
 * and a row wider than the model declared refused with a message (not
 * written past the storage). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "cu_runner.h"

/* an allocation that cannot be served returns NULL under AddressSanitizer
 * too (the out-of-memory case below) */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

#define NDOF 6
#define NCON 3

/* dense W of the rows `rows` (H dense NCON x NDOF, K dense NDOF x NDOF) */
static void dense_w(const double h[NCON][NDOF], const double *minv, const double k[NDOF][NDOF], double kcoef,
                    const int32_t *rows, int n, double *w) {
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      double s = 0.0;
      for (int i = 0; i < NDOF; ++i) {
        s += h[rows[a]][i] * minv[i] * h[rows[b]][i]; /* H M^-1 M M^-1 H^T = H M^-1 H^T */
        for (int j = 0; j < NDOF; ++j) s -= kcoef * h[rows[a]][i] * minv[i] * k[i][j] * minv[j] * h[rows[b]][j];
      }
      w[a * n + b] = s;
    }
}

/* CSR of a dense matrix (nonzeros only) into the arrays given */
static shard_csr csr_of(int nr, int nc, const double *a, int32_t *rowptr, int32_t *col, double *val) {
  int32_t nnz = 0;
  rowptr[0] = 0;
  for (int i = 0; i < nr; ++i) {
    for (int j = 0; j < nc; ++j)
      if (a[i * nc + j] != 0.0) col[nnz] = j, val[nnz++] = a[i * nc + j];
    rowptr[i + 1] = nnz;
  }
  return (shard_csr){.nrows = nr, .ncols = nc, .rowptr = rowptr, .colind = col, .val = val};
}

static void test_contact_operator_wide_rows(void) {
  /* two 2D node pairs (4 entries: -n of one copy, +n of the other) and a wall row (2 entries) */
  const double n0[2] = {0.6, 0.8}, n1[2] = {1.0, 0.0};
  double h[NCON][NDOF] = {{0}};
  h[0][0] = -n0[0], h[0][1] = -n0[1], h[0][2] = n0[0], h[0][3] = n0[1];
  h[1][2] = -n1[0], h[1][3] = -n1[1], h[1][4] = n1[0], h[1][5] = n1[1];
  h[2][4] = 0.0, h[2][5] = -1.0;
  const double minv[NDOF] = {0.5, 0.5, 0.25, 0.25, 2.0, 2.0};
  double k[NDOF][NDOF] = {{0}};
  for (int i = 0; i < NDOF; ++i) k[i][i] = 3.0 + i;
  for (int i = 0; i + 1 < NDOF; ++i) k[i][i + 1] = k[i + 1][i] = -1.0 - 0.1 * i;
  int32_t hp[NCON + 1], hc[NCON * NDOF], kp[NDOF + 1], kc[NDOF * NDOF];
  double hv[NCON * NDOF], kv[NDOF * NDOF];
  const shard_csr H = csr_of(NCON, NDOF, &h[0][0], hp, hc, hv), K = csr_of(NDOF, NDOF, &k[0][0], kp, kc, kv);
  shard_msg msg = {{0}};
  shard_contact *c = NULL;
  CU_ASSERT_EQUAL_FATAL(shard_contact_create(&c, NDOF, NCON, 4, NCON, &msg), SHARD_OK);
  const int32_t sets[][NCON] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 0}};
  const int nset[] = {3, 3, 2};
  const double kcoefs[] = {0.0, 0.01};
  for (int s = 0; s < 3; ++s)
    for (int q = 0; q < 2; ++q) {
      const shard_csr *w = NULL;
      CU_ASSERT_EQUAL_FATAL(shard_contact_operator(c, &H, minv, &K, sets[s], nset[s], kcoefs[q], &w, &msg), SHARD_OK);
      double want[NCON * NCON], got[NCON * NCON];
      dense_w((const double(*)[NDOF])h, minv, (const double(*)[NDOF])k, kcoefs[q], sets[s], nset[s], want);
      memset(got, 0, sizeof got);
      for (int i = 0; i < w->nrows; ++i)
        for (int32_t e = w->rowptr[i]; e < w->rowptr[i + 1]; ++e) got[i * nset[s] + w->colind[e]] = w->val[e];
      for (int i = 0; i < nset[s] * nset[s]; ++i)
        CU_CHECK_MSG(fabs(got[i] - want[i]) <= 1e-14 * (1.0 + fabs(want[i])), "set %d, c %g, entry %d: %.17g, want %.17g",
                     s, kcoefs[q], i, got[i], want[i]);
    }
  shard_contact_destroy(c);
}

static void test_contact_operator_row_too_wide(void) {
  double h[NCON][NDOF] = {{0}};
  for (int j = 0; j < 5; ++j) h[1][j] = 1.0 + j; /* 5 entries */
  h[0][0] = 1.0, h[0][1] = -1.0;
  h[2][5] = 1.0;
  const double minv[NDOF] = {1, 1, 1, 1, 1, 1};
  int32_t hp[NCON + 1], hc[NCON * NDOF];
  double hv[NCON * NDOF];
  const shard_csr H = csr_of(NCON, NDOF, &h[0][0], hp, hc, hv);
  shard_msg msg = {{0}};
  shard_contact *c = NULL;
  CU_ASSERT_EQUAL_FATAL(shard_contact_create(&c, NDOF, NCON, 4, NCON, &msg), SHARD_OK);
  const shard_csr *w = NULL;
  const int32_t rows[] = {0, 1, 2};
  CU_ASSERT_EQUAL(shard_contact_operator(c, &H, minv, NULL, rows, 3, 0.0, &w, &msg), SHARD_ERR_INTERNAL);
  CU_CHECK_MSG(strstr(msg.text, "row 1 has 5 entries, the model declared at most 4") != NULL, "%s", msg.text);
  /* the storage is intact: rows 0 and 2 still assemble, W = diag(2, 1) */
  const int32_t ok[] = {0, 2};
  CU_ASSERT_EQUAL_FATAL(shard_contact_operator(c, &H, minv, NULL, ok, 2, 0.0, &w, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(w->rowptr[2], 2);
  CU_ASSERT_DOUBLE_EQUAL(w->val[0], 2.0, 0.0);
  CU_ASSERT_DOUBLE_EQUAL(w->val[1], 1.0, 0.0);
  shard_contact_destroy(c);
}

/* ---- the kept symbolic product: same bits as assembling from scratch ---- */

#define RD 24 /* DOFs */
#define RC 14 /* rows */

static uint32_t lcg(uint32_t *s) { return *s = *s * 1664525u + 1013904223u; }
static double rnd(uint32_t *s) { return (double)(lcg(s) >> 8) / 16777216.0 - 0.5; }

/* A chain-like H (rows of 2 or 4 entries, some DOFs shared by several rows)
 * and a symmetric K with a band and a few long couplings, in CSR. */
typedef struct {
  int32_t hp[RC + 1], hc[4 * RC], kp[RD + 1], kc[RD * RD];
  double hv[4 * RC], kv[RD * RD], minv[RD];
  shard_csr H, K;
} rprob;

static void rprob_init(rprob *p, uint32_t seed) {
  uint32_t s = seed;
  int32_t nh = 0;
  p->hp[0] = 0;
  for (int i = 0; i < RC; ++i) {
    const int w = (i % 3 == 2) ? 4 : 2, d0 = (int)((3 * i) % (RD - 4));
    for (int q = 0; q < w; ++q) p->hc[nh] = d0 + q, p->hv[nh++] = (q % 2 ? 1.0 : -1.0) + 0.3 * rnd(&s);
    p->hp[i + 1] = nh;
  }
  int32_t nk = 0;
  p->kp[0] = 0;
  for (int i = 0; i < RD; ++i) {
    for (int j = 0; j < RD; ++j)
      if (abs(i - j) <= 1 || (i + j) % 7 == 0) p->kc[nk] = j, p->kv[nk++] = (i == j ? 4.0 : -1.0) + 0.1 * rnd(&s);
    p->kp[i + 1] = nk;
  }
  for (int i = 0; i < RD; ++i) p->minv[i] = 0.5 + 0.25 * rnd(&s);
  p->H = (shard_csr){.nrows = RC, .ncols = RD, .rowptr = p->hp, .colind = p->hc, .val = p->hv};
  p->K = (shard_csr){.nrows = RD, .ncols = RD, .rowptr = p->kp, .colind = p->kc, .val = p->kv};
}

/* the same W, bit for bit (pattern and values) */
static int same_w(const shard_csr *a, const shard_csr *b, const char *what) {
  int ok = a->nrows == b->nrows && a->rowptr[a->nrows] == b->rowptr[b->nrows] &&
           !memcmp(a->rowptr, b->rowptr, ((size_t)a->nrows + 1) * sizeof(int32_t));
  if (ok) {
    const size_t nnz = (size_t)a->rowptr[a->nrows];
    ok = !memcmp(a->colind, b->colind, nnz * sizeof(int32_t)) && !memcmp(a->val, b->val, nnz * sizeof(double));
  }
  CU_CHECK_MSG(ok, "%s: kept product differs from the direct assembly", what);
  return ok;
}

static void test_contact_operator_reuse(void) {
  rprob p;
  rprob_init(&p, 7u);
  shard_msg msg = {{0}};
  shard_contact *kept = NULL, *direct = NULL;
  CU_ASSERT_EQUAL_FATAL(shard_contact_create(&kept, RD, RC, 4, RC, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(shard_contact_create(&direct, RD, RC, 4, RC, &msg), SHARD_OK);
  shard_contact_set_reuse(direct, 0);
  const int32_t all[RC] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  const int32_t some[] = {3, 4, 5, 9, 10, 2};
  const shard_csr *wa = NULL, *wb = NULL;
  uint32_t s = 99u;
  const double kc = 0.01;
#define BOTH(rows, n, kcoef, what)                                                                                     \
  do {                                                                                                                  \
    CU_ASSERT_EQUAL_FATAL(shard_contact_operator(kept, &p.H, p.minv, &p.K, rows, n, kcoef, &wa, &msg), SHARD_OK);      \
    CU_ASSERT_EQUAL_FATAL(shard_contact_operator(direct, &p.H, p.minv, &p.K, rows, n, kcoef, &wb, &msg), SHARD_OK);    \
    same_w(wa, wb, what);                                                                                               \
  } while (0)
  BOTH(all, RC, kc, "first call");
  CU_ASSERT_EQUAL(shard_contact_operator_builds(kept), 1);
  /* values change every step: K, H, the masses; the pattern is kept */
  for (int step = 0; step < 5; ++step) {
    for (int e = 0; e < p.kp[RD]; ++e) p.kv[e] *= 1.0 + 0.2 * rnd(&s);
    for (int e = 0; e < p.hp[RC]; ++e) p.hv[e] *= 1.0 + 0.1 * rnd(&s);
    for (int d = 0; d < RD; ++d) p.minv[d] *= 1.0 + 0.05 * rnd(&s);
    BOTH(all, RC, kc * (1 + step), "values changed");
  }
  CU_ASSERT_EQUAL(shard_contact_operator_builds(kept), 1);
  /* exact zeros: a K entry (its products are left out), a prescribed DOF
   * (minv 0: its H entries contribute nothing) and a row on prescribed DOFs
   * only (no entry at all, not even its diagonal); an infinite K entry
   * behind the prescribed DOF stays unused */
  p.kv[p.kp[5] + 1] = 0.0;
  p.minv[7] = 0.0;
  for (int32_t e = p.kp[7]; e < p.kp[8]; ++e) /* read only through DOF 7's b = 0: never used */
    if (p.kc[e] == 7) p.kv[e] = INFINITY;
  p.minv[p.hc[p.hp[0]]] = 0.0, p.minv[p.hc[p.hp[0] + 1]] = 0.0;
  BOTH(all, RC, kc, "exact zeros");
  int empty_row = wb->rowptr[1] == wb->rowptr[0];
  CU_CHECK_MSG(empty_row, "row 0 on prescribed DOFs has %d entries", (int)(wb->rowptr[1] - wb->rowptr[0]));
  BOTH(all, RC, 0.0, "kcoef 0");
  CU_ASSERT_EQUAL(shard_contact_operator_builds(kept), 2);
  BOTH(all, RC, 0.0, "kcoef 0 again");
  CU_ASSERT_EQUAL(shard_contact_operator_builds(kept), 2);
  BOTH(all, RC, kc, "kcoef back");
  CU_ASSERT_EQUAL(shard_contact_operator_builds(kept), 3);
  /* other active sets (another order, fewer rows): the kept rows serve */
  BOTH(some, 6, kc, "other rows");
  BOTH(some, 6, kc * 2, "other rows again");
  BOTH(some, 5, kc, "one row fewer");
  CU_ASSERT_EQUAL(shard_contact_operator_builds(kept), 3);
  /* an active row's pattern in H changed in place (same length, another
   * column whose row in K is as long): found without being told */
  {
    const int32_t e = p.hp[9] + 1, d = p.hc[e], len = p.kp[d + 1] - p.kp[d];
    int32_t to = -1;
    for (int32_t x = d + 1; x < RD && to < 0; ++x)
      if (p.kp[x + 1] - p.kp[x] == len) to = x;
    CU_ASSERT_FATAL(to > d);
    p.hc[e] = to;
  }
  BOTH(some, 5, kc, "H pattern changed in place");
  CU_ASSERT_EQUAL(shard_contact_operator_builds(kept), 4);
  BOTH(all, RC, kc, "all rows after it");
  /* K's pattern changed in place with the same row lengths and entry
   * count (a column moved within a row): announced as a topology change */
  for (int32_t e = p.kp[10]; e < p.kp[11]; ++e)
    if (p.kc[e] == 11 && e + 1 < p.kp[11] && p.kc[e + 1] > 12) p.kc[e] = 12;
  shard_contact_topology_changed(kept);
  BOTH(some, 5, kc, "K pattern changed, announced");
  CU_ASSERT_EQUAL(shard_contact_operator_builds(kept), 5);
  /* K's row lengths changed (an entry moved to the next row): found */
  p.kp[11] -= 1;
  BOTH(some, 5, kc, "K row lengths changed");
  CU_ASSERT_EQUAL(shard_contact_operator_builds(kept), 6);
  BOTH(all, RC, kc, "all rows at the end");
  CU_ASSERT_EQUAL(shard_contact_operator_builds(kept), 6);
  /* an inactive row's pattern changed (the kept rows coupled to it rely on
   * its old one): nothing to do while it stays inactive, found when active */
  {
    const int32_t e = p.hp[12], d = p.hc[e], len = p.kp[d + 1] - p.kp[d];
    int32_t to = -1;
    for (int32_t x = 0; x < p.hc[e + 1] && to < 0; ++x)
      if (x != d && p.kp[x + 1] - p.kp[x] == len) to = x;
    CU_ASSERT_FATAL(to >= 0);
    p.hc[e] = to;
  }
  BOTH(some, 5, kc, "inactive row changed");
  CU_ASSERT_EQUAL(shard_contact_operator_builds(kept), 6);
  BOTH(all, RC, kc, "changed row active");
  CU_ASSERT_EQUAL(shard_contact_operator_builds(kept), 7);
#undef BOTH
  shard_contact_destroy(kept);
  shard_contact_destroy(direct);
}

/* The kept product against the dense W, over values changing every call
 * and a change of the active rows (one snapshot of the patterns serves). */
static void test_contact_operator_reuse_dense(void) {
  rprob p;
  rprob_init(&p, 3u);
  shard_msg msg = {{0}};
  shard_contact *c = NULL;
  CU_ASSERT_EQUAL_FATAL(shard_contact_create(&c, RD, RC, 4, RC, &msg), SHARD_OK);
  const int32_t sets[][RC] = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, {13, 1, 5, 6, 7}};
  const int nset[] = {RC, 5};
  uint32_t s = 5u;
  for (int call = 0; call < 6; ++call) {
    const int k = call / 3;
    for (int e = 0; e < p.kp[RD]; ++e) p.kv[e] *= 1.0 + 0.2 * rnd(&s);
    const shard_csr *w = NULL;
    CU_ASSERT_EQUAL_FATAL(shard_contact_operator(c, &p.H, p.minv, &p.K, sets[k], nset[k], 0.02, &w, &msg), SHARD_OK);
    for (int a = 0; a < nset[k]; ++a) {
      double want[RC] = {0}, got[RC] = {0};
      const int32_t ra = sets[k][a];
      for (int b = 0; b < nset[k]; ++b) {
        const int32_t rb = sets[k][b];
        double hb[RD] = {0}, ha[RD] = {0};
        for (int32_t e = p.hp[ra]; e < p.hp[ra + 1]; ++e) ha[p.hc[e]] = p.hv[e];
        for (int32_t e = p.hp[rb]; e < p.hp[rb + 1]; ++e) hb[p.hc[e]] = p.hv[e];
        double v = 0.0;
        for (int i = 0; i < RD; ++i) {
          v += ha[i] * p.minv[i] * hb[i];
          for (int32_t e = p.kp[i]; e < p.kp[i + 1]; ++e) v -= 0.02 * ha[i] * p.minv[i] * p.kv[e] * p.minv[p.kc[e]] * hb[p.kc[e]];
        }
        want[b] = v;
      }
      for (int32_t e = w->rowptr[a]; e < w->rowptr[a + 1]; ++e) got[w->colind[e]] = w->val[e];
      for (int b = 0; b < nset[k]; ++b)
        CU_CHECK_MSG(fabs(got[b] - want[b]) <= 1e-13 * (1.0 + fabs(want[b])), "call %d, W(%d,%d): %.17g, want %.17g",
                     call, a, b, got[b], want[b]);
    }
  }
  CU_ASSERT_EQUAL(shard_contact_operator_builds(c), 1);
  shard_contact_destroy(c);
}

/* ---- storage that grows with the rows ---- */

#define GN 300 /* rows of the chain */

/* A projected Gauss-Seidel of the test (many sweeps), which refuses a
 * problem larger than its setup and counts its setups. */
typedef struct grow_solver {
  int32_t n_max;
  int setups;
} grow_solver;

static int grow_setup(void *self, int32_t n_max, int64_t nnz_max, shard_msg *msg) {
  (void)nnz_max, (void)msg;
  grow_solver *g = self;
  g->n_max = n_max;
  g->setups++;
  return SHARD_OK;
}

static int grow_solve(void *self, const shard_lcp_problem *p, double *z, double *w, shard_lcp_report *rep,
                      shard_msg *msg) {
  const grow_solver *g = self;
  const int rc = shard_lcp_check_problem(p, g->n_max, rep, msg);
  if (rc != SHARD_OK) return rc;
  const shard_csr *a = p->csr;
  for (int sweep = 0; sweep < 400; ++sweep)
    for (int32_t i = 0; i < p->n; ++i) {
      double d = 0.0, r = p->q[i];
      for (int32_t e = a->rowptr[i]; e < a->rowptr[i + 1]; ++e)
        if (a->colind[e] == i)
          d += a->val[e];
        else
          r += a->val[e] * z[a->colind[e]];
      const double zi = -r / d;
      z[i] = zi > 0.0 ? zi : 0.0;
    }
  rep->status = SHARD_OK;
  rep->iterations = 400;
  rep->residual = shard_lcp_residual(p, z, w);
  return SHARD_OK;
}

static const shard_lcp_solver_ops grow_ops = {.setup = grow_setup, .solve = grow_solve};

/* A service created small grows step by step (as a run inserting rows
 * grows it between steps) to GN rows of a chain (row r: DOFs r and r + 1,
 * a banded K): its W and the LCP solution are the same bits as those of a
 * service sized for every row from the start, its capacity doubles from
 * SHARD_CONTACT_INITIAL_ROWS up to ncon_max, the solver is set up again for
 * each new size, and more rows than reserved are refused, nothing grown
 * inside a step. */
static void test_contact_operator_grows(void) {
  enum { ND = GN + 1 };
  static int32_t hp[GN + 1], hc[2 * GN], kp[ND + 1], kc[3 * ND];
  static double hv[2 * GN], kv[3 * ND], minv[ND], q[GN];
  for (int32_t r = 0; r < GN; ++r) {
    hp[r] = 2 * r, hc[2 * r] = r, hc[2 * r + 1] = r + 1;
    hv[2 * r] = -1.0 - 0.01 * (r % 7), hv[2 * r + 1] = 1.0 + 0.02 * (r % 5);
    q[r] = (r % 3 == 0) ? 0.5 : -1.0 - 0.1 * (r % 4);
  }
  hp[GN] = 2 * GN;
  int32_t nk = 0;
  for (int32_t d = 0; d < ND; ++d) {
    minv[d] = 1.0 / (1.0 + (d % 3));
    kp[d] = nk;
    for (int32_t e = d - 1; e <= d + 1; ++e)
      if (e >= 0 && e < ND) kc[nk] = e, kv[nk++] = e == d ? 2.0 + 0.1 * (d % 4) : -1.0;
  }
  kp[ND] = nk;
  const shard_csr K = {ND, ND, kp, kc, kv};
  shard_msg msg = {{0}};
  shard_contact *grown = NULL, *full = NULL;
  CU_ASSERT_EQUAL_FATAL(shard_contact_create_rows(&grown, ND, GN, 0, 2, 5, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(shard_contact_create(&full, ND, GN, 2, 5, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_contact_capacity(grown), SHARD_CONTACT_INITIAL_ROWS);
  CU_ASSERT_EQUAL(shard_contact_capacity(full), GN);
  grow_solver sg = {0}, sf = {0};
  const shard_contact_policy pg = {.primary = {"grow", &grow_ops, &sg, SHARD_CAP_LCP_SPARSE, 1e-6}};
  const shard_contact_policy pf = {.primary = {"grow", &grow_ops, &sf, SHARD_CAP_LCP_SPARSE, 1e-6}};
  CU_ASSERT_EQUAL_FATAL(shard_contact_set_policy(grown, &pg, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(shard_contact_set_policy(full, &pf, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(sg.n_max, SHARD_CONTACT_INITIAL_ROWS);
  int32_t rows[GN];
  double zg[GN], zf[GN];
  int grows = 0, refusals = 0;
  for (int32_t nrows = 5; nrows <= GN; nrows += nrows < 100 ? 9 : 37) {
    const shard_csr H = {nrows, ND, hp, hc, hv};
    /* three rows active of every five (W then splits into blocks) */
    int32_t n = 0;
    for (int32_t r = 0; r < nrows; ++r)
      if (r % 5 < 3) rows[n++] = r;
    const int32_t before = shard_contact_capacity(grown);
    if (nrows > before) { /* every row active before they are reserved: refused, not grown */
      int32_t all[GN];
      for (int32_t r = 0; r < nrows; ++r) all[r] = r;
      const shard_csr *w = NULL;
      ++refusals;
      CU_ASSERT_EQUAL(shard_contact_operator(grown, &H, minv, &K, all, nrows, 0.01, &w, &msg), SHARD_ERR_INTERNAL);
      CU_CHECK_MSG(strstr(msg.text, "exceed the storage") != NULL, "%s", msg.text);
      CU_ASSERT_EQUAL(shard_contact_capacity(grown), before);
    }
    shard_contact_topology_changed(grown);
    shard_contact_topology_changed(full);
    CU_ASSERT_EQUAL_FATAL(shard_contact_reserve(grown, nrows, &msg), SHARD_OK);
    const int32_t cap = shard_contact_capacity(grown);
    if (cap != before) {
      ++grows;
      CU_CHECK_MSG(cap == GN || cap == 2 * before || (cap > 2 * before && cap / 2 < nrows),
                   "capacity %d -> %d for %d rows", before, cap, nrows);
      CU_ASSERT_EQUAL(sg.n_max, cap); /* set up again for the new size */
    }
    CU_ASSERT(cap >= nrows && cap <= GN);
    const shard_csr *wg = NULL, *wf = NULL;
    for (int rep = 0; rep < 2; ++rep) { /* a first (symbolic) and a kept assembly */
      CU_ASSERT_EQUAL_FATAL(shard_contact_operator(grown, &H, minv, &K, rows, n, 0.01, &wg, &msg), SHARD_OK);
      CU_ASSERT_EQUAL_FATAL(shard_contact_operator(full, &H, minv, &K, rows, n, 0.01, &wf, &msg), SHARD_OK);
      CU_ASSERT_EQUAL_FATAL(wg->nrows, wf->nrows);
      CU_ASSERT_FATAL(memcmp(wg->rowptr, wf->rowptr, (size_t)(n + 1) * sizeof(int32_t)) == 0);
      CU_ASSERT_FATAL(memcmp(wg->colind, wf->colind, (size_t)wf->rowptr[n] * sizeof(int32_t)) == 0);
      CU_CHECK_MSG(memcmp(wg->val, wf->val, (size_t)wf->rowptr[n] * sizeof(double)) == 0, "%d rows: W differs", nrows);
    }
    CU_ASSERT(wf->rowptr[n] > 2 * n); /* couplings, not a diagonal */
    double qa[GN];
    for (int32_t i = 0; i < n; ++i) qa[i] = q[rows[i]], zg[i] = zf[i] = 0.0;
    shard_step_stats stg = {0}, stf = {0};
    CU_ASSERT_EQUAL_FATAL(shard_contact_lcp_solve(grown, wg, qa, SHARD_LCP_SYMMETRIC, zg, &stg, &msg), SHARD_OK);
    CU_ASSERT_EQUAL_FATAL(shard_contact_lcp_solve(full, wf, qa, SHARD_LCP_SYMMETRIC, zf, &stf, &msg), SHARD_OK);
    CU_CHECK_MSG(memcmp(zg, zf, (size_t)n * sizeof(double)) == 0, "%d rows: z differs", nrows);
    CU_ASSERT_EQUAL(stg.lcp_blocks, stf.lcp_blocks);
    CU_ASSERT(nrows < 10 || stg.lcp_blocks > 1);
  }
  CU_ASSERT_EQUAL(refusals, grows);
  CU_ASSERT_EQUAL(shard_contact_capacity(grown), GN);
  CU_ASSERT(grows >= 3); /* 64 -> 128 -> 256 -> 300 */
  CU_ASSERT_EQUAL(sg.setups, 1 + grows);
  CU_ASSERT_EQUAL(sf.setups, 1);
  /* beyond the model's maximum: refused with the count */
  CU_ASSERT_EQUAL(shard_contact_reserve(grown, GN + 1, &msg), SHARD_ERR_INTERNAL);
  CU_CHECK_MSG(strstr(msg.text, "301 constraint rows exceed the model's maximum 300") != NULL, "%s", msg.text);
  shard_contact_destroy(grown);
  shard_contact_destroy(full);
  /* out of memory while growing (terabytes of W asked for): an error naming
   * the rows; the service keeps its storage and works at its old size */
  shard_contact *huge = NULL;
  CU_ASSERT_EQUAL_FATAL(shard_contact_create_rows(&huge, ND, 1 << 30, 0, 2, 4096, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_contact_reserve(huge, 1 << 29, &msg), SHARD_ERR_NOMEM);
  CU_CHECK_MSG(strstr(msg.text, "growing the contact storage to 536870912 constraint rows: out of memory") != NULL, "%s",
               msg.text);
  CU_ASSERT_EQUAL(shard_contact_capacity(huge), SHARD_CONTACT_INITIAL_ROWS);
  const shard_csr H = {40, ND, hp, hc, hv};
  int32_t n = 0;
  for (int32_t r = 0; r < 40; ++r) rows[n++] = r;
  const shard_csr *wh = NULL, *wr = NULL;
  shard_contact *ref = NULL;
  CU_ASSERT_EQUAL_FATAL(shard_contact_create(&ref, ND, 40, 2, 5, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(shard_contact_operator(huge, &H, minv, &K, rows, n, 0.01, &wh, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(shard_contact_operator(ref, &H, minv, &K, rows, n, 0.01, &wr, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(wh->rowptr[n], wr->rowptr[n]);
  CU_ASSERT(memcmp(wh->val, wr->val, (size_t)wr->rowptr[n] * sizeof(double)) == 0);
  shard_contact_destroy(ref);
  shard_contact_destroy(huge);
}

static const cu_test_def tests[] = {
    {"test_contact_operator_wide_rows", test_contact_operator_wide_rows},
    {"test_contact_operator_row_too_wide", test_contact_operator_row_too_wide},
    {"test_contact_operator_reuse", test_contact_operator_reuse},
    {"test_contact_operator_reuse_dense", test_contact_operator_reuse_dense},
    {"test_contact_operator_grows", test_contact_operator_grows},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "contact_operator", tests); }
