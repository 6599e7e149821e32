/* tests: the tri2d model's storage grows with the cracks. With insertion on,
 * the model used to hold, from set-up, a copy of every triangle corner, a
 * contact row for both ends of every interior facet and a cohesive point
 * for each (about three times the heap of the same mesh without
 * insertion); it now holds what the state needs and grows in insert.
 * Checked: the heap a model with insertion takes at set-up, beside the same
 * mesh's without; then a uniform tension that breaks every facet at once
 * grows it to every corner a copy, both ends of every facet a row and a
 * point (the cap), the system's sizes and masses consistent. */
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cu_runner.h"
#include "loader/plugin_calls.h"
#include "tri2d_build.h"

#if defined(__SANITIZE_ADDRESS__)
#define SHARD_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHARD_TEST_ASAN 1
#endif
#endif
#ifdef SHARD_TEST_ASAN
/* the sanitizer's allocator (its runtime has it; gcc ships no header for it) */
size_t __sanitizer_get_current_allocated_bytes(void);
static size_t heap_now(void) { return __sanitizer_get_current_allocated_bytes(); }
#else
/* bytes in use: the arena's and the mapped blocks' (large arrays) */
static size_t heap_now(void) {
  const struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}
#endif

#define NX "100"
#define NY "50"
static const kv keys[] = {{"plane", "stress"},        {"young", "1e9"},        {"poisson", "0"},
                          {"density", "1000"},        {"thickness", "1"},      {"mesh.shape", "rectangle"},
                          {"mesh.width", "2"},        {"mesh.height", "1"},    {"mesh.nx", NX},
                          {"mesh.ny", NY},            {"mesh.perturbation", "0"}, {"mesh.seed", "1"},
                          {"initial.strain_rate", "0"}};
static const shard_param_spec fspec[] = {
    {"g_c", SHARD_PARAM_REAL, 0, 0, SHARD_INF, "J/m^2", 0, 0, ""},
    {"insertion", SHARD_PARAM_BOOL, 0, 0, 0, "", 0, 0, ""},
    {"strength.distribution", SHARD_PARAM_CHOICE, 0, 0, 0, "", 0, "constant|uniform|weibull|defects", ""},
    {"strength.nominal", SHARD_PARAM_REAL, 0, 0, SHARD_INF, "Pa", 0, 0, ""},
    {"strength.seed", SHARD_PARAM_INT, 0, 0, 9.2e18, "1", 0, 0, ""},
};

/* the heap a model takes (create), and the model: with insertion, or
 * without a fracture section */
static size_t built_heap(int insertion, built *b) {
  /* the model keeps the fracture section's values: they outlive it */
  static const shard_param_value fval[] = {{.set = 1, .real = 100.0},
                                           {.set = 1, .boolean = 1},
                                           {.set = 1, .string = "constant"},
                                           {.set = 1, .real = 1e6},
                                           {.set = 1, .real = 1, .integer = 1}};
  static const shard_params fr = {fspec, SHARD_NPARAMS(fspec), fval};
  shard_msg msg = {{0}};
  const size_t before = heap_now();
  const int st = insertion ? build_fracture(keys, sizeof keys / sizeof keys[0], &fr, b, &msg)
                           : build(keys, sizeof keys / sizeof keys[0], b, &msg);
  const size_t after = heap_now();
  CU_CHECK_MSG(st == SHARD_OK, "create: %.300s", msg.text);
  return st == SHARD_OK && after > before ? after - before : 0;
}

static void test_tri2d_storage_grows(void) {
  rh_registry();
  built plain, ins;
  const size_t h_plain = built_heap(0, &plain);
  const size_t h_ins = built_heap(1, &ins);
  if (!h_plain || !h_ins) return;
  const int32_t ne = 2 * 100 * 50, nfac = 3 * ne / 2 - (100 + 50); /* interior edges: (3 ne - boundary) / 2 */
  printf("\n  %d triangles: set-up heap %.2f MB without insertion, %.2f MB with", (int)ne, h_plain / 1e6, h_ins / 1e6);
  /* what insertion adds at set-up: the facets and the elements' stresses
   * (measured 1.32 times the model without a fracture section; holding every
   * corner's copy and a row and a point for every facet end up front made
   * it 3.9) */
  CU_CHECK_MSG(h_ins < 1.5 * h_plain, "with insertion the set-up takes %.3g MB, %.2f times the %.3g MB without",
               h_ins / 1e6, (double)h_ins / (double)h_plain, h_plain / 1e6);
  CU_ASSERT_EQUAL(ins.sys->ndof, plain.sys->ndof);
  CU_ASSERT_EQUAL(ins.sys->ndof_max, 6 * ne); /* what the host is told: every corner a copy */

  /* a uniform tension above the strength: every facet breaks at once */
  const shard_loaded_plugin *lp = shard_registry_find(rh_registry(), SHARD_KIND_TSL, "camacho_ortiz");
  CU_ASSERT_FATAL(lp != NULL);
  shard_tsl_ops ops;
  shard_tsl_ops_widen(lp->desc, &ops);
  shard_param_value tv[8] = {{0}};
  CU_ASSERT_FATAL(lp->desc->n_params <= 8);
  for (uint32_t i = 0; i < lp->desc->n_params; ++i)
    if (strcmp(lp->desc->params[i].key, "beta") == 0) tv[i] = (shard_param_value){.set = 1, .real = 1.0};
  const shard_params tp = {lp->desc->params, lp->desc->n_params, tv};
  void *law = NULL;
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL_FATAL(ops.create(&tp, NULL, &law, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(ins.ops->set_tsl(ins.self, &ops, law, 0, &msg), SHARD_OK);
  const int32_t nn0 = ins.sys->ndof / 2;
  double mass0 = 0;
  for (int32_t d = 0; d < ins.sys->ndof; ++d) mass0 += ins.sys->mass[d];
  const double a = 2e-3; /* E a = 2 sigma_c */
  for (int32_t i = 0; i < nn0; ++i) {
    const double x = (i % 101) * 0.02, y = (i / 101) * 0.02;
    ins.sys->u[2 * i] = a * x, ins.sys->u[2 * i + 1] = a * y;
  }
  int32_t first = -1;
  const size_t h0 = heap_now();
  const int32_t n = ins.ops->insert(ins.self, &first);
  const size_t h1 = heap_now();
  printf("; %d facets broken at once: %d DOFs, %d rows, heap +%.2f MB", (int)n, (int)ins.sys->ndof,
         (int)ins.sys->ncon, (h1 > h0 ? h1 - h0 : 0) / 1e6);
  CU_ASSERT_EQUAL(first, 2 * nn0);
  CU_ASSERT_EQUAL(n, nfac);
  CU_ASSERT_EQUAL(ins.sys->ndof, 6 * ne); /* every corner its own copy: the cap */
  CU_ASSERT_EQUAL(ins.sys->ncon, 2 * nfac);
  double mass = 0;
  for (int32_t d = 0; d < ins.sys->ndof; ++d) mass += ins.sys->mass[d];
  CU_ASSERT(fabs(mass - mass0) <= 1e-12 * mass0);
  int bad = 0;
  for (int32_t d = 0; d < ins.sys->ndof; ++d) bad += !(ins.sys->mass[d] > 0 && ins.sys->minv[d] == 1.0 / ins.sys->mass[d]);
  CU_ASSERT_EQUAL(bad, 0);
  /* every copy moved with its vertex: the gaps of the crack rows are 0 at u */
  double *g = calloc((size_t)ins.sys->ncon + 1, sizeof *g);
  CU_ASSERT_FATAL(g != NULL);
  ins.ops->measure(ins.self, ins.sys->u, g);
  double gmax = 0;
  for (int32_t r = 0; r < ins.sys->ncon; ++r) gmax = fmax(gmax, fabs(g[r]));
  CU_CHECK_MSG(gmax <= 1e-15, "largest crack gap %g after the split", gmax);
  free(g);
  plain.ops->destroy(plain.self);
  ins.ops->destroy(ins.self);
  ops.destroy(law);
}

int main(int argc, char **argv) {
  static const cu_test_def tests[] = {{"test_tri2d_storage_grows", test_tri2d_storage_grows}, {NULL, NULL}};
  return cu_main(argc, argv, "tri2d_storage", tests);
}
