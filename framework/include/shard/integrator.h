/* shard — time integrator plugins.
 *
 * caps: the contact-law family it takes (SHARD_CAP_IMPACT_LAW or
 * SHARD_CAP_FORCE_LAW), SHARD_CAP_NEEDS_LCP, SHARD_CAP_TOPOLOGY when it
 * survives insertions (on_insert). n_aux: how many per-DOF vectors of private
 * state it keeps in sys->aux (copied on insertion, checkpointed). */
#ifndef SHARD_INTEGRATOR_H
#define SHARD_INTEGRATOR_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "shard/plugin.h"
#include "shard/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Helpers every integrator needs (inline: plugins link nothing of the host). */

/* H_row . x for one constraint row */
static inline double shard_row_dot(const shard_csr *h, int32_t row, const double *x) {
  double s = 0.0;
  for (int32_t k = h->rowptr[row]; k < h->rowptr[row + 1]; ++k) s += h->val[k] * x[h->colind[k]];
  return s;
}

/* 1 when every x[i] is finite: one pass, no branch per entry, four
 * independent sums so that the loop vectorises (a NaN or inf in x makes its
 * sum non-finite; finite sums that overflow are rechecked entry by entry) */
static inline int shard_all_finite(const double *x, int32_t n) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) s0 += fabs(x[i]), s1 += fabs(x[i + 1]), s2 += fabs(x[i + 2]), s3 += fabs(x[i + 3]);
  for (; i < n; ++i) s0 += fabs(x[i]);
  if (isfinite(s0) && isfinite(s1) && isfinite(s2) && isfinite(s3)) return 1;
  for (i = 0; i < n; ++i)
    if (!isfinite(x[i])) return 0;
  return 1;
}

/* 1 when x is not a finite number (NaN or ±inf). Branch-free, so a loop that
 * computes a vector can OR it into a flag as it goes and skip the separate
 * pass of shard_all_finite: `bad |= shard_not_finite(x[i]);` */
static inline int shard_not_finite(double x) { return !(fabs(x) <= DBL_MAX); }

/* setup's check of the sizes the host hands over: 1 <= ndof <= ndof_max and
 * 0 <= ncon <= ncon_max. SHARD_OK, or SHARD_ERR_INPUT with the message. */
static inline int shard_integrator_check_system(const shard_system *sys, shard_msg *msg) {
  if (sys->ndof_max < sys->ndof || sys->ncon_max < sys->ncon || sys->ndof_max < 1 || sys->ncon_max < 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "inconsistent system sizes (ndof %d of %d, ncon %d of %d)",
                         (int)sys->ndof, (int)sys->ndof_max, (int)sys->ncon, (int)sys->ncon_max);
  return SHARD_OK;
}

/* The step's sizes against those given at setup: SHARD_OK, or
 * SHARD_ERR_INTERNAL with the message (setup_done: the plugin's own flag). */
static inline int shard_integrator_check_sizes(int setup_done, const shard_system *sys, int32_t ndof_max,
                                               int32_t ncon_max, shard_msg *msg) {
  if (!setup_done) return shard_msg_set(msg, SHARD_ERR_INTERNAL, "step before setup");
  if (sys->ndof > ndof_max || sys->ncon > ncon_max)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL,
                         "system has %d DOFs and %d constraints, more than the %d and %d given at setup",
                         (int)sys->ndof, (int)sys->ncon, (int)ndof_max, (int)ncon_max);
  return SHARD_OK;
}

/* The LCP's warm start: p[j] = the last step's impulse on constraint rows[j]
 * (clipped at zero), or 0 when the host keeps none. */
static inline void shard_integrator_warm_start(const shard_system *sys, const int32_t *rows, int32_t na, double *p) {
  for (int32_t j = 0; j < na; ++j) p[j] = sys->impulse ? fmax(sys->impulse[rows[j]], 0.0) : 0.0;
}

/* A step's contact outcome for the host: sys->impulse holds p[j] on
 * constraint rows[j] and zero elsewhere (the next step's warm start and the
 * host's contact dissipation read it), and stats->n_active = na. */
static inline void shard_integrator_publish_impulses(shard_system *sys, const int32_t *rows, const double *p,
                                                     int32_t na) {
  if (sys->impulse) {
    memset(sys->impulse, 0, (size_t)sys->ncon * sizeof(double));
    for (int32_t j = 0; j < na; ++j) sys->impulse[rows[j]] = p[j];
  }
  if (sys->stats) sys->stats->n_active = na;
}

typedef struct shard_integrator_ops {
  int (*create)(const shard_params *params, const shard_scales *scales, void **out_self, shard_msg *msg);
  /* number of per-DOF aux vectors this instance needs */
  uint32_t (*n_aux)(const void *self);
  /* allocate for sys->ndof_max / ncon_max; no allocation after this */
  int (*setup)(void *self, shard_system *sys, shard_msg *msg);
  /* sys holds u0, v0 and a0 = M^-1 f(u0) (host-computed); initialise aux */
  int (*start)(void *self, shard_system *sys, double dt, shard_msg *msg);
  /* advance sys from sys->t to sys->t + dt; never allocates */
  int (*step)(void *self, shard_system *sys, double dt, shard_msg *msg);
  /* DOFs [first, sys->ndof) were just inserted, state and aux copied from
   * their source DOFs, and K's pattern may have changed; rebuild anything
   * derived (optional slot, required when SHARD_CAP_TOPOLOGY is set). Called
   * between steps, never inside one: it may allocate (moreau_jean grows its
   * band factor here). The host also calls it once when a run continues
   * from a checkpoint of a model with insertion, after restoring the
   * inserted topology (then first is the set-up's ndof, the state and aux
   * those of the checkpoint) */
  int (*on_insert)(void *self, shard_system *sys, int32_t first, shard_msg *msg);
  void (*destroy)(void *self); /* accepts NULL */
} shard_integrator_ops;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
