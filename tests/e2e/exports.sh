#!/usr/bin/env bash
# e2e: every plugin of the build exports exactly one dynamic symbol,
# shard_plugin_entry (docs/plugins.md §1). Args: <shard-exe> <source-dir> <build-dir>.
set -euo pipefail
build="$3"
dir="$(find "$build" -maxdepth 4 -type d -path '*/shard/plugins' -not -path '*/tests/*' | head -n1)"
[ -n "$dir" ] || { echo "exports: no lib/shard/plugins directory under $build" >&2; exit 1; }
shopt -s nullglob
files=("$dir"/*.so)
[ "${#files[@]}" -gt 0 ] || { echo "exports: no plugin in $dir" >&2; exit 1; }
bad=0
for so in "${files[@]}"; do
  syms="$(nm -D --defined-only "$so" | awk 'NF >= 3 {print $3}' | sort)"
  if [ "$syms" != "shard_plugin_entry" ]; then
    echo "exports: $so must export exactly 'shard_plugin_entry', exports:" >&2
    printf '  %s\n' ${syms:-"(nothing)"} >&2
    bad=1
  fi
done
[ "$bad" = 0 ] && echo "exports: ${#files[@]} plugin(s) in $dir export only shard_plugin_entry"
exit "$bad"
