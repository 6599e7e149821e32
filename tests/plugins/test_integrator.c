/* tests: "test_integrator" — symplectic (semi-implicit) Euler for the force
 * family (penalty contact through the host's force evaluation):
 *     v_{n+1} = v_n + dt a_n,   u_{n+1} = u_n + dt v_{n+1},
 *     a_{n+1} = M^-1 f(t_{n+1}, u_{n+1}).
 * First order, conditionally stable (dt < 2/omega_max). A valid plugin for
 * the loader tests and small cases; not meant for production runs. */
#include <stdlib.h>

#include "shard/integrator.h"

typedef struct ti_self {
  double *f; /* force scratch, ndof_max */
} ti_self;

static int ti_create(const shard_params *params, const shard_scales *scales, void **out_self, shard_msg *msg) {
  ti_self *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "test_integrator: out of memory");
  *out_self = s;
  return SHARD_OK;
}

static int ti_setup(void *self, shard_system *sys, shard_msg *msg) {
  ti_self *s = self;
  free(s->f);
  s->f = calloc((size_t)(sys->ndof_max > 0 ? sys->ndof_max : 1), sizeof *s->f);
  if (!s->f) return shard_msg_set(msg, SHARD_ERR_NOMEM, "test_integrator: out of memory");
  return SHARD_OK;
}

static int ti_start(void *self, shard_system *sys, double dt, shard_msg *msg) { return SHARD_OK; }

static int ti_step(void *self, shard_system *sys, double dt, shard_msg *msg) {
  ti_self *s = self;
  const double t1 = sys->t + dt;
  for (int32_t i = 0; i < sys->ndof; ++i) sys->v[i] += dt * sys->a[i];
  if (sys->ops->prescribe) sys->ops->prescribe(sys, t1, sys->v, sys->a);
  for (int32_t i = 0; i < sys->ndof; ++i) sys->u[i] += dt * sys->v[i];
  int st = sys->ops->force(sys, t1, sys->u, s->f, msg);
  if (st != SHARD_OK) return st;
  for (int32_t i = 0; i < sys->ndof; ++i) sys->a[i] = sys->minv[i] * s->f[i];
  if (sys->ops->prescribe) sys->ops->prescribe(sys, t1, sys->v, sys->a);
  if (sys->stats) sys->stats->n_active = 0;
  for (int32_t c = 0; c < sys->ncon && sys->impulse; ++c) sys->impulse[c] = 0.0;
  return SHARD_OK;
}

static int ti_on_insert(void *self, shard_system *sys, int32_t first, shard_msg *msg) { return SHARD_OK; }

static void ti_destroy(void *self) {
  ti_self *s = self;
  if (!s) return;
  free(s->f);
  free(s);
}

static const shard_integrator_ops ops = {.create = ti_create,
                                         .setup = ti_setup,
                                         .start = ti_start,
                                         .step = ti_step,
                                         .on_insert = ti_on_insert,
                                         .destroy = ti_destroy};

static const shard_plugin desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_INTEGRATOR),
    .name = "test_integrator",
    .version = "0.1.0",
    .summary = "symplectic Euler (test plugin, force-law family)",
    .ops_size = sizeof ops,
    .caps = SHARD_CAP_FORCE_LAW | SHARD_CAP_TOPOLOGY,
    .ops = &ops,
};
SHARD_PLUGIN_SINGLE(desc)
