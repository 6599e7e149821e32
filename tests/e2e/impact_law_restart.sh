#!/usr/bin/env bash
# A run with a velocity-dependent impact law (thornton_impact: e evaluated
# before every step from the state at its start) killed after a checkpoint
# and continued with `shard run --restart DIR` ends bit for bit like the
# uninterrupted run: e is recomputed from the restored state, nothing of it
# needs checkpointing. Args: <shard-exe> <source-dir> <build-dir>.
set -euo pipefail
shard="$1" src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/e2e/lib/kill.sh"
case="$src/cases/examples/thornton_ball.yaml"
sets=(--set time.end=200 --set time.dt=1e-4 --set output.every=1000 --set time.checkpoint_every=50000 --no-progress)

"$shard" run "$case" -o "$tmp/full" "${sets[@]}" >/dev/null
kill_after_checkpoint "$tmp/killed" "$shard" run "$case" -o "$tmp/killed" "${sets[@]}"
"$shard" run --restart "$tmp/killed" --no-progress >/dev/null
cmp "$tmp/full/history.csv" "$tmp/killed/history.csv" || { echo "FAIL: history.csv differs after restart"; exit 1; }
grep -qx 'restarts: 1' "$tmp/killed/summary.yaml" || { echo "FAIL: summary does not count the restart"; exit 1; }
# the law did act: the rebounds lose speed (e < 1 above v_y = 1 m/s), the
# ball ends below its initial energy of 9.81 J (m g h)
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "kinetic") k = i; else if ($i == "u") u = i; next }
         { e = $k + 9.81 * $u } END { if (!(e < 9.0)) { print "FAIL: final energy " e " J, no dissipation"; exit 1 } }' \
  "$tmp/full/history.csv"
echo "impact_law_restart: bit-for-bit identical after a restart ($(grep -m1 '^steps:' "$tmp/full/summary.yaml"))"
