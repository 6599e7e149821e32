#!/usr/bin/env bash
# Solved counts and solve times of LCP solvers side by side, in one run:
#   - the Siconos LCP test set (every <name>.M.mtx / <name>.q.mtx of a
#     directory), solved with `shard lcp`; a problem counts as solved when
#     the exit code is 0 (status ok, residual within the solver's tolerance);
#     time = the sum of the solves' wall times ("time:" of `shard lcp`);
#   - contact chains: `shard lcp --bench tridiag --n N` (the tridiagonal
#     operator shaped like the 1D contact W′: diagonal 1.02, off-diagonals
#     -0.49, q of mixed sign, about half the contacts active), time per solve
#     (mean of --repeat solves, cold start).
# Prints a markdown table (one row per solver) on stdout.
#
#   scripts/bench_lcp_solvers.sh [--shard PATH] [--set-dir DIR] [--n "10 100 1000"]
#                                [--repeat R] [--solvers "lemke pgs mprgp siconos:lemke ..."]
#
# A solver "name:method" is the plugin `name` with --set method=METHOD.
# Defaults: build/bin/shard, tests/data/siconos-lcp/mtx, n = 10 100 1000,
# repeat 5, solvers lemke pgs mprgp and the six siconos methods (those only
# when the siconos plugin is built).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shard="$root/build/bin/shard"
setdir="$root/tests/data/siconos-lcp/mtx"
sizes="10 100 1000"
repeat=5
solvers=""
while [ $# -gt 0 ]; do
  case "$1" in
    --shard) shard="$2"; shift ;;
    --set-dir) setdir="$2"; shift ;;
    --n) sizes="$2"; shift ;;
    --repeat) repeat="$2"; shift ;;
    --solvers) solvers="$2"; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_lcp_solvers: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$shard" ] || { echo "bench_lcp_solvers: no shard executable at '$shard' (build first, or --shard)" >&2; exit 2; }
ls "$setdir"/*.M.mtx > /dev/null 2>&1 || { echo "bench_lcp_solvers: no *.M.mtx in '$setdir' (--set-dir)" >&2; exit 2; }
if [ -z "$solvers" ]; then
  solvers="lemke pgs mprgp"
  if "$shard" describe siconos > /dev/null 2>&1; then
    for m in lemke pivot enum pgs newton_fb newton_min; do solvers="$solvers siconos:$m"; done
  fi
fi

# args for `shard lcp` of a solver spec "name" or "name:method"
solver_args() {
  case "$1" in
    *:*) printf -- '--solver %s --set method=%s' "${1%%:*}" "${1#*:}" ;;
    *) printf -- '--solver %s' "$1" ;;
  esac
}

nset=$(ls "$setdir"/*.M.mtx | wc -l)
header="| solver | Siconos set: solved of $nset | Siconos set: time [s] |"
rule="|---|---|---|"
for n in $sizes; do
  header="$header chain n = $n: time per solve [s] |"
  rule="$rule---|"
done
echo "$header"
echo "$rule"
for s in $solvers; do
  # shellcheck disable=SC2046
  args=$(solver_args "$s")
  solved=0 total=0
  for m in "$setdir"/*.M.mtx; do
    q="${m%.M.mtx}.q.mtx"
    # shellcheck disable=SC2086
    if out=$("$shard" lcp $args --quiet "$m" "$q" 2> /dev/null); then solved=$((solved + 1)); fi
    t=$(printf '%s\n' "$out" | awk '/^time: / { print $2 }')
    [ -n "$t" ] && total=$(awk -v a="$total" -v b="$t" 'BEGIN { printf "%.6e", a + b }')
  done
  row="| \`$s\` | $solved | $(awk -v t="$total" 'BEGIN { printf "%.3g", t }') |"
  for n in $sizes; do
    # shellcheck disable=SC2086
    if line=$("$shard" lcp $args --bench tridiag --n "$n" --repeat "$repeat" 2>&1); then
      t=$(printf '%s\n' "$line" | sed -n 's/.*time_per_solve=\([^ ]*\).*/\1/p')
      it=$(printf '%s\n' "$line" | sed -n 's/.* iterations=\([^ ]*\).*/\1/p')
      row="$row $(awk -v t="$t" 'BEGIN { printf "%.3g", t }') ($it it.) |"
    else
      why=$(printf '%s\n' "$line" | tail -n 1)
      case "$why" in
        *exceeds*) row="$row refused (size) |" ;;
        *) row="$row not solved |" ;;
      esac
    fi
  done
  echo "$row"
done
