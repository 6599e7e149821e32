/* host: analytic references and error norms (docs/reproduction.md). */
#ifndef SHARD_REFERENCE_H
#define SHARD_REFERENCE_H

#include <stdint.h>
#include <stdio.h>

typedef enum shard_reference_kind { SHARD_REF_NONE = 0, SHARD_REF_BALL, SHARD_REF_BAR_IMPACT } shard_reference_kind;

/* Bouncing ball: drop from u0 (above the floor) with v0 under gravity g,
 * Newton restitution e; impacts t_k, Zeno limit, rest afterwards. Evaluated
 * at increasing times in O(1) amortised. */
typedef struct shard_ball_ref {
  double u0, v0, g, e, floor;
  double t1, V, t_zeno;
  /* cursor: current flight k, its start time and take-off speed */
  int64_t k;
  double tk, vk;
} shard_ball_ref;

void shard_ball_ref_init(shard_ball_ref *r, double u0, double v0, double g, double e, double floor_x);
/* position (absolute) and velocity at t >= previous call's t */
void shard_ball_ref_eval(shard_ball_ref *r, double t, double *u, double *v);

/* Impacting bar (1D waves): bar of length L, wave speed c, uniform velocity
 * v0 toward a rigid wall at distance gap; the contact node stops during
 * t_b = 2L/c with the force F0 = rho c |v0| A, then the bar leaves at -v0. */
typedef struct shard_bar_ref {
  double v0, gap, t_contact, t_b, F0;
} shard_bar_ref;

void shard_bar_ref_init(shard_bar_ref *r, double L, double c, double rho, double A, double v0, double gap);
/* contact-node displacement, velocity and contact force magnitude at t */
void shard_bar_ref_eval(const shard_bar_ref *r, double t, double *u, double *v, double *f);

#endif
