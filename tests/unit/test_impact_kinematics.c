/* tests: the kinematics an impact law receives (shard_impact_kinematics) and
 * when the host asks for e. tests/plugins/test_kinematics.c logs every
 * restitution call; thornton_impact is checked on the dropped ball, where a
 * rebound must keep exactly e(|v_n|) of the velocity v_n the law was given. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_runner.h"
#include "run_helpers.h"
#include "shard/contact_law.h"

#define BALL "cases/examples/thornton_ball"

static shard_registry *kin_registry(void) {
  static int loaded;
  shard_registry *reg = rh_registry();
  if (!loaded) {
    shard_msg msg = {{0}};
    if (shard_registry_load_dir(reg, SHARD_TEST_PLUGIN_DIR "/kinematics", &msg) != SHARD_OK) {
      fprintf(stderr, "kinematics plugins: %s\n", msg.text);
      exit(2);
    }
    loaded = 1;
  }
  return reg;
}

typedef struct kin_call {
  char name[32];
  int n;
  double v_n, gap;
  unsigned size;
} kin_call;

static int read_log(const char *path, kin_call *calls, int max) {
  FILE *f = fopen(path, "r");
  int n = 0;
  if (!f) return 0;
  while (n < max && fscanf(f, "%31s %d %lg %lg %u", calls[n].name, &calls[n].n, &calls[n].v_n, &calls[n].gap,
                           &calls[n].size) == 5)
    ++n;
  fclose(f);
  return n;
}

/* the history's rows (step order), columns v and gap */
static int read_history(const char *dir, double *v, double *gap, int max) {
  char *text = rh_read_file(dir, "history.csv", NULL);
  if (!text) return 0;
  const int cv = rh_csv_column(text, "v"), cg = rh_csv_column(text, "gap");
  int n = 0;
  for (char *line = strchr(text, '\n'); line && line[1] && n < max; line = strchr(line + 1, '\n')) {
    v[n] = rh_csv_field(line + 1, cv);
    gap[n] = rh_csv_field(line + 1, cg);
    ++n;
  }
  free(text);
  return cv >= 0 && cg >= 0 ? n : 0;
}

static void run_logged(const char *law, const char *integrator, const char *tag, kin_call *calls, int max, int *n_calls,
                       double *v, double *gap, int *n_rows) {
  kin_registry();
  char log_path[512], out[512], set_law[64], set_int[64];
  snprintf(log_path, sizeof log_path, "/tmp/shard_kin_%ld_%s.log", (long)getpid(), tag);
  remove(log_path);
  setenv("SHARD_TEST_KIN_LOG", log_path, 1);
  snprintf(set_law, sizeof set_law, "contact.impact.plugin=%s", law);
  snprintf(set_int, sizeof set_int, "integrator.plugin=%s", integrator);
  const char *sets[] = {set_law, "contact.impact.v_y=null", set_int, "time.end=0.02", "output.every=1"};
  const int code = rh_run(BALL, tag, sets, 5, out, sizeof out, NULL, 0);
  CU_ASSERT_EQUAL(code, 0);
  *n_calls = read_log(log_path, calls, max);
  *n_rows = read_history(out, v, gap, max);
  remove(log_path);
  unsetenv("SHARD_TEST_KIN_LOG");
}

/* A law without SHARD_CAP_VELOCITY_DEPENDENT is asked once, at set-up, for
 * every constraint the model can have, whatever the number of steps. */
static void test_impact_kinematics_constant_called_once(void) {
  kin_call calls[64];
  double v[64], gap[64];
  int nc = 0, nr = 0;
  run_logged("kin_constant", "nsn", "constant", calls, 64, &nc, v, gap, &nr);
  CU_CHECK_MSG(nc == 1, "kin_constant called %d times over 20 steps (expected once, at set-up)", nc);
  CU_ASSERT_EQUAL(nr, 21);
  if (nc >= 1) {
    CU_ASSERT_STRING_EQUAL(calls[0].name, "kin_constant");
    CU_ASSERT_EQUAL(calls[0].n, 1); /* the particle's floor: ncon_max = 1 */
    CU_ASSERT_EQUAL(calls[0].size, (unsigned)sizeof(shard_impact_kinematics));
    CU_NEAR(calls[0].v_n, 0.0, 0.0); /* dropped from rest */
    CU_NEAR(calls[0].gap, 1.0, 0.0); /* 1 m above the floor */
  }
}

/* A velocity-dependent law is asked at set-up and then before every step,
 * with v_n = H v and the gap of the state at the start of that step: the
 * history's previous row (the floor's row is H = [1], g = u). */
static void test_impact_kinematics_recorder_every_step(void) {
  const char *integrators[] = {"nsn", "moreau_jean", "cd_lagrange"};
  for (int j = 0; j < 3; ++j) {
    kin_call calls[64];
    double v[64], gap[64];
    int nc = 0, nr = 0;
    run_logged("kin_recorder", integrators[j], integrators[j], calls, 64, &nc, v, gap, &nr);
    CU_CHECK_MSG(nc == 21 && nr == 21, "%s: %d calls, %d history rows (expected 1 + 20 and 21)", integrators[j], nc,
                 nr);
    if (nc != 21 || nr != 21) continue;
    for (int k = 0; k < nc; ++k) {
      CU_ASSERT_STRING_EQUAL(calls[k].name, "kin_recorder");
      CU_ASSERT_EQUAL(calls[k].n, 1);
      /* call 0 is the set-up's, call k >= 1 precedes step k: the state of row k - 1 */
      const int row = k == 0 ? 0 : k - 1;
      CU_CHECK_MSG(fabs(calls[k].v_n - v[row]) <= 1e-12 * fabs(v[row]) + 1e-15 &&
                       fabs(calls[k].gap - gap[row]) <= 1e-12 * fabs(gap[row]),
                   "%s, call %d: v_n = %.17g, gap = %.17g; the state at step %d's start: v = %.17g, gap = %.17g",
                   integrators[j], k, calls[k].v_n, calls[k].gap, row, v[row], gap[row]);
    }
    /* falling: v_n < 0 and decreasing, the gap closing */
    CU_ASSERT(calls[20].v_n < calls[10].v_n && calls[10].v_n < 0.0);
    CU_ASSERT(calls[20].gap < calls[10].gap && calls[10].gap < 1.0);
  }
}

static double thornton(double v, double vy) {
  if (v <= vy) return 1.0;
  const double x = vy / v;
  return sqrt(6.0 * sqrt(3.0) / 5.0) * sqrt(1.0 - x * x / 6.0) *
         pow(x / (x + 2.0 * sqrt(6.0 / 5.0 - x * x / 5.0)), 0.25);
}

/* thornton_impact on the dropped ball (v_y = 1 m/s, first impact at about
 * 4.4 m/s): with NSN and Moreau-Jean the impact step solves
 * H v_{n+1} + e H v_n = 0, so each rebound velocity is -e(|v_n|) v_n with
 * v_n the velocity at the start of the impact step, to rounding (1e-12
 * relative, a few ulps of the LCP's arithmetic). A law called only at set-up
 * (v_n = 0, e = 1) would rebound with e = 1. */
static void test_impact_kinematics_thornton_rebound(void) {
  const char *integrators[] = {"nsn", "moreau_jean"};
  for (int j = 0; j < 2; ++j) {
    char out[512], set_int[64];
    snprintf(set_int, sizeof set_int, "integrator.plugin=%s", integrators[j]);
    const char *sets[] = {set_int, "output.every=1"};
    CU_ASSERT_EQUAL_FATAL(rh_run(BALL, integrators[j], sets, 2, out, sizeof out, NULL, 0), 0);
    char *text = rh_read_file(out, "history.csv", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    const int cv = rh_csv_column(text, "v"), ci = rh_csv_column(text, "impulse");
    double v_prev = NAN, e_seen[3] = {0};
    int bounces = 0;
    for (char *line = strchr(text, '\n'); line && line[1] && bounces < 3; line = strchr(line + 1, '\n')) {
      const double v = rh_csv_field(line + 1, cv), p = rh_csv_field(line + 1, ci);
      if (p > 0.0 && v_prev < 0.0 && v > 0.0) {
        const double e = thornton(-v_prev, 1.0);
        CU_CHECK_MSG(fabs(v + e * v_prev) <= 1e-12 * fabs(v_prev),
                     "%s, bounce %d: v_pre = %.17g, v_post = %.17g, -v_post/v_pre = %.17g, e(|v_pre|) = %.17g",
                     integrators[j], bounces, v_prev, v, -v / v_prev, e);
        e_seen[bounces++] = e;
      }
      v_prev = v;
    }
    free(text);
    CU_CHECK_MSG(bounces == 3, "%s: %d bounces in 3 s (expected 3)", integrators[j], bounces);
    /* slower impacts keep more: e rises from bounce to bounce, and stays < 1 */
    CU_ASSERT(e_seen[0] < e_seen[1] && e_seen[1] < e_seen[2] && e_seen[2] < 1.0);
    CU_NEAR(e_seen[0], 0.7946, 1e-3); /* e(4.42 m/s) */
  }
}

/* The ball reference assumes one constant e: refused with such a law. */
static void test_impact_kinematics_ball_reference_refused(void) {
  char out[512], msg[512];
  const char *sets[] = {"reference.type=ball"};
  const int code = rh_run(BALL, "ballref", sets, 1, out, sizeof out, msg, sizeof msg);
  CU_CHECK_MSG(code == 2 && strstr(msg, "reference.type 'ball' needs a constant restitution") &&
                   strstr(msg, "thornton_impact"),
               "exit %d: %s", code, msg);
}

static void cleanup(void) { rh_cleanup(); }

static const cu_test_def tests[] = {
    {"test_impact_kinematics_constant_called_once", test_impact_kinematics_constant_called_once},
    {"test_impact_kinematics_recorder_every_step", test_impact_kinematics_recorder_every_step},
    {"test_impact_kinematics_thornton_rebound", test_impact_kinematics_thornton_rebound},
    {"test_impact_kinematics_ball_reference_refused", test_impact_kinematics_ball_reference_refused},
    {NULL, NULL},
};

int main(int argc, char **argv) {
  const int rc = cu_main(argc, argv, "impact_kinematics", tests);
  cleanup();
  return rc;
}
