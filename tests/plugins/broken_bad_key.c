/* tests: a parameter key that is not lower_snake — refused at load. */
#include "broken_common.h"

static const shard_param_spec params[] = {
    {"maxIter", SHARD_PARAM_INT, "10", 1, 1000, "1", 0, NULL, "iterations"},
};
static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_bad_key"), .params = params,
                                  .n_params = SHARD_NPARAMS(params)};
SHARD_PLUGIN_SINGLE(desc)
