/* shard — threads inside one run (OpenMP), for plugins' loops over DOFs,
 * elements and constraint rows (docs/plugins.md, "Threads").
 *
 * The thread count is a property of the invocation (`shard run --threads
 * N`), not of the case: results must not depend on it, bit for bit. So a
 * loop parallelised with these macros is one whose iterations write
 * disjoint data and whose floating-point sums are formed in a fixed order
 * (serially, or per DOF by gathering from its elements in a fixed order):
 * no atomics on doubles and no reductions whose order depends on the
 * threads (an OR of flags is fine).
 *
 *   const shard_par P = shard_system_par(sys);
 *   SHARD_OMP_FOR(P, n)                 the next `for` (n iterations) in P.threads threads
 *   SHARD_OMP_FOR_OR(P, n, flag)        the same, OR-reducing the integer `flag`
 *   SHARD_OMP_FOR_OR2(P, n, f1, f2)     the same with two flags
 *
 * A loop of fewer than P.grain iterations stays in the calling thread.
 * Static scheduling, so each thread sees the same contiguous chunk of the
 * arrays every step. In a build without OpenMP (no _OPENMP) the macros
 * expand to nothing and the loops run serially (write `(void)P;` for that
 * build). The OpenMP runtime keeps its threads between loops: no
 * allocation per step. */
#ifndef SHARD_PARALLEL_H
#define SHARD_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "shard/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the default grain: a parallel region costs a few microseconds, some
 * thousand cheap iterations */
#define SHARD_OMP_GRAIN 16384

/* threads and grain for a plugin's loops */
typedef struct shard_par {
  int32_t threads; /* >= 1 */
  int32_t grain;   /* >= 1: loops of fewer iterations run in one thread */
} shard_par;

/* the host's sys->threads and sys->thread_grain when the model's
 * shard_system has the fields (else one thread) */
static inline shard_par shard_system_par(const shard_system *sys) {
  shard_par p = {1, SHARD_OMP_GRAIN};
  if (!sys || sys->struct_size < offsetof(shard_system, thread_grain) + sizeof sys->thread_grain) return p;
  if (sys->threads > 1) p.threads = sys->threads;
  if (sys->thread_grain > 0) p.grain = sys->thread_grain;
  return p;
}

#if defined(_OPENMP)
#define SHARD_PRAGMA_(x) _Pragma(#x)
#define SHARD_PRAGMA_X_(x) SHARD_PRAGMA_(x)
#define SHARD_OMP_FOR(P, n)                                                                                        \
  SHARD_PRAGMA_X_(omp parallel for num_threads((P).threads) schedule(static)                                   \
                      if ((P).threads > 1 && (n) >= (P).grain))
#define SHARD_OMP_FOR_OR(P, n, flag)                                                                               \
  SHARD_PRAGMA_X_(omp parallel for num_threads((P).threads) schedule(static)                                   \
                      if ((P).threads > 1 && (n) >= (P).grain) reduction(| : flag))
#define SHARD_OMP_FOR_OR2(P, n, flag1, flag2)                                                                      \
  SHARD_PRAGMA_X_(omp parallel for num_threads((P).threads) schedule(static)                                   \
                      if ((P).threads > 1 && (n) >= (P).grain) reduction(| : flag1, flag2))
#define SHARD_HAVE_THREADS 1
#else
#define SHARD_OMP_FOR(P, n)
#define SHARD_OMP_FOR_OR(P, n, flag)
#define SHARD_OMP_FOR_OR2(P, n, flag1, flag2)
#define SHARD_HAVE_THREADS 0
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
