/* tests: values a plugin's create must refuse for one REAL or INT spec, when
 * called directly (without the host's validation): one beyond each finite end,
 * the end itself where it is open, and NaN for a REAL. */
#ifndef SPEC_PROBE_H
#define SPEC_PROBE_H

#include <math.h>

#include "shard/params.h"

#define SPEC_PROBE_MAX 5

/* fills bad[] (SPEC_PROBE_MAX entries) and returns how many; 0 for other types */
static inline int spec_probe_out_of_range(const shard_param_spec *sp, double bad[SPEC_PROBE_MAX]) {
  int nb = 0;
  if (sp->type != SHARD_PARAM_REAL && sp->type != SHARD_PARAM_INT) return 0;
  if (sp->min > -SHARD_INF) {
    bad[nb++] = sp->min - fmax(1.0, fabs(sp->min));
    if (sp->flags & SHARD_PARAM_MIN_EXCLUSIVE) bad[nb++] = sp->min;
  }
  if (sp->max < SHARD_INF) {
    bad[nb++] = sp->max + fmax(1.0, fabs(sp->max));
    if (sp->flags & SHARD_PARAM_MAX_EXCLUSIVE) bad[nb++] = sp->max;
  }
  if (sp->type == SHARD_PARAM_REAL) bad[nb++] = NAN;
  return nb;
}

#endif
