/* tests: an LD_PRELOAD shim that counts the process's calls to malloc,
 * calloc and realloc (the host's, the plugins' and their libraries', the
 * OpenMP runtime's included) and writes the count to the file named by
 * SHARD_ALLOC_COUNT when the process exits. Used by
 * tests/e2e/step_allocations.sh: a run's count must not depend on its
 * number of steps. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static atomic_long count;

void *malloc(size_t n) {
  atomic_fetch_add(&count, 1);
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t size) {
  atomic_fetch_add(&count, 1);
  return __libc_calloc(n, size);
}
void *realloc(void *p, size_t n) {
  atomic_fetch_add(&count, 1);
  return __libc_realloc(p, n);
}

__attribute__((destructor)) static void report(void) {
  const char *path = getenv("SHARD_ALLOC_COUNT");
  if (!path) return;
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  char line[32];
  const int len = snprintf(line, sizeof line, "%ld\n", (long)atomic_load(&count));
  if (len > 0 && write(fd, line, (size_t)len) != len) {
    /* the test sees a short file and fails */
  }
  close(fd);
}
