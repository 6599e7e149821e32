#!/usr/bin/env bash
# A bad file on the plugin path (one that crashes or hangs when loaded, or
# one in a directory others may write) never breaks a command that does not
# need it, is named by the commands that do (`shard plugins`, a case naming
# it), and an unknown plugin's error says where plugins were searched for.
#   bash plugin_faults.sh <shard-exe> <source-dir> <build-dir>
set -u
shard=$1 src=$2 build=$3
tp="$build/tests/plugins"
case_file="$src/cases/paper/ball_e1.yaml"
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
fail=0
bad() {
  echo "FAIL: $1"
  [ -f "$work/err" ] && sed 's/^/    /' "$work/err" | head -8
  fail=1
}
for f in "$tp/entry_crash/broken_entry_crash.so" "$tp/entry_loop/broken_entry_loop.so"; do
  [ -f "$f" ] || { echo "FAIL: $f not built"; exit 1; }
done

# 1. a plugin that crashes when loaded, on the path: validate of a case that
#    does not name it is unaffected
export SHARD_PLUGIN_PATH="$tp/entry_crash"
rc=0
timeout 60 "$shard" validate "$case_file" >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 0 ] || bad "validate with a crashing plugin on the path: exit $rc, expected 0"
# ... `shard plugins` lists the others and names the file (exit 2)
rc=0
timeout 60 "$shard" plugins >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 2 ] || bad "plugins with a crashing plugin on the path: exit $rc, expected 2"
grep -Eq '^integrator +nsn ' "$work/out" || bad "plugins: the good plugins are not listed"
grep -q "^shard plugins: $tp/entry_crash/broken_entry_crash.so: refused: loading it " "$work/err" ||
  bad "plugins: the crashing file is not named"
# ... a case naming it gets its reason
rc=0
timeout 60 "$shard" validate "$case_file" --set integrator.plugin=broken_entry_crash >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 2 ] || bad "validate naming the crashing plugin: exit $rc, expected 2"
grep -q "error: integrator plugin 'broken_entry_crash' cannot be loaded: $tp/entry_crash/broken_entry_crash.so: refused: loading it " "$work/err" ||
  bad "validate naming the crashing plugin: no message naming the file"

# 2. a plugin that hangs when loaded: given up after the probe timeout
export SHARD_PLUGIN_PATH="$tp/entry_loop" SHARD_PLUGIN_PROBE_TIMEOUT=2
rc=0
timeout 60 "$shard" validate "$case_file" >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 0 ] || bad "validate with a hanging plugin on the path: exit $rc, expected 0"
rc=0
timeout 60 "$shard" plugins >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 2 ] || bad "plugins with a hanging plugin on the path: exit $rc, expected 2"
grep -q "^shard plugins: $tp/entry_loop/broken_entry_loop.so: refused: loading it did not finish within 2 s" "$work/err" ||
  bad "plugins: the hanging file is not named"
unset SHARD_PLUGIN_PROBE_TIMEOUT

# 3. an unknown plugin: where plugins were searched for
export SHARD_PLUGIN_PATH="$work/nowhere"
rc=0
timeout 60 "$shard" validate "$case_file" --set integrator.plugin=nsm >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 2 ] || bad "unknown plugin: exit $rc, expected 2"
grep -q "error: unknown integrator plugin 'nsm' (did you mean 'nsn'?); available: " "$work/err" || bad "unknown plugin message"
grep -q "^  note: plugins searched for in $work/nowhere, .*; add directories with --plugin-path or SHARD_PLUGIN_PATH$" "$work/err" ||
  bad "unknown plugin: the search path is not named"
rc=0
printf '%%%%MatrixMarket matrix array real general\n1 1\n1\n' >"$work/M.mtx"
timeout 60 "$shard" lcp --solver nosuch "$work/M.mtx" "$work/M.mtx" >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 2 ] || bad "lcp, unknown solver: exit $rc, expected 2"
grep -q "^shard lcp: plugins searched for in $work/nowhere, .*SHARD_PLUGIN_PATH$" "$work/err" ||
  bad "lcp, unknown solver: the search path is not named"

# 4. a directory others may write: refused, naming it, and never replaced
#    by another directory's copy
mkdir "$work/open"
cp "$build/lib/shard/plugins/nsn.so" "$work/open/nsn.so" 2>/dev/null ||
  cp "$(find "$build" -name nsn.so -path '*shard/plugins*' | head -n1)" "$work/open/nsn.so"
chmod 755 "$work/open/nsn.so"
chmod 777 "$work/open"
export SHARD_PLUGIN_PATH="$work/open"
rc=0
timeout 60 "$shard" validate "$case_file" >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 2 ] || bad "world-writable plugin directory: exit $rc, expected 2"
grep -q "error: integrator plugin 'nsn' cannot be loaded: $work/open/nsn.so: refused: its directory $work/open is writable by its group and everyone (mode 0777)" "$work/err" ||
  bad "world-writable plugin directory: message"
rc=0
timeout 60 "$shard" plugins >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 2 ] && grep -q "^shard plugins: $work/open/nsn.so: refused: its directory" "$work/err" ||
  bad "plugins: the world-writable directory is not named"
chmod 755 "$work/open"
chmod 666 "$work/open/nsn.so"
rc=0
timeout 60 "$shard" validate "$case_file" >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 2 ] && grep -q "$work/open/nsn.so: refused: the file is writable by its group and everyone (mode 0666)" "$work/err" ||
  bad "world-writable plugin file: exit $rc or message"
chmod 755 "$work/open/nsn.so"
rc=0
timeout 60 "$shard" validate "$case_file" >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 0 ] || bad "the same plugin, owner-writable only: exit $rc, expected 0"

[ "$fail" = 0 ] && echo "plugin_faults: crashing, hanging and writable plugin files handled and named"
exit "$fail"
