/* host: the one place that launches gnuplot (gnuplot.h). */
#include "io/gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>

extern char **environ;

int shard_gnuplot_run(const char *const *args, int fd_log, shard_gnuplot_outcome *outcome, int *wstatus,
                      shard_msg *msg) {
  enum { MAX_ARGS = 8 };
  char *argv[MAX_ARGS + 2];
  size_t n = 0;
  argv[n++] = "gnuplot";
  for (; args[n - 1]; ++n) {
    if (n > MAX_ARGS) return shard_msg_set(msg, SHARD_ERR_INTERNAL, "gnuplot: more than %d arguments", MAX_ARGS);
    argv[n] = (char *)args[n - 1]; /* posix_spawn's prototype; the strings are not modified */
  }
  argv[n] = NULL;
  *outcome = SHARD_GNUPLOT_FAILED;
  *wstatus = 0;
  posix_spawn_file_actions_t fa;
  int rc = posix_spawn_file_actions_init(&fa);
  if (rc) return shard_msg_set(msg, SHARD_ERR_IO, "cannot prepare gnuplot: %s", strerror(rc));
  rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, fd_log, 1);
  if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, fd_log, 2);
  if (rc) {
    posix_spawn_file_actions_destroy(&fa);
    return shard_msg_set(msg, SHARD_ERR_IO, "cannot prepare gnuplot: %s", strerror(rc));
  }
  pid_t pid;
  rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc == ENOENT) {
    *outcome = SHARD_GNUPLOT_MISSING;
    return SHARD_OK;
  }
  if (rc) return shard_msg_set(msg, SHARD_ERR_IO, "cannot run gnuplot: %s", strerror(rc));
  int status = 0;
  pid_t w;
  while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (w < 0) return shard_msg_set(msg, SHARD_ERR_IO, "waiting for gnuplot: %s", strerror(errno));
  *wstatus = status;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    *outcome = SHARD_GNUPLOT_DONE;
  else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    *outcome = SHARD_GNUPLOT_MISSING; /* the shell convention for "not found" (exec failed in the child) */
  return SHARD_OK;
}
