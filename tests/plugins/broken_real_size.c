/* tests: claims shard_real is a float (4 bytes) — refused. */
#include "broken_common.h"

static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_real_size"), .real_size = 4};
SHARD_PLUGIN_SINGLE(desc)
