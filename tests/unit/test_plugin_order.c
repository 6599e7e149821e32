/* tests: the host destroys plugin instances in the reverse order of their
 * creation. The plugins of tests/plugins/test_order.c (an integrator, an
 * impact law, a primary and a fallback LCP solver, a TSL) append
 * "create NAME" / "destroy NAME" to $SHARD_TEST_ORDER_LOG; `shard validate`'s
 * set-up (shard_run_check) creates and destroys all five. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case/case.h"
#include "cu_runner.h"
#include "core/diag.h"
#include "loader/registry.h"
#include "run/run.h"

static const char *order_case =
    "name: order\n"
    "model:\n"
    "  type: bar\n"
    "  length: 4e-3\n"
    "  origin: -2e-3\n"
    "  young: 370e9\n"
    "  density: 3900\n"
    "  elements: 40\n"
    "  initial:\n"
    "    strain_rate: 2.559e4\n"
    "  loading:\n"
    "    left_velocity: -0.5 * initial_strain_rate * length\n"
    "    right_velocity: 0.5 * initial_strain_rate * length\n"
    "fracture:\n"
    "  plugin: order_tsl\n"
    "  g_c: 50\n"
    "  strength: {distribution: uniform, nominal: 262e6, min: 0.9 * sigma_c, max: 1.1 * sigma_c, seed: 1}\n"
    "integrator: {plugin: order_integrator}\n"
    "contact:\n"
    "  impact: {plugin: order_impact}\n"
    "lcp: {plugin: order_lcp, on_failure: fallback, fallback: order_lcp_fallback}\n"
    "time: {end: 10 * t0, dt: 0.5 * dt_c}\n";

#define MAX_LINES 32

static int read_lines(const char *path, char lines[][64], int max) {
  FILE *f = fopen(path, "r");
  int n = 0;
  if (!f) return -1;
  while (n < max && fgets(lines[n], 64, f)) {
    lines[n][strcspn(lines[n], "\n")] = '\0';
    ++n;
  }
  fclose(f);
  return n;
}

static void test_plugin_order_reverse_destroy(void) {
  char dir[] = "/tmp/shard_order_XXXXXX";
  CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
  char case_path[256], log_path[256];
  snprintf(case_path, sizeof case_path, "%s/order.yaml", dir);
  snprintf(log_path, sizeof log_path, "%s/order.log", dir);
  FILE *f = fopen(case_path, "w");
  CU_ASSERT_FATAL(f != NULL);
  fputs(order_case, f);
  fclose(f);
  setenv("SHARD_TEST_ORDER_LOG", log_path, 1);

  shard_msg msg = {{0}};
  shard_registry *reg = NULL;
  CU_ASSERT_FATAL(shard_registry_create(&reg, &msg) == SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(shard_registry_load_dir(reg, SHARD_TEST_PLUGIN_DIR "/order", &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(shard_registry_load_file(reg, SHARD_PLUGIN_DIR "/bar.so", &msg), SHARD_OK); /* the model */
  shard_diag *diag = shard_diag_create();
  shard_case *c = NULL;
  const int lst = shard_case_load(case_path, NULL, 0, reg, &c, diag);
  int code = -1;
  if (lst == SHARD_OK) code = shard_run_check(c, reg, diag, &msg);
  if (shard_diag_count(diag)) shard_diag_print(diag, stderr);
  CU_CHECK_MSG(lst == SHARD_OK && code == 0, "load %d, check exit %d: %.300s", lst, code, msg.text);

  char lines[MAX_LINES][64];
  const int n = read_lines(log_path, lines, MAX_LINES);
  CU_CHECK_MSG(n == 10, "%d lines in %.200s, expected 5 creates and 5 destroys", n, log_path);
  for (int i = 0; i < n; ++i) printf("    %s\n", lines[i]);
  if (n == 10) {
    /* all five created before the first destroy, every kind present */
    const char *kinds[] = {"order_integrator", "order_impact", "order_lcp", "order_lcp_fallback", "order_tsl"};
    for (int k = 0; k < 5; ++k) {
      int seen = 0;
      for (int i = 0; i < 5; ++i) seen += strcmp(lines[i] + 7, kinds[k]) == 0;
      CU_CHECK_MSG(seen == 1, "'create %.60s' %d times among the first five lines", kinds[k], seen);
    }
    for (int i = 0; i < 5; ++i) {
      CU_CHECK_MSG(strncmp(lines[i], "create ", 7) == 0, "line %d: '%.60s', expected a create", i + 1, lines[i]);
      CU_CHECK_MSG(strncmp(lines[5 + i], "destroy ", 8) == 0 && strcmp(lines[5 + i] + 8, lines[4 - i] + 7) == 0,
                   "destroy #%d is '%.60s'; reverse order of creation wants 'destroy %.60s'", i + 1, lines[5 + i],
                   lines[4 - i] + 7);
    }
  }
  shard_case_destroy(c);
  shard_diag_destroy(diag);
  shard_registry_destroy(reg);
  unsetenv("SHARD_TEST_ORDER_LOG");
  unlink(log_path);
  unlink(case_path);
  rmdir(dir);
}

static const cu_test_def tests[] = {
    {"test_plugin_order_reverse_destroy", test_plugin_order_reverse_destroy},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "plugin_order", tests); }
