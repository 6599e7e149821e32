/* tests: a plugin that crashes (SIGSEGV) as soon as it is loaded, in a
 * constructor, before its entry point is ever called. The host must refuse
 * it by name without crashing, and never load it for a case that does not
 * name it. */
#include <signal.h>

#include "broken_common.h"

__attribute__((constructor)) static void crash_on_load(void) { raise(SIGSEGV); }

static const shard_plugin desc = {BROKEN_DESCRIPTOR("broken_entry_crash")};
SHARD_PLUGIN_SINGLE(desc)
