/* explicit_newmark — explicit central-difference Newmark (β = 0, γ = ½) for
 * force-law contact (penalty), docs/theory.md §5.
 *
 *   u_{n+1} = u_n + Δt v_n + Δt²/2 a_n
 *   a_{n+1} = M⁻¹ f(t_{n+1}, u_{n+1})      f = f_ext − f_int (+ penalty, by the host)
 *   v_{n+1} = v_n + Δt/2 (a_n + a_{n+1})
 *
 * Stable for Δt ≤ 2/ω_max with the penalty stiffness included in ω_max (the
 * host's stable step does that). n_active reports the violated gaps g < 0. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "shard/integrator.h"
#include "shard/parallel.h"

typedef struct enm {
  int32_t ndof_max, ncon_max;
  double *u1, *a1, *g;
  double *block;
} enm;

static int enm_create(const shard_params *params, const shard_scales *scales, void **out_self, shard_msg *msg) {
  (void)params;
  (void)scales;
  *out_self = NULL;
  enm *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  *out_self = s;
  return SHARD_OK;
}

static uint32_t enm_n_aux(const void *self) {
  (void)self;
  return 0;
}

/* storage for ndof_cap DOFs and ncon_cap rows, the values held kept
 * (setup: from nothing; reserve: from the last capacities) */
static int enm_grow(enm *s, int32_t ndof_cap, int32_t ncon_cap, shard_msg *msg) {
  const size_t nd0 = s->block ? (size_t)s->ndof_max : 0, nc0 = s->block ? (size_t)s->ncon_max : 0;
  const size_t nd = (size_t)ndof_cap, nc = (size_t)ncon_cap;
  double *b = shard_integrator_block_grow(s->block, 2, nd0, nd, 1, nc0, nc);
  if (!b) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for %zu DOFs and %zu constraints", nd, nc);
  free(s->block);
  s->block = b;
  s->u1 = s->block;
  s->a1 = s->block + nd;
  s->g = s->block + 2 * nd;
  s->ndof_max = ndof_cap;
  s->ncon_max = ncon_cap;
  return SHARD_OK;
}

static int enm_setup(void *self, shard_system *sys, shard_msg *msg) {
  enm *s = self;
  const int rc = shard_integrator_check_system(sys, msg);
  if (rc != SHARD_OK) return rc;
  free(s->block);
  s->block = NULL;
  return enm_grow(s, sys->ndof, sys->ncon, msg); /* the host reserves more as insertions need it */
}

static int enm_reserve(void *self, const shard_system *sys, int32_t ndof_cap, int32_t ncon_cap, shard_msg *msg) {
  enm *s = self;
  const int rc =
      shard_integrator_reserve_caps(s->block != NULL, sys, s->ndof_max, s->ncon_max, &ndof_cap, &ncon_cap, msg);
  if (rc != SHARD_OK || (ndof_cap == s->ndof_max && ncon_cap == s->ncon_max)) return rc;
  return enm_grow(s, ndof_cap, ncon_cap, msg);
}

static int enm_check(const enm *s, const shard_system *sys, shard_msg *msg) {
  return shard_integrator_check_sizes(s->block != NULL, sys, s->ndof_max, s->ncon_max, msg);
}

static int enm_start(void *self, shard_system *sys, double dt, shard_msg *msg) {
  (void)dt;
  return enm_check(self, sys, msg);
}

static int enm_step(void *self, shard_system *sys, double dt, shard_msg *msg) {
  enm *s = self;
  int rc = enm_check(s, sys, msg);
  if (rc != SHARD_OK) return rc;
  const int32_t n = sys->ndof, nc = sys->ncon;
  const double t1 = sys->t + dt, hdt = 0.5 * dt, hdt2 = 0.5 * dt * dt;
  const double *minv = sys->minv;

  /* each loop checks what it writes as it goes (no separate checking pass);
   * every loop over the DOFs writes its own entries: threads share them */
  const shard_par T = shard_system_par(sys);
  (void)T; /* unused without OpenMP */
  int bad = 0;
  SHARD_PAR_FOR_OR(T, n, i, bad,
    s->u1[i] = sys->u[i] + dt * sys->v[i] + hdt2 * sys->a[i];
    bad |= shard_not_finite(s->u1[i]);
  );
  if (bad) return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite displacement");
  rc = sys->ops->force(sys, t1, s->u1, s->a1, msg);
  if (rc != SHARD_OK) {
    shard_msg_prepend(msg, "force at the new position");
    return rc;
  }
  SHARD_PAR_FOR_OR(T, n, i, bad,
    s->a1[i] *= minv[i];
    bad |= shard_not_finite(s->a1[i]);
  );
  if (bad) return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite acceleration");

  /* the count of violated gaps at the new position: the host measures the
   * committed state anyway, so it counts them there when it can (and the
   * model reuses the gaps of the force call just made) */
  const int by_host = sys->struct_size > offsetof(shard_system, force_at_commit);
  int32_t penetrated = by_host ? SHARD_N_ACTIVE_VIOLATED_GAPS : 0;
  if (nc > 0 && !by_host) {
    sys->ops->gaps(sys, s->u1, s->g);
    for (int32_t c = 0; c < nc; ++c) penetrated += s->g[c] < 0.0;
  }
  SHARD_PAR_FOR(T, n, i,
    sys->v[i] += hdt * (sys->a[i] + s->a1[i]);
    sys->a[i] = s->a1[i];
    sys->u[i] = s->u1[i];
  );
  if (sys->impulse) memset(sys->impulse, 0, (size_t)nc * sizeof(double));
  if (sys->stats) sys->stats->n_active = penetrated;
  sys->ops->prescribe(sys, t1, sys->v, sys->a);
  if (by_host) sys->force_at_commit = 1; /* u = u1, where the force was evaluated last */
  return SHARD_OK;
}

static int enm_on_insert(void *self, shard_system *sys, int32_t first, shard_msg *msg) {
  (void)first;
  return enm_check(self, sys, msg);
}

static void enm_destroy(void *self) {
  enm *s = self;
  if (!s) return;
  free(s->block);
  free(s);
}

static const shard_integrator_ops enm_ops = {
    .create = enm_create,
    .n_aux = enm_n_aux,
    .setup = enm_setup,
    .start = enm_start,
    .step = enm_step,
    .on_insert = enm_on_insert,
    .destroy = enm_destroy,
    .reserve = enm_reserve,
};

static const shard_plugin enm_desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_INTEGRATOR),
    .name = "explicit_newmark",
    .version = "1.0.0",
    .summary = "explicit central-difference Newmark (beta = 0, gamma = 1/2) with force-law (penalty) contact",
    .params = NULL,
    .n_params = 0,
    .ops_size = sizeof(shard_integrator_ops),
    .caps = SHARD_CAP_FORCE_LAW | SHARD_CAP_TOPOLOGY | SHARD_CAP_CONDITIONALLY_STABLE,
    .ops = &enm_ops,
    .doc = "The classical explicit scheme: displacement predictor, acceleration from the forces at the new position "
           "(penalty contact forces included by the host), trapezoidal velocity update. Conditionally stable: "
           "dt <= 2/omega_max with the penalty stiffness in omega_max. docs/theory.md section 5.",
};

SHARD_PLUGIN_SINGLE(enm_desc)
