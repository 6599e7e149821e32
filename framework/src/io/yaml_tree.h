/* host: YAML documents as a small tree of nodes that remember where they come
 * from (source, 1-based line and column), built strictly from libyaml's
 * events as the parser reads them:
 *   - parser errors at libyaml's problem mark, invalid UTF-8 at its offset;
 *   - one document per source, not empty;
 *   - duplicate keys (libyaml accepts them), merge keys, non-scalar keys refused;
 *   - aliases expanded into copies, at most YT_MAX_NODES nodes in all and
 *     YT_MAX_DEPTH levels, enforced at the first node past them (a
 *     billion-laughs file, a deep or a huge flat document fail fast and
 *     small), recursive aliases refused.
 * All memory lives in an arena freed at once. */
#ifndef SHARD_YAML_TREE_H
#define SHARD_YAML_TREE_H

#include <stdarg.h>
#include <stddef.h>

#include "core/diag.h"

#define YT_MAX_FILE_SIZE (16u << 20) /* bytes */
#define YT_MAX_NODES 10000
#define YT_MAX_DEPTH 64

typedef struct yt_arena yt_arena;
yt_arena *yt_arena_create(void);
void yt_arena_destroy(yt_arena *a);
void *yt_alloc(yt_arena *a, size_t size); /* zeroed; NULL when out of memory */
char *yt_strndup(yt_arena *a, const char *s, size_t n);

/* Where nodes come from: a file, or a pseudo-source such as a --set argument. */
typedef struct yt_source {
  const char *name; /* shown as the file part of diagnostics */
  const char *text; /* the whole source, for the line under an error */
  size_t len;
  int col_offset;   /* added to the columns of line 1 (a --set value inside its argument) */
} yt_source;

typedef enum yt_kind { YT_SCALAR = 1, YT_MAP, YT_SEQ } yt_kind;

typedef struct yt_node yt_node;
typedef struct yt_pair {
  yt_node *key; /* a scalar */
  yt_node *value;
} yt_pair;

struct yt_node {
  yt_kind kind;
  const yt_source *src;
  int line, col;
  const char *text; /* scalar */
  int quoted;       /* scalar: quoted or block style (not plain) */
  yt_pair *pairs;   /* map */
  yt_node **items;  /* seq */
  size_t n, cap;
  const char *note; /* output only: a comment written after a scalar */
};

/* Read a regular file (stat first: directories, FIFOs, sockets and devices
 * are refused without opening them; at most YT_MAX_FILE_SIZE bytes) and load
 * its single document. `what` names the kind of file in messages ("case
 * file"). SHARD_OK with *out set, or SHARD_ERR_INPUT with errors in d. */
int yt_load_file(yt_arena *a, const char *path, const char *what, yt_node **out, shard_diag *d);
/* Load one document from buf (src gives the name, the displayed text and the
 * column offset). An empty stream gives a null scalar. */
int yt_load_buffer(yt_arena *a, const yt_source *src, const char *buf, size_t len, yt_node **out, shard_diag *d);

yt_node *yt_new_scalar(yt_arena *a, const yt_source *src, int line, int col, const char *text, size_t len, int quoted);
yt_node *yt_new_map(yt_arena *a, const yt_source *src, int line, int col);
/* Replace the value of `key` or append the pair. SHARD_OK or SHARD_ERR_NOMEM. */
int yt_map_put(yt_arena *a, yt_node *map, yt_node *key, yt_node *value);
/* Remove the pair of `key`, keeping the order of the others; 1 if it was there. */
int yt_map_remove(yt_node *map, const char *key);

int yt_is_null(const yt_node *n);       /* plain "", "~", "null", "Null", "NULL" */
int yt_is_explicit_null(const yt_node *n); /* the same but not "": a null written out */
const char *yt_kind_str(const yt_node *n); /* "a mapping", "a sequence", "a scalar", "an empty value" */
yt_pair *yt_map_find(const yt_node *map, const char *key);
/* Walk a dotted path of mapping keys ("model.walls.left.gap"); NULL if absent. */
yt_node *yt_get_path(const yt_node *root, const char *path);

/* An error at (line, col) of a source, with that source line under it. */
void yt_error(shard_diag *d, const yt_source *src, int line, int col, const char *fmt, ...) SHARD_PRINTF_(5, 6);
void yt_verror(shard_diag *d, const yt_source *src, int line, int col, const char *fmt, va_list ap) SHARD_PRINTF_(5, 0);
void yt_error_at(shard_diag *d, const yt_node *n, const char *fmt, ...) SHARD_PRINTF_(3, 4);

#endif
