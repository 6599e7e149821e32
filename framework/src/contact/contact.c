/* host: contact operator assembly and block-split LCP solves (see contact.h). */
#include "contact/contact.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/mtx.h"
#include "loader/plugin_calls.h"

struct shard_contact {
  int32_t ndof, ncon_max;
  int32_t cap;        /* rows the storage below holds now (<= ncon_max); grown by shard_contact_reserve */
  int32_t row_width;  /* most entries of a row of H */
  int32_t row_degree; /* most rows one row couples to in W */
  int64_t w_cap;      /* nnz capacity of the assembled operator (for cap rows) */

  /* assembled operator W */
  int32_t *w_rowptr, *w_col;
  double *w_val;
  shard_csr w;

  /* transposed active H: per DOF a linked list of (local row, value) */
  int32_t *head, *next, *erow;
  double *eval;
  int32_t *marker, *list;
  double *acc;

  /* The symbolic product, per constraint row of H (not per active set):
   * for row r, the rows s it couples to and, per pair, the products that
   * add into W(r, s) in the order of the direct assembly. Rows are built
   * when first active and kept until H's or K's pattern changes (see
   * shard_contact_operator), so a change of the active set costs nothing. */
  int reuse;             /* 0: assemble directly every call */
  int valid;             /* the snapshot and map below are current */
  int64_t epoch;         /* topology changes announced */
  int64_t builds;        /* snapshots taken (each after a change of pattern) */
  int64_t snap_epoch;
  int32_t snap_kzero, snap_nrows, snap_knrows;
  int64_t snap_knnz;
  const int32_t *snap_hrowptr, *snap_hcol, *snap_krowptr, *snap_kcol;
  int32_t *snap_hstart, *snap_hlen; /* cap: H's pattern when the map was built */
  int32_t *snap_ecol, *snap_klen;   /* cap x row_width: columns, K's row length at each */
  int32_t *map_ptr, *map_row, *map_e; /* per DOF the rows of H with an entry there, and the entry */
  int32_t fac_max;                  /* most factors of one row (its H entries and their K rows) */
  double *fac;                      /* fac_max: b and f of the row at hand */
  int32_t *row_gen, gen;            /* row built in generation gen (rows of older ones are stale) */
  int32_t *row_ent0, *row_nent, *row_item0; /* cap: the row's pairs and items in the pools */
  int32_t *rloc;                    /* cap: local index of an active row, -1 */
  int32_t *stamp, *tpos;            /* cap: scratch of a row build (products per pair, pair index) */
  int32_t *ent;                     /* pairs, two ints each: the other row, its products */
  int64_t ent_cap, ent_used;
  int32_t *item;                    /* products, two ints each: the row's factor, the other row's H entry */
  int64_t item_cap, item_used;

  /* block splitting */
  int32_t *parent, *count, *start, *order, *loc;
  int64_t b_cap;
  int32_t *b_rowptr, *b_col;
  double *b_val, *b_q, *b_z, *b_w, *dense;
  int32_t dense_max;

  shard_contact_policy policy;
  int64_t step;
  double t;
};

static void *xcalloc(size_t n, size_t size) { return calloc(n ? n : 1, size); }

static int setup_solvers(const shard_contact *c, shard_msg *msg);

/* The sizes of the storage for `rows` rows. */
static void sizes_for(const shard_contact *c, int32_t rows, int64_t *w_cap, int32_t *dense_max, int64_t *b_cap) {
  const int64_t deg = c->row_degree < rows ? c->row_degree : rows;
  *w_cap = (int64_t)rows * deg + 1;
  *dense_max = rows < SHARD_CONTACT_DENSE_MAX ? rows : SHARD_CONTACT_DENSE_MAX;
  const int64_t dense_nnz = (int64_t)*dense_max * *dense_max;
  *b_cap = *w_cap > dense_nnz ? *w_cap : dense_nnz;
}

/* *p from n_old to n_new elements of `size` bytes, the first n_old kept
 * when `keep` (else contents undefined: scratch), the others filled with
 * bytes `fill` (0, or 0xff: -1 in int32_t). A new block, zero-filled by
 * calloc, so that pages nothing writes stay unmapped as in a block sized
 * once (a realloc would write every page of the tail). 1 when done; 0 when
 * out of memory (*p then unchanged and still valid). */
static int resize(void **p, size_t n_old, size_t n_new, size_t size, int fill, int keep) {
  if (n_new <= n_old && *p) return 1;
  char *q = calloc(n_new ? n_new : 1, size);
  if (!q) return 0;
  if (keep && *p && n_old) memcpy(q, *p, n_old * size);
  if (fill) memset(q + (keep ? n_old : 0) * size, fill, (n_new - (keep ? n_old : 0)) * size);
  free(*p);
  *p = q;
  return 1;
}

/* Every per-row array from c->cap rows to `rows` rows (contents kept, new
 * rows' entries initialised as at creation); c->cap and the capacities set
 * only when every array has its new size. SHARD_OK or SHARD_ERR_NOMEM
 * (c still valid for its old cap). */
static int grow_rows(shard_contact *c, int32_t rows, shard_msg *msg) {
  const int32_t old = c->cap;
  int64_t w_cap, b_cap, ow_cap, ob_cap;
  int32_t dense_max, odense_max;
  sizes_for(c, rows, &w_cap, &dense_max, &b_cap);
  if (old > 0)
    sizes_for(c, old, &ow_cap, &odense_max, &ob_cap);
  else
    ow_cap = ob_cap = 0, odense_max = 0;
  const size_t w = (size_t)c->row_width;
  const size_t nc0 = old > 0 ? (size_t)old + 1 : 0, nc = (size_t)rows + 1;
  const size_t nh0 = old > 0 ? w * (size_t)old + 1 : 0, nh = w * (size_t)rows + 1;
  const size_t dn0 = (size_t)odense_max * (size_t)odense_max, dn = (size_t)dense_max * (size_t)dense_max;
  const size_t I = sizeof(int32_t), D = sizeof(double);
  /* kept: W (handed out), the pattern snapshot and the rows of the symbolic
   * product; the others are scratch of one call */
  struct {
    void **p;
    size_t n0, n, size;
    int fill, keep;
  } a[] = {
      {(void **)&c->w_rowptr, nc0, nc, I, 0, 1},
      {(void **)&c->w_col, (size_t)ow_cap, (size_t)w_cap, I, 0, 1},
      {(void **)&c->w_val, (size_t)ow_cap, (size_t)w_cap, D, 0, 1},
      {(void **)&c->next, nh0, nh, I, 0, 0},
      {(void **)&c->erow, nh0, nh, I, 0, 0},
      {(void **)&c->eval, nh0, nh, D, 0, 0},
      {(void **)&c->marker, nc0, nc, I, 0xff, 1},
      {(void **)&c->list, nc0, nc, I, 0, 0},
      {(void **)&c->acc, nc0, nc, D, 0, 0},
      {(void **)&c->snap_hstart, nc0, nc, I, 0, 1},
      {(void **)&c->snap_hlen, nc0, nc, I, 0, 1},
      {(void **)&c->snap_ecol, nh0, nh, I, 0, 1},
      {(void **)&c->snap_klen, nh0, nh, I, 0, 1},
      {(void **)&c->map_row, nh0, nh, I, 0, 1},
      {(void **)&c->map_e, nh0, nh, I, 0, 1},
      {(void **)&c->row_gen, nc0, nc, I, 0, 1},
      {(void **)&c->row_ent0, nc0, nc, I, 0, 1},
      {(void **)&c->row_nent, nc0, nc, I, 0, 1},
      {(void **)&c->row_item0, nc0, nc, I, 0, 1},
      {(void **)&c->rloc, nc0, nc, I, 0xff, 1},
      {(void **)&c->stamp, nc0, nc, I, 0, 0},
      {(void **)&c->tpos, nc0, nc, I, 0xff, 1},
      {(void **)&c->parent, nc0, nc, I, 0, 0},
      {(void **)&c->count, nc0, nc, I, 0, 0},
      {(void **)&c->start, nc0 ? nc0 + 1 : 0, nc + 1, I, 0, 0},
      {(void **)&c->order, nc0, nc, I, 0, 0},
      {(void **)&c->loc, nc0, nc, I, 0, 0},
      {(void **)&c->b_rowptr, nc0, nc, I, 0, 0},
      {(void **)&c->b_col, (size_t)ob_cap, (size_t)b_cap, I, 0, 0},
      {(void **)&c->b_val, (size_t)ob_cap, (size_t)b_cap, D, 0, 0},
      {(void **)&c->b_q, nc0, nc, D, 0, 0},
      {(void **)&c->b_z, nc0, nc, D, 0, 0},
      {(void **)&c->b_w, nc0, nc, D, 0, 0},
      {(void **)&c->dense, dn0, dn, D, 0, 0},
  };
  for (size_t i = 0; i < sizeof a / sizeof a[0]; ++i)
    if (!resize(a[i].p, a[i].n0, a[i].n, a[i].size, a[i].fill, a[i].keep))
      return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory (%lld operator entries)", (long long)b_cap);
  c->cap = rows;
  c->w_cap = w_cap;
  c->dense_max = dense_max;
  c->b_cap = b_cap;
  /* the operator handed out last keeps its values, at their new address */
  c->w.rowptr = c->w_rowptr, c->w.colind = c->w_col, c->w.val = c->w_val;
  return SHARD_OK;
}

int shard_contact_create_rows(shard_contact **out, int32_t ndof_max, int32_t ncon_max, int32_t ncon_init,
                              int32_t row_width, int32_t row_degree, shard_msg *msg) {
  *out = NULL;
  if (ncon_max < 1) ncon_max = 1;
  shard_contact *c = xcalloc(1, sizeof *c);
  if (!c) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  const int32_t ndof = ndof_max;
  c->ndof = ndof;
  c->ncon_max = ncon_max;
  c->row_width = row_width > 0 ? row_width : 2;
  c->row_degree = row_degree > 0 ? row_degree : 1;
  c->reuse = 1;
  int64_t rows = ncon_init > SHARD_CONTACT_INITIAL_ROWS / 2 ? 2 * (int64_t)ncon_init : SHARD_CONTACT_INITIAL_ROWS;
  if (rows > ncon_max) rows = ncon_max;
  c->head = malloc(((size_t)ndof + 1) * sizeof(int32_t));
  c->map_ptr = xcalloc((size_t)ndof + 2, sizeof(int32_t));
  int st = c->head && c->map_ptr ? SHARD_OK : shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for %d DOFs", (int)ndof);
  if (st == SHARD_OK && (st = grow_rows(c, (int32_t)rows, msg)) != SHARD_OK)
    shard_msg_prepend(msg, "contact storage for %d constraint rows", (int)rows);
  if (st != SHARD_OK) {
    shard_contact_destroy(c);
    return st;
  }
  for (int32_t d = 0; d <= ndof; ++d) c->head[d] = -1;
  *out = c;
  return SHARD_OK;
}

int shard_contact_create(shard_contact **out, int32_t ndof_max, int32_t ncon_max, int32_t row_width,
                         int32_t row_degree, shard_msg *msg) {
  return shard_contact_create_rows(out, ndof_max, ncon_max, ncon_max, row_width, row_degree, msg);
}

int32_t shard_contact_capacity(const shard_contact *c) { return c->cap; }

int shard_contact_reserve(shard_contact *c, int32_t nrows, shard_msg *msg) {
  if (nrows <= c->cap) return SHARD_OK;
  if (nrows > c->ncon_max)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL, "contact storage: %d constraint rows exceed the model's maximum %d",
                         (int)nrows, (int)c->ncon_max);
  int64_t rows = c->cap > 0 ? c->cap : 1;
  while (rows < nrows) rows *= 2;
  if (rows > c->ncon_max) rows = c->ncon_max;
  int st = grow_rows(c, (int32_t)rows, msg);
  if (st == SHARD_OK) st = setup_solvers(c, msg); /* they were set up for the old sizes */
  if (st != SHARD_OK) shard_msg_prepend(msg, "growing the contact storage to %d constraint rows", (int)rows);
  return st;
}

void shard_contact_destroy(shard_contact *c) {
  if (!c) return;
  free(c->w_rowptr), free(c->w_col), free(c->w_val), free(c->head), free(c->next), free(c->erow), free(c->eval);
  free(c->marker), free(c->list), free(c->acc), free(c->parent), free(c->count), free(c->start), free(c->order);
  free(c->loc), free(c->b_rowptr), free(c->b_col), free(c->b_val), free(c->b_q), free(c->b_z), free(c->b_w);
  free(c->dense);
  free(c->snap_hstart), free(c->snap_hlen), free(c->snap_ecol), free(c->snap_klen), free(c->map_ptr);
  free(c->map_row), free(c->map_e), free(c->fac), free(c->row_gen), free(c->row_ent0), free(c->row_nent);
  free(c->row_item0), free(c->rloc), free(c->stamp), free(c->tpos), free(c->ent), free(c->item);
  free(c);
}

static int setup_solver(const shard_contact *c, const shard_contact_solver *s, shard_msg *msg) {
  if (!s->ops) return SHARD_OK;
  const int dense = (s->caps & SHARD_CAP_LCP_DENSE) != 0;
  const int32_t n_max = dense ? c->dense_max : c->cap;
  int st = shard_lcp_solver_setup(s->ops, s->self, n_max, c->b_cap, msg);
  if (st != SHARD_OK) shard_msg_prepend(msg, "lcp '%s': setup for %d unknowns", s->name, (int)n_max);
  return st;
}

/* the policy's primary and fallback solvers, for the current storage */
static int setup_solvers(const shard_contact *c, shard_msg *msg) {
  int st = setup_solver(c, &c->policy.primary, msg);
  if (st == SHARD_OK) st = setup_solver(c, &c->policy.fallback, msg);
  return st;
}

int shard_contact_set_policy(shard_contact *c, const shard_contact_policy *policy, shard_msg *msg) {
  c->policy = *policy;
  return setup_solvers(c, msg);
}

void shard_contact_set_step(shard_contact *c, int64_t step, double t) {
  c->step = step;
  c->t = t;
}

static void sort_ints(int32_t *a, int32_t n) {
  for (int32_t i = 1; i < n; ++i) {
    int32_t x = a[i], j = i - 1;
    while (j >= 0 && a[j] > x) a[j + 1] = a[j], --j;
    a[j + 1] = x;
  }
}

/* The transposed map of the active rows: per DOF a linked list of the
 * entries (local row, value). A row wider than the model
 * declared is refused, the map built so far undone. */
static int map_rows(shard_contact *c, const shard_csr *h, const int32_t *rows, int32_t n, shard_msg *msg) {
  int32_t ne = 0;
  for (int32_t i = 0; i < n; ++i) {
    const int32_t r = rows[i];
    if (h->rowptr[r + 1] - h->rowptr[r] > c->row_width) {
      for (int32_t u = 0; u < i; ++u) /* undo the map built so far */
        for (int32_t e = h->rowptr[rows[u]]; e < h->rowptr[rows[u] + 1]; ++e) c->head[h->colind[e]] = -1;
      return shard_msg_set(msg, SHARD_ERR_INTERNAL, "contact operator: row %d has %d entries, the model declared at most %d",
                           (int)r, (int)(h->rowptr[r + 1] - h->rowptr[r]), (int)c->row_width);
    }
    for (int32_t e = h->rowptr[r]; e < h->rowptr[r + 1]; ++e, ++ne) {
      const int32_t d = h->colind[e];
      c->erow[ne] = i;
      c->eval[ne] = h->val[e];
      c->next[ne] = c->head[d];
      c->head[d] = ne;
    }
  }
  return SHARD_OK;
}

/* reset the touched lists and markers: O(active) */
static void unmap_rows(shard_contact *c, const shard_csr *h, const int32_t *rows, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    const int32_t r = rows[i];
    for (int32_t e = h->rowptr[r]; e < h->rowptr[r + 1]; ++e) c->head[h->colind[e]] = -1;
    c->marker[i] = -1;
  }
}

/* W assembled from scratch: per row of W, the products of its H entries
 * with the other rows' entries through the map (and through K's row),
 * accumulated by column, the columns sorted, exact zeros off the diagonal
 * dropped. */
static int assemble_direct(shard_contact *c, const shard_csr *h, const double *minv, const shard_csr *k,
                           const int32_t *rows, int32_t n, double kcoef, shard_msg *msg) {
  int st = map_rows(c, h, rows, n, msg);
  if (st != SHARD_OK) return st;
  int64_t nnz = 0;
  c->w_rowptr[0] = 0;
  for (int32_t i = 0; i < n && st == SHARD_OK; ++i) {
    const int32_t r = rows[i];
    int32_t len = 0;
    for (int32_t e = h->rowptr[r]; e < h->rowptr[r + 1]; ++e) {
      const int32_t dk = h->colind[e];
      const double b = h->val[e] * minv[dk];
      if (b == 0.0) continue;
      for (int32_t x = c->head[dk]; x >= 0; x = c->next[x]) {
        const int32_t j = c->erow[x];
        if (c->marker[j] != i) c->marker[j] = i, c->acc[j] = 0.0, c->list[len++] = j;
        c->acc[j] += b * c->eval[x];
      }
      if (kcoef == 0.0) continue;
      for (int32_t p = k->rowptr[dk]; p < k->rowptr[dk + 1]; ++p) {
        const int32_t dl = k->colind[p];
        const double f = kcoef * b * k->val[p] * minv[dl];
        if (f == 0.0) continue;
        for (int32_t x = c->head[dl]; x >= 0; x = c->next[x]) {
          const int32_t j = c->erow[x];
          if (c->marker[j] != i) c->marker[j] = i, c->acc[j] = 0.0, c->list[len++] = j;
          c->acc[j] -= f * c->eval[x];
        }
      }
    }
    sort_ints(c->list, len);
    if (nnz + len > c->w_cap) {
      st = shard_msg_set(msg, SHARD_ERR_INTERNAL, "contact operator: more than %lld entries", (long long)c->w_cap);
      break;
    }
    for (int32_t q = 0; q < len; ++q) {
      const int32_t j = c->list[q];
      if (c->acc[j] == 0.0 && j != i) continue;
      c->w_col[nnz] = j;
      c->w_val[nnz++] = c->acc[j];
    }
    c->w_rowptr[i + 1] = (int32_t)nnz;
  }
  unmap_rows(c, h, rows, n);
  return st;
}

/* room for `need` entries in two arrays of one capacity, of `sa`- and
 * `sb`-byte elements (b NULL: one array). The symbolic product's storage grows only while rows
 * are built, by doubling. */
static int grow(int64_t *cap, int64_t need, void **a, size_t sa, void **b, size_t sb) {
  if (need <= *cap) return 1;
  if (need > INT32_MAX) return 0;
  int64_t nc = *cap > 0 ? *cap : 1024;
  while (nc < need) nc *= 2;
  void *p = realloc(*a, (size_t)nc * sa);
  if (!p) return 0;
  *a = p;
  if (b) {
    void *q = realloc(*b, (size_t)nc * sb);
    if (!q) return 0; /* *a larger than *cap says: harmless */
    *b = q;
  }
  *cap = nc;
  return 1;
}

/* what assemble_kept returns besides a status (which is 0 or negative) */
enum { KEPT_STALE = 1, KEPT_DIRECT = 2 };

/* The patterns the kept rows rely on: per row of H its first entry, length
 * and columns, and the length of K's row at each column; and the map of
 * every DOF to the rows of H with an entry there (rows in order, a row's
 * entries in decreasing order, as the direct assembly's lists give them).
 * Drops every row built so far. O(ndof + nnz(H)), after a change of
 * pattern only. Returns 0, or -1 when H exceeds the storage or the scratch
 * could not grow (the caller assembles directly). */
static int take_snapshot(shard_contact *c, const shard_csr *h, const shard_csr *k, int kzero) {
  c->valid = 0;
  const int32_t nr = h->nrows, w = c->row_width, nd = c->ndof;
  if (nr > c->cap || h->ncols > nd) return -1;
  int32_t *ptr = c->map_ptr;
  for (int32_t d = 0; d <= nd + 1; ++d) ptr[d] = 0;
  int32_t fmax = 0;
  for (int32_t r = 0; r < nr; ++r) {
    const int32_t e0 = h->rowptr[r], len = h->rowptr[r + 1] - e0;
    c->snap_hstart[r] = e0;
    c->snap_hlen[r] = len;
    if (len > w) continue; /* refused when active */
    int32_t f = 0;
    for (int32_t q = 0; q < len; ++q) {
      const int32_t d = h->colind[e0 + q], kl = kzero ? 0 : k->rowptr[d + 1] - k->rowptr[d];
      c->snap_ecol[(size_t)r * w + q] = d;
      c->snap_klen[(size_t)r * w + q] = kl;
      f += 1 + kl;
      ptr[d + 2]++;
    }
    if (f > fmax) fmax = f;
  }
  for (int32_t d = 2; d <= nd + 1; ++d) ptr[d] += ptr[d - 1];
  for (int32_t r = 0; r < nr; ++r) {
    const int32_t e0 = c->snap_hstart[r], len = c->snap_hlen[r];
    if (len > w) continue;
    for (int32_t q = len - 1; q >= 0; --q) {
      const int32_t x = ptr[c->snap_ecol[(size_t)r * w + q] + 1]++;
      c->map_row[x] = r;
      c->map_e[x] = e0 + q;
    }
  }
  if (fmax > c->fac_max) {
    double *f = realloc(c->fac, (size_t)fmax * sizeof(double));
    if (!f) return -1;
    c->fac = f;
    c->fac_max = fmax;
  }
  if (c->gen == INT32_MAX) {
    for (int32_t r = 0; r < c->cap; ++r) c->row_gen[r] = 0;
    c->gen = 0;
  }
  ++c->gen;
  c->ent_used = c->item_used = 0;
  c->valid = 1;
  ++c->builds;
  c->snap_epoch = c->epoch;
  c->snap_kzero = kzero;
  c->snap_nrows = nr;
  c->snap_hrowptr = h->rowptr, c->snap_hcol = h->colind;
  c->snap_krowptr = kzero ? NULL : k->rowptr, c->snap_kcol = kzero ? NULL : k->colind;
  c->snap_knrows = kzero ? 0 : k->nrows;
  c->snap_knnz = kzero ? 0 : k->rowptr[k->nrows];
  return 0;
}

/* Row r of the symbolic product, from the snapshot: the rows s it couples
 * to (in increasing order) and, per pair, its products in the order the
 * direct assembly adds them (by H entry of r, then the H part before K's
 * row in order; for one (entry, K entry) at most one product per s). Only
 * the patterns are read. Returns 0, or -1 when the pools could not grow. */
static int build_row(shard_contact *c, const shard_csr *k, int32_t r) {
  const int32_t len = c->snap_hlen[r], w = c->row_width;
  const int32_t *ecol = c->snap_ecol + (size_t)r * w, *eklen = c->snap_klen + (size_t)r * w;
  int32_t *cnt = c->stamp, *tpos = c->tpos, *pairs = c->list;
  int32_t np = 0;
  int64_t ni = 0;
  for (int pass = 0; pass < 2; ++pass) {
    int32_t fi = 0;
    for (int32_t q = 0; q < len; ++q)
      for (int32_t qq = -1; qq < eklen[q]; ++qq, ++fi) {
        const int32_t d = qq < 0 ? ecol[q] : k->colind[k->rowptr[ecol[q]] + qq];
        for (int32_t x = c->map_ptr[d]; x < c->map_ptr[d + 1]; ++x) {
          const int32_t s = c->map_row[x];
          if (pass == 0) {
            if (tpos[s] < 0) tpos[s] = np, pairs[np++] = s, cnt[s] = 0;
            cnt[s]++, ni++;
          } else {
            const int32_t at = cnt[s]++;
            c->item[2 * at] = fi;
            c->item[2 * at + 1] = c->map_e[x];
          }
        }
      }
    if (pass == 1) break;
    sort_ints(pairs, np);
    if (!grow(&c->ent_cap, c->ent_used + np, (void **)&c->ent, 2 * sizeof(int32_t), NULL, 0) ||
        !grow(&c->item_cap, c->item_used + ni, (void **)&c->item, 2 * sizeof(int32_t), NULL, 0)) {
      for (int32_t q = 0; q < np; ++q) tpos[pairs[q]] = -1;
      return -1;
    }
    int64_t at = c->item_used;
    for (int32_t q = 0; q < np; ++q) { /* counts to the first item of each pair */
      const int32_t s = pairs[q];
      int32_t *ent = c->ent + 2 * (c->ent_used + q);
      ent[0] = s;
      ent[1] = cnt[s];
      cnt[s] = (int32_t)at;
      at += ent[1];
      tpos[s] = -1;
    }
  }
  c->row_ent0[r] = (int32_t)c->ent_used;
  c->row_nent[r] = np;
  c->row_item0[r] = (int32_t)c->item_used;
  c->row_gen[r] = c->gen;
  c->ent_used += np;
  c->item_used += ni;
  return 0;
}

/* W from the kept rows: per active row its factors (b = h M^-1 per H entry,
 * f = kcoef b K M^-1 per entry of K's row, as the direct assembly computes
 * them; f kept as -f), then per pair with an active row the products in
 * their order with the same zero tests (b = 0 or f = 0: left out), so the
 * same bits: acc + (-f) x is acc - f x exactly, and a left-out product adds
 * +0, which changes no sum that starts at +0 (it never becomes -0); an
 * entry nothing was added to, and an exact zero off the diagonal, is not
 * written. It checks each active row against the snapshot as it goes.
 * Returns 0; KEPT_STALE when a row's pattern or a K row length is not the
 * snapshot's (W not written); KEPT_DIRECT when a row could not be built; or
 * a status with msg set. */
static int assemble_kept(shard_contact *c, const shard_csr *h, const double *minv, const shard_csr *k,
                         const int32_t *rows, int32_t n, double kcoef, shard_msg *msg) {
  const int kzero = c->snap_kzero;
  const int32_t w = c->row_width;
  const int32_t *restrict hrp = h->rowptr, *restrict hcol = h->colind;
  const double *restrict hv = h->val;
  const int32_t *restrict krp = kzero ? NULL : k->rowptr, *restrict kcol = kzero ? NULL : k->colind;
  const double *restrict kv = kzero ? NULL : k->val;
  double *restrict fac = c->fac, *restrict out = c->acc;
  int32_t *restrict rloc = c->rloc, *restrict js = c->list;
  int32_t *restrict wcol = c->w_col;
  double *restrict wval = c->w_val;
  int res = 0;
  int64_t nnz = 0;
  for (int32_t i = 0; i < n; ++i) {
    if (rows[i] < 0 || rows[i] >= c->snap_nrows) {
      for (int32_t u = 0; u < i; ++u) rloc[rows[u]] = -1;
      return KEPT_DIRECT;
    }
    rloc[rows[i]] = i;
  }
  c->w_rowptr[0] = 0;
  for (int32_t i = 0; i < n && res == 0; ++i) {
    const int32_t r = rows[i], e0 = hrp[r], len = hrp[r + 1] - e0;
    if (len > w) {
      res = shard_msg_set(msg, SHARD_ERR_INTERNAL, "contact operator: row %d has %d entries, the model declared at most %d",
                          (int)r, (int)len, (int)w);
      break;
    }
    if (e0 != c->snap_hstart[r] || len != c->snap_hlen[r]) {
      res = KEPT_STALE;
      break;
    }
    const int32_t *ecol = c->snap_ecol + (size_t)r * w, *eklen = c->snap_klen + (size_t)r * w;
    int32_t fi = 0;
    int any = 0;
    for (int32_t q = 0; q < len; ++q) {
      const int32_t dk = hcol[e0 + q];
      if (dk != ecol[q]) {
        res = KEPT_STALE;
        break;
      }
      const double b = hv[e0 + q] * minv[dk];
      fac[fi++] = b;
      any |= b != 0.0;
      if (kzero) continue;
      const int32_t p0 = krp[dk], p1 = krp[dk + 1];
      if (p1 - p0 != eklen[q]) {
        res = KEPT_STALE;
        break;
      }
      if (b == 0.0)
        for (int32_t p = p0; p < p1; ++p) fac[fi++] = 0.0;
      else
        for (int32_t p = p0; p < p1; ++p) fac[fi++] = -(kcoef * b * kv[p] * minv[kcol[p]]);
    }
    if (res != 0) break;
    if (c->row_gen[r] != c->gen && build_row(c, k, r) != 0) {
      res = KEPT_DIRECT;
      break;
    }
    const int32_t *restrict ent = c->ent + 2 * (int64_t)c->row_ent0[r], *restrict item = c->item;
    const int32_t np = c->row_nent[r];
    int64_t it = c->row_item0[r];
    int32_t m = 0;
    for (int32_t t = 0; t < np; ++t) {
      const int32_t j = rloc[ent[2 * t]];
      const int64_t end = it + ent[2 * t + 1];
      if (j < 0) {
        it = end;
        continue;
      }
      double acc = 0.0;
      for (; it < end; ++it) {
        const double v = fac[item[2 * it]], x = v * hv[item[2 * it + 1]];
        acc += v != 0.0 ? x : 0.0;
      }
      if (j == i ? !any : acc == 0.0) continue;
      int32_t q = m++; /* insertion by local column: the rows' order, usually already sorted */
      while (q > 0 && js[q - 1] > j) js[q] = js[q - 1], out[q] = out[q - 1], --q;
      js[q] = j, out[q] = acc;
    }
    if (nnz + m > c->w_cap) {
      res = shard_msg_set(msg, SHARD_ERR_INTERNAL, "contact operator: more than %lld entries", (long long)c->w_cap);
      break;
    }
    for (int32_t q = 0; q < m; ++q) wcol[nnz] = js[q], wval[nnz++] = out[q];
    c->w_rowptr[i + 1] = (int32_t)nnz;
  }
  for (int32_t i = 0; i < n; ++i) rloc[rows[i]] = -1;
  return res;
}

void shard_contact_topology_changed(shard_contact *c) { ++c->epoch; }

int64_t shard_contact_operator_builds(const shard_contact *c) { return c->builds; }

void shard_contact_set_reuse(shard_contact *c, int reuse) {
  c->reuse = reuse != 0;
  c->valid = 0;
}

/* W = H_R M^-1 (M - kcoef K) M^-1 H_R^T. The snapshot of the patterns is
 * retaken when H's or K's storage, size or entry count, whether kcoef is 0,
 * or (announced by shard_contact_topology_changed) the topology changed, or
 * when an active row's pattern or a K row length at its columns differs
 * from it; the rows of the symbolic product are built when first active
 * after it. Otherwise only values are computed: O(active rows), no linked
 * lists, markers or sorting, nothing allocated (the pools grow by doubling
 * only while rows are built, and hold every row of H once grown: when they
 * cannot grow, the assembly from scratch serves). */
int shard_contact_operator(shard_contact *c, const shard_csr *h, const double *minv, const shard_csr *k,
                           const int32_t *rows, int32_t n, double kcoef, const shard_csr **out_w, shard_msg *msg) {
  if (n > c->cap) /* the host reserves between steps: nothing grows inside one */
    return shard_msg_set(msg, SHARD_ERR_INTERNAL,
                         "contact operator: %d rows exceed the storage for %d reserved before this step", (int)n,
                         (int)c->cap);
  int st = SHARD_OK;
  const int kzero = kcoef == 0.0;
  int res = KEPT_DIRECT;
  if (c->reuse) {
    int fresh = c->valid && c->snap_epoch == c->epoch && c->snap_kzero == kzero && c->snap_hrowptr == h->rowptr &&
                c->snap_hcol == h->colind && c->snap_nrows == h->nrows;
    if (fresh && !kzero)
      fresh = c->snap_krowptr == k->rowptr && c->snap_kcol == k->colind && c->snap_knrows == k->nrows &&
              c->snap_knnz == k->rowptr[k->nrows];
    res = fresh ? assemble_kept(c, h, minv, k, rows, n, kcoef, msg) : KEPT_STALE;
    if (res == KEPT_STALE) {
      res = take_snapshot(c, h, k, kzero) == 0 ? assemble_kept(c, h, minv, k, rows, n, kcoef, msg) : KEPT_DIRECT;
      if (res == KEPT_STALE) res = shard_msg_set(msg, SHARD_ERR_INTERNAL, "contact operator: its pattern snapshot does not match");
    }
    if (res != KEPT_DIRECT) st = res;
  }
  if (res == KEPT_DIRECT) st = assemble_direct(c, h, minv, k, rows, n, kcoef, msg);
  c->w = (shard_csr){.nrows = n, .ncols = n, .rowptr = c->w_rowptr, .colind = c->w_col, .val = c->w_val};
  *out_w = &c->w;
  return st;
}

int shard_contact_operator_model(shard_contact *c, shard_contact_fill fill, void *model, const int32_t *rows,
                                 int32_t n, double kcoef, const shard_csr **out_w, shard_msg *msg) {
  if (n > c->cap)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL,
                         "contact operator: %d rows exceed the storage for %d reserved before this step", (int)n,
                         (int)c->cap);
  const int st = fill(model, rows, n, kcoef, c->w_rowptr, c->w_col, c->w_val, c->w_cap, msg);
  if (st != SHARD_OK) return st;
  c->w = (shard_csr){.nrows = n, .ncols = n, .rowptr = c->w_rowptr, .colind = c->w_col, .val = c->w_val};
  *out_w = &c->w;
  return SHARD_OK;
}

static int32_t uf_find(int32_t *parent, int32_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* Write block `block` of this step as NAME.M.mtx, NAME.q.mtx (and NAME.z.mtx
 * when z is given); a failure is appended to msg, never fatal. */
static void dump_block(const shard_contact *c, int32_t block, const shard_lcp_problem *p, const double *z,
                       shard_msg *msg) {
  char mpath[4096], qpath[4096], zpath[4096];
  shard_msg m2;
  const char *dir = c->policy.dump_dir ? c->policy.dump_dir : ".";
  snprintf(mpath, sizeof mpath, "%s/lcp_step%lld_block%d.M.mtx", dir, (long long)c->step, (int)block);
  snprintf(qpath, sizeof qpath, "%s/lcp_step%lld_block%d.q.mtx", dir, (long long)c->step, (int)block);
  snprintf(zpath, sizeof zpath, "%s/lcp_step%lld_block%d.z.mtx", dir, (long long)c->step, (int)block);
  if (shard_mtx_write_csr(mpath, p->csr, &m2) != SHARD_OK || shard_mtx_write_vector(qpath, p->n, p->q, &m2) != SHARD_OK ||
      (z && shard_mtx_write_vector(zpath, p->n, z, &m2) != SHARD_OK)) {
    size_t len = strlen(msg->text);
    snprintf(msg->text + len, sizeof msg->text - len, " (dump failed: %s)", m2.text);
    return;
  }
  size_t len = strlen(msg->text);
  snprintf(msg->text + len, sizeof msg->text - len, " (problem written to %s and %s)", mpath, qpath);
}

static int solve_with(const shard_contact_solver *s, const shard_lcp_problem *p, double *z, double *w,
                      shard_lcp_report *rep, shard_msg *msg) {
  memset(rep, 0, sizeof *rep);
  for (int32_t i = 0; i < p->n; ++i) /* warm start: the caller's guess, made feasible */
    if (!(z[i] > 0.0)) z[i] = 0.0;
  msg->text[0] = '\0';
  int st = shard_lcp_solver_solve(s->ops, s->self, p, z, w, rep, msg);
  if (st == SHARD_OK && rep->status != SHARD_OK) st = rep->status;
  if (st == SHARD_OK) {
    for (int32_t i = 0; i < p->n; ++i)
      if (!isfinite(z[i])) return shard_msg_set(msg, SHARD_ERR_NUMERIC, "non-finite impulse returned");
  } else if (msg->text[0] == '\0') {
    shard_msg_set(msg, st, "%s", shard_status_str(st));
  }
  return st;
}

/* The host's check of a solution its solver reports as solved, on the
 * block as solved: w = W z + q from the CSR view (into w, which the solver
 * filled: its own w is not trusted), the scale s = max(|q|_inf, |Wz|_inf)
 * and the complementarity residual max_i |min(z_i, w_i)| / s, the measure
 * of shard_lcp_residual: it is >= |z_i| / s for a negative impulse, >=
 * |w_i| / s for a violated constraint and >= min(z_i, w_i) / s when both
 * are positive. One pass over the block's entries, nothing allocated.
 * Kept out of line so that a profile shows its share of the step. */
__attribute__((noinline)) static int host_check(const shard_lcp_problem *p, const double *z, double *w, double tol,
                                                double *out_res, shard_msg *msg) {
  const double r = shard_lcp_residual(p, z, w); /* w = Wz + q, recomputed */
  *out_res = r;
  if (r <= tol) return SHARD_OK; /* a NaN fails here too */
  int32_t iw = 0; /* the worst contact, for the message: only on failure */
  double worst = -1.0;
  for (int32_t i = 0; i < p->n; ++i) {
    const double m = fabs(z[i] < w[i] ? z[i] : w[i]);
    if (!(m <= worst)) worst = m, iw = i;
  }
  const double zi = z[iw], wi = w[iw];
  const char *what = !(zi >= 0.0) ? "negative impulse" : !(wi >= 0.0) ? "violated constraint (w < 0)"
                                                                         : "not complementary (z > 0 and w > 0)";
  return shard_msg_set(msg, SHARD_ERR_NUMERIC,
                       "reported success, but the host's check of its solution fails at contact %d of %d: %s, "
                       "z = %.6g, w = %.6g; residual %.3g above the check tolerance %.3g",
                       (int)iw, (int)p->n, what, zi, wi, r, tol);
}

/* The dense row-major copy of a block, for a solver with SHARD_CAP_LCP_DENSE
 * that is about to solve it (made once, and only then: a sparse primary with
 * a dense fallback copies nothing while the primary succeeds). */
static void dense_view(shard_contact *c, const shard_contact_solver *s, shard_lcp_problem *prob) {
  if (!(s->caps & SHARD_CAP_LCP_DENSE) || prob->dense || prob->n > c->dense_max) return;
  memset(c->dense, 0, (size_t)prob->n * (size_t)prob->n * sizeof(double));
  const shard_csr *a = prob->csr;
  for (int32_t i = 0; i < a->nrows; ++i)
    for (int32_t e = a->rowptr[i]; e < a->rowptr[i + 1]; ++e) c->dense[(size_t)i * a->nrows + a->colind[e]] = a->val[e];
  prob->dense = c->dense;
}

/* Whether a block is in the class of SHARD_CAP_LCP_TRIDIAGONAL_Z, in its
 * row order: entries only on |i - j| <= 1 (explicit zeros allowed), a
 * positive finite diagonal, finite off-diagonals <= 0 (duplicates summed as
 * the solver sums them). O(nnz). 1, or 0 with the first offending entry in
 * msg. */
static int tridiagonal_z(const shard_csr *a, shard_msg *msg) {
  for (int32_t i = 0; i < a->nrows; ++i) {
    double d = 0.0, lo = 0.0, up = 0.0;
    for (int32_t e = a->rowptr[i]; e < a->rowptr[i + 1]; ++e) {
      const int32_t j = a->colind[e];
      const double v = a->val[e];
      if (j == i) d += v;
      else if (j == i - 1) lo += v;
      else if (j == i + 1) up += v;
      else if (v != 0.0) {
        shard_msg_set(msg, SHARD_ERR_UNSUPPORTED, "not tridiagonal (W[%d][%d] = %g)", (int)i, (int)j, v);
        return 0;
      }
    }
    if (!(d > 0.0) || !isfinite(d)) {
      shard_msg_set(msg, SHARD_ERR_UNSUPPORTED, "diagonal W[%d][%d] = %g not positive", (int)i, (int)i, d);
      return 0;
    }
    if (!(lo <= 0.0) || !(up <= 0.0) || !isfinite(lo) || !isfinite(up)) {
      const int lower = !(lo <= 0.0) || !isfinite(lo);
      shard_msg_set(msg, SHARD_ERR_UNSUPPORTED, "not a Z-matrix (W[%d][%d] = %g > 0)", (int)i,
                    (int)(lower ? i - 1 : i + 1), lower ? lo : up);
      return 0;
    }
  }
  return 1;
}

/* One solver on one block: its solve, then the host's check of what it
 * reports as solved (a failed check is a failure like any other). */
static int attempt(shard_contact *c, const shard_contact_solver *s, shard_lcp_problem *prob, double *z,
                   shard_lcp_report *rep, double *host_res, shard_msg *msg) {
  int st = solve_with(s, prob, z, c->b_w, rep, msg);
  if (st == SHARD_OK) st = host_check(prob, z, c->b_w, s->check_tol, host_res, msg);
  return st;
}

/* Solve one independent block with the policy: primary solver, dump, fallback. */
static int solve_block(shard_contact *c, shard_lcp_problem *prob, double *z, int32_t block, shard_step_stats *stats,
                       shard_msg *msg) {
    dense_view(c, &c->policy.primary, prob);
    shard_lcp_report rep;
    double host_res = 0.0;
    const shard_contact_solver *used = &c->policy.primary;
    int st;
    /* a primary of a restricted structural class: a block outside it goes
     * to the fallback directly (no failed attempt, no dump), counted with
     * the fallbacks; without a fallback it stops the solve */
    if ((used->caps & SHARD_CAP_LCP_TRIDIAGONAL_Z) && !tridiagonal_z(prob->csr, msg)) {
      if (!c->policy.fallback.ops) {
        const shard_msg why = *msg;
        shard_msg_set(msg, SHARD_ERR_UNSUPPORTED,
                      "lcp '%s': block of %d contacts is outside the solver's class, tridiagonal Z-matrices (%s); "
                      "name a solver for such blocks with lcp.on_failure: fallback and lcp.fallback (e.g. lemke)",
                      used->name, (int)prob->n, why.text);
        if (c->policy.dump) dump_block(c, block, prob, NULL, msg);
        return SHARD_ERR_UNSUPPORTED;
      }
      shard_msg first = *msg;
      used = &c->policy.fallback;
      dense_view(c, used, prob);
      if ((used->caps & SHARD_CAP_LCP_DENSE) && !prob->dense)
        st = shard_msg_set(msg, SHARD_ERR_UNSUPPORTED, "block of %d coupled contacts exceeds the dense limit %d",
                           (int)prob->n, (int)c->dense_max);
      else
        st = attempt(c, used, prob, z, &rep, &host_res, msg);
      if (st != SHARD_OK) {
        shard_msg_prepend(msg, "lcp '%s': block of %d contacts outside its class (%s); fallback lcp '%s'",
                          c->policy.primary.name, (int)prob->n, first.text, used->name);
        if (c->policy.dump) dump_block(c, block, prob, NULL, msg);
        return st < 0 ? st : SHARD_ERR_NUMERIC;
      }
      stats->lcp_fallbacks++;
    } else if ((used->caps & SHARD_CAP_LCP_DENSE) && !prob->dense)
      st = shard_msg_set(msg, SHARD_ERR_UNSUPPORTED,
                         "block of %d coupled contacts exceeds the dense limit %d of this solver (use pgs or mprgp)",
                         (int)prob->n, (int)c->dense_max);
    else
      st = attempt(c, used, prob, z, &rep, &host_res, msg);
    if (st != SHARD_OK) {
      shard_msg_prepend(msg, "lcp '%s': block of %d contacts", used->name, (int)prob->n);
      if (c->policy.dump) dump_block(c, block, prob, NULL, msg);
      if (c->policy.fallback.ops) {
        shard_msg first = *msg;
        used = &c->policy.fallback;
        dense_view(c, used, prob);
        if ((used->caps & SHARD_CAP_LCP_DENSE) && !prob->dense)
          st = shard_msg_set(msg, SHARD_ERR_UNSUPPORTED, "block of %d coupled contacts exceeds the dense limit %d",
                             (int)prob->n, (int)c->dense_max);
        else {
          for (int32_t i = 0; i < prob->n; ++i) z[i] = 0.0; /* the primary's iterate is no guess */
          st = attempt(c, used, prob, z, &rep, &host_res, msg);
        }
        if (st != SHARD_OK) {
          shard_msg_prepend(msg, "%s; fallback lcp '%s'", first.text, used->name);
          return st < 0 ? st : SHARD_ERR_NUMERIC;
        }
        stats->lcp_fallbacks++;
      } else {
        return st < 0 ? st : SHARD_ERR_NUMERIC;
      }
    }
    if (c->policy.dump_every > 0 && c->step % c->policy.dump_every == 0) {
      shard_msg ignored = {{0}};
      dump_block(c, block, prob, z, &ignored);
    }
    stats->lcp_blocks++;
    if (prob->n > stats->lcp_max_block) stats->lcp_max_block = prob->n;
    stats->lcp_iterations += rep.iterations;
    if (rep.residual > stats->lcp_residual) stats->lcp_residual = rep.residual;
    if (host_res > stats->lcp_residual) stats->lcp_residual = host_res;
    return SHARD_OK;
}

/* Row `row` of W alone in its block (no entry but its diagonal): w z + q >= 0,
 * z >= 0, z (w z + q) = 0 with w > 0 has the one solution z = max(0, -q/w),
 * set here in z[row] when the policy says so (1 when done, 0 to hand the
 * block to the solver). Dumps go through the solver. */
static int solve_scalar(shard_contact *c, const shard_csr *w, const double *q, int32_t row, double *z,
                        shard_step_stats *stats) {
  if (!c->policy.scalar_closed_form || w->rowptr[row + 1] - w->rowptr[row] != 1 ||
      (c->policy.dump_every > 0 && c->step % c->policy.dump_every == 0))
    return 0;
  const double wd = w->val[w->rowptr[row]], qr = q[row];
  if (!(wd > 0.0) || !isfinite(wd) || !isfinite(qr)) return 0;
  z[row] = qr < 0.0 ? -qr / wd : 0.0;
  stats->lcp_blocks++;
  if (stats->lcp_max_block < 1) stats->lcp_max_block = 1;
  return 1;
}

/* The connected components of W as index intervals, when they are: rows
 * in space order on a 1D chain give a banded W whose components are runs of
 * consecutive rows, each row linked to an earlier one of its run. One pass:
 * start[b] .. start[b+1] - 1 are the rows of block b (blocks in increasing
 * order, rows ascending: the order union-find gives). Returns the number of
 * blocks, or -1 when some row's first link is forward only or reaches back
 * past its run, and union-find must decide. With out_tz (which then holds
 * the answer when blocks are returned), the same pass also decides whether
 * W is in the class of tridiagonal_z below, by the same tests on the same
 * sums: W's batched solve needs both, and its rows are read once. */
static inline __attribute__((always_inline)) int32_t interval_blocks_with(const shard_csr *w, int32_t *start,
                                                                          int *out_tz) {
  const int32_t n = w->nrows;
  const int32_t *restrict rowptr = w->rowptr, *restrict col = w->colind;
  const double *restrict val = w->val;
  int32_t nb = 0, b0 = 0, reach = -1;
  int tz = 1;
  for (int32_t i = 0; i < n; ++i) {
    if (i == b0) start[nb++] = i, reach = i;
    int linked = i == b0;
    double d = 0.0, lo = 0.0, up = 0.0;
    for (int32_t e = rowptr[i]; e < rowptr[i + 1]; ++e) {
      const int32_t j = col[e];
      if (j < b0) return -1;
      if (j < i) linked = 1;
      if (j > reach) reach = j;
      if (out_tz) {
        const double v = val[e];
        if (j == i) d += v;
        else if (j == i - 1) lo += v;
        else if (j == i + 1) up += v;
        else if (v != 0.0) tz = 0;
      }
    }
    if (!linked) return -1;
    if (out_tz)
      tz &= d > 0.0 && isfinite(d) && lo <= 0.0 && up <= 0.0 && isfinite(lo) && isfinite(up);
    if (reach == i) b0 = i + 1; /* nothing in the run reaches past i: it ends here */
  }
  start[nb] = n;
  if (out_tz) *out_tz = tz;
  return nb;
}

static int32_t interval_blocks(const shard_csr *w, int32_t *start) { return interval_blocks_with(w, start, NULL); }
static int32_t interval_blocks_tz(const shard_csr *w, int32_t *start, int *out_tz) {
  return interval_blocks_with(w, start, out_tz);
}

/* connected components by union-find over the entries: c->start, c->order */
static int32_t union_find_blocks(shard_contact *c, const shard_csr *w) {
  const int32_t n = w->nrows;
  for (int32_t i = 0; i < n; ++i) c->parent[i] = i, c->count[i] = 0;
  for (int32_t i = 0; i < n; ++i)
    for (int32_t e = w->rowptr[i]; e < w->rowptr[i + 1]; ++e) {
      if (w->colind[e] == i) continue; /* the diagonal joins nothing */
      int32_t a = uf_find(c->parent, i), b = uf_find(c->parent, w->colind[e]);
      if (a != b) c->parent[a > b ? a : b] = a < b ? a : b;
    }
  for (int32_t i = 0; i < n; ++i) c->count[uf_find(c->parent, i)]++;
  int32_t nb = 0;
  c->start[0] = 0;
  for (int32_t i = 0; i < n; ++i) {
    c->start[i + 1] = c->start[i] + c->count[i];
    nb += c->count[i] > 0;
  }
  for (int32_t i = 0; i < n; ++i) c->count[i] = c->start[i];
  for (int32_t i = 0; i < n; ++i) c->order[c->count[uf_find(c->parent, i)]++] = i; /* ascending in a block */
  return nb;
}

/* The host's check of every interval block at once, on W's own rows: the
 * residual of each block relative to its own scale, as host_check computes
 * it on the block's copy; the largest in *out_res. 1 when every block is
 * within tol. */
static int check_intervals(const shard_csr *w, const double *q, const double *z, const int32_t *start,
                           int32_t nblocks, double tol, double *out_res, int32_t *out_max) {
  const int32_t *restrict rowptr = w->rowptr, *restrict col = w->colind;
  const double *restrict val = w->val;
  double worst = 0.0;
  int32_t largest = 0;
  int bad = 0; /* a non-finite z (the solve's check, done here as the rows are read) */
  for (int32_t b = 0; b < nblocks; ++b) {
    double s = 1e-300, r = 0.0;
    for (int32_t i = start[b]; i < start[b + 1]; ++i) {
      double mz = 0.0;
      for (int32_t e = rowptr[i]; e < rowptr[i + 1]; ++e) mz += val[e] * z[col[e]];
      const double wi = mz + q[i], m = fabs(z[i] < wi ? z[i] : wi);
      bad |= !(fabs(z[i]) <= DBL_MAX);
      if (fabs(mz) > s) s = fabs(mz);
      if (fabs(q[i]) > s) s = fabs(q[i]);
      if (!(m <= r)) r = m;
    }
    r /= s;
    if (!(r <= tol)) return 0; /* a NaN fails here too */
    if (r > worst) worst = r;
    if (start[b + 1] - start[b] > largest) largest = start[b + 1] - start[b];
  }
  if (bad) return 0;
  *out_res = worst;
  *out_max = largest;
  return 1;
}

/* Every block in one call, for a primary of the tridiagonal Z class: a W
 * whose blocks are runs of rows (intervals) and which is tridiagonal Z as a
 * whole is block diagonal with blocks of that class, and such a solver
 * solves each block as if alone; one call and one pass of checks replace a
 * copy, a call and a check per block. The caller has found W of the class
 * (interval_blocks_tz). Any failure (a refused solve, a non-finite z, a
 * block over the check tolerance) restores z and returns 0: the
 * block-by-block path then applies the policy to each block.
 * Statistics: the blocks and the largest as on that path, the call's
 * iterations once, the largest block residual. */
static int solve_batched(shard_contact *c, const shard_csr *w, const double *q, uint32_t flags, double *z,
                         int32_t nblocks, shard_step_stats *stats) {
  shard_msg m = {{0}};
  const int32_t n = w->nrows;
  double *restrict guess = c->b_z;
  for (int32_t i = 0; i < n; ++i) { /* the guess, restored on failure; the warm start, made feasible */
    guess[i] = z[i];
    z[i] = z[i] > 0.0 ? z[i] : 0.0; /* solve_with's test, as a select (a branch on it mispredicts) */
  }
  const shard_lcp_problem prob = {.n = n, .csr = w, .dense = NULL, .q = q, .flags = flags};
  const shard_contact_solver *s = &c->policy.primary;
  shard_lcp_report rep;
  memset(&rep, 0, sizeof rep);
  double res = 0.0;
  int32_t largest = 0;
  /* solve_with's steps with its two passes over z fused: the warm start's
   * above and the finiteness check in check_intervals */
  int st = shard_lcp_solver_solve(s->ops, s->self, &prob, z, c->b_w, &rep, &m);
  if (st == SHARD_OK && rep.status != SHARD_OK) st = rep.status;
  if (st != SHARD_OK || !check_intervals(w, q, z, c->start, nblocks, s->check_tol, &res, &largest)) {
    memcpy(z, c->b_z, (size_t)n * sizeof(double));
    return 0;
  }
  stats->lcp_blocks += nblocks;
  if (largest > stats->lcp_max_block) stats->lcp_max_block = largest;
  stats->lcp_iterations += rep.iterations;
  if (rep.residual > stats->lcp_residual) stats->lcp_residual = rep.residual;
  if (res > stats->lcp_residual) stats->lcp_residual = res;
  return 1;
}

int shard_contact_lcp_solve(shard_contact *c, const shard_csr *w, const double *q, uint32_t flags, double *z,
                            shard_step_stats *stats, shard_msg *msg) {
  const int32_t n = w->nrows;
  if (n == 0) return SHARD_OK;
  if (n > c->cap || w->rowptr[n] > c->b_cap)
    return shard_msg_set(msg, SHARD_ERR_UNSUPPORTED, "LCP of %d unknowns and %lld entries exceeds the preallocated %d/%lld",
                         (int)n, (long long)w->rowptr[n], (int)c->cap, (long long)c->b_cap);
  if (!c->policy.primary.ops) return shard_msg_set(msg, SHARD_ERR_INTERNAL, "no LCP solver configured");
  if (n == 1 && solve_scalar(c, w, q, 0, z, stats)) return SHARD_OK;
  /* a primary of the tridiagonal Z class solves every interval block in one
   * call when W is of its class as a whole: decided in the blocks' pass */
  const int batch = (c->policy.primary.caps & SHARD_CAP_LCP_TRIDIAGONAL_Z) && c->policy.batch_blocks &&
                    !(c->policy.dump_every > 0 && c->step % c->policy.dump_every == 0);
  int tz = 0;
  const int32_t nblocks = batch ? interval_blocks_tz(w, c->start, &tz) : interval_blocks(w, c->start);
  const int intervals = nblocks >= 0;
  if (nblocks == 1 || (!intervals && union_find_blocks(c, w) == 1)) {
    /* one block holds every row: solve W itself, no copies */
    shard_lcp_problem prob = {.n = n, .csr = w, .dense = NULL, .q = q, .flags = flags};
    return solve_block(c, &prob, z, 0, stats, msg);
  }
  if (intervals && batch && tz && solve_batched(c, w, q, flags, z, nblocks, stats)) return SHARD_OK;
  /* intervals: start[0..nblocks]; union-find: start[root], indexed by the
   * root (empty entries skipped), rows listed in order */
  const int32_t nslots = intervals ? nblocks : n;
  int32_t block = 0;
  for (int32_t r = 0; r < nslots; ++r) {
    const int32_t b0 = c->start[r], nb = c->start[r + 1] - b0;
    if (nb == 0) continue;
    const int32_t *idx = c->order + b0;
    if (nb == 1 && solve_scalar(c, w, q, intervals ? b0 : idx[0], z, stats)) {
      ++block;
      continue;
    }
    shard_csr bcsr = {.nrows = nb, .ncols = nb, .rowptr = c->b_rowptr, .colind = c->b_col, .val = c->b_val};
    if (intervals) { /* rows b0 .. b0 + nb - 1 of W as they are: only the columns move */
      const int32_t e0 = w->rowptr[b0], e1 = w->rowptr[b0 + nb];
      for (int32_t a = 0; a <= nb; ++a) c->b_rowptr[a] = w->rowptr[b0 + a] - e0;
      for (int32_t e = e0; e < e1; ++e) c->b_col[e - e0] = w->colind[e] - b0;
      bcsr.val = w->val + e0;
      memcpy(c->b_q, q + b0, (size_t)nb * sizeof(double));
      memcpy(c->b_z, z + b0, (size_t)nb * sizeof(double));
    } else {
      for (int32_t a = 0; a < nb; ++a) c->loc[idx[a]] = a;
      int32_t nnz = 0;
      c->b_rowptr[0] = 0;
      for (int32_t a = 0; a < nb; ++a) {
        const int32_t i = idx[a];
        for (int32_t e = w->rowptr[i]; e < w->rowptr[i + 1]; ++e) {
          c->b_col[nnz] = c->loc[w->colind[e]];
          c->b_val[nnz++] = w->val[e];
        }
        c->b_rowptr[a + 1] = nnz;
        c->b_q[a] = q[i];
        c->b_z[a] = z[i];
      }
    }
    shard_lcp_problem prob = {.n = nb, .csr = &bcsr, .dense = NULL, .q = c->b_q, .flags = flags};
    const int st = solve_block(c, &prob, c->b_z, block, stats, msg);
    if (st != SHARD_OK) return st;
    if (intervals)
      memcpy(z + b0, c->b_z, (size_t)nb * sizeof(double));
    else
      for (int32_t a = 0; a < nb; ++a) z[idx[a]] = c->b_z[a];
    ++block;
  }
  return SHARD_OK;
}
