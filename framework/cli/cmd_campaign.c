/* shard campaign FILE [-o DIR] [-j N] [--slice K/N] [--runs A-B] [--resume] [--timeout S] [--stall-timeout S]
 *                [--no-progress]
 * shard campaign merge OUT_DIR DIR... [--campaign FILE]
 *
 * Under `mpirun -n P` (a build with MPI): rank r runs slice r+1 of P, rank 0
 * gathers the slice tables, writes the merged campaign.csv, statistics.csv
 * and the plots. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef SHARD_HAVE_MPI
#include <mpi.h>
#endif

#include "campaign/campaign.h"
#include "campaign/campaign_exec.h"
#include "campaign/campaign_package.h"
#include "campaign/campaign_plot.h"
#include "campaign/campaign_stats.h"
#include "campaign/campaign_table.h"
#include "commands.h"
#include "io/fsio.h"
#include "loader/registry.h"
#include "io/yaml_tree.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: shard campaign CAMPAIGN.yaml [-o DIR] [-j N] [--slice K/N] [--runs A-B] [--resume] [--timeout S] "
          "[--stall-timeout S] [--threads-per-run N] [--no-progress] [--dry-run | --plots-only]\n"
          "       shard campaign merge OUT_DIR DIR|TABLE.csv ... [--campaign CAMPAIGN.yaml]\n"
          "       mpirun -n P shard campaign CAMPAIGN.yaml [-o DIR] [-j N] [--resume]   (MPI builds)\n");
}

typedef struct progress_ctx {
  int tty;
  int rank; /* -1 without MPI */
  int line_shown;
} progress_ctx;

static void fmt_duration(double s, char *buf, size_t n) {
  if (s < 0) {
    snprintf(buf, n, "?");
  } else if (s < 60) {
    snprintf(buf, n, "%.0fs", s);
  } else if (s < 3600) {
    snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
  } else {
    snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
  }
}

static void on_progress(void *vctx, const shard_campaign_progress *p) {
  progress_ctx *ctx = vctx;
  char rank[32] = "";
  if (ctx->rank >= 0) snprintf(rank, sizeof rank, "rank %d: ", ctx->rank);
  /* failed runs are worth a line of their own, on a terminal or not */
  if (p->last && !strstr(p->last, ": ok")) {
    if (ctx->line_shown) fputs("\r\033[K", stderr);
    fprintf(stderr, "shard campaign: %s%s\n", rank, p->last);
    ctx->line_shown = 0;
  }
  if (!ctx->tty) return;
  char eta[32], el[32];
  fmt_duration(p->eta, eta, sizeof eta);
  fmt_duration(p->elapsed, el, sizeof el);
  fprintf(stderr, "\r\033[K%sruns %zu/%zu done, %zu failed, %zu running, %s elapsed%s%s", rank, p->done, p->total,
          p->failed, p->running, el, p->done < p->total ? ", ETA " : "", p->done < p->total ? eta : "");
  fflush(stderr);
  ctx->line_shown = 1;
}

static int parse_slice(const char *s, int *k, int *n) {
  char *end = NULL;
  long a = strtol(s, &end, 10);
  if (end == s || *end != '/') return 0;
  const char *s2 = end + 1;
  long b = strtol(s2, &end, 10);
  if (end == s2 || *end || b < 1 || a < 1 || a > b || b > INT_MAX) return 0;
  *k = (int)a;
  *n = (int)b;
  return 1;
}

/* --runs A-B (inclusive run indices) or --runs A (one run) */
static int parse_range(const char *s, size_t *first, size_t *last) {
  char *end = NULL;
  if (*s < '0' || *s > '9') return 0;
  unsigned long long a = strtoull(s, &end, 10), b = a;
  if (*end == '-') {
    const char *s2 = end + 1;
    if (*s2 < '0' || *s2 > '9') return 0;
    b = strtoull(s2, &end, 10);
  }
  if (*end || b < a || b > SIZE_MAX) return 0;
  *first = (size_t)a;
  *last = (size_t)b;
  return 1;
}

/* Under an MPI launcher with more than one process? */
static int mpi_world_size(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) {
    const char *v = getenv(vars[i]);
    if (v && atoi(v) > 0) return atoi(v);
  }
  return 0;
}

/* 0 when a plot could not be drawn (said on stderr), else 1 */
static int print_plots(const shard_plot_report *rep, const char *dir) {
  if (rep->written == 0) return 1;
  if (rep->have_gnuplot)
    printf("plots: %zu of %zu rendered (PNG, SVG) in %s/plots\n", rep->rendered, rep->written, dir);
  else
    printf("plots: %zu gnuplot scripts and data files in %s/plots; gnuplot is not on PATH: render each with\n"
           "  (cd %s/plots && gnuplot FILE.gp)\n",
           rep->written, dir, dir);
  if (rep->failed)
    fprintf(stderr, "shard campaign: %zu plot%s not drawn: %s%s\n", rep->failed, rep->failed > 1 ? "s" : "",
            rep->failure, rep->failed > 1 ? " (and others)" : "");
  return rep->failed == 0;
}

/* DIR/statistics.csv and, from fracture runs, DIR/fragment_sizes.csv when
 * the campaign has a `statistics:` block, then DIR/datapackage.json; 0 after
 * reporting a failure. */
static int write_statistics(const shard_campaign *c, const shard_table *t, const char *dir, const char *who) {
  shard_msg msg = {{0}};
  size_t pooled = 0;
  if (shard_campaign_write_statistics(c, t, dir, &msg) != SHARD_OK ||
      shard_campaign_write_pooled_sizes(c, t, dir, &pooled, &msg) != SHARD_OK ||
      shard_campaign_write_package(c, NULL, t, dir, &msg) != SHARD_OK) {
    fprintf(stderr, "%s: %s\n", who, msg.text);
    return 0;
  }
  if (shard_campaign_stats(c)) {
    printf("statistics over %s -> %s/statistics.csv\n", shard_campaign_stats(c)->over, dir);
    if (pooled)
      printf("fragment sizes of %zu runs pooled over %s -> %s/fragment_sizes.csv\n", pooled,
             shard_campaign_stats(c)->over, dir);
  }
  return 1;
}

/* A word for a POSIX shell: as is when safe, else single-quoted. */
static void put_shell_word(const char *w) {
  if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:@%") == strlen(w)) {
    fputs(w, stdout);
    return;
  }
  putchar('\'');
  for (; *w; ++w) {
    if (*w == '\'')
      fputs("'\\''", stdout);
    else
      putchar(*w);
  }
  putchar('\'');
}

/* --dry-run: the validated runs as `shard run` command lines; with --resume,
 * what resuming would do with each (finished runs as comments, runs with a
 * checkpoint to continue marked) — the state of a campaign run in pieces. */
static void print_runs(const shard_campaign *c, const shard_campaign_options *opt) {
  const char *dir = opt->out_dir;
  const int resume = opt->resume;
  size_t n = shard_campaign_n_runs(c), shown = 0, n_done = 0, n_cont = 0;
  int width = 1;
  for (size_t k = n > 0 ? n - 1 : 0; k >= 10; k /= 10) ++width;
  if (width < 4) width = 4;
  for (size_t i = 0; i < n; ++i) {
    if (!shard_campaign_selected(opt, i)) continue;
    const shard_campaign_run *r = shard_campaign_run_at(c, i);
    char rd[4200], num[32];
    if (snprintf(num, sizeof num, "%0*zu", width > 20 ? 20 : width, i) < 0) num[0] = 0;
    if (snprintf(rd, sizeof rd, "%s/runs/%s", dir, num) < 0) rd[0] = 0;
    ++shown;
    int64_t step = 0;
    const shard_campaign_run_state st = resume ? shard_campaign_run_status(c, dir, i, &step) : SHARD_CAMPAIGN_RUN_START;
    if (st == SHARD_CAMPAIGN_RUN_DONE) {
      printf("# %s: done\n", rd);
      ++n_done;
      continue;
    }
    if (st == SHARD_CAMPAIGN_RUN_CONTINUE) {
      printf("# %s: continues from its checkpoint at step %lld\n", rd, (long long)step);
      ++n_cont;
    }
    fputs("shard run ", stdout);
    put_shell_word(shard_campaign_base(c) ? shard_campaign_base(c) : "CASE.yaml");
    fputs(" -o ", stdout);
    put_shell_word(rd);
    for (size_t k = 0; k < r->n_sets; ++k) {
      fputs(" --set ", stdout);
      put_shell_word(r->sets[k]);
    }
    if (opt->threads_per_run > 1) printf(" --threads %d", opt->threads_per_run);
    puts(resume ? " --resume" : "");
  }
  printf("# %s: %zu run%s%s, all valid cases", shard_campaign_name(c), shown, shown == 1 ? "" : "s",
         opt->slice_n > 0 || opt->have_range ? " selected" : "");
  if (resume) printf("; --resume: %zu done, %zu to continue from a checkpoint, %zu to start", n_done, n_cont,
                     shown - n_done - n_cont);
  putchar('\n');
}

/* ---- merge ------------------------------------------------------------------------------ */

/* A part of a merge: a table, and what its file name and the slice's
 * description (campaign.slice-K-of-N.yaml beside it) say about it. */
typedef struct merge_part {
  char *path;
  shard_table *t;
  int k, n;            /* slice K of N (from the file name); 0 when not a slice table */
  long runs;           /* the campaign's runs (from the slice's .yaml); -1 when unknown */
  char case_sha[80];   /* the base case's sha256 (from the slice's .yaml); "" when unknown */
  char info[4200];     /* the slice's .yaml, "" when absent */
} merge_part;

typedef struct merger {
  merge_part *parts;
  size_t n, cap;
  int errors;
} merger;

#define MERGE_MAX_ERRORS 20

static void merge_error(merger *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void merge_error(merger *m, const char *fmt, ...) {
  if (m->errors++ >= MERGE_MAX_ERRORS) return;
  va_list ap;
  va_start(ap, fmt);
  fputs("shard campaign merge: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* A decimal number of digits only in [lo, hi] (no sign, no blanks, no
 * overflow); the end of the digits in *end. */
static int parse_count(const char *s, long lo, long hi, long *out, const char **end) {
  if (*s < '0' || *s > '9') return 0;
  long v = 0;
  for (; *s >= '0' && *s <= '9'; ++s) {
    if (v > (hi - (*s - '0')) / 10) return 0;
    v = 10 * v + (*s - '0');
  }
  if (v < lo) return 0;
  *out = v;
  *end = s;
  return 1;
}

/* 1 and K, N for a base name "campaign.slice-K-of-N.csv" with 1 <= K <= N <=
 * SHARD_CAMPAIGN_MAX_RUNS; 0 for another name; -1 for a slice table name with
 * bad numbers. */
static int slice_name(const char *base, int *k, int *n) {
  static const char pre[] = "campaign.slice-";
  if (strncmp(base, pre, sizeof pre - 1) != 0) return 0;
  const size_t len = strlen(base);
  if (len < 4 || strcmp(base + len - 4, ".csv") != 0) return 0;
  const char *p = base + sizeof pre - 1, *e = NULL;
  long a = 0, b = 0;
  if (!parse_count(p, 1, SHARD_CAMPAIGN_MAX_RUNS, &a, &e) || strncmp(e, "-of-", 4) != 0) return -1;
  p = e + 4;
  if (!parse_count(p, 1, SHARD_CAMPAIGN_MAX_RUNS, &b, &e) || strcmp(e, ".csv") != 0 || a > b) return -1;
  *k = (int)a;
  *n = (int)b;
  return 1;
}

/* The slice's description beside its table, when there is one. */
static void read_slice_info(merger *m, merge_part *p) {
  const size_t len = strlen(p->path);
  snprintf(p->info, sizeof p->info, "%.*s.yaml", (int)(len - 4), p->path);
  if (access(p->info, F_OK) != 0) {
    p->info[0] = 0;
    return;
  }
  yt_arena *a = yt_arena_create();
  shard_diag *d = shard_diag_create();
  yt_node *root = NULL;
  if (!a || !d || yt_load_file(a, p->info, "slice description", &root, d) != SHARD_OK) {
    merge_error(m, "%s", d && shard_diag_first(d) ? shard_diag_first(d) : "out of memory");
  } else {
    const yt_node *runs = yt_get_path(root, "runs"), *sha = yt_get_path(root, "case_sha256");
    const yt_node *k = yt_get_path(root, "slice"), *n = yt_get_path(root, "slices");
    const char *e = NULL;
    long v = 0, kk = 0, nn = 0;
    if (!runs || runs->kind != YT_SCALAR || !parse_count(runs->text, 1, SHARD_CAMPAIGN_MAX_RUNS, &v, &e) || *e)
      merge_error(m, "%s:%d: 'runs' must be a number of runs from 1 to %d", p->info, runs ? runs->line : 1,
                  SHARD_CAMPAIGN_MAX_RUNS);
    else
      p->runs = v;
    if (sha && sha->kind == YT_SCALAR) snprintf(p->case_sha, sizeof p->case_sha, "%s", sha->text);
    if (!k || k->kind != YT_SCALAR || !n || n->kind != YT_SCALAR || !parse_count(k->text, 1, INT_MAX, &kk, &e) || *e ||
        !parse_count(n->text, 1, INT_MAX, &nn, &e) || *e || kk != p->k || nn != p->n)
      merge_error(m, "%s: 'slice' and 'slices' must say %d and %d, as the table's name", p->info, p->k, p->n);
  }
  shard_diag_destroy(d);
  yt_arena_destroy(a);
}

static int add_part(merger *m, const char *path) {
  if (m->n == m->cap) {
    size_t nc = m->cap ? 2 * m->cap : 8;
    merge_part *p = realloc(m->parts, nc * sizeof *p);
    if (!p) return 0;
    m->parts = p;
    m->cap = nc;
  }
  merge_part *p = &m->parts[m->n];
  memset(p, 0, sizeof *p);
  p->runs = -1;
  if (!(p->path = strdup(path))) return 0;
  m->n++;
  const char *slash = strrchr(path, '/');
  const int named = slice_name(slash ? slash + 1 : path, &p->k, &p->n);
  if (named < 0)
    merge_error(m, "%s: not a slice table name: campaign.slice-K-of-N.csv with 1 <= K <= N <= %d", path,
                SHARD_CAMPAIGN_MAX_RUNS);
  shard_msg msg = {{0}};
  const int rc = shard_table_read_csv(path, &p->t, &msg);
  if (rc != SHARD_OK) {
    if (rc == SHARD_ERR_NOMEM) return 0;
    merge_error(m, "%s", msg.text);
    return 1;
  }
  if (shard_table_n_rows(p->t) == 0) merge_error(m, "%s:1: a header and no runs", path);
  if (named > 0) read_slice_info(m, p);
  return 1;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The slice tables of a directory (campaign.slice-*.csv), in name order. */
static int add_dir(merger *m, const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    merge_error(m, "%s: %s", dir, strerror(errno));
    return 1;
  }
  char **names = NULL;
  size_t nn = 0, ncap = 0;
  int ok = 1;
  for (struct dirent *e; ok && (e = readdir(d));) {
    const size_t len = strlen(e->d_name);
    if (strncmp(e->d_name, "campaign.slice-", 15) != 0 || len < 4 || strcmp(e->d_name + len - 4, ".csv") != 0) continue;
    if (nn == ncap) {
      ncap = ncap ? 2 * ncap : 8;
      char **p = realloc(names, ncap * sizeof *p);
      if (!p) {
        ok = 0;
        break;
      }
      names = p;
    }
    if (!(names[nn] = strdup(e->d_name))) ok = 0;
    else ++nn;
  }
  closedir(d);
  if (ok && nn == 0) merge_error(m, "%s holds no campaign.slice-K-of-N.csv", dir);
  if (names) qsort(names, nn, sizeof *names, name_cmp);
  for (size_t k = 0; k < nn; ++k) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    if (ok) ok = add_part(m, path);
    free(names[k]);
  }
  free(names);
  return ok;
}

typedef struct merge_row {
  long index;
  size_t part, row;
} merge_row;

static int merge_row_cmp(const void *a, const void *b) {
  const merge_row *x = a, *y = b;
  if (x->index != y->index) return x->index < y->index ? -1 : 1;
  return x->part != y->part ? (x->part < y->part ? -1 : 1) : (x->row > y->row) - (x->row < y->row);
}

/* Whatever the tables say against each other, their slices and the
 * campaign (c, or NULL): missing and mixed slices, rows of another slice or
 * beyond the campaign, a run present twice, parameters that are not the
 * campaign's. Each problem a "file:line: message" error. */
static int check_parts(merger *m, const shard_campaign *c, const char *campaign) {
  int of = 0;
  const merge_part *first_info = NULL;
  for (size_t i = 0; i < m->n; ++i) {
    const merge_part *p = &m->parts[i];
    if (p->n && of && p->n != of) merge_error(m, "%s: a slice of %d, the others of %d: they cannot be merged", p->path, p->n, of);
    if (p->n && !of) of = p->n;
    if (p->runs < 0) continue;
    if (!first_info) {
      first_info = p;
    } else if (p->runs != first_info->runs || strcmp(p->case_sha, first_info->case_sha) != 0) {
      merge_error(m, "%s: a slice of another campaign than %s (%ld runs, base case %.12s; there %ld runs, base case %.12s)",
                  p->info, first_info->info, p->runs, p->case_sha, first_info->runs, first_info->case_sha);
    }
  }
  if (of > 0) {
    unsigned char *have = calloc((size_t)of, 1);
    if (!have) return 0;
    for (size_t i = 0; i < m->n; ++i)
      if (m->parts[i].n == of) have[m->parts[i].k - 1] = 1;
    for (int k = 0; k < of; ++k)
      if (!have[k]) merge_error(m, "slice %d of %d is missing: no campaign.slice-%d-of-%d.csv among the tables", k + 1, of, k + 1, of);
    free(have);
  }
  const size_t n_runs = c ? shard_campaign_n_runs(c) : 0;
  size_t total = 0;
  for (size_t i = 0; i < m->n; ++i) total += m->parts[i].t ? shard_table_n_rows(m->parts[i].t) : 0;
  merge_row *rows = calloc(total + 1, sizeof *rows);
  if (!rows) return 0;
  size_t k = 0;
  for (size_t i = 0; i < m->n; ++i) {
    const merge_part *p = &m->parts[i];
    if (!p->t) continue;
    int *cols = NULL; /* the campaign's parameter columns in this table */
    if (c) {
      cols = calloc(shard_campaign_n_params(c) + 1, sizeof *cols);
      if (!cols) {
        free(rows);
        return 0;
      }
      for (size_t q = 0; q < shard_campaign_n_params(c); ++q) {
        cols[q] = shard_table_find_col(p->t, shard_campaign_param(c, q));
        if (cols[q] < 0) merge_error(m, "%s:1: no column '%s', a parameter of %s", p->path, shard_campaign_param(c, q), campaign);
      }
    }
    for (size_t r = 0; r < shard_table_n_rows(p->t); ++r) {
      const long idx = shard_table_row_index(p->t, r);
      const int line = shard_table_row_line(p->t, r);
      rows[k++] = (merge_row){idx, i, r};
      if (p->n && idx % p->n != p->k - 1)
        merge_error(m, "%s:%d: run %ld is not of slice %d of %d (index mod %d = %d): it belongs to slice %ld", p->path,
                    line, idx, p->k, p->n, p->n, p->k - 1, idx % p->n + 1);
      if (p->runs >= 0 && idx >= p->runs)
        merge_error(m, "%s:%d: run %ld is beyond the campaign: it has %ld runs, indices 0-%ld (%s)", p->path, line, idx,
                    p->runs, p->runs - 1, p->info);
      if (c && (size_t)idx >= n_runs) {
        merge_error(m, "%s:%d: run %ld is beyond the campaign: %s has %zu runs, indices 0-%zu", p->path, line, idx,
                    campaign, n_runs, n_runs ? n_runs - 1 : 0);
      } else if (c) {
        const shard_campaign_run *run = shard_campaign_run_at(c, (size_t)idx);
        for (size_t q = 0; q < shard_campaign_n_params(c); ++q)
          if (cols[q] >= 0 && strcmp(shard_table_get(p->t, r, (size_t)cols[q]), run->values[q]) != 0)
            merge_error(m, "%s:%d: run %ld has %s = %s, but run %ld of %s has %s", p->path, line, idx,
                        shard_campaign_param(c, q), shard_table_get(p->t, r, (size_t)cols[q]), idx, campaign,
                        run->values[q]);
      }
    }
    free(cols);
  }
  qsort(rows, total, sizeof *rows, merge_row_cmp);
  for (size_t i = 1; i < total; ++i)
    if (rows[i].index == rows[i - 1].index) {
      const merge_part *a = &m->parts[rows[i - 1].part], *b = &m->parts[rows[i].part];
      merge_error(m, "%s:%d: run %ld appears twice: also at %s:%d", b->path, shard_table_row_line(b->t, rows[i].row),
                  rows[i].index, a->path, shard_table_row_line(a->t, rows[i - 1].row));
    }
  free(rows);
  return 1;
}

/* The campaign file of `merge --campaign` (its own keys only: the runs are
 * done); NULL after printing its errors. */
/* loaded without plugins: merging checks no run (the plugins the runs used
 * need not be on this machine's search path) */
static shard_campaign *merge_campaign(const char *path) {
  shard_diag *d = shard_diag_create();
  shard_campaign *c = NULL;
  if (d && shard_campaign_load(path, NULL, &c, d) != SHARD_OK) {
    shard_diag_sort(d);
    shard_diag_print(d, stderr);
  }
  if (!d) fprintf(stderr, "shard campaign merge: out of memory\n");
  shard_diag_destroy(d);
  return c;
}

/* The campaign directory, locked for this process: whole, or by its slice
 * when --slice K/N (slices may share a directory); the runs lock their own
 * directories. Held by another campaign or run: exit 2 naming it. */
static int lock_campaign_dir(const char *file, const shard_campaign_options *opt, shard_dir_lock *lock) {
  shard_msg msg = {{0}};
  char part[64], what[8400];
  snprintf(part, sizeof part, "slice-%d-of-%d", opt->slice_k, opt->slice_n);
  char slice[64] = "";
  if (opt->slice_n > 0) snprintf(slice, sizeof slice, " --slice %d/%d", opt->slice_k, opt->slice_n);
  snprintf(what, sizeof what, "shard campaign %s -o %s%s", file, opt->out_dir, slice);
  int st = shard_mkdirs(opt->out_dir, &msg);
  if (st == SHARD_OK) st = shard_dir_lock_acquire(lock, opt->out_dir, opt->slice_n > 0 ? part : NULL, what, &msg);
  if (st == SHARD_OK) return SHARD_EXIT_OK;
  fprintf(stderr, "shard campaign: %s\n", msg.text);
  return st == SHARD_ERR_INPUT ? SHARD_EXIT_INPUT : SHARD_EXIT_FAIL;
}

static void merge_usage(FILE *out) {
  fprintf(out, "usage: shard campaign merge OUT_DIR DIR|TABLE.csv ... [--campaign CAMPAIGN.yaml]\n"
               "merges the slice tables (campaign.slice-K-of-N.csv) of the directories or tables given into\n"
               "OUT_DIR/campaign.csv; --campaign also writes the statistics of CAMPAIGN.yaml (statistics.csv, ...)\n");
}

static int cmd_merge(const shard_cli *cli, int argc, char **argv) {
  const char *campaign = NULL;
  int kept = 1;
  for (int i = 1; i < argc; ++i) { /* --campaign FILE anywhere; the other words in order */
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      merge_usage(stdout);
      return SHARD_EXIT_OK;
    }
    if (strcmp(argv[i], "--campaign") == 0 && i + 1 < argc)
      campaign = argv[++i];
    else
      argv[kept++] = argv[i];
  }
  argc = kept;
  if (argc < 3) {
    merge_usage(stderr);
    return SHARD_EXIT_INPUT;
  }
  /* the model plugins' tables document the summary columns of a package */
  shard_msg rmsg = {{0}};
  shard_registry *reg = NULL;
  int rst = shard_registry_create(&reg, &rmsg);
  if (rst == SHARD_OK) rst = shard_registry_discover(reg, cli->plugin_path, &rmsg);
  if (rst != SHARD_OK) {
    fprintf(stderr, "shard campaign merge: %s\n", rmsg.text);
    shard_registry_destroy(reg);
    return rst == SHARD_ERR_NOMEM || rst == SHARD_ERR_IO ? SHARD_EXIT_FAIL : SHARD_EXIT_INPUT;
  }
  shard_campaign *c = campaign ? merge_campaign(campaign) : NULL;
  if (campaign && !c) {
    shard_registry_destroy(reg);
    return SHARD_EXIT_INPUT;
  }
  const char *out = argv[1];
  merger m = {0};
  int ok = 1;
  for (int i = 2; i < argc && ok; ++i) {
    struct stat st;
    if (stat(argv[i], &st) != 0)
      merge_error(&m, "%s: %s", argv[i], strerror(errno));
    else if (S_ISDIR(st.st_mode))
      ok = add_dir(&m, argv[i]);
    else
      ok = add_part(&m, argv[i]);
  }
  if (ok && m.errors == 0) ok = check_parts(&m, c, campaign);
  shard_table *t = NULL;
  shard_msg msg = {{0}};
  int code = SHARD_EXIT_INPUT, rc = SHARD_OK;
  if (!ok) {
    fprintf(stderr, "shard campaign merge: out of memory\n");
    code = SHARD_EXIT_FAIL;
  } else if (m.errors > 0) {
    if (m.errors > MERGE_MAX_ERRORS)
      fprintf(stderr, "shard campaign merge: ... and %d more problems\n", m.errors - MERGE_MAX_ERRORS);
    fprintf(stderr, "shard campaign merge: nothing merged (%d problem%s)\n", m.errors, m.errors == 1 ? "" : "s");
  } else {
    shard_table **tables = calloc(m.n + 1, sizeof *tables);
    for (size_t i = 0; tables && i < m.n; ++i) tables[i] = m.parts[i].t;
    if (!tables) {
      fprintf(stderr, "shard campaign merge: out of memory\n");
      code = SHARD_EXIT_FAIL;
    } else if ((rc = shard_table_merge(tables, m.n, &t, &msg)) != SHARD_OK) {
      fprintf(stderr, "shard campaign merge: %s\n", msg.text);
      code = rc == SHARD_ERR_INPUT ? SHARD_EXIT_INPUT : SHARD_EXIT_FAIL;
    } else if (mkdir(out, 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "shard campaign merge: cannot create %s: %s\n", out, strerror(errno));
      code = SHARD_EXIT_FAIL;
    } else if (shard_table_write_file(t, out, "campaign.csv", &msg) != SHARD_OK) {
      fprintf(stderr, "shard campaign merge: %s\n", msg.text);
      code = SHARD_EXIT_FAIL;
    } else {
      printf("merged %zu tables, %zu runs -> %s/campaign.csv\n", m.n, shard_table_n_rows(t), out);
      code = c ? (write_statistics(c, t, out, "shard campaign merge") ? SHARD_EXIT_OK : SHARD_EXIT_FAIL)
               : SHARD_EXIT_OK;
      if (!c && shard_campaign_write_package(NULL, reg, t, out, &msg) != SHARD_OK) { /* without the campaign file */
        fprintf(stderr, "shard campaign merge: %s\n", msg.text);
        code = SHARD_EXIT_FAIL;
      }
    }
    free(tables);
  }
  shard_campaign_destroy(c);
  shard_registry_destroy(reg);
  shard_table_destroy(t);
  for (size_t i = 0; i < m.n; ++i) {
    shard_table_destroy(m.parts[i].t);
    free(m.parts[i].path);
  }
  free(m.parts);
  return code;
}

/* ---- MPI ------------------------------------------------------------------------------------ */

#ifdef SHARD_HAVE_MPI
static int run_mpi(const shard_campaign *c, shard_campaign_options *opt, int *exit_code) {
  /* block the signals the campaign waits for before MPI starts its threads,
   * so that none of them takes a SIGTERM (or a SIGCHLD) meant for the loop */
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGCHLD);
  sigprocmask(SIG_BLOCK, &block, NULL);
  int provided = 0;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  opt->slice_k = rank + 1;
  opt->slice_n = size;
  progress_ctx *pc = opt->progress_ctx;
  pc->rank = rank;
  if (rank != 0) pc->tty = 0;
  shard_campaign_result res;
  memset(&res, 0, sizeof res);
  shard_msg msg = {{0}};
  shard_table *mine = NULL;
  /* each rank holds its slice of the directory, as `--slice K/N` does */
  shard_dir_lock lock = SHARD_DIR_LOCK_INIT;
  char part[64], what[4400];
  snprintf(part, sizeof part, "slice-%d-of-%d", rank + 1, size);
  snprintf(what, sizeof what, "shard campaign -o %s, MPI rank %d of %d", opt->out_dir, rank, size);
  int rc = shard_mkdirs(opt->out_dir, &msg);
  if (rc == SHARD_OK) rc = shard_dir_lock_acquire(&lock, opt->out_dir, part, what, &msg);
  if (rc == SHARD_OK) rc = shard_campaign_execute(c, opt, &mine, &res, &msg);
  if (pc->line_shown) fputs("\r\033[K", stderr);
  if (rc != SHARD_OK) fprintf(stderr, "shard campaign: rank %d: %s\n", rank, msg.text);
  /* each rank's slice table, as CSV text, to rank 0 */
  char *text = NULL;
  size_t len = 0;
  if (mine) {
    FILE *m = open_memstream(&text, &len);
    if (m) {
      shard_table_write_csv(mine, m);
      fclose(m);
    }
  }
  long long mylen = text ? (long long)len : -1;
  long long counts[3] = {(long long)res.failed, res.interrupted, rc != SHARD_OK}, sums[3] = {0, 0, 0};
  MPI_Reduce(counts, sums, 3, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  int code = SHARD_EXIT_OK;
  if (rank != 0) {
    MPI_Send(&mylen, 1, MPI_LONG_LONG, 0, 1, MPI_COMM_WORLD);
    if (mylen > 0) MPI_Send(text, (int)mylen, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
  } else {
    shard_table **parts = calloc((size_t)size, sizeof *parts);
    size_t np = 0;
    int ok = parts != NULL && mine != NULL;
    if (ok) parts[np++] = mine;
    for (int r = 1; r < size; ++r) {
      long long l = -1;
      MPI_Recv(&l, 1, MPI_LONG_LONG, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (l < 0) {
        ok = 0;
        continue;
      }
      char *buf = malloc((size_t)l + 1);
      if (l > 0) MPI_Recv(buf, (int)l, MPI_CHAR, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      /* keep the slice beside the others (a copy when the ranks share no file system) */
      char base_name[128], name[4300];
      snprintf(base_name, sizeof base_name, "campaign.slice-%d-of-%d.csv", r + 1, size);
      snprintf(name, sizeof name, "%s/%s", opt->out_dir, base_name);
      if (!buf || shard_write_atomic(opt->out_dir, base_name, buf, (size_t)l, &msg) != SHARD_OK) ok = 0;
      free(buf);
      shard_table *t = NULL;
      if (ok && shard_table_read_csv(name, &t, &msg) == SHARD_OK)
        parts[np++] = t;
      else
        ok = 0;
    }
    shard_table *merged = NULL;
    if (ok && shard_table_merge(parts, np, &merged, &msg) == SHARD_OK &&
        shard_table_write_file(merged, opt->out_dir, "campaign.csv", &msg) == SHARD_OK) {
      printf("campaign %s: %zu runs on %d ranks, %lld failed -> %s/campaign.csv\n", shard_campaign_name(c),
             shard_table_n_rows(merged), size, sums[0], opt->out_dir);
      int stats_ok = write_statistics(c, merged, opt->out_dir, "shard campaign");
      shard_plot_report rep;
      int plots_ok = 1;
      if (sums[1] == 0 && shard_campaign_plots(c, merged, opt->out_dir, &rep, &msg) == SHARD_OK)
        plots_ok = print_plots(&rep, opt->out_dir);
      else if (sums[1] == 0)
        fprintf(stderr, "shard campaign: %s\n", msg.text), plots_ok = 0;
      code = sums[0] > 0 || sums[1] > 0 || !stats_ok || !plots_ok ? SHARD_EXIT_FAIL : SHARD_EXIT_OK;
    } else {
      fprintf(stderr, "shard campaign: the slice tables could not be merged%s%s\n", msg.text[0] ? ": " : "",
              msg.text);
      code = SHARD_EXIT_FAIL;
    }
    shard_table_destroy(merged);
    for (size_t i = 1; i < np; ++i) shard_table_destroy(parts[i]);
    free(parts);
  }
  free(text);
  shard_table_destroy(mine);
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  shard_dir_lock_release(&lock);
  MPI_Finalize();
  *exit_code = code;
  return 1;
}
#endif

/* ---- run -------------------------------------------------------------------------------------- */

int shard_cmd_campaign(const shard_cli *cli, int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "merge") == 0) return cmd_merge(cli, argc - 1, argv + 1);
  const char *file = NULL, *out = NULL;
  int jobs = 1, slice_k = 0, slice_n = 0, resume = 0, progress = -1, dry_run = 0, plots_only = 0, have_range = 0;
  int threads = 1; /* per run: campaigns fill the cores with runs */
  size_t range_first = 0, range_last = 0;
  double timeout = 0, stall_timeout = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && i + 1 < argc) {
      out = argv[++i];
    } else if ((strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0) && i + 1 < argc) {
      char *end = NULL;
      long j = strtol(argv[++i], &end, 10);
      if (*end || j < 1 || j > 4096) {
        fprintf(stderr, "shard campaign: -j takes a number of parallel runs >= 1, got '%s'\n", argv[i]);
        return SHARD_EXIT_INPUT;
      }
      jobs = (int)j;
    } else if (strncmp(a, "-j", 2) == 0 && a[2] >= '0' && a[2] <= '9') {
      jobs = atoi(a + 2) > 0 ? atoi(a + 2) : 1;
    } else if (strcmp(a, "--slice") == 0 && i + 1 < argc) {
      if (!parse_slice(argv[++i], &slice_k, &slice_n)) {
        fprintf(stderr, "shard campaign: --slice takes K/N with 1 <= K <= N, got '%s'\n", argv[i]);
        return SHARD_EXIT_INPUT;
      }
    } else if (strcmp(a, "--runs") == 0 && i + 1 < argc) {
      if (!parse_range(argv[++i], &range_first, &range_last)) {
        fprintf(stderr, "shard campaign: --runs takes run indices A-B with A <= B (or one index), got '%s'\n", argv[i]);
        return SHARD_EXIT_INPUT;
      }
      have_range = 1;
    } else if (strcmp(a, "--resume") == 0) {
      resume = 1;
    } else if (strcmp(a, "--timeout") == 0 && i + 1 < argc) {
      char *end = NULL;
      timeout = strtod(argv[++i], &end);
      if (*end || !(timeout > 0) || !isfinite(timeout)) {
        fprintf(stderr, "shard campaign: --timeout takes seconds > 0, got '%s'\n", argv[i]);
        return SHARD_EXIT_INPUT;
      }
    } else if (strcmp(a, "--stall-timeout") == 0 && i + 1 < argc) {
      char *end = NULL;
      stall_timeout = strtod(argv[++i], &end);
      if (end == argv[i] || *end || !(stall_timeout >= 0) || !isfinite(stall_timeout)) {
        fprintf(stderr, "shard campaign: --stall-timeout takes seconds >= 0 (0: no watchdog), got '%s'\n", argv[i]);
        return SHARD_EXIT_INPUT;
      }
      if (stall_timeout == 0) stall_timeout = -1; /* off, whatever the file says */
    } else if ((strcmp(a, "--threads-per-run") == 0 || strcmp(a, "--threads") == 0) && i + 1 < argc) {
      if (shard_cli_parse_threads(argv[++i], &threads) != 0) {
        fprintf(stderr, "shard campaign: %s takes a number of threads >= 1, or 0 or auto for the cores, got '%s'\n", a,
                argv[i]);
        return SHARD_EXIT_INPUT;
      }
    } else if (strcmp(a, "--dry-run") == 0) {
      dry_run = 1;
    } else if (strcmp(a, "--plots-only") == 0) {
      plots_only = 1;
    } else if (strcmp(a, "--no-progress") == 0) {
      progress = 0;
    } else if (strcmp(a, "--progress") == 0) {
      progress = 1;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return SHARD_EXIT_OK;
    } else if (a[0] == '-' || file) {
      fprintf(stderr, "shard campaign: unexpected argument '%s'\n", a);
      usage(stderr);
      return SHARD_EXIT_INPUT;
    } else {
      file = a;
    }
  }
  if (!file) {
    usage(stderr);
    return SHARD_EXIT_INPUT;
  }
  int world = mpi_world_size();
  if (world > 1 && slice_n > 0) {
    fprintf(stderr, "shard campaign: --slice and mpirun both split the campaign; give one of them\n");
    return SHARD_EXIT_INPUT;
  }
#ifndef SHARD_HAVE_MPI
  if (world > 1) {
    fprintf(stderr, "shard campaign: started by an MPI launcher with %d processes, but MPI is unavailable in this "
                    "build (install libopenmpi-dev and rebuild), or run slices with --slice K/N\n",
            world);
    return SHARD_EXIT_FAIL;
  }
#endif

  shard_msg msg = {{0}};
  shard_registry *reg = NULL;
  shard_diag *diag = shard_diag_create();
  shard_campaign *c = NULL;
  shard_dir_lock lock = SHARD_DIR_LOCK_INIT;
  int code = SHARD_EXIT_FAIL;
  if (!diag || shard_registry_create(&reg, &msg) != SHARD_OK) {
    fprintf(stderr, "shard campaign: %s\n", diag ? msg.text : "out of memory");
    goto done;
  }
  const int dst = shard_registry_discover(reg, cli->plugin_path, &msg);
  if (dst != SHARD_OK) {
    fprintf(stderr, "shard: %s\n", msg.text);
    code = dst == SHARD_ERR_NOMEM || dst == SHARD_ERR_IO ? SHARD_EXIT_FAIL : SHARD_EXIT_INPUT;
    goto done;
  }
  const int lst = shard_campaign_load(file, reg, &c, diag);
  if (lst != SHARD_OK) {
    shard_diag_sort(diag);
    if (lst == SHARD_ERR_NOMEM && shard_diag_count(diag) == 0) fprintf(stderr, "shard campaign: %s: out of memory\n", file);
    else shard_diag_print(diag, stderr);
    code = lst == SHARD_ERR_INPUT ? SHARD_EXIT_INPUT : SHARD_EXIT_FAIL; /* out of memory is not bad input */
    goto done;
  }
  char exe[PATH_MAX], def_out[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    fprintf(stderr, "shard campaign: cannot find the shard executable (/proc/self/exe): %s\n", strerror(errno));
    goto done;
  }
  exe[n] = 0;
  if (!out) {
    snprintf(def_out, sizeof def_out, "out/%s", shard_campaign_name(c));
    out = def_out;
  }
  progress_ctx pc = {progress < 0 ? isatty(2) : progress, -1, 0};
  shard_campaign_options opt = {.out_dir = out,
                                .exe = exe,
                                .plugin_path = cli->plugin_path,
                                .jobs = jobs,
                                .slice_k = slice_k,
                                .slice_n = slice_n,
                                .have_range = have_range,
                                .range_first = range_first,
                                .range_last = range_last,
                                .resume = resume,
                                .timeout = timeout,
                                .stall_timeout = stall_timeout,
                                .handle_signals = 1,
                                .threads_per_run = shard_cli_threads_available("shard campaign", threads),
                                .progress = on_progress,
                                .progress_ctx = &pc};
  if (shard_campaign_check_selection(c, &opt, &msg) != SHARD_OK) {
    fprintf(stderr, "shard campaign: %s: %s\n", file, msg.text);
    code = SHARD_EXIT_INPUT;
    goto done;
  }
  if (dry_run) {
    print_runs(c, &opt);
    code = SHARD_EXIT_OK;
    goto done;
  }
  if (world <= 1 && (code = lock_campaign_dir(file, &opt, &lock)) != SHARD_EXIT_OK) goto done;
  code = SHARD_EXIT_FAIL;
  if (plots_only) { /* e.g. after `shard campaign merge` */
    char table[4200];
    snprintf(table, sizeof table, "%s/campaign.csv", out);
    shard_table *t = NULL;
    shard_plot_report rep;
    if (shard_table_read_csv(table, &t, &msg) != SHARD_OK) {
      fprintf(stderr, "shard campaign: %s\n", msg.text);
    } else if (write_statistics(c, t, out, "shard campaign") &&
               shard_campaign_plots(c, t, out, &rep, &msg) == SHARD_OK) {
      code = print_plots(&rep, out) ? SHARD_EXIT_OK : SHARD_EXIT_FAIL;
    } else if (msg.text[0]) {
      fprintf(stderr, "shard campaign: %s\n", msg.text);
    }
    shard_table_destroy(t);
    goto done;
  }
#ifdef SHARD_HAVE_MPI
  if (world > 1) {
    run_mpi(c, &opt, &code);
    goto done;
  }
#endif
  shard_campaign_result res;
  shard_table *t = NULL;
  int rc = shard_campaign_execute(c, &opt, &t, &res, &msg);
  if (pc.line_shown) fputs("\r\033[K", stderr);
  if (rc != SHARD_OK) {
    fprintf(stderr, "shard campaign: %s\n", msg.text);
    if (res.table_path[0]) fprintf(stderr, "shard campaign: the runs that finished are in %s\n", res.table_path);
    shard_table_destroy(t);
    goto done;
  }
  printf("campaign %s: %zu ok, %zu failed of %zu runs", shard_campaign_name(c), res.ok, res.failed, res.total);
  if (res.skipped) printf(" (%zu reused)", res.skipped);
  printf(" -> %s\n", res.table_path);
  int stats_ok = slice_n > 0 || write_statistics(c, t, out, "shard campaign");
  int plots_ok = 1;
  if (res.interrupted) {
    fprintf(stderr, "shard campaign: interrupted; %zu of %zu runs finished, %zu stopped part-way (resume with --resume)\n",
            res.ok + res.failed, res.total, res.stopped);
  } else if (slice_n == 0) {
    shard_plot_report rep;
    if (shard_campaign_plots(c, t, out, &rep, &msg) != SHARD_OK)
      fprintf(stderr, "shard campaign: %s\n", msg.text), plots_ok = 0;
    else
      plots_ok = print_plots(&rep, out);
  }
  code = res.failed > 0 || res.interrupted || !stats_ok || !plots_ok ? SHARD_EXIT_FAIL : SHARD_EXIT_OK;
  shard_table_destroy(t);
done:
  shard_dir_lock_release(&lock);
  shard_campaign_destroy(c);
  shard_registry_destroy(reg);
  shard_diag_destroy(diag);
  return code;
}
