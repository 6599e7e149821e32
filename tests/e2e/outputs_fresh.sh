#!/usr/bin/env bash
# docs/outputs.md carries the tables `shard schema outputs` prints (the
# columns and keys of every output file with their units); it must be what
# this build prints. Fix: scripts/update-schemas.sh BUILD_DIR.
#   bash outputs_fresh.sh <shard-exe> <source-dir> <build-dir>
set -u
shard=$1 src=$2 build=$3
begin='<!-- BEGIN generated: shard schema outputs -->'
end='<!-- END generated: shard schema outputs -->'
doc="$src/docs/outputs.md"
grep -qxF "$begin" "$doc" && grep -qxF "$end" "$doc" || { echo "FAIL: $doc lacks the generated-part markers"; exit 1; }
committed=$(awk -v begin="$begin" -v end="$end" '$0 == end { skip = 0 } skip { print } $0 == begin { skip = 1 }' "$doc")
generated=$("$shard" schema outputs) || { echo "FAIL: shard schema outputs failed"; exit 1; }
if [ "$committed" != "$generated" ]; then
  echo "FAIL: the generated tables of docs/outputs.md are stale; run: scripts/update-schemas.sh $build"
  diff <(printf '%s\n' "$committed") <(printf '%s\n' "$generated") | head -20
  exit 1
fi
# every table of the generated part has rows, and each row a unit cell
rows=$(printf '%s\n' "$generated" | grep -c '^| `')
[ "$rows" -gt 100 ] || { echo "FAIL: only $rows documented columns and keys"; exit 1; }
echo "outputs_fresh: docs/outputs.md is up to date ($rows columns and keys)"
