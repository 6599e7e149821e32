/* tests: run a case file through the whole host and read its outputs. */
#ifndef SHARD_TEST_RUN_HELPERS_H
#define SHARD_TEST_RUN_HELPERS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case/case.h"
#include "loader/registry.h"
#include "run/run.h"

static shard_registry *rh_reg;
static char rh_tmpdir[256];

static inline shard_registry *rh_registry(void) {
  if (rh_reg) return rh_reg;
  shard_msg msg = {{0}};
  if (shard_registry_create(&rh_reg, &msg) != SHARD_OK || shard_registry_load_dir(rh_reg, SHARD_PLUGIN_DIR, &msg) != SHARD_OK) {
    fprintf(stderr, "registry: %s\n", msg.text);
    exit(2);
  }
  snprintf(rh_tmpdir, sizeof rh_tmpdir, "/tmp/shard_test_%ld", (long)getpid());
  return rh_reg;
}

/* Run SHARD_SOURCE_DIR/<rel>.yaml with --set overrides into a fresh directory
 * (returned in out); returns the exit code of `shard run`. With msg_out, the
 * failure message is copied there. */
static inline int rh_run(const char *rel, const char *tag, const char **sets, int n_sets, char *out, size_t n_out,
                  char *msg_out, size_t n_msg) {
  shard_registry *reg = rh_registry();
  char path[1024];
  const char *base = strrchr(rel, '/');
  int np = snprintf(path, sizeof path, "%s/%s.yaml", SHARD_SOURCE_DIR, rel);
  int no = snprintf(out, n_out, "%s/%s_%s", rh_tmpdir, base ? base + 1 : rel, tag);
  if (np < 0 || (size_t)np >= sizeof path || no < 0 || (size_t)no >= n_out) {
    fprintf(stderr, "rh_run: path of %s (%s) too long\n", rel, tag);
    return 1;
  }
  shard_diag *diag = shard_diag_create();
  shard_case *c = NULL;
  int code = 2;
  shard_msg msg = {{0}};
  if (shard_case_load(path, sets, n_sets, reg, &c, diag) == SHARD_OK) {
    shard_run_options opt = {.out_dir = out};
    code = shard_run_case(c, reg, &opt, diag, &msg);
  }
  if (shard_diag_count(diag)) shard_diag_print(diag, stderr);
  if (msg_out && n_msg) {
    size_t len = strlen(msg.text);
    if (len >= n_msg) len = n_msg - 1;
    memcpy(msg_out, msg.text, len);
    msg_out[len] = '\0';
  }
  else if (code != 0) fprintf(stderr, "  run %s/%s: exit %d: %s\n", rel, tag, code, msg.text);
  shard_case_destroy(c);
  shard_diag_destroy(diag);
  return code;
}

/* Value of "section.key" (or a top-level "key") of dir/summary.yaml; NAN if absent. */
/* The whole of DIR/NAME, NUL-terminated (its length in *len when len is not
 * NULL); NULL when it cannot be read. The caller frees it. */
static inline char *rh_read_file(const char *dir, const char *name, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (p && fread(p, 1, (size_t)n, f) != (size_t)n) n = 0;
  if (p) p[n] = '\0';
  fclose(f);
  if (len) *len = p ? (size_t)n : 0;
  return p;
}

static inline double rh_summary(const char *dir, const char *key) {
  char path[1024], line[512], section[128] = "";
  snprintf(path, sizeof path, "%s/summary.yaml", dir);
  FILE *f = fopen(path, "r");
  if (!f) return NAN;
  double v = NAN;
  while (fgets(line, sizeof line, f)) {
    char k[128];
    double x;
    if (line[0] != ' ') {
      if (sscanf(line, "%127[^:]: %lf", k, &x) == 2 && strcmp(k, key) == 0) v = x;
      else if (sscanf(line, "%127[^:]:", k) == 1) snprintf(section, sizeof section, "%s", k);
    } else if (sscanf(line, " %127[^:]: %lf", k, &x) == 2) {
      char full[300];
      snprintf(full, sizeof full, "%s.%s", section, k);
      if (strcmp(full, key) == 0) v = x;
    }
  }
  fclose(f);
  return v;
}

/* Index of column `name` in the header of a CSV file, -1 if absent. */
static inline int rh_csv_column(const char *header, const char *name) {
  int col = 0;
  size_t n = strlen(name);
  for (const char *p = header; *p; ++col) {
    const char *e = strpbrk(p, ",\n");
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0) return col;
    if (!e || *e == '\n') break;
    p = e + 1;
  }
  return -1;
}

/* Field `col` of a CSV line as a number. */
static inline double rh_csv_field(const char *line, int col) {
  const char *p = line;
  for (int i = 0; i < col && p; ++i) {
    p = strchr(p, ',');
    if (p) ++p;
  }
  return p ? strtod(p, NULL) : NAN;
}

/* Least-squares slope of log(y) against log(x). */
static inline double rh_fit_loglog(const double *x, const double *y, int n) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; ++i) {
    const double lx = log(x[i]), ly = log(y[i]);
    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

static inline void rh_cleanup(void) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", rh_tmpdir);
  if (rh_tmpdir[0] && system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", rh_tmpdir);
  shard_registry_destroy(rh_reg);
  rh_reg = NULL;
}

#endif
