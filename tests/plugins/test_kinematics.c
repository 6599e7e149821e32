/* tests: two impact laws that append what they are given to the file named
 * by the environment variable SHARD_TEST_KIN_LOG, one line per restitution
 * call: "NAME n v_n[0] gap[0]" (tests/unit/test_impact_kinematics.c).
 * "kin_constant" has no SHARD_CAP_VELOCITY_DEPENDENT (the host must call it
 * once), "kin_recorder" has it (before every step). Both answer e. */
#include <stdio.h>
#include <stdlib.h>

#include "shard/contact_law.h"

typedef struct kin_self {
  const char *name;
  double e;
} kin_self;

static const shard_param_spec params[] = {
    {"e", SHARD_PARAM_REAL, "0.5", 0.0, 1.0, "1", 0, NULL, "restitution coefficient"},
};

static int kin_new(const char *name, const shard_params *p, void **out_self, shard_msg *msg) {
  kin_self *s = malloc(sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "%s: out of memory", name);
  s->name = name;
  s->e = shard_params_real(p, "e");
  *out_self = s;
  return SHARD_OK;
}
static int kc_create(const shard_params *p, const shard_scales *sc, void **out_self, shard_msg *msg) {
  return kin_new("kin_constant", p, out_self, msg);
}
static int kr_create(const shard_params *p, const shard_scales *sc, void **out_self, shard_msg *msg) {
  return kin_new("kin_recorder", p, out_self, msg);
}
static void kin_destroy(void *self) { free(self); }

static void kin_restitution(const void *self, const shard_impact_kinematics *k, double *out_e) {
  const kin_self *s = self;
  const char *path = getenv("SHARD_TEST_KIN_LOG");
  FILE *f = path ? fopen(path, "a") : NULL;
  if (f) {
    fprintf(f, "%s %d %.17g %.17g %u\n", s->name, (int)k->n, k->n > 0 ? k->v_n[0] : 0.0, k->n > 0 ? k->gap[0] : 0.0,
            k->struct_size);
    fclose(f);
  }
  for (int32_t i = 0; i < k->n; ++i) out_e[i] = s->e;
}

static const shard_contact_law_ops kc_ops = {.create = kc_create, .destroy = kin_destroy,
                                             .restitution = kin_restitution};
static const shard_contact_law_ops kr_ops = {.create = kr_create, .destroy = kin_destroy,
                                             .restitution = kin_restitution};

static const shard_plugin descs[] = {
    {SHARD_PLUGIN_HEADER(SHARD_KIND_CONTACT_LAW), .name = "kin_constant", .version = "0.1.0",
     .summary = "constant restitution that logs its calls (test plugin)", .params = params,
     .n_params = SHARD_NPARAMS(params), .ops_size = sizeof kc_ops, .caps = SHARD_CAP_IMPACT_LAW, .ops = &kc_ops},
    {SHARD_PLUGIN_HEADER(SHARD_KIND_CONTACT_LAW), .name = "kin_recorder", .version = "0.1.0",
     .summary = "velocity-dependent restitution that logs its kinematics (test plugin)", .params = params,
     .n_params = SHARD_NPARAMS(params), .ops_size = sizeof kr_ops,
     .caps = SHARD_CAP_IMPACT_LAW | SHARD_CAP_VELOCITY_DEPENDENT, .ops = &kr_ops},
};

SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry(uint32_t index) {
  return index < sizeof descs / sizeof descs[0] ? &descs[index] : NULL;
}
