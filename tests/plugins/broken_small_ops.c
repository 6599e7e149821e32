/* tests: ops_size covers only create and n_aux, not the required slots — refused. */
#include "broken_common.h"

static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_small_ops"), .ops_size = 2 * sizeof(void (*)(void))};
SHARD_PLUGIN_SINGLE(desc)
