/* shard — the discrete system seen by integrators (docs/plugins.md §2; the model behind it:
 * docs/theory.md §9).
 *
 * Integrators never see meshes: they see DOF vectors, a lumped mass, a force
 * evaluation, a sparse stiffness, constraint rows H with gaps g(u), and two
 * host services for the contact problem (operator assembly and LCP solve,
 * split into independent blocks so that the cost scales with the active
 * contacts). Insertions (cohesive fracture) grow ndof and ncon between
 * steps, append-only, up to ndof_max / ncon_max. The model's arrays (u, v, a,
 * mass, minv, H, impulse) hold the DOFs and rows present at least and may
 * move when it grows them in insert(), between steps: read them through sys
 * each step. The integrator's own storage: shard/integrator.h. */
#ifndef SHARD_SYSTEM_H
#define SHARD_SYSTEM_H

#include <stdint.h>

#include "shard/sparse.h"
#include "shard/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct shard_system shard_system;

/* Per-step counters; the integrator sets n_active, the host services fill the rest. */
/* n_active value asking the host to count the violated gaps (g < 0) of the
 * committed state, which it measures anyway (force-law integrators) */
#define SHARD_N_ACTIVE_VIOLATED_GAPS (-1)

typedef struct shard_step_stats {
  int32_t n_active;        /* constraints in the active set, or SHARD_N_ACTIVE_VIOLATED_GAPS */
  int32_t lcp_blocks;      /* independent LCP blocks solved */
  int32_t lcp_max_block;   /* size of the largest block */
  int64_t lcp_iterations;  /* summed over blocks */
  double lcp_residual;     /* largest over blocks */
  int32_t lcp_fallbacks;   /* blocks solved by the fallback solver */
  /* The scheme's own energy identity (docs/theory.md §7). Left at 0, the host
   * books NSN's: stored energy H = E - dt^2/8 a^T M a and contact work
   * p^T H (v_n + v_{n+1})/2. Integrators with another identity set: */
  int32_t energy_form;          /* SHARD_ENERGY_* */
  double contact_work;          /* forms NEWMARK_WORK, PLAIN: work of this step's impulses [J] */
  double numerical_dissipation; /* form PLAIN: energy the scheme removes in this step [J] */
} shard_step_stats;

#define SHARD_ENERGY_NEWMARK 0      /* H = E - dt^2/8 a^T M a, host computes the contact work */
#define SHARD_ENERGY_NEWMARK_WORK 1 /* H, contact work given by the integrator */
#define SHARD_ENERGY_PLAIN 2        /* E (no a^T M a term), contact work and numerical dissipation given */

typedef struct shard_system_ops {
  /* out_f = f_ext(t) - f_int(u) (+ penalty forces when the contact law is a
   * force law), for DOFs 0..ndof-1. */
  int (*force)(shard_system *sys, double t, const double *u, double *out_f, shard_msg *msg);
  /* Symmetric stiffness (bulk + cohesive + penalty as applicable) at u, CSR
   * ndof x ndof in host storage, valid until the next call. */
  int (*stiffness)(shard_system *sys, const double *u, const shard_csr **out_k, shard_msg *msg);
  /* gaps of constraints 0..ncon-1 at u (negative = penetration) */
  void (*gaps)(shard_system *sys, const double *u, double *out_g);
  /* W = H_R M^-1 (M - kcoef K) M^-1 H_R^T over the constraint rows R (n of
   * them), K from the last stiffness() call. kcoef = dt^2/4 gives NSN's W',
   * kcoef = 0 gives H M^-1 H^T. Host storage, valid until the next call. */
  int (*contact_operator)(shard_system *sys, const int32_t *rows, int32_t n, double kcoef, const shard_csr **out_w,
                          shard_msg *msg);
  /* Solve 0 <= z ⊥ W z + q >= 0 (n = w->nrows) with the case's LCP solver and
   * failure policy, block by block; flags as in shard/lcp_solver.h. Fills
   * sys->stats. Returns SHARD_OK or a fatal status with the cause in msg. */
  int (*lcp_solve)(shard_system *sys, const shard_csr *w, const double *q, uint32_t flags, double *z, shard_msg *msg);
  /* Prescribed DOFs: overwrite v and a of prescribed DOFs with their values at t. */
  void (*prescribe)(shard_system *sys, double t, double *v, double *a);
} shard_system_ops;

struct shard_system {
  uint32_t struct_size;
  int32_t ndof, ndof_max;  /* active DOFs; preallocated */
  int32_t ncon, ncon_max;  /* active constraint rows; preallocated */
  double t;                /* time at the start of the step */
  double *u, *v, *a;       /* state (ndof each at least); CDL reports integer-time v */
  double *aux;             /* n_aux vectors of ndof_max, integrator-private; the
                              host copies them on insertion and checkpoints them */
  uint32_t n_aux;
  const double *mass;      /* lumped mass */
  const double *minv;      /* inverse mass, 0 on prescribed DOFs */
  const shard_csr *h;      /* constraint rows, ncon x ndof */
  const double *restitution; /* impact laws: e per constraint */
  double *impulse;         /* out: impulse p per constraint of the last step, 0 if inactive */
  shard_step_stats *stats;
  void *host;
  const shard_system_ops *ops;
  /* NULL, or constraints 0..ncon-1 ordered by their lowest DOF (spatially,
   * for the 1D models; kept current across insertions). An integrator that
   * scans the constraints for its active set in this order gets W rows, LCP
   * blocks and the DOFs they touch close together in memory. */
  const int32_t *con_order;
  /* Set by the integrator in its step (0 otherwise; the host clears it after
   * each step): 1 when the step's last force() call was at exactly the u it
   * commits and nothing was evaluated after it. The model's measure of the
   * committed state may then reuse that evaluation (its gaps and force-law
   * state) instead of computing them again, and the integrator may leave
   * n_active to the host (SHARD_N_ACTIVE_VIOLATED_GAPS). Read and write it
   * only when struct_size > offsetof(shard_system, force_at_commit). */
  int32_t force_at_commit;
  /* Threads the plugins may use in their loops over this system (set by the
   * host from `shard run --threads`, 0 or 1: one; read it through
   * shard_system_par, shard/parallel.h, which checks struct_size). The
   * results must not depend on it, bit for bit. thread_grain: loops of fewer
   * iterations stay in one thread (0: SHARD_OMP_GRAIN; `shard run
   * --thread-grain N`, which the tests set low to exercise the threads on
   * small cases). */
  int32_t threads;
  int32_t thread_grain;
};

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
