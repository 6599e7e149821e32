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
 *   SHARD_PAR_FOR(P, n, i, body);             for (int32_t i = 0; i < n; ++i) { body } in P.threads threads
 *   SHARD_PAR_FOR_OR(P, n, i, flag, body);    the same, OR-reducing the integer `flag`
 *   SHARD_PAR_FOR_OR2(P, n, i, f1, f2, body); the same with two flags
 *
 * A loop of fewer than P.grain iterations stays in the calling thread.
 * Static scheduling, so each thread sees the same contiguous chunk of the
 * arrays every step. In a build without OpenMP (no _OPENMP) the macros
 * are the plain loops. The OpenMP runtime keeps its threads between loops: no
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

/* 1 when a loop of n iterations runs in threads */
static inline int shard_par_on(shard_par p, int64_t n) { return p.threads > 1 && n >= p.grain; }

/* SHARD_PAR_FOR(P, n, i, body...): for (int32_t i = 0; i < n; ++i) { body }
 * in P.threads threads when shard_par_on(P, n), else as a plain loop that
 * never enters the OpenMP runtime (a parallel region of one thread still
 * costs the runtime an allocation and a few system calls: microseconds a
 * loop, more than a small model's whole step). The body is a macro
 * argument, so it holds no preprocessor directive; `continue` works as in
 * any loop. _OR and _OR2 OR-reduce one or two integer flags. */
#if defined(_OPENMP)
#define SHARD_PRAGMA_(x) _Pragma(#x)
#define SHARD_PRAGMA_X_(x) SHARD_PRAGMA_(x)
#define SHARD_PAR_LOOP_(P, n, i, clauses, ...)                                                                     \
  do {                                                                                                             \
    const int32_t shard_n_ = (n);                                                                                  \
    if (shard_par_on((P), shard_n_)) {                                                                             \
      SHARD_PRAGMA_X_(omp parallel for num_threads((P).threads) schedule(static) clauses)                          \
      for (int32_t i = 0; i < shard_n_; ++i) {                                                                     \
        __VA_ARGS__                                                                                                \
      }                                                                                                            \
    } else {                                                                                                       \
      for (int32_t i = 0; i < shard_n_; ++i) {                                                                     \
        __VA_ARGS__                                                                                                \
      }                                                                                                            \
    }                                                                                                              \
  } while (0)
#define SHARD_PAR_FOR(P, n, i, ...) SHARD_PAR_LOOP_(P, n, i, , __VA_ARGS__)
#define SHARD_PAR_FOR_OR(P, n, i, flag, ...) SHARD_PAR_LOOP_(P, n, i, reduction(| : flag), __VA_ARGS__)
#define SHARD_PAR_FOR_OR2(P, n, i, flag1, flag2, ...) SHARD_PAR_LOOP_(P, n, i, reduction(| : flag1, flag2), __VA_ARGS__)
#define SHARD_HAVE_THREADS 1
#else
#define SHARD_PAR_LOOP_(P, n, i, ...)                                                                              \
  do {                                                                                                             \
    const int32_t shard_n_ = (n);                                                                                  \
    (void)(P);                                                                                                     \
    for (int32_t i = 0; i < shard_n_; ++i) {                                                                       \
      __VA_ARGS__                                                                                                  \
    }                                                                                                              \
  } while (0)
#define SHARD_PAR_FOR(P, n, i, ...) SHARD_PAR_LOOP_(P, n, i, __VA_ARGS__)
#define SHARD_PAR_FOR_OR(P, n, i, flag, ...) SHARD_PAR_LOOP_(P, n, i, __VA_ARGS__)
#define SHARD_PAR_FOR_OR2(P, n, i, flag1, flag2, ...) SHARD_PAR_LOOP_(P, n, i, __VA_ARGS__)
#define SHARD_HAVE_THREADS 0
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
