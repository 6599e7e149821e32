/* tests: the host's typed calls into plugin ops tables (framework/src/loader/plugin_calls.h):
 * the kind-checked cast, argument forwarding, the host defaults of optional
 * slots, and destroy accepting a NULL table or instance. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cu_runner.h"
#include "loader/plugin_calls.h"

/* what the fake slots saw */
typedef struct seen {
  int calls, destroyed;
  const void *self;
  double dt;
  int32_t first, n;
} seen;

static int fi_create(const shard_params *p, const shard_scales *sc, void **out_self, shard_msg *msg) {
  *out_self = (void *)sc; /* hand back something recognisable */
  return SHARD_NOT_CONVERGED;
}
static int fi_setup(void *self, shard_system *sys, shard_msg *msg) { return ((seen *)self)->calls++, SHARD_ERR_IO; }
static int fi_start(void *self, shard_system *sys, double dt, shard_msg *msg) {
  seen *s = self;
  s->dt = dt;
  return SHARD_ERR_NUMERIC;
}
static int fi_step(void *self, shard_system *sys, double dt, shard_msg *msg) {
  seen *s = self;
  s->dt = dt, s->calls++;
  return shard_msg_set(msg, SHARD_ERR_INTERNAL, "step %g", dt);
}
static int fi_on_insert(void *self, shard_system *sys, int32_t first, shard_msg *msg) {
  ((seen *)self)->first = first;
  return SHARD_ERR_PLUGIN;
}
static uint32_t fi_n_aux(const void *self) { return 3; }
static void fi_destroy(void *self) { ((seen *)self)->destroyed++; }

static const shard_integrator_ops full = {.create = fi_create, .n_aux = fi_n_aux, .setup = fi_setup,
                                          .start = fi_start, .step = fi_step, .on_insert = fi_on_insert,
                                          .destroy = fi_destroy};
static const shard_integrator_ops bare = {.create = fi_create, .setup = fi_setup, .start = fi_start,
                                          .step = fi_step, .destroy = fi_destroy};

static void test_plugin_calls_ops_of_checks_kind(void) {
  shard_plugin d = {SHARD_PLUGIN_HEADER(SHARD_KIND_INTEGRATOR), .name = "x", .ops = &full};
  CU_ASSERT_PTR_EQUAL(shard_integrator_ops_of(&d), &full);
  CU_ASSERT_PTR_NULL(shard_lcp_solver_ops_of(&d));
  CU_ASSERT_PTR_NULL(shard_contact_law_ops_of(&d));
  CU_ASSERT_PTR_NULL(shard_tsl_ops_of(&d));
  d.kind = SHARD_KIND_LCP_SOLVER;
  CU_ASSERT_PTR_EQUAL(shard_lcp_solver_ops_of(&d), (const void *)&full);
  CU_ASSERT_PTR_NULL(shard_integrator_ops_of(&d));
  d.kind = SHARD_KIND_CONTACT_LAW;
  CU_ASSERT_PTR_EQUAL(shard_contact_law_ops_of(&d), (const void *)&full);
  d.kind = SHARD_KIND_TSL;
  CU_ASSERT_PTR_EQUAL(shard_tsl_ops_of(&d), (const void *)&full);
  CU_ASSERT_PTR_NULL(shard_integrator_ops_of(NULL));
}

static void test_plugin_calls_integrator_forwards(void) {
  seen s = {0};
  shard_msg msg = {{0}};
  shard_scales sc = {.struct_size = sizeof sc};
  void *self = NULL;
  CU_ASSERT_EQUAL(shard_integrator_create(&full, NULL, &sc, &self, &msg), SHARD_NOT_CONVERGED);
  CU_ASSERT_PTR_EQUAL(self, &sc);
  CU_ASSERT_EQUAL(shard_integrator_n_aux(&full, &s), 3u);
  CU_ASSERT_EQUAL(shard_integrator_setup(&full, &s, NULL, &msg), SHARD_ERR_IO);
  CU_ASSERT_EQUAL(shard_integrator_start(&full, &s, NULL, 0.25, &msg), SHARD_ERR_NUMERIC);
  CU_ASSERT_EQUAL(s.dt, 0.25);
  CU_ASSERT_EQUAL(shard_integrator_step(&full, &s, NULL, 0.5, &msg), SHARD_ERR_INTERNAL);
  CU_ASSERT_EQUAL(s.dt, 0.5);
  CU_ASSERT_STRING_EQUAL(msg.text, "step 0.5");
  CU_ASSERT_EQUAL(shard_integrator_on_insert(&full, &s, NULL, 7, &msg), SHARD_ERR_PLUGIN);
  CU_ASSERT_EQUAL(s.first, 7);
  shard_integrator_destroy(&full, &s);
  CU_ASSERT_EQUAL(s.destroyed, 1);
}

/* optional slots absent: no aux vectors, nothing to rebuild on insertion */
static void test_plugin_calls_integrator_optional_defaults(void) {
  seen s = {.first = -1};
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL(shard_integrator_n_aux(&bare, &s), 0u);
  CU_ASSERT_EQUAL(shard_integrator_on_insert(&bare, &s, NULL, 4, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(s.first, -1);
}

static int fi_reserve(void *self, const shard_system *sys, int32_t ndof_cap, int32_t ncon_cap, shard_msg *msg) {
  (void)sys, (void)msg;
  ((seen *)self)->first = ndof_cap * 1000 + ncon_cap;
  return SHARD_ERR_NOMEM;
}

/* reserve: forwarded when the table has it; an older, shorter table (built
 * before the slot was appended) widens to one without it, whatever bytes
 * follow it in the plugin */
static void test_plugin_calls_integrator_reserve_widen(void) {
  seen s = {.first = -1};
  shard_msg msg = {{0}};
  const shard_integrator_ops with = {.create = fi_create, .setup = fi_setup, .start = fi_start, .step = fi_step,
                                     .destroy = fi_destroy, .reserve = fi_reserve};
  shard_plugin d = {SHARD_PLUGIN_HEADER(SHARD_KIND_INTEGRATOR), .name = "x", .ops = &with,
                    .ops_size = sizeof(shard_integrator_ops)};
  shard_integrator_ops w;
  shard_integrator_ops_widen(&d, &w);
  CU_ASSERT(shard_integrator_has_reserve(&w));
  CU_ASSERT_EQUAL(shard_integrator_reserve(&w, &s, NULL, 7, 3, &msg), SHARD_ERR_NOMEM);
  CU_ASSERT_EQUAL(s.first, 7003);
  d.ops_size = (uint32_t)offsetof(shard_integrator_ops, reserve); /* the table of ABI 2.1 before the slot */
  shard_integrator_ops_widen(&d, &w);
  CU_ASSERT_FALSE(shard_integrator_has_reserve(&w));
  CU_ASSERT_PTR_EQUAL(w.step, fi_step);
  CU_ASSERT_PTR_EQUAL(w.destroy, fi_destroy);
  s.first = -1;
  CU_ASSERT_EQUAL(shard_integrator_reserve(&w, &s, NULL, 7, 3, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(s.first, -1);
  CU_ASSERT_FALSE(shard_integrator_has_reserve(&bare));
}

static void cl_restitution(const void *self, const shard_impact_kinematics *k, double *out_e) {
  for (int32_t i = 0; i < k->n; ++i) out_e[i] = 0.5 + i + k->v_n[i] + k->gap[i];
}
static void cl_force(const void *self, int32_t n, const double *g, double *f, double *k, double *e) {
  for (int32_t i = 0; i < n; ++i) f[i] = -g[i], k[i] = 2.0, e[i] = 3.0;
}
static double cl_kmax(const void *self) { return 42.0; }
static void cl_destroy(void *self) { ((seen *)self)->destroyed++; }
static const shard_contact_law_ops law = {.restitution = cl_restitution, .force = cl_force,
                                          .max_stiffness = cl_kmax, .destroy = cl_destroy};

static void test_plugin_calls_contact_law_forwards(void) {
  double e[2], g[2] = {-1.0, 2.0}, f[2], k[2], en[2];
  const double vn[2] = {0.0, 0.25}, gp[2] = {0.0, 0.125};
  const shard_impact_kinematics kin = {.struct_size = sizeof kin, .n = 2, .v_n = vn, .gap = gp};
  shard_contact_law_restitution(&law, NULL, &kin, e);
  CU_ASSERT_EQUAL(e[0], 0.5);
  CU_ASSERT_EQUAL(e[1], 1.875);
  shard_contact_law_force(&law, NULL, 2, g, f, k, en);
  CU_ASSERT_EQUAL(f[0], 1.0);
  CU_ASSERT_EQUAL(f[1], -2.0);
  CU_ASSERT_EQUAL(k[1], 2.0);
  CU_ASSERT_EQUAL(en[1], 3.0);
  CU_ASSERT_EQUAL(shard_contact_law_max_stiffness(&law, NULL), 42.0);
}

static int ls_create(const shard_params *p, void **out_self, shard_msg *msg) { return *out_self = NULL, SHARD_OK; }
static int ls_setup(void *self, int32_t n_max, int64_t nnz_max, shard_msg *msg) {
  seen *s = self;
  s->n = n_max;
  return nnz_max == 9 ? SHARD_OK : SHARD_ERR_INPUT;
}
static int ls_solve(void *self, const shard_lcp_problem *p, double *z, double *w, shard_lcp_report *rep,
                    shard_msg *msg) {
  z[0] = 1.0, w[0] = 0.0, rep->iterations = 5;
  return SHARD_NO_SOLUTION;
}
static void ls_destroy(void *self) { ((seen *)self)->destroyed++; }
static const shard_lcp_solver_ops lcp = {.create = ls_create, .setup = ls_setup, .solve = ls_solve,
                                         .destroy = ls_destroy};

static void test_plugin_calls_lcp_solver_forwards(void) {
  seen s = {0};
  shard_msg msg = {{0}};
  void *self = &s;
  CU_ASSERT_EQUAL(shard_lcp_solver_create(&lcp, NULL, &self, &msg), SHARD_OK);
  CU_ASSERT_PTR_NULL(self);
  CU_ASSERT_EQUAL(shard_lcp_solver_setup(&lcp, &s, 3, 9, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(s.n, 3);
  double z[1] = {0}, w[1] = {1};
  shard_lcp_report rep = {0};
  CU_ASSERT_EQUAL(shard_lcp_solver_solve(&lcp, &s, NULL, z, w, &rep, &msg), SHARD_NO_SOLUTION);
  CU_ASSERT_EQUAL(z[0], 1.0);
  CU_ASSERT_EQUAL(rep.iterations, 5);
}

static void ts_evaluate(const void *self, const shard_tsl_batch *b, int commit) {
  for (int32_t i = 0; i < b->n; ++i) b->traction[i] = commit ? 1.0 : -1.0;
}
static double ts_kmax(const void *self) { return SHARD_INF; }
static void ts_destroy(void *self) { ((seen *)self)->destroyed++; }
static const shard_tsl_ops tsl = {.evaluate = ts_evaluate, .max_stiffness = ts_kmax, .destroy = ts_destroy};

static void test_plugin_calls_tsl_forwards(void) {
  double t[2] = {0, 0};
  shard_tsl_batch b = {.n = 2, .traction = t};
  shard_tsl_evaluate(&tsl, NULL, &b, 1);
  CU_ASSERT_EQUAL(t[1], 1.0);
  shard_tsl_evaluate(&tsl, NULL, &b, 0);
  CU_ASSERT_EQUAL(t[0], -1.0);
  CU_ASSERT(isinf(shard_tsl_max_stiffness(&tsl, NULL)));
}

/* destroy(NULL) is fine for every kind, and so is a NULL table */
static void test_plugin_calls_destroy_null_safe(void) {
  seen s = {0};
  shard_integrator_destroy(&full, NULL);
  shard_integrator_destroy(NULL, &s);
  shard_contact_law_destroy(&law, NULL);
  shard_contact_law_destroy(NULL, &s);
  shard_lcp_solver_destroy(&lcp, NULL);
  shard_lcp_solver_destroy(NULL, &s);
  shard_tsl_destroy(&tsl, NULL);
  shard_tsl_destroy(NULL, &s);
  CU_ASSERT_EQUAL(s.destroyed, 0);
  shard_contact_law_destroy(&law, &s);
  shard_lcp_solver_destroy(&lcp, &s);
  shard_tsl_destroy(&tsl, &s);
  CU_ASSERT_EQUAL(s.destroyed, 3);
}

int main(int argc, char **argv) {
  static const cu_test_def tests[] = {
      {"test_plugin_calls_ops_of_checks_kind", test_plugin_calls_ops_of_checks_kind},
      {"test_plugin_calls_integrator_forwards", test_plugin_calls_integrator_forwards},
      {"test_plugin_calls_integrator_optional_defaults", test_plugin_calls_integrator_optional_defaults},
      {"test_plugin_calls_integrator_reserve_widen", test_plugin_calls_integrator_reserve_widen},
      {"test_plugin_calls_contact_law_forwards", test_plugin_calls_contact_law_forwards},
      {"test_plugin_calls_lcp_solver_forwards", test_plugin_calls_lcp_solver_forwards},
      {"test_plugin_calls_tsl_forwards", test_plugin_calls_tsl_forwards},
      {"test_plugin_calls_destroy_null_safe", test_plugin_calls_destroy_null_safe},
      {NULL, NULL}};
  return cu_main(argc, argv, "plugin_calls", tests);
}
