/* tests: "test_impact_law" — one constant restitution coefficient. */
#include <stdlib.h>

#include "shard/contact_law.h"

typedef struct til_self {
  double e;
} til_self;

static const shard_param_spec params[] = {
    {"e", SHARD_PARAM_REAL, "0.5", 0.0, 1.0, "1", 0, NULL, "restitution coefficient"},
};

static int til_create(const shard_params *p, const shard_scales *scales, void **out_self, shard_msg *msg) {
  til_self *s = malloc(sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "test_impact_law: out of memory");
  s->e = shard_params_real(p, "e");
  *out_self = s;
  return SHARD_OK;
}

static void til_destroy(void *self) { free(self); }

static void til_restitution(const void *self, const shard_impact_kinematics *k, double *out_e) {
  const til_self *s = self;
  for (int32_t i = 0; i < k->n; ++i) out_e[i] = s->e;
}

static const shard_contact_law_ops ops = {.create = til_create, .destroy = til_destroy, .restitution = til_restitution};

static const shard_plugin desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_CONTACT_LAW),
    .name = "test_impact_law",
    .version = "0.1.0",
    .summary = "constant restitution (test plugin)",
    .params = params,
    .n_params = SHARD_NPARAMS(params),
    .ops_size = sizeof ops,
    .caps = SHARD_CAP_IMPACT_LAW,
    .ops = &ops,
};
SHARD_PLUGIN_SINGLE(desc)
