/* newton_impact — Newton's impact law at velocity level (docs/theory.md §9): on an
 * active constraint, 0 ≤ p ⊥ H v_{n+1} + e H v_n ≥ 0 with one restitution
 * coefficient e ∈ [0, 1] for every constraint of the model. The impact
 * family: used by nsn, moreau_jean and cd_lagrange. */
#include <math.h>
#include <stdlib.h>

#include "shard/contact_law.h"

typedef struct newton_impact {
  double e;
} newton_impact;

static const shard_param_spec newton_impact_params[] = {
    {.key = "restitution",
     .type = SHARD_PARAM_REAL,
     .def = NULL,
     .min = 0.0,
     .max = 1.0,
     .unit = "1",
     .flags = SHARD_PARAM_REQUIRED,
     .choices = NULL,
     .doc = "Newton restitution coefficient e: 0 plastic impact, 1 elastic impact"},
};

static int ni_create(const shard_params *params, const shard_scales *scales, void **out_self, shard_msg *msg) {
  (void)scales;
  *out_self = NULL;
  if (!shard_params_has(params, "restitution"))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "restitution is required (a number in [0, 1])");
  const double e = shard_params_real(params, "restitution");
  if (!(e >= 0.0 && e <= 1.0))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "restitution = %g is outside [0, 1]", e);
  newton_impact *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->e = e;
  *out_self = s;
  return SHARD_OK;
}

static void ni_destroy(void *self) { free(self); }

static void ni_restitution(const void *self, const shard_impact_kinematics *k, double *out_e) {
  const newton_impact *s = self;
  for (int32_t i = 0; i < k->n; ++i) out_e[i] = s->e;
}

static const shard_contact_law_ops ni_ops = {
    .create = ni_create,
    .destroy = ni_destroy,
    .restitution = ni_restitution,
    .force = NULL,         /* force family only */
    .max_stiffness = NULL, /* force family only */
};

static const shard_plugin ni_desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_CONTACT_LAW),
    .name = "newton_impact",
    .version = "1.0.0",
    .summary = "Newton impact law at velocity level with one restitution coefficient",
    .params = newton_impact_params,
    .n_params = SHARD_NPARAMS(newton_impact_params),
    .ops_size = sizeof(shard_contact_law_ops),
    .caps = SHARD_CAP_IMPACT_LAW,
    .ops = &ni_ops,
    .doc = "Impact family: on each active constraint the post-step normal velocity must satisfy "
           "0 <= p, H v_{n+1} + e H v_n >= 0, p (H v_{n+1} + e H v_n) = 0. e = 0 is a plastic impact, e = 1 an "
           "elastic one. Taken by nsn, moreau_jean and cd_lagrange.",
};

SHARD_PLUGIN_SINGLE(ni_desc)
