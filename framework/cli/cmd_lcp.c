/* shard lcp — solve one LCP 0 <= z ⊥ Mz + q >= 0 with a solver plugin.
 *
 *   shard lcp --solver NAME M.mtx q.mtx [--set key=value ...] [--output z.mtx]
 *   shard lcp --solver NAME --bench tridiag --n N [--repeat R] [--set ...]
 *   shard lcp --solver NAME --bench blocks --n N --block K [--repeat R] [--set ...]
 *
 * The first form reads Matrix Market files and prints status, iterations,
 * residual, the solve's wall time [s] and z (one value per line, %.17g). The second times the solver on
 * a tridiagonal problem shaped like the 1D contact operator W′ (diagonal
 * 1.02, off-diagonals -0.49, q of mixed sign) and prints one line of figures.
 * The third cuts that operator into independent chain blocks of K rows and
 * times them through the host's block-split solve (shard_contact_lcp_solve:
 * split, copies, class check, solver, solution check) against direct solver
 * calls on the same blocks: the difference is the host's per-block overhead;
 * also with the blocks batched into one call (solvers of the tridiagonal
 * Z class; others are timed block by block twice).
 * Exit: 0 solved, 3 not converged / no solution, 2 bad input, 1 other. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "contact/contact.h"
#include "core/expr.h"
#include "io/params_text.h"
#include "loader/plugin_calls.h"
#include "io/mtx.h"
#include "loader/registry.h"
#include "shard/lcp_solver.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define LCP_MAX_SETS 64

typedef struct lcp_args {
  const char *solver;
  const char *files[2];
  int n_files;
  const char *sets[LCP_MAX_SETS];
  int n_sets;
  const char *output;
  const char *bench;
  long long bench_n;
  long long block;
  long long repeat;
  int quiet;
} lcp_args;

static void lcp_usage(FILE *out) {
  fprintf(out,
          "usage: shard lcp --solver NAME M.mtx q.mtx [--set key=value ...] [--output z.mtx] [--quiet]\n"
          "       shard lcp --solver NAME --bench tridiag --n N [--repeat R] [--set key=value ...]\n"
          "       shard lcp --solver NAME --bench blocks --n N --block K [--repeat R] [--set key=value ...]\n"
          "Solves 0 <= z _|_ M z + q >= 0. Prints status, iterations, residual and z (one per line).\n"
          "--quiet omits z; --output writes z as a Matrix Market vector.\n"
          "exit codes: 0 solved, 3 not converged or no solution, 2 bad input, 1 other errors\n");
}

static int parse_count(const char *opt, const char *text, long long lo, long long hi, long long *out) {
  char *end = NULL;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
    fprintf(stderr, "shard lcp: %s expects an integer in [%lld, %lld], got '%s'\n", opt, lo, hi, text);
    return 0;
  }
  *out = v;
  return 1;
}

/* SHARD_EXIT_OK when parsed; -1 for --help */
static int parse_args(int argc, char **argv, lcp_args *a) {
  memset(a, 0, sizeof *a);
  a->repeat = 1;
  for (int i = 1; i < argc; ++i) {
    const char *s = argv[i];
    const int has_next = i + 1 < argc;
    if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) return -1;
    if (strcmp(s, "--solver") == 0 && has_next) {
      a->solver = argv[++i];
    } else if (strncmp(s, "--solver=", 9) == 0) {
      a->solver = s + 9;
    } else if (strcmp(s, "--set") == 0 && has_next) {
      if (a->n_sets == LCP_MAX_SETS) {
        fprintf(stderr, "shard lcp: too many --set options (at most %d)\n", LCP_MAX_SETS);
        return SHARD_EXIT_INPUT;
      }
      a->sets[a->n_sets++] = argv[++i];
    } else if (strcmp(s, "--output") == 0 && has_next) {
      a->output = argv[++i];
    } else if (strcmp(s, "--bench") == 0 && has_next) {
      a->bench = argv[++i];
    } else if (strcmp(s, "--n") == 0 && has_next) {
      if (!parse_count("--n", argv[++i], 1, INT32_MAX / 4, &a->bench_n)) return SHARD_EXIT_INPUT;
    } else if (strcmp(s, "--block") == 0 && has_next) {
      if (!parse_count("--block", argv[++i], 1, 1000000, &a->block)) return SHARD_EXIT_INPUT;
    } else if (strcmp(s, "--repeat") == 0 && has_next) {
      if (!parse_count("--repeat", argv[++i], 1, 1000000, &a->repeat)) return SHARD_EXIT_INPUT;
    } else if (strcmp(s, "--quiet") == 0) {
      a->quiet = 1;
    } else if (s[0] == '-' && s[1] != '\0') {
      fprintf(stderr, "shard lcp: unknown or incomplete option '%s'\n", s);
      lcp_usage(stderr);
      return SHARD_EXIT_INPUT;
    } else {
      if (a->n_files == 2) {
        fprintf(stderr, "shard lcp: unexpected argument '%s' (expected M.mtx q.mtx)\n", s);
        return SHARD_EXIT_INPUT;
      }
      a->files[a->n_files++] = s;
    }
  }
  if (!a->solver) {
    fprintf(stderr, "shard lcp: --solver NAME is required\n");
    lcp_usage(stderr);
    return SHARD_EXIT_INPUT;
  }
  if (a->bench) {
    if (strcmp(a->bench, "tridiag") != 0 && strcmp(a->bench, "blocks") != 0) {
      fprintf(stderr, "shard lcp: unknown benchmark '%s' (available: tridiag, blocks)\n", a->bench);
      return SHARD_EXIT_INPUT;
    }
    if (strcmp(a->bench, "blocks") == 0 && (a->block == 0 || a->block > a->bench_n)) {
      fprintf(stderr, "shard lcp: --bench blocks needs --block K with 1 <= K <= N\n");
      return SHARD_EXIT_INPUT;
    }
    if (a->n_files) {
      fprintf(stderr, "shard lcp: --bench takes no matrix files\n");
      return SHARD_EXIT_INPUT;
    }
    if (a->bench_n == 0) {
      fprintf(stderr, "shard lcp: --bench needs --n N\n");
      return SHARD_EXIT_INPUT;
    }
  } else if (a->n_files != 2) {
    fprintf(stderr, "shard lcp: expected two files, M.mtx and q.mtx\n");
    lcp_usage(stderr);
    return SHARD_EXIT_INPUT;
  }
  return SHARD_EXIT_OK;
}

/* ------------------------------------------------------------ suggestions */

static void unknown_solver(const shard_registry *reg, const char *name) {
  const char *names[64];
  size_t n = 0;
  char list[512] = "";
  size_t used = 0;
  for (size_t i = 0; i < shard_registry_count(reg); ++i) {
    const shard_plugin *d = shard_registry_at(reg, i)->desc;
    if (d->kind != SHARD_KIND_LCP_SOLVER) continue;
    if (n < sizeof names / sizeof names[0]) names[n++] = d->name;
    int w = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", d->name);
    if (w > 0 && (size_t)w < sizeof list - used) used += (size_t)w;
  }
  const char *best = shard_suggest(name, names, n);
  const char *why = shard_registry_why(reg, name);
  char searched[2048];
  shard_registry_search_path(reg, searched, sizeof searched);
  if (why) {
    fprintf(stderr, "shard lcp: LCP solver '%s' cannot be loaded: %s\n", name, why);
    return;
  }
  fprintf(stderr, "shard lcp: unknown LCP solver '%s'", name);
  if (best) fprintf(stderr, "; did you mean '%s'?", best);
  fprintf(stderr, " (available: %s)\n", used ? list : "none found");
  fprintf(stderr, "shard lcp: plugins searched for in %s; add directories with --plugin-path or SHARD_PLUGIN_PATH\n",
          searched[0] ? searched : "(no directory)");
}

/* ------------------------------------------------------------- parameters */


/* Resolve the plugin's parameters: defaults, then the --set values. */
static int resolve_params(const shard_plugin *d, const lcp_args *a, shard_param_value *values) {
  char err[256];
  for (uint32_t k = 0; k < d->n_params; ++k) {
    const shard_param_spec *sp = &d->params[k];
    memset(&values[k], 0, sizeof values[k]);
    if (sp->def && !shard_param_parse(sp, sp->def, &values[k], err, sizeof err)) {
      fprintf(stderr, "shard lcp: solver '%s': default of '%s' %s (plugin bug)\n", d->name, sp->key, err);
      return 0;
    }
  }
  for (int i = 0; i < a->n_sets; ++i) {
    const char *eq = strchr(a->sets[i], '=');
    if (!eq || eq == a->sets[i]) {
      fprintf(stderr, "shard lcp: --set '%s': expected key=value\n", a->sets[i]);
      return 0;
    }
    size_t klen = (size_t)(eq - a->sets[i]);
    uint32_t k = 0;
    while (k < d->n_params && !(strlen(d->params[k].key) == klen && strncmp(d->params[k].key, a->sets[i], klen) == 0))
      ++k;
    if (k == d->n_params) {
      char key[128];
      snprintf(key, sizeof key, "%.*s", (int)(klen < 127 ? klen : 127), a->sets[i]);
      const char *keys[64];
      size_t nk = 0;
      for (uint32_t j = 0; j < d->n_params && nk < sizeof keys / sizeof keys[0]; ++j) keys[nk++] = d->params[j].key;
      const char *best = shard_suggest(key, keys, nk);
      fprintf(stderr, "shard lcp: --set '%s': solver '%s' has no parameter '%s'", a->sets[i], d->name, key);
      if (best) fprintf(stderr, "; did you mean '%s'?", best);
      fprintf(stderr, " (parameters:");
      for (uint32_t j = 0; j < d->n_params; ++j) fprintf(stderr, " %s", d->params[j].key);
      fprintf(stderr, ")\n");
      return 0;
    }
    if (!shard_param_parse(&d->params[k], eq + 1, &values[k], err, sizeof err)) {
      fprintf(stderr, "shard lcp: --set '%s': '%s' %s\n", a->sets[i], d->params[k].key, err);
      return 0;
    }
  }
  for (uint32_t k = 0; k < d->n_params; ++k)
    if ((d->params[k].flags & SHARD_PARAM_REQUIRED) && !values[k].set) {
      fprintf(stderr, "shard lcp: solver '%s' needs --set %s=...\n", d->name, d->params[k].key);
      return 0;
    }
  return 1;
}

/* ----------------------------------------------------------------- solving */

static uint32_t problem_flags(const shard_csr *a) {
  uint32_t flags = SHARD_LCP_SYMMETRIC | SHARD_LCP_ZMATRIX;
  for (int32_t i = 0; i < a->nrows; ++i)
    for (int32_t k = a->rowptr[i]; k < a->rowptr[i + 1]; ++k) {
      const int32_t j = a->colind[k];
      const double v = a->val[k];
      if (j != i && v > 0.0) flags &= ~SHARD_LCP_ZMATRIX;
      if (j == i || !(flags & SHARD_LCP_SYMMETRIC)) continue;
      /* binary search (j, i) */
      int32_t lo = a->rowptr[j], hi = a->rowptr[j + 1] - 1;
      double t = 0.0;
      while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (a->colind[mid] == i) {
          t = a->val[mid];
          break;
        }
        if (a->colind[mid] < i) lo = mid + 1;
        else hi = mid - 1;
      }
      if (fabs(t - v) > 1e-14 * fmax(fabs(t), fabs(v))) flags &= ~SHARD_LCP_SYMMETRIC;
    }
  return flags;
}

static double now_seconds(void);

typedef struct lcp_run {
  const shard_plugin *desc;
  const shard_lcp_solver_ops *ops;
  void *self;
} lcp_run;

static int exit_for(int status) {
  if (status == SHARD_OK) return SHARD_EXIT_OK;
  if (status > 0 || status == SHARD_ERR_NUMERIC) return SHARD_EXIT_NUMERIC;
  if (status == SHARD_ERR_INPUT || status == SHARD_ERR_UNSUPPORTED) return SHARD_EXIT_INPUT;
  return SHARD_EXIT_FAIL;
}

static int open_solver(const shard_cli *cli, const lcp_args *a, shard_registry **reg, lcp_run *run,
                       int32_t n, int64_t nnz) {
  shard_msg msg = {{0}};
  if (shard_registry_create(reg, &msg) != SHARD_OK || shard_registry_discover(*reg, cli->plugin_path, &msg) != SHARD_OK) {
    fprintf(stderr, "shard lcp: %s\n", msg.text);
    return SHARD_EXIT_FAIL;
  }
  const shard_loaded_plugin *lp = shard_registry_find(*reg, SHARD_KIND_LCP_SOLVER, a->solver);
  if (!lp) {
    unknown_solver(*reg, a->solver);
    return SHARD_EXIT_INPUT;
  }
  run->desc = lp->desc;
  run->ops = shard_lcp_solver_ops_of(lp->desc);
  shard_param_value *values = calloc(lp->desc->n_params ? lp->desc->n_params : 1, sizeof *values);
  if (!values) {
    fprintf(stderr, "shard lcp: out of memory\n");
    return SHARD_EXIT_FAIL;
  }
  if (!resolve_params(lp->desc, a, values)) {
    free(values);
    return SHARD_EXIT_INPUT;
  }
  shard_params params = {lp->desc->params, lp->desc->n_params, values};
  int st = shard_lcp_solver_create(run->ops, &params, &run->self, &msg);
  free(values);
  if (st == SHARD_OK) st = shard_lcp_solver_setup(run->ops, run->self, n, nnz, &msg);
  if (st != SHARD_OK) {
    fprintf(stderr, "shard lcp: solver '%s': %s\n", a->solver, msg.text);
    return exit_for(st) == SHARD_EXIT_OK ? SHARD_EXIT_FAIL : exit_for(st);
  }
  return SHARD_EXIT_OK;
}

static void close_solver(shard_registry *reg, lcp_run *run) {
  shard_lcp_solver_destroy(run->ops, run->self);
  run->self = NULL;
  shard_registry_destroy(reg);
}

static int solve_files(const shard_cli *cli, const lcp_args *a) {
  shard_msg msg = {{0}};
  shard_mtx_matrix m = {0};
  double *q = NULL, *dense = NULL, *z = NULL, *w = NULL;
  int32_t nq = 0;
  int rc = SHARD_EXIT_INPUT;
  shard_registry *reg = NULL;
  lcp_run run = {0};
  int st = shard_mtx_read_csr(a->files[0], &m, &msg);
  if (st == SHARD_OK) st = shard_mtx_read_vector(a->files[1], &nq, &q, &msg);
  if (st != SHARD_OK) {
    fprintf(stderr, "shard lcp: %s\n", msg.text);
    rc = st == SHARD_ERR_NOMEM ? SHARD_EXIT_FAIL : SHARD_EXIT_INPUT;
    goto done;
  }
  if (m.nrows != m.ncols || m.nrows < 1) {
    fprintf(stderr, "shard lcp: %s: M must be square and non-empty (it is %d x %d)\n", a->files[0], (int)m.nrows,
            (int)m.ncols);
    goto done;
  }
  if (nq != m.nrows) {
    fprintf(stderr, "shard lcp: %s has %d entries but M (%s) is %d x %d\n", a->files[1], (int)nq, a->files[0],
            (int)m.nrows, (int)m.ncols);
    goto done;
  }
  const int32_t n = m.nrows;
  shard_csr csr = shard_mtx_view(&m);
  rc = open_solver(cli, a, &reg, &run, n, csr.rowptr[n]);
  if (rc != SHARD_EXIT_OK) goto done;
  if ((run.desc->caps & SHARD_CAP_LCP_DENSE) && shard_mtx_csr_to_dense(&csr, &dense, &msg) != SHARD_OK) {
    fprintf(stderr, "shard lcp: %s\n", msg.text);
    rc = SHARD_EXIT_FAIL;
    goto done;
  }
  const uint32_t flags = problem_flags(&csr); /* symmetric / Z-matrix as found; PSD is not checked */
  z = calloc((size_t)n, sizeof *z);
  w = calloc((size_t)n, sizeof *w);
  if (!z || !w) {
    fprintf(stderr, "shard lcp: out of memory\n");
    rc = SHARD_EXIT_FAIL;
    goto done;
  }
  shard_lcp_problem prob = {n, &csr, dense, q, flags};
  shard_lcp_report rep = {0, 0, NAN};
  msg.text[0] = '\0';
  const double t0 = now_seconds();
  st = shard_lcp_solver_solve(run.ops, run.self, &prob, z, w, &rep, &msg);
  const double solve_time = now_seconds() - t0;
  if (st < 0) {
    fprintf(stderr, "shard lcp: solver '%s': %s\n", run.desc->name, msg.text);
    rc = exit_for(st);
    goto done;
  }
  printf("solver: %s\nn: %d\nstatus: %s\niterations: %lld\nresidual: %.6g\ntime: %.6e\n", run.desc->name, (int)n,
         shard_status_str(rep.status), (long long)rep.iterations, rep.residual, solve_time);
  if (!a->quiet) {
    printf("z:\n");
    for (int32_t i = 0; i < n; ++i) printf("%.17g\n", z[i]);
  }
  fflush(stdout);
  if (rep.status != SHARD_OK) fprintf(stderr, "shard lcp: solver '%s': %s\n", run.desc->name, msg.text);
  rc = exit_for(rep.status);
  if (a->output && shard_mtx_write_vector(a->output, n, z, &msg) != SHARD_OK) {
    fprintf(stderr, "shard lcp: %s\n", msg.text);
    rc = SHARD_EXIT_FAIL;
  }
done:
  close_solver(reg, &run);
  shard_mtx_matrix_free(&m);
  free(q);
  free(dense);
  free(z);
  free(w);
  return rc;
}

/* ---------------------------------------------------------------- benchmark */

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The chain operator of the benchmarks: rows cut into independent runs of
 * `block` rows (block = n: one chain), CSR with local columns. */
static void chain_operator(int32_t n, int32_t block, int32_t *rowptr, int32_t *colind, double *val, double *q) {
  int32_t k = 0;
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int32_t i = 0; i < n; ++i) {
    rowptr[i] = k;
    if (i % block > 0) colind[k] = i - 1, val[k++] = -0.49;
    colind[k] = i, val[k++] = 1.02;
    if (i + 1 < n && (i + 1) % block > 0) colind[k] = i + 1, val[k++] = -0.49;
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double u = (double)(state >> 11) * (1.0 / 9007199254740992.0);
    q[i] = 0.5 * sin(2.0 * M_PI * (double)i / 64.0) + (u - 0.5);
  }
  rowptr[n] = k;
}

/* Tridiagonal operator shaped like the scaled 1D contact W′ (diagonal 1.02,
 * off-diagonals -0.49) and q_i = 0.5 sin(2πi/64) + U(-0.5, 0.5): alternating
 * compressive (q < 0) and separating zones, so that the solution has both
 * active and inactive contacts. Fixed-seed LCG, reproducible. */
static int bench_tridiag(const shard_cli *cli, const lcp_args *a) {
  const int32_t n = (int32_t)a->bench_n;
  const int64_t nnz = 3 * (int64_t)n - 2;
  int32_t *rowptr = malloc(((size_t)n + 1) * sizeof *rowptr);
  int32_t *colind = malloc((size_t)nnz * sizeof *colind);
  double *val = malloc((size_t)nnz * sizeof *val);
  double *q = malloc((size_t)n * sizeof *q);
  double *z = malloc((size_t)n * sizeof *z);
  double *w = malloc((size_t)n * sizeof *w);
  double *dense = NULL;
  shard_registry *reg = NULL;
  lcp_run run = {0};
  int rc = SHARD_EXIT_FAIL;
  if (!rowptr || !colind || !val || !q || !z || !w) {
    fprintf(stderr, "shard lcp: out of memory for n = %d\n", (int)n);
    goto done;
  }
  chain_operator(n, n, rowptr, colind, val, q);
  shard_csr csr = {n, n, rowptr, colind, val};
  rc = open_solver(cli, a, &reg, &run, n, nnz);
  if (rc != SHARD_EXIT_OK) goto done;
  shard_msg msg = {{0}};
  if (run.desc->caps & SHARD_CAP_LCP_DENSE) {
    if (shard_mtx_csr_to_dense(&csr, &dense, &msg) != SHARD_OK) {
      fprintf(stderr, "shard lcp: %s\n", msg.text);
      rc = SHARD_EXIT_FAIL;
      goto done;
    }
  }
  shard_lcp_problem prob = {n, &csr, dense, q, SHARD_LCP_SYMMETRIC | SHARD_LCP_PSD | SHARD_LCP_ZMATRIX};
  shard_lcp_report rep = {0, 0, NAN};
  double total = 0.0, best = HUGE_VAL;
  for (long long r = 0; r < a->repeat; ++r) {
    memset(z, 0, (size_t)n * sizeof *z); /* cold start every time */
    double t0 = now_seconds();
    int st = shard_lcp_solver_solve(run.ops, run.self, &prob, z, w, &rep, &msg);
    double dt = now_seconds() - t0;
    total += dt;
    if (dt < best) best = dt;
    if (st != SHARD_OK) {
      fprintf(stderr, "shard lcp: solver '%s': %s\n", run.desc->name, msg.text);
      rc = exit_for(st);
      goto done;
    }
  }
  int active = 0;
  for (int32_t i = 0; i < n; ++i) active += z[i] > 0.0;
  const double mean = total / (double)a->repeat;
  printf("bench=tridiag solver=%s n=%d active=%d repeat=%lld status=%s iterations=%lld residual=%.3g "
         "time_per_solve=%.6e time_min=%.6e time_per_n=%.6e\n",
         run.desc->name, (int)n, active, a->repeat, shard_status_str(rep.status), (long long)rep.iterations,
         rep.residual, mean, best, mean / (double)n);
  rc = SHARD_EXIT_OK;
done:
  close_solver(reg, &run);
  free(rowptr);
  free(colind);
  free(val);
  free(q);
  free(z);
  free(w);
  free(dense);
  return rc;
}

/* The chain operator cut into blocks of K rows, solved R times (cold) by
 * the host's block split and R times by direct solver calls per block; the
 * minimum of each over the repeats, per block. The host's closed form for
 * blocks of one contact is off, so that K = 1 measures the solver path. */
static int bench_blocks(const shard_cli *cli, const lcp_args *a) {
  const int32_t k = (int32_t)a->block, nb = (int32_t)(a->bench_n / a->block), n = nb * k;
  const int64_t nnz = 3 * (int64_t)n;
  int32_t *rowptr = malloc(((size_t)n + 1) * sizeof *rowptr), *colind = malloc((size_t)nnz * sizeof *colind);
  int32_t *lrow = malloc(((size_t)k + 1) * sizeof *lrow), *lcol = malloc((size_t)(3 * k) * sizeof *lcol);
  double *val = malloc((size_t)nnz * sizeof *val), *q = malloc((size_t)n * sizeof *q);
  double *z = malloc((size_t)n * sizeof *z), *w = malloc((size_t)n * sizeof *w);
  shard_registry *reg = NULL;
  shard_contact *c = NULL;
  lcp_run run = {0};
  shard_msg msg = {{0}};
  int rc = SHARD_EXIT_FAIL;
  if (!rowptr || !colind || !lrow || !lcol || !val || !q || !z || !w) {
    fprintf(stderr, "shard lcp: out of memory for n = %d\n", (int)n);
    goto done;
  }
  chain_operator(n, k, rowptr, colind, val, q);
  for (int32_t i = 0; i <= k; ++i) lrow[i] = rowptr[i]; /* every block has the first block's pattern */
  for (int32_t e = 0; e < rowptr[k]; ++e) lcol[e] = colind[e];
  rc = open_solver(cli, a, &reg, &run, k, 3 * (int64_t)k);
  if (rc != SHARD_EXIT_OK) goto done;
  rc = SHARD_EXIT_FAIL;
  if (run.desc->caps & SHARD_CAP_LCP_DENSE) {
    fprintf(stderr, "shard lcp: --bench blocks times sparse solvers only ('%s' reads the dense view)\n",
            run.desc->name);
    rc = SHARD_EXIT_INPUT;
    goto done;
  }
  if (shard_contact_create(&c, 2 * n, n, 2, 3, &msg) != SHARD_OK) {
    fprintf(stderr, "shard lcp: %s\n", msg.text);
    goto done;
  }
  shard_contact_policy pol = {.primary = {run.desc->name, run.ops, run.self, run.desc->caps, 1e-9},
                              .scalar_closed_form = 0};
  const shard_csr csr = {n, n, rowptr, colind, val};
  const uint32_t flags = SHARD_LCP_SYMMETRIC | SHARD_LCP_PSD | SHARD_LCP_ZMATRIX;
  double host[2] = {HUGE_VAL, HUGE_VAL}, direct = HUGE_VAL, dt = 0.0, t0 = 0.0;
  long long iters = 0, biters = 0;
  for (int batch = 0; batch < 2; ++batch) { /* block by block, then batched when the solver's class allows */
    pol.batch_blocks = batch;
    if (shard_contact_set_policy(c, &pol, &msg) != SHARD_OK) {
      fprintf(stderr, "shard lcp: %s\n", msg.text);
      goto done;
    }
    for (long long r = 0; r < a->repeat; ++r) {
      shard_step_stats st;
      memset(&st, 0, sizeof st);
      memset(z, 0, (size_t)n * sizeof *z);
      t0 = now_seconds();
      const int s1 = shard_contact_lcp_solve(c, &csr, q, flags, z, &st, &msg);
      dt = now_seconds() - t0;
      if (s1 != SHARD_OK) {
        fprintf(stderr, "shard lcp: host solve: %s\n", msg.text);
        rc = exit_for(s1);
        goto done;
      }
      if (dt < host[batch]) host[batch] = dt;
      *(batch ? &biters : &iters) = st.lcp_iterations;
    }
  }
  for (long long r = 0; r < a->repeat; ++r) {
    memset(z, 0, (size_t)n * sizeof *z);
    t0 = now_seconds();
    for (int32_t b = 0; b < nb; ++b) {
      const int32_t e0 = rowptr[b * k];
      const shard_csr bc = {k, k, lrow, lcol, val + e0};
      const shard_lcp_problem prob = {k, &bc, NULL, q + (size_t)b * k, flags};
      shard_lcp_report rep;
      const int s1 = shard_lcp_solver_solve(run.ops, run.self, &prob, z + (size_t)b * k, w + (size_t)b * k, &rep,
                                            &msg);
      if (s1 != SHARD_OK) {
        fprintf(stderr, "shard lcp: solver '%s' on block %d: %s\n", run.desc->name, (int)b, msg.text);
        rc = exit_for(s1);
        goto done;
      }
    }
    dt = now_seconds() - t0;
    if (dt < direct) direct = dt;
  }
  printf("bench=blocks solver=%s n=%d block=%d blocks=%d repeat=%lld iterations=%lld host_per_block=%.4e "
         "direct_per_block=%.4e overhead_per_block=%.4e batched_iterations=%lld batched_per_block=%.4e "
         "batched_overhead_per_block=%.4e\n",
         run.desc->name, (int)n, (int)k, (int)nb, a->repeat, iters, host[0] / nb, direct / nb,
         (host[0] - direct) / nb, biters, host[1] / nb, (host[1] - direct) / nb);
  rc = SHARD_EXIT_OK;
done:
  shard_contact_destroy(c);
  close_solver(reg, &run);
  free(rowptr), free(colind), free(lrow), free(lcol), free(val), free(q), free(z), free(w);
  return rc;
}

int shard_cmd_lcp(const shard_cli *cli, int argc, char **argv) {
  lcp_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc == -1) {
    lcp_usage(stdout);
    return SHARD_EXIT_OK;
  }
  if (rc != SHARD_EXIT_OK) return rc;
  if (a.bench) return strcmp(a.bench, "blocks") == 0 ? bench_blocks(cli, &a) : bench_tridiag(cli, &a);
  return solve_files(cli, &a);
}
