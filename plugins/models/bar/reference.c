#include "reference.h"

#include <math.h>

void shard_ball_ref_init(shard_ball_ref *r, double u0, double v0, double g, double e, double floor_x) {
  *r = (shard_ball_ref){.u0 = u0, .v0 = v0, .g = g, .e = e, .floor = floor_x};
  const double h = u0 - floor_x;
  r->V = sqrt(v0 * v0 + 2.0 * g * h);
  r->t1 = g > 0 ? (v0 + r->V) / g : INFINITY;
  r->t_zeno = e < 1.0 ? r->t1 + 2.0 * e * r->V / (g * (1.0 - e)) : INFINITY;
  r->k = 0;
  r->tk = r->t1;
  r->vk = e * r->V;
}

void shard_ball_ref_eval(shard_ball_ref *r, double t, double *u, double *v) {
  if (t < r->t1 || !(r->g > 0)) {
    *u = r->u0 + r->v0 * t - 0.5 * r->g * t * t;
    *v = r->v0 - r->g * t;
    return;
  }
  if (t >= r->t_zeno || r->vk == 0.0) {
    *u = r->floor, *v = 0.0;
    return;
  }
  if (r->e == 1.0) { /* periodic: jump straight to the current flight */
    const double period = 2.0 * r->V / r->g;
    const double n = floor((t - r->t1) / period);
    const double tk = r->t1 + n * period, s = t - tk;
    *u = r->floor + r->V * s - 0.5 * r->g * s * s;
    *v = r->V - r->g * s;
    return;
  }
  for (;;) {
    const double flight = 2.0 * r->vk / r->g;
    if (t < r->tk + flight || flight == 0.0) break;
    r->tk += flight;
    r->vk *= r->e;
    r->k++;
  }
  const double s = t - r->tk;
  *u = r->floor + r->vk * s - 0.5 * r->g * s * s;
  *v = r->vk - r->g * s;
}

void shard_bar_ref_init(shard_bar_ref *r, double L, double c, double rho, double A, double v0, double gap) {
  r->v0 = v0;
  r->gap = gap;
  r->t_contact = v0 != 0.0 ? gap / fabs(v0) : INFINITY;
  r->t_b = 2.0 * L / c;
  r->F0 = rho * c * fabs(v0) * A;
}

void shard_bar_ref_eval(const shard_bar_ref *r, double t, double *u, double *v, double *f) {
  const double dir = r->v0 < 0 ? -1.0 : 1.0;
  if (t < r->t_contact) {
    *u = r->v0 * t, *v = r->v0, *f = 0.0;
  } else if (t <= r->t_contact + r->t_b) {
    *u = dir * r->gap, *v = 0.0, *f = r->F0;
  } else {
    *u = dir * r->gap - r->v0 * (t - r->t_contact - r->t_b), *v = -r->v0, *f = 0.0;
  }
}
