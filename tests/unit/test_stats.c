/* tests: sample statistics with Student-t intervals (stats.c) and the
 * fragment-size outputs of a run (fragments.csv, fragment_sizes.csv,
 * fragment_histogram.csv, summary fracture.fragment_size). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cu_runner.h"
#include "run_helpers.h"
#include "core/stats.h"

/* Quantiles t_{0.975,nu} from a numerical inversion of the t distribution
 * function (Simpson on the density, bisection), independent of the table
 * and of the Cornish-Fisher expansion in stats.c, plus the classical
 * textbook values. */
static void test_stats_student_t(void) {
  const struct {
    int64_t dof;
    double t, tol;
  } ref[] = {{1, 12.706204736172547, 1e-9},  {2, 4.302652729749208, 1e-9},   {3, 3.1824463052837104, 1e-9},
             {5, 2.570581835636167, 1e-9},   {10, 2.228138851986313, 1e-9},  {30, 2.0422724563012595, 1e-9},
             {31, 2.0395134463963194, 3e-8}, {60, 2.0002978220142715, 3e-8}, {120, 1.97993040508, 3e-8},
             {100000, 1.95998771, 1e-8} /* z + (z^3 + z) / (4 nu): later terms < 1e-9 */};
  for (size_t i = 0; i < sizeof ref / sizeof ref[0]; ++i) {
    const double t = shard_student_t975(ref[i].dof);
    CU_CHECK_MSG(fabs(t - ref[i].t) <= ref[i].tol, "t_0.975(%lld) = %.15g, expected %.15g", (long long)ref[i].dof, t,
                 ref[i].t);
  }
  CU_ASSERT(isnan(shard_student_t975(0)));
  /* decreasing towards the normal quantile */
  for (int64_t n = 1; n < 200; ++n) CU_ASSERT(shard_student_t975(n + 1) < shard_student_t975(n));
  CU_ASSERT(shard_student_t975(1000000) > 1.959963984540054);
}

static void test_stats_sample(void) {
  const double x[] = {2.0, 4.0, 4.0, 5.0};
  shard_sample_stats s = shard_sample_stats_of(x, 4);
  CU_ASSERT_EQUAL(s.n, 4);
  CU_ASSERT_DOUBLE_EQUAL(s.mean, 3.75, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(s.std, sqrt(4.75 / 3.0), 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(s.ci95, 3.182446305284263 * sqrt(4.75 / 3.0) / 2.0, 1e-14);
  CU_ASSERT_EQUAL(s.min, 2.0);
  CU_ASSERT_EQUAL(s.max, 5.0);
  shard_sample_stats one = shard_sample_stats_of(x, 1);
  CU_ASSERT_EQUAL(one.mean, 2.0);
  CU_ASSERT(isnan(one.std) && isnan(one.ci95));
  shard_sample_stats none = shard_sample_stats_of(x, 0);
  CU_ASSERT(isnan(none.mean) && isnan(none.min));
}

/* read column `col` (0-based) of a CSV with a header into v; returns rows */
static int read_col(const char *path, int col, double *v, int cap) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[1024];
  int n = 0;
  if (!fgets(line, sizeof line, f)) n = -1;
  while (n >= 0 && n < cap && fgets(line, sizeof line, f)) {
    char *p = line;
    for (int c = 0; c < col && p; ++c) p = strchr(p, ','), p = p ? p + 1 : NULL;
    if (!p) break;
    v[n++] = strtod(p, NULL);
  }
  fclose(f);
  return n;
}

/* fracture.fragment_size.<key> of dir/summary.yaml */
static double size_stat(const char *dir, const char *key) {
  char path[1024], line[256], k[64];
  snprintf(path, sizeof path, "%s/summary.yaml", dir);
  FILE *f = fopen(path, "r");
  if (!f) return NAN;
  double v = NAN, x;
  int in = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "  fragment_size:", 16) == 0) in = 1;
    else if (strncmp(line, "    ", 4) != 0) in = 0;
    else if (in && sscanf(line, " %63[^:]: %lf", k, &x) == 2 && strcmp(k, key) == 0) v = x;
  }
  fclose(f);
  return v;
}

/* A fragmenting run: the three fragment files and the summary agree with
 * each other and with the bar (sizes sum to L, counts to N_f, cumulative
 * distributions end at 1, the interval is t * std / sqrt(N_f)). */
static void test_stats_fragment_outputs(void) {
  char out[512], path[1024];
  const char *sets[] = {"fracture.strength.seed=2"};
  CU_ASSERT_EQUAL_FATAL(rh_run("tests/cases/fracture/ring_small", "sizes", sets, 1, out, sizeof out, NULL, 0), 0);
  const int nf = (int)rh_summary(out, "fracture.fragments");
  CU_ASSERT_FATAL(nf >= 5 && nf < 1000);
  double size[1000], sorted[1000], cumn[1000], cumm[1000], count[1000];
  snprintf(path, sizeof path, "%s/fragments.csv", out);
  CU_ASSERT_EQUAL_FATAL(read_col(path, 3, size, 1000), nf);
  snprintf(path, sizeof path, "%s/fragment_sizes.csv", out);
  CU_ASSERT_EQUAL_FATAL(read_col(path, 1, sorted, 1000), nf);
  CU_ASSERT_EQUAL(read_col(path, 3, cumn, 1000), nf);
  CU_ASSERT_EQUAL(read_col(path, 4, cumm, 1000), nf);
  double total = 0;
  for (int i = 0; i < nf; ++i) total += size[i];
  CU_ASSERT_DOUBLE_EQUAL(total, 4e-3, 1e-12);
  for (int i = 1; i < nf; ++i) CU_ASSERT(sorted[i] >= sorted[i - 1] && cumn[i] > cumn[i - 1] && cumm[i] > cumm[i - 1]);
  CU_ASSERT_DOUBLE_EQUAL(cumn[nf - 1], 1.0, 1e-14);
  CU_ASSERT_DOUBLE_EQUAL(cumm[nf - 1], 1.0, 1e-12);
  snprintf(path, sizeof path, "%s/fragment_histogram.csv", out);
  const int nb = read_col(path, 3, count, 1000);
  CU_ASSERT_EQUAL(nb, (int)ceil(sqrt((double)nf)));
  double sum = 0;
  for (int b = 0; b < nb; ++b) sum += count[b];
  CU_ASSERT_EQUAL(sum, nf);
  const shard_sample_stats st = shard_sample_stats_of(size, nf);
  CU_ASSERT_DOUBLE_EQUAL(size_stat(out, "mean"), 4e-3 / nf, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(size_stat(out, "std"), st.std, 1e-12 * st.std);
  CU_ASSERT_DOUBLE_EQUAL(size_stat(out, "ci95"), shard_student_t975(nf - 1) * st.std / sqrt(nf), 1e-12 * st.std);
  CU_ASSERT_DOUBLE_EQUAL(size_stat(out, "min"), sorted[0], 1e-14 * sorted[0]);
  CU_ASSERT_DOUBLE_EQUAL(size_stat(out, "max"), sorted[nf - 1], 1e-14 * sorted[nf - 1]);
  const double med = nf % 2 ? sorted[nf / 2] : 0.5 * (sorted[nf / 2 - 1] + sorted[nf / 2]);
  CU_ASSERT_DOUBLE_EQUAL(size_stat(out, "median"), med, 1e-15);
  printf("\n  %d fragments: mean size %.4g m +- %.2g (95%%), median %.4g, %d histogram bins", nf, st.mean,
         size_stat(out, "ci95"), med, nb);
}

static const cu_test_def tests[] = {
    {"test_stats_student_t", test_stats_student_t},
    {"test_stats_sample", test_stats_sample},
    {"test_stats_fragment_outputs", test_stats_fragment_outputs},
    {NULL, NULL},
};

int main(int argc, char **argv) {
  int r = cu_main(argc, argv, "stats", tests);
  rh_cleanup();
  return r;
}
