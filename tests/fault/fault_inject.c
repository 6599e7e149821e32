/* tests: allocation and write failure injection for `shard-fault`, a test
 * build of the host library and the command line linked with
 * -Wl,--wrap=<function> for the functions below (tests/fault/CMakeLists.txt).
 * The sources are the ones of `shard`, untouched: the linker sends their
 * calls here.
 *
 *   SHARD_FAULT_ALLOC=N  the N-th allocation fails (malloc, calloc, realloc,
 *                        strdup, strndup, getline, open_memstream): NULL or
 *                        -1 with errno ENOMEM, once; later ones succeed.
 *   SHARD_FAULT_WRITE=N  the N-th write to a file fails with ENOSPC: opening
 *                        for writing, fwrite, fputs, fputc, fprintf, fflush,
 *                        fclose, fsync, rename, mkdir, unlink, truncate,
 *                        mkstemp, mkdtemp. A stream whose write failed keeps
 *                        failing (fflush, ferror, fclose report it) as on a
 *                        full disk. Standard streams and in-memory streams
 *                        are not counted.
 *
 * The injected failure is announced on stderr ("shard-fault: ...") so that a
 * sweep knows whether the N-th point was reached; with SHARD_FAULT_TRACE=1
 * a backtrace follows (for finding the caller). Both variables are removed
 * from the environment at start: processes this one starts (the runs of a
 * campaign) run without faults. Plugins (separate shared objects) and the C
 * library's own internal allocations are not covered. */
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* test-only state of this one process */
static long alloc_at, alloc_seen, write_at, write_seen;
static int trace;
static FILE *poisoned[64];

/* A forked child (the plugin registry probes each plugin file in one) is
 * another process: the failures are injected into this one only. */
static void fault_off_in_child(void) { alloc_at = write_at = 0; }

__attribute__((constructor)) static void fault_init(void) {
  const char *a = getenv("SHARD_FAULT_ALLOC"), *w = getenv("SHARD_FAULT_WRITE");
  alloc_at = a ? strtol(a, NULL, 10) : 0;
  write_at = w ? strtol(w, NULL, 10) : 0;
  trace = getenv("SHARD_FAULT_TRACE") != NULL;
  unsetenv("SHARD_FAULT_ALLOC");
  unsetenv("SHARD_FAULT_WRITE");
  pthread_atfork(NULL, NULL, fault_off_in_child);
}

static void announce(const char *what, long n, const char *fn) {
  char line[160];
  const int len = snprintf(line, sizeof line, "shard-fault: %s %ld (%s) made to fail\n", what, n, fn);
  if (len > 0 && write(2, line, (size_t)len) < 0) return;
  if (trace) {
    void *frames[32];
    backtrace_symbols_fd(frames, backtrace(frames, 32), 2);
  }
}

static int alloc_fails(const char *fn) {
  if (alloc_at <= 0 || ++alloc_seen != alloc_at) return 0;
  announce("allocation", alloc_seen, fn);
  errno = ENOMEM;
  return 1;
}

static int write_fails(const char *fn) {
  if (write_at <= 0 || ++write_seen != write_at) return 0;
  announce("write", write_seen, fn);
  errno = ENOSPC;
  return 1;
}

/* a file opened for writing (not a standard or in-memory stream) */
static int counted(FILE *f) {
  const int fd = f ? fileno(f) : -1; /* -1: an in-memory stream */
  return fd > 2 && __fwritable(f);
}

static int is_poisoned(FILE *f) {
  for (size_t i = 0; i < sizeof poisoned / sizeof poisoned[0]; ++i)
    if (poisoned[i] == f) return 1;
  return 0;
}

static void poison(FILE *f) {
  for (size_t i = 0; i < sizeof poisoned / sizeof poisoned[0]; ++i)
    if (!poisoned[i]) {
      poisoned[i] = f;
      return;
    }
}

static void unpoison(FILE *f) {
  for (size_t i = 0; i < sizeof poisoned / sizeof poisoned[0]; ++i)
    if (poisoned[i] == f) poisoned[i] = NULL;
}

/* a write to stream f: 1 when it is to fail (now or since an earlier failure) */
static int stream_fails(FILE *f, const char *fn) {
  if (!f || !counted(f)) return 0;
  if (is_poisoned(f)) return errno = ENOSPC, 1;
  if (!write_fails(fn)) return 0;
  poison(f);
  return 1;
}

/* ---- allocations ---- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
ssize_t __real_getline(char **line, size_t *n, FILE *f);
FILE *__real_open_memstream(char **buf, size_t *len);

void *__wrap_malloc(size_t n) { return alloc_fails("malloc") ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return alloc_fails("calloc") ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return alloc_fails("realloc") ? NULL : __real_realloc(p, n); }
char *__wrap_strdup(const char *s) { return alloc_fails("strdup") ? NULL : __real_strdup(s); }
char *__wrap_strndup(const char *s, size_t n) { return alloc_fails("strndup") ? NULL : __real_strndup(s, n); }
ssize_t __wrap_getline(char **line, size_t *n, FILE *f) { return alloc_fails("getline") ? -1 : __real_getline(line, n, f); }
FILE *__wrap_open_memstream(char **buf, size_t *len) {
  return alloc_fails("open_memstream") ? NULL : __real_open_memstream(buf, len);
}

/* ---- writes ---- */

FILE *__real_fopen(const char *path, const char *mode);
FILE *__real_fdopen(int fd, const char *mode);
int __real_open(const char *path, int flags, ...);
size_t __real_fwrite(const void *p, size_t size, size_t n, FILE *f);
int __real_fputs(const char *s, FILE *f);
int __real_fputc(int c, FILE *f);
int __real_vfprintf(FILE *f, const char *fmt, va_list ap);
int __real_fflush(FILE *f);
int __real_fclose(FILE *f);
int __real_ferror(FILE *f);
int __real_fsync(int fd);
int __real_rename(const char *a, const char *b);
int __real_mkdir(const char *path, mode_t mode);
int __real_unlink(const char *path);
int __real_truncate(const char *path, off_t len);
int __real_mkstemp(char *tmpl);
char *__real_mkdtemp(char *tmpl);

static int writes_mode(const char *mode) { return strpbrk(mode, "wa+") != NULL; }

FILE *__wrap_fopen(const char *path, const char *mode) {
  if (writes_mode(mode) && write_fails("fopen")) return NULL;
  return __real_fopen(path, mode);
}
FILE *__wrap_fdopen(int fd, const char *mode) {
  if (fd > 2 && writes_mode(mode) && write_fails("fdopen")) return NULL;
  return __real_fdopen(fd, mode);
}
int __wrap_open(const char *path, int flags, ...) {
  mode_t mode = 0;
  if (flags & O_CREAT) {
    va_list ap;
    va_start(ap, flags);
    mode = (mode_t)va_arg(ap, int);
    va_end(ap);
  }
  if ((flags & (O_WRONLY | O_RDWR | O_CREAT)) && write_fails("open")) return -1;
  return __real_open(path, flags, mode);
}
size_t __wrap_fwrite(const void *p, size_t size, size_t n, FILE *f) {
  return stream_fails(f, "fwrite") ? 0 : __real_fwrite(p, size, n, f);
}
int __wrap_fputs(const char *s, FILE *f) { return stream_fails(f, "fputs") ? EOF : __real_fputs(s, f); }
int __wrap_fputc(int c, FILE *f) { return stream_fails(f, "fputc") ? EOF : __real_fputc(c, f); }
int __wrap_vfprintf(FILE *f, const char *fmt, va_list ap) {
  return stream_fails(f, "vfprintf") ? -1 : __real_vfprintf(f, fmt, ap);
}
int __wrap_fprintf(FILE *f, const char *fmt, ...) {
  if (stream_fails(f, "fprintf")) return -1;
  va_list ap;
  va_start(ap, fmt);
  const int n = __real_vfprintf(f, fmt, ap);
  va_end(ap);
  return n;
}
int __wrap_fflush(FILE *f) {
  if (stream_fails(f, "fflush")) return EOF;
  return __real_fflush(f);
}
int __wrap_ferror(FILE *f) { return (f && is_poisoned(f)) || __real_ferror(f); }
int __wrap_fclose(FILE *f) {
  const int bad = f && counted(f) && (is_poisoned(f) || write_fails("fclose"));
  unpoison(f);
  const int r = __real_fclose(f);
  if (bad) return errno = ENOSPC, EOF;
  return r;
}
int __wrap_fsync(int fd) { return fd > 2 && write_fails("fsync") ? -1 : __real_fsync(fd); }
int __wrap_rename(const char *a, const char *b) { return write_fails("rename") ? -1 : __real_rename(a, b); }
int __wrap_mkdir(const char *path, mode_t mode) { return write_fails("mkdir") ? -1 : __real_mkdir(path, mode); }
int __wrap_unlink(const char *path) { return write_fails("unlink") ? -1 : __real_unlink(path); }
int __wrap_truncate(const char *path, off_t len) { return write_fails("truncate") ? -1 : __real_truncate(path, len); }
int __wrap_mkstemp(char *tmpl) { return write_fails("mkstemp") ? -1 : __real_mkstemp(tmpl); }
char *__wrap_mkdtemp(char *tmpl) { return write_fails("mkdtemp") ? NULL : __real_mkdtemp(tmpl); }
