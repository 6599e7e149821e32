/* host: strict YAML loading into a located tree (see yaml_tree.h). */
#include "yaml_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* ---- arena ---------------------------------------------------------------- */

typedef struct arena_block {
  struct arena_block *next;
  size_t used, size;
  max_align_t data[];
} arena_block;

struct yt_arena {
  arena_block *head;
};

#define ARENA_BLOCK (64u << 10)

yt_arena *yt_arena_create(void) { return calloc(1, sizeof(yt_arena)); }

void yt_arena_destroy(yt_arena *a) {
  if (!a) return;
  for (arena_block *b = a->head, *next; b; b = next) {
    next = b->next;
    free(b);
  }
  free(a);
}

void *yt_alloc(yt_arena *a, size_t size) {
  size_t align = sizeof(max_align_t);
  size = (size + align - 1) / align * align;
  arena_block *b = a->head;
  if (!b || b->size - b->used < size) {
    size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
    b = malloc(sizeof *b + cap);
    if (!b) return NULL;
    b->next = a->head;
    b->used = 0;
    b->size = cap;
    a->head = b;
  }
  void *p = (char *)b->data + b->used;
  b->used += size;
  memset(p, 0, size);
  return p;
}

char *yt_strndup(yt_arena *a, const char *s, size_t n) {
  char *r = yt_alloc(a, n + 1);
  if (r) memcpy(r, s, n);
  return r;
}

/* ---- diagnostics ------------------------------------------------------------ */

/* Keep in step with the number of errors a shard_diag keeps: past it, the
 * source line is not looked up (a huge file with many errors stays fast). */
#define LINE_LOOKUP_MAX 256

static void source_line(const yt_source *src, int line, char *buf, size_t n) {
  buf[0] = 0;
  if (!src || !src->text || line < 1) return;
  const char *p = src->text, *end = src->text + src->len;
  for (int l = 1; l < line && p < end; ++p)
    if (*p == '\n') ++l;
  size_t k = 0;
  for (; p < end && *p != '\n' && *p != '\r' && k + 1 < n; ++p) buf[k++] = *p ? *p : '?';
  buf[k] = 0;
}

void yt_verror(shard_diag *d, const yt_source *src, int line, int col, const char *fmt, va_list ap) {
  char text[256] = "";
  if (shard_diag_count(d) < LINE_LOOKUP_MAX) source_line(src, line, text, sizeof text);
  shard_diag_verror(d, src ? src->name : "?", line, col, text, fmt, ap);
}

void yt_error(shard_diag *d, const yt_source *src, int line, int col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  yt_verror(d, src, line, col, fmt, ap);
  va_end(ap);
}

void yt_error_at(shard_diag *d, const yt_node *n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  yt_verror(d, n->src, n->line, n->col, fmt, ap);
  va_end(ap);
}

/* ---- nodes ------------------------------------------------------------------- */

static yt_node *new_node(yt_arena *a, yt_kind kind, const yt_source *src, int line, int col) {
  yt_node *n = yt_alloc(a, sizeof *n);
  if (!n) return NULL;
  n->kind = kind;
  n->src = src;
  n->line = line;
  n->col = col;
  return n;
}

yt_node *yt_new_scalar(yt_arena *a, const yt_source *src, int line, int col, const char *text, size_t len,
                       int quoted) {
  yt_node *n = new_node(a, YT_SCALAR, src, line, col);
  if (!n || !(n->text = yt_strndup(a, text, len))) return NULL;
  n->quoted = quoted;
  return n;
}

yt_node *yt_new_map(yt_arena *a, const yt_source *src, int line, int col) {
  return new_node(a, YT_MAP, src, line, col);
}

static int grow(yt_arena *a, void **items, size_t elem, size_t n, size_t *cap) {
  if (n < *cap) return SHARD_OK;
  size_t ncap = *cap ? 2 * *cap : 8;
  void *p = yt_alloc(a, ncap * elem);
  if (!p) return SHARD_ERR_NOMEM;
  if (n) memcpy(p, *items, n * elem);
  *items = p;
  *cap = ncap;
  return SHARD_OK;
}

yt_pair *yt_map_find(const yt_node *map, const char *key) {
  if (!map || map->kind != YT_MAP) return NULL;
  for (size_t i = 0; i < map->n; ++i)
    if (strcmp(map->pairs[i].key->text, key) == 0) return &map->pairs[i];
  return NULL;
}

static int map_append(yt_arena *a, yt_node *map, yt_node *key, yt_node *value) {
  void *p = map->pairs;
  if (grow(a, &p, sizeof(yt_pair), map->n, &map->cap) != SHARD_OK) return SHARD_ERR_NOMEM;
  map->pairs = p;
  map->pairs[map->n++] = (yt_pair){key, value};
  return SHARD_OK;
}

int yt_map_put(yt_arena *a, yt_node *map, yt_node *key, yt_node *value) {
  yt_pair *p = yt_map_find(map, key->text);
  if (!p) return map_append(a, map, key, value);
  p->value = value;
  return SHARD_OK;
}

int yt_map_remove(yt_node *map, const char *key) {
  yt_pair *p = yt_map_find(map, key);
  if (!p) return 0;
  size_t i = (size_t)(p - map->pairs);
  memmove(p, p + 1, (map->n - i - 1) * sizeof *p);
  --map->n;
  return 1;
}

int yt_is_null(const yt_node *n) {
  static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
  if (!n || n->kind != YT_SCALAR || n->quoted) return 0;
  for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; ++i)
    if (strcmp(n->text, nulls[i]) == 0) return 1;
  return 0;
}

int yt_is_explicit_null(const yt_node *n) { return yt_is_null(n) && n->text[0] != '\0'; }

const char *yt_kind_str(const yt_node *n) {
  if (!n || yt_is_null(n)) return "an empty value";
  return n->kind == YT_MAP ? "a mapping" : n->kind == YT_SEQ ? "a sequence" : "a scalar";
}

yt_node *yt_get_path(const yt_node *root, const char *path) {
  const yt_node *n = root;
  while (n && *path) {
    size_t len = strcspn(path, ".");
    char key[256];
    if (len >= sizeof key || n->kind != YT_MAP) return NULL;
    memcpy(key, path, len);
    key[len] = 0;
    yt_pair *p = yt_map_find(n, key);
    n = p ? p->value : NULL;
    path += len + (path[len] == '.');
  }
  return (yt_node *)n;
}

/* ---- conversion from a libyaml document -------------------------------------- */

typedef struct loader {
  yt_arena *arena;
  const yt_source *src;
  yaml_document_t *doc;
  shard_diag *diag;
  unsigned char *state; /* per libyaml node: bit 0 visited once, bit 1 on the current path */
  size_t count;         /* nodes created */
  int aliased;          /* some node was expanded twice */
  int failed;           /* a fatal error was reported: stop */
  const yt_node *top_key; /* the top-level key being expanded, for the alias message */
} loader;

/* A --set value (col_offset > 0) is one line: libyaml's end-of-stream mark on
 * the line after it is shown at the end of the argument instead. */
static int mark_line(const loader *L, yaml_mark_t m) { return L->src->col_offset > 0 ? 1 : (int)m.line + 1; }
static int mark_col(const loader *L, yaml_mark_t m) {
  if (L->src->col_offset > 0 && m.line > 0) return (int)L->src->len + 1;
  return (int)m.column + 1 + (m.line == 0 ? L->src->col_offset : 0);
}

static void load_error(loader *L, yaml_mark_t m, const char *fmt, ...) SHARD_PRINTF_(3, 4);
static void load_error(loader *L, yaml_mark_t m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  yt_verror(L->diag, L->src, mark_line(L, m), mark_col(L, m), fmt, ap);
  va_end(ap);
}

static yt_node *convert(loader *L, int index, int depth);

static int check_key(loader *L, const yaml_node_t *k, const yt_node *map, const yt_node *key) {
  if (k->type != YAML_SCALAR_NODE) {
    load_error(L, k->start_mark, "mapping keys must be scalars, not %s", yt_kind_str(key));
    return 0;
  }
  if (!key->quoted && strcmp(key->text, "<<") == 0) {
    load_error(L, k->start_mark, "merge keys ('<<') are not supported; write the keys out");
    return 0;
  }
  if (yt_is_null(key)) {
    load_error(L, k->start_mark, "empty mapping key");
    return 0;
  }
  const yt_pair *first = yt_map_find(map, key->text);
  if (first) {
    load_error(L, k->start_mark, "duplicate key '%s' (first defined at line %d)", key->text, first->key->line);
    return 0;
  }
  return 1;
}

static int convert_map(loader *L, const yaml_node_t *yn, yt_node *map, int depth) {
  for (yaml_node_pair_t *p = yn->data.mapping.pairs.start; p < yn->data.mapping.pairs.top; ++p) {
    yt_node *key = convert(L, p->key, depth + 1);
    if (L->failed) return SHARD_ERR_INPUT;
    if (!check_key(L, yaml_document_get_node(L->doc, p->key), map, key)) continue;
    if (depth == 0) L->top_key = key;
    yt_node *value = convert(L, p->value, depth + 1);
    if (L->failed) return SHARD_ERR_INPUT;
    if (map_append(L->arena, map, key, value) != SHARD_OK) return SHARD_ERR_NOMEM;
  }
  return SHARD_OK;
}

static int convert_seq(loader *L, const yaml_node_t *yn, yt_node *seq, int depth) {
  for (yaml_node_item_t *it = yn->data.sequence.items.start; it < yn->data.sequence.items.top; ++it) {
    yt_node *item = convert(L, *it, depth + 1);
    if (L->failed) return SHARD_ERR_INPUT;
    void *p = seq->items;
    if (grow(L->arena, &p, sizeof(yt_node *), seq->n, &seq->cap) != SHARD_OK) return SHARD_ERR_NOMEM;
    seq->items = p;
    seq->items[seq->n++] = item;
  }
  return SHARD_OK;
}

/* Refuses what would make the expansion blow up or loop. */
static int expansion_ok(loader *L, const yaml_node_t *yn, int index, int depth) {
  unsigned char *st = &L->state[index - 1];
  if (*st & 2) {
    load_error(L, yn->start_mark, "recursive alias (a node that contains itself)");
    return 0;
  }
  if (*st & 1) L->aliased = 1;
  if (++L->count > YT_MAX_NODES) {
    if (L->aliased && L->top_key)
      yt_error_at(L->diag, L->top_key, "alias expansion of '%s' too large (more than %d nodes in the document)",
                  L->top_key->text, YT_MAX_NODES);
    else if (L->aliased)
      load_error(L, yn->start_mark, "alias expansion too large (more than %d nodes in the document)", YT_MAX_NODES);
    else
      load_error(L, yn->start_mark, "document too large (more than %d nodes)", YT_MAX_NODES);
    return 0;
  }
  if (depth > YT_MAX_DEPTH) {
    load_error(L, yn->start_mark, "nesting too deep (more than %d levels)", YT_MAX_DEPTH);
    return 0;
  }
  return 1;
}

static yt_node *convert(loader *L, int index, int depth) {
  yaml_node_t *yn = yaml_document_get_node(L->doc, index);
  if (!yn || !expansion_ok(L, yn, index, depth)) {
    L->failed = 1;
    return NULL;
  }
  unsigned char *st = &L->state[index - 1];
  int line = mark_line(L, yn->start_mark), col = mark_col(L, yn->start_mark);
  yt_node *n = NULL;
  int rc = SHARD_OK;
  *st |= 3;
  switch (yn->type) {
  case YAML_SCALAR_NODE:
    n = yt_new_scalar(L->arena, L->src, line, col, (const char *)yn->data.scalar.value, yn->data.scalar.length,
                      yn->data.scalar.style != YAML_PLAIN_SCALAR_STYLE);
    break;
  case YAML_MAPPING_NODE:
    if ((n = new_node(L->arena, YT_MAP, L->src, line, col))) rc = convert_map(L, yn, n, depth);
    break;
  default:
    if ((n = new_node(L->arena, YT_SEQ, L->src, line, col))) rc = convert_seq(L, yn, n, depth);
    break;
  }
  *st &= (unsigned char)~2u;
  if (!n || rc == SHARD_ERR_NOMEM) {
    if (!L->failed) load_error(L, yn->start_mark, "out of memory");
    L->failed = 1;
    return NULL;
  }
  return n;
}

/* ---- libyaml errors ---------------------------------------------------------- */

/* 1-based line and column (in characters) of a byte offset. */
static void offset_position(const char *buf, size_t len, size_t offset, int *line, int *col) {
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < offset && i < len; ++i) {
    if (buf[i] == '\n') {
      ++*line;
      *col = 1;
    } else if (((unsigned char)buf[i] & 0xC0) != 0x80) {
      ++*col;
    }
  }
}

static void parser_error(const yt_source *src, const yaml_parser_t *p, const char *buf, size_t len, shard_diag *d) {
  const char *problem = p->problem ? p->problem : "unknown error";
  if (p->error == YAML_READER_ERROR) {
    int line, col;
    offset_position(buf, len, p->problem_offset, &line, &col);
    if (line == 1) col += src->col_offset;
    if (p->problem_value >= 0)
      yt_error(d, src, line, col, "invalid input: %s (byte 0x%02x)", problem, (unsigned)p->problem_value);
    else
      yt_error(d, src, line, col, "invalid input: %s", problem);
    return;
  }
  if (p->error == YAML_MEMORY_ERROR) {
    yt_error(d, src, 0, 0, "out of memory while parsing");
    return;
  }
  loader L = {.src = src};
  int line = mark_line(&L, p->problem_mark), col = mark_col(&L, p->problem_mark);
  size_t off = p->problem_mark.index;
  int tab = off < len && buf[off] == '\t' && !strstr(problem, "tab");
  const char *hint = tab ? " (tabs are not allowed in YAML indentation; use spaces)" : "";
  if (p->context)
    yt_error(d, src, line, col, "syntax error: %s %s (line %d)%s", problem, p->context,
             mark_line(&L, p->context_mark), hint);
  else
    yt_error(d, src, line, col, "syntax error: %s%s", problem, hint);
}

/* ---- loading ------------------------------------------------------------------- */

static int load_document(yt_arena *a, const yt_source *src, yaml_document_t *doc, yt_node **out, shard_diag *d) {
  yaml_node_t *root = yaml_document_get_root_node(doc);
  size_t n_nodes = (size_t)(doc->nodes.top - doc->nodes.start);
  loader L = {a, src, doc, d, calloc(n_nodes + 1, 1), 0, 0, 0, NULL};
  if (!L.state) {
    yt_error(d, src, 0, 0, "out of memory");
    return SHARD_ERR_NOMEM;
  }
  int before = shard_diag_count(d);
  *out = root ? convert(&L, 1, 0) : NULL;
  free(L.state);
  /* key errors do not stop the conversion (all are reported) but fail the load */
  return L.failed || shard_diag_count(d) > before ? SHARD_ERR_INPUT : SHARD_OK;
}

int yt_load_buffer(yt_arena *a, const yt_source *src, const char *buf, size_t len, yt_node **out, shard_diag *d) {
  yaml_parser_t parser;
  yaml_document_t doc, extra;
  *out = NULL;
  if (!yaml_parser_initialize(&parser)) {
    yt_error(d, src, 0, 0, "out of memory");
    return SHARD_ERR_NOMEM;
  }
  yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
  int rc = SHARD_ERR_INPUT;
  if (!yaml_parser_load(&parser, &doc)) {
    parser_error(src, &parser, buf, len, d);
    yaml_parser_delete(&parser);
    return rc;
  }
  rc = load_document(a, src, &doc, out, d);
  yaml_document_delete(&doc);
  if (rc == SHARD_OK && *out) {
    /* a second document (even an empty one after '---') is an error */
    if (!yaml_parser_load(&parser, &extra)) {
      parser_error(src, &parser, buf, len, d);
      rc = SHARD_ERR_INPUT;
    } else {
      if (yaml_document_get_root_node(&extra)) {
        loader L = {.src = src};
        yt_error(d, src, mark_line(&L, extra.start_mark), mark_col(&L, extra.start_mark),
                 "more than one document (a file holds exactly one)");
        rc = SHARD_ERR_INPUT;
      }
      yaml_document_delete(&extra);
    }
  }
  if (rc == SHARD_OK && !*out) *out = yt_new_scalar(a, src, 1, 1 + src->col_offset, "", 0, 0);
  yaml_parser_delete(&parser);
  return rc;
}

static const char *file_type_str(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  return "not a regular file";
}

/* The file's bytes in the arena (plus a NUL), or NULL after reporting. */
static char *read_file(yt_arena *a, const char *path, const char *what, size_t *out_len, shard_diag *d) {
  struct stat st;
  if (stat(path, &st) != 0) {
    int err = errno;
    struct stat lst;
    if (err == ENOENT && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
      shard_diag_error(d, path, 0, 0, "", "cannot read %s: dangling symbolic link", what);
    else
      shard_diag_error(d, path, 0, 0, "", "cannot read %s: %s", what, strerror(err));
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    shard_diag_error(d, path, 0, 0, "", "cannot read %s: %s, not a file", what, file_type_str(st.st_mode));
    return NULL;
  }
  if ((uintmax_t)st.st_size > YT_MAX_FILE_SIZE) {
    shard_diag_error(d, path, 0, 0, "", "%s too large (%jd bytes; the limit is %u MiB)", what, (intmax_t)st.st_size,
                     YT_MAX_FILE_SIZE >> 20);
    return NULL;
  }
  /* O_NONBLOCK: if the path was swapped for a FIFO since stat, never block */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  struct stat fst;
  if (fd < 0 || fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
    shard_diag_error(d, path, 0, 0, "", "cannot open %s: %s", what, fd < 0 ? strerror(errno) : "not a regular file");
    if (fd >= 0) close(fd);
    return NULL;
  }
  size_t cap = (size_t)st.st_size, len = 0;
  char *buf = yt_alloc(a, cap + 1);
  while (buf && len < cap) {
    ssize_t r = read(fd, buf + len, cap - len);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    len += (size_t)r;
  }
  close(fd);
  if (!buf) shard_diag_error(d, path, 0, 0, "", "out of memory reading %s", what);
  *out_len = len;
  return buf;
}

int yt_load_file(yt_arena *a, const char *path, const char *what, yt_node **out, shard_diag *d) {
  *out = NULL;
  size_t len = 0;
  char *buf = read_file(a, path, what, &len, d);
  if (!buf) return SHARD_ERR_INPUT;
  yt_source *src = yt_alloc(a, sizeof *src);
  if (!src || !(src->name = yt_strndup(a, path, strlen(path)))) return SHARD_ERR_NOMEM;
  src->text = buf;
  src->len = len;
  int rc = yt_load_buffer(a, src, buf, len, out, d);
  if (rc != SHARD_OK) return rc;
  if (yt_is_null(*out)) {
    shard_diag_error(d, path, 0, 0, "", "empty %s", what);
    return SHARD_ERR_INPUT;
  }
  return SHARD_OK;
}
