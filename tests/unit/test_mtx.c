/* tests: Matrix Market I/O (framework/src/io/mtx.c) — reading coordinate and
 * array files (general, symmetric), duplicates summed and columns sorted,
 * vectors, round trips through the atomic writers, and one malformed file
 * per error message (exact text, with the line number). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cu_runner.h"
#include "io/mtx.h"

typedef struct tmpdir {
  char path[256];
} tmpdir;

static void tmp_make(tmpdir *t) {
  snprintf(t->path, sizeof t->path, "/tmp/shard_test_mtx_XXXXXX");
  CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(t->path));
}
static void tmp_file(const tmpdir *t, const char *name, char *out, size_t len) {
  snprintf(out, len, "%s/%s", t->path, name);
}
static void tmp_remove(tmpdir *t) {
  DIR *d = opendir(t->path);
  if (!d) return;
  struct dirent *e;
  char p[512];
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(p, sizeof p, "%s/%s", t->path, e->d_name);
      unlink(p);
    }
  closedir(d);
  rmdir(t->path);
}
static int count_files(const tmpdir *t) {
  DIR *d = opendir(t->path);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) ++n;
  if (d) closedir(d);
  return n;
}
static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
}

static double entry(const shard_mtx_matrix *m, int32_t i, int32_t j) {
  for (int32_t k = m->rowptr[i]; k < m->rowptr[i + 1]; ++k)
    if (m->colind[k] == j) return m->val[k];
  return 0.0;
}

static void test_mtx_coordinate_general_sorted_and_summed(void) {
  tmpdir t;
  tmp_make(&t);
  char p[512];
  tmp_file(&t, "a.mtx", p, sizeof p);
  write_text(p,
             "%%MatrixMarket matrix coordinate real general\n"
             "% a comment\n"
             "\n"
             "3 4 6\n"
             "2 4 1.5\n"
             "1 3 -2\n"
             "2 1 4e-1\n"
             "1 1 1\n"
             "2 4 0.25\n" /* duplicate of (2, 4): summed */
             "3 2 7\n");
  shard_mtx_matrix m;
  shard_msg msg;
  CU_ASSERT_EQUAL_FATAL(shard_mtx_read_csr(p, &m, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(m.nrows, 3);
  CU_ASSERT_EQUAL(m.ncols, 4);
  CU_ASSERT_EQUAL(m.rowptr[3], 5);
  const int32_t rp[] = {0, 2, 4, 5}, ci[] = {0, 2, 0, 3, 1};
  const double v[] = {1, -2, 0.4, 1.75, 7};
  for (int i = 0; i < 4; ++i) CU_ASSERT_EQUAL(m.rowptr[i], rp[i]);
  for (int k = 0; k < 5; ++k) {
    CU_ASSERT_EQUAL(m.colind[k], ci[k]);
    CU_NEAR(m.val[k], v[k], 0.0);
  }
  double *d = NULL;
  shard_csr c = shard_mtx_view(&m);
  CU_ASSERT_EQUAL_FATAL(shard_mtx_csr_to_dense(&c, &d, &msg), SHARD_OK);
  CU_NEAR(d[1 * 4 + 3], 1.75, 0.0);
  CU_NEAR(d[2 * 4 + 1], 7.0, 0.0);
  CU_NEAR(d[0 * 4 + 1], 0.0, 0.0);
  free(d);
  shard_mtx_matrix_free(&m);
  shard_mtx_matrix_free(NULL);
  tmp_remove(&t);
}

static void test_mtx_symmetric_expanded(void) {
  tmpdir t;
  tmp_make(&t);
  char p[512];
  tmp_file(&t, "s.mtx", p, sizeof p);
  write_text(p, "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 -1\n3 2 -1\n3 3 2\n");
  shard_mtx_matrix m;
  shard_msg msg;
  CU_ASSERT_EQUAL_FATAL(shard_mtx_read_csr(p, &m, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(m.rowptr[3], 6);
  CU_NEAR(entry(&m, 0, 1), -1.0, 0.0);
  CU_NEAR(entry(&m, 1, 0), -1.0, 0.0);
  CU_NEAR(entry(&m, 1, 2), -1.0, 0.0);
  CU_NEAR(entry(&m, 2, 1), -1.0, 0.0);
  CU_NEAR(entry(&m, 1, 1), 0.0, 0.0);
  shard_mtx_matrix_free(&m);
  /* array symmetric: lower triangle column by column */
  write_text(p, "%%MatrixMarket matrix array real symmetric\n2 2\n4\n1\n3\n");
  CU_ASSERT_EQUAL_FATAL(shard_mtx_read_csr(p, &m, &msg), SHARD_OK);
  CU_NEAR(entry(&m, 0, 0), 4.0, 0.0);
  CU_NEAR(entry(&m, 0, 1), 1.0, 0.0);
  CU_NEAR(entry(&m, 1, 0), 1.0, 0.0);
  CU_NEAR(entry(&m, 1, 1), 3.0, 0.0);
  shard_mtx_matrix_free(&m);
  tmp_remove(&t);
}

static void test_mtx_array_column_major(void) {
  tmpdir t;
  tmp_make(&t);
  char p[512];
  tmp_file(&t, "a.mtx", p, sizeof p);
  write_text(p, "%%MatrixMarket matrix array real general\n2 3\n1\n4\n2\n0\n3\n6\n");
  shard_mtx_matrix m;
  shard_msg msg;
  CU_ASSERT_EQUAL_FATAL(shard_mtx_read_csr(p, &m, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(m.rowptr[2], 5); /* the exact zero is dropped */
  CU_NEAR(entry(&m, 0, 0), 1.0, 0.0);
  CU_NEAR(entry(&m, 1, 0), 4.0, 0.0);
  CU_NEAR(entry(&m, 0, 1), 2.0, 0.0);
  CU_NEAR(entry(&m, 0, 2), 3.0, 0.0);
  CU_NEAR(entry(&m, 1, 2), 6.0, 0.0);
  shard_mtx_matrix_free(&m);
  tmp_remove(&t);
}

/* integer field, CRLF line ends, upper-case keywords, blank lines */
static void test_mtx_integer_crlf(void) {
  tmpdir t;
  tmp_make(&t);
  char p[512];
  tmp_file(&t, "i.mtx", p, sizeof p);
  write_text(p, "%%MatrixMarket MATRIX Coordinate INTEGER General\r\n%c\r\n2 2 2\r\n\r\n1 2 -3\r\n2 2 4\r\n\r\n");
  shard_mtx_matrix m;
  shard_msg msg;
  CU_ASSERT_EQUAL_FATAL(shard_mtx_read_csr(p, &m, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(m.rowptr[2], 2);
  CU_NEAR(entry(&m, 0, 1), -3.0, 0.0);
  CU_NEAR(entry(&m, 1, 1), 4.0, 0.0);
  shard_mtx_matrix_free(&m);
  tmp_remove(&t);
}

static void test_mtx_vectors(void) {
  tmpdir t;
  tmp_make(&t);
  char p[512];
  tmp_file(&t, "v.mtx", p, sizeof p);
  shard_msg msg;
  int32_t n;
  double *x;
  write_text(p, "%%MatrixMarket matrix array real general\n% q\n3 1\n-1.0\n2.5\n0\n");
  CU_ASSERT_EQUAL_FATAL(shard_mtx_read_vector(p, &n, &x, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(n, 3);
  CU_NEAR(x[0], -1.0, 0.0);
  CU_NEAR(x[1], 2.5, 0.0);
  CU_NEAR(x[2], 0.0, 0.0);
  free(x);
  write_text(p, "%%MatrixMarket matrix coordinate real general\n1 4 2\n1 4 3\n1 2 -1\n");
  CU_ASSERT_EQUAL_FATAL(shard_mtx_read_vector(p, &n, &x, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(n, 4);
  CU_NEAR(x[1], -1.0, 0.0);
  CU_NEAR(x[3], 3.0, 0.0);
  CU_NEAR(x[0], 0.0, 0.0);
  free(x);
  write_text(p, "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  CU_ASSERT_EQUAL(shard_mtx_read_vector(p, &n, &x, &msg), SHARD_ERR_INPUT);
  CU_ASSERT_PTR_NULL(x);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg.text, "expected a vector (n x 1 or 1 x n), found a 2 x 2 matrix"));
  tmp_remove(&t);
}

static void test_mtx_round_trip_atomic(void) {
  tmpdir t;
  tmp_make(&t);
  char pm[512], pv[512];
  tmp_file(&t, "M.mtx", pm, sizeof pm);
  tmp_file(&t, "q.mtx", pv, sizeof pv);
  /* values that need all 17 digits */
  const int32_t rows[] = {0, 0, 1, 2, 2}, cols[] = {0, 2, 1, 0, 2};
  const double vals[] = {1.0 / 3.0, -2.0e-300, 12345.678901234567, 0.1, -7.0};
  shard_mtx_matrix a, b;
  shard_msg msg;
  CU_ASSERT_EQUAL_FATAL(shard_mtx_from_triplets(3, 3, 5, rows, cols, vals, &a, &msg), SHARD_OK);
  shard_csr ca = shard_mtx_view(&a);
  CU_ASSERT_EQUAL_FATAL(shard_mtx_write_csr(pm, &ca, &msg), SHARD_OK);
  const double q[] = {-1.0 / 7.0, 0.0, 1e300};
  CU_ASSERT_EQUAL_FATAL(shard_mtx_write_vector(pv, 3, q, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(count_files(&t), 2); /* no temporary left behind */
  CU_ASSERT_EQUAL_FATAL(shard_mtx_read_csr(pm, &b, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(b.rowptr[3], 5);
  for (int k = 0; k < 5; ++k) {
    CU_ASSERT_EQUAL(b.colind[k], a.colind[k]);
    CU_ASSERT(b.val[k] == a.val[k]); /* bit-exact */
  }
  int32_t n;
  double *x;
  CU_ASSERT_EQUAL_FATAL(shard_mtx_read_vector(pv, &n, &x, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(n, 3);
  for (int i = 0; i < 3; ++i) CU_ASSERT(x[i] == q[i]);
  free(x);
  /* overwrite in place */
  CU_ASSERT_EQUAL(shard_mtx_write_vector(pv, 2, q, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(shard_mtx_read_vector(pv, &n, &x, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(n, 2);
  free(x);
  /* unwritable directory: clean failure */
  CU_ASSERT_EQUAL(shard_mtx_write_vector("/nonexistent_dir/q.mtx", 3, q, &msg), SHARD_ERR_IO);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg.text, "/nonexistent_dir/q.mtx: cannot create a temporary file"));
  shard_mtx_matrix_free(&a);
  shard_mtx_matrix_free(&b);
  tmp_remove(&t);
}

static void test_mtx_triplets_checked(void) {
  const int32_t rows[] = {0, 3}, cols[] = {0, 0};
  const double vals[] = {1, 2};
  shard_mtx_matrix m;
  shard_msg msg;
  CU_ASSERT_EQUAL(shard_mtx_from_triplets(3, 3, 2, rows, cols, vals, &m, &msg), SHARD_ERR_INPUT);
  CU_ASSERT_STRING_EQUAL(msg.text, "triplet 1: index (3, 0) outside the 3 x 3 matrix");
  CU_ASSERT_PTR_NULL(m.rowptr);
}

/* one malformed file per message: contents -> exact message after "path:" */
typedef struct bad_case {
  const char *text;
  int status;
  const char *expect; /* after "<path>:" */
} bad_case;

static void test_mtx_malformed_messages(void) {
  static const bad_case cases[] = {
      {"", SHARD_ERR_INPUT, "1: empty file (expected a '%%MatrixMarket' banner)"},
      {"3 3 1\n1 1 1\n", SHARD_ERR_INPUT, "1: not a Matrix Market file (expected a '%%MatrixMarket' banner)"},
      {"%%MatrixMarket matrix coordinate real\n", SHARD_ERR_INPUT,
       "1: incomplete banner: expected '%%MatrixMarket matrix <format> <field> <symmetry>'"},
      {"%%MatrixMarket vector coordinate real general\n", SHARD_ERR_INPUT,
       "1: unsupported object 'vector' (only 'matrix')"},
      {"%%MatrixMarket matrix dense real general\n", SHARD_ERR_INPUT,
       "1: unknown format 'dense' (expected 'coordinate' or 'array')"},
      {"%%MatrixMarket matrix coordinate complex general\n", SHARD_ERR_INPUT,
       "1: unsupported field 'complex' (only 'real' and 'integer')"},
      {"%%MatrixMarket matrix coordinate pattern general\n", SHARD_ERR_INPUT,
       "1: unsupported field 'pattern' (only 'real' and 'integer')"},
      {"%%MatrixMarket matrix coordinate real skew-symmetric\n", SHARD_ERR_INPUT,
       "1: unsupported symmetry 'skew-symmetric' (only 'general' and 'symmetric')"},
      {"%%MatrixMarket matrix coordinate real general\n% only comments\n", SHARD_ERR_INPUT, "2: missing size line"},
      {"%%MatrixMarket matrix coordinate real general\n3 x 2\n", SHARD_ERR_INPUT,
       "2: malformed size line (expected 'rows cols entries')"},
      {"%%MatrixMarket matrix coordinate real general\n3 3\n", SHARD_ERR_INPUT,
       "2: malformed size line (expected 'rows cols entries')"},
      {"%%MatrixMarket matrix array real general\n3 1 7\n", SHARD_ERR_INPUT, "2: unexpected text after the size line"},
      {"%%MatrixMarket matrix coordinate real general\n-1 3 0\n", SHARD_ERR_INPUT,
       "2: sizes out of range (-1 x 3, 0 entries)"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 5\n", SHARD_ERR_INPUT,
       "2: 5 entries exceed the 2 x 2 matrix"},
      {"%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n", SHARD_ERR_INPUT,
       "2: a symmetric matrix must be square (2 x 3)"},
      /* (trailing blanks: enough bytes for the declared entries, so that the
       * end of file is found by reading) */
      {"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1       \n", SHARD_ERR_INPUT,
       "3: end of file after 1 of 2 entries"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2   \n", SHARD_ERR_INPUT,
       "4: malformed entry (expected 'row col value')"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1 9\n", SHARD_ERR_INPUT,
       "3: malformed entry (expected 'row col value')"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 abc\n", SHARD_ERR_INPUT,
       "3: malformed entry (expected 'row col value')"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 nan\n", SHARD_ERR_INPUT, "3: value is not finite"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n\n% c\n3 1 1\n", SHARD_ERR_INPUT,
       "6: index (3, 1) outside the 2 x 2 matrix"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1\n", SHARD_ERR_INPUT,
       "3: index (0, 1) outside the 2 x 2 matrix"},
      {"%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", SHARD_ERR_INPUT,
       "3: entry (1, 2) above the diagonal in a symmetric file (only the lower triangle is stored)"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n", SHARD_ERR_INPUT,
       "4: unexpected data after the last entry"},
      {"%%MatrixMarket matrix array real general\n2 1\n1  \n", SHARD_ERR_INPUT,
       "3: end of file before entry (2, 1) of the array"},
      {"%%MatrixMarket matrix array real general\n2 1\n1 2\n3\n", SHARD_ERR_INPUT,
       "3: malformed value (expected one number per line)"},
      {"%%MatrixMarket matrix array real general\n2 1\n1\ninf\n", SHARD_ERR_INPUT, "4: value is not finite"},
      /* declared sizes checked before anything of their size is allocated */
      {"%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1\n1 1 1\n", SHARD_ERR_INPUT,
       "2: a 2000000000 x 2000000000 matrix with 1 entry needs about 24 GB to read, more than the memory budget of "},
      {"%%MatrixMarket matrix coordinate real general\n3000 3000 1000000\n1 1 1\n", SHARD_ERR_INPUT,
       "2: the size line declares 1000000 entries (3000 x 3000) but only 6 bytes follow it (an entry takes at least 6)"},
      {"%%MatrixMarket matrix array real general\n40000 40000\n1\n2\n", SHARD_ERR_INPUT,
       "2: the size line declares 1600000000 entries (40000 x 40000) but only 4 bytes follow it (an entry takes at "
       "least 2)"},
      {"%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n", SHARD_ERR_INPUT,
       "2: the size line declares 6 entries (3 x 3) but only 10 bytes follow it (an entry takes at least 2)"},
  };
  tmpdir t;
  tmp_make(&t);
  char p[512];
  tmp_file(&t, "bad.mtx", p, sizeof p);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    write_text(p, cases[i].text);
    shard_mtx_matrix m;
    shard_msg msg = {{0}};
    int st = shard_mtx_read_csr(p, &m, &msg);
    char expect[1024];
    snprintf(expect, sizeof expect, "%s:%s", p, cases[i].expect);
    /* a message ending in a blank is a prefix (what follows depends on the machine) */
    size_t el = strlen(expect);
    int same = expect[el - 1] == ' ' ? strncmp(msg.text, expect, el) == 0 : strcmp(msg.text, expect) == 0;
    CU_CHECK_MSG(st == cases[i].status && same,
                 "case %zu: status %d, message\n    got:      %.400s\n    expected: %.400s", i, st, msg.text, expect);
    CU_ASSERT_PTR_NULL(m.rowptr);
    shard_mtx_matrix_free(&m);
  }
  shard_mtx_matrix m;
  shard_msg msg;
  CU_ASSERT_EQUAL(shard_mtx_read_csr("/nonexistent/file.mtx", &m, &msg), SHARD_ERR_IO);
  CU_ASSERT_STRING_EQUAL(msg.text, "/nonexistent/file.mtx: cannot open: No such file or directory");
  tmp_remove(&t);
}

/* every file of the external Siconos set reads, and M is square with q of its size */
static void test_mtx_siconos_set_reads(void) {
  const char *names[] = {"lcp_CPS_1", "lcp_mmc", "lcp_tobenna", "lcp_trivial_block", "lcp_exp_murty2"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    char pm[1024], pq[1024];
    snprintf(pm, sizeof pm, "%s/mtx/%s.M.mtx", SHARD_SICONOS_DIR, names[i]);
    snprintf(pq, sizeof pq, "%s/mtx/%s.q.mtx", SHARD_SICONOS_DIR, names[i]);
    shard_mtx_matrix m;
    shard_msg msg;
    int32_t n;
    double *q;
    CU_CHECK_MSG(shard_mtx_read_csr(pm, &m, &msg) == SHARD_OK, "%s", msg.text);
    CU_CHECK_MSG(shard_mtx_read_vector(pq, &n, &q, &msg) == SHARD_OK, "%s", msg.text);
    CU_ASSERT_EQUAL(m.nrows, n);
    CU_ASSERT_EQUAL(m.ncols, n);
    free(q);
    shard_mtx_matrix_free(&m);
  }
  /* lcp_mmc is dense 26 x 26: 676 stored entries, none zero */
  char pm[1024];
  snprintf(pm, sizeof pm, "%s/mtx/lcp_mmc.M.mtx", SHARD_SICONOS_DIR);
  shard_mtx_matrix m;
  shard_msg msg;
  CU_ASSERT_EQUAL_FATAL(shard_mtx_read_csr(pm, &m, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(m.rowptr[26], 676);
  CU_NEAR(m.val[0], 148886.56, 0.0);
  shard_mtx_matrix_free(&m);
}

static const cu_test_def tests[] = {
    {"test_mtx_coordinate_general_sorted_and_summed", test_mtx_coordinate_general_sorted_and_summed},
    {"test_mtx_symmetric_expanded", test_mtx_symmetric_expanded},
    {"test_mtx_array_column_major", test_mtx_array_column_major},
    {"test_mtx_integer_crlf", test_mtx_integer_crlf},
    {"test_mtx_vectors", test_mtx_vectors},
    {"test_mtx_round_trip_atomic", test_mtx_round_trip_atomic},
    {"test_mtx_triplets_checked", test_mtx_triplets_checked},
    {"test_mtx_malformed_messages", test_mtx_malformed_messages},
    {"test_mtx_siconos_set_reads", test_mtx_siconos_set_reads},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "mtx", tests); }
