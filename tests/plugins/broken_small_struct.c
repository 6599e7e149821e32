/* tests: descriptor struct_size smaller than shard_plugin — refused. */
#include "broken_common.h"

static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_small_struct"), .struct_size = 16};
SHARD_PLUGIN_SINGLE(desc)
