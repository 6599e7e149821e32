/* host: campaign plots — for each `plots:` entry, DIR/plots/<file>.dat (one
 * gnuplot data block per curve), <file>.gp (a script that renders PNG and
 * SVG), <file>.slopes.csv for log-log plots (least-squares slope of each
 * curve with its standard error and 95% interval), rendered with gnuplot
 * when it is on PATH (see campaign.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign/campaign_plot.h"

#include "campaign/campaign.h"
#include "campaign/campaign_exec.h"
#include "campaign/campaign_stats.h"
#include "campaign/campaign_table.h"
#include "core/expr.h"
#include "io/fsio.h"
#include "io/gnuplot.h"
#include "core/stats.h"


#define REF_POINTS 200

typedef struct curve {
  char title[256];
  double *x, *y;
  double *e; /* error bars (half-widths), NULL without */
  size_t n, cap;
  int kind; /* 0 data, 1 history reference column, 2 reference expression */
  const char *ycol;
} curve;

typedef struct curves {
  curve *items;
  size_t n, cap;
} curves;

/* A curve; with error bars when has_e. */
static curve *new_curve(curves *cs, const char *title, int kind, const char *ycol, int has_e) {
  if (cs->n == cs->cap) {
    size_t cap = cs->cap ? 2 * cs->cap : 16;
    curve *c = realloc(cs->items, cap * sizeof *c);
    if (!c) return NULL;
    cs->items = c;
    cs->cap = cap;
  }
  curve *c = &cs->items[cs->n++];
  memset(c, 0, sizeof *c);
  snprintf(c->title, sizeof c->title, "%s", title);
  c->kind = kind;
  c->ycol = ycol;
  if (has_e && !(c->e = malloc(sizeof *c->e))) return NULL;
  return c;
}

static curve *find_curve(curves *cs, const char *title) {
  for (size_t i = 0; i < cs->n; ++i)
    if (cs->items[i].kind == 0 && strcmp(cs->items[i].title, title) == 0) return &cs->items[i];
  return NULL;
}

static int add_point(curve *c, double x, double y, double e) {
  if (c->n == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 64;
    double *nx = realloc(c->x, cap * sizeof *nx);
    if (!nx) return 0;
    c->x = nx;
    double *ny = realloc(c->y, cap * sizeof *ny);
    if (!ny) return 0;
    c->y = ny;
    double *ne = c->e ? realloc(c->e, cap * sizeof *ne) : NULL;
    if (c->e && !ne) return 0;
    c->e = ne;
    c->cap = cap;
  }
  if (c->e) c->e[c->n] = e;
  c->x[c->n] = x;
  c->y[c->n++] = y;
  return 1;
}

static void free_curves(curves *cs) {
  for (size_t i = 0; i < cs->n; ++i) {
    free(cs->items[i].x);
    free(cs->items[i].y);
    free(cs->items[i].e);
  }
  free(cs->items);
}

static void sort_curve(curve *c) {
  for (size_t i = 1; i < c->n; ++i) {
    double x = c->x[i], y = c->y[i], e = c->e ? c->e[i] : 0;
    size_t j = i;
    for (; j > 0 && c->x[j - 1] > x; --j) {
      c->x[j] = c->x[j - 1];
      c->y[j] = c->y[j - 1];
      if (c->e) c->e[j] = c->e[j - 1];
    }
    c->x[j] = x;
    c->y[j] = y;
    if (c->e) c->e[j] = e;
  }
}

static int number(const char *s, double *out) {
  char *end = NULL;
  if (!s || !*s) return 0;
  *out = strtod(s, &end);
  return end != s && *end == 0 && isfinite(*out);
}

/* ---- which rows, which curve ------------------------------------------------------ */

static int row_selected(const shard_table *t, size_t r, const shard_campaign_plot *p) {
  int st = shard_table_find_col(t, "status");
  if (st >= 0 && strcmp(shard_table_get(t, r, (size_t)st), "ok") != 0) return 0;
  for (size_t i = 0; i < p->n_where; ++i) {
    int c = shard_table_find_col(t, p->where_cols[i]);
    if (c < 0) return 0;
    const char *v = shard_table_get(t, r, (size_t)c);
    double a, b;
    if (strcmp(v, p->where_vals[i]) != 0 && !(number(v, &a) && number(p->where_vals[i], &b) && a == b)) return 0;
  }
  return 1;
}

static void series_title(const shard_table *t, size_t r, const shard_campaign_plot *p, const char *ycol, char *buf,
                         size_t n) {
  size_t k = 0;
  buf[0] = 0;
  for (size_t i = 0; i < p->n_series && k < n; ++i) {
    int c = shard_table_find_col(t, p->series[i]);
    const char *v = c >= 0 ? shard_table_get(t, r, (size_t)c) : "";
    const char *last = strrchr(p->series[i], '.');
    int w = p->n_series == 1 ? snprintf(buf + k, n - k, "%s", v)
                             : snprintf(buf + k, n - k, "%s%s=%s", i ? ", " : "", last ? last + 1 : p->series[i], v);
    if (w < 0) break;
    k += (size_t)w;
  }
  if (p->n_series == 0 && p->history) {
    snprintf(buf, n, "run %ld%s%s", shard_table_row_index(t, r), p->n_y > 1 ? " / " : "", p->n_y > 1 ? ycol : "");
  } else if (p->n_series == 0) {
    snprintf(buf, n, "%s", ycol);
  } else if (p->n_y > 1 && k < n) {
    snprintf(buf + k, n - k, " / %s", ycol);
  }
}

/* ---- data: campaign table ------------------------------------------------------------ */

static int campaign_curves(const shard_campaign_plot *p, const shard_table *t, curves *cs) {
  int xc = shard_table_find_col(t, p->x);
  if (xc < 0) return SHARD_OK; /* nothing to draw: no row has the column */
  for (size_t r = 0; r < shard_table_n_rows(t); ++r) {
    if (!row_selected(t, r, p)) continue;
    double x, y;
    if (!number(shard_table_get(t, r, (size_t)xc), &x)) continue;
    for (size_t k = 0; k < p->n_y; ++k) {
      int yc = shard_table_find_col(t, p->y[k]);
      if (yc < 0 || !number(shard_table_get(t, r, (size_t)yc), &y)) continue;
      /* an error bar without a value (e.g. one run: no interval) is drawn as 0 */
      int ec = p->yerror ? shard_table_find_col(t, p->yerror[k]) : -1;
      double e = 0;
      if (ec < 0 || !number(shard_table_get(t, r, (size_t)ec), &e)) e = 0;
      char title[256];
      series_title(t, r, p, p->y[k], title, sizeof title);
      curve *c = find_curve(cs, title);
      if (!c && !(c = new_curve(cs, title, 0, p->y[k], p->yerror != NULL))) return SHARD_ERR_NOMEM;
      if (!add_point(c, x * p->xscale, y * p->yscale, fabs(e * p->yscale))) return SHARD_ERR_NOMEM;
    }
  }
  for (size_t i = 0; i < cs->n; ++i) sort_curve(&cs->items[i]);
  return SHARD_OK;
}

/* ---- data: each run's history.csv ------------------------------------------------------- */

static int split_csv_line(char *line, char **fields, int max) {
  int n = 0;
  for (char *p = line; n < max;) {
    fields[n++] = p;
    char *c = strchr(p, ',');
    if (!c) break;
    *c = 0;
    p = c + 1;
  }
  for (int i = 0; i < n; ++i) {
    char *e = fields[i] + strlen(fields[i]);
    while (e > fields[i] && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ')) *--e = 0;
    while (*fields[i] == ' ') fields[i]++;
    if (*fields[i] == '"') { /* a quoted header name */
      fields[i]++;
      char *q = strchr(fields[i], '"');
      if (q) *q = 0;
    }
  }
  return n;
}

static int history_curves(const shard_campaign_plot *p, const shard_table *t, const char *dir, curves *cs,
                          size_t n_runs) {
  int first = 1;
  const int width = shard_campaign_index_width(n_runs);
  for (size_t r = 0; r < shard_table_n_rows(t); ++r) {
    if (!row_selected(t, r, p)) continue;
    char path[4200];
    snprintf(path, sizeof path, "%s/runs/%0*ld/history.csv", dir, width, shard_table_row_index(t, r));
    FILE *f = fopen(path, "r");
    if (!f) continue;
    char *line = NULL;
    size_t cap = 0;
    char *fields[256];
    int xc = -1, yc[64], rc_[64];
    size_t ny = p->n_y < 64 ? p->n_y : 64, nr = p->n_ref_cols < 64 ? p->n_ref_cols : 64;
    curve *cy[64] = {0}, *cr[64] = {0};
    int ok = 1;
    if (getline(&line, &cap, f) > 0) {
      int nf = split_csv_line(line, fields, 256);
      for (size_t k = 0; k < ny; ++k) yc[k] = -1;
      for (size_t k = 0; k < nr; ++k) rc_[k] = -1;
      for (int i = 0; i < nf; ++i) {
        if (strcmp(fields[i], p->x) == 0) xc = i;
        for (size_t k = 0; k < ny; ++k)
          if (strcmp(fields[i], p->y[k]) == 0) yc[k] = i;
        for (size_t k = 0; k < nr; ++k)
          if (strcmp(fields[i], p->ref_cols[k]) == 0) rc_[k] = i;
      }
      for (size_t k = 0; k < ny && xc >= 0 && ok; ++k) {
        if (yc[k] < 0) continue;
        char title[256];
        series_title(t, r, p, p->y[k], title, sizeof title);
        ok = (cy[k] = new_curve(cs, title, 0, p->y[k], 0)) != NULL;
      }
      for (size_t k = 0; first && k < nr && xc >= 0 && ok; ++k)
        if (rc_[k] >= 0) {
          char title[256];
          snprintf(title, sizeof title, "%s (analytic)", p->ref_cols[k]);
          ok = (cr[k] = new_curve(cs, title, 1, p->ref_cols[k], 0)) != NULL;
        }
    }
    while (ok && xc >= 0 && getline(&line, &cap, f) > 0) {
      int nf = split_csv_line(line, fields, 256);
      double x, y;
      if (xc >= nf || !number(fields[xc], &x)) continue;
      for (size_t k = 0; k < ny && ok; ++k)
        if (cy[k] && yc[k] < nf && number(fields[yc[k]], &y)) ok = add_point(cy[k], x * p->xscale, y * p->yscale, 0);
      for (size_t k = 0; k < nr && ok; ++k)
        if (cr[k] && rc_[k] < nf && number(fields[rc_[k]], &y)) ok = add_point(cr[k], x * p->xscale, y * p->yscale, 0);
    }
    free(line);
    fclose(f);
    if (!ok) return SHARD_ERR_NOMEM;
    first = 0;
  }
  return SHARD_OK;
}

/* ---- reference curves and slopes ----------------------------------------------------- */

static int x_lookup(void *ctx, const char *name, double *out, shard_expr_error *err) {
  (void)err;
  if (strcmp(name, "x") != 0) return 0;
  *out = *(const double *)ctx;
  return 1;
}

static int reference_curves(const shard_campaign_plot *p, curves *cs) {
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < cs->n; ++i)
    for (size_t k = 0; k < cs->items[i].n; ++k) {
      double x = cs->items[i].x[k];
      if (p->logx && x <= 0) continue;
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
  if (!(lo < hi)) return SHARD_OK;
  for (size_t r = 0; r < p->n_refs; ++r) {
    shard_expr *e = NULL;
    shard_expr_error err;
    if (shard_expr_parse(p->ref_exprs[r], &e, &err) != SHARD_OK) continue; /* checked at load */
    curve *c = new_curve(cs, p->ref_titles[r], 2, NULL, 0);
    for (int i = 0; c && i < REF_POINTS; ++i) {
      double s = (double)i / (REF_POINTS - 1);
      double x = p->logx ? lo * pow(hi / lo, s) : lo + s * (hi - lo), y;
      if (shard_expr_eval(e, x_lookup, &x, &y, &err) == SHARD_OK && isfinite(y) && !(p->logy && y <= 0))
        if (!add_point(c, x, y, 0)) c = NULL;
    }
    shard_expr_destroy(e);
    if (!c) return SHARD_ERR_NOMEM;
  }
  return SHARD_OK;
}

/* A point of the log-log fit: positive, within fit_range. */
static int fitted(const shard_campaign_plot *p, double x, double y) {
  return x > 0 && y > 0 && !(p->has_fit_range && (x < p->fit_lo * p->xscale || x > p->fit_hi * p->xscale));
}

/* Least squares of log y against log x: the slope (with two points or more)
 * and its standard error sqrt(SSR / (n - 2) / Sxx) (NAN below three). */
static int fit_slope(const shard_campaign_plot *p, const curve *c, double *slope, double *se, size_t *used) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  size_t n = 0;
  *se = NAN;
  for (size_t i = 0; i < c->n; ++i) {
    double x = c->x[i], y = c->y[i];
    if (!fitted(p, x, y)) continue;
    double lx = log10(x), ly = log10(y);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
    ++n;
  }
  *used = n;
  double den = (double)n * sxx - sx * sx;
  if (n < 2 || den <= 0) return 0;
  *slope = ((double)n * sxy - sx * sy) / den;
  if (n < 3) return 1;
  /* residuals about the fitted line, x spread about its mean: two passes */
  double a = (sy - *slope * sx) / (double)n, mx = sx / (double)n, ssr = 0, sdx = 0;
  for (size_t i = 0; i < c->n; ++i) {
    if (!fitted(p, c->x[i], c->y[i])) continue;
    double lx = log10(c->x[i]), r = log10(c->y[i]) - a - *slope * lx;
    ssr += r * r;
    sdx += (lx - mx) * (lx - mx);
  }
  *se = sqrt(ssr / (double)(n - 2) / sdx);
  return 1;
}

/* ---- files ----------------------------------------------------------------------------- */

static void gp_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* path as a new file (an earlier one replaced, a link there removed, never followed) */
static FILE *create_text(const char *path) {
  int fd = -1;
  if ((unlink(path) != 0 && errno != ENOENT) || shard_file_create(path, &fd, NULL) != SHARD_OK) return NULL;
  FILE *f = fdopen(fd, "w");
  if (!f) close(fd);
  return f;
}

static int write_dat(const char *path, const curves *cs) {
  FILE *f = create_text(path);
  if (!f) return SHARD_ERR_IO;
  for (size_t i = 0; i < cs->n; ++i) {
    const curve *c = &cs->items[i];
    fprintf(f, "# index %zu: %s\n", i, c->title);
    for (size_t k = 0; k < c->n; ++k) {
      fprintf(f, "%.17g %.17g", c->x[k], c->y[k]);
      if (c->e) fprintf(f, " %.17g", c->e[k]);
      fputc('\n', f);
    }
    if (c->n == 0) fprintf(f, c->e ? "nan nan nan\n" : "nan nan\n");
    fputs("\n\n", f);
  }
  return fclose(f) == 0 ? SHARD_OK : SHARD_ERR_IO;
}

static int write_gp(const char *path, const shard_campaign_plot *p, const curves *cs) {
  FILE *f = create_text(path);
  if (!f) return SHARD_ERR_IO;
  fprintf(f, "# written by `shard campaign`; render in this directory with: gnuplot %s.gp\n", p->file);
  fprintf(f, "set terminal pngcairo size 1000,650\nset output '%s.png'\n", p->file);
  /* enhanced text for the 10^{n} tics only: every label is noenhanced */
  fputs("set encoding utf8\nset grid\nset key outside right top\n", f);
  if (p->title) {
    fputs("set title ", f);
    gp_string(f, p->title);
    fputs(" noenhanced\n", f);
  }
  fputs("set xlabel ", f);
  gp_string(f, p->xlabel ? p->xlabel : p->x);
  fputs(" noenhanced\nset ylabel ", f);
  if (p->ylabel)
    gp_string(f, p->ylabel);
  else
    gp_string(f, p->n_y == 1 ? p->y[0] : "value");
  fputs(" noenhanced\n", f);
  if (p->logx) fputs("set logscale x\nset format x \"10^{%L}\"\n", f);
  if (p->logy) fputs("set logscale y\nset format y \"10^{%L}\"\n", f);
  if (p->yerror) fputs("set offsets graph 0.03, graph 0.03, 0, 0\n", f); /* error bars clear of the borders */
  fprintf(f, "data = '%s.dat'\n", p->file);
  fputs("plot \\\n", f);
  for (size_t i = 0; i < cs->n; ++i) {
    const curve *c = &cs->items[i];
    const char *style = c->kind == 2   ? "with lines dashtype 2 linecolor rgb 'black'"
                        : c->kind == 1 ? "with lines linewidth 2 linecolor rgb 'black'"
                        : p->history   ? "with lines"
                        : c->e         ? "with yerrorlines pointtype 7 pointsize 0.6"
                                       : "with linespoints pointtype 7 pointsize 0.6";
    fprintf(f, "  data index %zu using %s %s title ", i, c->e ? "1:2:3" : "1:2", style);
    gp_string(f, c->title);
    fputs(" noenhanced", f);
    fputs(i + 1 < cs->n ? ", \\\n" : "\n", f);
  }
  if (cs->n == 0) fputs("  NaN notitle\n", f);
  fprintf(f, "set output\nset terminal svg size 1000,650\nset output '%s.svg'\nreplot\nset output\n", p->file);
  return fclose(f) == 0 ? SHARD_OK : SHARD_ERR_IO;
}

static int write_slopes(const char *dir, const shard_campaign_plot *p, const curves *cs) {
  shard_table *t = shard_table_create();
  if (!t) return SHARD_ERR_NOMEM;
  int rc = SHARD_OK;
  long k = 0;
  for (size_t i = 0; rc == SHARD_OK && i < cs->n; ++i) {
    const curve *c = &cs->items[i];
    if (c->kind != 0) continue;
    double slope = NAN, se = NAN;
    size_t used = 0;
    int ok = fit_slope(p, c, &slope, &se, &used);
    int r = shard_table_add_row(t, k++);
    char num[64];
    if (r < 0) rc = SHARD_ERR_NOMEM;
    if (rc == SHARD_OK) rc = shard_table_set(t, r, "curve", c->title);
    if (rc == SHARD_OK) rc = shard_table_set(t, r, "y", c->ycol);
    snprintf(num, sizeof num, "%.4f", slope);
    if (rc == SHARD_OK) rc = shard_table_set(t, r, "slope", ok ? num : "");
    snprintf(num, sizeof num, "%zu", used);
    if (rc == SHARD_OK) rc = shard_table_set(t, r, "points", num);
    /* Student t with n - 2 degrees of freedom (two fitted parameters) */
    int has_se = ok && isfinite(se);
    snprintf(num, sizeof num, "%.4g", se);
    if (rc == SHARD_OK) rc = shard_table_set(t, r, "slope_se", has_se ? num : "");
    snprintf(num, sizeof num, "%.4g", has_se ? shard_student_t975((int64_t)used - 2) * se : NAN);
    if (rc == SHARD_OK) rc = shard_table_set(t, r, "slope_ci95", has_se ? num : "");
  }
  char name[512];
  snprintf(name, sizeof name, "%s.slopes.csv", p->file);
  shard_msg msg;
  if (rc == SHARD_OK) rc = shard_table_write_file(t, dir, name, &msg);
  shard_table_destroy(t);
  return rc;
}

/* 1 rendered, 0 gnuplot failed, -1 gnuplot not found */
static int render(const char *dir, const shard_campaign_plot *p) {
  if (strchr(dir, '\'')) return 0;
  char cmd[4400], log[4200];
  snprintf(cmd, sizeof cmd, "cd '%s'; load '%s.gp'", dir, p->file);
  snprintf(log, sizeof log, "%s/%s.log", dir, p->file);
  /* the log never follows a planted link; one that cannot be opened counts
   * as no gnuplot, as a spawn that cannot open it does */
  const int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  const char *args[] = {"-e", cmd, NULL};
  shard_gnuplot_outcome out;
  int ws;
  shard_msg m;
  const int st = shard_gnuplot_run(args, fd, &out, &ws, &m);
  close(fd);
  if (st != SHARD_OK || out == SHARD_GNUPLOT_MISSING) return -1;
  return out == SHARD_GNUPLOT_DONE;
}

int shard_campaign_plots(const shard_campaign *c, const shard_table *t, const char *dir, shard_plot_report *rep,
                        shard_msg *msg) {
  memset(rep, 0, sizeof *rep);
  if (shard_campaign_n_plots(c) == 0) return SHARD_OK;
  char pdir[4096];
  snprintf(pdir, sizeof pdir, "%s/plots", dir);
  if (mkdir(pdir, 0777) != 0 && errno != EEXIST)
    return shard_msg_set(msg, SHARD_ERR_IO, "cannot create %s: %s", pdir, strerror(errno));
  rep->have_gnuplot = 1;
  shard_table *stats = NULL; /* the statistics table, made for the first plot that draws from it */
  for (size_t i = 0; i < shard_campaign_n_plots(c); ++i) {
    const shard_campaign_plot *p = shard_campaign_plot_at(c, i);
    int src = p->statistics && !stats ? shard_campaign_statistics_table(c, t, &stats, msg) : SHARD_OK;
    if (src != SHARD_OK) return src;
    curves cs = {0};
    int rc = p->history      ? history_curves(p, t, dir, &cs, shard_campaign_n_runs(c))
             : p->statistics ? campaign_curves(p, stats, &cs)
                             : campaign_curves(p, t, &cs);
    if (rc == SHARD_OK) rc = reference_curves(p, &cs);
    /* the data first, then the analytic curves, each in order of appearance */
    for (size_t a = 1; a < cs.n; ++a) {
      curve x = cs.items[a];
      size_t b = a;
      for (; b > 0 && cs.items[b - 1].kind > x.kind; --b) cs.items[b] = cs.items[b - 1];
      cs.items[b] = x;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.dat", pdir, p->file);
    if (rc == SHARD_OK && write_dat(path, &cs) != SHARD_OK) rc = SHARD_ERR_IO;
    snprintf(path, sizeof path, "%s/%s.gp", pdir, p->file);
    if (rc == SHARD_OK && write_gp(path, p, &cs) != SHARD_OK) rc = SHARD_ERR_IO;
    if (rc == SHARD_OK && p->logx && p->logy && !p->history) rc = write_slopes(pdir, p, &cs);
    size_t points = 0; /* data points (not the analytic curves) */
    for (size_t k = 0; k < cs.n; ++k) points += cs.items[k].kind == 0 ? cs.items[k].n : 0;
    free_curves(&cs);
    if (rc != SHARD_OK) {
      shard_table_destroy(stats);
      return shard_msg_set(msg, rc, "plot '%s': cannot write %s: %s", p->file, path, strerror(errno));
    }
    rep->written++;
    if (points == 0) { /* nothing to draw: no empty picture */
      if (rep->failed++ == 0) {
        size_t w = (size_t)snprintf(rep->failure, sizeof rep->failure,
                                    "plot '%.200s': no ok run has numbers in both x (%.200s) and y (", p->file, p->x);
        for (size_t k = 0; k < p->n_y && w < sizeof rep->failure; ++k)
          w += (size_t)snprintf(rep->failure + w, sizeof rep->failure - w, "%s%.200s", k ? ", " : "", p->y[k]);
        if (w < sizeof rep->failure)
          snprintf(rep->failure + w, sizeof rep->failure - w, "); nothing drawn (plots/%.200s.gp kept)", p->file);
      }
      continue;
    }
    if (rep->have_gnuplot) {
      int r = render(pdir, p);
      if (r < 0) rep->have_gnuplot = 0;
      if (r > 0) rep->rendered++;
      if (r == 0 && rep->failed++ == 0)
        snprintf(rep->failure, sizeof rep->failure, "plot '%.200s': gnuplot failed, see plots/%.200s.log", p->file,
                 p->file);
    }
  }
  shard_table_destroy(stats);
  return SHARD_OK;
}
