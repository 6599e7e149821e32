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
  const shard_model *m = r->m;
  unsigned f = m->kind == SHARD_MODEL_PARTICLE ? SHARD_OUT_PARTICLE : SHARD_OUT_BAR;
  if (m->fracture) f |= SHARD_OUT_FRACTURE;
  if (r->ref == SHARD_REF_BALL) f |= SHARD_OUT_REF_BALL;
  if (r->ref == SHARD_REF_BAR_IMPACT) f |= SHARD_OUT_REF_BAR;
  if (m->n_presc) f |= SHARD_OUT_LOADING;
  if (r->stop_interval > 0) f |= SHARD_OUT_STOP;
  return f;
}

void run_history_header(run *r) { shard_out_header(r->hist, &shard_out_history, run_out_flags(r)); }

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
  shard_model *m = r->m;
  errno = 0;
  if (r->spacetime && r->snap) {
    shard_msg ignored;
    shard_spacetime_record(r->snap, t, m, &ignored); /* refuses only a time going backwards */
  }
  const shard_step_stats *s = &m->stats;
  const double *u = m->sys.u, *v = m->sys.v, *a = m->sys.a;
  double pen = 0;
  for (int32_t i = 0; i < m->ncon; ++i) pen = fmax(pen, -r->gap[i]);
  double x[SHARD_HISTORY_N];
  for (int i = 0; i < SHARD_HISTORY_N; ++i) x[i] = NAN;
  x[H_STEP] = (double)step, x[H_T] = t, x[H_EVENT] = event, x[H_N_ACTIVE] = s->n_active;
  x[H_LCP_BLOCKS] = s->lcp_blocks, x[H_LCP_ITERATIONS] = (double)s->lcp_iterations;
  x[H_LCP_RESIDUAL] = s->lcp_residual, x[H_LCP_FALLBACKS] = s->lcp_fallbacks, x[H_MAX_PENETRATION] = pen;
  x[H_KINETIC] = r->kinetic, x[H_ELASTIC] = r->elastic, x[H_PENALTY] = r->penalty;
  x[H_CONTACT_DISSIPATION] = r->C_dis, x[H_EXTERNAL_WORK] = r->W_ext, x[H_ALGORITHMIC_ENERGY] = r->H;
  x[H_BALANCE_DRIFT] = r->drift;
  if (m->kind == SHARD_MODEL_PARTICLE) {
    x[H_U] = u[0], x[H_V] = v[0], x[H_A] = a[0], x[H_GAP] = r->gap[0], x[H_IMPULSE] = m->impulse[0];
    x[H_FORCE] = m->ncon ? shard_model_contact_force(m, 0, r->dt) : 0.0;
  } else {
    const int32_t d = r->contact_dof;
    if (d >= 0) x[H_U_CONTACT] = u[d], x[H_V_CONTACT] = v[d];
    x[H_FORCE_CONTACT] = (d >= 0 && m->ncon) ? shard_model_contact_force(m, r->contact_con, r->dt) : 0.0;
    x[H_MOMENTUM] = shard_model_momentum(m, v);
  }
  if (m->fracture) {
    const int32_t broken = shard_model_broken(m);
    x[H_COHESIVE_REVERSIBLE] = r->coh_rev, x[H_COHESIVE_WORK] = r->coh_work;
    x[H_FRACTURE_DISSIPATION] = r->coh_work - r->coh_rev, x[H_INTERFACES] = m->niface, x[H_BROKEN] = broken;
    x[H_FRAGMENTS] = broken + 1, x[H_INSERTIONS] = (double)m->insertions;
  }
  if (r->ref == SHARD_REF_BALL) {
    shard_ball_ref tmp = r->ball;
    shard_ball_ref_eval(&tmp, t, &x[H_U_REF], &x[H_V_REF]);
  } else if (r->ref == SHARD_REF_BAR_IMPACT) {
    shard_bar_ref_eval(&r->bar, t, &x[H_U_REF_BAR], &x[H_V_REF_BAR], &x[H_FORCE_REF]);
  }
  FILE *f = r->hist;
  const unsigned flags = run_out_flags(r);
  for (int i = 0; i < SHARD_HISTORY_N; ++i) {
    const shard_out_field *fd = &shard_out_history.fields[i];
    if (!shard_out_writes(fd, flags)) continue;
    if (i > 0) fputc(',', f); /* step, column 0, is in every history */
    if (!isfinite(x[i])) continue;
    if (fd->fmt) fprintf(f, fd->fmt, x[i]);
    else fprintf(f, "%lld", (long long)x[i]);
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
