/* shard — the plugin ABI.
 *
 * A plugin shared object exports exactly one symbol,
 *     const shard_plugin *shard_plugin_entry(uint32_t index);
 * returning its index-th descriptor, NULL past the last. The descriptor opens
 * with the ABI version, its own size and the size of shard_real, so the host
 * can refuse a plugin built against another ABI before touching anything else.
 * Ops tables are `static const` and grow only by appending slots; `ops_size`
 * tells the host how many slots the plugin knows. */
#ifndef SHARD_PLUGIN_H
#define SHARD_PLUGIN_H

#include <stdint.h>

#include "shard/params.h"
#include "shard/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SHARD_ABI_MAJOR 2u
#define SHARD_ABI_MINOR 1u
#define SHARD_ABI_VERSION ((SHARD_ABI_MAJOR << 16) | SHARD_ABI_MINOR)
#define SHARD_ABI_VERSION_MAJOR(v) ((uint32_t)(v) >> 16)
#define SHARD_ABI_VERSION_MINOR(v) ((uint32_t)(v)&0xffffu)

typedef double shard_real;

typedef enum shard_plugin_kind {
  SHARD_KIND_INTEGRATOR = 1,
  SHARD_KIND_CONTACT_LAW = 2,
  SHARD_KIND_LCP_SOLVER = 3,
  SHARD_KIND_TSL = 4,
  SHARD_KIND_MODEL = 5 /* ABI 2.1: a mechanical model (shard/model.h) */
} shard_plugin_kind;

/* Capability flags (shard_plugin.caps). */
/* integrators and contact laws: the contact-law family */
#define SHARD_CAP_IMPACT_LAW (1ull << 0)   /* restitution at velocity level */
#define SHARD_CAP_FORCE_LAW (1ull << 1)    /* force and stiffness from the gap */
/* integrators */
#define SHARD_CAP_NEEDS_LCP (1ull << 2)    /* solves LCPs through the host */
#define SHARD_CAP_TOPOLOGY (1ull << 3)     /* supports DOF/constraint insertion */
/* stable only for dt <= dt_c = 2 / sqrt(lambda_max(M^-1 K)), K with the bulk
 * and every added spring at its largest stiffness (explicit in the forces):
 * the host refuses a larger time.dt unless time.allow_unstable is set */
#define SHARD_CAP_CONDITIONALLY_STABLE (1ull << 4)
/* impact laws: e depends on the kinematics; the host calls `restitution`
 * before every step (without it: once, at set-up) */
#define SHARD_CAP_VELOCITY_DEPENDENT (1ull << 5)
/* LCP solvers */
#define SHARD_CAP_LCP_GENERAL (1ull << 8)  /* any matrix with a solution (pivoting) */
#define SHARD_CAP_LCP_NEEDS_PSD (1ull << 9) /* symmetric positive semidefinite only */
#define SHARD_CAP_LCP_DENSE (1ull << 10)   /* reads the dense view (n limited) */
#define SHARD_CAP_LCP_SPARSE (1ull << 11)  /* reads the CSR view (any n) */
/* Appended (ABI 1.1): solve allocates and frees memory (a wrapped external
 * library's solver), an exception to "the hot path never allocates" that the
 * host and the contract suite check for every other solver. */
#define SHARD_CAP_LCP_ALLOCATES (1ull << 12)
/* Appended (ABI 2.1): the solver takes only tridiagonal Z-matrices (entries
 * on |i - j| <= 1 in the block's row order, positive diagonal, off-diagonals
 * <= 0) and refuses others; the host checks each block and sends one outside
 * the class to the policy's fallback solver without calling this one. */
#define SHARD_CAP_LCP_TRIDIAGONAL_Z (1ull << 13)

/* The model's scales by name, given to every plugin's create (a penalty
 * alpha E / h_mean, a stiffness cap, ...). `get` returns 1 and sets *out when
 * the model has the scale, 0 otherwise; the names a model may answer are
 * listed in docs/plugins.md (young, density, area, h_mean, h_min, mass_min,
 * length). A plugin reads them with shard_scale and copes with NAN. */
typedef struct shard_scales {
  uint32_t struct_size; /* sizeof(shard_scales) */
  const void *ctx;
  int (*get)(const void *ctx, const char *name, double *out);
} shard_scales;

/* The scale `name` of the model, or NAN when it has none (or no scales). */
static inline double shard_scale(const shard_scales *s, const char *name) {
  double x = NAN;
  if (!s || s->struct_size < sizeof(shard_scales) || !s->get || !name) return NAN;
  return s->get(s->ctx, name, &x) == 1 ? x : NAN;
}

/* The resolved table against its specs, as the host checks it before create:
 * every key with a default (or required) has a value, every REAL and INT value
 * is finite and inside its range. A plugin with parameters calls it first in
 * create, since create may also be called directly (tests, other hosts).
 * SHARD_OK, or SHARD_ERR_INPUT naming the first offending key. */
static inline int shard_params_check(const shard_params *p, shard_msg *msg) {
  if (!p) return shard_msg_set(msg, SHARD_ERR_INPUT, "no parameter table (create expects the resolved one)");
  for (uint32_t i = 0; i < p->count; ++i) {
    const shard_param_spec *sp = &p->specs[i];
    if (!p->values[i].set) {
      if (sp->def || (sp->flags & SHARD_PARAM_REQUIRED))
        return shard_msg_set(msg, SHARD_ERR_INPUT, "parameter '%s' has no value", sp->key);
      continue;
    }
    if (!shard_params_value_in_range(p, i))
      return shard_msg_set(msg, SHARD_ERR_INPUT, "%s = %g is outside its range (shard describe lists it)", sp->key,
                           p->values[i].real);
  }
  return SHARD_OK;
}

/* A stiffness per unit area given relative to the model, k = alpha E / h_mean
 * (parameter `rel_key`), or absolutely in Pa/m (parameter `abs_key`), never
 * both, each inside its spec's range. Neither given: an error when `required`, else
 * SHARD_OK with *k = NAN ("no stiffness"). Otherwise SHARD_OK with a finite
 * *k, or SHARD_ERR_INPUT with a message naming the parameter. */
static inline int shard_scaled_stiffness(const shard_params *p, const char *rel_key, const char *abs_key,
                                         int required, const shard_scales *sc, double *k, shard_msg *msg) {
  const int has_rel = shard_params_has(p, rel_key), has_abs = shard_params_has(p, abs_key);
  *k = NAN;
  if (has_rel == has_abs && (has_rel || required))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "give %s of '%s' (alpha E / h_mean) and '%s' (Pa/m)%s",
                         required ? "exactly one" : "at most one", rel_key, abs_key, has_rel ? ", not both" : "");
  if (!has_rel && !has_abs) return SHARD_OK;
  const char *key = has_rel ? rel_key : abs_key;
  const double x = shard_params_real(p, key);
  if (!shard_params_in_range(p, key))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s = %g is outside its range (shard describe lists it)", key, x);
  if (has_abs) {
    *k = x;
    return SHARD_OK;
  }
  const double young = shard_scale(sc, "young"), h_mean = shard_scale(sc, "h_mean");
  if (!(young > 0.0) || !(h_mean > 0.0))
    return shard_msg_set(msg, SHARD_ERR_INPUT,
                         "%s needs a model with a Young's modulus and an element length (alpha E / h_mean); this "
                         "model has none: give '%s' (Pa/m) instead",
                         rel_key, abs_key);
  *k = x * young / h_mean;
  if (!isfinite(*k))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: %g * %g / %g overflows", rel_key, x, young, h_mean);
  return SHARD_OK;
}

typedef struct shard_plugin {
  uint32_t abi_version; /* SHARD_ABI_VERSION */
  uint32_t struct_size; /* sizeof(shard_plugin) */
  uint32_t real_size;   /* sizeof(shard_real) */
  uint32_t kind;        /* shard_plugin_kind */
  const char *name;     /* [a-z][a-z0-9_]*, fixed for life */
  const char *version;  /* "1.0.0" */
  const char *summary;  /* one line */
  const shard_param_spec *params;
  uint32_t n_params;
  uint32_t ops_size;    /* sizeof the kind's ops table as compiled */
  uint64_t caps;        /* SHARD_CAP_* */
  const void *ops;      /* const shard_<kind>_ops * */
  const char *doc;      /* longer description (markdown), may be NULL */
} shard_plugin;

#define SHARD_PLUGIN_ENTRY_SYMBOL "shard_plugin_entry"
typedef const shard_plugin *(*shard_plugin_entry_fn)(uint32_t index);

#if defined(__GNUC__)
#define SHARD_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define SHARD_PLUGIN_EXPORT
#endif

/* The entry point every plugin .so defines (SHARD_PLUGIN_SINGLE below, or by
 * hand for several plugins in one file). Declared here, inside the C linkage
 * block, so that a plugin written in C++ exports it unmangled. */
SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry(uint32_t index);

/* Fills the header fields of a descriptor. */
#define SHARD_PLUGIN_HEADER(kind_)                                        \
  .abi_version = SHARD_ABI_VERSION, .struct_size = sizeof(shard_plugin), \
  .real_size = sizeof(shard_real), .kind = (kind_)

#define SHARD_NPARAMS(table) ((uint32_t)(sizeof(table) / sizeof((table)[0])))

/* For a .so that holds one plugin. */
#define SHARD_PLUGIN_SINGLE(descriptor)                                      \
  SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry(uint32_t index); \
  SHARD_PLUGIN_EXPORT const shard_plugin *shard_plugin_entry(uint32_t index) { \
    return index == 0 ? &(descriptor) : 0;                                   \
  }

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
