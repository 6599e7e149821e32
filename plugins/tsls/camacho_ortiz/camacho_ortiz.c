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
 * contact (Akantu's rule); this law always implements the nonsmooth rule. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "shard/tsl.h"

typedef struct camacho_ortiz {
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
};

static int co_create(const shard_params *params, const shard_scales *scales, void **out_self, shard_msg *msg) {
  *out_self = NULL;
  double kcap;
  const int rc = shard_scaled_stiffness(params, "cap.alpha", "cap.stiffness", 0, scales, &kcap, msg);
  if (rc != SHARD_OK) return rc;
  camacho_ortiz *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->capped = !isnan(kcap);
  s->kcap = s->capped ? kcap : SHARD_INF;
  s->kmax = s->capped ? kcap : DBL_MAX;
  *out_self = s;
  return SHARD_OK;
}

static void co_destroy(void *self) { free(self); }

/* One loop, no indirect call, no allocation. The secant path is taken when
 * d > 0 and k(d) = T(d)/δ_max <= k̃ (uncapped: any finite k(d)); otherwise the
 * capped rule, which is also the rule of a fresh interface (d = 0). The
 * secant is computed as T(d)/δ_max on both branches, so loading and
 * unloading agree bit for bit at δ = δ_max. */
static void co_evaluate(const void *self, const shard_tsl_batch *b, int commit) {
  const double kmax = ((const camacho_ortiz *)self)->kmax;
  const int32_t n = b->n;
  for (int32_t i = 0; i < n; ++i) {
    const double sc = b->sigma_c[i], dc = b->delta_c[i], x = b->delta[i];
    const double hm = b->delta_max[i] > 0.0 ? b->delta_max[i] : 0.0;
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
      if (commit) b->delta_max[i] = x;
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
    b->traction[i] = t;
    b->stiffness[i] = k;
    b->reversible[i] = e;
  }
}

static double co_max_stiffness(const void *self) {
  const camacho_ortiz *s = self;
  return s->capped ? s->kcap : SHARD_INF;
}

static const shard_tsl_ops co_ops = {
    .create = co_create,
    .destroy = co_destroy,
    .evaluate = co_evaluate,
    .max_stiffness = co_max_stiffness,
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
           "sigma_c (1-d) with zero stiffness. Dissipation G_c d (secant) or G_c d^2 (capped), G_c at d = 1.",
};

SHARD_PLUGIN_SINGLE(co_desc)
