/* tests: the entry symbol exists but returns no descriptor at all. */
#include "shard/plugin.h"

SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry(uint32_t index);
SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry(uint32_t index) { return 0; }
