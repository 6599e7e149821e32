/* host: sample statistics with Student-t confidence intervals, for fragment
 * sizes of a run and for campaign statistics across seeds. */
#ifndef SHARD_STATS_H
#define SHARD_STATS_H

#include <stdint.h>

/* t_{0.975, dof}: the two-sided 95% quantile of Student's t (dof >= 1;
 * NAN otherwise). Exact to 1e-12 for dof <= 30 (table), Cornish-Fisher
 * expansion to 1/dof^4 beyond (error below 3e-8). */
double shard_student_t975(int64_t dof);

typedef struct shard_sample_stats {
  int64_t n;
  double mean, std; /* std: sample standard deviation (n - 1), NAN when n < 2 */
  double ci95;      /* half-width t_{0.975,n-1} std / sqrt(n), NAN when n < 2 */
  double min, max;  /* NAN when n < 1 */
} shard_sample_stats;

/* Statistics of x[0..n): two passes, no allocation. */
shard_sample_stats shard_sample_stats_of(const double *x, int64_t n);

#endif
