/* tests: five plugins in one file — an impact-law integrator that needs an
 * LCP, an impact law, two LCP solvers (primary and fallback) and a TSL — that
 * append "create NAME" / "destroy NAME" to the file named by the environment
 * variable SHARD_TEST_ORDER_LOG (tests/unit/test_plugin_order.c checks that
 * the host destroys its instances in the reverse order of creation). They
 * compute nothing: the integrator refuses to step. */
#include <stdio.h>
#include <stdlib.h>

#include "shard/contact_law.h"
#include "shard/integrator.h"
#include "shard/lcp_solver.h"
#include "shard/tsl.h"

typedef struct order_self {
  const char *name;
} order_self;

static void order_log(const char *what, const char *name) {
  const char *path = getenv("SHARD_TEST_ORDER_LOG");
  FILE *f = path ? fopen(path, "a") : NULL;
  if (!f) return;
  fprintf(f, "%s %s\n", what, name);
  fclose(f);
}

static int order_new(const char *name, void **out_self, shard_msg *msg) {
  order_self *s = malloc(sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "%s: out of memory", name);
  s->name = name;
  *out_self = s;
  order_log("create", name);
  return SHARD_OK;
}

static void order_destroy(void *self) {
  order_self *s = self;
  if (!s) return;
  order_log("destroy", s->name);
  free(s);
}

/* integrator */
static int oi_create(const shard_params *p, const shard_scales *sc, void **out_self, shard_msg *msg) {
  return order_new("order_integrator", out_self, msg);
}
static int oi_setup(void *self, shard_system *sys, shard_msg *msg) { return shard_integrator_check_system(sys, msg); }
static int oi_start(void *self, shard_system *sys, double dt, shard_msg *msg) { return SHARD_OK; }
static int oi_step(void *self, shard_system *sys, double dt, shard_msg *msg) {
  return shard_msg_set(msg, SHARD_ERR_UNSUPPORTED, "order_integrator does not step");
}
static int oi_on_insert(void *self, shard_system *sys, int32_t first, shard_msg *msg) { return SHARD_OK; }
static const shard_integrator_ops oi_ops = {.create = oi_create, .setup = oi_setup, .start = oi_start,
                                            .step = oi_step, .on_insert = oi_on_insert, .destroy = order_destroy};

/* impact law */
static int ol_create(const shard_params *p, const shard_scales *sc, void **out_self, shard_msg *msg) {
  return order_new("order_impact", out_self, msg);
}
static void ol_restitution(const void *self, const shard_impact_kinematics *k, double *out_e) {
  for (int32_t i = 0; i < k->n; ++i) out_e[i] = 1.0;
}
static const shard_contact_law_ops ol_ops = {.create = ol_create, .destroy = order_destroy,
                                             .restitution = ol_restitution};

/* LCP solvers */
static int os_create(const shard_params *p, void **out_self, shard_msg *msg) {
  return order_new("order_lcp", out_self, msg);
}
static int of_create(const shard_params *p, void **out_self, shard_msg *msg) {
  return order_new("order_lcp_fallback", out_self, msg);
}
static int os_setup(void *self, int32_t n_max, int64_t nnz_max, shard_msg *msg) { return SHARD_OK; }
static int os_solve(void *self, const shard_lcp_problem *p, double *z, double *w, shard_lcp_report *rep,
                    shard_msg *msg) {
  shard_lcp_check_problem(p, p->n, rep, msg);
  return shard_msg_set(msg, SHARD_ERR_UNSUPPORTED, "order_lcp does not solve");
}
static const shard_lcp_solver_ops os_ops = {.create = os_create, .setup = os_setup, .solve = os_solve,
                                            .destroy = order_destroy};
static const shard_lcp_solver_ops of_ops = {.create = of_create, .setup = os_setup, .solve = os_solve,
                                            .destroy = order_destroy};

/* TSL */
static int ot_create(const shard_params *p, const shard_scales *sc, void **out_self, shard_msg *msg) {
  return order_new("order_tsl", out_self, msg);
}
static void ot_evaluate(const void *self, const shard_tsl_batch *b, int commit) {
  for (int32_t i = 0; i < b->n; ++i) b->traction[i] = 0.0, b->stiffness[i] = 0.0, b->reversible[i] = 0.0;
}
static double ot_max_stiffness(const void *self) { return 1e18; }
static const shard_tsl_ops ot_ops = {.create = ot_create, .destroy = order_destroy, .evaluate = ot_evaluate,
                                     .max_stiffness = ot_max_stiffness};

#define ORDER_DESC(var, kind_, name_, caps_, ops_)                                                              \
  static const shard_plugin var = {SHARD_PLUGIN_HEADER(kind_), .name = name_, .version = "0.1.0",             \
                                   .summary = "records create/destroy order (test plugin)",                   \
                                   .ops_size = sizeof(ops_), .caps = (caps_), .ops = &(ops_)}
ORDER_DESC(d_integ, SHARD_KIND_INTEGRATOR, "order_integrator",
           SHARD_CAP_IMPACT_LAW | SHARD_CAP_NEEDS_LCP | SHARD_CAP_TOPOLOGY, oi_ops);
ORDER_DESC(d_law, SHARD_KIND_CONTACT_LAW, "order_impact", SHARD_CAP_IMPACT_LAW, ol_ops);
ORDER_DESC(d_lcp, SHARD_KIND_LCP_SOLVER, "order_lcp", SHARD_CAP_LCP_GENERAL | SHARD_CAP_LCP_SPARSE, os_ops);
ORDER_DESC(d_fb, SHARD_KIND_LCP_SOLVER, "order_lcp_fallback", SHARD_CAP_LCP_GENERAL | SHARD_CAP_LCP_SPARSE, of_ops);
ORDER_DESC(d_tsl, SHARD_KIND_TSL, "order_tsl", 0, ot_ops);

SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry(uint32_t index) {
  static const shard_plugin *const all[] = {&d_integ, &d_law, &d_lcp, &d_fb, &d_tsl};
  return index < sizeof all / sizeof all[0] ? all[index] : NULL;
}
