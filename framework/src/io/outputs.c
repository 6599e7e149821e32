/* host: the output files described as data (see outputs.h). */
#include "io/outputs.h"

#include <stdlib.h>
#include <string.h>

#include "io/fsio.h"

#define N_(a) (sizeof(a) / sizeof((a)[0]))
#define I_ SHARD_OUT_INTEGER
#define R_ SHARD_OUT_NUMBER
#define S_ SHARD_OUT_STRING
#define B_ SHARD_OUT_BOOLEAN
#define PART SHARD_OUT_PARTICLE
#define BAR SHARD_OUT_BAR
#define FRAC SHARD_OUT_FRACTURE
#define BALL SHARD_OUT_REF_BALL
#define BREF SHARD_OUT_REF_BAR
#define LOAD SHARD_OUT_LOADING
#define STOP SHARD_OUT_STOP
#define SOME SHARD_OUT_SOMETIMES

/* ---- run files ------------------------------------------------------------------- */

#define SHARD_OUT_FIELD_(id, name, type, unit, when, fmt, desc) {name, type, unit, when, fmt, desc},
static const shard_out_field history_fields[] = {SHARD_HISTORY_COLUMNS(SHARD_OUT_FIELD_)};
#undef SHARD_OUT_FIELD_

const shard_out_table shard_out_history = {
    "history.csv", "time history",
    "One row per output time (output.every steps or output.interval seconds, the last step, and events with "
    "output.events). The columns after `momentum`/`force` depend on the model and on the reference solution.",
    history_fields, N_(history_fields), 0};

static const shard_out_field fragments_fields[] = {
    {"fragment", I_, "", 0, NULL, "fragment number, left to right from 0"},
    {"x_left", R_, "m", 0, NULL, "reference position of the fragment's left end"},
    {"x_right", R_, "m", 0, NULL, "reference position of the fragment's right end"},
    {"size", R_, "m", 0, NULL, "reference length x_right - x_left"},
    {"mass", R_, "kg", 0, NULL, "mass"},
    {"velocity", R_, "m/s", 0, NULL, "velocity of the centre of mass (momentum / mass)"},
};
const shard_out_table shard_out_fragments = {
    "fragments.csv", "fragments at the end of the run",
    "One row per fragment of the final state, left to right (a fragment ends at a fully broken interface).",
    fragments_fields, N_(fragments_fields), FRAC};

static const shard_out_field sizes_fields[] = {
    {"rank", I_, "", 0, NULL, "rank of the size, ascending from 1"},
    {"size", R_, "m", 0, NULL, "fragment size"},
    {"size_over_mean", R_, "1", 0, NULL, "size over the run's mean fragment size"},
    {"cumulative_number", R_, "1", 0, NULL, "fraction of the fragments with this size or smaller"},
    {"cumulative_mass", R_, "1", 0, NULL, "fraction of the bar's length in fragments of this size or smaller"},
};
const shard_out_table shard_out_fragment_sizes = {
    "fragment_sizes.csv", "fragment size distribution",
    "The fragment sizes ascending with their cumulative distributions by number and by mass.", sizes_fields,
    N_(sizes_fields), FRAC};

static const shard_out_field hist_fields[] = {
    {"bin", I_, "", 0, NULL, "bin number from 0"},
    {"size_left", R_, "m", 0, NULL, "left edge of the bin"},
    {"size_right", R_, "m", 0, NULL, "right edge of the bin (the largest size for the last bin)"},
    {"count", I_, "", 0, NULL, "fragments in the bin"},
    {"fraction", R_, "1", 0, NULL, "count over the number of fragments"},
    {"density_over_mean", R_, "1", 0, NULL,
     "probability density of size / mean size: fraction / (bin width / mean size)"},
};
const shard_out_table shard_out_fragment_histogram = {
    "fragment_histogram.csv", "fragment size histogram",
    "ceil(sqrt(N_f)) equal bins over [0, largest size] with counts and the density of size / mean size.",
    hist_fields, N_(hist_fields), FRAC};

static const shard_out_field iface_fields[] = {
    {"interface", I_, "", 0, NULL, "interface number, in order of insertion"},
    {"node", I_, "", 0, NULL, "mesh node the interface split"},
    {"x", R_, "m", 0, NULL, "reference position"},
    {"sigma_c", R_, "Pa", 0, NULL, "cohesive strength"},
    {"delta_c", R_, "m", 0, NULL, "critical opening (fully broken beyond it)"},
    {"delta", R_, "m", 0, NULL, "opening at the end of the run"},
    {"delta_max", R_, "m", 0, NULL, "largest opening reached"},
    {"damage", R_, "1", 0, NULL, "min(delta_max / delta_c, 1)"},
    {"work", R_, "J", 0, NULL, "work done on the interface"},
    {"reversible", R_, "J", 0, NULL, "recoverable energy stored at the end"},
    {"dissipation", R_, "J", 0, NULL, "energy dissipated: work - reversible"},
    {"max_step_opening", R_, "1", 0, NULL,
     "largest opening increment of one step over delta_c (how well the time step resolves the opening)"},
};
const shard_out_table shard_out_interfaces = {
    "interfaces.csv", "cohesive interfaces at the end of the run",
    "One row per cohesive interface inserted during the run (or placed at the start).", iface_fields,
    N_(iface_fields), FRAC};

/* ---- summary.yaml -------------------------------------------------------------------- */

static const shard_out_field summary_fields[] = {
    {"status", S_, "", 0, NULL, "ok, stopped (on request), numerical_failure or failed"},
    {"message", S_, "", SOME, NULL, "what went wrong, or why the run stopped (absent for an ok run)"},
    {"steps", I_, "", 0, NULL, "time steps taken"},
    {"restarts", I_, "", SOME, NULL, "times the run was continued from a checkpoint (absent: none)"},
    {"note", S_, "", SOME, NULL, "a hint for the user, e.g. how to render the space-time picture without gnuplot"},
    {"stopped_early", B_, "", STOP, NULL, "the dissipation_settled rule stopped the run before time.end"},
    {"stop_time", R_, "s", STOP, NULL, "time the run stopped (time.end when it did not stop early)"},
    {"time.end", R_, "s", 0, NULL, "time.end of the case"},
    {"time.dt", R_, "s", 0, NULL, "time step"},
    {"time.dt_c", R_, "s", 0, NULL, "critical time step estimate (time.dt_estimate)"},
    {"time.dt_bulk", R_, "s", 0, NULL, "critical time step of the bulk alone (smallest h / c)"},
    {"time.dt_over_dt_c", R_, "1", 0, NULL, "dt / dt_c"},
    {"wall_time.total", R_, "s", 0, NULL, "wall-clock time of the run (over every attempt after restarts)"},
    {"wall_time.setup", R_, "s", 0, NULL, "wall-clock time before the time loop"},
    {"wall_time.loop", R_, "s", 0, NULL, "wall-clock time of the time loop"},
    {"wall_time.per_step", R_, "s", 0, NULL, "loop time per step (~ without steps)"},
    {"energy.initial", R_, "J", 0, NULL, "mechanical energy at t = 0"},
    {"energy.kinetic", R_, "J", 0, NULL, "kinetic energy at the end"},
    {"energy.elastic", R_, "J", 0, NULL, "elastic strain energy at the end"},
    {"energy.penalty", R_, "J", 0, NULL, "penalty spring energy at the end"},
    {"energy.contact_dissipation", R_, "J", 0, NULL, "energy dissipated by contact"},
    {"energy.numerical_dissipation", R_, "J", 0, NULL,
     "energy dissipated by the scheme itself (Moreau-Jean's theta-method), 0 for the others"},
    {"energy.external_work", R_, "J", 0, NULL, "work of body forces and prescribed ends"},
    {"energy.algorithmic", R_, "J", 0, NULL, "the scheme's stored energy H at the end"},
    {"energy.balance_drift", R_, "1", 0, NULL, "energy balance error at the end, relative to the largest energy"},
    {"energy.max_balance_drift", R_, "1", 0, NULL, "largest |balance_drift| over the run"},
    {"contact.steps_in_contact", I_, "", 0, NULL, "steps with at least one active contact"},
    {"contact.max_active", I_, "", 0, NULL, "most contacts active at once"},
    {"contact.max_penetration", R_, "m", 0, NULL, "largest penetration over the run (0: none)"},
    {"contact.max_penetration_time", R_, "s", 0, NULL, "time of the largest penetration"},
    {"lcp.blocks", I_, "", 0, NULL, "LCP blocks solved"},
    {"lcp.largest_block", I_, "", 0, NULL, "contacts in the largest block"},
    {"lcp.iterations", I_, "", 0, NULL, "LCP solver iterations"},
    {"lcp.max_residual", R_, "1", 0, NULL, "largest LCP residual (the solver's scaled measure)"},
    {"lcp.fallbacks", I_, "", 0, NULL, "blocks solved by the fallback solver"},
    {"momentum", R_, "kg m/s", 0, NULL, "total linear momentum at the end"},
    {"loading.released", B_, "", LOAD, NULL, "the prescribed ends were released"},
    {"loading.release_time", R_, "s", LOAD, NULL, "time of the release (~: not released)"},
    {"loading.balance_offset", R_, "J", LOAD, NULL, "jump of the algorithmic energy at the release, carried by the balance"},
    {"fracture.interfaces", I_, "", FRAC, NULL, "cohesive interfaces at the end"},
    {"fracture.insertions", I_, "", FRAC, NULL, "cohesive insertions during the run"},
    {"fracture.broken", I_, "", FRAC, NULL, "fully broken interfaces"},
    {"fracture.fragments", I_, "", FRAC, NULL, "fragments N_f (broken + 1)"},
    {"fracture.mean_fragment_size", R_, "m", FRAC, NULL, "bar length / N_f"},
    {"fracture.dissipation", R_, "J", FRAC, NULL, "fracture dissipation G: cohesive work - reversible"},
    {"fracture.cohesive_work", R_, "J", FRAC, NULL, "work done on the cohesive interfaces"},
    {"fracture.reversible", R_, "J", FRAC, NULL, "recoverable cohesive energy at the end"},
    {"fracture.g_hat_per_fragment", R_, "1", FRAC, NULL, "G / (N_f G_c A): dissipation per fragment in units of G_c A"},
    {"fracture.fragment_size.mean", R_, "m", FRAC | BAR, NULL, "mean fragment size of this run"},
    {"fracture.fragment_size.ci95", R_, "m", FRAC | BAR, NULL,
     "half-width of the 95% interval of the mean (Student t; 0 for one fragment)"},
    {"fracture.fragment_size.std", R_, "m", FRAC | BAR, NULL, "standard deviation of the sizes (n - 1; 0 for one)"},
    {"fracture.fragment_size.min", R_, "m", FRAC | BAR, NULL, "smallest fragment"},
    {"fracture.fragment_size.median", R_, "m", FRAC | BAR, NULL, "median fragment size"},
    {"fracture.fragment_size.max", R_, "m", FRAC | BAR, NULL, "largest fragment"},
    {"fracture.max_step_insertions", I_, "", FRAC, NULL,
     "most interfaces inserted in one step (all at once: nucleation not resolved in time)"},
    {"fracture.max_step_insertions_time", R_, "s", FRAC, NULL, "time of that step (~: no insertion)"},
    {"reference.type", S_, "", BALL, NULL, "ball: the bouncing-ball solution"},
    {"reference.eta", R_, "1", BALL, NULL,
     "relative L1 error of the position over the run: sum |u - u_ref| / sum |u_ref| over the steps"},
    {"reference.zeno_time", R_, "s", BALL, NULL, "time the exact ball comes to rest (accumulation of bounces)"},
    {"reference.type", S_, "", BREF, NULL, "bar_impact: the 1D wave solution of a bar hitting a rigid wall"},
    {"reference.contact_start", R_, "s", BREF, NULL, "start of the first step with a contact force (~: no contact)"},
    {"reference.contact_start_ref", R_, "s", BREF, NULL, "exact time of first contact t_c"},
    {"reference.contact_duration", R_, "s", BREF, NULL, "from the start of the first to the end of the last step with a contact force (~: no contact)"},
    {"reference.contact_duration_ref", R_, "s", BREF, NULL, "exact contact duration t_b = 2 L / c"},
    {"reference.mean_force", R_, "N", BREF, NULL,
     "mean contact force over (t_c + 0.1 t_b, t_c + 0.9 t_b) (~: no step in that window)"},
    {"reference.force_ref", R_, "N", BREF, NULL, "exact contact force F0 = rho c A |v0|"},
    {"reference.rebound_velocity", R_, "m/s", BREF, NULL, "velocity of the centre of mass at the end"},
    {"reference.velocity_ref", R_, "m/s", BREF, NULL, "exact rebound velocity -v0 (e = 1 wave solution)"},
    {"reference.eta", R_, "1", BREF, NULL,
     "relative L1 error of the contact node's displacement over the whole run: sum |u - u_ref| / sum |u_ref|"},
    {"reference.eta_u", R_, "1", BREF, NULL,
     "relative L1 error of the contact node's displacement after the rebound, over the steps in (t_c + t_b, t_c + "
     "4 t_b]: sum |u - u_ref| / sum |u_ref| (~: the run ends before that window)"},
    {"reference.eta_v", R_, "1", BREF, NULL,
     "relative L1 error of the contact node's velocity over the same window (t_c + t_b, t_c + 4 t_b]: sum |v - "
     "v_ref| / sum |v_ref| (~: the run ends before it)"},
    {"reference.eta_u_contact", R_, "1", BREF, NULL,
     "relative L1 error of the contact node's displacement during the contact, over [t_c, t_c + t_b] (~: no step "
     "in it)"},
};
const shard_out_table shard_out_summary = {
    "summary.yaml", "summary of a run",
    "Written at the end of every run (also a failed one), nested YAML; campaign.csv flattens the keys with dots "
    "(energy.kinetic). `~` (null) marks a value that does not exist for the run. t_c is the exact time of first "
    "contact and t_b = 2 L / c the exact contact duration of the impacting bar.",
    summary_fields, N_(summary_fields), 0};

/* ---- campaign tables --------------------------------------------------------------- */

static const shard_out_field run_fields[] = {
    {"index", I_, "", 0, NULL, "run number, from 0 in sweep order"},
    {"status", S_, "", 0, NULL, "ok, bad_input, numerical_failure, failed, timeout (killed at the time limit) or crashed (ended by a signal)"},
    {"exit_code", I_, "", 0, NULL, "exit status of `shard run` (empty after a signal)"},
    {"signal", I_, "", 0, NULL, "signal that ended the run (empty: none)"},
    {"wall_time", R_, "s", 0, NULL, "wall-clock time of the run process"},
    {"host", S_, "", 0, NULL, "host name of the machine that ran it"},
    {"steps", I_, "", 0, NULL, "time steps taken (from summary.yaml)"},
    {"message", S_, "", 0, NULL, "the run's error message (empty for ok runs)"},
    {"run_dir", S_, "", 0, NULL, "the run's directory, relative to the campaign directory (runs/0007)"},
};
const shard_out_table shard_out_campaign_runs = {
    "campaign.csv", "campaign table",
    "One row per run: `index`, then one column per swept or derived key (the value as swept), then the run "
    "columns below, then every scalar of the run's summary.yaml flattened with dots (the keys and units of "
    "summary.yaml above; empty where a run has no value).",
    run_fields, N_(run_fields), 0};

static const shard_out_field stat_fields[] = {
    {"n", I_, "", 0, NULL, "ok runs in the group"},
    {"failed", I_, "", 0, NULL, "other runs in the group"},
    {"C.n", I_, "", SOME, NULL, "runs with a value in C (only when some ok run has none)"},
    {"C.mean", R_, "unit of C", 0, NULL, "mean of C over the runs with a value (empty cells are left out)"},
    {"C.std", R_, "unit of C", 0, NULL, "standard deviation (n - 1)"},
    {"C.ci95", R_, "unit of C", 0, NULL, "half-width of the 95% interval of the mean: t(0.975, n-1) std / sqrt(n)"},
    {"C.min", R_, "unit of C", 0, NULL, "smallest value"},
    {"C.max", R_, "unit of C", 0, NULL, "largest value"},
};
const shard_out_table shard_out_statistics = {
    "statistics.csv", "statistics over a swept key",
    "With a `statistics:` block: one row per combination of the other swept keys (the group columns first), "
    "then for every statistic column C of campaign.csv:",
    stat_fields, N_(stat_fields), 0};

static const shard_out_field pooled_fields[] = {
    {"runs", I_, "", 0, NULL, "runs pooled in the group"},
    {"size", R_, "m", 0, NULL, "fragment size"},
    {"size_over_mean", R_, "1", 0, NULL, "size over its own run's mean fragment size"},
    {"cumulative_number", R_, "1", 0, NULL, "fraction of the group's fragments with this ratio or smaller"},
};
const shard_out_table shard_out_pooled_sizes = {
    "fragment_sizes.csv (campaign)", "pooled fragment sizes",
    "With a `statistics:` block and fracture runs: the group columns, then every fragment of the group's ok runs, "
    "sorted by size over its run's mean:",
    pooled_fields, N_(pooled_fields), FRAC};

/* ---- queries ----------------------------------------------------------------------- */

int shard_out_writes(const shard_out_field *f, unsigned flags) {
  const unsigned need = f->when & ~(unsigned)SHARD_OUT_SOMETIMES;
  return (flags & need) == need;
}

const shard_out_field *shard_out_find(const shard_out_table *t, const char *name, unsigned flags) {
  for (size_t i = 0; i < t->n_fields; ++i)
    if (strcmp(t->fields[i].name, name) == 0 && (flags == ~0u || shard_out_writes(&t->fields[i], flags)))
      return &t->fields[i];
  return NULL;
}

void shard_out_header(FILE *f, const shard_out_table *t, unsigned flags) {
  int first = 1;
  for (size_t i = 0; i < t->n_fields; ++i)
    if (shard_out_writes(&t->fields[i], flags)) fprintf(f, "%s%s", first ? "" : ",", t->fields[i].name), first = 0;
  fputc('\n', f);
}

/* ---- JSON ---------------------------------------------------------------------------- */

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", f);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

static const char *type_word(shard_out_type t) {
  switch (t) {
  case SHARD_OUT_INTEGER: return "integer";
  case SHARD_OUT_NUMBER: return "number";
  case SHARD_OUT_BOOLEAN: return "boolean";
  case SHARD_OUT_STRING: break;
  }
  return "string";
}

int shard_out_write_package(const char *dir, const char *name, const char *description,
                            const shard_out_resource *res, size_t n, shard_msg *msg) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  fprintf(f, "{\n  \"name\": ");
  json_string(f, name);
  fprintf(f, ",\n  \"description\": ");
  json_string(f, description);
  fprintf(f, ",\n  \"profile\": \"tabular-data-package\",\n  \"resources\": [");
  for (size_t r = 0; r < n; ++r) {
    char rname[256];
    size_t k = 0;
    const char *dot = strrchr(res[r].path, '.'); /* the name: the file name without .csv, lower-case, digits, -._ */
    for (const char *p = res[r].path; *p && p != dot && k + 1 < sizeof rname; ++p)
      rname[k++] = (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : (strchr("abcdefghijklmnopqrstuvwxyz0123456789-._", *p) ? *p : '_');
    rname[k] = '\0';
    fprintf(f, "%s\n    {\n      \"name\": ", r ? "," : "");
    json_string(f, rname);
    fprintf(f, ",\n      \"path\": ");
    json_string(f, res[r].path);
    fprintf(f, ",\n      \"title\": ");
    json_string(f, res[r].title);
    fprintf(f, ",\n      \"description\": ");
    json_string(f, res[r].description);
    fprintf(f, ",\n      \"profile\": \"tabular-data-resource\",\n      \"format\": \"csv\",\n"
               "      \"mediatype\": \"text/csv\",\n      \"encoding\": \"utf-8\",\n"
               "      \"dialect\": {\"delimiter\": \",\", \"header\": true},\n"
               "      \"schema\": {\n        \"missingValues\": [\"\"],\n        \"fields\": [");
    for (size_t i = 0; i < res[r].n_fields; ++i) {
      const shard_out_field *fd = res[r].fields[i];
      fprintf(f, "%s\n          {\"name\": ", i ? "," : "");
      json_string(f, fd->name);
      fprintf(f, ", \"type\": \"%s\", \"unit\": ", type_word(fd->type));
      json_string(f, fd->unit);
      fprintf(f, ", \"description\": ");
      json_string(f, fd->description);
      fprintf(f, "}");
    }
    fprintf(f, "\n        ]\n      }\n    }");
  }
  fprintf(f, "\n  ]\n}\n");
  if (fclose(f) != 0) {
    free(buf);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  }
  const int st = shard_write_atomic(dir, "datapackage.json", buf, len, msg);
  free(buf);
  return st;
}

int shard_out_write_run_package(const char *dir, unsigned flags, shard_msg *msg) {
  const shard_out_table *tables[] = {&shard_out_history, &shard_out_fragments, &shard_out_fragment_sizes,
                                     &shard_out_fragment_histogram, &shard_out_interfaces};
  shard_out_resource res[N_(tables)];
  const shard_out_field *fields[128];
  size_t n = 0, used = 0;
  for (size_t t = 0; t < N_(tables); ++t) {
    const shard_out_table *tb = tables[t];
    if ((flags & tb->when) != tb->when) continue;
    res[n] = (shard_out_resource){tb->file, tb->title, tb->description, fields + used, 0};
    for (size_t i = 0; i < tb->n_fields && used < N_(fields); ++i)
      if (shard_out_writes(&tb->fields[i], flags)) fields[used++] = &tb->fields[i], res[n].n_fields++;
    ++n;
  }
  return shard_out_write_package(dir, "shard-run", "the CSV files of one shard run (see docs/outputs.md)", res, n,
                                 msg);
}

/* ---- Markdown ------------------------------------------------------------------------ */

static void md_text(FILE *f, const char *s) {
  for (; *s; ++s) {
    if (*s == '|') fputc('\\', f);
    fputc(*s, f);
  }
}

static void md_when(FILE *f, unsigned when) {
  static const struct {
    unsigned bit;
    const char *word;
  } words[] = {{PART, "particle"},         {BAR, "bar"},          {FRAC, "fracture"},
               {BALL, "ball reference"},   {BREF, "bar reference"}, {LOAD, "loading"},
               {STOP, "time.stop"},        {SOME, "sometimes"}};
  int first = 1;
  for (size_t i = 0; i < N_(words); ++i)
    if (when & words[i].bit) fprintf(f, "%s%s", first ? "" : ", ", words[i].word), first = 0;
  if (first) fputs("all", f);
}

static void md_table(FILE *f, const shard_out_table *t, int key_word) {
  fprintf(f, "### `%s`: %s\n\n", t->file, t->title);
  md_text(f, t->description);
  fprintf(f, "\n\n| %s | type | unit | written by | description |\n|---|---|---|---|---|\n",
          key_word ? "key" : "column");
  for (size_t i = 0; i < t->n_fields; ++i) {
    const shard_out_field *fd = &t->fields[i];
    fprintf(f, "| `%s` | %s | %s | ", fd->name, type_word(fd->type), *fd->unit ? fd->unit : "-");
    md_when(f, fd->when);
    fputs(" | ", f);
    md_text(f, fd->description);
    fputs(" |\n", f);
  }
  fputc('\n', f);
}

int shard_out_write_markdown(FILE *out) {
  fprintf(out, "## Run directory\n\n");
  fprintf(out, "\"written by\": the runs that write a column or key — all: every run; particle, bar: the model "
               "type; fracture: a `fracture` section; ball reference, bar reference: the reference solution "
               "(`reference.type`); loading: prescribed ends (`model.loading`); time.stop: `time.stop: "
               "dissipation_settled`; sometimes: only in some of them (see the description).\n\n");
  md_table(out, &shard_out_history, 0);
  md_table(out, &shard_out_summary, 1);
  md_table(out, &shard_out_fragments, 0);
  md_table(out, &shard_out_fragment_sizes, 0);
  md_table(out, &shard_out_fragment_histogram, 0);
  md_table(out, &shard_out_interfaces, 0);
  fprintf(out, "## Campaign directory\n\n");
  md_table(out, &shard_out_campaign_runs, 0);
  md_table(out, &shard_out_statistics, 0);
  md_table(out, &shard_out_pooled_sizes, 0);
  return ferror(out) ? SHARD_ERR_IO : SHARD_OK;
}
