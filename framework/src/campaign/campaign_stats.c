/* host: statistics across a swept key (see campaign.h) — from the campaign
 * table, one row per combination of the other swept keys: the runs counted
 * and failed, and mean, std, ci95 (Student t, stats.c), min and max of each
 * statistic column; written as DIR/statistics.csv. The fragment sizes of
 * each such group's runs, pooled, go to DIR/fragment_sizes.csv. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign/campaign_stats.h"

#include "campaign/campaign.h"
#include "campaign/campaign_exec.h"
#include "campaign/campaign_table.h"
#include "core/expr.h"
#include "core/stats.h"

/* 1 with the value for a finite number, 0 for an empty or non-finite cell,
 * -1 for text that is no number */
static int cell_number(const char *s, double *out) {
  if (!*s) return 0;
  char *end = NULL;
  *out = strtod(s, &end);
  if (end == s || *end) return -1;
  return isfinite(*out) ? 1 : 0;
}

/* A run of the table with the text of its group (length-prefixed values of
 * the group columns: no separator can occur in a value). */
typedef struct member {
  char *key;
  size_t row;
} member;

static int member_cmp(const void *a, const void *b) {
  const member *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : (x->row > y->row) - (x->row < y->row);
}

typedef struct group {
  size_t start, count; /* members[start .. start + count), in table order */
  size_t first;        /* its first row */
  size_t n_ok;
} group;

static int group_cmp(const void *a, const void *b) {
  const group *x = a, *y = b;
  return (x->first > y->first) - (x->first < y->first);
}

typedef struct stats_ctx {
  const shard_table *t;
  int status;       /* column, -1 when absent */
  const int *gcols; /* group columns */
  size_t n_gcols;
  member *members;
  group *groups;
  size_t n_groups;
  int *cols;          /* statistic columns (-1: absent from the table) */
  const char **names; /* their names */
  size_t n_cols;
  double *vals; /* scratch, one per row */
} stats_ctx;

static int row_ok(const stats_ctx *x, size_t r) {
  return x->status < 0 || strcmp(shard_table_get(x->t, r, (size_t)x->status), "ok") == 0;
}

static char *group_key(const stats_ctx *x, size_t r) {
  size_t len = 1;
  for (size_t i = 0; i < x->n_gcols; ++i) len += strlen(shard_table_get(x->t, r, (size_t)x->gcols[i])) + 24;
  char *k = malloc(len), *p = k;
  for (size_t i = 0; k && i < x->n_gcols; ++i) {
    const char *v = shard_table_get(x->t, r, (size_t)x->gcols[i]);
    p += snprintf(p, len - (size_t)(p - k), "%zu:%s", strlen(v), v);
  }
  if (k && x->n_gcols == 0) *k = 0;
  return k;
}

/* The members sorted into groups, the groups in order of first appearance. */
static int make_groups(stats_ctx *x) {
  size_t n = shard_table_n_rows(x->t);
  x->members = calloc(n + 1, sizeof *x->members);
  x->groups = calloc(n + 1, sizeof *x->groups);
  if (!x->members || !x->groups) return SHARD_ERR_NOMEM;
  for (size_t r = 0; r < n; ++r) {
    x->members[r].row = r;
    if (!(x->members[r].key = group_key(x, r))) return SHARD_ERR_NOMEM;
  }
  qsort(x->members, n, sizeof *x->members, member_cmp);
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || strcmp(x->members[i].key, x->members[i - 1].key) != 0) {
      x->groups[x->n_groups].start = i;
      x->groups[x->n_groups++].first = x->members[i].row;
    }
    group *g = &x->groups[x->n_groups - 1];
    g->count++;
    g->n_ok += row_ok(x, x->members[i].row);
  }
  qsort(x->groups, x->n_groups, sizeof *x->groups, group_cmp);
  return SHARD_OK;
}

/* The numbers of column k over the ok runs of group g, into x->vals; their
 * count, or -1 with msg for text in a listed column. */
static long collect(const stats_ctx *x, const group *g, size_t k, shard_msg *msg) {
  long n = 0;
  if (x->cols[k] < 0) return 0;
  for (size_t i = g->start; i < g->start + g->count; ++i) {
    size_t r = x->members[i].row;
    if (!row_ok(x, r)) continue;
    const char *s = shard_table_get(x->t, r, (size_t)x->cols[k]);
    int st = cell_number(s, &x->vals[n]);
    if (st < 0) {
      shard_msg_set(msg, SHARD_ERR_INPUT, "statistics: column '%s' is not numeric (run %ld: '%s')", x->names[k],
                    shard_table_row_index(x->t, r), s);
      return -1;
    }
    n += st;
  }
  return n;
}

/* Every result column (not the index, a parameter or a fixed run column)
 * whose cells in ok runs are numbers, at least one. */
static int default_columns(const shard_campaign *c, stats_ctx *x) {
  for (size_t k = 0; k < shard_table_n_cols(x->t); ++k) {
    const char *name = shard_table_col_name(x->t, k);
    int skip = shard_campaign_fixed_column(name);
    for (size_t i = 0; i < shard_campaign_n_params(c) && !skip; ++i)
      skip = strcmp(shard_campaign_param(c, i), name) == 0;
    size_t numbers = 0;
    for (size_t r = 0; r < shard_table_n_rows(x->t) && !skip; ++r) {
      double v;
      int st = row_ok(x, r) ? cell_number(shard_table_get(x->t, r, k), &v) : 0;
      if (st < 0) skip = 1;
      numbers += st > 0;
    }
    if (skip || numbers == 0) continue;
    x->cols[x->n_cols] = (int)k;
    x->names[x->n_cols++] = name;
  }
  return SHARD_OK;
}

static int listed_columns(const shard_campaign_statistics *s, stats_ctx *x, shard_msg *msg) {
  int any_ok = 0;
  for (size_t r = 0; r < shard_table_n_rows(x->t) && !any_ok; ++r) any_ok = row_ok(x, r);
  for (size_t k = 0; k < s->n_columns; ++k) {
    x->names[k] = s->columns[k];
    x->cols[k] = shard_table_find_col(x->t, s->columns[k]);
    if (x->cols[k] >= 0 || !any_ok) continue; /* no ok run: no summary column yet */
    const char **all = calloc(shard_table_n_cols(x->t) + 1, sizeof *all);
    for (size_t i = 0; all && i < shard_table_n_cols(x->t); ++i) all[i] = shard_table_col_name(x->t, i);
    const char *sug = all ? shard_suggest(s->columns[k], all, shard_table_n_cols(x->t)) : NULL;
    shard_msg_set(msg, SHARD_ERR_INPUT, "statistics: the table has no column '%s'%s%s%s", s->columns[k],
                  sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
    free(all);
    return SHARD_ERR_INPUT;
  }
  x->n_cols = s->n_columns;
  return SHARD_OK;
}

static int set_number(shard_table *t, int r, const char *col, const char *suffix, double v) {
  char name[600], num[64] = "";
  snprintf(name, sizeof name, "%s.%s", col, suffix);
  if (isfinite(v)) shard_format_number(v, num, sizeof num);
  return shard_table_set(t, r, name, num);
}

static int set_count(shard_table *t, int r, const char *col, size_t n) {
  char num[32];
  snprintf(num, sizeof num, "%zu", n);
  return shard_table_set(t, r, col, num);
}

/* One row per group. */
static int fill(stats_ctx *x, const shard_campaign_statistics *s, shard_table *out, shard_msg *msg) {
  /* a C.n column for a statistic column with fewer numbers than ok runs somewhere */
  unsigned char *own_n = calloc(x->n_cols + 1, 1);
  if (!own_n) return SHARD_ERR_NOMEM;
  int rc = SHARD_OK;
  for (size_t g = 0; g < x->n_groups && rc == SHARD_OK; ++g)
    for (size_t k = 0; k < x->n_cols && rc == SHARD_OK; ++k) {
      long n = collect(x, &x->groups[g], k, msg);
      if (n < 0) rc = SHARD_ERR_INPUT;
      if (n >= 0 && (size_t)n != x->groups[g].n_ok) own_n[k] = 1;
    }
  for (size_t g = 0; g < x->n_groups && rc == SHARD_OK; ++g) {
    const group *gr = &x->groups[g];
    size_t first = gr->first;
    int r = shard_table_add_row(out, (long)g);
    if (r < 0) rc = SHARD_ERR_NOMEM;
    for (size_t i = 0; rc == SHARD_OK && i < s->n_group; ++i)
      rc = shard_table_set(out, r, s->group[i], shard_table_get(x->t, first, (size_t)x->gcols[i]));
    if (rc == SHARD_OK) rc = set_count(out, r, "n", gr->n_ok);
    if (rc == SHARD_OK) rc = set_count(out, r, "failed", gr->count - gr->n_ok);
    for (size_t k = 0; rc == SHARD_OK && k < x->n_cols; ++k) {
      long n = collect(x, gr, k, msg);
      shard_sample_stats st = shard_sample_stats_of(x->vals, n);
      char name[600];
      snprintf(name, sizeof name, "%s.n", x->names[k]);
      if (own_n[k]) rc = set_count(out, r, name, (size_t)n);
      if (rc == SHARD_OK) rc = set_number(out, r, x->names[k], "mean", st.mean);
      if (rc == SHARD_OK) rc = set_number(out, r, x->names[k], "std", st.std);
      if (rc == SHARD_OK) rc = set_number(out, r, x->names[k], "ci95", st.ci95);
      if (rc == SHARD_OK) rc = set_number(out, r, x->names[k], "min", st.min);
      if (rc == SHARD_OK) rc = set_number(out, r, x->names[k], "max", st.max);
    }
  }
  free(own_n);
  return rc;
}

/* The table columns of the group keys into gcols; the `over` column must
 * exist too. */
static int group_columns(const shard_campaign_statistics *s, const shard_table *t, int *gcols, shard_msg *msg) {
  for (size_t i = 0; i <= s->n_group; ++i) {
    const char *name = i < s->n_group ? s->group[i] : s->over;
    int k = shard_table_find_col(t, name);
    if (k < 0)
      return shard_msg_set(msg, SHARD_ERR_INPUT,
                           "statistics: the table has no column '%s' (a table of another campaign?)", name);
    if (i < s->n_group) gcols[i] = k;
  }
  return SHARD_OK;
}

static void ctx_free(stats_ctx *x) {
  for (size_t i = 0; x->members && i < shard_table_n_rows(x->t); ++i) free(x->members[i].key);
  free(x->members);
  free(x->groups);
  free(x->cols);
  free(x->names);
  free(x->vals);
}

int shard_campaign_statistics_table(const shard_campaign *c, const shard_table *t, shard_table **out, shard_msg *msg) {
  *out = NULL;
  const shard_campaign_statistics *s = shard_campaign_stats(c);
  if (!s) return shard_msg_set(msg, SHARD_ERR_INPUT, "the campaign has no 'statistics' block");
  size_t nc = shard_table_n_cols(t) > s->n_columns ? shard_table_n_cols(t) : s->n_columns;
  int *gcols = calloc(s->n_group + 1, sizeof *gcols);
  stats_ctx x = {.t = t, .status = shard_table_find_col(t, "status"), .gcols = gcols, .n_gcols = s->n_group};
  x.cols = calloc(nc + 1, sizeof *x.cols);
  x.names = calloc(nc + 1, sizeof *x.names);
  x.vals = calloc(shard_table_n_rows(t) + 1, sizeof *x.vals);
  shard_table *st = shard_table_create();
  int rc = gcols && x.cols && x.names && x.vals && st ? SHARD_OK : SHARD_ERR_NOMEM;
  if (rc == SHARD_OK) rc = group_columns(s, t, gcols, msg);
  if (rc == SHARD_OK) rc = s->columns ? listed_columns(s, &x, msg) : default_columns(c, &x);
  if (rc == SHARD_OK) rc = make_groups(&x);
  if (rc == SHARD_OK) rc = fill(&x, s, st, msg);
  if (rc == SHARD_ERR_NOMEM) shard_msg_set(msg, rc, "statistics: out of memory");
  ctx_free(&x);
  free(gcols);
  if (rc != SHARD_OK) {
    shard_table_destroy(st);
    return rc;
  }
  *out = st;
  return SHARD_OK;
}

int shard_campaign_write_statistics(const shard_campaign *c, const shard_table *t, const char *dir, shard_msg *msg) {
  if (!shard_campaign_stats(c)) return SHARD_OK;
  shard_table *st = NULL;
  int rc = shard_campaign_statistics_table(c, t, &st, msg);
  if (rc == SHARD_OK) rc = shard_table_write_file_unindexed(st, dir, "statistics.csv", msg);
  shard_table_destroy(st);
  return rc;
}

/* ---- fragment sizes pooled over a group's runs ---------------------------------- */

typedef struct pooled {
  double size, ratio; /* size, and size over its own run's mean */
} pooled;

static int pooled_cmp(const void *a, const void *b) {
  const pooled *x = a, *y = b;
  return (x->ratio > y->ratio) - (x->ratio < y->ratio);
}

/* Field `col` (0-based) of a CSV line without quoting, or NULL. */
static const char *csv_field(char *line, int col) {
  char *p = line;
  for (int i = 0; i < col && p; ++i) {
    p = strchr(p, ',');
    if (p) ++p;
  }
  if (!p) return NULL;
  p[strcspn(p, ",\r\n")] = 0;
  return p;
}

/* Append the sizes of one run's fragment_sizes.csv to *pool: 1 when read,
 * 0 when the run has no such file, -1 with msg for a malformed one. */
static int read_sizes(const char *path, pooled **pool, size_t *n, size_t *cap, shard_msg *msg) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char *line = NULL;
  size_t lcap = 0, first = *n;
  int col = -1, st = 1;
  long lineno = 1;
  if (getline(&line, &lcap, f) > 0) {
    char *tok = line;
    for (int i = 0; tok && col < 0; ++i) {
      size_t len = strcspn(tok, ",\r\n");
      if (len == 4 && strncmp(tok, "size", 4) == 0) col = i;
      tok = tok[len] == ',' ? tok + len + 1 : NULL;
    }
  }
  if (col < 0) {
    shard_msg_set(msg, SHARD_ERR_INPUT, "%s: no 'size' column", path);
    st = -1;
  }
  double sum = 0.0;
  while (st == 1 && getline(&line, &lcap, f) > 0) {
    ++lineno;
    const char *v = csv_field(line, col);
    char *end = NULL;
    double x = v ? strtod(v, &end) : NAN;
    if (!v || end == v || *end || !(x > 0.0) || !isfinite(x)) {
      shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: the size is not a positive number", path, lineno);
      st = -1;
      break;
    }
    if (*n == *cap) {
      size_t nc = *cap ? 2 * *cap : 1024;
      pooled *p = realloc(*pool, nc * sizeof *p);
      if (!p) {
        shard_msg_set(msg, SHARD_ERR_NOMEM, "fragment sizes: out of memory");
        st = -1;
        break;
      }
      *pool = p, *cap = nc;
    }
    (*pool)[(*n)++].size = x;
    sum += x;
  }
  free(line);
  fclose(f);
  if (st != 1) return st;
  const double mean = *n > first ? sum / (double)(*n - first) : 0.0;
  for (size_t i = first; i < *n; ++i) (*pool)[i].ratio = (*pool)[i].size / mean;
  return 1;
}

static int add_group_rows(const stats_ctx *x, const shard_campaign_statistics *s, size_t first, size_t runs,
                          pooled *pool, size_t n, long *next, shard_table *out) {
  qsort(pool, n, sizeof *pool, pooled_cmp);
  int rc = SHARD_OK;
  for (size_t i = 0; i < n && rc == SHARD_OK; ++i) {
    int r = shard_table_add_row(out, (*next)++);
    if (r < 0) return SHARD_ERR_NOMEM;
    for (size_t k = 0; rc == SHARD_OK && k < s->n_group; ++k)
      rc = shard_table_set(out, r, s->group[k], shard_table_get(x->t, first, (size_t)x->gcols[k]));
    char num[64];
    if (rc == SHARD_OK) rc = set_count(out, r, "runs", runs);
    shard_format_number(pool[i].size, num, sizeof num);
    if (rc == SHARD_OK) rc = shard_table_set(out, r, "size", num);
    shard_format_number(pool[i].ratio, num, sizeof num);
    if (rc == SHARD_OK) rc = shard_table_set(out, r, "size_over_mean", num);
    shard_format_number((double)(i + 1) / (double)n, num, sizeof num);
    if (rc == SHARD_OK) rc = shard_table_set(out, r, "cumulative_number", num);
  }
  return rc;
}

int shard_campaign_write_pooled_sizes(const shard_campaign *c, const shard_table *t, const char *dir, size_t *pooled_runs,
                                      shard_msg *msg) {
  if (pooled_runs) *pooled_runs = 0;
  const shard_campaign_statistics *s = shard_campaign_stats(c);
  if (!s) return SHARD_OK;
  int *gcols = calloc(s->n_group + 1, sizeof *gcols);
  stats_ctx x = {.t = t, .status = shard_table_find_col(t, "status"), .gcols = gcols, .n_gcols = s->n_group};
  shard_table *out = shard_table_create();
  int rc = gcols && out ? SHARD_OK : SHARD_ERR_NOMEM;
  if (rc == SHARD_OK) rc = group_columns(s, t, gcols, msg);
  if (rc == SHARD_OK) rc = make_groups(&x);
  const int width = shard_campaign_index_width(shard_campaign_n_runs(c));
  pooled *pool = NULL;
  size_t cap = 0, any = 0;
  long next = 0;
  for (size_t g = 0; g < x.n_groups && rc == SHARD_OK; ++g) {
    const group *gr = &x.groups[g];
    size_t n = 0, runs = 0;
    for (size_t i = gr->start; i < gr->start + gr->count && rc == SHARD_OK; ++i) {
      size_t r = x.members[i].row;
      if (!row_ok(&x, r)) continue;
      char path[4200];
      snprintf(path, sizeof path, "%s/runs/%0*ld/fragment_sizes.csv", dir, width, shard_table_row_index(t, r));
      int st = read_sizes(path, &pool, &n, &cap, msg);
      if (st < 0) rc = SHARD_ERR_INPUT;
      else runs += (size_t)st;
    }
    any += runs;
    if (rc == SHARD_OK && n > 0) rc = add_group_rows(&x, s, gr->first, runs, pool, n, &next, out);
  }
  if (rc == SHARD_ERR_NOMEM) shard_msg_set(msg, rc, "fragment sizes: out of memory");
  if (rc == SHARD_OK && any > 0) rc = shard_table_write_file_unindexed(out, dir, "fragment_sizes.csv", msg);
  if (rc == SHARD_OK && pooled_runs) *pooled_runs = any;
  free(pool);
  ctx_free(&x);
  free(gcols);
  shard_table_destroy(out);
  return rc;
}
