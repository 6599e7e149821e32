/* host: history.csv: which columns a run writes (io/outputs.h), its header, rows, and its
 * publication at the end (see history.h). */
#include "run/history.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>



/* ---- history ------------------------------------------------------------------ */

/* which columns and keys this run writes (outputs.h) */
unsigned run_out_flags(const run *r) {
  unsigned f = r->info.out_flags; /* the model's columns and keys */
  if (r->info.n_presc) f |= SHARD_OUT_LOADING;
  if (r->stop_interval > 0) f |= SHARD_OUT_STOP;
  if (r->probes) f |= SHARD_OUT_PROBES;
  return f;
}

void run_history_header(run *r) {
  const shard_out_table *t[] = {&shard_out_history, r->mops->outputs->history};
  shard_out_header_n(r->hist, t, 2, run_out_flags(r));
}

/* The history so far is unwritable (a full disk, say): the error with the
 * file named, as the run's failure at `step`. */
int run_history_error(run *r, int64_t step, double t, shard_msg *msg) {
  const int err = errno ? errno : EIO;
  return shard_msg_set(msg, SHARD_ERR_IO, "step %lld (t = %.9g s): cannot write '%s': %s", (long long)step, t,
                       r->hist_tmp, strerror(err));
}

/* One row: a value per column of the table (outputs.h), written for the
 * columns of this run; a value that does not exist (NAN) is an empty field.
 * A failed write stops the run (SHARD_ERR_IO). */
int run_history_row(run *r, int64_t step, double t, int event, shard_msg *msg) {
  const shard_system *sys = r->sys;
  errno = 0;
  if (r->fields_on) r->mops->spacetime_record(r->model, t);
  const shard_step_stats *s = sys->stats;
  double pen = 0;
  for (int32_t i = 0; i < sys->ncon; ++i) pen = fmax(pen, -r->gap[i]);
  double x[SHARD_HISTORY_N];
  for (int i = 0; i < SHARD_HISTORY_N; ++i) x[i] = NAN;
  x[H_STEP] = (double)step, x[H_T] = t, x[H_EVENT] = event, x[H_N_ACTIVE] = s->n_active;
  x[H_LCP_BLOCKS] = s->lcp_blocks, x[H_LCP_ITERATIONS] = (double)s->lcp_iterations;
  x[H_LCP_RESIDUAL] = s->lcp_residual, x[H_LCP_FALLBACKS] = s->lcp_fallbacks, x[H_MAX_PENETRATION] = pen;
  x[H_KINETIC] = r->kinetic, x[H_ELASTIC] = r->elastic, x[H_PENALTY] = r->penalty;
  x[H_CONTACT_DISSIPATION] = r->C_dis, x[H_EXTERNAL_WORK] = r->W_ext, x[H_ALGORITHMIC_ENERGY] = r->H;
  x[H_BALANCE_DRIFT] = r->drift;
  const shard_model_energy e = {.kinetic = r->kinetic, .elastic = r->elastic, .penalty = r->penalty,
                                .cohesive_reversible = r->coh_rev, .cohesive_work = r->coh_work};
  const shard_model_row_in in = {.t = t, .dt = r->dt, .gaps = r->gap, .energy = &e};
  const shard_out_table *mt = r->mops->outputs->history;
  double xm[SHARD_MODEL_HISTORY_MAX];
  for (size_t i = 0; i < mt->n_fields; ++i) xm[i] = NAN;
  r->mops->history(r->model, &in, xm);
  FILE *f = r->hist;
  const unsigned flags = run_out_flags(r);
  for (size_t i = 0; i < SHARD_HISTORY_N + mt->n_fields; ++i) {
    const int own = i < SHARD_HISTORY_N; /* the run's columns, then the model's */
    const shard_out_field *fd = own ? &shard_out_history.fields[i] : &mt->fields[i - SHARD_HISTORY_N];
    const double xi = own ? x[i] : xm[i - SHARD_HISTORY_N];
    if (!shard_out_writes(fd, flags)) continue;
    if (i > 0) fputc(',', f); /* step, column 0, is in every history */
    if (!isfinite(xi)) continue;
    if (fd->fmt) fprintf(f, fd->fmt, xi);
    else fprintf(f, "%lld", (long long)xi);
  }
  fputc('\n', f);
  r->rows++;
  return ferror(f) ? run_history_error(r, step, t, msg) : SHARD_OK;
}

/* history.csv from the partial history: flushed, synced, renamed; left
 * partial when a write of it failed. */
int run_history_publish(run *r, int64_t steps, shard_msg *msg) {
  if (!r->hist) return SHARD_OK;
  errno = 0;
  int err = fflush(r->hist) != 0 || ferror(r->hist) ? (errno ? errno : EIO) : 0;
  if (!err && fsync(fileno(r->hist)) != 0) err = errno;
  if (fclose(r->hist) != 0 && !err) err = errno;
  r->hist = NULL;
  if (err) {
    errno = err;
    return run_history_error(r, steps, (double)steps * r->dt, msg);
  }
  char fin[4200];
  snprintf(fin, sizeof fin, "%s/history.csv", r->opt->out_dir);
  if (rename(r->hist_tmp, fin) != 0)
    return shard_msg_set(msg, SHARD_ERR_IO, "cannot write '%s': %s", fin, strerror(errno));
  return shard_dir_sync(r->opt->out_dir, msg);
}
