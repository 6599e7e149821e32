#!/bin/bash
# e2e: a campaign's `cost` starts the runs costliest first (ties in index
# order), within a slice too, and changes neither their indices, their
# directories nor the table's row order; a campaign without `cost` starts
# them in index order.
# usage: campaign_cost.sh SHARD SOURCE_DIR BUILD_DIR
set -u
. "$2/tests/e2e/lib/campaign.sh"

# every run crashes at its first step, so that each prints its line, in the
# order the runs end: with -j 1, the order they start
cat > "$T/c.yaml" <<'YAML'
base: base.yaml
sweep:
  zip:
    integrator.run: [0, 1, 2, 3, 4]
    integrator.crash_at: [0, 1, 2, 3, 4]
cost: (integrator_run - 1) * (integrator_run - 1)   # 1, 0, 1, 4, 9
YAML
order() { grep -o 'run [0-9]*:' "$1" | tr -d 'run:' | tr '\n' ' '; }
"$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/a" -j 1 --no-progress 2>"$T/a.log" >/dev/null
[ "$(order "$T/a.log")" = " 4  3  0  2  1 " ] || fail "costliest first expected (4 3 0 2 1): $(cat "$T/a.log")"
[ "$(cut -d, -f1 "$T/a/campaign.csv" | tr '\n' ' ')" = "index 0 1 2 3 4 " ] || fail "table rows not in index order"
for i in 0 1 2 3 4; do [ -f "$T/a/runs/000$i/result.yaml" ] || fail "run $i has no directory of its own"; done
# a slice (runs 1 and 3 of 2 slices) orders its own runs
"$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/s" --slice 2/2 -j 1 --no-progress 2>"$T/s.log" >/dev/null
[ "$(order "$T/s.log")" = " 3  1 " ] || fail "slice 2/2: $(cat "$T/s.log")"
# without cost: index order
sed -i '/^cost:/d' "$T/c.yaml"
"$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/b" -j 1 --no-progress 2>"$T/b.log" >/dev/null
[ "$(order "$T/b.log")" = " 0  1  2  3  4 " ] || fail "index order expected: $(cat "$T/b.log")"
echo PASS
