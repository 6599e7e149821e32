/* host: the files of run and campaign directories — directories, atomic
 * files, temporaries that never follow a planted link, directory locks and
 * the check of a name that becomes a path component.
 *
 * Temporaries: DIR/.NAME.tmp.PID.RANDOM, created with
 * O_CREAT|O_EXCL|O_NOFOLLOW (mode 0644 before the umask): an existing file
 * or symbolic link of that name is never opened, let alone followed. A file
 * is published by fsync, rename over the final name, fsync of the directory.
 *
 * Locks: DIR/.lock, flock()ed; the kernel drops the lock when its holder
 * exits, however it ends (also SIGKILL), so a lock is never stale. While held
 * the file says who holds it ("pid: N", "host: H", "command: ..."). A
 * directory is locked whole (exclusive: a run, a campaign) or by a part
 * (shared on DIR/.lock plus exclusive on DIR/.lock.PART: the slices of one
 * campaign that share a directory). The file stays after the holder ends. */
#ifndef SHARD_FSIO_H
#define SHARD_FSIO_H

#include <stddef.h>

#include "shard/status.h"

#define SHARD_LOCK_FILE ".lock"

/* mkdir -p */
int shard_mkdirs(const char *path, shard_msg *msg);
/* Write `len` bytes to dir/name atomically (unique temporary, fsync, rename,
 * fsync of dir). The message names dir/name and the error (strerror). */
int shard_write_atomic(const char *dir, const char *name, const char *data, size_t len, shard_msg *msg);
/* The same, then free(data): for a buffer built with open_memstream. */
int shard_write_atomic_free(const char *dir, const char *name, char *data, size_t len, shard_msg *msg);
/* Create `path` for writing: O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, mode 0644;
 * refuses an existing file or link. */
int shard_file_create(const char *path, int *out_fd, shard_msg *msg);
/* Create a unique temporary DIR/.NAME.tmp.PID.RANDOM (as shard_file_create);
 * its path in out_path (n bytes). */
int shard_temp_create(const char *dir, const char *name, char *out_path, size_t n, int *out_fd, shard_msg *msg);
/* Write all of data to fd (retrying short writes and EINTR); the message
 * names `path` and the error. */
int shard_fd_write_all(int fd, const char *path, const void *data, size_t len, shard_msg *msg);
/* fsync fd, close it, rename tmp to final, fsync the directory of final
 * (dir); fd is closed and tmp removed on failure too. */
int shard_file_publish(int fd, const char *tmp, const char *final, const char *dir, shard_msg *msg);
/* fsync a directory (after a rename or unlink in it). */
int shard_dir_sync(const char *dir, shard_msg *msg);

typedef struct shard_dir_lock {
  int fd;      /* DIR/.lock, -1 when not held */
  int part_fd; /* DIR/.lock.PART, -1 when not held */
} shard_dir_lock;
#define SHARD_DIR_LOCK_INIT {-1, -1}

/* Lock `dir` (which must exist) for this process: whole when part is NULL,
 * else by part (see above). `command` says what holds it ("shard run
 * case.yaml"). Held by another process: SHARD_ERR_INPUT, the message naming
 * the directory and its holder (pid, host, command). */
int shard_dir_lock_acquire(shard_dir_lock *lk, const char *dir, const char *part, const char *command,
                           shard_msg *msg);
/* Release (accepts a lock never acquired). */
void shard_dir_lock_release(shard_dir_lock *lk);

/* A name that becomes one path component (an output directory or file
 * name): not empty, not starting with '.', only letters, digits, '_', '-'
 * and '.'. So never '.', '..' or anything with a '/'. */
int shard_plain_name(const char *s);

#endif
