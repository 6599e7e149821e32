/* expressions of case files: values, precedence, functions, names, and every
 * error with its column. */
#include <math.h>
#include <string.h>

#include "cu_runner.h"
#include "core/expr.h"

/* names: x = 2, dt_c = 1e-3; "later" is known but deferred; "broken" fails */
static int lookup(void *ctx, const char *name, double *out, shard_expr_error *err) {
  (void)ctx;
  if (strcmp(name, "x") == 0) return (*out = 2.0), 1;
  if (strcmp(name, "dt_c") == 0) return (*out = 1e-3), 1;
  if (strcmp(name, "later") == 0) return SHARD_EXPR_DEFERRED;
  if (strcmp(name, "broken") == 0) {
    snprintf(err->text, sizeof err->text, "broken has no value");
    return SHARD_ERR_INPUT;
  }
  return 0;
}

static double value(const char *text) {
  shard_expr *e = NULL;
  shard_expr_error err = {0, ""};
  double v = NAN;
  int st = shard_expr_parse(text, &e, &err);
  CU_CHECK_MSG(st == SHARD_OK, "parse '%s': %s (col %d)", text, err.text, err.col);
  if (st != SHARD_OK) return NAN;
  st = shard_expr_eval(e, lookup, NULL, &v, &err);
  CU_CHECK_MSG(st == SHARD_OK, "eval '%s': %s (col %d)", text, err.text, err.col);
  shard_expr_destroy(e);
  return v;
}

/* The error of parsing (or else evaluating) text: message and column. */
static void expect_error(const char *text, int col, const char *msg) {
  shard_expr *e = NULL;
  shard_expr_error err = {0, ""};
  double v = 0;
  int st = shard_expr_parse(text, &e, &err);
  if (st == SHARD_OK) {
    st = shard_expr_eval(e, lookup, NULL, &v, &err);
    shard_expr_destroy(e);
  }
  CU_CHECK_MSG(st == SHARD_ERR_INPUT, "'%s' should fail, status %d", text, st);
  CU_CHECK_MSG(strcmp(err.text, msg) == 0, "'%s': message '%s', expected '%s'", text, err.text, msg);
  CU_CHECK_MSG(err.col == col, "'%s': column %d, expected %d", text, err.col, col);
}

static void test_expr_numbers(void) {
  CU_NEAR(value("2"), 2, 0);
  CU_NEAR(value("0.5"), 0.5, 0);
  CU_NEAR(value(".5"), 0.5, 0);
  CU_NEAR(value("1e-3"), 1e-3, 0);
  CU_NEAR(value("2.54E-4"), 2.54e-4, 0);
  CU_NEAR(value("1e+2"), 100, 0);
  CU_NEAR(value("  7  "), 7, 0);
}

static void test_expr_precedence(void) {
  CU_NEAR(value("1 + 2 * 3"), 7, 0);
  CU_NEAR(value("(1 + 2) * 3"), 9, 0);
  CU_NEAR(value("10 - 4 - 3"), 3, 0);
  CU_NEAR(value("8 / 4 / 2"), 1, 0);
  CU_NEAR(value("2 ^ 3 ^ 2"), 512, 0); /* right-associative */
  CU_NEAR(value("-2 ^ 2"), -4, 0);     /* unary minus binds looser than ^ */
  CU_NEAR(value("2 ^ -1"), 0.5, 0);
  CU_NEAR(value("--3"), 3, 0);
  CU_NEAR(value("+3 - -3"), 6, 0);
  CU_NEAR(value("2 * 0.254 / 5000"), 2 * 0.254 / 5000, 1e-18);
}

static void test_expr_functions(void) {
  CU_NEAR(value("sqrt(16)"), 4, 0);
  CU_NEAR(value("exp(0)"), 1, 0);
  CU_NEAR(value("log(exp(2))"), 2, 1e-15);
  CU_NEAR(value("log10(1000)"), 3, 1e-15);
  CU_NEAR(value("sin(0) + cos(0)"), 1, 0);
  CU_NEAR(value("abs(-3)"), 3, 0);
  CU_NEAR(value("min(3, -1)"), -1, 0);
  CU_NEAR(value("max(3, -1)"), 3, 0);
  CU_NEAR(value("pow(2, 10)"), 1024, 0);
  CU_NEAR(value("round(2.5)"), 3, 0);
  CU_NEAR(value("round(-2.5)"), -3, 0);
  CU_NEAR(value("floor(-1.5)"), -2, 0);
  CU_NEAR(value("ceil(1.2)"), 2, 0);
  CU_NEAR(value("round(1e6 * 0.254)"), 254000, 0);
}

static void test_expr_names(void) {
  CU_NEAR(value("0.7 * dt_c"), 7e-4, 1e-18);
  CU_NEAR(value("x ^ x + x"), 6, 0);
  shard_expr *e = NULL;
  shard_expr_error err;
  CU_ASSERT_EQUAL(shard_expr_parse("x * (dt_c + x)", &e, &err), SHARD_OK);
  CU_ASSERT_EQUAL(shard_expr_n_names(e), 3);
  int col = 0;
  CU_ASSERT_STRING_EQUAL(shard_expr_name(e, 1, &col), "dt_c");
  CU_ASSERT_EQUAL(col, 6);
  CU_ASSERT_PTR_NULL(shard_expr_name(e, 3, &col));
  CU_ASSERT_FALSE(shard_expr_is_literal(e));
  shard_expr_destroy(e);
  CU_ASSERT_EQUAL(shard_expr_parse("-2.5e3", &e, &err), SHARD_OK);
  CU_ASSERT_TRUE(shard_expr_is_literal(e));
  shard_expr_destroy(e);
}

static void test_expr_deferred(void) {
  shard_expr *e = NULL;
  shard_expr_error err;
  double v = 42;
  CU_ASSERT_EQUAL(shard_expr_parse("1 + later", &e, &err), SHARD_OK);
  CU_ASSERT_EQUAL(shard_expr_eval(e, lookup, NULL, &v, &err), SHARD_EXPR_DEFERRED);
  CU_NEAR(v, 42, 0); /* untouched */
  shard_expr_destroy(e);
}

static void test_expr_syntax_errors(void) {
  expect_error("1 +", 4, "expected a number, a name or '(', found end of expression");
  expect_error("", 1, "expected a number, a name or '(', found end of expression");
  expect_error("1 $ 2", 3, "expected an operator, found '$'");
  expect_error("2 dt_c", 3, "expected an operator, found 'dt_c'");
  expect_error("1.2.3", 4, "expected an operator, found '.3'");
  expect_error("0.5 * (1e-3 + 1e-4", 7, "unbalanced '(' (found end of expression where ')' was expected)");
  expect_error("3 * )", 5, "expected a number, a name or '(', found ')'");
  expect_error("Dt", 1, "expected a number, a name or '(', found 'Dt'");
  expect_error("sqr(2)", 1, "unknown function 'sqr' (did you mean 'sqrt'?)");
  expect_error("frobnicate(2)", 1, "unknown function 'frobnicate'");
  expect_error("sqrt(1, 2)", 1, "sqrt() takes 1 argument, got 2");
  expect_error("min(1, 2, 3)", 11, "min() takes 2 arguments");
  expect_error("max(1)", 1, "max() takes 2 arguments, got 1");
  expect_error("max(1, 2", 9, "expected ',' or ')', found end of expression");
  expect_error("1e999", 1, "non-finite number '1e999'");
  expect_error("2 * 1e400", 5, "non-finite number '1e400'");
}

static void test_expr_eval_errors(void) {
  expect_error("1 / 0", 3, "division by zero");
  expect_error("x / (x - 2)", 3, "division by zero");
  expect_error("log(0)", 1, "log(0) is not a finite number");
  expect_error("2 * sqrt(-1)", 5, "sqrt(-1) is not a finite number");
  expect_error("1e300 * 1e300", 7, "result is not a finite number (overflow)");
  expect_error("10 ^ 400", 4, "10 ^ 400 is not a finite number");
  expect_error("1 + dtc", 5, "unknown name 'dtc'");
  expect_error("2 * broken", 5, "broken has no value");
}

static void test_expr_limits(void) {
  char deep[300];
  memset(deep, '(', 100);
  strcpy(deep + 100, "1");
  expect_error(deep, 65, "expression nested too deeply");
  char long_text[SHARD_EXPR_MAX_LEN + 10];
  memset(long_text, '1', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = 0;
  expect_error(long_text, 1, "expression too long (4105 characters, at most 4096)");
  char name[80];
  memset(name, 'a', 70);
  name[70] = 0;
  expect_error(name, 1, "name too long (more than 63 characters)");
}

static void test_expr_suggest(void) {
  CU_ASSERT_EQUAL(shard_edit_distance("plugn", "plugin"), 1);
  CU_ASSERT_EQUAL(shard_edit_distance("kitten", "sitting"), 3);
  CU_ASSERT_EQUAL(shard_edit_distance("", "abc"), 3);
  const char *keys[] = {"plugin", "on_failure", "fallback", "dump"};
  CU_ASSERT_STRING_EQUAL(shard_suggest("plugn", keys, 4), "plugin");
  CU_ASSERT_STRING_EQUAL(shard_suggest("on_falure", keys, 4), "on_failure");
  CU_ASSERT_PTR_NULL(shard_suggest("zzz", keys, 4));
  CU_ASSERT_PTR_NULL(shard_suggest("plugin", keys, 4)); /* exact: nothing to suggest */
  const char *short_names[] = {"c"};
  CU_ASSERT_PTR_NULL(shard_suggest("x", short_names, 1)); /* one letter is never "close" */
}

static const cu_test_def tests[] = {
    {"test_expr_numbers", test_expr_numbers},
    {"test_expr_precedence", test_expr_precedence},
    {"test_expr_functions", test_expr_functions},
    {"test_expr_names", test_expr_names},
    {"test_expr_deferred", test_expr_deferred},
    {"test_expr_syntax_errors", test_expr_syntax_errors},
    {"test_expr_eval_errors", test_expr_eval_errors},
    {"test_expr_limits", test_expr_limits},
    {"test_expr_suggest", test_expr_suggest},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "expr", tests); }
