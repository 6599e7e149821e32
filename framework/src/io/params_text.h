/* host: parameter values from text (one parser for --set of `shard lcp`,
 * spec-table defaults, fallback solvers), checked against the spec: type,
 * finiteness, integer, range, choice. */
#ifndef SHARD_PARAMS_TEXT_H
#define SHARD_PARAMS_TEXT_H

#include <stddef.h>

#include "shard/params.h"
#include "shard/status.h"

/* Parse `text` as a value of `sp` into v (v->string points into text).
 * 1 on success; 0 with a reason ("expects a finite number, got 'x'") in err. */
int shard_param_parse(const shard_param_spec *sp, const char *text, shard_param_value *v, char *err, size_t errlen);

/* Every parameter of a spec table at its default (absent defaults stay
 * unset); out holds n values. SHARD_OK, or SHARD_ERR_INPUT naming the key. */
int shard_params_defaults(const shard_param_spec *specs, uint32_t n, shard_param_value *out, shard_msg *msg);

#endif
