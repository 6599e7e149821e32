/* shard campaign FILE [-o DIR] [-j N] [--slice K/N] [--runs A-B] [--resume] [--timeout S] [--no-progress]
 * shard campaign merge OUT_DIR DIR... [--campaign FILE]
 *
 * Under `mpirun -n P` (a build with MPI): rank r runs slice r+1 of P, rank 0
 * gathers the slice tables, writes the merged campaign.csv, statistics.csv
 * and the plots. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef SHARD_HAVE_MPI
#include <mpi.h>
#endif

#include "campaign.h"
#include "commands.h"
#include "registry.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: shard campaign CAMPAIGN.yaml [-o DIR] [-j N] [--slice K/N] [--runs A-B] [--resume] [--timeout S] "
          "[--no-progress] [--dry-run | --plots-only]\n"
          "       shard campaign merge OUT_DIR DIR|TABLE.csv ... [--campaign CAMPAIGN.yaml]\n"
          "       mpirun -n P shard campaign CAMPAIGN.yaml [-o DIR] [-j N] [--resume]   (MPI builds)\n");
}

typedef struct progress_ctx {
  int tty;
  int rank; /* -1 without MPI */
  int line_shown;
} progress_ctx;

static void fmt_duration(double s, char *buf, size_t n) {
  if (s < 0) {
    snprintf(buf, n, "?");
  } else if (s < 60) {
    snprintf(buf, n, "%.0fs", s);
  } else if (s < 3600) {
    snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
  } else {
    snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
  }
}

static void on_progress(void *vctx, const shard_campaign_progress *p) {
  progress_ctx *ctx = vctx;
  char rank[32] = "";
  if (ctx->rank >= 0) snprintf(rank, sizeof rank, "rank %d: ", ctx->rank);
  /* failed runs are worth a line of their own, on a terminal or not */
  if (p->last && !strstr(p->last, ": ok")) {
    if (ctx->line_shown) fputs("\r\033[K", stderr);
    fprintf(stderr, "shard campaign: %s%s\n", rank, p->last);
    ctx->line_shown = 0;
  }
  if (!ctx->tty) return;
  char eta[32], el[32];
  fmt_duration(p->eta, eta, sizeof eta);
  fmt_duration(p->elapsed, el, sizeof el);
  fprintf(stderr, "\r\033[K%sruns %zu/%zu done, %zu failed, %zu running, %s elapsed%s%s", rank, p->done, p->total,
          p->failed, p->running, el, p->done < p->total ? ", ETA " : "", p->done < p->total ? eta : "");
  fflush(stderr);
  ctx->line_shown = 1;
}

static int parse_slice(const char *s, int *k, int *n) {
  char *end = NULL;
  long a = strtol(s, &end, 10);
  if (end == s || *end != '/') return 0;
  const char *s2 = end + 1;
  long b = strtol(s2, &end, 10);
  if (end == s2 || *end || b < 1 || a < 1 || a > b || b > INT_MAX) return 0;
  *k = (int)a;
  *n = (int)b;
  return 1;
}

/* --runs A-B (inclusive run indices) or --runs A (one run) */
static int parse_range(const char *s, size_t *first, size_t *last) {
  char *end = NULL;
  if (*s < '0' || *s > '9') return 0;
  unsigned long long a = strtoull(s, &end, 10), b = a;
  if (*end == '-') {
    const char *s2 = end + 1;
    if (*s2 < '0' || *s2 > '9') return 0;
    b = strtoull(s2, &end, 10);
  }
  if (*end || b < a || b > SIZE_MAX) return 0;
  *first = (size_t)a;
  *last = (size_t)b;
  return 1;
}

/* Under an MPI launcher with more than one process? */
static int mpi_world_size(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) {
    const char *v = getenv(vars[i]);
    if (v && atoi(v) > 0) return atoi(v);
  }
  return 0;
}

static void print_plots(const shard_plot_report *rep, const char *dir) {
  if (rep->written == 0) return;
  if (rep->have_gnuplot)
    printf("plots: %zu of %zu rendered (PNG, SVG) in %s/plots\n", rep->rendered, rep->written, dir);
  else
    printf("plots: %zu gnuplot scripts and data files in %s/plots; gnuplot is not on PATH: render each with\n"
           "  (cd %s/plots && gnuplot FILE.gp)\n",
           rep->written, dir, dir);
}

/* DIR/statistics.csv and, from fracture runs, DIR/fragment_sizes.csv when
 * the campaign has a `statistics:` block; 0 after reporting a failure. */
static int write_statistics(const shard_campaign *c, const shard_table *t, const char *dir, const char *who) {
  shard_msg msg = {{0}};
  size_t pooled = 0;
  if (shard_campaign_write_statistics(c, t, dir, &msg) != SHARD_OK ||
      shard_campaign_write_pooled_sizes(c, t, dir, &pooled, &msg) != SHARD_OK) {
    fprintf(stderr, "%s: %s\n", who, msg.text);
    return 0;
  }
  if (shard_campaign_stats(c)) {
    printf("statistics over %s -> %s/statistics.csv\n", shard_campaign_stats(c)->over, dir);
    if (pooled)
      printf("fragment sizes of %zu runs pooled over %s -> %s/fragment_sizes.csv\n", pooled,
             shard_campaign_stats(c)->over, dir);
  }
  return 1;
}

/* A word for a POSIX shell: as is when safe, else single-quoted. */
static void put_shell_word(const char *w) {
  if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:@%") == strlen(w)) {
    fputs(w, stdout);
    return;
  }
  putchar('\'');
  for (; *w; ++w) {
    if (*w == '\'')
      fputs("'\\''", stdout);
    else
      putchar(*w);
  }
  putchar('\'');
}

/* --dry-run: the validated runs as `shard run` command lines; with --resume,
 * what resuming would do with each (finished runs as comments, runs with a
 * checkpoint to continue marked) — the state of a campaign run in pieces. */
static void print_runs(const shard_campaign *c, const shard_campaign_options *opt) {
  const char *dir = opt->out_dir;
  const int resume = opt->resume;
  size_t n = shard_campaign_n_runs(c), shown = 0, n_done = 0, n_cont = 0;
  int width = 1;
  for (size_t k = n > 0 ? n - 1 : 0; k >= 10; k /= 10) ++width;
  if (width < 4) width = 4;
  for (size_t i = 0; i < n; ++i) {
    if (!shard_campaign_selected(opt, i)) continue;
    const shard_campaign_run *r = shard_campaign_run_at(c, i);
    char rd[4200], num[32];
    if (snprintf(num, sizeof num, "%0*zu", width > 20 ? 20 : width, i) < 0) num[0] = 0;
    if (snprintf(rd, sizeof rd, "%s/runs/%s", dir, num) < 0) rd[0] = 0;
    ++shown;
    int64_t step = 0;
    const shard_campaign_run_state st = resume ? shard_campaign_run_status(c, dir, i, &step) : SHARD_CAMPAIGN_RUN_START;
    if (st == SHARD_CAMPAIGN_RUN_DONE) {
      printf("# %s: done\n", rd);
      ++n_done;
      continue;
    }
    if (st == SHARD_CAMPAIGN_RUN_CONTINUE) {
      printf("# %s: continues from its checkpoint at step %lld\n", rd, (long long)step);
      ++n_cont;
    }
    fputs("shard run ", stdout);
    put_shell_word(shard_campaign_base(c) ? shard_campaign_base(c) : "CASE.yaml");
    fputs(" -o ", stdout);
    put_shell_word(rd);
    for (size_t k = 0; k < r->n_sets; ++k) {
      fputs(" --set ", stdout);
      put_shell_word(r->sets[k]);
    }
    puts(resume ? " --resume" : "");
  }
  printf("# %s: %zu run%s%s, all valid cases", shard_campaign_name(c), shown, shown == 1 ? "" : "s",
         opt->slice_n > 0 || opt->have_range ? " selected" : "");
  if (resume) printf("; --resume: %zu done, %zu to continue from a checkpoint, %zu to start", n_done, n_cont,
                     shown - n_done - n_cont);
  putchar('\n');
}

/* ---- merge ------------------------------------------------------------------------------ */

static int add_table(const char *path, shard_table ***parts, size_t *n, size_t *cap) {
  shard_msg msg = {{0}};
  shard_table *t = NULL;
  if (shard_table_read_csv(path, &t, &msg) != SHARD_OK) {
    fprintf(stderr, "shard campaign merge: %s\n", msg.text);
    return 0;
  }
  if (*n == *cap) {
    size_t nc = *cap ? 2 * *cap : 8;
    shard_table **p = realloc(*parts, nc * sizeof *p);
    if (!p) {
      shard_table_destroy(t);
      return 0;
    }
    *parts = p;
    *cap = nc;
  }
  (*parts)[(*n)++] = t;
  return 1;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The campaign file of `merge --campaign` (its own keys only: the runs are
 * done); NULL after printing its errors. */
static shard_campaign *merge_campaign(const char *path) {
  shard_diag *d = shard_diag_create();
  shard_campaign *c = NULL;
  if (d && shard_campaign_load(path, NULL, &c, d) != SHARD_OK) {
    shard_diag_sort(d);
    shard_diag_print(d, stderr);
  }
  if (!d) fprintf(stderr, "shard campaign merge: out of memory\n");
  shard_diag_destroy(d);
  return c;
}

static int cmd_merge(int argc, char **argv) {
  const char *campaign = NULL;
  int kept = 1;
  for (int i = 1; i < argc; ++i) { /* --campaign FILE anywhere; the other words in order */
    if (strcmp(argv[i], "--campaign") == 0 && i + 1 < argc)
      campaign = argv[++i];
    else
      argv[kept++] = argv[i];
  }
  argc = kept;
  if (argc < 3) {
    usage(stderr);
    return SHARD_EXIT_INPUT;
  }
  shard_campaign *c = campaign ? merge_campaign(campaign) : NULL;
  if (campaign && !c) return SHARD_EXIT_INPUT;
  const char *out = argv[1];
  shard_table **parts = NULL;
  size_t n = 0, cap = 0;
  int ok = 1, seen_of = 0;
  unsigned char have[4096] = {0};
  for (int i = 2; i < argc && ok; ++i) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "shard campaign merge: %s: %s\n", argv[i], strerror(errno));
      ok = 0;
      break;
    }
    if (S_ISREG(st.st_mode)) {
      ok = add_table(argv[i], &parts, &n, &cap);
      continue;
    }
    DIR *d = opendir(argv[i]);
    if (!d) {
      fprintf(stderr, "shard campaign merge: %s: %s\n", argv[i], strerror(errno));
      ok = 0;
      break;
    }
    char **names = NULL;
    size_t nn = 0, ncap = 0;
    for (struct dirent *e; (e = readdir(d));) {
      int k, of;
      char tail[8];
      if (sscanf(e->d_name, "campaign.slice-%d-of-%d.cs%1s", &k, &of, tail) != 3 || strcmp(tail, "v") != 0) continue;
      if (nn == ncap) {
        ncap = ncap ? 2 * ncap : 8;
        char **p = realloc(names, ncap * sizeof *p);
        if (!p) break;
        names = p;
      }
      names[nn++] = strdup(e->d_name);
      if (seen_of && seen_of != of) {
        fprintf(stderr, "shard campaign merge: %s/%s: slices of %d and of %d runs cannot be merged\n", argv[i],
                e->d_name, seen_of, of);
        ok = 0;
      }
      seen_of = of;
      if (k >= 1 && k <= (int)sizeof have) have[k - 1] = 1;
    }
    closedir(d);
    if (nn == 0 && ok) {
      fprintf(stderr, "shard campaign merge: %s holds no campaign.slice-K-of-N.csv\n", argv[i]);
      ok = 0;
    }
    if (names) qsort(names, nn, sizeof *names, name_cmp);
    for (size_t k = 0; k < nn; ++k) {
      char path[4200];
      snprintf(path, sizeof path, "%s/%s", argv[i], names[k] ? names[k] : "");
      if (ok) ok = names[k] && add_table(path, &parts, &n, &cap);
      free(names[k]);
    }
    free(names);
  }
  shard_table *t = NULL;
  shard_msg msg = {{0}};
  int code = SHARD_EXIT_INPUT;
  if (ok) {
    for (int k = 0; k < seen_of && k < (int)sizeof have; ++k)
      if (!have[k]) fprintf(stderr, "shard campaign merge: warning: slice %d of %d is missing\n", k + 1, seen_of);
    if (shard_table_merge(parts, n, &t, &msg) != SHARD_OK) {
      fprintf(stderr, "shard campaign merge: %s\n", msg.text);
    } else if (mkdir(out, 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "shard campaign merge: cannot create %s: %s\n", out, strerror(errno));
      code = SHARD_EXIT_FAIL;
    } else if (shard_table_write_file(t, out, "campaign.csv", &msg) != SHARD_OK) {
      fprintf(stderr, "shard campaign merge: %s\n", msg.text);
      code = SHARD_EXIT_FAIL;
    } else {
      printf("merged %zu tables, %zu runs -> %s/campaign.csv\n", n, shard_table_n_rows(t), out);
      code = !c || write_statistics(c, t, out, "shard campaign merge") ? SHARD_EXIT_OK : SHARD_EXIT_FAIL;
    }
  }
  shard_campaign_destroy(c);
  shard_table_destroy(t);
  for (size_t i = 0; i < n; ++i) shard_table_destroy(parts[i]);
  free(parts);
  return code;
}

/* ---- MPI ------------------------------------------------------------------------------------ */

#ifdef SHARD_HAVE_MPI
static int run_mpi(const shard_campaign *c, shard_campaign_options *opt, int *exit_code) {
  /* block the signals the campaign waits for before MPI starts its threads,
   * so that none of them takes a SIGTERM (or a SIGCHLD) meant for the loop */
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGCHLD);
  sigprocmask(SIG_BLOCK, &block, NULL);
  int provided = 0;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  opt->slice_k = rank + 1;
  opt->slice_n = size;
  progress_ctx *pc = opt->progress_ctx;
  pc->rank = rank;
  if (rank != 0) pc->tty = 0;
  shard_campaign_result res;
  shard_msg msg = {{0}};
  shard_table *mine = NULL;
  int rc = shard_campaign_execute(c, opt, &mine, &res, &msg);
  if (pc->line_shown) fputs("\r\033[K", stderr);
  if (rc != SHARD_OK) fprintf(stderr, "shard campaign: rank %d: %s\n", rank, msg.text);
  /* each rank's slice table, as CSV text, to rank 0 */
  char *text = NULL;
  size_t len = 0;
  if (mine) {
    FILE *m = open_memstream(&text, &len);
    if (m) {
      shard_table_write_csv(mine, m);
      fclose(m);
    }
  }
  long long mylen = text ? (long long)len : -1;
  long long counts[3] = {(long long)res.failed, res.interrupted, rc != SHARD_OK}, sums[3] = {0, 0, 0};
  MPI_Reduce(counts, sums, 3, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  int code = SHARD_EXIT_OK;
  if (rank != 0) {
    MPI_Send(&mylen, 1, MPI_LONG_LONG, 0, 1, MPI_COMM_WORLD);
    if (mylen > 0) MPI_Send(text, (int)mylen, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
  } else {
    shard_table **parts = calloc((size_t)size, sizeof *parts);
    size_t np = 0;
    int ok = parts != NULL && mine != NULL;
    if (ok) parts[np++] = mine;
    for (int r = 1; r < size; ++r) {
      long long l = -1;
      MPI_Recv(&l, 1, MPI_LONG_LONG, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (l < 0) {
        ok = 0;
        continue;
      }
      char *buf = malloc((size_t)l + 1);
      if (l > 0) MPI_Recv(buf, (int)l, MPI_CHAR, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      /* keep the slice beside the others (a copy when the ranks share no file system) */
      char name[128];
      snprintf(name, sizeof name, "%s/campaign.slice-%d-of-%d.csv", opt->out_dir, r + 1, size);
      FILE *f = buf ? fopen(name, "wb") : NULL;
      if (f) {
        fwrite(buf, 1, (size_t)l, f);
        fclose(f);
      }
      free(buf);
      shard_table *t = NULL;
      if (ok && shard_table_read_csv(name, &t, &msg) == SHARD_OK)
        parts[np++] = t;
      else
        ok = 0;
    }
    shard_table *merged = NULL;
    if (ok && shard_table_merge(parts, np, &merged, &msg) == SHARD_OK &&
        shard_table_write_file(merged, opt->out_dir, "campaign.csv", &msg) == SHARD_OK) {
      printf("campaign %s: %zu runs on %d ranks, %lld failed -> %s/campaign.csv\n", shard_campaign_name(c),
             shard_table_n_rows(merged), size, sums[0], opt->out_dir);
      int stats_ok = write_statistics(c, merged, opt->out_dir, "shard campaign");
      shard_plot_report rep;
      if (sums[1] == 0 && shard_campaign_plots(c, merged, opt->out_dir, &rep, &msg) == SHARD_OK)
        print_plots(&rep, opt->out_dir);
      else if (sums[1] == 0)
        fprintf(stderr, "shard campaign: %s\n", msg.text);
      code = sums[0] > 0 || sums[1] > 0 || !stats_ok ? SHARD_EXIT_FAIL : SHARD_EXIT_OK;
    } else {
      fprintf(stderr, "shard campaign: the slice tables could not be merged%s%s\n", msg.text[0] ? ": " : "",
              msg.text);
      code = SHARD_EXIT_FAIL;
    }
    shard_table_destroy(merged);
    for (size_t i = 1; i < np; ++i) shard_table_destroy(parts[i]);
    free(parts);
  }
  free(text);
  shard_table_destroy(mine);
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  *exit_code = code;
  return 1;
}
#endif

/* ---- run -------------------------------------------------------------------------------------- */

int shard_cmd_campaign(const shard_cli *cli, int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "merge") == 0) return cmd_merge(argc - 1, argv + 1);
  const char *file = NULL, *out = NULL;
  int jobs = 1, slice_k = 0, slice_n = 0, resume = 0, progress = -1, dry_run = 0, plots_only = 0, have_range = 0;
  size_t range_first = 0, range_last = 0;
  double timeout = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && i + 1 < argc) {
      out = argv[++i];
    } else if ((strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0) && i + 1 < argc) {
      char *end = NULL;
      long j = strtol(argv[++i], &end, 10);
      if (*end || j < 1 || j > 4096) {
        fprintf(stderr, "shard campaign: -j takes a number of parallel runs >= 1, got '%s'\n", argv[i]);
        return SHARD_EXIT_INPUT;
      }
      jobs = (int)j;
    } else if (strncmp(a, "-j", 2) == 0 && a[2] >= '0' && a[2] <= '9') {
      jobs = atoi(a + 2) > 0 ? atoi(a + 2) : 1;
    } else if (strcmp(a, "--slice") == 0 && i + 1 < argc) {
      if (!parse_slice(argv[++i], &slice_k, &slice_n)) {
        fprintf(stderr, "shard campaign: --slice takes K/N with 1 <= K <= N, got '%s'\n", argv[i]);
        return SHARD_EXIT_INPUT;
      }
    } else if (strcmp(a, "--runs") == 0 && i + 1 < argc) {
      if (!parse_range(argv[++i], &range_first, &range_last)) {
        fprintf(stderr, "shard campaign: --runs takes run indices A-B with A <= B (or one index), got '%s'\n", argv[i]);
        return SHARD_EXIT_INPUT;
      }
      have_range = 1;
    } else if (strcmp(a, "--resume") == 0) {
      resume = 1;
    } else if (strcmp(a, "--timeout") == 0 && i + 1 < argc) {
      char *end = NULL;
      timeout = strtod(argv[++i], &end);
      if (*end || !(timeout > 0) || !isfinite(timeout)) {
        fprintf(stderr, "shard campaign: --timeout takes seconds > 0, got '%s'\n", argv[i]);
        return SHARD_EXIT_INPUT;
      }
    } else if (strcmp(a, "--dry-run") == 0) {
      dry_run = 1;
    } else if (strcmp(a, "--plots-only") == 0) {
      plots_only = 1;
    } else if (strcmp(a, "--no-progress") == 0) {
      progress = 0;
    } else if (strcmp(a, "--progress") == 0) {
      progress = 1;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return SHARD_EXIT_OK;
    } else if (a[0] == '-' || file) {
      fprintf(stderr, "shard campaign: unexpected argument '%s'\n", a);
      usage(stderr);
      return SHARD_EXIT_INPUT;
    } else {
      file = a;
    }
  }
  if (!file) {
    usage(stderr);
    return SHARD_EXIT_INPUT;
  }
  int world = mpi_world_size();
  if (world > 1 && slice_n > 0) {
    fprintf(stderr, "shard campaign: --slice and mpirun both split the campaign; give one of them\n");
    return SHARD_EXIT_INPUT;
  }
#ifndef SHARD_HAVE_MPI
  if (world > 1) {
    fprintf(stderr, "shard campaign: started by an MPI launcher with %d processes, but MPI is unavailable in this "
                    "build (install libopenmpi-dev and rebuild), or run slices with --slice K/N\n",
            world);
    return SHARD_EXIT_FAIL;
  }
#endif

  shard_msg msg = {{0}};
  shard_registry *reg = NULL;
  shard_diag *diag = shard_diag_create();
  shard_campaign *c = NULL;
  int code = SHARD_EXIT_FAIL;
  if (!diag || shard_registry_create(&reg, &msg) != SHARD_OK) {
    fprintf(stderr, "shard campaign: %s\n", diag ? msg.text : "out of memory");
    goto done;
  }
  if (shard_registry_discover(reg, cli->plugin_path, &msg) != SHARD_OK) {
    fprintf(stderr, "shard: %s\n", msg.text);
    code = SHARD_EXIT_INPUT;
    goto done;
  }
  const int lst = shard_campaign_load(file, reg, &c, diag);
  if (lst != SHARD_OK) {
    shard_diag_sort(diag);
    if (lst == SHARD_ERR_NOMEM && shard_diag_count(diag) == 0) fprintf(stderr, "shard campaign: %s: out of memory\n", file);
    else shard_diag_print(diag, stderr);
    code = lst == SHARD_ERR_NOMEM ? SHARD_EXIT_FAIL : SHARD_EXIT_INPUT;
    goto done;
  }
  char exe[PATH_MAX], def_out[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    fprintf(stderr, "shard campaign: cannot find the shard executable (/proc/self/exe): %s\n", strerror(errno));
    goto done;
  }
  exe[n] = 0;
  if (!out) {
    snprintf(def_out, sizeof def_out, "out/%s", shard_campaign_name(c));
    out = def_out;
  }
  progress_ctx pc = {progress < 0 ? isatty(2) : progress, -1, 0};
  shard_campaign_options opt = {.out_dir = out,
                                .exe = exe,
                                .plugin_path = cli->plugin_path,
                                .jobs = jobs,
                                .slice_k = slice_k,
                                .slice_n = slice_n,
                                .have_range = have_range,
                                .range_first = range_first,
                                .range_last = range_last,
                                .resume = resume,
                                .timeout = timeout,
                                .handle_signals = 1,
                                .progress = on_progress,
                                .progress_ctx = &pc};
  if (shard_campaign_check_selection(c, &opt, &msg) != SHARD_OK) {
    fprintf(stderr, "shard campaign: %s: %s\n", file, msg.text);
    code = SHARD_EXIT_INPUT;
    goto done;
  }
  if (dry_run) {
    print_runs(c, &opt);
    code = SHARD_EXIT_OK;
    goto done;
  }
  if (plots_only) { /* e.g. after `shard campaign merge` */
    char table[4200];
    snprintf(table, sizeof table, "%s/campaign.csv", out);
    shard_table *t = NULL;
    shard_plot_report rep;
    if (shard_table_read_csv(table, &t, &msg) != SHARD_OK) {
      fprintf(stderr, "shard campaign: %s\n", msg.text);
    } else if (write_statistics(c, t, out, "shard campaign") &&
               shard_campaign_plots(c, t, out, &rep, &msg) == SHARD_OK) {
      print_plots(&rep, out);
      code = SHARD_EXIT_OK;
    } else if (msg.text[0]) {
      fprintf(stderr, "shard campaign: %s\n", msg.text);
    }
    shard_table_destroy(t);
    goto done;
  }
#ifdef SHARD_HAVE_MPI
  if (world > 1) {
    run_mpi(c, &opt, &code);
    goto done;
  }
#endif
  shard_campaign_result res;
  shard_table *t = NULL;
  int rc = shard_campaign_execute(c, &opt, &t, &res, &msg);
  if (pc.line_shown) fputs("\r\033[K", stderr);
  if (rc != SHARD_OK) {
    fprintf(stderr, "shard campaign: %s\n", msg.text);
    if (res.table_path[0]) fprintf(stderr, "shard campaign: the runs that finished are in %s\n", res.table_path);
    shard_table_destroy(t);
    goto done;
  }
  printf("campaign %s: %zu ok, %zu failed of %zu runs", shard_campaign_name(c), res.ok, res.failed, res.total);
  if (res.skipped) printf(" (%zu reused)", res.skipped);
  printf(" -> %s\n", res.table_path);
  int stats_ok = slice_n > 0 || write_statistics(c, t, out, "shard campaign");
  if (res.interrupted) {
    fprintf(stderr, "shard campaign: interrupted; %zu of %zu runs finished (resume with --resume)\n",
            res.ok + res.failed, res.total);
  } else if (slice_n == 0) {
    shard_plot_report rep;
    if (shard_campaign_plots(c, t, out, &rep, &msg) != SHARD_OK)
      fprintf(stderr, "shard campaign: %s\n", msg.text);
    else
      print_plots(&rep, out);
  }
  code = res.failed > 0 || res.interrupted || !stats_ok ? SHARD_EXIT_FAIL : SHARD_EXIT_OK;
  shard_table_destroy(t);
done:
  shard_campaign_destroy(c);
  shard_registry_destroy(reg);
  shard_diag_destroy(diag);
  return code;
}
