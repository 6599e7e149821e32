/* tests: a plugin whose entry point never returns. The host must give up on
 * it after its probe timeout, name it, and never load it for a case that does
 * not name it. */
#include <unistd.h>

#include "broken_common.h"

static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_entry_loop")};

SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry(uint32_t index);
SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry(uint32_t index) {
  for (;;) pause(); /* until killed */
  return index == 0 ? &desc : NULL;
}
