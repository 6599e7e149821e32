/* host: Matrix Market I/O (https://math.nist.gov/MatrixMarket/formats.html).
 *
 * Read: `matrix coordinate real|integer general|symmetric` and
 * `matrix array real|integer general|symmetric`, into a malloc'ed CSR with
 * sorted columns and duplicates summed (symmetric files are expanded to both
 * triangles; exact zeros of array files are dropped). Malformed files fail
 * with SHARD_ERR_INPUT and "path:line: cause"; unreadable ones with
 * SHARD_ERR_IO. The sizes declared on the size line are checked before
 * anything is allocated: against the bytes left in the file (an entry takes
 * at least 6 bytes in a coordinate file, 2 in an array file) and against a
 * memory budget (half the physical memory, at most SHARD_MTX_MAX_BYTES).
 *
 * Write: coordinate real general for matrices, array real general (n x 1)
 * for vectors, values in %.17g (round-trip exact); the file is written to a
 * temporary file in the same directory and renamed into place, so a reader
 * never sees a half-written file. */
#ifndef SHARD_MTX_H
#define SHARD_MTX_H

#include <stdint.h>

#include "shard/sparse.h"
#include "shard/status.h"

/* Most memory one matrix read may take (bytes). */
#define SHARD_MTX_MAX_BYTES (8.0 * 1024 * 1024 * 1024)

/* A CSR matrix that owns its arrays (free with shard_mtx_matrix_free). */
typedef struct shard_mtx_matrix {
  int32_t nrows, ncols;
  int32_t *rowptr; /* nrows + 1 */
  int32_t *colind; /* rowptr[nrows], sorted and unique within a row */
  double *val;
} shard_mtx_matrix;

/* A read-only view usable wherever a shard_csr is expected. */
static inline shard_csr shard_mtx_view(const shard_mtx_matrix *m) {
  shard_csr v = {m->nrows, m->ncols, m->rowptr, m->colind, m->val};
  return v;
}

/* Read a matrix file (coordinate or array) into CSR. *out is zeroed on failure. */
int shard_mtx_read_csr(const char *path, shard_mtx_matrix *out, shard_msg *msg);
/* Read a vector: an n x 1 or 1 x n matrix, array or coordinate (absent
 * entries are 0). *out_x is malloc'ed (NULL and *out_n = 0 on failure). */
int shard_mtx_read_vector(const char *path, int32_t *out_n, double **out_x, shard_msg *msg);
/* Free the arrays of m (m itself may be on the stack); m may be NULL. */
void shard_mtx_matrix_free(shard_mtx_matrix *m);

/* Build a CSR from triplets (0-based), duplicates summed, columns sorted.
 * Indices are checked (SHARD_ERR_INPUT naming the first bad triplet). */
int shard_mtx_from_triplets(int32_t nrows, int32_t ncols, int64_t nnz, const int32_t *rows, const int32_t *cols,
                            const double *vals, shard_mtx_matrix *out, shard_msg *msg);

/* Row-major dense copy (nrows * ncols, malloc'ed) of a CSR. */
int shard_mtx_csr_to_dense(const shard_csr *a, double **out_dense, shard_msg *msg);

/* Write a CSR as coordinate real general (1-based), atomically. */
int shard_mtx_write_csr(const char *path, const shard_csr *a, shard_msg *msg);
/* Write x[0..n) as array real general n x 1, atomically. */
int shard_mtx_write_vector(const char *path, int32_t n, const double *x, shard_msg *msg);

#endif
