/* host: the Data Package of a campaign directory (datapackage.json beside
 * campaign.csv, statistics.csv and the pooled fragment_sizes.csv), its
 * fields from the output tables (outputs.h) and, for the parameter columns,
 * the case format's key tables (see campaign.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign/campaign_package.h"

#include "campaign/campaign.h"
#include "campaign/campaign_stats.h"
#include "campaign/campaign_table.h"
#include "case/case.h"
#include "io/outputs.h"
#include "model/models.h"

/* the fields of the package, with the text they own */
typedef struct fields {
  shard_out_field *items;
  const shard_out_field **ptrs;
  size_t n, cap;
  char **texts;
  size_t n_texts, texts_cap;
  const shard_registry *reg; /* the model plugins' tables (without a campaign) */
} fields;

static const char *keep(fields *fs, const char *fmt, ...) SHARD_PRINTF_(2, 3);
static const char *keep(fields *fs, const char *fmt, ...) {
  if (fs->n_texts == fs->texts_cap) {
    size_t cap = fs->texts_cap ? 2 * fs->texts_cap : 64;
    char **p = realloc(fs->texts, cap * sizeof *p);
    if (!p) return "";
    fs->texts = p, fs->texts_cap = cap;
  }
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!s) return "";
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  fs->texts[fs->n_texts++] = s;
  return s;
}

static int add(fields *fs, shard_out_field f) {
  if (fs->n == fs->cap) {
    size_t cap = fs->cap ? 2 * fs->cap : 64;
    shard_out_field *p = realloc(fs->items, cap * sizeof *p);
    if (!p) return SHARD_ERR_NOMEM;
    fs->items = p, fs->cap = cap;
  }
  fs->items[fs->n++] = f;
  return SHARD_OK;
}

static void fields_free(fields *fs) {
  for (size_t i = 0; i < fs->n_texts; ++i) free(fs->texts[i]);
  free(fs->texts);
  free(fs->items);
  free(fs->ptrs);
}

/* the unit and doc of case key `path` in the host's tables (sections, the
 * model's variants) or, for a plugin section, in the parameters of the
 * registry's plugins of its kind (the first that has the key): 1 when found */
static int case_key(const char *path, const shard_registry *reg, const char **unit, const char **doc) {
  for (uint32_t s = 0; s < shard_case_n_sections; ++s) {
    const shard_case_section *sec = &shard_case_sections[s];
    const size_t len = strlen(sec->path);
    const char *key = path;
    if (len) {
      if (strncmp(path, sec->path, len) != 0 || path[len] != '.') continue;
      key = path + len + 1;
    }
    for (uint32_t i = 0; i < sec->n_specs; ++i)
      if (strcmp(sec->specs[i].key, key) == 0) return *unit = sec->specs[i].unit, *doc = sec->specs[i].doc, 1;
    for (uint32_t v = 0; v < sec->n_variants; ++v)
      for (uint32_t i = 0; i < sec->variants[v].n_specs; ++i)
        if (strcmp(sec->variants[v].specs[i].key, key) == 0)
          return *unit = sec->variants[v].specs[i].unit, *doc = sec->variants[v].specs[i].doc, 1;
    for (size_t k = 0; reg && sec->plugin_kind > 0 && k < shard_registry_count(reg); ++k) {
      const shard_plugin *pl = shard_registry_at(reg, k)->desc;
      for (uint32_t i = 0; (int)pl->kind == sec->plugin_kind && i < pl->n_params; ++i)
        if (strcmp(pl->params[i].key, key) == 0)
          return *unit = pl->params[i].unit, *doc = pl->params[i].doc, 1;
    }
  }
  return 0;
}

/* integer, number or string: what every non-empty cell of column k reads as */
static shard_out_type column_type(const shard_table *t, size_t k) {
  int integer = 1, number = 1, any = 0;
  for (size_t r = 0; r < shard_table_n_rows(t); ++r) {
    const char *s = shard_table_get(t, r, k);
    if (!*s) continue;
    any = 1;
    char *end = NULL;
    const double x = strtod(s, &end);
    if (end == s || *end || !isfinite(x)) return SHARD_OUT_STRING;
    integer &= strspn(s, "-0123456789") == strlen(s);
  }
  return !any ? SHARD_OUT_STRING : integer ? SHARD_OUT_INTEGER : number ? SHARD_OUT_NUMBER : SHARD_OUT_STRING;
}

static int is_param(const shard_campaign *c, const char *name) {
  for (size_t i = 0; c && i < shard_campaign_n_params(c); ++i)
    if (strcmp(shard_campaign_param(c, i), name) == 0) return 1;
  return 0;
}

/* the field of a campaign.csv column (also the group columns of the derived tables) */
static shard_out_field column_field(fields *fs, const shard_campaign *c, const shard_table *t, size_t k) {
  const char *name = shard_table_col_name(t, k);
  const shard_registry *reg = c ? shard_campaign_registry(c) : fs->reg;
  const shard_out_field *f = shard_out_find(&shard_out_campaign_runs, name, ~0u);
  if (f) return *f;
  if (is_param(c, name) || (!c && !shard_models_find_summary(reg, name))) {
    const char *unit = "", *doc = NULL;
    const int known = case_key(name, reg, &unit, &doc);
    return (shard_out_field){name, column_type(t, k), known ? unit : "", 0, NULL,
                             known ? keep(fs, "case key %s (swept or derived): %s", name, doc)
                                   : keep(fs, "case key %s (swept or derived; see the plugin's parameters)", name)};
  }
  if ((f = shard_models_find_summary(reg, name))) return *f;
  return (shard_out_field){name, column_type(t, k), "", 0, NULL, "(not a documented column)"};
}

/* the fields of statistics.csv: group columns, n, failed, C.n, C.mean ... */
static int statistics_fields(fields *fs, const shard_campaign *c, const shard_table *runs, const shard_table *st) {
  int rc = SHARD_OK;
  for (size_t k = 0; rc == SHARD_OK && k < shard_table_n_cols(st); ++k) {
    const char *name = keep(fs, "%s", shard_table_col_name(st, k)); /* st is gone when the package is written */
    const shard_out_field *f = shard_out_find(&shard_out_statistics, name, ~0u);
    if (strcmp(name, "index") == 0) continue; /* not written */
    if (f) {
      rc = add(fs, *f);
      continue;
    }
    const char *dot = strrchr(name, '.');
    const char *suffixes[] = {"n", "mean", "std", "ci95", "min", "max"};
    size_t s = 0;
    while (dot && s < 6 && strcmp(dot + 1, suffixes[s]) != 0) ++s;
    const int rk = dot && s < 6 ? shard_table_find_col(runs, keep(fs, "%.*s", (int)(dot - name), name)) : -1;
    if (rk < 0) { /* a group column */
      const int gk = shard_table_find_col(runs, name);
      rc = add(fs, gk >= 0 ? column_field(fs, c, runs, (size_t)gk)
                           : (shard_out_field){name, SHARD_OUT_STRING, "", 0, NULL, "(not a documented column)"});
      continue;
    }
    const shard_out_field base = column_field(fs, c, runs, (size_t)rk);
    const shard_out_field *pattern = shard_out_find(&shard_out_statistics, keep(fs, "C.%s", suffixes[s]), ~0u);
    rc = add(fs, (shard_out_field){name, pattern->type, s == 0 ? "" : base.unit, 0, NULL,
                                   keep(fs, "%s of %s [%s]: %s", pattern->description, base.name,
                                        *base.unit ? base.unit : "-", base.description)});
  }
  return rc;
}

int shard_campaign_write_package(const shard_campaign *c, const shard_registry *reg, const shard_table *t,
                                 const char *dir, shard_msg *msg) {
  fields fs = {.reg = reg};
  shard_out_resource res[3];
  size_t nres = 0, first[3] = {0}, count[3] = {0};
  int rc = SHARD_OK;
  /* campaign.csv */
  for (size_t k = 0; rc == SHARD_OK && k < shard_table_n_cols(t); ++k) rc = add(&fs, column_field(&fs, c, t, k));
  count[0] = fs.n;
  res[nres++] = (shard_out_resource){"campaign.csv", shard_out_campaign_runs.title,
                                     shard_out_campaign_runs.description, NULL, 0};
  /* statistics.csv */
  const shard_campaign_statistics *s = c ? shard_campaign_stats(c) : NULL;
  shard_table *st = NULL;
  if (rc == SHARD_OK && s && shard_campaign_statistics_table(c, t, &st, msg) == SHARD_OK) {
    first[nres] = fs.n;
    rc = statistics_fields(&fs, c, t, st);
    count[nres] = fs.n - first[nres];
    res[nres++] = (shard_out_resource){"statistics.csv", shard_out_statistics.title,
                                       keep(&fs, "%s C.mean, C.std, C.ci95, C.min, C.max (and C.n).",
                                            shard_out_statistics.description),
                                       NULL, 0};
  }
  shard_table_destroy(st);
  /* the pooled fragment sizes, when written */
  char path[4200];
  snprintf(path, sizeof path, "%s/fragment_sizes.csv", dir);
  if (rc == SHARD_OK && s && access(path, R_OK) == 0) {
    first[nres] = fs.n;
    for (size_t g = 0; rc == SHARD_OK && g < s->n_group; ++g) {
      const int k = shard_table_find_col(t, s->group[g]);
      if (k >= 0) rc = add(&fs, column_field(&fs, c, t, (size_t)k));
    }
    for (size_t i = 0; rc == SHARD_OK && i < shard_out_pooled_sizes.n_fields; ++i)
      rc = add(&fs, shard_out_pooled_sizes.fields[i]);
    count[nres] = fs.n - first[nres];
    res[nres++] = (shard_out_resource){"fragment_sizes.csv", shard_out_pooled_sizes.title,
                                       shard_out_pooled_sizes.description, NULL, 0};
  }
  if (rc == SHARD_OK && !(fs.ptrs = calloc(fs.n + 1, sizeof *fs.ptrs))) rc = SHARD_ERR_NOMEM;
  if (rc != SHARD_OK) {
    fields_free(&fs);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "datapackage.json: out of memory");
  }
  for (size_t i = 0; i < fs.n; ++i) fs.ptrs[i] = &fs.items[i];
  for (size_t r = 0; r < nres; ++r) res[r].fields = fs.ptrs + first[r], res[r].n_fields = count[r];
  rc = shard_out_write_package(dir, "shard-campaign",
                               c ? keep(&fs, "the tables of campaign %s (see docs/outputs.md)", shard_campaign_name(c))
                                 : "the tables of a shard campaign (see docs/outputs.md)",
                               res, nres, msg);
  fields_free(&fs);
  return rc;
}
