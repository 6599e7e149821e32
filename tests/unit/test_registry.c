/* tests: the plugin registry — SHA-256 vectors, loading valid plugins, one
 * deliberately broken plugin per load error (exact message), descriptor
 * validation through shard_registry_add, and discovery order / duplicates. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cu_runner.h"
#include "loader/registry.h"
#include "shard/model.h"
#include "shard/lcp_solver.h"
#include "core/sha256.h"
#include "shard/contact_law.h"
#include "shard/integrator.h"
#include "shard/lcp_solver.h"
#include "shard/tsl.h"

#define TP SHARD_TEST_PLUGIN_DIR

/* ---- sha256 -------------------------------------------------------------- */

static void test_registry_sha256_vectors(void) {
  char h[65];
  shard_sha256_hex("", 0, h);
  CU_ASSERT_STRING_EQUAL(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  shard_sha256_hex("abc", 3, h);
  CU_ASSERT_STRING_EQUAL(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  shard_sha256_hex(two, strlen(two), h);
  CU_ASSERT_STRING_EQUAL(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const char *four = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                     "mnopqrstnopqrstu";
  shard_sha256_hex(four, strlen(four), h);
  CU_ASSERT_STRING_EQUAL(h, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

static void test_registry_sha256_million_a_streamed(void) {
  static char a[1000000];
  memset(a, 'a', sizeof a);
  char h[65];
  shard_sha256_hex(a, sizeof a, h);
  CU_ASSERT_STRING_EQUAL(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  /* the same in odd-sized pieces that straddle block boundaries */
  shard_sha256 s;
  uint8_t d[32];
  shard_sha256_init(&s);
  for (size_t i = 0; i < sizeof a; i += 61) shard_sha256_update(&s, a + i, i + 61 <= sizeof a ? 61 : sizeof a - i);
  shard_sha256_final(&s, d);
  shard_sha256_digest_to_hex(d, h);
  CU_ASSERT_STRING_EQUAL(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  /* 55, 56 and 64 bytes: the padding edge cases, checked against 55 + 1 split */
  char h1[65], h2[65];
  for (size_t n = 54; n <= 65; ++n) {
    shard_sha256_hex(a, n, h1);
    shard_sha256_init(&s);
    shard_sha256_update(&s, a, n - 1);
    shard_sha256_update(&s, a, 1);
    shard_sha256_final(&s, d);
    shard_sha256_digest_to_hex(d, h2);
    CU_CHECK_MSG(strcmp(h1, h2) == 0, "length %zu: %s vs %s", n, h1, h2);
  }
  /* 64 'a': known digest */
  shard_sha256_hex(a, 64, h);
  CU_ASSERT_STRING_EQUAL(h, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

/* ---- helpers ------------------------------------------------------------- */

static shard_registry *new_reg(void) {
  shard_registry *r = NULL;
  shard_msg msg = {{0}};
  int st = shard_registry_create(&r, &msg);
  CU_ASSERT_EQUAL_FATAL(st, SHARD_OK);
  return r;
}

/* load `path` into a fresh registry, expect failure with exactly `expected` */
static void expect_load_error(const char *path, const char *expected) {
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  int st = shard_registry_load_file(r, path, &msg);
  CU_CHECK_MSG(st == SHARD_ERR_PLUGIN, "%s: status %d, expected SHARD_ERR_PLUGIN", path, st);
  CU_CHECK_MSG(strcmp(msg.text, expected) == 0, "message\n    got:      %.480s\n    expected: %.480s", msg.text, expected);
  CU_CHECK_MSG(shard_registry_count(r) == 0, "a refused file left %zu plugins", shard_registry_count(r));
  shard_registry_destroy(r);
}

static int sha256sum_of(const char *path, char out[65]) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  int ok = fscanf(p, "%64s", out) == 1;
  pclose(p);
  return ok ? 0 : -1;
}

/* ---- valid plugins ------------------------------------------------------- */

static void test_registry_kind_str(void) {
  CU_ASSERT_STRING_EQUAL(shard_plugin_kind_str(SHARD_KIND_INTEGRATOR), "integrator");
  CU_ASSERT_STRING_EQUAL(shard_plugin_kind_str(SHARD_KIND_CONTACT_LAW), "contact_law");
  CU_ASSERT_STRING_EQUAL(shard_plugin_kind_str(SHARD_KIND_LCP_SOLVER), "lcp_solver");
  CU_ASSERT_STRING_EQUAL(shard_plugin_kind_str(SHARD_KIND_TSL), "tsl");
}

static void test_registry_load_file_valid(void) {
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  const char *path = TP "/valid/test_integrator.so";
  int st = shard_registry_load_file(r, path, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "load: %.900s", msg.text);
  CU_ASSERT_EQUAL(shard_registry_count(r), 1);
  const shard_loaded_plugin *p = shard_registry_find(r, SHARD_KIND_INTEGRATOR, "test_integrator");
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_PTR_EQUAL(p, shard_registry_at(r, 0));
  CU_ASSERT_STRING_EQUAL(p->path, path);
  CU_ASSERT_EQUAL(p->desc->kind, SHARD_KIND_INTEGRATOR);
  CU_ASSERT_STRING_EQUAL(p->desc->version, "0.1.0");
  CU_ASSERT(p->desc->caps & SHARD_CAP_FORCE_LAW);
  CU_ASSERT_PTR_NULL(shard_registry_find(r, SHARD_KIND_LCP_SOLVER, "test_integrator"));
  CU_ASSERT_PTR_EQUAL(shard_registry_find(r, 0, "test_integrator"), p);
  CU_ASSERT_PTR_NULL(shard_registry_find(r, 0, "nope"));
  CU_ASSERT_PTR_NULL(shard_registry_at(r, 1));
  char ref[65] = "";
  CU_ASSERT_EQUAL_FATAL(sha256sum_of(path, ref), 0);
  CU_CHECK_MSG(strcmp(p->sha256, ref) == 0, "sha256 %s, sha256sum %s", p->sha256, ref);
  /* the same file again is a duplicate naming both (identical) paths */
  st = shard_registry_load_file(r, path, &msg);
  CU_ASSERT_EQUAL(st, SHARD_ERR_PLUGIN);
  CU_ASSERT_STRING_EQUAL(msg.text, TP "/valid/test_integrator.so: integrator 'test_integrator': duplicate name, "
                                      "already provided by " TP "/valid/test_integrator.so (integrator)");
  CU_ASSERT_EQUAL(shard_registry_count(r), 1);
  shard_registry_destroy(r);
}

static void test_registry_load_dir_sorted(void) {
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  int st = shard_registry_load_dir(r, TP "/valid", &msg);
  CU_CHECK_MSG(st == SHARD_OK, "load_dir: %.900s", msg.text);
  const char *names[] = {"test_force_law", "test_impact_law", "test_integrator", "test_lcp", "test_tsl"};
  const uint32_t kinds[] = {SHARD_KIND_CONTACT_LAW, SHARD_KIND_CONTACT_LAW, SHARD_KIND_INTEGRATOR, SHARD_KIND_LCP_SOLVER,
                       SHARD_KIND_TSL};
  CU_ASSERT_EQUAL_FATAL(shard_registry_count(r), 5);
  for (size_t i = 0; i < 5; ++i) {
    const shard_loaded_plugin *p = shard_registry_at(r, i);
    CU_CHECK_MSG(strcmp(p->desc->name, names[i]) == 0, "#%zu: %s, expected %s", i, p->desc->name, names[i]);
    CU_ASSERT_EQUAL(p->desc->kind, kinds[i]);
    char want[4200];
    snprintf(want, sizeof want, TP "/valid/%s.so", names[i]);
    CU_ASSERT_STRING_EQUAL(p->path, want);
    CU_ASSERT_EQUAL(strlen(p->sha256), 64);
  }
  /* different files, different hashes */
  CU_ASSERT(strcmp(shard_registry_at(r, 0)->sha256, shard_registry_at(r, 1)->sha256) != 0);
  shard_registry_destroy(r);
}

static void test_registry_multi_plugin_file(void) {
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  int st = shard_registry_load_file(r, TP "/multi/test_multi.so", &msg);
  CU_CHECK_MSG(st == SHARD_OK, "%.900s", msg.text);
  CU_ASSERT_EQUAL(shard_registry_count(r), 2);
  CU_ASSERT_PTR_NOT_NULL(shard_registry_find(r, SHARD_KIND_INTEGRATOR, "test_multi_a"));
  CU_ASSERT_PTR_NOT_NULL(shard_registry_find(r, SHARD_KIND_INTEGRATOR, "test_multi_b"));
  CU_ASSERT_STRING_EQUAL(shard_registry_at(r, 0)->sha256, shard_registry_at(r, 1)->sha256);
  shard_registry_destroy(r);
}

/* the valid test plugins really work: create / run / destroy through the ops */
static void test_registry_valid_plugins_run(void) {
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL_FATAL(shard_registry_load_dir(r, TP "/valid", &msg), SHARD_OK);
  /* test_lcp on a 2x2 SPD problem: z = (1, 0) */
  const shard_loaded_plugin *lp = shard_registry_find(r, SHARD_KIND_LCP_SOLVER, "test_lcp");
  CU_ASSERT_PTR_NOT_NULL_FATAL(lp);
  const shard_lcp_solver_ops *lops = lp->desc->ops;
  shard_param_value vals[6] = {{.set = 1, .real = 500, .integer = 500},
                               {.set = 1, .real = 1e-12},
                               {.set = 1, .real = 1.0},
                               {.set = 1, .boolean = 1},
                               {.set = 1, .string = "stop"},
                               {.set = 0}};
  shard_params prm = {lp->desc->params, lp->desc->n_params, vals};
  void *self = NULL;
  CU_ASSERT_EQUAL_FATAL(lops->create(&prm, &self, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(lops->setup(self, 2, 4, &msg), SHARD_OK);
  const int32_t rp[] = {0, 2, 4}, ci[] = {0, 1, 0, 1};
  const double va[] = {2.0, 1.0, 1.0, 2.0}, q[] = {-2.0, 1.0};
  shard_csr csr = {2, 2, rp, ci, va};
  shard_lcp_problem prob = {2, &csr, NULL, q, SHARD_LCP_SYMMETRIC | SHARD_LCP_PSD};
  double z[2] = {0, 0}, w[2];
  shard_lcp_report rep = {0};
  CU_ASSERT_EQUAL(lops->solve(self, &prob, z, w, &rep, &msg), SHARD_OK);
  CU_NEAR(z[0], 1.0, 1e-10);
  CU_NEAR(z[1], 0.0, 1e-10);
  CU_NEAR(w[1], 2.0, 1e-10);
  lops->destroy(self);
  lops->destroy(NULL);
  /* test_force_law: f = k max(-g, 0) */
  const shard_loaded_plugin *fp = shard_registry_find(r, SHARD_KIND_CONTACT_LAW, "test_force_law");
  CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
  const shard_contact_law_ops *fops = fp->desc->ops;
  shard_param_value kv = {.set = 1, .real = 100.0};
  shard_params fprm = {fp->desc->params, 1, &kv};
  CU_ASSERT_EQUAL_FATAL(fops->create(&fprm, NULL, &self, &msg), SHARD_OK);
  double g[2] = {-0.01, 0.5}, f[2], k[2], e[2];
  fops->force(self, 2, g, f, k, e);
  CU_NEAR(f[0], 1.0, 1e-14);
  CU_NEAR(k[0], 100.0, 0);
  CU_NEAR(e[0], 0.005, 1e-15);
  CU_NEAR(f[1], 0.0, 0);
  CU_NEAR(fops->max_stiffness(self), 100.0, 0);
  fops->destroy(self);
  shard_registry_destroy(r);
}

/* ---- one broken plugin per load error ------------------------------------ */

static void test_registry_error_not_shared_object(void) {
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  int st = shard_registry_load_file(r, TP "/not_so/bad.so", &msg);
  CU_ASSERT_EQUAL(st, SHARD_ERR_PLUGIN);
  const char *head = TP "/not_so/bad.so: not a loadable shared object: ";
  CU_CHECK_MSG(strncmp(msg.text, head, strlen(head)) == 0, "got: %.900s", msg.text);
  /* the dlerror() text follows and names the file */
  CU_CHECK_MSG(strstr(msg.text + strlen(head), "bad.so") != NULL, "dlerror part missing: %.900s", msg.text);
  shard_registry_destroy(r);
}

static void test_registry_error_missing_file(void) {
  expect_load_error(TP "/no_such_dir/x.so", TP "/no_such_dir/x.so: cannot open plugin: No such file or directory");
}

static void test_registry_error_no_entry(void) {
  expect_load_error(TP "/no_entry/broken_no_entry.so",
                    TP "/no_entry/broken_no_entry.so: no entry symbol 'shard_plugin_entry' (not a shard plugin, or "
                       "the symbol is not exported)");
}

/* An LCP solver whose ops table stops before the optional `caps` slot (the
 * table as it was before the slot was appended) still loads, and its
 * instance caps are the descriptor's; a plugin's `caps` slot changes only
 * the class bits. */
static void test_registry_lcp_abi10_compat(void) {
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL_FATAL(shard_registry_load_dir(r, TP "/abi10", &msg), SHARD_OK);
  const shard_loaded_plugin *lp = shard_registry_find(r, SHARD_KIND_LCP_SOLVER, "test_lcp_abi10");
  CU_ASSERT_PTR_NOT_NULL_FATAL(lp);
  CU_ASSERT_EQUAL(SHARD_ABI_VERSION_MINOR(lp->desc->abi_version), 0);
  CU_ASSERT(lp->desc->ops_size < sizeof(shard_lcp_solver_ops));
  int dummy = 0;
  CU_ASSERT_EQUAL(shard_lcp_solver_caps(lp->desc, &dummy), lp->desc->caps);
  const shard_loaded_plugin *cur = shard_registry_find(r, SHARD_KIND_LCP_SOLVER, "test_lcp_caps");
  CU_ASSERT_PTR_NOT_NULL_FATAL(cur);
  /* its slot claims GENERAL and tries to drop DENSE: only the class changes */
  CU_ASSERT_EQUAL(shard_lcp_solver_caps(cur->desc, &dummy),
                  (cur->desc->caps & ~(SHARD_CAP_LCP_NEEDS_PSD | SHARD_CAP_LCP_GENERAL)) | SHARD_CAP_LCP_GENERAL);
  CU_ASSERT_EQUAL(shard_lcp_solver_caps(cur->desc, NULL), cur->desc->caps);
  shard_registry_destroy(r);
}

static void test_registry_error_empty(void) {
  expect_load_error(TP "/empty/broken_empty.so",
                    TP "/empty/broken_empty.so: shard_plugin_entry(0) returned NULL: no plugin in file");
}

static void test_registry_error_abi_major(void) {
  expect_load_error(TP "/abi_major/broken_abi_major.so",
                    TP "/abi_major/broken_abi_major.so: plugin #0 'broken_abi_major': built for ABI 1.1, host is 2.1 "
                    "(rebuild it against this host's headers; docs/plugins.md, \"From ABI 1 to ABI 2\")");
}

static void test_registry_error_abi_minor(void) {
  expect_load_error(TP "/abi_minor/broken_abi_minor.so",
                    TP "/abi_minor/broken_abi_minor.so: plugin #0 'broken_abi_minor': built for ABI 2.3, host supports up to 2.1");
}

static void test_registry_error_small_struct(void) {
  char want[4200];
  snprintf(want, sizeof want,
           TP "/small_struct/broken_small_struct.so: plugin #0: descriptor struct_size 16 is smaller than the ABI "
              "2.1 descriptor (%zu bytes)",
           sizeof(shard_plugin));
  expect_load_error(TP "/small_struct/broken_small_struct.so", want);
}

static void test_registry_error_real_size(void) {
  expect_load_error(TP "/real_size/broken_real_size.so",
                    TP "/real_size/broken_real_size.so: plugin #0: built with sizeof(shard_real) = 4, host has 8");
}

static void test_registry_error_unknown_kind(void) {
  expect_load_error(TP "/unknown_kind/broken_unknown_kind.so",
                    TP "/unknown_kind/broken_unknown_kind.so: plugin 'broken_unknown_kind': unknown kind 7 "
                       "(integrator = 1, contact_law = 2, lcp_solver = 3, tsl = 4, model = 5)");
}

static void test_registry_error_invalid_name(void) {
  expect_load_error(TP "/invalid_name/broken_invalid_name.so",
                    TP "/invalid_name/broken_invalid_name.so: plugin #0: invalid name 'Bad-Name' (must match "
                       "[a-z][a-z0-9_]*)");
}

static void test_registry_error_null_ops(void) {
  expect_load_error(TP "/null_ops/broken_null_ops.so",
                    TP "/null_ops/broken_null_ops.so: integrator 'broken_null_ops': ops table is NULL");
}

static void test_registry_error_small_ops(void) {
  char want[4200];
  snprintf(want, sizeof want,
           TP "/small_ops/broken_small_ops.so: integrator 'broken_small_ops': ops table is %zu bytes, smaller than "
              "the %zu bytes its required slots need",
           2 * sizeof(void (*)(void)), offsetof(shard_integrator_ops, destroy) + sizeof(void (*)(void)));
  expect_load_error(TP "/small_ops/broken_small_ops.so", want); /* the optional reserve after destroy is not needed */
}

static void test_registry_error_missing_slot(void) {
  expect_load_error(TP "/missing_slot/broken_missing_slot.so",
                    TP "/missing_slot/broken_missing_slot.so: integrator 'broken_missing_slot': required slot 'step' "
                       "is NULL");
}

static void test_registry_error_topology_slot(void) {
  expect_load_error(TP "/topology_slot/broken_topology_slot.so",
                    TP "/topology_slot/broken_topology_slot.so: integrator 'broken_topology_slot': required slot "
                       "'on_insert' is NULL (caps include SHARD_CAP_TOPOLOGY)");
}

static void test_registry_error_two_families(void) {
  expect_load_error(TP "/two_families/broken_two_families.so",
                    TP "/two_families/broken_two_families.so: integrator 'broken_two_families': must declare exactly "
                       "one contact-law family in caps (SHARD_CAP_IMPACT_LAW or SHARD_CAP_FORCE_LAW), caps = 0x3");
}

static void test_registry_error_bad_default(void) {
  expect_load_error(TP "/bad_default/broken_bad_default.so",
                    TP "/bad_default/broken_bad_default.so: integrator 'broken_bad_default': parameter 'theta': "
                       "default '1.5' is out of range [0, 1]");
}

static void test_registry_error_bad_key(void) {
  expect_load_error(TP "/bad_key/broken_bad_key.so",
                    TP "/bad_key/broken_bad_key.so: integrator 'broken_bad_key': parameter #0: invalid key 'maxIter' "
                       "(must be lower_snake, with dots for nesting: [a-z][a-z0-9_]*(.[a-z][a-z0-9_]*)*)");
}

static void test_registry_error_no_choices(void) {
  expect_load_error(TP "/no_choices/broken_no_choices.so",
                    TP "/no_choices/broken_no_choices.so: integrator 'broken_no_choices': parameter 'policy': CHOICE "
                       "without choices (need a '|'-separated list such as \"a|b\")");
}

static void test_registry_error_int_default(void) {
  expect_load_error(TP "/int_default/broken_int_default.so",
                    TP "/int_default/broken_int_default.so: integrator 'broken_int_default': parameter 'max_iter': "
                       "default '2.5' is not an integer");
}

static void test_registry_error_duplicate_in_dir(void) {
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  int st = shard_registry_load_dir(r, TP "/duplicate", &msg);
  CU_ASSERT_EQUAL(st, SHARD_ERR_PLUGIN);
  CU_ASSERT_STRING_EQUAL(msg.text, TP "/duplicate/broken_dup_b.so: integrator 'test_dup': duplicate name, already "
                                      "provided by " TP "/duplicate/broken_dup_a.so (integrator)");
  /* the first file stays loaded, the refused one added nothing */
  CU_ASSERT_EQUAL(shard_registry_count(r), 1);
  shard_registry_destroy(r);
}

static void test_registry_error_load_dir_missing(void) {
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  int st = shard_registry_load_dir(r, TP "/no_such_dir", &msg);
  CU_ASSERT_EQUAL(st, SHARD_ERR_PLUGIN);
  CU_ASSERT_STRING_EQUAL(msg.text, TP "/no_such_dir: cannot open plugin directory: No such file or directory");
  shard_registry_destroy(r);
}

/* ---- descriptor validation through shard_registry_add --------------------- */

static int ok_create(const shard_params *p, const shard_scales *s, void **out, shard_msg *m) {
  *out = NULL;
  return SHARD_OK;
}
static void ok_destroy(void *self) { (void)self; }
static void ok_restitution(const void *self, const shard_impact_kinematics *k, double *e) {
  for (int32_t i = 0; i < k->n; ++i) e[i] = 0.0;
}
static void ok_force(const void *self, int32_t n, const double *g, double *f, double *k, double *e) {}
static int ok_lcp_create(const shard_params *p, void **out, shard_msg *m) {
  *out = NULL;
  return SHARD_OK;
}
static int ok_lcp_setup(void *self, int32_t n, int64_t nnz, shard_msg *m) { return SHARD_OK; }
static void ok_evaluate(const void *self, const shard_tsl_batch *b, int commit) {}

static void expect_add_error(const shard_plugin *d, const char *expected) {
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  int st = shard_registry_add(r, d, NULL, &msg);
  CU_CHECK_MSG(st == SHARD_ERR_PLUGIN, "status %d for '%s'", st, d->name);
  CU_CHECK_MSG(strcmp(msg.text, expected) == 0, "message\n    got:      %.480s\n    expected: %.480s", msg.text, expected);
  CU_ASSERT_EQUAL(shard_registry_count(r), 0);
  shard_registry_destroy(r);
}

static void test_registry_add_builtin(void) {
  static const shard_contact_law_ops ops = {.create = ok_create, .destroy = ok_destroy, .restitution = ok_restitution};
  static const shard_plugin d = {SHARD_PLUGIN_HEADER(SHARD_KIND_CONTACT_LAW), .name = "builtin_law",
                                 .version = "1.0.0", .ops_size = sizeof ops, .caps = SHARD_CAP_IMPACT_LAW,
                                 .ops = &ops};
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL(shard_registry_add(r, &d, NULL, &msg), SHARD_OK);
  const shard_loaded_plugin *p = shard_registry_find(r, SHARD_KIND_CONTACT_LAW, "builtin_law");
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_STRING_EQUAL(p->path, "<builtin>");
  CU_ASSERT_STRING_EQUAL(p->sha256, "");
  /* a file providing a builtin's name is a duplicate, across kinds too */
  CU_ASSERT_EQUAL(shard_registry_add(r, &d, NULL, &msg), SHARD_ERR_PLUGIN);
  CU_ASSERT_STRING_EQUAL(msg.text, "<builtin>: contact_law 'builtin_law': duplicate name, already provided by "
                                   "<builtin> (contact_law)");
  CU_ASSERT_EQUAL(shard_registry_count(r), 1);
  shard_registry_destroy(r);
}

static void test_registry_validate_slots_per_kind(void) {
  static const shard_contact_law_ops impact_no_e = {.create = ok_create, .destroy = ok_destroy, .force = ok_force};
  static const shard_plugin d1 = {SHARD_PLUGIN_HEADER(SHARD_KIND_CONTACT_LAW), .name = "law", .version = "1",
                                  .ops_size = sizeof impact_no_e, .caps = SHARD_CAP_IMPACT_LAW, .ops = &impact_no_e};
  expect_add_error(&d1, "<builtin>: contact_law 'law': required slot 'restitution' is NULL");
  static const shard_plugin d2 = {SHARD_PLUGIN_HEADER(SHARD_KIND_CONTACT_LAW), .name = "law", .version = "1",
                                  .ops_size = sizeof impact_no_e, .caps = SHARD_CAP_FORCE_LAW, .ops = &impact_no_e};
  expect_add_error(&d2, "<builtin>: contact_law 'law': required slot 'max_stiffness' is NULL");
  static const shard_plugin d3 = {SHARD_PLUGIN_HEADER(SHARD_KIND_CONTACT_LAW), .name = "law", .version = "1",
                                  .ops_size = sizeof impact_no_e, .caps = 0, .ops = &impact_no_e};
  expect_add_error(&d3, "<builtin>: contact_law 'law': must declare exactly one contact-law family in caps "
                        "(SHARD_CAP_IMPACT_LAW or SHARD_CAP_FORCE_LAW), caps = 0x0");
  static const shard_lcp_solver_ops lcp = {.create = ok_lcp_create, .setup = ok_lcp_setup, .destroy = ok_destroy};
  static const shard_plugin d4 = {SHARD_PLUGIN_HEADER(SHARD_KIND_LCP_SOLVER), .name = "lcp", .version = "1",
                                  .ops_size = sizeof lcp, .ops = &lcp};
  expect_add_error(&d4, "<builtin>: lcp_solver 'lcp': required slot 'solve' is NULL");
  static const shard_tsl_ops tsl = {.create = ok_create, .destroy = ok_destroy, .evaluate = ok_evaluate};
  static const shard_plugin d5 = {SHARD_PLUGIN_HEADER(SHARD_KIND_TSL), .name = "tsl", .version = "1",
                                  .ops_size = sizeof tsl, .ops = &tsl};
  expect_add_error(&d5, "<builtin>: tsl 'tsl': required slot 'max_stiffness' is NULL");
  static const shard_plugin d6 = {SHARD_PLUGIN_HEADER(SHARD_KIND_TSL), .name = "tsl", .version = "1",
                                  .ops_size = sizeof tsl + 8, .ops = &tsl};
  char want[512];
  snprintf(want, sizeof want,
           "<builtin>: tsl 'tsl': ops table is %zu bytes, larger than the host's %zu (built against newer headers?)",
           sizeof tsl + 8, sizeof tsl);
  expect_add_error(&d6, want);
  static const shard_plugin d7 = {SHARD_PLUGIN_HEADER(SHARD_KIND_TSL), .name = "tsl", .version = NULL,
                                  .ops_size = sizeof tsl, .ops = &tsl};
  expect_add_error(&d7, "<builtin>: tsl 'tsl': no version string");
  static const shard_plugin d8 = {SHARD_PLUGIN_HEADER(SHARD_KIND_TSL), .name = "9lives", .version = "1",
                                  .ops_size = sizeof tsl, .ops = &tsl};
  expect_add_error(&d8, "<builtin>: plugin #0: invalid name '9lives' (must match [a-z][a-z0-9_]*)");
}

/* one contact law per bad parameter table */
static void expect_param_error(const shard_param_spec *specs, uint32_t n, const char *expected_tail) {
  static const shard_contact_law_ops ops = {.create = ok_create, .destroy = ok_destroy, .restitution = ok_restitution};
  shard_plugin d = {SHARD_PLUGIN_HEADER(SHARD_KIND_CONTACT_LAW), .name = "law", .version = "1",
                    .params = specs, .n_params = n, .ops_size = sizeof ops, .caps = SHARD_CAP_IMPACT_LAW,
                    .ops = &ops};
  char want[1024];
  snprintf(want, sizeof want, "<builtin>: contact_law 'law': %s", expected_tail);
  expect_add_error(&d, want);
}

static void test_registry_validate_param_specs(void) {
  const shard_param_spec req_def[] = {{"a", SHARD_PARAM_REAL, "1", 0, 2, "m", SHARD_PARAM_REQUIRED, NULL, ""}};
  expect_param_error(req_def, 1, "parameter 'a': required but has a default '1'");
  const shard_param_spec minmax[] = {{"a", SHARD_PARAM_REAL, NULL, 2, 1, "m", 0, NULL, ""}};
  expect_param_error(minmax, 1, "parameter 'a': invalid range min 2 > max 1");
  const shard_param_spec excl[] = {{"a", SHARD_PARAM_REAL, "0", 0, 1, "m", SHARD_PARAM_MIN_EXCLUSIVE, NULL, ""}};
  expect_param_error(excl, 1, "parameter 'a': default '0' is out of range (0, 1]");
  const shard_param_spec notnum[] = {{"a", SHARD_PARAM_REAL, "1.0x", 0, 2, "m", 0, NULL, ""}};
  expect_param_error(notnum, 1, "parameter 'a': default '1.0x' is not a finite real number");
  const shard_param_spec nan_def[] = {{"a", SHARD_PARAM_REAL, "nan", -SHARD_INF, SHARD_INF, "m", 0, NULL, ""}};
  expect_param_error(nan_def, 1, "parameter 'a': default 'nan' is not a finite real number");
  const shard_param_spec boolean[] = {{"a", SHARD_PARAM_BOOL, "yes", 0, 0, "", 0, NULL, ""}};
  expect_param_error(boolean, 1, "parameter 'a': default 'yes' is not a boolean (true or false)");
  const shard_param_spec choice[] = {{"a", SHARD_PARAM_CHOICE, "maybe", 0, 0, "", 0, "stop|go", ""}};
  expect_param_error(choice, 1, "parameter 'a': default 'maybe' is not one of stop|go");
  const shard_param_spec emptychoice[] = {{"a", SHARD_PARAM_CHOICE, NULL, 0, 0, "", 0, "stop||go", ""}};
  expect_param_error(emptychoice, 1,
                     "parameter 'a': CHOICE without choices (need a '|'-separated list such as \"a|b\")");
  const shard_param_spec dup[] = {{"a", SHARD_PARAM_BOOL, NULL, 0, 0, "", 0, NULL, ""},
                                  {"a", SHARD_PARAM_BOOL, NULL, 0, 0, "", 0, NULL, ""}};
  expect_param_error(dup, 2, "parameter 'a' is declared twice (#0 and #1)");
  const shard_param_spec nest[] = {{"cap", SHARD_PARAM_BOOL, NULL, 0, 0, "", 0, NULL, ""},
                                   {"cap.alpha", SHARD_PARAM_REAL, NULL, 0, 1, "1", 0, NULL, ""}};
  expect_param_error(nest, 2, "parameter 'cap' is both a value and the map of 'cap.alpha'");
  const shard_param_spec dots[] = {{"cap..alpha", SHARD_PARAM_REAL, NULL, 0, 1, "1", 0, NULL, ""}};
  expect_param_error(dots, 1,
                     "parameter #0: invalid key 'cap..alpha' (must be lower_snake, with dots for nesting: "
                     "[a-z][a-z0-9_]*(.[a-z][a-z0-9_]*)*)");
  const shard_param_spec badtype[] = {{"a", (shard_param_type)9, NULL, 0, 1, "1", 0, NULL, ""}};
  expect_param_error(badtype, 1, "parameter 'a': unknown type 9");
  /* lists are for the host's case sections: a plugin receives one value */
  const shard_param_spec list[] = {{"a", SHARD_PARAM_REAL, NULL, 0, 1, "1", SHARD_PARAM_LIST, NULL, ""}};
  expect_param_error(list, 1, "parameter 'a': unknown flags 0x8 (SHARD_PARAM_LIST is for model keys only)");
  expect_param_error(NULL, 3, "n_params is 3 but the parameter table is NULL");
  /* a good table with dotted keys, exclusive bounds, every type, loads */
  const shard_param_spec good[] = {
      {"cap.alpha", SHARD_PARAM_REAL, "0.5", 0, 1, "1", SHARD_PARAM_MIN_EXCLUSIVE | SHARD_PARAM_MAX_EXCLUSIVE, NULL,
       ""},
      {"cap.beta", SHARD_PARAM_INT, "-3", -10, 10, "1", 0, NULL, ""},
      {"flag", SHARD_PARAM_BOOL, "false", 0, 0, "", 0, NULL, ""},
      {"mode", SHARD_PARAM_CHOICE, "go", 0, 0, "", 0, "stop|go", ""},
      {"note", SHARD_PARAM_STRING, "any text", 0, 0, "", 0, NULL, ""},
      {"e2", SHARD_PARAM_REAL, "1e-3", 0, SHARD_INF, "Pa", 0, NULL, ""},
  };
  static const shard_contact_law_ops ops = {.create = ok_create, .destroy = ok_destroy, .restitution = ok_restitution};
  shard_plugin d = {SHARD_PLUGIN_HEADER(SHARD_KIND_CONTACT_LAW), .name = "law", .version = "1",
                    .params = good, .n_params = SHARD_NPARAMS(good), .ops_size = sizeof ops,
                    .caps = SHARD_CAP_IMPACT_LAW, .ops = &ops};
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  CU_CHECK_MSG(shard_registry_add(r, &d, NULL, &msg) == SHARD_OK, "good table refused: %.900s", msg.text);
  shard_registry_destroy(r);
}

/* Discovery lists files; every test of the loaded set opens them all. */
static int discover_all(shard_registry *r, const char *path, shard_msg *msg) {
  int st = shard_registry_discover(r, path, msg);
  return st == SHARD_OK ? shard_registry_load_all(r, msg) : st;
}

/* ---- discovery ----------------------------------------------------------- */

static void test_registry_discover_cli_and_env(void) {
  unsetenv("SHARD_PLUGIN_PATH");
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  /* colon list, a missing directory skipped silently, an empty entry ignored */
  int st = discover_all(r, TP "/valid:" TP "/no_such_dir::" TP "/multi", &msg);
  CU_CHECK_MSG(st == SHARD_OK, "discover: %.900s", msg.text);
  CU_ASSERT_PTR_NOT_NULL(shard_registry_find(r, SHARD_KIND_INTEGRATOR, "test_integrator"));
  CU_ASSERT_PTR_NOT_NULL(shard_registry_find(r, SHARD_KIND_INTEGRATOR, "test_multi_b"));
  /* cli directories come first, in order */
  CU_ASSERT_STRING_EQUAL(shard_registry_at(r, 0)->path, TP "/valid/test_force_law.so");
  CU_ASSERT_STRING_EQUAL(shard_registry_at(r, 5)->path, TP "/multi/test_multi.so");
  shard_registry_destroy(r);

  /* the environment variable alone */
  setenv("SHARD_PLUGIN_PATH", TP "/multi", 1);
  r = new_reg();
  st = discover_all(r, NULL, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "discover: %.900s", msg.text);
  CU_ASSERT_STRING_EQUAL(shard_registry_at(r, 0)->path, TP "/multi/test_multi.so");
  shard_registry_destroy(r);

  /* cli before env */
  setenv("SHARD_PLUGIN_PATH", TP "/multi", 1);
  r = new_reg();
  st = discover_all(r, TP "/valid", &msg);
  CU_CHECK_MSG(st == SHARD_OK, "discover: %.900s", msg.text);
  CU_ASSERT_STRING_EQUAL(shard_registry_at(r, 0)->path, TP "/valid/test_force_law.so");
  CU_ASSERT_STRING_EQUAL(shard_registry_at(r, 5)->path, TP "/multi/test_multi.so");
  shard_registry_destroy(r);

  /* one directory named twice (cli and env) is loaded once */
  setenv("SHARD_PLUGIN_PATH", TP "/valid/", 1);
  r = new_reg();
  st = discover_all(r, TP "/valid", &msg);
  CU_CHECK_MSG(st == SHARD_OK, "discover: %.900s", msg.text);
  CU_ASSERT_PTR_NOT_NULL(shard_registry_find(r, SHARD_KIND_TSL, "test_tsl"));
  shard_registry_destroy(r);
  unsetenv("SHARD_PLUGIN_PATH");
}

static void test_registry_discover_duplicate_explicit(void) {
  /* the same name in a cli directory and an env directory: error, both paths */
  setenv("SHARD_PLUGIN_PATH", TP "/valid_copy", 1);
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  int st = discover_all(r, TP "/valid", &msg);
  CU_ASSERT_EQUAL(st, SHARD_ERR_PLUGIN);
  CU_ASSERT_STRING_EQUAL(msg.text, TP "/valid_copy/test_integrator_copy.so: integrator 'test_integrator': duplicate "
                                      "name, already provided by " TP "/valid/test_integrator.so (integrator)");
  shard_registry_destroy(r);
  unsetenv("SHARD_PLUGIN_PATH");
  /* and two cli directories */
  r = new_reg();
  st = discover_all(r, TP "/valid_copy:" TP "/valid", &msg);
  CU_ASSERT_EQUAL(st, SHARD_ERR_PLUGIN);
  CU_ASSERT_STRING_EQUAL(msg.text, TP "/valid/test_integrator.so: integrator 'test_integrator': duplicate name, "
                                      "already provided by " TP "/valid_copy/test_integrator_copy.so (integrator)");
  shard_registry_destroy(r);
  /* a file where a directory is expected is an error, not silently skipped */
  r = new_reg();
  st = discover_all(r, TP "/valid/test_tsl.so", &msg);
  CU_ASSERT_EQUAL(st, SHARD_ERR_PLUGIN);
  CU_ASSERT_STRING_EQUAL(msg.text, TP "/valid/test_tsl.so: not a directory (plugin search paths list directories)");
  shard_registry_destroy(r);
  /* a broken plugin in an explicit path fails discovery with its message */
  r = new_reg();
  st = discover_all(r, TP "/missing_slot", &msg);
  CU_ASSERT_EQUAL(st, SHARD_ERR_PLUGIN);
  CU_ASSERT(strstr(msg.text, "required slot 'step' is NULL") != NULL);
  shard_registry_destroy(r);
}

static int copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb");
  if (!in) return -1;
  FILE *out = fopen(to, "wb");
  if (!out) {
    fclose(in);
    return -1;
  }
  char buf[65536];
  size_t n;
  int rc = 0;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0)
    if (fwrite(buf, 1, n, out) != n) rc = -1;
  fclose(in);
  if (fclose(out) != 0) rc = -1;
  return rc;
}

/* A plugin in an explicit directory shadows the same name in the default
 * (executable-relative) directory silently. The test executable lives in the
 * build's bin/, so its executable-relative directory is the build-tree plugin
 * directory (SHARD_PLUGIN_DIR): copy one of those plugins elsewhere and put
 * that directory first. */
static void test_registry_discover_shadows_defaults(void) {
  unsetenv("SHARD_PLUGIN_PATH");
  DIR *dp = opendir(SHARD_PLUGIN_DIR);
  char first[256] = "";
  if (dp) {
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
      size_t n = strlen(de->d_name);
      if (n > 3 && strcmp(de->d_name + n - 3, ".so") == 0 && (!first[0] || strcmp(de->d_name, first) < 0))
        snprintf(first, sizeof first, "%s", de->d_name);
    }
    closedir(dp);
  }
  if (!first[0]) {
    printf("\n  (no plugin in %s yet: shadowing checked only without defaults)\n", SHARD_PLUGIN_DIR);
    return;
  }
  /* what the defaults provide on their own */
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  int st = discover_all(r, NULL, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "defaults alone: %.900s", msg.text);
  size_t n_defaults = shard_registry_count(r);
  CU_ASSERT(n_defaults > 0);
  shard_registry_destroy(r);

  char tmpl[] = "/tmp/shard_test_registry_XXXXXX";
  char *dir = mkdtemp(tmpl);
  CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
  char from[4200], to[4200];
  snprintf(from, sizeof from, "%s/%s", SHARD_PLUGIN_DIR, first);
  snprintf(to, sizeof to, "%s/%s", dir, first);
  CU_ASSERT_EQUAL_FATAL(copy_file(from, to), 0);

  r = new_reg();
  st = discover_all(r, dir, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "shadowing: %.900s", msg.text);
  CU_ASSERT_EQUAL(shard_registry_count(r), n_defaults);
  const shard_loaded_plugin *p = shard_registry_at(r, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_STRING_EQUAL(p->path, to);
  CU_ASSERT_PTR_EQUAL(shard_registry_find(r, 0, p->desc->name), p);
  shard_registry_destroy(r);
  unlink(to);
  rmdir(dir);
}

/* ---- lazy loading, probes, refused files ---------------------------------- */

/* Discovery opens nothing: a plugin is loaded when a lookup names it (its
 * NAME.so first), and a file that crashes when loaded is probed in a child
 * process only when every file must be looked at, then refused by name. */
static void test_registry_lazy_loading_skips_bad_files(void) {
  unsetenv("SHARD_PLUGIN_PATH");
  char tmpl[] = "/tmp/shard_test_registry_XXXXXX";
  char *dir = mkdtemp(tmpl);
  CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
  const char *from[] = {TP "/valid/test_integrator.so", TP "/multi/test_multi.so",
                        TP "/entry_crash/broken_entry_crash.so"};
  const char *names[] = {"test_integrator.so", "test_multi.so", "broken_entry_crash.so"};
  char to[3][4200];
  for (int i = 0; i < 3; ++i) {
    snprintf(to[i], sizeof to[i], "%s/%s", dir, names[i]);
    CU_ASSERT_EQUAL_FATAL(symlink(from[i], to[i]), 0);
  }
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL(shard_registry_discover(r, dir, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_registry_count(r), 0); /* nothing opened yet */
  const shard_loaded_plugin *p = shard_registry_find(r, SHARD_KIND_INTEGRATOR, "test_integrator");
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_STRING_EQUAL(p->path, to[0]);
  CU_ASSERT_EQUAL(shard_registry_count(r), 1);
  CU_ASSERT_EQUAL(shard_registry_problem_count(r), 0); /* the crashing file was never opened */
  /* no test_multi_b.so: every file is looked at, the crashing one in a child */
  CU_ASSERT_PTR_NOT_NULL(shard_registry_find(r, SHARD_KIND_INTEGRATOR, "test_multi_b"));
  CU_ASSERT_PTR_NOT_NULL(shard_registry_find(r, SHARD_KIND_INTEGRATOR, "test_multi_a"));
  CU_ASSERT_EQUAL_FATAL(shard_registry_problem_count(r), 1);
  char expect[4400];
  snprintf(expect, sizeof expect, "%s: refused: loading it ", to[2]);
  CU_CHECK_MSG(strncmp(shard_registry_problem(r, 0), expect, strlen(expect)) == 0, "problem: %.600s",
               shard_registry_problem(r, 0));
  /* (under sanitizers the crash is an exit status, not a signal) */
  CU_ASSERT(strstr(shard_registry_problem(r, 0), "crashed (Segmentation fault) in its constructor or in "
                                                 "shard_plugin_entry") != NULL ||
            strstr(shard_registry_problem(r, 0), "ended the process") != NULL);
  CU_ASSERT_PTR_EQUAL(shard_registry_why(r, "broken_entry_crash"), shard_registry_problem(r, 0));
  CU_ASSERT_PTR_NULL(shard_registry_find(r, 0, "broken_entry_crash"));
  CU_ASSERT_PTR_NULL(shard_registry_why(r, "test_integrator"));
  /* where it looked: the given directory first */
  char searched[8192];
  shard_registry_search_path(r, searched, sizeof searched);
  CU_CHECK_MSG(strncmp(searched, dir, strlen(dir)) == 0, "searched: %.600s", searched);
  /* every file at once: the problem is reported, the rest is loaded */
  CU_ASSERT_EQUAL(shard_registry_load_all(r, &msg), SHARD_ERR_PLUGIN);
  CU_ASSERT_STRING_EQUAL(msg.text, shard_registry_problem(r, 0));
  shard_registry_destroy(r);
  for (int i = 0; i < 3; ++i) unlink(to[i]);
  rmdir(dir);
}

/* A name no file can have (not lower_snake) still opens the path, so that the
 * caller can list what is available. */
static void test_registry_invalid_name_lists_all(void) {
  unsetenv("SHARD_PLUGIN_PATH");
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL(shard_registry_discover(r, TP "/valid", &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_registry_count(r), 0);
  CU_ASSERT_PTR_NULL(shard_registry_find(r, SHARD_KIND_INTEGRATOR, "test#integrator"));
  CU_ASSERT_PTR_NOT_NULL(shard_registry_find(r, SHARD_KIND_TSL, "test_tsl"));
  CU_ASSERT(shard_registry_count(r) >= 5);
  shard_registry_destroy(r);
}

/* NAME.so in two explicit directories: neither is used for NAME (which one is
 * meant is not known), the rest of the path is unaffected. */
static void test_registry_duplicate_file_name(void) {
  unsetenv("SHARD_PLUGIN_PATH");
  char tmpl[] = "/tmp/shard_test_registry_XXXXXX";
  char *dir = mkdtemp(tmpl);
  CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
  char to[4200], path[8500], expect[9000];
  snprintf(to, sizeof to, "%s/test_integrator.so", dir);
  CU_ASSERT_EQUAL_FATAL(symlink(TP "/valid_copy/test_integrator_copy.so", to), 0);
  snprintf(path, sizeof path, "%s:%s", TP "/valid", dir);
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL(shard_registry_discover(r, path, &msg), SHARD_OK);
  CU_ASSERT_PTR_NULL(shard_registry_find(r, SHARD_KIND_INTEGRATOR, "test_integrator"));
  snprintf(expect, sizeof expect,
           "%s: duplicate file name, also " TP "/valid/test_integrator.so (two directories of --plugin-path or "
           "SHARD_PLUGIN_PATH provide test_integrator.so; remove one)",
           to);
  const char *why = shard_registry_why(r, "test_integrator");
  CU_ASSERT_PTR_NOT_NULL_FATAL(why);
  CU_ASSERT_STRING_EQUAL(why, expect);
  CU_ASSERT_PTR_NOT_NULL(shard_registry_find(r, SHARD_KIND_TSL, "test_tsl"));
  CU_ASSERT_EQUAL(shard_registry_load_all(r, &msg), SHARD_ERR_PLUGIN);
  CU_ASSERT_STRING_EQUAL(msg.text, expect);
  shard_registry_destroy(r);
  unlink(to);
  rmdir(dir);
}

/* A file whose entry point never returns is given up after the probe timeout. */
static void test_registry_probe_timeout(void) {
  setenv("SHARD_PLUGIN_PROBE_TIMEOUT", "0.5", 1);
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL(shard_registry_discover(r, TP "/entry_loop", &msg), SHARD_OK);
  CU_ASSERT_PTR_NULL(shard_registry_find(r, 0, "broken_entry_loop"));
  unsetenv("SHARD_PLUGIN_PROBE_TIMEOUT"); /* before any assertion may leave the test */
  const char *why = shard_registry_why(r, "broken_entry_loop");
  CU_ASSERT_PTR_NOT_NULL(why);
  if (why)
    CU_ASSERT_STRING_EQUAL(why, TP "/entry_loop/broken_entry_loop.so: refused: loading it did not finish within 0.5 s "
                                   "(a loop in its constructor or in shard_plugin_entry?)");
  shard_registry_destroy(r);
}

/* A file that ends the process when loaded is refused with its exit status. */
static void test_registry_probe_exit(void) {
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL(shard_registry_discover(r, TP "/entry_exit", &msg), SHARD_OK);
  CU_ASSERT_PTR_NULL(shard_registry_find(r, 0, "broken_entry_exit"));
  const char *why = shard_registry_why(r, "broken_entry_exit");
  CU_ASSERT_PTR_NOT_NULL_FATAL(why);
  CU_ASSERT_STRING_EQUAL(why, TP "/entry_exit/broken_entry_exit.so: refused: loading it ended the process (exit "
                                 "status 3)");
  shard_registry_destroy(r);
}

/* Plugin files and their directories writable by others than the owner are
 * refused, naming the path and its mode; explicit loads too. */
static void test_registry_refuses_writable(void) {
  unsetenv("SHARD_PLUGIN_PATH");
  char tmpl[] = "/tmp/shard_test_registry_XXXXXX";
  char *dir = mkdtemp(tmpl);
  CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
  char file[4200], expect[9000];
  snprintf(file, sizeof file, "%s/test_integrator.so", dir);
  CU_ASSERT_EQUAL_FATAL(copy_file(TP "/valid/test_integrator.so", file), 0);
  CU_ASSERT_EQUAL_FATAL(chmod(file, 0755), 0);
  CU_ASSERT_EQUAL_FATAL(chmod(dir, 0777), 0);
  shard_msg msg = {{0}};
  shard_registry *r = new_reg();
  CU_ASSERT_EQUAL(shard_registry_discover(r, dir, &msg), SHARD_OK);
  CU_ASSERT_PTR_NULL(shard_registry_find(r, SHARD_KIND_INTEGRATOR, "test_integrator"));
  snprintf(expect, sizeof expect,
           "%s: refused: its directory %s is writable by its group and everyone (mode 0777); make it writable by its "
           "owner only (chmod go-w %s)",
           file, dir, dir);
  const char *why = shard_registry_why(r, "test_integrator");
  CU_ASSERT_PTR_NOT_NULL_FATAL(why);
  CU_ASSERT_STRING_EQUAL(why, expect);
  CU_ASSERT_EQUAL(shard_registry_load_file(r, file, &msg), SHARD_ERR_PLUGIN);
  CU_ASSERT_STRING_EQUAL(msg.text, expect);
  shard_registry_destroy(r);

  CU_ASSERT_EQUAL_FATAL(chmod(dir, 0700), 0);
  CU_ASSERT_EQUAL_FATAL(chmod(file, 0664), 0);
  r = new_reg();
  CU_ASSERT_EQUAL(shard_registry_discover(r, dir, &msg), SHARD_OK);
  CU_ASSERT_PTR_NULL(shard_registry_find(r, SHARD_KIND_INTEGRATOR, "test_integrator"));
  snprintf(expect, sizeof expect,
           "%s: refused: the file is writable by its group (mode 0664); make it writable by its owner only "
           "(chmod go-w %s)",
           file, file);
  why = shard_registry_why(r, "test_integrator");
  CU_ASSERT_PTR_NOT_NULL_FATAL(why);
  CU_ASSERT_STRING_EQUAL(why, expect);
  shard_registry_destroy(r);

  CU_ASSERT_EQUAL_FATAL(chmod(file, 0755), 0);
  r = new_reg();
  CU_ASSERT_EQUAL(shard_registry_discover(r, dir, &msg), SHARD_OK);
  CU_ASSERT_PTR_NOT_NULL(shard_registry_find(r, SHARD_KIND_INTEGRATOR, "test_integrator"));
  shard_registry_destroy(r);
  unlink(file);
  rmdir(dir);
}

/* A model (SHARD_KIND_MODEL): the chain plugin of the build, its ops copied
 * with one slot taken out, is refused naming the slot; the fields_* group is
 * all or none; list keys are a model's right (its keys are a case section),
 * and its own descriptor loads. */
static void test_registry_model_slots(void) {
  shard_registry *r = new_reg();
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL_FATAL(shard_registry_load_file(r, SHARD_PLUGIN_DIR "/chain.so", &msg), SHARD_OK);
  const shard_loaded_plugin *lp = shard_registry_find(r, SHARD_KIND_MODEL, "chain");
  CU_ASSERT_PTR_NOT_NULL_FATAL(lp);
  CU_ASSERT_STRING_EQUAL(shard_plugin_kind_str(SHARD_KIND_MODEL), "model");
  const shard_model_ops *chain = lp->desc->ops;
  static shard_model_ops ops;
  shard_plugin d = *lp->desc;
  d.name = "model_x";
  d.ops = &ops;
  ops = *chain;
  ops.commit = NULL;
  expect_add_error(&d, "<builtin>: model 'model_x': required slot 'commit' is NULL");
  ops = *chain;
  ops.outputs = NULL;
  expect_add_error(&d, "<builtin>: model 'model_x': the model declares no outputs (history and summary tables)");
  ops = *chain;
  ops.fields_note = (const char *(*)(const void *))(void (*)(void))ok_destroy; /* one of five set */
  expect_add_error(&d, "<builtin>: model 'model_x': the fields_* slots are all set or all NULL, 4 of 5 are NULL");
  ops = *chain;
  static const shard_param_spec text_list[] = {{"a", SHARD_PARAM_STRING, NULL, 0, 0, "", SHARD_PARAM_LIST, NULL, ""}};
  d.params = text_list, d.n_params = 1;
  expect_add_error(&d, "<builtin>: model 'model_x': parameter 'a': a list key is REAL or INT");
  shard_registry_destroy(r);
}

static const cu_test_def tests[] = {
    {"test_registry_model_slots", test_registry_model_slots},
    {"test_registry_sha256_vectors", test_registry_sha256_vectors},
    {"test_registry_sha256_million_a_streamed", test_registry_sha256_million_a_streamed},
    {"test_registry_kind_str", test_registry_kind_str},
    {"test_registry_load_file_valid", test_registry_load_file_valid},
    {"test_registry_load_dir_sorted", test_registry_load_dir_sorted},
    {"test_registry_multi_plugin_file", test_registry_multi_plugin_file},
    {"test_registry_valid_plugins_run", test_registry_valid_plugins_run},
    {"test_registry_error_not_shared_object", test_registry_error_not_shared_object},
    {"test_registry_error_missing_file", test_registry_error_missing_file},
    {"test_registry_error_no_entry", test_registry_error_no_entry},
    {"test_registry_lcp_abi10_compat", test_registry_lcp_abi10_compat},
    {"test_registry_error_empty", test_registry_error_empty},
    {"test_registry_error_abi_major", test_registry_error_abi_major},
    {"test_registry_error_abi_minor", test_registry_error_abi_minor},
    {"test_registry_error_small_struct", test_registry_error_small_struct},
    {"test_registry_error_real_size", test_registry_error_real_size},
    {"test_registry_error_unknown_kind", test_registry_error_unknown_kind},
    {"test_registry_error_invalid_name", test_registry_error_invalid_name},
    {"test_registry_error_null_ops", test_registry_error_null_ops},
    {"test_registry_error_small_ops", test_registry_error_small_ops},
    {"test_registry_error_missing_slot", test_registry_error_missing_slot},
    {"test_registry_error_topology_slot", test_registry_error_topology_slot},
    {"test_registry_error_two_families", test_registry_error_two_families},
    {"test_registry_error_bad_default", test_registry_error_bad_default},
    {"test_registry_error_bad_key", test_registry_error_bad_key},
    {"test_registry_error_no_choices", test_registry_error_no_choices},
    {"test_registry_error_int_default", test_registry_error_int_default},
    {"test_registry_error_duplicate_in_dir", test_registry_error_duplicate_in_dir},
    {"test_registry_error_load_dir_missing", test_registry_error_load_dir_missing},
    {"test_registry_add_builtin", test_registry_add_builtin},
    {"test_registry_validate_slots_per_kind", test_registry_validate_slots_per_kind},
    {"test_registry_validate_param_specs", test_registry_validate_param_specs},
    {"test_registry_discover_cli_and_env", test_registry_discover_cli_and_env},
    {"test_registry_discover_duplicate_explicit", test_registry_discover_duplicate_explicit},
    {"test_registry_discover_shadows_defaults", test_registry_discover_shadows_defaults},
    {"test_registry_lazy_loading_skips_bad_files", test_registry_lazy_loading_skips_bad_files},
    {"test_registry_invalid_name_lists_all", test_registry_invalid_name_lists_all},
    {"test_registry_duplicate_file_name", test_registry_duplicate_file_name},
    {"test_registry_probe_timeout", test_registry_probe_timeout},
    {"test_registry_probe_exit", test_registry_probe_exit},
    {"test_registry_refuses_writable", test_registry_refuses_writable},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "registry", tests); }
