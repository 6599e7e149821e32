/* host: the time loop: one integrator step, commit and insertion, energies, history rows, stopping
 * rules, checkpoints (see loop.h). */
#include "run/loop.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/energy.h"
#include "run/history.h"
#include "run/restart.h"
#include "run/system.h"


/* ---- progress -------------------------------------------------------------------- */

static void progress(run *r, int64_t step, double t0, int final) {
  const double el = now_s() - t0;
  const double rate = el > 0 ? (double)(step - r->k_start) / el : 0;
  shard_run_progress p = {.step = step, .nsteps = r->nsteps, .t = (double)step * r->dt, .rate = rate,
                          .eta = rate > 0 ? (double)(r->nsteps - step) / rate : 0, .final = final};
  r->opt->on_progress(r->opt->progress_ctx, &p);
}

/* ---- the time loop ---------------------------------------------------------------- */

/* The impact law's restitution of constraints 0..n-1 into the run's
 * coefficients, from the kinematics of the current state (the start of the
 * coming step): v_n = H v and gap = g(u) for the existing constraints, 0 and
 * 0 for rows not inserted yet (n up to ncon_max). O(ncon + nnz(H)), no
 * allocation. */
void run_impact_restitution(run *r, const shard_contact_law_ops *ops, int32_t n) {
  shard_system *sys = r->sys;
  const int32_t nc = sys->ncon < n ? sys->ncon : n;
  sys->ops->gaps(sys, sys->u, r->kin_gap);
  for (int32_t i = 0; i < nc; ++i) r->kin_vn[i] = shard_row_dot(sys->h, i, sys->v);
  for (int32_t i = nc; i < n; ++i) r->kin_vn[i] = 0.0, r->kin_gap[i] = 0.0;
  const shard_impact_kinematics k = {.struct_size = sizeof k, .n = n, .v_n = r->kin_vn, .gap = r->kin_gap};
  shard_contact_law_restitution(ops, r->impact.self, &k, r->restitution);
}

/* 1 when the state u, v, a is finite, else 0 with *what naming the first
 * non-finite entry. With out_aMa, a^T M a of this state in the same pass
 * (summed in DOF order, the sum of run_energy_aMa bit for bit): that sum's
 * chain of dependent additions is the pass's cost, and the check rides in
 * its shadow instead of taking three passes of their own. The check is a
 * second sum, of |u| + |v| + |a| (non-finite when an entry is; a finite
 * state whose sum overflows is rechecked entry by entry), so that the loop
 * vectorises. */
static int check_finite(const shard_system *sys, const char **what, double *out_aMa) {
  if (out_aMa) {
    const double *restrict u = sys->u, *restrict v = sys->v, *restrict a = sys->a, *restrict mass = sys->mass;
    double aMa = 0, size = 0;
    for (int32_t d = 0; d < sys->ndof; ++d) {
      size += fabs(u[d]) + fabs(v[d]) + fabs(a[d]);
      aMa += mass[d] * a[d] * a[d];
    }
    *out_aMa = aMa;
    if (isfinite(size)) return 1;
  } else if (shard_all_finite(sys->u, sys->ndof) && shard_all_finite(sys->v, sys->ndof) &&
             shard_all_finite(sys->a, sys->ndof)) {
    return 1;
  }
  for (int32_t d = 0; d < sys->ndof; ++d) { /* name the first non-finite entry, DOF by DOF */
    if (!isfinite(sys->u[d])) return *what = "displacement", 0;
    if (!isfinite(sys->v[d])) return *what = "velocity", 0;
    if (!isfinite(sys->a[d])) return *what = "acceleration", 0;
  }
  return 1;
}

/* Release the prescribed ends (free expansion, docs/theory.md §13): their accelerations
 * change from imposed to computed, which makes the algorithmic energy jump;
 * the jump is carried by an offset recorded here (docs/theory.md §12). */
static int release(run *r, int64_t k, double t, shard_msg *msg) {
  shard_system *sys = r->sys;
  const shard_model_info *mi = &r->info;
  const double H_before = r->H;
  r->mops->release(r->model);
  double *f = r->u_prev; /* scratch: the previous state is no longer needed this step */
  int st = sys->ops->force(sys, t, sys->u, f, msg);
  if (st != SHARD_OK) return st;
  for (int32_t i = 0; i < mi->n_presc; ++i) {
    const int32_t d = mi->presc_dof[i];
    sys->a[d] = sys->minv[d] * f[d];
  }
  const double E = run_energy_state(r);
  r->release_offset += r->H - H_before;
  run_energy_balance(r, E, 0);
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

int run_loop(run *r, int64_t *out_steps, shard_msg *msg) {
  shard_system *sys = r->sys;
  const shard_model_ops *mo = r->mops;
  void *model = r->model;
  const shard_model_info *mi = &r->info;
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
      memcpy(r->u_prev, sys->u, (size_t)sys->ndof * sizeof(double));
    else
      for (int32_t i = 0; i < mi->n_presc; ++i) r->u_prev[mi->presc_dof[i]] = sys->u[mi->presc_dof[i]];
    if (r->impulses) memcpy(r->v_prev, sys->v, (size_t)sys->ndof * sizeof(double));
    /* sys->impulse keeps the last step's impulses: integrators warm-start
     * their LCP from them and overwrite every entry */
    memset(sys->stats, 0, sizeof *sys->stats);
    shard_contact_set_step(r->contact, k, t_prev);
    if (r->impact_vd) run_impact_restitution(r, r->impact_vd, sys->ncon); /* e from this step's pre-impact state */
    st = shard_integrator_step(r->iops, r->integ.self, sys, r->dt, msg);
    if (st != SHARD_OK) {
      shard_msg_prepend(msg, "step %lld (t = %.9g s): integrator '%s'", (long long)k, t, r->integ.lp->desc->name);
      beyond_stable_hint(r, msg);
      st = SHARD_ERR_NUMERIC;
      break;
    }
    sys->t = t;
    const char *what;
    /* a^T M a of the state the step computed, for H's jump at an insertion
     * (docs/theory.md §12): neither commit nor run_energy_step changes a or
     * M, so it is that of the state the insertion starts from */
    const int insertions = (mi->flags & SHARD_MODEL_INSERTION) != 0;
    double aMa_before = 0.0;
    if (!check_finite(sys, &what, insertions ? &aMa_before : NULL)) {
      st = shard_msg_set(msg, SHARD_ERR_NUMERIC, "step %lld (t = %.9g s): non-finite %s", (long long)k, t, what);
      break;
    }
    if (k == 1 && sys->stats->energy_form == SHARD_ENERGY_PLAIN) { /* the balance's origin in the scheme's form */
      r->energy_form = SHARD_ENERGY_PLAIN;
      r->H0 = r->E_init;
      r->B0 = r->E_init + r->G0;
    }
    mo->commit(model);
    run_energy_step(r);
    /* a model may set new accelerations at an insertion (tri2d: M^-1 f(u)
     * of the new topology): H = E - dt^2/8 a^T M a jumps by as much, which
     * the balance carries as it does a release's (docs/theory.md §12) */
    const int newmark_h = insertions && r->energy_form != SHARD_ENERGY_PLAIN;
    int32_t first_new;
    const int32_t inserted = mo->insert(model, &first_new);
    if (inserted < 0) {
      st = shard_msg_set(msg, SHARD_ERR_NOMEM,
                         "step %lld (t = %.9g s): model '%s': out of memory growing its storage for this step's new "
                         "interfaces (none inserted)",
                         (long long)k, t, mi->name);
      break;
    }
    if (inserted > 0 && newmark_h) r->insert_offset -= r->dt * r->dt / 8.0 * (run_energy_aMa(r) - aMa_before);
    if (inserted == 0 && newmark_h) r->aMa_known = 1, r->aMa_value = aMa_before; /* the energies' pass reuses it */
    if (inserted > 0) {
      shard_contact_topology_changed(r->contact);
      /* storage for the new rows, grown here between steps, never inside one */
      if ((st = run_system_reserve(r, msg)) != SHARD_OK) {
        shard_msg_prepend(msg, "step %lld (t = %.9g s): after %d insertions", (long long)k, t, (int)inserted);
        break;
      }
    }
    if (inserted > r->max_inserted) r->max_inserted = inserted, r->max_inserted_time = t;
    if (inserted > 0 && (st = shard_integrator_on_insert(r->iops, r->integ.self, sys, first_new, msg)) != SHARD_OK) {
      shard_msg_prepend(msg, "step %lld (t = %.9g s): integrator '%s': after %d insertions", (long long)k, t,
                        r->integ.lp->desc->name, (int)inserted);
      st = SHARD_ERR_NUMERIC;
      break;
    }
    mo->measure(model, sys->u, r->gap);
    if (sys->struct_size > offsetof(shard_system, force_at_commit)) sys->force_at_commit = 0; /* a claim per step */
    run_energies(r, 0);
    if (mi->n_presc && !mo->released(model) &&
        ((r->release_mode == 1 && r->dw_last < 0.0) || (r->release_mode == 2 && t >= r->release_time - 1e-12 * r->dt) ||
         (r->release_mode == 3 && inserted > 0))) {
      if ((st = release(r, k, t, msg)) != SHARD_OK) break;
    }
    /* the deepest penetration; the violated gaps counted in the same pass when
     * the integrator left its active-set count to the host */
    const int count = sys->stats->n_active == SHARD_N_ACTIVE_VIOLATED_GAPS;
    int32_t violated = 0;
    for (int32_t i = 0; i < sys->ncon; ++i) {
      violated += r->gap[i] < 0.0;
      if (-r->gap[i] > r->max_penetration) r->max_penetration = -r->gap[i], r->max_penetration_step = t;
    }
    if (count) sys->stats->n_active = violated;
    const shard_step_stats *s = sys->stats;
    r->lcp_iterations += s->lcp_iterations;
    r->lcp_blocks += s->lcp_blocks;
    r->lcp_fallbacks += s->lcp_fallbacks;
    r->lcp_res_max = fmax(r->lcp_res_max, s->lcp_residual);
    if (s->lcp_max_block > r->max_block) r->max_block = s->lcp_max_block;
    if (s->n_active > r->max_active) r->max_active = s->n_active;
    if (s->n_active > 0) r->contact_steps++;
    mo->reference_step(model, t);
    const int event = s->n_active != r->prev_active || inserted > 0 || r->release_step == k;
    r->prev_active = s->n_active;
    int due = 0;
    if (r->interval > 0) {
      if (t >= r->next_out - 1e-12 * r->dt) due = 1, r->next_out += r->interval;
    } else {
      due = k % r->every == 0;
    }
    const int written = due || k == r->nsteps || (event && event_rows);
    if (written && (st = run_history_row(r, k, t, event, msg)) != SHARD_OK) break;
    if (r->fields_on && r->fields_interval > 0 && t >= r->fields_next - 1e-12 * r->dt) {
      r->fields_next += r->fields_interval;
      if ((st = mo->fields_write(model, t, msg)) != SHARD_OK) {
        shard_msg_prepend(msg, "step %lld (t = %.9g s)", (long long)k, t);
        break;
      }
    }
    if (r->probe_open && t >= r->probe_next - 1e-12 * r->dt && r->probe_next <= r->probe_to + 1e-12 * r->dt) {
      r->probe_next = r->probe_from + (double)++r->probe_k * r->probe_interval;
      if ((st = mo->probe_write(model, t, msg)) != SHARD_OK) {
        shard_msg_prepend(msg, "step %lld (t = %.9g s): probes", (long long)k, t);
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
        if (!written) st = run_history_row(r, k, t, 1, msg);
        ++k;
        break;
      }
    }
    if (r->checkpoint_every > 0 && k % r->checkpoint_every == 0 && k < r->nsteps &&
        (st = run_checkpoint_write(r, k, msg)) != SHARD_OK)
      break;
    if (k < r->nsteps && r->opt->stop && *r->opt->stop) { /* a signal: stop here, resumable */
      r->stopped = 1;
      if (r->checkpoint_every > 0) {
        if (k % r->checkpoint_every != 0) st = run_checkpoint_write(r, k, msg);
      } else if (!written) {
        st = run_history_row(r, k, t, 1, msg);
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
