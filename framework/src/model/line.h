/* host: the built-in line models, `particle` and `bar` (docs/theory.md §9),
 * behind the model interface (interface.h). */
#ifndef SHARD_MODEL_LINE_H
#define SHARD_MODEL_LINE_H

#include "model/interface.h"

extern const shard_model_ops shard_line_model_ops;

#endif
