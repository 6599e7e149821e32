#!/usr/bin/env bash
# e2e: install shard into a temporary prefix, build the out-of-tree plugin
# tests/out_of_tree/my_integrator.c against it (pkg-config, then the CMake
# package config), load it through SHARD_PLUGIN_PATH, describe it and run a
# case with it. Args: <shard-exe> <source-dir> <build-dir>.
set -euo pipefail
src="$2" build="$3"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "out_of_tree: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

step "cmake --install into a temporary prefix"
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" || { cat "$tmp/install.log" >&2; fail "install"; }
prefix="$tmp/prefix"
for f in bin/shard include/shard/plugin.h include/shard/integrator.h include/shard/params.h; do
  [ -f "$prefix/$f" ] || fail "not installed: $f"
done
pc="$(find "$prefix" -name shard.pc -path '*/pkgconfig/*' | head -n1)"
[ -n "$pc" ] || fail "shard.pc not installed"
libdir="$(dirname "$(dirname "$pc")")"
ls "$libdir"/libshard.so* >/dev/null 2>&1 || fail "libshard.so not installed in $libdir"
for f in shardConfig.cmake shardConfigVersion.cmake shardTargets.cmake ShardPlugin.cmake; do
  [ -f "$libdir/cmake/shard/$f" ] || fail "not installed: $libdir/cmake/shard/$f"
done
# one shard_add_plugin: the file shard's own build includes is the one installed
cmp -s "$src/cmake/ShardPlugin.cmake" "$libdir/cmake/shard/ShardPlugin.cmake" ||
  fail "the installed ShardPlugin.cmake differs from cmake/ShardPlugin.cmake"
defs="$(grep -rl --include='*.cmake' --include='*.in' --include='CMakeLists.txt' 'function(shard_add_plugin' \
  "$src/CMakeLists.txt" "$src/cmake" "$src/framework" "$src/plugins" "$src/tests" | sort)"
[ "$defs" = "$src/cmake/ShardPlugin.cmake" ] || fail "shard_add_plugin defined in: $defs"
ls "$libdir"/shard/plugins/*.so >/dev/null 2>&1 || fail "no plugin installed in $libdir/shard/plugins"

step "installed binary: RPATH and plugins relative to itself"
readelf -d "$prefix/bin/shard" | grep -q 'R.*PATH.*\$ORIGIN/\.\./' || fail "bin/shard has no \$ORIGIN-relative RPATH"
env -u SHARD_PLUGIN_PATH "$prefix/bin/shard" plugins >"$tmp/plugins0.txt" || fail "shard plugins (installed)"
grep -q "$libdir/shard/plugins/" "$tmp/plugins0.txt" || { cat "$tmp/plugins0.txt"; fail "installed shard does not list its installed plugins"; }
if grep -q "$build/" "$tmp/plugins0.txt"; then cat "$tmp/plugins0.txt"; fail "installed shard loads plugins from the build tree"; fi

step "pkg-config"
export PKG_CONFIG_PATH="$(dirname "$pc")"
cflags="$(pkg-config --cflags shard)" || fail "pkg-config --cflags shard"
pkg-config --libs shard | grep -q -- '-lshard' || fail "pkg-config --libs lacks -lshard"
plugindir="$(pkg-config --variable=plugindir shard)"
[ "$(cd "$plugindir" && pwd -P)" = "$(cd "$libdir/shard/plugins" && pwd -P)" ] || fail "plugindir=$plugindir"

step "build my_integrator.so with cc -shared -fPIC \$(pkg-config --cflags shard)"
mkdir -p "$tmp/plugins"
# shellcheck disable=SC2086
cc -std=c11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter -shared -fPIC -fvisibility=hidden $cflags \
  "$src/tests/out_of_tree/my_integrator.c" -o "$tmp/plugins/my_integrator.so" -lm || fail "compile"
syms="$(nm -D --defined-only "$tmp/plugins/my_integrator.so" | awk 'NF >= 3 {print $3}' | sort)"
[ "$syms" = "shard_plugin_entry" ] || fail "exports: $syms"

step "shard plugins / describe with SHARD_PLUGIN_PATH"
export SHARD_PLUGIN_PATH="$tmp/plugins"
"$prefix/bin/shard" plugins >"$tmp/plugins.txt" || fail "shard plugins"
cat "$tmp/plugins.txt"
grep -Eq "^integrator +my_integrator +1\.0\.0 +$tmp/plugins/my_integrator\.so$" "$tmp/plugins.txt" ||
  fail "my_integrator not listed"
"$prefix/bin/shard" describe my_integrator >"$tmp/describe.txt" || fail "shard describe"
cat "$tmp/describe.txt"
grep -q '^kind: *integrator$' "$tmp/describe.txt" || fail "describe: kind"
grep -Eq '^ +damping +real +0 +\[0, inf\) +1/s +no ' "$tmp/describe.txt" || fail "describe: damping row"
"$prefix/bin/shard" describe my_integrator --markdown | grep -q '^| `damping` | real | `0` | \[0, inf) | 1/s | no |' ||
  fail "describe --markdown"

step "a broken plugin on the path: exit 2 with the loader's message"
if [ -f "$build/tests/plugins/missing_slot/broken_missing_slot.so" ]; then
  rc=0
  SHARD_PLUGIN_PATH="$build/tests/plugins/missing_slot" "$prefix/bin/shard" plugins >/dev/null 2>"$tmp/err.txt" || rc=$?
  [ "$rc" = 2 ] || fail "broken plugin: exit $rc, expected 2"
  grep -q "broken_missing_slot.so: integrator 'broken_missing_slot': required slot 'step' is NULL" "$tmp/err.txt" ||
    { cat "$tmp/err.txt"; fail "broken plugin message"; }
else
  echo "(test plugins not built: skipped)"
fi
rc=0
mkdir -p "$tmp/plugins-copy" && cp "$tmp/plugins/my_integrator.so" "$tmp/plugins-copy/again.so"
SHARD_PLUGIN_PATH="$tmp/plugins:$tmp/plugins-copy" "$prefix/bin/shard" describe my_integrator >/dev/null 2>"$tmp/err.txt" || rc=$?
[ "$rc" = 2 ] || fail "duplicate plugin: exit $rc, expected 2"
grep -q "^shard describe: $tmp/plugins-copy/again.so: integrator 'my_integrator': duplicate name, already provided by $tmp/plugins/my_integrator.so (integrator)$" "$tmp/err.txt" ||
  { cat "$tmp/err.txt"; fail "duplicate message"; }
# a copy in the default (installed) plugin directory is shadowed silently
cp "$tmp/plugins/my_integrator.so" "$libdir/shard/plugins/my_integrator.so"
"$prefix/bin/shard" plugins | grep -Eq "^integrator +my_integrator +1\.0\.0 +$tmp/plugins/my_integrator\.so$" ||
  fail "SHARD_PLUGIN_PATH does not shadow the installed copy"
rm "$libdir/shard/plugins/my_integrator.so"

step "CMake package config: find_package(shard) + shard_add_plugin"
cmake -S "$src/tests/out_of_tree" -B "$tmp/oot-build" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/oot.log" 2>&1 ||
  { cat "$tmp/oot.log" >&2; fail "configure with find_package(shard)"; }
cmake --build "$tmp/oot-build" >>"$tmp/oot.log" 2>&1 || { cat "$tmp/oot.log" >&2; fail "build"; }
cmake --install "$tmp/oot-build" --prefix "$tmp/oot-prefix" >>"$tmp/oot.log" 2>&1 || { cat "$tmp/oot.log" >&2; fail "install"; }
so="$(find "$tmp/oot-prefix" -name my_integrator.so | head -n1)"
[ -n "$so" ] || fail "CMake build installed no my_integrator.so"
syms="$(nm -D --defined-only "$so" | awk 'NF >= 3 {print $3}' | sort)"
[ "$syms" = "shard_plugin_entry" ] || fail "CMake-built exports: $syms"
env -u SHARD_PLUGIN_PATH "$prefix/bin/shard" --plugin-path "$(dirname "$so")" describe my_integrator >/dev/null ||
  fail "describe CMake-built plugin"


step "run a particle case with my_integrator"
cp "$src/tests/out_of_tree/case.yaml" "$tmp/case.yaml"
rc=0
(cd "$tmp" && "$prefix/bin/shard" run case.yaml -o "$tmp/out") >"$tmp/run.log" 2>&1 || rc=$?
cat "$tmp/run.log"
[ "$rc" = 0 ] || fail "shard run exited $rc"
[ -s "$tmp/out/history.csv" ] || fail "no history.csv"
# the ball has bounced: at the last row it rises at about the elastic speed
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next } { t = $col["t"]; u = $col["u"]; v = $col["v"] }
  END { printf "last row: t = %s, u = %s, v = %s\n", t, u, v
        exit !(t > 0.699 && u > 0 && u < 1 && v > 1.9 && v < 2.1) }' "$tmp/out/history.csv" ||
  fail "history.csv: the ball did not bounce as expected"

echo "out_of_tree: OK"
