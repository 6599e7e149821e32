/* tests: the model's ops table read at the host's size (shard_model_ops_widen,
 * framework/src/loader/plugin_calls.h). A table shorter than the host's (a
 * model built before probe_* or contact_operator were appended) widens to
 * one whose missing slots are NULL, whatever bytes follow it in the plugin;
 * such a model registers, runs a fracturing bar with insertions to the same
 * history and fragments as the full table (the host forms W' itself) and is
 * refused output.probes with the message, exit 2. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/diag.h"
#include "cu_runner.h"
#include "loader/plugin_calls.h"
#include "run_helpers.h"

static int fake_create(const shard_model_args *a, void **self, shard_system **sys, shard_msg *msg) {
  (void)a, (void)self, (void)sys, (void)msg;
  return SHARD_OK;
}
static int fake_probe_open(void *self, const char *dir, int32_t stride, shard_msg *msg) {
  (void)self, (void)dir, (void)stride, (void)msg;
  return SHARD_OK;
}
static int fake_probe_write(void *self, double t, shard_msg *msg) {
  (void)self, (void)t, (void)msg;
  return SHARD_OK;
}
static int fake_probe_close(void *self, int done, shard_msg *msg) {
  (void)self, (void)done, (void)msg;
  return SHARD_OK;
}
static int fake_w(void *self, const int32_t *rows, int32_t n, double kcoef, int32_t *w_rowptr, int32_t *w_col,
                  double *w_val, int64_t cap, shard_msg *msg) {
  (void)self, (void)rows, (void)n, (void)kcoef, (void)w_rowptr, (void)w_col, (void)w_val, (void)cap, (void)msg;
  return SHARD_OK;
}

/* the widened table: the plugin's slots up to its ops_size, NULL after */
static void test_model_ops_widen_short_table(void) {
  const shard_model_ops full = {.create = fake_create, .probe_open = fake_probe_open,
                                .probe_write = fake_probe_write, .probe_close = fake_probe_close,
                                .contact_operator = fake_w};
  shard_plugin d = {SHARD_PLUGIN_HEADER(SHARD_KIND_MODEL), .name = "x", .ops = &full,
                    .ops_size = sizeof(shard_model_ops)};
  shard_model_ops w;
  shard_model_ops_widen(&d, &w);
  CU_ASSERT_PTR_EQUAL(w.create, fake_create);
  CU_ASSERT_PTR_EQUAL(w.probe_close, fake_probe_close);
  CU_ASSERT_PTR_EQUAL(w.contact_operator, fake_w);
  /* a table of the ABI before contact_operator: the bytes of `full` beyond it are not read */
  d.ops_size = (uint32_t)offsetof(shard_model_ops, contact_operator);
  shard_model_ops_widen(&d, &w);
  CU_ASSERT_PTR_EQUAL(w.create, fake_create);
  CU_ASSERT_PTR_EQUAL(w.probe_open, fake_probe_open);
  CU_ASSERT_PTR_EQUAL(w.probe_close, fake_probe_close);
  CU_ASSERT_PTR_NULL(w.contact_operator);
  /* ... and before the probes */
  d.ops_size = (uint32_t)offsetof(shard_model_ops, probe_open);
  shard_model_ops_widen(&d, &w);
  CU_ASSERT_PTR_EQUAL(w.create, fake_create);
  CU_ASSERT_PTR_NULL(w.probe_open);
  CU_ASSERT_PTR_NULL(w.probe_write);
  CU_ASSERT_PTR_NULL(w.probe_close);
  CU_ASSERT_PTR_NULL(w.contact_operator);
  /* a descriptor of another kind: nothing */
  d.kind = SHARD_KIND_TSL;
  shard_model_ops_widen(&d, &w);
  CU_ASSERT_PTR_NULL(w.create);
  CU_ASSERT_PTR_NULL(w.contact_operator);
}

/* the bar as a model built before the probes: its descriptor and table,
 * ops_size ending before probe_open (the bytes after it still hold the
 * bar's probe_* and contact_operator, which the host must not read), its
 * create handing the bar's own type to the bar's create */
static shard_plugin old_bar;
static shard_model_ops old_ops;
static const shard_model_ops *bar_ops;

static int old_create(const shard_model_args *args, void **out_self, shard_system **out_sys, shard_msg *msg) {
  shard_model_args a = *args;
  a.type = "bar";
  return bar_ops->create(&a, out_self, out_sys, msg);
}

static int add_old_bar(void) {
  static int added;
  if (added) return 1;
  const shard_loaded_plugin *lp = shard_registry_find(rh_registry(), SHARD_KIND_MODEL, "bar");
  CU_ASSERT_PTR_NOT_NULL_FATAL(lp);
  bar_ops = shard_model_ops_of(lp->desc);
  CU_ASSERT_FATAL(bar_ops && bar_ops->probe_open && bar_ops->contact_operator);
  old_ops = *bar_ops;
  old_ops.create = old_create;
  old_bar = *lp->desc;
  old_bar.name = "old_bar";
  old_bar.ops = &old_ops;
  old_bar.ops_size = (uint32_t)offsetof(shard_model_ops, probe_open);
  shard_msg msg = {{0}};
  const int st = shard_registry_add(rh_registry(), &old_bar, "<builtin>", &msg);
  CU_CHECK_MSG(st == SHARD_OK, "registering the short table: %.300s", msg.text);
  return added = st == SHARD_OK;
}

static int same_file(const char *a, const char *b, const char *name) {
  size_t na = 0, nb = 0;
  char *x = rh_read_file(a, name, &na), *y = rh_read_file(b, name, &nb);
  const int same = x && y && na == nb && memcmp(x, y, na) == 0;
  CU_CHECK_MSG(same, "%s differs between %s and %s (%zu and %zu bytes)", name, a, b, na, nb);
  free(x), free(y);
  return same;
}

/* a fracturing bar (insertions, contacts in the cracks, NSN on the LCP)
 * under the short table runs to the same outputs as under the full one */
static void test_model_ops_old_table_runs(void) {
  if (!add_old_bar()) return;
  const char *sets_new[] = {"model.elements=200", "time.end=60 * t0", "time.stop=end"};
  const char *sets_old[] = {"model.elements=200", "time.end=60 * t0", "time.stop=end", "model.type=old_bar"};
  char out_new[512], out_old[512], m[400];
  int code = rh_run("cases/paper/free_ring_case", "full", sets_new, 3, out_new, sizeof out_new, m, sizeof m);
  CU_CHECK_MSG(code == 0, "full table: exit %d: %s", code, m);
  code = rh_run("cases/paper/free_ring_case", "short", sets_old, 4, out_old, sizeof out_old, m, sizeof m);
  CU_CHECK_MSG(code == 0, "short table: exit %d: %s", code, m);
  if (code != 0) return;
  const double broken = rh_summary(out_old, "fracture.broken");
  CU_CHECK_MSG(broken > 0, "the short-table run broke %g interfaces", broken);
  same_file(out_new, out_old, "history.csv");
  same_file(out_new, out_old, "fragments.csv");
  same_file(out_new, out_old, "interfaces.csv");
}

/* output.probes with a table that ends before the probes: refused, exit 2 */
static void test_model_ops_old_table_no_probes(void) {
  if (!add_old_bar()) return;
  char path[512];
  snprintf(path, sizeof path, "%s/cases/paper/free_ring_case.yaml", SHARD_SOURCE_DIR);
  const char *sets[] = {"model.type=old_bar", "time.stop=end", "output.probes.from=0", "output.probes.to=1e-7",
                        "output.probes.interval=1e-8"};
  shard_diag *diag = shard_diag_create();
  shard_case *c = NULL;
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL_FATAL(shard_case_load(path, sets, 5, rh_registry(), &c, diag), SHARD_OK);
  CU_ASSERT_EQUAL(shard_run_check(c, rh_registry(), diag, &msg), 2);
  const char *first = shard_diag_first(diag);
  CU_CHECK_MSG(first && strstr(first, "'output.probes': model 'bar' has no stress probes"), "diag: %.300s; msg: %.300s",
               first ? first : "(none)", msg.text);
  shard_case_destroy(c);
  shard_diag_destroy(diag);
}

int main(int argc, char **argv) {
  static const cu_test_def tests[] = {
      {"test_model_ops_widen_short_table", test_model_ops_widen_short_table},
      {"test_model_ops_old_table_runs", test_model_ops_old_table_runs},
      {"test_model_ops_old_table_no_probes", test_model_ops_old_table_no_probes},
      {NULL, NULL}};
  return cu_main(argc, argv, "model_ops", tests);
}
