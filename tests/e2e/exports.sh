#!/usr/bin/env bash
# e2e: every plugin of the build exports exactly one dynamic symbol,
# shard_plugin_entry (docs/plugins.md §1); libshard exports exactly its public
# API, the SHARD_API declarations of framework/include/shard/*.h (no host
# internal such as yt_* or shard_run_*), and a program linked against it can
# call that API. Args: <shard-exe> <source-dir> <build-dir>.
set -euo pipefail
build="$3"
dir="$(find "$build" -maxdepth 4 -type d -path '*/shard/plugins' -not -path '*/tests/*' | head -n1)"
[ -n "$dir" ] || { echo "exports: no lib/shard/plugins directory under $build" >&2; exit 1; }
shopt -s nullglob
files=("$dir"/*.so)
[ "${#files[@]}" -gt 0 ] || { echo "exports: no plugin in $dir" >&2; exit 1; }
bad=0
for so in "${files[@]}"; do
  # .gomp_critical_user_*: the lock of an OpenMP critical section (LLVM's
  # runtime makes one for a reduction); the OpenMP ABI shares it across the
  # whole program by name, so it is global by design
  syms="$(nm -D --defined-only "$so" | awk 'NF >= 3 && $3 !~ /^\.gomp_critical_user_/ {print $3}' | sort)"
  if [ "$syms" != "shard_plugin_entry" ]; then
    echo "exports: $so must export exactly 'shard_plugin_entry', exports:" >&2
    printf '  %s\n' ${syms:-"(nothing)"} >&2
    bad=1
  fi
done
[ "$bad" = 0 ] && echo "exports: ${#files[@]} plugin(s) in $dir export only shard_plugin_entry"

# libshard: the exported set is exactly the SHARD_API functions of the public headers
src="$2"
lib="$(find "$build" -maxdepth 3 -name 'libshard.so' -not -path '*/tests/*' | head -n1)"
[ -n "$lib" ] || { echo "exports: no libshard.so under $build" >&2; exit 1; }
want="$(grep -hoE '^SHARD_API [^(]*[ *]([a-z_0-9]+)\(' "$src"/framework/include/shard/*.h |
  sed -E 's/.*[ *]([a-z_0-9]+)\($/\1/' | sort)"
[ -n "$want" ] || { echo "exports: no SHARD_API declaration in $src/framework/include/shard" >&2; exit 1; }
have="$(nm -D --defined-only "$lib" | awk 'NF >= 3 {print $3}' | sort)"
if [ "$have" != "$want" ]; then
  echo "exports: $lib must export exactly the SHARD_API functions of the public headers" >&2
  diff <(echo "$want") <(echo "$have") | sed 's/^/  /' >&2 || true
  bad=1
fi
if echo "$have" | grep -Eq '^(yt_|shard_(run|case|campaign|registry|yaml|model|snapshot)_)'; then
  echo "exports: $lib exports host internals" >&2
  bad=1
fi
n="$(echo "$have" | grep -c .)"
[ "$bad" = 0 ] && echo "exports: $lib exports $n symbol(s), its public API"

# a program linked against libshard calls the public API
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/use.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "shard/api.h"
#include "shard/plugin.h"
int main(int argc, char **argv) {
  if (argc < 2 || strcmp(shard_library_version(), argv[1]) != 0) return 1;
  if (shard_library_abi_major() != SHARD_ABI_MAJOR || shard_library_abi_minor() != SHARD_ABI_MINOR) return 1;
  if (strlen(shard_library_commit()) == 0) return 1;
  printf("%s %s\n", shard_library_version(), shard_library_commit());
  return 0;
}
C
# a sanitizer build's libshard needs its program built with the same runtime
san=()
if readelf -d "$lib" 2>/dev/null | grep -q 'libasan'; then san=(-fsanitize=address,undefined); fi
cc -std=c11 -Wall -Wextra -Werror "${san[@]}" -I"$src/framework/include" "$tmp/use.c" -o "$tmp/use" -L"$(dirname "$lib")" -lshard ||
  { echo "exports: a program using shard/api.h does not build against $lib" >&2; exit 1; }
version="$("$1" --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1)"
LD_LIBRARY_PATH="$(dirname "$lib")" "$tmp/use" "$version" ||
  { echo "exports: the public API of $lib answers wrongly (expected version $version)" >&2; exit 1; }
exit "$bad"
