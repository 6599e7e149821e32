/* shard schema [case|campaign] [--markdown] — the JSON Schema (draft 2020-12)
 * of case files (or campaign files) for the plugins found, or the per-section
 * key tables of cases as Markdown (docs/cases.md); shard schema outputs — the
 * tables of the output files as Markdown (docs/outputs.md).
 * scripts/update-schemas.sh writes them into the tree. */
#include <stdio.h>
#include <string.h>

#include "campaign/campaign.h"
#include "case/case.h"
#include "case/schema.h"
#include "commands.h"
#include "io/outputs.h"
#include "model/models.h"

static int usage(FILE *out, int code) {
  fprintf(out, "usage: shard [--plugin-path DIR[:DIR...]] schema [case|campaign] [--markdown]\n"
               "       shard schema outputs\n"
               "prints the JSON Schema of case files (default) or campaign files; --markdown: the case key tables;\n"
               "outputs: the columns and keys of the output files with their units, as Markdown (docs/outputs.md)\n");
  return code;
}

int shard_cmd_schema(const shard_cli *cli, int argc, char **argv) {
  int markdown = 0, campaign = 0, outputs = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "outputs") == 0)
      outputs = 1;
    else if (strcmp(argv[i], "--markdown") == 0)
      markdown = 1;
    else if (strcmp(argv[i], "case") == 0)
      campaign = 0;
    else if (strcmp(argv[i], "campaign") == 0)
      campaign = 1;
    else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
      return usage(stdout, SHARD_EXIT_OK);
    else {
      fprintf(stderr, "shard schema: unexpected argument '%s'\n", argv[i]);
      return usage(stderr, SHARD_EXIT_INPUT);
    }
  }
  shard_msg msg = {{0}};
  shard_registry *reg = NULL;
  if (shard_registry_create(&reg, &msg) != SHARD_OK) {
    fprintf(stderr, "shard schema: %s\n", msg.text);
    return SHARD_EXIT_FAIL;
  }
  int code = SHARD_EXIT_OK;
  if (shard_registry_discover(reg, cli->plugin_path, &msg) != SHARD_OK ||
      shard_registry_load_all(reg, &msg) != SHARD_OK) {
    fprintf(stderr, "shard schema: %s\n", msg.text);
    code = SHARD_EXIT_INPUT;
  } else if (outputs) { /* the run's and the campaign's tables, and each model plugin's */
    shard_out_model_doc models[32];
    const size_t n = shard_models_docs(reg, models, 32);
    if (shard_out_write_markdown(stdout, models, n) != SHARD_OK || fflush(stdout) != 0) {
      fprintf(stderr, "shard schema: cannot write the output\n");
      code = SHARD_EXIT_FAIL;
    }
  } else if (markdown && campaign) {
    fprintf(stderr, "shard schema: --markdown covers case files only (campaign keys: docs/campaigns.md)\n");
    code = SHARD_EXIT_INPUT;
  } else if ((markdown     ? shard_schema_write_markdown(reg, stdout)
              : campaign ? shard_schema_write_campaign(reg, stdout)
                         : shard_schema_write_case(reg, stdout)) != SHARD_OK) {
    fprintf(stderr, "shard schema: cannot write the output\n");
    code = SHARD_EXIT_FAIL;
  }
  shard_registry_destroy(reg);
  return code;
}
