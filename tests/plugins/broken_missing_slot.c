/* tests: an integrator without `step` — refused, naming the slot. */
#include "broken_common.h"

static const shard_integrator_ops ops = {.create = broken_create, .setup = broken_setup, .start = broken_start,
                                         .destroy = broken_destroy};
static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_missing_slot"), .ops = &ops};
SHARD_PLUGIN_SINGLE(desc)
