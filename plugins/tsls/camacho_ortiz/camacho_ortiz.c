/* camacho_ortiz — the linear extrinsic cohesive law of Camacho & Ortiz (1996)
 * with the optional stiffness cap of the paper's §2.4 (docs/theory.md §10).
 *
 * Per interface: σ_c, δ_c = 2 G_c/σ_c (effective values fixed at insertion),
 * opening δ (tension positive) and history δ_max ≥ 0.
 *   d = min(δ_max/δ_c, 1),  envelope T(d) = σ_c (1 − d),
 *   secant k(d) = σ_c (1 − d)/(d δ_c) = T(d)/δ_max.
 * - loading (δ ≥ δ_max): T = σ_c(1 − δ/δ_c) (0 beyond δ_c), evaluated with
 *   d = δ/δ_c; commit sets δ_max ← δ;
 * - below δ_max (unloading, reloading, and δ < 0, where the branch simply
 *   continues through zero): the secant path T = k(d) δ, stiffness k(d),
 *   reversible ½ T δ; or, when k(d) > k̃ (cap), the capped path T = σ_c(1 − d),
 *   stiffness 0, reversible T δ.
 * The stiffness output is the one integrators put into K: k(d) on the secant
 * path (also while loading, with d = δ/δ_c), 0 on the capped path. A fresh
 * interface (d = 0, infinite secant) follows the capped rule: T = σ_c,
 * stiffness 0, for δ ≤ 0. Dissipation W_coh − reversible is then G_c d on the
 * secant path and G_c d² on the capped path; both are G_c at d = 1.
 *
 * The host zeroes the cohesive traction for δ < 0 itself when it runs penalty
 * contact (Akantu's rule); this law always implements the nonsmooth rule.
 *
 * Mixed mode (batch->delta_t not NULL; Camacho & Ortiz 1996, Ortiz &
 * Pandolfi 1999): the same scalar law acts on the effective opening
 *   δ_eff = √(δ_n² + β² δ_t²)  for δ_n ≥ 0 (tension),
 *   δ_eff = β |δ_t|             for δ_n < 0 (compression: the normal part is
 *                               the contact's, only sliding opens the crack),
 * with δ_max its history, and the traction vector is
 *   T_n = (t/δ_eff) δ_n (0 in compression),  T_t = β² (t/δ_eff) δ_t,
 * t the scalar traction, so that T·dδ = t dδ_eff: any monotonic path to
 * δ_eff = δ_c dissipates G_c. Stiffnesses k (normal) and β² k (tangential),
 * k the scalar one. At δ_eff = 0 the direction is the normal: T_n = t in
 * tension, 0 in compression, T_t = 0. The 1D rule above (delta_t NULL) is
 * unchanged, its arithmetic untouched. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "shard/tsl.h"

typedef struct camacho_ortiz {
  double beta;  /* β, the weight of sliding (shear_weight) */
  double beta2; /* β², the weight of sliding in the effective opening */
  int capped;  /* a cap was given */
  double kcap; /* k̃ [Pa/m] when capped */
  double kmax; /* largest secant stiffness accepted: k̃, or DBL_MAX uncapped */
} camacho_ortiz;

static const shard_param_spec co_params[] = {
    {.key = "cap.alpha",
     .type = SHARD_PARAM_REAL,
     .def = NULL,
     .min = 0.0,
     .max = SHARD_INF,
     .unit = "1",
     .flags = 0,
     .choices = NULL,
     .doc = "relative stiffness cap: k_cap = alpha E / h_mean, the paper uses 1 to 10 (give alpha or stiffness, not "
            "both; neither: uncapped)"},
    {.key = "cap.stiffness",
     .type = SHARD_PARAM_REAL,
     .def = NULL,
     .min = 0.0,
     .max = SHARD_INF,
     .unit = "Pa/m",
     .flags = SHARD_PARAM_MIN_EXCLUSIVE,
     .choices = NULL,
     .doc = "absolute stiffness cap k_cap per unit area and opening (give alpha or stiffness, not both; neither: "
            "uncapped)"},
    {.key = "beta",
     .type = SHARD_PARAM_REAL,
     .def = "1",
     .min = 0.0,
     .max = SHARD_INF,
     .unit = "1",
     .flags = SHARD_PARAM_MIN_EXCLUSIVE,
     .choices = NULL,
     .doc = "mixed mode: weight of the tangential opening, delta_eff = sqrt(delta_n^2 + beta^2 delta_t^2), and of the "
            "shear in a model's insertion criterion, sqrt(<sigma_n>^2 + tau^2/beta^2) >= sigma_c (models with a "
            "tangential opening only; 1D ignores it)"},
};

static int co_create(const shard_params *params, const shard_scales *scales, void **out_self, shard_msg *msg) {
  *out_self = NULL;
  double kcap;
  int rc = shard_params_check(params, msg);
  if (rc != SHARD_OK) return rc;
  rc = shard_scaled_stiffness(params, "cap.alpha", "cap.stiffness", 0, scales, &kcap, msg);
  if (rc != SHARD_OK) return rc;
  camacho_ortiz *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->beta = shard_params_has(params, "beta") ? shard_params_real(params, "beta") : 1.0;
  s->beta2 = s->beta * s->beta;
  if (!isfinite(s->beta2) || !(s->beta2 > 0.0)) {
    const double beta = s->beta, beta2 = s->beta2;
    free(s);
    return shard_msg_set(msg, SHARD_ERR_INPUT, "beta = %g: beta^2 %s", beta,
                         beta2 > 0.0 ? "overflows" : "is not positive (beta must be > 0)");
  }
  s->capped = !isnan(kcap);
  s->kcap = s->capped ? kcap : SHARD_INF;
  s->kmax = s->capped ? kcap : DBL_MAX;
  *out_self = s;
  return SHARD_OK;
}

static void co_destroy(void *self) { free(self); }

/* The scalar law at opening x with history *dmax. No indirect call, no
 * allocation. The secant path is taken when
 * d > 0 and k(d) = T(d)/δ_max <= k̃ (uncapped: any finite k(d)); otherwise the
 * capped rule, which is also the rule of a fresh interface (d = 0). The
 * secant is computed as T(d)/δ_max on both branches, so loading and
 * unloading agree bit for bit at δ = δ_max. */
static inline void co_scalar(double kmax, double sc, double dc, double x, double *dmax, int commit, double *out_t,
                             double *out_k, double *out_e) {
  const double hm = *dmax > 0.0 ? *dmax : 0.0;
  double t, k, e;
  if (x >= hm) { /* loading: the envelope at d = δ/δ_c */
    if (x >= dc) {
      t = k = e = 0.0;
    } else {
      t = sc * (1.0 - x / dc);
      const double ks = x > 0.0 ? t / x : DBL_MAX;
      if (x > 0.0 && ks <= kmax) {
        k = ks;
        e = 0.5 * t * x;
      } else {
        k = 0.0;
        e = t * x;
      }
    }
    if (commit) *dmax = x;
  } else if (hm >= dc) { /* fully broken */
    t = k = e = 0.0;
  } else { /* below δ_max, through zero into penetration */
    const double env = sc * (1.0 - hm / dc);
    const double ks = hm > 0.0 ? env / hm : DBL_MAX;
    if (hm > 0.0 && ks <= kmax) {
      k = ks;
      t = ks * x;
      e = 0.5 * t * x;
    } else {
      k = 0.0;
      t = env;
      e = env * x;
    }
  }
  *out_t = t;
  *out_k = k;
  *out_e = e;
}

static void co_evaluate(const void *self, const shard_tsl_batch *b, int commit) {
  const camacho_ortiz *s = self;
  const double kmax = s->kmax;
  const int32_t n = b->n;
  if (!b->delta_t) { /* 1D: normal only */
    for (int32_t i = 0; i < n; ++i)
      co_scalar(kmax, b->sigma_c[i], b->delta_c[i], b->delta[i], &b->delta_max[i], commit, &b->traction[i],
                &b->stiffness[i], &b->reversible[i]);
    return;
  }
  const double beta2 = s->beta2;
  for (int32_t i = 0; i < n; ++i) {
    const double dn = b->delta[i], dt = b->delta_t[i];
    const double x = dn >= 0.0 ? sqrt(dn * dn + beta2 * dt * dt) : sqrt(beta2 * dt * dt);
    double t, k, e;
    co_scalar(kmax, b->sigma_c[i], b->delta_c[i], x, &b->delta_max[i], commit, &t, &k, &e);
    double tn, tt;
    if (x > 0.0) {
      const double r = t / x; /* the secant of the current point: k on the secant path */
      tn = dn >= 0.0 ? r * dn : 0.0;
      tt = beta2 * r * dt;
    } else {
      tn = dn >= 0.0 ? t : 0.0;
      tt = 0.0;
    }
    b->traction[i] = tn;
    b->traction_t[i] = tt;
    b->stiffness[i] = k;
    if (b->stiffness_t) b->stiffness_t[i] = beta2 * k;
    b->reversible[i] = e;
  }
}

static double co_max_stiffness(const void *self) {
  const camacho_ortiz *s = self;
  return s->capped ? s->kcap : SHARD_INF;
}

/* β: the insertion criterion of a model weighs the shear as the law weighs
 * sliding, sqrt(<σ_n>² + τ²/β²) ≥ σ_c */
static double co_shear_weight(const void *self) { return ((const camacho_ortiz *)self)->beta; }

static const shard_tsl_ops co_ops = {
    .create = co_create,
    .destroy = co_destroy,
    .evaluate = co_evaluate,
    .max_stiffness = co_max_stiffness,
    .shear_weight = co_shear_weight,
};

static const shard_plugin co_desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_TSL),
    .name = "camacho_ortiz",
    .version = "1.0.0",
    .summary = "linear extrinsic cohesive law (Camacho-Ortiz) with optional stiffness cap alpha E / h_mean",
    .params = co_params,
    .n_params = SHARD_NPARAMS(co_params),
    .ops_size = sizeof(shard_tsl_ops),
    .caps = 0,
    .ops = &co_ops,
    .doc = "Linear softening T = sigma_c (1 - delta/delta_c) from the insertion strength, secant unloading and "
           "reloading T = k(d) delta with k(d) = sigma_c (1-d)/(d delta_c), continued through zero into "
           "penetration. With a cap k_cap, an interface whose secant exceeds it unloads at constant traction "
           "sigma_c (1-d) with zero stiffness. Dissipation G_c d (secant) or G_c d^2 (capped), G_c at d = 1. "
           "Mixed mode (models with a tangential opening, Camacho & Ortiz 1996, Ortiz & Pandolfi 1999): the law "
           "acts on delta_eff = sqrt(delta_n^2 + beta^2 delta_t^2) in tension, beta |delta_t| in compression (the "
           "normal part is the contact's), with tractions T_n = (t/delta_eff) delta_n (0 in compression) and "
           "T_t = beta^2 (t/delta_eff) delta_t, so that any monotonic opening dissipates G_c. A model that inserts "
           "facets reads beta from the law (shear_weight) and breaks a facet when sqrt(<sigma_n>^2 + tau^2/beta^2) "
           "reaches its strength.",
};

SHARD_PLUGIN_SINGLE(co_desc)
