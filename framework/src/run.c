/* host: `shard run` (see run.h). */
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "model.h"
#include "outputs.h"
#include "params_text.h"
#include "plugin_calls.h"
#include "reference.h"
#include "sha256.h"
#include "snapshot.h"
#include "stats.h"
#include "shard/contact_law.h"
#include "shard/integrator.h"
#include "shard/lcp_solver.h"
#include "shard/tsl.h"

/* the commit of this build (generated at build time: cmake/shard_commit.cmake) */
extern const char shard_git_commit[];

/* ---- files ---------------------------------------------------------------- */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the run context -------------------------------------------------------- */

typedef struct plugin_inst {
  const shard_loaded_plugin *lp;
  shard_params params;
  void *self;
} plugin_inst;

typedef struct run {
  const shard_case *c;
  const shard_registry *reg;
  const shard_run_options *opt;
  shard_diag *diag;
  shard_model *m;
  int model_ready;
  int scope_depth;

  plugin_inst integ, impact, force, lcp, fallback, tsl;
  plugin_inst *created[6]; /* instances in the order of creation, destroyed in reverse */
  int n_created;
  const shard_integrator_ops *iops;
  /* a velocity-dependent impact law (SHARD_CAP_VELOCITY_DEPENDENT), called
   * before every step with the kinematics in kin_vn, kin_gap (ncon_max each);
   * NULL for a constant law, called once at set-up */
  const shard_contact_law_ops *impact_vd;
  double *kin_vn, *kin_gap;

  double T, dt, dt_c, dt_bulk, dt_c_default, dt_c_paper, max_spring, energy_guard;
  double guard_swing; /* 1/(1 - (dt/dt_c_default)^2): how far E may exceed 𝓗 in a stable run (Newmark forms) */
  double max_drift;   /* time.max_balance_drift */
  int beyond_stable;  /* a conditionally stable integrator at dt > dt_c_default (time.allow_unstable) */
  int64_t nsteps, every;
  double interval;

  /* previous state for increments */
  double *u_prev, *v_prev, *gap;
  int fext_any; /* a body force: the external work needs every DOF's du (else only the driven ones') */

  /* energies */
  double E0, W_ext, W_abs, C_dis, H0, B0, drift_max, energy_max;
  double kinetic, elastic, penalty, H, drift, coh_rev, coh_work, release_offset, release_time;
  double D_num, E_init, G0;   /* numerical dissipation (MJ), initial E and G for the balance origin */
  int32_t energy_form;        /* the integrator's SHARD_ENERGY_* (from its first step) */
  double reac[2];            /* reactions of the prescribed DOFs at the previous step */
  int release_mode;          /* 0 never, 1 external work, 2 time */
  int64_t release_step;
  double dw_last;

  /* contact statistics */
  int64_t lcp_iterations, lcp_blocks, lcp_fallbacks, contact_steps;
  int32_t max_active, prev_active, max_block;
  double lcp_res_max, max_penetration, max_penetration_step;

  /* reference */
  shard_reference_kind ref;
  shard_ball_ref ball;
  shard_bar_ref bar;
  int32_t contact_con, contact_dof;
  double eta_num, eta_den, etav_num, etav_den, eta_all_num, eta_all_den, etac_num, etac_den;
  double first_contact, last_contact, force_sum;
  int64_t force_n;

  int64_t rows;
  int64_t ck_step; /* the step of the checkpoint this block is part of (a second copy of the header's) */
  double next_out;
  double stop_next, stop_last_g, stop_time; /* stopping rule: next check, dissipation at the last check */
  int stop_quiet;                           /* checks in a row below 1e-3 */
  double wall_loop_done; /* loop wall time up to the last checkpoint, over every attempt */
  int64_t restarts;      /* times the run was continued from a checkpoint */
  int64_t max_inserted;  /* most facets inserted in one step (all at once: nucleation not resolved in time) */
  double max_inserted_time;
  /* ---- end of the checkpointed block (plain data from E0 to here) ---- */

  FILE *hist;
  char hist_tmp[4096];
  uint32_t hist_crc;    /* CRC-32 of the history's first hist_crc_len bytes (for the checkpoints) */
  int64_t hist_crc_len;
  double wall_setup, wall_loop;
  double loop_t0, wall_loop_prior; /* this attempt's loop start; loop time of earlier attempts */
  int continuing;                   /* --restart, or --resume with a checkpoint of this run */
  int64_t k_start, checkpoint_every;
  shard_snapshots *snap; /* field snapshots / space-time picture, NULL when off */
  double fields_interval, fields_next;
  int spacetime;
  double stop_interval; /* > 0: dissipation_settled stopping rule */
  char run_hash[65];
  int stopped; /* stopped on request (opt->stop) after the last step */
} run;

#define RUN_CK_BEGIN offsetof(run, E0)
#define RUN_CK_END offsetof(run, hist)

static int scope_lookup(void *ctx, const char *name, double *out);
static void scope_why(void *ctx, const char *name, char *buf, size_t n);

static shard_scope run_scope(run *r) { return (shard_scope){scope_lookup, r, scope_why}; }

/* a number of the case by path, through the run's scope (guarded recursion) */
static int case_number(run *r, const char *path, double *out) {
  if (!shard_case_has(r->c, path) || r->scope_depth > 8) return 0;
  r->scope_depth++;
  shard_scope sc = run_scope(r);
  const int ok = shard_case_real(r->c, path, &sc, out, r->diag) == SHARD_OK;
  r->scope_depth--;
  return ok;
}

/* Material and fragmentation scales of docs/theory.md §13, from the case's own keys. */
static int fragmentation_scale(run *r, const char *name, double *out) {
  double E, rho, gc, sc, L, rate = 0;
  if (!case_number(r, "model.young", &E) || !case_number(r, "model.density", &rho)) return 0;
  const double c = sqrt(E / rho);
  if (strcmp(name, "sigma_c") == 0) return case_number(r, "fracture.strength.nominal", out);
  if (strcmp(name, "g_c") == 0) return case_number(r, "fracture.g_c", out);
  if (!case_number(r, "fracture.strength.nominal", &sc) || !case_number(r, "fracture.g_c", &gc)) return 0;
  const double s0 = E * gc / (sc * sc), t0 = s0 / c;
  if (strcmp(name, "s0") == 0) return *out = s0, 1;
  if (strcmp(name, "t0") == 0) return *out = t0, 1;
  if (strcmp(name, "eps0") == 0) return *out = sc / (E * t0), 1;
  case_number(r, "model.initial.strain_rate", &rate);
  const double sg = rate != 0 ? cbrt(24.0 * gc / (rho * rate * rate)) : INFINITY;
  if (strcmp(name, "s_grady") == 0) return isfinite(sg) ? (*out = sg, 1) : 0;
  if (strcmp(name, "s_bar") == 0) {
    if (!case_number(r, "model.length", &L)) return 0;
    return *out = fmin(L, 1.0 / (1.0 / (4.0 * s0) + 1.0 / sg)), 1;
  }
  return 0;
}

static int scope_lookup(void *ctx, const char *name, double *out) {
  run *r = ctx;
  if (fragmentation_scale(r, name, out)) return 1;
  if (r->model_ready) {
    const shard_model *m = r->m;
    const shard_model_scales *s = &m->scales;
    const double c = s->density > 0 ? sqrt(s->young / s->density) : NAN;
    struct {
      const char *n;
      double v;
    } derived[] = {
        {"c", c},
        {"h_mean", s->h_mean},
        {"h_min", s->h_min},
        {"dt_bulk", r->dt_bulk},
        {"dt_c", r->dt_c},
        {"dt_c_default", r->dt_c_default},
        {"dt_c_paper", r->dt_c_paper},
        {"t_b", s->length > 0 ? 2.0 * s->length / c : NAN},
        {"mass_total", shard_model_total_mass(m)},
    };
    for (size_t i = 0; i < sizeof derived / sizeof derived[0]; ++i)
      if (strcmp(name, derived[i].n) == 0) {
        if (!isfinite(derived[i].v) || derived[i].v == 0) return 0;
        *out = derived[i].v;
        return 1;
      }
  }
  /* the model's own keys are resolved by the case layer before the scope is asked */
  return 0;
}

/* Why a derived name has no value (scope_lookup returned 0 for it): before
 * the model exists nothing is known; after, the value is zero or not finite,
 * which means its inputs overflowed or underflowed it (model.young = 1.7e308
 * makes lambda_max infinite and dt_c = 0), or the model has no such scale. */
static void scope_why(void *ctx, const char *name, char *buf, size_t n) {
  run *r = ctx;
  if (!r->model_ready) {
    snprintf(buf, n, "'%s' is not known before the model is built (it cannot be used in the model's own keys)", name);
    return;
  }
  const shard_model_scales *s = &r->m->scales;
  double v = NAN;
  const struct {
    const char *n;
    double v;
  } model_values[] = {{"dt_c", r->dt_c}, {"dt_c_default", r->dt_c_default}, {"dt_c_paper", r->dt_c_paper},
                      {"dt_bulk", r->dt_bulk}, {"h_min", s->h_min}, {"h_mean", s->h_mean},
                      {"c", s->density > 0 ? sqrt(s->young / s->density) : NAN},
                      {"t_b", s->length > 0 && s->density > 0 ? 2.0 * s->length / sqrt(s->young / s->density) : NAN},
                      {"mass_total", shard_model_total_mass(r->m)}};
  int model_name = 0;
  for (size_t i = 0; i < sizeof model_values / sizeof model_values[0]; ++i)
    if (strcmp(name, model_values[i].n) == 0) v = model_values[i].v, model_name = 1;
  if (!model_name) {
    snprintf(buf, n, "'%s' has no finite value in this case (it needs the fracture keys it is made of%s)", name,
             strcmp(name, "s_grady") == 0 || strcmp(name, "s_bar") == 0 ? " and a nonzero model.initial.strain_rate"
                                                                        : "");
    return;
  }
  if (isinf(v) && r->m->kind == SHARD_MODEL_PARTICLE) {
    snprintf(buf, n, "'%s' is infinite: this particle has no stiffness that limits the step; give the value itself",
             name);
    return;
  }
  snprintf(buf, n,
           "derived value '%s' = %g is not a finite positive number: its inputs overflow or underflow it "
           "(model.young = %g Pa, model.density = %g kg/m^3, model.area = %g m^2, h_min = %g m)",
           name, v, s->young, s->density, s->area, s->h_min);
}

static int instantiate(run *r, const char *slot, plugin_inst *pi, shard_msg *msg) {
  shard_scope sc = run_scope(r);
  if (shard_case_plugin(r->c, slot, &sc, &pi->lp, &pi->params, r->diag) != SHARD_OK)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: invalid plugin parameters", slot);
  return SHARD_OK;
}

/* the family of a contact law with its article: "an impact", "a force" */
static const char *family_word(uint64_t caps) {
  return (caps & SHARD_CAP_IMPACT_LAW) ? "an impact" : "a force";
}

/* The tolerance of the host's check of an LCP solver's solutions:
 * lcp.check_tolerance, else 10 times the solver's own REAL parameter
 * `tolerance` (the bound it promises on the same residual; the margin covers
 * the rounding of w = Wz + q recomputed), else 1e-6. */
static int check_tolerance(run *r, const shard_params *p, double *out, shard_msg *msg) {
  if (shard_case_has(r->c, "lcp.check_tolerance")) {
    shard_scope sc = run_scope(r);
    if (shard_case_real(r->c, "lcp.check_tolerance", &sc, out, r->diag) != SHARD_OK)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid lcp.check_tolerance");
    return SHARD_OK;
  }
  *out = 1e-6;
  for (uint32_t i = 0; p && i < p->count; ++i)
    if (strcmp(p->specs[i].key, "tolerance") == 0 && p->specs[i].type == SHARD_PARAM_REAL && p->values[i].set &&
        p->values[i].real > 0.0)
      *out = fmin(10.0 * p->values[i].real, 1.0);
  return SHARD_OK;
}

/* Create the integrator, the contact law of its family and the LCP solvers. */
static int cmp_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Note an instance just created (when its create left one), for destroy_plugins. */
static void created(run *r, plugin_inst *pi) {
  if (pi->self && r->n_created < (int)(sizeof r->created / sizeof r->created[0])) r->created[r->n_created++] = pi;
}

/* The impact law's restitution of constraints 0..n-1 into the model's
 * coefficients, from the kinematics of the current state (the start of the
 * coming step): v_n = H v and gap = g(u) for the existing constraints, 0 and
 * 0 for rows not inserted yet (n up to ncon_max). O(ncon + nnz(H)), no
 * allocation. */
static void impact_restitution(run *r, const shard_contact_law_ops *ops, int32_t n) {
  shard_model *m = r->m;
  shard_system *sys = &m->sys;
  const int32_t nc = sys->ncon < n ? sys->ncon : n;
  sys->ops->gaps(sys, sys->u, r->kin_gap);
  for (int32_t i = 0; i < nc; ++i) r->kin_vn[i] = shard_row_dot(sys->h, i, sys->v);
  for (int32_t i = nc; i < n; ++i) r->kin_vn[i] = 0.0, r->kin_gap[i] = 0.0;
  const shard_impact_kinematics k = {.struct_size = sizeof k, .n = n, .v_n = r->kin_vn, .gap = r->kin_gap};
  shard_contact_law_restitution(ops, r->impact.self, &k, m->restitution);
}

static int build_plugins(run *r, shard_msg *msg) {
  const char *path = shard_case_path(r->c);
  int st = instantiate(r, "integrator", &r->integ, msg);
  if (st != SHARD_OK) return st;
  const shard_plugin *ip = r->integ.lp->desc;
  r->iops = shard_integrator_ops_of(ip);
  const uint64_t fam = ip->caps & (SHARD_CAP_IMPACT_LAW | SHARD_CAP_FORCE_LAW);
  const char *slot = fam == SHARD_CAP_IMPACT_LAW ? "contact.impact" : "contact.force";
  plugin_inst *law = fam == SHARD_CAP_IMPACT_LAW ? &r->impact : &r->force;
  if (!shard_case_has(r->c, slot)) {
    const char *hint = fam == SHARD_CAP_IMPACT_LAW ? "contact: {impact: {plugin: newton_impact, restitution: 0.5}}"
                                                   : "contact: {force: {plugin: penalty, alpha: 10}}";
    return shard_msg_set(msg, SHARD_ERR_INPUT,
                         "%s: integrator '%s' uses %s law but the case has no '%s'; add for example %s", path,
                         ip->name, family_word(fam), slot, hint);
  }
  if ((st = instantiate(r, slot, law, msg)) != SHARD_OK) return st;
  const shard_plugin *lp = law->lp->desc;
  if (!(lp->caps & fam))
    return shard_msg_set(msg, SHARD_ERR_INPUT,
                         "%s: '%s' is %s law, but integrator '%s' takes %s law in '%s' (for example %s)", path,
                         lp->name, family_word(lp->caps), ip->name, family_word(fam), slot,
                         fam == SHARD_CAP_IMPACT_LAW ? "newton_impact" : "penalty");
  const shard_contact_law_ops *lops = shard_contact_law_ops_of(lp);
  const shard_scales scales = shard_model_named_scales(r->m);
  st = shard_contact_law_create(lops, &law->params, &scales, &law->self, msg);
  created(r, law);
  if (st != SHARD_OK) {
    shard_msg_prepend(msg, "%s: contact law '%s'", path, lp->name);
    return SHARD_ERR_INPUT;
  }
  if (fam == SHARD_CAP_IMPACT_LAW) {
    r->kin_vn = calloc((size_t)r->m->ncon_max + 1, sizeof(double));
    r->kin_gap = calloc((size_t)r->m->ncon_max + 1, sizeof(double));
    if (!r->kin_vn || !r->kin_gap) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
    impact_restitution(r, lops, r->m->ncon_max);
    if (lp->caps & SHARD_CAP_VELOCITY_DEPENDENT) r->impact_vd = lops;
  } else {
    shard_model_set_force_law(r->m, lops, law->self);
    r->max_spring = shard_contact_law_max_stiffness(lops, law->self);
  }
  if (shard_case_has(r->c, "fracture")) {
    if (r->m->insertion && !(ip->caps & SHARD_CAP_TOPOLOGY))
      return shard_msg_set(msg, SHARD_ERR_INPUT,
                           "%s: integrator '%s' does not support topology changes (cohesive insertion); set "
                           "fracture.insertion: false or use nsn, cd_lagrange or explicit_newmark",
                           path, ip->name);
    if ((st = instantiate(r, "fracture", &r->tsl, msg)) != SHARD_OK) return st;
    const shard_tsl_ops *tops = shard_tsl_ops_of(r->tsl.lp->desc);
    st = shard_tsl_create(tops, &r->tsl.params, &scales, &r->tsl.self, msg);
    created(r, &r->tsl);
    if (st != SHARD_OK) {
      shard_msg_prepend(msg, "%s: traction-separation law '%s'", path, r->tsl.lp->desc->name);
      return SHARD_ERR_INPUT;
    }
    shard_scope sc = run_scope(r);
    if ((st = shard_model_set_tsl(r->m, tops, r->tsl.self, fam == SHARD_CAP_FORCE_LAW, r->c, &sc, r->diag, msg)) !=
        SHARD_OK)
      return st;
  }
  st = shard_integrator_create(r->iops, &r->integ.params, &scales, &r->integ.self, msg);
  created(r, &r->integ);
  if (st != SHARD_OK) {
    shard_msg_prepend(msg, "%s: integrator '%s'", path, ip->name);
    return SHARD_ERR_INPUT;
  }
  if (ip->caps & SHARD_CAP_NEEDS_LCP) {
    if ((st = instantiate(r, "lcp", &r->lcp, msg)) != SHARD_OK) return st;
    const shard_lcp_solver_ops *sops = shard_lcp_solver_ops_of(r->lcp.lp->desc);
    st = shard_lcp_solver_create(sops, &r->lcp.params, &r->lcp.self, msg);
    created(r, &r->lcp);
    if (st != SHARD_OK) {
      shard_msg_prepend(msg, "%s: lcp '%s'", path, r->lcp.lp->desc->name);
      return SHARD_ERR_INPUT;
    }
    double tol = 0.0;
    if ((st = check_tolerance(r, &r->lcp.params, &tol, msg)) != SHARD_OK) return st;
    shard_contact_policy pol = {.primary = {r->lcp.lp->desc->name, sops, r->lcp.self, r->lcp.lp->desc->caps, tol},
                                .dump = shard_case_bool(r->c, "lcp.dump"),
                                .dump_every = 0,
                                .dump_dir = r->opt->out_dir};
    long long dump_every = 0;
    shard_scope dsc = run_scope(r);
    if (shard_case_int(r->c, "lcp.dump_every", &dsc, &dump_every, r->diag) != SHARD_OK)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid lcp.dump_every");
    pol.dump_every = dump_every;
    const char *scalar = shard_case_string(r->c, "lcp.scalar_blocks");
    pol.scalar_closed_form = !scalar || strcmp(scalar, "closed_form") == 0;
    const char *onf = shard_case_string(r->c, "lcp.on_failure");
    const char *fb = shard_case_string(r->c, "lcp.fallback");
    if (onf && strcmp(onf, "fallback") == 0) {
      if (!fb) {
        shard_case_error_at(r->c, "lcp.on_failure", r->diag,
                            "'lcp.on_failure' is 'fallback' but lcp.fallback names no solver");
        return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid LCP failure policy");
      }
      const shard_loaded_plugin *fp = shard_registry_find(r->reg, SHARD_KIND_LCP_SOLVER, fb);
      if (!fp) {
        /* the error line names the key; what is available (which depends on
         * the optional plugins built) and where it was looked for are notes */
        const char *names[64];
        size_t n = 0;
        for (size_t i = 0; i < shard_registry_count(r->reg) && n < 64; ++i) {
          const shard_plugin *d = shard_registry_at(r->reg, i)->desc;
          if (d->kind == SHARD_KIND_LCP_SOLVER) names[n++] = d->name;
        }
        qsort(names, n, sizeof *names, cmp_name);
        char list[512] = "", searched[2048];
        for (size_t i = 0, len = 0; i < n && len < sizeof list; ++i) {
          const int k = snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
          if (k > 0) len += (size_t)k;
        }
        shard_registry_search_path(r->reg, searched, sizeof searched);
        shard_case_error_at(r->c, "lcp.fallback", r->diag, "'lcp.fallback': no LCP solver plugin named '%s'", fb);
        shard_diag_note(r->diag, "available LCP solvers: %s; plugins searched for in %s (add directories with "
                        "--plugin-path or SHARD_PLUGIN_PATH)", n ? list : "none", searched[0] ? searched : "(no directory)");
        return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid LCP failure policy");
      }
      r->fallback.lp = fp;
      r->fallback.params = (shard_params){fp->desc->params, 0, NULL};
      /* the fallback runs with its defaults */
      const shard_lcp_solver_ops *fops = shard_lcp_solver_ops_of(fp->desc);
      shard_param_value *vals = calloc(fp->desc->n_params + 1, sizeof *vals);
      if (!vals) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
      if ((st = shard_params_defaults(fp->desc->params, fp->desc->n_params, vals, msg)) != SHARD_OK) {
        free(vals);
        shard_msg_prepend(msg, "%s: fallback lcp '%s'", path, fb);
        return st;
      }
      shard_params fpar = {fp->desc->params, fp->desc->n_params, vals};
      st = shard_lcp_solver_create(fops, &fpar, &r->fallback.self, msg);
      created(r, &r->fallback);
      double ftol = 0.0;
      if (st == SHARD_OK) st = check_tolerance(r, &fpar, &ftol, msg);
      free(vals);
      if (st != SHARD_OK) {
        shard_msg_prepend(msg, "%s: fallback lcp '%s'", path, fb);
        return SHARD_ERR_INPUT;
      }
      pol.fallback = (shard_contact_solver){fp->desc->name, fops, r->fallback.self, fp->desc->caps, ftol};
    }
    if ((st = shard_contact_set_policy(r->m->contact, &pol, msg)) != SHARD_OK) {
      shard_msg_prepend(msg, "%s", path);
      return SHARD_ERR_INPUT;
    }
  }
  return SHARD_OK;
}

static void destroy_plugins(run *r) {
  /* the reverse order of creation: the integrator before the laws it was
   * created after, the fallback solver before the primary */
  while (r->n_created > 0) {
    plugin_inst *pi = r->created[--r->n_created];
    const shard_plugin *d = pi->lp->desc;
    switch (d->kind) {
    case SHARD_KIND_INTEGRATOR: shard_integrator_destroy(shard_integrator_ops_of(d), pi->self); break;
    case SHARD_KIND_CONTACT_LAW: shard_contact_law_destroy(shard_contact_law_ops_of(d), pi->self); break;
    case SHARD_KIND_LCP_SOLVER: shard_lcp_solver_destroy(shard_lcp_solver_ops_of(d), pi->self); break;
    case SHARD_KIND_TSL: shard_tsl_destroy(shard_tsl_ops_of(d), pi->self); break;
    default: break;
    }
    pi->self = NULL;
  }
}

/* ---- references -------------------------------------------------------------- */

static int setup_reference(run *r, shard_msg *msg) {
  const char *type = shard_case_string(r->c, "reference.type");
  const shard_model *m = r->m;
  double e = 0.0;
  if (r->impact.self) e = m->restitution[0];
  int want_ball = 0, want_bar = 0;
  if (!type || strcmp(type, "auto") == 0) {
    want_ball = m->kind == SHARD_MODEL_PARTICLE && !r->impact_vd; /* the ball's e is one constant */
    want_bar = m->kind == SHARD_MODEL_BAR && m->nwall == 1 && m->n_presc == 0;
  } else if (strcmp(type, "ball") == 0) {
    if (m->kind != SHARD_MODEL_PARTICLE)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "reference.type 'ball' needs model.type 'particle'");
    if (r->impact_vd)
      return shard_msg_set(msg, SHARD_ERR_INPUT,
                           "reference.type 'ball' needs a constant restitution, but impact law '%s' is velocity "
                           "dependent: set reference.type: none",
                           r->impact.lp->desc->name);
    want_ball = 1;
  } else if (strcmp(type, "bar_impact") == 0) {
    if (m->kind != SHARD_MODEL_BAR || m->nwall != 1)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "reference.type 'bar_impact' needs a bar with exactly one wall");
    want_bar = 1;
  }
  if (want_ball) {
    r->ref = SHARD_REF_BALL;
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
      return SHARD_OK;
    }
    const double c = sqrt(m->scales.young / m->scales.density);
    shard_bar_ref_init(&r->bar, m->scales.length, c, m->scales.density, m->scales.area, v0, m->g0[0]);
    r->ref = SHARD_REF_BAR_IMPACT;
  }
  r->first_contact = r->last_contact = NAN;
  return SHARD_OK;
}

static void reference_step(run *r, double t) {
  shard_model *m = r->m;
  const double *u = m->sys.u, *v = m->sys.v;
  if (r->ref == SHARD_REF_BALL) {
    double ua, va;
    shard_ball_ref_eval(&r->ball, t, &ua, &va);
    r->eta_all_num += fabs(u[0] - ua);
    r->eta_all_den += fabs(ua);
  } else if (r->ref == SHARD_REF_BAR_IMPACT) {
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

/* ---- history ------------------------------------------------------------------ */

/* which columns and keys this run writes (outputs.h) */
static unsigned out_flags(const run *r) {
  const shard_model *m = r->m;
  unsigned f = m->kind == SHARD_MODEL_PARTICLE ? SHARD_OUT_PARTICLE : SHARD_OUT_BAR;
  if (m->fracture) f |= SHARD_OUT_FRACTURE;
  if (r->ref == SHARD_REF_BALL) f |= SHARD_OUT_REF_BALL;
  if (r->ref == SHARD_REF_BAR_IMPACT) f |= SHARD_OUT_REF_BAR;
  if (m->n_presc) f |= SHARD_OUT_LOADING;
  if (r->stop_interval > 0) f |= SHARD_OUT_STOP;
  return f;
}

static void history_header(run *r) { shard_out_header(r->hist, &shard_out_history, out_flags(r)); }

/* The history so far is unwritable (a full disk, say): the error with the
 * file named, as the run's failure at `step`. */
static int history_error(run *r, int64_t step, double t, shard_msg *msg) {
  const int err = errno ? errno : EIO;
  return shard_msg_set(msg, SHARD_ERR_IO, "step %lld (t = %.9g s): cannot write '%s': %s", (long long)step, t,
                       r->hist_tmp, strerror(err));
}

/* One row: a value per column of the table (outputs.h), written for the
 * columns of this run; a value that does not exist (NAN) is an empty field.
 * A failed write stops the run (SHARD_ERR_IO). */
static int history_row(run *r, int64_t step, double t, int event, shard_msg *msg) {
  shard_model *m = r->m;
  errno = 0;
  if (r->spacetime && r->snap) {
    shard_msg ignored;
    shard_spacetime_record(r->snap, t, m, &ignored); /* refuses only a time going backwards */
  }
  const shard_step_stats *s = &m->stats;
  const double *u = m->sys.u, *v = m->sys.v, *a = m->sys.a;
  double pen = 0;
  for (int32_t i = 0; i < m->ncon; ++i) pen = fmax(pen, -r->gap[i]);
  double x[SHARD_HISTORY_N];
  for (int i = 0; i < SHARD_HISTORY_N; ++i) x[i] = NAN;
  x[H_STEP] = (double)step, x[H_T] = t, x[H_EVENT] = event, x[H_N_ACTIVE] = s->n_active;
  x[H_LCP_BLOCKS] = s->lcp_blocks, x[H_LCP_ITERATIONS] = (double)s->lcp_iterations;
  x[H_LCP_RESIDUAL] = s->lcp_residual, x[H_LCP_FALLBACKS] = s->lcp_fallbacks, x[H_MAX_PENETRATION] = pen;
  x[H_KINETIC] = r->kinetic, x[H_ELASTIC] = r->elastic, x[H_PENALTY] = r->penalty;
  x[H_CONTACT_DISSIPATION] = r->C_dis, x[H_EXTERNAL_WORK] = r->W_ext, x[H_ALGORITHMIC_ENERGY] = r->H;
  x[H_BALANCE_DRIFT] = r->drift;
  if (m->kind == SHARD_MODEL_PARTICLE) {
    x[H_U] = u[0], x[H_V] = v[0], x[H_A] = a[0], x[H_GAP] = r->gap[0], x[H_IMPULSE] = m->impulse[0];
    x[H_FORCE] = m->ncon ? shard_model_contact_force(m, 0, r->dt) : 0.0;
  } else {
    const int32_t d = r->contact_dof;
    if (d >= 0) x[H_U_CONTACT] = u[d], x[H_V_CONTACT] = v[d];
    x[H_FORCE_CONTACT] = (d >= 0 && m->ncon) ? shard_model_contact_force(m, r->contact_con, r->dt) : 0.0;
    x[H_MOMENTUM] = shard_model_momentum(m, v);
  }
  if (m->fracture) {
    const int32_t broken = shard_model_broken(m);
    x[H_COHESIVE_REVERSIBLE] = r->coh_rev, x[H_COHESIVE_WORK] = r->coh_work;
    x[H_FRACTURE_DISSIPATION] = r->coh_work - r->coh_rev, x[H_INTERFACES] = m->niface, x[H_BROKEN] = broken;
    x[H_FRAGMENTS] = broken + 1, x[H_INSERTIONS] = (double)m->insertions;
  }
  if (r->ref == SHARD_REF_BALL) {
    shard_ball_ref tmp = r->ball;
    shard_ball_ref_eval(&tmp, t, &x[H_U_REF], &x[H_V_REF]);
  } else if (r->ref == SHARD_REF_BAR_IMPACT) {
    shard_bar_ref_eval(&r->bar, t, &x[H_U_REF_BAR], &x[H_V_REF_BAR], &x[H_FORCE_REF]);
  }
  FILE *f = r->hist;
  const unsigned flags = out_flags(r);
  for (int i = 0; i < SHARD_HISTORY_N; ++i) {
    const shard_out_field *fd = &shard_out_history.fields[i];
    if (!shard_out_writes(fd, flags)) continue;
    if (i > 0) fputc(',', f); /* step, column 0, is in every history */
    if (!isfinite(x[i])) continue;
    if (fd->fmt) fprintf(f, fd->fmt, x[i]);
    else fprintf(f, "%lld", (long long)x[i]);
  }
  fputc('\n', f);
  r->rows++;
  return ferror(f) ? history_error(r, step, t, msg) : SHARD_OK;
}

/* ---- energies (docs/theory.md §12) -------------------------------------------------------- */

/* state energies at the current state: kinetic, elastic, penalty, cohesive, H */
static double energy_state(run *r) {
  shard_model *m = r->m;
  const double *u = m->sys.u, *v = m->sys.v, *a = m->sys.a;
  r->kinetic = shard_model_kinetic(m, v);
  r->elastic = shard_model_elastic(m, u);
  r->penalty = shard_model_penalty_energy(m);
  shard_model_cohesive_energy(m, &r->coh_rev, &r->coh_work);
  double aMa = 0;
  for (int32_t d = 0; d < m->ndof; ++d) aMa += m->mass[d] * a[d] * a[d];
  const double E = r->kinetic + r->elastic + r->penalty + r->coh_rev;
  /* the stored energy of the scheme: H = E - dt^2/8 a^T M a (Newmark forms) or E */
  r->H = r->energy_form == SHARD_ENERGY_PLAIN ? E : E - r->dt * r->dt / 8.0 * aMa;
  return E;
}

/* increments of the step: external work (trapezoids, reactions on prescribed
 * DOFs) and contact dissipation -p^T H (v_n + v_{n+1}) / 2 */
static void energy_increments(run *r) {
  shard_model *m = r->m;
  const double *u = m->sys.u, *v = m->sys.v;
  double dw = 0, dc = 0;
  if (r->fext_any) /* else fext = 0 adds exact zeros: dw stays +0 */
    for (int32_t d = 0; d < m->ndof; ++d) dw += m->fext[d] * (u[d] - r->u_prev[d]);
  if (m->n_presc && !m->released) {
    double reac[2];
    shard_model_reactions(m, u, reac);
    for (int32_t i = 0; i < m->n_presc; ++i) {
      const int32_t d = m->presc_dof[i];
      dw += 0.5 * (r->reac[i] + reac[i]) * (u[d] - r->u_prev[d]);
      r->reac[i] = reac[i];
    }
  }
  r->dw_last = dw;
  if (m->stats.energy_form != SHARD_ENERGY_NEWMARK) { /* the scheme's own contact work */
    dc = -m->stats.contact_work;
    r->D_num += m->stats.numerical_dissipation;
  } else {
    for (int32_t i = 0; i < m->ncon; ++i) {
      const double p = m->impulse[i];
      if (p == 0.0) continue;
      double hv = 0;
      for (int32_t e = m->h_rowptr[i]; e < m->h_rowptr[i + 1]; ++e)
        hv += m->h_val[e] * 0.5 * (r->v_prev[m->h_col[e]] + v[m->h_col[e]]);
      dc -= p * hv;
    }
  }
  r->W_ext += dw;
  r->W_abs += fabs(dw);
  r->C_dis += dc;
}

/* the balance H + C_dis + D_num + G - W_ext (docs/theory.md §12) and its relative drift */
static void energy_balance(run *r, double E, int first) {
  const double G = r->coh_work - r->coh_rev;
  const double B = r->H + r->C_dis + r->D_num + G - r->W_ext - r->release_offset;
  if (first) r->E0 = E, r->H0 = r->H, r->B0 = B, r->E_init = E, r->G0 = G;
  r->energy_max = fmax(r->energy_max, fmax(E, fabs(r->W_ext)));
  const double scale = fmax(r->energy_max, 1e-300);
  r->drift = (B - r->B0) / scale;
  r->drift_max = fmax(r->drift_max, fabs(r->drift));
}

static void energies(run *r, int first) {
  const double E = energy_state(r);
  if (first) {
    if (r->m->n_presc) shard_model_reactions(r->m, r->m->sys.u, r->reac);
  } else {
    energy_increments(r);
  }
  energy_balance(r, E, first);
}

/* ---- progress -------------------------------------------------------------------- */

static void progress(run *r, int64_t step, double t0, int final) {
  const double el = now_s() - t0;
  const double rate = el > 0 ? (double)(step - r->k_start) / el : 0;
  shard_run_progress p = {.step = step, .nsteps = r->nsteps, .t = (double)step * r->dt, .rate = rate,
                          .eta = rate > 0 ? (double)(r->nsteps - step) / rate : 0, .final = final};
  r->opt->on_progress(r->opt->progress_ctx, &p);
}

/* ---- summary and provenance -------------------------------------------------------- */

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

/* summary.yaml from dotted keys (documented in outputs.c): the sections
 * open as the keys need them; a value that does not exist is `~` (null). */
typedef struct yaml_out {
  FILE *f;
  char sec[2][64]; /* the open sections at depths 0 and 1 */
} yaml_out;

static void y_key(yaml_out *w, const char *key) {
  int depth = 0;
  const char *p = key;
  for (const char *dot; (dot = strchr(p, '.')) && depth < 2; p = dot + 1, ++depth) {
    const int len = (int)(dot - p);
    if ((int)strlen(w->sec[depth]) != len || strncmp(w->sec[depth], p, (size_t)len) != 0) {
      snprintf(w->sec[depth], sizeof w->sec[depth], "%.*s", len, p);
      if (depth == 0) w->sec[1][0] = '\0';
      fprintf(w->f, "%*s%.*s:\n", 2 * depth, "", len, p);
    }
  }
  for (int d = depth; d < 2; ++d) w->sec[d][0] = '\0';
  fprintf(w->f, "%*s%s: ", 2 * depth, "", p);
}

static void y_num(yaml_out *w, const char *key, double x) { /* 17 digits: exact */
  y_key(w, key);
  if (isfinite(x)) fprintf(w->f, "%.17g\n", x);
  else fputs("~\n", w->f);
}

static void y_sci(yaml_out *w, const char *key, double x) { /* errors and drifts: 7 digits */
  y_key(w, key);
  if (isfinite(x)) fprintf(w->f, "%.6e\n", x);
  else fputs("~\n", w->f);
}

static void y_fixed6(yaml_out *w, const char *key, double x) { /* wall times: microseconds */
  y_key(w, key);
  fprintf(w->f, "%.6f\n", x);
}

static void y_int(yaml_out *w, const char *key, long long x) {
  y_key(w, key);
  fprintf(w->f, "%lld\n", x);
}

static void y_word(yaml_out *w, const char *key, const char *word) {
  y_key(w, key);
  fprintf(w->f, "%s\n", word);
}

static void y_quoted(yaml_out *w, const char *key, const char *text) {
  y_key(w, key);
  fputc('"', w->f);
  for (const char *p = text; *p; ++p) {
    if (*p == '"' || *p == '\\') fputc('\\', w->f);
    if (*p == '\n') fputs("\\n", w->f);
    else fputc(*p, w->f);
  }
  fputs("\"\n", w->f);
}

/* SHARD_ERR_NOMEM when the fragment statistics could not be computed (the
 * summary is then incomplete) */
static int write_summary(run *r, FILE *f, const char *status, const char *message, int64_t steps, double wall_total) {
  shard_model *m = r->m;
  int rc = SHARD_OK;
  yaml_out w = {.f = f};
  y_word(&w, "status", status);
  if (message) y_quoted(&w, "message", message);
  y_int(&w, "steps", (long long)steps);
  if (r->restarts > 0) y_int(&w, "restarts", (long long)r->restarts);
  if (r->snap && shard_snapshots_note(r->snap)) y_quoted(&w, "note", shard_snapshots_note(r->snap));
  if (r->stop_interval > 0) {
    y_word(&w, "stopped_early", r->stop_time > 0 ? "true" : "false");
    y_num(&w, "stop_time", r->stop_time > 0 ? r->stop_time : steps * r->dt);
  }
  y_num(&w, "time.end", r->T);
  y_num(&w, "time.dt", r->dt);
  y_num(&w, "time.dt_c", r->dt_c);
  y_num(&w, "time.dt_bulk", r->dt_bulk);
  y_num(&w, "time.dt_over_dt_c", r->dt / r->dt_c);
  /* after restarts, total and loop add the earlier attempts' loops up to their last checkpoints */
  y_fixed6(&w, "wall_time.total", wall_total);
  y_fixed6(&w, "wall_time.setup", r->wall_setup);
  y_fixed6(&w, "wall_time.loop", r->wall_loop);
  y_sci(&w, "wall_time.per_step", steps > 0 ? r->wall_loop / (double)steps : NAN);
  y_num(&w, "energy.initial", r->E0);
  y_num(&w, "energy.kinetic", r->kinetic);
  y_num(&w, "energy.elastic", r->elastic);
  y_num(&w, "energy.penalty", r->penalty);
  y_num(&w, "energy.contact_dissipation", r->C_dis);
  y_num(&w, "energy.numerical_dissipation", r->D_num);
  y_num(&w, "energy.external_work", r->W_ext);
  y_num(&w, "energy.algorithmic", r->H);
  y_sci(&w, "energy.balance_drift", r->drift);
  y_sci(&w, "energy.max_balance_drift", r->drift_max);
  y_int(&w, "contact.steps_in_contact", (long long)r->contact_steps);
  y_int(&w, "contact.max_active", (long long)r->max_active);
  y_sci(&w, "contact.max_penetration", r->max_penetration);
  y_num(&w, "contact.max_penetration_time", r->max_penetration_step);
  y_int(&w, "lcp.blocks", (long long)r->lcp_blocks);
  y_int(&w, "lcp.largest_block", (long long)r->max_block);
  y_int(&w, "lcp.iterations", (long long)r->lcp_iterations);
  y_sci(&w, "lcp.max_residual", r->lcp_res_max);
  y_int(&w, "lcp.fallbacks", (long long)r->lcp_fallbacks);
  y_num(&w, "momentum", shard_model_momentum(m, m->sys.v));
  if (m->n_presc) {
    y_word(&w, "loading.released", m->released ? "true" : "false");
    y_num(&w, "loading.release_time", m->released ? r->release_time : NAN);
    y_num(&w, "loading.balance_offset", r->release_offset);
  }
  if (m->fracture) {
    const int32_t nf = shard_model_fragments(m, m->sys.v, NULL, 0);
    const double G = r->coh_work - r->coh_rev, gcA = m->g_c * m->scales.area;
    y_int(&w, "fracture.interfaces", (long long)m->niface);
    y_int(&w, "fracture.insertions", (long long)m->insertions);
    y_int(&w, "fracture.broken", (long long)shard_model_broken(m));
    y_int(&w, "fracture.fragments", (long long)nf);
    y_num(&w, "fracture.mean_fragment_size", m->scales.length / nf);
    y_num(&w, "fracture.dissipation", G);
    y_num(&w, "fracture.cohesive_work", r->coh_work);
    y_num(&w, "fracture.reversible", r->coh_rev);
    y_num(&w, "fracture.g_hat_per_fragment", G / (nf * gcA));
    shard_fragment *fr = NULL;
    double *sz = NULL, median = NAN;
    shard_sample_stats st;
    const int32_t n = m->kind == SHARD_MODEL_BAR ? fragment_sizes(m, &fr, &sz, &st, &median) : 0;
    if (n < 0) rc = SHARD_ERR_NOMEM;
    if (n > 0) { /* over the fragments of this run: mean size with its 95% interval (Student t) */
      y_num(&w, "fracture.fragment_size.mean", st.mean);
      y_num(&w, "fracture.fragment_size.ci95", n > 1 ? st.ci95 : 0.0);
      y_num(&w, "fracture.fragment_size.std", n > 1 ? st.std : 0.0);
      y_num(&w, "fracture.fragment_size.min", st.min);
      y_num(&w, "fracture.fragment_size.median", median);
      y_num(&w, "fracture.fragment_size.max", st.max);
    }
    free(sz), free(fr);
    y_int(&w, "fracture.max_step_insertions", (long long)r->max_inserted);
    y_num(&w, "fracture.max_step_insertions_time", r->max_inserted > 0 ? r->max_inserted_time : NAN);
  }
  if (r->ref == SHARD_REF_BALL) {
    y_word(&w, "reference.type", "ball");
    y_num(&w, "reference.eta", r->eta_all_num / r->eta_all_den);
    y_num(&w, "reference.zeno_time", r->ball.t_zeno);
  } else if (r->ref == SHARD_REF_BAR_IMPACT) {
    const double mom = shard_model_momentum(m, m->sys.v) / shard_model_total_mass(m);
    const int contact = !isnan(r->first_contact);
    y_word(&w, "reference.type", "bar_impact");
    y_num(&w, "reference.contact_start", contact ? r->first_contact - r->dt : NAN);
    y_num(&w, "reference.contact_start_ref", r->bar.t_contact);
    y_num(&w, "reference.contact_duration", contact ? r->last_contact - r->first_contact + r->dt : NAN);
    y_num(&w, "reference.contact_duration_ref", r->bar.t_b);
    y_num(&w, "reference.mean_force", r->force_n ? r->force_sum / (double)r->force_n : NAN);
    y_num(&w, "reference.force_ref", r->bar.F0);
    y_num(&w, "reference.rebound_velocity", mom);
    y_num(&w, "reference.velocity_ref", -r->bar.v0);
    y_num(&w, "reference.eta", r->eta_all_num / fmax(r->eta_all_den, 1e-300));
    /* relative L1 errors over the rebound window (t_c + t_b, t_c + 4 t_b], and during contact */
    y_num(&w, "reference.eta_u", r->eta_den > 0 ? r->eta_num / r->eta_den : NAN);
    y_num(&w, "reference.eta_v", r->etav_den > 0 ? r->etav_num / r->etav_den : NAN);
    y_num(&w, "reference.eta_u_contact", r->etac_den > 0 ? r->etac_num / r->etac_den : NAN);
  }
  return rc;
}

static int write_memstream(const char *dir, const char *name, char *buf, size_t len, shard_msg *msg) {
  int st = shard_write_atomic(dir, name, buf, len, msg);
  free(buf);
  return st;
}

/* interfaces.csv: one row per cohesive interface at the end of the run */
static int write_interfaces(run *r, shard_msg *msg) {
  shard_model *m = r->m;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for interfaces.csv");
  const double A = m->scales.area;
  shard_out_header(f, &shard_out_interfaces, out_flags(r));
  for (int32_t i = 0; i < m->niface; ++i) {
    const double d = fmin(m->if_dmax[i] / m->if_deltac[i], 1.0);
    fprintf(f, "%d,%d,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.6g\n", (int)i, (int)m->if_node[i],
            m->X[m->if_node[i]], m->if_sigma[i], m->if_deltac[i], m->if_delta[i], m->if_dmax[i], d, m->if_work[i] * A,
            m->if_rev[i] * A, (m->if_work[i] - m->if_rev[i]) * A, m->if_step_max[i]);
  }
  fclose(f);
  return write_memstream(r->opt->out_dir, "interfaces.csv", buf, len, msg);
}

/* fragments.csv: one row per fragment, left to right; fragment_sizes.csv:
 * the sizes ascending with the cumulative distribution by number and by
 * mass; fragment_histogram.csv: ceil(sqrt(N_f)) equal bins over [0, s_max]
 * with counts and the density of s / mean size. */
static int write_fragments(run *r, shard_msg *msg) {
  shard_fragment *fr = NULL;
  double *sz = NULL, median;
  shard_sample_stats st;
  const int32_t nf = fragment_sizes(r->m, &fr, &sz, &st, &median);
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
  shard_out_header(f1, &shard_out_fragments, out_flags(r));
  double total = 0.0;
  for (int32_t i = 0; i < nf; ++i) {
    fprintf(f1, "%d,%.15g,%.15g,%.15g,%.15g,%.15g\n", (int)i, fr[i].x_left, fr[i].x_right, fr[i].size, fr[i].mass,
            fr[i].momentum / fr[i].mass);
    total += fr[i].size;
  }
  shard_out_header(f2, &shard_out_fragment_sizes, out_flags(r));
  double below = 0.0;
  for (int32_t i = 0; i < nf; ++i) {
    below += sz[i];
    fprintf(f2, "%d,%.15g,%.15g,%.15g,%.15g\n", (int)i + 1, sz[i], sz[i] / st.mean, (double)(i + 1) / nf,
            below / total);
  }
  const int32_t nb = nf > 0 ? (int32_t)ceil(sqrt((double)nf)) : 0;
  const double width = nb > 0 ? st.max / nb : 0.0;
  shard_out_header(f3, &shard_out_fragment_histogram, out_flags(r));
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
  int rc = write_memstream(r->opt->out_dir, "fragments.csv", b1, l1, msg);
  if (rc == SHARD_OK) rc = write_memstream(r->opt->out_dir, "fragment_sizes.csv", b2, l2, msg);
  else free(b2);
  if (rc == SHARD_OK) rc = write_memstream(r->opt->out_dir, "fragment_histogram.csv", b3, l3, msg);
  else free(b3);
  return rc;
}

static void hash_plugin(const plugin_inst *pi, FILE *f, const char *role) {
  if (!pi->lp) return;
  const shard_plugin *d = pi->lp->desc;
  fprintf(f, "  - role: %s\n    kind: %s\n    name: %s\n    version: \"%s\"\n    file: \"%s\"\n    sha256: \"%s\"\n",
          role, shard_plugin_kind_str((int)d->kind), d->name, d->version, pi->lp->path, pi->lp->sha256);
}

/* Run hash: the resolved case (comment lines left out: they name the file it
 * came from), plugin file hashes and the shard version — not host or time. */
static void compute_run_hash(run *r, const char *resolved, size_t len) {
  shard_sha256 h;
  shard_sha256_init(&h);
  for (size_t i = 0; i < len;) {
    const char *nl = memchr(resolved + i, '\n', len - i);
    const size_t end = nl ? (size_t)(nl - resolved) + 1 : len;
    if (resolved[i] != '#') shard_sha256_update(&h, resolved + i, end - i);
    i = end;
  }
  const plugin_inst *all[] = {&r->integ, &r->impact, &r->force, &r->lcp, &r->fallback, &r->tsl};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    if (all[i]->lp) shard_sha256_update(&h, all[i]->lp->sha256, strlen(all[i]->lp->sha256));
  shard_sha256_update(&h, SHARD_VERSION, strlen(SHARD_VERSION));
  shard_sha256_final_hex(&h, r->run_hash);
}

static int checkpoint_resumable(const run *r);

/* ---- the output directory ------------------------------------------------------------
 * A run holds DIR/.lock (fsio.h) from before its first file to its end. At
 * start it removes what an earlier run left that could pass for its own
 * result: summary.yaml first, then the other final outputs; a fresh start
 * also the checkpoint, the partial history, the provenance and the field
 * snapshots (a continued run keeps those: they are its own), and every
 * leftover temporary. Only the file names a run writes are touched. */
static const char *const final_outputs[] = {"summary.yaml", /* first: the claim of a result */
                                            "history.csv",          "fragments.csv",        "fragment_sizes.csv",
                                            "fragment_histogram.csv", "interfaces.csv",     "spacetime_stress.dat",
                                            "spacetime_damage.dat", "spacetime.gp",         "spacetime.png"};
static const char *const run_state[] = {"checkpoint.bin", ".history.csv.partial", "case.resolved.yaml",
                                        "provenance.yaml", "fields.pvd"};

static int remove_file(const char *dir, const char *name, shard_msg *msg) {
  char p[4200];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  if (unlink(p) != 0 && errno != ENOENT)
    return shard_msg_set(msg, SHARD_ERR_IO, "cannot remove the earlier run's '%s': %s", p, strerror(errno));
  return SHARD_OK;
}

/* names the run writes by pattern: temporaries (".NAME.tmp.*", ".spacetime.log.*"),
 * LCP dumps ("lcp_step*.mtx"), snapshots ("fields_*.vtu" in fields/) */
static int stale_name(const char *n, int fresh, int in_fields) {
  const size_t len = strlen(n);
  if (in_fields) return strncmp(n, "fields_", 7) == 0 && len > 4 && strcmp(n + len - 4, ".vtu") == 0;
  if (n[0] == '.' && (strstr(n, ".tmp.") || strncmp(n, ".spacetime.log.", 15) == 0)) return 1;
  return fresh && strncmp(n, "lcp_step", 8) == 0 && len > 4 && strcmp(n + len - 4, ".mtx") == 0;
}

static int remove_matching(const char *dir, int fresh, int in_fields, shard_msg *msg) {
  DIR *d = opendir(dir);
  if (!d)
    return errno == ENOENT || errno == ENOTDIR ? SHARD_OK
                                               : shard_msg_set(msg, SHARD_ERR_IO, "cannot read '%s': %s", dir, strerror(errno));
  int st = SHARD_OK;
  for (struct dirent *e; st == SHARD_OK && (e = readdir(d));)
    if (stale_name(e->d_name, fresh, in_fields)) st = remove_file(dir, e->d_name, msg);
  closedir(d);
  return st;
}

static int remove_stale_outputs(const char *dir, int continuing, shard_msg *msg) {
  int st = SHARD_OK;
  for (size_t i = 0; st == SHARD_OK && i < sizeof final_outputs / sizeof final_outputs[0]; ++i)
    st = remove_file(dir, final_outputs[i], msg);
  for (size_t i = 0; st == SHARD_OK && !continuing && i < sizeof run_state / sizeof run_state[0]; ++i)
    st = remove_file(dir, run_state[i], msg);
  if (st == SHARD_OK) st = remove_matching(dir, !continuing, 0, msg);
  if (st == SHARD_OK && !continuing) {
    char fields[4200];
    snprintf(fields, sizeof fields, "%s/fields", dir);
    struct stat sb;
    if (lstat(fields, &sb) == 0 && S_ISLNK(sb.st_mode)) /* a link planted there would lead the snapshots elsewhere */
      st = remove_file(dir, "fields", msg);
    if (st == SHARD_OK) st = remove_matching(fields, 1, 1, msg);
    if (st == SHARD_OK && rmdir(fields) != 0 && errno != ENOENT && errno != ENOTEMPTY && errno != ENOTDIR &&
        errno != EEXIST)
      st = shard_msg_set(msg, SHARD_ERR_IO, "cannot remove the earlier run's '%s': %s", fields, strerror(errno));
  }
  return st == SHARD_OK ? shard_dir_sync(dir, msg) : st;
}

/* DIR/.lock for the whole run; another run or campaign there: bad input (exit 2). */
static int lock_out_dir(run *r, shard_dir_lock *lock, shard_msg *msg) {
  char what[4400];
  snprintf(what, sizeof what, "shard run %s -o %s%s", shard_case_path(r->c), r->opt->out_dir,
           r->opt->restart ? " (restart)" : r->opt->resume ? " --resume" : "");
  return shard_dir_lock_acquire(lock, r->opt->out_dir, NULL, what, msg);
}

/* history.csv from the partial history: flushed, synced, renamed; left
 * partial when a write of it failed. */
static int history_publish(run *r, int64_t steps, shard_msg *msg) {
  if (!r->hist) return SHARD_OK;
  errno = 0;
  int err = fflush(r->hist) != 0 || ferror(r->hist) ? (errno ? errno : EIO) : 0;
  if (!err && fsync(fileno(r->hist)) != 0) err = errno;
  if (fclose(r->hist) != 0 && !err) err = errno;
  r->hist = NULL;
  if (err) {
    errno = err;
    return history_error(r, steps, (double)steps * r->dt, msg);
  }
  char fin[4200];
  snprintf(fin, sizeof fin, "%s/history.csv", r->opt->out_dir);
  if (rename(r->hist_tmp, fin) != 0)
    return shard_msg_set(msg, SHARD_ERR_IO, "cannot write '%s': %s", fin, strerror(errno));
  return shard_dir_sync(r->opt->out_dir, msg);
}

/* case.resolved.yaml and provenance.yaml; on a restart only the run hash is
 * recomputed (the files of the first run stay). The run hash also decides
 * whether a --resume continues: only from a checkpoint of this same run. */
static int write_provenance(run *r, shard_msg *msg) {
  char *rbuf = NULL, *pbuf = NULL;
  size_t rlen = 0, plen = 0;
  FILE *f = open_memstream(&rbuf, &rlen);
  if (!f) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for case.resolved.yaml");
  const int wst = shard_case_write_resolved(r->c, f);
  if (fclose(f) != 0 || wst != SHARD_OK) { /* a partial text would give a wrong run hash */
    free(rbuf);
    return shard_msg_set(msg, wst == SHARD_ERR_IO ? SHARD_ERR_IO : SHARD_ERR_NOMEM,
                         "cannot resolve the case for case.resolved.yaml: %s", shard_status_str(wst));
  }
  compute_run_hash(r, rbuf, rlen);
  r->continuing = r->opt->restart || (r->opt->resume && checkpoint_resumable(r));
  /* a --restart without a checkpoint of this run fails in checkpoint_restore, touching nothing */
  int st = r->opt->restart && !checkpoint_resumable(r) ? SHARD_OK
                                                       : remove_stale_outputs(r->opt->out_dir, r->continuing, msg);
  if (st != SHARD_OK || r->continuing) {
    free(rbuf);
    return st;
  }
  st = shard_write_atomic(r->opt->out_dir, "case.resolved.yaml", rbuf, rlen, msg);
  free(rbuf);
  if (st != SHARD_OK) return st;
  f = open_memstream(&pbuf, &plen);
  if (!f) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for provenance.yaml");
  fprintf(f, "shard_version: \"%s\"\nshard_commit: \"%s\"\nabi: \"%u.%u\"\ncase_file: \"%s\"\n", SHARD_VERSION,
          shard_git_commit, SHARD_ABI_MAJOR, SHARD_ABI_MINOR, shard_case_path(r->c));
  fprintf(f, "plugins:\n");
  hash_plugin(&r->integ, f, "integrator");
  hash_plugin(&r->impact, f, "contact.impact");
  hash_plugin(&r->force, f, "contact.force");
  hash_plugin(&r->lcp, f, "lcp");
  hash_plugin(&r->fallback, f, "lcp.fallback");
  hash_plugin(&r->tsl, f, "fracture");
  long long seed = 0;
  fprintf(f, "seeds:\n");
  const char *seed_keys[] = {"model.seed", "fracture.strength.seed", "fracture.initial.seed"};
  for (size_t i = 0; i < sizeof seed_keys / sizeof seed_keys[0]; ++i)
    if (shard_case_has(r->c, seed_keys[i]) && shard_case_int(r->c, seed_keys[i], NULL, &seed, r->diag) == SHARD_OK)
      fprintf(f, "  %s: %lld\n", seed_keys[i], seed);
  struct utsname un;
  if (uname(&un) == 0)
    fprintf(f, "host:\n  name: \"%s\"\n  system: \"%s %s\"\n  machine: \"%s\"\n", un.nodename, un.sysname, un.release,
            un.machine);
  fprintf(f, "run_hash: \"%s\"\n", r->run_hash);
  fclose(f);
  return write_memstream(r->opt->out_dir, "provenance.yaml", pbuf, plen, msg);
}

/* ---- the time loop ---------------------------------------------------------------- */

static int check_finite(const shard_model *m, const char **what) {
  if (shard_all_finite(m->sys.u, m->ndof) && shard_all_finite(m->sys.v, m->ndof) && shard_all_finite(m->sys.a, m->ndof))
    return 1;
  for (int32_t d = 0; d < m->ndof; ++d) { /* name the first non-finite entry, DOF by DOF */
    if (!isfinite(m->sys.u[d])) return *what = "displacement", 0;
    if (!isfinite(m->sys.v[d])) return *what = "velocity", 0;
    if (!isfinite(m->sys.a[d])) return *what = "acceleration", 0;
  }
  return 1;
}

/* ---- checkpoints (docs/cases.md#checkpoints---restart-and---resume) -------------------------------------------------------------------
 * DIR/checkpoint.bin, written atomically, in the container of checkpoint.h:
 * run hash, step, the length, row count and CRC-32 of the partial history it
 * continues, then the model's arrays and the run's accumulators as sections.
 * A restart rebuilds the run from DIR/case.resolved.yaml exactly as the
 * first time, checks the checkpoint against it (checksum, then every count,
 * index and flag) and the partial history against the checkpoint, then
 * overwrites the state: the continuation is bit for bit the uninterrupted
 * run. Anything that does not check out is refused: "checkpoint FILE:
 * corrupt (what)", exit 2. */
#define HIST_PARTIAL ".history.csv.partial" /* the history until the run ends (then history.csv) */

/* Extend the running CRC-32 of the partial history to its first `upto` bytes
 * (each checkpoint reads only what was written since the last one). */
static int history_crc_extend(run *r, int64_t upto, shard_msg *msg) {
  if (upto < r->hist_crc_len) r->hist_crc = 0, r->hist_crc_len = 0;
  if (upto == r->hist_crc_len) return SHARD_OK;
  const int fd = open(r->hist_tmp, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return shard_msg_set(msg, SHARD_ERR_IO, "cannot read back the history %s: %s", r->hist_tmp, strerror(errno));
  unsigned char buf[16384];
  while (r->hist_crc_len < upto) {
    const size_t want = (size_t)(upto - r->hist_crc_len < (int64_t)sizeof buf ? upto - r->hist_crc_len : (int64_t)sizeof buf);
    const ssize_t got = pread(fd, buf, want, (off_t)r->hist_crc_len);
    if (got <= 0) {
      const int err = got < 0 ? errno : EIO;
      close(fd);
      return shard_msg_set(msg, SHARD_ERR_IO, "cannot read back the history %s: %s", r->hist_tmp, strerror(err));
    }
    r->hist_crc = shard_crc32(r->hist_crc, buf, (size_t)got);
    r->hist_crc_len += got;
  }
  close(fd);
  return SHARD_OK;
}

static int checkpoint_write(run *r, int64_t k, shard_msg *msg) {
  errno = 0;
  if (fflush(r->hist) != 0 || ferror(r->hist)) return history_error(r, k, (double)k * r->dt, msg);
  const long hist_len = ftell(r->hist);
  if (hist_len < 0) return shard_msg_set(msg, SHARD_ERR_IO, "cannot tell the history's length: %s", strerror(errno));
  int st = history_crc_extend(r, hist_len, msg);
  if (st != SHARD_OK) return st;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for the checkpoint");
  shard_ck_header h = {.step = k, .hist_bytes = hist_len, .hist_rows = r->rows, .hist_crc = r->hist_crc,
                       .nsections = shard_model_checkpoint_sections(r->m) + 1};
  memcpy(h.run_hash, r->run_hash, 64);
  shard_ck_put_header(f, &h);
  shard_model_checkpoint_write(r->m, f);
  r->wall_loop_done = r->wall_loop_prior + (now_s() - r->loop_t0);
  r->ck_step = k;
  shard_ck_put_section(f, "run", SHARD_CK_BYTES, (const char *)r + RUN_CK_BEGIN, RUN_CK_END - RUN_CK_BEGIN);
  const int bad = ferror(f);
  if (fclose(f) != 0 || bad) {
    free(buf);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for the checkpoint");
  }
  shard_ck_seal((unsigned char *)buf, len);
  st = shard_write_atomic(r->opt->out_dir, "checkpoint.bin", buf, len, msg);
  free(buf);
  if (st != SHARD_OK) shard_msg_prepend(msg, "step %lld (t = %.9g s): checkpoint", (long long)k, (double)k * r->dt);
  return st;
}

/* The partial history of a continued run, cut back to the checkpoint's
 * length: a regular file, never opened through a link. */
static int history_continue(run *r, long hist_len, shard_msg *msg) {
  const int fd = open(r->hist_tmp, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  struct stat sb;
  int err = fd < 0 ? errno : 0;
  if (!err && (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))) err = errno ? errno : EINVAL;
  if (!err && (ftruncate(fd, hist_len) != 0 || lseek(fd, 0, SEEK_END) < 0)) err = errno;
  if (!err && !(r->hist = fdopen(fd, "a"))) err = errno;
  if (err) {
    if (fd >= 0) close(fd);
    return shard_msg_set(msg, SHARD_ERR_IO, "--restart: cannot continue the history %s: %s", r->hist_tmp,
                         err == ELOOP ? "it is a symbolic link" : strerror(err));
  }
  return SHARD_OK;
}

/* msg holds what is wrong: make it "checkpoint PATH: corrupt (what)" */
static int ck_corrupt(shard_msg *msg, const char *path) {
  char what[SHARD_MSG_SIZE];
  snprintf(what, sizeof what, "%s", msg->text);
  return shard_msg_set(msg, SHARD_ERR_INPUT, "checkpoint %s: corrupt (%s)", path, what);
}

/* The run's accumulators read back: what the set-up derived from the case
 * (reference, contact DOF, release mode) must be what it was, and the
 * counters that index or count must be in range. */
static int check_run_block(const run *r, const run *set, int64_t k, const shard_ck_header *h, shard_msg *msg) {
  if (r->ref != set->ref || r->contact_con != set->contact_con || r->contact_dof != set->contact_dof ||
      r->release_mode != set->release_mode || memcmp(&r->bar, &set->bar, sizeof r->bar) != 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "run section: reference or loading set-up differs from the case's");
  shard_ball_ref ball = set->ball; /* the reference's cursor as the run advanced it, step by step */
  if (r->ref == SHARD_REF_BALL)
    for (int64_t j = 1; j <= k; ++j) {
      double ua, va;
      shard_ball_ref_eval(&ball, (double)j * r->dt, &ua, &va);
    }
  if (memcmp(&ball, &r->ball, sizeof ball) != 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "run section: ball reference cursor differs from its recomputation");
  if (r->energy_form != SHARD_ENERGY_NEWMARK && r->energy_form != SHARD_ENERGY_NEWMARK_WORK &&
      r->energy_form != SHARD_ENERGY_PLAIN)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "run section: energy form %d", (int)r->energy_form);
  if (r->ck_step != k)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "run section: written at step %lld, the header says %lld",
                         (long long)r->ck_step, (long long)k);
  if (r->rows != h->hist_rows)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "run section: %lld history rows, the header says %lld",
                         (long long)r->rows, (long long)h->hist_rows);
  const int32_t nc = r->m->ncon_max;
  if (r->prev_active < 0 || r->prev_active > nc || r->max_active < 0 || r->max_active > nc || r->max_block < 0 ||
      r->max_block > nc)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "run section: active-set counts outside 0..%d", (int)nc);
  if (r->max_inserted < 0 || r->max_inserted > r->m->nfacet || r->stop_quiet < 0 || r->stop_quiet > 2 ||
      r->restarts < 0 || r->release_step < 0 || r->release_step > k || r->contact_steps < 0 || r->contact_steps > k ||
      r->force_n < 0 || r->force_n > k || r->lcp_blocks < 0 || r->lcp_iterations < 0 || r->lcp_fallbacks < 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "run section: a step counter outside 0..%lld", (long long)k);
  return SHARD_OK;
}

/* The partial history's first h->hist_bytes bytes are the ones the
 * checkpoint continues: h->hist_rows rows after the header line, whole
 * lines, text, the recorded CRC-32. Bytes after them (rows of steps after
 * the checkpoint) are dropped by the restart. */
static int check_partial_history(const run *r, const shard_ck_header *h, const char *ck, shard_msg *msg) {
  const char *path = r->hist_tmp;
  const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "--restart: cannot read the partial history %s of the checkpoint %s: %s",
                         path, ck, errno == ELOOP ? "it is a symbolic link" : strerror(errno));
  struct stat sb;
  int st = SHARD_OK;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    st = shard_msg_set(msg, SHARD_ERR_INPUT, "partial history %s: not a regular file", path);
  } else if ((int64_t)sb.st_size < h->hist_bytes) {
    st = shard_msg_set(msg, SHARD_ERR_INPUT,
                       "partial history %s: corrupt (truncated: %lld bytes, the checkpoint %s continues its first %lld)",
                       path, (long long)sb.st_size, ck, (long long)h->hist_bytes);
  } else {
    unsigned char buf[16384];
    uint32_t crc = 0;
    int64_t pos = 0, lines = 0;
    unsigned char last = 0;
    while (pos < h->hist_bytes && st == SHARD_OK) {
      const size_t want = (size_t)(h->hist_bytes - pos < (int64_t)sizeof buf ? h->hist_bytes - pos : (int64_t)sizeof buf);
      const ssize_t got = pread(fd, buf, want, (off_t)pos);
      if (got <= 0) {
        st = shard_msg_set(msg, SHARD_ERR_IO, "partial history %s: read error: %s", path, got < 0 ? strerror(errno) : "end of file");
        break;
      }
      const unsigned char *nul = memchr(buf, 0, (size_t)got);
      if (nul) {
        st = shard_msg_set(msg, SHARD_ERR_INPUT, "partial history %s: corrupt (NUL byte at offset %lld)", path,
                           (long long)(pos + (nul - buf)));
        break;
      }
      for (ssize_t i = 0; i < got; ++i) lines += buf[i] == '\n';
      crc = shard_crc32(crc, buf, (size_t)got);
      last = buf[got - 1];
      pos += got;
    }
    if (st == SHARD_OK && last != '\n')
      st = shard_msg_set(msg, SHARD_ERR_INPUT, "partial history %s: corrupt (byte %lld, where the checkpoint %s "
                         "continues it, is inside a row)", path, (long long)h->hist_bytes, ck);
    else if (st == SHARD_OK && lines != h->hist_rows + 1)
      st = shard_msg_set(msg, SHARD_ERR_INPUT, "partial history %s: corrupt (%lld lines where the checkpoint %s "
                         "expects a header and %lld rows)", path, (long long)lines, ck, (long long)h->hist_rows);
    else if (st == SHARD_OK && crc != h->hist_crc)
      st = shard_msg_set(msg, SHARD_ERR_INPUT, "partial history %s: corrupt (its first %lld bytes differ from the "
                         "ones the checkpoint %s continues: CRC-32 %08x, recorded %08x)",
                         path, (long long)h->hist_bytes, ck, crc, h->hist_crc);
  }
  close(fd);
  return st;
}

/* the size in bytes of a checkpoint of this run */
static size_t checkpoint_size(run *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return SIZE_MAX;
  shard_ck_header h = {0};
  shard_ck_put_header(f, &h);
  shard_model_checkpoint_write(r->m, f);
  shard_ck_put_section(f, "run", SHARD_CK_BYTES, (const char *)r + RUN_CK_BEGIN, RUN_CK_END - RUN_CK_BEGIN);
  const int bad = ferror(f);
  fclose(f);
  free(buf);
  return bad ? SIZE_MAX : len;
}

static int checkpoint_restore(run *r, shard_msg *msg) {
  char path[4200];
  snprintf(path, sizeof path, "%s/checkpoint.bin", r->opt->out_dir);
  if (access(path, F_OK) != 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "--restart: no checkpoint in '%s' (%s)", r->opt->out_dir, strerror(errno));
  const size_t expect = checkpoint_size(r);
  if (expect == SIZE_MAX) return shard_msg_set(msg, SHARD_ERR_NOMEM, "checkpoint %s: out of memory", path);
  unsigned char *buf = NULL;
  size_t len = 0;
  int st = shard_read_file(path, expect, &buf, &len, msg);
  if (st != SHARD_OK) return st == SHARD_ERR_INPUT ? ck_corrupt(msg, path) : (shard_msg_prepend(msg, "checkpoint %s", path), st);
  shard_ck_header h;
  shard_ck_reader rd;
  uint32_t version = 0;
  run set = *r; /* as the set-up left it */
  st = shard_ck_open(buf, len, &h, &rd, &version, msg);
  if (st != SHARD_OK && version != 0) {
    st = shard_msg_set(msg, SHARD_ERR_INPUT, "checkpoint %s: format %u, written by another version of shard; this one "
                       "reads format %u: start the run over (without --restart)", path, version, SHARD_CK_VERSION);
  } else if (st != SHARD_OK) {
    st = ck_corrupt(msg, path);
  } else if (memcmp(h.run_hash, r->run_hash, 64) != 0) {
    st = shard_msg_set(msg, SHARD_ERR_INPUT, "--restart: %s belongs to another run (run hash differs)", path);
  } else if (h.step < 1 || h.step >= r->nsteps) {
    st = shard_msg_set(msg, SHARD_ERR_INPUT, "step %lld outside this run's 1..%lld", (long long)h.step,
                       (long long)r->nsteps - 1);
    st = ck_corrupt(msg, path);
  } else if (h.hist_rows < 1 || h.hist_rows > h.step + 1 || h.hist_bytes < 1) {
    st = shard_msg_set(msg, SHARD_ERR_INPUT, "history of %lld rows in %lld bytes after step %lld",
                       (long long)h.hist_rows, (long long)h.hist_bytes, (long long)h.step);
    st = ck_corrupt(msg, path);
  } else if ((st = shard_model_checkpoint_read(r->m, &rd, msg)) != SHARD_OK ||
             (st = shard_ck_get_section(&rd, "run", SHARD_CK_BYTES, (char *)r + RUN_CK_BEGIN, RUN_CK_END - RUN_CK_BEGIN,
                                        msg)) != SHARD_OK ||
             (st = shard_ck_close(&rd, msg)) != SHARD_OK || (st = check_run_block(r, &set, h.step, &h, msg)) != SHARD_OK) {
    st = ck_corrupt(msg, path);
  }
  free(buf);
  if (st != SHARD_OK) return st; /* the run's state is unusable: it ends here */
  if ((st = check_partial_history(r, &h, path, msg)) != SHARD_OK) return st;
  const int64_t k = h.step;
  r->k_start = k;
  r->m->sys.t = (double)k * r->dt;
  r->wall_loop_prior = r->wall_loop_done;
  r->restarts++;
  r->hist_crc = h.hist_crc, r->hist_crc_len = h.hist_bytes;
  /* the history up to the checkpoint, then append */
  return history_continue(r, (long)h.hist_bytes, msg);
}

/* DIR/checkpoint.bin of the current format (its run hash and step in `hash`
 * and `step`) with the partial history it continues still in DIR. Only the
 * header is read: the rest is checked when a run continues from it. */
static int checkpoint_header(const char *dir, char hash[64], int64_t *step) {
  char path[4200];
  unsigned char head[SHARD_CK_HEADER];
  snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  const size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  shard_ck_header h;
  if (shard_ck_peek(head, n, &h, NULL, NULL) != SHARD_OK) return 0;
  memcpy(hash, h.run_hash, 64);
  *step = h.step;
  snprintf(path, sizeof path, "%s/" HIST_PARTIAL, dir);
  return access(path, R_OK | W_OK) == 0;
}

int shard_run_checkpoint_step(const char *dir, int64_t *step) {
  char hash[64];
  return checkpoint_header(dir, hash, step);
}

/* `shard run --resume`: DIR/checkpoint.bin was written by this very run (same
 * run hash: resolved case, plugin files, version) and its partial history is
 * still there. Anything else (no checkpoint, another run's, an older format, a
 * history already published) means starting over. */
static int checkpoint_resumable(const run *r) {
  char hash[64];
  int64_t step;
  return checkpoint_header(r->opt->out_dir, hash, &step) && memcmp(hash, r->run_hash, 64) == 0;
}

/* Release the prescribed ends (free expansion, docs/theory.md §13): their accelerations
 * change from imposed to computed, which makes the algorithmic energy jump;
 * the jump is carried by an offset recorded here (docs/theory.md §12). */
static int release(run *r, int64_t k, double t, shard_msg *msg) {
  shard_model *m = r->m;
  shard_system *sys = &m->sys;
  const double H_before = r->H;
  shard_model_release(m);
  double *f = r->u_prev; /* scratch: the previous state is no longer needed this step */
  int st = sys->ops->force(sys, t, sys->u, f, msg);
  if (st != SHARD_OK) return st;
  for (int32_t i = 0; i < m->n_presc; ++i) {
    const int32_t d = m->presc_dof[i];
    sys->a[d] = m->minv[d] * f[d];
  }
  const double E = energy_state(r);
  r->release_offset += r->H - H_before;
  energy_balance(r, E, 0);
  r->release_step = k;
  r->release_time = t;
  return SHARD_OK;
}

/* A failure of a conditionally stable scheme run above its stable step
 * (time.allow_unstable) names the step as the likely cause. */
static void beyond_stable_hint(const run *r, shard_msg *msg) {
  if (!r->beyond_stable) return;
  const size_t len = strlen(msg->text);
  snprintf(msg->text + len, sizeof msg->text - len,
           "; time.dt = %.6g s is %.4g times the stable step dt_c_default = %.6g s of this scheme "
           "(time.allow_unstable): the time step is the likely cause",
           r->dt, r->dt / r->dt_c_default, r->dt_c_default);
}

static int loop(run *r, int64_t *out_steps, shard_msg *msg) {
  shard_model *m = r->m;
  shard_system *sys = &m->sys;
  const int show = r->opt->on_progress != NULL;
  const int event_rows = shard_case_bool(r->c, "output.events");
  const double t0 = now_s();
  double last_print = t0;
  int st = SHARD_OK;
  int64_t k;
  if (r->opt->step_now) atomic_store_explicit(r->opt->step_now, (long long)r->k_start, memory_order_relaxed);
  for (k = r->k_start + 1; k <= r->nsteps; ++k) {
    const double t_prev = sys->t, t = (double)k * r->dt;
    if (r->fext_any)
      memcpy(r->u_prev, sys->u, (size_t)m->ndof * sizeof(double));
    else
      for (int32_t i = 0; i < m->n_presc; ++i) r->u_prev[m->presc_dof[i]] = sys->u[m->presc_dof[i]];
    memcpy(r->v_prev, sys->v, (size_t)m->ndof * sizeof(double));
    /* sys->impulse keeps the last step's impulses: integrators warm-start
     * their LCP from them and overwrite every entry */
    memset(&m->stats, 0, sizeof m->stats);
    shard_contact_set_step(m->contact, k, t_prev);
    if (r->impact_vd) impact_restitution(r, r->impact_vd, m->ncon); /* e from this step's pre-impact state */
    st = shard_integrator_step(r->iops, r->integ.self, sys, r->dt, msg);
    if (st != SHARD_OK) {
      shard_msg_prepend(msg, "step %lld (t = %.9g s): integrator '%s'", (long long)k, t, r->integ.lp->desc->name);
      beyond_stable_hint(r, msg);
      st = SHARD_ERR_NUMERIC;
      break;
    }
    sys->t = t;
    const char *what;
    if (!check_finite(m, &what)) {
      st = shard_msg_set(msg, SHARD_ERR_NUMERIC, "step %lld (t = %.9g s): non-finite %s", (long long)k, t, what);
      break;
    }
    if (k == 1 && m->stats.energy_form == SHARD_ENERGY_PLAIN) { /* the balance's origin in the scheme's form */
      r->energy_form = SHARD_ENERGY_PLAIN;
      r->H0 = r->E_init;
      r->B0 = r->E_init + r->G0;
    }
    shard_model_commit(m);
    int32_t first_new;
    const int32_t inserted = shard_model_insert(m, &first_new);
    if (inserted > r->max_inserted) r->max_inserted = inserted, r->max_inserted_time = t;
    if (inserted > 0 && (st = shard_integrator_on_insert(r->iops, r->integ.self, sys, first_new, msg)) != SHARD_OK) {
      shard_msg_prepend(msg, "step %lld (t = %.9g s): integrator '%s': after %d insertions", (long long)k, t,
                        r->integ.lp->desc->name, (int)inserted);
      st = SHARD_ERR_NUMERIC;
      break;
    }
    shard_model_measure(m, sys->u, r->gap);
    energies(r, 0);
    if (m->n_presc && !m->released &&
        ((r->release_mode == 1 && r->dw_last < 0.0) || (r->release_mode == 2 && t >= r->release_time - 1e-12 * r->dt))) {
      if ((st = release(r, k, t, msg)) != SHARD_OK) break;
    }
    const shard_step_stats *s = &m->stats;
    r->lcp_iterations += s->lcp_iterations;
    r->lcp_blocks += s->lcp_blocks;
    r->lcp_fallbacks += s->lcp_fallbacks;
    r->lcp_res_max = fmax(r->lcp_res_max, s->lcp_residual);
    if (s->lcp_max_block > r->max_block) r->max_block = s->lcp_max_block;
    if (s->n_active > r->max_active) r->max_active = s->n_active;
    if (s->n_active > 0) r->contact_steps++;
    for (int32_t i = 0; i < m->ncon; ++i)
      if (-r->gap[i] > r->max_penetration) r->max_penetration = -r->gap[i], r->max_penetration_step = t;
    reference_step(r, t);
    const int event = s->n_active != r->prev_active || inserted > 0 || r->release_step == k;
    r->prev_active = s->n_active;
    int due = 0;
    if (r->interval > 0) {
      if (t >= r->next_out - 1e-12 * r->dt) due = 1, r->next_out += r->interval;
    } else {
      due = k % r->every == 0;
    }
    const int written = due || k == r->nsteps || (event && event_rows);
    if (written && (st = history_row(r, k, t, event, msg)) != SHARD_OK) break;
    if (r->fields_interval > 0 && t >= r->fields_next - 1e-12 * r->dt) {
      r->fields_next += r->fields_interval;
      if ((st = shard_snapshots_write(r->snap, t, m, msg)) != SHARD_OK) {
        shard_msg_prepend(msg, "step %lld (t = %.9g s)", (long long)k, t);
        break;
      }
    }
    const double E = r->kinetic + r->elastic + r->penalty + r->coh_rev;
    const double injected = fmax(r->E0 + r->W_abs, 1e-300); /* energy brought in so far, |dW| summed */
    /* A stable run of a Newmark-form scheme conserves 𝓗 = E - dt^2/8 a'Ma,
     * and E itself swings up to 𝓗 / (1 - (ω dt/2)^2) in a mode of frequency
     * ω (docs/theory.md §7): the guard allows that swing at the stiffest
     * mode, dt_c_default = 2/ω_max. MJ's stored energy is E itself. */
    const double swing = r->energy_form == SHARD_ENERGY_PLAIN ? 1.0 : r->guard_swing;
    if (E > r->energy_guard * swing * injected) {
      char limit[200];
      if (swing > 1.0)
        snprintf(limit, sizeof limit,
                 "time.energy_guard = %g times %.4g, the most a stable run shows at dt = %.4g dt_c "
                 "(1/(1 - (dt/dt_c)^2), dt_c = 2/sqrt(lambda_max))",
                 r->energy_guard, swing, r->dt / r->dt_c_default);
      else
        snprintf(limit, sizeof limit, "time.energy_guard = %g", r->energy_guard);
      st = shard_msg_set(msg, SHARD_ERR_NUMERIC,
                         "step %lld (t = %.9g s): unstable: mechanical energy %.6g J grew to %.3g times the injected "
                         "energy %.6g J (initial energy plus the absolute external work), beyond %s",
                         (long long)k, t, E, E / injected, injected, limit);
      beyond_stable_hint(r, msg);
      break;
    }
    if (!(fabs(r->drift) <= r->max_drift)) { /* also a NaN drift */
      st = shard_msg_set(msg, SHARD_ERR_NUMERIC,
                         "step %lld (t = %.9g s): the energy balance drifted by %.3g of the largest energy %.6g J, "
                         "beyond time.max_balance_drift = %g: the energies of this run cannot be trusted",
                         (long long)k, t, r->drift, fmax(r->energy_max, 1e-300), r->max_drift);
      beyond_stable_hint(r, msg);
      break;
    }
    if (r->stop_interval > 0 && t >= r->stop_next) {
      const double G = r->coh_work - r->coh_rev;
      r->stop_next += r->stop_interval;
      const int quiet = G > 0 && fabs(G - r->stop_last_g) <= 1e-3 * G;
      r->stop_quiet = quiet ? r->stop_quiet + 1 : 0;
      r->stop_last_g = G;
      if (r->stop_quiet >= 3) {
        r->stop_time = t;
        if (!written) st = history_row(r, k, t, 1, msg);
        ++k;
        break;
      }
    }
    if (r->checkpoint_every > 0 && k % r->checkpoint_every == 0 && k < r->nsteps &&
        (st = checkpoint_write(r, k, msg)) != SHARD_OK)
      break;
    if (k < r->nsteps && r->opt->stop && *r->opt->stop) { /* a signal: stop here, resumable */
      r->stopped = 1;
      if (r->checkpoint_every > 0) {
        if (k % r->checkpoint_every != 0) st = checkpoint_write(r, k, msg);
      } else if (!written) {
        st = history_row(r, k, t, 1, msg);
      }
      ++k;
      break;
    }
    if (r->opt->step_now) atomic_store_explicit(r->opt->step_now, (long long)k, memory_order_relaxed);
    if (show && (k & 255) == 0) {
      const double nw = now_s();
      if (nw - last_print > 0.5) progress(r, k, t0, 0), last_print = nw;
    }
  }
  if (show) progress(r, k > r->nsteps ? r->nsteps : k, t0, 1);
  *out_steps = k - 1;
  return st;
}

static int setup_time(run *r, shard_msg *msg) {
  shard_scope sc = run_scope(r);
  shard_model *m = r->m;
  r->dt_bulk = shard_model_dt_bulk(m);
  r->dt_c_default = shard_model_dt_default(m, r->max_spring);
  r->dt_c_paper = shard_model_dt_paper(m, r->max_spring);
  if (isnan(r->dt_c_default)) /* the eigenvalue bound's work arrays could not be allocated */
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for the stable time step estimate");
  const char *est = shard_case_string(r->c, "time.dt_estimate");
  r->dt_c = (est && strcmp(est, "paper") == 0) ? r->dt_c_paper : r->dt_c_default;
  int st = SHARD_OK;
  if (shard_case_real(r->c, "time.end", &sc, &r->T, r->diag) != SHARD_OK) st = SHARD_ERR_INPUT;
  if (shard_case_real(r->c, "time.dt", &sc, &r->dt, r->diag) != SHARD_OK) st = SHARD_ERR_INPUT;
  if (shard_case_real(r->c, "time.energy_guard", &sc, &r->energy_guard, r->diag) != SHARD_OK) st = SHARD_ERR_INPUT;
  if (shard_case_real(r->c, "time.max_balance_drift", &sc, &r->max_drift, r->diag) != SHARD_OK) st = SHARD_ERR_INPUT;
  long long every = 1, max_steps = 0;
  if (shard_case_int(r->c, "output.every", &sc, &every, r->diag) != SHARD_OK) st = SHARD_ERR_INPUT;
  if (shard_case_int(r->c, "time.max_steps", &sc, &max_steps, r->diag) != SHARD_OK) st = SHARD_ERR_INPUT;
  if (shard_case_has(r->c, "output.interval") &&
      shard_case_real(r->c, "output.interval", &sc, &r->interval, r->diag) != SHARD_OK)
    st = SHARD_ERR_INPUT;
  if (st != SHARD_OK) return shard_msg_set(msg, st, "invalid time stepping");
  /* a conditionally stable scheme above its stable step: refused, unless asked for */
  const shard_plugin *ip = r->integ.lp->desc;
  if ((ip->caps & SHARD_CAP_CONDITIONALLY_STABLE) && r->dt > r->dt_c_default) {
    r->beyond_stable = 1;
    if (!shard_case_bool(r->c, "time.allow_unstable")) {
      shard_case_error_at(r->c, "time.dt", r->diag,
                          "'time.dt' = %.6g s is %.4g times the stable step dt_c_default = %.6g s of integrator '%s' "
                          "(2/sqrt(lambda_max) of M^-1 K with the bulk%s%s stiffness): the scheme is stable only "
                          "for dt / dt_c_default <= 1; lower time.dt, or set time.allow_unstable: true to run it "
                          "anyway",
                          r->dt, r->dt / r->dt_c_default, r->dt_c_default, ip->name,
                          r->max_spring > 0 ? ", penalty" : "", r->m->fracture ? ", cohesive" : "");
      return shard_msg_set(msg, SHARD_ERR_INPUT, "time step above the stable step");
    }
  }
  r->every = every;
  long long ck = 0;
  if (shard_case_int(r->c, "time.checkpoint_every", &sc, &ck, r->diag) != SHARD_OK)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid time.checkpoint_every");
  r->checkpoint_every = ck;
  const char *stop = shard_case_string(r->c, "time.stop");
  if (stop && strcmp(stop, "dissipation_settled") == 0) {
    double sbar = 0, c = 0;
    if (!r->m->fracture || !scope_lookup(r, "s_bar", &sbar) || !scope_lookup(r, "c", &c))
      return shard_msg_set(msg, SHARD_ERR_INPUT,
                           "%s: time.stop 'dissipation_settled' needs a fracturing bar with model.initial.strain_rate",
                           shard_case_path(r->c));
    r->stop_interval = 10.0 * sbar / c;
    double after = 0;
    if (shard_case_real(r->c, "time.stop_after", &sc, &after, r->diag) != SHARD_OK)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid time.stop_after");
    r->stop_next = after + r->stop_interval;
  }
  if (r->m->kind == SHARD_MODEL_BAR && r->m->n_presc) {
    const char *rel = shard_case_string(r->c, "model.loading.release");
    r->release_mode = !rel || strcmp(rel, "never") == 0 ? 0 : strcmp(rel, "external_work") == 0 ? 1 : 2;
    if (r->release_mode == 2) {
      if (!shard_case_has(r->c, "model.loading.release_time"))
        return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.loading.release 'time' needs model.loading.release_time",
                             shard_case_path(r->c));
      if (shard_case_real(r->c, "model.loading.release_time", &sc, &r->release_time, r->diag) != SHARD_OK)
        return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid model.loading.release_time");
    }
  }
  const double n = ceil(r->T / r->dt - 1e-9);
  if (!(n <= (double)max_steps))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: time.end / time.dt = %.6g steps exceeds time.max_steps = %lld",
                         shard_case_path(r->c), n, max_steps);
  r->nsteps = (int64_t)n;
  r->next_out = r->interval;
  const double ratio = r->dt / r->dt_c_default; /* beyond the linear limit: no swing allowed */
  r->guard_swing = ratio < 1.0 ? 1.0 / (1.0 - ratio * ratio) : 1.0;
  return SHARD_OK;
}

/* Everything a run does before its first step that writes nothing: the
 * model, the plugins and the LCP policy, the time step and its stability,
 * the reference, the output keys, the integrator's set-up and start
 * (a0 = M^-1 f(u0)). `shard validate` runs exactly this (shard_run_check):
 * whatever a run refuses before its first step, validate refuses too. */
static int run_setup(run *r, shard_msg *msg) {
  shard_scope sc = run_scope(r);
  int st = shard_model_build(r->c, &sc, &r->m, r->diag, msg);
  if (st != SHARD_OK) return st;
  r->model_ready = 1;
  if ((st = build_plugins(r, msg)) != SHARD_OK || (st = setup_time(r, msg)) != SHARD_OK ||
      (st = setup_reference(r, msg)) != SHARD_OK)
    return st;
  if (shard_case_has(r->c, "output.fields_interval") &&
      shard_case_real(r->c, "output.fields_interval", &sc, &r->fields_interval, r->diag) != SHARD_OK)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid output.fields_interval");
  r->spacetime = shard_case_bool(r->c, "output.spacetime");
  shard_model *m = r->m;
  shard_system *sys = &m->sys;
  /* integrator set-up: aux vectors, a0 = M^-1 f(u0) */
  const uint32_t n_aux = shard_integrator_n_aux(r->iops, r->integ.self);
  sys->n_aux = n_aux;
  sys->aux = n_aux ? calloc((size_t)n_aux * (size_t)m->ndof_max, sizeof(double)) : NULL;
  r->u_prev = calloc((size_t)m->ndof_max, sizeof(double));
  r->v_prev = calloc((size_t)m->ndof_max, sizeof(double));
  r->gap = calloc((size_t)m->ncon_max + 1, sizeof(double));
  for (int32_t d = 0; d < m->ndof_max && r->u_prev; ++d) r->fext_any |= m->fext[d] != 0.0; /* fext is set once, at build */
  if ((n_aux && !sys->aux) || !r->u_prev || !r->v_prev || !r->gap)
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  if ((st = shard_integrator_setup(r->iops, r->integ.self, sys, msg)) != SHARD_OK) {
    shard_msg_prepend(msg, "integrator '%s': setup", r->integ.lp->desc->name);
    return st;
  }
  sys->t = 0.0;
  if ((st = sys->ops->force(sys, 0.0, sys->u, sys->a, msg)) != SHARD_OK) return st;
  for (int32_t d = 0; d < m->ndof; ++d) sys->a[d] *= m->minv[d];
  sys->ops->prescribe(sys, 0.0, sys->v, sys->a);
  if ((st = shard_integrator_start(r->iops, r->integ.self, sys, r->dt, msg)) != SHARD_OK) {
    shard_msg_prepend(msg, "integrator '%s': start", r->integ.lp->desc->name);
    return st;
  }
  return SHARD_OK;
}

static void run_teardown(run *r) {
  if (r->hist) fclose(r->hist);
  r->hist = NULL;
  shard_snapshots_close(r->snap);
  r->snap = NULL;
  destroy_plugins(r);
  free(r->u_prev), free(r->v_prev), free(r->gap), free(r->kin_vn), free(r->kin_gap);
  shard_model_destroy(r->m);
}

int shard_run_check(const shard_case *c, const shard_registry *reg, shard_diag *diag, shard_msg *msg) {
  const shard_run_options none = {.out_dir = NULL};
  run r = {.c = c, .reg = reg, .opt = &none, .diag = diag, .contact_con = -1, .contact_dof = -1};
  const int st = run_setup(&r, msg);
  run_teardown(&r);
  return st == SHARD_OK ? 0 : st == SHARD_ERR_INPUT ? 2 : 1;
}

int shard_run_case(const shard_case *c, const shard_registry *reg, const shard_run_options *opt, shard_diag *diag,
                   shard_msg *msg) {
  const double wall0 = now_s();
  run r = {.c = c, .reg = reg, .opt = opt, .diag = diag, .contact_con = -1, .contact_dof = -1};
  shard_dir_lock lock = SHARD_DIR_LOCK_INIT;
  int code = 1;
  int st = run_setup(&r, msg);
  if (st != SHARD_OK) {
    code = st == SHARD_ERR_INPUT ? 2 : 1;
    goto done;
  }
  shard_model *m = r.m;
  shard_system *sys = &m->sys;
  if ((st = shard_mkdirs(opt->out_dir, msg)) != SHARD_OK) goto done;
  if ((st = lock_out_dir(&r, &lock, msg)) != SHARD_OK) goto done;
  snprintf(r.hist_tmp, sizeof r.hist_tmp, "%s/" HIST_PARTIAL, opt->out_dir);
  if ((st = write_provenance(&r, msg)) != SHARD_OK) goto done;
  if ((r.fields_interval > 0 || r.spacetime) && m->kind == SHARD_MODEL_BAR &&
      (st = shard_snapshots_open(&r.snap, opt->out_dir, m, msg)) != SHARD_OK)
    goto done;
  if (r.fields_interval > 0 && (st = shard_snapshots_write(r.snap, 0.0, m, msg)) != SHARD_OK) goto done;
  r.fields_next = r.fields_interval;
  if (r.continuing) {
    if ((st = checkpoint_restore(&r, msg)) != SHARD_OK) goto done;
    if (opt->continued_from) *opt->continued_from = r.k_start;
  } else {
    /* a fresh start has removed the earlier checkpoint and partial history
     * (write_provenance): the history is a new file, never a link followed */
    int fd = -1;
    if ((st = shard_file_create(r.hist_tmp, &fd, msg)) != SHARD_OK) goto done;
    if (!(r.hist = fdopen(fd, "w"))) {
      st = shard_msg_set(msg, SHARD_ERR_IO, "cannot open '%s': %s", r.hist_tmp, strerror(errno));
      close(fd);
      goto done;
    }
    history_header(&r);
    shard_model_measure(m, sys->u, r.gap);
    energies(&r, 1);
    if ((st = history_row(&r, 0, 0.0, 0, msg)) != SHARD_OK) goto done;
  }
  if (shard_diag_count(diag) > 0) { /* an error while resolving the case (out of memory, say) was recorded */
    st = shard_msg_set(msg, SHARD_ERR_INTERNAL, "the set-up reported errors (above); nothing run");
    goto done;
  }
  r.wall_setup = now_s() - wall0;
  int64_t steps = 0;
  r.loop_t0 = now_s();
  st = loop(&r, &steps, msg);
  r.wall_loop = r.wall_loop_prior + (now_s() - r.loop_t0);
  if (r.stopped && r.checkpoint_every > 0 && st == SHARD_OK) {
    /* the checkpoint at the last step and the partial history are the run so
     * far: no summary, nothing published, --resume continues it */
    errno = 0;
    const int ok = fflush(r.hist) == 0 && !ferror(r.hist);
    code = ok ? SHARD_RUN_STOPPED : 1;
    if (ok)
      shard_msg_set(msg, SHARD_OK, "stopped after step %lld (t = %.9g s): checkpoint written, continue with --resume",
                    (long long)steps, (double)steps * r.dt);
    else
      history_error(&r, steps, (double)steps * r.dt, msg);
    goto done;
  }
  /* keep what was computed, also on failure */
  shard_msg io;
  const int hst = history_publish(&r, steps, &io); /* a history that failed to write stays partial */
  if (hst != SHARD_OK && st == SHARD_OK) st = shard_msg_set(msg, hst, "%s", io.text);
  if (r.snap && r.spacetime && st == SHARD_OK && shard_snapshots_finish(r.snap, &io) != SHARD_OK)
    st = shard_msg_set(msg, SHARD_ERR_IO, "%s", io.text);
  /* the other outputs first: the summary's status says whether they were written */
  if (m->fracture) {
    int st2 = write_fragments(&r, &io);
    if (st2 == SHARD_OK) st2 = write_interfaces(&r, &io);
    if (st2 != SHARD_OK && st == SHARD_OK) st = shard_msg_set(msg, st2, "%s", io.text);
  }
  /* datapackage.json: the units and meaning of the CSVs beside it */
  if (shard_out_write_run_package(opt->out_dir, out_flags(&r), &io) != SHARD_OK && st == SHARD_OK)
    st = shard_msg_set(msg, SHARD_ERR_IO, "%s", io.text);
  for (int attempt = 0; attempt < 2; ++attempt) { /* a second time when the first found the summary incomplete */
    char *sbuf = NULL;
    size_t slen = 0;
    FILE *sf = open_memstream(&sbuf, &slen);
    if (!sf) {
      if (st == SHARD_OK) st = shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for summary.yaml");
      break;
    }
    if (r.stopped && st == SHARD_OK)
      shard_msg_set(msg, SHARD_OK, "stopped on request after step %lld (t = %.9g s)", (long long)steps,
                    (double)steps * r.dt);
    const int sum = write_summary(&r, sf,
                                  st == SHARD_OK ? (r.stopped ? "stopped" : "ok")
                                                 : (st == SHARD_ERR_NUMERIC ? "numerical_failure" : "failed"),
                                  st == SHARD_OK && !r.stopped ? NULL : msg->text, steps,
                                  r.wall_loop_prior + (now_s() - wall0));
    const int bad = ferror(sf);
    if (fclose(sf) != 0 || bad || sum != SHARD_OK) {
      free(sbuf);
      if (st != SHARD_OK) break;
      st = shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for summary.yaml");
      continue;
    }
    if (write_memstream(opt->out_dir, "summary.yaml", sbuf, slen, &io) != SHARD_OK) {
      /* renamed into place but not made durable (the directory's sync
       * failed): a summary the run does not stand behind is withdrawn */
      char sp[4200];
      snprintf(sp, sizeof sp, "%s/summary.yaml", opt->out_dir);
      unlink(sp);
      if (st == SHARD_OK) st = shard_msg_set(msg, SHARD_ERR_IO, "%s", io.text);
    }
    break;
  }
  code = st == SHARD_OK ? (r.stopped ? SHARD_RUN_STOPPED : 0) : st == SHARD_ERR_NUMERIC ? 3 : st == SHARD_ERR_INPUT ? 2 : 1;
done:
  if (code == 1 && st == SHARD_ERR_INPUT) code = 2;
  run_teardown(&r);
  shard_dir_lock_release(&lock);
  return code;
}
