/* tests: build the bar plugin's engine (plugins/models/bar/model.h) from a
 * loaded case, as the run does through the model ABI: the model and
 * fracture sections resolved (shard_case_model_params), then
 * shard_model_create. For the suites that test the plugin's parts. */
#ifndef SHARD_TEST_BAR_BUILD_H
#define SHARD_TEST_BAR_BUILD_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "case/case.h"
#include "core/diag.h"
#include "cu_runner.h"
#include "loader/registry.h"
#include "model.h"

static inline int shard_model_build(const shard_case *c, const shard_scope *scope, shard_model **out,
                                    shard_diag *diag, shard_msg *msg) {
  *out = NULL;
  const char *type = shard_case_string(c, "model.type");
  shard_params p, fr;
  const shard_params *frac;
  if (shard_case_model_params(c, scope, &p, &fr, &frac, diag) != SHARD_OK)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid %s model", type ? type : "(no type)");
  const shard_model_args a = {type, &p, frac, shard_case_path(c)};
  return shard_model_create(&a, out, msg);
}

static inline int shard_test_no_lookup(void *ctx, const char *name, double *out) {
  (void)ctx, (void)name, (void)out;
  return 0;
}

/* The bar model of a case text (written to a temporary file, plugins from
 * SHARD_PLUGIN_DIR); NULL, with the diagnostics printed, when it does not
 * build. */
static inline shard_model *shard_test_bar_from_text(const char *text) {
  char path[] = "/tmp/shard_bar_build_XXXXXX";
  const int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  shard_msg msg = {{0}};
  shard_registry *reg = NULL;
  CU_ASSERT_FATAL(shard_registry_create(&reg, &msg) == SHARD_OK);
  CU_ASSERT_FATAL(shard_registry_load_dir(reg, SHARD_PLUGIN_DIR, &msg) == SHARD_OK);
  shard_diag *diag = shard_diag_create();
  shard_case *c = NULL;
  shard_model *m = NULL;
  const shard_scope scope = {shard_test_no_lookup, NULL, NULL};
  if (shard_case_load(path, NULL, 0, reg, &c, diag) == SHARD_OK) shard_model_build(c, &scope, &m, diag, &msg);
  if (shard_diag_count(diag)) shard_diag_print(diag, stderr);
  CU_CHECK_MSG(m != NULL, "model not built: %.300s", msg.text);
  shard_case_destroy(c);
  shard_diag_destroy(diag);
  shard_registry_destroy(reg);
  remove(path);
  return m;
}

#endif
