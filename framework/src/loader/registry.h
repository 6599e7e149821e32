/* host: plugin discovery, loading and lookup (docs/plugins.md §6). */
#ifndef SHARD_REGISTRY_H
#define SHARD_REGISTRY_H

#include <stddef.h>

#include "shard/plugin.h"

typedef struct shard_registry shard_registry;

typedef struct shard_loaded_plugin {
  const shard_plugin *desc;
  const char *path;   /* file it came from (builtin: "<builtin>") */
  char sha256[65];    /* hex digest of the file, for provenance ("" for builtins) */
} shard_loaded_plugin;

int shard_registry_create(shard_registry **out, shard_msg *msg);
void shard_registry_destroy(shard_registry *reg);

/* Load every plugin of one shared object. Refuses, with a message naming the
 * file and the cause: a file or directory writable by others than its owner,
 * dlopen failure (dlerror), no entry symbol, ABI major/minor mismatch (both
 * versions), real-size mismatch, missing required ops slot, duplicate name
 * (both paths). */
int shard_registry_load_file(shard_registry *reg, const char *path, shard_msg *msg);
/* Load every *.so of a directory (sorted by name). Stops at the first error. */
int shard_registry_load_dir(shard_registry *reg, const char *dir, shard_msg *msg);
/* List the *.so of the search path, without opening any: cli_path (colon
 * list, may be NULL), $SHARD_PLUGIN_PATH, <dir of exe>/../lib/shard/plugins,
 * the installed default. A directory that does not exist is skipped.
 *
 * shard_registry_find then opens what it needs: the first NAME.so on the
 * path for plugin NAME; every listed file when no NAME.so provides NAME.
 * Each file is probed in a child process before it is loaded (a crash or a
 * hang in its constructor or entry refuses that file only, with a message
 * naming it). A refused file is remembered (shard_registry_why,
 * shard_registry_problem). The first directory providing a name wins within
 * the default locations, but two files with one name in explicitly given
 * paths are a duplicate error. */
int shard_registry_discover(shard_registry *reg, const char *cli_path, shard_msg *msg);
/* Open every listed file (what `shard plugins` shows). Files that fail are
 * refused one by one; SHARD_OK when none failed, else SHARD_ERR_PLUGIN with
 * the first problem in msg (all of them: shard_registry_problem). */
int shard_registry_load_all(shard_registry *reg, shard_msg *msg);
size_t shard_registry_problem_count(const shard_registry *reg);
/* The k-th refused file's message ("FILE: why"), in search order. */
const char *shard_registry_problem(const shard_registry *reg, size_t k);
/* Why NAME.so on the path was refused, or NULL (none, or it loaded). */
const char *shard_registry_why(const shard_registry *reg, const char *name);
/* The status of that refusal (SHARD_ERR_NOMEM when it ran out of memory,
 * SHARD_ERR_PLUGIN or another error for the file), SHARD_OK if none. */
int shard_registry_why_status(const shard_registry *reg, const char *name);
/* The directories discovery searched, ", "-separated, for messages. */
void shard_registry_search_path(const shard_registry *reg, char *buf, size_t size);
/* Register a descriptor compiled into the host or a test (path "<builtin>"). */
int shard_registry_add(shard_registry *reg, const shard_plugin *desc, const char *path, shard_msg *msg);

/* Every plugin file of the search path loaded (what `shard plugins` lists),
 * like a lookup fills its cache: behind a const registry. */
void shard_registry_load_every(const shard_registry *reg);
size_t shard_registry_count(const shard_registry *reg);
const shard_loaded_plugin *shard_registry_at(const shard_registry *reg, size_t i);
/* kind 0 matches any kind. May load files of the search path (see
 * shard_registry_discover): the registry is a cache behind a const pointer. */
const shard_loaded_plugin *shard_registry_find(const shard_registry *reg, int kind, const char *name);
const char *shard_plugin_kind_str(int kind);

#endif
