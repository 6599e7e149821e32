/* tests: the contact-law plugins newton_impact (impact family) and penalty
 * (force family), loaded with dlopen from SHARD_PLUGIN_DIR. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cu_runner.h"
#include "scales_probe.h"
#include "shard/contact_law.h"

static const shard_plugin *load_plugin(const char *name, void **out_dl) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.so", SHARD_PLUGIN_DIR, name);
  *out_dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!*out_dl) {
    fprintf(stderr, "  dlopen %s: %s\n", path, dlerror());
    return NULL;
  }
  void *sym = dlsym(*out_dl, SHARD_PLUGIN_ENTRY_SYMBOL);
  if (!sym) return NULL;
  shard_plugin_entry_fn entry;
  memcpy(&entry, &sym, sizeof entry);
  return entry(0);
}

/* value table (n_values entries) in the descriptor's order; NAN = absent */
static int create_law(const shard_plugin *d, const double *values, uint32_t n_values,
                      const shard_scales *scales, void **out, shard_msg *msg) {
  shard_param_value vals[4];
  memset(vals, 0, sizeof vals);
  for (uint32_t i = 0; i < d->n_params && i < n_values && i < 4; ++i)
    if (!isnan(values[i])) {
      vals[i].set = 1;
      vals[i].real = values[i];
    }
  const shard_params params = {.specs = d->params, .count = d->n_params, .values = vals};
  *out = NULL;
  return ((const shard_contact_law_ops *)d->ops)->create(&params, scales, out, msg);
}

static void test_contact_laws_descriptors(void) {
  void *dl1, *dl2;
  const shard_plugin *ni = load_plugin("newton_impact", &dl1), *pen = load_plugin("penalty", &dl2);
  CU_ASSERT_FATAL(ni != NULL && pen != NULL);
  CU_ASSERT(ni->abi_version == SHARD_ABI_VERSION && pen->abi_version == SHARD_ABI_VERSION);
  CU_ASSERT(ni->kind == SHARD_KIND_CONTACT_LAW && pen->kind == SHARD_KIND_CONTACT_LAW);
  CU_ASSERT_STRING_EQUAL(ni->name, "newton_impact");
  CU_ASSERT_STRING_EQUAL(pen->name, "penalty");
  CU_CHECK_MSG(ni->caps == SHARD_CAP_IMPACT_LAW, "newton_impact caps 0x%llx", (unsigned long long)ni->caps);
  CU_CHECK_MSG(pen->caps == SHARD_CAP_FORCE_LAW, "penalty caps 0x%llx", (unsigned long long)pen->caps);
  CU_ASSERT(ni->ops_size == sizeof(shard_contact_law_ops) && pen->ops_size == sizeof(shard_contact_law_ops));
  const shard_contact_law_ops *nio = ni->ops, *peno = pen->ops;
  CU_ASSERT(nio->restitution != NULL && peno->force != NULL && peno->max_stiffness != NULL);
  /* parameter tables, by name (others write case files against them) */
  CU_ASSERT_EQUAL_FATAL(ni->n_params, 1);
  CU_ASSERT_STRING_EQUAL(ni->params[0].key, "restitution");
  CU_ASSERT(ni->params[0].type == SHARD_PARAM_REAL && (ni->params[0].flags & SHARD_PARAM_REQUIRED) &&
            ni->params[0].min == 0.0 && ni->params[0].max == 1.0 && ni->params[0].def == NULL);
  CU_ASSERT_EQUAL_FATAL(pen->n_params, 2);
  CU_ASSERT_STRING_EQUAL(pen->params[0].key, "alpha");
  CU_ASSERT_STRING_EQUAL(pen->params[1].key, "stiffness");
  for (int i = 0; i < 2; ++i)
    CU_ASSERT(pen->params[i].type == SHARD_PARAM_REAL && (pen->params[i].flags & SHARD_PARAM_MIN_EXCLUSIVE) &&
              !(pen->params[i].flags & SHARD_PARAM_REQUIRED) && pen->params[i].def == NULL);
  nio->destroy(NULL);
  peno->destroy(NULL);
  dlclose(dl1);
  dlclose(dl2);
}

static void test_contact_laws_newton_impact(void) {
  void *dl;
  const shard_plugin *d = load_plugin("newton_impact", &dl);
  CU_ASSERT_FATAL(d != NULL);
  const shard_contact_law_ops *ops = d->ops;
  const double good[3] = {0.0, 0.8, 1.0};
  for (int k = 0; k < 3; ++k) {
    void *self;
    shard_msg msg = {{0}};
    CU_ASSERT_EQUAL_FATAL(create_law(d, &good[k], 1, NULL, &self, &msg), SHARD_OK);
    double e[5] = {-1, -1, -1, -1, -1};
    const double vn[4] = {-3.0, 0.0, 2.0, -1e-9}, gap[4] = {0.0, 1.0, -1e-6, 0.0};
    const shard_impact_kinematics kin = {.struct_size = sizeof kin, .n = 4, .v_n = vn, .gap = gap};
    ops->restitution(self, &kin, e);
    for (int i = 0; i < 4; ++i) CU_NEAR(e[i], good[k], 0.0);
    CU_NEAR(e[4], -1.0, 0.0); /* writes n values, no more */
    ops->destroy(self);
  }
  const double bad[4] = {-0.1, 1.2, INFINITY, NAN};
  for (int k = 0; k < 4; ++k) {
    void *self = &dl;
    shard_msg msg = {{0}};
    int rc = create_law(d, &bad[k], 1, NULL, &self, &msg);
    if (isnan(bad[k])) {
      CU_CHECK_MSG(rc == SHARD_ERR_INPUT && strstr(msg.text, "required"), "missing restitution: rc %d '%.200s'", rc,
                   msg.text);
    } else {
      CU_CHECK_MSG(rc == SHARD_ERR_INPUT && strstr(msg.text, "[0, 1]"), "restitution %g: rc %d '%.200s'", bad[k], rc,
                   msg.text);
    }
    CU_ASSERT(self == NULL);
  }
  dlclose(dl);
}

static void test_contact_laws_penalty_values(void) {
  void *dl;
  const shard_plugin *d = load_plugin("penalty", &dl);
  CU_ASSERT_FATAL(d != NULL);
  const shard_contact_law_ops *ops = d->ops;
  /* absolute stiffness 1e6 Pa/m on an area of 2 m² */
  const probe_scales scv = {.young = 2e11, .area = 2.0, .h_mean = 1e-3};
  const shard_scales sc = probe_scales_view(&scv);
  const double vals[2] = {NAN, 1e6};
  void *self;
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL_FATAL(create_law(d, vals, 2, &sc, &self, &msg), SHARD_OK);
  const double g[5] = {-1e-3, 0.0, 2e-3, -2e-6, -0.0};
  double f[5], k[5], en[5];
  ops->force(self, 5, g, f, k, en);
  const double fx[5] = {2e3, 0.0, 0.0, 4.0, 0.0}, kx[5] = {2e6, 0.0, 0.0, 2e6, 0.0};
  const double ex[5] = {1.0, 0.0, 0.0, 0.5 * 2e6 * 4e-12, 0.0};
  for (int i = 0; i < 5; ++i) {
    CU_NEAR(f[i], fx[i], 1e-12 * fabs(fx[i]));
    CU_NEAR(k[i], kx[i], 0.0);
    CU_NEAR(en[i], ex[i], 1e-12 * fabs(ex[i]));
  }
  CU_NEAR(ops->max_stiffness(self), 2e6, 0.0);
  /* consistency on the penetrated side: k = df/d(-g), f = dE/d(-g) */
  const double g0 = -3e-4, dg = 1e-7;
  double gp[2] = {g0 - dg, g0 + dg}, fp[2], kp[2], ep[2];
  ops->force(self, 2, gp, fp, kp, ep);
  CU_NEAR((fp[0] - fp[1]) / (2 * dg), kp[0], 1e-6 * kp[0]);
  CU_NEAR((ep[0] - ep[1]) / (2 * dg), 2e6 * 3e-4, 1e-6 * 2e6 * 3e-4);
  ops->destroy(self);

  /* alpha: eps_n = alpha E / h_mean, times the area; area 0 counts as 1 */
  const double va[2] = {10.0, NAN};
  const probe_scales barv = {.young = 2.11e11, .area = 6.45e-4, .h_mean = 0.254 / 50};
  const shard_scales bar = probe_scales_view(&barv);
  CU_ASSERT_EQUAL_FATAL(create_law(d, va, 2, &bar, &self, &msg), SHARD_OK);
  CU_NEAR(ops->max_stiffness(self), 10.0 * 2.11e11 / (0.254 / 50) * 6.45e-4, 1e-3);
  ops->destroy(self);
  const probe_scales noareav = {.young = 1e9, .h_mean = 1e-2};
  const shard_scales noarea = probe_scales_view(&noareav);
  CU_ASSERT_EQUAL_FATAL(create_law(d, va, 2, &noarea, &self, &msg), SHARD_OK);
  CU_NEAR(ops->max_stiffness(self), 10.0 * 1e9 / 1e-2, 1e-3);
  ops->destroy(self);
  dlclose(dl);
}

static void test_contact_laws_penalty_errors(void) {
  void *dl;
  const shard_plugin *d = load_plugin("penalty", &dl);
  CU_ASSERT_FATAL(d != NULL);
  const probe_scales barv = {.young = 2e11, .area = 1.0, .h_mean = 1e-3}, particlev = {.mass_min = 1.0};
  const shard_scales bar = probe_scales_view(&barv), particle = probe_scales_view(&particlev);
  struct {
    double v[2];
    const shard_scales *sc;
    const char *needle;
  } cases[] = {
      {{10.0, 1e6}, &bar, "exactly one"},
      {{NAN, NAN}, &bar, "exactly one"},
      {{10.0, NAN}, &particle, "stiffness"},
      {{10.0, NAN}, NULL, "stiffness"},
      {{-1.0, NAN}, &bar, "alpha"},
      {{NAN, 0.0}, &bar, "stiffness"},
      {{NAN, INFINITY}, &bar, "stiffness"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    void *self = &dl;
    shard_msg msg = {{0}};
    int rc = create_law(d, cases[i].v, 2, cases[i].sc, &self, &msg);
    CU_CHECK_MSG(rc == SHARD_ERR_INPUT && self == NULL && strstr(msg.text, cases[i].needle),
                 "case %zu: rc %d, message '%.200s' (expected '%s')", i, rc, msg.text, cases[i].needle);
  }
  /* a particle with an absolute stiffness is fine */
  void *self;
  shard_msg msg = {{0}};
  const double vk[2] = {NAN, 5e4};
  CU_ASSERT_EQUAL(create_law(d, vk, 2, &particle, &self, &msg), SHARD_OK);
  CU_NEAR(((const shard_contact_law_ops *)d->ops)->max_stiffness(self), 5e4, 0.0);
  ((const shard_contact_law_ops *)d->ops)->destroy(self);
  dlclose(dl);
}

/* e of thornton_impact at approach speeds v (v_n = -v) */
static void thornton_eval(const shard_contact_law_ops *ops, const void *self, const double *v, int32_t n, double *e) {
  double vn[64], gap[64];
  for (int32_t i = 0; i < n; ++i) vn[i] = -v[i], gap[i] = 0.0;
  const shard_impact_kinematics k = {.struct_size = sizeof k, .n = n, .v_n = vn, .gap = gap};
  ops->restitution(self, &k, e);
}

/* Thornton (1997): e = 1 up to v_y, continuous (and flat) there, decreasing
 * above, and e (v/v_y)^(1/4) -> sqrt(6 sqrt(3)/5) (2 sqrt(6/5))^(-1/4) =
 * 1.18499... at high speed; one value by hand; separating contacts e = 1;
 * the floor e_min. */
static void test_contact_laws_thornton_values(void) {
  void *dl;
  const shard_plugin *d = load_plugin("thornton_impact", &dl);
  CU_ASSERT_FATAL(d != NULL);
  CU_ASSERT_EQUAL(d->caps, SHARD_CAP_IMPACT_LAW | SHARD_CAP_VELOCITY_DEPENDENT);
  const shard_contact_law_ops *ops = d->ops;
  const double vy = 2.5;
  double vals[2] = {vy, NAN}; /* v_y, e_min (default 0 below) */
  shard_param_value pv[2];
  memset(pv, 0, sizeof pv);
  pv[0].set = 1, pv[0].real = vals[0];
  pv[1].set = 1, pv[1].real = 0.0;
  shard_params params = {d->params, d->n_params, pv};
  void *self = NULL;
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL_FATAL(ops->create(&params, NULL, &self, &msg), SHARD_OK);
  /* at and below v_y: elastic; just above: continuous, to second order */
  const double below[4] = {0.0, 1e-3 * vy, 0.5 * vy, vy};
  double e[64];
  thornton_eval(ops, self, below, 4, e);
  for (int i = 0; i < 4; ++i) CU_NEAR(e[i], 1.0, 0.0);
  const double above[3] = {vy * (1 + 1e-9), vy * (1 + 1e-6), vy * (1 + 1e-3)};
  thornton_eval(ops, self, above, 3, e);
  CU_NEAR(e[0], 1.0, 1e-14);
  CU_NEAR(e[1], 1.0, 1e-11); /* de/dv = 0 at v_y: 1 - e = O((v/v_y - 1)^2) */
  CU_ASSERT(e[2] < 1.0 && e[2] > 1.0 - 1e-5);
  /* by hand at v = 2 v_y (x = 1/2): sqrt(6 sqrt3/5) sqrt(23/24) (0.5 / (0.5 + 2 sqrt(1.15)))^(1/4) */
  const double two[1] = {2.0 * vy};
  thornton_eval(ops, self, two, 1, e);
  CU_NEAR(e[0], 0.93062587727365, 1e-13);
  /* monotone decrease on a log grid over eight decades */
  double v[64];
  for (int i = 0; i < 64; ++i) v[i] = vy * pow(10.0, 8.0 * (i + 1) / 64.0);
  thornton_eval(ops, self, v, 64, e);
  for (int i = 1; i < 64; ++i) CU_CHECK_MSG(e[i] < e[i - 1], "e(%g) = %.17g >= e(%g) = %.17g", v[i], e[i], v[i - 1], e[i - 1]);
  for (int i = 0; i < 64; ++i) CU_ASSERT(e[i] > 0.0 && e[i] < 1.0);
  /* the asymptote e ~ C (v_y/v)^(1/4): the slope of log e against log v tends to -1/4, the prefactor to C */
  const double C = sqrt(6.0 * sqrt(3.0) / 5.0) * pow(2.0 * sqrt(6.0 / 5.0), -0.25);
  CU_NEAR(C, 1.18499299, 1e-8);
  CU_NEAR(e[63] * pow(v[63] / vy, 0.25), C, 1e-8 * C);
  CU_NEAR(log(e[63] / e[55]) / log(v[63] / v[55]), -0.25, 1e-6);
  /* separating (v_n > 0) and resting constraints: e = 1 */
  const double vn_sep[3] = {3.0 * vy, 1e6, 0.0}, gsep[3] = {0.0, 1.0, 0.0};
  const shard_impact_kinematics ks = {.struct_size = sizeof ks, .n = 3, .v_n = vn_sep, .gap = gsep};
  double es[4] = {-1, -1, -1, -1};
  ops->restitution(self, &ks, es);
  for (int i = 0; i < 3; ++i) CU_NEAR(es[i], 1.0, 0.0);
  CU_NEAR(es[3], -1.0, 0.0); /* writes n values, no more */
  ops->destroy(self);
  /* the floor */
  pv[1].real = 0.5;
  CU_ASSERT_EQUAL_FATAL(ops->create(&params, NULL, &self, &msg), SHARD_OK);
  const double fast[2] = {2.0 * vy, 1e4 * vy};
  thornton_eval(ops, self, fast, 2, e);
  CU_NEAR(e[0], 0.93062587727365, 1e-13);
  CU_NEAR(e[1], 0.5, 0.0);
  ops->destroy(self);
  /* v_y is required and positive */
  pv[1].real = 0.0;
  pv[0].set = 0;
  self = &dl;
  CU_ASSERT_EQUAL(ops->create(&params, NULL, &self, &msg), SHARD_ERR_INPUT);
  CU_ASSERT(self == NULL && strstr(msg.text, "v_y"));
  pv[0].set = 1, pv[0].real = 0.0;
  CU_ASSERT_EQUAL(ops->create(&params, NULL, &self, &msg), SHARD_ERR_INPUT);
  CU_ASSERT(self == NULL && strstr(msg.text, "v_y"));
  (void)vals;
  dlclose(dl);
}

static const cu_test_def tests[] = {
    {"test_contact_laws_descriptors", test_contact_laws_descriptors},
    {"test_contact_laws_newton_impact", test_contact_laws_newton_impact},
    {"test_contact_laws_penalty_values", test_contact_laws_penalty_values},
    {"test_contact_laws_penalty_errors", test_contact_laws_penalty_errors},
    {"test_contact_laws_thornton_values", test_contact_laws_thornton_values},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "contact_laws", tests); }
