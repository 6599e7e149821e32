// A C++ translation unit that includes every public header and defines a
// plugin entry point; entry_check.c, compiled as C, calls that entry point.
// It links only when the headers give their declarations C linkage.
#include "shard/contact_law.h"
#include "shard/integrator.h"
#include "shard/lcp_solver.h"
#include "shard/params.h"
#include "shard/plugin.h"
#include "shard/sparse.h"
#include "shard/status.h"
#include "shard/system.h"
#include "shard/tsl.h"

static const shard_plugin probe = {SHARD_ABI_VERSION, sizeof(shard_plugin), sizeof(shard_real),
                                   SHARD_KIND_LCP_SOLVER, "cxx_probe", "1.0.0", "a plugin compiled as C++",
                                   0, 0, 0, 0, 0, 0};
SHARD_PLUGIN_SINGLE(probe)

extern "C" int entry_check(void);

int main() {
  // a few of the inline helpers, instantiated as C++
  shard_msg msg;
  if (shard_msg_set(&msg, SHARD_ERR_INPUT, "bad %d", 1) != SHARD_ERR_INPUT) return 1;
  shard_msg_prepend(&msg, "ctx");
  if (strcmp(msg.text, "ctx: bad 1") != 0 || strcmp(shard_status_str(SHARD_OK), "ok") != 0) return 1;
  const int32_t rowptr[] = {0, 1}, colind[] = {0};
  const double val[] = {2.0}, q[] = {-1.0}, z[] = {0.5};
  double w[1];
  const shard_csr a = {1, 1, rowptr, colind, val};
  const shard_lcp_problem p = {1, &a, 0, q, SHARD_LCP_SYMMETRIC};
  if (shard_lcp_residual(&p, z, w) != 0.0 || !(shard_lcp_residual_noise(&p, z) > 0.0)) return 1;
  return entry_check();
}
