#!/usr/bin/env bash
# Cost of a NSN step against an explicit-penalty step (docs/reproduction.md, "Cost"), measured in
# one run of this script on the damaged bar with an interface at EVERY internal
# node (adjacent interfaces: W' couples them), all in contact (zero openings,
# the bar pushed onto the wall), NSN's LCP solved by pgs to 1e-12, 10^2 .. 10^5
# interfaces. Both schemes at the same dt (0.5 dt_c of the NSN case).
# usage: scripts/bench_cost.sh [BUILD_DIR] [STEPS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
steps=${2:-400}
shard="$build/bin/shard"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf "%-10s %-8s %12s %12s %8s %10s %10s %12s\n" interfaces scheme "us/step" "ns/DOF/step" ratio active blocks lcp_iter/step
for n in 100 1000 10000 100000; do
  ne=$((n + 1))
  common=(--set model.elements=$ne --set fracture.initial.count=$n --set fracture.insertion=false
          --set model.perturbation=0.4 --set output.every=1000000 --set output.events=false --no-progress)
  # the time step of the NSN case, used by both
  "$shard" run "$root/cases/paper/damaged_bar.yaml" "${common[@]}" --set time.end=1e-15 -o "$tmp/probe" >/dev/null
  dt=$(awk '/^  dt_c:/ {print 0.5 * $2}' "$tmp/probe/summary.yaml")
  T=$(awk -v dt="$dt" -v s="$steps" 'BEGIN {printf "%.17g", dt * s}')
  "$shard" run "$root/cases/paper/damaged_bar.yaml" "${common[@]}" --set time.dt=$dt --set time.end=$T \
    --set lcp.plugin=pgs --set lcp.tolerance=1e-12 -o "$tmp/nsn" >/dev/null
  "$shard" run "$root/cases/paper/damaged_bar_penalty.yaml" "${common[@]}" --set time.dt=$dt --set time.end=$T \
    --set time.energy_guard=1e12 -o "$tmp/pen" >/dev/null
  pn=$(awk '/per_step:/ {print $2}' "$tmp/nsn/summary.yaml")
  pe=$(awk '/per_step:/ {print $2}' "$tmp/pen/summary.yaml")
  dofs=$((2 * ne))
  act=$(awk '/max_active:/ {print $2}' "$tmp/nsn/summary.yaml")
  blocks=$(awk -v s="$steps" '/^  blocks:/ {printf "%.0f", $2 / s}' "$tmp/nsn/summary.yaml")
  it=$(awk -v s="$steps" '/^  iterations:/ {printf "%.0f", $2 / s}' "$tmp/nsn/summary.yaml")
  awk -v n=$n -v pn=$pn -v pe=$pe -v d=$dofs -v a=$act -v b=$blocks -v it=$it 'BEGIN {
    printf "%-10d %-8s %12.2f %12.2f %8.2f %10d %10d %12d\n", n, "nsn", pn * 1e6, pn * 1e9 / d, pn / pe, a, b, it;
    printf "%-10d %-8s %12.2f %12.2f %8s\n", n, "penalty", pe * 1e6, pe * 1e9 / d, "" }'
done
