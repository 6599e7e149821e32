/* host: facet strengths of the bar (docs/theory.md §11): constant, uniform, Weibull,
 * or the paper's defect model, all drawn from shard's own seeded generator. */
#ifndef SHARD_STRENGTH_H
#define SHARD_STRENGTH_H

#include <stdint.h>

#include "case/case.h"

/* X: nn node positions (increasing); out: nn-2 facet strengths (internal nodes). */
int shard_strength_draw(const shard_case *c, const shard_scope *scope, const double *X, int32_t nn, double *out,
                        shard_diag *diag, shard_msg *msg);

#endif
