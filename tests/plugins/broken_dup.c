/* tests: built twice (broken_dup_a.so, broken_dup_b.so) into one directory:
 * both provide the plugin "test_dup" — the second is a duplicate. */
#include "broken_common.h"

static const shard_plugin desc = {BROKEN_DESCRIPTOR("test_dup")};
SHARD_PLUGIN_SINGLE(desc)
