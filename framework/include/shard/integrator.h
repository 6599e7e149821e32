/* shard — time integrator plugins.
 *
 * caps: the contact-law family it takes (SHARD_CAP_IMPACT_LAW or
 * SHARD_CAP_FORCE_LAW), SHARD_CAP_NEEDS_LCP, SHARD_CAP_TOPOLOGY when it
 * survives insertions (on_insert). n_aux: how many per-DOF vectors of private
 * state it keeps in sys->aux (copied on insertion, checkpointed).
 *
 * Storage: an integrator without the optional `reserve` slot allocates in
 * setup for sys->ndof_max DOFs and sys->ncon_max rows, everything insertions
 * could ever need. One with `reserve` allocates in setup for the sizes
 * present then (sys->ndof, sys->ncon); the host calls reserve between steps
 * (never inside one) before a step whose sizes exceed what it was last given,
 * with capacities that grow geometrically (amortised) and never exceed
 * ndof_max / ncon_max. Either way step() never allocates. */
#ifndef SHARD_INTEGRATOR_H
#define SHARD_INTEGRATOR_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
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

/* reserve's check of the capacities the host asks for (sys->ndof <= ndof_cap
 * <= sys->ndof_max, sys->ncon <= ncon_cap <= sys->ncon_max, after setup:
 * setup_done, the plugin's own flag), and what to grow to: *ndof_cap and
 * *ncon_cap raised to the plugin's present capacities have_ndof, have_ncon
 * (reserve never shrinks). SHARD_OK, or SHARD_ERR_INTERNAL with the message;
 * nothing to grow when both come back equal to what the plugin has. */
static inline int shard_integrator_reserve_caps(int setup_done, const shard_system *sys, int32_t have_ndof,
                                                int32_t have_ncon, int32_t *ndof_cap, int32_t *ncon_cap,
                                                shard_msg *msg) {
  if (!setup_done) return shard_msg_set(msg, SHARD_ERR_INTERNAL, "reserve before setup");
  if (*ndof_cap < sys->ndof || *ncon_cap < sys->ncon || *ndof_cap > sys->ndof_max || *ncon_cap > sys->ncon_max)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL,
                         "reserve for %d DOFs and %d constraints, outside [%d, %d] and [%d, %d]", (int)*ndof_cap,
                         (int)*ncon_cap, (int)sys->ndof, (int)sys->ndof_max, (int)sys->ncon, (int)sys->ncon_max);
  if (*ndof_cap < have_ndof) *ndof_cap = have_ndof;
  if (*ncon_cap < have_ncon) *ncon_cap = have_ncon;
  return SHARD_OK;
}

/* Storage for `reserve` (the plugin allocates and frees it): a new block of
 * kd per-DOF arrays of nd doubles followed by kc per-row arrays of nc doubles
 * (and one spare), each array's first nd0 / nc0 values copied from `old`
 * (laid out the same way for nd0, nc0; NULL: nothing to copy), the rest zero.
 * NULL when out of memory (old untouched). */
static inline double *shard_integrator_block_grow(const double *old, size_t kd, size_t nd0, size_t nd, size_t kc,
                                                  size_t nc0, size_t nc) {
  double *b = (double *)calloc(kd * nd + kc * nc + 1, sizeof(double));
  if (!b || !old) return b;
  for (size_t i = 0; i < kd; ++i) memcpy(b + i * nd, old + i * nd0, nd0 * sizeof(double));
  for (size_t j = 0; j < kc; ++j) memcpy(b + kd * nd + j * nc, old + kd * nd0 + j * nc0, nc0 * sizeof(double));
  return b;
}

/* A new array of n elements of `size` bytes (and one spare), its first n0
 * copied from `old` (may be NULL with n0 = 0), the rest zero; NULL when out
 * of memory (old untouched). */
static inline void *shard_integrator_array_grow(const void *old, size_t n0, size_t n, size_t size) {
  void *p = calloc(n + 1, size);
  if (p && old && n0) memcpy(p, old, n0 * size);
  return p;
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
  /* allocate for sys->ndof_max / ncon_max (with `reserve`: for sys->ndof /
   * ncon); no allocation after this but in reserve */
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
  /* Optional (appended slot; the host reads it only when the plugin's
   * ops_size covers it). Grow the per-DOF and per-row storage to hold
   * ndof_cap DOFs and ncon_cap constraint rows (sys->ndof <= ndof_cap <=
   * sys->ndof_max, sys->ncon <= ncon_cap <= sys->ncon_max), keeping every
   * value it holds; called by the host between steps, after setup and before
   * start, after insertions and after a restart, whenever the sizes outgrow
   * the last capacities. Out of memory: SHARD_ERR_NOMEM, the old storage
   * left as it was. */
  int (*reserve)(void *self, const shard_system *sys, int32_t ndof_cap, int32_t ncon_cap, shard_msg *msg);
} shard_integrator_ops;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
