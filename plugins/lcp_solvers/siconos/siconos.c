/* siconos — the LCP solvers of Siconos numerics (lemke, pivot, enum, pgs,
 * newton_fb, newton_min), chosen by the `method` parameter, behind the shard
 * LCP solver ABI:
 *     0 <= z ⊥ w = M z + q >= 0.
 *
 * The dense row-major view is copied into a column-major buffer (Siconos'
 * NM_DENSE storage) allocated at setup; Siconos allocates its own workspace
 * inside every solve (SHARD_CAP_LCP_ALLOCATES). Its fatal errors are caught
 * with its setjmp handler and returned as messages. The solution is judged by
 * shard_lcp_residual against `tolerance`, as for every shard solver, not by
 * Siconos' own error measure. See README.md. */
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <numerics/LCP_Solvers.h>
#include <numerics/LinearComplementarityProblem.h>
#include <numerics/NumericsMatrix.h>
#include <numerics/NumericsVerbose.h>
#include <numerics/SolverOptions.h>
#include <numerics/lcp_cst.h>
#include <numerics/sn_error_handling.h>

#include "shard/lcp_solver.h"

/* One Siconos method: its solver id, the problem classes it claims
 * (SHARD_CAP_LCP_GENERAL: any LCP with a solution; 0: positive diagonal and
 * symmetric PSD or diagonally dominant, required to solve those with a unique
 * solution) and whether it terminates by
 * enumeration or pivoting (a failure then means "no solution found"). */
typedef struct method {
  const char *name;
  int id;
  uint64_t caps;
  int pivoting;
} method;

static const method methods[] = {
    {"lemke", SICONOS_LCP_LEMKE, SHARD_CAP_LCP_GENERAL, 1},
    {"pivot", SICONOS_LCP_PIVOT, 0, 1},
    {"enum", SICONOS_LCP_ENUM, SHARD_CAP_LCP_GENERAL, 1},
    {"pgs", SICONOS_LCP_PGS, 0, 0},
    {"newton_fb", SICONOS_LCP_NEWTON_FB_FBLSA, 0, 0},
    {"newton_min", SICONOS_LCP_NEWTON_MIN_FBLSA, 0, 0},
};
#define N_METHODS ((int)(sizeof methods / sizeof methods[0]))

typedef struct sic {
  const method *m;
  double tolerance;          /* accepted shard_lcp_residual */
  double internal_tolerance; /* Siconos' own stopping tolerance */
  long long max_iterations;  /* 0: Siconos' default */
  long long dense_max, enum_max;
  int32_t n_max;
  double *mcol; /* n_max², column-major copy of M */
  double *q;    /* n_max, copy of q (Siconos takes it non-const) */
} sic;

static const shard_param_spec sic_params[] = {
    {"method", SHARD_PARAM_CHOICE, "lemke", 0, 0, "", 0, "lemke|pivot|enum|pgs|newton_fb|newton_min",
     "Siconos solver: lemke (lexicographic Lemke), pivot (Lemke's rule without lexicographic tie-break), enum (enumeration of the "
     "complementary bases, n <= enum_max), pgs (projected Gauss-Seidel), newton_fb (nonsmooth Newton on "
     "Fischer-Burmeister with line search), newton_min (nonsmooth Newton on min(z, w) with the Fischer-Burmeister "
     "line search)"},
    {"tolerance", SHARD_PARAM_REAL, "1e-9", 0.0, 1.0, "1", SHARD_PARAM_MIN_EXCLUSIVE, NULL,
     "largest accepted complementarity residual (shard_lcp_residual, relative) of the returned z"},
    {"internal_tolerance", SHARD_PARAM_REAL, "1e-12", 0.0, 1.0, "1", SHARD_PARAM_MIN_EXCLUSIVE, NULL,
     "Siconos' stopping tolerance on its own error measure (dparam[SICONOS_DPARAM_TOL]) for pgs, newton_fb, "
     "newton_min and the pivoting methods' checks"},
    {"max_iterations", SHARD_PARAM_INT, "0", 0.0, 1e9, "1", 0, NULL,
     "iteration or pivot cap (iparam[SICONOS_IPARAM_MAX_ITER]); 0: Siconos' default for the method"},
    {"dense_max", SHARD_PARAM_INT, "1000", 1.0, 20000.0, "1", 0, NULL,
     "largest n accepted by setup (dense copy of n² doubles; Siconos' pivots cost O(n²), Newton steps O(n³))"},
    {"enum_max", SHARD_PARAM_INT, "12", 1.0, 24.0, "1", 0, NULL,
     "largest n accepted by setup with method = enum (it visits up to 2^n bases)"},
};

static const method *find_method(const char *name) {
  for (int i = 0; i < N_METHODS; ++i)
    if (name && strcmp(methods[i].name, name) == 0) return &methods[i];
  return NULL;
}

static int sic_create(const shard_params *params, void **out_self, shard_msg *msg) {
  *out_self = NULL;
  const int rc = shard_params_check(params, msg);
  if (rc != SHARD_OK) return rc;
  const char *name = shard_params_string(params, "method");
  const method *m = find_method(name);
  if (!m)
    return shard_msg_set(msg, SHARD_ERR_INPUT,
                         "method '%s' is not one of lemke, pivot, enum, pgs, newton_fb, newton_min",
                         name ? name : "(none)");
  sic *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->m = m;
  s->tolerance = shard_params_real(params, "tolerance");
  s->internal_tolerance = shard_params_real(params, "internal_tolerance");
  s->max_iterations = shard_params_int(params, "max_iterations");
  s->dense_max = shard_params_int(params, "dense_max");
  s->enum_max = shard_params_int(params, "enum_max");
  numerics_set_verbose(0);
  *out_self = s;
  return SHARD_OK;
}

static void sic_free_arrays(sic *s) {
  free(s->mcol);
  free(s->q);
  s->mcol = s->q = NULL;
  s->n_max = 0;
}

static int sic_setup(void *self, int32_t n_max, int64_t nnz_max, shard_msg *msg) {
  sic *s = self;
  (void)nnz_max;
  if (n_max < 1) return shard_msg_set(msg, SHARD_ERR_INPUT, "setup needs n_max >= 1 (got %d)", (int)n_max);
  if (n_max > s->dense_max)
    return shard_msg_set(msg, SHARD_ERR_UNSUPPORTED,
                         "n = %d exceeds dense_max = %lld (dense copy of n² doubles); use a sparse solver such as "
                         "pgs or mprgp, or raise dense_max",
                         (int)n_max, s->dense_max);
  if (s->m->id == SICONOS_LCP_ENUM && n_max > s->enum_max)
    return shard_msg_set(msg, SHARD_ERR_UNSUPPORTED,
                         "method enum: n = %d exceeds enum_max = %lld (up to 2^n complementary bases); use lemke or "
                         "pivot, or raise enum_max",
                         (int)n_max, s->enum_max);
  sic_free_arrays(s);
  const size_t n = (size_t)n_max;
  s->mcol = malloc(n * n * sizeof *s->mcol);
  s->q = malloc(n * sizeof *s->q);
  if (!s->mcol || !s->q) {
    sic_free_arrays(s);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for n = %d", (int)n_max);
  }
  s->n_max = n_max;
  return SHARD_OK;
}

static void sic_destroy(void *self) {
  sic *s = self;
  if (!s) return;
  sic_free_arrays(s);
  free(s);
}

static uint64_t sic_caps(const void *self) { return ((const sic *)self)->m->caps; }

/* The Siconos call, alone in its frame: a fatal error inside Siconos
 * longjmps back here (sn_fatal_error), and nothing of this frame is modified
 * between setjmp and the jump. */
static int call_siconos(LinearComplementarityProblem *lcp, double *z, double *w, SolverOptions *o, int *info) {
  if (setjmp(*sn_get_jmp_buf()) != 0) {
    sn_release_jmp_buf();
    return -1;
  }
  *info = lcp_driver_DenseMatrix(lcp, z, w, o);
  sn_release_jmp_buf();
  return 0;
}

static int sic_solve(void *self, const shard_lcp_problem *prob, double *z, double *w, shard_lcp_report *report,
                     shard_msg *msg) {
  sic *s = self;
  int st = shard_lcp_check_problem(prob, s->n_max, report, msg);
  if (st != SHARD_OK) return st;
  if (!prob->dense)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "the dense view is missing (this solver reads M densely)");
  const int32_t n = prob->n;
  const size_t nn = (size_t)n;
  for (size_t i = 0; i < nn; ++i) {
    if (!isfinite(prob->q[i])) return shard_msg_set(msg, SHARD_ERR_INPUT, "q[%zu] = %g is not finite", i, prob->q[i]);
    for (size_t j = 0; j < nn; ++j) {
      const double v = prob->dense[i * nn + j];
      if (!isfinite(v)) return shard_msg_set(msg, SHARD_ERR_INPUT, "M[%zu][%zu] = %g is not finite", i, j, v);
      s->mcol[j * nn + i] = v;
    }
    s->q[i] = prob->q[i];
  }
  /* an incoming z (clipped to z >= 0) that already solves the problem is
   * returned as it is, without calling Siconos (warm start in time
   * stepping); then the iterative methods start from it, the pivoting ones
   * from z = 0 */
  for (size_t i = 0; i < nn; ++i)
    if (!(z[i] > 0.0) || !isfinite(z[i])) z[i] = 0.0;
  {
    const double r0 = shard_lcp_residual(prob, z, w);
    if (r0 <= s->tolerance && shard_lcp_residual_noise(prob, z) <= s->tolerance) {
      report->status = SHARD_OK;
      report->iterations = 0;
      report->residual = r0;
      return SHARD_OK;
    }
  }
  if (n == 1) {
    /* Siconos' driver answers n = 1 with z = -q/M without looking at the
     * sign of M (NaN for M = 0): solved here, in closed form, for every
     * method */
    const double m11 = prob->dense[0], q1 = prob->q[0];
    report->iterations = 0;
    if (q1 < 0.0 && !(m11 > 0.0)) {
      z[0] = 0.0;
      report->residual = shard_lcp_residual(prob, z, w);
      report->status = SHARD_NO_SOLUTION;
      return shard_msg_set(msg, SHARD_NO_SOLUTION, "n = 1 with M = %g <= 0 and q = %g < 0: no solution", m11, q1);
    }
    z[0] = q1 < 0.0 ? -q1 / m11 : 0.0;
    report->residual = shard_lcp_residual(prob, z, w);
    report->status = SHARD_OK;
    return SHARD_OK;
  }
  if (s->m->pivoting)
    for (size_t i = 0; i < nn; ++i) z[i] = 0.0;

  SolverOptions *o = solver_options_create(s->m->id);
  if (!o) return shard_msg_set(msg, SHARD_ERR_NOMEM, "method %s: Siconos could not create its options", s->m->name);
  o->dparam[SICONOS_DPARAM_TOL] = s->internal_tolerance;
  if (s->max_iterations > 0) o->iparam[SICONOS_IPARAM_MAX_ITER] = (int)s->max_iterations;
  NumericsMatrix M;
  NM_null(&M);
  NM_fill(&M, NM_DENSE, n, n, s->mcol);
  LinearComplementarityProblem lcp = {.size = n, .M = &M, .q = s->q};
  int info = -1;
  const int fatal = call_siconos(&lcp, z, w, o, &info);
  const long long iterations = o->iparam[SICONOS_IPARAM_ITER_DONE];
  const double sic_error = o->dparam[SICONOS_DPARAM_RESIDU];
  solver_options_delete(o); /* Siconos 4.4 frees the members, not the struct */
  free(o);
  NM_clear_not_dense(&M);
  report->iterations = iterations;
  if (fatal) {
    const char *why = sn_fatal_error_msg();
    report->status = SHARD_ERR_NUMERIC;
    return shard_msg_set(msg, SHARD_ERR_NUMERIC, "method %s: Siconos stopped with a fatal error: %s", s->m->name,
                         why && why[0] ? why : "(no message)");
  }
  /* z >= 0 exactly (Newton iterates may end at -1e-17), then shard's own
   * residual of what is returned; w = Mz + q */
  for (size_t i = 0; i < nn; ++i)
    if (!(z[i] > 0.0)) z[i] = isnan(z[i]) ? z[i] : 0.0;
  const double r = shard_lcp_residual(prob, z, w);
  const double noise = shard_lcp_residual_noise(prob, z);
  report->residual = r;
  if (r <= s->tolerance && noise <= s->tolerance) {
    report->status = SHARD_OK;
    return SHARD_OK;
  }
  if (r <= s->tolerance) {
    report->status = SHARD_NOT_CONVERGED;
    return shard_msg_set(msg, SHARD_NOT_CONVERGED,
                         "method %s: residual %.3g, but the rounding level %.3g of Mz + q exceeds the tolerance %.3g: "
                         "the residual certifies nothing (the LCP probably has no solution)",
                         s->m->name, r, noise, s->tolerance);
  }
  if (s->m->pivoting && info != 0 && (s->max_iterations == 0 || iterations < s->max_iterations)) {
    report->status = SHARD_NO_SOLUTION;
    return shard_msg_set(msg, SHARD_NO_SOLUTION,
                         "method %s: Siconos terminated without a solution (info %d after %lld pivots; residual %.3g): "
                         "the LCP may be infeasible, or M outside the method's class",
                         s->m->name, info, iterations, r);
  }
  report->status = SHARD_NOT_CONVERGED;
  return shard_msg_set(msg, SHARD_NOT_CONVERGED,
                       "method %s: no convergence (Siconos info %d after %lld iterations, its error %.3g; residual "
                       "%.3g > tolerance %.3g)",
                       s->m->name, info, iterations, sic_error, r, s->tolerance);
}

static const shard_lcp_solver_ops sic_ops = {
    .create = sic_create, .setup = sic_setup, .solve = sic_solve, .destroy = sic_destroy, .caps = sic_caps};

static const shard_plugin sic_desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_LCP_SOLVER),
    .name = "siconos",
    .version = "1.0.0",
    .summary = "the LCP solvers of Siconos numerics by name (lemke, pivot, enum, pgs, newton_fb, newton_min); dense, "
               "allocates",
    .params = sic_params,
    .n_params = SHARD_NPARAMS(sic_params),
    .ops_size = sizeof sic_ops,
    .caps = SHARD_CAP_LCP_GENERAL | SHARD_CAP_LCP_DENSE | SHARD_CAP_LCP_ALLOCATES,
    .ops = &sic_ops,
    .doc = "Wraps lcp_driver_DenseMatrix of Siconos numerics (the Debian package libsiconos-numerics-dev): the "
           "method parameter picks the Siconos solver, its problem classes are those of the method (the caps slot "
           "reports them per instance: lemke and enum any LCP with a solution, pivot, pgs, newton_fb and newton_min "
           "positive-diagonal PSD or diagonally dominant ones). M is copied into a column-major buffer; Siconos "
           "allocates its workspace in every solve. The returned z is judged by shard_lcp_residual against "
           "tolerance.",
};
SHARD_PLUGIN_SINGLE(sic_desc)
