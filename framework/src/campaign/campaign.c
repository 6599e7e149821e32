/* host: campaign files — load strictly, expand the sweep into runs, evaluate
 * derived values, validate every run as a case (see campaign.h). */
#include "campaign/campaign.h"
#include "io/outputs.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "case/case.h"
#include "core/expr.h"
#include "io/fsio.h"
#include "run/run.h"
#include "core/sha256.h"
#include "io/yaml_tree.h"
#include "model/models.h"

#define MAX_AXES 64
#define MAX_PARAMS 128
#define KEY_MAX 256

/* One factor of the cartesian product: one key, or a zipped group. */
typedef struct axis {
  size_t n_keys;
  size_t first_param; /* its keys are params first_param .. first_param + n_keys - 1 */
  size_t n_values;
  const char ***values; /* [key][value] */
} axis;

typedef struct param {
  const char *key;       /* dotted path */
  const char *name;      /* name in derived expressions */
  const yt_node *at;     /* where it is declared */
  int var;               /* var.*: a campaign variable, not passed to the runs */
  const yt_node *expr;   /* derived: the expression scalar; NULL when swept */
} param;

struct shard_campaign {
  char *path;
  yt_arena *arena;
  yt_node *root;
  const char *name;
  char *base;             /* resolved base path, or NULL (inline) */
  const char *case_text;  /* base text, or the inline case with positions kept */
  size_t case_len;
  char case_hash[65], file_hash[65];
  double timeout;
  double stall_timeout;   /* `stall_timeout`, SHARD_CAMPAIGN_STALL_DEFAULT when absent; 0: off */
  const yt_node *cost;    /* `cost`: an expression of the run's values, or NULL */
  const char **fixed;     /* "key=value" of `set:` */
  size_t n_fixed;
  param params[MAX_PARAMS];
  size_t n_params;
  axis axes[MAX_AXES];
  size_t n_axes;
  shard_campaign_run *runs;
  size_t n_runs;
  shard_campaign_plot *plots;
  size_t n_plots;
  const shard_registry *reg; /* the registry it was loaded with (NULL: none); outlives the campaign */
  shard_campaign_statistics stats;
  int has_stats;
};

/* ---- small helpers ------------------------------------------------------------ */

static const char *const fixed_cols[] = {"index", "status", "exit_code", "signal", "host", "message", "run_dir"};

int shard_campaign_fixed_column(const char *name) {
  for (size_t i = 0; i < sizeof fixed_cols / sizeof fixed_cols[0]; ++i)
    if (strcmp(name, fixed_cols[i]) == 0) return 1;
  return 0;
}

static const char *adup(yt_arena *a, const char *s) { return s ? yt_strndup(a, s, strlen(s)) : NULL; }

static const char *afmt(yt_arena *a, const char *fmt, ...) SHARD_PRINTF_(2, 3);
static const char *afmt(yt_arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return NULL;
  char *s = yt_alloc(a, (size_t)n + 1);
  if (!s) return NULL;
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

void shard_format_number(double x, char *buf, size_t n) {
  if (x == floor(x) && fabs(x) < 1e15) {
    snprintf(buf, n, "%.0f", x == 0 ? 0.0 : x);
    return;
  }
  for (int p = 1; p <= 17; ++p) {
    snprintf(buf, n, "%.*g", p, x);
    if (strtod(buf, NULL) == x) return;
  }
}

/* Dotted lower_snake path, as --set takes. */
static int valid_path(const char *k) {
  if (!*k) return 0;
  for (const char *p = k; *p;) {
    if (!((*p >= 'a' && *p <= 'z') || *p == '_')) return 0;
    while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_') ++p;
    if (*p == '.') {
      ++p;
      if (!*p) return 0;
    } else if (*p) {
      return 0;
    }
  }
  return 1;
}

static int is_true(const yt_node *n) { return n->kind == YT_SCALAR && !n->quoted && strcmp(n->text, "true") == 0; }
static int is_bool(const yt_node *n) {
  return n->kind == YT_SCALAR && !n->quoted && (strcmp(n->text, "true") == 0 || strcmp(n->text, "false") == 0);
}

/* A constant expression (numbers and functions only). */
static int const_number(const yt_node *n, double *out, shard_diag *d, const char *what) {
  if (n->kind != YT_SCALAR || yt_is_null(n)) {
    yt_error_at(d, n, "%s must be a number, not %s", what, yt_kind_str(n));
    return SHARD_ERR_INPUT;
  }
  shard_expr *e = NULL;
  shard_expr_error err = {0, ""};
  int rc = shard_expr_parse(n->text, &e, &err);
  if (rc == SHARD_OK) rc = shard_expr_eval(e, NULL, NULL, out, &err);
  shard_expr_destroy(e);
  if (rc != SHARD_OK || !isfinite(*out)) {
    if (rc == SHARD_OK) snprintf(err.text, sizeof err.text, "not a finite number");
    int col = n->col + (n->quoted ? 1 : 0) + (err.col > 0 ? err.col - 1 : 0);
    yt_error(d, n->src, n->line, col, "%s: %s", what, err.text);
    return SHARD_ERR_INPUT;
  }
  return SHARD_OK;
}

static void unknown_key(shard_diag *d, const yt_node *key, const char *where, const char *const *keys, size_t n) {
  const char *s = shard_suggest(key->text, keys, n);
  char hint[96] = "";
  if (s) snprintf(hint, sizeof hint, " (did you mean '%s'?)", s);
  if (*where)
    yt_error_at(d, key, "unknown key '%s' in '%s'%s", key->text, where, hint);
  else
    yt_error_at(d, key, "unknown top-level key '%s'%s", key->text, hint);
}

/* ---- the campaign's own keys ---------------------------------------------------- */

static const char *const top_keys[] = {"name",    "description", "base",       "case",  "set",  "sweep",
                                       "derived", "timeout",     "statistics", "plots", "cost", "stall_timeout"};
#define N_TOP (sizeof top_keys / sizeof top_keys[0])

static const char *const range_keys[] = {"linspace", "logspace", "geomspace", "integer"};
static const char *const plot_keys[] = {"file",    "title",  "x",         "y",      "series",    "where",
                                        "logx",    "logy",   "xlabel",    "ylabel", "reference", "data",
                                        "xscale",  "yscale", "fit_range", "reference_columns", "table", "yerror"};
#define N_PLOT_KEYS (sizeof plot_keys / sizeof plot_keys[0])

typedef struct loader {
  shard_campaign *c;
  shard_diag *d;
  const yt_node *sweep_key;
  int bad_keys; /* swept or derived keys that are no case keys (reported once, at the key) */
  int nomem;    /* an allocation failed (reported where): out of memory, not bad input */
} loader;

static int string_value(loader *L, const yt_node *key, const yt_node *v, const char *what, const char **out) {
  if (v->kind != YT_SCALAR || yt_is_null(v)) {
    yt_error_at(L->d, yt_is_null(v) ? key : v, "'%s' must be a string, not %s", what, yt_kind_str(v));
    return SHARD_ERR_INPUT;
  }
  *out = v->text;
  return SHARD_OK;
}

static param *find_param(shard_campaign *c, const char *key) {
  for (size_t i = 0; i < c->n_params; ++i)
    if (strcmp(c->params[i].key, key) == 0) return &c->params[i];
  return NULL;
}

static const char *fixed_key_line(const shard_campaign *c, const char *key, int *line) {
  const yt_pair *set = yt_map_find(c->root, "set");
  if (!set || set->value->kind != YT_MAP) return NULL;
  const yt_pair *p = yt_map_find(set->value, key);
  if (!p) return NULL;
  *line = p->key->line;
  return p->key->text;
}

/* Declare a parameter (swept or derived); 0 after reporting a problem. */
static int add_param(loader *L, const yt_node *key, const yt_node *expr) {
  shard_campaign *c = L->c;
  if (!valid_path(key->text)) {
    yt_error_at(L->d, key, "invalid parameter path '%s' (dotted lower_snake keys, as given to --set)", key->text);
    return 0;
  }
  const param *prev = find_param(c, key->text);
  if (prev) {
    yt_error_at(L->d, key, "'%s' is %s twice (first at line %d)", key->text, expr ? "derived" : "swept",
                prev->at->line);
    return 0;
  }
  int line = 0;
  if (fixed_key_line(c, key->text, &line)) {
    yt_error_at(L->d, key, "'%s' is both fixed in 'set' (line %d) and %s", key->text, line,
                expr ? "derived" : "swept");
    return 0;
  }
  if (c->n_params == MAX_PARAMS) {
    yt_error_at(L->d, key, "too many parameters (at most %d)", MAX_PARAMS);
    return 0;
  }
  param *p = &c->params[c->n_params++];
  p->key = key->text;
  p->at = key;
  p->expr = expr;
  p->var = strncmp(key->text, "var.", 4) == 0;
  char *name = yt_strndup(c->arena, p->var ? key->text + 4 : key->text, strlen(p->var ? key->text + 4 : key->text));
  if (!name) return 0;
  for (char *q = name; *q; ++q)
    if (*q == '.') *q = '_';
  p->name = name;
  return 1;
}

/* --- values of one axis key: a list, a single scalar, or a range --- */

static const char **range_values(loader *L, const yt_node *key, const yt_node *map, size_t *out_n) {
  const yt_node *gen = NULL;
  const char *kind = NULL;
  int rounding = 0; /* 0 none, 1 nearest, 2 floor, 3 ceil */
  int bad = 0;
  for (size_t i = 0; i < map->n; ++i) {
    const yt_node *k = map->pairs[i].key, *v = map->pairs[i].value;
    if (strcmp(k->text, "integer") == 0) {
      if (v->kind == YT_SCALAR && !v->quoted && strcmp(v->text, "true") == 0)
        rounding = 1;
      else if (v->kind == YT_SCALAR && strcmp(v->text, "round") == 0)
        rounding = 1;
      else if (v->kind == YT_SCALAR && strcmp(v->text, "floor") == 0)
        rounding = 2;
      else if (v->kind == YT_SCALAR && strcmp(v->text, "ceil") == 0)
        rounding = 3;
      else if (!(v->kind == YT_SCALAR && !v->quoted && strcmp(v->text, "false") == 0)) {
        yt_error_at(L->d, v, "'integer' must be true, false, round, floor or ceil, got '%s'",
                    v->kind == YT_SCALAR ? v->text : yt_kind_str(v));
        bad = 1;
      }
      continue;
    }
    int known = 0;
    for (size_t r = 0; r < 3; ++r) known |= strcmp(k->text, range_keys[r]) == 0;
    if (!known) {
      unknown_key(L->d, k, afmt(L->c->arena, "sweep.%s", key->text), range_keys, 4);
      bad = 1;
      continue;
    }
    if (gen) {
      yt_error_at(L->d, k, "'%s' and '%s' in one range: give one of linspace, logspace, geomspace", kind, k->text);
      bad = 1;
      continue;
    }
    gen = v;
    kind = k->text;
  }
  if (bad) return NULL;
  if (!gen) {
    yt_error_at(L->d, map, "range of '%s' needs one of linspace, logspace, geomspace", key->text);
    return NULL;
  }
  if (gen->kind != YT_SEQ || gen->n != 3) {
    yt_error_at(L->d, gen, "'%s' needs [start, stop, num], got %s", kind,
                gen->kind == YT_SEQ ? afmt(L->c->arena, "%zu values", gen->n) : yt_kind_str(gen));
    return NULL;
  }
  double a, b, num;
  char what[64];
  snprintf(what, sizeof what, "%s start", kind);
  if (const_number(gen->items[0], &a, L->d, what) != SHARD_OK) return NULL;
  snprintf(what, sizeof what, "%s stop", kind);
  if (const_number(gen->items[1], &b, L->d, what) != SHARD_OK) return NULL;
  snprintf(what, sizeof what, "%s num", kind);
  if (const_number(gen->items[2], &num, L->d, what) != SHARD_OK) return NULL;
  if (num != floor(num) || num < 1 || num > SHARD_CAMPAIGN_MAX_RUNS) {
    yt_error_at(L->d, gen->items[2], "%s num must be an integer in [1, %d], got %g", kind, SHARD_CAMPAIGN_MAX_RUNS,
                num);
    return NULL;
  }
  int geom = strcmp(kind, "geomspace") == 0, logs = strcmp(kind, "logspace") == 0;
  if (geom && (a <= 0 || b <= 0)) {
    yt_error_at(L->d, gen, "geomspace start and stop must be > 0, got %g and %g", a, b);
    return NULL;
  }
  size_t n = (size_t)num;
  const char **vals = yt_alloc(L->c->arena, n * sizeof *vals);
  double prev = NAN;
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    double t = n > 1 ? (double)i / (double)(n - 1) : 0.0, x;
    if (geom) {
      x = exp(log(a) + t * (log(b) - log(a)));
      if (i == 0) x = a;
      if (i == n - 1 && n > 1) x = b;
    } else {
      double y = i == n - 1 && n > 1 ? b : a + t * (b - a);
      x = logs ? pow(10.0, y) : y;
    }
    /* relative slack so that 2.9999999999999996 rounds down to 3, not 2 */
    if (rounding == 1) x = round(x);
    if (rounding == 2) x = floor(x + 1e-12 * fabs(x));
    if (rounding == 3) x = ceil(x - 1e-12 * fabs(x));
    if (rounding && k > 0 && x == prev) continue; /* de-duplicate (ranges are monotonic) */
    prev = x;
    char buf[64];
    shard_format_number(x, buf, sizeof buf);
    if (!vals || !(vals[k++] = adup(L->c->arena, buf))) return NULL;
  }
  *out_n = k;
  return vals;
}

static const char **key_values(loader *L, const yt_node *key, const yt_node *v, size_t *out_n) {
  if (v->kind == YT_MAP) return range_values(L, key, v, out_n);
  if (v->kind == YT_SCALAR) {
    if (yt_is_null(v)) {
      yt_error_at(L->d, key, "'sweep.%s' has no values", key->text);
      return NULL;
    }
    const char **vals = yt_alloc(L->c->arena, sizeof *vals);
    if (vals) vals[0] = v->text;
    *out_n = 1;
    return vals;
  }
  if (v->n == 0) {
    yt_error_at(L->d, v, "'sweep.%s' is an empty list", key->text);
    return NULL;
  }
  const char **vals = yt_alloc(L->c->arena, v->n * sizeof *vals);
  const int var = strncmp(key->text, "var.", 4) == 0;
  int bad = 0;
  for (size_t i = 0; vals && i < v->n; ++i) {
    const yt_node *it = v->items[i];
    if (var && it->kind == YT_SCALAR && yt_is_explicit_null(it)) {
      yt_error_at(L->d, it, "'sweep.%s' is a variable: it needs a value (null removes a case key, and a variable is "
                  "not one)", key->text);
      bad = 1;
      continue;
    }
    if (it->kind != YT_SCALAR || (yt_is_null(it) && !yt_is_explicit_null(it))) {
      yt_error_at(L->d, it, "values of 'sweep.%s' must be scalars, not %s", key->text, yt_kind_str(it));
      bad = 1;
      continue;
    }
    vals[i] = yt_is_null(it) ? "null" : it->text; /* null: the run removes the key (--set key=null) */
  }
  *out_n = v->n;
  return bad ? NULL : vals;
}

static int add_axis(loader *L, const yt_node *const *keys, const yt_node *const *vals, size_t n_keys,
                    const yt_node *at) {
  shard_campaign *c = L->c;
  if (c->n_axes == MAX_AXES) {
    yt_error_at(L->d, at, "too many sweep axes (at most %d)", MAX_AXES);
    return 0;
  }
  axis *ax = &c->axes[c->n_axes];
  ax->values = yt_alloc(c->arena, n_keys * sizeof *ax->values);
  if (!ax->values) return 0;
  ax->first_param = c->n_params;
  const yt_node *first = NULL;
  int ok = 1;
  for (size_t i = 0; i < n_keys; ++i) {
    size_t n = 0;
    if (!add_param(L, keys[i], NULL)) {
      ok = 0;
      continue;
    }
    ax->values[ax->n_keys] = key_values(L, keys[i], vals[i], &n);
    if (!ax->values[ax->n_keys]) {
      c->n_params--;
      ok = 0;
      continue;
    }
    if (ax->n_keys > 0 && n != ax->n_values) {
      yt_error_at(L->d, keys[i], "zip: '%s' has %zu values but '%s' has %zu", keys[i]->text, n, first->text,
                  ax->n_values);
      c->n_params--;
      ok = 0;
      continue;
    }
    if (ax->n_keys == 0) {
      first = keys[i];
      ax->n_values = n;
    }
    ax->n_keys++;
  }
  if (ax->n_keys == 0) return ok;
  /* all keys of an axis must be contiguous params */
  c->n_axes++;
  return ok;
}

static void load_zip(loader *L, const yt_node *key, const yt_node *v) {
  if (v->kind == YT_MAP) {
    if (v->n == 0) {
      yt_error_at(L->d, v, "'sweep.zip' is an empty mapping");
      return;
    }
    const yt_node **ks = yt_alloc(L->c->arena, v->n * sizeof *ks), **vs = yt_alloc(L->c->arena, v->n * sizeof *vs);
    if (!ks || !vs) return;
    for (size_t i = 0; i < v->n; ++i) {
      ks[i] = v->pairs[i].key;
      vs[i] = v->pairs[i].value;
    }
    add_axis(L, ks, vs, v->n, key);
    return;
  }
  if (v->kind == YT_SEQ && v->n > 0) {
    for (size_t i = 0; i < v->n; ++i) {
      if (v->items[i]->kind != YT_MAP) {
        yt_error_at(L->d, v->items[i], "each zip group must be a mapping of keys to lists, not %s",
                    yt_kind_str(v->items[i]));
        continue;
      }
      load_zip(L, key, v->items[i]);
    }
    return;
  }
  yt_error_at(L->d, yt_is_null(v) ? key : v,
              "'sweep.zip' must be a mapping of keys to lists (or a list of such groups), not %s", yt_kind_str(v));
}

static void load_sweep(loader *L, const yt_node *key, const yt_node *v) {
  L->sweep_key = key;
  if (v->kind != YT_MAP || v->n == 0) {
    yt_error_at(L->d, yt_is_null(v) ? key : v, "'sweep' must be a mapping of parameter paths to values, not %s",
                v->kind == YT_MAP ? "an empty mapping" : yt_kind_str(v));
    return;
  }
  for (size_t i = 0; i < v->n; ++i) {
    const yt_node *k = v->pairs[i].key, *val = v->pairs[i].value;
    if (strcmp(k->text, "zip") == 0 || strcmp(k->text, "product") == 0) {
      if (strcmp(k->text, "zip") == 0)
        load_zip(L, k, val);
      else if (val->kind != YT_MAP)
        yt_error_at(L->d, yt_is_null(val) ? k : val, "'sweep.product' must be a mapping, not %s", yt_kind_str(val));
      else
        for (size_t j = 0; j < val->n; ++j)
          add_axis(L, (const yt_node *const[]){val->pairs[j].key}, (const yt_node *const[]){val->pairs[j].value},
                   1, val->pairs[j].key);
      continue;
    }
    add_axis(L, (const yt_node *const[]){k}, (const yt_node *const[]){val}, 1, k);
  }
}

static void load_set(loader *L, const yt_node *key, const yt_node *v) {
  shard_campaign *c = L->c;
  if (v->kind != YT_MAP) {
    yt_error_at(L->d, yt_is_null(v) ? key : v, "'set' must be a mapping of parameter paths to values, not %s",
                yt_kind_str(v));
    return;
  }
  c->fixed = yt_alloc(c->arena, (v->n + 1) * sizeof *c->fixed);
  if (!c->fixed) return;
  for (size_t i = 0; i < v->n; ++i) {
    const yt_node *k = v->pairs[i].key, *val = v->pairs[i].value;
    if (!valid_path(k->text) || strncmp(k->text, "var.", 4) == 0) {
      yt_error_at(L->d, k, "invalid parameter path '%s' (dotted lower_snake keys, as given to --set)", k->text);
      continue;
    }
    if (val->kind != YT_SCALAR || (yt_is_null(val) && !yt_is_explicit_null(val))) {
      yt_error_at(L->d, yt_is_null(val) ? k : val, "'set.%s' must be a scalar value, not %s", k->text,
                  yt_kind_str(val));
      continue;
    }
    /* null removes the key from every run's case (--set key=null) */
    c->fixed[c->n_fixed++] = afmt(c->arena, "%s=%s", k->text, yt_is_null(val) ? "null" : val->text);
  }
}

static void load_derived(loader *L, const yt_node *key, const yt_node *v) {
  if (v->kind != YT_MAP) {
    yt_error_at(L->d, yt_is_null(v) ? key : v, "'derived' must be a mapping of parameter paths to expressions, not %s",
                yt_kind_str(v));
    return;
  }
  for (size_t i = 0; i < v->n; ++i) {
    const yt_node *k = v->pairs[i].key, *val = v->pairs[i].value;
    if (val->kind != YT_SCALAR || yt_is_null(val)) {
      yt_error_at(L->d, yt_is_null(val) ? k : val, "'derived.%s' must be an expression, not %s", k->text,
                  yt_kind_str(val));
      continue;
    }
    add_param(L, k, val);
  }
}

static void load_timeout(loader *L, const yt_node *key, const yt_node *v) {
  double t;
  if (const_number(v, &t, L->d, "'timeout'") != SHARD_OK) return;
  if (t <= 0) {
    yt_error_at(L->d, v, "'timeout' must be > 0 s, got %g", t);
    return;
  }
  L->c->timeout = t;
}

static void load_stall_timeout(loader *L, const yt_node *v) {
  double t;
  if (const_number(v, &t, L->d, "'stall_timeout'") != SHARD_OK) return;
  if (t < 0) {
    yt_error_at(L->d, v, "'stall_timeout' must be >= 0 s (0: no watchdog), got %g", t);
    return;
  }
  L->c->stall_timeout = t;
}

static void load_cost(loader *L, const yt_node *key, const yt_node *v) {
  if (v->kind != YT_SCALAR || yt_is_null(v)) {
    yt_error_at(L->d, yt_is_null(v) ? key : v,
                "'cost' must be an expression of the run's values (an estimate of its cost), not %s",
                yt_kind_str(v));
    return;
  }
  L->c->cost = v;
}

/* --- plots --- */

static const char **string_list(loader *L, const yt_node *key, const yt_node *v, const char *what, size_t *out_n) {
  yt_arena *a = L->c->arena;
  if (v->kind == YT_SCALAR && !yt_is_null(v)) {
    const char **r = yt_alloc(a, sizeof *r);
    if (r) r[0] = v->text;
    *out_n = 1;
    return r;
  }
  if (v->kind != YT_SEQ || v->n == 0) {
    yt_error_at(L->d, yt_is_null(v) ? key : v, "'%s' must be a column name or a list of them, not %s", what,
                v->kind == YT_SEQ ? "an empty list" : yt_kind_str(v));
    return NULL;
  }
  const char **r = yt_alloc(a, v->n * sizeof *r);
  for (size_t i = 0; r && i < v->n; ++i) {
    if (v->items[i]->kind != YT_SCALAR || yt_is_null(v->items[i])) {
      yt_error_at(L->d, v->items[i], "'%s' must list column names, not %s", what, yt_kind_str(v->items[i]));
      return NULL;
    }
    r[i] = v->items[i]->text;
  }
  *out_n = v->n;
  return r;
}

/* One of a few words; 0 after reporting another value. */
static int choice_value(loader *L, const yt_node *key, const yt_node *v, const char *what, const char *a,
                        const char *b, int *out) {
  if (v->kind == YT_SCALAR && (strcmp(v->text, a) == 0 || strcmp(v->text, b) == 0)) {
    *out = strcmp(v->text, b) == 0;
    return 1;
  }
  yt_error_at(L->d, yt_is_null(v) ? key : v, "invalid value '%s' for '%s' (expected one of: %s, %s)",
              v->kind == YT_SCALAR ? v->text : yt_kind_str(v), what, a, b);
  return 0;
}

/* A parameter column named in series/where: it must exist. */
static int check_param_col(loader *L, const yt_node *at, const char *plot, const char *role, const char *col) {
  if (find_param(L->c, col) || L->bad_keys) return 1; /* a misspelt swept key: reported at the key */
  const char *names[MAX_PARAMS];
  for (size_t i = 0; i < L->c->n_params; ++i) names[i] = L->c->params[i].key;
  const char *s = shard_suggest(col, names, L->c->n_params);
  if (s)
    yt_error_at(L->d, at, "plot '%s': %s column '%s' is not a parameter of this campaign (did you mean '%s'?)", plot,
                role, col, s);
  else
    yt_error_at(L->d, at, "plot '%s': %s column '%s' is not a parameter of this campaign", plot, role, col);
  return 0;
}

/* A parameter column of a `table: statistics` plot: a group column. */
static int check_group_col(loader *L, const yt_node *at, const char *plot, const char *role, const char *col) {
  const shard_campaign_statistics *s = &L->c->stats;
  for (size_t i = 0; i < s->n_group; ++i)
    if (strcmp(s->group[i], col) == 0) return 1;
  if (strcmp(col, s->over) == 0)
    yt_error_at(L->d, at, "plot '%s': %s column '%s' is averaged over in statistics.csv (table: statistics)", plot,
                role, col);
  else
    yt_error_at(L->d, at, "plot '%s': %s column '%s' is not a column of statistics.csv (its parameter columns are the "
                "swept keys other than '%s')", plot, role, col, s->over);
  return 0;
}

/* --- swept and derived keys: keys of the case --- */

static int write_temp_case(const shard_campaign *c, char *dir, size_t dsize, char *path, size_t psize);

/* Each swept and derived key must be a key of the base case: the case
 * loaded with the `set:` overrides and every swept key at its first value
 * (0 for a derived key) must not answer "unknown key" for it. A misspelt key
 * is one error, at the key, whatever else names it (instead of an error per
 * run, or a plot's "not a parameter" suggesting the misspelling); the runs
 * and the plots' parameter columns are then not checked. */
static void check_param_keys(loader *L, const shard_registry *reg) {
  shard_campaign *c = L->c;
  if (!reg || (!c->base && !c->case_text) || c->n_params == 0) return;
  const char **sets = yt_alloc(c->arena, (c->n_fixed + c->n_params + 1) * sizeof *sets);
  if (!sets) return;
  size_t n = 0;
  for (size_t i = 0; i < c->n_fixed; ++i) sets[n++] = c->fixed[i];
  for (size_t i = 0; i < c->n_params; ++i) {
    const param *p = &c->params[i];
    if (p->var) continue;
    const char *value = "0";
    for (size_t a = 0; !p->expr && a < c->n_axes; ++a)
      if (i >= c->axes[a].first_param && i < c->axes[a].first_param + c->axes[a].n_keys && c->axes[a].n_values)
        value = c->axes[a].values[i - c->axes[a].first_param][0];
    sets[n++] = afmt(c->arena, "%s=%s", p->key, value);
  }
  char dir[4096] = "", tmp[4096];
  const char *path = c->base;
  if (!path) {
    if (write_temp_case(c, dir, sizeof dir, tmp, sizeof tmp) != SHARD_OK) return;
    path = tmp;
  }
  shard_diag *sub = shard_diag_create();
  shard_case *cs = NULL;
  char *buf = NULL;
  size_t len = 0;
  if (sub && shard_case_load(path, sets, (int)n, reg, &cs, sub) != SHARD_OK) {
    FILE *m = open_memstream(&buf, &len);
    if (m) {
      shard_diag_print(sub, m);
      fclose(m);
    }
  }
  shard_case_destroy(cs);
  /* the case layer's errors about a --set itself: "--set 'KEY=V':1:C: error: unknown key ..." */
  for (char *line = buf, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    const char *e = strstr(line, ": error: ");
    if (strncmp(line, "--set '", 7) != 0 || !e || strncmp(e + 9, "unknown ", 8) != 0) continue;
    const size_t klen = strcspn(line + 7, "=");
    for (size_t i = 0; i < c->n_params; ++i) {
      param *p = &c->params[i];
      if (p->var || strlen(p->key) != klen || strncmp(p->key, line + 7, klen) != 0 || !p->at) continue;
      yt_error_at(L->d, p->at, "%s key '%s' is not a key of the case: %s", p->expr ? "derived" : "swept", p->key,
                  e + 9);
      p->at = NULL; /* once */
      L->bad_keys++;
    }
  }
  free(buf);
  shard_diag_destroy(sub);
  if (*dir) {
    unlink(tmp);
    rmdir(dir);
  }
}

/* --- the columns a plot may name --- */

typedef struct name_list {
  const char **v;
  size_t n, cap;
} name_list;

static void names_add(loader *L, name_list *ns, const char *s) {
  if (ns->n == ns->cap) {
    size_t cap = ns->cap ? 2 * ns->cap : 256;
    const char **p = yt_alloc(L->c->arena, cap * sizeof *p);
    if (!p) return;
    if (ns->n) memcpy(p, ns->v, ns->n * sizeof *p);
    ns->v = p, ns->cap = cap;
  }
  ns->v[ns->n++] = s;
}

/* A model's summary key or history column: from the model plugins' tables.
 * A campaign loaded without plugins (reg NULL: nothing that needs them is
 * checked, like its runs and swept keys) takes any other name as a number
 * key of a model it cannot see. */
static const shard_out_field unchecked_model_key = {"", SHARD_OUT_NUMBER, "", 0, NULL,
                                                    "a model's key (not checked: loaded without plugins)"};
static const shard_out_field *model_summary(const shard_campaign *c, const char *col) {
  return c->reg ? shard_models_find_summary(c->reg, col) : &unchecked_model_key;
}
static int model_history(const shard_campaign *c, const char *col) {
  return !c->reg || shard_models_find_history(c->reg, col) != NULL;
}

/* the result columns of campaign.csv a statistic may be taken of: the
 * numeric run columns and the summary keys (listed ones only with
 * statistics.columns) */
static int statistic_column(const shard_campaign *c, const char *col) {
  const shard_campaign_statistics *s = &c->stats;
  if (s->columns) {
    for (size_t i = 0; i < s->n_columns; ++i)
      if (strcmp(s->columns[i], col) == 0) return 1;
    return 0;
  }
  if (shard_campaign_fixed_column(col)) return 0;
  for (size_t i = 0; i < c->n_params; ++i) /* parameter columns are no statistic columns */
    if (strcmp(c->params[i].key, col) == 0) return 0;
  const shard_out_field *f = shard_out_find(&shard_out_campaign_runs, col, ~0u);
  if (!f) f = model_summary(c, col);
  return f && (f->type == SHARD_OUT_NUMBER || f->type == SHARD_OUT_INTEGER);
}

/* The columns the plot's data has (by name, whatever the runs): for
 * campaign.csv index, the parameters, the run columns and the summary keys;
 * for statistics.csv the group columns, n, failed and C.n, C.mean, C.std,
 * C.ci95, C.min, C.max of the statistic columns C; for `data: history` the
 * history columns. With `ns`, the names to suggest from. */
static int plot_column(loader *L, const shard_campaign_plot *p, const char *col, name_list *ns) {
  const shard_campaign *c = L->c;
  static const char *const suffixes[] = {"mean", "std", "ci95", "min", "max", "n"};
  if (p->history) {
    const shard_out_table *h[16];
    const size_t nh = shard_models_history_tables(c->reg, h, 16);
    for (size_t t = 0; ns && t < nh; ++t)
      for (size_t i = 0; i < h[t]->n_fields; ++i) names_add(L, ns, h[t]->fields[i].name);
    return model_history(c, col);
  }
  if (p->statistics && c->has_stats) {
    const shard_campaign_statistics *s = &c->stats;
    int known = strcmp(col, "n") == 0 || strcmp(col, "failed") == 0;
    for (size_t i = 0; i < s->n_group; ++i) {
      known |= strcmp(col, s->group[i]) == 0;
      if (ns) names_add(L, ns, s->group[i]);
    }
    const char *dot = strrchr(col, '.');
    if (!known && dot) {
      char base[KEY_MAX];
      snprintf(base, sizeof base, "%.*s", (int)(dot - col), col);
      for (size_t k = 0; k < 6 && !known; ++k) known = strcmp(dot + 1, suffixes[k]) == 0 && statistic_column(c, base);
    }
    if (ns) {
      const shard_out_table *tabs[16] = {&shard_out_campaign_runs};
      const size_t nt = 1 + shard_models_summary_tables(c->reg, tabs + 1, 15);
      for (size_t t = 0; t < nt; ++t)
        for (size_t i = 0; i < tabs[t]->n_fields; ++i)
          if (statistic_column(c, tabs[t]->fields[i].name))
            for (size_t k = 0; k < 5; ++k)
              names_add(L, ns, afmt(c->arena, "%s.%s", tabs[t]->fields[i].name, suffixes[k]));
    }
    return known;
  }
  if (ns) {
    names_add(L, ns, "index");
    for (size_t i = 0; i < c->n_params; ++i) names_add(L, ns, c->params[i].key);
    for (size_t i = 0; i < shard_out_campaign_runs.n_fields; ++i) names_add(L, ns, shard_out_campaign_runs.fields[i].name);
    const shard_out_table *st[16];
    const size_t nst = shard_models_summary_tables(c->reg, st, 16);
    for (size_t t = 0; t < nst; ++t)
      for (size_t i = 0; i < st[t]->n_fields; ++i) names_add(L, ns, st[t]->fields[i].name);
  }
  return strcmp(col, "index") == 0 || find_param(L->c, col) || shard_out_find(&shard_out_campaign_runs, col, ~0u) ||
         model_summary(c, col);
}

/* A column named in x, y, yerror or reference_columns: one the plot's data has. */
static void check_plot_column(loader *L, const yt_node *at, const shard_campaign_plot *p, const char *plot,
                              const char *role, const char *col) {
  if (plot_column(L, p, col, NULL)) return;
  name_list ns = {0};
  plot_column(L, p, col, &ns);
  const char *sug = shard_suggest(col, ns.v, ns.n);
  const char *table = p->history ? "the runs' history.csv" : p->statistics ? "statistics.csv" : "campaign.csv";
  const char *what = p->history ? "" : p->statistics ? " (group columns, n, failed, and C.mean, C.std, C.ci95, C.min, "
                                                       "C.max of the statistic columns C)"
                                                     : " (index, the parameters, the run columns and the summary keys)";
  if (sug)
    yt_error_at(L->d, at, "plot '%s': %s column '%s' is not a column of %s (did you mean '%s'?)", plot, role, col, table,
                sug);
  else
    yt_error_at(L->d, at, "plot '%s': %s column '%s' is not a column of %s%s; docs/outputs.md lists them", plot, role,
                col, table, what);
}

/* --- statistics --- */

static void load_statistics(loader *L, const yt_node *key, const yt_node *v) {
  static const char *const keys[] = {"over", "columns"};
  shard_campaign *c = L->c;
  shard_campaign_statistics *s = &c->stats;
  if (v->kind != YT_MAP) {
    yt_error_at(L->d, yt_is_null(v) ? key : v, "'statistics' must be a mapping {over, columns}, not %s",
                yt_kind_str(v));
    return;
  }
  const yt_node *over = NULL, *over_key = NULL, *cols = NULL, *cols_key = NULL;
  for (size_t i = 0; i < v->n; ++i) {
    const yt_node *k = v->pairs[i].key;
    if (strcmp(k->text, "over") == 0) {
      over_key = k;
      over = v->pairs[i].value;
    } else if (strcmp(k->text, "columns") == 0) {
      cols_key = k;
      cols = v->pairs[i].value;
    } else {
      unknown_key(L->d, k, "statistics", keys, 2);
    }
  }
  if (!over) {
    yt_error_at(L->d, v, "missing required key 'over' in 'statistics' (the swept key to average over)");
    return;
  }
  const char *name;
  if (string_value(L, over_key, over, "statistics.over", &name) != SHARD_OK) return;
  const param *p = find_param(c, name);
  if (p && p->expr) {
    yt_error_at(L->d, over, "'statistics.over': '%s' is derived; statistics are taken over a swept key", name);
    return;
  }
  if (!p) {
    const char *swept[MAX_PARAMS];
    size_t ns = 0;
    for (size_t i = 0; i < c->n_params; ++i)
      if (!c->params[i].expr) swept[ns++] = c->params[i].key;
    const char *sug = shard_suggest(name, swept, ns);
    if (sug)
      yt_error_at(L->d, over, "'statistics.over': '%s' is not a swept key of this campaign (did you mean '%s'?)", name,
                  sug);
    else
      yt_error_at(L->d, over, "'statistics.over': '%s' is not a swept key of this campaign", name);
    return;
  }
  /* the group columns: the other swept keys, but those zipped with `over` move with it */
  size_t ip = (size_t)(p - c->params);
  const axis *own = NULL;
  for (size_t a = 0; a < c->n_axes; ++a)
    if (ip >= c->axes[a].first_param && ip < c->axes[a].first_param + c->axes[a].n_keys) own = &c->axes[a];
  const char **group = yt_alloc(c->arena, (c->n_params + 1) * sizeof *group);
  if (!group) return;
  for (size_t i = 0; i < c->n_params; ++i) {
    if (c->params[i].expr || (own && i >= own->first_param && i < own->first_param + own->n_keys)) continue;
    group[s->n_group++] = c->params[i].key;
  }
  s->over = name;
  s->group = group;
  c->has_stats = 1;
  if (!cols) return;
  size_t n = 0;
  const char **list = string_list(L, cols_key, cols, "statistics.columns", &n);
  if (!list) return;
  for (size_t i = 0; i < n; ++i) {
    const yt_node *at = cols->kind == YT_SEQ ? cols->items[i] : cols;
    const param *q = find_param(c, list[i]);
    int fixed = shard_campaign_fixed_column(list[i]);
    int twice = 0;
    for (size_t k = 0; k < i; ++k) twice |= strcmp(list[i], list[k]) == 0;
    if (q && !q->expr)
      yt_error_at(L->d, at, "'statistics.columns': '%s' is a swept key, not a result column", list[i]);
    else if (fixed)
      yt_error_at(L->d, at, "'statistics.columns': '%s' is not a numeric result column", list[i]);
    else if (twice)
      yt_error_at(L->d, at, "'statistics.columns': '%s' is listed twice", list[i]);
    else if (!q && !statistic_column(c, list[i])) { /* a numeric run column or summary key (docs/outputs.md) */
      name_list ns = {0};
      const shard_out_table *tabs[16] = {&shard_out_campaign_runs};
      const size_t nt = 1 + shard_models_summary_tables(c->reg, tabs + 1, 15);
      for (size_t t = 0; t < nt; ++t)
        for (size_t k = 0; k < tabs[t]->n_fields; ++k)
          if (statistic_column(c, tabs[t]->fields[k].name)) names_add(L, &ns, tabs[t]->fields[k].name);
      const char *sug = shard_suggest(list[i], ns.v, ns.n);
      yt_error_at(L->d, at, "'statistics.columns': '%s' is not a numeric column of campaign.csv%s%s%s", list[i],
                  sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
    }
  }
  s->columns = list;
  s->n_columns = n;
}

static void load_plot(loader *L, const yt_node *m, shard_campaign_plot *p) {
  yt_arena *a = L->c->arena;
  p->xscale = p->yscale = 1.0;
  const yt_pair *fp = yt_map_find(m, "file");
  const char *label = fp && fp->value->kind == YT_SCALAR ? fp->value->text : "?";
  const yt_node *series_at = NULL, *where = NULL, *refs = NULL, *table_at = NULL, *yerror_at = NULL, *x_at = NULL;
  const yt_node *y_at = NULL, *refcols_at = NULL;
  for (size_t i = 0; i < m->n; ++i) {
    const yt_node *k = m->pairs[i].key, *v = m->pairs[i].value;
    const char *kt = k->text;
    char what[KEY_MAX];
    snprintf(what, sizeof what, "plots.%s", kt);
    if (strcmp(kt, "file") == 0) {
      if (string_value(L, k, v, what, &p->file) == SHARD_OK && !shard_plain_name(p->file)) {
        yt_error_at(L->d, v, "plot file name '%s' must be a plain name (letters, digits, '_', '-', '.')", p->file);
        p->file = NULL;
      }
    } else if (strcmp(kt, "title") == 0) {
      string_value(L, k, v, what, &p->title);
    } else if (strcmp(kt, "xlabel") == 0) {
      string_value(L, k, v, what, &p->xlabel);
    } else if (strcmp(kt, "ylabel") == 0) {
      string_value(L, k, v, what, &p->ylabel);
    } else if (strcmp(kt, "x") == 0) {
      string_value(L, k, v, what, &p->x);
      x_at = v;
    } else if (strcmp(kt, "y") == 0) {
      p->y = string_list(L, k, v, what, &p->n_y);
      y_at = v;
    } else if (strcmp(kt, "series") == 0) {
      p->series = string_list(L, k, v, what, &p->n_series);
      series_at = v;
    } else if (strcmp(kt, "reference_columns") == 0) {
      p->ref_cols = string_list(L, k, v, what, &p->n_ref_cols);
      refcols_at = v;
    } else if (strcmp(kt, "logx") == 0 || strcmp(kt, "logy") == 0) {
      if (!is_bool(v))
        yt_error_at(L->d, yt_is_null(v) ? k : v, "'%s' must be true or false", what);
      else
        *(kt[3] == 'x' ? &p->logx : &p->logy) = is_true(v);
    } else if (strcmp(kt, "data") == 0) {
      choice_value(L, k, v, what, "campaign", "history", &p->history);
    } else if (strcmp(kt, "table") == 0) {
      choice_value(L, k, v, what, "campaign", "statistics", &p->statistics);
      table_at = v;
    } else if (strcmp(kt, "yerror") == 0) {
      p->yerror = string_list(L, k, v, what, &p->n_yerror);
      yerror_at = v;
    } else if (strcmp(kt, "xscale") == 0 || strcmp(kt, "yscale") == 0) {
      double s;
      snprintf(what, sizeof what, "'plots.%s'", kt);
      if (const_number(v, &s, L->d, what) == SHARD_OK) {
        if (s == 0)
          yt_error_at(L->d, v, "%s must not be 0", what);
        else
          *(kt[0] == 'x' ? &p->xscale : &p->yscale) = s;
      }
    } else if (strcmp(kt, "fit_range") == 0) {
      if (v->kind != YT_SEQ || v->n != 2) {
        yt_error_at(L->d, yt_is_null(v) ? k : v, "'plots.fit_range' must be [xmin, xmax]");
      } else if (const_number(v->items[0], &p->fit_lo, L->d, "fit_range xmin") == SHARD_OK &&
                 const_number(v->items[1], &p->fit_hi, L->d, "fit_range xmax") == SHARD_OK) {
        if (p->fit_lo >= p->fit_hi)
          yt_error_at(L->d, v, "fit_range xmin must be below xmax, got %g and %g", p->fit_lo, p->fit_hi);
        else
          p->has_fit_range = 1;
      }
    } else if (strcmp(kt, "where") == 0) {
      where = v;
    } else if (strcmp(kt, "reference") == 0) {
      refs = v;
    } else {
      unknown_key(L->d, k, afmt(a, "plots '%s'", label), plot_keys, N_PLOT_KEYS);
    }
  }
  if (!yt_map_find(m, "file")) yt_error_at(L->d, m, "missing required key 'file' in plot");
  if (!yt_map_find(m, "x")) yt_error_at(L->d, m, "missing required key 'x' in plot '%s'", label);
  if (!yt_map_find(m, "y")) yt_error_at(L->d, m, "missing required key 'y' in plot '%s'", label);
  const int by_group = p->statistics && L->c->has_stats; /* parameter columns: the group columns only */
  if (p->statistics && !L->c->has_stats)
    yt_error_at(L->d, table_at, "plot '%s': 'table: statistics' needs a top-level 'statistics' block", label);
  if (p->statistics && p->history)
    yt_error_at(L->d, table_at, "plot '%s': 'table: statistics' and 'data: history' are exclusive", label);
  if (p->yerror && p->history)
    yt_error_at(L->d, yerror_at, "plot '%s': 'yerror' needs table data, not 'data: history'", label);
  else if (p->yerror && p->y && p->n_yerror != p->n_y)
    yt_error_at(L->d, yerror_at, "plot '%s': 'yerror' needs one column per 'y' column (%zu), got %zu", label, p->n_y,
                p->n_yerror);
  /* x, y, yerror and reference columns: columns the data has (a parameter x of a statistics plot: below) */
  if (!L->bad_keys) {
    const yt_node *item;
#define ITEM_(node, i) ((node)->kind == YT_SEQ ? (node)->items[i] : (node))
    if (p->x && !(by_group && find_param(L->c, p->x))) check_plot_column(L, x_at, p, label, "x", p->x);
    for (size_t i = 0; p->y && i < p->n_y; ++i) item = ITEM_(y_at, i), check_plot_column(L, item, p, label, "y", p->y[i]);
    for (size_t i = 0; p->yerror && !p->history && i < p->n_yerror; ++i)
      item = ITEM_(yerror_at, i), check_plot_column(L, item, p, label, "yerror", p->yerror[i]);
    for (size_t i = 0; p->ref_cols && i < p->n_ref_cols; ++i) {
      item = ITEM_(refcols_at, i);
      if (!p->history)
        yt_error_at(L->d, item, "plot '%s': 'reference_columns' are history columns: they need 'data: history'", label);
      else
        check_plot_column(L, item, p, label, "reference", p->ref_cols[i]);
    }
#undef ITEM_
  }
  if (by_group && p->x && find_param(L->c, p->x)) check_group_col(L, x_at, label, "x", p->x);
  for (size_t i = 0; p->series && i < p->n_series; ++i)
    if (check_param_col(L, series_at, label, "series", p->series[i]) && by_group)
      check_group_col(L, series_at, label, "series", p->series[i]);
  if (where) {
    if (where->kind != YT_MAP) {
      yt_error_at(L->d, where, "'plots.where' must be a mapping of parameter columns to values, not %s",
                  yt_kind_str(where));
    } else {
      const char **cols = yt_alloc(a, (where->n + 1) * sizeof *cols), **vals = yt_alloc(a, (where->n + 1) * sizeof *vals);
      for (size_t i = 0; cols && vals && i < where->n; ++i) {
        const yt_node *k = where->pairs[i].key, *v = where->pairs[i].value;
        if (!check_param_col(L, k, label, "where", k->text)) continue;
        if (by_group && !check_group_col(L, k, label, "where", k->text)) continue;
        if (v->kind != YT_SCALAR || yt_is_null(v)) {
          yt_error_at(L->d, yt_is_null(v) ? k : v, "'plots.where.%s' must be a value, not %s", k->text, yt_kind_str(v));
          continue;
        }
        cols[p->n_where] = k->text;
        vals[p->n_where++] = v->text;
      }
      p->where_cols = cols;
      p->where_vals = vals;
    }
  }
  if (refs) {
    if (refs->kind != YT_SEQ) {
      yt_error_at(L->d, refs, "'plots.reference' must be a list of {expr, title}, not %s", yt_kind_str(refs));
      return;
    }
    const char **ex = yt_alloc(a, (refs->n + 1) * sizeof *ex), **ti = yt_alloc(a, (refs->n + 1) * sizeof *ti);
    for (size_t i = 0; ex && ti && i < refs->n; ++i) {
      const yt_node *r = refs->items[i], *e = NULL, *t = NULL;
      if (r->kind == YT_SCALAR && !yt_is_null(r)) {
        e = r;
      } else if (r->kind == YT_MAP) {
        for (size_t j = 0; j < r->n; ++j) {
          const yt_node *k = r->pairs[j].key;
          if (strcmp(k->text, "expr") == 0)
            e = r->pairs[j].value;
          else if (strcmp(k->text, "title") == 0)
            t = r->pairs[j].value;
          else
            unknown_key(L->d, k, "plots.reference", (const char *const[]){"expr", "title"}, 2);
        }
        if (!e) yt_error_at(L->d, r, "missing required key 'expr' in 'plots.reference'");
      } else {
        yt_error_at(L->d, r, "'plots.reference' items must be expressions of x or {expr, title}, not %s",
                    yt_kind_str(r));
      }
      if (!e) continue;
      if (e->kind != YT_SCALAR) {
        yt_error_at(L->d, e, "a reference curve must be an expression of x, not %s", yt_kind_str(e));
        continue;
      }
      shard_expr *x = NULL;
      shard_expr_error err = {0, ""};
      if (shard_expr_parse(e->text, &x, &err) != SHARD_OK) {
        yt_error(L->d, e->src, e->line, e->col + (e->quoted ? 1 : 0) + err.col - 1, "reference curve: %s", err.text);
        continue;
      }
      int bad = 0;
      for (size_t j = 0; j < shard_expr_n_names(x); ++j) {
        int col = 0;
        const char *nm = shard_expr_name(x, j, &col);
        if (strcmp(nm, "x") != 0 && !bad) {
          yt_error(L->d, e->src, e->line, e->col + (e->quoted ? 1 : 0) + col - 1,
                   "reference curve: unknown name '%s' (an expression of x)", nm);
          bad = 1;
        }
      }
      shard_expr_destroy(x);
      if (bad) continue;
      ex[p->n_refs] = e->text;
      ti[p->n_refs++] = t && t->kind == YT_SCALAR ? t->text : e->text;
    }
    p->ref_exprs = ex;
    p->ref_titles = ti;
  }
}

static void load_plots(loader *L, const yt_node *key, const yt_node *v) {
  if (v->kind != YT_SEQ) {
    yt_error_at(L->d, yt_is_null(v) ? key : v, "'plots' must be a list of plots, not %s", yt_kind_str(v));
    return;
  }
  shard_campaign *c = L->c;
  c->plots = yt_alloc(c->arena, (v->n + 1) * sizeof *c->plots);
  if (!c->plots) return;
  for (size_t i = 0; i < v->n; ++i) {
    const yt_node *m = v->items[i];
    if (m->kind != YT_MAP) {
      yt_error_at(L->d, m, "each plot must be a mapping, not %s", yt_kind_str(m));
      continue;
    }
    load_plot(L, m, &c->plots[c->n_plots]);
    const shard_campaign_plot *p = &c->plots[c->n_plots];
    for (size_t j = 0; p->file && j < c->n_plots; ++j)
      if (c->plots[j].file && strcmp(c->plots[j].file, p->file) == 0)
        yt_error_at(L->d, m, "two plots write '%s'", p->file);
    c->n_plots++;
  }
}

/* --- the inline case: the campaign's text with everything but the case's
 * lines blanked, so that line and column numbers stay those of the file --- */

static char *inline_case_text(shard_campaign *c, const yt_node *key, const yt_node *value, size_t *out_len) {
  const yt_source *src = c->root->src;
  int next = INT_MAX;
  for (size_t i = 0; i < c->root->n; ++i) {
    int l = c->root->pairs[i].key->line;
    if (l > key->line && l < next) next = l;
  }
  char *t = yt_alloc(c->arena, src->len + 1);
  if (!t) return NULL;
  int line = 1, col = 1;
  for (size_t i = 0; i < src->len; ++i) {
    char ch = src->text[i];
    int keep = line >= key->line && line < next;
    if (line == key->line && (value->line > key->line || col < value->col)) keep = 0;
    if (ch == '\n')
      t[i] = '\n';
    else
      t[i] = keep ? ch : (line == key->line ? ' ' : ' ');
    if (ch == '\n') {
      ++line;
      col = 1;
    } else if (((unsigned char)ch & 0xC0) != 0x80) {
      ++col;
    }
  }
  /* blank lines of spaces are fine for YAML, but keep the file tidy */
  size_t w = 0, ls = 0;
  for (size_t i = 0; i < src->len; ++i) {
    t[w++] = t[i];
    if (t[i] == '\n') {
      size_t k = ls;
      while (k < w - 1 && t[k] == ' ') ++k;
      if (k == w - 1) {
        w = ls;
        t[w++] = '\n';
      }
      ls = w;
    }
  }
  t[w] = 0;
  *out_len = w;
  return t;
}

/* ---- expansion --------------------------------------------------------------- */

typedef struct eval_ctx {
  const shard_campaign *c;
  const char **vals; /* current run's values, by param */
  size_t n_known;    /* params with a value so far */
  size_t index;
} eval_ctx;

static int lookup(void *ctx, const char *name, double *out, shard_expr_error *err) {
  eval_ctx *ec = ctx;
  if (strcmp(name, "index") == 0) {
    *out = (double)ec->index;
    return 1;
  }
  for (size_t i = 0; i < ec->c->n_params; ++i) {
    if (strcmp(ec->c->params[i].name, name) != 0) continue;
    if (i >= ec->n_known) {
      snprintf(err->text, sizeof err->text, "'%s' is derived later (derived values may use earlier ones only)", name);
      return SHARD_ERR_INPUT;
    }
    char *end = NULL;
    const char *s = ec->vals[i];
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end || !isfinite(x)) {
      snprintf(err->text, sizeof err->text, "'%s' is not a number ('%s')", name, s);
      return SHARD_ERR_INPUT;
    }
    *out = x;
    return 1;
  }
  return 0;
}

/* Report the unknown names of expression n, named 'WHAT' in errors (`what`
 * "derived." with key, or "cost" with key ""). */
static void check_names(loader *L, const yt_node *n, const char *what, const char *key, const char *const *names,
                        size_t nn) {
  const shard_campaign *c = L->c;
  shard_expr *e = NULL;
  shard_expr_error err = {0, ""};
  int base = n->col + (n->quoted ? 1 : 0) - 1;
  if (shard_expr_parse(n->text, &e, &err) != SHARD_OK) {
    yt_error(L->d, n->src, n->line, base + err.col, "'%s%s': %s", what, key, err.text);
    return;
  }
  for (size_t j = 0; j < shard_expr_n_names(e); ++j) {
    int col = 0;
    const char *nm = shard_expr_name(e, j, &col);
    int known = strcmp(nm, "index") == 0;
    for (size_t k = 0; k < c->n_params && !known; ++k) known = strcmp(c->params[k].name, nm) == 0;
    if (known) continue;
    const char *s = shard_suggest(nm, names, nn);
    if (s)
      yt_error(L->d, n->src, n->line, base + col, "'%s%s': unknown name '%s' (did you mean '%s'?)", what, key, nm,
               s);
    else
      yt_error(L->d, n->src, n->line, base + col, "'%s%s': unknown name '%s'", what, key, nm);
  }
  shard_expr_destroy(e);
}

static void check_expression_names(loader *L) {
  shard_campaign *c = L->c;
  const char *names[MAX_PARAMS + 1];
  size_t nn = 0;
  names[nn++] = "index";
  for (size_t i = 0; i < c->n_params; ++i) names[nn++] = c->params[i].name;
  for (size_t i = 0; i < c->n_params; ++i) {
    const param *p = &c->params[i];
    if (p->expr) check_names(L, p->expr, "derived.", p->key, names, nn);
  }
  if (c->cost) check_names(L, c->cost, "cost", "", names, nn);
}

/* Evaluate expression e (from node n, named 'WHATKEY' in errors, as in
 * check_names) for run r, whose first n_known values are set; a finite value
 * or an error at n's position. */
static int eval_run(loader *L, const shard_expr *e, const yt_node *n, const char *what, const char *key,
                    const char **vals, size_t n_known, size_t r, double *out) {
  eval_ctx ec = {L->c, vals, n_known, r};
  shard_expr_error err = {0, ""};
  double x = NAN;
  int st = shard_expr_eval(e, lookup, &ec, &x, &err);
  if (st == SHARD_OK && isfinite(x)) {
    *out = x;
    return SHARD_OK;
  }
  if (st == SHARD_OK) snprintf(err.text, sizeof err.text, "the value is not finite");
  yt_error(L->d, n->src, n->line, n->col + (n->quoted ? 1 : 0) + (err.col > 0 ? err.col - 1 : 0),
           "'%s%s' in run %zu: %s", what, key, r, err.text);
  return SHARD_ERR_INPUT;
}

static int expand(loader *L) {
  shard_campaign *c = L->c;
  size_t total = 1;
  for (size_t i = 0; i < c->n_axes; ++i) {
    if (total > SHARD_CAMPAIGN_MAX_RUNS / c->axes[i].n_values) {
      yt_error_at(L->d, L->sweep_key, "the sweep has more than %d runs", SHARD_CAMPAIGN_MAX_RUNS);
      return SHARD_ERR_INPUT;
    }
    total *= c->axes[i].n_values;
  }
  c->runs = calloc(total, sizeof *c->runs);
  if (!c->runs) return SHARD_ERR_NOMEM;
  c->n_runs = total;
  shard_expr **exprs = calloc(c->n_params + 1, sizeof *exprs);
  if (!exprs) return SHARD_ERR_NOMEM;
  int rc = SHARD_OK;
  for (size_t i = 0; i < c->n_params && rc == SHARD_OK; ++i) {
    shard_expr_error err;
    if (c->params[i].expr && shard_expr_parse(c->params[i].expr->text, &exprs[i], &err) != SHARD_OK)
      rc = SHARD_ERR_INPUT;
  }
  shard_expr **cost = &exprs[c->n_params]; /* the file's `cost`, or NULL */
  if (rc == SHARD_OK && c->cost) {
    shard_expr_error err;
    if (shard_expr_parse(c->cost->text, cost, &err) != SHARD_OK) rc = SHARD_ERR_INPUT;
  }
  for (size_t r = 0; r < total && rc == SHARD_OK; ++r) {
    shard_campaign_run *run = &c->runs[r];
    const char **vals = yt_alloc(c->arena, (c->n_params + 1) * sizeof *vals);
    const char **sets = yt_alloc(c->arena, (c->n_fixed + c->n_params + 1) * sizeof *sets);
    if (!vals || !sets) {
      rc = SHARD_ERR_NOMEM;
      break;
    }
    run->index = r;
    size_t rem = r;
    for (size_t a = c->n_axes; a-- > 0;) { /* the first axis varies slowest */
      const axis *ax = &c->axes[a];
      size_t pos = rem % ax->n_values;
      rem /= ax->n_values;
      for (size_t k = 0; k < ax->n_keys; ++k) vals[ax->first_param + k] = ax->values[k][pos];
    }
    size_t ns = 0;
    for (size_t i = 0; i < c->n_fixed; ++i) sets[ns++] = c->fixed[i];
    for (size_t i = 0; i < c->n_params; ++i) {
      const param *p = &c->params[i];
      if (p->expr) {
        double x;
        if ((rc = eval_run(L, exprs[i], p->expr, "derived.", p->key, vals, i, r, &x)) != SHARD_OK) break;
        char buf[64];
        shard_format_number(x, buf, sizeof buf);
        vals[i] = adup(c->arena, buf);
      }
      if (!p->var) sets[ns++] = afmt(c->arena, "%s=%s", p->key, vals[i]);
    }
    if (rc != SHARD_OK) break;
    run->values = vals;
    run->sets = sets;
    run->n_sets = ns;
    if (*cost && (rc = eval_run(L, *cost, c->cost, "cost", "", vals, c->n_params, r, &run->cost)) != SHARD_OK) break;
  }
  for (size_t i = 0; i <= c->n_params; ++i) shard_expr_destroy(exprs[i]);
  free(exprs);
  return rc;
}

/* ---- validation of the runs as cases ------------------------------------------- */

static int write_temp_case(const shard_campaign *c, char *dir, size_t dsize, char *path, size_t psize) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, dsize, "%s/shard-campaign-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) return SHARD_ERR_IO;
  const char *b = strrchr(c->path, '/');
  int np = snprintf(path, psize, "%s/%s", dir, b ? b + 1 : c->path);
  FILE *f = np > 0 && (size_t)np < psize ? fopen(path, "wb") : NULL;
  if (!f) {
    rmdir(dir);
    return SHARD_ERR_IO;
  }
  int ok = fwrite(c->case_text, 1, c->case_len, f) == c->case_len;
  ok = (fclose(f) == 0) && ok;
  if (!ok) {
    unlink(path);
    rmdir(dir);
    return SHARD_ERR_IO;
  }
  return SHARD_OK;
}

static void run_label(const shard_campaign *c, const shard_campaign_run *run, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = 0;
  for (size_t i = 0; i < c->n_params && k < n; ++i) {
    int w = snprintf(buf + k, n - k, "%s%s=%s", i ? ", " : "", c->params[i].key, run->values[i]);
    if (w < 0) break;
    k += (size_t)w;
  }
}

static int validate_runs(loader *L, const shard_registry *reg) {
  shard_campaign *c = L->c;
  char dir[4096] = "", tmp[4096];
  const char *path = c->base;
  if (!path) {
    if (write_temp_case(c, dir, sizeof dir, tmp, sizeof tmp) != SHARD_OK) {
      shard_diag_error(L->d, c->path, 0, 0, "", "cannot write the inline case to a temporary file: %s",
                       strerror(errno));
      return SHARD_ERR_IO;
    }
    path = tmp;
  }
  int rc = SHARD_OK, bad_runs = 0;
  shard_diag *sub = shard_diag_create();
  if (!sub) { /* never skip the validation */
    shard_diag_error(L->d, c->path, 0, 0, "", "out of memory validating the runs");
    rc = SHARD_ERR_NOMEM;
  }
  for (size_t r = 0; r < c->n_runs && sub; ++r) {
    shard_case *cs = NULL;
    shard_diag_clear(sub);
    int st = shard_case_load(path, c->runs[r].sets, (int)c->runs[r].n_sets, reg, &cs, sub);
    if (st == SHARD_OK) { /* and what the run checks before its first step (model, plugins, time step) */
      shard_msg m = {{0}};
      const int code = shard_run_check(cs, reg, sub, &m);
      if (code != 0) {
        st = code == 2 ? SHARD_ERR_INPUT : SHARD_ERR_INTERNAL;
        if (shard_diag_count(sub) == 0) shard_diag_error(sub, path, 0, 0, "", "%s", m.text[0] ? m.text : "set-up failed");
        else if (st != SHARD_ERR_INPUT && m.text[0]) shard_diag_error(sub, path, 0, 0, "", "%s", m.text);
      }
    }
    shard_case_destroy(cs);
    if (st == SHARD_OK) continue;
    char label[1024];
    run_label(c, &c->runs[r], label, sizeof label);
    if (st != SHARD_ERR_INPUT) { /* out of memory (or a failure not of the case): not bad input, and the end */
      shard_diag_sort(sub);
      shard_diag_error(L->d, c->path, 0, 0, "", "run %zu (%s) could not be checked: %s", r, label,
                       shard_diag_first(sub) ? shard_diag_first(sub) : "out of memory");
      rc = st;
      break;
    }
    rc = SHARD_ERR_INPUT;
    /* the first bad run in full; later ones in one line each, a few of them */
    const yt_pair *inl = yt_map_find(c->root, "case");
    const yt_node *at = inl ? inl->key : L->sweep_key ? L->sweep_key : c->root;
    if (bad_runs == 0) {
      yt_error_at(L->d, at, "run %zu (%s) is not a valid case:", r, label);
      shard_diag_sort(sub);
      /* re-record the case errors under the campaign's diagnostics */
      char *buf = NULL;
      size_t len = 0;
      FILE *m = open_memstream(&buf, &len);
      if (m) {
        shard_diag_print(sub, m);
        fclose(m);
      }
      /* the case layer's own lines ("file:line:col: error: ...", then the
       * source line and the caret) */
      char *next = NULL;
      for (char *line = buf; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        char *e = strstr(line, ": error: ");
        if (!e) continue;
        *e = 0;
        char source[1024] = "";
        if (next && strncmp(next, "  ", 2) == 0) {
          size_t k = strcspn(next, "\n"), b = strspn(next, " \t");
          int caret = b < k && next[b] == '^' && b + 1 == k;
          if (!caret) snprintf(source, sizeof source, "%.*s", (int)(k - 2), next + 2);
        }
        char file[4096];
        int ln = 0, col = 0;
        char *colon = strrchr(line, ':');
        snprintf(file, sizeof file, "%s", line);
        if (colon && sscanf(colon + 1, "%d", &col) == 1) {
          *colon = 0;
          char *c2 = strrchr(line, ':');
          if (c2 && sscanf(c2 + 1, "%d", &ln) == 1) {
            *c2 = 0;
          } else {
            ln = col;
            col = 0;
          }
          snprintf(file, sizeof file, "%s", line);
        }
        if (strcmp(file, path) == 0 && !c->base) snprintf(file, sizeof file, "%s", c->path);
        shard_diag_error(L->d, file, ln, col, *source ? source : NULL, "%s", e + 9);
      }
      free(buf);
    } else if (bad_runs < 5) {
      yt_error_at(L->d, at, "run %zu (%s) is not a valid case either: %s", r, label,
                  shard_diag_first(sub) ? shard_diag_first(sub) : "?");
    }
    ++bad_runs;
  }
  if (bad_runs > 5)
    shard_diag_error(L->d, c->path, 0, 0, "", "%d of %zu runs are not valid cases", bad_runs, c->n_runs);
  shard_diag_destroy(sub);
  if (*dir) {
    unlink(tmp);
    rmdir(dir);
  }
  return rc;
}

/* ---- load ---------------------------------------------------------------------- */

static char *dir_of(const char *path) {
  const char *s = strrchr(path, '/');
  if (!s) return strdup(".");
  size_t n = (size_t)(s - path);
  char *d = malloc(n + 2);
  if (!d) return NULL;
  memcpy(d, path, n ? n : 1);
  d[n ? n : 1] = 0;
  return d;
}

static void load_base(loader *L, const yt_node *key, const yt_node *v) {
  shard_campaign *c = L->c;
  const char *rel;
  if (string_value(L, key, v, "base", &rel) != SHARD_OK) return;
  char *dir = dir_of(c->path);
  size_t n = dir ? strlen(dir) + strlen(rel) + 2 : 0;
  c->base = dir ? malloc(n) : NULL;
  if (!c->base) {
    free(dir);
    yt_error_at(L->d, v, "base case '%s': out of memory", rel);
    L->nomem = 1;
    return;
  } else {
    if (rel[0] == '/')
      snprintf(c->base, n, "%s", rel);
    else
      snprintf(c->base, n, "%s/%s", dir, rel);
  }
  free(dir);
  struct stat st;
  if (c->base && (stat(c->base, &st) != 0 || !S_ISREG(st.st_mode))) {
    yt_error_at(L->d, v, "base case '%s' not found (%s: %s)", rel, c->base,
                errno && stat(c->base, &st) != 0 ? strerror(errno) : "not a regular file");
    free(c->base);
    c->base = NULL;
    return;
  }
  FILE *f = c->base ? fopen(c->base, "rb") : NULL;
  if (!f) {
    yt_error_at(L->d, v, "cannot read base case '%s': %s", rel, strerror(errno));
    return;
  }
  char *text = yt_alloc(c->arena, (size_t)st.st_size + 1);
  size_t got = text ? fread(text, 1, (size_t)st.st_size, f) : 0;
  fclose(f);
  if (text) {
    c->case_text = text;
    c->case_len = got;
  } else {
    yt_error_at(L->d, v, "base case '%s': out of memory", rel);
    L->nomem = 1;
  }
}

int shard_campaign_load(const char *path, const shard_registry *reg, shard_campaign **out, shard_diag *d) {
  *out = NULL;
  shard_campaign *c = calloc(1, sizeof *c);
  if (!c || !(c->arena = yt_arena_create()) || !(c->path = strdup(path))) {
    if (c) yt_arena_destroy(c->arena);
    free(c);
    return SHARD_ERR_NOMEM;
  }
  c->stall_timeout = SHARD_CAMPAIGN_STALL_DEFAULT;
  c->reg = reg;
  loader L = {c, d, NULL, 0, 0};
  int rc = yt_load_file(c->arena, path, "campaign file", &c->root, d);
  if (rc != SHARD_OK) goto fail;
  if (c->root->kind != YT_MAP) {
    yt_error_at(d, c->root, "a campaign file must be a mapping (base, sweep, ...), not %s", yt_kind_str(c->root));
    rc = SHARD_ERR_INPUT;
    goto fail;
  }
  int errors0 = shard_diag_count(d);
  /* `set` first: sweep and derived check their keys against it */
  const yt_pair *base = yt_map_find(c->root, "base"), *inl = yt_map_find(c->root, "case");
  for (size_t i = 0; i < c->root->n; ++i) {
    const yt_node *k = c->root->pairs[i].key, *v = c->root->pairs[i].value;
    if (strcmp(k->text, "set") == 0) load_set(&L, k, v);
  }
  for (size_t i = 0; i < c->root->n; ++i) {
    const yt_node *k = c->root->pairs[i].key, *v = c->root->pairs[i].value;
    const char *kt = k->text;
    if (strcmp(kt, "name") == 0) {
      if (string_value(&L, k, v, "name", &c->name) == SHARD_OK && !shard_plain_name(c->name)) {
        yt_error_at(d, v, "campaign name '%s' must be a plain name (letters, digits, '_', '-', '.'; not starting "
                          "with '.'): it names the output directory",
                    c->name);
        c->name = NULL;
      }
    } else if (strcmp(kt, "description") == 0) {
      const char *s;
      string_value(&L, k, v, "description", &s);
    } else if (strcmp(kt, "base") == 0) {
      if (!inl) load_base(&L, k, v);
    } else if (strcmp(kt, "case") == 0) {
      if (base) {
        yt_error_at(d, k, "'base' and 'case' are exclusive: give the base case by path or inline, not both");
      } else if (v->kind != YT_MAP) {
        yt_error_at(d, yt_is_null(v) ? k : v, "'case' must be a mapping (an inline case), not %s", yt_kind_str(v));
      } else {
        c->case_text = inline_case_text(c, k, v, &c->case_len);
      }
    } else if (strcmp(kt, "sweep") == 0) {
      load_sweep(&L, k, v);
    } else if (strcmp(kt, "derived") == 0 || strcmp(kt, "set") == 0 || strcmp(kt, "plots") == 0 ||
               strcmp(kt, "statistics") == 0) {
      /* after the sweep: below */
    } else if (strcmp(kt, "timeout") == 0) {
      load_timeout(&L, k, v);
    } else if (strcmp(kt, "stall_timeout") == 0) {
      load_stall_timeout(&L, v);
    } else if (strcmp(kt, "cost") == 0) {
      load_cost(&L, k, v);
    } else {
      unknown_key(d, k, "", top_keys, N_TOP);
    }
  }
  const yt_pair *der = yt_map_find(c->root, "derived"), *plots = yt_map_find(c->root, "plots");
  const yt_pair *stats = yt_map_find(c->root, "statistics");
  if (der) load_derived(&L, der->key, der->value);
  if (stats) load_statistics(&L, stats->key, stats->value);
  if (shard_diag_count(d) == errors0) check_param_keys(&L, reg);
  if (plots) load_plots(&L, plots->key, plots->value);
  if (!base && !inl)
    yt_error_at(d, c->root, "missing required top-level key 'base' (a case file) or 'case' (an inline case)");
  if (!yt_map_find(c->root, "sweep")) yt_error_at(d, c->root, "missing required top-level key 'sweep'");
  check_expression_names(&L);
  if (shard_diag_count(d) > errors0) {
    rc = L.nomem ? SHARD_ERR_NOMEM : SHARD_ERR_INPUT;
    goto fail;
  }
  if (!c->name) {
    const char *b = strrchr(path, '/');
    char *nm = yt_strndup(c->arena, b ? b + 1 : path, strlen(b ? b + 1 : path));
    if (nm && strrchr(nm, '.')) *strrchr(nm, '.') = 0;
    c->name = nm;
  }
  shard_sha256_hex(c->case_text ? c->case_text : "", c->case_len, c->case_hash);
  shard_sha256_hex(c->root->src->text, c->root->src->len, c->file_hash);
  rc = expand(&L);
  if (rc == SHARD_OK && reg) rc = validate_runs(&L, reg);
  if (rc != SHARD_OK) goto fail;
  *out = c;
  return SHARD_OK;
fail:
  shard_campaign_destroy(c);
  return rc == SHARD_OK ? SHARD_ERR_INPUT : rc;
}

void shard_campaign_destroy(shard_campaign *c) {
  if (!c) return;
  free(c->runs);
  free(c->base);
  free(c->path);
  yt_arena_destroy(c->arena);
  free(c);
}

const char *shard_campaign_path(const shard_campaign *c) { return c->path; }
const char *shard_campaign_name(const shard_campaign *c) { return c->name; }
const char *shard_campaign_base(const shard_campaign *c) { return c->base; }
const char *shard_campaign_case_text(const shard_campaign *c) { return c->case_text; }
const char *shard_campaign_case_hash(const shard_campaign *c) { return c->case_hash; }
const char *shard_campaign_hash(const shard_campaign *c) { return c->file_hash; }
double shard_campaign_timeout(const shard_campaign *c) { return c->timeout; }
double shard_campaign_stall_timeout(const shard_campaign *c) { return c->stall_timeout; }
int shard_campaign_has_cost(const shard_campaign *c) { return c->cost != NULL; }
const shard_registry *shard_campaign_registry(const shard_campaign *c) { return c->reg; }
size_t shard_campaign_n_params(const shard_campaign *c) { return c->n_params; }
const char *shard_campaign_param(const shard_campaign *c, size_t i) { return c->params[i].key; }
size_t shard_campaign_n_runs(const shard_campaign *c) { return c->n_runs; }
const shard_campaign_run *shard_campaign_run_at(const shard_campaign *c, size_t i) { return &c->runs[i]; }
size_t shard_campaign_n_plots(const shard_campaign *c) { return c->n_plots; }
const shard_campaign_plot *shard_campaign_plot_at(const shard_campaign *c, size_t i) { return &c->plots[i]; }
const shard_campaign_statistics *shard_campaign_stats(const shard_campaign *c) {
  return c->has_stats ? &c->stats : NULL;
}

int shard_campaign_validate_file(const char *path, const shard_registry *reg, shard_diag *d) {
  shard_campaign *c = NULL;
  int rc = shard_campaign_load(path, reg, &c, d);
  shard_campaign_destroy(c);
  return rc;
}

/* A top-level `sweep:` key: a line starting with "sweep" then optional
 * blanks and ':' (YAML's block style; the loader decides the rest). */
int shard_campaign_is_campaign(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    const char *p = line;
    if (*p == '"' || *p == '\'') ++p;
    if (strncmp(p, "sweep", 5) != 0) continue;
    p += 5;
    if (*p == '"' || *p == '\'') ++p;
    while (*p == ' ' || *p == '\t') ++p;
    found = *p == ':';
  }
  fclose(f);
  return found;
}

int shard_campaign_write_case(const shard_campaign *c, const char *dir, char *out_path, size_t size, shard_msg *msg) {
  snprintf(out_path, size, "%s/case.yaml", dir);
  return shard_write_atomic(dir, "case.yaml", c->case_text, c->case_len, msg);
}

/* ---- JSON schema ------------------------------------------------------------------- */

int shard_schema_write_campaign(const shard_registry *reg, FILE *out) {
  static const char *const text =
      "{\n"
      "  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n"
      "  \"$id\": \"campaign.schema.json\",\n"
      "  \"title\": \"shard campaign file\",\n"
      "  \"description\": \"A base case (by path or inline) and a sweep of --set overrides, run point by point "
      "(docs/campaigns.md).\",\n"
      "  \"type\": \"object\",\n"
      "  \"additionalProperties\": false,\n"
      "  \"required\": [\"sweep\"],\n"
      "  \"oneOf\": [{\"required\": [\"base\"]}, {\"required\": [\"case\"]}],\n"
      "  \"$defs\": {\n"
      "    \"path\": {\"type\": \"string\", \"pattern\": \"^[a-z_][a-z0-9_]*(\\\\.[a-z_][a-z0-9_]*)*$\"},\n"
      "    \"scalar\": {\"type\": [\"string\", \"number\", \"boolean\"]},\n"
      "    \"setting\": {\"type\": [\"string\", \"number\", \"boolean\", \"null\"], \"description\": "
      "\"a --set value; null removes the key from the case\"},\n"
      "    \"range\": {\n"
      "      \"type\": \"object\",\n"
      "      \"additionalProperties\": false,\n"
      "      \"properties\": {\n"
      "        \"linspace\": {\"$ref\": \"#/$defs/triple\", \"description\": \"[start, stop, num], endpoints "
      "included\"},\n"
      "        \"logspace\": {\"$ref\": \"#/$defs/triple\", \"description\": \"[start exponent, stop exponent, "
      "num], base 10\"},\n"
      "        \"geomspace\": {\"$ref\": \"#/$defs/triple\", \"description\": \"[start, stop, num], geometric, "
      "start and stop > 0\"},\n"
      "        \"integer\": {\"description\": \"round the values (true or round, floor, ceil) and drop "
      "repeats\", \"anyOf\": [{\"type\": \"boolean\"}, {\"enum\": [\"round\", \"floor\", \"ceil\"]}]}\n"
      "      },\n"
      "      \"oneOf\": [{\"required\": [\"linspace\"]}, {\"required\": [\"logspace\"]}, {\"required\": "
      "[\"geomspace\"]}]\n"
      "    },\n"
      "    \"triple\": {\"type\": \"array\", \"minItems\": 3, \"maxItems\": 3, \"items\": {\"type\": [\"number\", "
      "\"string\"]}},\n"
      "    \"values\": {\"anyOf\": [{\"$ref\": \"#/$defs/scalar\"}, {\"type\": \"array\", \"minItems\": 1, "
      "\"items\": {\"$ref\": \"#/$defs/setting\"}}, {\"$ref\": \"#/$defs/range\"}]},\n"
      "    \"axes\": {\"type\": \"object\", \"propertyNames\": {\"$ref\": \"#/$defs/path\"}, "
      "\"additionalProperties\": {\"$ref\": \"#/$defs/values\"}},\n"
      "    \"columns\": {\"anyOf\": [{\"type\": \"string\"}, {\"type\": \"array\", \"minItems\": 1, \"items\": "
      "{\"type\": \"string\"}}]},\n"
      "    \"plot\": {\n"
      "      \"type\": \"object\",\n"
      "      \"additionalProperties\": false,\n"
      "      \"required\": [\"file\", \"x\", \"y\"],\n"
      "      \"properties\": {\n"
      "        \"file\": {\"type\": \"string\", \"pattern\": \"^[A-Za-z0-9_-][A-Za-z0-9_.-]*$\", \"description\": "
      "\"base name of DIR/plots/<file>.{dat,gp,png,svg}\"},\n"
      "        \"title\": {\"type\": \"string\"},\n"
      "        \"xlabel\": {\"type\": \"string\"},\n"
      "        \"ylabel\": {\"type\": \"string\"},\n"
      "        \"data\": {\"enum\": [\"campaign\", \"history\"], \"description\": \"columns of campaign.csv, or of "
      "each run's history.csv\"},\n"
      "        \"table\": {\"enum\": [\"campaign\", \"statistics\"], \"description\": \"the table drawn: "
      "campaign.csv, or statistics.csv (needs a statistics block)\"},\n"
      "        \"x\": {\"type\": \"string\"},\n"
      "        \"y\": {\"$ref\": \"#/$defs/columns\"},\n"
      "        \"yerror\": {\"$ref\": \"#/$defs/columns\", \"description\": \"error bar columns (half-widths), one "
      "per y\"},\n"
      "        \"series\": {\"$ref\": \"#/$defs/columns\", \"description\": \"parameter columns: one curve per "
      "combination\"},\n"
      "        \"where\": {\"type\": \"object\", \"additionalProperties\": {\"$ref\": \"#/$defs/scalar\"}, "
      "\"description\": \"keep the runs whose parameters have these values\"},\n"
      "        \"logx\": {\"type\": \"boolean\"},\n"
      "        \"logy\": {\"type\": \"boolean\"},\n"
      "        \"xscale\": {\"type\": [\"number\", \"string\"], \"description\": \"factor applied to x (a constant "
      "expression)\"},\n"
      "        \"yscale\": {\"type\": [\"number\", \"string\"], \"description\": \"factor applied to y\"},\n"
      "        \"fit_range\": {\"type\": \"array\", \"minItems\": 2, \"maxItems\": 2, \"items\": {\"type\": "
      "\"number\"}},\n"
      "        \"reference\": {\"type\": \"array\", \"items\": {\"anyOf\": [{\"type\": \"string\"}, {\"type\": "
      "\"object\", \"additionalProperties\": false, \"required\": [\"expr\"], \"properties\": {\"expr\": "
      "{\"type\": \"string\"}, \"title\": {\"type\": \"string\"}}}]}},\n"
      "        \"reference_columns\": {\"$ref\": \"#/$defs/columns\", \"description\": \"history columns drawn "
      "once, from the first run\"}\n"
      "      }\n"
      "    }\n"
      "  },\n"
      "  \"properties\": {\n"
      "    \"name\": {\"type\": \"string\", \"pattern\": \"^[A-Za-z0-9_-][A-Za-z0-9_.-]*$\"},\n"
      "    \"description\": {\"type\": \"string\"},\n"
      "    \"base\": {\"type\": \"string\", \"description\": \"base case file, relative to the campaign file\"},\n"
      "    \"case\": {\"$ref\": \"case.schema.json\", \"description\": \"inline base case\"},\n"
      "    \"set\": {\"type\": \"object\", \"propertyNames\": {\"$ref\": \"#/$defs/path\"}, "
      "\"additionalProperties\": {\"$ref\": \"#/$defs/setting\"}, \"description\": \"fixed overrides of every "
      "run\"},\n"
      "    \"sweep\": {\n"
      "      \"description\": \"cartesian product of the axes, first key slowest; `zip` groups lists of one "
      "length\",\n"
      "      \"type\": \"object\",\n"
      "      \"minProperties\": 1,\n"
      "      \"propertyNames\": {\"$ref\": \"#/$defs/path\"},\n"
      "      \"properties\": {\n"
      "        \"zip\": {\"anyOf\": [{\"$ref\": \"#/$defs/axes\"}, {\"type\": \"array\", \"items\": {\"$ref\": "
      "\"#/$defs/axes\"}}]},\n"
      "        \"product\": {\"$ref\": \"#/$defs/axes\"}\n"
      "      },\n"
      "      \"additionalProperties\": {\"$ref\": \"#/$defs/values\"}\n"
      "    },\n"
      "    \"derived\": {\"type\": \"object\", \"propertyNames\": {\"$ref\": \"#/$defs/path\"}, "
      "\"additionalProperties\": {\"type\": [\"string\", \"number\"]}, \"description\": \"expressions of the "
      "swept values (dots as underscores, var.x as x) and index\"},\n"
      "    \"timeout\": {\"type\": [\"number\", \"string\"], \"description\": \"per-run time limit, s\"},\n"
      "    \"stall_timeout\": {\"type\": [\"number\", \"string\"], \"description\": \"a run that makes no step for "
      "this long is killed and marked failed (stalled), s; default 600, 0: no watchdog\"},\n"
      "    \"cost\": {\"type\": [\"string\", \"number\"], \"description\": \"an estimate of each run's cost, an "
      "expression like those of derived (and of the derived values): the costliest runs start first\"},\n"
      "    \"statistics\": {\n"
      "      \"description\": \"DIR/statistics.csv: mean, std, ci95 (Student t), min, max over a swept key for "
      "every combination of the other swept keys\",\n"
      "      \"type\": \"object\",\n"
      "      \"additionalProperties\": false,\n"
      "      \"required\": [\"over\"],\n"
      "      \"properties\": {\n"
      "        \"over\": {\"$ref\": \"#/$defs/path\", \"description\": \"a swept key, e.g. a seed\"},\n"
      "        \"columns\": {\"$ref\": \"#/$defs/columns\", \"description\": \"numeric table columns (default: "
      "every numeric result column)\"}\n"
      "      }\n"
      "    },\n"
      "    \"plots\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/plot\"}}\n"
      "  }\n"
      "}\n";
  (void)reg;
  return fputs(text, out) < 0 ? SHARD_ERR_IO : SHARD_OK;
}
