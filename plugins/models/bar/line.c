/* model plugin `bar`: the line models — the particle and the 1D bar — behind
 * the model ABI (see line.h, shard/model.h). The engine (system, fracture,
 * stable step, checkpoint arrays) is model.c; this file adds what the run
 * asks of a model: scales and derived names, the analytic references, the
 * model's history columns, summary keys and files, snapshots. */
#include "line.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "io/checkpoint.h"
#include "io/fsio.h"
#include "io/outputs.h"
#include "probe.h"
#include "snapshot.h"
#include "line_outputs.h"
#include "model.h"
#include "reference.h"

/* ---- the keys of the case sections (the array sizes in line.h are checked by the compiler) ---- */

#define R SHARD_PARAM_REAL
#define I SHARD_PARAM_INT
#define C SHARD_PARAM_CHOICE
#define REQ SHARD_PARAM_REQUIRED
#define POS SHARD_PARAM_MIN_EXCLUSIVE

const shard_param_spec shard_particle_specs[] = {
    {"mass", R, "1", 0, SHARD_INF, "kg", POS, 0, "point mass"},
    {"position", R, 0, -SHARD_INF, SHARD_INF, "m", REQ, 0, "initial height u0 above the floor's reference"},
    {"velocity", R, "0", -SHARD_INF, SHARD_INF, "m/s", 0, 0, "initial velocity v0 (positive up)"},
    {"gravity", R, "9.81", 0, SHARD_INF, "m/s^2", 0, 0, "gravitational acceleration g (acts downward)"},
    {"floor", R, "0", -SHARD_INF, SHARD_INF, "m", 0, 0, "floor position; gap g = u - floor"},
};

const shard_param_spec shard_bar_specs[] = {
    {"length", R, 0, 0, SHARD_INF, "m", REQ | POS, 0, "bar length L"},
    {"area", R, "1", 0, SHARD_INF, "m^2", POS, 0, "cross-section A"},
    {"young", R, 0, 0, SHARD_INF, "Pa", REQ | POS, 0, "Young's modulus E"},
    {"density", R, 0, 0, SHARD_INF, "kg/m^3", REQ | POS, 0, "mass density rho"},
    {"elements", I, 0, 1, 1e8, "1", REQ, 0, "number of P1 elements N_e"},
    {"origin", R, "0", -SHARD_INF, SHARD_INF, "m", 0, 0, "reference position X of the left end"},
    {"perturbation", R, "0", 0, 0.5, "1", SHARD_PARAM_MAX_EXCLUSIVE, 0,
     "internal nodes moved by U[-p h, p h] (fraction of the mean element length)"},
    {"seed", I, "1", 0, 9.2e18, "1", 0, 0, "seed of the mesh perturbation"},
    {"initial.velocity", R, "0", -SHARD_INF, SHARD_INF, "m/s", 0, 0, "uniform initial velocity"},
    {"initial.strain_rate", R, "0", -SHARD_INF, SHARD_INF, "1/s",
     0, 0, "initial velocity field v = strain_rate * (X - X_mid), added to initial.velocity"},
    {"initial.strain", R, "0", -SHARD_INF, SHARD_INF, "1", 0, 0,
     "uniform initial strain (pre-stretch): u = strain * (X - X_mid), stress E * strain"},
    {"initial.velocity_left_of", R, 0, -SHARD_INF, SHARD_INF, "m",
     0, 0, "if given, initial.velocity applies only to the elements whose midpoint lies left of this position: "
     "the twins of a pre-broken interface there each move with their own side, an intact node with elements on both "
     "sides takes their mass-weighted mean (the initial momentum is exact)"},
    {"loading.left_velocity", R, 0, -SHARD_INF, SHARD_INF, "m/s", 0, 0, "prescribed velocity of the left end (absent: free)"},
    {"loading.right_velocity", R, 0, -SHARD_INF, SHARD_INF, "m/s", 0, 0,
     "prescribed velocity of the right end (absent: free)"},
    {"loading.release", C, "never", 0, 0, "", 0, "never|external_work|time|first_insertion",
     "when the prescribed ends are released: never, when the external-work increment of a step turns negative, "
     "at loading.release_time, or at the end of the step of the first cohesive insertion"},
    {"loading.release_time", R, 0, 0, SHARD_INF, "s", 0, 0, "release time for loading.release = time"},
    {"walls.left.gap", R, 0, 0, SHARD_INF, "m", 0, 0, "rigid wall at this distance left of the left end (absent: no wall); on a driven end it acts from the release "
     "(docs/theory.md section 8)"},
    {"walls.right.gap", R, 0, 0, SHARD_INF, "m", 0, 0, "rigid wall at this distance right of the right end (absent: no wall); on a driven end it acts from the "
     "release (docs/theory.md section 8)"},
    {"insertion_acceleration", C, "consistent", 0, 0, "", 0, "consistent|copied",
     "the acceleration after a step's cohesive insertions under a Newmark-form scheme (NSN, explicit Newmark): "
     "consistent, a = M^-1 f(u) with the new topology on every DOF (closes the energy balance across "
     "insertions), or copied, each twin keeps its source node's a (the scheme of the 1D paper)"},
};

#undef R
#undef I
#undef C
#undef REQ
#undef POS

/* The reference state: what the run compares against, and its error sums
 * (plain data: checkpointed as one section). */
typedef struct line_ref {
  int32_t kind; /* shard_reference_kind */
  int32_t contact_con, contact_dof;
  shard_ball_ref ball;
  shard_bar_ref bar;
  double dt;
  double eta_num, eta_den, etav_num, etav_den, eta_all_num, eta_all_den, etac_num, etac_den;
  double first_contact, last_contact, force_sum;
  int64_t force_n;
} line_ref;

typedef struct line {
  shard_model *m;
  shard_model_release_rule release; /* loading.release */
  line_ref ref, ref_set; /* current; as set up (what a checkpoint is checked against) */
  shard_snapshots *snap;
  int spacetime;
  shard_probes *probes; /* output.probes */
} line;

static int line_create(const shard_model_args *a, void **out_self, shard_system **out_sys, shard_msg *msg) {
  *out_self = NULL;
  line *l = calloc(1, sizeof *l);
  if (!l) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  l->ref.contact_con = l->ref.contact_dof = -1;
  const int st = shard_model_create(a, &l->m, msg);
  if (st != SHARD_OK) {
    free(l);
    return st;
  }
  /* when the driven ends are released (docs/theory.md §13) */
  if (l->m->kind == SHARD_MODEL_BAR && l->m->n_presc) {
    const char *rel = shard_params_string(a->params, "loading.release");
    l->release.mode = !rel || strcmp(rel, "never") == 0           ? 0
                      : strcmp(rel, "external_work") == 0 ? 1
                      : strcmp(rel, "time") == 0          ? 2
                                                          : 3;
    if (l->release.mode == 2) {
      if (!shard_params_has(a->params, "loading.release_time")) {
        shard_model_destroy(l->m);
        free(l);
        return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.loading.release 'time' needs model.loading.release_time",
                             a->case_path);
      }
      l->release.time = shard_params_real(a->params, "loading.release_time");
    }
  }
  *out_self = l;
  *out_sys = &l->m->sys;
  return SHARD_OK;
}

static void line_destroy(void *self) {
  line *l = self;
  if (!l) return;
  shard_snapshots_close(l->snap);
  shard_probes_close(l->probes, 0, NULL); /* not closed by the run: its file is not published */
  shard_model_destroy(l->m);
  free(l);
}

static void line_info(const void *self, shard_model_info *out) {
  const line *l = self;
  const shard_model *m = l->m;
  memset(out, 0, sizeof *out);
  out->name = m->kind == SHARD_MODEL_PARTICLE ? "particle" : "bar";
  out->flags = (m->fracture ? SHARD_MODEL_FRACTURE : 0u) | (m->fracture && m->insertion ? SHARD_MODEL_INSERTION : 0u);
  out->out_flags = m->kind == SHARD_MODEL_PARTICLE ? LINE_OUT_PARTICLE : LINE_OUT_BAR;
  if (m->fracture) out->out_flags |= SHARD_OUT_FRACTURE;
  if (l->ref.kind == SHARD_REF_BALL) out->out_flags |= LINE_OUT_REF_BALL;
  if (l->ref.kind == SHARD_REF_BAR_IMPACT) out->out_flags |= LINE_OUT_REF_BAR;
  out->n_facets = m->nfacet;
  out->n_presc = m->n_presc;
  for (int32_t i = 0; i < m->n_presc; ++i) out->presc_dof[i] = m->presc_dof[i];
  int any = 0;
  for (int32_t d = 0; d < m->ndof; ++d) any |= m->fext[d] != 0.0; /* fext is set once, at build */
  out->fext = any ? m->fext : NULL; /* only the particle has one, and its storage never grows */
  out->w_row_degree = 24; /* a row: 2 DOFs x (5 stiffness neighbours) x 2 rows per DOF */
}

static shard_scales line_scales(const void *self) { return shard_model_named_scales(((const line *)self)->m); }

static int line_derived(const void *self, const char *name, double *out) {
  const shard_model *m = ((const line *)self)->m;
  const shard_model_scales *s = &m->scales;
  const double c = s->density > 0 ? sqrt(s->young / s->density) : NAN;
  if (strcmp(name, "c") == 0) return *out = c, 1;
  if (strcmp(name, "h_mean") == 0) return *out = s->h_mean, 1;
  if (strcmp(name, "h_min") == 0) return *out = s->h_min, 1;
  if (strcmp(name, "t_b") == 0) return *out = s->length > 0 ? 2.0 * s->length / c : NAN, 1;
  if (strcmp(name, "mass_total") == 0) return *out = shard_model_total_mass(m), 1;
  return 0;
}

/* the fragmentation scales of docs/theory.md §13 from the bar's keys */
static int line_case_derived(const char *name, int (*number)(void *ctx, const char *path, double *out), void *ctx,
                             double *out) {
  double E, rho, gc, sc, L, rate = 0;
  if (!number(ctx, "model.young", &E) || !number(ctx, "model.density", &rho)) return 0;
  const double c = sqrt(E / rho);
  if (strcmp(name, "sigma_c") == 0) return number(ctx, "fracture.strength.nominal", out);
  if (strcmp(name, "g_c") == 0) return number(ctx, "fracture.g_c", out);
  if (!number(ctx, "fracture.strength.nominal", &sc) || !number(ctx, "fracture.g_c", &gc)) return 0;
  const double s0 = E * gc / (sc * sc), t0 = s0 / c;
  if (strcmp(name, "s0") == 0) return *out = s0, 1;
  if (strcmp(name, "t0") == 0) return *out = t0, 1;
  if (strcmp(name, "eps0") == 0) return *out = sc / (E * t0), 1;
  number(ctx, "model.initial.strain_rate", &rate);
  const double sg = rate != 0 ? cbrt(24.0 * gc / (rho * rate * rate)) : INFINITY;
  if (strcmp(name, "s_grady") == 0) return isfinite(sg) ? (*out = sg, 1) : 0;
  if (strcmp(name, "s_bar") == 0) {
    if (!number(ctx, "model.length", &L)) return 0;
    return *out = fmin(L, 1.0 / (1.0 / (4.0 * s0) + 1.0 / sg)), 1;
  }
  return 0;
}

static void line_why(const void *self, const char *name, double v, char *buf, size_t n) {
  const shard_model *m = ((const line *)self)->m;
  const shard_model_scales *s = &m->scales;
  if (isinf(v) && m->kind == SHARD_MODEL_PARTICLE) {
    snprintf(buf, n, "'%s' is infinite: this particle has no stiffness that limits the step; give the value itself",
             name);
    return;
  }
  snprintf(buf, n,
           "derived value '%s' = %g is not a finite positive number: its inputs overflow or underflow it "
           "(model.young = %g Pa, model.density = %g kg/m^3, model.area = %g m^2, h_min = %g m)",
           name, v, s->young, s->density, s->area, s->h_min);
}

static void line_set_force_law(void *self, const shard_contact_law_ops *ops, void *law) {
  shard_model_set_force_law(((line *)self)->m, ops, law);
}

static int line_set_tsl(void *self, const shard_tsl_ops *ops, void *tsl, int zero_in_compression, shard_msg *msg) {
  return shard_model_set_tsl(((line *)self)->m, ops, tsl, zero_in_compression, msg);
}

static void line_release_rule(const void *self, shard_model_release_rule *out) { *out = ((const line *)self)->release; }

static double line_stable_step(const void *self, shard_model_step which, double max_spring) {
  const shard_model *m = ((const line *)self)->m;
  switch (which) {
  case SHARD_STEP_PAPER: return shard_model_dt_paper(m, max_spring);
  case SHARD_STEP_BULK: return shard_model_dt_bulk(m);
  default: return shard_model_dt_default(m, max_spring);
  }
}

static void line_commit(void *self) { shard_model_commit(((line *)self)->m); }
static int32_t line_insert(void *self, int32_t *first_dof) { return shard_model_insert(((line *)self)->m, first_dof); }
static void line_measure(void *self, const double *u, double *gaps) { shard_model_measure(((line *)self)->m, u, gaps); }

static void line_energy(const void *self, shard_model_energy *out) {
  const shard_model *m = ((const line *)self)->m;
  out->kinetic = shard_model_kinetic(m, m->sys.v);
  out->elastic = shard_model_elastic(m, m->sys.u);
  out->penalty = shard_model_penalty_energy(m);
  shard_model_cohesive_energy(m, &out->cohesive_reversible, &out->cohesive_work);
}

static void line_reactions(void *self, const double *u, double out[2]) {
  shard_model_reactions(((line *)self)->m, u, out);
}
static void line_release(void *self) { shard_model_release(((line *)self)->m); }
static int line_released(const void *self) { return ((const line *)self)->m->released; }
static int32_t line_broken(const void *self) {
  const shard_model *m = ((const line *)self)->m;
  return m->fracture ? shard_model_broken(m) : 0;
}

/* ---- references ------------------------------------------------------------------ */

static int line_reference_setup(void *self, const char *type, double e, double dt, shard_msg *msg) {
  line *l = self;
  const shard_model *m = l->m;
  line_ref *r = &l->ref;
  r->dt = dt;
  int want_ball = 0, want_bar = 0;
  if (!type || strcmp(type, "auto") == 0) {
    want_ball = m->kind == SHARD_MODEL_PARTICLE && !isnan(e); /* the ball's e is one constant */
    want_bar = m->kind == SHARD_MODEL_BAR && m->nwall == 1 && m->n_presc == 0;
  } else if (strcmp(type, "ball") == 0) {
    if (m->kind != SHARD_MODEL_PARTICLE)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "reference.type 'ball' needs model.type 'particle'");
    if (isnan(e))
      return shard_msg_set(msg, SHARD_ERR_INPUT,
                           "reference.type 'ball' needs a constant restitution, but the impact law is velocity "
                           "dependent: set reference.type: none");
    want_ball = 1;
  } else if (strcmp(type, "bar_impact") == 0) {
    if (m->kind != SHARD_MODEL_BAR || m->nwall != 1)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "reference.type 'bar_impact' needs a bar with exactly one wall");
    want_bar = 1;
  } else if (strcmp(type, "none") != 0) {
    return shard_msg_set(msg, SHARD_ERR_INPUT, "reference.type '%s' is not a reference of model '%s' (auto, none, %s)",
                         type, m->kind == SHARD_MODEL_PARTICLE ? "particle" : "bar",
                         m->kind == SHARD_MODEL_PARTICLE ? "ball" : "bar_impact");
  }
  if (want_ball) {
    r->kind = SHARD_REF_BALL;
    double grav = -m->fext[0] / m->mass[0];
    shard_ball_ref_init(&r->ball, m->sys.u[0], m->sys.v[0], grav, e, -m->g0[0]);
    r->contact_con = 0, r->contact_dof = 0;
  } else if (want_bar) {
    const int left = m->wall_left >= 0;
    r->contact_con = 0;
    r->contact_dof = left ? 0 : m->ndof - 1;
    const double v0 = m->sys.v[r->contact_dof];
    int uniform = 1;
    for (int32_t d = 0; d < m->ndof; ++d) uniform &= fabs(m->sys.v[d] - v0) <= 1e-12 * fabs(v0);
    if (!uniform || (left ? v0 >= 0 : v0 <= 0)) {
      if (type && strcmp(type, "bar_impact") == 0)
        return shard_msg_set(msg, SHARD_ERR_INPUT, "reference 'bar_impact' needs a uniform initial velocity toward the wall");
    } else {
      const double c = sqrt(m->scales.young / m->scales.density);
      shard_bar_ref_init(&r->bar, m->scales.length, c, m->scales.density, m->scales.area, v0, m->g0[0]);
      r->kind = SHARD_REF_BAR_IMPACT;
    }
  }
  r->first_contact = r->last_contact = NAN;
  l->ref_set = *r;
  return SHARD_OK;
}

static void line_reference_step(void *self, double t) {
  line *l = self;
  shard_model *m = l->m;
  line_ref *r = &l->ref;
  const double *u = m->sys.u, *v = m->sys.v;
  if (r->kind == SHARD_REF_BALL) {
    double ua, va;
    shard_ball_ref_eval(&r->ball, t, &ua, &va);
    r->eta_all_num += fabs(u[0] - ua);
    r->eta_all_den += fabs(ua);
  } else if (r->kind == SHARD_REF_BAR_IMPACT) {
    double ua, va, fa;
    shard_bar_ref_eval(&r->bar, t, &ua, &va, &fa);
    const double f = shard_model_contact_force(m, r->contact_con, r->dt);
    const int32_t d = r->contact_dof;
    if (f > 0) {
      if (isnan(r->first_contact)) r->first_contact = t;
      r->last_contact = t;
    }
    const double tc = r->bar.t_contact, tb = r->bar.t_b;
    if (t >= tc + 0.1 * tb && t <= tc + 0.9 * tb) r->force_sum += f, r->force_n++;
    if (t >= tc && t <= tc + tb) r->etac_num += fabs(u[d] - ua), r->etac_den += fabs(ua);
    r->eta_all_num += fabs(u[d] - ua), r->eta_all_den += fabs(ua);
    if (t > tc + tb && t <= tc + 4 * tb) {
      r->eta_num += fabs(u[d] - ua), r->eta_den += fabs(ua);
      r->etav_num += fabs(v[d] - va), r->etav_den += fabs(va);
    }
  }
}

/* ---- outputs ------------------------------------------------------------------------ */

static void line_history(void *self, const shard_model_row_in *in, double *x) {
  line *l = self;
  shard_model *m = l->m;
  const line_ref *r = &l->ref;
  const double *u = m->sys.u, *v = m->sys.v, *a = m->sys.a;
  if (m->kind == SHARD_MODEL_PARTICLE) {
    x[L_U] = u[0], x[L_V] = v[0], x[L_A] = a[0], x[L_GAP] = in->gaps[0], x[L_IMPULSE] = m->impulse[0];
    x[L_FORCE] = m->ncon ? shard_model_contact_force(m, 0, in->dt) : 0.0;
  } else {
    const int32_t d = r->contact_dof;
    if (d >= 0) x[L_U_CONTACT] = u[d], x[L_V_CONTACT] = v[d];
    x[L_FORCE_CONTACT] = (d >= 0 && m->ncon) ? shard_model_contact_force(m, r->contact_con, in->dt) : 0.0;
    x[L_MOMENTUM] = shard_model_momentum(m, v);
  }
  if (m->fracture) {
    const double rev = in->energy->cohesive_reversible, work = in->energy->cohesive_work;
    const int32_t broken = shard_model_broken(m);
    x[L_COHESIVE_REVERSIBLE] = rev, x[L_COHESIVE_WORK] = work;
    x[L_FRACTURE_DISSIPATION] = work - rev, x[L_INTERFACES] = m->niface, x[L_BROKEN] = broken;
    x[L_FRAGMENTS] = broken + 1, x[L_INSERTIONS] = (double)m->insertions;
  }
  if (r->kind == SHARD_REF_BALL) {
    shard_ball_ref tmp = r->ball;
    shard_ball_ref_eval(&tmp, in->t, &x[L_U_REF], &x[L_V_REF]);
  } else if (r->kind == SHARD_REF_BAR_IMPACT) {
    shard_bar_ref_eval(&r->bar, in->t, &x[L_U_REF_BAR], &x[L_V_REF_BAR], &x[L_FORCE_REF]);
  }
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The fragments of the final state (docs/theory.md §8), left to right, and their
 * sizes ascending with the statistics over them (mean with its Student-t
 * 95% interval, spread) and the median. Returns the count, or -1 out of
 * memory; *fr and *sizes are malloc'd (free both, also on failure). */
static int32_t fragment_sizes(const shard_model *m, shard_fragment **fr, double **sizes, shard_sample_stats *st,
                              double *median) {
  const int32_t nf = shard_model_fragments(m, m->sys.v, NULL, 0);
  *fr = calloc((size_t)nf + 1, sizeof **fr);
  *sizes = calloc((size_t)nf + 1, sizeof **sizes);
  if (!*fr || !*sizes) return -1;
  shard_model_fragments(m, m->sys.v, *fr, nf);
  for (int32_t i = 0; i < nf; ++i) (*sizes)[i] = (*fr)[i].size;
  *st = shard_sample_stats_of(*sizes, nf);
  qsort(*sizes, (size_t)nf, sizeof **sizes, cmp_double);
  *median = nf < 1 ? NAN : nf % 2 ? (*sizes)[nf / 2] : 0.5 * ((*sizes)[nf / 2 - 1] + (*sizes)[nf / 2]);
  return nf;
}

/* SHARD_ERR_NOMEM when the fragment statistics could not be computed (the
 * summary is then incomplete) */
static int line_summary(void *self, const shard_model_summary_in *in, const shard_summary_writer *w) {
  line *l = self;
  shard_model *m = l->m;
  const line_ref *r = &l->ref;
  int rc = SHARD_OK;
  void *ctx = w->ctx;
  if (m->fracture) {
    const int32_t nf = shard_model_fragments(m, m->sys.v, NULL, 0);
    const double G = in->cohesive_work - in->cohesive_reversible, gcA = m->g_c * m->scales.area;
    w->integer(ctx, "fracture.interfaces", (long long)m->niface);
    w->integer(ctx, "fracture.insertions", (long long)m->insertions);
    w->integer(ctx, "fracture.broken", (long long)shard_model_broken(m));
    w->integer(ctx, "fracture.fragments", (long long)nf);
    w->num(ctx, "fracture.mean_fragment_size", m->scales.length / nf);
    w->num(ctx, "fracture.dissipation", G);
    w->num(ctx, "fracture.cohesive_work", in->cohesive_work);
    w->num(ctx, "fracture.reversible", in->cohesive_reversible);
    w->num(ctx, "fracture.g_hat_per_fragment", G / (nf * gcA));
    shard_fragment *fr = NULL;
    double *sz = NULL, median = NAN;
    shard_sample_stats st;
    const int32_t n = m->kind == SHARD_MODEL_BAR ? fragment_sizes(m, &fr, &sz, &st, &median) : 0;
    if (n < 0) rc = SHARD_ERR_NOMEM;
    if (n > 0) { /* over the fragments of this run: mean size with its 95% interval (Student t) */
      w->num(ctx, "fracture.fragment_size.mean", st.mean);
      w->num(ctx, "fracture.fragment_size.ci95", n > 1 ? st.ci95 : 0.0);
      w->num(ctx, "fracture.fragment_size.std", n > 1 ? st.std : 0.0);
      w->num(ctx, "fracture.fragment_size.min", st.min);
      w->num(ctx, "fracture.fragment_size.median", median);
      w->num(ctx, "fracture.fragment_size.max", st.max);
    }
    free(sz), free(fr);
    w->integer(ctx, "fracture.max_step_insertions", (long long)in->max_step_insertions);
    w->num(ctx, "fracture.max_step_insertions_time",
           in->max_step_insertions > 0 ? in->max_step_insertions_time : NAN);
  }
  if (r->kind == SHARD_REF_BALL) {
    w->word(ctx, "reference.type", "ball");
    w->num(ctx, "reference.eta", r->eta_all_den > 0 ? r->eta_all_num / r->eta_all_den : NAN);
    w->num(ctx, "reference.zeno_time", r->ball.t_zeno);
  } else if (r->kind == SHARD_REF_BAR_IMPACT) {
    const double mom = shard_model_momentum(m, m->sys.v) / shard_model_total_mass(m);
    const int contact = !isnan(r->first_contact);
    const double dt = in->dt;
    w->word(ctx, "reference.type", "bar_impact");
    w->num(ctx, "reference.contact_start", contact ? r->first_contact - dt : NAN);
    w->num(ctx, "reference.contact_start_ref", r->bar.t_contact);
    w->num(ctx, "reference.contact_duration", contact ? r->last_contact - r->first_contact + dt : NAN);
    w->num(ctx, "reference.contact_duration_ref", r->bar.t_b);
    w->num(ctx, "reference.mean_force", r->force_n ? r->force_sum / (double)r->force_n : NAN);
    w->num(ctx, "reference.force_ref", r->bar.F0);
    w->num(ctx, "reference.rebound_velocity", mom);
    w->num(ctx, "reference.velocity_ref", -r->bar.v0);
    /* no relative error while the reference displacement has been 0 (a bar on the wall) */
    w->num(ctx, "reference.eta", r->eta_all_den > 0 ? r->eta_all_num / r->eta_all_den : NAN);
    /* relative L1 errors over the rebound window (t_c + t_b, t_c + 4 t_b], and during contact */
    w->num(ctx, "reference.eta_u", r->eta_den > 0 ? r->eta_num / r->eta_den : NAN);
    w->num(ctx, "reference.eta_v", r->etav_den > 0 ? r->etav_num / r->etav_den : NAN);
    w->num(ctx, "reference.eta_u_contact", r->etac_den > 0 ? r->etac_num / r->etac_den : NAN);
  }
  return rc;
}

/* interfaces.csv: one row per cohesive interface at the end of the run */
static int write_interfaces(const shard_model *m, const char *dir, unsigned out_flags, shard_msg *msg) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for interfaces.csv");
  const double A = m->scales.area;
  shard_out_header(f, &shard_line_interfaces, out_flags);
  for (int32_t i = 0; i < m->niface; ++i) {
    const double d = fmin(m->if_dmax[i] / m->if_deltac[i], 1.0);
    fprintf(f, "%d,%d,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.6g\n", (int)i, (int)m->if_node[i],
            m->X[m->if_node[i]], m->if_sigma[i], m->if_deltac[i], m->if_delta[i], m->if_dmax[i], d, m->if_work[i] * A,
            m->if_rev[i] * A, (m->if_work[i] - m->if_rev[i]) * A, m->if_step_max[i]);
  }
  fclose(f);
  return shard_write_atomic_free(dir, "interfaces.csv", buf, len, msg);
}

/* fragments.csv: one row per fragment, left to right; fragment_sizes.csv:
 * the sizes ascending with the cumulative distribution by number and by
 * mass; fragment_histogram.csv: ceil(sqrt(N_f)) equal bins over [0, s_max]
 * with counts and the density of s / mean size. */
static int write_fragments(const shard_model *m, const char *dir, unsigned out_flags, shard_msg *msg) {
  shard_fragment *fr = NULL;
  double *sz = NULL, median;
  shard_sample_stats st;
  const int32_t nf = fragment_sizes(m, &fr, &sz, &st, &median);
  char *b1 = NULL, *b2 = NULL, *b3 = NULL;
  size_t l1 = 0, l2 = 0, l3 = 0;
  FILE *f1 = nf >= 0 ? open_memstream(&b1, &l1) : NULL, *f2 = f1 ? open_memstream(&b2, &l2) : NULL,
       *f3 = f2 ? open_memstream(&b3, &l3) : NULL;
  if (!f3) {
    if (f1) fclose(f1), free(b1);
    if (f2) fclose(f2), free(b2);
    free(fr), free(sz);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for fragments.csv");
  }
  shard_out_header(f1, &shard_line_fragments, out_flags);
  double total = 0.0;
  for (int32_t i = 0; i < nf; ++i) {
    fprintf(f1, "%d,%.15g,%.15g,%.15g,%.15g,%.15g\n", (int)i, fr[i].x_left, fr[i].x_right, fr[i].size, fr[i].mass,
            fr[i].momentum / fr[i].mass);
    total += fr[i].size;
  }
  shard_out_header(f2, &shard_line_fragment_sizes, out_flags);
  double below = 0.0;
  for (int32_t i = 0; i < nf; ++i) {
    below += sz[i];
    fprintf(f2, "%d,%.15g,%.15g,%.15g,%.15g\n", (int)i + 1, sz[i], sz[i] / st.mean, (double)(i + 1) / nf,
            below / total);
  }
  const int32_t nb = nf > 0 ? (int32_t)ceil(sqrt((double)nf)) : 0;
  const double width = nb > 0 ? st.max / nb : 0.0;
  shard_out_header(f3, &shard_line_fragment_histogram, out_flags);
  for (int32_t b = 0, i = 0; b < nb; ++b) {
    const double hi = b == nb - 1 ? st.max : (b + 1) * width;
    int32_t c = 0;
    while (i < nf && (sz[i] <= hi || b == nb - 1)) ++c, ++i;
    /* density of x = s / mean: fraction per unit of x */
    fprintf(f3, "%d,%.15g,%.15g,%d,%.15g,%.15g\n", (int)b, b * width, hi, (int)c, (double)c / nf,
            (double)c / nf / (width / st.mean));
  }
  fclose(f1), fclose(f2), fclose(f3);
  free(fr), free(sz);
  int rc = shard_write_atomic_free(dir, "fragments.csv", b1, l1, msg);
  if (rc == SHARD_OK) rc = shard_write_atomic_free(dir, "fragment_sizes.csv", b2, l2, msg);
  else free(b2);
  if (rc == SHARD_OK) rc = shard_write_atomic_free(dir, "fragment_histogram.csv", b3, l3, msg);
  else free(b3);
  return rc;
}

static int line_files(void *self, const char *dir, unsigned out_flags, shard_msg *msg) {
  const shard_model *m = ((line *)self)->m;
  if (!m->fracture) return SHARD_OK;
  int st = write_fragments(m, dir, out_flags, msg);
  if (st == SHARD_OK) st = write_interfaces(m, dir, out_flags, msg);
  return st;
}

/* ---- snapshots (bar only) ------------------------------------------------------------ */

static int line_fields_open(void *self, const char *dir, int fields, int spacetime, shard_msg *msg) {
  line *l = self;
  (void)fields;
  if (l->m->kind != SHARD_MODEL_BAR) return SHARD_OK; /* a particle has no field */
  l->spacetime = spacetime;
  return shard_snapshots_open(&l->snap, dir, l->m, msg);
}

static int line_fields_write(void *self, double t, shard_msg *msg) {
  line *l = self;
  return l->snap ? shard_snapshots_write(l->snap, t, l->m, msg) : SHARD_OK;
}

static void line_spacetime_record(void *self, double t) {
  line *l = self;
  if (!l->snap || !l->spacetime) return;
  shard_msg ignored;
  shard_spacetime_record(l->snap, t, l->m, &ignored); /* refuses only a time going backwards */
}

static int line_fields_finish(void *self, shard_msg *msg) {
  line *l = self;
  return l->snap && l->spacetime ? shard_snapshots_finish(l->snap, msg) : SHARD_OK;
}

static const char *line_fields_note(const void *self) {
  const line *l = self;
  return l->snap ? shard_snapshots_note(l->snap) : NULL;
}

/* ---- stress probes (bar with facets only) ------------------------------------------------ */

static int line_probe_open(void *self, const char *dir, int32_t stride, shard_msg *msg) {
  line *l = self;
  return shard_probes_open(&l->probes, dir, l->m, stride, msg);
}

static int line_probe_write(void *self, double t, shard_msg *msg) {
  line *l = self;
  return l->probes ? shard_probes_write(l->probes, t, l->m, msg) : SHARD_OK;
}

static int line_probe_close(void *self, int done, shard_msg *msg) {
  line *l = self;
  const int st = shard_probes_close(l->probes, done, msg);
  l->probes = NULL;
  return st;
}

/* ---- checkpoints ------------------------------------------------------------------- */

static int line_contact_operator(void *self, const int32_t *rows, int32_t n, double kcoef, int32_t *w_rowptr,
                                 int32_t *w_col, double *w_val, int64_t cap, shard_msg *msg) {
  return shard_model_contact_operator(((line *)self)->m, rows, n, kcoef, w_rowptr, w_col, w_val, cap, msg);
}

static uint32_t line_ck_sections(void *self) { return shard_model_checkpoint_sections(((line *)self)->m) + 1u; }

static void line_ck_write(void *self, const shard_model_ck_io *io) {
  line *l = self;
  shard_model_checkpoint_write(l->m, io);
  io->put(io->ctx, "reference", SHARD_MODEL_CK_BYTES, &l->ref, sizeof l->ref);
}

/* The reference read back: what the set-up derived from the case (kind,
 * contact constraint and DOF, the bar's solution) must be what it was, the
 * ball's cursor what `step` steps advance it to, the counters in range. */
static int line_ck_read(void *self, const shard_model_ck_io *io, int64_t step, double dt, shard_msg *msg) {
  line *l = self;
  int st = shard_model_checkpoint_read(l->m, io, msg);
  if (st == SHARD_OK) st = io->get(io->ctx, "reference", SHARD_MODEL_CK_BYTES, &l->ref, sizeof l->ref, msg);
  if (st != SHARD_OK) return st;
  const line_ref *r = &l->ref, *set = &l->ref_set;
  if (r->kind != set->kind || r->contact_con != set->contact_con || r->contact_dof != set->contact_dof ||
      memcmp(&r->bar, &set->bar, sizeof r->bar) != 0 || memcmp(&r->dt, &set->dt, sizeof r->dt) != 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "reference section: the set-up differs from the case's");
  shard_ball_ref ball = set->ball; /* the reference's cursor as the run advanced it, step by step */
  if (r->kind == SHARD_REF_BALL)
    for (int64_t j = 1; j <= step; ++j) {
      double ua, va;
      shard_ball_ref_eval(&ball, (double)j * dt, &ua, &va);
    }
  if (memcmp(&ball, &r->ball, sizeof ball) != 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "reference section: ball reference cursor differs from its recomputation");
  if (r->force_n < 0 || r->force_n > step)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "reference section: a step counter outside 0..%lld", (long long)step);
  return SHARD_OK;
}

static const shard_out_table *const line_files_tables[] = {&shard_line_fragments, &shard_line_fragment_sizes,
                                                            &shard_line_fragment_histogram, &shard_line_interfaces,
                                                            &shard_line_probes};
/* the space-time picture (snapshot.c) */
static const char *const line_extra_files[] = {"spacetime_stress.dat", "spacetime_damage.dat", "spacetime.gp",
                                               "spacetime.png", NULL};
static const shard_model_outputs line_outputs = {&shard_line_history, &shard_line_summary, line_files_tables,
                                                 sizeof line_files_tables / sizeof line_files_tables[0],
                                                 shard_line_when_words, line_extra_files};

const shard_model_ops shard_line_model_ops = {
    .outputs = &line_outputs,
    .create = line_create,
    .destroy = line_destroy,
    .info = line_info,
    .scales = line_scales,
    .derived = line_derived,
    .why = line_why,
    .case_derived = line_case_derived,
    .set_force_law = line_set_force_law,
    .set_tsl = line_set_tsl,
    .release_rule = line_release_rule,
    .stable_step = line_stable_step,
    .commit = line_commit,
    .insert = line_insert,
    .measure = line_measure,
    .energy = line_energy,
    .reactions = line_reactions,
    .release = line_release,
    .released = line_released,
    .broken = line_broken,
    .reference_setup = line_reference_setup,
    .reference_step = line_reference_step,
    .history = line_history,
    .summary = line_summary,
    .files = line_files,
    .fields_open = line_fields_open,
    .fields_write = line_fields_write,
    .spacetime_record = line_spacetime_record,
    .fields_finish = line_fields_finish,
    .fields_note = line_fields_note,
    .ck_sections = line_ck_sections,
    .ck_write = line_ck_write,
    .ck_read = line_ck_read,
    .probe_open = line_probe_open,
    .probe_write = line_probe_write,
    .probe_close = line_probe_close,
    .contact_operator = line_contact_operator,
};

/* ---- the plugins: one engine, two models -------------------------------------------------- */

static const shard_plugin particle_plugin = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_MODEL),
    .name = "particle",
    .version = "1.0.0",
    .summary = "a point mass under gravity above a floor",
    .params = shard_particle_specs,
    .n_params = SHARD_PARTICLE_N_SPECS,
    .ops_size = sizeof(shard_model_ops),
    .caps = 0,
    .ops = &shard_line_model_ops,
    .doc = "A point mass m at height u above a floor at `floor`, under gravity g: one DOF and one constraint row "
           "(gap u - floor). The bouncing ball of the paper's Fig. 4; its analytic reference (reference.type "
           "ball, the default) gives the exact bounces for a constant restitution e (docs/theory.md).",
};

static const shard_plugin bar_plugin = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_MODEL),
    .name = "bar",
    .version = "1.0.0",
    .summary = "a 1D P1 bar with lumped mass, rigid walls, driven ends and extrinsic cohesive facets",
    .params = shard_bar_specs,
    .n_params = SHARD_BAR_N_SPECS,
    .ops_size = sizeof(shard_model_ops),
    .caps = 0,
    .ops = &shard_line_model_ops,
    .doc = "A bar of linear P1 elements with lumped mass (docs/theory.md §9): an optional mesh perturbation, an "
           "initial velocity, strain rate and pre-strain, prescribed end velocities released by a rule, rigid "
           "walls at a gap from either end. With a `fracture` section every interior node is a facet where an "
           "extrinsic cohesive interface is inserted when the stress reaches the facet's strength: the node is "
           "split into two DOFs (momentum kept) joined by the TSL and by a contact row. References: the "
           "impacting bar (reference.type bar_impact). Outputs: the contact node's state, momentum, fracture "
           "counts and energies, fragments and interfaces files, ParaView snapshots, a space-time picture and stress "
           "probes (output.probes: facet stress and damage over a time window).",
};

static const shard_plugin *const line_plugins[] = {&particle_plugin, &bar_plugin};

SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry(uint32_t index) {
  return index < sizeof line_plugins / sizeof line_plugins[0] ? line_plugins[index] : NULL;
}
