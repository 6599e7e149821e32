/* tests: campaign files (sweep expansion, ranges, derived values, strict
 * validation with exact messages, runs validated as cases), the tidy table
 * (RFC 4180 in and out, summaries flattened, slices merged), statistics
 * across a swept key (statistics.csv, error bars), slope intervals and the
 * schema. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "campaign/campaign.h"
#include "campaign/campaign_exec.h"
#include "campaign/campaign_package.h"
#include "campaign/campaign_plot.h"
#include "campaign/campaign_stats.h"
#include "campaign/campaign_table.h"
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
  CU_ASSERT_FALSE(shard_campaign_has_cost(c));
  CU_ASSERT_EQUAL(r->cost, 0.0);
  shard_campaign_destroy(c);
}

/* `cost` is evaluated per run over the swept and derived values (the run
 * order it gives is tested end to end: tests/e2e/campaign_cost.sh) */
static void test_campaign_cost(void) {
  shard_campaign *c = NULL;
  char first[1024];
  int rc = load_text("base: base.yaml\n"
                     "sweep:\n"
                     "  var.l: [1e-3, 1e-2]\n"
                     "  time.dt: [1e-3, 2e-3]\n"
                     "derived:\n"
                     "  var.elements: round(2e6 * l)\n"
                     "cost: elements / time_dt + index\n",
                     NULL, &c, first, sizeof first);
  CU_CHECK_MSG(rc == SHARD_OK, "load: %.400s", first);
  if (!c) return;
  CU_ASSERT_TRUE(shard_campaign_has_cost(c));
  static const double want[] = {2e6, 1e6 + 1, 2e7 + 2, 1e7 + 3};
  for (size_t i = 0; i < 4; ++i) CU_NEAR(shard_campaign_run_at(c, i)->cost, want[i], 1e-6 * want[i]);
  CU_ASSERT_EQUAL(shard_campaign_run_at(c, 2)->n_sets, 1); /* var.* and cost reach no run */
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
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nstall_timeout: -1\n",
       "c.yaml:4:16: error: 'stall_timeout' must be >= 0 s (0: no watchdog), got -1"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nstall_timeout: [1]\n",
       "c.yaml:4:16: error: 'stall_timeout' must be a number, not a sequence"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\ncost: 2 * time_td\n",
       "c.yaml:4:11: error: 'cost': unknown name 'time_td' (did you mean 'time_dt'?)"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\ncost: [1, 2]\n",
       "c.yaml:4:7: error: 'cost' must be an expression of the run's values (an estimate of its cost), not a "
       "sequence"},
      {"base: base.yaml\nsweep:\n  time.dt: [1, 0]\ncost: log(time_dt)\n",
       "c.yaml:4:7: error: 'cost' in run 1: log(0) is not a finite number"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nplots:\n  - {file: a, x: time.dt, y: reference.eta, series: time.td}\n",
       "c.yaml:5:53: error: plot 'a': series column 'time.td' is not a parameter of this campaign (did you mean "
       "'time.dt'?)"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nplots:\n  - {file: a, x: time.dt, y: reference.eta, logx: yes}\n",
       "c.yaml:5:51: error: 'plots.logx' must be true or false"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nplots:\n  - {file: a, x: time.dt, y: reference.eta, reference: [2 * z]}\n",
       "c.yaml:5:61: error: reference curve: unknown name 'z' (an expression of x)"},
      {"base: base.yaml\ncase: {time: {end: 1}}\nsweep: {time.dt: [1]}\n",
       "c.yaml:2:1: error: 'base' and 'case' are exclusive: give the base case by path or inline, not both"},
      /* statistics: */
      {"base: base.yaml\nsweep:\n  time.dt: [1]\n  model.mass: [1, 2]\nstatistics: {over: model.mas}\n",
       "c.yaml:5:20: error: 'statistics.over': 'model.mas' is not a swept key of this campaign (did you mean "
       "'model.mass'?)"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nderived:\n  model.mass: 2 * time_dt\nstatistics: {over: model.mass}\n",
       "c.yaml:6:20: error: 'statistics.over': 'model.mass' is derived; statistics are taken over a swept key"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nstatistics: {over: time.dt, colums: [a]}\n",
       "c.yaml:4:29: error: unknown key 'colums' in 'statistics' (did you mean 'columns'?)"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nstatistics: {columns: [a]}\n",
       "c.yaml:4:13: error: missing required key 'over' in 'statistics' (the swept key to average over)"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nstatistics: {over: time.dt, columns: [steps, time.dt]}\n",
       "c.yaml:4:46: error: 'statistics.columns': 'time.dt' is a swept key, not a result column"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nstatistics: {over: time.dt, columns: [status]}\n",
       "c.yaml:4:39: error: 'statistics.columns': 'status' is not a numeric result column"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nstatistics: {over: time.dt, columns: [steps, steps]}\n",
       "c.yaml:4:46: error: 'statistics.columns': 'steps' is listed twice"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nstatistics: [time.dt]\n",
       "c.yaml:4:13: error: 'statistics' must be a mapping {over, columns}, not a sequence"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nplots:\n  - {file: a, table: statistics, x: time.dt, y: reference.eta}\n",
       "c.yaml:5:22: error: plot 'a': 'table: statistics' needs a top-level 'statistics' block"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nplots:\n  - {file: a, table: stats, x: time.dt, y: reference.eta}\n",
       "c.yaml:5:22: error: invalid value 'stats' for 'plots.table' (expected one of: campaign, statistics)"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\n  model.mass: [1]\nstatistics: {over: model.mass}\nplots:\n"
       "  - {file: a, table: statistics, x: time.dt, y: steps.mean, series: model.mass}\n",
       "c.yaml:7:69: error: plot 'a': series column 'model.mass' is averaged over in statistics.csv (table: "
       "statistics)"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nplots:\n  - {file: a, x: time.dt, y: [energy.kinetic, energy.elastic], yerror: energy.penalty}\n",
       "c.yaml:5:72: error: plot 'a': 'yerror' needs one column per 'y' column (2), got 1"},
      {"base: base.yaml\nsweep:\n  time.dt: [1]\nplots:\n  - {file: a, data: history, x: t, y: u, yerror: du}\n",
       "c.yaml:5:50: error: plot 'a': 'yerror' needs table data, not 'data: history'"},
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

static void test_campaign_null_removes(void) {
  /* null in set or in a swept list is passed as key=null: the run removes the key */
  shard_campaign *c = NULL;
  char first[1024];
  int rc = load_text("base: base.yaml\n"
                     "set: {contact.force.stiffness: ~}\n"
                     "sweep:\n"
                     "  zip: {var.scheme: [a, b], contact.force.alpha: [null, 10]}\n",
                     NULL, &c, first, sizeof first);
  CU_CHECK_MSG(rc == SHARD_OK, "load: %.400s", first);
  if (!c) return;
  const shard_campaign_run *r0 = shard_campaign_run_at(c, 0), *r1 = shard_campaign_run_at(c, 1);
  CU_ASSERT_EQUAL(r0->n_sets, 2);
  CU_ASSERT_STRING_EQUAL(r0->sets[0], "contact.force.stiffness=null");
  CU_ASSERT_STRING_EQUAL(r0->sets[1], "contact.force.alpha=null");
  CU_ASSERT_STRING_EQUAL(r0->values[1], "null");
  CU_ASSERT_STRING_EQUAL(r1->sets[1], "contact.force.alpha=10");
  shard_campaign_destroy(c);
  /* an empty value is not a null written out, and a var.* has nothing to remove */
  static const bad_file bad[] = {
      {"base: base.yaml\nset: {time.dt: }\nsweep: {time.end: [1]}\n",
       "c.yaml:2:7: error: 'set.time.dt' must be a scalar value, not an empty value"},
      {"base: base.yaml\nsweep:\n  zip: {var.k: [1, null], time.dt: [1, 2]}\n",
       "c.yaml:3:20: error: 'sweep.var.k' is a variable: it needs a value (null removes a case key, and a variable is not one)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    c = NULL;
    rc = load_text(bad[i].text, NULL, &c, first, sizeof first);
    CU_CHECK_MSG(rc == SHARD_ERR_INPUT, "bad %zu: expected an error", i);
    CU_CHECK_MSG(strncmp(tail(first), bad[i].error, strlen(bad[i].error)) == 0, "bad %zu:\n got  %.400s\n want %.400s", i,
                 tail(first), bad[i].error);
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

/* A run index is digits below SHARD_CAMPAIGN_MAX_RUNS: out of range is an
 * error (not clamped to LONG_MAX), and each row keeps its line */
static void test_campaign_csv_index_range(void) {
  shard_msg msg;
  shard_table *u = NULL;
  static const struct {
    const char *text, *error;
  } bad[] = {
      {"index,a\n0,x\n99999999999999999999,y\n", "i.csv:3: index 99999999999999999999 is out of range (a campaign has "
                                                  "at most 100000 runs)"},
      {"index,a\n100000,x\n", "i.csv:2: index 100000 is out of range (a campaign has at most 100000 runs)"},
      {"index,a\n-1,x\n", "i.csv:2: index '-1' is not a run number"},
      {"index,a\n+3,x\n", "i.csv:2: index '+3' is not a run number"},
      {"index,a\n 3,x\n", "i.csv:2: index ' 3' is not a run number"},
      {"index,a\n3 ,x\n", "i.csv:2: index '3 ' is not a run number"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    write_file("i.csv", bad[i].text);
    CU_ASSERT_EQUAL(shard_table_read_csv(tmp_path("i.csv"), &u, &msg), SHARD_ERR_INPUT);
    CU_CHECK_MSG(strstr(msg.text, bad[i].error) != NULL, "%zu: got '%.300s', expected '%s'", i, msg.text, bad[i].error);
    CU_ASSERT_PTR_NULL(u);
  }
  write_file("i.csv", "index,a\n99999,\"two\nlines\"\n\n4,y\n");
  CU_ASSERT_EQUAL_FATAL(shard_table_read_csv(tmp_path("i.csv"), &u, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_table_n_rows(u), 2);
  CU_ASSERT_EQUAL(shard_table_row_index(u, 0), 99999);
  CU_ASSERT_EQUAL(shard_table_row_line(u, 1), 5);
  shard_table_destroy(u);
}

/* stall_timeout: the default when absent, 0 turns the watchdog off */
static void test_campaign_stall_timeout(void) {
  static const struct {
    const char *key;
    double want;
  } cases[] = {{"", SHARD_CAMPAIGN_STALL_DEFAULT}, {"stall_timeout: 0\n", 0}, {"stall_timeout: 2.5\n", 2.5},
               {"stall_timeout: 2 * 60\n", 120}};
  CU_ASSERT_EQUAL(SHARD_CAMPAIGN_STALL_DEFAULT, 600.0);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char text[256], first[1024];
    snprintf(text, sizeof text, "base: base.yaml\nsweep:\n  time.dt: [1]\n%s", cases[i].key);
    shard_campaign *c = NULL;
    CU_CHECK_MSG(load_text(text, NULL, &c, first, sizeof first) == SHARD_OK, "%zu: %.300s", i, first);
    if (!c) continue;
    CU_NEAR(shard_campaign_stall_timeout(c), cases[i].want, 0.0);
    shard_campaign_destroy(c);
  }
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
  CU_ASSERT_STRING_EQUAL(text, "index,time.dt,status,exit_code,signal,wall_time,host,steps,message,run_dir,"
                               "reference.eta,late.key\n"
                               "0,0,ok,,,,,0,,,0,\n1,10,ok,,,,,10,,,10,\n2,20,ok,,,,,20,,,20,\n"
                               "3,30,ok,,,,,30,,,30,x\n4,40,ok,,,,,40,,,40,\n");
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

/* ---- statistics across a swept key, error bars, slope intervals ---- */

/* The text of a file (NULL when unreadable). */
static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  for (int ch; m && (ch = fgetc(f)) != EOF;) fputc(ch, m);
  if (m) fclose(m);
  fclose(f);
  return buf;
}

/* 1 when the file holds `needle`; else 0, with the file on stderr. */
static int file_contains(const char *path, const char *needle) {
  char *text = read_text(path);
  int ok = text && strstr(text, needle);
  if (!ok) fprintf(stderr, "  %s lacks \"%s\":\n%.800s\n", path, needle, text ? text : "(unreadable)");
  free(text);
  return ok;
}

/* Cell (row, column name) of an unquoted CSV text (row 0: the first after
 * the header); "" when absent. */
static const char *csv_cell(const char *text, size_t row, const char *col) {
  static char cell[256];
  cell[0] = 0;
  const char *line = text;
  int want = -1, k = 0;
  for (const char *p = line; p && *p && *p != '\n'; ++k) { /* header: the column's position */
    size_t w = strcspn(p, ",\n");
    if (strlen(col) == w && strncmp(p, col, w) == 0) want = k;
    p += w;
    if (*p == ',') ++p;
    else break;
  }
  if (want < 0) return cell;
  for (size_t r = 0; r <= row && line; ++r) {
    line = strchr(line, '\n');
    if (line) ++line;
  }
  if (!line || !*line) return cell;
  for (int i = 0; i < want && line; ++i) {
    line += strcspn(line, ",\n");
    line = *line == ',' ? line + 1 : NULL;
  }
  if (line) snprintf(cell, sizeof cell, "%.*s", (int)strcspn(line, ",\n"), line);
  return cell;
}

static double cell_number(const char *text, size_t row, const char *col) {
  const char *s = csv_cell(text, row, col);
  return *s ? strtod(s, NULL) : NAN;
}

/* A campaign run by the shard executable: test_crash crashes run 5 (dt 2e-3,
 * mass 4); the mass plays the seed. Statistics over the mass of the kinetic
 * energy (proportional to the mass) and the step count, checked against
 * mean, std and ci95 computed here from campaign.csv, with the t quantiles
 * in closed form: t_{0.975,1} = tan(0.475 pi), t_{0.975,2} = 0.95 sqrt(2 / 0.0975). */
static void test_campaign_statistics_across_seeds(void) {
  write_file("crash_base.yaml", "name: tiny\n"
                                "model: {type: particle, mass: 1.0, position: 1.0}\n"
                                "integrator: {plugin: test_crash, crash_at: 5}\n"
                                "contact:\n"
                                "  force: {plugin: penalty, stiffness: 1e6}\n"
                                "time: {end: 0.01, dt: 1e-3}\n");
  const char *stats_block = "statistics:\n"
                            "  over: model.mass\n"
                            "  columns: [energy.kinetic, steps]\n"
                            "plots:\n"
                            "  - {file: ek, table: statistics, x: time.dt, y: energy.kinetic.mean, yerror: "
                            "energy.kinetic.ci95}\n"
                            "  - {file: ek_runs, x: time.dt, y: energy.kinetic, series: model.mass}\n";
  char text[2048];
  snprintf(text, sizeof text,
           "base: crash_base.yaml\n"
           "sweep:\n"
           "  time.dt: [1e-3, 2e-3]\n"
           "  model.mass: [1, 1.5, 4]\n"
           "derived:\n"
           "  integrator.run: index\n"
           "%s",
           stats_block);
  const char *path = write_file("stats.yaml", text);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' --plugin-path '%s/crash' campaign '%s' -o '%s' --no-progress >/dev/null 2>&1",
           SHARD_EXE, SHARD_TEST_PLUGIN_DIR, path, tmp_path("stats_out"));
  int st = system(cmd);
  CU_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 1, "campaign exit status %d, expected 1 (run 5 crashes)", st);
  shard_table *t = NULL;
  shard_msg msg = {{0}};
  char table[600];
  snprintf(table, sizeof table, "%s/campaign.csv", tmp_path("stats_out"));
  CU_ASSERT_EQUAL_FATAL(shard_table_read_csv(table, &t, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_table_n_rows(t), 6);
  snprintf(table, sizeof table, "%s/statistics.csv", tmp_path("stats_out"));
  char *stats = read_text(table);
  CU_ASSERT_PTR_NOT_NULL_FATAL(stats);
  const char *header = "time.dt,n,failed,energy.kinetic.mean,energy.kinetic.std,energy.kinetic.ci95,"
                       "energy.kinetic.min,energy.kinetic.max,steps.mean,steps.std,steps.ci95,steps.min,steps.max\n";
  CU_CHECK_MSG(strncmp(stats, header, strlen(header)) == 0, "header: %.300s", stats);
  /* two groups, in table order: dt = 1e-3 (3 ok runs), dt = 2e-3 (2 ok, 1 crashed) */
  CU_ASSERT_STRING_EQUAL(csv_cell(stats, 0, "time.dt"), "1e-3");
  CU_ASSERT_STRING_EQUAL(csv_cell(stats, 1, "time.dt"), "2e-3");
  CU_ASSERT_STRING_EQUAL(csv_cell(stats, 0, "n"), "3");
  CU_ASSERT_STRING_EQUAL(csv_cell(stats, 0, "failed"), "0");
  CU_ASSERT_STRING_EQUAL(csv_cell(stats, 1, "n"), "2");
  CU_ASSERT_STRING_EQUAL(csv_cell(stats, 1, "failed"), "1");
  CU_ASSERT_STRING_EQUAL(csv_cell(stats, 2, "time.dt"), "");
  int ek = shard_table_find_col(t, "energy.kinetic"), stc = shard_table_find_col(t, "status");
  CU_ASSERT_FATAL(ek > 0 && stc > 0);
  const double tq[] = {tan(0.475 * acos(-1.0)), 0.95 * sqrt(2.0 / 0.0975)}; /* t_{0.975,1}, t_{0.975,2} */
  for (size_t g = 0; g < 2; ++g) {
    double x[3], sum = 0, ss = 0, lo = INFINITY, hi = -INFINITY;
    size_t n = 0;
    for (size_t r = 3 * g; r < 3 * g + 3; ++r) {
      if (strcmp(shard_table_get(t, r, (size_t)stc), "ok") != 0) continue;
      x[n] = strtod(shard_table_get(t, r, (size_t)ek), NULL);
      sum += x[n];
      lo = fmin(lo, x[n]);
      hi = fmax(hi, x[n]);
      ++n;
    }
    CU_ASSERT_EQUAL_FATAL(n, 3 - g);
    double mean = sum / (double)n;
    for (size_t i = 0; i < n; ++i) ss += (x[i] - mean) * (x[i] - mean);
    double sd = sqrt(ss / (double)(n - 1)), ci = tq[n - 2] * sd / sqrt((double)n);
    CU_ASSERT(sd > 1e-3); /* the masses scatter the result */
    CU_REL(cell_number(stats, g, "energy.kinetic.mean"), mean, 1e-14);
    CU_REL(cell_number(stats, g, "energy.kinetic.std"), sd, 1e-12);
    CU_REL(cell_number(stats, g, "energy.kinetic.ci95"), ci, 1e-12);
    CU_REL(cell_number(stats, g, "energy.kinetic.min"), lo, 1e-15);
    CU_REL(cell_number(stats, g, "energy.kinetic.max"), hi, 1e-15);
    /* the same steps in every run of a group: no scatter */
    CU_REL(cell_number(stats, g, "steps.mean"), g == 0 ? 10 : 5, 1e-15);
    CU_NEAR(cell_number(stats, g, "steps.ci95"), 0, 0);
  }
  /* the error bars of the statistics plot: mean and ci95 per point */
  char dat[600];
  snprintf(dat, sizeof dat, "%s/plots/ek.dat", tmp_path("stats_out"));
  char *d = read_text(dat);
  double x0 = NAN, y0 = NAN, e0 = NAN, x1 = NAN, y1 = NAN, e1 = NAN;
  CU_ASSERT_FATAL(d && sscanf(d, "# index 0: energy.kinetic.mean\n%lf %lf %lf\n%lf %lf %lf", &x0, &y0, &e0, &x1, &y1,
                              &e1) == 6);
  CU_NEAR(x0, 1e-3, 0);
  CU_REL(y0, cell_number(stats, 0, "energy.kinetic.mean"), 1e-15);
  CU_REL(e0, cell_number(stats, 0, "energy.kinetic.ci95"), 1e-15);
  CU_REL(e1, cell_number(stats, 1, "energy.kinetic.ci95"), 1e-15);
  free(d);
  snprintf(dat, sizeof dat, "%s/plots/ek.gp", tmp_path("stats_out"));
  CU_ASSERT(file_contains(dat, "  data index 0 using 1:2:3 with yerrorlines pointtype 7 pointsize 0.6 title "
                               "\"energy.kinetic.mean\" noenhanced\n"));
  /* a plot without yerror keeps two columns and linespoints */
  snprintf(dat, sizeof dat, "%s/plots/ek_runs.gp", tmp_path("stats_out"));
  CU_ASSERT(file_contains(dat, "  data index 0 using 1:2 with linespoints pointtype 7 pointsize 0.6 title \"1\" "
                               "noenhanced, \\\n"));
  /* without `columns`: every numeric result column, no parameter, no fixed
   * run column, no text (reference.type), no column without a finite number */
  snprintf(text, sizeof text,
           "base: crash_base.yaml\nsweep:\n  time.dt: [1e-3, 2e-3]\n  model.mass: [1, 1.5, 4]\nderived:\n"
           "  integrator.run: index\nstatistics: {over: model.mass}\n");
  shard_campaign *c = NULL;
  shard_diag *dg = shard_diag_create();
  CU_ASSERT_EQUAL_FATAL(shard_campaign_load(write_file("stats2.yaml", text), NULL, &c, dg), SHARD_OK);
  shard_table *s2 = NULL;
  CU_ASSERT_EQUAL(shard_campaign_statistics_table(c, t, &s2, &msg), SHARD_OK);
  if (s2) {
    CU_ASSERT_STRING_EQUAL(shard_table_col_name(s2, 1), "time.dt");
    CU_ASSERT(shard_table_find_col(s2, "steps.mean") > 0);
    CU_ASSERT(shard_table_find_col(s2, "wall_time.ci95") > 0);
    CU_ASSERT(shard_table_find_col(s2, "energy.kinetic.std") > 0);
    CU_ASSERT_EQUAL(shard_table_find_col(s2, "exit_code.mean"), -1);
    CU_ASSERT_EQUAL(shard_table_find_col(s2, "integrator.run.mean"), -1);
    CU_ASSERT_EQUAL(shard_table_find_col(s2, "model.mass.mean"), -1);
    CU_ASSERT_EQUAL(shard_table_find_col(s2, "reference.type.mean"), -1);
    CU_ASSERT_EQUAL(shard_table_find_col(s2, "time.dt_bulk.mean"), -1); /* inf */
  }
  shard_table_destroy(s2);
  shard_campaign_destroy(c);
  /* a listed column no run writes: a typo, refused at load with a suggestion
   * (with the plugins: without them a model's keys cannot be told apart) */
  snprintf(text, sizeof text,
           "base: crash_base.yaml\nsweep:\n  time.dt: [1e-3, 2e-3]\n  model.mass: [1, 1.5, 4]\nderived:\n"
           "  integrator.run: index\nstatistics: {over: model.mass, columns: [energy.kinetik]}\n");
  shard_registry *reg = registry();
  CU_ASSERT_PTR_NOT_NULL_FATAL(reg);
  const int typo_rc = shard_campaign_load(write_file("stats2.yaml", text), reg, &c, dg);
  shard_registry_destroy(reg);
  CU_ASSERT_EQUAL_FATAL(typo_rc, SHARD_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL_FATAL(shard_diag_first(dg));
  CU_CHECK_MSG(strstr(shard_diag_first(dg), ":7:42: error: 'statistics.columns': 'energy.kinetik' is not a numeric "
                                            "column of campaign.csv (did you mean 'energy.kinetic'?)") != NULL,
               "%s", shard_diag_first(dg));
  shard_diag_clear(dg);
  /* a summary key these runs do not write (particles do not fracture): refused when the table is made */
  snprintf(text, sizeof text,
           "base: crash_base.yaml\nsweep:\n  time.dt: [1e-3, 2e-3]\n  model.mass: [1, 1.5, 4]\nderived:\n"
           "  integrator.run: index\nstatistics: {over: model.mass, columns: [fracture.fragments]}\n");
  CU_ASSERT_EQUAL_FATAL(shard_campaign_load(write_file("stats2.yaml", text), NULL, &c, dg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_campaign_statistics_table(c, t, &s2, &msg), SHARD_ERR_INPUT);
  CU_CHECK_MSG(!strncmp(msg.text, "statistics: the table has no column 'fracture.fragments'", 56), "%s", msg.text);
  shard_campaign_destroy(c);
  shard_diag_destroy(dg);
  free(stats);
  shard_table_destroy(t);
}

/* One run's fragment_sizes.csv as a fracture run writes it (sizes only matter). */
static void write_sizes(const char *out, int run, const double *sizes, int n) {
  char path[700];
  snprintf(path, sizeof path, "%s/runs/%04d/fragment_sizes.csv", out, run);
  FILE *f = fopen(path, "w");
  if (!f) return;
  fputs("rank,size,size_over_mean,cumulative_number,cumulative_mass\n", f);
  for (int i = 0; i < n; ++i) fprintf(f, "%d,%.17g,0,0,0\n", i + 1, sizes[i]);
  fclose(f);
}

/* Fragment sizes pooled per statistics group (on the runs of the test
 * above: groups dt = 1e-3 with runs 0-2, dt = 2e-3 with runs 3-4 ok and run
 * 5 crashed): each size over its own run's mean, sorted, crashed runs left
 * out; nothing written when no run has sizes; a malformed file is an error
 * naming its line. */
static void test_campaign_pooled_fragment_sizes(void) {
  const char *out = tmp_path("stats_out");
  char table[600];
  snprintf(table, sizeof table, "%s/campaign.csv", out);
  shard_table *t = NULL;
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL_FATAL(shard_table_read_csv(table, &t, &msg), SHARD_OK);
  shard_campaign *c = NULL;
  shard_diag *dg = shard_diag_create();
  CU_ASSERT_EQUAL_FATAL(shard_campaign_load(tmp_path("stats.yaml"), NULL, &c, dg), SHARD_OK);
  size_t pooled = 99;
  CU_ASSERT_EQUAL(shard_campaign_write_pooled_sizes(c, t, out, &pooled, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(pooled, 0); /* particle runs: no fragment files, nothing written */
  snprintf(table, sizeof table, "%s/fragment_sizes.csv", out);
  CU_ASSERT_EQUAL(access(table, F_OK), -1);
  const double r0[] = {1, 2, 3}, r1[] = {3, 5}, r2[] = {1, 4}, r3[] = {2}, r4[] = {1, 3}, r5[] = {100};
  write_sizes(out, 0, r0, 3), write_sizes(out, 1, r1, 2), write_sizes(out, 2, r2, 2);
  write_sizes(out, 3, r3, 1), write_sizes(out, 4, r4, 2), write_sizes(out, 5, r5, 1);
  CU_ASSERT_EQUAL(shard_campaign_write_pooled_sizes(c, t, out, &pooled, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(pooled, 5);
  char *text = read_text(table);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  const char *header = "time.dt,runs,size,size_over_mean,cumulative_number\n";
  CU_CHECK_MSG(strncmp(text, header, strlen(header)) == 0, "header: %.200s", text);
  const double size[] = {1, 1, 3, 2, 5, 3, 4, 1, 2, 3};
  const double ratio[] = {0.4, 0.5, 0.75, 1, 1.25, 1.5, 1.6, 0.5, 1, 1.5};
  for (size_t r = 0; r < 10; ++r) {
    const int g = r >= 7;
    CU_ASSERT_STRING_EQUAL(csv_cell(text, r, "time.dt"), g ? "2e-3" : "1e-3");
    CU_ASSERT_STRING_EQUAL(csv_cell(text, r, "runs"), g ? "2" : "3");
    CU_REL(cell_number(text, r, "size"), size[r], 1e-15);
    CU_REL(cell_number(text, r, "size_over_mean"), ratio[r], 1e-15);
    CU_REL(cell_number(text, r, "cumulative_number"), g ? (double)(r - 6) / 3.0 : (double)(r + 1) / 7.0, 1e-15);
  }
  CU_ASSERT_STRING_EQUAL(csv_cell(text, 10, "time.dt"), ""); /* the crashed run's 100 is not there */
  free(text);
  char bad[700];
  snprintf(bad, sizeof bad, "%s/runs/0004/fragment_sizes.csv", out);
  FILE *f = fopen(bad, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("rank,size\n1,0.5\n2,-1\n", f);
  fclose(f);
  CU_ASSERT_EQUAL(shard_campaign_write_pooled_sizes(c, t, out, &pooled, &msg), SHARD_ERR_INPUT);
  CU_CHECK_MSG(strstr(msg.text, "runs/0004/fragment_sizes.csv:3: the size is not a positive number") != NULL, "%s",
               msg.text);
  shard_campaign_destroy(c);
  shard_diag_destroy(dg);
  shard_table_destroy(t);
}

/* slope_se and slope_ci95 of a log-log plot on data with known scatter:
 * y = 3 x^1.5 10^d over five points, against least squares computed here
 * (t_{0.975,3} = 3.182446305284263). */
static void test_campaign_slope_interval(void) {
  static const double xs[] = {1, 2, 4, 8, 16}, dev[] = {0.02, -0.03, 0.01, 0.025, -0.015};
  char text[1024];
  snprintf(text, sizeof text, "base: base.yaml\nsweep:\n  var.x: [1, 2, 4, 8, 16]\nplots:\n"
                              "  - {file: fit, x: var.x, y: reference.eta, logx: true, logy: true}\n"
                              "  - {file: two, x: var.x, y: reference.eta, logx: true, logy: true, fit_range: [1, 2]}\n");
  shard_campaign *c = NULL;
  char first[1024];
  CU_ASSERT_EQUAL_FATAL(load_text(text, NULL, &c, first, sizeof first), SHARD_OK);
  shard_table *t = shard_table_create();
  double lx[5], ly[5], mx = 0, my = 0;
  for (int i = 0; i < 5; ++i) {
    int r = shard_table_add_row(t, i);
    char v[64];
    snprintf(v, sizeof v, "%g", xs[i]);
    shard_table_set(t, r, "var.x", v);
    shard_table_set(t, r, "status", "ok");
    snprintf(v, sizeof v, "%.17g", 3.0 * pow(xs[i], 1.5) * pow(10.0, dev[i]));
    shard_table_set(t, r, "reference.eta", v);
    lx[i] = log10(xs[i]);
    ly[i] = log10(strtod(v, NULL));
    mx += lx[i] / 5;
    my += ly[i] / 5;
  }
  double sxx = 0, sxy = 0, ssr = 0;
  for (int i = 0; i < 5; ++i) {
    sxx += (lx[i] - mx) * (lx[i] - mx);
    sxy += (lx[i] - mx) * (ly[i] - my);
  }
  const double b = sxy / sxx;
  for (int i = 0; i < 5; ++i) ssr += pow(ly[i] - my - b * (lx[i] - mx), 2);
  const double se = sqrt(ssr / 3 / sxx), ci = 3.182446305284263 * se;
  CU_ASSERT(se > 0.005 && se < 0.05);
  shard_plot_report rep;
  shard_msg msg = {{0}};
  const char *dir = tmp_path("slopes");
  mkdir(dir, 0777);
  CU_ASSERT_EQUAL_FATAL(shard_campaign_plots(c, t, dir, &rep, &msg), SHARD_OK);
  char path[600];
  snprintf(path, sizeof path, "%s/plots/fit.slopes.csv", dir);
  char *s = read_text(path);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  const char *header = "index,curve,y,slope,points,slope_se,slope_ci95\n";
  CU_CHECK_MSG(strncmp(s, header, strlen(header)) == 0, "header: %.200s", s);
  CU_NEAR(cell_number(s, 0, "slope"), b, 5e-5);
  CU_NEAR(cell_number(s, 0, "points"), 5, 0);
  CU_REL(cell_number(s, 0, "slope_se"), se, 5e-4); /* 4 significant digits */
  CU_REL(cell_number(s, 0, "slope_ci95"), ci, 5e-4);
  free(s);
  /* two points: a slope, no interval */
  snprintf(path, sizeof path, "%s/plots/two.slopes.csv", dir);
  s = read_text(path);
  char want[128];
  snprintf(want, sizeof want, "0,reference.eta,reference.eta,%.4f,2,,\n", 1.5 + (dev[1] - dev[0]) / log10(2.0));
  CU_CHECK_MSG(s && strcmp(strchr(s, '\n') + 1, want) == 0, "two.slopes.csv: %s, expected %s", s ? s : "", want);
  free(s);
  shard_table_destroy(t);
  shard_campaign_destroy(c);
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

/* the temporary directory, with the campaign outputs in it */
static void cleanup(void) {
  if (!tmpdir[0]) return;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", tmpdir);
}

static void test_campaign_zz_cleanup(void) { cleanup(); }

/* A value a run does not have (an empty cell: `~` in its summary) is left
 * out of the statistics, not counted as 0 or -1: the mean of {0.1, -, 0.3}
 * is 0.2 over n = 2, and the column gets C.n. */
static void test_campaign_statistics_skip_missing(void) {
  shard_campaign *c = NULL;
  char first[1024];
  CU_ASSERT_EQUAL_FATAL(load_text("base: base.yaml\nsweep:\n  time.dt: [1]\n  model.mass: [1, 2, 3]\n"
                                  "statistics: {over: model.mass}\n",
                                  NULL, &c, first, sizeof first),
                        SHARD_OK);
  shard_table *t = shard_table_create();
  const char *eta[] = {"0.1", "", "0.3"};
  for (int i = 0; i < 3; ++i) {
    const int r = shard_table_add_row(t, i);
    char m[8];
    snprintf(m, sizeof m, "%d", i + 1);
    shard_table_set(t, r, "time.dt", "1");
    shard_table_set(t, r, "model.mass", m);
    shard_table_set(t, r, "status", "ok");
    shard_table_set(t, r, "steps", "10");
    shard_table_set(t, r, "reference.eta_u", eta[i]);
  }
  shard_table *st = NULL;
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL_FATAL(shard_campaign_statistics_table(c, t, &st, &msg), SHARD_OK);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  shard_table_write_csv(st, f);
  fclose(f);
  CU_ASSERT_STRING_EQUAL(csv_cell(buf, 0, "n"), "3");
  CU_ASSERT_STRING_EQUAL(csv_cell(buf, 0, "reference.eta_u.n"), "2");
  CU_REL(cell_number(buf, 0, "reference.eta_u.mean"), 0.2, 1e-15);
  CU_REL(cell_number(buf, 0, "reference.eta_u.min"), 0.1, 0);
  CU_REL(cell_number(buf, 0, "steps.mean"), 10, 0);
  free(buf);
  shard_table_destroy(st);
  shard_table_destroy(t);
  shard_campaign_destroy(c);
}

static const cu_test_def tests[] = {
    {"test_campaign_product_and_zip", test_campaign_product_and_zip},
    {"test_campaign_null_removes", test_campaign_null_removes},
    {"test_campaign_ranges", test_campaign_ranges},
    {"test_campaign_derived", test_campaign_derived},
    {"test_campaign_cost", test_campaign_cost},
    {"test_campaign_errors_exact", test_campaign_errors_exact},
    {"test_campaign_bad_run_fails_before_running", test_campaign_bad_run_fails_before_running},
    {"test_campaign_inline_case_positions", test_campaign_inline_case_positions},
    {"test_campaign_is_campaign", test_campaign_is_campaign},
    {"test_campaign_csv_quoting_roundtrip", test_campaign_csv_quoting_roundtrip},
    {"test_campaign_csv_index_range", test_campaign_csv_index_range},
    {"test_campaign_stall_timeout", test_campaign_stall_timeout},
    {"test_campaign_summary_flatten", test_campaign_summary_flatten},
    {"test_campaign_merge", test_campaign_merge},
    {"test_campaign_statistics_skip_missing", test_campaign_statistics_skip_missing},
    {"test_campaign_statistics_across_seeds", test_campaign_statistics_across_seeds},
    {"test_campaign_pooled_fragment_sizes", test_campaign_pooled_fragment_sizes},
    {"test_campaign_slope_interval", test_campaign_slope_interval},
    {"test_campaign_schema_in_sync", test_campaign_schema_in_sync},
    {"test_campaign_zz_cleanup", test_campaign_zz_cleanup},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "campaign", tests); }
