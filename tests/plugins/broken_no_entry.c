/* tests: a shared object that exports a function, but not shard_plugin_entry. */
#include <stdint.h>

#include "shard/plugin.h"

SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry_v0(uint32_t index);
SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry_v0(uint32_t index) { return 0; }
