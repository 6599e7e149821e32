/* shard — parameter specs: every tunable of a plugin (and of the host's case
 * sections) is declared once, as data. The host validates case files against
 * these tables, fills defaults, generates docs and the JSON schema from them. */
#ifndef SHARD_PARAMS_H
#define SHARD_PARAMS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum shard_param_type {
  SHARD_PARAM_REAL = 1, /* finite double; case files may give an expression */
  SHARD_PARAM_INT,      /* integer (64-bit); expressions allowed, must round exactly */
  SHARD_PARAM_BOOL,     /* true / false */
  SHARD_PARAM_STRING,   /* free text */
  SHARD_PARAM_CHOICE    /* one of `choices`, a '|'-separated list */
} shard_param_type;

/* flags */
#define SHARD_PARAM_REQUIRED 0x1u      /* must be given (no default) */
#define SHARD_PARAM_MIN_EXCLUSIVE 0x2u /* value > min instead of >= */
#define SHARD_PARAM_MAX_EXCLUSIVE 0x4u /* value < max instead of <= */
#define SHARD_PARAM_LIST 0x8u          /* case sections only (not plugins): REAL / INT also as a list of values */

#define SHARD_INF HUGE_VAL

typedef struct shard_param_spec {
  const char *key;     /* lower_snake; a dot nests a map: "cap.alpha" */
  shard_param_type type;
  const char *def;     /* default as YAML text ("0.5", "true", "stop"); NULL: none */
  double min, max;     /* range for REAL and INT (use -SHARD_INF / SHARD_INF) */
  const char *unit;    /* SI unit ("s", "Pa", "m") or "1" for dimensionless, "" */
  unsigned flags;      /* SHARD_PARAM_* */
  const char *choices; /* CHOICE only: "stop|fallback" */
  const char *doc;     /* one line */
} shard_param_spec;

/* A resolved value: defaults filled in, expressions evaluated, range checked. */
typedef struct shard_param_value {
  int set;            /* 1 if given or defaulted, 0 if absent (optional, no default) */
  double real;        /* REAL, and INT as double */
  long long integer;  /* INT */
  int boolean;        /* BOOL */
  const char *string; /* STRING and CHOICE (host-owned, valid during create) */
  /* SHARD_PARAM_LIST keys (REAL / INT): every value, n_list of them (one for a
   * scalar or a default, none when unset); `real` holds the first */
  const double *list;
  uint32_t n_list;
} shard_param_value;

/* What `create` receives: the spec table and one value per spec, same order. */
typedef struct shard_params {
  const shard_param_spec *specs;
  uint32_t count;
  const shard_param_value *values;
} shard_params;

static inline const shard_param_value *shard_params_find(const shard_params *p, const char *key) {
  if (!p) return 0;
  for (uint32_t i = 0; i < p->count; ++i)
    if (strcmp(p->specs[i].key, key) == 0) return p->values[i].set ? &p->values[i] : 0;
  return 0;
}
static inline int shard_params_has(const shard_params *p, const char *key) {
  return shard_params_find(p, key) != 0;
}
static inline double shard_params_real(const shard_params *p, const char *key) {
  const shard_param_value *v = shard_params_find(p, key);
  return v ? v->real : NAN;
}
static inline long long shard_params_int(const shard_params *p, const char *key) {
  const shard_param_value *v = shard_params_find(p, key);
  return v ? v->integer : 0;
}
static inline int shard_params_bool(const shard_params *p, const char *key) {
  const shard_param_value *v = shard_params_find(p, key);
  return v ? v->boolean : 0;
}
static inline const char *shard_params_string(const shard_params *p, const char *key) {
  const shard_param_value *v = shard_params_find(p, key);
  return v ? v->string : 0;
}

/* v inside the range of spec s (open ends per its flags); NaN never is. */
static inline int shard_param_admits(const shard_param_spec *s, double v) {
  if ((s->flags & SHARD_PARAM_MIN_EXCLUSIVE) ? !(v > s->min) : !(v >= s->min)) return 0;
  return (s->flags & SHARD_PARAM_MAX_EXCLUSIVE) ? v < s->max : v <= s->max;
}

/* Value i of the table against its spec: 1 when it is unset or not a number
 * type, or finite and admitted; 0 otherwise. */
static inline int shard_params_value_in_range(const shard_params *p, uint32_t i) {
  const shard_param_spec *sp = &p->specs[i];
  if (!p->values[i].set || (sp->type != SHARD_PARAM_REAL && sp->type != SHARD_PARAM_INT)) return 1;
  return isfinite(p->values[i].real) && shard_param_admits(sp, p->values[i].real);
}

/* The value of `key` against its own spec (shard_params_value_in_range; 1 for
 * an unknown key). The host checks this before create; plugins re-check what
 * they compute from, since create may also be called directly (tests, other
 * hosts). */
static inline int shard_params_in_range(const shard_params *p, const char *key) {
  if (!p) return 1;
  for (uint32_t i = 0; i < p->count; ++i)
    if (strcmp(p->specs[i].key, key) == 0) return shard_params_value_in_range(p, i);
  return 1;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
