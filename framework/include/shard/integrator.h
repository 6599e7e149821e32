/* shard — time integrator plugins.
 *
 * caps: the contact-law family it takes (SHARD_CAP_IMPACT_LAW or
 * SHARD_CAP_FORCE_LAW), SHARD_CAP_NEEDS_LCP, SHARD_CAP_TOPOLOGY when it
 * survives insertions (on_insert). n_aux: how many per-DOF vectors of private
 * state it keeps in sys->aux (copied on insertion, checkpointed). */
#ifndef SHARD_INTEGRATOR_H
#define SHARD_INTEGRATOR_H

#include <stdint.h>

#include "shard/plugin.h"
#include "shard/system.h"

typedef struct shard_integrator_ops {
  int (*create)(const shard_params *params, const shard_model_scales *scales, void **out_self, shard_msg *msg);
  /* number of per-DOF aux vectors this instance needs */
  uint32_t (*n_aux)(const void *self);
  /* allocate for sys->ndof_max / ncon_max; no allocation after this */
  int (*setup)(void *self, shard_system *sys, shard_msg *msg);
  /* sys holds u0, v0 and a0 = M^-1 f(u0) (host-computed); initialise aux */
  int (*start)(void *self, shard_system *sys, double dt, shard_msg *msg);
  /* advance sys from sys->t to sys->t + dt; never allocates */
  int (*step)(void *self, shard_system *sys, double dt, shard_msg *msg);
  /* DOFs [first, sys->ndof) were just inserted, state and aux copied from
   * their source DOFs; rebuild anything derived (optional slot, required
   * when SHARD_CAP_TOPOLOGY is set) */
  int (*on_insert)(void *self, shard_system *sys, int32_t first, shard_msg *msg);
  void (*destroy)(void *self); /* accepts NULL */
} shard_integrator_ops;

#endif
