/* host: `shard run` (see run.h): the set-up of a run (scope, plugins, time
 * step) and the run itself; the rest of run/ holds its parts. */
#include "run/run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/stats.h"
#include "io/params_text.h"
#include "model/models.h"
#include "run/energy.h"
#include "run/history.h"
#include "run/loop.h"
#include "run/provenance.h"
#include "run/restart.h"
#include "run/summary.h"
#include "run/system.h"


static int scope_lookup(void *ctx, const char *name, double *out);
static void scope_why(void *ctx, const char *name, char *buf, size_t n);

static shard_scope run_scope(run *r) { return (shard_scope){scope_lookup, r, scope_why}; }

/* The status of a failed step of the set-up: out of memory stays so (exit
 * 1), any other failure of the case's values or a plugin's parameters is
 * bad input (exit 2); with st the status so far, the worse of both. */
static int setup_fail(int st, int got) {
  if (got == SHARD_OK) return st;
  return st == SHARD_ERR_NOMEM || got == SHARD_ERR_NOMEM ? SHARD_ERR_NOMEM : SHARD_ERR_INPUT;
}

/* A case value (what) that could not be read: out of memory, or invalid. */
static int value_fail(int got, const char *what, shard_msg *msg) {
  if (got == SHARD_ERR_NOMEM) return shard_msg_set(msg, got, "out of memory reading %s", what);
  return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid %s", what);
}

/* a number of the case by path, through the run's scope (guarded recursion) */
static int case_number(run *r, const char *path, double *out) {
  if (!shard_case_has(r->c, path) || r->scope_depth > 8) return 0;
  r->scope_depth++;
  shard_scope sc = run_scope(r);
  const int ok = shard_case_real(r->c, path, &sc, out, r->diag) == SHARD_OK;
  r->scope_depth--;
  return ok;
}

/* a key of the case for the model's case_derived */
static int case_key(void *ctx, const char *path, double *out) { return case_number(ctx, path, out); }

/* The derived names the run itself knows (its stable steps): 1 with *out. */
static int run_value(const run *r, const char *name, double *out) {
  const struct {
    const char *n;
    double v;
  } values[] = {{"dt_bulk", r->dt_bulk}, {"dt_c", r->dt_c}, {"dt_c_default", r->dt_c_default},
                {"dt_c_paper", r->dt_c_paper}};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; ++i)
    if (strcmp(name, values[i].n) == 0) return *out = values[i].v, 1;
  return 0;
}

static int scope_lookup(void *ctx, const char *name, double *out) {
  run *r = ctx;
  if (r->mops && r->mops->case_derived && r->mops->case_derived(name, case_key, r, out)) return 1;
  if (r->model_ready) {
    double v = NAN;
    if (!run_value(r, name, &v)) r->mops->derived(r->model, name, &v);
    if (isfinite(v) && v != 0) {
      *out = v;
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
    snprintf(buf, n,
             "'%s' is not known before the model is built (it cannot be used in the keys of the model or of the "
             "fracture section)",
             name);
    return;
  }
  double v = NAN;
  if (!run_value(r, name, &v) && !r->mops->derived(r->model, name, &v)) {
    snprintf(buf, n, "'%s' has no finite value in this case (it needs the fracture keys it is made of%s)", name,
             strcmp(name, "s_grady") == 0 || strcmp(name, "s_bar") == 0 ? " and a nonzero model.initial.strain_rate"
                                                                        : "");
    return;
  }
  r->mops->why(r->model, name, v, buf, n);
}

static int instantiate(run *r, const char *slot, plugin_inst *pi, shard_msg *msg) {
  shard_scope sc = run_scope(r);
  const int st = shard_case_plugin(r->c, slot, &sc, &pi->lp, &pi->params, r->diag);
  if (st == SHARD_ERR_NOMEM) return shard_msg_set(msg, st, "%s: out of memory for the plugin or its parameters", slot);
  if (st != SHARD_OK) return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: invalid plugin parameters", slot);
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
    const int cst = shard_case_real(r->c, "lcp.check_tolerance", &sc, out, r->diag);
    if (cst != SHARD_OK) return value_fail(cst, "lcp.check_tolerance", msg);
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

static int build_plugins(run *r, shard_msg *msg) {
  const char *path = shard_case_path(r->c);
  int st = instantiate(r, "integrator", &r->integ, msg);
  if (st != SHARD_OK) return st;
  const shard_plugin *ip = r->integ.lp->desc;
  shard_integrator_ops_widen(ip, &r->iops_host);
  r->iops = &r->iops_host;
  const uint64_t fam = ip->caps & (SHARD_CAP_IMPACT_LAW | SHARD_CAP_FORCE_LAW);
  r->impulses = fam == SHARD_CAP_IMPACT_LAW;
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
  const shard_scales scales = r->mops->scales(r->model);
  st = shard_contact_law_create(lops, &law->params, &scales, &law->self, msg);
  created(r, law);
  if (st != SHARD_OK) {
    shard_msg_prepend(msg, "%s: contact law '%s'", path, lp->name);
    return setup_fail(SHARD_OK, st); /* a plugin out of memory is not bad input */
  }
  if (fam == SHARD_CAP_IMPACT_LAW) {
    r->kin_vn = calloc((size_t)r->rest_cap + 1, sizeof(double));
    r->kin_gap = calloc((size_t)r->rest_cap + 1, sizeof(double));
    if (!r->kin_vn || !r->kin_gap) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
    run_impact_restitution(r, lops, r->rest_cap); /* rows grown later get theirs in run_state_reserve */
    if (lp->caps & SHARD_CAP_VELOCITY_DEPENDENT) r->impact_vd = lops;
  } else {
    r->mops->set_force_law(r->model, lops, law->self);
    r->max_spring = shard_contact_law_max_stiffness(lops, law->self);
  }
  if (shard_case_has(r->c, "fracture")) {
    if ((r->info.flags & SHARD_MODEL_INSERTION) && !(ip->caps & SHARD_CAP_TOPOLOGY))
      return shard_msg_set(msg, SHARD_ERR_INPUT,
                           "%s: integrator '%s' does not support topology changes (cohesive insertion); set "
                           "fracture.insertion: false or use nsn, cd_lagrange, explicit_newmark or moreau_jean",
                           path, ip->name);
    if ((st = instantiate(r, "fracture", &r->tsl, msg)) != SHARD_OK) return st;
    const shard_tsl_ops *tops = shard_tsl_ops_of(r->tsl.lp->desc);
    st = shard_tsl_create(tops, &r->tsl.params, &scales, &r->tsl.self, msg);
    created(r, &r->tsl);
    if (st != SHARD_OK) {
      shard_msg_prepend(msg, "%s: traction-separation law '%s'", path, r->tsl.lp->desc->name);
      return setup_fail(SHARD_OK, st); /* a plugin out of memory is not bad input */
    }
    shard_tsl_ops_widen(r->tsl.lp->desc, &r->tsl_ops);
    if ((st = r->mops->set_tsl(r->model, &r->tsl_ops, r->tsl.self, fam == SHARD_CAP_FORCE_LAW, msg)) != SHARD_OK)
      return st;
  }
  st = shard_integrator_create(r->iops, &r->integ.params, &scales, &r->integ.self, msg);
  created(r, &r->integ);
  if (st != SHARD_OK) {
    shard_msg_prepend(msg, "%s: integrator '%s'", path, ip->name);
    return setup_fail(SHARD_OK, st); /* a plugin out of memory is not bad input */
  }
  if (ip->caps & SHARD_CAP_NEEDS_LCP) {
    if ((st = instantiate(r, "lcp", &r->lcp, msg)) != SHARD_OK) return st;
    const shard_lcp_solver_ops *sops = shard_lcp_solver_ops_of(r->lcp.lp->desc);
    st = shard_lcp_solver_create(sops, &r->lcp.params, &r->lcp.self, msg);
    created(r, &r->lcp);
    if (st != SHARD_OK) {
      shard_msg_prepend(msg, "%s: lcp '%s'", path, r->lcp.lp->desc->name);
      return setup_fail(SHARD_OK, st); /* a plugin out of memory is not bad input */
    }
    double tol = 0.0;
    if ((st = check_tolerance(r, &r->lcp.params, &tol, msg)) != SHARD_OK) return st;
    shard_contact_policy pol = {.primary = {r->lcp.lp->desc->name, sops, r->lcp.self, r->lcp.lp->desc->caps, tol},
                                .dump = shard_case_bool(r->c, "lcp.dump"),
                                .dump_every = 0,
                                .dump_dir = r->opt->out_dir};
    long long dump_every = 0;
    shard_scope dsc = run_scope(r);
    const int cst = shard_case_int(r->c, "lcp.dump_every", &dsc, &dump_every, r->diag);
    if (cst != SHARD_OK) return value_fail(cst, "lcp.dump_every", msg);
    pol.dump_every = dump_every;
    const char *scalar = shard_case_string(r->c, "lcp.scalar_blocks");
    pol.scalar_closed_form = !scalar || strcmp(scalar, "closed_form") == 0;
    pol.batch_blocks = 1;
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
    if ((st = shard_contact_set_policy(r->contact, &pol, msg)) != SHARD_OK) {
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

int shard_run_checkpoint_step(const char *dir, int64_t *step) {
  char hash[64];
  return run_checkpoint_header(dir, hash, step);
}

static int setup_time(run *r, shard_msg *msg) {
  shard_scope sc = run_scope(r);
  r->dt_bulk = r->mops->stable_step(r->model, SHARD_STEP_BULK, 0.0);
  r->dt_c_default = r->mops->stable_step(r->model, SHARD_STEP_DEFAULT, r->max_spring);
  r->dt_c_paper = r->mops->stable_step(r->model, SHARD_STEP_PAPER, r->max_spring);
  if (isnan(r->dt_c_default)) /* the eigenvalue bound's work arrays could not be allocated */
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for the stable time step estimate");
  const char *est = shard_case_string(r->c, "time.dt_estimate");
  r->dt_c = (est && strcmp(est, "paper") == 0) ? r->dt_c_paper : r->dt_c_default;
  int st = SHARD_OK;
  st = setup_fail(st, shard_case_real(r->c, "time.end", &sc, &r->T, r->diag));
  st = setup_fail(st, shard_case_real(r->c, "time.dt", &sc, &r->dt, r->diag));
  st = setup_fail(st, shard_case_real(r->c, "time.energy_guard", &sc, &r->energy_guard, r->diag));
  st = setup_fail(st, shard_case_real(r->c, "time.max_balance_drift", &sc, &r->max_drift, r->diag));
  long long every = 1, max_steps = 0;
  st = setup_fail(st, shard_case_int(r->c, "output.every", &sc, &every, r->diag));
  st = setup_fail(st, shard_case_int(r->c, "time.max_steps", &sc, &max_steps, r->diag));
  if (shard_case_has(r->c, "output.interval"))
    st = setup_fail(st, shard_case_real(r->c, "output.interval", &sc, &r->interval, r->diag));
  if (st != SHARD_OK) return value_fail(st, "the time stepping", msg);
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
                          r->max_spring > 0 ? ", penalty" : "", (r->info.flags & SHARD_MODEL_FRACTURE) ? ", cohesive" : "");
      return shard_msg_set(msg, SHARD_ERR_INPUT, "time step above the stable step");
    }
  }
  r->every = every;
  long long ck = 0;
  const int cst = shard_case_int(r->c, "time.checkpoint_every", &sc, &ck, r->diag);
  if (cst != SHARD_OK) return value_fail(cst, "time.checkpoint_every", msg);
  r->checkpoint_every = ck;
  const char *stop = shard_case_string(r->c, "time.stop");
  if (stop && strcmp(stop, "dissipation_settled") == 0) {
    double sbar = 0, c = 0;
    if (!(r->info.flags & SHARD_MODEL_FRACTURE) || !scope_lookup(r, "s_bar", &sbar) || !scope_lookup(r, "c", &c))
      return shard_msg_set(msg, SHARD_ERR_INPUT,
                           "%s: time.stop 'dissipation_settled' needs a fracturing bar with model.initial.strain_rate",
                           shard_case_path(r->c));
    r->stop_interval = 10.0 * sbar / c;
    double after = 0;
    const int ast = shard_case_real(r->c, "time.stop_after", &sc, &after, r->diag);
    if (ast != SHARD_OK) return value_fail(ast, "time.stop_after", msg);
    r->stop_next = after + r->stop_interval;
  }
  shard_model_release_rule rule;
  r->mops->release_rule(r->model, &rule);
  r->release_mode = rule.mode;
  if (rule.mode == 2) r->release_time = rule.time;
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

/* output.probes: the window, the interval and the stride, checked against
 * the time stepping and the model (docs/cases.md, `output`). */
static int setup_probes(run *r, shard_msg *msg) {
  static const char *const keys[3] = {"output.probes.from", "output.probes.to", "output.probes.interval"};
  int have = 0;
  for (int i = 0; i < 3; ++i) have += shard_case_has(r->c, keys[i]);
  if (!have) return SHARD_OK; /* (probes.stride alone has its default: no probes) */
  if (have < 3) {
    const char *at = NULL, *missing = NULL;
    for (int i = 0; i < 3; ++i) {
      if (!shard_case_has(r->c, keys[i]) && !missing) missing = keys[i];
      if (shard_case_has(r->c, keys[i]) && !at) at = keys[i];
    }
    shard_case_error_at(r->c, at, r->diag, "'output.probes' needs from, to and interval: '%s' is missing", missing);
    return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid output.probes");
  }
  shard_scope sc = run_scope(r);
  double v[3];
  long long stride = 1;
  int st = SHARD_OK;
  for (int i = 0; i < 3; ++i)
    st = setup_fail(st, shard_case_real(r->c, keys[i], &sc, &v[i], r->diag));
  st = setup_fail(st, shard_case_int(r->c, "output.probes.stride", &sc, &stride, r->diag));
  if (st != SHARD_OK) return value_fail(st, "output.probes", msg);
  const double from = v[0], to = v[1], interval = v[2];
  const int has_ops = r->mops->probe_open && r->mops->probe_write && r->mops->probe_close;
  const char *why = NULL;
  char buf[400];
  if (!has_ops) {
    snprintf(buf, sizeof buf, "'output.probes': model '%s' has no stress probes", r->info.name);
    why = keys[0];
  } else if (r->info.n_facets < 1) {
    snprintf(buf, sizeof buf, "'output.probes': model '%s' has no facet to probe here (probes need a fracture section)",
             r->info.name);
    why = keys[0];
  } else if (!(to > from)) {
    snprintf(buf, sizeof buf, "'output.probes.to' = %.6g s is not after 'output.probes.from' = %.6g s", to, from);
    why = keys[1];
  } else if (from > r->T) {
    snprintf(buf, sizeof buf, "'output.probes.from' = %.6g s is after time.end = %.6g s: the window holds no sample",
             from, r->T);
    why = keys[0];
  } else if (interval < r->dt * (1.0 - 1e-12)) {
    snprintf(buf, sizeof buf,
             "'output.probes.interval' = %.6g s is shorter than time.dt = %.6g s: a sample is the state at the end "
             "of a step, so at most one a step",
             interval, r->dt);
    why = keys[2];
  } else if (r->checkpoint_every > 0) {
    snprintf(buf, sizeof buf,
             "'output.probes' with time.checkpoint_every: a run continued from a checkpoint would lose the samples "
             "written before it; probe a run without checkpoints");
    why = keys[0];
  } else {
    const double samples = floor((fmin(to, r->T) - from) / interval) + 1.0;
    const double facets = ceil((double)r->info.n_facets / (double)stride);
    if (samples * facets > 1e8) {
      snprintf(buf, sizeof buf,
               "'output.probes' would write %.3g rows (%.0f samples of %.0f facets), more than 1e8: shorten the "
               "window, or raise output.probes.interval or output.probes.stride",
               samples * facets, samples, facets);
      why = keys[2];
    }
  }
  if (why) {
    shard_case_error_at(r->c, why, r->diag, "%s", buf);
    return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid output.probes");
  }
  r->probes = 1, r->probe_from = from, r->probe_to = to, r->probe_interval = interval;
  r->probe_stride = (int32_t)stride;
  return SHARD_OK;
}

/* Everything a run does before its first step that writes nothing: the
 * model, the plugins and the LCP policy, the time step and its stability,
 * the reference, the output keys, the integrator's set-up and start
 * (a0 = M^-1 f(u0)). `shard validate` runs exactly this (shard_run_check):
 * whatever a run refuses before its first step, validate refuses too. */
static int run_setup(run *r, shard_msg *msg) {
  shard_scope sc = run_scope(r);
  if (!(r->model_pi.lp = shard_model_plugin_for(r->c, r->reg, msg))) return SHARD_ERR_INPUT;
  shard_model_ops_widen(r->model_pi.lp->desc, &r->mops_host);
  r->mops = &r->mops_host;
  /* the model's keys and the fracture section's own, resolved for it */
  const char *type = shard_case_string(r->c, "model.type");
  shard_params mp, fp;
  const shard_params *frac;
  const int pst = shard_case_model_params(r->c, &sc, &mp, &fp, &frac, r->diag);
  if (pst == SHARD_ERR_NOMEM) return shard_msg_set(msg, pst, "%s model: out of memory for its parameters", type);
  if (pst != SHARD_OK) return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid %s model", type);
  const shard_model_args args = {type, &mp, frac, shard_case_path(r->c)};
  int st = r->mops->create(&args, &r->model, &r->sys, msg);
  if (st != SHARD_OK) return st;
  /* the invocation's threads, for a model whose system has the field */
  if (r->sys->struct_size >= offsetof(shard_system, thread_grain) + sizeof r->sys->thread_grain) {
    r->sys->threads = r->opt->threads > 1 ? r->opt->threads : 1;
    r->sys->thread_grain = r->opt->thread_grain > 0 ? r->opt->thread_grain : 0;
  }
  memset(&r->info, 0, sizeof r->info); /* a model built before a field was appended leaves it 0 */
  r->mops->info(r->model, &r->info);
  if (r->mops->outputs->history->n_fields > SHARD_MODEL_HISTORY_MAX)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL, "model '%s' declares %zu history columns, at most %d", r->info.name,
                         r->mops->outputs->history->n_fields, SHARD_MODEL_HISTORY_MAX);
  /* for the rows present (one at least: the reference reads row 0's e);
   * run_state_reserve grows it */
  r->rest_cap = r->sys->ncon > 1 ? r->sys->ncon : 1;
  if (r->rest_cap > r->sys->ncon_max) r->rest_cap = r->sys->ncon_max;
  r->restitution = calloc((size_t)r->rest_cap + 1, sizeof(double));
  if (!r->restitution) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  r->sys->restitution = r->restitution;
  if ((st = run_system_setup(r, msg)) != SHARD_OK) return st;
  r->model_ready = 1;
  if ((st = build_plugins(r, msg)) != SHARD_OK || (st = setup_time(r, msg)) != SHARD_OK) return st;
  /* e of the reference: the law's constant (NAN for a law that depends on the velocity) */
  const double e = r->impact_vd ? NAN : r->impact.self ? r->restitution[0] : 0.0;
  if ((st = r->mops->reference_setup(r->model, shard_case_string(r->c, "reference.type"), e, r->dt, msg)) !=
      SHARD_OK) {
    if (r->impact_vd) shard_msg_prepend(msg, "impact law '%s' (velocity dependent)", r->impact.lp->desc->name);
    shard_msg_prepend(msg, "%s", shard_case_path(r->c));
    return st;
  }
  memset(&r->info, 0, sizeof r->info);
  r->mops->info(r->model, &r->info); /* the reference's columns */
  if (shard_case_has(r->c, "output.fields_interval") &&
      (st = shard_case_real(r->c, "output.fields_interval", &sc, &r->fields_interval, r->diag)) != SHARD_OK)
    return value_fail(st, "output.fields_interval", msg);
  r->spacetime = shard_case_bool(r->c, "output.spacetime");
  if ((st = setup_probes(r, msg)) != SHARD_OK) return st;
  shard_system *sys = r->sys;
  /* integrator set-up: aux vectors, a0 = M^-1 f(u0) */
  const uint32_t n_aux = shard_integrator_n_aux(r->iops, r->integ.self);
  sys->n_aux = n_aux;
  sys->aux = n_aux ? calloc((size_t)n_aux * (size_t)sys->ndof_max, sizeof(double)) : NULL;
  /* for the DOFs and rows present; run_system_reserve grows them */
  r->state_ndof_cap = sys->ndof, r->state_ncon_cap = sys->ncon;
  r->u_prev = calloc((size_t)sys->ndof + 1, sizeof(double));
  r->v_prev = calloc((size_t)sys->ndof + 1, sizeof(double));
  r->gap = calloc((size_t)sys->ncon + 1, sizeof(double));
  r->fext_any = r->info.fext != NULL;
  if ((n_aux && !sys->aux) || !r->u_prev || !r->v_prev || !r->gap)
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  if ((st = run_state_reserve(r, msg)) != SHARD_OK) return st; /* the restitutions of initial interfaces */
  /* the rows present before the first step (a model's initial interfaces
   * are inserted when its plugins are attached) */
  if ((st = shard_contact_reserve(r->contact, sys->ncon, msg)) != SHARD_OK) return st;
  if ((st = shard_integrator_setup(r->iops, r->integ.self, sys, msg)) != SHARD_OK) {
    shard_msg_prepend(msg, "integrator '%s': setup", r->integ.lp->desc->name);
    return st;
  }
  /* setup sized it for the DOFs and rows present now (ndof_max / ncon_max
   * without reserve) */
  const int grows = shard_integrator_has_reserve(r->iops);
  r->integ_ndof_cap = grows ? sys->ndof : sys->ndof_max;
  r->integ_ncon_cap = grows ? sys->ncon : sys->ncon_max;
  sys->t = 0.0;
  if ((st = sys->ops->force(sys, 0.0, sys->u, sys->a, msg)) != SHARD_OK) return st;
  for (int32_t d = 0; d < sys->ndof; ++d) sys->a[d] *= sys->minv[d];
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
  destroy_plugins(r);
  free(r->u_prev), free(r->v_prev), free(r->gap);
  run_system_teardown(r);
  if (r->mops) r->mops->destroy(r->model);
  r->model = NULL, r->sys = NULL;
  free(r->restitution), free(r->kin_vn), free(r->kin_gap);
}

int shard_run_check(const shard_case *c, const shard_registry *reg, shard_diag *diag, shard_msg *msg) {
  const shard_run_options none = {.out_dir = NULL};
  run r = {.c = c, .reg = reg, .opt = &none, .diag = diag};
  const int st = run_setup(&r, msg);
  run_teardown(&r);
  return st == SHARD_OK ? 0 : st == SHARD_ERR_INPUT ? 2 : 1;
}

int shard_run_case(const shard_case *c, const shard_registry *reg, const shard_run_options *opt, shard_diag *diag,
                   shard_msg *msg) {
  const double wall0 = now_s();
  run r = {.c = c, .reg = reg, .opt = opt, .diag = diag};
  shard_dir_lock lock = SHARD_DIR_LOCK_INIT;
  int code = 1;
  int st = run_setup(&r, msg);
  if (st != SHARD_OK) {
    code = st == SHARD_ERR_INPUT ? 2 : 1;
    goto done;
  }
  shard_system *sys = r.sys;
  if ((st = shard_mkdirs(opt->out_dir, msg)) != SHARD_OK) goto done;
  if ((st = run_lock_out_dir(&r, &lock, msg)) != SHARD_OK) goto done;
  snprintf(r.hist_tmp, sizeof r.hist_tmp, "%s/" HIST_PARTIAL, opt->out_dir);
  if ((st = run_write_provenance(&r, msg)) != SHARD_OK) goto done;
  if ((r.fields_interval > 0 || r.spacetime) && r.mops->fields_open) {
    if ((st = r.mops->fields_open(r.model, opt->out_dir, r.fields_interval > 0, r.spacetime, msg)) != SHARD_OK)
      goto done;
    r.fields_on = 1;
  }
  if (r.fields_on && r.fields_interval > 0 && (st = r.mops->fields_write(r.model, 0.0, msg)) != SHARD_OK) goto done;
  r.fields_next = r.fields_interval;
  if (r.probes) {
    if (r.continuing) { /* refused with checkpoints at set-up: a checkpoint of another case's run */
      st = shard_msg_set(msg, SHARD_ERR_INPUT, "output.probes: a run continued from a checkpoint cannot write probes");
      goto done;
    }
    if ((st = r.mops->probe_open(r.model, opt->out_dir, r.probe_stride, msg)) != SHARD_OK) goto done;
    r.probe_open = 1;
    r.probe_next = r.probe_from;
    if (r.probe_from <= 0.0) { /* the initial state is the first sample */
      if ((st = r.mops->probe_write(r.model, 0.0, msg)) != SHARD_OK) goto done;
      r.probe_next = r.probe_from + r.probe_interval, r.probe_k = 1;
    }
  }
  if (r.continuing) {
    const int32_t ndof_setup = sys->ndof; /* the restore may bring the DOFs inserted before the checkpoint */
    if ((st = run_checkpoint_restore(&r, msg)) != SHARD_OK) goto done;
    /* the restored rows (those inserted before the checkpoint), before the first step */
    if ((st = run_system_reserve(&r, msg)) != SHARD_OK) {
      shard_msg_prepend(msg, "restart at step %lld", (long long)r.k_start);
      goto done;
    }
    /* the integrator started on the set-up's topology: it rebuilds what
     * depends on it (moreau_jean: its band ordering and factor) for the
     * restored one, as after the insertions that made it */
    if ((r.info.flags & SHARD_MODEL_INSERTION) &&
        (st = shard_integrator_on_insert(r.iops, r.integ.self, sys, ndof_setup, msg)) != SHARD_OK) {
      shard_msg_prepend(msg, "restart at step %lld: integrator '%s'", (long long)r.k_start, r.integ.lp->desc->name);
      goto done;
    }
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
    run_history_header(&r);
    r.mops->measure(r.model, sys->u, r.gap);
    run_energies(&r, 1);
    if ((st = run_history_row(&r, 0, 0.0, 0, msg)) != SHARD_OK) goto done;
  }
  if (shard_diag_count(diag) > 0) { /* an error while resolving the case (out of memory, say) was recorded */
    st = shard_msg_set(msg, SHARD_ERR_INTERNAL, "the set-up reported errors (above); nothing run");
    goto done;
  }
  r.wall_setup = now_s() - wall0;
  int64_t steps = 0;
  r.loop_t0 = now_s();
  const double cpu0 = cpu_s();
  st = run_loop(&r, &steps, msg);
  r.wall_loop = r.wall_loop_prior + (now_s() - r.loop_t0);
  r.cpu_loop = cpu_s() - cpu0;
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
      run_history_error(&r, steps, (double)steps * r.dt, msg);
    goto done;
  }
  /* keep what was computed, also on failure */
  shard_msg io;
  const int hst = run_history_publish(&r, steps, &io); /* a history that failed to write stays partial */
  if (hst != SHARD_OK && st == SHARD_OK) st = shard_msg_set(msg, hst, "%s", io.text);
  if (r.fields_on && st == SHARD_OK && r.mops->fields_finish(r.model, &io) != SHARD_OK)
    st = shard_msg_set(msg, SHARD_ERR_IO, "%s", io.text);
  if (r.probe_open) { /* kept on failure too, like the history: the samples up to it */
    r.probe_open = 0;
    const int pst = r.mops->probe_close(r.model, 1, &io);
    if (pst != SHARD_OK && st == SHARD_OK) st = shard_msg_set(msg, pst, "%s", io.text);
  }
  /* the other outputs first: the summary's status says whether they were written */
  {
    const int st2 = r.mops->files(r.model, opt->out_dir, run_out_flags(&r), &io);
    if (st2 != SHARD_OK && st == SHARD_OK) st = shard_msg_set(msg, st2, "%s", io.text);
  }
  /* datapackage.json: the units and meaning of the CSVs beside it */
  const shard_model_outputs *mo = r.mops->outputs;
  if (shard_out_write_run_package(opt->out_dir, run_out_flags(&r), mo->history, mo->files, mo->n_files, &io) !=
          SHARD_OK &&
      st == SHARD_OK)
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
    const int sum = run_write_summary(&r, sf,
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
    if (shard_write_atomic_free(opt->out_dir, "summary.yaml", sbuf, slen, &io) != SHARD_OK) {
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
