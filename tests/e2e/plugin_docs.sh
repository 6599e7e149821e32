#!/usr/bin/env bash
# e2e: every plugin README's parameter table matches `shard describe NAME --markdown`.
# Args: <shard-exe> <source-dir> <build-dir>. Passes without checking anything
# only when the tree has no plugin directory at all.
set -euo pipefail
shard="$1" src="$2"
n=0
for d in "$src"/plugins/*/*/; do
  [ -f "$d/CMakeLists.txt" ] && n=$((n + 1))
done
if [ "$n" = 0 ]; then
  echo "plugin_docs: no plugin directories under $src/plugins: nothing to check"
  exit 0
fi
bash "$src/scripts/update-plugin-docs.sh" --check --shard "$shard"
