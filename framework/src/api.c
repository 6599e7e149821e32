/* The exported public API of libshard (shard/api.h). */
#include "shard/api.h"

#include "shard/plugin.h"

extern const char shard_git_commit[];

const char *shard_library_version(void) { return SHARD_VERSION; }
const char *shard_library_commit(void) { return shard_git_commit; }
unsigned shard_library_abi_major(void) { return SHARD_ABI_MAJOR; }
unsigned shard_library_abi_minor(void) { return SHARD_ABI_MINOR; }
