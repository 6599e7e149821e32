/* thornton_impact — a velocity-dependent impact law: Thornton's restitution
 * of elastic–perfectly plastic spheres (C. Thornton, J. Appl. Mech. 64 (1997)
 * 383–386). With x = v_y / v, v = |v_n| the approach speed,
 *
 *   e(v) = 1                                        for v <= v_y,
 *   e(v) = sqrt(6 sqrt(3) / 5) sqrt(1 - x^2 / 6)
 *          [x / (x + 2 sqrt(6/5 - x^2/5))]^(1/4)    for v > v_y,
 *
 * continuous at v_y (e = 3^(1/4) 3^(-1/4) = 1, and de/dv = 0 there),
 * decreasing, and e ~ 1.185 (v_y / v)^(1/4) for v >> v_y. Gaps are
 * g = g0 + H u, so v_n = dg/dt < 0 approaches: only those constraints take
 * e(|v_n|); a separating or resting one (v_n >= 0) takes e = 1, the limit of
 * e at v -> 0. An optional floor e_min bounds e from below. The impact
 * family, SHARD_CAP_VELOCITY_DEPENDENT: the host calls restitution before
 * every step with v_n = H v at the step's start. */
#include <math.h>
#include <stdlib.h>

#include "shard/contact_law.h"

typedef struct thornton_impact {
  double v_y;   /* yield velocity [m/s] */
  double e_min; /* floor of e */
} thornton_impact;

static const shard_param_spec thornton_params[] = {
    {.key = "v_y",
     .type = SHARD_PARAM_REAL,
     .def = NULL,
     .min = 0.0,
     .max = SHARD_INF,
     .unit = "m/s",
     .flags = SHARD_PARAM_REQUIRED | SHARD_PARAM_MIN_EXCLUSIVE,
     .choices = NULL,
     .doc = "yield velocity: the approach speed at which plastic deformation starts (e = 1 below it)"},
    {.key = "e_min",
     .type = SHARD_PARAM_REAL,
     .def = "0",
     .min = 0.0,
     .max = 1.0,
     .unit = "1",
     .flags = 0,
     .choices = NULL,
     .doc = "floor of the restitution coefficient: e = max(e(v), e_min)"},
};

/* e(v) for an approach speed v >= 0 (v > v_y: Thornton's formula) */
static double thornton_e(double v, double v_y) {
  if (!(v > v_y)) return 1.0;
  const double x = v_y / v;
  const double a = sqrt(6.0 * sqrt(3.0) / 5.0) * sqrt(1.0 - x * x / 6.0);
  return a * pow(x / (x + 2.0 * sqrt(6.0 / 5.0 - x * x / 5.0)), 0.25);
}

static int th_create(const shard_params *params, const shard_scales *scales, void **out_self, shard_msg *msg) {
  (void)scales;
  *out_self = NULL;
  const int rc = shard_params_check(params, msg);
  if (rc != SHARD_OK) return rc;
  if (!shard_params_has(params, "v_y"))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "v_y is required (the yield velocity, m/s)");
  thornton_impact *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->v_y = shard_params_real(params, "v_y");
  s->e_min = shard_params_real(params, "e_min");
  *out_self = s;
  return SHARD_OK;
}

static void th_destroy(void *self) { free(self); }

static void th_restitution(const void *self, const shard_impact_kinematics *k, double *out_e) {
  const thornton_impact *s = self;
  for (int32_t i = 0; i < k->n; ++i) {
    const double vn = k->v_n[i];
    const double e = vn < 0.0 ? thornton_e(-vn, s->v_y) : 1.0;
    out_e[i] = e > s->e_min ? e : s->e_min;
  }
}

static const shard_contact_law_ops th_ops = {
    .create = th_create,
    .destroy = th_destroy,
    .restitution = th_restitution,
    .force = NULL,         /* force family only */
    .max_stiffness = NULL, /* force family only */
};

static const shard_plugin th_desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_CONTACT_LAW),
    .name = "thornton_impact",
    .version = "1.0.0",
    .summary = "velocity-dependent Newton impact law: Thornton's elastic-perfectly plastic restitution e(|v_n|)",
    .params = thornton_params,
    .n_params = SHARD_NPARAMS(thornton_params),
    .ops_size = sizeof(shard_contact_law_ops),
    .caps = SHARD_CAP_IMPACT_LAW | SHARD_CAP_VELOCITY_DEPENDENT,
    .ops = &th_ops,
    .doc = "Newton's impact law 0 <= p, H v_{n+1} + e H v_n >= 0 with e a function of the approach speed "
           "v = -v_n (v_n = H v at the start of the step, negative when the gap closes): e = 1 for v <= v_y, "
           "else e = sqrt(6 sqrt(3)/5) sqrt(1 - x^2/6) [x / (x + 2 sqrt(6/5 - x^2/5))]^(1/4) with x = v_y/v, "
           "the restitution of elastic-perfectly plastic spheres of C. Thornton, J. Appl. Mech. 64 (1997) "
           "383-386. Continuous at v_y, decreasing, ~ 1.185 (v_y/v)^(1/4) at high speed; separating contacts "
           "take e = 1; e_min is a floor. Taken by nsn, moreau_jean and cd_lagrange.",
};

SHARD_PLUGIN_SINGLE(th_desc)
