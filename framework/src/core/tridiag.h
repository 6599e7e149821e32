/* host: the largest eigenvalue of a chain's M^-1 K (a symmetric tridiagonal
 * K, a diagonal M), for the stable time step of 1D models (docs/theory.md §8). */
#ifndef SHARD_TRIDIAG_H
#define SHARD_TRIDIAG_H

#include <stdint.h>

/* lambda_max of M^-1/2 K M^-1/2, K with diagonal d[0..n) and off-diagonal
 * e[0..n-1), M = diag(m): to round-off, by Sturm bisection from the
 * Gershgorin bound. d and e are overwritten (scaled by M^-1/2 on both
 * sides). 0 when K is zero. */
double shard_chain_lambda_max(double *d, double *e, const double *m, int32_t n);

#endif
