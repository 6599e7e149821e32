/* tests: the traction–separation-law contract, run on EVERY tsl plugin found
 * in SHARD_PLUGIN_DIR (loaded through the registry; none is skipped).
 *
 * The contract is docs/theory.md §10 as the host relies on it. Per interface σ_c,
 * δ_c = 2G_c/σ_c, d = min(δ_max/δ_c, 1), secant k(d) = σ_c(1−d)/(d δ_c) and
 * the law's k̃ = max_stiffness():
 *   - an interface is on the capped path when d = 0 or k(d) > k̃, on the
 *     secant path otherwise (k̃ = SHARD_INF: uncapped);
 *   - the stiffness output is 0 on the capped path and k(d) on the secant one;
 *   - dissipation W_coh − reversible is G_c·d on the secant path and G_c·d²
 *     on the capped path, G_c at d = 1 (W_coh: the host's trapezoids);
 *   - traction continuous along every path, δ_max non-decreasing, commit = 0
 *     changes nothing, no kink of force or stiffness at δ = 0 for a damaged
 *     interface, 0 ≤ stiffness ≤ max_stiffness everywhere, results independent
 *     of the batch an interface is evaluated in;
 *   - the optional shear_weight (beta, read through the host's widened table)
 *     is finite and > 0 for every parameter set, and a law's `beta` key is
 *     the value it returns.
 *
 * Parameter sets: built from each plugin's spec table (defaults) plus the
 * overrides below; a set naming a key the plugin does not declare is skipped
 * for that plugin (the defaults set always runs). Model scales: E = 370 GPa,
 * h̄ = 0.5 µm (the paper's AD-995 bar), so cap.alpha = 1 is k̃ = 7.4e17 Pa/m.
 *
 * Interfaces in a batch: when k̃ is finite and positive, four with
 * δ_c = r σ_c/k̃ for r = ¼, 1, 4, 100 (capped → secant switch at
 * d* = 1/(1 + r) = 0.8, 0.5, 0.2, 0.0099, so both paths are visited), else
 * four with G_c = 100, 10, 1, 0.1 J/m²; plus the paper's facet (σ_c = 262 MPa,
 * G_c = 100 J/m²) and a weak one (σ_c = 1 MPa, G_c = 1 J/m²).
 *
 * Paths are given in s = δ/δ_c (the same s for every interface of the batch).
 * Each segment is cut into m equal steps and a sample is added on every kink
 * of T(δ): δ = 0, the running δ_max, δ = δ_c. Between samples T is then
 * linear, so the trapezoidal cohesive work is exact up to round-off: the
 * energy identity is asserted to 1e-10 relative to max(G_c, |W|, |reversible|)
 * — N ≈ 10³ steps of relative round-off 1e-16 each give ~1e-13, while any
 * quadrature or branch error at these step sizes (m ≤ 128) is ≥ 1e-5. */
#include <float.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_runner.h"
#include "loader/plugin_calls.h"
#include "loader/registry.h"
#include "scales_probe.h"
#include "shard/tsl.h"
#include "spec_probe.h"

#define MAX_TSLS 16
#define MAX_PARAMS 32
#define NI 6        /* interfaces per batch */
#define MAX_SAMPLES 8192

/* ------------------------------------------------------------- failures */

/* Counts failures of one property over many samples; reported once. */
typedef struct fails {
  long n;
  char first[400];
} fails;

static void fail_at(fails *f, const char *fmt, ...) SHARD_PRINTF_(2, 3);
static void fail_at(fails *f, const char *fmt, ...) {
  if (f->n++ == 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->first, sizeof f->first, fmt, ap);
    va_end(ap);
  }
}

#define CHECK_FAILS(f, what)                                                                              \
  CU_CHECK_MSG((f).n == 0, "%s: %s: %ld failure(s), first: %s", ctx, what, (f).n, (f).first)

/* ---------------------------------------------------------------- laws */

typedef struct tlaw {
  const shard_plugin *desc;
  const shard_tsl_ops *ops;
} tlaw;

static int load_laws(shard_registry **reg, tlaw *out) {
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL_FATAL(shard_registry_create(reg, &msg), SHARD_OK);
  int st = shard_registry_load_dir(*reg, SHARD_PLUGIN_DIR, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "loading %.300s: %.300s", SHARD_PLUGIN_DIR, msg.text);
  int n = 0, have_co = 0;
  for (size_t i = 0; i < shard_registry_count(*reg); ++i) {
    const shard_plugin *d = shard_registry_at(*reg, i)->desc;
    if (d->kind != SHARD_KIND_TSL) continue;
    CU_ASSERT_FATAL(n < MAX_TSLS);
    out[n].desc = d;
    out[n].ops = d->ops;
    have_co |= strcmp(d->name, "camacho_ortiz") == 0;
    ++n;
  }
  CU_CHECK_MSG(have_co, "camacho_ortiz not among the %d tsl plugin(s) of %s", n, SHARD_PLUGIN_DIR);
  return n;
}

static probe_scales test_scales(void) {
  probe_scales s;
  memset(&s, 0, sizeof s);
  s.young = 370e9;
  s.density = 3900.0;
  s.area = 1.0;
  s.h_mean = 5e-7;
  s.h_min = 1e-7;
  s.mass_min = 3900.0 * 1e-7 / 2.0;
  s.length = 1e-3;
  return s;
}

/* ------------------------------------------------------- parameter sets */

typedef struct pset {
  const char *label;
  int nkeys;
  const char *key[2];
  double val[2];
} pset;

static const pset PSETS[] = {
    {"defaults (uncapped)", 0, {NULL, NULL}, {0.0, 0.0}},
    {"cap.alpha=1", 1, {"cap.alpha", NULL}, {1.0, 0.0}},
    {"cap.alpha=10", 1, {"cap.alpha", NULL}, {10.0, 0.0}},
    {"cap.stiffness=1e18", 1, {"cap.stiffness", NULL}, {1e18, 0.0}},
    {"cap.alpha=0", 1, {"cap.alpha", NULL}, {0.0, 0.0}},
};
#define N_PSETS ((int)(sizeof PSETS / sizeof PSETS[0]))

typedef struct pvals {
  shard_param_value values[MAX_PARAMS];
  shard_params params;
} pvals;

static void defaults(const shard_plugin *d, pvals *p) {
  CU_ASSERT_FATAL(d->n_params <= MAX_PARAMS);
  memset(p, 0, sizeof *p);
  for (uint32_t k = 0; k < d->n_params; ++k) {
    const shard_param_spec *sp = &d->params[k];
    shard_param_value *v = &p->values[k];
    if (!sp->def) continue;
    v->set = 1;
    if (sp->type == SHARD_PARAM_REAL || sp->type == SHARD_PARAM_INT) {
      v->real = strtod(sp->def, NULL);
      v->integer = (long long)v->real;
    } else if (sp->type == SHARD_PARAM_BOOL) {
      v->boolean = strcmp(sp->def, "true") == 0;
    } else {
      v->string = sp->def;
    }
  }
  p->params.specs = d->params;
  p->params.count = d->n_params;
  p->params.values = p->values;
}

static int param_index(const shard_plugin *d, const char *key) {
  for (uint32_t k = 0; k < d->n_params; ++k)
    if (strcmp(d->params[k].key, key) == 0) return (int)k;
  return -1;
}

static void set_real(const shard_plugin *d, pvals *p, const char *key, double v) {
  int k = param_index(d, key);
  CU_ASSERT_FATAL(k >= 0);
  p->values[k].set = 1;
  p->values[k].real = v;
  p->values[k].integer = (long long)v;
}

/* 1 when the plugin declares every key of the set (values filled), else 0 */
static int build(const shard_plugin *d, const pset *ps, pvals *p) {
  defaults(d, p);
  for (int j = 0; j < ps->nkeys; ++j) {
    if (param_index(d, ps->key[j]) < 0) return 0;
    set_real(d, p, ps->key[j], ps->val[j]);
  }
  return 1;
}

/* ------------------------------------------------------------ interfaces */

typedef struct batch {
  int n;
  double sc[NI], dc[NI], gc[NI];
  double delta[NI], dmax[NI], t[NI], k[NI], e[NI];
} batch;

static void make_interfaces(double kt, batch *b) {
  static const double r[4] = {0.25, 1.0, 4.0, 100.0};
  static const double g[4] = {100.0, 10.0, 1.0, 0.1};
  static const double s[4] = {262e6, 300e6, 150e6, 262e6};
  memset(b, 0, sizeof *b);
  b->n = NI;
  for (int i = 0; i < 4; ++i) {
    b->sc[i] = s[i];
    b->dc[i] = (kt > 0.0 && kt < SHARD_INF) ? r[i] * s[i] / kt : 2.0 * g[i] / s[i];
  }
  b->sc[4] = 262e6;
  b->dc[4] = 2.0 * 100.0 / 262e6;
  b->sc[5] = 1e6;
  b->dc[5] = 2.0 * 1.0 / 1e6;
  for (int i = 0; i < NI; ++i) b->gc[i] = 0.5 * b->sc[i] * b->dc[i];
}

static shard_tsl_batch view(batch *b) {
  shard_tsl_batch v = {.n = b->n, .sigma_c = b->sc, .delta_c = b->dc, .delta = b->delta, .delta_max = b->dmax,
                       .traction = b->t, .stiffness = b->k, .reversible = b->e};
  return v;
}

/* The law's path (docs/theory.md §10) for damage d (0 <= d < 1) under cap kt: 1 capped, 0 secant,
 * -1 too close to the switch k(d) = k̃ to tell in floating point. */
static int capped_path(double sc, double dc, double d, double kt) {
  if (d <= 0.0) return 1;
  const double kd = sc * (1.0 - d) / (d * dc);
  if (kt < SHARD_INF && fabs(kd - kt) <= 1e-9 * kt) return -1;
  return kd > kt;
}

/* ----------------------------------------------------------------- paths */

typedef struct tpath {
  const char *name;
  int nv;
  double v[10];
} tpath;

static const tpath PATHS[] = {
    {"monotone to failure", 2, {0.0, 1.25}},
    {"load-unload-reload cycles", 9, {0.0, 0.3, 0.1, 0.5, 0.0, 0.7, 0.2, 0.9, 1.2}},
    {"unloading into penetration and back", 8, {0.0, 0.4, -0.2, 0.6, -0.05, 0.8, 0.3, 1.1}},
    {"fresh interface compressed", 6, {0.0, -0.1, 0.05, -0.3, 0.35, 1.05}},
    {"small damage, failure, unloading after failure", 8, {0.0, 0.01, -0.02, 0.015, -0.01, 1.0, 0.5, -0.4}},
};
#define N_PATHS ((int)(sizeof PATHS / sizeof PATHS[0]))

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Samples of s along the path: each segment is cut at every kink strictly
 * inside it (0, the running max, 1) and each piece into m equal steps, so
 * that refining m shrinks every step. s[0] = v[0]. */
static int path_samples(const tpath *p, int m, double *s) {
  int ns = 0;
  double smax = p->v[0] > 0.0 ? p->v[0] : 0.0;
  s[ns++] = p->v[0];
  for (int j = 1; j < p->nv; ++j) {
    const double a = p->v[j - 1], b = p->v[j], lo = fmin(a, b), hi = fmax(a, b);
    const double kinks[3] = {0.0, smax, 1.0};
    double brk[5];
    int nb = 0;
    for (int q = 0; q < 3; ++q)
      if (kinks[q] > lo && kinks[q] < hi) brk[nb++] = kinks[q];
    qsort(brk, (size_t)nb, sizeof brk[0], cmp_double);
    if (b < a)
      for (int q = 0; q < nb / 2; ++q) {
        double t = brk[q];
        brk[q] = brk[nb - 1 - q];
        brk[nb - 1 - q] = t;
      }
    brk[nb++] = b;
    double from = a;
    CU_ASSERT_FATAL(ns + nb * m <= MAX_SAMPLES);
    for (int q = 0; q < nb; ++q) {
      if (brk[q] == from) continue;
      for (int r = 1; r <= m; ++r) s[ns++] = r == m ? brk[q] : from + (brk[q] - from) * r / m;
      from = brk[q];
    }
    smax = fmax(smax, hi);
  }
  return ns;
}

typedef struct path_result {
  double max_jump[NI];  /* max |ΔT|/σ_c between consecutive samples */
  double max_err;       /* max |D − D_expected| / scale */
  int n_capped, n_secant; /* samples with 0 < d < 1 on each path */
} path_result;

/* Runs one path through the batch; every property asserted inside. */
static void run_path(const tlaw *L, const void *self, double kt, const batch *proto, const tpath *p, int m,
                     const char *ctx0, path_result *res) {
  static double s[MAX_SAMPLES];
  char ctx[300];
  snprintf(ctx, sizeof ctx, "%s: path '%s' (m = %d)", ctx0, p->name, m);
  const int ns = path_samples(p, m, s);
  batch b = *proto, c, one;
  shard_tsl_batch vb = view(&b);
  double w[NI] = {0}, scale[NI], xprev[NI], tprev[NI], kprev[NI];
  fails f_commit0 = {0, ""}, f_batch = {0, ""}, f_finite = {0, ""}, f_bound = {0, ""}, f_dmax = {0, ""},
        f_lip = {0, ""}, f_energy = {0, ""}, f_stiff = {0, ""}, f_trac = {0, ""};
  memset(res, 0, sizeof *res);
  for (int i = 0; i < NI; ++i) {
    b.dmax[i] = 0.0;
    scale[i] = b.gc[i];
  }
  for (int q = 0; q < ns; ++q) {
    for (int i = 0; i < b.n; ++i) b.delta[i] = s[q] * b.dc[i];
    /* commit = 0: δ_max untouched, same outputs as the committed call */
    c = b;
    shard_tsl_batch vc = view(&c);
    L->ops->evaluate(self, &vc, 0);
    if (memcmp(c.dmax, b.dmax, sizeof b.dmax) != 0) fail_at(&f_commit0, "s = %.17g: commit = 0 changed delta_max", s[q]);
    /* each interface alone, in a batch of one, gives the same bits */
    for (int i = 0; i < b.n; ++i) {
      one = b;
      shard_tsl_batch vo = {.n = 1,          .sigma_c = one.sc + i,  .delta_c = one.dc + i, .delta = one.delta + i,
                            .delta_max = one.dmax + i, .traction = one.t + i, .stiffness = one.k + i,
                            .reversible = one.e + i};
      L->ops->evaluate(self, &vo, 0);
      if (one.t[i] != c.t[i] || one.k[i] != c.k[i] || one.e[i] != c.e[i])
        fail_at(&f_batch, "interface %d at s = %.17g: alone T = %.17g k = %.17g, in batch T = %.17g k = %.17g", i,
                s[q], one.t[i], one.k[i], c.t[i], c.k[i]);
    }
    double dmax0[NI];
    memcpy(dmax0, b.dmax, sizeof dmax0);
    L->ops->evaluate(self, &vb, 1);
    for (int i = 0; i < b.n; ++i) {
      const double x = b.delta[i], t = b.t[i], k = b.k[i], e = b.e[i], sc = b.sc[i], dc = b.dc[i];
      if (t != c.t[i] || k != c.k[i] || e != c.e[i])
        fail_at(&f_commit0, "interface %d at s = %.17g: commit = 1 gives T = %.17g, commit = 0 T = %.17g", i, s[q], t,
                c.t[i]);
      if (!isfinite(t) || !isfinite(k) || !isfinite(e))
        fail_at(&f_finite, "interface %d at s = %.17g: T = %g k = %g e = %g", i, s[q], t, k, e);
      if (!(k >= 0.0 && k <= kt))
        fail_at(&f_bound, "interface %d at s = %.17g: stiffness %.17g outside [0, max_stiffness = %.17g]", i, s[q], k,
                kt);
      /* monotone damage; δ_max ← δ on loading, unchanged below */
      const double want = x >= dmax0[i] ? x : dmax0[i];
      if (!(b.dmax[i] >= dmax0[i]) || b.dmax[i] != want)
        fail_at(&f_dmax, "interface %d at s = %.17g: delta_max %.17g -> %.17g, expected %.17g", i, s[q], dmax0[i],
                b.dmax[i], want);
      if (q > 0) {
        /* continuity: T is piecewise linear between samples with slope at
         * most max(σ_c/δ_c, stiffness at either end) */
        const double jump = fabs(t - tprev[i]), slope = fmax(sc / dc, fmax(k, kprev[i]));
        if (jump > slope * fabs(x - xprev[i]) * (1.0 + 1e-9) + 1e-13 * sc)
          fail_at(&f_lip, "interface %d from s = %.17g to %.17g: |dT| = %.6g > %.6g", i, s[q - 1], s[q], jump,
                  slope * fabs(x - xprev[i]));
        res->max_jump[i] = fmax(res->max_jump[i], jump / sc);
        w[i] += 0.5 * (x - xprev[i]) * (t + tprev[i]);
      }
      /* branch, stiffness, traction, energy */
      const double d = fmin(b.dmax[i] / dc, 1.0), gc = b.gc[i];
      scale[i] = fmax(scale[i], fmax(fabs(w[i]), fabs(e)));
      double dexp;
      int path = 0;
      if (d >= 1.0) {
        dexp = gc;
        if (t != 0.0 || k != 0.0) fail_at(&f_trac, "interface %d broken (d = 1) at s = %.17g: T = %g k = %g", i, s[q], t, k);
      } else {
        path = capped_path(sc, dc, d, kt);
        const double env = sc * (1.0 - d), kd = d > 0.0 ? env / b.dmax[i] : SHARD_INF;
        dexp = path == 1 ? gc * d * d : gc * d;
        if (path == 1) {
          if (k != 0.0) fail_at(&f_stiff, "interface %d capped (d = %.6g) at s = %.17g: stiffness %.17g != 0", i, d, s[q], k);
          if (fabs(t - env) > 1e-12 * sc)
            fail_at(&f_trac, "interface %d capped (d = %.6g) at s = %.17g: T = %.17g, expected sigma_c(1-d) = %.17g", i, d,
                    s[q], t, env);
          if (d > 0.0) res->n_capped++;
        } else if (path == 0) {
          if (fabs(k - kd) > 1e-12 * kd)
            fail_at(&f_stiff, "interface %d secant (d = %.6g) at s = %.17g: stiffness %.17g, expected k(d) = %.17g", i,
                    d, s[q], k, kd);
          if (fabs(t - kd * x) > 1e-12 * sc)
            fail_at(&f_trac, "interface %d secant (d = %.6g) at s = %.17g: T = %.17g, expected k(d) delta = %.17g", i, d,
                    s[q], t, kd * x);
          res->n_secant++;
        }
      }
      if (path >= 0) {
        const double err = fabs((w[i] - e) - dexp) / scale[i];
        res->max_err = fmax(res->max_err, err);
        if (err > 1e-10)
          fail_at(&f_energy,
                  "interface %d at s = %.17g (d = %.9g, %s path): W - reversible = %.17g, expected %.17g (rel err %.3g)",
                  i, s[q], d, d >= 1.0 ? "broken" : path ? "capped" : "secant", w[i] - e, dexp, err);
      }
      xprev[i] = x;
      tprev[i] = t;
      kprev[i] = k;
    }
  }
  /* paths that reach s >= 1 end broken: dissipation G_c on every interface */
  double vmax = 0.0;
  for (int j = 0; j < p->nv; ++j) vmax = fmax(vmax, p->v[j]);
  if (vmax >= 1.0)
    for (int i = 0; i < b.n; ++i) CU_NEAR(w[i] - b.e[i], b.gc[i], 1e-10 * scale[i]);
  CHECK_FAILS(f_commit0, "commit = 0 must neither change delta_max nor the outputs");
  CHECK_FAILS(f_batch, "batch independence");
  CHECK_FAILS(f_finite, "finite outputs");
  CHECK_FAILS(f_bound, "0 <= stiffness <= max_stiffness");
  CHECK_FAILS(f_dmax, "monotone damage");
  CHECK_FAILS(f_lip, "traction continuity");
  CHECK_FAILS(f_trac, "traction on the branch");
  CHECK_FAILS(f_stiff, "stiffness on the branch (0 capped, k(d) secant)");
  CHECK_FAILS(f_energy, "dissipation G_c d (secant) / G_c d^2 (capped)");
}

/* ----------------------------------------------------------------- tests */

static void test_tsl_contract_descriptors(void) {
  shard_registry *reg = NULL;
  tlaw laws[MAX_TSLS];
  int n = load_laws(&reg, laws);
  CU_ASSERT(n >= 1);
  for (int l = 0; l < n; ++l) {
    const shard_plugin *d = laws[l].desc;
    CU_CHECK_MSG(d->ops_size >= sizeof(shard_tsl_ops), "%s: ops_size %u", d->name, d->ops_size);
    CU_CHECK_MSG(d->summary && *d->summary, "%s: no summary", d->name);
    for (uint32_t k = 0; k < d->n_params; ++k)
      CU_CHECK_MSG(strcmp(d->params[k].key, "g_c") != 0 && strcmp(d->params[k].key, "sigma_c") != 0,
                   "%s: '%s' is per interface (given by the host), not a law parameter", d->name, d->params[k].key);
    laws[l].ops->destroy(NULL);
  }
  shard_registry_destroy(reg);
}

static void test_tsl_contract_paths(void) {
  shard_registry *reg = NULL;
  tlaw laws[MAX_TSLS];
  int n = load_laws(&reg, laws);
  const probe_scales scv = test_scales();
  const shard_scales sc = probe_scales_view(&scv);
  for (int l = 0; l < n; ++l) {
    int sets_run = 0;
    for (int ps = 0; ps < N_PSETS; ++ps) {
      pvals pv;
      if (!build(laws[l].desc, &PSETS[ps], &pv)) continue;
      ++sets_run;
      shard_msg msg = {{0}};
      void *self = NULL;
      int st = laws[l].ops->create(&pv.params, &sc, &self, &msg);
      CU_CHECK_MSG(st == SHARD_OK && self, "%s, %s: create: %.300s", laws[l].desc->name, PSETS[ps].label, msg.text);
      if (st != SHARD_OK) continue;
      const double kt = laws[l].ops->max_stiffness(self);
      CU_CHECK_MSG(kt >= 0.0, "%s, %s: max_stiffness %g < 0", laws[l].desc->name, PSETS[ps].label, kt);
      batch b;
      make_interfaces(kt, &b);
      int capped = 0, secant = 0;
      double worst_err = 0.0, worst_ratio = 0.0;
      for (int p = 0; p < N_PATHS; ++p) {
        char ctx[200];
        snprintf(ctx, sizeof ctx, "%s, %s", laws[l].desc->name, PSETS[ps].label);
        /* three refinements: the largest traction step must shrink with the
         * path step (ratio ~ 1/4 for a continuous T, ~ 1 across a jump) */
        path_result r[3];
        const int ms[3] = {8, 32, 128};
        for (int j = 0; j < 3; ++j) run_path(&laws[l], self, kt, &b, &PATHS[p], ms[j], ctx, &r[j]);
        for (int j = 1; j < 3; ++j)
          for (int i = 0; i < NI; ++i) {
            const double ratio = r[j].max_jump[i] / r[j - 1].max_jump[i];
            worst_ratio = fmax(worst_ratio, ratio);
            CU_CHECK_MSG(ratio <= 0.5, "%s: path '%s', interface %d: max |dT|/sigma_c %.3g at m = %d, %.3g at m = %d",
                         ctx, PATHS[p].name, i, r[j - 1].max_jump[i], ms[j - 1], r[j].max_jump[i], ms[j]);
          }
        for (int j = 0; j < 3; ++j) {
          capped += r[j].n_capped;
          secant += r[j].n_secant;
          worst_err = fmax(worst_err, r[j].max_err);
        }
      }
      printf("\n  %s, %s: k_max = %.4g Pa/m, samples with 0<d<1 capped %d, secant %d; max energy error %.2g "
             "(relative), max refinement ratio of |dT| %.3f",
             laws[l].desc->name, PSETS[ps].label, kt, capped, secant, worst_err, worst_ratio);
      /* coverage: both paths where the cap is finite and positive */
      if (kt == SHARD_INF)
        CU_CHECK_MSG(capped == 0 && secant > 0, "%s, %s: uncapped law: capped %d secant %d samples",
                     laws[l].desc->name, PSETS[ps].label, capped, secant);
      else if (kt == 0.0)
        CU_CHECK_MSG(secant == 0 && capped > 0, "%s, %s: zero cap: capped %d secant %d samples", laws[l].desc->name,
                     PSETS[ps].label, capped, secant);
      else
        CU_CHECK_MSG(capped > 0 && secant > 0, "%s, %s: both paths must be visited: capped %d secant %d",
                     laws[l].desc->name, PSETS[ps].label, capped, secant);
      laws[l].ops->destroy(self);
    }
    CU_CHECK_MSG(sets_run >= 1, "%s: no parameter set ran", laws[l].desc->name);
  }
  printf("\n");
  shard_registry_destroy(reg);
}

/* No kink of force or stiffness at δ = 0 for a damaged interface (d > 0): left
 * and right limits equal, the one-sided slopes of T equal each other and the
 * stiffness output. A fresh interface (d = 0) follows the capped rule on the
 * left; its traction is continuous; its right stiffness limit is 0 only under
 * a finite cap (uncapped, k(d) → ∞ as d → 0+), so there the traction alone is
 * checked; its slopes differ because δ = 0 = δ_max starts the loading branch. */
static void test_tsl_contract_no_kink_at_zero(void) {
  static const double ds[] = {0.0, 1e-3, 0.05, 0.3, 0.45, 0.7, 0.999, 1.0};
  shard_registry *reg = NULL;
  tlaw laws[MAX_TSLS];
  int n = load_laws(&reg, laws);
  const probe_scales sclv = test_scales();
  const shard_scales scl = probe_scales_view(&sclv);
  for (int l = 0; l < n; ++l)
    for (int ps = 0; ps < N_PSETS; ++ps) {
      pvals pv;
      if (!build(laws[l].desc, &PSETS[ps], &pv)) continue;
      shard_msg msg = {{0}};
      void *self = NULL;
      if (laws[l].ops->create(&pv.params, &scl, &self, &msg) != SHARD_OK) {
        CU_CHECK_MSG(0, "%s, %s: create: %.300s", laws[l].desc->name, PSETS[ps].label, msg.text);
        continue;
      }
      const double kt = laws[l].ops->max_stiffness(self);
      char ctx[200];
      snprintf(ctx, sizeof ctx, "%s, %s", laws[l].desc->name, PSETS[ps].label);
      fails f_t = {0, ""}, f_k = {0, ""}, f_slope = {0, ""};
      batch b;
      make_interfaces(kt, &b);
      for (size_t q = 0; q < sizeof ds / sizeof ds[0]; ++q)
        for (int i = 0; i < NI; ++i) {
          const double sc = b.sc[i], dc = b.dc[i], d = ds[q];
          double eps = 1e-7;
          /* d = 0 with a finite cap: stay below the switch d* = σ_c/(σ_c + k̃ δ_c) */
          if (d == 0.0 && kt < SHARD_INF) eps = fmin(eps, 0.5 * sc / (sc + kt * dc));
          double t[3], k[3];
          for (int side = 0; side < 3; ++side) {
            batch one;
            memset(&one, 0, sizeof one);
            one.n = 1;
            one.sc[0] = sc;
            one.dc[0] = dc;
            one.dmax[0] = d * dc;
            one.delta[0] = (side - 1) * eps * dc;
            shard_tsl_batch v = view(&one);
            laws[l].ops->evaluate(self, &v, 0);
            t[side] = one.t[0];
            k[side] = one.k[0];
          }
          const double h = eps * dc, slope_scale = fmax(sc / dc, k[1]);
          if (fabs(t[2] - t[0]) > 2.0 * h * slope_scale * (1.0 + 1e-9) + 1e-14 * sc ||
              fabs(t[1] - t[0]) > h * slope_scale * (1.0 + 1e-9) + 1e-14 * sc)
            fail_at(&f_t, "interface %d, d = %g: T(-h) = %.17g, T(0) = %.17g, T(+h) = %.17g (h = %g)", i, d, t[0], t[1],
                    t[2], h);
          if (d == 0.0 && kt == SHARD_INF) continue;
          if (fabs(k[0] - k[1]) > 1e-12 * k[1] || fabs(k[2] - k[1]) > 1e-12 * k[1])
            fail_at(&f_k, "interface %d, d = %g: stiffness %.17g | %.17g | %.17g at -h, 0, +h", i, d, k[0], k[1], k[2]);
          /* at d = 0, δ = 0 is also δ_max: the loading branch starts there
           * (slope −σ_c/δ_c against 0 on the left), the kink of any
           * extrinsic law at δ_max, not a compression rule */
          if (d == 0.0) continue;
          const double ql = (t[1] - t[0]) / h, qr = (t[2] - t[1]) / h;
          if (fabs(ql - qr) > 1e-6 * slope_scale || fabs(qr - k[1]) > 1e-6 * slope_scale)
            fail_at(&f_slope, "interface %d, d = %g: dT/d(delta) left %.9g right %.9g, stiffness %.9g", i, d, ql, qr,
                    k[1]);
        }
      CHECK_FAILS(f_t, "traction continuous at delta = 0");
      CHECK_FAILS(f_k, "stiffness continuous at delta = 0");
      CHECK_FAILS(f_slope, "no kink of the traction at delta = 0 (left slope = right slope = stiffness)");
      laws[l].ops->destroy(self);
    }
  shard_registry_destroy(reg);
}

/* create validates on its own (the host validates too, but a plugin is also
 * created from tests and other hosts): every value outside a declared range is
 * refused with a message naming the key; the two cap keys together are
 * refused; cap.alpha without model scales is refused. */
static void test_tsl_contract_create_refuses(void) {
  shard_registry *reg = NULL;
  tlaw laws[MAX_TSLS];
  int n = load_laws(&reg, laws);
  const probe_scales sclv = test_scales();
  const shard_scales scl = probe_scales_view(&sclv);
  for (int l = 0; l < n; ++l) {
    const shard_plugin *d = laws[l].desc;
    for (uint32_t k = 0; k < d->n_params; ++k) {
      const shard_param_spec *sp = &d->params[k];
      double bad[SPEC_PROBE_MAX];
      const int nb = spec_probe_out_of_range(sp, bad);
      for (int j = 0; j < nb; ++j) {
        pvals pv;
        defaults(d, &pv);
        set_real(d, &pv, sp->key, bad[j]);
        shard_msg msg = {{0}};
        void *self = (void *)&pv; /* must be reset */
        int st = laws[l].ops->create(&pv.params, &scl, &self, &msg);
        CU_CHECK_MSG(st < 0 && self == NULL && strstr(msg.text, sp->key) != NULL,
                     "%s: %s = %g: create returned %d (%s), self %p, message '%.300s' (must name the key)", d->name,
                     sp->key, bad[j], st, shard_status_str(st), self, msg.text);
        if (st == SHARD_OK) laws[l].ops->destroy(self);
      }
    }
    if (param_index(d, "cap.alpha") >= 0 && param_index(d, "cap.stiffness") >= 0) {
      pvals pv;
      defaults(d, &pv);
      set_real(d, &pv, "cap.alpha", 1.0);
      set_real(d, &pv, "cap.stiffness", 1e18);
      shard_msg msg = {{0}};
      void *self = NULL;
      int st = laws[l].ops->create(&pv.params, &scl, &self, &msg);
      CU_CHECK_MSG(st == SHARD_ERR_INPUT && !self && strstr(msg.text, "cap.alpha") && strstr(msg.text, "cap.stiffness"),
                   "%s: both caps: create returned %d, message '%.300s'", d->name, st, msg.text);
      if (st == SHARD_OK) laws[l].ops->destroy(self);
    }
    if (param_index(d, "cap.alpha") >= 0) {
      probe_scales nonev = sclv;
      nonev.young = 0.0;
      const shard_scales none = probe_scales_view(&nonev);
      for (int j = 0; j < 2; ++j) {
        pvals pv;
        defaults(d, &pv);
        set_real(d, &pv, "cap.alpha", 10.0);
        shard_msg msg = {{0}};
        void *self = NULL;
        int st = laws[l].ops->create(&pv.params, j ? &none : NULL, &self, &msg);
        CU_CHECK_MSG(st == SHARD_ERR_INPUT && !self && strstr(msg.text, "cap.alpha"),
                     "%s: cap.alpha without %s: create returned %d, message '%.300s'", d->name,
                     j ? "a Young's modulus" : "scales", st, msg.text);
        if (st == SHARD_OK) laws[l].ops->destroy(self);
      }
    }
  }
  shard_registry_destroy(reg);
}

/* camacho_ortiz against hand-computed values: σ_c = 100, δ_c = 2 (G_c = 100),
 * k(d) = 100(1−d)/(2d); cap 60 switches at d* = 100/(100 + 120) = 5/11. */
static void co_eval(const tlaw *L, const void *self, double *dmax, double delta, int commit, double *t, double *k,
                    double *e) {
  double sc = 100.0, dc = 2.0;
  shard_tsl_batch v = {.n = 1, .sigma_c = &sc, .delta_c = &dc, .delta = &delta, .delta_max = dmax, .traction = t,
                       .stiffness = k, .reversible = e};
  L->ops->evaluate(self, &v, commit);
}

#define CO_EXPECT(delta, commit, T, K, E)                       \
  do {                                                          \
    double t_, k_, e_;                                          \
    co_eval(co, self, &dmax, (delta), (commit), &t_, &k_, &e_); \
    CU_NEAR(t_, (T), 1e-13 * 100.0);                            \
    CU_NEAR(k_, (K), 1e-13 * 100.0);                            \
    CU_NEAR(e_, (E), 1e-13 * 100.0);                            \
  } while (0)

static void test_tsl_contract_camacho_ortiz_values(void) {
  shard_registry *reg = NULL;
  tlaw laws[MAX_TSLS];
  int n = load_laws(&reg, laws);
  const tlaw *co = NULL;
  for (int l = 0; l < n; ++l)
    if (strcmp(laws[l].desc->name, "camacho_ortiz") == 0) co = &laws[l];
  CU_ASSERT_PTR_NOT_NULL_FATAL(co);
  probe_scales sclv = test_scales();
  shard_scales scl = probe_scales_view(&sclv);
  shard_msg msg = {{0}};
  void *self = NULL;
  pvals pv;

  /* uncapped */
  defaults(co->desc, &pv);
  CU_ASSERT_EQUAL_FATAL(co->ops->create(&pv.params, &scl, &self, &msg), SHARD_OK);
  CU_ASSERT(co->ops->max_stiffness(self) == SHARD_INF);
  double dmax = 0.0;
  CO_EXPECT(-0.1, 1, 100.0, 0.0, -10.0); /* fresh, compressed: capped rule */
  CU_ASSERT_EQUAL(dmax, 0.0);
  CO_EXPECT(0.0, 1, 100.0, 0.0, 0.0);
  CO_EXPECT(1.0, 0, 50.0, 50.0, 25.0); /* loading, not committed */
  CU_ASSERT_EQUAL(dmax, 0.0);
  CO_EXPECT(1.0, 1, 50.0, 50.0, 25.0);
  CU_ASSERT_EQUAL(dmax, 1.0);
  CO_EXPECT(0.5, 1, 25.0, 50.0, 6.25);  /* secant unloading, d = 1/2 */
  CO_EXPECT(-0.5, 1, -25.0, 50.0, 6.25); /* through zero */
  CU_ASSERT_EQUAL(dmax, 1.0);
  CO_EXPECT(1.5, 1, 25.0, 25.0 / 1.5, 18.75);
  CO_EXPECT(3.0, 1, 0.0, 0.0, 0.0);
  CU_ASSERT_EQUAL(dmax, 3.0);
  CO_EXPECT(-1.0, 1, 0.0, 0.0, 0.0);
  co->ops->destroy(self);

  /* cap 60 Pa/m, given absolutely and as alpha E / h = 2 * 3 / 0.1 */
  for (int j = 0; j < 2; ++j) {
    defaults(co->desc, &pv);
    if (j == 0) {
      set_real(co->desc, &pv, "cap.stiffness", 60.0);
    } else {
      set_real(co->desc, &pv, "cap.alpha", 2.0);
      sclv.young = 3.0;
      sclv.h_mean = 0.1;
    }
    CU_ASSERT_EQUAL_FATAL(co->ops->create(&pv.params, &scl, &self, &msg), SHARD_OK);
    CU_NEAR(co->ops->max_stiffness(self), 60.0, 1e-13 * 60.0);
    dmax = 0.0;
    CO_EXPECT(0.5, 1, 75.0, 0.0, 37.5); /* d = 1/4 < 5/11: k(d) = 150 > 60, capped */
    CO_EXPECT(0.2, 1, 75.0, 0.0, 15.0);
    CO_EXPECT(-0.2, 1, 75.0, 0.0, -15.0);
    CO_EXPECT(1.2, 1, 40.0, 40.0 / 1.2, 24.0); /* d = 0.6 > 5/11: secant */
    CO_EXPECT(0.6, 1, 20.0, 40.0 / 1.2, 6.0);
    CU_ASSERT_EQUAL(dmax, 1.2);
    co->ops->destroy(self);
  }
  shard_registry_destroy(reg);
}

/* ---------------------------------------------------- mixed mode (vector) */

#define CO_PI 3.14159265358979323846

/* camacho_ortiz, one interface with σ_c = 100, δ_c = 2 (G_c = 100), in
 * mixed mode: normal opening dn, tangential dt. */
typedef struct co_vec {
  double t, tt, k, kt, e;
} co_vec;

static co_vec co_eval_vec(const tlaw *L, const void *self, double *dmax, double dn, double dt, int commit) {
  double sc = 100.0, dc = 2.0;
  co_vec r;
  shard_tsl_batch v = {.n = 1, .sigma_c = &sc, .delta_c = &dc, .delta = &dn, .delta_max = dmax, .traction = &r.t,
                       .stiffness = &r.k, .reversible = &r.e, .delta_t = &dt, .traction_t = &r.tt,
                       .stiffness_t = &r.kt};
  L->ops->evaluate(self, &v, commit);
  return r;
}

static const tlaw *find_co(shard_registry **reg, tlaw *laws) {
  const int n = load_laws(reg, laws);
  for (int l = 0; l < n; ++l)
    if (strcmp(laws[l].desc->name, "camacho_ortiz") == 0) return &laws[l];
  return NULL;
}

static void *co_create_with(const tlaw *co, double beta, double cap) {
  const probe_scales none = {0};
  const shard_scales scl = probe_scales_view(&none);
  pvals pv;
  defaults(co->desc, &pv);
  set_real(co->desc, &pv, "beta", beta);
  if (cap > 0.0) set_real(co->desc, &pv, "cap.stiffness", cap);
  void *self = NULL;
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL(co->ops->create(&pv.params, &scl, &self, &msg), SHARD_OK);
  return self;
}

/* The work of the traction vector along a straight monotonic opening from
 * (dn0, 0) in direction (cos φ, sin φ) until δ_eff = 3 = 1.5 δ_c (dn0 < 0:
 * compression held, sliding only, cos φ = 0), by the midpoint rule over N
 * steps, committing each. The midpoint avoids the opening's origin, where
 * the traction's direction is not defined. The law is linear in δ_eff on
 * [0, δ_c] and zero beyond, so the rule is exact except on the step that
 * holds δ_c: relative error <= (h/δ_c)^2 with h = 3/N, 2.5e-7 at N = 3000.
 * *max_tn: the largest |T_n| met. */
static double co_work(const tlaw *co, void *self, double beta, double phi, double dn0, int N, double *max_tn) {
  const double c = fabs(cos(phi)) < 1e-15 ? 0.0 : cos(phi), sn = sin(phi);
  const double rate = dn0 >= 0.0 ? sqrt(c * c + beta * beta * sn * sn) : beta * fabs(sn);
  const double ds = 3.0 / rate / N;
  double dmax = 0.0, w = 0.0;
  *max_tn = 0.0;
  for (int k = 0; k < N; ++k) {
    const double sm = (k + 0.5) * ds;
    const co_vec m = co_eval_vec(co, self, &dmax, dn0 + sm * c, sm * sn, 1);
    w += m.t * c * ds + m.tt * sn * ds;
    if (fabs(m.t) > *max_tn) *max_tn = fabs(m.t);
  }
  return w;
}

/* Camacho–Ortiz / Ortiz–Pandolfi mixed mode: any monotonic opening to
 * δ_eff >= δ_c dissipates G_c = σ_c δ_c / 2 = 100 — pure shear, mixed
 * directions, pure normal, sliding under compression (where the normal
 * traction is the contact's: zero here), backwards sliding, and with the
 * cap (which only changes unloading). */
static void test_tsl_contract_mixed_mode_energy(void) {
  shard_registry *reg = NULL;
  tlaw laws[MAX_TSLS];
  const tlaw *co = find_co(&reg, laws);
  CU_ASSERT_PTR_NOT_NULL_FATAL(co);
  const double betas[3] = {1.0, 0.5, 2.0};
  const double phis[5] = {CO_PI / 2, CO_PI / 4, CO_PI / 3, 0.0, -CO_PI / 2};
  for (int b = 0; b < 3; ++b)
    for (int p = 0; p < 5; ++p)
      for (int capped = 0; capped < 2; ++capped) {
        void *self = co_create_with(co, betas[b], capped ? 60.0 : 0.0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(self);
        double tn_max;
        const double w = co_work(co, self, betas[b], phis[p], 0.0, 3000, &tn_max);
        CU_CHECK_MSG(fabs(w - 100.0) <= 1e-6 * 100.0, "beta %g, phi %g, %s: work %.12g, G_c 100", betas[b], phis[p],
                     capped ? "cap 60" : "uncapped", w);
        co->ops->destroy(self);
      }
  for (int b = 0; b < 3; ++b) { /* sliding while the crack is pressed shut */
    void *self = co_create_with(co, betas[b], 0.0);
    double tn_max;
    const double w = co_work(co, self, betas[b], CO_PI / 2, -0.5, 3000, &tn_max);
    CU_CHECK_MSG(fabs(w - 100.0) <= 1e-6 * 100.0, "beta %g, compressed: work %.12g, G_c 100", betas[b], w);
    CU_NEAR(tn_max, 0.0, 0.0);
    co->ops->destroy(self);
  }
  shard_registry_destroy(reg);
}

/* Unloading and reloading follow the secant of δ_eff in mixed mode: T_n =
 * k δ_n, T_t = β² k δ_t with k = σ_c (1 − d)/(d δ_c), δ_max kept; reloading
 * meets the envelope where it left it. With the cap, the capped path keeps
 * the effective traction σ_c (1 − d) along the opening's direction, with
 * zero stiffness. In 1D form (δ_t = 0, δ_n >= 0) the vector law gives the
 * scalar law's values; in compression without sliding, no cohesive traction. */
static void test_tsl_contract_mixed_mode_paths(void) {
  shard_registry *reg = NULL;
  tlaw laws[MAX_TSLS];
  const tlaw *co = find_co(&reg, laws);
  CU_ASSERT_PTR_NOT_NULL_FATAL(co);
  const double beta = 0.5, b2 = 0.25, c = cos(CO_PI / 3), sn = sin(CO_PI / 3);
  const double rate = sqrt(c * c + b2 * sn * sn); /* δ_eff per unit path length */
  void *self = co_create_with(co, beta, 0.0);
  double dmax = 0.0;
  const double s1 = 0.8 / rate; /* δ_eff = 0.8, d = 0.4 */
  co_vec r = co_eval_vec(co, self, &dmax, s1 * c, s1 * sn, 1);
  CU_NEAR(dmax, 0.8, 1e-14);
  const double t1 = 100.0 * (1.0 - 0.4), k = t1 / 0.8; /* 60 and 75 */
  CU_NEAR(r.t, k * s1 * c, 1e-12);
  CU_NEAR(r.tt, b2 * k * s1 * sn, 1e-12);
  const double f[5] = {0.75, 0.5, 0.25, 0.0, 0.6};
  for (int i = 0; i < 5; ++i) {
    const double sf = f[i] * s1;
    r = co_eval_vec(co, self, &dmax, sf * c, sf * sn, 1);
    CU_NEAR(r.t, k * sf * c, 1e-12);
    CU_NEAR(r.tt, b2 * k * sf * sn, 1e-12);
    CU_NEAR(r.k, k, 1e-12);
    CU_NEAR(r.kt, b2 * k, 1e-12);
    CU_NEAR(r.e, 0.5 * k * (0.8 * f[i]) * (0.8 * f[i]), 1e-12);
    CU_NEAR(dmax, 0.8, 1e-14);
  }
  r = co_eval_vec(co, self, &dmax, s1 * c, s1 * sn, 1); /* back at δ_max: on the envelope */
  CU_NEAR(hypot(r.t, r.tt / beta), t1 * hypot(c, beta * sn) / rate, 1e-12);
  const double s2 = 1.2 / rate; /* loading on: d = 0.6, t = 40 */
  r = co_eval_vec(co, self, &dmax, s2 * c, s2 * sn, 1);
  CU_NEAR(r.t, 40.0 / 1.2 * s2 * c, 1e-12);
  CU_NEAR(r.tt, b2 * 40.0 / 1.2 * s2 * sn, 1e-12);
  CU_NEAR(dmax, 1.2, 1e-14);
  co->ops->destroy(self);

  /* the cap: 60 Pa/m; at d = 1/4 the secant 150 exceeds it, unloading keeps t = 75 */
  self = co_create_with(co, 1.0, 60.0);
  dmax = 0.0;
  const double q = 0.5 / sqrt(2.0); /* φ = π/4, β = 1: δ_eff = 0.5 */
  r = co_eval_vec(co, self, &dmax, q, q, 1);
  CU_NEAR(r.k, 0.0, 0.0);
  const double q2 = 0.2 / sqrt(2.0);
  r = co_eval_vec(co, self, &dmax, q2, q2, 1);
  CU_NEAR(r.t, 75.0 / sqrt(2.0), 1e-12);
  CU_NEAR(r.tt, 75.0 / sqrt(2.0), 1e-12);
  CU_NEAR(r.k, 0.0, 0.0);
  CU_NEAR(r.kt, 0.0, 0.0);
  CU_NEAR(r.e, 75.0 * 0.2, 1e-12);
  CU_NEAR(dmax, 0.5, 1e-14);
  co->ops->destroy(self);

  /* 1D form: δ_t = 0 gives the scalar law's values; compression, no traction */
  self = co_create_with(co, 1.0, 0.0);
  void *one = co_create_with(co, 1.0, 0.0);
  double dv = 0.0, ds = 0.0;
  const double seq[6] = {0.0, 1.0, 0.5, 1.5, 0.25, 3.0};
  for (int i = 0; i < 6; ++i) {
    double t, kk, e;
    co_eval(co, one, &ds, seq[i], 1, &t, &kk, &e);
    r = co_eval_vec(co, self, &dv, seq[i], 0.0, 1);
    CU_NEAR(r.t, t, 1e-15 * 100.0);
    CU_NEAR(r.k, kk, 1e-15 * 100.0);
    CU_NEAR(r.e, e, 1e-15 * 100.0);
    CU_NEAR(r.tt, 0.0, 0.0);
    CU_NEAR(dv, ds, 0.0);
  }
  dv = 1.0, ds = 1.0;
  r = co_eval_vec(co, self, &dv, -0.5, 0.0, 1);
  CU_NEAR(r.t, 0.0, 0.0); /* 1D continues the secant (T = -25): the vector law leaves the normal to the contact */
  CU_NEAR(r.tt, 0.0, 0.0);
  co->ops->destroy(self);
  co->ops->destroy(one);
  shard_registry_destroy(reg);
}


/* The optional slot shear_weight (beta): for every law that has it (in the
 * table widened as the host widens it), finite and > 0 under every
 * parameter set, and for a law with a `beta` key the value given (0.5, 2,
 * 1e-3, 1e3). A table whose ops_size stops before the slot reads as NULL
 * (beta = 1) even when the memory after it holds a function. */
static double sw_seven(const void *self) { return (void)self, 7.0; }

static void test_tsl_contract_shear_weight(void) {
  shard_registry *reg = NULL;
  tlaw laws[MAX_TSLS];
  const int n = load_laws(&reg, laws);
  const probe_scales scv = test_scales();
  const shard_scales sc = probe_scales_view(&scv);
  int with_slot = 0;
  for (int l = 0; l < n; ++l) {
    const shard_plugin *d = laws[l].desc;
    shard_tsl_ops ops;
    shard_tsl_ops_widen(d, &ops);
    if (!ops.shear_weight) {
      printf("\n  %s: no shear_weight (beta = 1)", d->name);
      continue;
    }
    ++with_slot;
    const int has_beta = param_index(d, "beta") >= 0;
    static const double betas[] = {0.5, 2.0, 1e-3, 1e3};
    for (int ps = 0; ps < N_PSETS; ++ps)
      for (int b = -1; b < (has_beta ? 4 : 0); ++b) {
        pvals pv;
        if (!build(d, &PSETS[ps], &pv)) continue;
        if (b >= 0) set_real(d, &pv, "beta", betas[b]);
        shard_msg msg = {{0}};
        void *self = NULL;
        const int st = ops.create(&pv.params, &sc, &self, &msg);
        CU_CHECK_MSG(st == SHARD_OK, "%s, %s: create: %.300s", d->name, PSETS[ps].label, msg.text);
        if (st != SHARD_OK) continue;
        const double beta = shard_tsl_shear_weight(&ops, self);
        CU_CHECK_MSG(isfinite(beta) && beta > 0.0, "%s, %s: shear_weight %g", d->name, PSETS[ps].label, beta);
        if (has_beta) {
          const double want = shard_params_real(&pv.params, "beta");
          CU_CHECK_MSG(beta == want, "%s, %s, beta = %g: shear_weight %g", d->name, PSETS[ps].label, want, beta);
        }
        ops.destroy(self);
      }
    printf("\n  %s: shear_weight checked%s", d->name, has_beta ? " against its beta key" : "");
  }
  CU_CHECK_MSG(with_slot >= 1, "no tsl plugin has shear_weight (camacho_ortiz should)");
  /* the guard: a table compiled before the slot */
  shard_tsl_ops full = {.shear_weight = sw_seven}, widened;
  const shard_plugin old = {.kind = SHARD_KIND_TSL, .ops_size = (uint32_t)offsetof(shard_tsl_ops, shear_weight),
                            .ops = &full};
  shard_tsl_ops_widen(&old, &widened);
  CU_ASSERT(widened.shear_weight == NULL && shard_tsl_shear_weight(&widened, NULL) == 1.0);
  const shard_plugin now = {.kind = SHARD_KIND_TSL, .ops_size = sizeof full, .ops = &full};
  shard_tsl_ops_widen(&now, &widened);
  CU_ASSERT(shard_tsl_shear_weight(&widened, NULL) == 7.0);
  printf("\n");
  shard_registry_destroy(reg);
}

static const cu_test_def tests[] = {
    {"test_tsl_contract_descriptors", test_tsl_contract_descriptors},
    {"test_tsl_contract_paths", test_tsl_contract_paths},
    {"test_tsl_contract_no_kink_at_zero", test_tsl_contract_no_kink_at_zero},
    {"test_tsl_contract_create_refuses", test_tsl_contract_create_refuses},
    {"test_tsl_contract_camacho_ortiz_values", test_tsl_contract_camacho_ortiz_values},
    {"test_tsl_contract_mixed_mode_energy", test_tsl_contract_mixed_mode_energy},
    {"test_tsl_contract_mixed_mode_paths", test_tsl_contract_mixed_mode_paths},
    {"test_tsl_contract_shear_weight", test_tsl_contract_shear_weight},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "tsl_contract", tests); }
