#!/usr/bin/env bash
# A damaged checkpoint or partial history is refused by `shard run --restart`
# (exit 2, "corrupt (what)", nothing written) instead of continuing from it:
# a flipped bit in the checkpoint, a truncated checkpoint, a partial history
# cut short (which used to restart to exit 0 with NUL bytes in history.csv),
# NUL-filled or with a byte changed, and a checkpoint of an earlier format.
set -euo pipefail
shard="$1" src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case="$src/tests/cases/fracture/expanding.yaml"
"$shard" run "$case" -o "$tmp/full" --set model.elements=100 --set time.checkpoint_every=150 --no-progress >/dev/null
size=$(stat -c %s "$tmp/full/checkpoint.bin")

fresh() { # DIR: the state of a run killed after its checkpoint
  rm -rf "$1" && mkdir "$1"
  cp "$tmp/full/case.resolved.yaml" "$tmp/full/checkpoint.bin" "$1/"
  cp "$tmp/full/history.csv" "$1/.history.csv.partial"
}
refused() { # DIR WHAT PATTERN: --restart exits 2 with PATTERN and writes nothing
  set +e
  "$shard" run --restart "$1" --no-progress >/dev/null 2>"$tmp/err"
  local code=$?
  set -e
  [ "$code" -eq 2 ] || { echo "FAIL: $2: exit $code"; cat "$tmp/err"; exit 1; }
  grep -q -- "$3" "$tmp/err" || { echo "FAIL: $2: message"; cat "$tmp/err"; exit 1; }
  [ ! -e "$1/history.csv" ] && [ ! -e "$1/summary.yaml" ] || { echo "FAIL: $2: outputs written"; exit 1; }
}

fresh "$tmp/ok"
"$shard" run --restart "$tmp/ok" --no-progress >/dev/null
cmp "$tmp/ok/history.csv" "$tmp/full/history.csv" || { echo "FAIL: an intact checkpoint does not continue"; exit 1; }

for at in 20 100 5000 $((size / 2)) $((size - 3)); do
  fresh "$tmp/b"
  printf '\x5a' | dd of="$tmp/b/checkpoint.bin" bs=1 seek="$at" conv=notrunc status=none
  refused "$tmp/b" "byte $at of the checkpoint changed" "checkpoint $tmp/b/checkpoint.bin: corrupt ("
done
for n in 0 100 $((size - 1)); do
  fresh "$tmp/t"
  truncate -s "$n" "$tmp/t/checkpoint.bin"
  refused "$tmp/t" "checkpoint truncated to $n bytes" "checkpoint $tmp/t/checkpoint.bin: corrupt ("
done
fresh "$tmp/h"
truncate -s 4096 "$tmp/h/.history.csv.partial"
refused "$tmp/h" "partial history truncated" "partial history $tmp/h/.history.csv.partial: corrupt (truncated: 4096 bytes"
fresh "$tmp/z"
dd if=/dev/zero of="$tmp/z/.history.csv.partial" bs=1 seek=3000 count=4000 conv=notrunc status=none
refused "$tmp/z" "partial history with NUL bytes" "corrupt (NUL byte at offset 3000)"
fresh "$tmp/c"
printf 'x' | dd of="$tmp/c/.history.csv.partial" bs=1 seek=2000 conv=notrunc status=none
refused "$tmp/c" "partial history with a byte changed" "partial history $tmp/c/.history.csv.partial: corrupt ("
fresh "$tmp/o"
printf 'SHARDCK3' | dd of="$tmp/o/checkpoint.bin" bs=1 conv=notrunc status=none
refused "$tmp/o" "format 3" "format 3, written by another version of shard; this one reads format 4"
echo "checkpoint_corrupt: PASS"
