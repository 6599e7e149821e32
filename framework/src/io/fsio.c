/* host: files of run and campaign directories (see fsio.h). */
#include "io/fsio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PATH_ 4096

int shard_mkdirs(const char *path, shard_msg *msg) {
  char buf[PATH_];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
    return shard_msg_set(msg, SHARD_ERR_IO, "path too long: %s", path);
  for (char *p = buf + 1;; ++p) {
    if (*p == '/' || *p == '\0') {
      const char save = *p;
      *p = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return shard_msg_set(msg, SHARD_ERR_IO, "cannot create directory '%s': %s", buf, strerror(errno));
      *p = save;
      if (save == '\0') break;
    }
  }
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
    return shard_msg_set(msg, SHARD_ERR_IO, "'%s' is not a directory", path);
  return SHARD_OK;
}

int shard_file_create(const char *path, int *out_fd, shard_msg *msg) {
  *out_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (*out_fd >= 0) return SHARD_OK;
  if (errno == EEXIST)
    return shard_msg_set(msg, SHARD_ERR_IO, "cannot create '%s': a file or link of that name is already there", path);
  return shard_msg_set(msg, SHARD_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
}

int shard_temp_create(const char *dir, const char *name, char *out_path, size_t n, int *out_fd, shard_msg *msg) {
  for (int attempt = 0;; ++attempt) {
    uint32_t rnd = 0;
    if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) {
      struct timespec ts;
      clock_gettime(CLOCK_MONOTONIC, &ts);
      rnd = (uint32_t)ts.tv_nsec ^ ((uint32_t)attempt << 24);
    }
    if (snprintf(out_path, n, "%s/.%s.tmp.%ld.%08x", dir, name, (long)getpid(), (unsigned)rnd) >= (int)n)
      return shard_msg_set(msg, SHARD_ERR_IO, "path too long in '%s'", dir);
    *out_fd = open(out_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (*out_fd >= 0) return SHARD_OK;
    if (errno != EEXIST || attempt >= 32)
      return shard_msg_set(msg, SHARD_ERR_IO, "cannot create a temporary file for '%s/%s': %s", dir, name,
                           strerror(errno));
  }
}

int shard_fd_write_all(int fd, const char *path, const void *data, size_t len, shard_msg *msg) {
  const char *p = data;
  while (len > 0) {
    const ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return shard_msg_set(msg, SHARD_ERR_IO, "cannot write '%s': %s", path, strerror(w < 0 ? errno : EIO));
    p += w;
    len -= (size_t)w;
  }
  return SHARD_OK;
}

int shard_dir_sync(const char *dir, shard_msg *msg) {
  const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return shard_msg_set(msg, SHARD_ERR_IO, "cannot open directory '%s': %s", dir, strerror(errno));
  /* some file systems cannot sync a directory (EINVAL): nothing more to do there */
  const int rc = fsync(fd) != 0 && errno != EINVAL && errno != EROFS ? errno : 0;
  close(fd);
  if (rc) return shard_msg_set(msg, SHARD_ERR_IO, "cannot sync directory '%s': %s", dir, strerror(rc));
  return SHARD_OK;
}

int shard_file_publish(int fd, const char *tmp, const char *final, const char *dir, shard_msg *msg) {
  int err = fsync(fd) != 0 ? errno : 0;
  if (close(fd) != 0 && !err) err = errno;
  if (!err && rename(tmp, final) != 0) err = errno;
  if (err) {
    unlink(tmp);
    return shard_msg_set(msg, SHARD_ERR_IO, "cannot write '%s': %s", final, strerror(err));
  }
  return shard_dir_sync(dir, msg);
}

int shard_write_atomic(const char *dir, const char *name, const char *data, size_t len, shard_msg *msg) {
  char tmp[PATH_], fin[PATH_];
  if (snprintf(fin, sizeof fin, "%s/%s", dir, name) >= (int)sizeof fin)
    return shard_msg_set(msg, SHARD_ERR_IO, "path too long in '%s'", dir);
  int fd;
  int st = shard_temp_create(dir, name, tmp, sizeof tmp, &fd, msg);
  if (st != SHARD_OK) return st;
  if ((st = shard_fd_write_all(fd, fin, data, len, msg)) != SHARD_OK) {
    close(fd);
    unlink(tmp);
    return st;
  }
  return shard_file_publish(fd, tmp, fin, dir, msg);
}

int shard_write_atomic_free(const char *dir, const char *name, char *data, size_t len, shard_msg *msg) {
  const int st = shard_write_atomic(dir, name, data, len, msg);
  free(data);
  return st;
}

/* ---- locks ------------------------------------------------------------------- */

/* The holder recorded in a lock file, as "pid N on host H (COMMAND)"; 0 when
 * the file says nothing (yet), or names a process of this host that is gone. */
static int holder_of(const char *path, char *out, size_t n) {
  char text[1024] = "";
  const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return 0;
  const ssize_t got = read(fd, text, sizeof text - 1);
  close(fd);
  if (got <= 0) return 0;
  text[got] = '\0';
  long pid = 0;
  char host[256] = "", cmd[512] = "", me[256] = "";
  for (char *line = text, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    if (strncmp(line, "pid: ", 5) == 0) pid = strtol(line + 5, NULL, 10);
    else if (strncmp(line, "host: ", 6) == 0) snprintf(host, sizeof host, "%s", line + 6);
    else if (strncmp(line, "command: ", 9) == 0) snprintf(cmd, sizeof cmd, "%s", line + 9);
  }
  if (pid <= 0) return 0;
  gethostname(me, sizeof me - 1);
  if (strcmp(host, me) == 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH) return 0;
  snprintf(out, n, "process %ld on host %s (%s)", pid, host[0] ? host : "?", cmd[0] ? cmd : "?");
  return 1;
}

/* A part lock DIR/.lock.* held by someone: its holder. */
static int part_holder(const char *dir, char *out, size_t n) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int found = 0;
  for (struct dirent *e; !found && (e = readdir(d));) {
    if (strncmp(e->d_name, SHARD_LOCK_FILE ".", sizeof SHARD_LOCK_FILE) != 0) continue;
    char path[PATH_];
    if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) continue;
    const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    const int held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    if (held) {
      char who[900];
      if (!holder_of(path, who, sizeof who)) snprintf(who, sizeof who, "another process");
      snprintf(out, n, "%s, which holds part '%s' of it", who, e->d_name + sizeof SHARD_LOCK_FILE);
      found = 1;
    }
  }
  closedir(d);
  return found;
}

static int busy(const char *dir, const char *path, int whole, shard_msg *msg) {
  char who[1200] = "";
  /* the holder writes its name right after locking: give it a moment */
  for (int i = 0; i < 20; ++i) {
    if (holder_of(path, who, sizeof who) || (whole && part_holder(dir, who, sizeof who))) break;
    who[0] = '\0';
    const struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  return shard_msg_set(msg, SHARD_ERR_INPUT,
                       "'%s' is in use by %s; two runs or campaigns never write one directory: wait for it to end, or "
                       "choose another directory",
                       dir, who[0] ? who : "another process (it has not said who it is)");
}

/* open (create) a lock file, never through a link */
static int lock_open(const char *path, shard_msg *msg) {
  const int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) shard_msg_set(msg, SHARD_ERR_IO, "cannot open the lock file '%s': %s", path, strerror(errno));
  return fd;
}

static int lock_record(int fd, const char *path, const char *command, shard_msg *msg) {
  char host[256] = "", text[1400];
  gethostname(host, sizeof host - 1);
  const int len = snprintf(text, sizeof text, "pid: %ld\nhost: %s\ncommand: %s\n", (long)getpid(), host,
                           command ? command : "shard");
  if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0)
    return shard_msg_set(msg, SHARD_ERR_IO, "cannot write the lock file '%s': %s", path, strerror(errno));
  return shard_fd_write_all(fd, path, text, len < (int)sizeof text ? (size_t)len : sizeof text - 1, msg);
}

int shard_dir_lock_acquire(shard_dir_lock *lk, const char *dir, const char *part, const char *command,
                           shard_msg *msg) {
  lk->fd = lk->part_fd = -1;
  char path[PATH_], ppath[PATH_];
  if (snprintf(path, sizeof path, "%s/" SHARD_LOCK_FILE, dir) >= (int)sizeof path ||
      (part && snprintf(ppath, sizeof ppath, "%s/" SHARD_LOCK_FILE ".%s", dir, part) >= (int)sizeof ppath))
    return shard_msg_set(msg, SHARD_ERR_IO, "path too long: %s", dir);
  if ((lk->fd = lock_open(path, msg)) < 0) return SHARD_ERR_IO;
  int st = SHARD_OK;
  if (flock(lk->fd, (part ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
    st = errno == EWOULDBLOCK ? busy(dir, path, !part, msg)
                              : shard_msg_set(msg, SHARD_ERR_IO, "cannot lock '%s': %s", path, strerror(errno));
  } else if (!part) {
    st = lock_record(lk->fd, path, command, msg);
  } else if ((lk->part_fd = lock_open(ppath, msg)) < 0) {
    st = SHARD_ERR_IO;
  } else if (flock(lk->part_fd, LOCK_EX | LOCK_NB) != 0) {
    st = errno == EWOULDBLOCK ? busy(dir, ppath, 0, msg)
                              : shard_msg_set(msg, SHARD_ERR_IO, "cannot lock '%s': %s", ppath, strerror(errno));
  } else {
    st = lock_record(lk->part_fd, ppath, command, msg);
  }
  if (st != SHARD_OK) { /* close without touching the records: they name the holder */
    if (lk->part_fd >= 0) close(lk->part_fd);
    close(lk->fd);
    lk->fd = lk->part_fd = -1;
  }
  return st;
}

void shard_dir_lock_release(shard_dir_lock *lk) {
  if (!lk || lk->fd < 0) return;
  /* the record goes before the lock (a stale record is only a hint: holder_of checks the pid) */
  const int rec = lk->part_fd >= 0 ? lk->part_fd : lk->fd;
  const int ignored = ftruncate(rec, 0);
  (void)ignored;
  if (lk->part_fd >= 0) close(lk->part_fd);
  close(lk->fd);
  lk->fd = lk->part_fd = -1;
}

/* ---- names -------------------------------------------------------------------- */

int shard_plain_name(const char *s) {
  if (!s || !*s || *s == '.') return 0;
  for (; *s; ++s)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
          *s == '-' || *s == '.'))
      return 0;
  return 1;
}
