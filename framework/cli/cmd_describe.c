/* shard describe NAME [--markdown] — one plugin: summary, kind, version,
 * file, capabilities in words, and its parameter table (key, type, default,
 * range, unit, required, doc). --markdown prints only the parameter table as
 * markdown (what scripts/update-plugin-docs.sh puts in the plugin READMEs). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case/case.h"
#include "case/schema.h"
#include "commands.h"
#include "loader/registry.h"

static void print_caps(uint64_t caps) {
  static const struct {
    uint64_t bit;
    const char *words;
  } names[] = {
      {SHARD_CAP_IMPACT_LAW, "impact-law family (restitution at velocity level)"},
      {SHARD_CAP_FORCE_LAW, "force-law family (force and stiffness from the gap)"},
      {SHARD_CAP_NEEDS_LCP, "needs an LCP solver"},
      {SHARD_CAP_TOPOLOGY, "supports topology changes (cohesive insertion)"},
      {SHARD_CAP_CONDITIONALLY_STABLE, "conditionally stable: dt <= dt_c = 2/sqrt(lambda_max)"},
      {SHARD_CAP_VELOCITY_DEPENDENT, "velocity dependent (restitution from the kinematics, before every step)"},
      {SHARD_CAP_LCP_GENERAL, "general LCPs with a solution (pivoting)"},
      {SHARD_CAP_LCP_NEEDS_PSD, "symmetric positive semidefinite problems only"},
      {SHARD_CAP_LCP_DENSE, "reads the dense view (small blocks)"},
      {SHARD_CAP_LCP_SPARSE, "reads the sparse CSR view"},
      {SHARD_CAP_LCP_ALLOCATES, "allocates in solve (exempt from the no-allocation rule)"},
      {SHARD_CAP_LCP_TRIDIAGONAL_Z, "tridiagonal Z-matrix blocks only (others go to lcp.fallback)"},
  };
  uint64_t known = 0;
  int any = 0;
  printf("caps:     ");
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    known |= names[i].bit;
    if (caps & names[i].bit) {
      printf("%s%s", any ? "\n          " : "", names[i].words);
      any = 1;
    }
  }
  if (caps & ~known) {
    printf("%sunknown flags 0x%llx", any ? "\n          " : "", (unsigned long long)(caps & ~known));
    any = 1;
  }
  printf("%s\n", any ? "" : "none");
}

static const char *or_dash(const char *s) { return s && *s ? s : "-"; }

static void print_markdown(const shard_plugin *d) { shard_param_table_markdown(stdout, d->params, d->n_params); }

static int max_int(int a, int b) { return a > b ? a : b; }

static void print_table(const shard_plugin *d) {
  if (d->n_params == 0) {
    printf("\nparameters: none\n");
    return;
  }
  int w[6] = {3, 4, 7, 5, 4, 8};
  for (uint32_t i = 0; i < d->n_params; ++i) {
    const shard_param_spec *s = &d->params[i];
    char range[256];
    shard_param_range_text(s, range, sizeof range);
    w[0] = max_int(w[0], (int)strlen(s->key));
    w[1] = max_int(w[1], (int)strlen(shard_param_type_name(s->type)));
    w[2] = max_int(w[2], (int)strlen(or_dash(s->def)));
    w[3] = max_int(w[3], (int)strlen(range));
    w[4] = max_int(w[4], (int)strlen(or_dash(s->unit)));
  }
  printf("\nparameters:\n");
  printf("  %-*s  %-*s  %-*s  %-*s  %-*s  %-*s  %s\n", w[0], "KEY", w[1], "TYPE", w[2], "DEFAULT", w[3], "RANGE",
         w[4], "UNIT", w[5], "REQUIRED", "DOC");
  for (uint32_t i = 0; i < d->n_params; ++i) {
    const shard_param_spec *s = &d->params[i];
    char range[256];
    shard_param_range_text(s, range, sizeof range);
    printf("  %-*s  %-*s  %-*s  %-*s  %-*s  %-*s  %s\n", w[0], s->key, w[1], shard_param_type_name(s->type), w[2],
           or_dash(s->def), w[3], range, w[4], or_dash(s->unit), w[5], (s->flags & SHARD_PARAM_REQUIRED) ? "yes" : "no",
           s->doc ? s->doc : "");
  }
}

static void usage(FILE *out) { fprintf(out, "usage: shard [--plugin-path DIR[:DIR...]] describe NAME [--markdown]\n"); }

int shard_cmd_describe(const shard_cli *cli, int argc, char **argv) {
  const char *name = NULL;
  int markdown = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--markdown") == 0) {
      markdown = 1;
    } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      return SHARD_EXIT_OK;
    } else if (argv[i][0] == '-' || name) {
      fprintf(stderr, "shard describe: unexpected argument '%s'\n", argv[i]);
      usage(stderr);
      return SHARD_EXIT_INPUT;
    } else {
      name = argv[i];
    }
  }
  if (!name) {
    usage(stderr);
    return SHARD_EXIT_INPUT;
  }
  shard_msg msg = {{0}};
  shard_registry *reg = NULL;
  if (shard_registry_create(&reg, &msg) != SHARD_OK) {
    fprintf(stderr, "shard describe: %s\n", msg.text);
    return SHARD_EXIT_FAIL;
  }
  if (shard_registry_discover(reg, cli->plugin_path, &msg) != SHARD_OK) {
    fprintf(stderr, "shard describe: %s\n", msg.text);
    shard_registry_destroy(reg);
    return SHARD_EXIT_INPUT;
  }
  /* every file of the path, as `shard plugins`: a problem anywhere is shown */
  if (shard_registry_load_all(reg, &msg) != SHARD_OK) {
    for (size_t i = 0; i < shard_registry_problem_count(reg); ++i)
      fprintf(stderr, "shard describe: %s\n", shard_registry_problem(reg, i));
    shard_registry_destroy(reg);
    return SHARD_EXIT_INPUT;
  }
  const shard_loaded_plugin *p = shard_registry_find(reg, 0, name);
  if (!p) {
    size_t n = shard_registry_count(reg);
    fprintf(stderr, "shard describe: no plugin named '%s'", name);
    for (size_t i = 0; i < n; ++i)
      fprintf(stderr, "%s%s", i == 0 ? " (known: " : ", ", shard_registry_at(reg, i)->desc->name);
    fprintf(stderr, "%s\n", n ? ")" : " (no plugins found)");
    shard_registry_destroy(reg);
    return SHARD_EXIT_INPUT;
  }
  const shard_plugin *d = p->desc;
  if (markdown) {
    print_markdown(d);
  } else {
    printf("%s — %s\n", d->name, d->summary ? d->summary : "");
    printf("kind:     %s\n", shard_plugin_kind_str((int)d->kind));
    printf("version:  %s\n", d->version);
    printf("file:     %s\n", p->path);
    if (p->sha256[0]) printf("sha256:   %s\n", p->sha256);
    print_caps(d->caps);
    print_table(d);
    if (d->doc && *d->doc) printf("\n%s\n", d->doc);
  }
  shard_registry_destroy(reg);
  return SHARD_EXIT_OK;
}
