/* tests: the output files follow their tables (outputs.h): CSV headers and
 * rows, every summary.yaml key documented and every documented key written,
 * missing values empty or ~ (never -1), datapackage.json naming the columns
 * of the CSVs beside it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_runner.h"
#include "io/outputs.h"
#include "line_outputs.h"
#include "loader/registry.h"
#include "model/models.h"
#include "run_helpers.h"

/* a history: the run's columns, then the line model's */
static const shard_out_table *const HISTORY[] = {&shard_out_history, &shard_line_history};
#define ONE(t) ((const shard_out_table *const[]){t}), 1
#define HIST HISTORY, 2

/* ---- helpers -------------------------------------------------------------------- */

/* the header a run with these flags writes, from the tables (in turn) */
static void expected_header(const shard_out_table *const *t, size_t nt, unsigned flags, char *out, size_t n) {
  size_t k = 0;
  out[0] = '\0';
  for (size_t j = 0; j < nt; ++j)
    for (size_t i = 0; i < t[j]->n_fields; ++i)
      if (shard_out_writes(&t[j]->fields[i], flags))
        k += (size_t)snprintf(out + k, n - k, "%s%s", k ? "," : "", t[j]->fields[i].name);
}

static int count_fields(const char *line, size_t len) {
  int n = 1;
  for (size_t i = 0; i < len; ++i) n += line[i] == ',';
  return n;
}

/* dir/name: the header is the table's, every row has as many fields, no
 * field is "nan", "inf" or "-nan"; returns the rows */
static int check_csv(const char *dir, const char *name, const shard_out_table *const *t, size_t nt, unsigned flags) {
  char *text = rh_read_file(dir, name, NULL);
  CU_CHECK_MSG(text != NULL, "%s/%s missing", dir, name);
  if (!text) return -1;
  char want[4096];
  expected_header(t, nt, flags, want, sizeof want);
  const char *eol = strchr(text, '\n');
  CU_ASSERT_PTR_NOT_NULL_FATAL(eol);
  CU_CHECK_MSG(strlen(want) == (size_t)(eol - text) && !strncmp(text, want, strlen(want)),
               "%.40s header\n  got:  %.*s\n  want: %.400s", name, (int)(eol - text > 400 ? 400 : eol - text), text, want);
  const int nf = count_fields(want, strlen(want));
  int rows = 0, bad = 0;
  for (const char *line = eol + 1; *line;) {
    const char *e = strchr(line, '\n');
    const size_t len = e ? (size_t)(e - line) : strlen(line);
    if (count_fields(line, len) != nf && !bad++) CU_FAIL("a row with another number of fields than the header");
    for (const char *p = line; p < line + len; ++p)
      if ((p == line || p[-1] == ',') && (!strncmp(p, "nan", 3) || !strncmp(p, "-nan", 4) || !strncmp(p, "inf", 3) ||
                                          !strncmp(p, "-inf", 4)) &&
          !bad++)
        CU_FAIL("a non-finite number instead of an empty field");
    ++rows;
    line = e ? e + 1 : line + len;
  }
  free(text);
  return rows;
}

/* field `col` of row `row` (1: the first after the header) of a CSV text, "?" if absent */
static const char *field_of(const char *csv, int row, const char *col) {
  static char out[128];
  const char *eol = strchr(csv, '\n');
  int k = -1, i = 0;
  for (const char *p = csv; p && p < eol; ++i) {
    const size_t len = strcspn(p, ",\n");
    if (len == strlen(col) && !strncmp(p, col, len)) k = i;
    p = p[len] == ',' ? p + len + 1 : NULL;
  }
  const char *line = csv;
  for (int r = 0; r < row && line; ++r) line = strchr(line, '\n'), line = line ? line + 1 : NULL;
  if (k < 0 || !line) return "?";
  for (i = 0; i < k && line; ++i) line = strchr(line, ','), line = line ? line + 1 : NULL;
  if (!line) return "?";
  snprintf(out, sizeof out, "%.*s", (int)strcspn(line, ",\n"), line);
  return out;
}

/* The keys of a summary.yaml flattened with dots (indentation: 2 per level),
 * with their raw values; n returned. */
typedef struct kv {
  char key[160];
  char value[160];
} kv;

static int summary_keys(const char *dir, kv *out, int max) {
  char path[1024], line[1024], sec[3][64] = {"", "", ""};
  snprintf(path, sizeof path, "%s/summary.yaml", dir);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int n = 0;
  while (fgets(line, sizeof line, f) && n < max) {
    int ind = 0;
    while (line[ind] == ' ') ++ind;
    const int depth = ind / 2;
    char *colon = strchr(line + ind, ':');
    if (!colon || depth > 2) continue;
    *colon = '\0';
    char *v = colon + 1;
    while (*v == ' ') ++v;
    v[strcspn(v, "\n")] = '\0';
    if (!*v) { /* a section */
      snprintf(sec[depth], sizeof sec[depth], "%.60s", line + ind);
      continue;
    }
    char key[160] = "";
    size_t k = 0;
    for (int d = 0; d < depth; ++d) k += (size_t)snprintf(key + k, sizeof key - k, "%.60s.", sec[d]);
    snprintf(key + k, sizeof key - k, "%.60s", line + ind);
    snprintf(out[n].key, sizeof out[n].key, "%s", key);
    snprintf(out[n].value, sizeof out[n].value, "%s", v);
    ++n;
  }
  fclose(f);
  return n;
}

static const char *value_of(const kv *k, int n, const char *key) {
  for (int i = 0; i < n; ++i)
    if (!strcmp(k[i].key, key)) return k[i].value;
  return NULL;
}

/* every key written is documented for these flags, every documented key
 * (not marked "sometimes") is written, and no value is -1, nan or inf */
static void check_summary(const char *dir, unsigned flags) {
  kv keys[256];
  const int n = summary_keys(dir, keys, 256);
  CU_ASSERT_FATAL(n > 10);
  for (int i = 0; i < n; ++i) {
    const shard_out_field *fd = shard_out_find(&shard_out_summary, keys[i].key, flags);
    if (!fd) fd = shard_out_find(&shard_line_summary, keys[i].key, flags);
    CU_CHECK_MSG(fd != NULL, "%.300s/summary.yaml: key '%.100s' is not in the summary table for this run", dir,
                 keys[i].key);
    CU_CHECK_MSG(strcmp(keys[i].value, "-1") && strcmp(keys[i].value, "-1.0") && !strstr(keys[i].value, "nan") &&
                     !strstr(keys[i].value, "inf"),
                 "%.300s: %.100s: %.100s (missing values are ~)", dir, keys[i].key, keys[i].value);
  }
  const shard_out_table *tables[] = {&shard_out_summary, &shard_line_summary};
  for (size_t j = 0; j < 2; ++j) {
    for (size_t i = 0; i < tables[j]->n_fields; ++i) {
      const shard_out_field *fd = &tables[j]->fields[i];
      if (!shard_out_writes(fd, flags) || (fd->when & SHARD_OUT_SOMETIMES)) continue;
      CU_CHECK_MSG(value_of(keys, n, fd->name) != NULL, "%s/summary.yaml: documented key '%s' not written", dir,
                   fd->name);
    }
  }
}

/* the field names of resource `path` in dir/datapackage.json, comma-joined */
static int package_fields(const char *dir, const char *path, char *out, size_t n) {
  char *text = rh_read_file(dir, "datapackage.json", NULL);
  if (!text) return 0;
  char key[300];
  snprintf(key, sizeof key, "\"path\": \"%s\"", path);
  const char *p = strstr(text, key);
  size_t k = 0;
  out[0] = '\0';
  if (p) {
    const char *end = strstr(p, "\"path\": ");
    end = end ? strstr(end + 1, "\"path\": ") : NULL; /* the next resource */
    for (const char *q = p; (q = strstr(q, "{\"name\": \"")) && (!end || q < end); ++q) {
      q += 10;
      const size_t len = strcspn(q, "\"");
      k += (size_t)snprintf(out + k, n - k, "%s%.*s", k ? "," : "", (int)len, q);
    }
  }
  free(text);
  return p != NULL;
}

static void check_package(const char *dir, const shard_out_table *const *t, size_t nt, unsigned flags) {
  char got[4096], want[4096];
  CU_CHECK_MSG(package_fields(dir, t[0]->file, got, sizeof got), "%s/datapackage.json has no resource %s", dir,
               t[0]->file);
  expected_header(t, nt, flags, want, sizeof want);
  CU_CHECK_MSG(!strcmp(got, want), "%.200s: datapackage.json fields of %.40s\n  got:  %.300s\n  want: %.300s", dir,
               t[0]->file, got, want);
}

/* ---- tests ---------------------------------------------------------------------- */

static void test_outputs_particle_run(void) {
  char out[512];
  const char *sets[] = {"time.end=0.5"};
  CU_ASSERT_EQUAL_FATAL(rh_run("cases/paper/ball_e1", "outputs", sets, 1, out, sizeof out, NULL, 0), 0);
  const unsigned flags = LINE_OUT_PARTICLE | LINE_OUT_REF_BALL;
  CU_ASSERT(check_csv(out, "history.csv", HIST, flags) > 10);
  check_summary(out, flags);
  check_package(out, HIST, flags);
  char got[4096];
  CU_ASSERT(!package_fields(out, "fragments.csv", got, sizeof got)); /* no fracture: no fragment files */
  /* e = 1: the exact ball never comes to rest: no Zeno time, `~` (formerly inf) */
  kv keys[256];
  const int n = summary_keys(out, keys, 256);
  CU_ASSERT_STRING_EQUAL(value_of(keys, n, "reference.zeno_time"), "~");
}

/* the impacting bar stopped before the rebound window (t_c + t_b, t_c + 4 t_b]:
 * eta_u and eta_v do not exist: ~ (formerly -1) */
static void test_outputs_bar_reference_missing_errors(void) {
  char out[512];
  const char *sets[] = {"time.end=2.54e-4 / 5.0 + 0.5 * t_b"};
  CU_ASSERT_EQUAL_FATAL(rh_run("cases/paper/bar_impact_e0", "outputs_short", sets, 1, out, sizeof out, NULL, 0), 0);
  const unsigned flags = LINE_OUT_BAR | LINE_OUT_REF_BAR;
  CU_ASSERT(check_csv(out, "history.csv", HIST, flags) > 10);
  check_summary(out, flags);
  check_package(out, HIST, flags);
  kv keys[256];
  const int n = summary_keys(out, keys, 256);
  CU_ASSERT_STRING_EQUAL(value_of(keys, n, "reference.eta_u"), "~");
  CU_ASSERT_STRING_EQUAL(value_of(keys, n, "reference.eta_v"), "~");
  CU_ASSERT(strtod(value_of(keys, n, "reference.eta_u_contact"), NULL) > 0);
  /* the whole run: the windows are reached, the errors are numbers */
  CU_ASSERT_EQUAL_FATAL(rh_run("cases/paper/bar_impact_e0", "outputs_full", NULL, 0, out, sizeof out, NULL, 0), 0);
  const int m = summary_keys(out, keys, 256);
  const double eu = strtod(value_of(keys, m, "reference.eta_u"), NULL);
  const double ev = strtod(value_of(keys, m, "reference.eta_v"), NULL);
  CU_CHECK_MSG(eu > 0 && eu < 0.1 && ev > 0 && ev < 0.5, "eta_u %g eta_v %g", eu, ev);
  check_summary(out, flags);
  /* the loop's CPU time: positive, at most its wall time (one thread; 10 ms for the clocks' grain),
   * and per step the loop's over the steps */
  const double cpu = strtod(value_of(keys, m, "cpu_time.loop"), NULL);
  const double wall = strtod(value_of(keys, m, "wall_time.loop"), NULL);
  const double cps = strtod(value_of(keys, m, "cpu_time.per_step"), NULL);
  const double steps = strtod(value_of(keys, m, "steps"), NULL);
  CU_CHECK_MSG(cpu > 0 && cpu <= wall + 0.01, "cpu_time.loop %g, wall_time.loop %g", cpu, wall);
  CU_CHECK_MSG(steps > 0 && fabs(cps * steps - cpu) <= 1e-6 * cpu + 1e-6, "cpu_time.per_step %g x %g steps, loop %g",
               cps, steps, cpu);
  /* a bar that starts on the wall (gap 0) and stops in contact: u_ref = 0 at
   * every step, so no relative error exists: ~ (formerly num / 1e-300, ~1e291) */
  const char *on_wall[] = {"time.end=1e-9"};
  CU_ASSERT_EQUAL_FATAL(rh_run("cases/paper/damaged_bar", "outputs_on_wall", on_wall, 1, out, sizeof out, NULL, 0), 0);
  const int w = summary_keys(out, keys, 256);
  CU_ASSERT_STRING_EQUAL(value_of(keys, w, "reference.type"), "bar_impact");
  CU_ASSERT_STRING_EQUAL(value_of(keys, w, "reference.eta"), "~");
}

/* a bar without a wall: no contact node, u_contact and v_contact empty
 * (formerly "nan"), and no reference */
static void test_outputs_bar_without_contact_node(void) {
  char out[512];
  const char *sets[] = {"time.end=0.2 * t0", "output.every=10", "model.initial.strain=0"}; /* unstressed: no insertion yet */
  CU_ASSERT_EQUAL_FATAL(rh_run("tests/cases/fracture/ring_small", "outputs_short", sets, 3, out, sizeof out, NULL, 0),
                        0);
  const unsigned flags = LINE_OUT_BAR | SHARD_OUT_FRACTURE | SHARD_OUT_LOADING | SHARD_OUT_STOP;
  CU_ASSERT(check_csv(out, "history.csv", HIST, flags) > 1);
  char *h = rh_read_file(out, "history.csv", NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(h);
  CU_ASSERT_STRING_EQUAL(field_of(h, 1, "u_contact"), "");
  CU_ASSERT_STRING_EQUAL(field_of(h, 1, "v_contact"), "");
  CU_ASSERT_STRING_EQUAL(field_of(h, 1, "force_contact"), "0");
  free(h);
  check_summary(out, flags);
  /* no insertion yet: the time of the step with the most insertions does not exist */
  kv keys[256];
  const int n = summary_keys(out, keys, 256);
  CU_ASSERT_STRING_EQUAL(value_of(keys, n, "fracture.max_step_insertions"), "0");
  CU_ASSERT_STRING_EQUAL(value_of(keys, n, "fracture.max_step_insertions_time"), "~");
  CU_ASSERT_STRING_EQUAL(value_of(keys, n, "loading.release_time"), "~");
}

static void test_outputs_fracture_run(void) {
  char out[512];
  CU_ASSERT_EQUAL_FATAL(rh_run("tests/cases/fracture/ring_small", "outputs", NULL, 0, out, sizeof out, NULL, 0), 0);
  const unsigned flags = LINE_OUT_BAR | SHARD_OUT_FRACTURE | SHARD_OUT_LOADING | SHARD_OUT_STOP;
  CU_ASSERT(check_csv(out, "history.csv", HIST, flags) > 10);
  const int nfrag = check_csv(out, "fragments.csv", ONE(&shard_line_fragments), flags);
  CU_ASSERT(nfrag > 1);
  CU_ASSERT_EQUAL(check_csv(out, "fragment_sizes.csv", ONE(&shard_line_fragment_sizes), flags), nfrag);
  CU_ASSERT(check_csv(out, "fragment_histogram.csv", ONE(&shard_line_fragment_histogram), flags) > 1);
  CU_ASSERT(check_csv(out, "interfaces.csv", ONE(&shard_line_interfaces), flags) >= nfrag - 1);
  check_summary(out, flags);
  check_package(out, HIST, flags);
  check_package(out, ONE(&shard_line_fragments), flags);
  check_package(out, ONE(&shard_line_fragment_sizes), flags);
  check_package(out, ONE(&shard_line_fragment_histogram), flags);
  check_package(out, ONE(&shard_line_interfaces), flags);
  kv keys[256];
  const int n = summary_keys(out, keys, 256);
  CU_ASSERT(strtod(value_of(keys, n, "fracture.max_step_insertions_time"), NULL) > 0);
  CU_ASSERT(strtod(value_of(keys, n, "loading.release_time"), NULL) > 0);
}

/* every field of every table has a unit word and a description, and the
 * generated Markdown lists each of them */
static void test_outputs_tables_documented(void) {
  const shard_out_table *all[] = {&shard_out_history,    &shard_line_history,       &shard_line_fragments,
                                  &shard_line_fragment_sizes, &shard_line_fragment_histogram, &shard_line_interfaces,
                                  &shard_line_probes,    &shard_out_summary,    &shard_line_summary,       &shard_out_campaign_runs,
                                  &shard_out_statistics, &shard_out_pooled_sizes};
  char *md = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&md, &len);
  /* the model plugins of the build, as `shard schema outputs` finds them */
  shard_msg msg = {{0}};
  shard_registry *reg = NULL;
  CU_ASSERT_EQUAL_FATAL(shard_registry_create(&reg, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(shard_registry_load_dir(reg, SHARD_PLUGIN_DIR, &msg), SHARD_OK);
  shard_out_model_doc models[8];
  const size_t nm = shard_models_docs(reg, models, 8);
  CU_ASSERT_EQUAL_FATAL(nm, 3); /* particle and bar share their tables; the chain and tri2d have their own */
  CU_ASSERT_STRING_EQUAL(models[0].names, "particle, bar");
  CU_ASSERT_STRING_EQUAL(models[1].names, "chain");
  CU_ASSERT_STRING_EQUAL(models[2].names, "tri2d");
  /* the plugin's copy of the tables this suite links */
  CU_ASSERT(models[0].history->n_fields == shard_line_history.n_fields &&
            strcmp(models[0].history->description, shard_line_history.description) == 0 &&
            models[0].summary->n_fields == shard_line_summary.n_fields && models[0].n_files == 5);
  CU_ASSERT_EQUAL(shard_out_write_markdown(f, models, nm), SHARD_OK);
  fclose(f);
  const shard_out_table *tabs[32];
  size_t nt = 0;
  for (size_t t = 0; t < sizeof all / sizeof all[0]; ++t) tabs[nt++] = all[t];
  tabs[nt++] = models[1].history, tabs[nt++] = models[1].summary; /* the chain's */
  tabs[nt++] = models[2].history, tabs[nt++] = models[2].summary; /* tri2d's */
  for (size_t t = 0; t < nt; ++t)
    for (size_t i = 0; i < tabs[t]->n_fields; ++i) {
      const shard_out_field *fd = &tabs[t]->fields[i];
      CU_CHECK_MSG(fd->unit && fd->description && strlen(fd->description) > 3, "%s: %s", tabs[t]->file, fd->name);
      char row[256];
      snprintf(row, sizeof row, "| `%s` | ", fd->name);
      CU_CHECK_MSG(strstr(md, row) != NULL, "the Markdown has no row for %s: %s", tabs[t]->file, fd->name);
    }
  free(md);
  shard_registry_destroy(reg); /* the chain's and tri2d's tables live in their plugins: used up to here */
}

static const cu_test_def tests[] = {
    {"test_outputs_particle_run", test_outputs_particle_run},
    {"test_outputs_bar_reference_missing_errors", test_outputs_bar_reference_missing_errors},
    {"test_outputs_bar_without_contact_node", test_outputs_bar_without_contact_node},
    {"test_outputs_fracture_run", test_outputs_fracture_run},
    {"test_outputs_tables_documented", test_outputs_tables_documented},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "outputs", tests); }
