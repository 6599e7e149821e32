/* host: the one seeded random generator of shard (docs/theory.md §11).
 * xoshiro256** (Blackman & Vigna 2018) seeded through splitmix64: a fixed,
 * documented algorithm, so that a case reproduces bit for bit for a given
 * build and to round-off across machines. Not the C library's rand(). */
#ifndef SHARD_RNG_H
#define SHARD_RNG_H

#include <stdint.h>

typedef struct shard_rng {
  uint64_t s[4];
} shard_rng;

void shard_rng_seed(shard_rng *r, uint64_t seed);
uint64_t shard_rng_next(shard_rng *r);
/* uniform in [0, 1), 53 random bits */
double shard_rng_uniform(shard_rng *r);
/* uniform in [a, b) */
double shard_rng_range(shard_rng *r, double a, double b);

#endif
