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

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The fragments of the final state (docs/theory.md §8), left to right, and their
 * sizes ascending with the statistics over them (mean with its Student-t
 * 95% interval, spread) and the median. Returns the count, or -1 out of
 * memory; *fr and *sizes are malloc'd (free both, also on failure). */
static int32_t fragment_sizes(const shard_model *m, shard_fragment **fr, double **sizes, shard_sample_stats *st,
                              double *median) {
  const int32_t nf = shard_model_fragments(m, m->sys.v, NULL, 0);
  *fr = calloc((size_t)nf + 1, sizeof **fr);
  *sizes = calloc((size_t)nf + 1, sizeof **sizes);
  if (!*fr || !*sizes) return -1;
  shard_model_fragments(m, m->sys.v, *fr, nf);
  for (int32_t i = 0; i < nf; ++i) (*sizes)[i] = (*fr)[i].size;
  *st = shard_sample_stats_of(*sizes, nf);
  qsort(*sizes, (size_t)nf, sizeof **sizes, cmp_double);
  *median = nf < 1 ? NAN : nf % 2 ? (*sizes)[nf / 2] : 0.5 * ((*sizes)[nf / 2 - 1] + (*sizes)[nf / 2]);
  return nf;
}

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

/* SHARD_ERR_NOMEM when the fragment statistics could not be computed (the
 * summary is then incomplete) */
int run_write_summary(run *r, FILE *f, const char *status, const char *message, int64_t steps, double wall_total) {
  shard_model *m = r->m;
  int rc = SHARD_OK;
  yaml_out w = {.f = f};
  y_word(&w, "status", status);
  if (message) y_quoted(&w, "message", message);
  y_int(&w, "steps", (long long)steps);
  if (r->restarts > 0) y_int(&w, "restarts", (long long)r->restarts);
  if (r->snap && shard_snapshots_note(r->snap)) y_quoted(&w, "note", shard_snapshots_note(r->snap));
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
  y_int(&w, "contact.steps_in_contact", (long long)r->contact_steps);
  y_int(&w, "contact.max_active", (long long)r->max_active);
  y_sci(&w, "contact.max_penetration", r->max_penetration);
  y_num(&w, "contact.max_penetration_time", r->max_penetration_step);
  y_int(&w, "lcp.blocks", (long long)r->lcp_blocks);
  y_int(&w, "lcp.largest_block", (long long)r->max_block);
  y_int(&w, "lcp.iterations", (long long)r->lcp_iterations);
  y_sci(&w, "lcp.max_residual", r->lcp_res_max);
  y_int(&w, "lcp.fallbacks", (long long)r->lcp_fallbacks);
  y_num(&w, "momentum", shard_model_momentum(m, m->sys.v));
  if (m->n_presc) {
    y_word(&w, "loading.released", m->released ? "true" : "false");
    y_num(&w, "loading.release_time", m->released ? r->release_time : NAN);
    y_num(&w, "loading.balance_offset", r->release_offset);
  }
  if (m->fracture) {
    const int32_t nf = shard_model_fragments(m, m->sys.v, NULL, 0);
    const double G = r->coh_work - r->coh_rev, gcA = m->g_c * m->scales.area;
    y_int(&w, "fracture.interfaces", (long long)m->niface);
    y_int(&w, "fracture.insertions", (long long)m->insertions);
    y_int(&w, "fracture.broken", (long long)shard_model_broken(m));
    y_int(&w, "fracture.fragments", (long long)nf);
    y_num(&w, "fracture.mean_fragment_size", m->scales.length / nf);
    y_num(&w, "fracture.dissipation", G);
    y_num(&w, "fracture.cohesive_work", r->coh_work);
    y_num(&w, "fracture.reversible", r->coh_rev);
    y_num(&w, "fracture.g_hat_per_fragment", G / (nf * gcA));
    shard_fragment *fr = NULL;
    double *sz = NULL, median = NAN;
    shard_sample_stats st;
    const int32_t n = m->kind == SHARD_MODEL_BAR ? fragment_sizes(m, &fr, &sz, &st, &median) : 0;
    if (n < 0) rc = SHARD_ERR_NOMEM;
    if (n > 0) { /* over the fragments of this run: mean size with its 95% interval (Student t) */
      y_num(&w, "fracture.fragment_size.mean", st.mean);
      y_num(&w, "fracture.fragment_size.ci95", n > 1 ? st.ci95 : 0.0);
      y_num(&w, "fracture.fragment_size.std", n > 1 ? st.std : 0.0);
      y_num(&w, "fracture.fragment_size.min", st.min);
      y_num(&w, "fracture.fragment_size.median", median);
      y_num(&w, "fracture.fragment_size.max", st.max);
    }
    free(sz), free(fr);
    y_int(&w, "fracture.max_step_insertions", (long long)r->max_inserted);
    y_num(&w, "fracture.max_step_insertions_time", r->max_inserted > 0 ? r->max_inserted_time : NAN);
  }
  if (r->ref == SHARD_REF_BALL) {
    y_word(&w, "reference.type", "ball");
    y_num(&w, "reference.eta", r->eta_all_num / r->eta_all_den);
    y_num(&w, "reference.zeno_time", r->ball.t_zeno);
  } else if (r->ref == SHARD_REF_BAR_IMPACT) {
    const double mom = shard_model_momentum(m, m->sys.v) / shard_model_total_mass(m);
    const int contact = !isnan(r->first_contact);
    y_word(&w, "reference.type", "bar_impact");
    y_num(&w, "reference.contact_start", contact ? r->first_contact - r->dt : NAN);
    y_num(&w, "reference.contact_start_ref", r->bar.t_contact);
    y_num(&w, "reference.contact_duration", contact ? r->last_contact - r->first_contact + r->dt : NAN);
    y_num(&w, "reference.contact_duration_ref", r->bar.t_b);
    y_num(&w, "reference.mean_force", r->force_n ? r->force_sum / (double)r->force_n : NAN);
    y_num(&w, "reference.force_ref", r->bar.F0);
    y_num(&w, "reference.rebound_velocity", mom);
    y_num(&w, "reference.velocity_ref", -r->bar.v0);
    y_num(&w, "reference.eta", r->eta_all_num / fmax(r->eta_all_den, 1e-300));
    /* relative L1 errors over the rebound window (t_c + t_b, t_c + 4 t_b], and during contact */
    y_num(&w, "reference.eta_u", r->eta_den > 0 ? r->eta_num / r->eta_den : NAN);
    y_num(&w, "reference.eta_v", r->etav_den > 0 ? r->etav_num / r->etav_den : NAN);
    y_num(&w, "reference.eta_u_contact", r->etac_den > 0 ? r->etac_num / r->etac_den : NAN);
  }
  return rc;
}

int run_write_memstream(const char *dir, const char *name, char *buf, size_t len, shard_msg *msg) {
  int st = shard_write_atomic(dir, name, buf, len, msg);
  free(buf);
  return st;
}

/* interfaces.csv: one row per cohesive interface at the end of the run */
int run_write_interfaces(run *r, shard_msg *msg) {
  shard_model *m = r->m;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for interfaces.csv");
  const double A = m->scales.area;
  shard_out_header(f, &shard_out_interfaces, run_out_flags(r));
  for (int32_t i = 0; i < m->niface; ++i) {
    const double d = fmin(m->if_dmax[i] / m->if_deltac[i], 1.0);
    fprintf(f, "%d,%d,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.6g\n", (int)i, (int)m->if_node[i],
            m->X[m->if_node[i]], m->if_sigma[i], m->if_deltac[i], m->if_delta[i], m->if_dmax[i], d, m->if_work[i] * A,
            m->if_rev[i] * A, (m->if_work[i] - m->if_rev[i]) * A, m->if_step_max[i]);
  }
  fclose(f);
  return run_write_memstream(r->opt->out_dir, "interfaces.csv", buf, len, msg);
}

/* fragments.csv: one row per fragment, left to right; fragment_sizes.csv:
 * the sizes ascending with the cumulative distribution by number and by
 * mass; fragment_histogram.csv: ceil(sqrt(N_f)) equal bins over [0, s_max]
 * with counts and the density of s / mean size. */
int run_write_fragments(run *r, shard_msg *msg) {
  shard_fragment *fr = NULL;
  double *sz = NULL, median;
  shard_sample_stats st;
  const int32_t nf = fragment_sizes(r->m, &fr, &sz, &st, &median);
  char *b1 = NULL, *b2 = NULL, *b3 = NULL;
  size_t l1 = 0, l2 = 0, l3 = 0;
  FILE *f1 = nf >= 0 ? open_memstream(&b1, &l1) : NULL, *f2 = f1 ? open_memstream(&b2, &l2) : NULL,
       *f3 = f2 ? open_memstream(&b3, &l3) : NULL;
  if (!f3) {
    if (f1) fclose(f1), free(b1);
    if (f2) fclose(f2), free(b2);
    free(fr), free(sz);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for fragments.csv");
  }
  shard_out_header(f1, &shard_out_fragments, run_out_flags(r));
  double total = 0.0;
  for (int32_t i = 0; i < nf; ++i) {
    fprintf(f1, "%d,%.15g,%.15g,%.15g,%.15g,%.15g\n", (int)i, fr[i].x_left, fr[i].x_right, fr[i].size, fr[i].mass,
            fr[i].momentum / fr[i].mass);
    total += fr[i].size;
  }
  shard_out_header(f2, &shard_out_fragment_sizes, run_out_flags(r));
  double below = 0.0;
  for (int32_t i = 0; i < nf; ++i) {
    below += sz[i];
    fprintf(f2, "%d,%.15g,%.15g,%.15g,%.15g\n", (int)i + 1, sz[i], sz[i] / st.mean, (double)(i + 1) / nf,
            below / total);
  }
  const int32_t nb = nf > 0 ? (int32_t)ceil(sqrt((double)nf)) : 0;
  const double width = nb > 0 ? st.max / nb : 0.0;
  shard_out_header(f3, &shard_out_fragment_histogram, run_out_flags(r));
  for (int32_t b = 0, i = 0; b < nb; ++b) {
    const double hi = b == nb - 1 ? st.max : (b + 1) * width;
    int32_t c = 0;
    while (i < nf && (sz[i] <= hi || b == nb - 1)) ++c, ++i;
    /* density of x = s / mean: fraction per unit of x */
    fprintf(f3, "%d,%.15g,%.15g,%d,%.15g,%.15g\n", (int)b, b * width, hi, (int)c, (double)c / nf,
            (double)c / nf / (width / st.mean));
  }
  fclose(f1), fclose(f2), fclose(f3);
  free(fr), free(sz);
  int rc = run_write_memstream(r->opt->out_dir, "fragments.csv", b1, l1, msg);
  if (rc == SHARD_OK) rc = run_write_memstream(r->opt->out_dir, "fragment_sizes.csv", b2, l2, msg);
  else free(b2);
  if (rc == SHARD_OK) rc = run_write_memstream(r->opt->out_dir, "fragment_histogram.csv", b3, l3, msg);
  else free(b3);
  return rc;
}
