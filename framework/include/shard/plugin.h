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

#define SHARD_ABI_MAJOR 1u
#define SHARD_ABI_MINOR 0u
#define SHARD_ABI_VERSION ((SHARD_ABI_MAJOR << 16) | SHARD_ABI_MINOR)
#define SHARD_ABI_VERSION_MAJOR(v) ((uint32_t)(v) >> 16)
#define SHARD_ABI_VERSION_MINOR(v) ((uint32_t)(v)&0xffffu)

typedef double shard_real;

typedef enum shard_plugin_kind {
  SHARD_KIND_INTEGRATOR = 1,
  SHARD_KIND_CONTACT_LAW = 2,
  SHARD_KIND_LCP_SOLVER = 3,
  SHARD_KIND_TSL = 4
} shard_plugin_kind;

/* Capability flags (shard_plugin.caps). */
/* integrators and contact laws: the contact-law family */
#define SHARD_CAP_IMPACT_LAW (1ull << 0)   /* restitution at velocity level */
#define SHARD_CAP_FORCE_LAW (1ull << 1)    /* force and stiffness from the gap */
/* integrators */
#define SHARD_CAP_NEEDS_LCP (1ull << 2)    /* solves LCPs through the host */
#define SHARD_CAP_TOPOLOGY (1ull << 3)     /* supports DOF/constraint insertion */
/* LCP solvers */
#define SHARD_CAP_LCP_GENERAL (1ull << 8)  /* any matrix with a solution (pivoting) */
#define SHARD_CAP_LCP_NEEDS_PSD (1ull << 9) /* symmetric positive semidefinite only */
#define SHARD_CAP_LCP_DENSE (1ull << 10)   /* reads the dense view (n limited) */
#define SHARD_CAP_LCP_SPARSE (1ull << 11)  /* reads the CSR view (any n) */

/* Scales of the model, given to plugins at create time (penalty α·E/h̄,
 * stiffness caps, ...). Zero where the model has no such scale. */
typedef struct shard_model_scales {
  uint32_t struct_size;
  double young;     /* E [Pa] */
  double density;   /* ρ [kg/m^3] */
  double area;      /* A [m^2] */
  double h_mean;    /* mean element length h̄ [m] */
  double h_min;     /* smallest element length [m] */
  double mass_min;  /* smallest nodal mass [kg] */
  double length;    /* model length [m] */
} shard_model_scales;

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

#endif
