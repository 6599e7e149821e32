/* tests: an INT parameter whose default is not an integer — refused at load. */
#include "broken_common.h"

static const shard_param_spec params[] = {
    {"max_iter", SHARD_PARAM_INT, "2.5", 1, 1000, "1", 0, NULL, "iterations"},
};
static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_int_default"), .params = params,
                                  .n_params = SHARD_NPARAMS(params)};
SHARD_PLUGIN_SINGLE(desc)
