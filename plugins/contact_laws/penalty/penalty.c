/* penalty — linear penalty contact (docs/theory.md §5): on a violated gap g < 0 a
 * restoring force ε_n A |g|, stiffness ε_n A, reversible energy ½ ε_n A g².
 * ε_n is given either absolutely (`stiffness`, Pa/m) or as α E / h̄ (`alpha`)
 * from the model's scales; A is the model's cross-section (1 when the model
 * has none, e.g. a particle). The force family: used by explicit_newmark.
 *
 * The law has a kink at g = 0: force and stiffness are zero for g ≥ 0 and
 * ε_n A (−g), ε_n A for g < 0. That is the penalty method itself, not an
 * approximation of this implementation. */
#include <math.h>
#include <stdlib.h>

#include "shard/contact_law.h"

typedef struct penalty {
  double k; /* ε_n A [N/m] */
} penalty;

static const shard_param_spec penalty_params[] = {
    {.key = "alpha",
     .type = SHARD_PARAM_REAL,
     .def = NULL,
     .min = 0.0,
     .max = SHARD_INF,
     .unit = "1",
     .flags = SHARD_PARAM_MIN_EXCLUSIVE,
     .choices = NULL,
     .doc = "relative penalty: eps_n = alpha E / h_mean (give alpha or stiffness, not both)"},
    {.key = "stiffness",
     .type = SHARD_PARAM_REAL,
     .def = NULL,
     .min = 0.0,
     .max = SHARD_INF,
     .unit = "Pa/m",
     .flags = SHARD_PARAM_MIN_EXCLUSIVE,
     .choices = NULL,
     .doc = "absolute penalty eps_n, force per unit area and penetration (give alpha or stiffness, not both)"},
};

static int pen_create(const shard_params *params, const shard_scales *scales, void **out_self, shard_msg *msg) {
  *out_self = NULL;
  double eps;
  const int rc = shard_scaled_stiffness(params, "alpha", "stiffness", 1, scales, &eps, msg);
  if (rc != SHARD_OK) return rc;
  const double a = shard_scale(scales, "area"), area = a > 0.0 ? a : 1.0; /* no area (NAN): per contact */
  if (!isfinite(eps * area))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "penalty stiffness eps_n A = %g * %g overflows", eps, area);
  penalty *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->k = eps * area;
  *out_self = s;
  return SHARD_OK;
}

static void pen_destroy(void *self) { free(self); }

static void pen_force(const void *self, int32_t n, const double *g, double *out_f, double *out_k, double *out_energy) {
  const double k = ((const penalty *)self)->k;
  for (int32_t i = 0; i < n; ++i) {
    if (g[i] < 0.0) {
      out_f[i] = -k * g[i];
      out_k[i] = k;
      out_energy[i] = 0.5 * k * g[i] * g[i];
    } else {
      out_f[i] = 0.0;
      out_k[i] = 0.0;
      out_energy[i] = 0.0;
    }
  }
}

static double pen_max_stiffness(const void *self) { return ((const penalty *)self)->k; }

static const shard_contact_law_ops pen_ops = {
    .create = pen_create,
    .destroy = pen_destroy,
    .restitution = NULL, /* impact family only */
    .force = pen_force,
    .max_stiffness = pen_max_stiffness,
};

static const shard_plugin pen_desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_CONTACT_LAW),
    .name = "penalty",
    .version = "1.0.0",
    .summary = "linear penalty contact: force eps_n A max(-g, 0), eps_n absolute or alpha E / h_mean",
    .params = penalty_params,
    .n_params = SHARD_NPARAMS(penalty_params),
    .ops_size = sizeof(shard_contact_law_ops),
    .caps = SHARD_CAP_FORCE_LAW,
    .ops = &pen_ops,
    .doc = "Force family: a violated gap g < 0 is pushed back by eps_n A |g| with reversible energy "
           "1/2 eps_n A g^2; eps_n A enters the stable time step. The force has a kink at g = 0 (zero stiffness "
           "when open, eps_n A when penetrated). Taken by explicit_newmark.",
};

SHARD_PLUGIN_SINGLE(pen_desc)
