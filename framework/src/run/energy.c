/* host: the energies of a run (docs/theory.md §12): state energies, step increments, the balance
 * and its drift (see energy.h). */
#include "run/energy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>



/* ---- energies (docs/theory.md §12) -------------------------------------------------------- */

/* state energies at the current state: kinetic, elastic, penalty, cohesive, H */
double run_energy_state(run *r) {
  shard_model_energy e;
  r->mops->energy(r->model, &e);
  r->kinetic = e.kinetic, r->elastic = e.elastic, r->penalty = e.penalty;
  r->coh_rev = e.cohesive_reversible, r->coh_work = e.cohesive_work;
  const double aMa = r->energy_form == SHARD_ENERGY_PLAIN ? 0.0 : r->aMa_known ? r->aMa_value : run_energy_aMa(r);
  r->aMa_known = 0;
  const double E = r->kinetic + r->elastic + r->penalty + r->coh_rev;
  /* the stored energy of the scheme: H = E - dt^2/8 a^T M a (Newmark forms) or E */
  r->H = r->energy_form == SHARD_ENERGY_PLAIN ? E : E - r->dt * r->dt / 8.0 * aMa;
  return E;
}

/* -p^T H (v_prev + v) / 2 over rows 0..n-1, the rows in order and each
 * row's entries in order. A row without impulse (p = +-0) adds nothing: it
 * is computed like the others and its term selected away rather than
 * branched over (the active rows change nearly every step, so a branch on p
 * mispredicts), which leaves the sum bit for bit that of skipping the row:
 * dc starts at +0 and x - 0 = x for every x but -0, which dc never is (a
 * difference of two equal numbers is +0). */
static double contact_work(const shard_csr *h, const double *restrict p, const double *restrict vp,
                           const double *restrict v, int32_t n) {
  const int32_t *restrict rowptr = h->rowptr, *restrict col = h->colind;
  const double *restrict val = h->val;
  double dc = 0;
  for (int32_t i = 0; i < n; ++i) {
    double hv = 0;
    for (int32_t e = rowptr[i]; e < rowptr[i + 1]; ++e) hv += val[e] * 0.5 * (vp[col[e]] + v[col[e]]);
    double t = p[i] * hv;
    uint64_t bits;
    memcpy(&bits, &t, sizeof bits);
    bits &= -(uint64_t)(p[i] != 0.0); /* +0 for a row without impulse, by a mask (a select compiles to a branch) */
    memcpy(&t, &bits, sizeof t);
    dc -= t;
  }
  return dc;
}

/* increments of the step on the DOFs and rows the step was computed on, so
 * before an insertion renumbers them (a split gives a row's side a new copy,
 * whose v_prev and u_prev the step never saw): the body force's work and the
 * contact dissipation -p^T H (v_n + v_{n+1}) / 2 */
void run_energy_step(run *r) {
  const shard_system *sys = r->sys;
  const shard_model_info *mi = &r->info;
  const double *u = sys->u, *v = sys->v;
  double dw = 0, dc = 0;
  if (r->fext_any) /* else fext = 0 adds exact zeros: dw stays +0 */
    for (int32_t d = 0; d < sys->ndof; ++d) dw += mi->fext[d] * (u[d] - r->u_prev[d]);
  r->dw_last = dw;
  if (sys->stats->energy_form != SHARD_ENERGY_NEWMARK) { /* the scheme's own contact work */
    dc = -sys->stats->contact_work;
    r->D_num += sys->stats->numerical_dissipation;
  } else if (r->impulses) { /* force-law schemes publish no impulses: their contact forces are in the stored energy */
    dc = contact_work(sys->h, sys->impulse, r->v_prev, v, sys->ncon);
  }
  r->C_dis += dc;
}

/* the rest of the step's external work (after run_energy_step and the
 * insertion): the reactions on prescribed DOFs by trapezoids */
static void energy_increments(run *r) {
  const shard_system *sys = r->sys;
  const shard_model_info *mi = &r->info;
  const double *u = sys->u;
  double dw = r->dw_last;
  if (mi->n_presc && !r->mops->released(r->model)) {
    double reac[2];
    r->mops->reactions(r->model, u, reac);
    for (int32_t i = 0; i < mi->n_presc; ++i) {
      const int32_t d = mi->presc_dof[i];
      dw += 0.5 * (r->reac[i] + reac[i]) * (u[d] - r->u_prev[d]);
      r->reac[i] = reac[i];
    }
  }
  r->dw_last = dw;
  r->W_ext += dw;
  r->W_abs += fabs(dw);
}

/* a^T M a over the DOFs, for the jump of H = E - dt^2/8 a^T M a at an insertion */
double run_energy_aMa(const run *r) {
  const shard_system *sys = r->sys;
  double aMa = 0;
  for (int32_t d = 0; d < sys->ndof; ++d) aMa += sys->mass[d] * sys->a[d] * sys->a[d];
  return aMa;
}

/* the balance H + C_dis + D_num + G - W_ext (docs/theory.md §12) and its relative drift */
void run_energy_balance(run *r, double E, int first) {
  const double G = r->coh_work - r->coh_rev;
  const double B = r->H + r->C_dis + r->D_num + G - r->W_ext - r->release_offset - r->insert_offset;
  if (first) r->E0 = E, r->H0 = r->H, r->B0 = B, r->E_init = E, r->G0 = G;
  r->energy_max = fmax(r->energy_max, fmax(E, fabs(r->W_ext)));
  const double scale = fmax(r->energy_max, 1e-300);
  r->drift = (B - r->B0) / scale;
  r->drift_max = fmax(r->drift_max, fabs(r->drift));
}

void run_energies(run *r, int first) {
  const double E = run_energy_state(r);
  if (first) {
    if (r->info.n_presc) r->mops->reactions(r->model, r->sys->u, r->reac);
  } else {
    energy_increments(r);
  }
  run_energy_balance(r, E, first);
}
