/* tests: a plugin that ends the process when it is loaded (exit in a
 * constructor). The host must refuse it by name and go on. */
#include <stdlib.h>

#include "broken_common.h"

__attribute__((constructor)) static void exit_on_load(void) { exit(3); }

static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_entry_exit")};
SHARD_PLUGIN_SINGLE(desc)
