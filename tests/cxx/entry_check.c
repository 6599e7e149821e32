/* C side of the C++ header test: calls the entry point probe.cpp defines. */
#include <stdio.h>
#include <string.h>

#include "shard/plugin.h"

int entry_check(void);
int entry_check(void) {
  const shard_plugin *d = shard_plugin_entry(0);
  if (!d || strcmp(d->name, "cxx_probe") != 0 || d->abi_version != SHARD_ABI_VERSION || shard_plugin_entry(1)) {
    fprintf(stderr, "entry_check: shard_plugin_entry of the C++ probe returned the wrong descriptor\n");
    return 1;
  }
  return 0;
}
