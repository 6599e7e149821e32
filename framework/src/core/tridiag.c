/* host: the largest eigenvalue of a chain (see tridiag.h). */
#include "core/tridiag.h"

#include <math.h>

/* Number of eigenvalues below x of the symmetric tridiagonal (diag d, off e)
 * by the Sturm sequence of its LDL^T pivots. */
static int64_t sturm_count(const double *d, const double *e, int32_t n, double x) {
  int64_t neg = 0;
  double q = d[0] - x;
  for (int32_t i = 0;;) {
    if (q == 0.0) q = -1e-300;
    neg += q < 0;
    if (++i == n) break;
    q = (d[i] - x) - e[i - 1] * e[i - 1] / q;
  }
  return neg;
}

double shard_chain_lambda_max(double *d, double *e, const double *m, int32_t n) {
  double hi = 0;
  for (int32_t i = 0; i < n; ++i) {
    d[i] /= m[i];
    if (i < n - 1) e[i] /= sqrt(m[i] * m[i + 1]);
  }
  for (int32_t i = 0; i < n; ++i) hi = fmax(hi, d[i] + (i > 0 ? fabs(e[i - 1]) : 0) + (i < n - 1 ? fabs(e[i]) : 0));
  double lo = 0;
  if (hi > 0) {
    for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; ++it) {
      const double mid = 0.5 * (lo + hi);
      if (sturm_count(d, e, n, mid) < n) lo = mid; /* some eigenvalue at or above mid */
      else hi = mid;
    }
  }
  return hi;
}
