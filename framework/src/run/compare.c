/* host: the run against the analytic reference of its model (ball, bar impact): set-up and the
 * error sums of each step (see compare.h). */
#include "run/compare.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>



/* ---- references -------------------------------------------------------------- */

int run_setup_reference(run *r, shard_msg *msg) {
  const char *type = shard_case_string(r->c, "reference.type");
  const shard_model *m = r->m;
  double e = 0.0;
  if (r->impact.self) e = m->restitution[0];
  int want_ball = 0, want_bar = 0;
  if (!type || strcmp(type, "auto") == 0) {
    want_ball = m->kind == SHARD_MODEL_PARTICLE;
    want_bar = m->kind == SHARD_MODEL_BAR && m->nwall == 1 && m->n_presc == 0;
  } else if (strcmp(type, "ball") == 0) {
    if (m->kind != SHARD_MODEL_PARTICLE)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "reference.type 'ball' needs model.type 'particle'");
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

void run_reference_step(run *r, double t) {
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
