/* host: the models the case format knows (model.type), each behind the model
 * interface (interface.h). */
#ifndef SHARD_MODEL_MODELS_H
#define SHARD_MODEL_MODELS_H

#include "model/interface.h"

/* The model the case selects (model.type): its ops, or NULL (msg says why). */
const shard_model_ops *shard_model_ops_for(const shard_case *c, shard_msg *msg);

#endif
