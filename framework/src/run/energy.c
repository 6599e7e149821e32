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
void run_energy_balance(run *r, double E, int first) {
  const double G = r->coh_work - r->coh_rev;
  const double B = r->H + r->C_dis + r->D_num + G - r->W_ext - r->release_offset;
  if (first) r->E0 = E, r->H0 = r->H, r->B0 = B, r->E_init = E, r->G0 = G;
  r->energy_max = fmax(r->energy_max, fmax(E, fabs(r->W_ext)));
  const double scale = fmax(r->energy_max, 1e-300);
  r->drift = (B - r->B0) / scale;
  r->drift_max = fmax(r->drift_max, fabs(r->drift));
}

void run_energies(run *r, int first) {
  const double E = run_energy_state(r);
  if (first) {
    if (r->m->n_presc) shard_model_reactions(r->m, r->m->sys.u, r->reac);
  } else {
    energy_increments(r);
  }
  run_energy_balance(r, E, first);
}
