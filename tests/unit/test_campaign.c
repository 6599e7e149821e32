/* tests: campaign files (sweep expansion, ranges, derived values, strict
 * validation with exact messages, runs validated as cases), the tidy table
 * (RFC 4180 in and out, summaries flattened, slices merged) and the schema. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign.h"
#include "cu_runner.h"

static char tmpdir[256];

static const char *tmp_path(const char *name) {
  static char buf[8][512];
  static int k = 0;
  k = (k + 1) % 8;
  if (!tmpdir[0]) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/shard-test-campaign-XXXXXX");
    if (!mkdtemp(tmpdir)) return NULL;
  }
  snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
  return buf[k];
}

static const char *write_file(const char *name, const char *text) {
  const char *p = tmp_path(name);
  FILE *f = fopen(p, "w");
  if (!f) return p;
  fputs(text, f);
  fclose(f);
  return p;
}

static const char *base_case =
    "name: tiny\n"
    "model: {type: particle, mass: 1.0, position: 1.0}\n"
    "integrator: {plugin: explicit_newmark}\n"
    "contact:\n"
    "  force: {plugin: penalty, stiffness: 1e6}\n"
    "time: {end: 0.01, dt: 1e-3}\n";

/* Load a campaign from text (base.yaml beside it); the first error after
 * sorting, or "" when it loads. */
static int load_text(const char *text, const shard_registry *reg, shard_campaign **out, char *first, size_t n) {
  write_file("base.yaml", base_case);
  const char *p = write_file("c.yaml", text);
  shard_diag *d = shard_diag_create();
  int rc = shard_campaign_load(p, reg, out, d);
  shard_diag_sort(d);
  snprintf(first, n, "%s", shard_diag_first(d) ? shard_diag_first(d) : "");
  if (rc != SHARD_OK && shard_diag_count(d) > 0) shard_diag_print(d, stderr);
  shard_diag_destroy(d);
  return rc;
}

/* the message without the directory of the temporary file */
static const char *tail(const char *msg) {
  const char *s = strstr(msg, "c.yaml:");
  return s ? s : msg;
}

static void test_campaign_product_and_zip(void) {
  shard_campaign *c = NULL;
  char first[1024];
  int rc = load_text("base: base.yaml\n"
                     "set: {output.every: 5}\n"
                     "sweep:\n"
                     "  integrator.plugin: [nsn, cd_lagrange]\n"
                     "  zip: {model.mass: [1, 2, 3], var.k: [10, 20, 30]}\n",
                     NULL, &c, first, sizeof first);
  CU_CHECK_MSG(rc == SHARD_OK, "load: %.400s", first);
  if (!c) return;
  CU_ASSERT_EQUAL(shard_campaign_n_runs(c), 6);
  CU_ASSERT_EQUAL(shard_campaign_n_params(c), 3);
  CU_ASSERT_STRING_EQUAL(shard_campaign_param(c, 0), "integrator.plugin");
  CU_ASSERT_STRING_EQUAL(shard_campaign_param(c, 1), "model.mass");
  CU_ASSERT_STRING_EQUAL(shard_campaign_param(c, 2), "var.k");
  /* the first axis varies slowest; zipped keys move together */
  const shard_campaign_run *r4 = shard_campaign_run_at(c, 4);
  CU_ASSERT_STRING_EQUAL(r4->values[0], "cd_lagrange");
  CU_ASSERT_STRING_EQUAL(r4->values[1], "2");
  CU_ASSERT_STRING_EQUAL(r4->values[2], "20");
  /* fixed first, then the swept keys; var.* are not passed to the run */
  CU_ASSERT_EQUAL(r4->n_sets, 3);
  CU_ASSERT_STRING_EQUAL(r4->sets[0], "output.every=5");
  CU_ASSERT_STRING_EQUAL(r4->sets[1], "integrator.plugin=cd_lagrange");
  CU_ASSERT_STRING_EQUAL(r4->sets[2], "model.mass=2");
  CU_ASSERT_STRING_EQUAL(shard_campaign_name(c), "c");
  shard_campaign_destroy(c);
}

static void test_campaign_ranges(void) {
  shard_campaign *c = NULL;
  char first[1024];
  int rc = load_text("base: base.yaml\n"
                     "sweep:\n"
                     "  model.elements: {geomspace: [1, 5000, 50], integer: floor}\n"
                     "  time.dt: {logspace: [-6, -1, 50]}\n"
                     "  model.mass: {linspace: [0.5, 2, 4]}\n",
                     NULL, &c, first, sizeof first);
  CU_CHECK_MSG(rc == SHARD_OK, "load: %.400s", first);
  if (!c) return;
  /* numpy: len(unique(int(geomspace(1, 5000, 50)))) == 44 */
  CU_ASSERT_EQUAL(shard_campaign_n_runs(c), 44 * 50 * 4);
  const size_t per_mesh = 50 * 4;
  static const char *const meshes[] = {"1", "2", "3", "4", "5", "6", "8", "9", "11", "13", "16"};
  for (size_t i = 0; i < sizeof meshes / sizeof meshes[0]; ++i)
    CU_ASSERT_STRING_EQUAL(shard_campaign_run_at(c, i * per_mesh)->values[0], meshes[i]);
  CU_ASSERT_STRING_EQUAL(shard_campaign_run_at(c, 43 * per_mesh)->values[0], "5000");
  CU_ASSERT_STRING_EQUAL(shard_campaign_run_at(c, 42 * per_mesh)->values[0], "4202");
  /* logspace: shortest round-trip text */
  CU_ASSERT_STRING_EQUAL(shard_campaign_run_at(c, 0)->values[1], "1e-06");
  CU_ASSERT_STRING_EQUAL(shard_campaign_run_at(c, 49 * 4)->values[1], "0.1");
  double dt1 = strtod(shard_campaign_run_at(c, 4)->values[1], NULL);
  CU_NEAR(dt1, pow(10.0, -6.0 + 5.0 / 49.0), 1e-20);
  CU_ASSERT_STRING_EQUAL(shard_campaign_run_at(c, 1)->values[2], "1");
  CU_ASSERT_STRING_EQUAL(shard_campaign_run_at(c, 2)->values[2], "1.5");
  shard_campaign_destroy(c);
}

static void test_campaign_derived(void) {
  shard_campaign *c = NULL;
  char first[1024];
  int rc = load_text("base: base.yaml\n"
                     "sweep:\n"
                     "  var.density: [100, 250]\n"
                     "  time.dt: [1e-3, 2e-3]\n"
                     "derived:\n"
                     "  model.mass: round(density * 0.1)\n"
                     "  time.end: 10 * time_dt + model_mass + index\n",
                     NULL, &c, first, sizeof first);
  CU_CHECK_MSG(rc == SHARD_OK, "load: %.400s", first);
  if (!c) return;
  CU_ASSERT_EQUAL(shard_campaign_n_params(c), 4);
  const shard_campaign_run *r = shard_campaign_run_at(c, 3);
  CU_ASSERT_STRING_EQUAL(r->values[0], "250");
  CU_ASSERT_STRING_EQUAL(r->values[2], "25");
  CU_ASSERT_STRING_EQUAL(r->values[3], "28.02"); /* 10 * 2e-3 + 25 + 3 */
  CU_ASSERT_EQUAL(r->n_sets, 3);
  CU_ASSERT_STRING_EQUAL(r->sets[1], "model.mass=25");
  CU_ASSERT_STRING_EQUAL(r->sets[2], "time.end=28.02");
  shard_campaign_destroy(c);
}

typedef struct bad_file {
  const char *text;
  const char *error; /* the first error, exactly */
} bad_file;

static void test_campaign_errors_exact(void) {
  static const bad_file cases[] = {
      {"base: base.yaml\nswep:\n  time.dt: [1]\n",
       "c.yaml:1:1: error: missing required top-level key 'sweep'"},
      {"base: base.yaml\nsweep: {time.dt: [1]}\nplot: []\n",
       "c.yaml:3:1: error: unknown top-level key 'plot' (did you mean 'plots'?)"},
      {"sweep:\n  time.dt: [1e-3]\n", "c.yaml:1:1: error: missing required top-level key 'base' (a case file) or "
                                      "'case' (an inline case)"},
      {"base: nowhere.yaml\nsweep: {time.dt: [1]}\n", "c.yaml:1:7: error: base case 'nowhere.yaml' not found"},
      {"base: base.yaml\nsweep:\n  time.dt: {logspace: [-6, -1]}\n",
       "c.yaml:3:23: error: 'logspace' needs [start, stop, num], got 2 values"},
      {"base: base.yaml\nsweep:\n  time.dt: {logspce: [-6, -1, 3]}\n",
       "c.yaml:3:13: error: unknown key 'logspce' in 'sweep.time.dt' (did you mean 'logspace'?)"},
      {"base: base.yaml\nsweep:\n  model.elements: {geomspace: [0, 10, 3]}\n",
       "c.yaml:3:31: error: geomspace start and stop must be > 0, got 0 and 10"},
      {"base: base.yaml\nsweep:\n  time.dt: {linspace: [1, 2, 2.5]}\n",
       "c.yaml:3:30: error: linspace num must be an integer in [1, 100000], got 2.5"},
      {"base: base.yaml\nsweep:\n  zip:\n    model.mass: [1, 2]\n    time.dt: [1, 2, 3]\n",
       "c.yaml:5:5: error: zip: 'time.dt' has 3 values but 'model.mass' has 2"},
      {"base: base.yaml\nsweep:\n  time.dt: []\n", "c.yaml:3:12: error: 'sweep.time.dt' is an empty list"},
      {"base: base.yaml\nsweep:\n  Time.dt: [1]\n",
       "c.yaml:3:3: error: invalid parameter path 'Time.dt' (dotted lower_snake keys, as given to --set)"},
      {"base: base.yaml\nset: {time.dt: 1e-3}\nsweep:\n  time.dt: [1]\n",
       "c.yaml:4:3: error: 'time.dt' is both fixed in 'set' (line 2) and swept"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nderived:\n  time.end: 10 * time_dtt\n",
       "c.yaml:5:18: error: 'derived.time.end': unknown name 'time_dtt' (did you mean 'time_dt'?)"},
      {"base: base.yaml\nsweep:\n  integrator.plugin: [nsn]\nderived:\n  time.end: 2 * integrator_plugin\n",
       "c.yaml:5:17: error: 'derived.time.end' in run 0: 'integrator_plugin' is not a number ('nsn')"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\ntimeout: -3\n", "c.yaml:4:10: error: 'timeout' must be > 0 s, got -3"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nplots:\n  - {file: a, x: time.dt, y: eta, series: time.td}\n",
       "c.yaml:5:43: error: plot 'a': series column 'time.td' is not a parameter of this campaign (did you mean "
       "'time.dt'?)"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nplots:\n  - {file: a, x: time.dt, y: eta, logx: yes}\n",
       "c.yaml:5:41: error: 'plots.logx' must be true or false"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nplots:\n  - {file: a, x: time.dt, y: eta, reference: [2 * z]}\n",
       "c.yaml:5:51: error: reference curve: unknown name 'z' (an expression of x)"},
      {"base: base.yaml\ncase: {time: {end: 1}}\nsweep: {time.dt: [1]}\n",
       "c.yaml:2:1: error: 'base' and 'case' are exclusive: give the base case by path or inline, not both"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    shard_campaign *c = NULL;
    char first[1024];
    int rc = load_text(cases[i].text, NULL, &c, first, sizeof first);
    CU_CHECK_MSG(rc == SHARD_ERR_INPUT, "case %zu: expected an error", i);
    CU_CHECK_MSG(strncmp(tail(first), cases[i].error, strlen(cases[i].error)) == 0, "case %zu:\n got  %.400s\n want %.400s",
                 i, tail(first), cases[i].error);
    CU_ASSERT_PTR_NULL(c);
    shard_campaign_destroy(c);
  }
}

static shard_registry *registry(void) {
  shard_registry *reg = NULL;
  shard_msg msg = {{0}};
  if (shard_registry_create(&reg, &msg) != SHARD_OK) return NULL;
  if (shard_registry_load_dir(reg, SHARD_PLUGIN_DIR, &msg) != SHARD_OK) {
    fprintf(stderr, "registry: %s\n", msg.text);
    shard_registry_destroy(reg);
    return NULL;
  }
  return reg;
}

static void test_campaign_bad_run_fails_before_running(void) {
  shard_registry *reg = registry();
  CU_ASSERT_PTR_NOT_NULL_FATAL(reg);
  shard_campaign *c = NULL;
  char first[1024];
  int rc = load_text("base: base.yaml\nsweep:\n  time.dt: [1e-3, -1, 2e-3]\n", reg, &c, first, sizeof first);
  CU_ASSERT_EQUAL(rc, SHARD_ERR_INPUT);
  CU_ASSERT_PTR_NULL(c);
  CU_CHECK_MSG(strcmp(tail(first), "c.yaml:2:1: error: run 1 (time.dt=-1) is not a valid case:") == 0, "got %.400s",
               tail(first));
  /* the valid runs load */
  rc = load_text("base: base.yaml\nsweep:\n  time.dt: [1e-3, 2e-3]\n  integrator.plugin: [explicit_newmark]\n", reg,
                 &c, first, sizeof first);
  CU_CHECK_MSG(rc == SHARD_OK, "load: %.400s", first);
  shard_campaign_destroy(c);
  shard_registry_destroy(reg);
}

static void test_campaign_inline_case_positions(void) {
  shard_registry *reg = registry();
  CU_ASSERT_PTR_NOT_NULL_FATAL(reg);
  shard_campaign *c = NULL;
  char first[1024];
  const char *text = "name: inline\n"
                     "case:\n"
                     "  model: {type: particle, mass: 1.0, position: 1.0, gravty: 9.81}\n"
                     "  integrator: {plugin: explicit_newmark}\n"
                     "  contact: {force: {plugin: penalty, stiffness: 1e6}}\n"
                     "  time: {end: 0.01, dt: 1e-3}\n"
                     "sweep:\n"
                     "  time.dt: [1e-3]\n";
  int rc = load_text(text, reg, &c, first, sizeof first);
  CU_ASSERT_EQUAL(rc, SHARD_ERR_INPUT);
  /* the case's error points into the campaign file, at the key */
  shard_diag *d = shard_diag_create();
  shard_campaign_load(tmp_path("c.yaml"), reg, &c, d);
  shard_diag_sort(d);
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  shard_diag_print(d, m);
  fclose(m);
  CU_CHECK_MSG(buf && strstr(buf, "c.yaml:3:53: error: unknown key 'gravty' in 'model' (did you mean 'gravity'?)"),
               "got:\n%.900s", buf ? buf : "");
  free(buf);
  shard_diag_destroy(d);
  /* and a valid inline case loads, its text keeping the file's positions */
  write_file("c.yaml", "name: inline\n"
                       "case:\n"
                       "  model: {type: particle, mass: 1.0, position: 1.0}\n"
                       "  integrator: {plugin: explicit_newmark}\n"
                       "  contact: {force: {plugin: penalty, stiffness: 1e6}}\n"
                       "  time: {end: 0.01, dt: 1e-3}\n"
                       "sweep:\n"
                       "  time.dt: [1e-3]\n");
  d = shard_diag_create();
  rc = shard_campaign_load(tmp_path("c.yaml"), reg, &c, d);
  CU_ASSERT_EQUAL(rc, SHARD_OK);
  if (c) {
    CU_ASSERT_PTR_NULL(shard_campaign_base(c));
    CU_ASSERT_STRING_EQUAL(shard_campaign_case_text(c), "\n\n  model: {type: particle, mass: 1.0, position: 1.0}\n"
                                                        "  integrator: {plugin: explicit_newmark}\n"
                                                        "  contact: {force: {plugin: penalty, stiffness: 1e6}}\n"
                                                        "  time: {end: 0.01, dt: 1e-3}\n\n\n");
  }
  shard_campaign_destroy(c);
  shard_diag_destroy(d);
  shard_registry_destroy(reg);
}

static void test_campaign_is_campaign(void) {
  CU_ASSERT_EQUAL(shard_campaign_is_campaign(write_file("k1.yaml", "base: a.yaml\nsweep:\n  x: [1]\n")), 1);
  CU_ASSERT_EQUAL(shard_campaign_is_campaign(write_file("k2.yaml", "model:\n  sweep: 1\n")), 0);
  CU_ASSERT_EQUAL(shard_campaign_is_campaign(write_file("k3.yaml", "sweeps: 1\n")), 0);
  CU_ASSERT_EQUAL(shard_campaign_is_campaign(tmp_path("none.yaml")), 0);
}

/* ---- the table ---- */

static char *csv_text(const shard_table *t) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  shard_table_write_csv(t, m);
  fclose(m);
  return buf;
}

static void test_campaign_csv_quoting_roundtrip(void) {
  shard_table *t = shard_table_create();
  int r = shard_table_add_row(t, 7);
  shard_table_set(t, r, "status", "failed");
  shard_table_set(t, r, "message", "a, \"quoted\"\nline");
  shard_table_set(t, r, "x", "1e-3");
  r = shard_table_add_row(t, 2);
  shard_table_set(t, r, "x", " padded");
  char *text = csv_text(t);
  CU_ASSERT_STRING_EQUAL(text, "index,status,message,x\n7,failed,\"a, \"\"quoted\"\"\nline\",1e-3\n2,,,\" padded\"\n");
  free(text);
  shard_msg msg;
  CU_ASSERT_EQUAL(shard_table_write_file(t, tmpdir, "t.csv", &msg), SHARD_OK);
  shard_table *u = NULL;
  CU_ASSERT_EQUAL_FATAL(shard_table_read_csv(tmp_path("t.csv"), &u, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_table_n_rows(u), 2);
  CU_ASSERT_EQUAL(shard_table_n_cols(u), 4);
  CU_ASSERT_STRING_EQUAL(shard_table_get(u, 0, 2), "a, \"quoted\"\nline");
  CU_ASSERT_STRING_EQUAL(shard_table_get(u, 1, 3), " padded");
  CU_ASSERT_EQUAL(shard_table_row_index(u, 1), 2);
  shard_table_sort(u);
  CU_ASSERT_EQUAL(shard_table_row_index(u, 0), 2);
  shard_table_destroy(u);
  shard_table_destroy(t);
  write_file("bad.csv", "index,a\n1,\"open\n");
  CU_ASSERT_EQUAL(shard_table_read_csv(tmp_path("bad.csv"), &u, &msg), SHARD_ERR_INPUT);
  CU_CHECK_MSG(strstr(msg.text, "bad.csv:2: unterminated quoted field") != NULL, "got %.400s", msg.text);
  write_file("bad2.csv", "index,a\n1,2,3\n");
  CU_ASSERT_EQUAL(shard_table_read_csv(tmp_path("bad2.csv"), &u, &msg), SHARD_ERR_INPUT);
  CU_CHECK_MSG(strstr(msg.text, "bad2.csv:2: 3 fields, the header has 2") != NULL, "got %.400s", msg.text);
}

static void test_campaign_summary_flatten(void) {
  const char *p = write_file("summary.yaml", "status: ok\nsteps: 10\ntime:\n  dt: 0.5\nreference:\n  eta: 0.06\n"
                                             "  type: ball\nlist: [1, 2]\nmessage: \"\"\n");
  shard_table *t = shard_table_create();
  int r = shard_table_add_row(t, 0);
  shard_table_column(t, "time.dt");
  shard_msg msg;
  static const char *const skip[] = {"status", "time.dt"};
  CU_ASSERT_EQUAL(shard_table_add_yaml(t, r, p, skip, 2, &msg), SHARD_OK);
  char *text = csv_text(t);
  CU_ASSERT_STRING_EQUAL(text, "index,time.dt,steps,reference.eta,reference.type\n0,,10,0.06,ball\n");
  free(text);
  shard_table_destroy(t);
}

static shard_table *slice(const long *idx, size_t n, const char *extra) {
  shard_table *t = shard_table_create();
  shard_table_column(t, "index");
  shard_table_column(t, "time.dt");
  for (size_t i = 0; i < shard_campaign_n_run_columns; ++i) shard_table_column(t, shard_campaign_run_columns[i]);
  for (size_t i = 0; i < n; ++i) {
    int r = shard_table_add_row(t, idx[i]);
    char v[32];
    snprintf(v, sizeof v, "%ld", idx[i] * 10);
    shard_table_set(t, r, "time.dt", v);
    shard_table_set(t, r, "status", "ok");
    shard_table_set(t, r, "steps", v);
    shard_table_set(t, r, "reference.eta", v);
    if (extra && idx[i] == 3) shard_table_set(t, r, extra, "x");
  }
  return t;
}

static void test_campaign_merge(void) {
  const long a[] = {1, 3}, b[] = {0, 2, 4};
  shard_table *parts[2] = {slice(a, 2, "late.key"), slice(b, 3, NULL)};
  shard_table *m = NULL;
  shard_msg msg;
  CU_ASSERT_EQUAL_FATAL(shard_table_merge(parts, 2, &m, &msg), SHARD_OK);
  char *text = csv_text(m);
  CU_ASSERT_STRING_EQUAL(text, "index,time.dt,status,exit_code,signal,wall_time,host,steps,message,reference.eta,"
                               "late.key\n"
                               "0,0,ok,,,,,0,,0,\n1,10,ok,,,,,10,,10,\n2,20,ok,,,,,20,,20,\n"
                               "3,30,ok,,,,,30,,30,x\n4,40,ok,,,,,40,,40,\n");
  free(text);
  shard_table_destroy(m);
  /* a run in two slices */
  const long c[] = {2};
  shard_table *dup[2] = {parts[1], slice(c, 1, NULL)};
  CU_ASSERT_EQUAL(shard_table_merge(dup, 2, &m, &msg), SHARD_ERR_INPUT);
  CU_ASSERT_STRING_EQUAL(msg.text, "run 2 appears in two tables");
  shard_table_destroy(dup[1]);
  shard_table_destroy(parts[0]);
  shard_table_destroy(parts[1]);
}

static void test_campaign_schema_in_sync(void) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  CU_ASSERT_EQUAL(shard_schema_write_campaign(NULL, m), SHARD_OK);
  fclose(m);
  FILE *f = fopen(SHARD_SOURCE_DIR "/schemas/campaign.schema.json", "rb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  char *file = calloc(len + 2, 1);
  size_t got = fread(file, 1, len + 1, f);
  fclose(f);
  CU_CHECK_MSG(got == len && memcmp(file, buf, len) == 0,
               "schemas/campaign.schema.json is stale: regenerate with `shard schema campaign > "
               "schemas/campaign.schema.json`");
  free(file);
  free(buf);
}

static void cleanup(void) {
  if (!tmpdir[0]) return;
  static const char *const names[] = {"base.yaml", "c.yaml", "k1.yaml", "k2.yaml", "k3.yaml",
                                      "t.csv",     "bad.csv", "bad2.csv", "summary.yaml"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) unlink(tmp_path(names[i]));
  rmdir(tmpdir);
}

static void test_campaign_zz_cleanup(void) { cleanup(); }

static const cu_test_def tests[] = {
    {"test_campaign_product_and_zip", test_campaign_product_and_zip},
    {"test_campaign_ranges", test_campaign_ranges},
    {"test_campaign_derived", test_campaign_derived},
    {"test_campaign_errors_exact", test_campaign_errors_exact},
    {"test_campaign_bad_run_fails_before_running", test_campaign_bad_run_fails_before_running},
    {"test_campaign_inline_case_positions", test_campaign_inline_case_positions},
    {"test_campaign_is_campaign", test_campaign_is_campaign},
    {"test_campaign_csv_quoting_roundtrip", test_campaign_csv_quoting_roundtrip},
    {"test_campaign_summary_flatten", test_campaign_summary_flatten},
    {"test_campaign_merge", test_campaign_merge},
    {"test_campaign_schema_in_sync", test_campaign_schema_in_sync},
    {"test_campaign_zz_cleanup", test_campaign_zz_cleanup},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "campaign", tests); }
