/* tests: a tiny harness around CUnit's basic runner.
 *   - each suite file defines `const cu_suite_def *cu_suites(void)` style tables
 *     through CU_SUITE_TABLE and calls cu_main();
 *   - argv[1] (optional) filters tests by substring of their name;
 *   - the exit status is the number of failed assertions + failed tests, so
 *     ctest sees a failure (CUnit's basic runner alone returns 0).
 *   - CU_NEAR(a, b, tol) prints both values when it fails. */
#ifndef CU_RUNNER_H
#define CU_RUNNER_H

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct cu_test_def {
  const char *name;
  void (*fn)(void);
} cu_test_def;

#define CU_NEAR(actual, expected, tol)                                                                   \
  do {                                                                                                   \
    double cu_a_ = (double)(actual), cu_e_ = (double)(expected), cu_t_ = (double)(tol);                  \
    int cu_ok_ = fabs(cu_a_ - cu_e_) <= cu_t_;                                                            \
    char cu_buf_[512];                                                                                   \
    snprintf(cu_buf_, sizeof cu_buf_, "%s = %.17g, expected %s = %.17g within %.3g (diff %.3g)", #actual, \
             cu_a_, #expected, cu_e_, cu_t_, fabs(cu_a_ - cu_e_));                                        \
    if (!cu_ok_) fprintf(stderr, "  %s:%d: %s\n", __FILE__, __LINE__, cu_buf_);                           \
    CU_assertImplementation(cu_ok_, __LINE__, cu_buf_, __FILE__, "", CU_FALSE);                           \
  } while (0)

/* relative: |a - e| <= rtol * |e| */
#define CU_REL(actual, expected, rtol) CU_NEAR(actual, expected, (rtol)*fabs((double)(expected)))

#define CU_CHECK_MSG(cond, ...)                                                  \
  do {                                                                           \
    int cu_c_ = (cond) ? 1 : 0;                                                  \
    char cu_m_[1024];                                                            \
    snprintf(cu_m_, sizeof cu_m_, __VA_ARGS__);                                  \
    if (!cu_c_) fprintf(stderr, "  %s:%d: %s\n", __FILE__, __LINE__, cu_m_);     \
    CU_assertImplementation(cu_c_, __LINE__, cu_m_, __FILE__, "", CU_FALSE);     \
  } while (0)

static inline int cu_main(int argc, char **argv, const char *suite_name, const cu_test_def *tests) {
  const char *filter = argc > 1 ? argv[1] : NULL;
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite(suite_name, NULL, NULL);
  int added = 0;
  for (const cu_test_def *t = tests; t->name; ++t) {
    if (filter && !strstr(t->name, filter)) continue;
    CU_add_test(s, t->name, t->fn);
    ++added;
  }
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
  unsigned run = CU_get_number_of_tests_run();
  CU_cleanup_registry();
  if (added == 0) {
    fprintf(stderr, "%s: no test matches '%s'\n", suite_name, filter ? filter : "");
    return 1;
  }
  printf("%s: %u tests run, %u failures\n", suite_name, run, failed);
  return failed > 255 ? 255 : (int)failed;
}

#endif
