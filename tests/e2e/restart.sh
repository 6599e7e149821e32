#!/usr/bin/env bash
# A fragmentation run (NSN, insertions) killed with SIGKILL after its first
# checkpoint and continued with `shard run --restart DIR` ends bit for bit
# like the uninterrupted run: same history.csv, interfaces.csv, fragments.csv
# and summary (wall times aside).
set -euo pipefail
shard="$1" src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case="$src/tests/cases/fracture/expanding.yaml"
sets=(--set model.elements=2000 --set time.checkpoint_every=400 --no-progress)

"$shard" run "$case" -o "$tmp/full" "${sets[@]}" >/dev/null

"$shard" run "$case" -o "$tmp/killed" "${sets[@]}" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 6000); do
  [ -f "$tmp/killed/checkpoint.bin" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.01
done
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
if [ -f "$tmp/killed/summary.yaml" ]; then
  echo "FAIL: the run finished before it could be killed; make it longer"; exit 1
fi
[ -f "$tmp/killed/checkpoint.bin" ] || { echo "FAIL: no checkpoint written"; exit 1; }
[ ! -f "$tmp/killed/history.csv" ] || { echo "FAIL: history.csv published by a killed run"; exit 1; }

"$shard" run --restart "$tmp/killed" --no-progress >/dev/null
for f in history.csv interfaces.csv fragments.csv; do
  cmp "$tmp/full/$f" "$tmp/killed/$f" || { echo "FAIL: $f differs after restart"; exit 1; }
done
strip() { grep -vE '^\s+(total|setup|loop|per_step):' "$1"; }
diff <(strip "$tmp/full/summary.yaml") <(strip "$tmp/killed/summary.yaml") || { echo "FAIL: summary differs"; exit 1; }
steps=$(grep -m1 '^steps:' "$tmp/full/summary.yaml")
echo "restart: bit-for-bit identical ($steps, killed after the first checkpoint)"

# a restart of a directory without a checkpoint is bad input
mkdir -p "$tmp/empty"; cp "$tmp/full/case.resolved.yaml" "$tmp/empty/"
set +e
"$shard" run --restart "$tmp/empty" >/dev/null 2>"$tmp/err"; code=$?
set -e
[ "$code" -eq 2 ] || { echo "FAIL: restart without checkpoint exited $code"; cat "$tmp/err"; exit 1; }
grep -q "no checkpoint in" "$tmp/err" || { echo "FAIL: message"; cat "$tmp/err"; exit 1; }
echo "restart: PASS"
