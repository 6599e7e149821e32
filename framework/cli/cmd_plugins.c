/* shard plugins — list the discovered plugins: kind, name, version, file,
 * sorted by kind then name. Every file of the search path is opened (each
 * first in a child process): the files that cannot be loaded are named on
 * stderr after the list, and make the exit status 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "loader/registry.h"

static int by_kind_name(const void *a, const void *b) {
  const shard_loaded_plugin *x = *(const shard_loaded_plugin *const *)a;
  const shard_loaded_plugin *y = *(const shard_loaded_plugin *const *)b;
  if (x->desc->kind != y->desc->kind) return x->desc->kind < y->desc->kind ? -1 : 1;
  return strcmp(x->desc->name, y->desc->name);
}

static int max_int(int a, int b) { return a > b ? a : b; }

int shard_cmd_plugins(const shard_cli *cli, int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      printf("usage: shard [--plugin-path DIR[:DIR...]] plugins\n"
             "lists every plugin found on the plugin path: kind, name, version and file\n");
      return SHARD_EXIT_OK;
    }
    fprintf(stderr, "shard plugins: unexpected argument '%s'\nusage: shard [--plugin-path DIR[:DIR...]] plugins\n",
            argv[i]);
    return SHARD_EXIT_INPUT;
  }
  shard_msg msg = {{0}};
  shard_registry *reg = NULL;
  if (shard_registry_create(&reg, &msg) != SHARD_OK) {
    fprintf(stderr, "shard plugins: %s\n", msg.text);
    return SHARD_EXIT_FAIL;
  }
  if (shard_registry_discover(reg, cli->plugin_path, &msg) != SHARD_OK) {
    fprintf(stderr, "shard plugins: %s\n", msg.text);
    shard_registry_destroy(reg);
    return SHARD_EXIT_INPUT;
  }
  shard_registry_load_all(reg, &msg); /* the problems are listed below */
  size_t n = shard_registry_count(reg);
  const shard_loaded_plugin **list = malloc((n ? n : 1) * sizeof *list);
  if (!list) {
    fprintf(stderr, "shard plugins: out of memory\n");
    shard_registry_destroy(reg);
    return SHARD_EXIT_FAIL;
  }
  int wk = 4, wn = 4, wv = 7;
  for (size_t i = 0; i < n; ++i) {
    list[i] = shard_registry_at(reg, i);
    wk = max_int(wk, (int)strlen(shard_plugin_kind_str((int)list[i]->desc->kind)));
    wn = max_int(wn, (int)strlen(list[i]->desc->name));
    wv = max_int(wv, (int)strlen(list[i]->desc->version));
  }
  qsort(list, n, sizeof *list, by_kind_name);
  if (n == 0) {
    printf("no plugins found (searched --plugin-path, $SHARD_PLUGIN_PATH, lib/shard/plugins beside the executable's bin/ directory "
           "and the installed plugin directory)\n");
  } else {
    printf("%-*s  %-*s  %-*s  %s\n", wk, "KIND", wn, "NAME", wv, "VERSION", "FILE");
    for (size_t i = 0; i < n; ++i)
      printf("%-*s  %-*s  %-*s  %s\n", wk, shard_plugin_kind_str((int)list[i]->desc->kind), wn, list[i]->desc->name,
             wv, list[i]->desc->version, list[i]->path);
  }
  free(list);
  size_t bad = shard_registry_problem_count(reg);
  fflush(stdout);
  for (size_t i = 0; i < bad; ++i) fprintf(stderr, "shard plugins: %s\n", shard_registry_problem(reg, i));
  shard_registry_destroy(reg);
  return bad ? SHARD_EXIT_INPUT : SHARD_EXIT_OK;
}
