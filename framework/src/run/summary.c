/* host: summary.yaml, interfaces.csv and the fragment tables at the end of a run (see summary.h). */
#include "run/summary.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/stats.h"

#include "run/history.h"


/* ---- summary and provenance -------------------------------------------------------- */

/* summary.yaml from dotted keys (documented in outputs.c): the sections
 * open as the keys need them; a value that does not exist is `~` (null). */
typedef struct yaml_out {
  FILE *f;
  char sec[2][64]; /* the open sections at depths 0 and 1 */
} yaml_out;

static void y_key(yaml_out *w, const char *key) {
  int depth = 0;
  const char *p = key;
  for (const char *dot; (dot = strchr(p, '.')) && depth < 2; p = dot + 1, ++depth) {
    const int len = (int)(dot - p);
    if ((int)strlen(w->sec[depth]) != len || strncmp(w->sec[depth], p, (size_t)len) != 0) {
      snprintf(w->sec[depth], sizeof w->sec[depth], "%.*s", len, p);
      if (depth == 0) w->sec[1][0] = '\0';
      fprintf(w->f, "%*s%.*s:\n", 2 * depth, "", len, p);
    }
  }
  for (int d = depth; d < 2; ++d) w->sec[d][0] = '\0';
  fprintf(w->f, "%*s%s: ", 2 * depth, "", p);
}

static void y_num(yaml_out *w, const char *key, double x) { /* 17 digits: exact */
  y_key(w, key);
  if (isfinite(x)) fprintf(w->f, "%.17g\n", x);
  else fputs("~\n", w->f);
}

static void y_sci(yaml_out *w, const char *key, double x) { /* errors and drifts: 7 digits */
  y_key(w, key);
  if (isfinite(x)) fprintf(w->f, "%.6e\n", x);
  else fputs("~\n", w->f);
}

static void y_fixed6(yaml_out *w, const char *key, double x) { /* wall times: microseconds */
  y_key(w, key);
  fprintf(w->f, "%.6f\n", x);
}

static void y_int(yaml_out *w, const char *key, long long x) {
  y_key(w, key);
  fprintf(w->f, "%lld\n", x);
}

static void y_word(yaml_out *w, const char *key, const char *word) {
  y_key(w, key);
  fprintf(w->f, "%s\n", word);
}

static void y_quoted(yaml_out *w, const char *key, const char *text) {
  y_key(w, key);
  fputc('"', w->f);
  for (const char *p = text; *p; ++p) {
    if (*p == '"' || *p == '\\') fputc('\\', w->f);
    if (*p == '\n') fputs("\\n", w->f);
    else fputc(*p, w->f);
  }
  fputs("\"\n", w->f);
}

/* the model's keys go through these (shard/model.h) */
static void w_num(void *ctx, const char *key, double x) { y_num(ctx, key, x); }
static void w_int(void *ctx, const char *key, long long x) { y_int(ctx, key, x); }
static void w_word(void *ctx, const char *key, const char *word) { y_word(ctx, key, word); }

/* SHARD_ERR_NOMEM when the model's statistics could not be computed (the
 * summary is then incomplete) */
int run_write_summary(run *r, FILE *f, const char *status, const char *message, int64_t steps, double wall_total) {
  const shard_system *sys = r->sys;
  int rc = SHARD_OK;
  yaml_out w = {.f = f};
  y_word(&w, "status", status);
  if (message) y_quoted(&w, "message", message);
  y_int(&w, "steps", (long long)steps);
  if (r->restarts > 0) y_int(&w, "restarts", (long long)r->restarts);
  const char *note = r->fields_on ? r->mops->fields_note(r->model) : NULL;
  if (note) y_quoted(&w, "note", note);
  if (r->stop_interval > 0) {
    y_word(&w, "stopped_early", r->stop_time > 0 ? "true" : "false");
    y_num(&w, "stop_time", r->stop_time > 0 ? r->stop_time : steps * r->dt);
  }
  y_num(&w, "time.end", r->T);
  y_num(&w, "time.dt", r->dt);
  y_num(&w, "time.dt_c", r->dt_c);
  y_num(&w, "time.dt_bulk", r->dt_bulk);
  y_num(&w, "time.dt_over_dt_c", r->dt / r->dt_c);
  /* after restarts, total and loop add the earlier attempts' loops up to their last checkpoints */
  y_fixed6(&w, "wall_time.total", wall_total);
  y_fixed6(&w, "wall_time.setup", r->wall_setup);
  y_fixed6(&w, "wall_time.loop", r->wall_loop);
  y_sci(&w, "wall_time.per_step", steps > 0 ? r->wall_loop / (double)steps : NAN);
  /* CPU time is not checkpointed: after a restart the earlier attempts' share is unknown */
  const double cpu_loop = r->restarts > 0 ? NAN : r->cpu_loop;
  if (isfinite(cpu_loop)) y_fixed6(&w, "cpu_time.loop", cpu_loop);
  else y_sci(&w, "cpu_time.loop", NAN);
  y_sci(&w, "cpu_time.per_step", steps > 0 ? cpu_loop / (double)steps : NAN);
  y_int(&w, "threads", r->opt->threads > 1 ? (long long)r->opt->threads : 1);
  y_num(&w, "energy.initial", r->E0);
  y_num(&w, "energy.kinetic", r->kinetic);
  y_num(&w, "energy.elastic", r->elastic);
  y_num(&w, "energy.penalty", r->penalty);
  y_num(&w, "energy.contact_dissipation", r->C_dis);
  y_num(&w, "energy.numerical_dissipation", r->D_num);
  y_num(&w, "energy.external_work", r->W_ext);
  y_num(&w, "energy.algorithmic", r->H);
  y_sci(&w, "energy.balance_drift", r->drift);
  y_sci(&w, "energy.max_balance_drift", r->drift_max);
  if (r->info.flags & SHARD_MODEL_INSERTION) y_num(&w, "energy.insertion_offset", r->insert_offset);
  y_int(&w, "contact.steps_in_contact", (long long)r->contact_steps);
  y_int(&w, "contact.max_active", (long long)r->max_active);
  y_sci(&w, "contact.max_penetration", r->max_penetration);
  y_num(&w, "contact.max_penetration_time", r->max_penetration_step);
  y_int(&w, "lcp.blocks", (long long)r->lcp_blocks);
  y_int(&w, "lcp.largest_block", (long long)r->max_block);
  y_int(&w, "lcp.iterations", (long long)r->lcp_iterations);
  y_sci(&w, "lcp.max_residual", r->lcp_res_max);
  y_int(&w, "lcp.fallbacks", (long long)r->lcp_fallbacks);
  /* along the one axis of a 1D model; a model with more axes gives its
   * components among its own keys */
  double momentum = 0;
  for (int32_t d = 0; d < sys->ndof; ++d) momentum += sys->mass[d] * sys->v[d];
  y_num(&w, "momentum", r->info.dim > 1 ? NAN : momentum);
  if (r->info.n_presc) {
    const int released = r->mops->released(r->model);
    y_word(&w, "loading.released", released ? "true" : "false");
    y_num(&w, "loading.release_time", released ? r->release_time : NAN);
    y_num(&w, "loading.balance_offset", r->release_offset);
  }
  const shard_model_summary_in in = {.dt = r->dt, .cohesive_work = r->coh_work, .cohesive_reversible = r->coh_rev,
                                     .max_step_insertions = r->max_inserted,
                                     .max_step_insertions_time = r->max_inserted_time};
  const shard_summary_writer mw = {.ctx = &w, .num = w_num, .integer = w_int, .word = w_word};
  rc = r->mops->summary(r->model, &in, &mw);
  return rc;
}
