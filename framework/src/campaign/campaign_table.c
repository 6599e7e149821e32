/* host: the tidy table of a campaign — text cells by named column, RFC 4180
 * CSV in and out, summaries flattened, slices merged (see campaign.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign/campaign_table.h"

#include "campaign/campaign.h" /* SHARD_CAMPAIGN_MAX_RUNS */
#include "io/fsio.h"
#include "io/yaml_tree.h"

const char *const shard_campaign_run_columns[] = {"status", "exit_code", "signal",  "wall_time",
                                                  "host",   "steps",     "message", "run_dir"};
const size_t shard_campaign_n_run_columns = sizeof shard_campaign_run_columns / sizeof shard_campaign_run_columns[0];

typedef struct row {
  long index;
  int line;     /* the row's line in the CSV it was read from, 0 otherwise */
  char **cells; /* ncap entries, NULL when empty */
} row;

struct shard_table {
  char **cols;
  size_t ncols, ccap;
  row *rows;
  size_t nrows, rcap;
};

shard_table *shard_table_create(void) { return calloc(1, sizeof(shard_table)); }

void shard_table_destroy(shard_table *t) {
  if (!t) return;
  for (size_t r = 0; r < t->nrows; ++r) {
    for (size_t c = 0; c < t->ncols; ++c) free(t->rows[r].cells[c]);
    free(t->rows[r].cells);
  }
  for (size_t c = 0; c < t->ncols; ++c) free(t->cols[c]);
  free(t->cols);
  free(t->rows);
  free(t);
}

int shard_table_find_col(const shard_table *t, const char *name) {
  for (size_t c = 0; c < t->ncols; ++c)
    if (strcmp(t->cols[c], name) == 0) return (int)c;
  return -1;
}

int shard_table_column(shard_table *t, const char *name) {
  int k = shard_table_find_col(t, name);
  if (k >= 0) return k;
  if (t->ncols == t->ccap) {
    size_t cap = t->ccap ? 2 * t->ccap : 16;
    char **cols = realloc(t->cols, cap * sizeof *cols);
    if (!cols) return -1;
    t->cols = cols;
    for (size_t r = 0; r < t->nrows; ++r) {
      char **cells = realloc(t->rows[r].cells, cap * sizeof *cells);
      if (!cells) return -1;
      memset(cells + t->ccap, 0, (cap - t->ccap) * sizeof *cells);
      t->rows[r].cells = cells;
    }
    t->ccap = cap;
  }
  if (!(t->cols[t->ncols] = strdup(name))) return -1;
  return (int)t->ncols++;
}

int shard_table_add_row(shard_table *t, long index) {
  if (t->nrows == t->rcap) {
    size_t cap = t->rcap ? 2 * t->rcap : 64;
    row *rows = realloc(t->rows, cap * sizeof *rows);
    if (!rows) return -1;
    t->rows = rows;
    t->rcap = cap;
  }
  if (t->ccap == 0 && shard_table_column(t, "index") < 0) return -1;
  row *r = &t->rows[t->nrows];
  r->index = index;
  r->line = 0;
  r->cells = calloc(t->ccap, sizeof *r->cells);
  if (!r->cells) return -1;
  char buf[32];
  snprintf(buf, sizeof buf, "%ld", index);
  t->nrows++;
  if (shard_table_set(t, (int)t->nrows - 1, "index", buf) != SHARD_OK) return -1;
  return (int)t->nrows - 1;
}

int shard_table_set(shard_table *t, int r, const char *column, const char *value) {
  int c = shard_table_column(t, column);
  if (c < 0) return SHARD_ERR_NOMEM;
  char *v = value && *value ? strdup(value) : NULL;
  if (value && *value && !v) return SHARD_ERR_NOMEM;
  free(t->rows[r].cells[c]);
  t->rows[r].cells[c] = v;
  return SHARD_OK;
}

size_t shard_table_n_rows(const shard_table *t) { return t->nrows; }
size_t shard_table_n_cols(const shard_table *t) { return t->ncols; }
const char *shard_table_col_name(const shard_table *t, size_t c) { return t->cols[c]; }
long shard_table_row_index(const shard_table *t, size_t r) { return t->rows[r].index; }
int shard_table_row_line(const shard_table *t, size_t r) { return t->rows[r].line; }
const char *shard_table_get(const shard_table *t, size_t r, size_t c) {
  return c < t->ncols && t->rows[r].cells[c] ? t->rows[r].cells[c] : "";
}

void shard_table_sort(shard_table *t) {
  for (size_t i = 1; i < t->nrows; ++i) { /* insertion sort: stable, nearly sorted input */
    row x = t->rows[i];
    size_t j = i;
    for (; j > 0 && t->rows[j - 1].index > x.index; --j) t->rows[j] = t->rows[j - 1];
    t->rows[j] = x;
  }
}

/* ---- CSV ------------------------------------------------------------------------ */

static void put_field(FILE *out, const char *s) {
  size_t n = strlen(s);
  int quote = n > 0 && (strpbrk(s, ",\"\r\n") != NULL || s[0] == ' ' || s[n - 1] == ' ');
  if (!quote) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s; ++s) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

/* The columns from `first` on (0: all, 1: all but the index). */
static int write_csv(const shard_table *t, size_t first, FILE *out) {
  for (size_t c = first; c < t->ncols; ++c) {
    if (c > first) fputc(',', out);
    put_field(out, t->cols[c]);
  }
  fputc('\n', out);
  for (size_t r = 0; r < t->nrows; ++r) {
    for (size_t c = first; c < t->ncols; ++c) {
      if (c > first) fputc(',', out);
      put_field(out, shard_table_get(t, r, c));
    }
    fputc('\n', out);
  }
  return ferror(out) ? SHARD_ERR_IO : SHARD_OK;
}

int shard_table_write_csv(const shard_table *t, FILE *out) { return write_csv(t, 0, out); }

static int write_file(const shard_table *t, size_t first, const char *dir, const char *name, shard_msg *msg) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  int rc = write_csv(t, first, f);
  if (fclose(f) != 0 && rc == SHARD_OK) rc = SHARD_ERR_NOMEM;
  if (rc != SHARD_OK) {
    free(text);
    return shard_msg_set(msg, rc, "cannot write %s/%s: %s", dir, name, shard_status_str(rc));
  }
  rc = shard_write_atomic(dir, name, text, len, msg); /* unique temporary, fsync, rename */
  free(text);
  return rc;
}

int shard_table_write_file(const shard_table *t, const char *dir, const char *name, shard_msg *msg) {
  return write_file(t, 0, dir, name, msg);
}

int shard_table_write_file_unindexed(const shard_table *t, const char *dir, const char *name, shard_msg *msg) {
  return write_file(t, 1, dir, name, msg);
}

/* One RFC 4180 record; fields in a NUL-separated buffer. 0 at end of file. */
typedef struct csv_reader {
  FILE *f;
  char *buf;
  size_t len, cap;
  size_t *starts;
  size_t nf, fcap;
  int line;
} csv_reader;

static int push(csv_reader *r, int ch) {
  if (r->len + 1 >= r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 1024;
    char *b = realloc(r->buf, cap);
    if (!b) return 0;
    r->buf = b;
    r->cap = cap;
  }
  r->buf[r->len++] = (char)ch;
  return 1;
}

static int new_field(csv_reader *r) {
  if (r->nf == r->fcap) {
    size_t cap = r->fcap ? 2 * r->fcap : 32;
    size_t *s = realloc(r->starts, cap * sizeof *s);
    if (!s) return 0;
    r->starts = s;
    r->fcap = cap;
  }
  r->starts[r->nf++] = r->len;
  return 1;
}

/* 1 record read, 0 end of file, -1 malformed (msg), -2 out of memory */
static int read_record(csv_reader *r, const char *path, shard_msg *msg) {
  r->len = r->nf = 0;
  int ch = fgetc(r->f);
  if (ch == EOF) return 0;
  int start = ++r->line;
  if (!new_field(r)) return -2;
  int quoted = 0, was_quoted = 0;
  for (;; ch = fgetc(r->f)) {
    if (ch == EOF) {
      if (quoted) {
        shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%d: unterminated quoted field", path, start);
        return -1;
      }
      break;
    }
    if (quoted) {
      if (ch == '"') {
        int nx = fgetc(r->f);
        if (nx == '"') {
          if (!push(r, '"')) return -2;
          continue;
        }
        quoted = 0;
        if (nx != EOF) ungetc(nx, r->f);
        continue;
      }
      if (ch == '\n') ++r->line;
      if (!push(r, ch)) return -2;
      continue;
    }
    if (ch == '"' && !was_quoted && r->len == r->starts[r->nf - 1]) {
      quoted = was_quoted = 1;
      continue;
    }
    if (ch == ',') {
      if (!push(r, 0) || !new_field(r)) return -2;
      was_quoted = 0;
      continue;
    }
    if (ch == '\r') continue;
    if (ch == '\n') break;
    if (!push(r, ch)) return -2;
  }
  return push(r, 0) ? 1 : -2;
}

int shard_table_read_csv(const char *path, shard_table **out, shard_msg *msg) {
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return shard_msg_set(msg, SHARD_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  csv_reader r = {.f = f};
  shard_table *t = shard_table_create();
  char **header = NULL;
  size_t nh = 0;
  int rc = t ? SHARD_OK : SHARD_ERR_NOMEM;
  int st = rc == SHARD_OK ? read_record(&r, path, msg) : -2;
  if (st == 0) rc = shard_msg_set(msg, SHARD_ERR_INPUT, "%s: empty table", path);
  if (st > 0) {
    nh = r.nf;
    header = calloc(nh, sizeof *header);
    for (size_t i = 0; header && i < nh; ++i) header[i] = strdup(r.buf + r.starts[i]);
    if (!header) rc = SHARD_ERR_NOMEM;
    if (rc == SHARD_OK && strcmp(header[0] ? header[0] : "", "index") != 0)
      rc = shard_msg_set(msg, SHARD_ERR_INPUT, "%s: the first column is '%s', not 'index'", path,
                         header[0] ? header[0] : "");
    for (size_t i = 0; rc == SHARD_OK && i < nh; ++i)
      if (!header[i] || shard_table_column(t, header[i]) < 0) rc = SHARD_ERR_NOMEM;
  }
  while (rc == SHARD_OK && (st = read_record(&r, path, msg)) > 0) {
    if (r.nf == 1 && r.buf[0] == 0) continue; /* blank line */
    if (r.nf != nh) {
      rc = shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%d: %zu fields, the header has %zu", path, r.line, r.nf, nh);
      break;
    }
    /* digits only, no sign, no blanks; out of range is an error, not clamped */
    char *end = NULL;
    errno = 0;
    long idx = r.buf[0] >= '0' && r.buf[0] <= '9' ? strtol(r.buf, &end, 10) : -1;
    if (idx < 0 || *end) {
      rc = shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%d: index '%s' is not a run number", path, r.line, r.buf);
      break;
    }
    if (errno == ERANGE || idx >= SHARD_CAMPAIGN_MAX_RUNS) {
      rc = shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%d: index %s is out of range (a campaign has at most %d runs)", path,
                         r.line, r.buf, SHARD_CAMPAIGN_MAX_RUNS);
      break;
    }
    int row_i = shard_table_add_row(t, idx);
    if (row_i < 0) rc = SHARD_ERR_NOMEM;
    if (row_i >= 0) t->rows[row_i].line = r.line;
    for (size_t i = 1; rc == SHARD_OK && i < nh; ++i) rc = shard_table_set(t, row_i, header[i], r.buf + r.starts[i]);
  }
  if (rc == SHARD_OK && st < 0) rc = st == -2 ? SHARD_ERR_NOMEM : SHARD_ERR_INPUT;
  if (rc == SHARD_ERR_NOMEM) shard_msg_set(msg, rc, "%s: out of memory", path);
  for (size_t i = 0; header && i < nh; ++i) free(header[i]);
  free(header);
  free(r.buf);
  free(r.starts);
  fclose(f);
  if (rc != SHARD_OK) {
    shard_table_destroy(t);
    return rc;
  }
  *out = t;
  return SHARD_OK;
}

/* ---- summaries ------------------------------------------------------------------- */

static int flatten(shard_table *t, int r, const yt_node *n, char *prefix, size_t plen, const char *const *skip,
                   size_t n_skip) {
  if (n->kind == YT_SCALAR) {
    for (size_t i = 0; i < n_skip; ++i)
      if (strcmp(prefix, skip[i]) == 0) return SHARD_OK;
    if (yt_is_null(n) || !*n->text) return SHARD_OK;
    return shard_table_set(t, r, prefix, n->text);
  }
  if (n->kind != YT_MAP) return SHARD_OK; /* sequences are not scalars */
  for (size_t i = 0; i < n->n; ++i) {
    size_t k = (size_t)snprintf(prefix + plen, 512 - plen, "%s%s", plen ? "." : "", n->pairs[i].key->text);
    if (plen + k >= 512) continue;
    int rc = flatten(t, r, n->pairs[i].value, prefix, plen + k, skip, n_skip);
    prefix[plen] = 0;
    if (rc != SHARD_OK) return rc;
  }
  return SHARD_OK;
}

int shard_table_add_yaml(shard_table *t, int r, const char *path, const char *const *skip, size_t n_skip,
                         shard_msg *msg) {
  yt_arena *a = yt_arena_create();
  shard_diag *d = shard_diag_create();
  yt_node *root = NULL;
  int rc = a && d ? yt_load_file(a, path, "summary", &root, d) : SHARD_ERR_NOMEM;
  if (rc != SHARD_OK) {
    shard_msg_set(msg, rc, "%s", shard_diag_first(d) ? shard_diag_first(d) : "out of memory");
  } else {
    char prefix[512] = "";
    rc = flatten(t, r, root, prefix, 0, skip, n_skip);
    if (rc != SHARD_OK) shard_msg_set(msg, rc, "%s: out of memory", path);
  }
  shard_diag_destroy(d);
  yt_arena_destroy(a);
  return rc;
}

/* ---- merge ---------------------------------------------------------------------------- */

typedef struct src_row {
  const shard_table *t;
  size_t r;
  long index;
} src_row;

static int src_cmp(const void *a, const void *b) {
  const src_row *x = a, *y = b;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Parameter columns: between index and status. */
static size_t n_param_cols(const shard_table *t) {
  int s = shard_table_find_col(t, "status");
  return s > 0 ? (size_t)s - 1 : 0;
}

int shard_table_merge(shard_table *const *parts, size_t n, shard_table **out, shard_msg *msg) {
  *out = NULL;
  if (n == 0) return shard_msg_set(msg, SHARD_ERR_INPUT, "nothing to merge");
  size_t np = n_param_cols(parts[0]), total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (shard_table_find_col(parts[i], "status") < 0)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "table %zu has no 'status' column: not a campaign table", i + 1);
    int same = n_param_cols(parts[i]) == np;
    for (size_t c = 1; same && c <= np; ++c)
      same = strcmp(shard_table_col_name(parts[i], c), shard_table_col_name(parts[0], c)) == 0;
    if (!same) return shard_msg_set(msg, SHARD_ERR_INPUT, "table %zu has other parameter columns than table 1", i + 1);
    total += shard_table_n_rows(parts[i]);
  }
  src_row *rows = calloc(total + 1, sizeof *rows);
  shard_table *t = shard_table_create();
  if (!rows || !t) {
    free(rows);
    shard_table_destroy(t);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  }
  size_t k = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t r = 0; r < shard_table_n_rows(parts[i]); ++r)
      rows[k++] = (src_row){parts[i], r, shard_table_row_index(parts[i], r)};
  qsort(rows, total, sizeof *rows, src_cmp);
  int rc = SHARD_OK;
  for (size_t i = 1; i < total; ++i)
    if (rows[i].index == rows[i - 1].index) {
      rc = shard_msg_set(msg, SHARD_ERR_INPUT, "run %ld appears in two tables", rows[i].index);
      break;
    }
  /* the fixed columns first, in the single-run order; then the summary
   * columns in order of first appearance over the sorted rows */
  if (rc == SHARD_OK && shard_table_column(t, "index") < 0) rc = SHARD_ERR_NOMEM;
  for (size_t c = 1; rc == SHARD_OK && c <= np; ++c)
    if (shard_table_column(t, shard_table_col_name(parts[0], c)) < 0) rc = SHARD_ERR_NOMEM;
  for (size_t c = 0; rc == SHARD_OK && c < shard_campaign_n_run_columns; ++c)
    if (shard_table_column(t, shard_campaign_run_columns[c]) < 0) rc = SHARD_ERR_NOMEM;
  for (size_t i = 0; rc == SHARD_OK && i < total; ++i) {
    int r = shard_table_add_row(t, rows[i].index);
    if (r < 0) {
      rc = SHARD_ERR_NOMEM;
      break;
    }
    for (size_t c = 1; rc == SHARD_OK && c < shard_table_n_cols(rows[i].t); ++c) {
      const char *v = shard_table_get(rows[i].t, rows[i].r, c);
      if (*v) rc = shard_table_set(t, r, shard_table_col_name(rows[i].t, c), v);
    }
  }
  free(rows);
  if (rc != SHARD_OK) {
    if (rc == SHARD_ERR_NOMEM) shard_msg_set(msg, rc, "out of memory");
    shard_table_destroy(t);
    return rc;
  }
  *out = t;
  return SHARD_OK;
}
