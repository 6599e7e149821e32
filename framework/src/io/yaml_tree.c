/* host: strict YAML loading into a located tree (see yaml_tree.h). */
#include "io/yaml_tree.h"

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

/* Not zeroed: a large block stays out of memory until it is written. */
static void *arena_raw(yt_arena *a, size_t size) {
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
  return p;
}

void *yt_alloc(yt_arena *a, size_t size) {
  void *p = arena_raw(a, size);
  if (p) memset(p, 0, size);
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

/* ---- building the tree from libyaml's events ---------------------------------
 *
 * The tree is built as the parser goes (yaml_parser_parse), so the node and
 * depth limits stop a hostile file at the first node past them: the parser
 * never holds more than one event and the loader never more than
 * YT_MAX_NODES nodes and YT_MAX_DEPTH open collections. Aliases are expanded
 * into copies of the anchored node, each copied node counted and its depth
 * checked where it lands.
 *
 * A syntax error anywhere in the document is reported alone, as when the
 * whole document was parsed before it was looked at: the other errors found
 * on the way (key errors, limits) are held back until the document is
 * complete, or a limit stops the reading. */

typedef struct anchor {
  char *name;        /* malloc'd */
  yt_node *node;     /* the complete node, or the collection still open */
  int open;          /* collection not finished: an alias to it is recursive */
  yaml_mark_t mark;  /* where it was defined */
} anchor;

typedef struct frame {
  yt_node *node; /* the map or sequence being filled */
  yt_node *key;  /* map: the key read, waiting for its value */
  int key_ok;    /* that key passed the checks (else its value is dropped) */
  int muted;     /* inside a dropped value: its key errors are not reported */
  size_t anchor; /* index + 1 of its anchor in the table, 0 if none */
} frame;

typedef struct held_error {
  int line, col;
  char *text; /* malloc'd */
} held_error;

/* The bytes the parser has read so far (a file is read as the parser asks). */
typedef struct yt_input {
  const char *buf;
  size_t len;
} yt_input;

typedef struct loader {
  yt_arena *arena;
  const yt_input *in;
  const yt_source *src;
  shard_diag *diag;
  frame stack[YT_MAX_DEPTH + 1];
  int depth;              /* open collections */
  size_t count;           /* nodes created, copies included */
  int aliased;            /* some alias was expanded */
  int failed;             /* a limit or out of memory stopped the reading */
  const yt_node *top_key; /* the top-level key being read, for the alias message */
  yt_node *root;
  anchor *anchors;
  size_t n_anchors, cap_anchors;
  held_error *held;
  size_t n_held, cap_held;
} loader;

/* A --set value (col_offset > 0) is one line: libyaml's end-of-stream mark on
 * the line after it is shown at the end of the argument instead. */
static int src_mark_line(const yt_source *src, yaml_mark_t m) { return src->col_offset > 0 ? 1 : (int)m.line + 1; }
static int src_mark_col(const yt_source *src, yaml_mark_t m) {
  if (src->col_offset > 0 && m.line > 0) return (int)src->len + 1;
  return (int)m.column + 1 + (m.line == 0 ? src->col_offset : 0);
}

static int vgrow(void **arr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t c = *cap ? *cap * 2 : 16;
  while (c < need) c *= 2;
  void *p = realloc(*arr, c * elem);
  if (!p) return -1;
  *arr = p;
  *cap = c;
  return 0;
}

/* Hold an error at (line, col) until the document is known to parse. */
static void hold_error(loader *L, int line, int col, const char *fmt, ...) SHARD_PRINTF_(4, 5);
static void hold_error(loader *L, int line, int col, const char *fmt, ...) {
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  size_t n = strlen(text) + 1;
  char *copy = malloc(n);
  if (!copy || vgrow((void **)&L->held, &L->cap_held, L->n_held + 1, sizeof *L->held) != 0) {
    free(copy);
    L->failed = 1; /* reported as out of memory by the caller */
    return;
  }
  memcpy(copy, text, n);
  L->held[L->n_held++] = (held_error){line, col, copy};
}

static void flush_held(loader *L, int report) {
  for (size_t i = 0; i < L->n_held; ++i) {
    if (report) yt_error(L->diag, L->src, L->held[i].line, L->held[i].col, "%s", L->held[i].text);
    free(L->held[i].text);
  }
  L->n_held = 0;
}

/* One more node at `depth`: the node limit, then the depth limit. The
 * position is that of the node (for a copy, the anchored original). */
static int node_ok(loader *L, int line, int col, int depth) {
  if (++L->count > YT_MAX_NODES) {
    if (L->aliased && L->top_key)
      hold_error(L, L->top_key->line, L->top_key->col,
                 "alias expansion of '%s' too large (more than %d nodes in the document)", L->top_key->text,
                 YT_MAX_NODES);
    else if (L->aliased)
      hold_error(L, line, col, "alias expansion too large (more than %d nodes in the document)", YT_MAX_NODES);
    else
      hold_error(L, line, col, "document too large (more than %d nodes)", YT_MAX_NODES);
    L->failed = 1;
    return 0;
  }
  if (depth > YT_MAX_DEPTH) {
    hold_error(L, line, col, "nesting too deep (more than %d levels)", YT_MAX_DEPTH);
    L->failed = 1;
    return 0;
  }
  return 1;
}

static int check_key(loader *L, const yt_node *map, const yt_node *key, int muted) {
  const char *why = NULL;
  char buf[64];
  const yt_pair *first = NULL;
  if (key->kind != YT_SCALAR) {
    snprintf(buf, sizeof buf, "mapping keys must be scalars, not %s", yt_kind_str(key));
    why = buf;
  } else if (!key->quoted && strcmp(key->text, "<<") == 0) {
    why = "merge keys ('<<') are not supported; write the keys out";
  } else if (yt_is_null(key)) {
    why = "empty mapping key";
  } else if ((first = yt_map_find(map, key->text)) != NULL) {
    if (!muted)
      hold_error(L, key->line, key->col, "duplicate key '%s' (first defined at line %d)", key->text,
                 first->key->line);
    return 0;
  }
  if (!why) return 1;
  if (!muted) hold_error(L, key->line, key->col, "%s", why);
  return 0;
}

/* A complete node goes to the collection that holds it (or is the root). */
static int add_node(loader *L, yt_node *n) {
  if (L->depth == 0) {
    L->root = n;
    return SHARD_OK;
  }
  frame *f = &L->stack[L->depth - 1];
  yt_node *c = f->node;
  if (c->kind == YT_SEQ) {
    void *p = c->items;
    if (grow(L->arena, &p, sizeof(yt_node *), c->n, &c->cap) != SHARD_OK) return SHARD_ERR_NOMEM;
    c->items = p;
    c->items[c->n++] = n;
    return SHARD_OK;
  }
  if (!f->key) {
    f->key = n;
    f->key_ok = check_key(L, c, n, f->muted);
    if (f->key_ok && L->depth == 1) L->top_key = n;
    return SHARD_OK;
  }
  yt_node *key = f->key;
  int ok = f->key_ok;
  f->key = NULL;
  return ok ? map_append(L->arena, c, key, n) : SHARD_OK;
}

/* A copy of an anchored node where an alias stands, at `depth`. */
static yt_node *copy_node(loader *L, const yt_node *s, int depth) {
  if (!node_ok(L, s->line, s->col, depth)) return NULL;
  yt_node *n = yt_alloc(L->arena, sizeof *n);
  if (!n) return NULL;
  *n = *s;
  n->pairs = NULL;
  n->items = NULL;
  n->n = n->cap = 0;
  if (s->kind == YT_MAP && s->n > 0) {
    if (!(n->pairs = yt_alloc(L->arena, s->n * sizeof *n->pairs))) return NULL;
    n->cap = s->n;
    for (size_t i = 0; i < s->n; ++i) {
      yt_node *k = copy_node(L, s->pairs[i].key, depth + 1);
      yt_node *v = k ? copy_node(L, s->pairs[i].value, depth + 1) : NULL;
      if (!v) return NULL;
      n->pairs[n->n++] = (yt_pair){k, v};
    }
  } else if (s->kind == YT_SEQ && s->n > 0) {
    if (!(n->items = yt_alloc(L->arena, s->n * sizeof *n->items))) return NULL;
    n->cap = s->n;
    for (size_t i = 0; i < s->n; ++i)
      if (!(n->items[n->n++] = copy_node(L, s->items[i], depth + 1))) return NULL;
  }
  return n;
}

static anchor *find_anchor(loader *L, const char *name) {
  for (size_t i = L->n_anchors; i-- > 0;)
    if (strcmp(L->anchors[i].name, name) == 0) return &L->anchors[i];
  return NULL;
}

/* A syntax error in libyaml's words (problem at one mark, maybe a context at
 * another), with a hint when a tab is the cause. */
static void syntax_error(const yt_source *src, const yt_input *in, const char *problem, yaml_mark_t pmark,
                         const char *context, yaml_mark_t cmark, shard_diag *d) {
  int line = src_mark_line(src, pmark), col = src_mark_col(src, pmark);
  size_t off = pmark.index;
  int tab = off < in->len && in->buf[off] == '\t' && !strstr(problem, "tab");
  const char *hint = tab ? " (tabs are not allowed in YAML indentation; use spaces)" : "";
  if (context)
    yt_error(d, src, line, col, "syntax error: %s %s (line %d)%s", problem, context, src_mark_line(src, cmark), hint);
  else
    yt_error(d, src, line, col, "syntax error: %s%s", problem, hint);
}

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

static void parser_error(const yt_source *src, const yaml_parser_t *p, const yt_input *in, shard_diag *d) {
  const char *problem = p->problem ? p->problem : "unknown error";
  if (p->error == YAML_READER_ERROR) {
    int line, col;
    offset_position(in->buf, in->len, p->problem_offset, &line, &col);
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
  syntax_error(src, in, problem, p->problem_mark, p->context, p->context_mark, d);
}

/* Register the anchor of a node starting at `mark` (libyaml's document
 * loader refuses a name defined twice; so does this one). 0 after a
 * syntax error was reported, -1 out of memory, else 1. */
static int add_anchor(loader *L, const char *name, yt_node *n, int open, yaml_mark_t mark, size_t *index) {
  *index = 0;
  if (!name) return 1;
  const anchor *old = find_anchor(L, name);
  if (old) {
    flush_held(L, 0);
    syntax_error(L->src, L->in, "second occurrence", mark, "found duplicate anchor; first occurrence", old->mark,
                 L->diag);
    return 0;
  }
  size_t nl = strlen(name) + 1;
  char *copy = malloc(nl);
  if (!copy || vgrow((void **)&L->anchors, &L->cap_anchors, L->n_anchors + 1, sizeof *L->anchors) != 0) {
    free(copy);
    return -1;
  }
  memcpy(copy, name, nl);
  L->anchors[L->n_anchors++] = (anchor){copy, n, open, mark};
  *index = L->n_anchors;
  return 1;
}

enum { EV_GO, EV_DONE, EV_SYNTAX, EV_NOMEM };

/* One event of the document. */
static int on_event(loader *L, const yaml_event_t *ev) {
  const yt_source *src = L->src;
  int line = src_mark_line(src, ev->start_mark), col = src_mark_col(src, ev->start_mark);
  yt_node *n = NULL;
  size_t ai;
  int rc;
  switch (ev->type) {
  case YAML_SCALAR_EVENT:
    if (!node_ok(L, line, col, L->depth)) return EV_DONE;
    n = yt_new_scalar(L->arena, src, line, col, (const char *)ev->data.scalar.value, ev->data.scalar.length,
                      ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE);
    if (!n) return EV_NOMEM;
    rc = add_anchor(L, (const char *)ev->data.scalar.anchor, n, 0, ev->start_mark, &ai);
    if (rc <= 0) return rc < 0 ? EV_NOMEM : EV_SYNTAX;
    return add_node(L, n) == SHARD_OK ? EV_GO : EV_NOMEM;
  case YAML_SEQUENCE_START_EVENT:
  case YAML_MAPPING_START_EVENT: {
    if (!node_ok(L, line, col, L->depth)) return EV_DONE;
    int map = ev->type == YAML_MAPPING_START_EVENT;
    n = new_node(L->arena, map ? YT_MAP : YT_SEQ, src, line, col);
    if (!n) return EV_NOMEM;
    const yaml_char_t *name = map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
    rc = add_anchor(L, (const char *)name, n, 1, ev->start_mark, &ai);
    if (rc <= 0) return rc < 0 ? EV_NOMEM : EV_SYNTAX;
    int muted = 0;
    if (L->depth > 0) {
      const frame *up = &L->stack[L->depth - 1];
      muted = up->muted || (up->key && !up->key_ok);
    }
    L->stack[L->depth++] = (frame){n, NULL, 0, muted, ai};
    return EV_GO;
  }
  case YAML_SEQUENCE_END_EVENT:
  case YAML_MAPPING_END_EVENT: {
    frame f = L->stack[--L->depth];
    if (f.anchor) L->anchors[f.anchor - 1].open = 0;
    return add_node(L, f.node) == SHARD_OK ? EV_GO : EV_NOMEM;
  }
  case YAML_ALIAS_EVENT: {
    const anchor *a = find_anchor(L, (const char *)ev->data.alias.anchor);
    if (!a) {
      flush_held(L, 0);
      syntax_error(src, L->in, "found undefined alias", ev->start_mark, NULL, ev->start_mark, L->diag);
      return EV_SYNTAX;
    }
    if (a->open) {
      hold_error(L, a->node->line, a->node->col, "recursive alias (a node that contains itself)");
      L->failed = 1;
      return EV_DONE;
    }
    L->aliased = 1;
    n = copy_node(L, a->node, L->depth);
    if (!n) return L->failed ? EV_DONE : EV_NOMEM;
    return add_node(L, n) == SHARD_OK ? EV_GO : EV_NOMEM;
  }
  default:
    return EV_GO;
  }
}

/* Skip a second document (its syntax errors are reported as libyaml's
 * document loader did), then refuse it; a limit stops the skipping. */
static int second_document(loader *L, yaml_parser_t *p, yaml_mark_t start) {
  size_t events = 0;
  int depth = 0;
  for (;;) {
    yaml_event_t ev;
    if (!yaml_parser_parse(p, &ev)) {
      parser_error(L->src, p, L->in, L->diag);
      return SHARD_ERR_INPUT;
    }
    yaml_event_type_t t = ev.type;
    yaml_event_delete(&ev);
    if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) ++depth;
    if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) --depth;
    if (t == YAML_DOCUMENT_END_EVENT || t == YAML_STREAM_END_EVENT || depth > YT_MAX_DEPTH ||
        ++events > YT_MAX_NODES)
      break;
  }
  yt_error(L->diag, L->src, src_mark_line(L->src, start), src_mark_col(L->src, start),
           "more than one document (a file holds exactly one)");
  return SHARD_ERR_INPUT;
}

static int load_events(loader *L, yaml_parser_t *p) {
  int documents = 0;
  for (;;) {
    yaml_event_t ev;
    if (!yaml_parser_parse(p, &ev)) {
      flush_held(L, 0);
      parser_error(L->src, p, L->in, L->diag);
      return SHARD_ERR_INPUT;
    }
    int r = EV_GO;
    if (ev.type == YAML_STREAM_END_EVENT) {
      r = EV_DONE;
    } else if (ev.type == YAML_DOCUMENT_START_EVENT) {
      if (++documents > 1) {
        yaml_mark_t start = ev.start_mark;
        yaml_event_delete(&ev);
        return second_document(L, p, start);
      }
    } else if (ev.type == YAML_DOCUMENT_END_EVENT) {
      /* errors in the first document: the rest is not looked at */
      if (L->n_held > 0) r = EV_DONE;
    } else {
      r = on_event(L, &ev);
    }
    yaml_event_delete(&ev);
    if (r == EV_SYNTAX) return SHARD_ERR_INPUT;
    if (r == EV_NOMEM || (L->failed && L->n_held == 0)) {
      flush_held(L, 1);
      yt_error(L->diag, L->src, src_mark_line(L->src, p->mark), src_mark_col(L->src, p->mark), "out of memory");
      return SHARD_ERR_NOMEM;
    }
    if (r == EV_DONE || L->failed) {
      int errors = L->n_held > 0;
      flush_held(L, 1);
      return errors ? SHARD_ERR_INPUT : SHARD_OK;
    }
  }
}

/* ---- loading ------------------------------------------------------------------- */

/* Parse with the parser's input already set; `in` follows what it has read. */
static int load_parser(yt_arena *a, const yt_source *src, yaml_parser_t *parser, const yt_input *in, yt_node **out,
                       shard_diag *d) {
  loader L = {.arena = a, .in = in, .src = src, .diag = d};
  int rc = load_events(&L, parser);
  flush_held(&L, 0);
  free(L.held);
  for (size_t i = 0; i < L.n_anchors; ++i) free(L.anchors[i].name);
  free(L.anchors);
  if (rc != SHARD_OK) return rc;
  *out = L.root ? L.root : yt_new_scalar(a, src, 1, 1 + src->col_offset, "", 0, 0);
  return SHARD_OK;
}

int yt_load_buffer(yt_arena *a, const yt_source *src, const char *buf, size_t len, yt_node **out, shard_diag *d) {
  yaml_parser_t parser;
  *out = NULL;
  if (!yaml_parser_initialize(&parser)) {
    yt_error(d, src, 0, 0, "out of memory");
    return SHARD_ERR_NOMEM;
  }
  yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
  yt_input in = {buf, len};
  int rc = load_parser(a, src, &parser, &in, out, d);
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

/* A file read as the parser asks for it, into one arena block of the size
 * stat gave (not zeroed, so only what has been read takes memory): a file
 * refused early costs what was read up to the error, not the whole file. */
typedef struct file_reader {
  int fd;
  char *data;   /* the block: data[len] is always 0 */
  size_t cap;   /* bytes the block can take (the size at stat time) */
  yt_source *src;
  yt_input *in;
  int err;      /* errno of a failed read */
} file_reader;

static int read_more(void *data, unsigned char *buffer, size_t size, size_t *size_read) {
  file_reader *r = data;
  *size_read = 0;
  size_t room = r->cap - r->in->len;
  if (size > room) size = room;
  if (size == 0) return 1; /* end of input (a file that grew since stat is read as it was) */
  ssize_t n;
  do n = read(r->fd, r->data + r->in->len, size);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    r->err = errno;
    return 0;
  }
  memcpy(buffer, r->data + r->in->len, (size_t)n);
  r->in->len += (size_t)n;
  r->data[r->in->len] = '\0';
  r->src->len = r->in->len;
  *size_read = (size_t)n;
  return 1;
}

/* Open a regular file for reading (refusing other kinds and oversized files
 * by stat first) and report why not; the open descriptor or -1. */
static int open_file(const char *path, const char *what, size_t *out_size, shard_diag *d) {
  struct stat st;
  if (stat(path, &st) != 0) {
    int err = errno;
    struct stat lst;
    if (err == ENOENT && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
      shard_diag_error(d, path, 0, 0, "", "cannot read %s: dangling symbolic link", what);
    else
      shard_diag_error(d, path, 0, 0, "", "cannot read %s: %s", what, strerror(err));
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    shard_diag_error(d, path, 0, 0, "", "cannot read %s: %s, not a file", what, file_type_str(st.st_mode));
    return -1;
  }
  if ((uintmax_t)st.st_size > YT_MAX_FILE_SIZE) {
    shard_diag_error(d, path, 0, 0, "", "%s too large (%jd bytes; the limit is %u MiB)", what, (intmax_t)st.st_size,
                     YT_MAX_FILE_SIZE >> 20);
    return -1;
  }
  /* O_NONBLOCK: if the path was swapped for a FIFO since stat, never block */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  struct stat fst;
  if (fd < 0 || fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
    shard_diag_error(d, path, 0, 0, "", "cannot open %s: %s", what, fd < 0 ? strerror(errno) : "not a regular file");
    if (fd >= 0) close(fd);
    return -1;
  }
  *out_size = (size_t)st.st_size;
  return fd;
}

int yt_load_file(yt_arena *a, const char *path, const char *what, yt_node **out, shard_diag *d) {
  *out = NULL;
  size_t size = 0;
  int fd = open_file(path, what, &size, d);
  if (fd < 0) return SHARD_ERR_INPUT;
  yt_source *src = yt_alloc(a, sizeof *src);
  char *data = arena_raw(a, size + 1);
  yaml_parser_t parser;
  if (!src || !data || !(src->name = yt_strndup(a, path, strlen(path))) || !yaml_parser_initialize(&parser)) {
    close(fd);
    shard_diag_error(d, path, 0, 0, "", "out of memory reading %s", what);
    return SHARD_ERR_NOMEM;
  }
  data[0] = '\0';
  src->text = data;
  src->len = 0;
  yt_input in = {data, 0};
  file_reader r = {fd, data, size, src, &in, 0};
  yaml_parser_set_input(&parser, read_more, &r);
  int rc = load_parser(a, src, &parser, &in, out, d);
  yaml_parser_delete(&parser);
  close(fd);
  if (r.err) {
    /* the parser reported "input error": say what failed */
    shard_diag_error(d, path, 0, 0, "", "cannot read %s: %s", what, strerror(r.err));
    return SHARD_ERR_INPUT;
  }
  if (rc != SHARD_OK) return rc;
  if (yt_is_null(*out)) {
    shard_diag_error(d, path, 0, 0, "", "empty %s", what);
    return SHARD_ERR_INPUT;
  }
  return SHARD_OK;
}
