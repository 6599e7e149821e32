/* tests: a minimal, valid integrator ops table shared by the deliberately
 * broken test plugins, so that each broken plugin differs from a loadable one
 * in exactly the field its name says. These ops are never run. */
#ifndef SHARD_TEST_BROKEN_COMMON_H
#define SHARD_TEST_BROKEN_COMMON_H

#include <stdlib.h>

#include "shard/integrator.h"

/* Each broken descriptor overrides one field of BROKEN_DESCRIPTOR on purpose. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Winitializer-overrides"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Woverride-init"
#endif

static int broken_create(const shard_params *params, const shard_scales *scales, void **out_self,
                         shard_msg *msg) {
  *out_self = NULL;
  return SHARD_OK;
}
static int broken_setup(void *self, shard_system *sys, shard_msg *msg) { return SHARD_OK; }
static int broken_start(void *self, shard_system *sys, double dt, shard_msg *msg) { return SHARD_OK; }
static int broken_step(void *self, shard_system *sys, double dt, shard_msg *msg) { return SHARD_OK; }
static void broken_destroy(void *self) { free(self); }

#define BROKEN_OPS_INIT                                                                             \
  .create = broken_create, .setup = broken_setup, .start = broken_start, .step = broken_step, \
  .destroy = broken_destroy

static const shard_integrator_ops broken_ops = {BROKEN_OPS_INIT};

/* A descriptor that would load; each broken plugin overrides one thing. */
#define BROKEN_DESCRIPTOR(name_)                                                                        \
  SHARD_PLUGIN_HEADER(SHARD_KIND_INTEGRATOR), .name = (name_), .version = "0.0.1",                    \
                                              .summary = "deliberately broken test plugin",           \
                                              .ops_size = sizeof(shard_integrator_ops),               \
                                              .caps = SHARD_CAP_FORCE_LAW, .ops = &broken_ops

#endif
