#include "strength.h"

#include <math.h>
#include <string.h>

#include "core/rng.h"
#include "shard/plugin.h"

/* index of the node nearest x in the increasing array X[0..n) */
static int32_t nearest(const double *X, int32_t n, double x) {
  int32_t lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    const int32_t mid = (lo + hi) / 2;
    if (X[mid] <= x) lo = mid;
    else hi = mid;
  }
  return (x - X[lo] <= X[hi] - x) ? lo : hi;
}

int shard_strength_draw(const shard_params *fr, const char *path, const double *X, int32_t nn, double *out,
                        shard_msg *msg) {
  const char *dist = shard_params_string(fr, "strength.distribution");
  const double nominal = shard_params_real(fr, "strength.nominal");
  const long long seed = shard_params_int(fr, "strength.seed");
  double lo = 0, hi = 0, modulus = 10, rho_d = 0, dmin = 0, dmax = 0;
  const int32_t nf = nn - 2;
  shard_rng rng;
  shard_rng_seed(&rng, (uint64_t)seed);
  if (!dist || strcmp(dist, "constant") == 0) {
    for (int32_t f = 0; f < nf; ++f) out[f] = nominal;
  } else if (strcmp(dist, "uniform") == 0) {
    if (!shard_params_has(fr, "strength.min") || !shard_params_has(fr, "strength.max"))
      return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: fracture.strength.distribution 'uniform' needs strength.min and strength.max", path);
    lo = shard_params_real(fr, "strength.min"), hi = shard_params_real(fr, "strength.max");
    if (!(lo > 0 && hi >= lo))
      return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: fracture.strength needs 0 < min <= max (got %g, %g)", path, lo, hi);
    for (int32_t f = 0; f < nf; ++f) out[f] = shard_rng_range(&rng, lo, hi);
  } else if (strcmp(dist, "weibull") == 0) {
    modulus = shard_params_real(fr, "strength.modulus");
    for (int32_t f = 0; f < nf; ++f) {
      const double u = shard_rng_uniform(&rng);
      out[f] = nominal * pow(-log1p(-u), 1.0 / modulus);
      if (!(out[f] > 0)) out[f] = nominal * 1e-12;
    }
  } else { /* defects: floor(rho_d L) defects at uniform positions, each on its nearest node */
    rho_d = shard_params_real(fr, "strength.defect_density");
    dmin = shard_params_real(fr, "strength.defect_min"), dmax = shard_params_real(fr, "strength.defect_max");
    if (dmin > dmax)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: fracture.strength.defect_min %g exceeds defect_max %g", path, dmin, dmax);
    const double L = X[nn - 1] - X[0];
    const long long nd = (long long)floor(rho_d * L);
    for (int32_t f = 0; f < nf; ++f) out[f] = nominal;
    for (long long k = 0; k < nd; ++k) {
      const double x = shard_rng_range(&rng, X[0], X[nn - 1]);
      const double factor = shard_rng_range(&rng, dmin, dmax);
      const int32_t j = nearest(X, nn, x);
      if (j <= 0 || j >= nn - 1) continue; /* end nodes carry no facet */
      if (nominal * factor < out[j - 1]) out[j - 1] = nominal * factor;
    }
  }
  return SHARD_OK;
}
