/* shard — compressed sparse row matrices (0-based), shared by host and plugins. */
#ifndef SHARD_SPARSE_H
#define SHARD_SPARSE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct shard_csr {
  int32_t nrows, ncols;
  const int32_t *rowptr; /* nrows + 1 */
  const int32_t *colind; /* rowptr[nrows]; sorted within a row */
  const double *val;
} shard_csr;

/* y = A x */
static inline void shard_csr_matvec(const shard_csr *a, const double *x, double *y) {
  for (int32_t i = 0; i < a->nrows; ++i) {
    double s = 0.0;
    for (int32_t k = a->rowptr[i]; k < a->rowptr[i + 1]; ++k) s += a->val[k] * x[a->colind[k]];
    y[i] = s;
  }
}

/* y += alpha A^T x */
static inline void shard_csr_matvec_t_add(const shard_csr *a, double alpha, const double *x, double *y) {
  for (int32_t i = 0; i < a->nrows; ++i) {
    const double xi = alpha * x[i];
    if (xi == 0.0) continue;
    for (int32_t k = a->rowptr[i]; k < a->rowptr[i + 1]; ++k) y[a->colind[k]] += a->val[k] * xi;
  }
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
