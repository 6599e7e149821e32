/* host: the one place that launches gnuplot (campaign plots, the space-time
 * picture of a run). */
#ifndef SHARD_GNUPLOT_H
#define SHARD_GNUPLOT_H

#include "shard/status.h"

typedef enum shard_gnuplot_outcome {
  SHARD_GNUPLOT_DONE = 0,    /* gnuplot ran and exited 0 */
  SHARD_GNUPLOT_MISSING = 1, /* gnuplot is not on PATH (spawn failed with ENOENT, or exit 127) */
  SHARD_GNUPLOT_FAILED = 2   /* gnuplot exited non-zero or was killed; see *wstatus */
} shard_gnuplot_outcome;

/* Run `gnuplot ARGS...` (args: NULL-terminated, without the program name;
 * at most 8) found on PATH, with stdin from /dev/null and stdout and stderr
 * both into the open descriptor fd_log (the caller creates it without ever
 * following a planted link: shard_temp_create, or open with O_NOFOLLOW), and
 * wait for it. On SHARD_OK, *outcome says how it went and *wstatus holds the
 * waitpid() status (0 when it did not run). An error status (with the
 * message) only when gnuplot could not be prepared, started (other than not
 * found) or waited for. fd_log stays open. */
int shard_gnuplot_run(const char *const *args, int fd_log, shard_gnuplot_outcome *outcome, int *wstatus,
                      shard_msg *msg);

#endif
