/* my_integrator — an out-of-tree shard plugin (the worked example of
 * docs/plugins.md): velocity Verlet, an explicit, second-order, symplectic
 * scheme for the force-law family (contact by penalty through the host's
 * force evaluation), with optional mass-proportional damping c:
 *
 *   v_{n+1/2} = v_n + dt/2 a_n
 *   u_{n+1}   = u_n + dt v_{n+1/2}
 *   f         = f(t_{n+1}, u_{n+1})            (host: f_ext - f_int + penalty)
 *   v_{n+1}   = (v_{n+1/2} + dt/2 M^-1 f) / (1 + c dt/2)
 *   a_{n+1}   = M^-1 f - c v_{n+1}
 *
 * Stable for dt < 2/omega_max (c = 0). It needs no LCP solver and survives
 * cohesive insertions (nothing derived is cached across steps).
 *
 * Build against an installed shard:
 *   cc -std=c11 -O2 -shared -fPIC -fvisibility=hidden $(pkg-config --cflags shard) \
 *      my_integrator.c -o my_integrator.so
 */
#include <stdlib.h>

#include "shard/integrator.h"

typedef struct my_self {
  double damping; /* c [1/s] */
  double *f;      /* force, ndof_max */
  double *g;      /* gaps, ncon_max */
} my_self;

static const shard_param_spec my_params[] = {
    {"damping", SHARD_PARAM_REAL, "0", 0.0, SHARD_INF, "1/s", 0, NULL,
     "mass-proportional damping c: adds -c v to the acceleration"},
};

static int my_create(const shard_params *params, const shard_scales *scales, void **out_self, shard_msg *msg) {
  *out_self = NULL;
  const int rc = shard_params_check(params, msg); /* the host did; a direct caller may not */
  if (rc != SHARD_OK) return rc;
  my_self *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->damping = shard_params_real(params, "damping"); /* defaulted by the host */
  *out_self = s;
  return SHARD_OK;
}

/* allocate everything the hot path needs, for the largest system */
static int my_setup(void *self, shard_system *sys, shard_msg *msg) {
  my_self *s = self;
  free(s->f);
  free(s->g);
  s->f = calloc((size_t)(sys->ndof_max > 0 ? sys->ndof_max : 1), sizeof *s->f);
  s->g = calloc((size_t)(sys->ncon_max > 0 ? sys->ncon_max : 1), sizeof *s->g);
  if (!s->f || !s->g) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  return SHARD_OK;
}

/* the host gives u0, v0 and a0 = M^-1 f(u0); add the damping term */
static int my_start(void *self, shard_system *sys, double dt, shard_msg *msg) {
  my_self *s = self;
  for (int32_t i = 0; i < sys->ndof; ++i) sys->a[i] -= s->damping * sys->v[i];
  if (sys->ops->prescribe) sys->ops->prescribe(sys, sys->t, sys->v, sys->a);
  return SHARD_OK;
}

/* hot path: no allocation */
static int my_step(void *self, shard_system *sys, double dt, shard_msg *msg) {
  my_self *s = self;
  const double t1 = sys->t + dt, h = 0.5 * dt, c = s->damping;
  for (int32_t i = 0; i < sys->ndof; ++i) {
    sys->v[i] += h * sys->a[i];
    sys->u[i] += dt * sys->v[i];
  }
  int st = sys->ops->force(sys, t1, sys->u, s->f, msg);
  if (st != SHARD_OK) return st;
  for (int32_t i = 0; i < sys->ndof; ++i) {
    const double af = sys->minv[i] * s->f[i];
    sys->v[i] = (sys->v[i] + h * af) / (1.0 + c * h);
    sys->a[i] = af - c * sys->v[i];
  }
  if (sys->ops->prescribe) sys->ops->prescribe(sys, t1, sys->v, sys->a);
  /* report the constraints in contact (penetrating) and no impulses */
  int32_t active = 0;
  if (sys->ncon > 0) {
    sys->ops->gaps(sys, sys->u, s->g);
    for (int32_t k = 0; k < sys->ncon; ++k) active += s->g[k] < 0.0;
  }
  if (sys->impulse)
    for (int32_t k = 0; k < sys->ncon; ++k) sys->impulse[k] = 0.0;
  if (sys->stats) sys->stats->n_active = active;
  return SHARD_OK;
}

/* new DOFs arrive with state copied from their sources: nothing to rebuild */
static int my_on_insert(void *self, shard_system *sys, int32_t first, shard_msg *msg) { return SHARD_OK; }

static void my_destroy(void *self) {
  my_self *s = self;
  if (!s) return;
  free(s->f);
  free(s->g);
  free(s);
}

static const shard_integrator_ops my_ops = {
    .create = my_create,
    .setup = my_setup,
    .start = my_start,
    .step = my_step,
    .on_insert = my_on_insert,
    .destroy = my_destroy,
};

static const shard_plugin my_plugin = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_INTEGRATOR),
    .name = "my_integrator",
    .version = "1.0.0",
    .summary = "velocity Verlet with mass-proportional damping (out-of-tree example)",
    .params = my_params,
    .n_params = SHARD_NPARAMS(my_params),
    .ops_size = sizeof my_ops,
    .caps = SHARD_CAP_FORCE_LAW | SHARD_CAP_TOPOLOGY,
    .ops = &my_ops,
    .doc = "Explicit, second order, symplectic when damping = 0; stable for dt < 2/omega_max.",
};

SHARD_PLUGIN_SINGLE(my_plugin)
