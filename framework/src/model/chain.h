/* host: the mass-spring chain (model.type chain): N point masses joined by
 * springs of their own stiffness, between optional rigid walls, behind the
 * model interface (interface.h). */
#ifndef SHARD_MODEL_CHAIN_H
#define SHARD_MODEL_CHAIN_H

#include "model/interface.h"

extern const shard_model_ops shard_chain_model_ops;

/* the keys of its case section */
#define SHARD_CHAIN_N_SPECS 5
extern const shard_param_spec shard_chain_specs[SHARD_CHAIN_N_SPECS];

#endif
