/* model plugin `bar`: the line models `particle` and `bar` (docs/theory.md
 * §9) behind the model ABI (shard/model.h). */
#ifndef SHARD_MODEL_LINE_H
#define SHARD_MODEL_LINE_H

#include "shard/model.h"

extern const shard_model_ops shard_line_model_ops;

/* the keys of their case sections (model.type particle / bar) */
#define SHARD_PARTICLE_N_SPECS 5
#define SHARD_BAR_N_SPECS 19
extern const shard_param_spec shard_particle_specs[SHARD_PARTICLE_N_SPECS];
extern const shard_param_spec shard_bar_specs[SHARD_BAR_N_SPECS];

#endif
