/* host: running a campaign — each run is `shard run` in its own process
 * and directory, at most `jobs` at a time, with a per-run time limit and a
 * stall watchdog; failures are rows, not errors; SIGINT/SIGTERM stop
 * cleanly, and a campaign killed outright takes its runs with it; the table
 * is written atomically (see campaign.h). Nothing here prints: the caller
 * gets progress through a callback. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "campaign/campaign_exec.h"

#include "campaign/campaign.h"
#include "campaign/campaign_table.h"
#include "run/run.h"
#include "io/yaml_tree.h"

#define RESULT_FILE "result.yaml"
#define KEY_FILE "run.key"
#define KILL_GRACE 5.0 /* seconds between SIGTERM and SIGKILL when stopping */
#define TABLE_EVERY 10.0 /* seconds: the longest a finished run waits for the table */
#define HEARTBEAT_FD 3   /* the run's end of its heartbeat pipe (`shard run --heartbeat-fd`) */

typedef struct record {
  int finished;
  int reused;
  int stopped; /* stopped with the campaign (status interrupted) */
  char status[32];
  int exit_code; /* -1: none (signal) */
  int sig;       /* 0: none */
  double wall;
  char message[512];
} record;

typedef struct job {
  pid_t pid;
  size_t run;
  double start;
  int timed_out;
  int stopped;      /* killed because the campaign stops */
  int stalled;      /* killed by the stall watchdog */
  int beat_fd;      /* read end of the run's heartbeat pipe, -1 when none */
  double last_beat; /* when the run last reported a step (its start before that) */
} job;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int mkdirs(const char *path, shard_msg *msg) { return shard_mkdirs(path, msg); }

/* path = DIR/NAME, written through a unique temporary (fsio.h) */
static int write_atomic(const char *path, const char *data, size_t len, shard_msg *msg) {
  char dir[4096];
  const char *slash = strrchr(path, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
  return shard_write_atomic(dir, slash ? slash + 1 : path, data, len, msg);
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
    len += got;
    if (cap - len - 1 == 0) {
      char *b = realloc(buf, cap *= 2);
      if (!b) {
        free(buf);
        buf = NULL;
      }
      buf = b;
    }
  }
  fclose(f);
  if (buf) buf[len] = 0;
  return buf;
}

/* ---- run directories ------------------------------------------------------------------ */

int shard_campaign_index_width(size_t n) {
  int w = 1;
  for (size_t k = n > 0 ? n - 1 : 0; k >= 10; k /= 10) ++w;
  return w < 4 ? 4 : w;
}

/* runs/0007: a run's directory relative to the campaign directory */
static void run_dir_rel(size_t n_runs, size_t index, char *buf, size_t n) {
  int w = shard_campaign_index_width(n_runs);
  if (w > 20) w = 20;
  if (snprintf(buf, n, "runs/%0*zu", w, index) < 0) buf[0] = 0;
}

static void run_dir(const shard_campaign_options *opt, size_t n_runs, size_t index, char *buf, size_t n) {
  char rel[64];
  run_dir_rel(n_runs, index, rel, sizeof rel);
  if (snprintf(buf, n, "%s/%s", opt->out_dir, rel) < 0) buf[0] = 0;
}

/* What identifies a run's inputs: the base case's hash and its --set list. */
static char *run_key(const shard_campaign *c, const shard_campaign_run *run) {
  size_t n = 128;
  for (size_t i = 0; i < run->n_sets; ++i) n += strlen(run->sets[i]) + 8;
  char *k = malloc(n);
  if (!k) return NULL;
  size_t w = (size_t)snprintf(k, n, "case_sha256: %s\n", shard_campaign_case_hash(c));
  for (size_t i = 0; i < run->n_sets; ++i) w += (size_t)snprintf(k + w, n - w, "set: %s\n", run->sets[i]);
  return k;
}

static void yaml_quote(char *out, size_t n, const char *s) {
  size_t k = 0;
  if (n < 3) return;
  out[k++] = '"';
  for (; *s && k + 3 < n; ++s) {
    if (*s == '"' || *s == '\\') out[k++] = '\\';
    out[k++] = (*s == '\n' || *s == '\r' || *s == '\t') ? ' ' : *s;
  }
  out[k++] = '"';
  out[k] = 0;
}

static int write_result(const char *dir, const record *rec, const char *host, shard_msg *msg) {
  char path[4200], text[2048], quoted[1100], exitc[32] = "", sigc[32] = "";
  snprintf(path, sizeof path, "%s/%s", dir, RESULT_FILE);
  yaml_quote(quoted, sizeof quoted, rec->message);
  if (rec->exit_code >= 0) snprintf(exitc, sizeof exitc, "%d", rec->exit_code);
  if (rec->sig > 0) snprintf(sigc, sizeof sigc, "%d", rec->sig);
  int len = snprintf(text, sizeof text,
                     "# written by `shard campaign` when the run ended\nstatus: %s\nexit_code: %s\nsignal: %s\n"
                     "wall_time: %.3f\nhost: %s\nmessage: %s\n",
                     rec->status, exitc, sigc, rec->wall, host, quoted);
  return write_atomic(path, text, (size_t)len, msg);
}

/* The status written by `shard run` in summary.yaml, or ""; -1 when it
 * exists but could not be read (out of memory) */
static int summary_field(const char *dir, const char *key, char *out, size_t n) {
  char path[4200];
  snprintf(path, sizeof path, "%s/summary.yaml", dir);
  out[0] = 0;
  yt_arena *a = yt_arena_create();
  shard_diag *d = shard_diag_create();
  yt_node *root = NULL;
  struct stat st;
  int rc = a && d ? 0 : -1;
  if (!rc && stat(path, &st) == 0) {
    const int lst = yt_load_file(a, path, "summary", &root, d);
    if (lst == SHARD_OK) {
      const yt_node *v = yt_get_path(root, key);
      if (v && v->kind == YT_SCALAR) snprintf(out, n, "%s", v->text);
    } else {
      rc = -1; /* it exists but cannot be read (a run writes it whole): out of memory, most likely */
    }
  }
  shard_diag_destroy(d);
  yt_arena_destroy(a);
  return rc;
}

/* DIR holds the run of this key (its key file says so). */
static int same_key(const char *dir, const char *key) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, KEY_FILE);
  char *old = read_text(path);
  const int same = old && strcmp(old, key) == 0;
  free(old);
  return same;
}

/* DIR's run finished ok: its record from the result and summary files. */
static int finished_ok(const char *dir, record *rec) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, RESULT_FILE);
  yt_arena *a = yt_arena_create();
  shard_diag *d = shard_diag_create();
  yt_node *root = NULL;
  int ok = 0;
  if (a && d && access(path, R_OK) == 0 && yt_load_file(a, path, "run result", &root, d) == SHARD_OK) {
    const yt_node *s = yt_get_path(root, "status"), *w = yt_get_path(root, "wall_time");
    const yt_node *m = yt_get_path(root, "message");
    if (s && s->kind == YT_SCALAR && strcmp(s->text, "ok") == 0) {
      ok = 1;
      snprintf(rec->status, sizeof rec->status, "ok");
      rec->exit_code = 0;
      rec->sig = 0;
      rec->wall = w && w->kind == YT_SCALAR ? strtod(w->text, NULL) : 0.0;
      snprintf(rec->message, sizeof rec->message, "%s", m && m->kind == YT_SCALAR ? m->text : "");
    }
  }
  shard_diag_destroy(d);
  yt_arena_destroy(a);
  if (!ok) return 0;
  char st[64];
  summary_field(dir, "status", st, sizeof st);
  return strcmp(st, "ok") == 0;
}

/* Reuse a finished run (--resume): the key matches and result and summary both say ok. */
static int reuse(const char *dir, const char *key, record *rec) { return same_key(dir, key) && finished_ok(dir, rec); }

shard_campaign_run_state shard_campaign_run_status(const shard_campaign *c, const char *out_dir, size_t i,
                                                   int64_t *step) {
  const shard_campaign_options opt = {.out_dir = out_dir};
  char dir[4096];
  run_dir(&opt, shard_campaign_n_runs(c), i, dir, sizeof dir);
  /* the directory is this run's (same key): else it starts, whatever it holds */
  char *key = run_key(c, shard_campaign_run_at(c, i));
  const int same = key && same_key(dir, key);
  free(key);
  record rec;
  const int done = same && finished_ok(dir, &rec);
  if (done) return SHARD_CAMPAIGN_RUN_DONE;
  return same && shard_run_checkpoint_step(dir, step) ? SHARD_CAMPAIGN_RUN_CONTINUE : SHARD_CAMPAIGN_RUN_START;
}

/* The first line of stderr that says "error", else its first non-empty line. */
static void stderr_message(const char *dir, char *out, size_t n) {
  char path[4200];
  snprintf(path, sizeof path, "%s/stderr.txt", dir);
  out[0] = 0;
  char *text = read_text(path);
  if (!text) return;
  const char *first = NULL, *err = NULL;
  for (char *line = text, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    if (!*line) continue;
    if (!first) first = line;
    if (!err && strstr(line, "error")) err = line;
  }
  const char *pick = err ? err : first;
  if (pick) snprintf(out, n, "%s", pick);
  free(text);
}

/* Make fd `to` a copy of `from` that stays open across exec (async-signal-safe):
 * 0, or an errno. */
static int move_fd(int from, int to) {
  if (from == to) return fcntl(to, F_SETFD, 0) == 0 ? 0 : errno;
  return dup2(from, to) == to ? 0 : errno;
}

static int start_run(const shard_campaign *c, const shard_campaign_options *opt, const char *base, size_t index,
                     job *jb, shard_msg *msg) {
  const shard_campaign_run *run = shard_campaign_run_at(c, index);
  char dir[4096];
  run_dir(opt, shard_campaign_n_runs(c), index, dir, sizeof dir);
  int rc = mkdirs(dir, msg);
  if (rc != SHARD_OK) return rc;
  /* a run directory another process holds (a run left by a killed campaign)
   * is never touched: the campaign stops, naming that process */
  shard_dir_lock probe = SHARD_DIR_LOCK_INIT;
  if ((rc = shard_dir_lock_acquire(&probe, dir, NULL, "shard campaign (starting a run)", msg)) != SHARD_OK) return rc;
  shard_dir_lock_release(&probe);
  /* stale outputs of an earlier attempt must not pass for this run's */
  static const char *const stale[] = {RESULT_FILE, "summary.yaml", KEY_FILE};
  for (size_t i = 0; i < sizeof stale / sizeof stale[0]; ++i) {
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, stale[i]);
    if (unlink(p) != 0 && errno != ENOENT)
      return shard_msg_set(msg, SHARD_ERR_IO, "cannot remove %s: %s", p, strerror(errno));
  }
  char *key = run_key(c, run);
  if (!key) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  char kp[4200];
  snprintf(kp, sizeof kp, "%s/%s", dir, KEY_FILE);
  rc = write_atomic(kp, key, strlen(key), msg);
  free(key);
  if (rc != SHARD_OK) return rc;

  size_t argc = 0, cap = 16 + 2 * run->n_sets;
  char threads[16];
  snprintf(threads, sizeof threads, "%d", opt->threads_per_run);
  char **argv = calloc(cap, sizeof *argv);
  if (!argv) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  argv[argc++] = (char *)opt->exe;
  if (opt->plugin_path) {
    argv[argc++] = "--plugin-path";
    argv[argc++] = (char *)opt->plugin_path;
  }
  argv[argc++] = "run";
  argv[argc++] = (char *)base;
  argv[argc++] = "-o";
  argv[argc++] = dir;
  argv[argc++] = "--no-progress";
  argv[argc++] = "--heartbeat-fd";
  argv[argc++] = "3"; /* HEARTBEAT_FD */
  if (opt->resume) argv[argc++] = "--resume"; /* a run killed after a checkpoint continues from it */
  if (opt->threads_per_run > 1) argv[argc++] = "--threads", argv[argc++] = threads;
  for (size_t i = 0; i < run->n_sets; ++i) {
    argv[argc++] = "--set";
    argv[argc++] = (char *)run->sets[i];
  }
  argv[argc] = NULL;

  char out_path[4200], err_path[4200];
  snprintf(out_path, sizeof out_path, "%s/stdout.txt", dir);
  snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
  /* the run's heartbeat: a byte on this pipe whenever it has made steps;
   * a second, close-on-exec pipe carries an errno when the exec fails */
  int beat[2] = {-1, -1}, fail[2] = {-1, -1};
  if (pipe2(beat, O_CLOEXEC) != 0 || pipe2(fail, O_CLOEXEC) != 0) {
    int e = errno;
    for (int k = 0; k < 2; ++k) {
      if (beat[k] >= 0) close(beat[k]);
      if (fail[k] >= 0) close(fail[k]);
    }
    free(argv);
    return shard_msg_set(msg, SHARD_ERR_IO, "cannot create a pipe for run %zu: %s", index, strerror(e));
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) { /* the child: async-signal-safe calls only, up to the exec */
    int e = 0;
#ifdef __linux__
    /* die with the campaign, however it ends (kill -9 included); the
     * campaign may have died before this line: then go no further */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) e = errno;
#endif
    if (getppid() != parent) _exit(127);
    /* stdin, stdout, stderr, then the heartbeat's write end as HEARTBEAT_FD
     * (from a copy out of the way); everything else closes on exec */
    const int beat_w = e ? -1 : fcntl(beat[1], F_DUPFD_CLOEXEC, 10);
    if (!e && beat_w < 0) e = errno;
    const int in = e ? -1 : open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (!e && in < 0) e = errno;
    const int out = e ? -1 : open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (!e && out < 0) e = errno;
    const int err = e ? -1 : open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (!e && err < 0) e = errno;
    if (!e) e = move_fd(in, 0);
    if (!e) e = move_fd(out, 1);
    if (!e) e = move_fd(err, 2);
    if (!e) e = move_fd(beat_w, HEARTBEAT_FD);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    static const int reset[] = {SIGINT, SIGTERM, SIGCHLD, SIGPIPE, SIGHUP};
    for (size_t k = 0; k < sizeof reset / sizeof reset[0]; ++k) sigaction(reset[k], &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (!e) {
      execv(opt->exe, argv);
      e = errno;
    }
    ssize_t w = write(fail[1], &e, sizeof e);
    (void)w;
    _exit(127);
  }
  const int fork_errno = errno;
  free(argv);
  close(beat[1]);
  close(fail[1]);
  if (pid < 0) {
    close(beat[0]);
    close(fail[0]);
    return shard_msg_set(msg, SHARD_ERR_IO, "cannot start run %zu: fork: %s", index, strerror(fork_errno));
  }
  int child_errno = 0;
  ssize_t got;
  do
    got = read(fail[0], &child_errno, sizeof child_errno);
  while (got < 0 && errno == EINTR);
  close(fail[0]);
  if (got == (ssize_t)sizeof child_errno) {
    close(beat[0]);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    return shard_msg_set(msg, SHARD_ERR_IO, "cannot start %s for run %zu: %s", opt->exe, index,
                         strerror(child_errno));
  }
  fcntl(beat[0], F_SETFL, fcntl(beat[0], F_GETFL) | O_NONBLOCK);
  jb->pid = pid;
  jb->run = index;
  jb->start = jb->last_beat = now();
  jb->timed_out = 0;
  jb->stopped = 0;
  jb->stalled = 0;
  jb->beat_fd = beat[0];
  return SHARD_OK;
}

/* Read what the run's heartbeat pipe holds: any byte is a step made. */
static void take_beats(job *jb, double t) {
  if (jb->beat_fd < 0) return;
  char buf[256];
  for (;;) {
    ssize_t got = read(jb->beat_fd, buf, sizeof buf);
    if (got > 0) {
      jb->last_beat = t;
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    break; /* EAGAIN: nothing more; 0: the run closed it (ending) */
  }
}

static void finish_run(const shard_campaign *c, const shard_campaign_options *opt, const job *jb, int wstatus,
                       double timeout, double stall, record *rec) {
  char dir[4096];
  run_dir(opt, shard_campaign_n_runs(c), jb->run, dir, sizeof dir);
  rec->finished = 1;
  rec->wall = now() - jb->start;
  rec->exit_code = -1;
  rec->sig = 0;
  rec->message[0] = 0;
  if (WIFSIGNALED(wstatus)) {
    rec->sig = WTERMSIG(wstatus);
    if (jb->timed_out) {
      snprintf(rec->status, sizeof rec->status, "timeout");
      snprintf(rec->message, sizeof rec->message, "exceeded the time limit of %g s (killed)", timeout);
    } else if (jb->stalled) {
      snprintf(rec->status, sizeof rec->status, "failed");
      snprintf(rec->message, sizeof rec->message, "stalled: no step for %g s (stall_timeout; killed)", stall);
    } else {
      snprintf(rec->status, sizeof rec->status, "crashed");
      snprintf(rec->message, sizeof rec->message, "killed by signal %d (%s)", rec->sig, strsignal(rec->sig));
    }
    return;
  }
  rec->exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 1;
  char summary_status[64], summary_msg[512];
  const int unread = summary_field(dir, "status", summary_status, sizeof summary_status) < 0 ||
                     summary_field(dir, "message", summary_msg, sizeof summary_msg) < 0;
  if (unread) { /* its outcome cannot be confirmed: not counted as ok */
    snprintf(rec->status, sizeof rec->status, "failed");
    snprintf(rec->message, sizeof rec->message, "cannot read %.400s/summary.yaml: out of memory or not YAML (the run exited %d)", dir,
             rec->exit_code);
    return;
  }
  switch (rec->exit_code) {
  case 0:
    snprintf(rec->status, sizeof rec->status, "%s", *summary_status ? "ok" : "failed");
    if (!*summary_status) snprintf(rec->message, sizeof rec->message, "the run wrote no summary.yaml");
    return;
  case 2:
    snprintf(rec->status, sizeof rec->status, "bad_input");
    break;
  case 3:
    snprintf(rec->status, sizeof rec->status, "numerical_failure");
    break;
  default:
    snprintf(rec->status, sizeof rec->status, "failed");
  }
  if (*summary_msg)
    snprintf(rec->message, sizeof rec->message, "%s", summary_msg);
  else
    stderr_message(dir, rec->message, sizeof rec->message);
}

/* A run the campaign stopped (SIGTERM, its own SIGINT or SIGTERM): a row
 * that says so, and what --resume will do with it. */
static void stopped_run(const char *dir, const job *jb, int wstatus, int campaign_sig, record *rec) {
  rec->finished = 1;
  rec->stopped = 1;
  rec->wall = now() - jb->start;
  rec->exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  rec->sig = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
  snprintf(rec->status, sizeof rec->status, "interrupted");
  const char *why = campaign_sig == SIGINT ? "SIGINT" : "SIGTERM";
  int64_t step = 0;
  if (shard_run_checkpoint_step(dir, &step))
    snprintf(rec->message, sizeof rec->message,
             "stopped with the campaign (%s); --resume continues it from its checkpoint at step %lld", why,
             (long long)step);
  else
    snprintf(rec->message, sizeof rec->message, "stopped with the campaign (%s); --resume runs it again", why);
}

/* ---- the table ------------------------------------------------------------------------ */

static int build_table(const shard_campaign *c, const shard_campaign_options *opt, const record *recs,
                       const char *host, shard_table **out, shard_msg *msg) {
  shard_table *t = shard_table_create();
  int rc = t ? SHARD_OK : SHARD_ERR_NOMEM;
  char why[800] = "";
  if (rc == SHARD_OK && shard_table_column(t, "index") < 0) rc = SHARD_ERR_NOMEM;
  for (size_t i = 0; rc == SHARD_OK && i < shard_campaign_n_params(c); ++i)
    if (shard_table_column(t, shard_campaign_param(c, i)) < 0) rc = SHARD_ERR_NOMEM;
  for (size_t i = 0; rc == SHARD_OK && i < shard_campaign_n_run_columns; ++i)
    if (shard_table_column(t, shard_campaign_run_columns[i]) < 0) rc = SHARD_ERR_NOMEM;
  /* summary scalars already in the row: the run's own status and message,
   * and the parameters (the value as swept, not re-printed) */
  size_t n_skip = 2 + shard_campaign_n_params(c);
  const char **skip = calloc(n_skip, sizeof *skip);
  if (!skip) rc = SHARD_ERR_NOMEM;
  for (size_t i = 0; skip && i < shard_campaign_n_params(c); ++i) skip[i + 2] = shard_campaign_param(c, i);
  if (skip) {
    skip[0] = "status";
    skip[1] = "message";
  }
  for (size_t i = 0; rc == SHARD_OK && i < shard_campaign_n_runs(c); ++i) {
    const record *rec = &recs[i];
    if (!rec->finished) continue;
    int r = shard_table_add_row(t, (long)i);
    if (r < 0) {
      rc = SHARD_ERR_NOMEM;
      break;
    }
    const shard_campaign_run *run = shard_campaign_run_at(c, i);
    for (size_t p = 0; rc == SHARD_OK && p < shard_campaign_n_params(c); ++p)
      rc = shard_table_set(t, r, shard_campaign_param(c, p), run->values[p]);
    char num[32];
    if (rc == SHARD_OK) rc = shard_table_set(t, r, "status", rec->status);
    snprintf(num, sizeof num, "%d", rec->exit_code);
    if (rc == SHARD_OK) rc = shard_table_set(t, r, "exit_code", rec->exit_code >= 0 ? num : "");
    snprintf(num, sizeof num, "%d", rec->sig);
    if (rc == SHARD_OK) rc = shard_table_set(t, r, "signal", rec->sig > 0 ? num : "");
    snprintf(num, sizeof num, "%.3f", rec->wall);
    if (rc == SHARD_OK) rc = shard_table_set(t, r, "wall_time", num);
    if (rc == SHARD_OK) rc = shard_table_set(t, r, "host", host);
    if (rc == SHARD_OK) rc = shard_table_set(t, r, "message", rec->message);
    char rel[64];
    run_dir_rel(shard_campaign_n_runs(c), i, rel, sizeof rel);
    if (rc == SHARD_OK) rc = shard_table_set(t, r, "run_dir", rel);
    char dir[4096], path[4200];
    run_dir(opt, shard_campaign_n_runs(c), i, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/summary.yaml", dir);
    shard_msg ignore;
    if (rc == SHARD_OK && access(path, R_OK) == 0) {
      int st = shard_table_add_yaml(t, r, path, skip, n_skip, &ignore);
      /* an unreadable summary of a failed run leaves the row's own columns; an
       * ok run's summary must be in its row */
      if (st == SHARD_ERR_NOMEM || (st != SHARD_OK && strcmp(rec->status, "ok") == 0)) {
        rc = st == SHARD_ERR_NOMEM ? st : SHARD_ERR_IO;
        snprintf(why, sizeof why, "%.300s: %.400s", path, ignore.text);
      }
    }
  }
  free(skip);
  if (rc != SHARD_OK) {
    shard_table_destroy(t);
    return shard_msg_set(msg, rc, "cannot build the table: %s", why[0] ? why : "out of memory");
  }
  *out = t;
  return SHARD_OK;
}

/* Build the table of the finished runs and write it atomically: DIR/campaign.csv,
 * or DIR/campaign.slice-K-of-N.csv; its path in `path`. */
static int write_table(const shard_campaign *c, const shard_campaign_options *opt, const record *recs,
                       const char *host, char *path, size_t n_path, shard_table **out, shard_msg *msg) {
  *out = NULL;
  int rc = build_table(c, opt, recs, host, out, msg);
  if (rc != SHARD_OK) return rc;
  char name[128];
  if (opt->slice_n > 0)
    snprintf(name, sizeof name, "campaign.slice-%d-of-%d.csv", opt->slice_k, opt->slice_n);
  else
    snprintf(name, sizeof name, "campaign.csv");
  snprintf(path, n_path, "%s/%s", opt->out_dir, name);
  rc = shard_table_write_file(*out, opt->out_dir, name, msg);
  if (rc != SHARD_OK || opt->slice_n <= 0) return rc;
  /* what `merge` checks a slice table against: the campaign's size and base case */
  char info[4200], text[512];
  snprintf(info, sizeof info, "%s/campaign.slice-%d-of-%d.yaml", opt->out_dir, opt->slice_k, opt->slice_n);
  int len = snprintf(text, sizeof text,
                     "# written by `shard campaign --slice`: what `shard campaign merge` checks the slice against\n"
                     "slice: %d\nslices: %d\nruns: %zu\ncase_sha256: %s\n",
                     opt->slice_k, opt->slice_n, shard_campaign_n_runs(c), shard_campaign_case_hash(c));
  return write_atomic(info, text, (size_t)len, msg);
}

/* ---- the loop ---------------------------------------------------------------------------- */

static void report(const shard_campaign_options *opt, shard_campaign_progress *p, double t0, size_t ran,
                   const char *last) {
  if (!opt->progress) return;
  p->elapsed = now() - t0;
  p->eta = ran > 0 && p->done < p->total ? p->elapsed / (double)ran * (double)(p->total - p->done) : -1.0;
  p->last = last;
  opt->progress(opt->progress_ctx, p);
}

int shard_campaign_selected(const shard_campaign_options *opt, size_t i) {
  if (opt->slice_n > 0 && (int)(i % (size_t)opt->slice_n) != opt->slice_k - 1) return 0;
  return !opt->have_range || (i >= opt->range_first && i <= opt->range_last);
}

int shard_campaign_check_selection(const shard_campaign *c, const shard_campaign_options *opt, shard_msg *msg) {
  if (opt->slice_n < 0 || (opt->slice_n > 0 && (opt->slice_k < 1 || opt->slice_k > opt->slice_n)))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "invalid slice %d/%d", opt->slice_k, opt->slice_n);
  const size_t n = shard_campaign_n_runs(c);
  if (opt->have_range && (opt->range_first > opt->range_last || opt->range_last >= n))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "--runs %zu-%zu: the campaign has %zu runs, indices 0-%zu",
                         opt->range_first, opt->range_last, n, n ? n - 1 : 0);
  return SHARD_OK;
}

typedef struct costed {
  double cost;
  size_t run;
} costed;

static int by_cost(const void *a, const void *b) { /* costliest first, then in index order */
  const costed *x = a, *y = b;
  if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
  return (x->run > y->run) - (x->run < y->run);
}

/* The runs to start, costliest first (the file's `cost`): the longest runs
 * start while every job slot is busy, not last. */
static int order_by_cost(const shard_campaign *c, size_t *todo, size_t n) {
  costed *v = malloc((n + 1) * sizeof *v);
  if (!v) return SHARD_ERR_NOMEM;
  for (size_t k = 0; k < n; ++k) v[k] = (costed){shard_campaign_run_at(c, todo[k])->cost, todo[k]};
  qsort(v, n, sizeof *v, by_cost);
  for (size_t k = 0; k < n; ++k) todo[k] = v[k].run;
  free(v);
  return SHARD_OK;
}

int shard_campaign_execute(const shard_campaign *c, const shard_campaign_options *opt, shard_table **out_table,
                           shard_campaign_result *res, shard_msg *msg) {
  memset(res, 0, sizeof *res);
  if (out_table) *out_table = NULL;
  if (opt->jobs < 1) return shard_msg_set(msg, SHARD_ERR_INPUT, "-j must be at least 1");
  int rc = shard_campaign_check_selection(c, opt, msg);
  if (rc != SHARD_OK) return rc;
  const size_t n = shard_campaign_n_runs(c);
  rc = mkdirs(opt->out_dir, msg);
  if (rc != SHARD_OK) return rc;
  char base[4096];
  if (shard_campaign_base(c))
    snprintf(base, sizeof base, "%s", shard_campaign_base(c));
  else if ((rc = shard_campaign_write_case(c, opt->out_dir, base, sizeof base, msg)) != SHARD_OK)
    return rc;
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  double timeout = opt->timeout > 0 ? opt->timeout : shard_campaign_timeout(c);
  double stall = opt->stall_timeout > 0 ? opt->stall_timeout : opt->stall_timeout < 0 ? 0 : shard_campaign_stall_timeout(c);

  record *recs = calloc(n + 1, sizeof *recs);
  size_t *todo = calloc(n + 1, sizeof *todo);
  job *jobs = calloc((size_t)opt->jobs, sizeof *jobs);
  for (int k = 0; jobs && k < opt->jobs; ++k) jobs[k].beat_fd = -1;
  if (!recs || !todo || !jobs) {
    free(recs);
    free(todo);
    free(jobs);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  }
  shard_campaign_progress prog = {0};
  size_t n_todo = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!shard_campaign_selected(opt, i)) continue;
    prog.total++;
    if (opt->resume) {
      char dir[4096];
      run_dir(opt, n, i, dir, sizeof dir);
      char *key = run_key(c, shard_campaign_run_at(c, i));
      int again = key && reuse(dir, key, &recs[i]);
      free(key);
      if (again) {
        recs[i].finished = recs[i].reused = 1;
        prog.done++;
        prog.skipped++;
        continue;
      }
    }
    todo[n_todo++] = i;
  }
  if (shard_campaign_has_cost(c) && order_by_cost(c, todo, n_todo) != SHARD_OK) {
    free(recs);
    free(todo);
    free(jobs);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  }

  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGCHLD);
  if (opt->handle_signals) {
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
  }
  sigprocmask(SIG_BLOCK, &block, &old);

  double t0 = now(), stop_at = 0, last_report = t0, last_table = t0, last_look = t0;
  size_t next = 0, running = 0, ran = 0;
  int stopping = 0, stop_sig = 0;
  report(opt, &prog, t0, ran, NULL);
  while (rc == SHARD_OK || running > 0) {
    while (rc == SHARD_OK && !stopping && running < (size_t)opt->jobs && next < n_todo) {
      job *slot = NULL;
      for (int k = 0; k < opt->jobs && !slot; ++k)
        if (jobs[k].pid == 0) slot = &jobs[k];
      rc = start_run(c, opt, base, todo[next], slot, msg);
      if (rc != SHARD_OK) break;
      ++next;
      ++running;
    }
    if (running == 0) break;
    prog.running = running;
    if (now() - last_report >= 1.0) { /* keep the elapsed time and ETA ticking */
      report(opt, &prog, t0, ran, NULL);
      last_report = now();
    }
    /* wait for a child, a signal, or the next deadline */
    double wait = 0.2, t = now();
    for (int k = 0; k < opt->jobs; ++k) {
      if (jobs[k].pid > 0 && timeout > 0 && !jobs[k].timed_out) {
        double left = jobs[k].start + timeout - t;
        if (left < wait) wait = left > 0.001 ? left : 0.001;
      }
      if (jobs[k].pid > 0 && stall > 0 && !jobs[k].stalled) {
        double left = jobs[k].last_beat + stall - t;
        if (left < wait) wait = left > 0.001 ? left : 0.001;
      }
    }
    struct timespec ts = {(time_t)wait, (long)((wait - floor(wait)) * 1e9)};
    int sig = sigtimedwait(&block, NULL, &ts);
    /* Ctrl-C reaches the whole process group: a child may die of it before
     * our own SIGINT is taken, and must then count as stopped, not crashed */
    sigset_t pend;
    if (opt->handle_signals && sig == SIGCHLD && sigpending(&pend) == 0 &&
        (sigismember(&pend, SIGINT) == 1 || sigismember(&pend, SIGTERM) == 1)) {
      struct timespec zero = {0, 0};
      sig = sigtimedwait(&block, NULL, &zero);
      while (sig == SIGCHLD) sig = sigtimedwait(&block, NULL, &zero);
    }
    if ((sig == SIGINT || sig == SIGTERM) && !stopping) {
      stopping = 1;
      stop_sig = sig;
      stop_at = now();
      res->interrupted = 1;
      for (int k = 0; k < opt->jobs; ++k)
        if (jobs[k].pid > 0) {
          jobs[k].stopped = 1;
          kill(jobs[k].pid, SIGTERM);
        }
    }
    if (stopping && now() - stop_at > KILL_GRACE)
      for (int k = 0; k < opt->jobs; ++k)
        if (jobs[k].pid > 0) kill(jobs[k].pid, SIGKILL);
    t = now();
    /* the loop looks every 0.2 s: a longer gap means the campaign itself was
     * not running (stopped with its runs by Ctrl-Z, say), and the runs' silence
     * meanwhile is no stall */
    if (t - last_look > 1.0)
      for (int k = 0; k < opt->jobs; ++k) jobs[k].last_beat = t;
    last_look = t;
    for (int k = 0; k < opt->jobs; ++k) {
      job *jb = &jobs[k];
      if (jb->pid <= 0) continue;
      int ws = 0;
      take_beats(jb, t);
      const pid_t got = waitpid(jb->pid, &ws, WNOHANG);
      const int lost = got < 0 && errno != EINTR;
      if (got == jb->pid || lost) {
        close(jb->beat_fd);
        jb->beat_fd = -1;
      }
      if (got == jb->pid) {
        if (jb->stopped && !(WIFEXITED(ws) && WEXITSTATUS(ws) == 0)) {
          /* stopped part-way: its row says so (a run that ended ok all the same is a run like the others) */
          char dir[4096];
          run_dir(opt, n, jb->run, dir, sizeof dir);
          stopped_run(dir, jb, ws, stop_sig, &recs[jb->run]);
          shard_msg wmsg;
          if (write_result(dir, &recs[jb->run], host, &wmsg) != SHARD_OK && rc == SHARD_OK) {
            *msg = wmsg;
            rc = SHARD_ERR_IO;
          }
        } else {
          record *rec = &recs[jb->run];
          finish_run(c, opt, jb, ws, timeout, stall, rec);
          char dir[4096];
          run_dir(opt, n, jb->run, dir, sizeof dir);
          shard_msg wmsg;
          if (write_result(dir, rec, host, &wmsg) != SHARD_OK && rc == SHARD_OK) {
            *msg = wmsg;
            rc = SHARD_ERR_IO;
          }
          prog.done++;
          ++ran;
          if (strcmp(rec->status, "ok") != 0) prog.failed++;
          char last[600];
          snprintf(last, sizeof last, "run %zu: %s%s%s", jb->run, rec->status, *rec->message ? ": " : "",
                   rec->message);
          prog.running = running - 1;
          report(opt, &prog, t0, ran, last);
          last_report = now();
          /* the table so far, after every run of a second or more and at
           * least every TABLE_EVERY seconds (many short runs): a long
           * campaign can be looked at, and a hard kill keeps its table */
          if (rec->wall >= 1.0 || last_report - last_table >= TABLE_EVERY) {
            shard_table *partial = NULL;
            char ignored_path[4200];
            shard_msg ignored;
            write_table(c, opt, recs, host, ignored_path, sizeof ignored_path, &partial, &ignored);
            shard_table_destroy(partial);
            last_table = now();
          }
        }
        jb->pid = 0;
        --running;
      } else if (lost) {
        jb->pid = 0;
        --running;
      } else if (timeout > 0 && !jb->timed_out && !jb->stalled && t - jb->start > timeout) {
        jb->timed_out = 1;
        kill(jb->pid, SIGKILL);
      } else if (stall > 0 && !jb->stalled && !jb->timed_out && !jb->stopped && t - jb->last_beat > stall) {
        jb->stalled = 1; /* hung in a step: SIGTERM would wait for the step to end */
        kill(jb->pid, SIGKILL);
      }
    }
  }
  /* drain signals we blocked (a SIGCHLD left pending must not surface later) */
  struct timespec zero = {0, 0};
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  while (sigtimedwait(&chld, NULL, &zero) > 0) {
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  free(jobs);
  free(todo);

  shard_table *t = NULL;
  shard_msg wmsg;
  int trc = write_table(c, opt, recs, host, res->table_path, sizeof res->table_path, &t, &wmsg);
  if (trc != SHARD_OK && rc == SHARD_OK) *msg = wmsg;
  res->total = prog.total;
  res->skipped = prog.skipped;
  for (size_t i = 0; i < n; ++i)
    if (recs[i].finished) {
      if (recs[i].stopped)
        res->stopped++;
      else if (strcmp(recs[i].status, "ok") == 0)
        res->ok++;
      else
        res->failed++;
    }
  free(recs);
  if (rc == SHARD_OK) rc = trc;
  if (rc == SHARD_OK && out_table)
    *out_table = t;
  else
    shard_table_destroy(t);
  return rc;
}
