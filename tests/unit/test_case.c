/* case files: one test per error message (exact text and position), valid
 * cases and their accessors, --set, expressions, aliases, the resolved case,
 * the JSON schema, and the diagnostics printer. The integrators, laws and
 * solvers are test descriptors registered with shard_registry_add, so that
 * these tests do not depend on the real plugins' tables; the models are the
 * build's model plugins (bar.so, chain.so), whose keys are the case format's
 * model section. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "case/case.h"
#include "case/schema.h"
#include "cu_runner.h"
#include "shard/contact_law.h"
#include "shard/integrator.h"
#include "shard/lcp_solver.h"

/* ---- test plugins ------------------------------------------------------------- */

static int integ_create(const shard_params *p, const shard_scales *s, void **out, shard_msg *m) { return 0; }
static int integ_setup(void *self, shard_system *sys, shard_msg *m) { return 0; }
static int integ_step(void *self, shard_system *sys, double dt, shard_msg *m) { return 0; }
static void any_destroy(void *self) {}
static int law_create(const shard_params *p, const shard_scales *s, void **out, shard_msg *m) { return 0; }
static void law_restitution(const void *self, const shard_impact_kinematics *k, double *e) {}
static void law_force(const void *self, int32_t n, const double *g, double *f, double *k, double *en) {}
static double law_max_stiffness(const void *self) { return 0; }
static int lcp_create(const shard_params *p, void **out, shard_msg *m) { return 0; }
static int lcp_setup(void *self, int32_t n, int64_t nnz, shard_msg *m) { return 0; }
static int lcp_solve(void *self, const shard_lcp_problem *pr, double *z, double *w, shard_lcp_report *r, shard_msg *m) {
  return 0;
}

static const shard_integrator_ops integ_ops = {.create = integ_create, .setup = integ_setup, .start = integ_step,
                                               .step = integ_step, .destroy = any_destroy};
static const shard_contact_law_ops impact_ops = {.create = law_create, .destroy = any_destroy,
                                                 .restitution = law_restitution};
static const shard_contact_law_ops force_ops = {
    .create = law_create, .destroy = any_destroy, .force = law_force, .max_stiffness = law_max_stiffness};
static const shard_lcp_solver_ops lcp_ops = {.create = lcp_create, .setup = lcp_setup, .solve = lcp_solve,
                                             .destroy = any_destroy};

static const shard_param_spec nsn_params[] = {
    {"closing_filter", SHARD_PARAM_BOOL, "false", 0, 0, "", 0, 0, "drop contacts that open"},
};
static const shard_param_spec mj_params[] = {
    {"theta", SHARD_PARAM_REAL, "0.5", 0, 1, "1", SHARD_PARAM_MIN_EXCLUSIVE, 0, "theta of the theta-method"},
};
static const shard_param_spec impact_params[] = {
    {"restitution", SHARD_PARAM_REAL, 0, 0, 1, "1", SHARD_PARAM_REQUIRED, 0, "Newton restitution e"},
};
static const shard_param_spec penalty_params[] = {
    {"alpha", SHARD_PARAM_REAL, "10", 0, SHARD_INF, "1", SHARD_PARAM_MIN_EXCLUSIVE, 0, "stiffness factor"},
    {"stiffness", SHARD_PARAM_REAL, 0, 0, SHARD_INF, "N/m", SHARD_PARAM_MIN_EXCLUSIVE, 0, "absolute stiffness"},
};
static const shard_param_spec pgs_params[] = {
    {"omega", SHARD_PARAM_REAL, "1", 0, 2, "1", SHARD_PARAM_MIN_EXCLUSIVE | SHARD_PARAM_MAX_EXCLUSIVE, 0, "relaxation"},
    {"tolerance", SHARD_PARAM_REAL, "1e-10", 0, SHARD_INF, "1", SHARD_PARAM_MIN_EXCLUSIVE, 0, "tolerance"},
    {"max_sweeps", SHARD_PARAM_INT, "500", 1, 1e9, "1", 0, 0, "sweep cap"},
};

#define PLUGIN(kind_, name_, params_, caps_, ops_)                                                              \
  {SHARD_PLUGIN_HEADER(kind_), .name = name_, .version = "1.0.0", .summary = name_ " (test)", .params = params_, \
   .n_params = SHARD_NPARAMS(params_), .ops_size = sizeof *(ops_), .caps = caps_, .ops = ops_}

static const shard_plugin test_plugins[] = {
    PLUGIN(SHARD_KIND_INTEGRATOR, "nsn", nsn_params, SHARD_CAP_IMPACT_LAW | SHARD_CAP_NEEDS_LCP, &integ_ops),
    PLUGIN(SHARD_KIND_INTEGRATOR, "moreau_jean", mj_params, SHARD_CAP_IMPACT_LAW | SHARD_CAP_NEEDS_LCP, &integ_ops),
    PLUGIN(SHARD_KIND_CONTACT_LAW, "newton_impact", impact_params, SHARD_CAP_IMPACT_LAW, &impact_ops),
    PLUGIN(SHARD_KIND_CONTACT_LAW, "penalty", penalty_params, SHARD_CAP_FORCE_LAW, &force_ops),
    {SHARD_PLUGIN_HEADER(SHARD_KIND_LCP_SOLVER), .name = "lemke", .version = "1.0.0", .summary = "lemke (test)",
     .ops_size = sizeof lcp_ops, .ops = &lcp_ops},
    PLUGIN(SHARD_KIND_LCP_SOLVER, "pgs", pgs_params, 0, &lcp_ops),
};

static shard_registry *make_registry(void) {
  shard_registry *reg = NULL;
  shard_msg msg = {{0}};
  CU_CHECK_MSG(shard_registry_create(&reg, &msg) == SHARD_OK, "registry: %.200s", msg.text);
  for (size_t i = 0; reg && i < sizeof test_plugins / sizeof test_plugins[0]; ++i)
    CU_CHECK_MSG(shard_registry_add(reg, &test_plugins[i], "<builtin>", &msg) == SHARD_OK, "add: %.200s", msg.text);
  /* the models are the build's model plugins: their keys are the model section's */
  CU_CHECK_MSG(reg && shard_registry_load_file(reg, SHARD_PLUGIN_DIR "/bar.so", &msg) == SHARD_OK, "bar: %.200s",
               msg.text);
  CU_CHECK_MSG(reg && shard_registry_load_file(reg, SHARD_PLUGIN_DIR "/chain.so", &msg) == SHARD_OK, "chain: %.200s",
               msg.text);
  return reg;
}

/* ---- files ----------------------------------------------------------------------- */

static char tmpdir[256];

static const char *tmp_path(const char *name) {
  static char path[512];
  if (!tmpdir[0]) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/shard_test_case_XXXXXX");
    if (!mkdtemp(tmpdir)) perror("mkdtemp");
  }
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  return path;
}

static const char *write_bytes(const char *name, const char *text, size_t len) {
  const char *path = tmp_path(name);
  FILE *f = fopen(path, "wb");
  CU_CHECK_MSG(f != NULL, "cannot write %s", path);
  if (f) {
    fwrite(text, 1, len, f);
    fclose(f);
  }
  return path;
}

static const char *write_file(const char *name, const char *text) { return write_bytes(name, text, strlen(text)); }

/* A valid particle case; tests append or replace lines. */
#define BALL                                                        \
  "name: ball\n"                                                    \
  "model:\n"                                                        \
  "  type: particle\n"                                              \
  "  mass: 1.0\n"                                                   \
  "  position: 1.0\n"                                               \
  "integrator:\n"                                                   \
  "  plugin: nsn\n"                                                 \
  "contact:\n"                                                      \
  "  impact: {plugin: newton_impact, restitution: 0.8}\n"           \
  "time: {end: 5.0, dt: 1e-2}\n"

#define BAR                                                                                               \
  "model: {type: bar, length: 0.254, young: 2e11, density: 7800, elements: round(1e3 * length),\n"       \
  "        walls: {left: {gap: 2.54e-4}}, initial: {velocity: -5}}\n"                                      \
  "integrator: {plugin: moreau_jean, theta: 0.5}\n"                                                        \
  "contact: {impact: {plugin: newton_impact, restitution: 0}}\n"                                           \
  "time: {end: 2.0 * 0.254 / c, dt: 0.7 * dt_c}\n"

/* the other required sections, for texts that test the model */
#define REST "integrator: {plugin: nsn}\ntime: {end: 1, dt: 1}\n"

typedef struct loaded {
  shard_registry *reg;
  shard_diag *diag;
  shard_case *c;
  int status;
} loaded;

static loaded load_sets(const char *path, const char *const *sets, int n_sets) {
  loaded l = {make_registry(), shard_diag_create(), NULL, 0};
  l.status = shard_case_load(path, sets, n_sets, l.reg, &l.c, l.diag);
  return l;
}

static loaded load_text(const char *text) { return load_sets(write_file("case.yaml", text), NULL, 0); }

static void unload(loaded *l) {
  shard_case_destroy(l->c);
  shard_diag_destroy(l->diag);
  shard_registry_destroy(l->reg);
}

/* The file loads with errors, the first being `first` (path prefix included). */
static void expect_first(const loaded *l, const char *first) {
  CU_CHECK_MSG(l->status == SHARD_ERR_INPUT, "status %d, expected SHARD_ERR_INPUT", l->status);
  CU_CHECK_MSG(l->c == NULL, "a case object was returned with errors");
  const char *got = shard_diag_first(l->diag);
  CU_CHECK_MSG(got && strcmp(got, first) == 0, "first error:\n    got      %s\n    expected %s", got ? got : "(none)",
               first);
}

/* expect_first for a case text written to case.yaml; `at` and `msg` form
 * "<tmp>/case.yaml:<at>: error: <msg>" */
static void expect_case_error(const char *text, const char *at, const char *msg) {
  loaded l = load_text(text);
  char first[1024];
  snprintf(first, sizeof first, "%s:%s: error: %s", tmp_path("case.yaml"), at, msg);
  expect_first(&l, first);
  unload(&l);
}

static void expect_ok(const loaded *l) {
  CU_CHECK_MSG(l->status == SHARD_OK && l->c, "expected a valid case, got: %s",
               shard_diag_first(l->diag) ? shard_diag_first(l->diag) : "(no message)");
}

/* ---- valid cases and access ----------------------------------------------------- */

static void test_case_valid_particle(void) {
  loaded l = load_text(BALL);
  expect_ok(&l);
  if (!l.c) return unload(&l);
  double x = 0;
  long long n = 0;
  CU_ASSERT_EQUAL(shard_case_real(l.c, "model.mass", NULL, &x, l.diag), SHARD_OK);
  CU_NEAR(x, 1.0, 0);
  CU_ASSERT_EQUAL(shard_case_real(l.c, "model.gravity", NULL, &x, l.diag), SHARD_OK); /* default */
  CU_NEAR(x, 9.81, 0);
  CU_ASSERT_EQUAL(shard_case_real(l.c, "time.dt", NULL, &x, l.diag), SHARD_OK);
  CU_NEAR(x, 1e-2, 0);
  CU_ASSERT_EQUAL(shard_case_int(l.c, "output.every", NULL, &n, l.diag), SHARD_OK); /* absent section, default */
  CU_ASSERT_EQUAL(n, 1);
  CU_ASSERT_TRUE(shard_case_bool(l.c, "output.events"));
  CU_ASSERT_STRING_EQUAL(shard_case_string(l.c, "name"), "ball");
  CU_ASSERT_STRING_EQUAL(shard_case_string(l.c, "model.type"), "particle");
  CU_ASSERT_STRING_EQUAL(shard_case_string(l.c, "integrator.plugin"), "nsn");
  CU_ASSERT_STRING_EQUAL(shard_case_string(l.c, "lcp.plugin"), "lemke"); /* default variant */
  CU_ASSERT_STRING_EQUAL(shard_case_string(l.c, "lcp.on_failure"), "stop");
  CU_ASSERT_TRUE(shard_case_has(l.c, "contact.impact"));
  CU_ASSERT_FALSE(shard_case_has(l.c, "contact.force"));
  CU_ASSERT_TRUE(shard_case_has(l.c, "lcp"));
  CU_ASSERT_FALSE(shard_case_has(l.c, "output.interval")); /* optional, no default */
  CU_ASSERT_FALSE(shard_case_has(l.c, "description"));
  CU_ASSERT_STRING_EQUAL(shard_case_path(l.c), tmp_path("case.yaml"));
  CU_ASSERT_EQUAL(shard_diag_count(l.diag), 0);
  unload(&l);
}

static void test_case_plugin_params(void) {
  loaded l = load_text(BALL "lcp: {plugin: pgs, omega: 1.5}\n");
  expect_ok(&l);
  if (!l.c) return unload(&l);
  const shard_loaded_plugin *lp = NULL;
  shard_params p;
  CU_ASSERT_EQUAL(shard_case_plugin(l.c, "contact.impact", NULL, &lp, &p, l.diag), SHARD_OK);
  CU_ASSERT_STRING_EQUAL(lp->desc->name, "newton_impact");
  CU_NEAR(shard_params_real(&p, "restitution"), 0.8, 0);
  CU_ASSERT_EQUAL(shard_case_plugin(l.c, "lcp", NULL, &lp, &p, l.diag), SHARD_OK);
  CU_ASSERT_STRING_EQUAL(lp->desc->name, "pgs");
  CU_NEAR(shard_params_real(&p, "omega"), 1.5, 0);
  CU_NEAR(shard_params_real(&p, "tolerance"), 1e-10, 0);
  CU_ASSERT_EQUAL(shard_params_int(&p, "max_sweeps"), 500);
  CU_ASSERT_EQUAL(shard_case_plugin(l.c, "integrator", NULL, &lp, &p, l.diag), SHARD_OK);
  CU_ASSERT_FALSE(shard_params_bool(&p, "closing_filter"));
  CU_ASSERT_TRUE(shard_params_has(&p, "closing_filter"));
  unload(&l);
}

static void test_case_plugin_default_slot(void) {
  loaded l = load_text(BALL);
  expect_ok(&l);
  if (!l.c) return unload(&l);
  const shard_loaded_plugin *lp = NULL;
  shard_params p;
  CU_ASSERT_EQUAL(shard_case_plugin(l.c, "lcp", NULL, &lp, &p, l.diag), SHARD_OK);
  CU_ASSERT_STRING_EQUAL(lp->desc->name, "lemke");
  CU_ASSERT_EQUAL(p.count, 0);
  CU_ASSERT_EQUAL(shard_case_plugin(l.c, "contact.force", NULL, &lp, &p, l.diag), SHARD_ERR_INPUT);
  char want[600];
  snprintf(want, sizeof want, "%s: error: 'contact.force' is not set", tmp_path("case.yaml"));
  CU_ASSERT_STRING_EQUAL(shard_diag_first(l.diag), want);
  unload(&l);
}

static int scope_lookup(void *ctx, const char *name, double *out) {
  const double *dt_c = ctx;
  if (strcmp(name, "dt_c") == 0) return (*out = *dt_c), 1;
  if (strcmp(name, "c") == 0) return (*out = 5000.0), 1;
  return 0;
}

static void test_case_expressions(void) {
  loaded l = load_text(BAR);
  expect_ok(&l);
  if (!l.c) return unload(&l);
  double dt_c = 1e-7, x = 0;
  shard_scope scope = {scope_lookup, &dt_c, NULL};
  long long n = 0;
  CU_ASSERT_EQUAL(shard_case_int(l.c, "model.elements", NULL, &n, l.diag), SHARD_OK); /* model names need no scope */
  CU_ASSERT_EQUAL(n, 254);
  CU_ASSERT_EQUAL(shard_case_real(l.c, "time.dt", &scope, &x, l.diag), SHARD_OK);
  CU_NEAR(x, 0.7e-7, 1e-22);
  CU_ASSERT_EQUAL(shard_case_real(l.c, "time.end", &scope, &x, l.diag), SHARD_OK);
  CU_NEAR(x, 2.0 * 0.254 / 5000.0, 1e-18);
  CU_ASSERT_EQUAL(shard_case_real(l.c, "model.walls.left.gap", NULL, &x, l.diag), SHARD_OK);
  CU_NEAR(x, 2.54e-4, 0);
  CU_ASSERT_EQUAL(shard_case_real(l.c, "model.initial.velocity", NULL, &x, l.diag), SHARD_OK);
  CU_NEAR(x, -5, 0);
  CU_ASSERT_FALSE(shard_case_has(l.c, "model.walls.right.gap"));
  CU_ASSERT_EQUAL(shard_diag_count(l.diag), 0);
  /* without a scope, a derived name is an error at the value, column of the name */
  CU_ASSERT_EQUAL(shard_case_real(l.c, "time.dt", NULL, &x, l.diag), SHARD_ERR_INPUT);
  char want[600];
  snprintf(want, sizeof want, "%s:5:40: error: 'time.dt': unknown name 'dt_c'", tmp_path("case.yaml"));
  CU_ASSERT_STRING_EQUAL(shard_diag_first(l.diag), want);
  unload(&l);
}

static void test_case_expression_range_at_access(void) {
  loaded l = load_text("model: {type: particle, position: 1}\nintegrator: {plugin: nsn}\n"
                       "time: {end: 1, dt: -2 * dt_c}\n");
  expect_ok(&l); /* dt_c is only known when the run evaluates it */
  if (!l.c) return unload(&l);
  double dt_c = 1e-3, x = 0;
  shard_scope scope = {scope_lookup, &dt_c, NULL};
  CU_ASSERT_EQUAL(shard_case_real(l.c, "time.dt", &scope, &x, l.diag), SHARD_ERR_INPUT);
  char want[600];
  snprintf(want, sizeof want, "%s:3:20: error: 'time.dt' must be > 0 s, got -0.002", tmp_path("case.yaml"));
  CU_ASSERT_STRING_EQUAL(shard_diag_first(l.diag), want);
  unload(&l);
}

static void test_case_int_expression_integral(void) {
  expect_case_error("model: {type: bar, length: 0.2545, young: 1, density: 1, elements: 1e3 * length}\n"
                    "integrator: {plugin: nsn}\ntime: {end: 1, dt: 1e-3}\n",
                    "1:68", "'model.elements' must be an integer, got 254.5");
  loaded l = load_text("model: {type: bar, length: 0.2545, young: 1, density: 1, elements: round(1e3 * length)}\n"
                       "integrator: {plugin: nsn}\ntime: {end: 1, dt: 1e-3}\n");
  expect_ok(&l);
  long long n = 0;
  if (l.c) CU_ASSERT_EQUAL(shard_case_int(l.c, "model.elements", NULL, &n, l.diag), SHARD_OK);
  CU_ASSERT_EQUAL(n, 255);
  unload(&l);
}

static void test_case_aliases_allowed(void) {
  loaded l = load_text("description: &d a_ball\nname: *d\nmodel: {type: particle, position: 1}\n" REST);
  expect_ok(&l);
  if (l.c) CU_ASSERT_STRING_EQUAL(shard_case_string(l.c, "name"), "a_ball");
  unload(&l);
}

/* ---- YAML-level errors ---------------------------------------------------------- */

static void test_case_syntax_error(void) {
  expect_case_error("model: {type: particle, position: 1\nintegrator: {plugin: nsn}\n", "2:11",
                    "syntax error: did not find expected ',' or '}' while parsing a flow mapping (line 1)");
}

static void test_case_tab_indentation(void) {
  expect_case_error("model:\n  type: particle\n\tposition: 1\n", "3:1",
                    "syntax error: found a tab character that violates indentation while scanning a plain scalar "
                    "(line 2)");
}

static void test_case_unterminated_quote(void) {
  expect_case_error("name: \"ball\nmodel: {}\n", "3:1",
                    "syntax error: found unexpected end of stream while scanning a quoted scalar (line 1)");
}

static void test_case_invalid_utf8(void) {
  loaded l = load_sets(write_bytes("case.yaml", "name: a\nx: \xff\xfe\n", 13), NULL, 0);
  char want[600];
  snprintf(want, sizeof want, "%s:2:4: error: invalid input: invalid leading UTF-8 octet (byte 0xff)",
           tmp_path("case.yaml"));
  expect_first(&l, want);
  unload(&l);
}

static void test_case_control_character(void) {
  loaded l = load_sets(write_bytes("case.yaml", "name: a\0b\n", 10), NULL, 0);
  char want[600];
  snprintf(want, sizeof want, "%s:1:8: error: invalid input: control characters are not allowed (byte 0x00)",
           tmp_path("case.yaml"));
  expect_first(&l, want);
  unload(&l);
}

static void test_case_empty(void) {
  char want[600];
  snprintf(want, sizeof want, "%s: error: empty case file", tmp_path("case.yaml"));
  const char *texts[] = {"", "# only a comment\n\n# and another\n", "---\n", "~\n"};
  for (size_t i = 0; i < 4; ++i) {
    loaded l = load_text(texts[i]);
    expect_first(&l, want);
    unload(&l);
  }
}

static void test_case_second_document(void) {
  expect_case_error(BALL "---\nname: two\n", "11:1", "more than one document (a file holds exactly one)");
}

static void test_case_duplicate_key(void) {
  expect_case_error("model:\n  type: particle\n  mass: 1\n  position: 1\n  mass: 2\n", "5:3",
                    "duplicate key 'mass' (first defined at line 3)");
}

static void test_case_merge_key(void) {
  expect_case_error("model:\n  <<: {type: particle, position: 1}\n", "2:3",
                    "merge keys ('<<') are not supported; write the keys out");
}

static void test_case_non_scalar_key(void) {
  expect_case_error(BALL "? [a, b]\n: 1\n", "11:3", "mapping keys must be scalars, not a sequence");
  expect_case_error(BALL "? \n: 1\n", "11:2", "empty mapping key");
}

static void test_case_alias_bomb(void) {
  char text[2048] = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    char line[128];
    snprintf(line, sizeof line, "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", c, c, c - 1, c - 1,
             c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1);
    strcat(text, line);
  }
  clock_t t0 = clock();
  expect_case_error(text, "4:1", "alias expansion of 'd' too large (more than 10000 nodes in the document)");
  double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
  CU_CHECK_MSG(seconds < 1.0, "the alias bomb took %.2f s to refuse", seconds);
}

static void test_case_recursive_alias(void) {
  expect_case_error("model: &m {type: particle, loop: *m}\n", "1:8", "recursive alias (a node that contains itself)");
}

static void test_case_nesting_depth(void) {
  char text[400] = "x: ";
  for (int i = 0; i < 80; ++i) strcat(text, "[");
  for (int i = 0; i < 80; ++i) strcat(text, "]");
  strcat(text, "\n");
  expect_case_error(text, "1:68", "nesting too deep (more than 64 levels)");
}

static void test_case_undefined_alias(void) {
  expect_case_error("model: *nothing\n", "1:8", "syntax error: found undefined alias");
}

/* ---- paths that are not case files ----------------------------------------------- */

static void expect_path_error(const char *path, const char *msg) {
  loaded l = load_sets(path, NULL, 0);
  char want[800];
  snprintf(want, sizeof want, "%s: error: %s", path, msg);
  expect_first(&l, want);
  unload(&l);
}

static void test_case_missing_file(void) {
  expect_path_error(tmp_path("no-such-case.yaml"), "cannot read case file: No such file or directory");
}

static void test_case_directory(void) {
  const char *dir = tmp_path("adir.yaml");
  mkdir(dir, 0700);
  expect_path_error(dir, "cannot read case file: a directory, not a file");
}

static void test_case_fifo(void) {
  const char *fifo = tmp_path("fifo.yaml");
  unlink(fifo);
  CU_ASSERT_EQUAL(mkfifo(fifo, 0600), 0);
  expect_path_error(fifo, "cannot read case file: a FIFO, not a file"); /* and does not block */
}

static void test_case_dangling_symlink(void) {
  char target[600];
  snprintf(target, sizeof target, "%s", tmp_path("gone.yaml"));
  const char *link = tmp_path("link.yaml");
  unlink(link);
  CU_ASSERT_EQUAL(symlink(target, link), 0);
  expect_path_error(link, "cannot read case file: dangling symbolic link");
}

static void test_case_too_large(void) {
  const char *path = write_file("huge.yaml", "");
  CU_ASSERT_EQUAL(truncate(path, (16 << 20) + 1), 0);
  expect_path_error(path, "case file too large (16777217 bytes; the limit is 16 MiB)");
}

static void test_case_not_a_directory(void) {
  char path[600];
  snprintf(path, sizeof path, "%s/sub.yaml", write_file("plain.txt", "x"));
  expect_path_error(path, "cannot read case file: Not a directory");
}

/* ---- structure ------------------------------------------------------------------ */

static void test_case_root_not_mapping(void) {
  expect_case_error("- model\n- time\n", "1:1", "a case file must be a mapping of sections, not a sequence");
  expect_case_error("hello\n", "1:1", "a case file must be a mapping of sections, not a scalar");
}

static void test_case_unknown_key(void) {
  expect_case_error(BALL "output: {evry: 10}\n", "11:10", "unknown key 'evry' in 'output' (did you mean 'every'?)");
  expect_case_error(BALL "output: {zzz: 10}\n", "11:10", "unknown key 'zzz' in 'output'");
}

static void test_case_unknown_key_selector(void) {
  /* the typo of the selector is reported, not also a missing 'plugin' */
  loaded l = load_text("model: {type: particle, position: 1}\nintegrator: {plugn: nsn}\ntime: {end: 1, dt: 1}\n");
  char want[600];
  snprintf(want, sizeof want, "%s:2:14: error: unknown key 'plugn' in 'integrator' (did you mean 'plugin'?)",
           tmp_path("case.yaml"));
  expect_first(&l, want);
  CU_ASSERT_EQUAL(shard_diag_count(l.diag), 1);
  unload(&l);
}

static void test_case_unknown_top_key(void) {
  expect_case_error(BALL "outptu: {}\n", "11:1", "unknown top-level key 'outptu' (did you mean 'output'?)");
}

static void test_case_unknown_nested_key(void) {
  expect_case_error("model: {type: bar, length: 1, young: 1, density: 1, elements: 2, walls: {lft: {gap: 1}}}\n"
                    "integrator: {plugin: nsn}\ntime: {end: 1, dt: 1}\n",
                    "1:74", "unknown key 'lft' in 'model.walls' (did you mean 'left'?)");
  expect_case_error(BALL "contact: {impct: {}}\n", "11:1", "duplicate key 'contact' (first defined at line 8)");
}

static void test_case_unknown_container_key(void) {
  expect_case_error("model: {type: particle, position: 1}\nintegrator: {plugin: nsn}\ntime: {end: 1, dt: 1}\n"
                    "contact: {impct: {}}\n",
                    "4:11", "unknown key 'impct' in 'contact' (did you mean 'impact'?)");
}

static void test_case_section_not_mapping(void) {
  expect_case_error("model: {type: particle, position: 1}\nintegrator: nsn\ntime: {end: 1, dt: 1}\n", "2:13",
                    "'integrator' must be a mapping, not a scalar");
  expect_case_error("model: {type: particle, position: 1}\nintegrator:\ntime: {end: 1, dt: 1}\n", "2:1",
                    "'integrator' must be a mapping, not an empty value");
  expect_case_error("model: {type: particle, position: 1}\nintegrator: {plugin: nsn}\ntime: [1, 2]\n", "3:7",
                    "'time' must be a mapping, not a sequence");
}

static void test_case_group_not_mapping(void) {
  expect_case_error("model: {type: bar, length: 1, young: 1, density: 1, elements: 2, walls: 3}\n" REST, "1:73",
                    "'model.walls' must be a mapping, not a scalar");
}

static void test_case_leaf_wrong_kind(void) {
  expect_case_error("model: {type: particle, position: 1, mass: {value: 1}}\n" REST, "1:44",
                    "'model.mass' must be a number, not a mapping");
  expect_case_error("model: {type: particle, position: [1]}\n" REST, "1:35",
                    "'model.position' must be a number, not a sequence");
  expect_case_error("name: {a: 1}\nmodel: {type: particle, position: 1}\n" REST, "1:7",
                    "'name' must be a string, not a mapping");
  expect_case_error("model:\n  type: particle\n  position:\n" REST, "3:3",
                    "'model.position' must be a number, not an empty value");
  expect_case_error("model: {type: particle, position: 1}\noutput: {every: [2]}\n" REST, "2:17",
                    "'output.every' must be an integer, not a sequence");
}

static void test_case_real_not_a_number(void) {
  expect_case_error("model: {type: particle, position: abc}\n" REST, "1:35", "'model.position': unknown name 'abc'");
  expect_case_error("model: {type: particle, position: 1.2.3}\n" REST, "1:38",
                    "'model.position': expected an operator, found '.3'");
  expect_case_error("model: {type: particle, position: \"1 +\"}\n" REST, "1:39",
                    "'model.position': expected a number, a name or '(', found end of expression");
}

static void test_case_non_finite(void) {
  expect_case_error("model: {type: particle, position: .nan}\n" REST, "1:35", "'model.position': non-finite number '.nan'");
  expect_case_error("model: {type: particle, position: -.inf}\n" REST, "1:35", "'model.position': non-finite number '-.inf'");
  expect_case_error("model: {type: particle, position: 1e999}\n" REST, "1:35",
                    "'model.position': non-finite number '1e999'");
  expect_case_error("model: {type: particle, position: 1e300 * 1e300}\n" REST, "1:41",
                    "'model.position': result is not a finite number (overflow)");
}

static void test_case_int_fraction(void) {
  expect_case_error(BALL "output: {every: 1.5}\n", "11:17", "'output.every' must be an integer, got 1.5");
}

/* An integer too large for an int64 is out of range, not "not an integer". */
static void test_case_int_out_of_range(void) {
  expect_case_error(BALL "output: {every: 9223372036854775807}\n", "11:17",
                    "'output.every' = 9.2233720368547758e+18 is out of range: it must be in [1, 9.2e+18]");
  expect_case_error(BALL "lcp: {dump_every: 1e19}\n", "11:19",
                    "'lcp.dump_every' = 1e+19 is out of range: it must be in [0, 9.2e+18]");
}

/* A derived name the scope knows but cannot value (an overflow) is reported
 * with the scope's reason, not as an unknown name. */
static int scope_none(void *ctx, const char *name, double *out) {
  (void)ctx, (void)name, (void)out;
  return 0;
}
static void scope_none_why(void *ctx, const char *name, char *buf, size_t n) {
  (void)ctx;
  snprintf(buf, n, "'%s' overflowed", name);
}
static void test_case_derived_name_without_value(void) {
  loaded l = load_text(BAR);
  expect_ok(&l);
  if (!l.c) return unload(&l);
  shard_scope scope = {scope_none, NULL, scope_none_why};
  double x = 0;
  CU_ASSERT_EQUAL(shard_case_real(l.c, "time.dt", &scope, &x, l.diag), SHARD_ERR_INPUT);
  char want[600];
  snprintf(want, sizeof want, "%s:5:40: error: 'time.dt': 'dt_c' overflowed", tmp_path("case.yaml"));
  CU_ASSERT_STRING_EQUAL(shard_diag_first(l.diag), want);
  unload(&l);
}

static void test_case_bool(void) {
  expect_case_error(BALL "output: {events: yes}\n", "11:18", "'output.events' must be true or false, got 'yes'");
  expect_case_error(BALL "output: {events: \"true\"}\n", "11:18", "'output.events' must be true or false, got 'true'");
}

static void test_case_choice(void) {
  expect_case_error(BALL "output: {progress: sometimes}\n", "11:20",
                    "invalid value 'sometimes' for 'output.progress' (expected one of: auto, always, never)");
}

static void test_case_range(void) {
  expect_case_error("model: {type: particle, position: 1, mass: -1}\n" REST, "1:44", "'model.mass' must be > 0 kg, got -1");
  expect_case_error("model: {type: particle, position: 1, gravity: -9.81}\n" REST, "1:47",
                    "'model.gravity' must be >= 0 m/s^2, got -9.81");
  expect_case_error("model: {type: particle, position: 1}\ncontact: {impact: {plugin: newton_impact, restitution: 1.5}}\n" REST,
                    "2:56", "'contact.impact.restitution' must be in [0, 1], got 1.5");
  expect_case_error(BALL "lcp: {plugin: pgs, omega: 2}\n", "11:27", "'lcp.omega' must be in (0, 2), got 2");
  expect_case_error("model: {type: particle, position: 1}\nintegrator: {plugin: moreau_jean, theta: 0}\ntime: {end: 1, dt: 1}\n",
                    "2:42",
                    "'integrator.theta' must be in (0, 1], got 0");
  expect_case_error("model: {type: bar, length: 1, young: 1, density: 1, elements: 2, perturbation: 0.5}\n" REST, "1:80",
                    "'model.perturbation' must be in [0, 0.5), got 0.5");
}

static void test_case_missing_required_key(void) {
  expect_case_error("model:\n  type: particle\n  mass: 1\n" REST, "1:1", "missing required key 'position' in 'model'");
  expect_case_error("model: {type: particle, position: 1}\ncontact:\n  impact: {plugin: newton_impact}\n" REST, "3:3",
                    "missing required key 'restitution' in 'contact.impact'");
  expect_case_error("model: {position: 1}\n" REST, "1:1", "missing required key 'type' in 'model'");
}

static void test_case_missing_required_section(void) {
  expect_case_error("model: {type: particle, position: 1}\nintegrator: {plugin: nsn}\n", "1:1",
                    "missing required section 'time'");
  /* a typo of the section is one error, not two */
  loaded l = load_text("model: {type: particle, position: 1}\nintegrator: {plugin: nsn}\ntmie: {end: 1, dt: 1}\n");
  char want[600];
  snprintf(want, sizeof want, "%s:3:1: error: unknown top-level key 'tmie' (did you mean 'time'?)",
           tmp_path("case.yaml"));
  expect_first(&l, want);
  CU_ASSERT_EQUAL(shard_diag_count(l.diag), 1);
  unload(&l);
}

static void test_case_unknown_plugin(void) {
  expect_case_error("model: {type: particle, position: 1}\nintegrator: {plugin: nsm}\ntime: {end: 1, dt: 1}\n", "2:22",
                    "unknown integrator plugin 'nsm' (did you mean 'nsn'?); available: nsn, moreau_jean");
  expect_case_error("model: {type: particle, position: 1}\nintegrator: {plugin: verlet}\ntime: {end: 1, dt: 1}\n", "2:22",
                    "unknown integrator plugin 'verlet'; available: nsn, moreau_jean");
}

static void test_case_plugin_wrong_kind(void) {
  expect_case_error("model: {type: particle, position: 1}\nlcp: {plugin: penalty}\n" REST, "2:15",
                    "'penalty' is a contact_law plugin, but 'lcp' takes a plugin of kind lcp_solver");
}

static void test_case_unknown_variant(void) {
  expect_case_error("model: {type: ball, position: 1}\n" REST, "1:15", "unknown model plugin 'ball'; available: particle, bar, chain");
  expect_case_error("model: {type: bar, length: 1, young: 1, density: 1, elements: 2, position: 1}\n" REST, "1:66",
                    "unknown key 'position' in 'model'");
}

static void test_case_no_plugins_loaded(void) {
  shard_registry *reg = NULL;
  shard_msg msg;
  shard_diag *d = shard_diag_create();
  shard_case *c = NULL;
  CU_ASSERT_EQUAL(shard_registry_create(&reg, &msg), SHARD_OK);
  const char *path = write_file("case.yaml", "model: {type: particle, position: 1}\n" REST);
  CU_ASSERT_EQUAL(shard_case_load(path, NULL, 0, reg, &c, d), SHARD_ERR_INPUT);
  char want[600];
  snprintf(want, sizeof want,
           "%s:1:15: error: unknown model plugin 'particle' (no model plugin is loaded; see `shard plugins`)", path);
  CU_ASSERT_STRING_EQUAL(shard_diag_first(d), want);
  shard_diag_destroy(d);
  shard_registry_destroy(reg);
}

static void test_case_selector_wrong_kind(void) {
  expect_case_error("model: {type: particle, position: 1}\nintegrator: {plugin: [nsn]}\ntime: {end: 1, dt: 1}\n", "2:22",
                    "'integrator.plugin' must be a string, not a sequence");
}

static void test_case_expression_errors(void) {
  expect_case_error(BALL "lcp: {plugin: pgs, omega: 0.5 * (1 + 1}\n", "11:33",
                    "'lcp.omega': unbalanced '(' (found end of expression where ')' was expected)");
  expect_case_error("model: {type: particle, position: 1}\ntime: {end: 1, dt: 0.7 * dtc}\nintegrator: {plugin: nsn}\n", "2:26",
                    "'time.dt': unknown name 'dtc' (did you mean 'dt_c'?)");
  expect_case_error("model: {type: particle, position: 1, mass: 2 / (position - 1)}\n" REST, "1:46",
                    "'model.mass': division by zero");
  expect_case_error("model: {type: particle, position: 2 * mass, mass: position}\n" REST, "1:39",
                    "'model.position': circular reference through 'mass'");
  /* model keys are names, dots as underscores; range applies to the value */
  expect_case_error("model: {type: bar, length: 1, young: 1, density: 1, elements: 2, initial: {velocity: 3},\n"
                    "        walls: {left: {gap: -initial_velocity}}}\n" REST,
                    "2:29", "'model.walls.left.gap' must be >= 0 m, got -3");
  /* a quoted expression: columns count the quote */
  expect_case_error("model: {type: particle, position: \"2 * postion\"}\n" REST, "1:40",
                    "'model.position': unknown name 'postion' (did you mean 'position'?)");
}

static void test_case_all_errors_reported(void) {
  loaded l = load_text("model:\n  type: particle\n  position: 1\n  mass: -1\n  gravty: 1\n"
                       "integrator: {plugin: nsn, closing_filter: maybe}\n"
                       "time: {end: 0, dt: 1e-3}\noutput: {every: 0}\n");
  CU_ASSERT_EQUAL(l.status, SHARD_ERR_INPUT);
  CU_ASSERT_EQUAL(shard_diag_count(l.diag), 5);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  shard_diag_print(l.diag, f);
  fclose(f);
  const char *p = tmp_path("case.yaml");
  char want[4096];
  snprintf(want, sizeof want,
           "%s:4:9: error: 'model.mass' must be > 0 kg, got -1\n    mass: -1\n          ^\n"
           "%s:5:3: error: unknown key 'gravty' in 'model' (did you mean 'gravity'?)\n    gravty: 1\n    ^\n"
           "%s:6:43: error: 'integrator.closing_filter' must be true or false, got 'maybe'\n"
           "  integrator: {plugin: nsn, closing_filter: maybe}\n"
           "                                            ^\n"
           "%s:7:13: error: 'time.end' must be > 0 s, got 0\n  time: {end: 0, dt: 1e-3}\n              ^\n"
           "%s:8:17: error: 'output.every' must be in [1, 9.2e+18], got 0\n  output: {every: 0}\n"
           "                  ^\n5 errors\n",
           p, p, p, p, p);
  CU_CHECK_MSG(strcmp(buf, want) == 0, "printed:\n%.480s\nexpected:\n%.480s", buf, want);
  free(buf);
  unload(&l);
}

static void test_case_error_cap(void) {
  char text[8192] = "model: {type: particle, position: 1}\nintegrator: {plugin: nsn}\ntime: {end: 1, dt: 1}\noutput:\n";
  for (int i = 0; i < 30; ++i) {
    char line[64];
    snprintf(line, sizeof line, "  bad%02d: 1\n", i);
    strcat(text, line);
  }
  loaded l = load_text(text);
  CU_ASSERT_EQUAL(shard_diag_count(l.diag), 30);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  shard_diag_print(l.diag, f);
  fclose(f);
  int shown = 0;
  for (const char *s = buf; (s = strstr(s, ": error: ")); ++s) ++shown;
  CU_ASSERT_EQUAL(shown, SHARD_DIAG_MAX);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\n30 errors (20 shown)\n"));
  free(buf);
  unload(&l);
}

/* ---- --set ---------------------------------------------------------------------- */

static void test_case_set_replaces_and_creates(void) {
  const char *sets[] = {"model.mass=2.5", "output.every=10", "description=\"set: quoted\"",
                        "lcp={plugin: pgs, omega: 1.2}"};
  loaded l = load_sets(write_file("case.yaml", BALL), sets, 4);
  expect_ok(&l);
  if (!l.c) return unload(&l);
  double x = 0;
  long long n = 0;
  CU_ASSERT_EQUAL(shard_case_real(l.c, "model.mass", NULL, &x, l.diag), SHARD_OK);
  CU_NEAR(x, 2.5, 0);
  CU_ASSERT_EQUAL(shard_case_int(l.c, "output.every", NULL, &n, l.diag), SHARD_OK);
  CU_ASSERT_EQUAL(n, 10);
  CU_ASSERT_STRING_EQUAL(shard_case_string(l.c, "description"), "set: quoted");
  CU_ASSERT_STRING_EQUAL(shard_case_string(l.c, "lcp.plugin"), "pgs");
  CU_ASSERT_EQUAL(shard_case_real(l.c, "lcp.omega", NULL, &x, l.diag), SHARD_OK);
  CU_NEAR(x, 1.2, 0);
  unload(&l);
}

static void expect_set_error(const char *set, const char *at, const char *msg) {
  const char *sets[] = {set};
  loaded l = load_sets(write_file("case.yaml", BALL), sets, 1);
  char want[1024];
  snprintf(want, sizeof want, "--set '%s':%s: error: %s", set, at, msg);
  expect_first(&l, want);
  unload(&l);
}

static void test_case_set_errors(void) {
  expect_set_error("integrator.plugn=nsn", "1:12", "unknown key 'plugn' in 'integrator' (did you mean 'plugin'?)");
  expect_set_error("model.mass=-3", "1:12", "'model.mass' must be > 0 kg, got -3");
  expect_set_error("time.dt=0.7 * dtc", "1:15", "'time.dt': unknown name 'dtc' (did you mean 'dt_c'?)");
  expect_set_error("time.dt=[1", "1:11", "syntax error: did not find expected ',' or ']' while parsing a flow sequence (line 1)");
  expect_set_error("time.dt", "1:8", "expected key.path=value");
  expect_set_error("time..dt=1", "1:6", "empty key in key path (expected key.path=value)");
  expect_set_error("time.d t=1", "1:7", "invalid character ' ' in key path (expected key.path=value)");
  expect_set_error("integrator.plugin=verlet", "1:19", "unknown integrator plugin 'verlet'; available: nsn, moreau_jean");
  expect_set_error("model.mass=", "1:12", "'model.mass' must be a number, not an empty value");
  expect_set_error("model.mas=null", "1:1",
                   "'model.mas' is not in the case, so it cannot be removed ('model.mas=null' removes a key)");
  expect_set_error("lcp.omega=~", "1:1", "'lcp.omega' is not in the case, so it cannot be removed ('lcp.omega=null' removes a key)");
}

/* The first error contains `part`. */
static void expect_first_has(const loaded *l, const char *part) {
  CU_CHECK_MSG(l->status == SHARD_ERR_INPUT && l->c == NULL, "status %d, expected SHARD_ERR_INPUT", l->status);
  const char *got = shard_diag_first(l->diag);
  CU_CHECK_MSG(got && strstr(got, part), "first error:\n    got      %s\n    expected ...%s...", got ? got : "(none)",
               part);
}

static void test_case_set_null_removes(void) {
  /* null removes a key (its default applies again) or a whole section */
  const char *sets[] = {"time=~", "time={end: 2, dt: 1e-3}", "integrator.closing_filter=null"};
  loaded l = load_sets(write_file("case.yaml", "model: {type: particle, position: 1}\n"
                                               "integrator: {plugin: nsn, closing_filter: true}\n"
                                               "contact: {impact: {plugin: newton_impact, restitution: 1}}\n"
                                               "time: {end: 1, dt: 1}\n"),
                       sets, 3);
  expect_ok(&l);
  if (l.c) {
    double x = 0;
    CU_ASSERT_EQUAL(shard_case_real(l.c, "time.end", NULL, &x, l.diag), SHARD_OK);
    CU_NEAR(x, 2, 0);
    CU_ASSERT_EQUAL(shard_case_real(l.c, "time.dt", NULL, &x, l.diag), SHARD_OK);
    CU_NEAR(x, 1e-3, 0);
    const shard_loaded_plugin *lp = NULL;
    shard_params p;
    CU_ASSERT_EQUAL(shard_case_plugin(l.c, "integrator", NULL, &lp, &p, l.diag), SHARD_OK);
    CU_ASSERT_FALSE(shard_params_bool(&p, "closing_filter")); /* the default again, not the file's true */
  }
  unload(&l);
  /* what is required stays required */
  const char *req[] = {"contact.impact.restitution=null"};
  l = load_sets(write_file("case.yaml", BALL), req, 1);
  expect_first_has(&l, "missing required key 'restitution' in 'contact.impact'");
  unload(&l);
  const char *gone[] = {"time=null"};
  l = load_sets(write_file("case.yaml", BALL), gone, 1);
  expect_first_has(&l, "missing required section 'time'");
  unload(&l);
}

static void test_case_set_changes_selector(void) {
  /* closing_filter belongs to nsn: switching the plugin re-validates the slot */
  const char *sets[] = {"integrator.plugin=moreau_jean"};
  loaded l = load_sets(write_file("case.yaml", "model: {type: particle, position: 1}\n"
                                               "integrator: {plugin: nsn, closing_filter: true}\n"
                                               "time: {end: 1, dt: 1}\n"),
                       sets, 1);
  char want[600];
  snprintf(want, sizeof want, "%s:2:27: error: unknown key 'closing_filter' in 'integrator'", tmp_path("case.yaml"));
  expect_first(&l, want);
  unload(&l);
  const char *sets2[] = {"integrator.plugin=moreau_jean", "integrator.theta=0.75"};
  l = load_sets(write_file("case.yaml", BALL), sets2, 2);
  expect_ok(&l);
  const shard_loaded_plugin *lp = NULL;
  shard_params p;
  if (l.c && shard_case_plugin(l.c, "integrator", NULL, &lp, &p, l.diag) == SHARD_OK) {
    CU_ASSERT_STRING_EQUAL(lp->desc->name, "moreau_jean");
    CU_NEAR(shard_params_real(&p, "theta"), 0.75, 0);
  }
  unload(&l);
}

static void test_case_set_error_order(void) {
  /* file errors first, then each --set in command-line order */
  const char *sets[] = {"time.dt=-1", "model.mass=-1"};
  loaded l = load_sets(write_file("case.yaml", BALL "output: {every: 0}\n"), sets, 2);
  CU_ASSERT_EQUAL(shard_diag_count(l.diag), 3);
  char want[600];
  snprintf(want, sizeof want, "%s:11:17: error: 'output.every' must be in [1, 9.2e+18], got 0", tmp_path("case.yaml"));
  CU_ASSERT_STRING_EQUAL(shard_diag_first(l.diag), want);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  shard_diag_print(l.diag, f);
  fclose(f);
  const char *a = strstr(buf, "--set 'time.dt=-1'"), *b = strstr(buf, "--set 'model.mass=-1'");
  CU_ASSERT_TRUE(a && b && a < b);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "--set 'time.dt=-1':1:9: error: 'time.dt' must be > 0 s, got -1\n  time.dt=-1\n          ^\n"));
  free(buf);
  unload(&l);
}

/* ---- resolved case and schema ------------------------------------------------------ */

static char *resolved_text(const shard_case *c) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CU_ASSERT_EQUAL(shard_case_write_resolved(c, f), SHARD_OK);
  fclose(f);
  return buf;
}

static void test_case_resolved_round_trip(void) {
  const char *sets[] = {"description=\"a: b # c\""};
  loaded l = load_sets(write_file("case.yaml", BAR), sets, 1);
  expect_ok(&l);
  if (!l.c) return unload(&l);
  char *first = resolved_text(l.c);
  CU_ASSERT_PTR_NOT_NULL(strstr(first, "model:\n  type: bar\n  length: 0.254\n  area: 1\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(first, "  elements: round(1e3 * length)  # = 254\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(first, "  dt: 0.7 * dt_c\n")); /* no scope: no value */
  CU_ASSERT_PTR_NOT_NULL(strstr(first, "\n  initial:\n    velocity: -5\n    strain_rate: 0\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(first, "\n  walls:\n    left:\n      gap: 2.54e-4\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(first, "integrator:\n  plugin: moreau_jean\n  theta: 0.5\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(first, "lcp:\n  plugin: lemke\n  on_failure: stop\n  dump: false\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(first, "description: \"a: b # c\"\n"));
  CU_ASSERT_PTR_NULL(strstr(first, "right")); /* optional, no default: absent */
  CU_ASSERT_PTR_NULL(strstr(first, "force"));
  /* with a scope, derived names have values too */
  double dt_c = 1e-7;
  shard_scope scope = {scope_lookup, &dt_c, NULL};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CU_ASSERT_EQUAL(shard_case_write_resolved_scope(l.c, &scope, f), SHARD_OK);
  fclose(f);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "  end: 2.0 * 0.254 / c  # = 0.0001016\n  dt: 0.7 * dt_c  # = 7e-08\n"));
  free(buf);
    /* it loads again, and resolves to the same text (but for the header line) */
  const char *path2 = write_file("resolved.yaml", first);
  loaded l2 = load_sets(path2, NULL, 0);
  expect_ok(&l2);
  if (l2.c) {
    char *second = resolved_text(l2.c);
    CU_ASSERT_STRING_EQUAL(strchr(first, '\n'), strchr(second, '\n'));
    free(second);
  }
  unload(&l2);
  free(first);
  unload(&l);
}

static void test_case_schema(void) {
  shard_registry *reg = make_registry();
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CU_ASSERT_EQUAL(shard_schema_write_case(reg, f), SHARD_OK);
  fclose(f);
  const char *needles[] = {
      "\"$schema\": \"https://json-schema.org/draft/2020-12/schema\"",
      "\"additionalProperties\": false",
      "\"plugin\": {\"enum\": [\"nsn\", \"moreau_jean\"]}",
      "{\"if\": {\"properties\": {\"plugin\": {\"const\": \"pgs\"}}, \"required\": [\"plugin\"]},",
      "{\"if\": {\"properties\": {\"plugin\": {\"const\": \"lemke\"}}},", /* the default: no required */
      "\"description\": \"point mass [kg]\"",
      "\"exclusiveMinimum\": 0",
      "\"exclusiveMaximum\": 2",
      "{\"type\": \"string\", \"description\": \"an expression, e.g. 0.5 * dt_c\"}",
      "\"required\": [\"model\", \"integrator\", \"time\"]",
      "\"enum\": [\"auto\", \"always\", \"never\"]",
  };
  for (size_t i = 0; i < sizeof needles / sizeof needles[0]; ++i)
    CU_CHECK_MSG(strstr(buf, needles[i]) != NULL, "schema lacks %s", needles[i]);
  int depth = 0, min_depth = 0;
  for (const char *p = buf; *p; ++p) {
    depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
    if (depth < min_depth) min_depth = depth;
  }
  CU_ASSERT_EQUAL(depth, 0);
  CU_ASSERT_EQUAL(min_depth, 0);
  free(buf);
  buf = NULL;
  f = open_memstream(&buf, &len);
  CU_ASSERT_EQUAL(shard_schema_write_markdown(reg, f), SHARD_OK);
  fclose(f);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "#### `plugin: pgs`\n\npgs (test)\n\n| key | type |"));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "| `omega` | real | `1` | (0, 2) | 1 | no | relaxation |\n"));
  free(buf);
  shard_registry_destroy(reg);
}

/* ---- diagnostics ------------------------------------------------------------------ */

static void test_case_diag_caret_keeps_tabs(void) {
  shard_diag *d = shard_diag_create();
  shard_diag_error(d, "f.yaml", 3, 4, "\tab\tc", "bad %s", "thing");
  shard_diag_error(d, "f.yaml", 0, 0, NULL, "whole file");
  CU_ASSERT_EQUAL(shard_diag_count(d), 2);
  CU_ASSERT_STRING_EQUAL(shard_diag_first(d), "f.yaml:3:4: error: bad thing");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  shard_diag_print(d, f);
  fclose(f);
  CU_ASSERT_STRING_EQUAL(buf, "f.yaml:3:4: error: bad thing\n  \tab\tc\n  \t  ^\nf.yaml: error: whole file\n2 errors\n");
  free(buf);
  shard_diag_destroy(d);
}

static void test_case_diag_reads_source_line(void) {
  const char *path = write_file("src.yaml", "one\ntwo\n  three\n");
  shard_diag *d = shard_diag_create();
  shard_diag_error(d, path, 3, 3, NULL, "here");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  shard_diag_print(d, f);
  fclose(f);
  char want[600];
  snprintf(want, sizeof want, "%s:3:3: error: here\n    three\n    ^\n1 error\n", path);
  CU_ASSERT_STRING_EQUAL(buf, want);
  free(buf);
  shard_diag_clear(d);
  CU_ASSERT_EQUAL(shard_diag_count(d), 0);
  CU_ASSERT_PTR_NULL(shard_diag_first(d));
  shard_diag_destroy(d);
}

static void cleanup(void) {
  if (!tmpdir[0]) return;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
}

static const cu_test_def tests[] = {
    {"test_case_valid_particle", test_case_valid_particle},
    {"test_case_plugin_params", test_case_plugin_params},
    {"test_case_plugin_default_slot", test_case_plugin_default_slot},
    {"test_case_expressions", test_case_expressions},
    {"test_case_expression_range_at_access", test_case_expression_range_at_access},
    {"test_case_int_expression_integral", test_case_int_expression_integral},
    {"test_case_int_out_of_range", test_case_int_out_of_range},
    {"test_case_derived_name_without_value", test_case_derived_name_without_value},
    {"test_case_aliases_allowed", test_case_aliases_allowed},
    {"test_case_syntax_error", test_case_syntax_error},
    {"test_case_tab_indentation", test_case_tab_indentation},
    {"test_case_unterminated_quote", test_case_unterminated_quote},
    {"test_case_invalid_utf8", test_case_invalid_utf8},
    {"test_case_control_character", test_case_control_character},
    {"test_case_empty", test_case_empty},
    {"test_case_second_document", test_case_second_document},
    {"test_case_duplicate_key", test_case_duplicate_key},
    {"test_case_merge_key", test_case_merge_key},
    {"test_case_non_scalar_key", test_case_non_scalar_key},
    {"test_case_alias_bomb", test_case_alias_bomb},
    {"test_case_recursive_alias", test_case_recursive_alias},
    {"test_case_nesting_depth", test_case_nesting_depth},
    {"test_case_undefined_alias", test_case_undefined_alias},
    {"test_case_missing_file", test_case_missing_file},
    {"test_case_directory", test_case_directory},
    {"test_case_fifo", test_case_fifo},
    {"test_case_dangling_symlink", test_case_dangling_symlink},
    {"test_case_too_large", test_case_too_large},
    {"test_case_not_a_directory", test_case_not_a_directory},
    {"test_case_root_not_mapping", test_case_root_not_mapping},
    {"test_case_unknown_key", test_case_unknown_key},
    {"test_case_unknown_key_selector", test_case_unknown_key_selector},
    {"test_case_unknown_top_key", test_case_unknown_top_key},
    {"test_case_unknown_nested_key", test_case_unknown_nested_key},
    {"test_case_unknown_container_key", test_case_unknown_container_key},
    {"test_case_section_not_mapping", test_case_section_not_mapping},
    {"test_case_group_not_mapping", test_case_group_not_mapping},
    {"test_case_leaf_wrong_kind", test_case_leaf_wrong_kind},
    {"test_case_real_not_a_number", test_case_real_not_a_number},
    {"test_case_non_finite", test_case_non_finite},
    {"test_case_int_fraction", test_case_int_fraction},
    {"test_case_bool", test_case_bool},
    {"test_case_choice", test_case_choice},
    {"test_case_range", test_case_range},
    {"test_case_missing_required_key", test_case_missing_required_key},
    {"test_case_missing_required_section", test_case_missing_required_section},
    {"test_case_unknown_plugin", test_case_unknown_plugin},
    {"test_case_plugin_wrong_kind", test_case_plugin_wrong_kind},
    {"test_case_unknown_variant", test_case_unknown_variant},
    {"test_case_no_plugins_loaded", test_case_no_plugins_loaded},
    {"test_case_selector_wrong_kind", test_case_selector_wrong_kind},
    {"test_case_expression_errors", test_case_expression_errors},
    {"test_case_all_errors_reported", test_case_all_errors_reported},
    {"test_case_error_cap", test_case_error_cap},
    {"test_case_set_replaces_and_creates", test_case_set_replaces_and_creates},
    {"test_case_set_errors", test_case_set_errors},
    {"test_case_set_null_removes", test_case_set_null_removes},
    {"test_case_set_changes_selector", test_case_set_changes_selector},
    {"test_case_set_error_order", test_case_set_error_order},
    {"test_case_resolved_round_trip", test_case_resolved_round_trip},
    {"test_case_schema", test_case_schema},
    {"test_case_diag_caret_keeps_tabs", test_case_diag_caret_keeps_tabs},
    {"test_case_diag_reads_source_line", test_case_diag_reads_source_line},
    {NULL, NULL},
};

int main(int argc, char **argv) {
  int failures = cu_main(argc, argv, "case", tests);
  cleanup();
  return failures;
}
