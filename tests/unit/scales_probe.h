/* tests: a model's named scales from a plain struct, as a model answers them
 * (shard/plugin.h): the names of docs/plugins.md, a zero field absent. */
#ifndef SHARD_TEST_SCALES_PROBE_H
#define SHARD_TEST_SCALES_PROBE_H

#include <string.h>

#include "shard/plugin.h"

typedef struct probe_scales {
  double young, density, area, h_mean, h_min, mass_min, length;
} probe_scales;

static inline int probe_scale_get(const void *ctx, const char *name, double *out) {
  const probe_scales *p = ctx;
  const struct {
    const char *n;
    double v;
  } t[] = {{"young", p->young}, {"density", p->density},   {"area", p->area},    {"h_mean", p->h_mean},
           {"h_min", p->h_min}, {"mass_min", p->mass_min}, {"length", p->length}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i)
    if (strcmp(name, t[i].n) == 0) {
      if (t[i].v == 0.0) return 0;
      *out = t[i].v;
      return 1;
    }
  return 0;
}

/* the view of *p (valid while *p lives) */
static inline shard_scales probe_scales_view(const probe_scales *p) {
  return (shard_scales){.struct_size = sizeof(shard_scales), .ctx = p, .get = probe_scale_get};
}

#endif
