#!/usr/bin/env bash
# scripts/bench_lcp_solvers.sh on a small set made here: two problems with a
# known outcome (deudeu: M = [[2,1],[1,2]], q = (-5,-6), solvable; and
# M = [[1,-1],[-1,1]], q = (-1,-1), no solution), chains of n = 8 and 30.
# The table has one row per solver with the right solved counts, numbers for
# the times, and a size refusal for Siconos' enum (n = 30 > enum_max) when
# the optional siconos plugin is built.
#   bash bench_lcp_solvers.sh <shard-exe> <source-dir> <build-dir>
set -euo pipefail
shard="$1" src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mtx() { # name, M entries "i j v" lines, q values
  printf '%%%%MatrixMarket matrix coordinate real general\n2 2 4\n%s\n' "$2" > "$tmp/$1.M.mtx"
  printf '%%%%MatrixMarket matrix array real general\n2 1\n%s\n%s\n' $3 > "$tmp/$1.q.mtx"
}
mtx deudeu "$(printf '1 1 2\n1 2 1\n2 1 1\n2 2 2')" "-5 -6"
mtx nosol "$(printf '1 1 1\n1 2 -1\n2 1 -1\n2 2 1')" "-1 -1"

solvers="lemke pgs mprgp"
siconos=0
if env -u SHARD_PLUGIN_PATH "$shard" describe siconos > /dev/null 2>&1; then
  siconos=1
  solvers="$solvers siconos:lemke siconos:enum"
fi
out=$(bash "$src/scripts/bench_lcp_solvers.sh" --shard "$shard" --set-dir "$tmp" --n "8 30" --repeat 2 \
  --solvers "$solvers")
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -q '^| solver | Siconos set: solved of 2 |' || fail "header"
row() { printf '%s\n' "$out" | grep "^| \`$1\` |" || fail "no row for $1"; }
# solved counts: deudeu only (the other has no solution)
for s in $solvers; do
  [ "$(row "$s" | awk -F'|' '{ gsub(/ /, "", $3); print $3 }')" = 1 ] || fail "$s: solved count: $(row "$s")"
done
# chain columns: a time and an iteration count, except enum beyond enum_max
row lemke | grep -Eq '\| [0-9.e+-]+ \([0-9]+ it\.\) \| [0-9.e+-]+ \([0-9]+ it\.\) \|$' || fail "lemke chains: $(row lemke)"
if [ "$siconos" = 1 ]; then
  row siconos:enum | grep -Eq '\| [0-9.e+-]+ \([0-9]+ it\.\) \| refused \(size\) \|$' || fail "enum: $(row siconos:enum)"
fi
# and `shard describe` says what the plugin declares
if [ "$siconos" = 1 ]; then
  env -u SHARD_PLUGIN_PATH "$shard" describe siconos | grep -q "allocates in solve" || fail "describe siconos: caps"
fi
echo "bench_lcp_solvers: table checked ($(echo $solvers | wc -w) solvers)"
