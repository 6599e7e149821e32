/* shard — traction–separation laws (cohesive interfaces), batch evaluation.
 * Per interface the host stores sigma_c and delta_c (effective values fixed at
 * insertion) and a history (delta_max); the law evaluates arrays of
 * interfaces in one call, without per-interface indirect calls. Quantities are
 * per unit area: traction [Pa], stiffness [Pa/m], energy [J/m^2].
 *
 * Openings and tractions are vectors in the facet frame: the normal
 * component (delta, traction, stiffness) and the tangential one (delta_t,
 * traction_t, stiffness_t). A 1D model passes delta_t = traction_t =
 * stiffness_t = NULL: normal only, the law's 1D rule (docs/plugins.md).
 * In 3D the tangential opening is the magnitude of the sliding vector and
 * the traction acts along it (an isotropic law depends on it only). */
#ifndef SHARD_TSL_H
#define SHARD_TSL_H

#include <stdint.h>

#include "shard/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct shard_tsl_batch {
  int32_t n;
  const double *sigma_c;   /* strength at insertion */
  const double *delta_c;   /* critical opening 2 G_c / sigma_c */
  const double *delta;     /* current opening (tension positive) */
  double *delta_max;       /* history: largest opening so far (in/out) */
  double *traction;        /* out */
  double *stiffness;       /* out: tangent/secant stiffness the integrators see */
  double *reversible;      /* out: reversible energy of the current branch */
  /* the tangential part, all three NULL in 1D */
  const double *delta_t;   /* tangential opening (sliding) [m] */
  double *traction_t;      /* out: tangential traction, along delta_t */
  double *stiffness_t;     /* out: tangential secant stiffness (may be NULL when delta_t is not) */
} shard_tsl_batch;

typedef struct shard_tsl_ops {
  int (*create)(const shard_params *params, const shard_scales *scales, void **out_self, shard_msg *msg);
  void (*destroy)(void *self);
  /* tractions at `delta` given the history; commit != 0 also updates
   * delta_max. With commit == 0 it must not write delta_max, and its outputs
   * must be those of the committed call: models evaluate trials on their
   * history in place (tests/unit/test_tsl_contract.c checks both). An
   * interface's results do not depend on the batch it is in (checked too),
   * and self is not written: a model running threads (shard/parallel.h)
   * evaluates disjoint sub-batches at once. */
  void (*evaluate)(const void *self, const shard_tsl_batch *batch, int commit);
  /* the largest stiffness the law can present [Pa/m] (SHARD_INF if uncapped) */
  double (*max_stiffness)(const void *self);
  /* Appended, optional (NULL: 1). The law's weight beta of sliding, finite
   * and > 0: its effective opening is sqrt(delta_n^2 + beta^2 delta_t^2) and
   * a model that inserts facets tests the matching effective traction
   * sqrt(<sigma_n>^2 + tau^2 / beta^2) against the strength (Camacho &
   * Ortiz 1996), so that the criterion and the law agree on beta. Read only
   * from a table whose ops_size covers it: the host hands set_tsl a copy of
   * the law's table at its own size, the slots past the plugin's ops_size
   * NULL (shard_tsl_shear_weight reads it). */
  double (*shear_weight)(const void *self);
} shard_tsl_ops;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
