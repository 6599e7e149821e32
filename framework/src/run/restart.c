/* host: checkpoints of a run (docs/cases.md, checkpoints): writing, checking and restoring them,
 * with the partial history (see restart.h). */
#include "run/restart.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/history.h"


/* the model's sections go into the checkpoint container (io/checkpoint.h) */
static void ck_put(void *ctx, const char *name, uint32_t type, const void *data, uint64_t count) {
  shard_ck_put_section(ctx, name, (shard_ck_type)type, data, count);
}
static int ck_get(void *ctx, const char *name, uint32_t type, void *dst, uint64_t count, shard_msg *msg) {
  return shard_ck_get_section(ctx, name, (shard_ck_type)type, dst, count, msg);
}

/* Extend the running CRC-32 of the partial history to its first `upto` bytes
 * (each checkpoint reads only what was written since the last one). */
static int history_crc_extend(run *r, int64_t upto, shard_msg *msg) {
  if (upto < r->hist_crc_len) r->hist_crc = 0, r->hist_crc_len = 0;
  if (upto == r->hist_crc_len) return SHARD_OK;
  const int fd = open(r->hist_tmp, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return shard_msg_set(msg, SHARD_ERR_IO, "cannot read back the history %s: %s", r->hist_tmp, strerror(errno));
  unsigned char buf[16384];
  while (r->hist_crc_len < upto) {
    const size_t want = (size_t)(upto - r->hist_crc_len < (int64_t)sizeof buf ? upto - r->hist_crc_len : (int64_t)sizeof buf);
    const ssize_t got = pread(fd, buf, want, (off_t)r->hist_crc_len);
    if (got <= 0) {
      const int err = got < 0 ? errno : EIO;
      close(fd);
      return shard_msg_set(msg, SHARD_ERR_IO, "cannot read back the history %s: %s", r->hist_tmp, strerror(err));
    }
    r->hist_crc = shard_crc32(r->hist_crc, buf, (size_t)got);
    r->hist_crc_len += got;
  }
  close(fd);
  return SHARD_OK;
}

int run_checkpoint_write(run *r, int64_t k, shard_msg *msg) {
  errno = 0;
  if (fflush(r->hist) != 0 || ferror(r->hist)) return run_history_error(r, k, (double)k * r->dt, msg);
  const long hist_len = ftell(r->hist);
  if (hist_len < 0) return shard_msg_set(msg, SHARD_ERR_IO, "cannot tell the history's length: %s", strerror(errno));
  int st = history_crc_extend(r, hist_len, msg);
  if (st != SHARD_OK) return st;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for the checkpoint");
  shard_ck_header h = {.step = k, .hist_bytes = hist_len, .hist_rows = r->rows, .hist_crc = r->hist_crc,
                       .nsections = r->mops->ck_sections(r->model) + 1};
  memcpy(h.run_hash, r->run_hash, 64);
  shard_ck_put_header(f, &h);
  r->mops->ck_write(r->model, &(shard_model_ck_io){f, ck_put, NULL});
  r->wall_loop_done = r->wall_loop_prior + (now_s() - r->loop_t0);
  r->ck_step = k;
  shard_ck_put_section(f, "run", SHARD_CK_BYTES, (const char *)r + RUN_CK_BEGIN, RUN_CK_END - RUN_CK_BEGIN);
  const int bad = ferror(f);
  if (fclose(f) != 0 || bad) {
    free(buf);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for the checkpoint");
  }
  shard_ck_seal((unsigned char *)buf, len);
  st = shard_write_atomic(r->opt->out_dir, "checkpoint.bin", buf, len, msg);
  free(buf);
  if (st != SHARD_OK) shard_msg_prepend(msg, "step %lld (t = %.9g s): checkpoint", (long long)k, (double)k * r->dt);
  return st;
}

/* The partial history of a continued run, cut back to the checkpoint's
 * length: a regular file, never opened through a link. */
static int history_continue(run *r, long hist_len, shard_msg *msg) {
  const int fd = open(r->hist_tmp, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  struct stat sb;
  int err = fd < 0 ? errno : 0;
  if (!err && (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))) err = errno ? errno : EINVAL;
  if (!err && (ftruncate(fd, hist_len) != 0 || lseek(fd, 0, SEEK_END) < 0)) err = errno;
  if (!err && !(r->hist = fdopen(fd, "a"))) err = errno;
  if (err) {
    if (fd >= 0) close(fd);
    return shard_msg_set(msg, SHARD_ERR_IO, "--restart: cannot continue the history %s: %s", r->hist_tmp,
                         err == ELOOP ? "it is a symbolic link" : strerror(err));
  }
  return SHARD_OK;
}

/* msg holds what is wrong: make it "checkpoint PATH: corrupt (what)" */
static int ck_corrupt(shard_msg *msg, const char *path) {
  char what[SHARD_MSG_SIZE];
  snprintf(what, sizeof what, "%s", msg->text);
  return shard_msg_set(msg, SHARD_ERR_INPUT, "checkpoint %s: corrupt (%s)", path, what);
}

/* The run's accumulators read back: what the set-up derived from the case
 * (reference, contact DOF, release mode) must be what it was, and the
 * counters that index or count must be in range. */
static int check_run_block(const run *r, const run *set, int64_t k, const shard_ck_header *h, shard_msg *msg) {
  if (r->release_mode != set->release_mode)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "run section: loading set-up differs from the case's");
  if (r->energy_form != SHARD_ENERGY_NEWMARK && r->energy_form != SHARD_ENERGY_NEWMARK_WORK &&
      r->energy_form != SHARD_ENERGY_PLAIN)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "run section: energy form %d", (int)r->energy_form);
  if (r->ck_step != k)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "run section: written at step %lld, the header says %lld",
                         (long long)r->ck_step, (long long)k);
  if (r->rows != h->hist_rows)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "run section: %lld history rows, the header says %lld",
                         (long long)r->rows, (long long)h->hist_rows);
  const int32_t nc = r->sys->ncon_max;
  if (r->prev_active < 0 || r->prev_active > nc || r->max_active < 0 || r->max_active > nc || r->max_block < 0 ||
      r->max_block > nc)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "run section: active-set counts outside 0..%d", (int)nc);
  if (r->max_inserted < 0 || r->max_inserted > r->info.n_facets || r->stop_quiet < 0 || r->stop_quiet > 2 ||
      r->restarts < 0 || r->release_step < 0 || r->release_step > k || r->contact_steps < 0 || r->contact_steps > k ||
      r->lcp_blocks < 0 || r->lcp_iterations < 0 || r->lcp_fallbacks < 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "run section: a step counter outside 0..%lld", (long long)k);
  return SHARD_OK;
}

/* The partial history's first h->hist_bytes bytes are the ones the
 * checkpoint continues: h->hist_rows rows after the header line, whole
 * lines, text, the recorded CRC-32. Bytes after them (rows of steps after
 * the checkpoint) are dropped by the restart. */
static int check_partial_history(const run *r, const shard_ck_header *h, const char *ck, shard_msg *msg) {
  const char *path = r->hist_tmp;
  const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "--restart: cannot read the partial history %s of the checkpoint %s: %s",
                         path, ck, errno == ELOOP ? "it is a symbolic link" : strerror(errno));
  struct stat sb;
  int st = SHARD_OK;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    st = shard_msg_set(msg, SHARD_ERR_INPUT, "partial history %s: not a regular file", path);
  } else if ((int64_t)sb.st_size < h->hist_bytes) {
    st = shard_msg_set(msg, SHARD_ERR_INPUT,
                       "partial history %s: corrupt (truncated: %lld bytes, the checkpoint %s continues its first %lld)",
                       path, (long long)sb.st_size, ck, (long long)h->hist_bytes);
  } else {
    unsigned char buf[16384];
    uint32_t crc = 0;
    int64_t pos = 0, lines = 0;
    unsigned char last = 0;
    while (pos < h->hist_bytes && st == SHARD_OK) {
      const size_t want = (size_t)(h->hist_bytes - pos < (int64_t)sizeof buf ? h->hist_bytes - pos : (int64_t)sizeof buf);
      const ssize_t got = pread(fd, buf, want, (off_t)pos);
      if (got <= 0) {
        st = shard_msg_set(msg, SHARD_ERR_IO, "partial history %s: read error: %s", path, got < 0 ? strerror(errno) : "end of file");
        break;
      }
      const unsigned char *nul = memchr(buf, 0, (size_t)got);
      if (nul) {
        st = shard_msg_set(msg, SHARD_ERR_INPUT, "partial history %s: corrupt (NUL byte at offset %lld)", path,
                           (long long)(pos + (nul - buf)));
        break;
      }
      for (ssize_t i = 0; i < got; ++i) lines += buf[i] == '\n';
      crc = shard_crc32(crc, buf, (size_t)got);
      last = buf[got - 1];
      pos += got;
    }
    if (st == SHARD_OK && last != '\n')
      st = shard_msg_set(msg, SHARD_ERR_INPUT, "partial history %s: corrupt (byte %lld, where the checkpoint %s "
                         "continues it, is inside a row)", path, (long long)h->hist_bytes, ck);
    else if (st == SHARD_OK && lines != h->hist_rows + 1)
      st = shard_msg_set(msg, SHARD_ERR_INPUT, "partial history %s: corrupt (%lld lines where the checkpoint %s "
                         "expects a header and %lld rows)", path, (long long)lines, ck, (long long)h->hist_rows);
    else if (st == SHARD_OK && crc != h->hist_crc)
      st = shard_msg_set(msg, SHARD_ERR_INPUT, "partial history %s: corrupt (its first %lld bytes differ from the "
                         "ones the checkpoint %s continues: CRC-32 %08x, recorded %08x)",
                         path, (long long)h->hist_bytes, ck, crc, h->hist_crc);
  }
  close(fd);
  return st;
}

/* the size in bytes of a checkpoint of this run */
static size_t checkpoint_size(run *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return SIZE_MAX;
  shard_ck_header h = {0};
  shard_ck_put_header(f, &h);
  r->mops->ck_write(r->model, &(shard_model_ck_io){f, ck_put, NULL});
  shard_ck_put_section(f, "run", SHARD_CK_BYTES, (const char *)r + RUN_CK_BEGIN, RUN_CK_END - RUN_CK_BEGIN);
  const int bad = ferror(f);
  fclose(f);
  free(buf);
  return bad ? SIZE_MAX : len;
}

int run_checkpoint_restore(run *r, shard_msg *msg) {
  char path[4200];
  snprintf(path, sizeof path, "%s/checkpoint.bin", r->opt->out_dir);
  if (access(path, F_OK) != 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "--restart: no checkpoint in '%s' (%s)", r->opt->out_dir, strerror(errno));
  const size_t expect = checkpoint_size(r);
  if (expect == SIZE_MAX) return shard_msg_set(msg, SHARD_ERR_NOMEM, "checkpoint %s: out of memory", path);
  unsigned char *buf = NULL;
  size_t len = 0;
  int st = shard_read_file(path, expect, &buf, &len, msg);
  if (st != SHARD_OK) return st == SHARD_ERR_INPUT ? ck_corrupt(msg, path) : (shard_msg_prepend(msg, "checkpoint %s", path), st);
  shard_ck_header h;
  shard_ck_reader rd;
  uint32_t version = 0;
  run set = *r; /* as the set-up left it */
  st = shard_ck_open(buf, len, &h, &rd, &version, msg);
  if (st != SHARD_OK && version != 0) {
    st = shard_msg_set(msg, SHARD_ERR_INPUT, "checkpoint %s: format %u, written by another version of shard; this one "
                       "reads format %u: start the run over (without --restart)", path, version, SHARD_CK_VERSION);
  } else if (st != SHARD_OK) {
    st = ck_corrupt(msg, path);
  } else if (memcmp(h.run_hash, r->run_hash, 64) != 0) {
    st = shard_msg_set(msg, SHARD_ERR_INPUT, "--restart: %s belongs to another run (run hash differs)", path);
  } else if (h.step < 1 || h.step >= r->nsteps) {
    st = shard_msg_set(msg, SHARD_ERR_INPUT, "step %lld outside this run's 1..%lld", (long long)h.step,
                       (long long)r->nsteps - 1);
    st = ck_corrupt(msg, path);
  } else if (h.hist_rows < 1 || h.hist_rows > h.step + 1 || h.hist_bytes < 1) {
    st = shard_msg_set(msg, SHARD_ERR_INPUT, "history of %lld rows in %lld bytes after step %lld",
                       (long long)h.hist_rows, (long long)h.hist_bytes, (long long)h.step);
    st = ck_corrupt(msg, path);
  } else if ((st = r->mops->ck_read(r->model, &(shard_model_ck_io){&rd, NULL, ck_get}, h.step, r->dt, msg)) != SHARD_OK ||
             (st = shard_ck_get_section(&rd, "run", SHARD_CK_BYTES, (char *)r + RUN_CK_BEGIN, RUN_CK_END - RUN_CK_BEGIN,
                                        msg)) != SHARD_OK ||
             (st = shard_ck_close(&rd, msg)) != SHARD_OK || (st = check_run_block(r, &set, h.step, &h, msg)) != SHARD_OK) {
    /* out of memory (a model growing to the checkpoint's size) is no corruption */
    if (st == SHARD_ERR_NOMEM) shard_msg_prepend(msg, "checkpoint %s", path);
    else st = ck_corrupt(msg, path);
  }
  free(buf);
  if (st != SHARD_OK) return st; /* the run's state is unusable: it ends here */
  if ((st = check_partial_history(r, &h, path, msg)) != SHARD_OK) return st;
  const int64_t k = h.step;
  r->k_start = k;
  r->sys->t = (double)k * r->dt;
  r->wall_loop_prior = r->wall_loop_done;
  r->restarts++;
  r->hist_crc = h.hist_crc, r->hist_crc_len = h.hist_bytes;
  /* the history up to the checkpoint, then append */
  return history_continue(r, (long)h.hist_bytes, msg);
}

/* DIR/checkpoint.bin of the current format (its run hash and step in `hash`
 * and `step`) with the partial history it continues still in DIR. Only the
 * header is read: the rest is checked when a run continues from it. */
int run_checkpoint_header(const char *dir, char hash[64], int64_t *step) {
  char path[4200];
  unsigned char head[SHARD_CK_HEADER];
  snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  const size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  shard_ck_header h;
  if (shard_ck_peek(head, n, &h, NULL, NULL) != SHARD_OK) return 0;
  memcpy(hash, h.run_hash, 64);
  *step = h.step;
  snprintf(path, sizeof path, "%s/" HIST_PARTIAL, dir);
  return access(path, R_OK | W_OK) == 0;
}

/* `shard run --resume`: DIR/checkpoint.bin was written by this very run (same
 * run hash: resolved case, plugin files, version) and its partial history is
 * still there. Anything else (no checkpoint, another run's, an older format, a
 * history already published) means starting over. */
int run_checkpoint_resumable(const run *r) {
  char hash[64];
  int64_t step;
  return run_checkpoint_header(r->opt->out_dir, hash, &step) && memcmp(hash, r->run_hash, 64) == 0;
}
