/* host: case files (YAML) — load, validate strictly, override, resolve.
 *
 * The case format is data: the sections of case_spec.c (host keys) plus, for
 * each plugin slot, the spec table of the plugin it selects. Validation
 * reports every problem (capped) as file:line:col errors in a shard_diag. */
#ifndef SHARD_CASE_H
#define SHARD_CASE_H

#include <stdint.h>
#include <stdio.h>

#include "core/diag.h"
#include "loader/registry.h"
#include "shard/params.h"

/* A section of the case format. Plain sections list their keys; variant
 * sections select a key set with `selector` ("type" for models, "plugin" for
 * plugin slots), from built-in variants or from the registry's plugins of
 * plugin_kind, and may also carry host keys (`specs`) valid for every variant. */
typedef struct shard_case_variant {
  const char *name;
  const char *doc;
  const shard_param_spec *specs;
  uint32_t n_specs;
} shard_case_variant;

#define SHARD_SECTION_REQUIRED 0x1u

typedef struct shard_case_section {
  const char *path; /* "" for top-level keys, "time", "model", "contact.impact" */
  const char *doc;
  unsigned flags;
  const shard_param_spec *specs; /* host keys of this section */
  uint32_t n_specs;
  const char *selector;          /* NULL for plain sections */
  const char *default_variant;   /* selector value when the key is absent (NULL: required) */
  int plugin_kind;               /* > 0: variants are the registry's plugins of this kind */
  const shard_case_variant *variants; /* built-in variants (plugin_kind == 0) */
  uint32_t n_variants;
} shard_case_section;

/* The host's case format (case_spec.c). */
extern const shard_case_section shard_case_sections[];
extern const uint32_t shard_case_n_sections;

/* Names an expression may use, resolved by the host when it evaluates. */
typedef struct shard_scope {
  int (*lookup)(void *ctx, const char *name, double *out); /* 0 if unknown */
  void *ctx;
  /* optional: why a derived name (shard_case_derived_names) has no value in
   * this case (its inputs overflowed, the model has no such scale, ...),
   * written to buf; the case layer reports it instead of "unknown name" */
  void (*why)(void *ctx, const char *name, char *buf, size_t n);
} shard_scope;

typedef struct shard_case shard_case;

/* Load and validate `path`, then apply `sets` ("key.path=value", YAML scalar
 * or flow syntax) with the same checks. SHARD_OK, or SHARD_ERR_INPUT with
 * every problem in diag. */
int shard_case_load(const char *path, const char *const *sets, int n_sets, const shard_registry *reg,
                    shard_case **out, shard_diag *diag);
void shard_case_destroy(shard_case *c);
const char *shard_case_path(const shard_case *c);
/* An error found after loading (by the run's set-up), at the location of the
 * value at `path` (file:line:col with the source line), or at the file when
 * the key takes its default. */
void shard_case_error_at(const shard_case *c, const char *path, shard_diag *d, const char *fmt, ...)
    SHARD_PRINTF_(4, 5);

/* Typed access by dotted path, defaults filled in. For REAL/INT, the value
 * may be an expression: evaluated in `scope` (NULL: numbers only); an error
 * (unknown name, division by zero, out of range, non-finite) goes to diag at
 * the value's location and returns SHARD_ERR_INPUT. Absent optional keys
 * without default return 0 from shard_case_has. (Case layer: scope NULL
 * still resolves the model's own keys, see shard_case_name; shard_case_has on
 * a section path is 1 when the section is in the file or selects a default
 * variant, and always for plain sections, whose keys all have defaults.) */
int shard_case_has(const shard_case *c, const char *path);
int shard_case_real(const shard_case *c, const char *path, const shard_scope *scope, double *out, shard_diag *diag);
int shard_case_int(const shard_case *c, const char *path, const shard_scope *scope, long long *out, shard_diag *diag);
/* A key with SHARD_PARAM_LIST: its values (one for a scalar or a default,
 * none when unset) into out[0..max-1], *count of them; an error (and nothing
 * read) when the list is longer than max. shard_case_real/int read such a
 * key only when it holds one value. */
int shard_case_real_list(const shard_case *c, const char *path, const shard_scope *scope, double *out, int max,
                         int *count, shard_diag *diag);
int shard_case_bool(const shard_case *c, const char *path);
const char *shard_case_string(const shard_case *c, const char *path); /* STRING / CHOICE / selector */

/* The plugin a slot selects ("integrator", "contact.impact", "lcp", ...) and
 * its parameters resolved for `create`; storage owned by the case. Returns
 * SHARD_OK, or SHARD_ERR_INPUT (diag) when the slot is absent or a value fails. */
int shard_case_plugin(const shard_case *c, const char *slot, const shard_scope *scope,
                      const shard_loaded_plugin **out_plugin, shard_params *out_params, shard_diag *diag);

/* The keys of a section resolved for whoever reads them as parameters:
 * `host` nonzero, the section's own keys (case_spec.c, e.g. fracture's g_c
 * and strength.*); zero, the keys of the variant it selects (a model type's,
 * or a plugin slot's as shard_case_plugin). Defaults filled in, expressions
 * evaluated in scope, a list key's values in `list`. Storage owned by the
 * case (valid until the next call for the same section). SHARD_OK, or
 * SHARD_ERR_INPUT (diag) when the section is absent or a value fails. */
int shard_case_section_params(const shard_case *c, const char *section, int host, const shard_scope *scope,
                              shard_params *out, shard_diag *diag);

/* What a model is built from: the model section's keys and, when the case
 * has a fracture section, that section's own keys (fracture NULL otherwise),
 * resolved as shard_case_section_params does into *model_out / *fracture_out. */
int shard_case_model_params(const shard_case *c, const shard_scope *scope, shard_params *model_out,
                            shard_params *fracture_out, const shard_params **fracture, shard_diag *diag);

/* The spec table of a section without resolving anything: its own keys
 * (`host` nonzero) or those of the variant it selects; 0 when the section
 * is not active (absent, no variant). */
uint32_t shard_case_section_specs(const shard_case *c, const char *section, int host, const shard_param_spec **out);

/* The fully resolved case as YAML (every key, defaults filled in). */
int shard_case_write_resolved(const shard_case *c, FILE *out);

/* ---- extensions (case layer) ---------------------------------------------- */

/* Names an expression may use besides numbers and functions:
 *  - every REAL/INT key of the selected model variant, dots as underscores
 *    (`length`, `young`, `initial_velocity`): resolved by the case itself,
 *    defaults filled in;
 *  - the derived scales below: resolved by the scope the host passes to
 *    shard_case_real/int/plugin (a scope must know them all).
 * An expression naming anything else is an error at load time. */
typedef struct shard_case_name {
  const char *name;
  const char *unit;
  const char *doc;
} shard_case_name;
extern const shard_case_name shard_case_derived_names[];
extern const uint32_t shard_case_n_derived_names;
#define SHARD_CASE_NAMES_SECTION "model"

/* shard_case_write_resolved with expressions evaluated in `scope` (NULL:
 * model names only): each expression stays as written, its value follows as
 * a comment (`dt: 0.7 * dt_c  # = 6.86e-08`). */
int shard_case_write_resolved_scope(const shard_case *c, const shard_scope *scope, FILE *out);

#endif
