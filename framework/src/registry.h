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
 * file and the cause: dlopen failure (dlerror), no entry symbol, ABI
 * major/minor mismatch (both versions), real-size mismatch, missing required
 * ops slot, duplicate name (both paths). */
int shard_registry_load_file(shard_registry *reg, const char *path, shard_msg *msg);
/* Load every *.so of a directory (sorted by name). Stops at the first error. */
int shard_registry_load_dir(shard_registry *reg, const char *dir, shard_msg *msg);
/* Discovery order: cli_path (colon list, may be NULL), $SHARD_PLUGIN_PATH,
 * <dir of exe>/../lib/shard/plugins, the installed default. A directory
 * that does not exist is skipped; the first directory providing a name wins
 * within the default locations, but two files with one name in explicitly
 * given paths are a duplicate error. */
int shard_registry_discover(shard_registry *reg, const char *cli_path, shard_msg *msg);
/* Register a descriptor compiled into the host or a test (path "<builtin>"). */
int shard_registry_add(shard_registry *reg, const shard_plugin *desc, const char *path, shard_msg *msg);

size_t shard_registry_count(const shard_registry *reg);
const shard_loaded_plugin *shard_registry_at(const shard_registry *reg, size_t i);
/* kind 0 matches any kind */
const shard_loaded_plugin *shard_registry_find(const shard_registry *reg, int kind, const char *name);
const char *shard_plugin_kind_str(int kind);

#endif
