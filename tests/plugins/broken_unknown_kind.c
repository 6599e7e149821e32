/* tests: kind 7 does not exist — refused. */
#include "broken_common.h"

static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_unknown_kind"), .kind = 7};
SHARD_PLUGIN_SINGLE(desc)
