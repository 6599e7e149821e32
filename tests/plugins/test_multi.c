/* tests: one shared object holding two plugins (index 0 and 1). */
#include "broken_common.h"

static const shard_plugin desc_a = {BROKEN_DESCRIPTOR("test_multi_a"), .summary = "first of two"};
static const shard_plugin desc_b = {BROKEN_DESCRIPTOR("test_multi_b"), .summary = "second of two",
                                    .caps = SHARD_CAP_IMPACT_LAW | SHARD_CAP_NEEDS_LCP};

SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry(uint32_t index);
SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry(uint32_t index) {
  switch (index) {
  case 0:
    return &desc_a;
  case 1:
    return &desc_b;
  default:
    return 0;
  }
}
