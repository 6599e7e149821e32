#!/usr/bin/env bash
# e2e: what scripts/setup.sh does for a user, `cmake --install build --prefix
# P`, leaves a `shard` that works from the PATH, from any directory, with its
# own plugins: every plugin of the build tree is listed from P/lib/shard/plugins,
# none from the build tree, and a case runs with plugin files under P
# (provenance.yaml). Args: <shard-exe> <source-dir> <build-dir>.
set -euo pipefail
src="$2" build="$3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install: FAIL: $*" >&2; exit 1; }

prefix="$tmp/home/.local"
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log" >&2; fail "cmake --install"; }
[ -x "$prefix/bin/shard" ] || fail "no $prefix/bin/shard"
plugdir=$(cd "$prefix/lib/shard/plugins" 2>/dev/null && pwd -P) || fail "no $prefix/lib/shard/plugins"

# as a user calls it: by name, from elsewhere, without the build tree's help
export PATH="$prefix/bin:/usr/bin:/bin"
unset SHARD_PLUGIN_PATH LD_LIBRARY_PATH
mkdir -p "$tmp/work" && cd "$tmp/work"
[ "$(command -v shard)" = "$prefix/bin/shard" ] || fail "shard on the PATH is $(command -v shard)"
shard --version | grep -q '^shard [0-9]' || fail "shard --version"
shard help run | grep -q '^usage: shard run' || fail "shard help run"

shard plugins >"$tmp/installed.txt" || fail "shard plugins"
"$build/bin/shard" plugins >"$tmp/built.txt" || fail "build/bin/shard plugins"
names() { awk 'NR > 1 { print $1, $2 }' "$1" | sort; }
[ "$(names "$tmp/installed.txt")" = "$(names "$tmp/built.txt")" ] ||
  { diff <(names "$tmp/built.txt") <(names "$tmp/installed.txt"); fail "the installed shard lists other plugins than the build tree"; }
awk 'NR > 1 { print $NF }' "$tmp/installed.txt" | while read -r f; do
  case "$(cd "$(dirname "$f")" && pwd -P)" in
    "$plugdir") ;;
    *) fail "plugin $f is not under $plugdir" ;;
  esac
done

cp "$src/cases/paper/ball_e08.yaml" case.yaml
shard run case.yaml -o out --set time.end=0.5 --no-progress >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; fail "shard run"; }
[ -s out/summary.yaml ] || fail "no summary.yaml"
grep -q "file: \"$prefix/lib/shard/plugins/nsn.so\"" out/provenance.yaml ||
  { grep 'file:' out/provenance.yaml; fail "provenance.yaml: nsn.so not from the installed prefix"; }
if grep 'file:' out/provenance.yaml | grep -q "$build/"; then fail "a plugin came from the build tree"; fi
echo "install: shard from $prefix/bin on the PATH runs with $(awk 'NR > 1' "$tmp/installed.txt" | wc -l) plugins from $plugdir"
