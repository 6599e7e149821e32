/* tests: an integrator declaring both contact-law families — refused. */
#include "broken_common.h"

static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_two_families"),
                                  .caps = SHARD_CAP_FORCE_LAW | SHARD_CAP_IMPACT_LAW};
SHARD_PLUGIN_SINGLE(desc)
