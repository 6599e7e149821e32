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
#define FRAC SHARD_OUT_FRACTURE
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
    "output.events): the run's columns, then the model's (docs/outputs.md lists both).",
    history_fields, N_(history_fields), 0};

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
    {"cpu_time.loop", R_, "s", 0, NULL,
     "CPU time (user + system) of the time loop (~ after a restart: not carried by checkpoints)"},
    {"cpu_time.per_step", R_, "s", 0, NULL, "loop CPU time per step (~ without steps or after a restart)"},
    {"threads", I_, "", 0, NULL,
     "threads the run's loops could use (shard run --threads; the results do not depend on it)"},
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
    {"energy.insertion_offset", R_, "J", SOME, NULL,
     "jumps of the algorithmic energy at insertions (the model's new accelerations), carried by the balance (runs with "
     "fracture.insertion)"},
    {"contact.steps_in_contact", I_, "", 0, NULL, "steps with at least one active contact"},
    {"contact.max_active", I_, "", 0, NULL, "most contacts active at once"},
    {"contact.max_penetration", R_, "m", 0, NULL, "largest penetration over the run (0: none)"},
    {"contact.max_penetration_time", R_, "s", 0, NULL, "time of the largest penetration"},
    {"lcp.blocks", I_, "", 0, NULL, "LCP blocks solved"},
    {"lcp.largest_block", I_, "", 0, NULL, "contacts in the largest block"},
    {"lcp.iterations", I_, "", 0, NULL, "LCP solver iterations"},
    {"lcp.max_residual", R_, "1", 0, NULL, "largest LCP residual (the solver's scaled measure)"},
    {"lcp.fallbacks", I_, "", 0, NULL, "blocks solved by the fallback solver"},
    {"momentum", R_, "kg m/s", 0, NULL,
     "total linear momentum at the end, for a model with one axis (empty for a 2D model: its own keys give the "
     "components)"},
    {"loading.released", B_, "", LOAD, NULL, "the prescribed ends were released"},
    {"loading.release_time", R_, "s", LOAD, NULL, "time of the release (~: not released)"},
    {"loading.balance_offset", R_, "J", LOAD, NULL, "jump of the algorithmic energy at the release, carried by the balance"},
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

void shard_out_header_n(FILE *f, const shard_out_table *const *t, size_t n, unsigned flags) {
  int first = 1;
  for (size_t k = 0; k < n; ++k)
    for (size_t i = 0; t[k] && i < t[k]->n_fields; ++i)
      if (shard_out_writes(&t[k]->fields[i], flags))
        fprintf(f, "%s%s", first ? "" : ",", t[k]->fields[i].name), first = 0;
  fputc('\n', f);
}

void shard_out_header(FILE *f, const shard_out_table *t, unsigned flags) { shard_out_header_n(f, &t, 1, flags); }

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

int shard_out_write_run_package(const char *dir, unsigned flags, const shard_out_table *model_history,
                                const shard_out_table *const *files, size_t n_files, shard_msg *msg) {
  shard_out_resource res[16];
  const shard_out_field *fields[256];
  size_t n = 0, used = 0;
  const shard_out_table *history[] = {&shard_out_history, model_history};
  res[n] = (shard_out_resource){shard_out_history.file, shard_out_history.title, shard_out_history.description,
                                fields, 0};
  for (size_t t = 0; t < N_(history); ++t)
    for (size_t i = 0; history[t] && i < history[t]->n_fields && used < N_(fields); ++i)
      if (shard_out_writes(&history[t]->fields[i], flags)) fields[used++] = &history[t]->fields[i], res[n].n_fields++;
  ++n;
  for (size_t t = 0; t < n_files && n < N_(res); ++t) {
    const shard_out_table *tb = files[t];
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

/* the host's bits, then the model's own (model_words[k] for SHARD_OUT_MODEL_BIT(k)) */
static void md_when(FILE *f, unsigned when, const char *const *model_words) {
  static const struct {
    unsigned bit;
    const char *word;
  } words[] = {{FRAC, "fracture"}, {LOAD, "loading"}, {STOP, "time.stop"}, {SHARD_OUT_PROBES, "output.probes"},
               {SOME, "sometimes"}};
  int first = 1;
  for (unsigned k = 0; k < SHARD_OUT_MODEL_BITS; ++k)
    if (when & SHARD_OUT_MODEL_BIT(k)) {
      const char *w = model_words && model_words[k] ? model_words[k] : "(model)";
      fprintf(f, "%s%s", first ? "" : ", ", w), first = 0;
    }
  for (size_t i = 0; i < N_(words); ++i)
    if (when & words[i].bit) fprintf(f, "%s%s", first ? "" : ", ", words[i].word), first = 0;
  if (first) fputs("all", f);
}

static void md_table(FILE *f, const shard_out_table *t, int key_word, const char *const *model_words) {
  fprintf(f, "### `%s`: %s\n\n", t->file, t->title);
  md_text(f, t->description);
  fprintf(f, "\n\n| %s | type | unit | written by | description |\n|---|---|---|---|---|\n",
          key_word ? "key" : "column");
  for (size_t i = 0; i < t->n_fields; ++i) {
    const shard_out_field *fd = &t->fields[i];
    fprintf(f, "| `%s` | %s | %s | ", fd->name, type_word(fd->type), *fd->unit ? fd->unit : "-");
    md_when(f, fd->when, model_words);
    fputs(" | ", f);
    md_text(f, fd->description);
    fputs(" |\n", f);
  }
  fputc('\n', f);
}

int shard_out_write_markdown(FILE *out, const shard_out_model_doc *models, size_t n_models) {
  fprintf(out, "## Run directory\n\n");
  fprintf(out, "\"written by\": the runs that write a column or key — all: every run; fracture: a `fracture` "
               "section; loading: prescribed motion that is released (`model.loading`); time.stop: `time.stop: "
               "dissipation_settled`; sometimes: only in some of them (see the description). A model's own words "
               "(particle, bar: the model type; ball reference, bar reference: the reference solution, "
               "`reference.type`) are its plugin's.\n\n");
  md_table(out, &shard_out_history, 0, NULL);
  md_table(out, &shard_out_summary, 1, NULL);
  for (size_t m = 0; m < n_models; ++m) {
    const shard_out_model_doc *d = &models[m];
    fprintf(out, "## Run directory: model %s\n\n", d->names);
    fprintf(out, "The model's history columns follow the run's, and its summary keys the run's.\n\n");
    if (d->history) md_table(out, d->history, 0, d->when_words);
    if (d->summary) md_table(out, d->summary, 1, d->when_words);
    for (size_t t = 0; t < d->n_files; ++t) md_table(out, d->files[t], 0, d->when_words);
  }
  fprintf(out, "## Campaign directory\n\n");
  md_table(out, &shard_out_campaign_runs, 0, NULL);
  md_table(out, &shard_out_statistics, 0, NULL);
  md_table(out, &shard_out_pooled_sizes, 0, NULL);
  return ferror(out) ? SHARD_ERR_IO : SHARD_OK;
}
