/* tests: built for ABI 1.1 (the previous major) — refused, named. */
#include "broken_common.h"

static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_abi_major"), .abi_version = (1u << 16) | 1u};
SHARD_PLUGIN_SINGLE(desc)
