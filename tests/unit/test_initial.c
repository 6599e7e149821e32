/* tests: the initial state of a bar (model.initial.*, fracture.initial.*):
 * the momentum and kinetic energy of a split velocity field, with and
 * without a pre-broken interface at the split, against their closed forms;
 * lists of initial interfaces (positions or nodes, damage each) and the
 * Newton's cradle they make possible. */
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

/* fragments.csv of a run: velocities and masses, their count returned */
static int read_fragments(const char *dir, double *v, double *mass, int max) {
  char path[1024], line[1024];
  snprintf(path, sizeof path, "%s/fragments.csv", dir);
  FILE *f = fopen(path, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof line, f));
  const int cv = rh_csv_column(line, "velocity"), cm = rh_csv_column(line, "mass");
  int n = 0;
  while (fgets(line, sizeof line, f))
    if (n < max) v[n] = rh_csv_field(line, cv), mass[n] = rh_csv_field(line, cm), ++n;
  fclose(f);
  return n;
}

/* Newton's cradle (cases/examples/newton_cradle.yaml): five equal segments of
 * L/5, the first at v0 = 5 m/s onto four at rest. In the continuum the
 * striker's pulse (length 2L/5) crosses the equal segments unchanged and the
 * last one leaves with v0, the others at rest. Checked: five fragments, the
 * momentum v0 rho A L/5 at t = 0 and at the end to round-off, the last
 * segment within 1.5% of v0 and the others below 1.5% of v0 (measured with
 * 500 elements: 0.74% and 1.3% with e = 1, 0.82% and 1.3% with e = 0, the
 * dispersion of the discrete pulse), and with 1000 elements the last
 * segment's deficit smaller (it is O(h), not a modelling error). */
static void test_initial_newton_cradle(void) {
  const double v0 = 5.0, p0 = v0 * TB_RHO * 1e-3; /* rho A L/5 = 3.9 kg */
  const char *variants[][2] = {{"e1", NULL}, {"e0", "contact.impact.restitution=0"}};
  double deficit500 = 0;
  for (int k = 0; k < 3; ++k) {
    const char *sets[2];
    int n_sets = 0;
    char tag[32];
    if (k < 2 && variants[k][1]) sets[n_sets++] = variants[k][1];
    if (k == 2) sets[n_sets++] = "model.elements=1000";
    snprintf(tag, sizeof tag, "%s", k < 2 ? variants[k][0] : "e1_h2");
    char out[512];
    CU_ASSERT_EQUAL_FATAL(rh_run("cases/examples/newton_cradle", tag, sets, n_sets, out, sizeof out, NULL, 0), 0);
    double p, ke, v[8], m[8];
    first_row(out, &p, &ke);
    check_rel("cradle momentum at t = 0", p, p0, 1e-14);
    const int nf = read_fragments(out, v, m, 8);
    CU_ASSERT_EQUAL_FATAL(nf, 5);
    double pend = 0, rest = 0;
    for (int i = 0; i < nf; ++i) pend += m[i] * v[i];
    for (int i = 0; i < 4; ++i) rest = fmax(rest, fabs(v[i]));
    check_rel("cradle momentum at the end", pend, p0, 1e-13);
    const double deficit = fabs(v[4] - v0) / v0;
    printf("\n  %s: last segment %.6g m/s (%.2f%% from v0), others below %.2f%% of v0", tag, v[4], 100 * deficit,
           100 * rest / v0);
    CU_CHECK_MSG(deficit <= 0.015, "%s: the last segment leaves at %.6g m/s, not v0 = 5 m/s within 1.5%%", tag, v[4]);
    CU_CHECK_MSG(rest <= 0.015 * v0, "%s: a segment other than the last moves at %.3g m/s", tag, rest);
    if (k == 0) deficit500 = deficit;
    if (k == 2)
      CU_CHECK_MSG(deficit < 0.75 * deficit500, "deficit %.3g with 1000 elements against %.3g with 500", deficit,
                   deficit500);
  }
}

/* The same four interfaces given as node indices: the same run, byte for
 * byte; and a damage list gives each interface its own damage. */
static void test_initial_interface_lists(void) {
  char by_pos[512], by_node[512], dmg[512];
  const char *short_run[] = {"time.end=2e-7"};
  CU_ASSERT_EQUAL_FATAL(rh_run("cases/examples/newton_cradle", "bypos", short_run, 1, by_pos, sizeof by_pos, NULL, 0), 0);
  const char *nodes[] = {"time.end=2e-7", "fracture.initial.position=null", "fracture.initial.node=[100, 200, 300, 400]"};
  CU_ASSERT_EQUAL_FATAL(rh_run("cases/examples/newton_cradle", "bynode", nodes, 3, by_node, sizeof by_node, NULL, 0), 0);
  const char *files[] = {"fragments.csv", "interfaces.csv", "history.csv"};
  for (int i = 0; i < 3; ++i) {
    char *a = rh_read_file(by_pos, files[i], NULL), *b = rh_read_file(by_node, files[i], NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_CHECK_MSG(strcmp(a, b) == 0, "%s differs between positions and node indices", files[i]);
    free(a), free(b);
  }
  /* positions and nodes together, one damage each (positions first) */
  const char *mixed[] = {"time.end=1e-10", "fracture.initial.position=[3e-3, 1e-3]", "fracture.initial.node=[400, 200]",
                         "fracture.initial.damage=[0.25, 1, 0.5, 0.75]"};
  CU_ASSERT_EQUAL_FATAL(rh_run("cases/examples/newton_cradle", "dmg", mixed, 4, dmg, sizeof dmg, NULL, 0), 0);
  char path[1024], line[1024];
  snprintf(path, sizeof path, "%s/interfaces.csv", dmg);
  FILE *f = fopen(path, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof line, f));
  const int cn = rh_csv_column(line, "node"), cd = rh_csv_column(line, "damage");
  /* interface order is the order listed: nodes 300, 100, 400, 200 */
  const double want_node[] = {300, 100, 400, 200}, want_d[] = {0.25, 1, 0.5, 0.75};
  int n = 0;
  while (fgets(line, sizeof line, f) && n < 4) {
    CU_ASSERT_EQUAL(rh_csv_field(line, cn), want_node[n]);
    CU_NEAR(rh_csv_field(line, cd), want_d[n], 1e-12);
    ++n;
  }
  fclose(f);
  CU_ASSERT_EQUAL(n, 4);
}

/* What the model refuses, with the case and the offending values named. */
static void test_initial_interface_list_errors(void) {
  struct {
    const char *sets[2];
    const char *want;
  } cases[] = {
      {{"fracture.initial.node=[100, 500]", NULL}, "fracture.initial.node 500 is not an internal node (1 .. 499)"},
      {{"fracture.initial.node=[100]", NULL},
       "interfaces 1 and 5 of initial.position / initial.node are both on node 100"},
      {{"fracture.initial.damage=[1, 1]", NULL}, "fracture.initial.damage has 2 values for 4 listed interfaces"},
      {{"fracture.initial.damage=[1, 1, 1, 1]", "fracture.initial.count=3"},
       "fracture.initial.damage is a list, but the 3 interfaces of initial.count need one value"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char out[512], msg[1024];
    const int n_sets = cases[i].sets[1] ? 2 : 1;
    const int rc = rh_run("cases/examples/newton_cradle", "bad", cases[i].sets, n_sets, out, sizeof out, msg, sizeof msg);
    CU_CHECK_MSG(rc == 2 && strstr(msg, cases[i].want) && strstr(msg, "newton_cradle.yaml"),
                 "%s: exit %d, message '%.400s' (expected '%s')", cases[i].sets[0], rc, msg, cases[i].want);
  }
}

/* A driven end released at a time needs that time: refused at set-up with
 * the key named (exit 2), for the model reads it when it is built. */
static void test_initial_release_time_needed(void) {
  char out[512], msg[512];
  const char *sets[] = {"model.loading.left_velocity=-1", "model.loading.release=time"};
  CU_ASSERT_EQUAL(rh_run("cases/paper/two_bar", "release_time", sets, 2, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "model.loading.release 'time' needs model.loading.release_time") != NULL, "%s", msg);
  const char *with_time[] = {"model.loading.left_velocity=-1", "model.loading.release=time",
                             "model.loading.release_time=1e-8", "time.end=5e-8"};
  CU_ASSERT_EQUAL_FATAL(rh_run("cases/paper/two_bar", "release_time_ok", with_time, 4, out, sizeof out, NULL, 0), 0);
  const double t = rh_summary(out, "loading.release_time");
  CU_CHECK_MSG(fabs(t - 1e-8) < 1e-9, "released at %g s, asked 1e-8 s", t);
}

/* loading.release = first_insertion: the driven ends are released at the end
 * of the step of the first insertion. The same bar unreleased and stopped one
 * step earlier has no interface yet; at the release there is one at least. */
static void test_initial_release_first_insertion(void) {
  char out[512], msg[512];
  const char *sets[] = {"model.loading.release=first_insertion", "time.end=2e-8"};
  CU_ASSERT_EQUAL_FATAL(rh_run("tests/cases/fracture/confined_small", "release_first", sets, 2, out, sizeof out, msg,
                               sizeof msg), 0);
  const double t = rh_summary(out, "loading.release_time"), dt = rh_summary(out, "time.dt");
  CU_CHECK_MSG(t > 0 && t < 2e-8, "released at %g s", t);
  CU_CHECK_MSG(rh_summary(out, "fracture.insertions") > 0, "no insertion by the end of the run");
  char end[64];
  snprintf(end, sizeof end, "time.end=%.17g", t - 1.5 * dt);
  const char *before[] = {"model.loading.release=never", end};
  CU_ASSERT_EQUAL_FATAL(rh_run("tests/cases/fracture/confined_small", "release_first_before", before, 2, out,
                               sizeof out, msg, sizeof msg), 0);
  CU_CHECK_MSG(rh_summary(out, "fracture.insertions") == 0, "%g insertions a step before the release",
               rh_summary(out, "fracture.insertions"));
  char at[64];
  snprintf(at, sizeof at, "time.end=%.17g", t - 0.5 * dt);
  const char *at_release[] = {"model.loading.release=never", at};
  CU_ASSERT_EQUAL_FATAL(rh_run("tests/cases/fracture/confined_small", "release_first_at", at_release, 2, out,
                               sizeof out, msg, sizeof msg), 0);
  CU_CHECK_MSG(rh_summary(out, "fracture.insertions") > 0, "no insertion in the release step");
}

/* reference.type names a reference of the model plugin: one it does not
 * have, or one of another model, is refused at set-up (exit 2) by the model,
 * the case file named. */
static void test_initial_reference_of_the_model(void) {
  char out[512], msg[512];
  const char *unknown[] = {"reference.type=bar_imp"};
  CU_ASSERT_EQUAL(rh_run("cases/paper/ball_e1", "ref_unknown", unknown, 1, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "ball_e1.yaml: reference.type 'bar_imp' is not a reference of model 'particle' (auto, "
                           "none, ball)") != NULL,
               "%s", msg);
  const char *other[] = {"reference.type=bar_impact"};
  CU_ASSERT_EQUAL(rh_run("cases/paper/ball_e1", "ref_other", other, 1, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "reference.type 'bar_impact' needs a bar with exactly one wall") != NULL, "%s", msg);
  const char *chain[] = {"reference.type=ball"};
  CU_ASSERT_EQUAL(rh_run("cases/examples/spring_chain", "ref_chain", chain, 1, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "reference.type 'ball' has no solution for the chain model") != NULL, "%s", msg);
  const char *none[] = {"reference.type=none", "time.end=0.01"};
  CU_ASSERT_EQUAL(rh_run("cases/paper/ball_e1", "ref_none", none, 2, out, sizeof out, msg, sizeof msg), 0);
}

static const cu_test_def tests[] = {
    {"test_initial_reference_of_the_model", test_initial_reference_of_the_model},
    {"test_initial_release_time_needed", test_initial_release_time_needed},
    {"test_initial_release_first_insertion", test_initial_release_first_insertion},
    {"test_initial_split_on_interface", test_initial_split_on_interface},
    {"test_initial_split_on_intact_node", test_initial_split_on_intact_node},
    {"test_initial_newton_cradle", test_initial_newton_cradle},
    {"test_initial_interface_lists", test_initial_interface_lists},
    {"test_initial_interface_list_errors", test_initial_interface_list_errors},
    {NULL, NULL},
};

int main(int argc, char **argv) {
  int r = cu_main(argc, argv, "initial", tests);
  rh_cleanup();
  return r;
}
