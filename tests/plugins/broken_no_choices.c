/* tests: a CHOICE parameter without a choices list — refused at load. */
#include "broken_common.h"

static const shard_param_spec params[] = {
    {"policy", SHARD_PARAM_CHOICE, "stop", 0, 0, "", 0, NULL, "what to do on failure"},
};
static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_no_choices"), .params = params,
                                  .n_params = SHARD_NPARAMS(params)};
SHARD_PLUGIN_SINGLE(desc)
