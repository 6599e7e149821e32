/* shard — the public API of the host library libshard.
 *
 * libshard is built with hidden visibility: only the declarations marked
 * SHARD_API below are exported. Plugins need none of them (the plugin ABI
 * headers are self-contained); a program that links libshard (pkg-config
 * shard, or the CMake target shard::shard) can ask which library it got.
 * Everything else in the host (framework/src) is internal and may change
 * between releases. */
#ifndef SHARD_API_H
#define SHARD_API_H

#if defined(__GNUC__) || defined(__clang__)
#define SHARD_API __attribute__((visibility("default")))
#else
#define SHARD_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library, "MAJOR.MINOR.PATCH" (the project version). */
SHARD_API const char *shard_library_version(void);

/* The commit the library was built from: 12 hex digits, with "-dirty" when
 * the tree had local changes, or "unknown" outside a git checkout. */
SHARD_API const char *shard_library_commit(void);

/* The plugin ABI the library loads, SHARD_ABI_MAJOR and SHARD_ABI_MINOR of
 * shard/plugin.h at the library's build (compare with the header's). */
SHARD_API unsigned shard_library_abi_major(void);
SHARD_API unsigned shard_library_abi_minor(void);

#ifdef __cplusplus
}
#endif

#endif
