/* tests: the contact operator W = H_R M^-1 (M - c K) M^-1 H_R^T over the
 * active rows (contact/contact.c) for constraint rows wider than the 1D
 * models' two entries — a 2D node pair has four — against the dense product,
 * and a row wider than the model declared refused with a message (not
 * written past the storage). */
#include <math.h>
#include <string.h>

#include "contact/contact.h"
#include "cu_runner.h"

#define NDOF 6
#define NCON 3

/* dense W of the rows `rows` (H dense NCON x NDOF, K dense NDOF x NDOF) */
static void dense_w(const double h[NCON][NDOF], const double *minv, const double k[NDOF][NDOF], double kcoef,
                    const int32_t *rows, int n, double *w) {
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      double s = 0.0;
      for (int i = 0; i < NDOF; ++i) {
        s += h[rows[a]][i] * minv[i] * h[rows[b]][i]; /* H M^-1 M M^-1 H^T = H M^-1 H^T */
        for (int j = 0; j < NDOF; ++j) s -= kcoef * h[rows[a]][i] * minv[i] * k[i][j] * minv[j] * h[rows[b]][j];
      }
      w[a * n + b] = s;
    }
}

/* CSR of a dense matrix (nonzeros only) into the arrays given */
static shard_csr csr_of(int nr, int nc, const double *a, int32_t *rowptr, int32_t *col, double *val) {
  int32_t nnz = 0;
  rowptr[0] = 0;
  for (int i = 0; i < nr; ++i) {
    for (int j = 0; j < nc; ++j)
      if (a[i * nc + j] != 0.0) col[nnz] = j, val[nnz++] = a[i * nc + j];
    rowptr[i + 1] = nnz;
  }
  return (shard_csr){.nrows = nr, .ncols = nc, .rowptr = rowptr, .colind = col, .val = val};
}

static void test_contact_operator_wide_rows(void) {
  /* two 2D node pairs (4 entries: -n of one copy, +n of the other) and a wall row (2 entries) */
  const double n0[2] = {0.6, 0.8}, n1[2] = {1.0, 0.0};
  double h[NCON][NDOF] = {{0}};
  h[0][0] = -n0[0], h[0][1] = -n0[1], h[0][2] = n0[0], h[0][3] = n0[1];
  h[1][2] = -n1[0], h[1][3] = -n1[1], h[1][4] = n1[0], h[1][5] = n1[1];
  h[2][4] = 0.0, h[2][5] = -1.0;
  const double minv[NDOF] = {0.5, 0.5, 0.25, 0.25, 2.0, 2.0};
  double k[NDOF][NDOF] = {{0}};
  for (int i = 0; i < NDOF; ++i) k[i][i] = 3.0 + i;
  for (int i = 0; i + 1 < NDOF; ++i) k[i][i + 1] = k[i + 1][i] = -1.0 - 0.1 * i;
  int32_t hp[NCON + 1], hc[NCON * NDOF], kp[NDOF + 1], kc[NDOF * NDOF];
  double hv[NCON * NDOF], kv[NDOF * NDOF];
  const shard_csr H = csr_of(NCON, NDOF, &h[0][0], hp, hc, hv), K = csr_of(NDOF, NDOF, &k[0][0], kp, kc, kv);
  shard_msg msg = {{0}};
  shard_contact *c = NULL;
  CU_ASSERT_EQUAL_FATAL(shard_contact_create(&c, NDOF, NCON, 4, NCON, &msg), SHARD_OK);
  const int32_t sets[][NCON] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 0}};
  const int nset[] = {3, 3, 2};
  const double kcoefs[] = {0.0, 0.01};
  for (int s = 0; s < 3; ++s)
    for (int q = 0; q < 2; ++q) {
      const shard_csr *w = NULL;
      CU_ASSERT_EQUAL_FATAL(shard_contact_operator(c, &H, minv, &K, sets[s], nset[s], kcoefs[q], &w, &msg), SHARD_OK);
      double want[NCON * NCON], got[NCON * NCON];
      dense_w((const double(*)[NDOF])h, minv, (const double(*)[NDOF])k, kcoefs[q], sets[s], nset[s], want);
      memset(got, 0, sizeof got);
      for (int i = 0; i < w->nrows; ++i)
        for (int32_t e = w->rowptr[i]; e < w->rowptr[i + 1]; ++e) got[i * nset[s] + w->colind[e]] = w->val[e];
      for (int i = 0; i < nset[s] * nset[s]; ++i)
        CU_CHECK_MSG(fabs(got[i] - want[i]) <= 1e-14 * (1.0 + fabs(want[i])), "set %d, c %g, entry %d: %.17g, want %.17g",
                     s, kcoefs[q], i, got[i], want[i]);
    }
  shard_contact_destroy(c);
}

static void test_contact_operator_row_too_wide(void) {
  double h[NCON][NDOF] = {{0}};
  for (int j = 0; j < 5; ++j) h[1][j] = 1.0 + j; /* 5 entries */
  h[0][0] = 1.0, h[0][1] = -1.0;
  h[2][5] = 1.0;
  const double minv[NDOF] = {1, 1, 1, 1, 1, 1};
  int32_t hp[NCON + 1], hc[NCON * NDOF];
  double hv[NCON * NDOF];
  const shard_csr H = csr_of(NCON, NDOF, &h[0][0], hp, hc, hv);
  shard_msg msg = {{0}};
  shard_contact *c = NULL;
  CU_ASSERT_EQUAL_FATAL(shard_contact_create(&c, NDOF, NCON, 4, NCON, &msg), SHARD_OK);
  const shard_csr *w = NULL;
  const int32_t rows[] = {0, 1, 2};
  CU_ASSERT_EQUAL(shard_contact_operator(c, &H, minv, NULL, rows, 3, 0.0, &w, &msg), SHARD_ERR_INTERNAL);
  CU_CHECK_MSG(strstr(msg.text, "row 1 has 5 entries, the model declared at most 4") != NULL, "%s", msg.text);
  /* the storage is intact: rows 0 and 2 still assemble, W = diag(2, 1) */
  const int32_t ok[] = {0, 2};
  CU_ASSERT_EQUAL_FATAL(shard_contact_operator(c, &H, minv, NULL, ok, 2, 0.0, &w, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(w->rowptr[2], 2);
  CU_ASSERT_DOUBLE_EQUAL(w->val[0], 2.0, 0.0);
  CU_ASSERT_DOUBLE_EQUAL(w->val[1], 1.0, 0.0);
  shard_contact_destroy(c);
}

static const cu_test_def tests[] = {
    {"test_contact_operator_wide_rows", test_contact_operator_wide_rows},
    {"test_contact_operator_row_too_wide", test_contact_operator_row_too_wide},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "contact_operator", tests); }
