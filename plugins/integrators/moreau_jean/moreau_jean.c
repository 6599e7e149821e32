/* moreau_jean — the Moreau–Jean θ time-stepping scheme (docs/theory.md §3).
 *
 *   M(v_{n+1} − v_n) + Δt K u_{n+θ} = Δt f_ext(t_n + θΔt) + H_Aᵀ p
 *   u_{n+θ} = u_n + θΔt((1−θ) v_n + θ v_{n+1})
 *   0 ≤ p ⊥ H_A v_{n+1} + e H_A v_n ≥ 0,   A = { i : g_i(u_n + Δt v_n) ≤ 0 }
 *   u_{n+1} = u_n + Δt((1−θ) v_n + θ v_{n+1})
 *
 * With S = M + θ²Δt²K and f(t, u_n) = f_ext(t) − f_int(u_n) (= f_ext − K u_n
 * for a linear K):
 *   v_free  = S⁻¹[(M − θ(1−θ)Δt²K) v_n + Δt f(t_n + θΔt, u_n)]
 *   W = H_A S⁻¹ H_Aᵀ,  q = H_A v_free + e H_A v_n,  v_{n+1} = v_free + S⁻¹H_Aᵀp.
 *
 * S is symmetric positive definite and banded in 1D: it is stored in LAPACK's
 * lower band format and factored by dpbtrf, again only when K, the mass
 * pattern of prescribed DOFs or Δt changed (compared against a cached copy,
 * O(nnz)). Prescribed DOFs (minv = 0) are eliminated symmetrically: their row
 * and column of S become the identity, their velocity at t_{n+1} is taken from
 * the host's prescribe() and moved to the right-hand side of the free rows.
 *
 * The band numbering is a reverse Cuthill–McKee ordering of K's graph when
 * it is narrower than the model's own (twin DOFs of cohesive interfaces are
 * numbered after the mesh). The band storage is sized in start() from the
 * bandwidth of K(u_0) plus a few diagonals (the width is unknown before the
 * stiffness can be evaluated), for the DOFs present.
 *
 * Storage: setup and start size everything for the DOFs and rows present;
 * reserve (between steps, before on_insert) grows the per-step vectors, the
 * dense W of the active set and the band's per-DOF storage to the host's
 * capacities, so a run holds what its cracks need, not every interface's.
 *
 * Insertions (on_insert, between steps): the model appended DOFs anywhere in
 * its numbering (tri2d: vertex copies; the bar: twins) and changed K's
 * pattern. The ordering is recomputed from the new K (reverse Cuthill–McKee
 * again, so the band stays narrow whatever the numbering), the band storage
 * and the K cache are grown when the new band or pattern outgrows them (the
 * only allocations after start, never inside step) and the factor is
 * invalidated: the next step factors S of the new topology exactly. The
 * ordering depends on K's pattern only, so a run restarted from a checkpoint
 * (the host calls on_insert once after restoring an inserted topology)
 * factors in the same numbering as the run it continues. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shard/integrator.h"
#include "shard/lcp_solver.h"

/* LAPACK, through its Fortran symbols */
extern void dpbtrf_(const char *uplo, const int *n, const int *kd, double *ab, const int *ldab, int *info);
extern void dpbtrs_(const char *uplo, const int *n, const int *kd, const int *nrhs, const double *ab,
                    const int *ldab, double *b, const int *ldb, int *info);

/* Largest active set for which the dense W = H_A S⁻¹ H_Aᵀ is stored. */
#define MJ_ACTIVE_MAX 1024

typedef struct mj {
  double theta;
  /* the DOFs and rows the storage holds (setup: those present; reserve
   * grows them up to sys->ndof_max / ncon_max), the largest active set */
  int32_t ndof_max, ncon_max, na_cap;
  /* per-step vectors (setup, reserve) */
  double *b, *col, *vp, *ap, *f, *kv, *g, *q, *p, *wval;
  int32_t *rows, *wrowptr, *wcolind;
  double *block;
  double *minv_cache; /* minv the factor was built with */
  /* band factor (start; its per-DOF arrays grown by reserve) */
  double *ab;
  int32_t kd_cap;     /* bandwidth the storage holds */
  int32_t kd;         /* bandwidth of the current factor */
  int32_t *perm;      /* band ordering: perm[new] = old DOF */
  int32_t *iperm;     /* iperm[old] = new */
  int32_t *work;      /* degrees, for reordering */
  double *xp;         /* permuted right-hand side */
  int factored;       /* ab holds a valid factor */
  int cached;         /* the cache below describes it */
  double f_dt;
  int32_t f_n, f_nnz;
  int64_t cache_cap;
  int32_t *c_rowptr, *c_colind;
  double *c_val;
} mj;

static const shard_param_spec mj_params[] = {
    {.key = "theta",
     .type = SHARD_PARAM_REAL,
     .def = "0.5",
     .min = 0.0,
     .max = 1.0,
     .unit = "1",
     .flags = SHARD_PARAM_MIN_EXCLUSIVE,
     .choices = NULL,
     .doc = "theta of the scheme: 1/2 is the energy-conserving midpoint rule, larger values dissipate"},
};

/* bandwidth of K in the numbering iperm (identity when NULL) */
static int32_t bandwidth(const shard_csr *k, const int32_t *iperm) {
  int32_t kd = 0;
  for (int32_t i = 0; i < k->nrows; ++i)
    for (int32_t e = k->rowptr[i]; e < k->rowptr[i + 1]; ++e) {
      const int32_t d = iperm ? abs(iperm[i] - iperm[k->colind[e]]) : abs(i - k->colind[e]);
      if (d > kd) kd = d;
    }
  return kd;
}

/* Band ordering of S: reverse Cuthill–McKee on the graph of K (each
 * connected component from a node of least degree, neighbours by increasing
 * degree), kept only if it narrows the band of the given numbering — in 1D
 * it turns twin DOFs numbered at the end of the mesh (cohesive interfaces)
 * back into a path of bandwidth 1. perm[new] = old; deg: n ints of work.
 * Returns the bandwidth in the chosen numbering. No allocation. */
static int32_t band_order(const shard_csr *k, int32_t n, int32_t *perm, int32_t *iperm, int32_t *deg) {
  const int32_t kd_id = bandwidth(k, NULL);
  for (int32_t i = 0; i < n; ++i) {
    deg[i] = 0;
    for (int32_t e = k->rowptr[i]; e < k->rowptr[i + 1]; ++e) deg[i] += k->colind[e] != i;
    iperm[i] = -1;
  }
  int32_t head = 0, tail = 0;
  for (;;) {
    int32_t start = -1;
    for (int32_t i = 0; i < n; ++i)
      if (iperm[i] < 0 && (start < 0 || deg[i] < deg[start])) start = i;
    if (start < 0) break;
    iperm[start] = tail;
    perm[tail++] = start;
    while (head < tail) {
      const int32_t node = perm[head++], first = tail;
      for (int32_t e = k->rowptr[node]; e < k->rowptr[node + 1]; ++e) {
        const int32_t j = k->colind[e];
        if (iperm[j] >= 0) continue;
        iperm[j] = tail;
        perm[tail++] = j;
      }
      for (int32_t a = first + 1; a < tail; ++a) { /* insertion sort by degree */
        const int32_t x = perm[a];
        int32_t b = a;
        while (b > first && deg[perm[b - 1]] > deg[x]) {
          perm[b] = perm[b - 1];
          --b;
        }
        perm[b] = x;
      }
    }
  }
  for (int32_t i = 0; i < n / 2; ++i) {
    const int32_t t = perm[i];
    perm[i] = perm[n - 1 - i];
    perm[n - 1 - i] = t;
  }
  for (int32_t i = 0; i < n; ++i) iperm[perm[i]] = i;
  const int32_t kd_rcm = bandwidth(k, iperm);
  if (kd_rcm < kd_id) return kd_rcm;
  for (int32_t i = 0; i < n; ++i) perm[i] = iperm[i] = i;
  return kd_id;
}

static int mj_create(const shard_params *params, const shard_scales *scales, void **out_self, shard_msg *msg) {
  (void)scales;
  *out_self = NULL;
  const int rc = shard_params_check(params, msg);
  if (rc != SHARD_OK) return rc;
  const double theta = shard_params_real(params, "theta");
  mj *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->theta = theta;
  *out_self = s;
  return SHARD_OK;
}

static uint32_t mj_n_aux(const void *self) {
  (void)self;
  return 0;
}

static void mj_release_band(mj *s) {
  free(s->ab);
  free(s->perm);
  free(s->iperm);
  free(s->work);
  free(s->xp);
  s->perm = s->iperm = s->work = NULL;
  s->xp = NULL;
  free(s->c_rowptr);
  free(s->c_colind);
  free(s->c_val);
  s->ab = NULL;
  s->c_rowptr = s->c_colind = NULL;
  s->c_val = NULL;
  s->factored = s->cached = 0;
  s->kd_cap = 0;
  s->cache_cap = 0;
}

static void mj_release(mj *s) {
  mj_release_band(s);
  free(s->block);
  free(s->wval);
  free(s->rows);
  free(s->wrowptr);
  free(s->wcolind);
  s->block = s->wval = NULL;
  s->rows = s->wrowptr = s->wcolind = NULL;
}

/* The storage for ndof_cap DOFs and ncon_cap rows, the values held kept
 * (setup: from nothing; reserve: from the last capacities), and the band's
 * per-DOF arrays once start made them. All or nothing: out of memory, the
 * storage is as it was. */
static int mj_grow(mj *s, int32_t ndof_cap, int32_t ncon_cap, shard_msg *msg) {
  const size_t nd0 = s->block ? (size_t)s->ndof_max : 0, nc0 = s->block ? (size_t)s->ncon_max : 0;
  const size_t nd = (size_t)ndof_cap, nc = (size_t)ncon_cap;
  const size_t na0 = s->block ? (size_t)s->na_cap : 0, na = nc < MJ_ACTIVE_MAX ? nc : MJ_ACTIVE_MAX;
  const int band = s->perm != NULL && nd > nd0;
  double *b = shard_integrator_block_grow(s->block, 7, nd0, nd, 3, nc0, nc);
  int32_t *rows = shard_integrator_array_grow(s->rows, nc0, nc, sizeof(int32_t));
  /* W of the active set: scratch of a step, nothing to keep */
  double *wval = na != na0 || !s->wval ? calloc(na * na + 1, sizeof(double)) : s->wval;
  int32_t *wrowptr = na != na0 || !s->wrowptr ? calloc(na + 1, sizeof(int32_t)) : s->wrowptr;
  int32_t *wcolind = na != na0 || !s->wcolind ? calloc(na * na + 1, sizeof(int32_t)) : s->wcolind;
  int32_t *perm = band ? shard_integrator_array_grow(s->perm, nd0, nd, sizeof(int32_t)) : s->perm;
  int32_t *iperm = band ? shard_integrator_array_grow(s->iperm, nd0, nd, sizeof(int32_t)) : s->iperm;
  int32_t *work = band ? shard_integrator_array_grow(s->work, 0, nd, sizeof(int32_t)) : s->work;
  double *xp = band ? shard_integrator_array_grow(s->xp, 0, nd, sizeof(double)) : s->xp;
  int32_t *c_rowptr = band ? shard_integrator_array_grow(s->c_rowptr, nd0 + 1, nd + 1, sizeof(int32_t)) : s->c_rowptr;
  /* the band of S: a factor of the old topology, dropped (rebuilt by the next step) */
  double *ab = band ? calloc((size_t)(s->kd_cap + 1) * nd + 1, sizeof(double)) : s->ab;
  if (!b || !rows || !wval || !wrowptr || !wcolind || (band && (!perm || !iperm || !work || !xp || !c_rowptr || !ab))) {
    free(b), free(rows);
    if (wval != s->wval) free(wval);
    if (wrowptr != s->wrowptr) free(wrowptr);
    if (wcolind != s->wcolind) free(wcolind);
    if (perm != s->perm) free(perm);
    if (iperm != s->iperm) free(iperm);
    if (work != s->work) free(work);
    if (xp != s->xp) free(xp);
    if (c_rowptr != s->c_rowptr) free(c_rowptr);
    if (ab != s->ab) free(ab);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for %zu DOFs and %zu constraints", nd, nc);
  }
  free(s->block), free(s->rows);
  if (wval != s->wval) free(s->wval), free(s->wrowptr), free(s->wcolind);
  if (band) {
    free(s->perm), free(s->iperm), free(s->work), free(s->xp), free(s->c_rowptr), free(s->ab);
    for (size_t i = nd0; i < nd; ++i) perm[i] = iperm[i] = (int32_t)i; /* beyond ndof: the identity (start) */
    s->factored = 0;
  }
  s->block = b, s->rows = rows, s->wval = wval, s->wrowptr = wrowptr, s->wcolind = wcolind;
  s->perm = perm, s->iperm = iperm, s->work = work, s->xp = xp, s->c_rowptr = c_rowptr, s->ab = ab;
  s->b = b;
  s->col = b + nd;
  s->vp = b + 2 * nd;
  s->ap = b + 3 * nd;
  s->f = b + 4 * nd;
  s->kv = b + 5 * nd;
  s->minv_cache = b + 6 * nd;
  s->g = b + 7 * nd;
  s->q = s->g + nc;
  s->p = s->q + nc;
  s->ndof_max = ndof_cap;
  s->ncon_max = ncon_cap;
  s->na_cap = (int32_t)na;
  return SHARD_OK;
}

static int mj_setup(void *self, shard_system *sys, shard_msg *msg) {
  mj *s = self;
  const int rc = shard_integrator_check_system(sys, msg);
  if (rc != SHARD_OK) return rc;
  mj_release(s);
  return mj_grow(s, sys->ndof, sys->ncon, msg); /* the host reserves more as insertions need it */
}

static int mj_reserve(void *self, const shard_system *sys, int32_t ndof_cap, int32_t ncon_cap, shard_msg *msg) {
  mj *s = self;
  const int rc =
      shard_integrator_reserve_caps(s->block != NULL, sys, s->ndof_max, s->ncon_max, &ndof_cap, &ncon_cap, msg);
  if (rc != SHARD_OK || (ndof_cap == s->ndof_max && ncon_cap == s->ncon_max)) return rc;
  return mj_grow(s, ndof_cap, ncon_cap, msg);
}

static int mj_check(const mj *s, const shard_system *sys, shard_msg *msg) {
  const int rc = shard_integrator_check_sizes(s->block != NULL, sys, s->ndof_max, s->ncon_max, msg);
  if (rc != SHARD_OK) return rc;
  if (!s->ab) return shard_msg_set(msg, SHARD_ERR_INTERNAL, "step before start");
  return SHARD_OK;
}

/* Size the band storage and the K cache from the stiffness at u_0. */
static int mj_start(void *self, shard_system *sys, double dt, shard_msg *msg) {
  mj *s = self;
  (void)dt;
  if (!s->block) return shard_msg_set(msg, SHARD_ERR_INTERNAL, "start before setup");
  /* a system beyond the storage (grown without reserve): refused, not overrun */
  const int rs = shard_integrator_check_sizes(1, sys, s->ndof_max, s->ncon_max, msg);
  if (rs != SHARD_OK) return rs;
  const shard_csr *k = NULL;
  int rc = sys->ops->stiffness(sys, sys->u, &k, msg);
  if (rc != SHARD_OK) {
    shard_msg_prepend(msg, "stiffness at the initial state");
    return rc;
  }
  if (k->nrows != sys->ndof || k->ncols != sys->ndof)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL, "stiffness is %dx%d, expected %dx%d", (int)k->nrows,
                         (int)k->ncols, (int)sys->ndof, (int)sys->ndof);
  mj_release_band(s);
  const size_t nd = (size_t)s->ndof_max;
  s->perm = calloc(nd, sizeof(int32_t));
  s->iperm = calloc(nd, sizeof(int32_t));
  s->work = calloc(nd, sizeof(int32_t));
  s->xp = calloc(nd, sizeof(double));
  if (!s->perm || !s->iperm || !s->work || !s->xp) {
    mj_release_band(s);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for %zu DOFs", nd);
  }
  for (int32_t i = 0; i < s->ndof_max; ++i) s->perm[i] = s->iperm[i] = i;
  /* a few diagonals of slack, so that a stiffness entry appearing later (a
   * cohesive spring leaving its zero-stiffness branch) can be absorbed by
   * reordering without reallocating */
  int32_t kd = band_order(k, sys->ndof, s->perm, s->iperm, s->work) + 8;
  if (kd > s->ndof_max - 1) kd = s->ndof_max - 1;
  const int64_t nnz = k->rowptr[k->nrows];
  s->ab = calloc((size_t)(kd + 1) * nd, sizeof(double));
  s->c_rowptr = calloc(nd + 1, sizeof(int32_t));
  s->c_colind = calloc((size_t)nnz + 1, sizeof(int32_t));
  s->c_val = calloc((size_t)nnz + 1, sizeof(double));
  if (!s->ab || !s->c_rowptr || !s->c_colind || !s->c_val) {
    mj_release_band(s);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for a band matrix of %d DOFs and bandwidth %d",
                         (int)s->ndof_max, (int)kd);
  }
  s->kd_cap = kd;
  s->cache_cap = nnz;
  return mj_check(s, sys, msg);
}

/* Factor S = M + θ²Δt²K (prescribed rows/columns replaced by the identity)
 * unless the cached factor was built from the same K, minv, n and Δt. */
static int mj_refresh_factor(mj *s, const shard_system *sys, const shard_csr *k, double dt, shard_msg *msg) {
  const int32_t n = sys->ndof;
  const int32_t nnz = k->rowptr[n];
  if (s->factored && s->cached && s->f_dt == dt && s->f_n == n && s->f_nnz == nnz &&
      memcmp(s->c_rowptr, k->rowptr, ((size_t)n + 1) * sizeof(int32_t)) == 0 &&
      memcmp(s->c_colind, k->colind, (size_t)nnz * sizeof(int32_t)) == 0 &&
      memcmp(s->c_val, k->val, (size_t)nnz * sizeof(double)) == 0 &&
      memcmp(s->minv_cache, sys->minv, (size_t)n * sizeof(double)) == 0)
    return SHARD_OK;

  int32_t kd = bandwidth(k, s->iperm);
  if (kd > s->kd_cap) kd = band_order(k, n, s->perm, s->iperm, s->work);
  if (kd > s->kd_cap)
    return shard_msg_set(msg, SHARD_ERR_UNSUPPORTED,
                         "the stiffness bandwidth grew to %d, beyond the %d sized at start or at the last insertion "
                         "(moreau_jean sizes its band factor of S only between steps: K's pattern changed within one)",
                         (int)kd, (int)s->kd_cap);
  const int32_t *ip = s->iperm;
  const int ldab = kd + 1;
  const double c = s->theta * s->theta * dt * dt;
  const double *minv = sys->minv;
  memset(s->ab, 0, (size_t)ldab * (size_t)n * sizeof(double));
  for (int32_t i = 0; i < n; ++i) s->ab[(size_t)ip[i] * ldab] = minv[i] == 0.0 ? 1.0 : sys->mass[i];
  for (int32_t i = 0; i < n; ++i) {
    if (minv[i] == 0.0) continue;
    for (int32_t e = k->rowptr[i]; e < k->rowptr[i + 1]; ++e) {
      const int32_t j = k->colind[e];
      if (ip[j] > ip[i] || minv[j] == 0.0) continue; /* lower triangle of the free block, band numbering */
      s->ab[(size_t)(ip[i] - ip[j]) + (size_t)ip[j] * ldab] += c * k->val[e];
    }
  }
  int nn = n, kdd = kd, info = 0;
  s->factored = s->cached = 0;
  dpbtrf_("L", &nn, &kdd, s->ab, &ldab, &info);
  if (info > 0)
    return shard_msg_set(msg, SHARD_ERR_NUMERIC,
                         "S = M + theta^2 dt^2 K is not positive definite (LAPACK dpbtrf: leading minor %d)", info);
  if (info < 0) return shard_msg_set(msg, SHARD_ERR_INTERNAL, "LAPACK dpbtrf: argument %d is invalid", -info);
  s->factored = 1;
  s->kd = kd;
  s->f_dt = dt;
  s->f_n = n;
  if (nnz <= s->cache_cap) {
    memcpy(s->c_rowptr, k->rowptr, ((size_t)n + 1) * sizeof(int32_t));
    memcpy(s->c_colind, k->colind, (size_t)nnz * sizeof(int32_t));
    memcpy(s->c_val, k->val, (size_t)nnz * sizeof(double));
    memcpy(s->minv_cache, minv, (size_t)n * sizeof(double));
    s->f_nnz = nnz;
    s->cached = 1;
  }
  return SHARD_OK;
}

/* x ← S⁻¹ x, through the band numbering */
static int mj_solve(const mj *s, int32_t n, double *x, shard_msg *msg) {
  int nn = n, kdd = s->kd, ldab = s->kd + 1, one = 1, info = 0;
  for (int32_t i = 0; i < n; ++i) s->xp[i] = x[s->perm[i]];
  dpbtrs_("L", &nn, &kdd, &one, s->ab, &ldab, s->xp, &nn, &info);
  if (info != 0) return shard_msg_set(msg, SHARD_ERR_INTERNAL, "LAPACK dpbtrs: argument %d is invalid", -info);
  for (int32_t i = 0; i < n; ++i) x[s->perm[i]] = s->xp[i];
  return SHARD_OK;
}

/* x = S⁻¹ Hᵀ_{rows} y on the free DOFs (prescribed DOFs take no impulse) */
static int mj_impulse_response(const mj *s, const shard_system *sys, const int32_t *rows, const double *y, int32_t m,
                               double *x, shard_msg *msg) {
  const int32_t n = sys->ndof;
  const shard_csr *h = sys->h;
  memset(x, 0, (size_t)n * sizeof(double));
  for (int32_t j = 0; j < m; ++j) {
    const int32_t c = rows[j];
    for (int32_t e = h->rowptr[c]; e < h->rowptr[c + 1]; ++e) {
      const int32_t col = h->colind[e];
      if (sys->minv[col] != 0.0) x[col] += h->val[e] * y[j];
    }
  }
  return mj_solve(s, n, x, msg);
}

static int mj_step(void *self, shard_system *sys, double dt, shard_msg *msg) {
  mj *s = self;
  int rc = mj_check(s, sys, msg);
  if (rc != SHARD_OK) return rc;
  const int32_t n = sys->ndof, nc = sys->ncon;
  const double th = s->theta, t1 = sys->t + dt;
  const double *u = sys->u, *v = sys->v, *minv = sys->minv, *mass = sys->mass;
  const shard_csr *h = sys->h;

  const shard_csr *k = NULL;
  rc = sys->ops->stiffness(sys, u, &k, msg);
  if (rc != SHARD_OK) {
    shard_msg_prepend(msg, "stiffness at u_n");
    return rc;
  }
  if (k->nrows != n || k->ncols != n)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL, "stiffness is %dx%d, expected %dx%d", (int)k->nrows,
                         (int)k->ncols, (int)n, (int)n);
  /* velocities of the prescribed DOFs at t_{n+1} */
  memcpy(s->vp, v, (size_t)n * sizeof(double));
  memcpy(s->ap, sys->a, (size_t)n * sizeof(double));
  sys->ops->prescribe(sys, t1, s->vp, s->ap);

  rc = mj_refresh_factor(s, sys, k, dt, msg);
  if (rc != SHARD_OK) return rc;

  rc = sys->ops->force(sys, sys->t + th * dt, u, s->f, msg);
  if (rc != SHARD_OK) {
    shard_msg_prepend(msg, "force at u_n");
    return rc;
  }
  /* b = (M − θ(1−θ)Δt²K) v_n + Δt f(t_n + θΔt, u_n), prescribed DOFs eliminated */
  shard_csr_matvec(k, v, s->kv);
  const double c1 = th * (1.0 - th) * dt * dt, c2 = th * th * dt * dt;
  for (int32_t i = 0; i < n; ++i) {
    if (minv[i] == 0.0) {
      s->b[i] = s->vp[i];
      continue;
    }
    double bi = mass[i] * v[i] - c1 * s->kv[i] + dt * s->f[i];
    for (int32_t e = k->rowptr[i]; e < k->rowptr[i + 1]; ++e) {
      const int32_t j = k->colind[e];
      if (j != i && minv[j] == 0.0) bi -= c2 * k->val[e] * s->vp[j];
    }
    s->b[i] = bi;
  }
  rc = mj_solve(s, n, s->b, msg);
  if (rc != SHARD_OK) return rc;
  if (!shard_all_finite(s->b, n)) return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite free velocity");

  /* active set from the predicted position u_n + Δt v_n */
  int32_t na = 0;
  if (nc > 0) {
    for (int32_t i = 0; i < n; ++i) s->col[i] = u[i] + dt * v[i];
    sys->ops->gaps(sys, s->col, s->g);
    if (!shard_all_finite(s->g, nc)) return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite gap at the predicted position");
    for (int32_t c = 0; c < nc; ++c)
      if (s->g[c] <= 0.0) s->rows[na++] = c;
  }
  if (na > s->na_cap)
    return shard_msg_set(msg, SHARD_ERR_UNSUPPORTED,
                         "%d active constraints: moreau_jean stores the dense W = H S^-1 H^T for at most %d", (int)na,
                         (int)s->na_cap);

  if (na > 0) {
    /* W = H_A S⁻¹ H_Aᵀ, one banded solve per active column */
    const double unit = 1.0;
    for (int32_t jc = 0; jc < na; ++jc) {
      rc = mj_impulse_response(s, sys, &s->rows[jc], &unit, 1, s->col, msg);
      if (rc != SHARD_OK) return rc;
      for (int32_t l = 0; l < na; ++l) s->wval[(size_t)l * na + jc] = shard_row_dot(h, s->rows[l], s->col);
    }
    for (int32_t l = 0; l < na; ++l) {
      s->wrowptr[l] = l * na;
      for (int32_t jc = 0; jc < na; ++jc) {
        s->wcolind[(size_t)l * na + jc] = jc;
        if (jc > l) {
          const double avg = 0.5 * (s->wval[(size_t)l * na + jc] + s->wval[(size_t)jc * na + l]);
          s->wval[(size_t)l * na + jc] = s->wval[(size_t)jc * na + l] = avg;
        }
      }
    }
    s->wrowptr[na] = na * na;
    const shard_csr w = {.nrows = na, .ncols = na, .rowptr = s->wrowptr, .colind = s->wcolind, .val = s->wval};
    for (int32_t j = 0; j < na; ++j) {
      const int32_t c = s->rows[j];
      const double e = sys->restitution ? sys->restitution[c] : 0.0;
      s->q[j] = shard_row_dot(h, c, s->b) + e * shard_row_dot(h, c, v);
    }
    shard_integrator_warm_start(sys, s->rows, na, s->p);
    /* S is SPD (dpbtrf succeeded), so W = H S⁻¹ Hᵀ is symmetric PSD */
    rc = sys->ops->lcp_solve(sys, &w, s->q, SHARD_LCP_SYMMETRIC | SHARD_LCP_PSD, s->p, msg);
    if (rc != SHARD_OK) {
      shard_msg_prepend(msg, "contact LCP on %d active constraint%s", (int)na, na == 1 ? "" : "s");
      return rc;
    }
    if (!shard_all_finite(s->p, na)) return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite impulse from the LCP solver");
    rc = mj_impulse_response(s, sys, s->rows, s->p, na, s->col, msg);
    if (rc != SHARD_OK) return rc;
    for (int32_t i = 0; i < n; ++i) s->b[i] += s->col[i];
    if (!shard_all_finite(s->b, n))
      return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite velocity after the impulse correction");
  }

  /* energy identity (docs/theory.md §7): E_{n+1} - E_n = f_ext.du
   * + p.H((1-θ)v_n + θv_{n+1}) - (θ-½)(dv.M.dv + du.K.du) */
  if (sys->stats) {
    double work = 0.0, dvmdv = 0.0, dukdu = 0.0;
    for (int32_t j = 0; j < na; ++j) {
      const int32_t c = s->rows[j];
      work += s->p[j] * ((1.0 - th) * shard_row_dot(h, c, v) + th * shard_row_dot(h, c, s->b));
    }
    for (int32_t i = 0; i < n; ++i) {
      const double dv = s->b[i] - v[i];
      dvmdv += mass[i] * dv * dv;
      s->col[i] = dt * ((1.0 - th) * v[i] + th * s->b[i]); /* du (col is free again) */
    }
    shard_csr_matvec(k, s->col, s->kv);
    for (int32_t i = 0; i < n; ++i) dukdu += s->col[i] * s->kv[i];
    sys->stats->energy_form = SHARD_ENERGY_PLAIN;
    sys->stats->contact_work = work;
    sys->stats->numerical_dissipation = (th - 0.5) * (dvmdv + dukdu);
  }

  /* commit: b holds v_{n+1} */
  for (int32_t i = 0; i < n; ++i) {
    sys->u[i] = u[i] + dt * ((1.0 - th) * v[i] + th * s->b[i]);
    sys->a[i] = (s->b[i] - v[i]) / dt;
    sys->v[i] = s->b[i];
  }
  shard_integrator_publish_impulses(sys, s->rows, s->p, na);
  sys->ops->prescribe(sys, t1, sys->v, sys->a);
  return SHARD_OK;
}

/* DOFs [first, ndof) were inserted: reorder for the new K, grow the band
 * and the K cache if needed, and drop the factor (rebuilt by the next step) */
static int mj_on_insert(void *self, shard_system *sys, int32_t first, shard_msg *msg) {
  mj *s = self;
  (void)first;
  int rc = mj_check(s, sys, msg);
  if (rc != SHARD_OK) return rc;
  const shard_csr *k = NULL;
  rc = sys->ops->stiffness(sys, sys->u, &k, msg);
  if (rc != SHARD_OK) {
    shard_msg_prepend(msg, "stiffness after the insertion");
    return rc;
  }
  const int32_t n = sys->ndof;
  if (k->nrows != n || k->ncols != n)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL, "stiffness is %dx%d, expected %dx%d", (int)k->nrows,
                         (int)k->ncols, (int)n, (int)n);
  /* perm and iperm of the DOFs beyond n stay the identity (start), so that
   * the orderings of [0, n) are permutations of [0, n) */
  for (int32_t i = n; i < s->ndof_max; ++i) s->perm[i] = s->iperm[i] = i;
  s->factored = s->cached = 0;
  const int32_t kd = band_order(k, n, s->perm, s->iperm, s->work);
  if (kd > s->kd_cap) { /* the same slack as start() */
    int32_t cap = kd + 8;
    if (cap > s->ndof_max - 1) cap = s->ndof_max - 1;
    double *ab = realloc(s->ab, (size_t)(cap + 1) * (size_t)s->ndof_max * sizeof(double));
    if (!ab)
      return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for a band matrix of %d DOFs and bandwidth %d",
                           (int)s->ndof_max, (int)cap);
    s->ab = ab;
    s->kd_cap = cap;
  }
  const int64_t nnz = k->rowptr[n];
  if (nnz > s->cache_cap) {
    int32_t *ci = realloc(s->c_colind, ((size_t)nnz + 1) * sizeof(int32_t));
    if (ci) s->c_colind = ci;
    double *cv = ci ? realloc(s->c_val, ((size_t)nnz + 1) * sizeof(double)) : NULL;
    if (cv) s->c_val = cv;
    if (!ci || !cv) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for a stiffness of %lld entries", (long long)nnz);
    s->cache_cap = nnz;
  }
  return SHARD_OK;
}

static void mj_destroy(void *self) {
  mj *s = self;
  if (!s) return;
  mj_release(s);
  free(s);
}

static const shard_integrator_ops mj_ops = {
    .create = mj_create,
    .n_aux = mj_n_aux,
    .setup = mj_setup,
    .start = mj_start,
    .step = mj_step,
    .on_insert = mj_on_insert,
    .destroy = mj_destroy,
    .reserve = mj_reserve,
};

static const shard_plugin mj_desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_INTEGRATOR),
    .name = "moreau_jean",
    .version = "1.2.0",
    .summary = "Moreau-Jean theta time-stepping with a velocity-level LCP; S = M + theta^2 dt^2 K factored by LAPACK",
    .params = mj_params,
    .n_params = SHARD_NPARAMS(mj_params),
    .ops_size = sizeof(shard_integrator_ops),
    .caps = SHARD_CAP_IMPACT_LAW | SHARD_CAP_NEEDS_LCP | SHARD_CAP_TOPOLOGY,
    .ops = &mj_ops,
    .doc = "Implicit theta-method on velocities (theta = 1/2 in the paper); the active set is taken at the "
           "position u_n + dt v_n; one LCP on W = H S^-1 H^T with S = M + theta^2 dt^2 K enforces the Newton "
           "impact law. S is factored once per change of K or dt (LAPACK dpbtrf) in a reverse Cuthill-McKee band ordering of "
           "K; after a cohesive insertion the ordering, the band and the factor are rebuilt for the new topology "
           "(between steps). docs/theory.md section 3.",
};

SHARD_PLUGIN_SINGLE(mj_desc)
