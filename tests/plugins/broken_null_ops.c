/* tests: no ops table at all — refused. */
#include "broken_common.h"

static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_null_ops"), .ops = NULL};
SHARD_PLUGIN_SINGLE(desc)
