/* tests: the mass-spring chain (model.type chain), the model written against
 * the model interface alone: analytic free vibration, momentum, the energy
 * balance under the four integrators, a wall impact, bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_runner.h"
#include "run_helpers.h"

#define CHAIN "cases/examples/spring_chain"

/* v_first(t) of history.csv into t[], v[] (at most n); returns the rows */
static int first_velocity(const char *dir, double *t, double *v, int n) {
  char *h = rh_read_file(dir, "history.csv", NULL);
  if (!h) return 0;
  const int ct = rh_csv_column(h, "t"), cv = rh_csv_column(h, "v_first");
  int rows = 0;
  for (const char *line = strchr(h, '\n'); line && line[1] && rows < n; line = strchr(line + 1, '\n')) {
    t[rows] = rh_csv_field(line + 1, ct), v[rows] = rh_csv_field(line + 1, cv);
    ++rows;
  }
  free(h);
  return rows;
}

/* Two equal masses m = 1, k = 100, v = (1, -1), no wall: the centre of mass
 * rests and v_first = cos(w t), w = sqrt(2 k / m). NSN is the central
 * difference in the smooth regime: its error is second order in dt (the
 * discrete frequency 2/dt asin(w dt / 2)); the fit over four steps must say 2. */
static void test_chain_free_vibration(void) {
  const double w = sqrt(200.0);
  double dts[4], errs[4];
  for (int k = 0; k < 4; ++k) {
    char set_dt[64], out[512], tag[16];
    dts[k] = 0.02 * pow(0.5, k);
    snprintf(set_dt, sizeof set_dt, "time.dt=%.17g", dts[k]);
    snprintf(tag, sizeof tag, "free%d", k);
    const char *sets[] = {"model.masses=[1, 1]", "model.stiffness=100", "model.initial.velocity=[1, -1]",
                          "model.walls.left=null", "time.end=1", set_dt};
    CU_ASSERT_EQUAL_FATAL(rh_run(CHAIN, tag, sets, 6, out, sizeof out, NULL, 0), 0);
    static double t[2000], v[2000];
    const int n = first_velocity(out, t, v, 2000);
    CU_ASSERT_FATAL(n > 40);
    double e = 0;
    for (int i = 0; i < n; ++i) e = fmax(e, fabs(v[i] - cos(w * t[i])));
    errs[k] = e;
    CU_NEAR(rh_summary(out, "momentum"), 0.0, 1e-13); /* equal and opposite: zero to round-off */
  }
  const double slope = rh_fit_loglog(dts, errs, 4);
  CU_CHECK_MSG(fabs(slope - 2.0) < 0.1, "error slope %.3f (errors %.3g .. %.3g)", slope, errs[0], errs[3]);
  CU_CHECK_MSG(errs[3] < 1e-3, "error %.3g at dt = %g", errs[3], dts[3]);
}

/* The example under each integrator (--set integrator.plugin=): it runs, the
 * balance holds (NSN, CD-Lagrange and Moreau-Jean to round-off with e = 1 —
 * MJ books its theta-dissipation; penalty within the stable explicit step's
 * bound), and the chain has bounced off the wall: its momentum points right. */
static void test_chain_four_integrators(void) {
  const struct {
    const char *plugin;
    double drift;
  } cases[] = {{"integrator.plugin=nsn", 1e-12},
               {"integrator.plugin=moreau_jean", 1e-12},
               {"integrator.plugin=cd_lagrange", 1e-12},
               {"integrator.plugin=explicit_newmark", 0.05}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char out[512], tag[16];
    snprintf(tag, sizeof tag, "int%zu", i);
    const char *sets[] = {cases[i].plugin};
    CU_ASSERT_EQUAL_FATAL(rh_run(CHAIN, tag, sets, 1, out, sizeof out, NULL, 0), 0);
    const double drift = rh_summary(out, "energy.max_balance_drift");
    CU_CHECK_MSG(drift <= cases[i].drift, "%s: balance drift %.3g > %.3g", cases[i].plugin, drift, cases[i].drift);
    CU_CHECK_MSG(rh_summary(out, "momentum") > 0.0, "%s: momentum %.3g: no rebound", cases[i].plugin,
                 rh_summary(out, "momentum"));
    CU_ASSERT(rh_summary(out, "contact.steps_in_contact") >= 1);
  }
}

/* One mass, no spring, e = 0.5, against the wall: it leaves at half its speed
 * (the impact law through the chain's constraint row, exact in one step). */
static void test_chain_single_mass_restitution(void) {
  const char *plugins[] = {"integrator.plugin=nsn", "integrator.plugin=moreau_jean"};
  for (int i = 0; i < 2; ++i) {
    char out[512], tag[16];
    snprintf(tag, sizeof tag, "one%d", i);
    const char *sets[] = {"model.masses=[3]", "model.stiffness=null", "model.initial.velocity=-2",
                          "contact.impact.restitution=0.5", "time.dt=1e-3", "time.end=0.2", plugins[i]};
    CU_ASSERT_EQUAL_FATAL(rh_run(CHAIN, tag, sets, 7, out, sizeof out, NULL, 0), 0);
    CU_NEAR(rh_summary(out, "chain.v_first"), 1.0, 1e-12);
    CU_NEAR(rh_summary(out, "momentum"), 3.0, 1e-12);
  }
}

/* Bad input: a stiffness list that fits neither all springs nor one value,
 * a velocity list of the wrong length, a fracture section, a reference. */
static void test_chain_bad_input(void) {
  char out[512], msg[512];
  const char *s1[] = {"model.stiffness=[1, 2, 3]"};
  CU_ASSERT_EQUAL(rh_run(CHAIN, "bad1", s1, 1, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "model.stiffness has 3 values for 2 springs") != NULL, "%s", msg);
  const char *s2[] = {"model.initial.velocity=[1, 2]"};
  CU_ASSERT_EQUAL(rh_run(CHAIN, "bad2", s2, 1, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "model.initial.velocity has 2 values for 3 masses") != NULL, "%s", msg);
  const char *s3[] = {"reference.type=ball"};
  CU_ASSERT_EQUAL(rh_run(CHAIN, "bad3", s3, 1, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "no solution for the chain model") != NULL, "%s", msg);
}

static const cu_test_def tests[] = {
    {"test_chain_free_vibration", test_chain_free_vibration},
    {"test_chain_four_integrators", test_chain_four_integrators},
    {"test_chain_single_mass_restitution", test_chain_single_mass_restitution},
    {"test_chain_bad_input", test_chain_bad_input},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "chain", tests); }
