#!/usr/bin/env bash
# Scaling benchmark of the sparse LCP solvers (not a timed test).
#
#   scripts/bench_lcp.sh [--shard PATH/TO/shard] [--solvers "pgs mprgp"] [--sizes "100 1000 10000 100000"]
#
# Runs `shard lcp --bench tridiag` on tridiagonal problems shaped like the 1D
# contact operator W′ of docs/theory.md §2 near the stable step (diagonal 1.02,
# off-diagonals -0.49, q = 0.5 sin(2πi/64) + U(-0.5, 0.5): alternating
# compressive and separating zones, about 60 % of the contacts active),
# cold start each repeat, and prints n, iterations, mean and minimum time per
# solve and minimum time / n (the minimum is robust to a loaded machine).
# Linear-time solvers show a flat min/n column. The number
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
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_lcp: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
if [ ! -x "$shard" ]; then
  echo "bench_lcp: no shard executable at '$shard' (build first, or pass --shard)" >&2
  exit 2
fi

printf '%-8s %8s %8s %11s %14s %14s %14s %10s\n' solver n active iterations mean/solve[s] min/solve[s] min/n[s] residual
for s in $solvers; do
  for n in $sizes; do
    repeat=$(( 2000000 / n ))
    [ "$repeat" -lt 3 ] && repeat=3
    [ "$repeat" -gt 200 ] && repeat=200
    line="$("$shard" lcp --solver "$s" --bench tridiag --n "$n" --repeat "$repeat")"
    field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
    tmin="$(field time_min)"
    printf '%-8s %8s %8s %11s %14.4e %14.4e %14.4e %10s\n' "$s" "$n" "$(field active)" "$(field iterations)" \
      "$(field time_per_solve)" "$tmin" "$(awk -v t="$tmin" -v n="$n" 'BEGIN { print t / n }')" "$(field residual)"
  done
done
