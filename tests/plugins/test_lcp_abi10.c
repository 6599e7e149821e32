/* tests: "test_lcp_abi10" and "test_lcp_caps" — the optional `caps` slot of
 * the LCP solver ops. The first declares minor 0 and an ops table that stops
 * before `caps` (the table as it was before the slot was appended, growth by
 * ops_size); the second sets the slot. Never solved with. */
#include <stddef.h>
#include <stdlib.h>

#include "shard/lcp_solver.h"

/* the first descriptor overrides the header's ABI version on purpose */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Winitializer-overrides"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Woverride-init"
#endif

static int t_create(const shard_params *p, void **out_self, shard_msg *msg) {
  (void)p;
  *out_self = malloc(1);
  return *out_self ? SHARD_OK : shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
}
static int t_setup(void *self, int32_t n_max, int64_t nnz_max, shard_msg *msg) { return SHARD_OK; }
static int t_solve(void *self, const shard_lcp_problem *prob, double *z, double *w, shard_lcp_report *report,
                   shard_msg *msg) {
  return shard_msg_set(msg, SHARD_ERR_UNSUPPORTED, "test plugin: does not solve");
}
static void t_destroy(void *self) { free(self); }
/* claims GENERAL and tries to clear the view bits, which the host ignores */
static uint64_t t_caps(const void *self) { return SHARD_CAP_LCP_GENERAL; }

static const shard_lcp_solver_ops ops = {
    .create = t_create, .setup = t_setup, .solve = t_solve, .destroy = t_destroy, .caps = t_caps};

static const shard_plugin descs[] = {
    {SHARD_PLUGIN_HEADER(SHARD_KIND_LCP_SOLVER), .abi_version = (SHARD_ABI_MAJOR << 16) | 0u,
     .name = "test_lcp_abi10", .version = "0.1.0", .summary = "an ABI 1.0 LCP solver (test plugin)",
     .ops_size = offsetof(shard_lcp_solver_ops, caps), .caps = SHARD_CAP_LCP_NEEDS_PSD | SHARD_CAP_LCP_SPARSE,
     .ops = &ops},
    {SHARD_PLUGIN_HEADER(SHARD_KIND_LCP_SOLVER), .name = "test_lcp_caps", .version = "0.1.0",
     .summary = "an LCP solver with the caps slot (test plugin)", .ops_size = sizeof ops,
     .caps = SHARD_CAP_LCP_NEEDS_PSD | SHARD_CAP_LCP_DENSE, .ops = &ops},
};

SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry(uint32_t index);
SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry(uint32_t index) {
  return index < sizeof descs / sizeof descs[0] ? &descs[index] : 0;
}
