/* host: Matrix Market I/O — see mtx.h. */
#include "io/mtx.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- reading */

typedef struct mtx_reader {
  FILE *f;
  const char *path;
  char *line;
  size_t cap;
  long lineno;
  int64_t file_size; /* bytes, -1 when not a regular file */
} mtx_reader;

typedef enum mtx_format { MTX_COORDINATE, MTX_ARRAY } mtx_format;

typedef struct mtx_header {
  mtx_format format;
  int symmetric;
  int64_t nrows, ncols, nnz; /* nnz: coordinate only */
} mtx_header;

/* Next line holding data: comments ('%' as first non-blank) and blank lines
 * are skipped. NULL at end of file (or on a read error, flagged by ferror). */
static char *next_data_line(mtx_reader *r) {
  for (;;) {
    ssize_t len = getline(&r->line, &r->cap, r->f);
    if (len < 0) return NULL;
    r->lineno++;
    char *s = r->line;
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') ++s;
    if (*s == '\0' || *s == '%') continue;
    return s;
  }
}

static const char *skip_blank(const char *s) {
  while (*s == ' ' || *s == '\t') ++s;
  return s;
}
static int at_line_end(const char *s) {
  s = skip_blank(s);
  return *s == '\0' || *s == '\n' || *s == '\r';
}

/* Parse one integer token; *s advanced past it. */
static int parse_int_token(const char **s, int64_t *out) {
  const char *p = skip_blank(*s);
  char *end = NULL;
  errno = 0;
  long long v = strtoll(p, &end, 10);
  if (end == p || errno == ERANGE) return 0;
  if (*end != '\0' && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r') return 0;
  *out = (int64_t)v;
  *s = end;
  return 1;
}

/* Parse one finite real token; *s advanced past it. Returns 0 when there is
 * no number, -1 when the number is not finite. */
static int parse_real_token(const char **s, double *out) {
  const char *p = skip_blank(*s);
  char *end = NULL;
  errno = 0;
  double v = strtod(p, &end);
  if (end == p) return 0;
  if (*end != '\0' && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r') return 0;
  if (!isfinite(v)) return -1;
  *out = v;
  *s = end;
  return 1;
}

/* Bytes of memory a matrix of these declared sizes takes to read: the
 * triplets (row, column, value) and, while the CSR is built, its arrays and
 * the column buckets; the row, column and bucket pointers. */
static double mtx_bytes_needed(const mtx_header *h) {
  double entries = h->format == MTX_COORDINATE ? (double)h->nnz : (double)h->nrows * (double)h->ncols;
  if (h->symmetric) entries *= 2;
  double dims = (double)h->nrows + (double)h->ncols + (double)(h->nrows > h->ncols ? h->nrows : h->ncols) + 3;
  return entries * 3 * (2 * sizeof(int32_t) + sizeof(double)) + dims * sizeof(int32_t);
}

/* The memory budget of one read: half the physical memory, at most
 * SHARD_MTX_MAX_BYTES. */
static double mtx_budget(void) {
  double budget = SHARD_MTX_MAX_BYTES;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && (double)pages * (double)page / 2 < budget) budget = (double)pages * (double)page / 2;
  return budget;
}

/* The declared sizes against what the file can hold and the memory budget,
 * before anything of their size is allocated: an entry takes at least 6
 * bytes ("1 1 1\n") in a coordinate file, 2 ("1\n") in an array file. */
static int check_sizes(const mtx_reader *r, const mtx_header *h, shard_msg *msg) {
  long pos = ftell(r->f);
  if (r->file_size >= 0 && pos >= 0) {
    int64_t left = r->file_size - (int64_t)pos;
    int64_t entries = h->format == MTX_COORDINATE ? h->nnz
                      : h->symmetric               ? h->nrows * (h->nrows + 1) / 2
                                                   : h->nrows * h->ncols;
    int64_t per = h->format == MTX_COORDINATE ? 6 : 2;
    if (entries > left / per)
      return shard_msg_set(msg, SHARD_ERR_INPUT,
                           "%s:%ld: the size line declares %lld entries (%lld x %lld) but only %lld bytes follow it "
                           "(an entry takes at least %lld)",
                           r->path, r->lineno, (long long)entries, (long long)h->nrows, (long long)h->ncols,
                           (long long)left, (long long)per);
  }
  double need = mtx_bytes_needed(h), budget = mtx_budget();
  long long entries = (long long)(h->format == MTX_COORDINATE ? h->nnz : h->nrows * h->ncols);
  if (need > budget)
    return shard_msg_set(msg, SHARD_ERR_INPUT,
                         "%s:%ld: a %lld x %lld matrix with %lld entr%s needs about %.3g GB to read, more than the "
                         "memory budget of %.3g GB",
                         r->path, r->lineno, (long long)h->nrows, (long long)h->ncols, entries,
                         entries == 1 ? "y" : "ies", need / 1e9, budget / 1e9);
  return SHARD_OK;
}

static int read_header(mtx_reader *r, mtx_header *h, shard_msg *msg) {
  ssize_t len = getline(&r->line, &r->cap, r->f);
  if (len < 0) {
    if (ferror(r->f)) return shard_msg_set(msg, SHARD_ERR_IO, "%s: read error: %s", r->path, strerror(errno));
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:1: empty file (expected a '%%%%MatrixMarket' banner)", r->path);
  }
  r->lineno = 1;
  char banner[64] = "", object[64] = "", format[64] = "", field[64] = "", symmetry[64] = "";
  int got = sscanf(r->line, "%63s %63s %63s %63s %63s", banner, object, format, field, symmetry);
  if (got < 1 || strcasecmp(banner, "%%MatrixMarket") != 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:1: not a Matrix Market file (expected a '%%%%MatrixMarket' banner)",
                         r->path);
  if (got < 5)
    return shard_msg_set(msg, SHARD_ERR_INPUT,
                         "%s:1: incomplete banner: expected '%%%%MatrixMarket matrix <format> <field> <symmetry>'",
                         r->path);
  if (strcasecmp(object, "matrix") != 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:1: unsupported object '%s' (only 'matrix')", r->path, object);
  if (strcasecmp(format, "coordinate") == 0)
    h->format = MTX_COORDINATE;
  else if (strcasecmp(format, "array") == 0)
    h->format = MTX_ARRAY;
  else
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:1: unknown format '%s' (expected 'coordinate' or 'array')", r->path,
                         format);
  if (strcasecmp(field, "real") != 0 && strcasecmp(field, "integer") != 0 && strcasecmp(field, "double") != 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:1: unsupported field '%s' (only 'real' and 'integer')", r->path,
                         field);
  if (strcasecmp(symmetry, "general") == 0)
    h->symmetric = 0;
  else if (strcasecmp(symmetry, "symmetric") == 0)
    h->symmetric = 1;
  else
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:1: unsupported symmetry '%s' (only 'general' and 'symmetric')",
                         r->path, symmetry);

  const char *s = next_data_line(r);
  if (!s) return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: missing size line", r->path, r->lineno);
  if (!parse_int_token(&s, &h->nrows) || !parse_int_token(&s, &h->ncols))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: malformed size line (expected '%s')", r->path, r->lineno,
                         h->format == MTX_COORDINATE ? "rows cols entries" : "rows cols");
  h->nnz = 0;
  if (h->format == MTX_COORDINATE && !parse_int_token(&s, &h->nnz))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: malformed size line (expected 'rows cols entries')", r->path,
                         r->lineno);
  if (!at_line_end(s))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: unexpected text after the size line", r->path, r->lineno);
  if (h->nrows < 0 || h->ncols < 0 || h->nnz < 0 || h->nrows > INT32_MAX - 1 || h->ncols > INT32_MAX - 1)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: sizes out of range (%lld x %lld, %lld entries)", r->path,
                         r->lineno, (long long)h->nrows, (long long)h->ncols, (long long)h->nnz);
  if (h->symmetric && h->nrows != h->ncols)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: a symmetric matrix must be square (%lld x %lld)", r->path,
                         r->lineno, (long long)h->nrows, (long long)h->ncols);
  int64_t cap = h->format == MTX_COORDINATE ? h->nnz : h->nrows * h->ncols;
  if (h->format == MTX_COORDINATE && h->nnz > h->nrows * h->ncols)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: %lld entries exceed the %lld x %lld matrix", r->path,
                         r->lineno, (long long)h->nnz, (long long)h->nrows, (long long)h->ncols);
  if ((h->symmetric ? 2 * cap : cap) > INT32_MAX)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: too many entries (%lld)", r->path, r->lineno,
                         (long long)cap);
  return check_sizes(r, h, msg);
}

/* growable triplet list */
typedef struct triplets {
  int32_t *i, *j;
  double *v;
  int64_t n, cap;
} triplets;

static int triplets_push(triplets *t, int32_t i, int32_t j, double v) {
  if (t->n == t->cap) {
    int64_t cap = t->cap ? 2 * t->cap : 64;
    int32_t *ni = realloc(t->i, (size_t)cap * sizeof *ni);
    if (!ni) return 0;
    t->i = ni;
    int32_t *nj = realloc(t->j, (size_t)cap * sizeof *nj);
    if (!nj) return 0;
    t->j = nj;
    double *nv = realloc(t->v, (size_t)cap * sizeof *nv);
    if (!nv) return 0;
    t->v = nv;
    t->cap = cap;
  }
  t->i[t->n] = i;
  t->j[t->n] = j;
  t->v[t->n] = v;
  t->n++;
  return 1;
}
static void triplets_free(triplets *t) {
  free(t->i);
  free(t->j);
  free(t->v);
}

static int read_entries(mtx_reader *r, const mtx_header *h, triplets *t, shard_msg *msg) {
  if (h->format == MTX_COORDINATE) {
    for (int64_t k = 0; k < h->nnz; ++k) {
      const char *s = next_data_line(r);
      if (!s)
        return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: end of file after %lld of %lld entries", r->path,
                             r->lineno, (long long)k, (long long)h->nnz);
      int64_t i, j;
      double v;
      if (!parse_int_token(&s, &i) || !parse_int_token(&s, &j))
        return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: malformed entry (expected 'row col value')", r->path,
                             r->lineno);
      int pr = parse_real_token(&s, &v);
      if (pr < 0) return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: value is not finite", r->path, r->lineno);
      if (pr == 0 || !at_line_end(s))
        return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: malformed entry (expected 'row col value')", r->path,
                             r->lineno);
      if (i < 1 || i > h->nrows || j < 1 || j > h->ncols)
        return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: index (%lld, %lld) outside the %lld x %lld matrix",
                             r->path, r->lineno, (long long)i, (long long)j, (long long)h->nrows,
                             (long long)h->ncols);
      if (h->symmetric && j > i)
        return shard_msg_set(msg, SHARD_ERR_INPUT,
                             "%s:%ld: entry (%lld, %lld) above the diagonal in a symmetric file (only the lower "
                             "triangle is stored)",
                             r->path, r->lineno, (long long)i, (long long)j);
      if (!triplets_push(t, (int32_t)(i - 1), (int32_t)(j - 1), v) ||
          (h->symmetric && i != j && !triplets_push(t, (int32_t)(j - 1), (int32_t)(i - 1), v)))
        return shard_msg_set(msg, SHARD_ERR_NOMEM, "%s: out of memory", r->path);
    }
  } else {
    for (int64_t j = 0; j < h->ncols; ++j) {
      for (int64_t i = h->symmetric ? j : 0; i < h->nrows; ++i) {
        const char *s = next_data_line(r);
        if (!s)
          return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: end of file before entry (%lld, %lld) of the array",
                               r->path, r->lineno, (long long)(i + 1), (long long)(j + 1));
        double v;
        int pr = parse_real_token(&s, &v);
        if (pr < 0) return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: value is not finite", r->path, r->lineno);
        if (pr == 0 || !at_line_end(s))
          return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: malformed value (expected one number per line)",
                               r->path, r->lineno);
        if (v == 0.0) continue;
        if (!triplets_push(t, (int32_t)i, (int32_t)j, v) ||
            (h->symmetric && i != j && !triplets_push(t, (int32_t)j, (int32_t)i, v)))
          return shard_msg_set(msg, SHARD_ERR_NOMEM, "%s: out of memory", r->path);
      }
    }
  }
  if (next_data_line(r))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: unexpected data after the last entry", r->path, r->lineno);
  if (ferror(r->f)) return shard_msg_set(msg, SHARD_ERR_IO, "%s: read error: %s", r->path, strerror(errno));
  return SHARD_OK;
}

static int read_file(const char *path, mtx_header *h, triplets *t, shard_msg *msg) {
  mtx_reader r = {0};
  r.path = path;
  r.f = fopen(path, "r");
  if (!r.f) return shard_msg_set(msg, SHARD_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  struct stat sb;
  r.file_size = fstat(fileno(r.f), &sb) == 0 && S_ISREG(sb.st_mode) ? (int64_t)sb.st_size : -1;
  int st = read_header(&r, h, msg);
  if (st == SHARD_OK) st = read_entries(&r, h, t, msg);
  free(r.line);
  fclose(r.f);
  return st;
}

void shard_mtx_matrix_free(shard_mtx_matrix *m) {
  if (!m) return;
  free(m->rowptr);
  free(m->colind);
  free(m->val);
  memset(m, 0, sizeof *m);
}

int shard_mtx_from_triplets(int32_t nrows, int32_t ncols, int64_t nnz, const int32_t *rows, const int32_t *cols,
                            const double *vals, shard_mtx_matrix *out, shard_msg *msg) {
  memset(out, 0, sizeof *out);
  if (nrows < 0 || ncols < 0 || nnz < 0 || nnz > INT32_MAX)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "bad triplet sizes (%d x %d, %lld entries)", (int)nrows, (int)ncols,
                         (long long)nnz);
  for (int64_t k = 0; k < nnz; ++k)
    if (rows[k] < 0 || rows[k] >= nrows || cols[k] < 0 || cols[k] >= ncols)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "triplet %lld: index (%d, %d) outside the %d x %d matrix",
                           (long long)k, (int)rows[k], (int)cols[k], (int)nrows, (int)ncols);
  /* bucket by column first, then by row in column order: columns come out
   * sorted within each row, in O(nnz + n) */
  size_t nz = (size_t)(nnz > 0 ? nnz : 1);
  int32_t *colptr = calloc((size_t)ncols + 1, sizeof *colptr);
  int32_t *crow = malloc(nz * sizeof *crow);
  double *cval = malloc(nz * sizeof *cval);
  int32_t *next = malloc(((size_t)(ncols > nrows ? ncols : nrows) + 1) * sizeof *next);
  out->rowptr = calloc((size_t)nrows + 1, sizeof *out->rowptr);
  out->colind = malloc(nz * sizeof *out->colind);
  out->val = malloc(nz * sizeof *out->val);
  if (!colptr || !crow || !cval || !next || !out->rowptr || !out->colind || !out->val) {
    free(colptr);
    free(crow);
    free(cval);
    free(next);
    shard_mtx_matrix_free(out);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory building a CSR with %lld entries", (long long)nnz);
  }
  for (int64_t k = 0; k < nnz; ++k) colptr[cols[k] + 1]++;
  for (int32_t j = 0; j < ncols; ++j) colptr[j + 1] += colptr[j];
  memcpy(next, colptr, (size_t)ncols * sizeof *next);
  for (int64_t k = 0; k < nnz; ++k) {
    int32_t p = next[cols[k]]++;
    crow[p] = rows[k];
    cval[p] = vals[k];
  }
  for (int64_t k = 0; k < nnz; ++k) out->rowptr[rows[k] + 1]++;
  for (int32_t i = 0; i < nrows; ++i) out->rowptr[i + 1] += out->rowptr[i];
  memcpy(next, out->rowptr, (size_t)nrows * sizeof *next);
  for (int32_t j = 0; j < ncols; ++j)
    for (int32_t p = colptr[j]; p < colptr[j + 1]; ++p) {
      int32_t q = next[crow[p]]++;
      out->colind[q] = j;
      out->val[q] = cval[p];
    }
  /* sum duplicates, compacting in place */
  int32_t w = 0;
  for (int32_t i = 0; i < nrows; ++i) {
    int32_t start = out->rowptr[i], end = out->rowptr[i + 1], row_start = w;
    for (int32_t p = start; p < end; ++p) {
      if (w > row_start && out->colind[w - 1] == out->colind[p]) {
        out->val[w - 1] += out->val[p];
      } else {
        out->colind[w] = out->colind[p];
        out->val[w] = out->val[p];
        ++w;
      }
    }
    out->rowptr[i] = row_start;
  }
  out->rowptr[nrows] = w;
  out->nrows = nrows;
  out->ncols = ncols;
  free(colptr);
  free(crow);
  free(cval);
  free(next);
  return SHARD_OK;
}

int shard_mtx_read_csr(const char *path, shard_mtx_matrix *out, shard_msg *msg) {
  memset(out, 0, sizeof *out);
  mtx_header h;
  triplets t = {0};
  int st = read_file(path, &h, &t, msg);
  if (st == SHARD_OK) {
    st = shard_mtx_from_triplets((int32_t)h.nrows, (int32_t)h.ncols, t.n, t.i, t.j, t.v, out, msg);
    if (st != SHARD_OK) shard_msg_prepend(msg, "%s", path);
  }
  triplets_free(&t);
  return st;
}

int shard_mtx_read_vector(const char *path, int32_t *out_n, double **out_x, shard_msg *msg) {
  *out_n = 0;
  *out_x = NULL;
  mtx_header h;
  triplets t = {0};
  int st = read_file(path, &h, &t, msg);
  if (st == SHARD_OK && h.ncols != 1 && h.nrows != 1)
    st = shard_msg_set(msg, SHARD_ERR_INPUT, "%s: expected a vector (n x 1 or 1 x n), found a %lld x %lld matrix",
                       path, (long long)h.nrows, (long long)h.ncols);
  if (st == SHARD_OK) {
    int64_t n = h.ncols == 1 ? h.nrows : h.ncols;
    double *x = calloc((size_t)(n > 0 ? n : 1), sizeof *x);
    if (!x) {
      st = shard_msg_set(msg, SHARD_ERR_NOMEM, "%s: out of memory for %lld values", path, (long long)n);
    } else {
      for (int64_t k = 0; k < t.n; ++k) x[h.ncols == 1 ? t.i[k] : t.j[k]] += t.v[k];
      *out_n = (int32_t)n;
      *out_x = x;
    }
  }
  triplets_free(&t);
  return st;
}

int shard_mtx_csr_to_dense(const shard_csr *a, double **out_dense, shard_msg *msg) {
  *out_dense = NULL;
  size_t n = (size_t)a->nrows * (size_t)a->ncols;
  double *d = calloc(n ? n : 1, sizeof *d);
  if (!d)
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for a dense %d x %d matrix", (int)a->nrows,
                         (int)a->ncols);
  for (int32_t i = 0; i < a->nrows; ++i)
    for (int32_t k = a->rowptr[i]; k < a->rowptr[i + 1]; ++k) d[(size_t)i * (size_t)a->ncols + (size_t)a->colind[k]] += a->val[k];
  *out_dense = d;
  return SHARD_OK;
}

/* ---------------------------------------------------------------- writing */

/* Open a temporary file beside `path`; *tmp receives its malloc'ed name. */
static int open_temp(const char *path, char **tmp, FILE **f, shard_msg *msg) {
  size_t len = strlen(path);
  char *name = malloc(len + 16);
  if (!name) return shard_msg_set(msg, SHARD_ERR_NOMEM, "%s: out of memory", path);
  memcpy(name, path, len);
  memcpy(name + len, ".tmp.XXXXXX", 12);
  int fd = mkstemp(name);
  if (fd < 0) {
    int e = errno;
    free(name);
    return shard_msg_set(msg, SHARD_ERR_IO, "%s: cannot create a temporary file: %s", path, strerror(e));
  }
  (void)fchmod(fd, 0644);
  *f = fdopen(fd, "w");
  if (!*f) {
    int e = errno;
    close(fd);
    unlink(name);
    free(name);
    return shard_msg_set(msg, SHARD_ERR_IO, "%s: cannot open a temporary file: %s", path, strerror(e));
  }
  *tmp = name;
  return SHARD_OK;
}

/* Close and rename into place, or remove the temporary on any error. */
static int commit_temp(const char *path, char *tmp, FILE *f, int write_ok, shard_msg *msg) {
  int e = 0;
  if (!write_ok || fflush(f) != 0 || ferror(f)) e = errno ? errno : EIO;
  if (fsync(fileno(f)) != 0 && !e) e = errno;
  if (fclose(f) != 0 && !e) e = errno;
  if (!e && rename(tmp, path) != 0) e = errno;
  if (e) {
    unlink(tmp);
    free(tmp);
    return shard_msg_set(msg, SHARD_ERR_IO, "%s: write failed: %s", path, strerror(e));
  }
  free(tmp);
  return SHARD_OK;
}

int shard_mtx_write_csr(const char *path, const shard_csr *a, shard_msg *msg) {
  char *tmp = NULL;
  FILE *f = NULL;
  int st = open_temp(path, &tmp, &f, msg);
  if (st != SHARD_OK) return st;
  errno = 0;
  int ok = fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%% written by shard\n%d %d %d\n",
                   (int)a->nrows, (int)a->ncols, (int)a->rowptr[a->nrows]) > 0;
  for (int32_t i = 0; ok && i < a->nrows; ++i)
    for (int32_t k = a->rowptr[i]; ok && k < a->rowptr[i + 1]; ++k)
      ok = fprintf(f, "%d %d %.17g\n", (int)i + 1, (int)a->colind[k] + 1, a->val[k]) > 0;
  return commit_temp(path, tmp, f, ok, msg);
}

int shard_mtx_write_vector(const char *path, int32_t n, const double *x, shard_msg *msg) {
  char *tmp = NULL;
  FILE *f = NULL;
  int st = open_temp(path, &tmp, &f, msg);
  if (st != SHARD_OK) return st;
  errno = 0;
  int ok = fprintf(f, "%%%%MatrixMarket matrix array real general\n%% written by shard\n%d 1\n", (int)n) > 0;
  for (int32_t i = 0; ok && i < n; ++i) ok = fprintf(f, "%.17g\n", x[i]) > 0;
  return commit_temp(path, tmp, f, ok, msg);
}
