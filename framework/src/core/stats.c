/* host: sample statistics with Student-t confidence intervals (stats.h). */
#include "core/stats.h"

#include <math.h>

/* t_{0.975, nu} for nu = 1 .. 30 (checked against a numerical inversion of
 * the t distribution function to 1e-11) */
static const double t975[31] = {
    NAN,
    12.706204736174698, 4.302652729749464, 3.182446305284263, 2.776445105197793, 2.570581835636314,
    2.446911851144969,  2.364624251592785, 2.306004135204166, 2.262157162798205, 2.228138851986274,
    2.200985160082949,  2.178812829667228, 2.160368656461013, 2.144786687917804, 2.131449545559774,
    2.119905299221255,  2.109815577833317, 2.100922040241036, 2.093024054408307, 2.085963447265865,
    2.079613844727662,  2.073873067904015, 2.068657610419041, 2.063898561628021, 2.059538552753294,
    2.055529438642871,  2.051830516480283, 2.048407141795244, 2.045229642132703, 2.042272456301238,
};

double shard_student_t975(int64_t dof) {
  if (dof < 1) return NAN;
  if (dof <= 30) return t975[dof];
  /* Cornish-Fisher expansion of the t quantile about the normal one */
  const double z = 1.959963984540054, n = (double)dof, z2 = z * z;
  const double g1 = (z2 + 1.0) * z / 4.0;
  const double g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
  const double g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
  const double g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0;
  return z + (g1 + (g2 + (g3 + g4 / n) / n) / n) / n;
}

shard_sample_stats shard_sample_stats_of(const double *x, int64_t n) {
  shard_sample_stats s = {.n = n, .mean = NAN, .std = NAN, .ci95 = NAN, .min = NAN, .max = NAN};
  if (n < 1) return s;
  double sum = 0.0, lo = x[0], hi = x[0];
  for (int64_t i = 0; i < n; ++i) {
    sum += x[i];
    lo = fmin(lo, x[i]);
    hi = fmax(hi, x[i]);
  }
  s.mean = sum / (double)n, s.min = lo, s.max = hi;
  if (n < 2) return s;
  double ss = 0.0;
  for (int64_t i = 0; i < n; ++i) ss += (x[i] - s.mean) * (x[i] - s.mean);
  s.std = sqrt(ss / (double)(n - 1));
  s.ci95 = shard_student_t975(n - 1) * s.std / sqrt((double)n);
  return s;
}
