/* shard — status codes and error messages shared by host and plugins. */
#ifndef SHARD_STATUS_H
#define SHARD_STATUS_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One list, one enum, one string table. Positive codes are recoverable
 * (the caller may retry or fall back), negative codes are fatal. */
#define SHARD_STATUS_LIST(X)                                      \
  X(SHARD_OK, 0, "ok")                                            \
  X(SHARD_NOT_CONVERGED, 1, "no convergence")                     \
  X(SHARD_NO_SOLUTION, 2, "no solution found")                    \
  X(SHARD_ERR_INPUT, -1, "bad input")                             \
  X(SHARD_ERR_NOMEM, -2, "out of memory")                         \
  X(SHARD_ERR_NUMERIC, -3, "numerical failure")                   \
  X(SHARD_ERR_IO, -4, "input/output error")                       \
  X(SHARD_ERR_PLUGIN, -5, "plugin error")                         \
  X(SHARD_ERR_UNSUPPORTED, -6, "unsupported")                     \
  X(SHARD_ERR_INTERNAL, -7, "internal error")

typedef enum shard_status {
#define SHARD_STATUS_ENUM_(name, value, text) name = value,
  SHARD_STATUS_LIST(SHARD_STATUS_ENUM_)
#undef SHARD_STATUS_ENUM_
} shard_status;

static inline const char *shard_status_str(int status) {
  switch (status) {
#define SHARD_STATUS_CASE_(name, value, text) \
  case value:                                 \
    return text;
    SHARD_STATUS_LIST(SHARD_STATUS_CASE_)
#undef SHARD_STATUS_CASE_
  default:
    return "unknown status";
  }
}

/* The message buffer passed as the last argument of every fallible call.
 * Callees write the cause; callers prepend context while unwinding:
 * "case.yaml: integrator 'nsn': lcp 'pgs': no convergence after 500 sweeps". */
#define SHARD_MSG_SIZE 1024
typedef struct shard_msg {
  char text[SHARD_MSG_SIZE];
} shard_msg;

#if defined(__GNUC__)
#define SHARD_PRINTF_(a, b) __attribute__((format(printf, a, b)))
#else
#define SHARD_PRINTF_(a, b)
#endif

static inline int shard_msg_set(shard_msg *msg, int status, const char *fmt, ...) SHARD_PRINTF_(3, 4);
static inline int shard_msg_set(shard_msg *msg, int status, const char *fmt, ...) {
  if (msg) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg->text, sizeof msg->text, fmt, ap);
    va_end(ap);
  }
  return status;
}

/* Prepend "context: " to the message already in msg. */
static inline void shard_msg_prepend(shard_msg *msg, const char *fmt, ...) SHARD_PRINTF_(2, 3);
static inline void shard_msg_prepend(shard_msg *msg, const char *fmt, ...) {
  if (!msg) return;
  char tmp[SHARD_MSG_SIZE];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  size_t len = strlen(tmp);
  if (len + 2 < sizeof tmp) {
    tmp[len++] = ':';
    tmp[len++] = ' ';
  }
  size_t rest = strlen(msg->text);
  if (rest > sizeof tmp - 1 - len) rest = sizeof tmp - 1 - len;
  memcpy(tmp + len, msg->text, rest);
  tmp[len + rest] = '\0';
  memcpy(msg->text, tmp, len + rest + 1);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif

