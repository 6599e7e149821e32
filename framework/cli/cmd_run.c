/* shard run CASE.yaml [-o DIR] [--set key.path=value ...] [--resume] [--progress|--no-progress] [--threads N]
 * shard run --restart DIR   (continue from DIR/checkpoint.bin with DIR/case.resolved.yaml)
 * --resume: continue from DIR/checkpoint.bin when this same run wrote it, else start over */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "case/case.h"
#include "commands.h"
#include "loader/registry.h"
#include "run/run.h"

/* the progress line on stderr: step, simulated time, rate, ETA */
static void print_progress(void *ctx, const shard_run_progress *p) {
  (void)ctx;
  fprintf(stderr, "\r  step %lld/%lld  t = %.4g s  %.3g steps/s  ETA %.0f s   %s", (long long)p->step,
          (long long)p->nsteps, p->t, p->rate, p->eta, p->final ? "\n" : "");
  fflush(stderr);
}

/* SIGINT / SIGTERM: finish the step in progress, then stop (a run with
 * checkpoints writes one there, see SHARD_RUN_STOPPED); a second signal
 * kills at once (SA_RESETHAND). */
static volatile sig_atomic_t stop_signal = 0;
static void on_stop_signal(int sig) { stop_signal = sig; }

static void catch_stop_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

/* --heartbeat-fd N (given by `shard campaign`): a thread writes a byte to
 * fd N whenever the run has made a step since the last look, four times a
 * second at most, and one when it starts; the campaign's stall watchdog
 * reads them. The time loop only stores its step number. */
typedef struct heartbeat {
  int fd;
  atomic_llong step;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done, started;
  pthread_t thread;
} heartbeat;

static void *heartbeat_loop(void *arg) {
  heartbeat *h = arg;
  long long last = LLONG_MIN; /* a first byte at once: the run is up (case loaded) */
  pthread_mutex_lock(&h->mu);
  while (!h->done) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 250000000L;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec += 1, ts.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&h->cv, &h->mu, &ts);
    const long long s = atomic_load_explicit(&h->step, memory_order_relaxed);
    if (s != last) {
      last = s;
      ssize_t w = write(h->fd, "s", 1); /* non-blocking: a full pipe already says it */
      (void)w;
    }
  }
  pthread_mutex_unlock(&h->mu);
  return NULL;
}

static int heartbeat_start(heartbeat *h, int fd) {
  h->fd = fd;
  atomic_init(&h->step, -1);
  h->done = h->started = 0;
  if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) return errno;
  pthread_mutex_init(&h->mu, NULL);
  pthread_cond_init(&h->cv, NULL);
  sigset_t all, old; /* signals are the main thread's */
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  int e = pthread_create(&h->thread, NULL, heartbeat_loop, h);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  h->started = e == 0;
  return e;
}

static void heartbeat_stop(heartbeat *h) {
  if (!h->started) return;
  pthread_mutex_lock(&h->mu);
  h->done = 1;
  pthread_cond_signal(&h->cv);
  pthread_mutex_unlock(&h->mu);
  pthread_join(h->thread, NULL);
  pthread_cond_destroy(&h->cv);
  pthread_mutex_destroy(&h->mu);
  h->started = 0;
}

int shard_cli_parse_threads(const char *value, int *out) {
  if (strcmp(value, "auto") == 0) value = "0";
  char *end = NULL;
  errno = 0;
  const long n = strtol(value, &end, 10);
  if (end == value || *end || errno || n < 0 || n > 4096) return -1;
  if (n == 0) {
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    *out = cores > 0 ? (int)(cores < 4096 ? cores : 4096) : 1;
  } else {
    *out = (int)n;
  }
  return 0;
}

int shard_cli_threads_available(const char *cmd, int threads) {
  if (threads <= 1) return 1;
  if (SHARD_WITH_THREADS) {
    /* Threads that wait at the end of a loop sleep at once instead of
     * spinning (unless the user chose otherwise): on a machine whose cores
     * are busy with other work a spinning thread holds a core the thread it
     * waits for needs (on a loaded 2-core machine, a small bar with every
     * loop threaded: 6x the wall time of one thread spinning, 1.7x
     * sleeping). Read by the OpenMP
     * runtime when the plugins load it, after this. */
    setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
    return threads;
  }
  fprintf(stderr, "%s: warning: this build has no threads (OpenMP was not found when it was configured): "
                  "--threads %d runs in one thread\n", cmd, threads);
  return 1;
}

/* The plugins' OpenMP runtime (the library the build linked them with)
 * loaded here, before them, and never unloaded: its threads outlive the
 * run, and unloading it under them when the registry closes the plugins
 * crashed (a thread spinning in code unmapped: OMP_WAIT_POLICY=active). Not
 * found (another machine): the plugins load it, as without this. */
static void pin_openmp_runtime(void) {
#ifdef SHARD_OPENMP_RUNTIME
  void *h = dlopen(SHARD_OPENMP_RUNTIME, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  if (h) dlclose(h); /* the reference just taken; RTLD_NODELETE keeps it */
#endif
}

static void usage(FILE *out) {
  fprintf(out, "usage: shard run CASE.yaml [-o DIR] [--set key.path=value ...] [--resume] [--progress | --no-progress]\n"
                  "                [--threads N] [--thread-grain G]\n"
                  "       shard run --restart DIR [--threads N]\n"
                  "--threads N runs the model's and the integrator's loops in N threads (default 1; 0 or auto: the\n"
                  "cores); the results do not depend on N, bit for bit. --thread-grain G: loops of fewer than G\n"
                  "iterations stay in one thread (default 16384; the tests use a small G on small cases)\n"
                  "--resume continues from DIR/checkpoint.bin when this same run (case, plugins, version) wrote it,\n"
                  "and starts over otherwise; --restart DIR insists on DIR's checkpoint\n"
                  "SIGINT or SIGTERM stops after the step in progress: a run with time.checkpoint_every writes a\n"
                  "checkpoint there (continue with --resume), any other writes its outputs so far (status stopped)\n"
                  "--heartbeat-fd N (used by shard campaign): a byte on fd N whenever steps were made\n");
}

int shard_cmd_run(const shard_cli *cli, int argc, char **argv) {
  const char *case_path = NULL, *out = NULL, *restart = NULL;
  char restart_case[4200];
  const char **sets = calloc((size_t)argc + 1, sizeof *sets);
  int n_sets = 0, progress = -1, resume = 0, beat_fd = -1, threads = 1;
  long grain = 0;
  if (!sets) {
    fprintf(stderr, "shard run: out of memory\n");
    return SHARD_EXIT_FAIL;
  }
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      free(sets);
      return SHARD_EXIT_OK;
    } else if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && i + 1 < argc) out = argv[++i];
    else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) sets[n_sets++] = argv[++i];
    else if (strncmp(argv[i], "--set=", 6) == 0) sets[n_sets++] = argv[i] + 6;
    else if (strcmp(argv[i], "--restart") == 0 && i + 1 < argc) restart = argv[++i];
    else if (strcmp(argv[i], "--resume") == 0) resume = 1;
    else if (strcmp(argv[i], "--progress") == 0) progress = 1;
    else if (strcmp(argv[i], "--no-progress") == 0) progress = 0;
    else if ((strcmp(argv[i], "--threads") == 0 && i + 1 < argc) || strncmp(argv[i], "--threads=", 10) == 0) {
      const char *v = argv[i][9] == '=' ? argv[i] + 10 : argv[++i];
      if (shard_cli_parse_threads(v, &threads) != 0) {
        fprintf(stderr, "shard run: --threads takes a number of threads >= 1, or 0 or auto for the cores, got '%s'\n",
                v);
        free(sets);
        return SHARD_EXIT_INPUT;
      }
    } else if (strcmp(argv[i], "--thread-grain") == 0 && i + 1 < argc) {
      char *end = NULL;
      errno = 0;
      grain = strtol(argv[++i], &end, 10);
      if (end == argv[i] || *end || errno || grain < 1 || grain > INT32_MAX) {
        fprintf(stderr, "shard run: --thread-grain takes a number of loop iterations >= 1, got '%s'\n", argv[i]);
        free(sets);
        return SHARD_EXIT_INPUT;
      }
    } else if (strcmp(argv[i], "--heartbeat-fd") == 0 && i + 1 < argc) {
      char *end = NULL;
      errno = 0;
      long fd = strtol(argv[++i], &end, 10);
      if (end == argv[i] || *end || errno || fd < 0 || fd > 1 << 20 || fcntl((int)fd, F_GETFD) < 0) {
        fprintf(stderr, "shard run: --heartbeat-fd takes an open file descriptor, got '%s'\n", argv[i]);
        free(sets);
        return SHARD_EXIT_INPUT;
      }
      beat_fd = (int)fd;
    } else if (argv[i][0] == '-' || case_path) {
      fprintf(stderr, "shard run: unexpected argument '%s'\n", argv[i]);
      usage(stderr);
      free(sets);
      return SHARD_EXIT_INPUT;
    } else case_path = argv[i];
  }
  if (restart) {
    if (case_path || out || n_sets || resume) {
      fprintf(stderr, "shard run: --restart DIR takes the case and outputs of DIR; no CASE, -o, --set or --resume\n");
      free(sets);
      return SHARD_EXIT_INPUT;
    }
    snprintf(restart_case, sizeof restart_case, "%s/case.resolved.yaml", restart);
    case_path = restart_case;
    out = restart;
  }
  if (!case_path) {
    usage(stderr);
    free(sets);
    return SHARD_EXIT_INPUT;
  }
  /* before the plugins load the OpenMP runtime, which reads its environment then */
  threads = shard_cli_threads_available("shard run", threads);
  if (threads > 1) pin_openmp_runtime();
  shard_msg msg = {{0}};
  shard_registry *reg = NULL;
  shard_diag *diag = shard_diag_create();
  shard_case *c = NULL;
  int code = SHARD_EXIT_FAIL;
  if (!diag || shard_registry_create(&reg, &msg) != SHARD_OK) {
    fprintf(stderr, "shard run: %s\n", diag ? msg.text : "out of memory");
    goto out;
  }
  const int dst = shard_registry_discover(reg, cli->plugin_path, &msg);
  if (dst != SHARD_OK) {
    fprintf(stderr, "shard: %s\n", msg.text);
    code = dst == SHARD_ERR_NOMEM || dst == SHARD_ERR_IO ? SHARD_EXIT_FAIL : SHARD_EXIT_INPUT;
    goto out;
  }
  const int lst = shard_case_load(case_path, sets, n_sets, reg, &c, diag);
  if (lst != SHARD_OK) {
    shard_diag_print(diag, stderr);
    code = lst == SHARD_ERR_NOMEM ? SHARD_EXIT_FAIL : SHARD_EXIT_INPUT;
    goto out;
  }
  char def_out[8400];
  if (!out) {
    const char *name = shard_case_string(c, "name");
    if (!name) {
      const char *slash = strrchr(case_path, '/');
      name = slash ? slash + 1 : case_path;
    }
    snprintf(def_out, sizeof def_out, "out/%s", name);
    char *dot = strrchr(def_out, '.');
    if (dot && strcmp(dot, ".yaml") == 0) *dot = '\0';
    out = def_out;
  }
  /* the case's output.progress (auto: on a terminal), overridden by --progress / --no-progress */
  const char *mode = shard_case_string(c, "output.progress");
  int show = progress >= 0 ? progress : mode && strcmp(mode, "always") == 0 ? 1 : mode && strcmp(mode, "never") == 0 ? 0 : isatty(2);
  int64_t continued_from = -1;
  shard_run_options opt = {.out_dir = out,
                           .on_progress = show ? print_progress : NULL,
                           .restart = restart != NULL,
                           .resume = resume,
                           .continued_from = &continued_from,
                           .stop = &stop_signal,
                           .threads = threads,
                           .thread_grain = (int32_t)grain};
  catch_stop_signals();
  heartbeat beat;
  if (beat_fd >= 0) {
    int e = heartbeat_start(&beat, beat_fd);
    if (e != 0) {
      fprintf(stderr, "shard run: --heartbeat-fd %d: %s\n", beat_fd, strerror(e));
      goto out;
    }
    opt.step_now = &beat.step;
  }
  code = shard_run_case(c, reg, &opt, diag, &msg);
  if (beat_fd >= 0) heartbeat_stop(&beat);
  if (shard_diag_count(diag) > 0) shard_diag_print(diag, stderr);
  if (code == SHARD_RUN_STOPPED) {
    fprintf(stderr, "shard run: %s: %s\n", strsignal(stop_signal), msg.text);
    code = 128 + stop_signal; /* as a shell reports a process the signal ended */
  } else if (code != 0 && msg.text[0]) {
    fprintf(stderr, "shard run: %s\n", msg.text);
  }
  const int ran = code == 0 || code == SHARD_EXIT_NUMERIC;
  if (continued_from >= 0) printf("%s: continued from the checkpoint at step %lld\n", out, (long long)continued_from);
  else if (resume && ran) printf("%s: no checkpoint of this run in it, started from the beginning\n", out);
  if (code == 0) printf("%s: ok -> %s\n", case_path, out);
  else if (code == SHARD_EXIT_NUMERIC) fprintf(stderr, "shard run: outputs up to the failing step are in %s\n", out);
out:
  shard_case_destroy(c);
  shard_registry_destroy(reg);
  shard_diag_destroy(diag);
  free(sets);
  return code;
}
