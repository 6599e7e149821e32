/* tests: built for ABI 2.0 (another major) — refused. */
#include "broken_common.h"

static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_abi_major"), .abi_version = (2u << 16) | 0u};
SHARD_PLUGIN_SINGLE(desc)
