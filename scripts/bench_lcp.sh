#!/usr/bin/env bash
# Scaling benchmark of the sparse LCP solvers (not a timed test).
#
#   scripts/bench_lcp.sh [--shard PATH/TO/shard] [--solvers "pgs mprgp"] [--sizes "100 1000 10000 100000"]
#
# Runs `shard lcp --bench tridiag` on tridiagonal problems shaped like the 1D
# contact operator W′ of SPEC §2.1 near the stable step (diagonal 1.02,
# off-diagonals -0.49, q in [-1, 0.5): compressive and separating contacts),
# cold start each repeat, and prints n, iterations, mean time per solve and
# time per solve / n. Linear-time solvers show a flat last column. The number
# of repeats shrinks with n so that the whole run stays well under 2 minutes.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shard="${SHARD:-$root/build/bin/shard}"
solvers="pgs mprgp"
sizes="100 1000 10000 100000"
while [ $# -gt 0 ]; do
  case "$1" in
    --shard) shard="$2"; shift ;;
    --solvers) solvers="$2"; shift ;;
    --sizes) sizes="$2"; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_lcp: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
if [ ! -x "$shard" ]; then
  echo "bench_lcp: no shard executable at '$shard' (build first, or pass --shard)" >&2
  exit 2
fi

printf '%-8s %8s %8s %11s %13s %13s %10s\n' solver n active iterations time/solve[s] time/n[s] residual
for s in $solvers; do
  for n in $sizes; do
    repeat=$(( 2000000 / n ))
    [ "$repeat" -lt 3 ] && repeat=3
    [ "$repeat" -gt 200 ] && repeat=200
    line="$("$shard" lcp --solver "$s" --bench tridiag --n "$n" --repeat "$repeat")"
    field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
    printf '%-8s %8s %8s %11s %13.4e %13.4e %10s\n' "$s" "$n" "$(field active)" "$(field iterations)" \
      "$(field time_per_solve)" "$(field time_per_n)" "$(field residual)"
  done
done
