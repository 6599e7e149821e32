/* tests: claims SHARD_CAP_TOPOLOGY but has no on_insert — refused. */
#include "broken_common.h"

static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_topology_slot"),
                                  .caps = SHARD_CAP_FORCE_LAW | SHARD_CAP_TOPOLOGY};
SHARD_PLUGIN_SINGLE(desc)
