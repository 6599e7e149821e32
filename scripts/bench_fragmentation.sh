#!/usr/bin/env bash
# Wall time of an NSN fragmentation run, for comparing builds in one sitting:
# the confined expanding bar (cases/paper/confined_case.yaml) shortened to
# L = 1 mm, 1000 elements (the paper's h), e = 1, run for 300 t0 (through
# release, fragmentation and the first wall impacts), no early stop.
# Prints the loop's wall time and its CPU time (user + system, from
# summary.yaml): on a shared machine the CPU time is the one to compare.
# usage: scripts/bench_fragmentation.sh BUILD_OR_PREFIX [BUILD_OR_PREFIX ...]
#        LCP=NAME (environment): NSN's LCP solver plugin instead of the case's
#        (e.g. LCP=tridiag, the exact chain solver)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILD_OR_PREFIX [...]" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lcp=()
[ -n "${LCP:-}" ] && lcp=(--set "lcp.plugin=$LCP")
printf "%-40s %10s %10s %12s %12s %10s %10s %12s\n" build "loop [s]" "cpu [s]" "us/step" "cpu us/step" steps fragments "G [J]"
i=0
for b in "$@"; do
  i=$((i + 1))
  "$b/bin/shard" run "$root/cases/paper/confined_case.yaml" -o "$tmp/r$i" --no-progress \
    --set model.length=1e-3 --set model.origin=-0.5e-3 --set model.elements=1000 \
    --set time.stop=end --set time.end=300*t0 "${lcp[@]}" >/dev/null
  awk -v b="$b" '/^[a-z]/ {w = /^wall_time:/; c = /^cpu_time:/} /^steps:/ {n=$2}
                 w && /^  loop:/ {l=$2} w && /^  per_step:/ {p=$2} c && /^  loop:/ {cl=$2} c && /^  per_step:/ {cp=$2}
                 /^  fragments:/ {f=$2} /^  dissipation:/ {g=$2}
                 END {printf "%-40s %10.1f %10.1f %12.1f %12.1f %10d %10d %12.1f\n", b, l, cl, p * 1e6, cp * 1e6, n, f, g}' \
    "$tmp/r$i/summary.yaml"
done
