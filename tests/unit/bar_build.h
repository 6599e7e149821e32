/* tests: build the bar plugin's engine (plugins/models/bar/model.h) from a
 * loaded case, as the run does through the model ABI: the model and
 * fracture sections resolved (shard_case_model_params), then
 * shard_model_create. For the suites that test the plugin's parts. */
#ifndef SHARD_TEST_BAR_BUILD_H
#define SHARD_TEST_BAR_BUILD_H

#include "case/case.h"
#include "model.h"

static inline int shard_model_build(const shard_case *c, const shard_scope *scope, shard_model **out,
                                    shard_diag *diag, shard_msg *msg) {
  *out = NULL;
  const char *type = shard_case_string(c, "model.type");
  shard_params p, fr;
  const shard_params *frac;
  if (shard_case_model_params(c, scope, &p, &fr, &frac, diag) != SHARD_OK)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid %s model", type ? type : "(no type)");
  const shard_model_args a = {type, &p, frac, shard_case_path(c)};
  return shard_model_create(&a, out, msg);
}

#endif
