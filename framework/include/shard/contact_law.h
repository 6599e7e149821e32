/* shard — contact-law plugins. Two families (docs/plugins.md §1):
 *  - impact laws (SHARD_CAP_IMPACT_LAW): a restitution coefficient per
 *    constraint, used by the nonsmooth integrators (NSN, MJ, CDL);
 *  - force laws (SHARD_CAP_FORCE_LAW): a force and stiffness from the gap,
 *    added to the internal forces for explicit integrators (penalty). */
#ifndef SHARD_CONTACT_LAW_H
#define SHARD_CONTACT_LAW_H

#include <stdint.h>

#include "shard/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct shard_contact_law_ops {
  int (*create)(const shard_params *params, const shard_model_scales *scales, void **out_self, shard_msg *msg);
  void (*destroy)(void *self); /* accepts NULL */
  /* impact family: restitution e in [0, 1] of constraints 0..n-1 */
  void (*restitution)(const void *self, int32_t n, double *out_e);
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
