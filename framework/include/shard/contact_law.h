/* shard — contact-law plugins. Two families (docs/plugins.md §1):
 *  - impact laws (SHARD_CAP_IMPACT_LAW): a restitution coefficient per
 *    constraint, used by the nonsmooth integrators (NSN, MJ, CDL); constant,
 *    or a function of the kinematics (SHARD_CAP_VELOCITY_DEPENDENT);
 *  - force laws (SHARD_CAP_FORCE_LAW): a force and stiffness from the gap,
 *    added to the internal forces for explicit integrators (penalty). */
#ifndef SHARD_CONTACT_LAW_H
#define SHARD_CONTACT_LAW_H

#include <stdint.h>

#include "shard/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an impact law sees of constraints 0..n-1 (docs/plugins.md, impact laws):
 * the state at the start of the step the coefficients are used in. Gaps are
 * g = g0 + H u, so v_n = dg/dt: v_n < 0 approaches, v_n > 0 separates. */
typedef struct shard_impact_kinematics {
  uint32_t struct_size; /* sizeof(shard_impact_kinematics) */
  int32_t n;            /* constraints 0..n-1 */
  const double *v_n;    /* (H v)_i at the start of the step [m/s] */
  const double *gap;    /* g_i at the start of the step [m], negative = penetration */
} shard_impact_kinematics;

typedef struct shard_contact_law_ops {
  int (*create)(const shard_params *params, const shard_scales *scales, void **out_self, shard_msg *msg);
  void (*destroy)(void *self); /* accepts NULL */
  /* impact family: restitution e in [0, 1] of constraints 0..k->n-1. Called
   * once at set-up (k->n = every constraint the model can have; rows that do
   * not exist yet read v_n = 0 and gap = 0, the state of a fresh cohesive
   * interface), and before every step when the law has
   * SHARD_CAP_VELOCITY_DEPENDENT (k->n = the current constraints). Never
   * allocates. */
  void (*restitution)(const void *self, const shard_impact_kinematics *k, double *out_e);
  /* force family, batch over n gaps g (negative = penetration):
   * out_f >= 0 the repulsive force [N], out_k = d out_f / d(-g) [N/m],
   * out_energy the reversible energy [J]. Smooth in g except where the law
   * says otherwise (its README). */
  void (*force)(const void *self, int32_t n, const double *g, double *out_f, double *out_k, double *out_energy);
  /* force family: the largest stiffness out_k can take [N/m], for the stable step */
  double (*max_stiffness)(const void *self);
} shard_contact_law_ops;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
