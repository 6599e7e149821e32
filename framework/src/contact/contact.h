/* host: the contact problem services behind shard_system (docs/plugins.md §2):
 * assembly of W = H_R M^-1 (M - kcoef K) M^-1 H_R^T over the active rows into
 * preallocated storage, and the LCP solve split into independent connected
 * blocks (cost scales with the active contacts), with the case's failure
 * policy (stop, or retry with a fallback solver) and Matrix Market dumps of
 * failing problems. */
#ifndef SHARD_CONTACT_H
#define SHARD_CONTACT_H

#include <stdint.h>

#include "shard/lcp_solver.h"
#include "shard/system.h"

typedef struct shard_contact shard_contact;

typedef struct shard_contact_solver {
  const char *name;
  const shard_lcp_solver_ops *ops;
  void *self;
  uint64_t caps;
  /* the host's check of every solution this solver reports as solved: the
   * complementarity residual of shard_lcp_residual (z >= 0, w = Wz + q >= 0,
   * min(z, w) = 0, relative to max(|q|, |Wz|)) must be at most this */
  double check_tol;
} shard_contact_solver;

typedef struct shard_contact_policy {
  shard_contact_solver primary;
  shard_contact_solver fallback; /* ops NULL: none */
  int dump;                      /* write failing blocks as Matrix Market */
  int64_t dump_every;            /* also write every block of every N-th step (0: never), with its solution */
  const char *dump_dir;
  int scalar_closed_form;        /* 1x1 blocks with w > 0: z = max(0, -q/w), no solver call */
  /* a primary of the tridiagonal Z class gets every interval block of a
   * step in one call when W is of its class as a whole (0: block by block) */
  int batch_blocks;
} shard_contact_policy;

/* Rows the storage starts with at least (when ncon_max allows). */
#define SHARD_CONTACT_INITIAL_ROWS 64

/* The service for up to ncon_max constraint rows of at most row_width
 * entries over ndof_max DOFs, each row coupling to at most row_degree rows
 * in W. Its per-row storage starts for max(SHARD_CONTACT_INITIAL_ROWS,
 * 2 ncon_init) rows (at most ncon_max) and grows with
 * shard_contact_reserve. */
int shard_contact_create_rows(shard_contact **out, int32_t ndof_max, int32_t ncon_max, int32_t ncon_init,
                              int32_t row_width, int32_t row_degree, shard_msg *msg);
/* The same with storage for all ncon_max rows from the start. */
int shard_contact_create(shard_contact **out, int32_t ndof_max, int32_t ncon_max, int32_t row_width,
                         int32_t row_degree, shard_msg *msg);
/* Storage for at least nrows rows: when it holds fewer, every per-row
 * array grows to twice its rows until nrows fit (at most ncon_max), its
 * contents kept, and the attached solvers are set up again for the new
 * sizes. Called between steps only (after an insertion, after a restore):
 * the operator and the solve allocate nothing and refuse more rows than
 * reserved. SHARD_OK; SHARD_ERR_NOMEM naming the rows (the service stays
 * valid at its old size); SHARD_ERR_INTERNAL above ncon_max; or a solver's
 * setup status. */
int shard_contact_reserve(shard_contact *c, int32_t nrows, shard_msg *msg);
/* Rows the storage holds now. */
int32_t shard_contact_capacity(const shard_contact *c);
void shard_contact_destroy(shard_contact *c);
/* Attach the solvers and call their setup for the sizes of this model. */
int shard_contact_set_policy(shard_contact *c, const shard_contact_policy *policy, shard_msg *msg);
/* Step number and time, for messages and dump file names. */
void shard_contact_set_step(shard_contact *c, int64_t step, double t);

/* W = H_R M^-1 (M - kcoef K) M^-1 H_R^T over the rows `rows` of h, K = k.
 * Its symbolic product (W's pattern and the products behind each entry) is
 * kept between calls and only the values recomputed while the rows, their
 * pattern in H and K's pattern are unchanged; the result is the same, bit
 * for bit, as assembling from scratch. K's pattern is taken as unchanged
 * while its arrays, size, entry count and row lengths are and no
 * topology change was announced. */
int shard_contact_operator(shard_contact *c, const shard_csr *h, const double *minv, const shard_csr *k,
                           const int32_t *rows, int32_t n, double kcoef, const shard_csr **out_w, shard_msg *msg);
/* The same W written by the model (shard_model_ops.contact_operator, its
 * signature) into the storage of c: n rows at most as many as reserved.
 * The model's status as it is: SHARD_ERR_UNSUPPORTED tells the caller to
 * use shard_contact_operator instead. */
typedef int (*shard_contact_fill)(void *model, const int32_t *rows, int32_t n, double kcoef, int32_t *w_rowptr,
                                  int32_t *w_col, double *w_val, int64_t cap, shard_msg *msg);
int shard_contact_operator_model(shard_contact *c, shard_contact_fill fill, void *model, const int32_t *rows,
                                 int32_t n, double kcoef, const shard_csr **out_w, shard_msg *msg);
/* The model's H or K pattern may have changed (an insertion): the next
 * operator call rebuilds its symbolic product. */
void shard_contact_topology_changed(shard_contact *c);
/* 0: assemble from scratch every call (for tests and comparisons); 1 (the
 * default): keep the symbolic product. */
void shard_contact_set_reuse(shard_contact *c, int reuse);
/* Symbolic products built so far (each a rebuild after a change). */
int64_t shard_contact_operator_builds(const shard_contact *c);
int shard_contact_lcp_solve(shard_contact *c, const shard_csr *w, const double *q, uint32_t flags, double *z,
                            shard_step_stats *stats, shard_msg *msg);

/* Largest dense block handed to a solver that reads the dense view. */
#define SHARD_CONTACT_DENSE_MAX 1024

#endif
