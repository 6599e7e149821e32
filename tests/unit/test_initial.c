/* tests: the initial state of a bar (model.initial.*, fracture.initial.*):
 * the momentum and kinetic energy of a split velocity field, with and
 * without a pre-broken interface at the split, against their closed forms. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_runner.h"
#include "run_helpers.h"

/* cases/paper/two_bar.yaml: L = 1e-3 m, 200 elements, rho = 3900 kg/m^3,
 * A = 1 m^2, v0 = 5 m/s */
#define TB_RHO 3900.0
#define TB_V0 5.0
#define TB_H (1e-3 / 200.0)

/* Momentum and kinetic energy of the first history row (t = 0). */
static void first_row(const char *dir, double *p, double *ke) {
  char path[1024], line[4096];
  snprintf(path, sizeof path, "%s/history.csv", dir);
  FILE *f = fopen(path, "r");
  *p = *ke = NAN;
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof line, f));
  const int cp = rh_csv_column(line, "momentum"), ck = rh_csv_column(line, "kinetic");
  CU_ASSERT_FATAL(cp >= 0 && ck >= 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof line, f));
  *p = rh_csv_field(line, cp);
  *ke = rh_csv_field(line, ck);
  fclose(f);
}

static void check_rel(const char *what, double got, double want, double tol) {
  const double rel = fabs(got - want) / fabs(want);
  printf("\n  %s: %.17g, exact %.17g (relative %.2g)", what, got, want, rel);
  CU_CHECK_MSG(rel <= tol, "%s = %.17g, exact %.17g: relative error %.3g > %.3g", what, got, want, rel, tol);
}

/* A two-bar case split at 0.3 L on a pre-broken interface: the left twin
 * moves with the left part, the right twin rests, so the momentum is
 * v0 rho A x_s and the kinetic energy v0² rho A x_s / 2, both to round-off. */
static void test_initial_split_on_interface(void) {
  const double xs = 60 * TB_H;
  const char *sets[] = {"model.initial.velocity_left_of=3e-4", "fracture.initial.position=3e-4", "time.end=1e-9"};
  char out[512];
  CU_ASSERT_EQUAL_FATAL(rh_run("cases/paper/two_bar", "split03", sets, 3, out, sizeof out, NULL, 0), 0);
  double p, ke;
  first_row(out, &p, &ke);
  check_rel("momentum", p, TB_V0 * TB_RHO * xs, 1e-14);
  check_rel("kinetic energy", ke, 0.5 * TB_V0 * TB_V0 * TB_RHO * xs, 1e-14);
  /* a split between two nodes selects the elements by their midpoints: the
   * same field as at the node below it */
  const char *sets2[] = {"model.initial.velocity_left_of=3.01e-4", "fracture.initial.position=3e-4", "time.end=1e-9"};
  CU_ASSERT_EQUAL_FATAL(rh_run("cases/paper/two_bar", "split0301", sets2, 3, out, sizeof out, NULL, 0), 0);
  first_row(out, &p, &ke);
  check_rel("momentum (split inside an element)", p, TB_V0 * TB_RHO * xs, 1e-14);
  check_rel("kinetic energy (split inside an element)", ke, 0.5 * TB_V0 * TB_V0 * TB_RHO * xs, 1e-14);
}

/* The same split on an intact node (the interface elsewhere): the node takes
 * the mass-weighted velocity v0/2 of its two elements, so the momentum is
 * still exact and the kinetic energy v0² rho A (x_s - h/4) / 2. */
static void test_initial_split_on_intact_node(void) {
  const double xs = 60 * TB_H;
  const char *sets[] = {"model.initial.velocity_left_of=3e-4", "fracture.initial.position=5e-4", "time.end=1e-9"};
  char out[512];
  CU_ASSERT_EQUAL_FATAL(rh_run("cases/paper/two_bar", "intact03", sets, 3, out, sizeof out, NULL, 0), 0);
  double p, ke;
  first_row(out, &p, &ke);
  check_rel("momentum", p, TB_V0 * TB_RHO * xs, 1e-14);
  check_rel("kinetic energy", ke, 0.5 * TB_V0 * TB_V0 * TB_RHO * (xs - 0.25 * TB_H), 1e-14);
}

static const cu_test_def tests[] = {
    {"test_initial_split_on_interface", test_initial_split_on_interface},
    {"test_initial_split_on_intact_node", test_initial_split_on_intact_node},
    {NULL, NULL},
};

int main(int argc, char **argv) {
  int r = cu_main(argc, argv, "initial", tests);
  rh_cleanup();
  return r;
}
