/* tests: the named scales plugins are created with (shard/plugin.h): what
 * the particle and the bar answer through shard_model_named_scales, NAN for
 * what they lack or an unknown name, and shard_scaled_stiffness on top. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case/case.h"
#include "cu_runner.h"
#include "core/diag.h"
#include "bar_build.h"
#include "loader/registry.h"
#include "shard/plugin.h"

static const char *const NAMES[7] = {"young", "density", "area", "h_mean", "h_min", "mass_min", "length"};

static void test_scales_bar(void) {
  shard_model *m = shard_test_bar_from_text("model: {type: bar, length: 2.0, area: 1e-4, young: 2e11, density: 8000, elements: 10,\n"
                               "        walls: {right: {gap: 0}}, initial: {velocity: 1}}\n"
                               "integrator: {plugin: nsn}\n"
                               "contact: {impact: {plugin: newton_impact, restitution: 0}}\n"
                               "lcp: {plugin: lemke}\n"
                               "time: {end: 1e-4, dt: 1e-6}\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  const shard_scales s = shard_model_named_scales(m);
  CU_ASSERT_EQUAL(s.struct_size, sizeof(shard_scales));
  const double want[7] = {2e11, 8000, 1e-4, 0.2, 0.2, 8000 * 1e-4 * 0.2 / 2, 2.0};
  for (int i = 0; i < 7; ++i) {
    CU_CHECK_MSG(fabs(shard_scale(&s, NAMES[i]) - want[i]) <= 1e-12 * want[i], "%s = %.17g, expected %.17g", NAMES[i],
                 shard_scale(&s, NAMES[i]), want[i]);
  }
  CU_ASSERT(isnan(shard_scale(&s, "radius"))); /* not a scale of this model */
  CU_ASSERT(isnan(shard_scale(&s, "")));
  /* the relative stiffness alpha E / h_mean of the penalty and the cap */
  static const shard_param_spec specs[2] = {
      {"alpha", SHARD_PARAM_REAL, NULL, 0.0, SHARD_INF, "1", SHARD_PARAM_MIN_EXCLUSIVE, NULL, "relative"},
      {"stiffness", SHARD_PARAM_REAL, NULL, 0.0, SHARD_INF, "Pa/m", SHARD_PARAM_MIN_EXCLUSIVE, NULL, "absolute"}};
  shard_param_value vals[2] = {{.set = 1, .real = 10.0}, {.set = 0}};
  const shard_params p = {specs, 2, vals};
  double k = 0.0;
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL(shard_scaled_stiffness(&p, "alpha", "stiffness", 1, &s, &k, &msg), SHARD_OK);
  CU_NEAR(k, 10.0 * 2e11 / 0.2, 0.0);
  shard_model_destroy(m);
}

static void test_scales_particle(void) {
  shard_model *m = shard_test_bar_from_text("model: {type: particle, mass: 2.5, position: 1}\n"
                               "integrator: {plugin: nsn}\n"
                               "contact: {impact: {plugin: newton_impact, restitution: 0}}\n"
                               "lcp: {plugin: lemke}\n"
                               "time: {end: 1e-2, dt: 1e-3}\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  const shard_scales s = shard_model_named_scales(m);
  for (int i = 0; i < 7; ++i) {
    const double x = shard_scale(&s, NAMES[i]);
    if (strcmp(NAMES[i], "mass_min") == 0)
      CU_NEAR(x, 2.5, 0.0);
    else
      CU_CHECK_MSG(isnan(x), "a particle answers %s = %g (it has no such scale)", NAMES[i], x);
  }
  /* relative stiffness on a model without E and h_mean: refused, naming what to give */
  static const shard_param_spec specs[2] = {
      {"alpha", SHARD_PARAM_REAL, NULL, 0.0, SHARD_INF, "1", SHARD_PARAM_MIN_EXCLUSIVE, NULL, "relative"},
      {"stiffness", SHARD_PARAM_REAL, NULL, 0.0, SHARD_INF, "Pa/m", SHARD_PARAM_MIN_EXCLUSIVE, NULL, "absolute"}};
  shard_param_value vals[2] = {{.set = 1, .real = 10.0}, {.set = 0}};
  const shard_params p = {specs, 2, vals};
  double k = 0.0;
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL(shard_scaled_stiffness(&p, "alpha", "stiffness", 1, &s, &k, &msg), SHARD_ERR_INPUT);
  CU_ASSERT(strstr(msg.text, "give 'stiffness'") != NULL);
  shard_model_destroy(m);
}

/* shard_scale on no scales, a short struct or no getter: NAN, never a call */
static int never(const void *ctx, const char *name, double *out) {
  *(int *)(void *)ctx += 1;
  *out = 1.0;
  return 1;
}
static void test_scales_degenerate(void) {
  int calls = 0;
  CU_ASSERT(isnan(shard_scale(NULL, "young")));
  shard_scales s = {.struct_size = sizeof s - 1, .ctx = &calls, .get = never};
  CU_ASSERT(isnan(shard_scale(&s, "young")));
  s.struct_size = sizeof s, s.get = NULL;
  CU_ASSERT(isnan(shard_scale(&s, "young")));
  CU_ASSERT_EQUAL(calls, 0);
  s.get = never;
  CU_NEAR(shard_scale(&s, "young"), 1.0, 0.0);
  CU_ASSERT_EQUAL(calls, 1);
}

static const cu_test_def tests[] = {
    {"test_scales_bar", test_scales_bar},
    {"test_scales_particle", test_scales_particle},
    {"test_scales_degenerate", test_scales_degenerate},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "scales", tests); }
