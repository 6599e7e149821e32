/* nsn — the semi-explicit nonsmooth Newmark integrator (β = 0, γ = ½) with an
 * impulse correction on the active contacts (docs/theory.md §2).
 *
 *   ũ  = u_n + Δt v_n + Δt²/2 a_n                     predictor
 *   A  = { i : g_i(ũ) ≤ 0 }  [and H_i(v_n + Δt a_n) < 0 with closing_filter]
 *   a* = M⁻¹ f(t_{n+1}, ũ)                            f = f_ext − f_int
 *   W′ = H_A M⁻¹ (M − Δt²/4 K) M⁻¹ H_Aᵀ,  q = H_A[(1+e) v_n + Δt/2 (a_n + a*)]
 *   0 ≤ p ⊥ W′p + q ≥ 0
 *   v̂ = M⁻¹H_Aᵀp,  a_{n+1} = a* − Δt/2 M⁻¹K v̂
 *   v_{n+1} = v_n + Δt/2 (a_n + a_{n+1}) + v̂,  u_{n+1} = ũ + Δt/2 v̂
 *
 * With consistent_acceleration, a step with impulses then takes
 * a_{n+1} = M⁻¹ f(t_{n+1}, u_{n+1}) instead of the linearised value (and
 * v_{n+1} with it): for a force that is not linear between ũ and u_{n+1}
 * (a cohesive traction that jumps where a closed facet reopens) the energy
 * identity of docs/theory.md §7 then holds exactly, at the price of one more
 * force call per contact step and of Newton's law holding on the linearised
 * velocity. For a linear force both values agree to round-off.
 *
 * Every product with M⁻¹ uses sys->minv, which is zero on prescribed DOFs, so
 * those DOFs receive neither acceleration nor impulse; their v and a are then
 * overwritten by the host's prescribe(). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "shard/integrator.h"
#include "shard/lcp_solver.h"
#include "shard/parallel.h"

typedef struct nsn {
  int closing_filter;
  int consistent; /* consistent_acceleration */
  int32_t ndof_max, ncon_max;
  double *ut;    /* predictor ũ, then u_{n+1} */
  double *astar; /* a* */
  double *anew;  /* a_{n+1} */
  double *vnew;  /* v_{n+1} */
  double *vhat;  /* v̂ */
  double *kv;    /* K v̂ */
  double *g;     /* gaps at ũ (ncon_max) */
  double *q;     /* LCP right-hand side (ncon_max) */
  double *p;     /* impulses of the active set (ncon_max) */
  int32_t *rows; /* active constraint rows (ncon_max) */
  int32_t *dofs; /* DOFs touched by the impulses, then their K neighbours (ndof_max) */
  uint8_t *mark; /* 1 on the DOFs listed in dofs (ndof_max), zero between steps */
  double *block; /* the one allocation behind the double arrays */
} nsn;

/* Nonzero when x is NaN or ±inf (its exponent field all ones: adding one
 * to the field carries into the sign bit): integer operations only, cheaper
 * in the update loops than a floating-point compare and flag per entry. */
static inline uint64_t nsn_not_finite(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  return ((b & UINT64_C(0x7ff0000000000000)) + UINT64_C(0x0010000000000000)) & UINT64_C(0x8000000000000000);
}

static const shard_param_spec nsn_params[] = {
    {.key = "closing_filter",
     .type = SHARD_PARAM_BOOL,
     .def = "false",
     .min = 0,
     .max = 0,
     .unit = "",
     .flags = 0,
     .choices = NULL,
     .doc = "also require a closing rate H(v_n + dt a_n) < 0 for a constraint to be active (authors' implementation)"},
    {.key = "consistent_acceleration",
     .type = SHARD_PARAM_BOOL,
     .def = "false",
     .min = 0,
     .max = 0,
     .unit = "",
     .flags = 0,
     .choices = NULL,
     .doc = "after a step with impulses, take a_{n+1} = M^-1 f(u_{n+1}) (and v_{n+1} with it) instead of the value "
            "linearised with K: closes the energy balance when the force is not linear across the step (cohesive "
            "points reopening); one more force call per contact step"},
};

/* Flags the LCP operator actually satisfies: always symmetric; PSD and
 * Z-matrix only when certified here (weak diagonal dominance with a
 * non-negative diagonal is a sufficient PSD condition for a symmetric matrix).
 * O(nnz). */
static uint32_t certify(const shard_csr *w) {
  uint32_t flags = SHARD_LCP_SYMMETRIC | SHARD_LCP_PSD | SHARD_LCP_ZMATRIX;
  for (int32_t i = 0; i < w->nrows; ++i) {
    double diag = 0.0, off = 0.0;
    for (int32_t k = w->rowptr[i]; k < w->rowptr[i + 1]; ++k) {
      if (w->colind[k] == i) {
        diag += w->val[k];
      } else {
        off += fabs(w->val[k]);
        if (w->val[k] > 0.0) flags &= ~SHARD_LCP_ZMATRIX;
      }
    }
    if (!(diag >= 0.0) || diag < off) flags &= ~SHARD_LCP_PSD;
  }
  return flags;
}

static int nsn_create(const shard_params *params, const shard_scales *scales, void **out_self, shard_msg *msg) {
  (void)scales;
  *out_self = NULL;
  nsn *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->closing_filter = shard_params_bool(params, "closing_filter");
  s->consistent = shard_params_bool(params, "consistent_acceleration");
  *out_self = s;
  return SHARD_OK;
}

static uint32_t nsn_n_aux(const void *self) {
  (void)self;
  return 0;
}

static void nsn_release(nsn *s) {
  free(s->block);
  free(s->rows);
  free(s->dofs);
  free(s->mark);
  s->block = NULL;
  s->rows = NULL;
  s->dofs = NULL;
  s->mark = NULL;
}

/* storage for ndof_cap DOFs and ncon_cap rows, the values held kept
 * (setup: from nothing; reserve: from the last capacities) */
static int nsn_grow(nsn *s, int32_t ndof_cap, int32_t ncon_cap, shard_msg *msg) {
  const size_t nd0 = s->block ? (size_t)s->ndof_max : 0, nc0 = s->block ? (size_t)s->ncon_max : 0;
  const size_t nd = (size_t)ndof_cap, nc = (size_t)ncon_cap;
  double *b = shard_integrator_block_grow(s->block, 6, nd0, nd, 3, nc0, nc);
  int32_t *rows = shard_integrator_array_grow(s->rows, nc0, nc, sizeof(int32_t));
  int32_t *dofs = shard_integrator_array_grow(s->dofs, nd0, nd, sizeof(int32_t));
  uint8_t *mark = shard_integrator_array_grow(s->mark, nd0, nd, 1);
  if (!b || !rows || !dofs || !mark) {
    free(b), free(rows), free(dofs), free(mark);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for %zu DOFs and %zu constraints", nd, nc);
  }
  nsn_release(s);
  s->block = b, s->rows = rows, s->dofs = dofs, s->mark = mark;
  s->ut = b;
  s->astar = b + nd;
  s->anew = b + 2 * nd;
  s->vnew = b + 3 * nd;
  s->vhat = b + 4 * nd;
  s->kv = b + 5 * nd;
  s->g = b + 6 * nd;
  s->q = s->g + nc;
  s->p = s->q + nc;
  s->ndof_max = ndof_cap;
  s->ncon_max = ncon_cap;
  return SHARD_OK;
}

static int nsn_setup(void *self, shard_system *sys, shard_msg *msg) {
  nsn *s = self;
  const int rc = shard_integrator_check_system(sys, msg);
  if (rc != SHARD_OK) return rc;
  nsn_release(s);
  return nsn_grow(s, sys->ndof, sys->ncon, msg); /* the host reserves more as insertions need it */
}

static int nsn_reserve(void *self, const shard_system *sys, int32_t ndof_cap, int32_t ncon_cap, shard_msg *msg) {
  nsn *s = self;
  const int rc =
      shard_integrator_reserve_caps(s->block != NULL, sys, s->ndof_max, s->ncon_max, &ndof_cap, &ncon_cap, msg);
  if (rc != SHARD_OK || (ndof_cap == s->ndof_max && ncon_cap == s->ncon_max)) return rc;
  return nsn_grow(s, ndof_cap, ncon_cap, msg);
}

static int nsn_check_sizes(const nsn *s, const shard_system *sys, shard_msg *msg) {
  return shard_integrator_check_sizes(s->block != NULL, sys, s->ndof_max, s->ncon_max, msg);
}

static int nsn_start(void *self, shard_system *sys, double dt, shard_msg *msg) {
  (void)dt;
  return nsn_check_sizes(self, sys, msg);
}

static int nsn_step(void *self, shard_system *sys, double dt, shard_msg *msg) {
  nsn *s = self;
  int rc = nsn_check_sizes(s, sys, msg);
  if (rc != SHARD_OK) return rc;
  const int32_t n = sys->ndof, nc = sys->ncon;
  const double t1 = sys->t + dt, hdt = 0.5 * dt, hdt2 = 0.5 * dt * dt;
  const double *u = sys->u, *v = sys->v, *a = sys->a, *minv = sys->minv;
  const shard_csr *h = sys->h;

  /* The loops over the DOFs (and over the active rows for q) write their own
   * entries only, the finiteness flags OR-reduced: threads share them. */
  const shard_par T = shard_system_par(sys);
  (void)T; /* unused without OpenMP */

  /* predictor (its finiteness is reported with the final displacement) */
  uint64_t bad_pred = 0;
  SHARD_PAR_FOR_OR(T, n, i, bad_pred,
    s->ut[i] = u[i] + dt * v[i] + hdt2 * a[i];
    bad_pred |= nsn_not_finite(s->ut[i]);
  );

  /* active set at the predicted position */
  int32_t na = 0;
  if (nc > 0) {
    sys->ops->gaps(sys, s->ut, s->g);
    /* rows in space order when the host has one (and is recent enough to say);
     * the gaps are checked in the same pass */
    const int32_t *order = sys->struct_size > offsetof(shard_system, con_order) ? sys->con_order : NULL;
    uint64_t bad_g = 0;
    if (s->closing_filter) {
      for (int32_t q = 0; q < nc; ++q) {
        const int32_t c = order ? order[q] : q;
        bad_g |= nsn_not_finite(s->g[c]);
        if (s->g[c] > 0.0) continue;
        if (!(shard_row_dot(h, c, v) + dt * shard_row_dot(h, c, a) < 0.0)) continue;
        s->rows[na++] = c;
      }
    } else { /* without a branch on the gap's sign, which a fragmenting bar makes unpredictable */
      for (int32_t q = 0; q < nc; ++q) {
        const int32_t c = order ? order[q] : q;
        bad_g |= nsn_not_finite(s->g[c]);
        s->rows[na] = c;
        na += !(s->g[c] > 0.0);
      }
    }
    if (bad_g) return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite gap at the predicted position");
  }

  /* free acceleration at the predicted position */
  rc = sys->ops->force(sys, t1, s->ut, s->astar, msg);
  if (rc != SHARD_OK) {
    shard_msg_prepend(msg, "force at the predicted position");
    return rc;
  }
  uint64_t bad = 0;
  SHARD_PAR_FOR_OR(T, n, i, bad,
    s->astar[i] *= minv[i];
    bad |= nsn_not_finite(s->astar[i]);
  );
  if (bad)
    return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite acceleration at the predicted position");

  /* the updates check what they write as they go (bad_v: velocity or
   * acceleration, bad_u: displacement), instead of three more passes */
  uint64_t bad_v = 0, bad_u = bad_pred;
  if (na == 0) {
    SHARD_PAR_FOR_OR(T, n, i, bad_v,
      s->anew[i] = s->astar[i];
      s->vnew[i] = v[i] + hdt * (a[i] + s->astar[i]);
      bad_v |= nsn_not_finite(s->vnew[i]);
    );
  } else {
    const shard_csr *k = NULL, *w = NULL;
    rc = sys->ops->stiffness(sys, s->ut, &k, msg);
    if (rc != SHARD_OK) {
      shard_msg_prepend(msg, "stiffness at the predicted position");
      return rc;
    }
    if (k->nrows != n || k->ncols != n)
      return shard_msg_set(msg, SHARD_ERR_INTERNAL, "stiffness is %dx%d, expected %dx%d", (int)k->nrows,
                           (int)k->ncols, (int)n, (int)n);
    rc = sys->ops->contact_operator(sys, s->rows, na, dt * dt / 4.0, &w, msg);
    if (rc != SHARD_OK) {
      shard_msg_prepend(msg, "contact operator W'");
      return rc;
    }
    if (w->nrows != na || w->ncols != na)
      return shard_msg_set(msg, SHARD_ERR_INTERNAL, "contact operator is %dx%d for %d active constraints",
                           (int)w->nrows, (int)w->ncols, (int)na);
    /* q = H_A [(1+e) v_n + Δt/2 (a_n + a*)]; the LCP starts from the last
     * impulses. nh counts the active rows' H entries: at least the DOFs the
     * impulses reach */
    int64_t nh = 0;
    for (int32_t j = 0; j < na; ++j) nh += h->rowptr[s->rows[j] + 1] - h->rowptr[s->rows[j]];
    SHARD_PAR_FOR(T, na, j,
      const int32_t c = s->rows[j];
      const double e = sys->restitution ? sys->restitution[c] : 0.0;
      double hv = 0.0, hacc = 0.0;
      for (int32_t kk = h->rowptr[c]; kk < h->rowptr[c + 1]; ++kk) {
        const int32_t col = h->colind[kk];
        hv += h->val[kk] * v[col];
        hacc += h->val[kk] * (a[col] + s->astar[col]);
      }
      s->q[j] = (1.0 + e) * hv + hdt * hacc;
    );
    shard_integrator_warm_start(sys, s->rows, na, s->p);
    rc = sys->ops->lcp_solve(sys, w, s->q, certify(w), s->p, msg);
    if (rc != SHARD_OK) {
      shard_msg_prepend(msg, "contact LCP on %d active constraint%s", (int)na, na == 1 ? "" : "s");
      return rc;
    }
    if (!shard_all_finite(s->p, na)) return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite impulse from the LCP solver");
    /* v̂ = M⁻¹ H_Aᵀ p and K v̂. When the impulses reach few DOFs, both are
     * formed on those DOFs and their K neighbours only, O(active), the rest
     * of both vectors staying zero; when they may reach a sizeable part of
     * the mesh (a fragmented bar with most cracks closed: the active rows
     * have more than n/8 H entries), K v̂ is one row-ordered pass fused with
     * the update, which streams K instead of gathering it, and v̂ is
     * scattered without listing its DOFs. Both paths sum each row of K in
     * the same order: identical results. */
    memset(s->vhat, 0, (size_t)n * sizeof(double));
    const int dense = nh * 8 > (int64_t)n;
    if (dense) {
      for (int32_t j = 0; j < na; ++j) {
        const int32_t c = s->rows[j];
        for (int32_t kk = h->rowptr[c]; kk < h->rowptr[c + 1]; ++kk) s->vhat[h->colind[kk]] += h->val[kk] * s->p[j];
      }
      SHARD_PAR_FOR(T, n, i, s->vhat[i] *= minv[i];);
    } else {
      int32_t nd = 0;
      for (int32_t j = 0; j < na; ++j) {
        const int32_t c = s->rows[j];
        for (int32_t kk = h->rowptr[c]; kk < h->rowptr[c + 1]; ++kk) {
          const int32_t d = h->colind[kk];
          s->vhat[d] += h->val[kk] * s->p[j];
          if (!s->mark[d]) s->mark[d] = 1, s->dofs[nd++] = d;
        }
      }
      const int32_t nv = nd;
      memset(s->kv, 0, (size_t)n * sizeof(double));
      for (int32_t q = 0; q < nv; ++q) {
        const int32_t d = s->dofs[q];
        s->vhat[d] *= minv[d];
        for (int32_t kk = k->rowptr[d]; kk < k->rowptr[d + 1]; ++kk) {
          const int32_t l = k->colind[kk];
          if (!s->mark[l]) s->mark[l] = 1, s->dofs[nd++] = l;
        }
      }
      for (int32_t q = 0; q < nd; ++q) {
        const int32_t d = s->dofs[q];
        s->kv[d] = shard_row_dot(k, d, s->vhat);
        s->mark[d] = 0;
      }
    }
    SHARD_PAR_FOR_OR2(T, n, i, bad_v, bad_u,
      const double kv = dense ? shard_row_dot(k, i, s->vhat) : s->kv[i];
      s->anew[i] = s->astar[i] - hdt * minv[i] * kv;
      s->vnew[i] = v[i] + hdt * (a[i] + s->anew[i]) + s->vhat[i];
      s->ut[i] += hdt * s->vhat[i];
      bad_v |= nsn_not_finite(s->vnew[i]) | nsn_not_finite(s->anew[i]);
      bad_u |= nsn_not_finite(s->ut[i]);
    );
    /* the force where the step ends, not its linearisation about ũ: then
     * M a_{n+1} = f(u_{n+1}) and the next step's trapezoid is the force's
     * own (docs/theory.md §7); K v̂ is no longer needed, its room holds f */
    if (s->consistent && !bad_u) {
      rc = sys->ops->force(sys, t1, s->ut, s->kv, msg);
      if (rc != SHARD_OK) {
        shard_msg_prepend(msg, "force at the corrected position");
        return rc;
      }
      SHARD_PAR_FOR_OR(T, n, i, bad_v,
        const double at = minv[i] * s->kv[i];
        s->vnew[i] += hdt * (at - s->anew[i]);
        s->anew[i] = at;
        bad_v |= nsn_not_finite(s->vnew[i]) | nsn_not_finite(at);
      );
    }
  }
  if (bad_v)
    return shard_msg_set(msg, SHARD_ERR_NUMERIC, na ? "non-finite velocity after the impulse correction"
                                                    : "non-finite velocity in free flight");
  if (bad_u)
    return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite displacement after the impulse correction");

  /* commit */
  memcpy(sys->u, s->ut, (size_t)n * sizeof(double));
  memcpy(sys->v, s->vnew, (size_t)n * sizeof(double));
  memcpy(sys->a, s->anew, (size_t)n * sizeof(double));
  shard_integrator_publish_impulses(sys, s->rows, s->p, na);
  sys->ops->prescribe(sys, t1, sys->v, sys->a);
  return SHARD_OK;
}

static int nsn_on_insert(void *self, shard_system *sys, int32_t first, shard_msg *msg) {
  (void)first;
  /* NSN keeps no per-DOF state of its own: the host copied u, v, a. */
  return nsn_check_sizes(self, sys, msg);
}

static void nsn_destroy(void *self) {
  nsn *s = self;
  if (!s) return;
  nsn_release(s);
  free(s);
}

static const shard_integrator_ops nsn_ops = {
    .create = nsn_create,
    .n_aux = nsn_n_aux,
    .setup = nsn_setup,
    .start = nsn_start,
    .step = nsn_step,
    .on_insert = nsn_on_insert,
    .destroy = nsn_destroy,
    .reserve = nsn_reserve,
};

static const shard_plugin nsn_desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_INTEGRATOR),
    .name = "nsn",
    .version = "1.0.0",
    .summary = "nonsmooth Newmark (beta = 0, gamma = 1/2) with an LCP impulse correction on the active contacts",
    .params = nsn_params,
    .n_params = SHARD_NPARAMS(nsn_params),
    .ops_size = sizeof(shard_integrator_ops),
    .caps = SHARD_CAP_IMPACT_LAW | SHARD_CAP_NEEDS_LCP | SHARD_CAP_TOPOLOGY | SHARD_CAP_CONDITIONALLY_STABLE,
    .ops = &nsn_ops,
    .doc = "Explicit central-difference Newmark predictor; constraints whose gap at the predicted position is "
           "closed form the active set; one LCP on W' = H M^-1 (M - dt^2/4 K) M^-1 H^T gives the impulses "
           "that enforce the Newton impact law at velocity level; the position is corrected by dt/2 v_hat. "
           "W' is positive semidefinite when dt <= 2/omega_max. docs/theory.md section 2.",
};

SHARD_PLUGIN_SINGLE(nsn_desc)
