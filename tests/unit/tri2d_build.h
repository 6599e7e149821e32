/* tests: build the tri2d model plugin from a few keys, as the host does
 * (the registry's descriptor, its resolved parameters, the model's create),
 * for the suites that look inside it (test_tri2d.c, test_tri2d_fracture.c). */
#ifndef SHARD_TEST_TRI2D_BUILD_H
#define SHARD_TEST_TRI2D_BUILD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_helpers.h"
#include "shard/model.h"

typedef struct kv {
  const char *key, *text; /* text: a number, a pair "[x,y]", or the word of a choice */
} kv;

typedef struct built {
  const shard_model_ops *ops;
  void *self;
  shard_system *sys;
} built;

/* Create tri2d with the keys given (the others unset) and the fracture
 * section's values (NULL: none), as the host does. */
static int build_fracture(const kv *keys, int n, const shard_params *fracture, built *b, shard_msg *msg) {
  const shard_loaded_plugin *lp = shard_registry_find(rh_registry(), SHARD_KIND_MODEL, "tri2d");
  if (!lp) return shard_msg_set(msg, SHARD_ERR_INPUT, "no tri2d plugin in %s", SHARD_PLUGIN_DIR);
  const shard_plugin *d = lp->desc;
  static shard_param_value vals[64];
  static double lists[64][2];
  memset(vals, 0, sizeof vals);
  for (uint32_t i = 0; i < d->n_params; ++i)
    for (int k = 0; k < n; ++k) {
      if (strcmp(d->params[i].key, keys[k].key) != 0) continue;
      shard_param_value *v = &vals[i];
      v->set = 1;
      if (d->params[i].type == SHARD_PARAM_CHOICE || d->params[i].type == SHARD_PARAM_STRING) {
        v->string = keys[k].text;
      } else if (keys[k].text[0] == '[') {
        sscanf(keys[k].text, "[%lf,%lf]", &lists[i][0], &lists[i][1]);
        v->list = lists[i], v->n_list = 2, v->real = lists[i][0];
      } else {
        v->real = strtod(keys[k].text, NULL), v->integer = (long long)v->real;
        lists[i][0] = v->real, v->list = lists[i], v->n_list = 1;
      }
    }
  static shard_params p;
  p = (shard_params){d->params, d->n_params, vals};
  const shard_model_args a = {"tri2d", &p, fracture, "test.yaml"};
  b->ops = d->ops;
  return b->ops->create(&a, &b->self, &b->sys, msg);
}

/* Create tri2d with the keys given (the others unset), as the host does. */
static int build(const kv *keys, int n, built *b, shard_msg *msg) { return build_fracture(keys, n, NULL, b, msg); }

#endif
