/* shard validate FILE [--set key.path=value ...] — check a file without
 * running anything: exit 0 and "FILE: ok", or exit 2 with every error
 * (file:line:col: error: ..., source line, caret). The kind of file picks the
 * checker from a table: case files and campaign files (a top-level `sweep`).
 * A case goes through everything `shard run` does before its first step
 * (shard_run_check: model, plugins, LCP policy, time step, integrator
 * set-up), writing nothing, so that validate and run refuse the same cases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign/campaign.h"
#include "case/case.h"
#include "commands.h"
#include "run/run.h"

typedef struct file_kind {
  const char *name;
  /* SHARD_OK, or SHARD_ERR_INPUT with the problems in diag */
  int (*validate)(const char *path, const char *const *sets, int n_sets, const shard_registry *reg, shard_diag *diag,
                  shard_msg *msg);
} file_kind;

static int validate_case(const char *path, const char *const *sets, int n_sets, const shard_registry *reg,
                         shard_diag *diag, shard_msg *msg) {
  shard_case *c = NULL;
  int st = shard_case_load(path, sets, n_sets, reg, &c, diag);
  if (st == SHARD_OK) {
    const int code = shard_run_check(c, reg, diag, msg);
    st = code == 0 ? SHARD_OK : code == 2 ? SHARD_ERR_INPUT : SHARD_ERR_INTERNAL;
  }
  shard_case_destroy(c);
  return st;
}

static int validate_campaign(const char *path, const char *const *sets, int n_sets, const shard_registry *reg,
                             shard_diag *diag, shard_msg *msg) {
  (void)msg;
  if (n_sets > 0) {
    shard_diag_error(diag, path, 0, 0, NULL, "--set applies to case files; a campaign sets its runs in 'set' and 'sweep'");
    return SHARD_ERR_INPUT;
  }
  (void)sets;
  return shard_campaign_validate_file(path, reg, diag);
}

static const file_kind kinds[] = {
    {"case", validate_case},
    {"campaign", validate_campaign},
};

/* The checker for a file: a campaign when it has a top-level `sweep`. */
static const file_kind *kind_of(const char *path) { return &kinds[shard_campaign_is_campaign(path) ? 1 : 0]; }

static int usage(FILE *out, int code) {
  fprintf(out, "usage: shard [--plugin-path DIR[:DIR...]] validate FILE.yaml [--set key.path=value ...]\n"
               "checks a case or campaign file strictly; prints FILE: ok (exit 0) or every error (exit 2)\n");
  return code;
}

int shard_cmd_validate(const shard_cli *cli, int argc, char **argv) {
  const char *path = NULL;
  const char **sets = calloc((size_t)argc, sizeof *sets);
  int n_sets = 0;
  if (!sets) return SHARD_EXIT_FAIL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      free(sets);
      return usage(stdout, SHARD_EXIT_OK);
    } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
      sets[n_sets++] = argv[++i];
    } else if (strncmp(argv[i], "--set=", 6) == 0) {
      sets[n_sets++] = argv[i] + 6;
    } else if (argv[i][0] != '-' && !path) {
      path = argv[i];
    } else {
      fprintf(stderr, "shard validate: unexpected argument '%s'\n", argv[i]);
      free(sets);
      return usage(stderr, SHARD_EXIT_INPUT);
    }
  }
  if (!path) {
    free(sets);
    return usage(stderr, SHARD_EXIT_INPUT);
  }
  shard_msg msg = {{0}};
  shard_registry *reg = NULL;
  shard_diag *diag = shard_diag_create();
  int code = SHARD_EXIT_FAIL, dst;
  if (!diag || shard_registry_create(&reg, &msg) != SHARD_OK) {
    fprintf(stderr, "shard validate: %s\n", diag ? msg.text : "out of memory");
  } else if ((dst = shard_registry_discover(reg, cli->plugin_path, &msg)) != SHARD_OK) {
    fprintf(stderr, "shard validate: %s\n", msg.text);
    code = dst == SHARD_ERR_NOMEM || dst == SHARD_ERR_IO ? SHARD_EXIT_FAIL : SHARD_EXIT_INPUT;
  } else {
    int st = kind_of(path)->validate(path, sets, n_sets, reg, diag, &msg);
    if (st == SHARD_OK) {
      printf("%s: ok\n", path);
      code = SHARD_EXIT_OK;
    } else {
      if (shard_diag_count(diag) > 0) shard_diag_print(diag, stderr);
      if (msg.text[0]) fprintf(stderr, "shard validate: %s\n", msg.text); /* as `shard run` reports it */
      code = st == SHARD_ERR_INPUT ? SHARD_EXIT_INPUT : SHARD_EXIT_FAIL;
    }
  }
  shard_registry_destroy(reg);
  shard_diag_destroy(diag);
  free(sets);
  return code;
}
