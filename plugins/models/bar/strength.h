/* model plugin `bar`: facet strengths of the bar (docs/theory.md §11): constant, uniform, Weibull,
 * or the paper's defect model, all drawn from shard's own seeded generator. */
#ifndef SHARD_STRENGTH_H
#define SHARD_STRENGTH_H

#include <stdint.h>

#include "shard/params.h"
#include "shard/status.h"

/* From the fracture section's keys `fr` (strength.*, resolved; `path` the
 * case file for messages): X, nn node positions (increasing); out: nn-2
 * facet strengths (internal nodes). */
int shard_strength_draw(const shard_params *fr, const char *path, const double *X, int32_t nn, double *out,
                        shard_msg *msg);

#endif
