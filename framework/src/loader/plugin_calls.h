/* shard — typed calls into the plugins' ops tables (host only).
 *
 * The host never casts a descriptor's `ops` nor calls a slot by hand:
 * shard_<kind>_ops_of(desc) is the one place where `const void *ops` becomes
 * the kind's table (NULL when the descriptor is of another kind), and
 * shard_<kind>_<verb>(ops, self, ...) calls one slot. Destroy accepts a NULL
 * table or instance; optional slots get the host's default here (no `n_aux`:
 * no aux vectors; no `on_insert`: nothing to rebuild; no `reserve`: the
 * storage sized at setup). The plugin side of the
 * ABI is unchanged: these are the same calls, named. */
#ifndef SHARD_PLUGIN_CALLS_H
#define SHARD_PLUGIN_CALLS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "shard/contact_law.h"
#include "shard/integrator.h"
#include "shard/lcp_solver.h"
#include "shard/model.h"
#include "shard/plugin.h"
#include "shard/tsl.h"

/* ---- integrators ------------------------------------------------------------ */

static inline const shard_integrator_ops *shard_integrator_ops_of(const shard_plugin *d) {
  return d && d->kind == SHARD_KIND_INTEGRATOR ? (const shard_integrator_ops *)d->ops : NULL;
}
static inline int shard_integrator_create(const shard_integrator_ops *ops, const shard_params *params,
                                          const shard_scales *scales, void **out_self, shard_msg *msg) {
  return ops->create(params, scales, out_self, msg);
}
static inline uint32_t shard_integrator_n_aux(const shard_integrator_ops *ops, const void *self) {
  return ops->n_aux ? ops->n_aux(self) : 0;
}
static inline int shard_integrator_setup(const shard_integrator_ops *ops, void *self, shard_system *sys,
                                         shard_msg *msg) {
  return ops->setup(self, sys, msg);
}
static inline int shard_integrator_start(const shard_integrator_ops *ops, void *self, shard_system *sys, double dt,
                                         shard_msg *msg) {
  return ops->start(self, sys, dt, msg);
}
static inline int shard_integrator_step(const shard_integrator_ops *ops, void *self, shard_system *sys, double dt,
                                        shard_msg *msg) {
  return ops->step(self, sys, dt, msg);
}
static inline int shard_integrator_on_insert(const shard_integrator_ops *ops, void *self, shard_system *sys,
                                             int32_t first, shard_msg *msg) {
  return ops->on_insert ? ops->on_insert(self, sys, first, msg) : SHARD_OK;
}
/* A plugin's table at the host's size (size bytes at out): the plugin's
 * ops_size bytes of it, the slots it does not know NULL, so that appended
 * optional slots are read safely; all NULL for a descriptor of another kind. */
static inline void shard_ops_widen(const shard_plugin *d, uint32_t kind, void *out, size_t size) {
  memset(out, 0, size);
  if (d && d->kind == kind && d->ops) memcpy(out, d->ops, d->ops_size < size ? d->ops_size : size);
}
/* The integrator's table at the host's size (reserve read safely) */
static inline void shard_integrator_ops_widen(const shard_plugin *d, shard_integrator_ops *out) {
  shard_ops_widen(d, SHARD_KIND_INTEGRATOR, out, sizeof *out);
}
/* 1 when the integrator grows its storage through reserve (else it sized it
 * for ndof_max / ncon_max in setup) */
static inline int shard_integrator_has_reserve(const shard_integrator_ops *ops) { return ops->reserve != NULL; }
static inline int shard_integrator_reserve(const shard_integrator_ops *ops, void *self, const shard_system *sys,
                                           int32_t ndof_cap, int32_t ncon_cap, shard_msg *msg) {
  return ops->reserve ? ops->reserve(self, sys, ndof_cap, ncon_cap, msg) : SHARD_OK;
}
static inline void shard_integrator_destroy(const shard_integrator_ops *ops, void *self) {
  if (ops && self) ops->destroy(self);
}

/* ---- contact laws ----------------------------------------------------------- */

static inline const shard_contact_law_ops *shard_contact_law_ops_of(const shard_plugin *d) {
  return d && d->kind == SHARD_KIND_CONTACT_LAW ? (const shard_contact_law_ops *)d->ops : NULL;
}
static inline int shard_contact_law_create(const shard_contact_law_ops *ops, const shard_params *params,
                                           const shard_scales *scales, void **out_self, shard_msg *msg) {
  return ops->create(params, scales, out_self, msg);
}
static inline void shard_contact_law_restitution(const shard_contact_law_ops *ops, const void *self,
                                                 const shard_impact_kinematics *k, double *out_e) {
  ops->restitution(self, k, out_e);
}
static inline void shard_contact_law_force(const shard_contact_law_ops *ops, const void *self, int32_t n,
                                           const double *g, double *out_f, double *out_k, double *out_energy) {
  ops->force(self, n, g, out_f, out_k, out_energy);
}
static inline double shard_contact_law_max_stiffness(const shard_contact_law_ops *ops, const void *self) {
  return ops->max_stiffness(self);
}
static inline void shard_contact_law_destroy(const shard_contact_law_ops *ops, void *self) {
  if (ops && self) ops->destroy(self);
}

/* ---- LCP solvers ------------------------------------------------------------ */

static inline const shard_lcp_solver_ops *shard_lcp_solver_ops_of(const shard_plugin *d) {
  return d && d->kind == SHARD_KIND_LCP_SOLVER ? (const shard_lcp_solver_ops *)d->ops : NULL;
}
static inline int shard_lcp_solver_create(const shard_lcp_solver_ops *ops, const shard_params *params,
                                          void **out_self, shard_msg *msg) {
  return ops->create(params, out_self, msg);
}
static inline int shard_lcp_solver_setup(const shard_lcp_solver_ops *ops, void *self, int32_t n_max,
                                         int64_t nnz_max, shard_msg *msg) {
  return ops->setup(self, n_max, nnz_max, msg);
}
static inline int shard_lcp_solver_solve(const shard_lcp_solver_ops *ops, void *self, const shard_lcp_problem *prob,
                                         double *z, double *w, shard_lcp_report *report, shard_msg *msg) {
  return ops->solve(self, prob, z, w, report, msg);
}
static inline void shard_lcp_solver_destroy(const shard_lcp_solver_ops *ops, void *self) {
  if (ops && self) ops->destroy(self);
}

/* ---- traction-separation laws ----------------------------------------------- */

static inline const shard_tsl_ops *shard_tsl_ops_of(const shard_plugin *d) {
  return d && d->kind == SHARD_KIND_TSL ? (const shard_tsl_ops *)d->ops : NULL;
}
static inline int shard_tsl_create(const shard_tsl_ops *ops, const shard_params *params,
                                   const shard_scales *scales, void **out_self, shard_msg *msg) {
  return ops->create(params, scales, out_self, msg);
}
static inline void shard_tsl_evaluate(const shard_tsl_ops *ops, const void *self, const shard_tsl_batch *batch,
                                      int commit) {
  ops->evaluate(self, batch, commit);
}
static inline double shard_tsl_max_stiffness(const shard_tsl_ops *ops, const void *self) {
  return ops->max_stiffness(self);
}
/* The law's table at the host's size (shear_weight read safely) */
static inline void shard_tsl_ops_widen(const shard_plugin *d, shard_tsl_ops *out) {
  shard_ops_widen(d, SHARD_KIND_TSL, out, sizeof *out);
}
/* beta, the weight of sliding (1 for a law without the slot) */
static inline double shard_tsl_shear_weight(const shard_tsl_ops *ops, const void *self) {
  return ops && ops->shear_weight ? ops->shear_weight(self) : 1.0;
}
static inline void shard_tsl_destroy(const shard_tsl_ops *ops, void *self) {
  if (ops && self) ops->destroy(self);
}

/* ---- models ------------------------------------------------------------------ */

static inline const shard_model_ops *shard_model_ops_of(const shard_plugin *d) {
  return d && d->kind == SHARD_KIND_MODEL ? (const shard_model_ops *)d->ops : NULL;
}
/* The model's table at the host's size (the appended optional slots,
 * probe_* and contact_operator, read safely: NULL when the plugin's table
 * ends before them) */
static inline void shard_model_ops_widen(const shard_plugin *d, shard_model_ops *out) {
  shard_ops_widen(d, SHARD_KIND_MODEL, out, sizeof *out);
}

#endif
