/* cd_lagrange — central differences with Lagrange multipliers on velocities
 * (CD-Lagrange, Fekak et al. 2017; docs/theory.md §4).
 *
 *   u_{n+1}   = u_n + Δt v_{n+½}                       never corrected
 *   A         = { i : g_i(u_{n+1}) ≤ 0 }
 *   v_free    = v_{n+½} + Δt M⁻¹ f(t_{n+1}, u_{n+1})
 *   W = H_A M⁻¹ H_Aᵀ,  q = H_A v_free + e H_A v_{n+½},  0 ≤ p ⊥ Wp + q ≥ 0
 *   v_{n+3/2} = v_free + M⁻¹ H_Aᵀ p
 *
 * The staggered velocity v_{n+½} is kept in sys->aux (one vector), so that the
 * host copies it on insertion and checkpoints it. Reported: the integer-time
 * velocity (v_{n+½} + v_{n+3/2})/2 and the acceleration (v_{n+3/2} − v_{n+½})/Δt. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shard/integrator.h"
#include "shard/lcp_solver.h"

typedef struct cdl {
  int32_t ndof_max, ncon_max;
  double *u1;    /* u_{n+1} */
  double *vfree; /* v_free, then v_{n+3/2} */
  double *g;     /* gaps (ncon_max) */
  double *q;     /* (ncon_max) */
  double *p;     /* (ncon_max) */
  int32_t *rows; /* (ncon_max) */
  double *block;
} cdl;

static int cdl_create(const shard_params *params, const shard_scales *scales, void **out_self, shard_msg *msg) {
  (void)params;
  (void)scales;
  *out_self = NULL;
  cdl *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  *out_self = s;
  return SHARD_OK;
}

static uint32_t cdl_n_aux(const void *self) {
  (void)self;
  return 1; /* v_{n+1/2} */
}

static void cdl_release(cdl *s) {
  free(s->block);
  free(s->rows);
  s->block = NULL;
  s->rows = NULL;
}

/* storage for ndof_cap DOFs and ncon_cap rows, the values held kept
 * (setup: from nothing; reserve: from the last capacities) */
static int cdl_grow(cdl *s, int32_t ndof_cap, int32_t ncon_cap, shard_msg *msg) {
  const size_t nd0 = s->block ? (size_t)s->ndof_max : 0, nc0 = s->block ? (size_t)s->ncon_max : 0;
  const size_t nd = (size_t)ndof_cap, nc = (size_t)ncon_cap;
  double *b = shard_integrator_block_grow(s->block, 2, nd0, nd, 3, nc0, nc);
  int32_t *rows = shard_integrator_array_grow(s->rows, nc0, nc, sizeof(int32_t));
  if (!b || !rows) {
    free(b), free(rows);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for %zu DOFs and %zu constraints", nd, nc);
  }
  cdl_release(s);
  s->block = b, s->rows = rows;
  s->u1 = s->block;
  s->vfree = s->block + nd;
  s->g = s->block + 2 * nd;
  s->q = s->g + nc;
  s->p = s->q + nc;
  s->ndof_max = ndof_cap;
  s->ncon_max = ncon_cap;
  return SHARD_OK;
}

static int cdl_setup(void *self, shard_system *sys, shard_msg *msg) {
  cdl *s = self;
  const int rc = shard_integrator_check_system(sys, msg);
  if (rc != SHARD_OK) return rc;
  cdl_release(s);
  return cdl_grow(s, sys->ndof, sys->ncon, msg); /* the host reserves more as insertions need it */
}

static int cdl_reserve(void *self, const shard_system *sys, int32_t ndof_cap, int32_t ncon_cap, shard_msg *msg) {
  cdl *s = self;
  const int rc =
      shard_integrator_reserve_caps(s->block != NULL, sys, s->ndof_max, s->ncon_max, &ndof_cap, &ncon_cap, msg);
  if (rc != SHARD_OK || (ndof_cap == s->ndof_max && ncon_cap == s->ncon_max)) return rc;
  return cdl_grow(s, ndof_cap, ncon_cap, msg);
}

static int cdl_check(const cdl *s, const shard_system *sys, shard_msg *msg) {
  const int rc = shard_integrator_check_sizes(s->block != NULL, sys, s->ndof_max, s->ncon_max, msg);
  if (rc != SHARD_OK) return rc;
  if (!sys->aux || sys->n_aux < 1)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL, "the host gave no aux vector for v_{n+1/2}");
  return SHARD_OK;
}

/* v_½ = v_0 + Δt/2 a_0 */
static int cdl_start(void *self, shard_system *sys, double dt, shard_msg *msg) {
  int rc = cdl_check(self, sys, msg);
  if (rc != SHARD_OK) return rc;
  for (int32_t i = 0; i < sys->ndof; ++i) sys->aux[i] = sys->v[i] + 0.5 * dt * sys->a[i];
  if (!shard_all_finite(sys->aux, sys->ndof)) return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite initial state");
  return SHARD_OK;
}

static int cdl_step(void *self, shard_system *sys, double dt, shard_msg *msg) {
  cdl *s = self;
  int rc = cdl_check(s, sys, msg);
  if (rc != SHARD_OK) return rc;
  const int32_t n = sys->ndof, nc = sys->ncon;
  const double t1 = sys->t + dt;
  const double *vh = sys->aux, *minv = sys->minv;
  const shard_csr *h = sys->h;

  for (int32_t i = 0; i < n; ++i) s->u1[i] = sys->u[i] + dt * vh[i];

  int32_t na = 0;
  if (nc > 0) {
    sys->ops->gaps(sys, s->u1, s->g);
    if (!shard_all_finite(s->g, nc)) return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite gap at the new position");
    for (int32_t c = 0; c < nc; ++c)
      if (s->g[c] <= 0.0) s->rows[na++] = c;
  }

  rc = sys->ops->force(sys, t1, s->u1, s->vfree, msg);
  if (rc != SHARD_OK) {
    shard_msg_prepend(msg, "force at the new position");
    return rc;
  }
  for (int32_t i = 0; i < n; ++i) s->vfree[i] = vh[i] + dt * minv[i] * s->vfree[i];
  if (!shard_all_finite(s->vfree, n)) return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite free velocity");

  if (na > 0) {
    const shard_csr *w = NULL;
    rc = sys->ops->contact_operator(sys, s->rows, na, 0.0, &w, msg);
    if (rc != SHARD_OK) {
      shard_msg_prepend(msg, "contact operator H M^-1 H^T");
      return rc;
    }
    if (w->nrows != na || w->ncols != na)
      return shard_msg_set(msg, SHARD_ERR_INTERNAL, "contact operator is %dx%d for %d active constraints",
                           (int)w->nrows, (int)w->ncols, (int)na);
    for (int32_t j = 0; j < na; ++j) {
      const int32_t c = s->rows[j];
      const double e = sys->restitution ? sys->restitution[c] : 0.0;
      s->q[j] = shard_row_dot(h, c, s->vfree) + e * shard_row_dot(h, c, vh);
    }
    shard_integrator_warm_start(sys, s->rows, na, s->p);
    /* H M⁻¹ Hᵀ with M⁻¹ ≥ 0 is symmetric positive semidefinite */
    rc = sys->ops->lcp_solve(sys, w, s->q, SHARD_LCP_SYMMETRIC | SHARD_LCP_PSD, s->p, msg);
    if (rc != SHARD_OK) {
      shard_msg_prepend(msg, "contact LCP on %d active constraint%s", (int)na, na == 1 ? "" : "s");
      return rc;
    }
    if (!shard_all_finite(s->p, na)) return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite impulse from the LCP solver");
    for (int32_t j = 0; j < na; ++j) {
      const int32_t c = s->rows[j];
      for (int32_t kk = h->rowptr[c]; kk < h->rowptr[c + 1]; ++kk) {
        const int32_t col = h->colind[kk];
        s->vfree[col] += minv[col] * h->val[kk] * s->p[j];
      }
    }
    if (!shard_all_finite(s->vfree, n))
      return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite velocity after the impulse correction");
  }

  /* energy identity (docs/theory.md §7): with the reported v and a,
   * H_{n+1} - H_n = f_ext.du + ½(p_n + p_{n+1}).H v_{n+½}; p_n is the last
   * step's impulse, still in sys->impulse */
  if (sys->stats) {
    double work = 0.0;
    if (sys->impulse)
      for (int32_t c = 0; c < nc; ++c)
        if (sys->impulse[c] != 0.0) work += 0.5 * sys->impulse[c] * shard_row_dot(h, c, vh);
    for (int32_t j = 0; j < na; ++j) work += 0.5 * s->p[j] * shard_row_dot(h, s->rows[j], vh);
    sys->stats->energy_form = SHARD_ENERGY_NEWMARK_WORK;
    sys->stats->contact_work = work;
  }

  /* commit: vfree now holds v_{n+3/2} */
  double *aux = sys->aux;
  for (int32_t i = 0; i < n; ++i) {
    sys->u[i] = s->u1[i];
    sys->v[i] = 0.5 * (aux[i] + s->vfree[i]);
    sys->a[i] = (s->vfree[i] - aux[i]) / dt;
    aux[i] = s->vfree[i];
  }
  shard_integrator_publish_impulses(sys, s->rows, s->p, na);
  sys->ops->prescribe(sys, t1, sys->v, sys->a);
  /* prescribed DOFs (minv = 0): their staggered velocity follows the imposed
   * motion, v_{n+3/2} = v(t_{n+1}) + Δt/2 a(t_{n+1}), as at start */
  for (int32_t i = 0; i < n; ++i)
    if (minv[i] == 0.0) aux[i] = sys->v[i] + 0.5 * dt * sys->a[i];
  return SHARD_OK;
}

static int cdl_on_insert(void *self, shard_system *sys, int32_t first, shard_msg *msg) {
  (void)first;
  /* v_{n+1/2} lives in sys->aux, which the host copied with u, v and a */
  return cdl_check(self, sys, msg);
}

static void cdl_destroy(void *self) {
  cdl *s = self;
  if (!s) return;
  cdl_release(s);
  free(s);
}

static const shard_integrator_ops cdl_ops = {
    .create = cdl_create,
    .n_aux = cdl_n_aux,
    .setup = cdl_setup,
    .start = cdl_start,
    .step = cdl_step,
    .on_insert = cdl_on_insert,
    .destroy = cdl_destroy,
    .reserve = cdl_reserve,
};

static const shard_plugin cdl_desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_INTEGRATOR),
    .name = "cd_lagrange",
    .version = "1.0.0",
    .summary = "CD-Lagrange: staggered central differences with velocity-level Lagrange multipliers (Fekak 2017)",
    .params = NULL,
    .n_params = 0,
    .ops_size = sizeof(shard_integrator_ops),
    .caps = SHARD_CAP_IMPACT_LAW | SHARD_CAP_NEEDS_LCP | SHARD_CAP_TOPOLOGY | SHARD_CAP_CONDITIONALLY_STABLE,
    .ops = &cdl_ops,
    .doc = "Positions advance with the half-step velocity and are never corrected; constraints closed at the new "
           "position are active; one LCP on W = H M^-1 H^T enforces the Newton impact law on the next half-step "
           "velocity. Reports the integer-time velocity (v_{n+1/2} + v_{n+3/2})/2. docs/theory.md section 4.",
};

SHARD_PLUGIN_SINGLE(cdl_desc)
