/* tests: a name outside [a-z][a-z0-9_]* — refused. */
#include "broken_common.h"

static const shard_plugin desc = {BROKEN_DESCRIPTOR("Bad-Name")};
SHARD_PLUGIN_SINGLE(desc)
