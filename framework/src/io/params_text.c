#include "io/params_text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int shard_param_parse(const shard_param_spec *sp, const char *text, shard_param_value *v, char *err, size_t errlen) {
  memset(v, 0, sizeof *v);
  char *end = NULL;
  switch (sp->type) {
  case SHARD_PARAM_REAL:
  case SHARD_PARAM_INT: {
    errno = 0;
    double x = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(x)) {
      snprintf(err, errlen, "expects a finite number, got '%s'", text);
      return 0;
    }
    if (sp->type == SHARD_PARAM_INT && (x != floor(x) || fabs(x) > 9.0e15)) {
      snprintf(err, errlen, "expects an integer, got '%s'", text);
      return 0;
    }
    if (!shard_param_admits(sp, x)) {
      snprintf(err, errlen, "value %s outside %s%g, %g%s", text, (sp->flags & SHARD_PARAM_MIN_EXCLUSIVE) ? "(" : "[",
               sp->min, sp->max, (sp->flags & SHARD_PARAM_MAX_EXCLUSIVE) ? ")" : "]");
      return 0;
    }
    v->real = x;
    v->integer = (long long)x;
    break;
  }
  case SHARD_PARAM_BOOL:
    if (strcmp(text, "true") == 0)
      v->boolean = 1;
    else if (strcmp(text, "false") == 0)
      v->boolean = 0;
    else {
      snprintf(err, errlen, "expects true or false, got '%s'", text);
      return 0;
    }
    break;
  case SHARD_PARAM_CHOICE: {
    size_t len = strlen(text);
    const char *c = sp->choices ? sp->choices : "";
    int found = 0;
    while (*c) {
      const char *bar = strchr(c, '|');
      size_t cl = bar ? (size_t)(bar - c) : strlen(c);
      if (cl == len && strncmp(c, text, len) == 0) found = 1;
      c += cl + (bar ? 1 : 0);
    }
    if (!found) {
      snprintf(err, errlen, "expects one of %s, got '%s'", sp->choices ? sp->choices : "(none)", text);
      return 0;
    }
    v->string = text;
    break;
  }
  case SHARD_PARAM_STRING:
    v->string = text;
    break;
  default:
    snprintf(err, errlen, "has an unknown parameter type %d", (int)sp->type);
    return 0;
  }
  v->set = 1;
  return 1;
}

int shard_params_defaults(const shard_param_spec *specs, uint32_t n, shard_param_value *out, shard_msg *msg) {
  for (uint32_t i = 0; i < n; ++i) {
    char err[256];
    memset(&out[i], 0, sizeof out[i]);
    if (specs[i].def && !shard_param_parse(&specs[i], specs[i].def, &out[i], err, sizeof err))
      return shard_msg_set(msg, SHARD_ERR_INPUT, "parameter '%s': default %s", specs[i].key, err);
  }
  return SHARD_OK;
}
