#!/usr/bin/env bash
# A bar whose storage grew with its cracks (the model's arrays inside insert,
# the integrator's through reserve, the run's previous state and gaps), killed
# with SIGKILL after its first checkpoint, which comes after the first
# insertions (checked), and continued with `shard run --restart DIR`: the restart grows
# the storage to the checkpoint's interfaces and ends bit for bit like the
# uninterrupted run (history, summary, interfaces and fragments), under the
# three integrators that grow (nsn, cd_lagrange, explicit_newmark).
set -euo pipefail
shard="$1" src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/e2e/lib/kill.sh"
case="$src/cases/paper/free_ring_case.yaml"
for integ in nsn cd_lagrange explicit_newmark; do
  restart_matches "$case" "$integ" --set integrator.plugin=$integ --set time.end=1e-7 \
    --set time.checkpoint_every=1500 --no-progress
  for f in interfaces.csv fragments.csv; do
    cmp "$tmp/full_$integ/$f" "$tmp/killed_$integ/$f" || { echo "FAIL: $integ: $f differs after restart"; exit 1; }
  done
  # the checkpoint (step 1500) holds interfaces inserted during the run
  first=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "insertions") c = i; next }
                   $c > 0 { print $1; exit }' "$tmp/full_$integ/history.csv")
  [ -n "$first" ] && [ "$first" -lt 1500 ] || { echo "FAIL: $integ: no insertion before the checkpoint (first at step '$first')"; exit 1; }
  echo "bar growth restart ($integ): bit-for-bit identical, first insertion at step $first," \
    "$(grep -m1 'insertions:' "$tmp/full_$integ/summary.yaml" | tr -s ' ')"
done
