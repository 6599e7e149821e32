#include "model/strength.h"

#include <math.h>
#include <string.h>

#include "core/rng.h"

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

int shard_strength_draw(const shard_case *c, const shard_scope *scope, const double *X, int32_t nn, double *out,
                        shard_diag *diag, shard_msg *msg) {
  const char *path = shard_case_path(c);
  const char *dist = shard_case_string(c, "fracture.strength.distribution");
  double nominal = 0, lo = 0, hi = 0, modulus = 10, rho_d = 0, dmin = 0, dmax = 0;
  long long seed = 1;
  int st = SHARD_OK;
  if (shard_case_real(c, "fracture.strength.nominal", scope, &nominal, diag) != SHARD_OK) st = SHARD_ERR_INPUT;
  if (shard_case_int(c, "fracture.strength.seed", scope, &seed, diag) != SHARD_OK) st = SHARD_ERR_INPUT;
  if (st != SHARD_OK) return shard_msg_set(msg, st, "invalid fracture.strength");
  const int32_t nf = nn - 2;
  shard_rng rng;
  shard_rng_seed(&rng, (uint64_t)seed);
  if (!dist || strcmp(dist, "constant") == 0) {
    for (int32_t f = 0; f < nf; ++f) out[f] = nominal;
  } else if (strcmp(dist, "uniform") == 0) {
    if (!shard_case_has(c, "fracture.strength.min") || !shard_case_has(c, "fracture.strength.max"))
      return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: fracture.strength.distribution 'uniform' needs strength.min and strength.max", path);
    if (shard_case_real(c, "fracture.strength.min", scope, &lo, diag) != SHARD_OK ||
        shard_case_real(c, "fracture.strength.max", scope, &hi, diag) != SHARD_OK)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid fracture.strength");
    if (!(lo > 0 && hi >= lo))
      return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: fracture.strength needs 0 < min <= max (got %g, %g)", path, lo, hi);
    for (int32_t f = 0; f < nf; ++f) out[f] = shard_rng_range(&rng, lo, hi);
  } else if (strcmp(dist, "weibull") == 0) {
    if (shard_case_real(c, "fracture.strength.modulus", scope, &modulus, diag) != SHARD_OK)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid fracture.strength");
    for (int32_t f = 0; f < nf; ++f) {
      const double u = shard_rng_uniform(&rng);
      out[f] = nominal * pow(-log1p(-u), 1.0 / modulus);
      if (!(out[f] > 0)) out[f] = nominal * 1e-12;
    }
  } else { /* defects: floor(rho_d L) defects at uniform positions, each on its nearest node */
    if (shard_case_real(c, "fracture.strength.defect_density", scope, &rho_d, diag) != SHARD_OK ||
        shard_case_real(c, "fracture.strength.defect_min", scope, &dmin, diag) != SHARD_OK ||
        shard_case_real(c, "fracture.strength.defect_max", scope, &dmax, diag) != SHARD_OK)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid fracture.strength");
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
