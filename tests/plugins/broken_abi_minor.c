/* tests: built for ABI 2.3 (a newer minor than the host's) — refused. */
#include "broken_common.h"

static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_abi_minor"),
                                  .abi_version = (SHARD_ABI_MAJOR << 16) | 3u};
SHARD_PLUGIN_SINGLE(desc)
