/* tests: the integrator contract, run on EVERY integrator plugin found in
 * SHARD_PLUGIN_DIR (loaded through the registry, none skipped), plus the
 * scheme-specific equations of the four of the tree (nsn, moreau_jean,
 * cd_lagrange, explicit_newmark), on a mock shard_system written here:
 *   - a particle above a floor (1 DOF, g = u, H = [1]) under gravity;
 *   - a short spring chain (ground spring, lumped masses, linear springs)
 *     with a right wall and an interface between two of its nodes, and an
 *     optional prescribed DOF.
 * The mock's contact_operator implements H_R M⁻¹(M − kcoef K)M⁻¹H_Rᵀ and its
 * lcp_solve solves small LCPs exactly by enumerating the complementary
 * index sets.
 *
 * The contract every integrator meets (a new plugin is checked by building
 * it): a sound descriptor (one contact-law family, on_insert exactly with
 * SHARD_CAP_TOPOLOGY, destroy(NULL)), the exact parabola under constant
 * acceleration, SHARD_ERR_NUMERIC on a non-finite force; for the impact
 * family also the particle and bar references (the ball benchmark, its
 * first-order convergence, the impacting bar) and, when it needs an LCP, a
 * failing solve passed up with the state untouched. The four of the tree
 * are checked against their own figures (caps, parameters, eta of the
 * ball, ...); a new one against the loosest acceptance bound of the four. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_runner.h"
#include "loader/registry.h"
#include "shard/integrator.h"
#include "shard/lcp_solver.h"

/* an allocation that cannot be served returns NULL under AddressSanitizer
 * too (the out-of-memory case of test_integrators_reserve_grows) */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

#define NMAX 64
#define PI_ 3.14159265358979323846
#define CMAX 4

/* ---------------------------------------------------------------- mock ---- */

typedef struct mock {
  shard_system sys;
  shard_system_ops ops;
  shard_step_stats stats;
  double u[NMAX], v[NMAX], a[NMAX], aux[NMAX], mass[NMAX], minv[NMAX], e[CMAX], impulse[CMAX];
  double kd[NMAX][NMAX]; /* stiffness, dense */
  double hd[CMAX][NMAX]; /* constraint rows, dense */
  double g0[CMAX];       /* g = g0 + H u */
  double fext[NMAX];     /* constant external force */
  double pen[CMAX];      /* penalty stiffness of each constraint (0: none): force pen max(-g, 0) along H */
  int prescribed[NMAX];
  double vpres[NMAX];
  int force_nan;
  int lcp_fail; /* lcp_solve returns this status when non-zero */
  /* CSR views */
  int32_t k_rowptr[NMAX + 1], k_col[NMAX * NMAX];
  double k_val[NMAX * NMAX];
  shard_csr k;
  int32_t h_rowptr[CMAX + 1], h_col[CMAX * NMAX];
  double h_val[CMAX * NMAX];
  shard_csr h;
  int32_t w_rowptr[CMAX + 1], w_col[CMAX * CMAX];
  double w_val[CMAX * CMAX];
  shard_csr w;
  /* call log */
  int stiffness_calls, lcp_calls, operator_calls;
  uint32_t last_flags;
  double last_kcoef;
} mock;

static int mock_force(shard_system *sys, double t, const double *u, double *out_f, shard_msg *msg) {
  (void)t;
  mock *m = sys->host;
  for (int32_t i = 0; i < sys->ndof; ++i) {
    double f = m->fext[i];
    for (int32_t j = 0; j < sys->ndof; ++j) f -= m->kd[i][j] * u[j];
    out_f[i] = m->force_nan ? NAN : f;
  }
  for (int32_t c = 0; c < sys->ncon; ++c) {
    if (m->pen[c] == 0.0) continue;
    double g = m->g0[c];
    for (int32_t j = 0; j < sys->ndof; ++j) g += m->hd[c][j] * u[j];
    if (g < 0.0)
      for (int32_t i = 0; i < sys->ndof; ++i) out_f[i] -= m->pen[c] * g * m->hd[c][i];
  }
  (void)msg;
  return SHARD_OK;
}

static int mock_stiffness(shard_system *sys, const double *u, const shard_csr **out_k, shard_msg *msg) {
  (void)u;
  (void)msg;
  mock *m = sys->host;
  m->stiffness_calls++;
  *out_k = &m->k;
  return SHARD_OK;
}

static void mock_gaps(shard_system *sys, const double *u, double *out_g) {
  mock *m = sys->host;
  for (int32_t c = 0; c < sys->ncon; ++c) {
    double g = m->g0[c];
    for (int32_t j = 0; j < sys->ndof; ++j) g += m->hd[c][j] * u[j];
    out_g[c] = g;
  }
}

static int mock_contact_operator(shard_system *sys, const int32_t *rows, int32_t n, double kcoef,
                                 const shard_csr **out_w, shard_msg *msg) {
  mock *m = sys->host;
  m->operator_calls++;
  m->last_kcoef = kcoef;
  if (kcoef != 0.0 && m->stiffness_calls == 0)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL, "mock: contact_operator with K before any stiffness() call");
  const int32_t nd = sys->ndof;
  for (int32_t r = 0; r < n; ++r) {
    m->w_rowptr[r] = r * n;
    for (int32_t c = 0; c < n; ++c) {
      double s = 0.0;
      for (int32_t i = 0; i < nd; ++i)
        for (int32_t j = 0; j < nd; ++j) {
          double mid = (i == j ? m->mass[i] : 0.0) - kcoef * m->kd[i][j];
          s += m->hd[rows[r]][i] * m->minv[i] * mid * m->minv[j] * m->hd[rows[c]][j];
        }
      m->w_col[r * n + c] = c;
      m->w_val[r * n + c] = s;
    }
  }
  m->w_rowptr[n] = n * n;
  m->w.nrows = m->w.ncols = n;
  *out_w = &m->w;
  return SHARD_OK;
}

/* Solve A x = b (n ≤ CMAX) by Gaussian elimination with partial pivoting;
 * 0 if singular. */
static int dense_solve(int n, double a[CMAX][CMAX], double *b) {
  for (int k = 0; k < n; ++k) {
    int piv = k;
    for (int i = k + 1; i < n; ++i)
      if (fabs(a[i][k]) > fabs(a[piv][k])) piv = i;
    if (fabs(a[piv][k]) < 1e-300) return 0;
    for (int j = 0; j < n; ++j) {
      double t = a[k][j];
      a[k][j] = a[piv][j];
      a[piv][j] = t;
    }
    double t = b[k];
    b[k] = b[piv];
    b[piv] = t;
    for (int i = k + 1; i < n; ++i) {
      double f = a[i][k] / a[k][k];
      for (int j = k; j < n; ++j) a[i][j] -= f * a[k][j];
      b[i] -= f * b[k];
    }
  }
  for (int k = n - 1; k >= 0; --k) {
    for (int j = k + 1; j < n; ++j) b[k] -= a[k][j] * b[j];
    b[k] /= a[k][k];
  }
  return 1;
}

/* Exact LCP by enumeration of the support set. */
static int mock_lcp_solve(shard_system *sys, const shard_csr *w, const double *q, uint32_t flags, double *z,
                          shard_msg *msg) {
  mock *m = sys->host;
  m->lcp_calls++;
  m->last_flags = flags;
  if (m->lcp_fail) return shard_msg_set(msg, m->lcp_fail, "mock: solver failed");
  const int n = w->nrows;
  double wd[CMAX][CMAX] = {{0}};
  for (int i = 0; i < n; ++i)
    for (int k = w->rowptr[i]; k < w->rowptr[i + 1]; ++k) wd[i][w->colind[k]] = w->val[k];
  double scale = 1e-300;
  for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(q[i]));
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    int idx[CMAX], ns = 0;
    for (int i = 0; i < n; ++i)
      if (mask & (1u << i)) idx[ns++] = i;
    double a[CMAX][CMAX], b[CMAX];
    for (int r = 0; r < ns; ++r) {
      for (int c = 0; c < ns; ++c) a[r][c] = wd[idx[r]][idx[c]];
      b[r] = -q[idx[r]];
    }
    if (ns > 0 && !dense_solve(ns, a, b)) continue;
    double zz[CMAX] = {0};
    int ok = 1;
    for (int r = 0; r < ns; ++r) {
      zz[idx[r]] = b[r];
      if (b[r] < 0.0) ok = 0;
    }
    for (int i = 0; i < n && ok; ++i) {
      double wi = q[i];
      for (int j = 0; j < n; ++j) wi += wd[i][j] * zz[j];
      if (!(mask & (1u << i)) && wi < -1e-12 * scale) ok = 0;
    }
    if (!ok) continue;
    for (int i = 0; i < n; ++i) z[i] = zz[i];
    if (sys->stats) {
      sys->stats->lcp_blocks = 1;
      sys->stats->lcp_max_block = n;
      sys->stats->lcp_iterations = (int64_t)mask + 1;
      sys->stats->lcp_residual = 0.0;
    }
    return SHARD_OK;
  }
  return shard_msg_set(msg, SHARD_NO_SOLUTION, "mock: LCP of size %d has no solution", n);
}

static void mock_prescribe(shard_system *sys, double t, double *v, double *a) {
  (void)t;
  mock *m = sys->host;
  for (int32_t i = 0; i < sys->ndof; ++i)
    if (m->prescribed[i]) {
      v[i] = m->vpres[i];
      a[i] = 0.0;
    }
}

/* Build the CSR views and the shard_system from the dense data. */
static void mock_finish(mock *m, int32_t n, int32_t nc) {
  int32_t nnz = 0;
  m->k_rowptr[0] = 0;
  for (int32_t i = 0; i < n; ++i) {
    for (int32_t j = 0; j < n; ++j)
      if (m->kd[i][j] != 0.0) {
        m->k_col[nnz] = j;
        m->k_val[nnz++] = m->kd[i][j];
      }
    m->k_rowptr[i + 1] = nnz;
  }
  m->k = (shard_csr){.nrows = n, .ncols = n, .rowptr = m->k_rowptr, .colind = m->k_col, .val = m->k_val};
  nnz = 0;
  m->h_rowptr[0] = 0;
  for (int32_t c = 0; c < nc; ++c) {
    for (int32_t j = 0; j < n; ++j)
      if (m->hd[c][j] != 0.0) {
        m->h_col[nnz] = j;
        m->h_val[nnz++] = m->hd[c][j];
      }
    m->h_rowptr[c + 1] = nnz;
  }
  m->h = (shard_csr){.nrows = nc, .ncols = n, .rowptr = m->h_rowptr, .colind = m->h_col, .val = m->h_val};
  m->w = (shard_csr){.nrows = 0, .ncols = 0, .rowptr = m->w_rowptr, .colind = m->w_col, .val = m->w_val};
  for (int32_t i = 0; i < n; ++i) m->minv[i] = m->prescribed[i] ? 0.0 : 1.0 / m->mass[i];
  m->ops = (shard_system_ops){.force = mock_force,
                              .stiffness = mock_stiffness,
                              .gaps = mock_gaps,
                              .contact_operator = mock_contact_operator,
                              .lcp_solve = mock_lcp_solve,
                              .prescribe = mock_prescribe};
  m->sys = (shard_system){.struct_size = sizeof(shard_system),
                          .ndof = n,
                          .ndof_max = NMAX,
                          .ncon = nc,
                          .ncon_max = CMAX,
                          .t = 0.0,
                          .u = m->u,
                          .v = m->v,
                          .a = m->a,
                          .aux = m->aux,
                          .n_aux = 1,
                          .mass = m->mass,
                          .minv = m->minv,
                          .h = &m->h,
                          .restitution = m->e,
                          .impulse = m->impulse,
                          .stats = &m->stats,
                          .host = m,
                          .ops = &m->ops};
}

/* The host's a0 = M⁻¹ f(u0), prescribed values applied. */
static void mock_initial_acceleration(mock *m) {
  double f[NMAX];
  shard_msg msg;
  mock_force(&m->sys, 0.0, m->u, f, &msg);
  for (int32_t i = 0; i < m->sys.ndof; ++i) m->a[i] = m->minv[i] * f[i];
  mock_prescribe(&m->sys, 0.0, m->v, m->a);
}

static const double grav = 9.81;

/* particle of mass `mass` at height u0 with velocity v0 above a floor at 0 */
static void mock_particle(mock *m, double mass, double u0, double v0, double e) {
  memset(m, 0, sizeof *m);
  m->mass[0] = mass;
  m->fext[0] = -mass * grav;
  m->hd[0][0] = 1.0;
  m->e[0] = e;
  m->u[0] = u0;
  m->v[0] = v0;
  mock_finish(m, 1, 1);
  mock_initial_acceleration(m);
}

/* chain: DOF i of mass ms[i]; spring ks[0] from the ground to DOF 0 and
 * ks[i] between DOFs i-1 and i (i = 1..n-1). */
static void mock_chain_stiffness(mock *m, int32_t n, const double *ms, const double *ks) {
  for (int32_t i = 0; i < n; ++i) m->mass[i] = ms[i];
  m->kd[0][0] += ks[0];
  for (int32_t i = 1; i < n; ++i) {
    m->kd[i - 1][i - 1] += ks[i];
    m->kd[i][i] += ks[i];
    m->kd[i - 1][i] -= ks[i];
    m->kd[i][i - 1] -= ks[i];
  }
}

/* 4-DOF chain with a right wall on DOF 3 (g = 0.01 − u_3) and an interface
 * between DOFs 1 and 2 (g = 0.002 + u_2 − u_1), both closing fast; DOF 0 is
 * prescribed when `with_prescribed`. */
static void mock_chain_contact(mock *m, int with_prescribed) {
  memset(m, 0, sizeof *m);
  const double ms[4] = {1.0, 2.0, 1.5, 1.0}, ks[4] = {50.0, 80.0, 60.0, 90.0};
  mock_chain_stiffness(m, 4, ms, ks);
  const double fe[4] = {0.0, 1.0, -2.0, 3.0}, v0[4] = {0.0, 3.0, -2.0, 5.0};
  for (int i = 0; i < 4; ++i) {
    m->fext[i] = fe[i];
    m->v[i] = v0[i];
    m->u[i] = 1e-3 * (i - 1.5);
  }
  m->hd[0][3] = -1.0;
  m->g0[0] = 0.01 + m->u[3];
  m->hd[1][1] = -1.0;
  m->hd[1][2] = 1.0;
  m->g0[1] = 0.002 + m->u[1] - m->u[2];
  m->e[0] = 0.5;
  m->e[1] = 0.3;
  if (with_prescribed) {
    m->prescribed[0] = 1;
    m->vpres[0] = 0.7;
    m->v[0] = 0.7;
  }
  mock_finish(m, 4, 2);
  mock_initial_acceleration(m);
}

/* ------------------------------------------------------------- plugins ---- */

typedef struct integ {
  const shard_plugin *desc;
  const shard_integrator_ops *ops;
  void *self;
} integ;

/* every integrator of SHARD_PLUGIN_DIR, by name (discover(), before the tests run) */
#define MAX_INTEG 32
static shard_registry *reg;
static const char *names[MAX_INTEG];
static int n_integ;

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static int discover(void) {
  shard_msg msg = {{0}};
  if (shard_registry_create(&reg, &msg) != SHARD_OK || shard_registry_load_dir(reg, SHARD_PLUGIN_DIR, &msg) != SHARD_OK) {
    fprintf(stderr, "integrators: registry of %s: %s\n", SHARD_PLUGIN_DIR, msg.text);
    return 0;
  }
  for (size_t i = 0; i < shard_registry_count(reg); ++i) {
    const shard_plugin *d = shard_registry_at(reg, i)->desc;
    if (d->kind != SHARD_KIND_INTEGRATOR) continue;
    if (n_integ == MAX_INTEG) {
      fprintf(stderr, "integrators: more than %d integrator plugins: raise MAX_INTEG\n", MAX_INTEG);
      return 0;
    }
    names[n_integ++] = d->name;
  }
  qsort(names, (size_t)n_integ, sizeof *names, cmp_str);
  printf("integrators: %d plugins:", n_integ);
  for (int i = 0; i < n_integ; ++i) printf(" %s", names[i]);
  printf("\n");
  return n_integ > 0;
}

static const shard_plugin *load_plugin(const char *name) {
  const shard_loaded_plugin *lp = shard_registry_find(reg, SHARD_KIND_INTEGRATOR, name);
  if (!lp) fprintf(stderr, "  no integrator plugin '%s' in %s\n", name, SHARD_PLUGIN_DIR);
  return lp ? lp->desc : NULL;
}

static int impact_family(const char *name) {
  const shard_plugin *d = load_plugin(name);
  return d && (d->caps & SHARD_CAP_IMPACT_LAW);
}

/* What the integrators of the tree are known to give; a plugin not listed
 * here gets the loosest bound of the four. */
typedef struct known_integ {
  const char *name;
  uint64_t caps;
  uint32_t nparams, naux;
  double ball_bound[2], ball_ref[2]; /* eta of the ball at e = 1, 0.8: acceptance bound, independent figure */
  double bar_dt;                     /* contact duration of the bar within this many dt of 2L/c */
} known_integ;

/* the explicit schemes are conditionally stable (the host refuses dt > dt_c); Moreau-Jean is implicit */
static const known_integ known[] = {
    {"nsn", SHARD_CAP_IMPACT_LAW | SHARD_CAP_NEEDS_LCP | SHARD_CAP_TOPOLOGY | SHARD_CAP_CONDITIONALLY_STABLE, 2, 0,
     {0.08, 0.06}, {0.062, 0.046}, 2.0},
    {"moreau_jean", SHARD_CAP_IMPACT_LAW | SHARD_CAP_NEEDS_LCP | SHARD_CAP_TOPOLOGY, 1, 0, {0.08, 0.06}, {0.062, 0.046}, 3.0},
    {"cd_lagrange", SHARD_CAP_IMPACT_LAW | SHARD_CAP_NEEDS_LCP | SHARD_CAP_TOPOLOGY | SHARD_CAP_CONDITIONALLY_STABLE,
     0, 1, {0.2, 0.1}, {0.146, 0.080}, 2.0},
    {"explicit_newmark", SHARD_CAP_FORCE_LAW | SHARD_CAP_TOPOLOGY | SHARD_CAP_CONDITIONALLY_STABLE, 0, 0, {0, 0},
     {0, 0}, 0.0},
};
#define N_KNOWN ((int)(sizeof known / sizeof known[0]))
static const known_integ unknown_integ = {NULL, 0, 0, 0, {0.2, 0.1}, {NAN, NAN}, 3.0};

static const known_integ *known_of(const char *name) {
  for (int k = 0; k < N_KNOWN; ++k)
    if (strcmp(known[k].name, name) == 0) return &known[k];
  return NULL;
}

/* Open an integrator with its defaults, overriding one real or bool
 * parameter when key != NULL. */
static int integ_open(integ *it, const char *name, const char *key, double value) {
  memset(it, 0, sizeof *it);
  it->desc = load_plugin(name);
  if (!it->desc) return 0;
  it->ops = it->desc->ops;
  shard_param_value vals[8];
  memset(vals, 0, sizeof vals);
  for (uint32_t i = 0; i < it->desc->n_params && i < 8; ++i) {
    const shard_param_spec *sp = &it->desc->params[i];
    if (sp->def) {
      vals[i].set = 1;
      vals[i].real = strtod(sp->def, NULL);
      vals[i].boolean = strcmp(sp->def, "true") == 0;
    }
    if (key && strcmp(sp->key, key) == 0) {
      vals[i].set = 1;
      vals[i].real = value;
      vals[i].boolean = value != 0.0;
    }
  }
  const shard_params params = {.specs = it->desc->params, .count = it->desc->n_params, .values = vals};
  const shard_scales scales = {.struct_size = sizeof(shard_scales)}; /* a model without scales */
  shard_msg msg = {{0}};
  if (it->ops->create(&params, &scales, &it->self, &msg) != SHARD_OK) {
    fprintf(stderr, "  create %s: %s\n", name, msg.text);
    return 0;
  }
  return 1;
}

static int integ_begin(integ *it, mock *m, double dt) {
  shard_msg msg = {{0}};
  int rc = it->ops->setup(it->self, &m->sys, &msg);
  if (rc == SHARD_OK) rc = it->ops->start(it->self, &m->sys, dt, &msg);
  if (rc != SHARD_OK) fprintf(stderr, "  %s setup/start: %s\n", it->desc->name, msg.text);
  return rc == SHARD_OK;
}

/* one step as the host does it: the integrator advances the state, the host
 * advances sys->t */
static int integ_step(integ *it, mock *m, double dt) {
  shard_msg msg = {{0}};
  int rc = it->ops->step(it->self, &m->sys, dt, &msg);
  if (rc != SHARD_OK) {
    fprintf(stderr, "  %s step: %s\n", it->desc->name, msg.text);
    return rc;
  }
  m->sys.t += dt;
  return rc;
}

static void integ_close(integ *it) {
  if (it->ops && it->ops->destroy) it->ops->destroy(it->self);
  memset(it, 0, sizeof *it);
}


/* --------------------------------------------------------------- tests ---- */

static void test_integrators_descriptors(void) {
  /* the tree's integrators are all there (the contract cannot lose one) */
  for (int k = 0; k < N_KNOWN; ++k) CU_CHECK_MSG(load_plugin(known[k].name) != NULL, "%s not found", known[k].name);
  for (int p = 0; p < n_integ; ++p) {
    integ it;
    CU_ASSERT_FATAL(integ_open(&it, names[p], NULL, 0.0));
    const shard_plugin *d = it.desc;
    CU_CHECK_MSG(d->abi_version == SHARD_ABI_VERSION && d->struct_size == sizeof(shard_plugin) &&
                     d->real_size == sizeof(shard_real),
                 "%s: descriptor header", names[p]);
    CU_CHECK_MSG(d->kind == SHARD_KIND_INTEGRATOR, "%s: kind %u", names[p], d->kind);
    const uint64_t fam = d->caps & (SHARD_CAP_IMPACT_LAW | SHARD_CAP_FORCE_LAW);
    CU_CHECK_MSG(fam == SHARD_CAP_IMPACT_LAW || fam == SHARD_CAP_FORCE_LAW, "%s: one contact-law family", names[p]);
    CU_CHECK_MSG(d->ops_size == sizeof(shard_integrator_ops), "%s: ops_size", names[p]);
    const uint32_t naux = it.ops->n_aux ? it.ops->n_aux(it.self) : 0;
    CU_CHECK_MSG(naux <= 1, "%s: n_aux %u, the mock holds one aux vector (extend it)", names[p], naux);
    CU_CHECK_MSG(((d->caps & SHARD_CAP_TOPOLOGY) != 0) == (it.ops->on_insert != NULL),
                 "%s: on_insert present exactly when TOPOLOGY", names[p]);
    const known_integ *kn = known_of(names[p]);
    if (kn) {
      CU_CHECK_MSG(d->caps == kn->caps, "%s: caps 0x%llx, expected 0x%llx", names[p], (unsigned long long)d->caps,
                   (unsigned long long)kn->caps);
      CU_CHECK_MSG(d->n_params == kn->nparams, "%s: %u parameters", names[p], d->n_params);
      CU_CHECK_MSG(naux == kn->naux, "%s: n_aux %u", names[p], naux);
    }
    it.ops->destroy(NULL); /* accepted */
    integ_close(&it);
  }
  const shard_plugin *d = load_plugin("nsn");
  CU_ASSERT_FATAL(d != NULL);
  CU_ASSERT_STRING_EQUAL(d->params[0].key, "closing_filter");
  CU_ASSERT_EQUAL(d->params[0].type, SHARD_PARAM_BOOL);
  CU_ASSERT_STRING_EQUAL(d->params[0].def, "false");
  d = load_plugin("moreau_jean");
  CU_ASSERT_FATAL(d != NULL);
  CU_ASSERT_STRING_EQUAL(d->params[0].key, "theta");
  CU_ASSERT_EQUAL(d->params[0].type, SHARD_PARAM_REAL);
  CU_ASSERT_STRING_EQUAL(d->params[0].def, "0.5");
  CU_ASSERT(d->params[0].min == 0.0 && d->params[0].max == 1.0);
  CU_ASSERT(d->params[0].flags & SHARD_PARAM_MIN_EXCLUSIVE);
}

static void test_integrators_mj_theta_refused(void) {
  integ it;
  const double bad[3] = {0.0, -0.5, 1.5};
  for (int i = 0; i < 3; ++i) {
    memset(&it, 0, sizeof it);
    it.desc = load_plugin("moreau_jean");
    CU_ASSERT_FATAL(it.desc != NULL);
    shard_param_value val = {.set = 1, .real = bad[i]};
    const shard_params params = {.specs = it.desc->params, .count = 1, .values = &val};
    shard_msg msg = {{0}};
    void *self = (void *)&it;
    int rc = ((const shard_integrator_ops *)it.desc->ops)->create(&params, NULL, &self, &msg);
    CU_CHECK_MSG(rc == SHARD_ERR_INPUT && self == NULL && strstr(msg.text, "theta"),
                 "theta = %g: rc %d, message '%.200s'", bad[i], rc, msg.text);
  }
}

/* docs/theory.md §3: one NSN step and one MJ(½) step of the particle in free flight */
static void test_integrators_appendix_b_free_flight(void) {
  const double dt = 1e-2, m0 = 2.0, u0 = 1.0, v0 = 0.3;
  mock mn, mm;
  integ nsn, mj;
  CU_ASSERT_FATAL(integ_open(&nsn, "nsn", NULL, 0.0) && integ_open(&mj, "moreau_jean", "theta", 0.5));
  mock_particle(&mn, m0, u0, v0, 0.8);
  mock_particle(&mm, m0, u0, v0, 0.8);
  CU_ASSERT_FATAL(integ_begin(&nsn, &mn, dt) && integ_begin(&mj, &mm, dt));
  CU_ASSERT_EQUAL(integ_step(&nsn, &mn, dt), SHARD_OK);
  CU_ASSERT_EQUAL(integ_step(&mj, &mm, dt), SHARD_OK);
  CU_NEAR(mn.u[0], mm.u[0], 1e-14);
  CU_NEAR(mn.v[0], mm.v[0], 1e-14);
  CU_NEAR(mn.u[0], u0 + dt * v0 - 0.5 * grav * dt * dt, 1e-14);
  CU_NEAR(mn.v[0], v0 - grav * dt, 1e-14);
  CU_NEAR(mm.a[0], -grav, 1e-11); /* (v1 − v0)/Δt: round-off / Δt */
  CU_ASSERT_EQUAL(mn.stats.n_active, 0);
  CU_ASSERT_EQUAL(mm.stats.n_active, 0);
  CU_ASSERT_EQUAL(mn.lcp_calls + mm.lcp_calls, 0);
  integ_close(&nsn);
  integ_close(&mj);
}

/* docs/theory.md §3: the impact step, both schemes detecting contact in this step */
static void test_integrators_appendix_b_impact(void) {
  const double dt = 1e-2, m0 = 2.0, u0 = 0.01, v0 = -3.0;
  const double es[4] = {0.0, 0.5, 0.8, 1.0};
  for (int k = 0; k < 4; ++k) {
    const double e = es[k];
    mock mn, mm;
    integ nsn, mj;
    CU_ASSERT_FATAL(integ_open(&nsn, "nsn", NULL, 0.0) && integ_open(&mj, "moreau_jean", "theta", 0.5));
    mock_particle(&mn, m0, u0, v0, e);
    mock_particle(&mm, m0, u0, v0, e);
    CU_ASSERT_FATAL(integ_begin(&nsn, &mn, dt) && integ_begin(&mj, &mm, dt));
    CU_ASSERT_EQUAL(integ_step(&nsn, &mn, dt), SHARD_OK);
    CU_ASSERT_EQUAL(integ_step(&mj, &mm, dt), SHARD_OK);
    CU_CHECK_MSG(mn.stats.n_active == 1 && mm.stats.n_active == 1, "e = %g: both detect the impact (%d, %d)", e,
                 mn.stats.n_active, mm.stats.n_active);
    CU_NEAR(mn.u[0], mm.u[0], 1e-14);
    CU_NEAR(mn.v[0], mm.v[0], 1e-14);
    CU_NEAR(mn.u[0], u0 + 0.5 * dt * (1.0 - e) * v0, 1e-14);
    CU_NEAR(mm.u[0], u0 + 0.5 * dt * (1.0 - e) * v0, 1e-14);
    CU_NEAR(mn.v[0], -e * v0, 1e-14);
    CU_NEAR(mm.v[0], -e * v0, 1e-14);
    /* same impulse p = m((1+e)|v0| + gΔt) */
    CU_NEAR(mn.impulse[0], m0 * (-(1.0 + e) * v0 + grav * dt), 1e-13);
    CU_NEAR(mm.impulse[0], mn.impulse[0], 1e-13);
    /* operator flags: W' and W are symmetric; both 1x1 and positive here */
    CU_CHECK_MSG((mn.last_flags & SHARD_LCP_SYMMETRIC) && (mm.last_flags & SHARD_LCP_PSD), "flags 0x%x 0x%x",
                 mn.last_flags, mm.last_flags);
    CU_NEAR(mn.last_kcoef, dt * dt / 4.0, 1e-18);
    integ_close(&nsn);
    integ_close(&mj);
  }
}

/* Constant acceleration: every scheme reproduces the exact parabola. */
static void test_integrators_free_flight_parabola(void) {
  const double dt = 1e-3, u0 = 100.0, v0 = 2.0;
  const int steps = 2000;
  for (int p = 0; p < n_integ; ++p) {
    mock m;
    integ it;
    CU_ASSERT_FATAL(integ_open(&it, names[p], NULL, 0.0));
    mock_particle(&m, 1.5, u0, v0, 1.0);
    CU_ASSERT_FATAL(integ_begin(&it, &m, dt));
    double err_u = 0.0, err_v = 0.0;
    for (int s = 1; s <= steps; ++s) {
      CU_ASSERT_EQUAL_FATAL(integ_step(&it, &m, dt), SHARD_OK);
      const double t = s * dt;
      err_u = fmax(err_u, fabs(m.u[0] - (u0 + v0 * t - 0.5 * grav * t * t)));
      err_v = fmax(err_v, fabs(m.v[0] - (v0 - grav * t)));
    }
    CU_CHECK_MSG(err_u < 1e-10 && err_v < 1e-10, "%s: parabola errors u %.3g v %.3g", names[p], err_u, err_v);
    CU_CHECK_MSG(m.lcp_calls == 0, "%s: no LCP in free flight", names[p]);
    integ_close(&it);
  }
}

/* CDL: the staggered velocity after an impact in the step is −e times the
 * one before, to round-off. */
static void test_integrators_cdl_impact(void) {
  const double dt = 1e-2, es[3] = {0.0, 0.8, 1.0};
  for (int k = 0; k < 3; ++k) {
    mock m;
    integ it;
    CU_ASSERT_FATAL(integ_open(&it, "cd_lagrange", NULL, 0.0));
    mock_particle(&m, 1.0, 0.005, -1.0, es[k]);
    CU_ASSERT_FATAL(integ_begin(&it, &m, dt));
    CU_NEAR(m.aux[0], -1.0 - 0.5 * dt * grav, 1e-15); /* v_½ = v_0 + Δt/2 a_0 */
    const double vh = m.aux[0];
    CU_ASSERT_EQUAL_FATAL(integ_step(&it, &m, dt), SHARD_OK);
    CU_ASSERT_EQUAL(m.stats.n_active, 1);
    CU_NEAR(m.u[0], 0.005 + dt * vh, 1e-16); /* never corrected */
    CU_NEAR(m.aux[0], -es[k] * vh, 1e-14);
    CU_NEAR(m.v[0], 0.5 * (vh - es[k] * vh), 1e-14);
    CU_NEAR(m.a[0], (-es[k] * vh - vh) / dt, 1e-11);
    CU_NEAR(m.impulse[0], -(1.0 + es[k]) * vh + grav * dt, 1e-14);
    CU_CHECK_MSG(m.last_flags == (SHARD_LCP_SYMMETRIC | SHARD_LCP_PSD), "flags 0x%x", m.last_flags);
    CU_NEAR(m.last_kcoef, 0.0, 0.0);
    integ_close(&it);
  }
}

/* Fixed-free chain of 3 equal masses started in its first mode. */
static void mock_mode_chain(mock *m, double *omega) {
  memset(m, 0, sizeof *m);
  const double ms[3] = {1.0, 1.0, 1.0}, ks[3] = {100.0, 100.0, 100.0};
  mock_chain_stiffness(m, 3, ms, ks);
  const double th = PI_ / 7.0; /* (2j−1)π/(2n+1), j = 1, n = 3 */
  for (int i = 0; i < 3; ++i) m->u[i] = 0.01 * sin((i + 1) * th);
  *omega = 2.0 * sqrt(100.0) * sin(th / 2.0);
  mock_finish(m, 3, 0);
  mock_initial_acceleration(m);
}

static double energy_mech(const mock *m) {
  double e = 0.0;
  for (int i = 0; i < m->sys.ndof; ++i) {
    e += 0.5 * m->mass[i] * m->v[i] * m->v[i];
    for (int j = 0; j < m->sys.ndof; ++j) e += 0.5 * m->u[i] * m->kd[i][j] * m->u[j];
  }
  return e;
}

/* algorithmic energy of the central-difference schemes (paper Eq. 58) */
static double energy_alg(const mock *m, double dt) {
  double e = energy_mech(m);
  for (int i = 0; i < m->sys.ndof; ++i) e -= dt * dt / 8.0 * m->mass[i] * m->a[i] * m->a[i];
  return e;
}

/* Period from upward zero crossings of u_0 (linear interpolation: its error
 * is O(Δt³) at a zero of a sine). Also the largest energy drift. */
static double measure_period(const char *name, double theta, double dt, int periods, double omega, double *drift,
                             double *emech_spread) {
  mock m;
  integ it;
  double w;
  mock_mode_chain(&m, &w);
  (void)omega;
  if (!integ_open(&it, name, theta > 0 ? "theta" : NULL, theta)) return NAN;
  if (!integ_begin(&it, &m, dt)) return NAN;
  const int mj = strcmp(name, "moreau_jean") == 0;
  const double e0 = mj ? energy_mech(&m) : energy_alg(&m, dt);
  const double em0 = energy_mech(&m);
  const int steps = (int)ceil(periods * 2.0 * PI_ / w / dt);
  double prev = m.u[0], first = -1.0, last = -1.0;
  int crossings = 0;
  *drift = 0.0;
  *emech_spread = 0.0;
  for (int s = 1; s <= steps; ++s) {
    if (integ_step(&it, &m, dt) != SHARD_OK) return NAN;
    const double cur = m.u[0];
    if (prev < 0.0 && cur >= 0.0) {
      const double tc = (s - 1) * dt + dt * (-prev) / (cur - prev);
      if (crossings == 0) first = tc;
      last = tc;
      ++crossings;
    }
    prev = cur;
    const double e = mj ? energy_mech(&m) : energy_alg(&m, dt);
    *drift = fmax(*drift, fabs(e - e0) / e0);
    *emech_spread = fmax(*emech_spread, fabs(energy_mech(&m) - em0) / em0);
  }
  integ_close(&it);
  return crossings > 1 ? (last - first) / (crossings - 1) : NAN;
}

/* Linear oscillation: exact discrete period (central difference:
 * ω̃Δt = 2 asin(ωΔt/2); trapezoidal MJ(½): ω̃Δt = 2 atan(ωΔt/2)), O(Δt²)
 * convergence to 2π/ω, conserved (algorithmic) energy. */
static void test_integrators_oscillator(void) {
  mock tmp;
  double omega;
  mock_mode_chain(&tmp, &omega);
  const double period = 2.0 * PI_ / omega;
  /* the discrete theory is scheme-specific: the four of the tree */
  for (int p = 0; p < N_KNOWN; ++p) {
    const char *name = known[p].name;
    const int mj = strcmp(name, "moreau_jean") == 0;
    double dt = period / 50.0, err[2] = {0, 0};
    for (int r = 0; r < 2; ++r, dt *= 0.5) {
      double drift = NAN, spread = NAN;
      const double tm = measure_period(name, mj ? 0.5 : 0.0, dt, 10, omega, &drift, &spread);
      const double wt = mj ? 2.0 * atan(omega * dt / 2.0) / dt : 2.0 * asin(omega * dt / 2.0) / dt;
      CU_CHECK_MSG(fabs(tm - 2.0 * PI_ / wt) < 5e-6 * period, "%s dt %.3g: period %.12g, discrete theory %.12g",
                   name, dt, tm, 2.0 * PI_ / wt);
      err[r] = tm - period;
      CU_CHECK_MSG(drift < 1e-12, "%s dt %.3g: energy drift %.3g", name, dt, drift);
      /* the mechanical energy itself stays within O((ωΔt)²) */
      CU_CHECK_MSG(spread < 0.25 * (omega * dt) * (omega * dt), "%s dt %.3g: mechanical energy spread %.3g", name,
                   dt, spread);
    }
    const double ratio = err[0] / err[1];
    CU_CHECK_MSG(ratio > 3.8 && ratio < 4.2, "%s: period error ratio %.4g for dt halved (O(dt^2) expects 4)", name,
                 ratio);
  }
}

/* MJ θ > ½ dissipates: the exact per-step identity
 *   E_{n+1} − E_n = −(θ − ½)(|Δv|²_M + |Δu|²_K)
 * at θ = 0.7, and θ = 1 loses energy monotonically. */
static void test_integrators_mj_theta_dissipation(void) {
  mock m;
  integ it;
  double omega;
  mock_mode_chain(&m, &omega);
  CU_ASSERT_FATAL(integ_open(&it, "moreau_jean", "theta", 0.7));
  const double dt7 = 2.0 * PI_ / omega / 20.0;
  CU_ASSERT_FATAL(integ_begin(&it, &m, dt7));
  const double e07 = energy_mech(&m);
  double worst = 0.0;
  for (int s = 0; s < 100; ++s) {
    double u0[NMAX], v0[NMAX];
    memcpy(u0, m.u, sizeof u0);
    memcpy(v0, m.v, sizeof v0);
    const double eb = energy_mech(&m);
    CU_ASSERT_EQUAL_FATAL(integ_step(&it, &m, dt7), SHARD_OK);
    double d = 0.0;
    for (int i = 0; i < 3; ++i) {
      d += m.mass[i] * (m.v[i] - v0[i]) * (m.v[i] - v0[i]);
      for (int j = 0; j < 3; ++j) d += (m.u[i] - u0[i]) * m.kd[i][j] * (m.u[j] - u0[j]);
    }
    worst = fmax(worst, fabs(energy_mech(&m) - eb + 0.2 * d) / e07);
  }
  CU_CHECK_MSG(worst < 1e-13, "theta = 0.7: energy identity off by %.3g (relative)", worst);
  integ_close(&it);

  mock_mode_chain(&m, &omega);
  CU_ASSERT_FATAL(integ_open(&it, "moreau_jean", "theta", 1.0));
  const double dt = 2.0 * PI_ / omega / 50.0;
  CU_ASSERT_FATAL(integ_begin(&it, &m, dt));
  double e_prev = energy_mech(&m);
  const double e0 = e_prev;
  int monotone = 1;
  for (int s = 0; s < 500; ++s) {
    CU_ASSERT_EQUAL_FATAL(integ_step(&it, &m, dt), SHARD_OK);
    const double e = energy_mech(&m);
    if (e > e_prev * (1.0 + 1e-14)) monotone = 0;
    e_prev = e;
  }
  CU_CHECK_MSG(monotone, "theta = 1: the energy never grows");
  CU_CHECK_MSG(e_prev < 0.01 * e0, "theta = 1: energy after 10 periods %.3g of the initial", e_prev / e0);
  integ_close(&it);
}

/* Complementarity of the returned impulses with the post-step relative
 * velocity w = H v⁺ + e H v⁻ on the active rows; inactive rows carry p = 0. */
static void check_complementarity(const char *name, const mock *m, const int *active, const double *vplus,
                                  const double *vminus) {
  for (int c = 0; c < m->sys.ncon; ++c) {
    const double p = m->impulse[c];
    if (!active[c]) {
      CU_CHECK_MSG(p == 0.0, "%s: inactive row %d has impulse %g", name, c, p);
      continue;
    }
    double w = 0.0, sc = 0.0;
    for (int j = 0; j < m->sys.ndof; ++j) {
      w += m->hd[c][j] * (vplus[j] + m->e[c] * vminus[j]);
      sc = fmax(sc, fabs(vminus[j]));
    }
    CU_CHECK_MSG(p >= 0.0, "%s: row %d impulse %g < 0", name, c, p);
    CU_CHECK_MSG(w >= -1e-12 * sc, "%s: row %d relative velocity %g < 0", name, c, w);
    CU_CHECK_MSG(fabs(p * w) <= 1e-12 * sc * (1.0 + p), "%s: row %d p w = %g", name, c, p * w);
  }
}

static void gaps_at(const mock *m, const double *u, int *active) {
  for (int c = 0; c < m->sys.ncon; ++c) {
    double g = m->g0[c];
    for (int j = 0; j < m->sys.ndof; ++j) g += m->hd[c][j] * u[j];
    active[c] = g <= 0.0;
  }
}

/* NSN on the chain: the step satisfies its own defining equations. */
static void test_integrators_nsn_chain_equations(void) {
  /* also with consistent_acceleration, which on a linear force must change
   * nothing beyond round-off: a_{n+1} = M⁻¹ f(u_{n+1}) either way */
  for (int run = 0; run < 4; ++run) {
    const int pres = run % 2, cons = run / 2;
    mock m;
    integ it;
    CU_ASSERT_FATAL(integ_open(&it, "nsn", cons ? "consistent_acceleration" : NULL, 1.0));
    mock_chain_contact(&m, pres);
    const double dt = 5e-3;
    CU_ASSERT_FATAL(integ_begin(&it, &m, dt));
    for (int step = 0; step < 3; ++step) {
      const int n = m.sys.ndof;
      double u0[NMAX], v0[NMAX], a0[NMAX], ut[NMAX];
      memcpy(u0, m.u, sizeof u0);
      memcpy(v0, m.v, sizeof v0);
      memcpy(a0, m.a, sizeof a0);
      for (int i = 0; i < n; ++i) ut[i] = u0[i] + dt * v0[i] + 0.5 * dt * dt * a0[i];
      int active[CMAX];
      gaps_at(&m, ut, active);
      CU_ASSERT_EQUAL_FATAL(integ_step(&it, &m, dt), SHARD_OK);
      CU_ASSERT_EQUAL(m.stats.n_active, active[0] + active[1]);
      if (step == 0) CU_CHECK_MSG(active[0] && active[1], "both contacts active on the first step");
      /* v̂ = M⁻¹Hᵀp */
      double vhat[NMAX] = {0}, f[NMAX];
      for (int i = 0; i < n; ++i)
        for (int c = 0; c < m.sys.ncon; ++c) vhat[i] += m.minv[i] * m.hd[c][i] * m.impulse[c];
      shard_msg msg;
      mock_force(&m.sys, 0.0, m.u, f, &msg);
      for (int i = 0; i < n; ++i) {
        if (m.prescribed[i]) {
          CU_NEAR(m.v[i], m.vpres[i], 0.0);
          CU_NEAR(m.a[i], 0.0, 0.0);
          continue;
        }
        /* a_{n+1} = M⁻¹ f(u_{n+1}) exactly for a linear K */
        CU_NEAR(m.a[i], m.minv[i] * f[i], 1e-10 * (1.0 + fabs(m.a[i])));
        CU_NEAR(m.v[i], v0[i] + 0.5 * dt * (a0[i] + m.a[i]) + vhat[i], 1e-12);
        CU_NEAR(m.u[i], ut[i] + 0.5 * dt * vhat[i], 1e-14);
      }
      check_complementarity("nsn", &m, active, m.v, v0);
      if (step == 0) CU_CHECK_MSG(m.impulse[0] > 0.0 && m.impulse[1] > 0.0, "both contacts push");
      CU_CHECK_MSG(m.last_flags & SHARD_LCP_SYMMETRIC, "W' flagged symmetric");
    }
    integ_close(&it);
  }
}

/* Steps of MJ on a prepared mock, each checked against the scheme's own
 * equations: momentum M(v⁺ − v⁻) = Δt f(u_{n+θ}) + Hᵀp on free DOFs, the
 * θ position update, complementarity on the active set at u_n + Δt v_n. */
static void mj_steps_check(mock *m, integ *it, double th, const double *dts, int nsteps, int both_first) {
  for (int step = 0; step < nsteps; ++step) {
    const double dt = dts[step];
    const int n = m->sys.ndof;
    double u0[NMAX], v0[NMAX], up[NMAX];
    memcpy(u0, m->u, sizeof u0);
    memcpy(v0, m->v, sizeof v0);
    for (int i = 0; i < n; ++i) up[i] = u0[i] + dt * v0[i];
    int active[CMAX];
    gaps_at(m, up, active);
    CU_ASSERT_EQUAL_FATAL(integ_step(it, m, dt), SHARD_OK);
    CU_ASSERT_EQUAL(m->stats.n_active, active[0] + active[1]);
    if (step == 0 && both_first) CU_CHECK_MSG(active[0] && active[1], "both contacts active on the first step");
    double uth[NMAX], f[NMAX];
    for (int i = 0; i < n; ++i) uth[i] = u0[i] + th * dt * ((1.0 - th) * v0[i] + th * m->v[i]);
    shard_msg msg;
    mock_force(&m->sys, 0.0, uth, f, &msg);
    for (int i = 0; i < n; ++i) {
      CU_NEAR(m->u[i], u0[i] + dt * ((1.0 - th) * v0[i] + th * m->v[i]), 1e-15);
      if (m->prescribed[i]) {
        CU_NEAR(m->v[i], m->vpres[i], 0.0);
        continue;
      }
      double r = m->mass[i] * (m->v[i] - v0[i]) - dt * f[i];
      for (int c = 0; c < m->sys.ncon; ++c) r -= m->hd[c][i] * m->impulse[c];
      CU_CHECK_MSG(fabs(r) < 1e-12, "theta %g step %d DOF %d: momentum residual %.3g", th, step, i, r);
    }
    check_complementarity("moreau_jean", m, active, m->v, v0);
    CU_CHECK_MSG(m->last_flags == (SHARD_LCP_SYMMETRIC | SHARD_LCP_PSD), "flags 0x%x", m->last_flags);
  }
}

/* MJ on the chain, for several θ, with Δt changing (refactorisation) and
 * constant (cached factor). */
static void test_integrators_mj_chain_equations(void) {
  const double thetas[3] = {0.5, 0.7, 1.0};
  const double dts[4] = {5e-3, 5e-3, 2e-3, 2e-3};
  for (int kth = 0; kth < 3; ++kth)
    for (int pres = 0; pres < 2; ++pres) {
      mock m;
      integ it;
      CU_ASSERT_FATAL(integ_open(&it, "moreau_jean", "theta", thetas[kth]));
      mock_chain_contact(&m, pres);
      CU_ASSERT_FATAL(integ_begin(&it, &m, dts[0]));
      mj_steps_check(&m, &it, thetas[kth], dts, 4, 1);
      integ_close(&it);
    }
}

/* A chain of 8 nodes whose DOFs are numbered out of order (physical node k
 * is DOF idx[k]: a natural bandwidth of 7, 1 after reordering), with a wall
 * on the last node, an interface between nodes 3 and 4, and optionally the
 * first node prescribed: MJ's band reordering must not change the answer. */
static void test_integrators_mj_scrambled_numbering(void) {
  static const int idx[8] = {0, 7, 1, 6, 2, 5, 3, 4};
  const double dts[4] = {4e-3, 4e-3, 4e-3, 1e-3};
  for (int pres = 0; pres < 2; ++pres) {
    mock m;
    integ it;
    memset(&m, 0, sizeof m);
    for (int k = 0; k < 8; ++k) {
      const int i = idx[k];
      m.mass[i] = 1.0 + 0.25 * k;
      m.v[i] = k < 4 ? 2.0 : -1.0;
      m.fext[i] = 0.5 * k - 1.0;
      m.u[i] = 1e-4 * k;
    }
    m.v[idx[7]] = 4.0;
    m.kd[idx[0]][idx[0]] += 40.0;
    for (int k = 1; k < 8; ++k) {
      const int a = idx[k - 1], b = idx[k];
      const double kk = 50.0 + 10.0 * k;
      m.kd[a][a] += kk;
      m.kd[b][b] += kk;
      m.kd[a][b] -= kk;
      m.kd[b][a] -= kk;
    }
    m.hd[0][idx[7]] = -1.0;
    m.g0[0] = 0.01 + m.u[idx[7]];
    m.hd[1][idx[3]] = -1.0;
    m.hd[1][idx[4]] = 1.0;
    m.g0[1] = 0.002 + m.u[idx[3]] - m.u[idx[4]];
    m.e[0] = 0.4;
    m.e[1] = 0.9;
    if (pres) {
      m.prescribed[idx[0]] = 1;
      m.vpres[idx[0]] = -0.3;
      m.v[idx[0]] = -0.3;
    }
    mock_finish(&m, 8, 2);
    mock_initial_acceleration(&m);
    CU_ASSERT_FATAL(integ_open(&it, "moreau_jean", "theta", 0.6));
    CU_ASSERT_FATAL(integ_begin(&it, &m, dts[0]));
    mj_steps_check(&m, &it, 0.6, dts, 4, 1);
    integ_close(&it);
  }
}

/* MJ across an insertion: a chain of 20 nodes (band 1, storage sized for 9
 * diagonals at start) with a wall on the last node and an interface between
 * nodes 9 and 10 takes two steps; then 12 DOFs are appended (20..31), each a
 * copy of node k (half its mass, its u and v), tied to it and to every other
 * copy (a clique: no numbering gets its band under 11 diagonals). After
 * reserve (its storage set up for the 20 DOFs present) and on_insert, MJ's
 * steps satisfy the scheme's equations exactly on the new
 * system, Δt changing; without on_insert the step fails with the band
 * error, never a wrong answer. */
static void mj_insert_copies(mock *m) {
  for (int k = 0; k < 12; ++k) {
    const int c = 20 + k;
    m->mass[k] *= 0.5;
    m->mass[c] = m->mass[k];
    m->u[c] = m->u[k], m->v[c] = m->v[k], m->fext[c] = 0.1 * k;
    const double kt = 120.0 + 5.0 * k;
    m->kd[k][k] += kt, m->kd[c][c] += kt, m->kd[k][c] -= kt, m->kd[c][k] -= kt;
    for (int l = 0; l < k; ++l) {
      const int d = 20 + l;
      m->kd[c][c] += 7.0, m->kd[d][d] += 7.0, m->kd[c][d] -= 7.0, m->kd[d][c] -= 7.0;
    }
  }
  mock_finish(m, 32, 2);
}

static void test_integrators_mj_insertion(void) {
  const double dts[3] = {3e-3, 3e-3, 1e-3};
  for (int with_hook = 1; with_hook >= 0; --with_hook) {
    mock m;
    integ it;
    memset(&m, 0, sizeof m);
    for (int i = 0; i < 20; ++i) {
      m.mass[i] = 1.0 + 0.05 * i;
      m.v[i] = i < 10 ? 1.5 : -1.0;
      m.u[i] = 1e-4 * i;
      m.fext[i] = 0.2 * i - 1.0;
    }
    m.kd[0][0] += 30.0;
    for (int i = 1; i < 20; ++i) {
      const double kk = 80.0 + 2.0 * i;
      m.kd[i - 1][i - 1] += kk, m.kd[i][i] += kk, m.kd[i - 1][i] -= kk, m.kd[i][i - 1] -= kk;
    }
    m.hd[0][19] = -1.0;
    m.g0[0] = 0.004 + m.u[19];
    m.hd[1][9] = -1.0;
    m.hd[1][10] = 1.0;
    m.g0[1] = 0.003 + m.u[9] - m.u[10];
    m.e[0] = 0.5, m.e[1] = 1.0;
    mock_finish(&m, 20, 2);
    mock_initial_acceleration(&m);
    CU_ASSERT_FATAL(integ_open(&it, "moreau_jean", "theta", 0.5));
    CU_ASSERT_FATAL(integ_begin(&it, &m, dts[0]));
    mj_steps_check(&m, &it, 0.5, dts, 2, 0);
    mj_insert_copies(&m);
    shard_msg msg = {{0}};
    /* the host grows the storage to the new sizes before on_insert */
    CU_ASSERT_FATAL(it.ops->reserve != NULL);
    CU_ASSERT_EQUAL_FATAL(it.ops->reserve(it.self, &m.sys, m.sys.ndof, m.sys.ncon, &msg), SHARD_OK);
    if (with_hook) {
      CU_ASSERT_FATAL(it.ops->on_insert != NULL);
      CU_ASSERT_EQUAL_FATAL(it.ops->on_insert(it.self, &m.sys, 20, &msg), SHARD_OK);
      mj_steps_check(&m, &it, 0.5, dts, 3, 0);
    } else {
      CU_ASSERT_EQUAL(it.ops->step(it.self, &m.sys, dts[0], &msg), SHARD_ERR_UNSUPPORTED);
      CU_CHECK_MSG(strstr(msg.text, "the stiffness bandwidth grew to") != NULL, "%s", msg.text);
    }
    integ_close(&it);
  }
}

/* CDL on the chain: M(v_{n+3/2} − v_{n+½}) = Δt f(u_{n+1}) + Hᵀp. */
static void test_integrators_cdl_chain_equations(void) {
  for (int pres = 0; pres < 2; ++pres) {
    mock m;
    integ it;
    CU_ASSERT_FATAL(integ_open(&it, "cd_lagrange", NULL, 0.0));
    mock_chain_contact(&m, pres);
    const double dt = 5e-3;
    CU_ASSERT_FATAL(integ_begin(&it, &m, dt));
    for (int step = 0; step < 3; ++step) {
      const int n = m.sys.ndof;
      double u0[NMAX], vh[NMAX], u1[NMAX];
      memcpy(u0, m.u, sizeof u0);
      memcpy(vh, m.aux, sizeof vh);
      for (int i = 0; i < n; ++i) u1[i] = u0[i] + dt * vh[i];
      int active[CMAX];
      gaps_at(&m, u1, active);
      CU_ASSERT_EQUAL_FATAL(integ_step(&it, &m, dt), SHARD_OK);
      CU_ASSERT_EQUAL(m.stats.n_active, active[0] + active[1]);
      double f[NMAX];
      shard_msg msg;
      mock_force(&m.sys, 0.0, m.u, f, &msg);
      for (int i = 0; i < n; ++i) {
        CU_NEAR(m.u[i], u1[i], 0.0);
        CU_NEAR(m.v[i], 0.5 * (vh[i] + m.aux[i]), 1e-15);
        if (m.prescribed[i]) continue;
        double r = m.mass[i] * (m.aux[i] - vh[i]) - dt * f[i];
        for (int c = 0; c < m.sys.ncon; ++c) r -= m.hd[c][i] * m.impulse[c];
        CU_CHECK_MSG(fabs(r) < 1e-12, "step %d DOF %d: momentum residual %.3g", step, i, r);
      }
      check_complementarity("cd_lagrange", &m, active, m.aux, vh);
    }
    integ_close(&it);
  }
}

/* closing_filter: a penetrated but opening contact is not active. */
static void test_integrators_nsn_closing_filter(void) {
  for (int filt = 0; filt < 2; ++filt) {
    mock m;
    integ it;
    CU_ASSERT_FATAL(integ_open(&it, "nsn", filt ? "closing_filter" : NULL, 1.0));
    mock_particle(&m, 1.0, -0.01, 0.5, 0.5);
    const double dt = 1e-2;
    CU_ASSERT_FATAL(integ_begin(&it, &m, dt));
    CU_ASSERT_EQUAL_FATAL(integ_step(&it, &m, dt), SHARD_OK);
    CU_CHECK_MSG(m.stats.n_active == (filt ? 0 : 1), "filter %d: %d active", filt, m.stats.n_active);
    CU_CHECK_MSG(m.lcp_calls == (filt ? 0 : 1), "filter %d: %d LCPs", filt, m.lcp_calls);
    /* the opening contact pushes nothing either way */
    CU_NEAR(m.impulse[0], 0.0, 0.0);
    CU_NEAR(m.v[0], 0.5 - grav * dt, 1e-14);
    integ_close(&it);
  }
}

/* A non-finite force is reported as SHARD_ERR_NUMERIC with a cause. */
static void test_integrators_nonfinite(void) {
  for (int p = 0; p < n_integ; ++p) {
    mock m;
    integ it;
    CU_ASSERT_FATAL(integ_open(&it, names[p], NULL, 0.0));
    mock_chain_contact(&m, 0);
    CU_ASSERT_FATAL(integ_begin(&it, &m, 1e-3));
    m.force_nan = 1;
    shard_msg msg = {{0}};
    const int rc = it.ops->step(it.self, &m.sys, 1e-3, &msg);
    CU_CHECK_MSG(rc == SHARD_ERR_NUMERIC && strstr(msg.text, "non-finite"), "%s: rc %d, message '%.200s'", names[p],
                 rc, msg.text);
    integ_close(&it);
  }
}

/* A non-finite number in the state or in the force stops the step with
 * SHARD_ERR_NUMERIC and leaves u, v, a as they were (the run keeps the last
 * good state): the checks that ride along the update loops must see every
 * entry, here the last DOF and a middle one. */
static void test_integrators_nonfinite_keeps_state(void) {
  const double bad[2] = {NAN, INFINITY};
  for (int p = 0; p < n_integ; ++p)
    for (int which = 0; which < 4; ++which) {
      mock m;
      integ it;
      CU_ASSERT_FATAL(integ_open(&it, names[p], NULL, 0.0));
      mock_chain_contact(&m, 0);
      CU_ASSERT_FATAL(integ_begin(&it, &m, 1e-3));
      if (which < 2)
        m.v[3] = m.aux[3] = bad[which]; /* the predictor and the updates carry it (CD-Lagrange's state is v_½, in aux) */
      else
        m.fext[which - 1] = which == 2 ? bad[0] : -bad[1]; /* DOF 1 NaN, DOF 2 -inf */
      double u0[NMAX], v0[NMAX], a0[NMAX];
      memcpy(u0, m.u, sizeof u0);
      memcpy(v0, m.v, sizeof v0);
      memcpy(a0, m.a, sizeof a0);
      shard_msg msg = {{0}};
      const int rc = it.ops->step(it.self, &m.sys, 1e-3, &msg);
      CU_CHECK_MSG(rc == SHARD_ERR_NUMERIC && strstr(msg.text, "non-finite"), "%s, case %d: rc %d, message '%.200s'",
                   names[p], which, rc, msg.text);
      CU_CHECK_MSG(!memcmp(u0, m.u, sizeof u0) && !memcmp(v0, m.v, sizeof v0) && !memcmp(a0, m.a, sizeof a0),
                   "%s, case %d: the state changed in a failed step", names[p], which);
      integ_close(&it);
    }
}

/* reserve (the optional slot): setup sizes the storage for the DOFs and rows
 * present then, start and step refuse larger sizes until reserve grew it;
 * growing it (once to the sizes, later beyond, between steps) keeps every
 * value, so that the run is bit for bit the one of an instance set up at the
 * full size; out of memory while growing is SHARD_ERR_NOMEM naming the sizes,
 * the old storage kept and the run going on from it unchanged. */
static void test_integrators_reserve_grows(void) {
  int with_slot = 0;
  for (int p = 0; p < n_integ; ++p) {
    integ it, ref;
    CU_ASSERT_FATAL(integ_open(&it, names[p], NULL, 0.0) && integ_open(&ref, names[p], NULL, 0.0));
    if (!it.ops->reserve) { /* sized for ndof_max / ncon_max at setup, as before the slot */
      integ_close(&it), integ_close(&ref);
      continue;
    }
    ++with_slot;
    const double dt = 1e-3;
    static mock m, mr;
    mock_chain_contact(&mr, 0);
    CU_ASSERT_FATAL(integ_begin(&ref, &mr, dt));
    mock_chain_contact(&m, 0);
    shard_msg msg = {{0}};
    m.sys.ndof = 2, m.sys.ncon = 1; /* the sizes at setup; insertions bring the others */
    CU_ASSERT_EQUAL_FATAL(it.ops->setup(it.self, &m.sys, &msg), SHARD_OK);
    m.sys.ndof = 4, m.sys.ncon = 2;
    int rc = it.ops->start(it.self, &m.sys, dt, &msg);
    CU_CHECK_MSG(rc == SHARD_ERR_INTERNAL && strstr(msg.text, "more than the 2 and 1 given at setup"),
                 "%s: start beyond the storage: rc %d, '%.200s'", names[p], rc, msg.text);
    rc = it.ops->reserve(it.self, &m.sys, 3, 2, &msg); /* below the DOFs present */
    CU_CHECK_MSG(rc == SHARD_ERR_INTERNAL, "%s: reserve below the sizes: rc %d", names[p], rc);
    CU_ASSERT_EQUAL_FATAL(it.ops->reserve(it.self, &m.sys, 4, 2, &msg), SHARD_OK);
    CU_ASSERT_EQUAL_FATAL(it.ops->start(it.self, &m.sys, dt, &msg), SHARD_OK);
    for (int s = 1; s <= 40; ++s) {
      if (s == 10) CU_ASSERT_EQUAL_FATAL(it.ops->reserve(it.self, &m.sys, NMAX, CMAX, &msg), SHARD_OK);
      if (s == 20) {
        m.sys.ndof_max = m.sys.ncon_max = INT32_MAX; /* more than any machine holds */
        rc = it.ops->reserve(it.self, &m.sys, INT32_MAX, INT32_MAX, &msg);
        CU_CHECK_MSG(rc == SHARD_ERR_NOMEM && strstr(msg.text, "out of memory for 2147483647 DOFs"),
                     "%s: reserve out of memory: rc %d, '%.200s'", names[p], rc, msg.text);
        m.sys.ndof_max = NMAX, m.sys.ncon_max = CMAX;
      }
      CU_ASSERT_EQUAL_FATAL(integ_step(&it, &m, dt), SHARD_OK);
      CU_ASSERT_EQUAL_FATAL(integ_step(&ref, &mr, dt), SHARD_OK);
      CU_CHECK_MSG(!memcmp(m.u, mr.u, sizeof m.u) && !memcmp(m.v, mr.v, sizeof m.v) &&
                       !memcmp(m.a, mr.a, sizeof m.a) && !memcmp(m.aux, mr.aux, sizeof m.aux) &&
                       !memcmp(m.impulse, mr.impulse, sizeof m.impulse),
                   "%s: step %d differs from the instance set up at full size", names[p], s);
    }
    integ_close(&it), integ_close(&ref);
  }
  CU_ASSERT(with_slot >= 4); /* nsn, cd_lagrange, explicit_newmark, moreau_jean */
}

/* MJ: an indefinite S is a numerical failure naming the cause. */
static void test_integrators_mj_indefinite(void) {
  mock m;
  integ it;
  CU_ASSERT_FATAL(integ_open(&it, "moreau_jean", NULL, 0.0));
  mock_chain_contact(&m, 0);
  for (int i = 0; i < 4; ++i) m.kd[i][i] = -1e9;
  mock_finish(&m, 4, 2);
  CU_ASSERT_FATAL(integ_begin(&it, &m, 1e-3));
  shard_msg msg = {{0}};
  const int rc = it.ops->step(it.self, &m.sys, 1e-3, &msg);
  CU_CHECK_MSG(rc == SHARD_ERR_NUMERIC && strstr(msg.text, "positive definite"), "rc %d, message '%.200s'", rc, msg.text);
  integ_close(&it);
}

/* NSN: state is untouched by a failed step (the host keeps what was computed). */
static void test_integrators_failed_step_keeps_state(void) {
  mock m;
  integ it;
  CU_ASSERT_FATAL(integ_open(&it, "nsn", NULL, 0.0));
  mock_chain_contact(&m, 0);
  CU_ASSERT_FATAL(integ_begin(&it, &m, 1e-3));
  double u0[NMAX];
  memcpy(u0, m.u, sizeof u0);
  m.force_nan = 1;
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL(it.ops->step(it.self, &m.sys, 1e-3, &msg), SHARD_ERR_NUMERIC);
  CU_ASSERT(memcmp(u0, m.u, sizeof u0) == 0);
  integ_close(&it);
}

/* Analytic bouncing ball (docs/reproduction.md, Fig. 4): drop from u0 at rest, impacts at t_k with
 * speeds e^k V, rest after the Zeno time t1 (1+e)/(1−e). */
static double ball_exact(double t, double u0, double e) {
  const double t1 = sqrt(2.0 * u0 / grav), speed0 = sqrt(2.0 * grav * u0);
  if (t <= t1) return u0 - 0.5 * grav * t * t;
  if (e < 1.0 && t >= t1 * (1.0 + e) / (1.0 - e)) return 0.0;
  double tk = t1, sp = e * speed0;
  while (sp > 1e-300) {
    const double tn = tk + 2.0 * sp / grav;
    if (t <= tn) return sp * (t - tk) - 0.5 * grav * (t - tk) * (t - tk);
    tk = tn;
    sp *= e;
  }
  return 0.0;
}

/* The ball benchmark through the mock (T = 5, Δt = 1e-2): η = Σ|u − u_a| /
 * Σ|u_a| within the acceptance bounds and within 0.003 of the figures
 * of an independent implementation of the same equations (0.062, 0.062, 0.146
 * at e = 1; 0.046, 0.046, 0.080 at e = 0.8); the e = 0.8 ball rests after the
 * Zeno time. Every impact-family integrator; one outside the tree is held to
 * the loosest bound (CDL's) and has no independent figure. */
static void test_integrators_bouncing_ball(void) {
  const double es[2] = {1.0, 0.8};
  for (int k = 0; k < 2; ++k) {
    double eta_nsn = NAN, eta_mj = NAN;
    for (int p = 0; p < n_integ; ++p) {
      if (!impact_family(names[p])) continue;
      const known_integ *kn = known_of(names[p]) ? known_of(names[p]) : &unknown_integ;
      const double bound = kn->ball_bound[k], ref = kn->ball_ref[k];
      mock m;
      integ it;
      const double dt = 1e-2;
      CU_ASSERT_FATAL(integ_open(&it, names[p], NULL, 0.0));
      mock_particle(&m, 1.0, 1.0, 0.0, es[k]);
      CU_ASSERT_FATAL(integ_begin(&it, &m, dt));
      double num = 0.0, den = 0.0, late_u = 0.0, late_v = 0.0;
      for (int s = 1; s <= 500; ++s) {
        CU_ASSERT_EQUAL_FATAL(integ_step(&it, &m, dt), SHARD_OK);
        const double ua = ball_exact(s * dt, 1.0, es[k]);
        num += fabs(m.u[0] - ua);
        den += fabs(ua);
        if (s * dt > 4.5) {
          late_u = fmax(late_u, fabs(m.u[0]));
          late_v = fmax(late_v, fabs(m.v[0]));
        }
      }
      const double eta = num / den;
      if (strcmp(names[p], "nsn") == 0) eta_nsn = eta;
      if (strcmp(names[p], "moreau_jean") == 0) eta_mj = eta;
      CU_CHECK_MSG(eta <= bound && (isnan(ref) || fabs(eta - ref) <= 0.003),
                   "%s e = %g: eta %.4f (bound %.2g, independent reference %.3f)", names[p], es[k], eta, bound, ref);
      if (es[k] < 1.0)
        CU_CHECK_MSG(late_u < 1e-3 && late_v < 1e-3, "%s e = %g: after the Zeno time |u| <= %.3g, |v| <= %.3g",
                     names[p], es[k], late_u, late_v);
      integ_close(&it);
    }
    CU_CHECK_MSG(fabs(eta_nsn - eta_mj) <= 0.1 * eta_nsn, "e = %g: NSN eta %.4f and MJ eta %.4f within 10%%", es[k],
                 eta_nsn, eta_mj);
  }
}

/* Ball convergence: 25 Δt log-spaced in [1e-4, 1e-2], the least-squares slope
 * of log η against log Δt is first order ([0.8, 1.25]) for every impact-family
 * integrator (NSN, MJ and CDL in the tree). */
static void test_integrators_ball_convergence(void) {
  const double es[2] = {1.0, 0.8};
  const int nr = 25;
  for (int k = 0; k < 2; ++k)
    for (int p = 0; p < n_integ; ++p) {
      if (!impact_family(names[p])) continue;
      double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
      for (int r = 0; r < nr; ++r) {
        const double dt = pow(10.0, -4.0 + 2.0 * r / (nr - 1));
        mock m;
        integ it;
        CU_ASSERT_FATAL(integ_open(&it, names[p], NULL, 0.0));
        mock_particle(&m, 1.0, 1.0, 0.0, es[k]);
        CU_ASSERT_FATAL(integ_begin(&it, &m, dt));
        const int steps = (int)floor(5.0 / dt + 0.5);
        double num = 0.0, den = 0.0;
        for (int s = 1; s <= steps; ++s) {
          CU_ASSERT_EQUAL_FATAL(integ_step(&it, &m, dt), SHARD_OK);
          const double ua = ball_exact(s * dt, 1.0, es[k]);
          num += fabs(m.u[0] - ua);
          den += fabs(ua);
        }
        integ_close(&it);
        const double x = log(dt), y = log(num / den);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
      }
      const double slope = (nr * sxy - sx * sy) / (nr * sxx - sx * sx);
      CU_CHECK_MSG(slope >= 0.8 && slope <= 1.25, "%s e = %g: convergence slope %.3f", names[p], es[k], slope);
    }
}

/* The impacting bar of docs/reproduction.md (Fig. 6) as a chain in the mock: L = 0.254 m,
 * A = 6.45e-4 m², E = 211 GPa, ρ = 7847, N_e = 50, v0 = 5 m/s toward a wall
 * at gap 1e-3 L, e = 0. Δt_c = h/c (Gershgorin: λ ≤ 4k/m for every node). */
static void mock_bar(mock *m, int ne, double *dt_c, double *f0, double *tb) {
  const double len = 0.254, area = 6.45e-4, young = 211e9, rho = 7847.0, v0 = 5.0, h = len / ne;
  memset(m, 0, sizeof *m);
  const int n = ne + 1;
  double ms[NMAX], ks[NMAX];
  for (int i = 0; i < n; ++i) ms[i] = rho * area * h * ((i == 0 || i == n - 1) ? 0.5 : 1.0);
  ks[0] = 0.0;
  for (int i = 1; i < n; ++i) ks[i] = young * area / h;
  mock_chain_stiffness(m, n, ms, ks);
  for (int i = 0; i < n; ++i) m->v[i] = v0;
  m->hd[0][n - 1] = -1.0;
  m->g0[0] = 1e-3 * len;
  m->e[0] = 0.0;
  mock_finish(m, n, 1);
  mock_initial_acceleration(m);
  const double c = sqrt(young / rho);
  *dt_c = h / c;
  *f0 = rho * c * v0 * area;
  *tb = 2.0 * len / c;
}

/* Acceptance on the bar, e = 0, Δt = 0.7Δt_c: contact duration within
 * 2Δt of 2L/c (MJ 3Δt), mean force over the central 80% of the contact within
 * 2% of F0 = ρcv0A, rebound velocity (momentum / mass) within 5% of v0. */
static void test_integrators_impacting_bar(void) {
  static mock m; /* 64-DOF dense mock: keep it off the stack */
  static double imp[1024];
  for (int p = 0; p < n_integ; ++p) {
    if (!impact_family(names[p])) continue;
    const known_integ *kn = known_of(names[p]) ? known_of(names[p]) : &unknown_integ;
    integ it;
    double dtc, f0, tb;
    mock_bar(&m, 50, &dtc, &f0, &tb);
    const double dt = 0.7 * dtc;
    CU_ASSERT_FATAL(integ_open(&it, names[p], NULL, 0.0));
    CU_ASSERT_FATAL(integ_begin(&it, &m, dt));
    const int steps = (int)(2.5e-4 / dt);
    CU_ASSERT_FATAL(steps <= 1024);
    int first = -1, last = -1;
    for (int s = 0; s < steps; ++s) {
      CU_ASSERT_EQUAL_FATAL(integ_step(&it, &m, dt), SHARD_OK);
      imp[s] = m.impulse[0];
      if (imp[s] > 0.0) {
        if (first < 0) first = s;
        last = s;
      }
    }
    CU_ASSERT_FATAL(first >= 0 && last < steps - 10);
    const int len = last - first + 1;
    const double dur = len * dt;
    const int a = first + len / 10, b = last - len / 10;
    double fm = 0.0;
    for (int s = a; s <= b; ++s) fm += imp[s] / dt;
    fm /= (b - a + 1);
    double mom = 0.0, mass = 0.0;
    for (int i = 0; i < m.sys.ndof; ++i) {
      mom += m.mass[i] * m.v[i];
      mass += m.mass[i];
    }
    const double tol_t = kn->bar_dt * dt;
    CU_CHECK_MSG(fabs(dur - tb) <= tol_t, "%s: contact lasts %.5g s, 2L/c = %.5g s (%.2f dt)", names[p], dur, tb,
                 (dur - tb) / dt);
    CU_CHECK_MSG(fabs(fm / f0 - 1.0) <= 0.02, "%s: mean force %.5g F0", names[p], fm / f0);
    CU_CHECK_MSG(fabs(-mom / mass / 5.0 - 1.0) <= 0.05, "%s: rebound velocity %.5g v0", names[p],
                 -mom / mass / 5.0);
    integ_close(&it);
  }
}

/* A failing LCP solve is passed up with its status and the step's context
 * (every integrator that needs an LCP; the tree's word for word, another's
 * at least with the solver's cause at the end). */
static void test_integrators_lcp_failure_context(void) {
  static const char cause[] = "mock: solver failed";
  for (int p = 0; p < n_integ; ++p) {
    const shard_plugin *d = load_plugin(names[p]);
    if (!d || !(d->caps & SHARD_CAP_NEEDS_LCP)) continue;
    mock m;
    integ it;
    CU_ASSERT_FATAL(integ_open(&it, names[p], NULL, 0.0));
    mock_particle(&m, 1.0, 0.001, -2.0, 0.5);
    CU_ASSERT_FATAL(integ_begin(&it, &m, 1e-2));
    m.lcp_fail = SHARD_ERR_NUMERIC;
    const double u0 = m.u[0];
    shard_msg msg = {{0}};
    const int rc = it.ops->step(it.self, &m.sys, 1e-2, &msg);
    const size_t len = strlen(msg.text);
    const int msg_ok = known_of(names[p])
                           ? strcmp(msg.text, "contact LCP on 1 active constraint: mock: solver failed") == 0
                           : len >= sizeof cause - 1 && strcmp(msg.text + len - (sizeof cause - 1), cause) == 0;
    CU_CHECK_MSG(rc == SHARD_ERR_NUMERIC && msg_ok, "%s: rc %d, message '%.200s'", names[p], rc, msg.text);
    CU_CHECK_MSG(m.u[0] == u0, "%s: state untouched by the failed step", names[p]);
    integ_close(&it);
  }
}

/* Exact per-step energy identities with contact (linear K, constant f_ext),
 * the bookkeeping a host needs for a balance at round-off:
 *   NSN:    𝓗⁺ − 𝓗 = f_extᵀΔu + pᵀH(v_n + v_{n+1})/2
 *   MJ(θ):  E⁺ − E = f_extᵀΔu + pᵀH((1−θ)v_n + θv_{n+1}) − (θ−½)(|Δv|²_M + |Δu|²_K)
 *   CDL:    𝓗⁺ − 𝓗 = f_extᵀΔu + ½(p_n + p_{n+1})ᵀH v_{n+½}
 * with E = ½vᵀMv + ½uᵀKu, 𝓗 = E − Δt²/8 aᵀMa and p_n the previous step's
 * impulse. */
static void test_integrators_energy_identities(void) {
  static const char *const schemes[3] = {"nsn", "moreau_jean", "cd_lagrange"}; /* p: the identity below */
  for (int p = 0; p < 3; ++p) {
    const double th = p == 1 ? 0.7 : 0.5, dt = 5e-3;
    mock m;
    integ it;
    CU_ASSERT_FATAL(integ_open(&it, schemes[p], p == 1 ? "theta" : NULL, th));
    mock_chain_contact(&m, 0);
    CU_ASSERT_FATAL(integ_begin(&it, &m, dt));
    double pprev[CMAX] = {0}, worst = 0.0, contact = 0.0;
    const int n = m.sys.ndof;
    for (int s = 0; s < 40; ++s) {
      double u0[NMAX], v0[NMAX], vh[NMAX];
      memcpy(u0, m.u, sizeof u0);
      memcpy(v0, m.v, sizeof v0);
      memcpy(vh, m.aux, sizeof vh);
      const double e0 = p == 1 ? energy_mech(&m) : energy_alg(&m, dt);
      CU_ASSERT_EQUAL_FATAL(integ_step(&it, &m, dt), SHARD_OK);
      const double e1 = p == 1 ? energy_mech(&m) : energy_alg(&m, dt);
      double wext = 0.0, work = 0.0, diss = 0.0;
      for (int i = 0; i < n; ++i) {
        const double du = m.u[i] - u0[i], dv = m.v[i] - v0[i];
        wext += m.fext[i] * du;
        diss += m.mass[i] * dv * dv;
        for (int j = 0; j < n; ++j) diss += du * m.kd[i][j] * (m.u[j] - u0[j]);
        for (int c = 0; c < m.sys.ncon; ++c) {
          const double hv = m.hd[c][i];
          if (p == 0) work += m.impulse[c] * hv * 0.5 * (v0[i] + m.v[i]);
          if (p == 1) work += m.impulse[c] * hv * ((1.0 - th) * v0[i] + th * m.v[i]);
          if (p == 2) work += 0.5 * (pprev[c] + m.impulse[c]) * hv * vh[i];
        }
      }
      for (int c = 0; c < m.sys.ncon; ++c) contact += m.impulse[c];
      worst = fmax(worst, fabs(e1 - e0 - wext - work + (th - 0.5) * diss));
      memcpy(pprev, m.impulse, sizeof pprev);
    }
    CU_CHECK_MSG(contact > 0.0, "%s: the run has contact impulses", schemes[p]);
    CU_CHECK_MSG(worst < 1e-13, "%s: energy identity residual %.3g J per step (E ~ 5 J)", schemes[p], worst);
    integ_close(&it);
  }
}

/* Explicit Newmark with a penalty floor (f = k max(-u, 0), the particle of
 * mass m under gravity): velocity Verlet gives, for any force,
 *   𝓗_{n+1} − 𝓗_n = ½(f_n + f_{n+1}) Δu − ∫ f du,   𝓗 = ½mv² + V(u) − Δt²/8 m a²,
 * the trapezoid rule's error on the work. The force is affine on each side
 * of the kink, so 𝓗 is kept to round-off except in the steps that cross
 * u = 0: ½k u_n u_{n+1} (< 0) entering, −½k u_n u_{n+1} (> 0) leaving
 * (docs/theory.md §5). Checked step by step over a dozen bounces. */
static void test_integrators_penalty_kink_identity(void) {
  const double mass = 1.0, k = 1e4, dt = 0.4 / sqrt(k / mass);
  mock m;
  integ it;
  CU_ASSERT_FATAL(integ_open(&it, "explicit_newmark", NULL, 0.0));
  mock_particle(&m, mass, 1.0, 0.0, 0.0);
  m.pen[0] = k;
  CU_ASSERT_FATAL(integ_begin(&it, &m, dt));
  const double scale = mass * grav * 1.0; /* the energy, ~9.8 J */
#define H_OF(u, v, a) (0.5 * mass * (v) * (v) + mass * grav * (u) + 0.5 * k * fmin(u, 0.0) * fmin(u, 0.0) - \
                       dt * dt / 8.0 * mass * (a) * (a))
  double worst = 0.0, smallest_kink = INFINITY;
  int entering = 0, leaving = 0;
  for (int s = 0; s < 3000; ++s) {
    const double u0 = m.u[0], h0 = H_OF(m.u[0], m.v[0], m.a[0]);
    CU_ASSERT_EQUAL_FATAL(integ_step(&it, &m, dt), SHARD_OK);
    const double u1 = m.u[0], h1 = H_OF(m.u[0], m.v[0], m.a[0]);
    double kink = 0.0;
    if (u0 > 0.0 && u1 < 0.0) kink = 0.5 * k * u0 * u1, ++entering;
    if (u0 < 0.0 && u1 > 0.0) kink = -0.5 * k * u0 * u1, ++leaving;
    if (kink != 0.0) smallest_kink = fmin(smallest_kink, fabs(kink));
    worst = fmax(worst, fabs(h1 - h0 - kink));
  }
#undef H_OF
  CU_CHECK_MSG(entering >= 10 && leaving >= 10, "bounces: %d in, %d out", entering, leaving);
  /* round-off of 𝓗 (~10 J): a few ulps per term */
  CU_CHECK_MSG(worst <= 1e-13 * scale, "𝓗 change minus the kink term: %.3g J per step at most (E %.3g J)", worst,
               scale);
  CU_CHECK_MSG(smallest_kink > 1e3 * worst, "the kink terms (%.3g J and up) stand out of the round-off (%.3g J)",
               smallest_kink, worst);
  integ_close(&it);
}

/* Explicit Newmark's count of violated gaps. With a host that knows
 * force_at_commit it leaves the count to the host's measure of the state it
 * commits (n_active = SHARD_N_ACTIVE_VIOLATED_GAPS, force_at_commit = 1);
 * with an older system struct it counts them itself, the same number. The
 * particle falls through the penalty floor: out of contact, then in. */
static void test_integrators_explicit_violated_gaps(void) {
  for (int old = 0; old < 2; ++old) {
    mock m;
    integ it;
    CU_ASSERT_FATAL(integ_open(&it, "explicit_newmark", NULL, 0.0));
    mock_particle(&m, 1.0, 1e-3, -1.0, 0.0);
    m.pen[0] = 1e4;
    if (old) m.sys.struct_size = (uint32_t)offsetof(shard_system, force_at_commit);
    CU_ASSERT_FATAL(integ_begin(&it, &m, 4e-4));
    int in_contact = 0;
    for (int k = 0; k < 6; ++k) {
      m.sys.force_at_commit = 0;
      CU_ASSERT_EQUAL_FATAL(integ_step(&it, &m, 4e-4), SHARD_OK);
      const int violated = m.u[0] < 0.0; /* g = u */
      in_contact += violated;
      if (old) {
        CU_CHECK_MSG(m.stats.n_active == violated && m.sys.force_at_commit == 0, "old struct, step %d: n_active %d, u %g",
                     k, m.stats.n_active, m.u[0]);
      } else {
        CU_CHECK_MSG(m.stats.n_active == SHARD_N_ACTIVE_VIOLATED_GAPS && m.sys.force_at_commit == 1,
                     "step %d: n_active %d, force_at_commit %d", k, m.stats.n_active, m.sys.force_at_commit);
      }
    }
    CU_CHECK_MSG(in_contact >= 2 && in_contact <= 5, "%d steps in contact", in_contact);
    integ_close(&it);
  }
}

/* The kink's losses and gains do not cancel: the leaving step travels
 * further (the penalty acceleration adds Δt²/2 k|u_n|/m), so a bounce gains
 * energy on average over its phase on the step grid. A particle (m = k = 1,
 * no gravity) meets the penalty floor at unit speed from 400 phases
 * u_0 = s Δt, s = (j + ½)/400; the mean relative gain per bounce is positive
 * at each of 10 ωΔt from 0.8 down to 0.1 and falls as (ωΔt)^4 (fitted
 * slope; docs/theory.md §5). */
static void test_integrators_penalty_bounce_gain(void) {
  const int nr = 10, phases = 400;
  double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
  integ it;
  CU_ASSERT_FATAL(integ_open(&it, "explicit_newmark", NULL, 0.0));
  for (int r = 0; r < nr; ++r) {
    const double wdt = 0.8 * pow(2.0, -r / 3.0), dt = wdt;
    double gain = 0.0;
    for (int j = 0; j < phases; ++j) {
      mock m;
      mock_particle(&m, 1.0, (j + 0.5) / phases * dt, -1.0, 0.0);
      m.fext[0] = 0.0, m.a[0] = 0.0;
      m.pen[0] = 1.0;
      CU_ASSERT_FATAL(integ_begin(&it, &m, dt));
      int s = 0;
      do {
        CU_ASSERT_EQUAL_FATAL(integ_step(&it, &m, dt), SHARD_OK);
      } while (!(m.u[0] > 0.0 && m.v[0] > 0.0) && ++s < 100000);
      CU_ASSERT_FATAL(s < 100000);
      gain += m.v[0] * m.v[0] - 1.0; /* (E_out − E_in) / E_in, free on both sides */
    }
    gain /= phases;
    CU_CHECK_MSG(gain > 0.0, "ωΔt = %.3f: mean relative gain per bounce %.3g", wdt, gain);
    if (!(gain > 0.0)) break;
    const double x = log(wdt), y = log(gain);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  const double slope = (nr * sxy - sx * sy) / (nr * sxx - sx * sx);
  CU_CHECK_MSG(slope >= 3.5 && slope <= 4.5, "mean gain per bounce ~ (ωΔt)^%.3f, expected 4", slope);
  integ_close(&it);
}

static const cu_test_def tests[] = {
    {"test_integrators_descriptors", test_integrators_descriptors},
    {"test_integrators_mj_theta_refused", test_integrators_mj_theta_refused},
    {"test_integrators_appendix_b_free_flight", test_integrators_appendix_b_free_flight},
    {"test_integrators_appendix_b_impact", test_integrators_appendix_b_impact},
    {"test_integrators_free_flight_parabola", test_integrators_free_flight_parabola},
    {"test_integrators_cdl_impact", test_integrators_cdl_impact},
    {"test_integrators_bouncing_ball", test_integrators_bouncing_ball},
    {"test_integrators_ball_convergence", test_integrators_ball_convergence},
    {"test_integrators_impacting_bar", test_integrators_impacting_bar},
    {"test_integrators_oscillator", test_integrators_oscillator},
    {"test_integrators_mj_theta_dissipation", test_integrators_mj_theta_dissipation},
    {"test_integrators_energy_identities", test_integrators_energy_identities},
    {"test_integrators_penalty_kink_identity", test_integrators_penalty_kink_identity},
    {"test_integrators_penalty_bounce_gain", test_integrators_penalty_bounce_gain},
    {"test_integrators_nsn_chain_equations", test_integrators_nsn_chain_equations},
    {"test_integrators_mj_chain_equations", test_integrators_mj_chain_equations},
    {"test_integrators_mj_scrambled_numbering", test_integrators_mj_scrambled_numbering},
    {"test_integrators_mj_insertion", test_integrators_mj_insertion},
    {"test_integrators_cdl_chain_equations", test_integrators_cdl_chain_equations},
    {"test_integrators_nsn_closing_filter", test_integrators_nsn_closing_filter},
    {"test_integrators_nonfinite", test_integrators_nonfinite},
    {"test_integrators_nonfinite_keeps_state", test_integrators_nonfinite_keeps_state},
    {"test_integrators_reserve_grows", test_integrators_reserve_grows},
    {"test_integrators_explicit_violated_gaps", test_integrators_explicit_violated_gaps},
    {"test_integrators_lcp_failure_context", test_integrators_lcp_failure_context},
    {"test_integrators_mj_indefinite", test_integrators_mj_indefinite},
    {"test_integrators_failed_step_keeps_state", test_integrators_failed_step_keeps_state},
    {NULL, NULL},
};

int main(int argc, char **argv) {
  if (!discover()) return 1;
  const int failed = cu_main(argc, argv, "integrators", tests);
  shard_registry_destroy(reg);
  return failed;
}
