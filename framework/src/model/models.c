/* host: the models the case format knows, by model.type (see models.h). */
#include "model/models.h"

#include <string.h>

#include "model/line.h"

const shard_model_ops *shard_model_ops_for(const shard_case *c, shard_msg *msg) {
  static const struct {
    const char *type;
    const shard_model_ops *ops;
  } models[] = {{"particle", &shard_line_model_ops}, {"bar", &shard_line_model_ops}};
  const char *type = shard_case_string(c, "model.type");
  for (size_t i = 0; type && i < sizeof models / sizeof models[0]; ++i)
    if (strcmp(type, models[i].type) == 0) return models[i].ops;
  shard_msg_set(msg, SHARD_ERR_INPUT, "unknown model type '%s'", type ? type : "(none)");
  return NULL;
}
