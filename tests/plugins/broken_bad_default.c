/* tests: a parameter default outside its own range — refused at load. */
#include "broken_common.h"

static const shard_param_spec params[] = {
    {"theta", SHARD_PARAM_REAL, "1.5", 0.0, 1.0, "1", 0, NULL, "implicitness"},
};
static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_bad_default"), .params = params,
                                  .n_params = SHARD_NPARAMS(params)};
SHARD_PLUGIN_SINGLE(desc)
