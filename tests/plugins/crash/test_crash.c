/* test_crash — explicit central-difference Newmark (as explicit_newmark) that
 * misbehaves on purpose when its `run` parameter matches:
 *   run == crash_at  raises SIGSEGV at the first step (default action, so the
 *                    process dies by the signal even under sanitizers);
 *   run == hang_at   never returns from the first step (a hung run);
 *   run == sleep_at  sleeps `sleep` seconds in the first step, then goes on;
 * and every run sleeps `step_sleep` seconds in each step (a slow run that
 * keeps making steps).
 * For the campaign tests only; never installed. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shard/integrator.h"

typedef struct tc {
  long long run, crash_at, hang_at, sleep_at;
  double sleep, step_sleep;
  int started;
  double *u1, *a1;
} tc;

static const shard_param_spec tc_params[] = {
    {"run", SHARD_PARAM_INT, "0", 0, 1e9, "1", 0, 0, "this run's number (swept by the campaign)"},
    {"crash_at", SHARD_PARAM_INT, "-1", -1, 1e9, "1", 0, 0, "raise SIGSEGV when run equals this"},
    {"hang_at", SHARD_PARAM_INT, "-1", -1, 1e9, "1", 0, 0, "never finish the first step when run equals this"},
    {"sleep_at", SHARD_PARAM_INT, "-1", -1, 1e9, "1", 0, 0, "sleep `sleep` seconds when run equals this"},
    {"sleep", SHARD_PARAM_REAL, "1", 0, 3600, "s", 0, 0, "how long the sleep_at run sleeps"},
    {"step_sleep", SHARD_PARAM_REAL, "0", 0, 3600, "s", 0, 0, "how long every step sleeps"},
};

static int tc_create(const shard_params *params, const shard_scales *scales, void **out_self, shard_msg *msg) {
  (void)scales;
  *out_self = NULL;
  tc *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->run = shard_params_int(params, "run");
  s->crash_at = shard_params_int(params, "crash_at");
  s->hang_at = shard_params_int(params, "hang_at");
  s->sleep_at = shard_params_int(params, "sleep_at");
  s->sleep = shard_params_real(params, "sleep");
  s->step_sleep = shard_params_real(params, "step_sleep");
  *out_self = s;
  return SHARD_OK;
}

static uint32_t tc_n_aux(const void *self) {
  (void)self;
  return 0;
}

static int tc_setup(void *self, shard_system *sys, shard_msg *msg) {
  tc *s = self;
  free(s->u1);
  s->u1 = calloc(2 * (size_t)sys->ndof_max + 1, sizeof(double));
  if (!s->u1) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->a1 = s->u1 + sys->ndof_max;
  return SHARD_OK;
}

static int tc_start(void *self, shard_system *sys, double dt, shard_msg *msg) {
  (void)self;
  (void)sys;
  (void)dt;
  (void)msg;
  return SHARD_OK;
}

static void pause_for(double seconds) {
  struct timespec ts = {(time_t)seconds, (long)((seconds - floor(seconds)) * 1e9)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static int tc_step(void *self, shard_system *sys, double dt, shard_msg *msg) {
  tc *s = self;
  if (!s->started) {
    s->started = 1;
    if (s->run == s->crash_at) {
      signal(SIGSEGV, SIG_DFL);
      raise(SIGSEGV);
    }
    if (s->run == s->hang_at)
      for (;;) pause_for(1.0);
    if (s->run == s->sleep_at) pause_for(s->sleep);
  }
  if (s->step_sleep > 0) pause_for(s->step_sleep);
  const int32_t n = sys->ndof;
  const double t1 = sys->t + dt;
  for (int32_t i = 0; i < n; ++i) s->u1[i] = sys->u[i] + dt * sys->v[i] + 0.5 * dt * dt * sys->a[i];
  int rc = sys->ops->force(sys, t1, s->u1, s->a1, msg);
  if (rc != SHARD_OK) return rc;
  for (int32_t i = 0; i < n; ++i) {
    s->a1[i] *= sys->minv[i];
    sys->v[i] += 0.5 * dt * (sys->a[i] + s->a1[i]);
    sys->a[i] = s->a1[i];
    sys->u[i] = s->u1[i];
  }
  if (sys->impulse) memset(sys->impulse, 0, (size_t)sys->ncon * sizeof(double));
  sys->ops->prescribe(sys, t1, sys->v, sys->a);
  return SHARD_OK;
}

static int tc_on_insert(void *self, shard_system *sys, int32_t first, shard_msg *msg) {
  (void)self;
  (void)sys;
  (void)first;
  (void)msg;
  return SHARD_OK;
}

static void tc_destroy(void *self) {
  tc *s = self;
  if (!s) return;
  free(s->u1);
  free(s);
}

static const shard_integrator_ops tc_ops = {
    .create = tc_create,
    .n_aux = tc_n_aux,
    .setup = tc_setup,
    .start = tc_start,
    .step = tc_step,
    .on_insert = tc_on_insert,
    .destroy = tc_destroy,
};

static const shard_plugin tc_desc = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_INTEGRATOR),
    .name = "test_crash",
    .version = "1.0.0",
    .summary = "test only: explicit Newmark that crashes, hangs or sleeps on a chosen run",
    .params = tc_params,
    .n_params = SHARD_NPARAMS(tc_params),
    .ops_size = sizeof(shard_integrator_ops),
    .caps = SHARD_CAP_FORCE_LAW,
    .ops = &tc_ops,
    .doc = "For the campaign tests: behaves like explicit_newmark unless `run` equals crash_at (SIGSEGV), hang_at "
           "(never returns) or sleep_at (sleeps `sleep` seconds once).",
};

SHARD_PLUGIN_SINGLE(tc_desc)
