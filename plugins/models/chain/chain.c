/* model plugin `chain`: the mass-spring chain behind the model ABI
 * (shard/model.h).
 *
 * N point masses on a line joined by N - 1 linear springs, each with its own
 * stiffness, between optional rigid walls at both ends: DOF i is the
 * displacement of mass i, K is tridiagonal, a wall is a constraint row with
 * one entry (g = gap + u_0 on the left, gap - u_{N-1} on the right). No body
 * force, no fracture, no analytic reference. It is the smallest model that is
 * not the particle or the bar, written against the interface alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tridiag.h"
#include "loader/plugin_calls.h"
#include "shard/model.h"

/* ---- the keys of its case section ---- */

#define R SHARD_PARAM_REAL
#define I SHARD_PARAM_INT
#define C SHARD_PARAM_CHOICE
#define REQ SHARD_PARAM_REQUIRED
#define POS SHARD_PARAM_MIN_EXCLUSIVE

static const shard_param_spec chain_specs[] = {
    {"masses", R, 0, 0, SHARD_INF, "kg", REQ | POS | SHARD_PARAM_LIST, 0,
     "the point masses, left to right (a list: the chain has as many masses)"},
    {"stiffness", R, 0, 0, SHARD_INF, "N/m", SHARD_PARAM_LIST, 0,
     "stiffness of the springs between neighbouring masses: one value for all, or one per spring (masses - 1)"},
    {"initial.velocity", R, "0", -SHARD_INF, SHARD_INF, "m/s", SHARD_PARAM_LIST, 0,
     "initial velocity: one value for all masses, or one per mass"},
    {"walls.left.gap", R, 0, 0, SHARD_INF, "m", 0, 0, "rigid wall at this distance left of the first mass (absent: no wall)"},
    {"walls.right.gap", R, 0, 0, SHARD_INF, "m", 0, 0, "rigid wall at this distance right of the last mass (absent: no wall)"},
};

#undef R
#undef I
#undef C
#undef REQ
#undef POS

/* ---- output tables ------------------------------------------------------------------ */

enum { C_MOMENTUM, C_V_FIRST, C_V_LAST, C_FORCE_LEFT, C_FORCE_RIGHT, C_N };
static const shard_out_field chain_history_fields[] = {
    {"momentum", SHARD_OUT_NUMBER, "kg m/s", 0, "%.15g", "total linear momentum of the chain"},
    {"v_first", SHARD_OUT_NUMBER, "m/s", 0, "%.15g", "velocity of the first (leftmost) mass"},
    {"v_last", SHARD_OUT_NUMBER, "m/s", 0, "%.15g", "velocity of the last (rightmost) mass"},
    {"force_left", SHARD_OUT_NUMBER, "N", 0, "%.15g",
     "force of the left wall on the chain (impulse / dt or penalty force; empty without that wall)"},
    {"force_right", SHARD_OUT_NUMBER, "N", 0, "%.15g",
     "force of the right wall on the chain (impulse / dt or penalty force; empty without that wall)"},
};
static const shard_out_table chain_history_table = {
    "history.csv", "time history: the model's columns", "After the run's columns: the chain's momentum, end "
    "velocities and wall forces.", chain_history_fields, sizeof chain_history_fields / sizeof chain_history_fields[0],
    0};
static const shard_out_field chain_summary_fields[] = {
    {"chain.v_first", SHARD_OUT_NUMBER, "m/s", 0, NULL, "velocity of the first mass at the end"},
    {"chain.v_last", SHARD_OUT_NUMBER, "m/s", 0, NULL, "velocity of the last mass at the end"},
};
static const shard_out_table chain_summary_table = {
    "summary.yaml", "summary of a run: the model's keys", "After the run's keys: the chain's end velocities.",
    chain_summary_fields, sizeof chain_summary_fields / sizeof chain_summary_fields[0], 0};
static const shard_model_outputs chain_outputs = {&chain_history_table, &chain_summary_table, NULL, 0, NULL, NULL};

/* ---- the model -------------------------------------------------------------------------- */

typedef struct chain {
  shard_system sys;
  int32_t n, ncon;
  double *mass, *minv, *k; /* k[i]: spring between masses i and i+1 */
  int32_t wall[2];         /* constraint row of the left / right wall, -1 for none */
  int32_t h_rowptr[3], h_col[2];
  double h_val[2], g0[2];
  shard_csr h;
  int32_t *k_rowptr, *k_col;
  double *k_val;
  int32_t *k_diag; /* position of K[i][i] */
  shard_csr kcsr;
  const shard_contact_law_ops *force_law;
  void *force_law_self;
  double pen_f[2], pen_k[2], pen_e[2], gap[2];
  double *impulse;
  shard_step_stats stats;
  double mass_min;
} chain;

static chain *chain_of(shard_system *sys) { return (chain *)sys; }

static void gaps_at(const chain *c, const double *u, double *g) {
  for (int32_t i = 0; i < c->ncon; ++i) g[i] = c->g0[i] + c->h_val[i] * u[c->h_col[i]];
}

static void penalty_at(chain *c, const double *u) {
  gaps_at(c, u, c->gap);
  shard_contact_law_force(c->force_law, c->force_law_self, c->ncon, c->gap, c->pen_f, c->pen_k, c->pen_e);
}

static int sys_force(shard_system *sys, double t, const double *u, double *f, shard_msg *msg) {
  chain *c = chain_of(sys);
  (void)t, (void)msg;
  for (int32_t i = 0; i < c->n; ++i) f[i] = 0.0;
  for (int32_t i = 0; i + 1 < c->n; ++i) {
    const double s = c->k[i] * (u[i + 1] - u[i]);
    f[i] += s, f[i + 1] -= s;
  }
  if (c->force_law) {
    penalty_at(c, u);
    for (int32_t i = 0; i < c->ncon; ++i) f[c->h_col[i]] += c->h_val[i] * c->pen_f[i];
  }
  return SHARD_OK;
}

static int sys_stiffness(shard_system *sys, const double *u, const shard_csr **out_k, shard_msg *msg) {
  chain *c = chain_of(sys);
  (void)msg;
  memset(c->k_val, 0, (size_t)c->k_rowptr[c->n] * sizeof *c->k_val);
  for (int32_t i = 0; i + 1 < c->n; ++i) { /* rows i and i+1: (i,i) (i,i+1) | (i+1,i) (i+1,i+1) */
    const double k = c->k[i];
    c->k_val[c->k_diag[i]] += k, c->k_val[c->k_diag[i] + 1] -= k;
    c->k_val[c->k_diag[i + 1] - 1] -= k, c->k_val[c->k_diag[i + 1]] += k;
  }
  if (c->force_law) {
    penalty_at(c, u);
    for (int32_t i = 0; i < c->ncon; ++i) c->k_val[c->k_diag[c->h_col[i]]] += c->pen_k[i]; /* h = +-1 */
  }
  *out_k = &c->kcsr;
  return SHARD_OK;
}

static void sys_gaps(shard_system *sys, const double *u, double *out_g) { gaps_at(chain_of(sys), u, out_g); }

static void sys_prescribe(shard_system *sys, double t, double *v, double *a) { (void)sys, (void)t, (void)v, (void)a; }

static const shard_system_ops chain_system_ops = {
    .force = sys_force,
    .stiffness = sys_stiffness,
    .gaps = sys_gaps,
    .prescribe = sys_prescribe,
};

static void chain_destroy(void *self) {
  chain *c = self;
  if (!c) return;
  free(c->mass), free(c->minv), free(c->k), free(c->sys.u), free(c->sys.v), free(c->sys.a), free(c->sys.aux);
  free(c->k_rowptr), free(c->k_col), free(c->k_val), free(c->k_diag), free(c->impulse);
  free(c);
}

/* one value for all, or one per item: the i-th of a list key */
static double nth(const shard_param_value *v, int32_t i) { return v->n_list == 1 ? v->list[0] : v->list[i]; }

static int chain_create(const shard_model_args *a, void **out_self, shard_system **out_sys, shard_msg *msg) {
  *out_self = NULL;
  const char *path = a->case_path;
  if (a->fracture)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: the chain model has no fracture: remove the 'fracture' section",
                         path);
  const shard_params *pp = a->params;
  const shard_param_value *vm = shard_params_find(pp, "masses"), *vk = shard_params_find(pp, "stiffness");
  const shard_param_value *vv = shard_params_find(pp, "initial.velocity");
  const int32_t n = vm ? (int32_t)vm->n_list : 0;
  if (n < 1) return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.masses gives no mass", path);
  const int32_t nk = vk ? (int32_t)vk->n_list : 0;
  if (n > 1 && nk != 1 && nk != n - 1)
    return shard_msg_set(msg, SHARD_ERR_INPUT,
                         "%s: model.stiffness has %d values for %d springs (give one value for all, or one per spring)",
                         path, (int)nk, (int)(n - 1));
  if (vv->n_list != 1 && (int32_t)vv->n_list != n)
    return shard_msg_set(msg, SHARD_ERR_INPUT,
                         "%s: model.initial.velocity has %u values for %d masses (give one value for all, or one per "
                         "mass)",
                         path, vv->n_list, (int)n);
  chain *c = calloc(1, sizeof *c);
  if (!c) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  c->n = n;
  const int32_t nnz = 3 * n;
  if (!(c->mass = calloc((size_t)n, sizeof(double))) || !(c->minv = calloc((size_t)n, sizeof(double))) ||
      !(c->k = calloc((size_t)n, sizeof(double))) || !(c->sys.u = calloc((size_t)n, sizeof(double))) ||
      !(c->sys.v = calloc((size_t)n, sizeof(double))) || !(c->sys.a = calloc((size_t)n, sizeof(double))) ||
      !(c->k_rowptr = calloc((size_t)n + 1, sizeof(int32_t))) || !(c->k_col = calloc((size_t)nnz, sizeof(int32_t))) ||
      !(c->k_val = calloc((size_t)nnz, sizeof(double))) || !(c->k_diag = calloc((size_t)n, sizeof(int32_t))) ||
      !(c->impulse = calloc(3, sizeof(double)))) {
    chain_destroy(c);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for a chain of %d masses", (int)n);
  }
  c->mass_min = INFINITY;
  for (int32_t i = 0; i < n; ++i) {
    c->mass[i] = nth(vm, i), c->minv[i] = 1.0 / c->mass[i], c->sys.v[i] = nth(vv, i);
    c->mass_min = fmin(c->mass_min, c->mass[i]);
    if (i + 1 < n) c->k[i] = nth(vk, i);
  }
  /* K: tridiagonal pattern, columns sorted */
  int32_t q = 0;
  for (int32_t i = 0; i < n; ++i) {
    c->k_rowptr[i] = q;
    if (i > 0) c->k_col[q++] = i - 1;
    c->k_diag[i] = q, c->k_col[q++] = i;
    if (i + 1 < n) c->k_col[q++] = i + 1;
  }
  c->k_rowptr[n] = q;
  c->kcsr = (shard_csr){n, n, c->k_rowptr, c->k_col, c->k_val};
  /* walls: one-entry rows */
  c->wall[0] = c->wall[1] = -1;
  static const char *const gap_key[2] = {"walls.left.gap", "walls.right.gap"};
  for (int side = 0; side < 2; ++side)
    if (shard_params_has(pp, gap_key[side])) {
      const int32_t r = c->ncon++;
      c->wall[side] = r;
      c->h_col[r] = side ? n - 1 : 0, c->h_val[r] = side ? -1.0 : 1.0, c->g0[r] = shard_params_real(pp, gap_key[side]);
    }
  for (int32_t r = 0; r <= c->ncon; ++r) c->h_rowptr[r] = r;
  c->h = (shard_csr){c->ncon, n, c->h_rowptr, c->h_col, c->h_val};
  shard_system *s = &c->sys;
  s->struct_size = sizeof *s;
  s->ndof = s->ndof_max = n, s->ncon = s->ncon_max = c->ncon;
  s->mass = c->mass, s->minv = c->minv, s->h = &c->h, s->impulse = c->impulse;
  s->stats = &c->stats, s->ops = &chain_system_ops;
  *out_self = c;
  *out_sys = s;
  return SHARD_OK;
}

static void chain_info(const void *self, shard_model_info *out) {
  (void)self;
  memset(out, 0, sizeof *out);
  out->name = "chain";
  out->w_row_degree = 4; /* a wall row couples only with the other wall's row (through K when n <= 2) */
}

static int scale_get(const void *ctx, const char *name, double *out) {
  const chain *c = ctx;
  if (strcmp(name, "mass_min") == 0) return *out = c->mass_min, 1;
  return 0;
}

static shard_scales chain_scales(const void *self) {
  return (shard_scales){.struct_size = sizeof(shard_scales), .ctx = self, .get = scale_get};
}

static int chain_derived(const void *self, const char *name, double *out) {
  const chain *c = self;
  if (strcmp(name, "mass_total") != 0) return 0;
  double s = 0;
  for (int32_t i = 0; i < c->n; ++i) s += c->mass[i];
  return *out = s, 1;
}

static void chain_why(const void *self, const char *name, double v, char *buf, size_t n) {
  (void)self;
  if (isinf(v))
    snprintf(buf, n, "'%s' is infinite: this chain has no spring or wall stiffness that limits the step; give the "
             "value itself", name);
  else
    snprintf(buf, n, "derived value '%s' = %g is not a finite positive number for this chain (masses and stiffnesses "
             "overflow or underflow it)", name, v);
}

static void chain_set_force_law(void *self, const shard_contact_law_ops *ops, void *law) {
  chain *c = self;
  c->force_law = ops, c->force_law_self = law;
}

static int chain_set_tsl(void *self, const shard_tsl_ops *ops, void *tsl, int zero_in_compression, shard_msg *msg) {
  (void)self, (void)ops, (void)tsl, (void)zero_in_compression;
  return shard_msg_set(msg, SHARD_ERR_INPUT, "the chain model has no fracture");
}

static void chain_release_rule(const void *self, shard_model_release_rule *out) {
  (void)self;
  *out = (shard_model_release_rule){0, 0.0};
}

/* 2 / sqrt(lambda_max(M^-1 K)), the walls as springs of max_spring (0: none) */
static double chain_stable_step(const void *self, shard_model_step which, double max_spring) {
  const chain *c = self;
  const int32_t n = c->n;
  double *d = calloc((size_t)n + 1, sizeof *d), *e = calloc((size_t)n + 1, sizeof *e);
  if (!d || !e) {
    free(d), free(e);
    return NAN;
  }
  for (int32_t i = 0; i + 1 < n; ++i) d[i] += c->k[i], d[i + 1] += c->k[i], e[i] = -c->k[i];
  if (which != SHARD_STEP_BULK && max_spring > 0)
    for (int32_t r = 0; r < c->ncon; ++r) d[c->h_col[r]] += max_spring;
  const double lmax = shard_chain_lambda_max(d, e, c->mass, n);
  free(d), free(e);
  return lmax > 0 ? 2.0 / sqrt(lmax) : INFINITY;
}

static void chain_commit(void *self) { (void)self; }
static int32_t chain_insert(void *self, int32_t *first_dof) {
  *first_dof = ((chain *)self)->n;
  return 0;
}

static void chain_measure(void *self, const double *u, double *gaps) {
  chain *c = self;
  gaps_at(c, u, gaps);
  if (c->force_law) shard_contact_law_force(c->force_law, c->force_law_self, c->ncon, gaps, c->pen_f, c->pen_k, c->pen_e);
}

static void chain_energy(const void *self, shard_model_energy *out) {
  const chain *c = self;
  const double *u = c->sys.u, *v = c->sys.v;
  double kin = 0, el = 0, pen = 0;
  for (int32_t i = 0; i < c->n; ++i) kin += c->mass[i] * v[i] * v[i];
  for (int32_t i = 0; i + 1 < c->n; ++i) el += c->k[i] * (u[i + 1] - u[i]) * (u[i + 1] - u[i]);
  for (int32_t i = 0; c->force_law && i < c->ncon; ++i) pen += c->pen_e[i];
  *out = (shard_model_energy){.kinetic = 0.5 * kin, .elastic = 0.5 * el, .penalty = pen};
}

static void chain_reactions(void *self, const double *u, double out[2]) { (void)self, (void)u, out[0] = out[1] = 0; }
static void chain_release(void *self) { (void)self; }
static int chain_released(const void *self) { return (void)self, 0; }
static int32_t chain_broken(const void *self) { return (void)self, 0; }

static int chain_reference_setup(void *self, const char *type, double e, double dt, shard_msg *msg) {
  (void)self, (void)e, (void)dt;
  if (type && strcmp(type, "auto") != 0 && strcmp(type, "none") != 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "reference.type '%s' has no solution for the chain model (auto or none)",
                         type);
  return SHARD_OK;
}
static void chain_reference_step(void *self, double t) { (void)self, (void)t; }

/* force of wall row r on the chain in the last step, NAN without that wall */
static double wall_force(const chain *c, int32_t r, double dt) {
  if (r < 0) return NAN;
  return c->impulse[r] / dt + (c->force_law ? c->pen_f[r] : 0.0);
}

static void chain_history(void *self, const shard_model_row_in *in, double *x) {
  const chain *c = self;
  double p = 0;
  for (int32_t i = 0; i < c->n; ++i) p += c->mass[i] * c->sys.v[i];
  x[C_MOMENTUM] = p, x[C_V_FIRST] = c->sys.v[0], x[C_V_LAST] = c->sys.v[c->n - 1];
  x[C_FORCE_LEFT] = wall_force(c, c->wall[0], in->dt), x[C_FORCE_RIGHT] = wall_force(c, c->wall[1], in->dt);
}

static int chain_summary_keys(void *self, const shard_model_summary_in *in, const shard_summary_writer *w) {
  const chain *c = self;
  (void)in;
  w->num(w->ctx, "chain.v_first", c->sys.v[0]);
  w->num(w->ctx, "chain.v_last", c->sys.v[c->n - 1]);
  return SHARD_OK;
}

static int chain_files(void *self, const char *dir, unsigned out_flags, shard_msg *msg) {
  (void)self, (void)dir, (void)out_flags, (void)msg;
  return SHARD_OK;
}

/* ---- checkpoints: the state, the warm start and the integrator's vectors ---- */

static uint32_t chain_ck_sections(void *self) { return ((chain *)self)->sys.n_aux ? 5u : 4u; }

static void chain_ck_write(void *self, const shard_model_ck_io *io) {
  chain *c = self;
  const uint64_t n = (uint64_t)c->n;
  io->put(io->ctx, "u", SHARD_MODEL_CK_F64, c->sys.u, n);
  io->put(io->ctx, "v", SHARD_MODEL_CK_F64, c->sys.v, n);
  io->put(io->ctx, "a", SHARD_MODEL_CK_F64, c->sys.a, n);
  io->put(io->ctx, "impulse", SHARD_MODEL_CK_F64, c->impulse, 3);
  if (c->sys.n_aux) io->put(io->ctx, "aux", SHARD_MODEL_CK_F64, c->sys.aux, (uint64_t)c->sys.n_aux * n);
}

static int chain_ck_read(void *self, const shard_model_ck_io *io, int64_t step, double dt, shard_msg *msg) {
  chain *c = self;
  (void)step, (void)dt;
  const uint64_t n = (uint64_t)c->n;
  struct {
    const char *name;
    double *p;
    uint64_t count;
  } arrays[] = {{"u", c->sys.u, n},
                {"v", c->sys.v, n},
                {"a", c->sys.a, n},
                {"impulse", c->impulse, 3},
                {"aux", c->sys.aux, (uint64_t)c->sys.n_aux * n}};
  const size_t na = c->sys.n_aux ? 5 : 4;
  for (size_t k = 0; k < na; ++k) {
    const int st = io->get(io->ctx, arrays[k].name, SHARD_MODEL_CK_F64, arrays[k].p, arrays[k].count, msg);
    if (st != SHARD_OK) return st;
    for (uint64_t i = 0; i < arrays[k].count; ++i)
      if (!isfinite(arrays[k].p[i]))
        return shard_msg_set(msg, SHARD_ERR_INPUT, "%s[%llu] is not finite", arrays[k].name, (unsigned long long)i);
  }
  return SHARD_OK;
}

static const shard_model_ops chain_ops = {
    .outputs = &chain_outputs,
    .create = chain_create,
    .destroy = chain_destroy,
    .info = chain_info,
    .scales = chain_scales,
    .derived = chain_derived,
    .why = chain_why,
    .set_force_law = chain_set_force_law,
    .set_tsl = chain_set_tsl,
    .release_rule = chain_release_rule,
    .stable_step = chain_stable_step,
    .commit = chain_commit,
    .insert = chain_insert,
    .measure = chain_measure,
    .energy = chain_energy,
    .reactions = chain_reactions,
    .release = chain_release,
    .released = chain_released,
    .broken = chain_broken,
    .reference_setup = chain_reference_setup,
    .reference_step = chain_reference_step,
    .history = chain_history,
    .summary = chain_summary_keys,
    .files = chain_files,
    .ck_sections = chain_ck_sections,
    .ck_write = chain_ck_write,
    .ck_read = chain_ck_read,
};

static const shard_plugin chain_plugin = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_MODEL),
    .name = "chain",
    .version = "1.0.0",
    .summary = "point masses joined by springs of their own stiffness, between optional rigid walls",
    .params = chain_specs,
    .n_params = SHARD_NPARAMS(chain_specs),
    .ops_size = sizeof(shard_model_ops),
    .caps = 0,
    .ops = &chain_ops,
    .doc = "N point masses on a line joined by N - 1 linear springs, each with its own stiffness, between optional "
           "rigid walls at both ends: DOF i is the displacement of mass i, K is tridiagonal, a wall is a constraint "
           "row with one entry. No body force, no fracture, no analytic reference. Its history has the momentum, "
           "the first and last masses' velocities and the wall forces; `cases/examples/spring_chain.yaml` runs "
           "it under every integrator.",
};

SHARD_PLUGIN_SINGLE(chain_plugin)
