#!/usr/bin/env bash
# Regenerate what `shard schema` derives from the spec tables of the build
# tree's plugins:
#   schemas/case.schema.json       (shard schema)
#   schemas/campaign.schema.json   (shard schema campaign)
#   docs/cases.md, generated part  (shard schema --markdown, between the markers)
#   docs/outputs.md, generated part (shard schema outputs, between the markers)
# usage: scripts/update-schemas.sh [BUILD_DIR]      (default: build)
# tests/e2e/schema_fresh.sh fails when the committed files are stale.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shard="$build/bin/shard"
[ -x "$shard" ] || { echo "update-schemas: $shard not found (build first, or pass the build dir)" >&2; exit 1; }
# only the build tree's plugins: no user plugin path
run() { env -u SHARD_PLUGIN_PATH "$shard" "$@"; }

# the committed files describe every plugin: refuse a build without an
# optional one (its CMakeLists.txt says '# optional plugin' and what it needs)
for d in "$root"/plugins/*/*/; do
  grep -qs '^# optional plugin' "$d/CMakeLists.txt" || continue
  n=$(basename "$d")
  run describe "$n" >/dev/null 2>&1 ||
    { echo "update-schemas: this build lacks the optional plugin '$n' (see ${d#"$root"/}CMakeLists.txt; scripts/install-deps.sh): the schemas must list every plugin" >&2; exit 1; }
done

run schema > "$root/schemas/case.schema.json.tmp"
mv "$root/schemas/case.schema.json.tmp" "$root/schemas/case.schema.json"
run schema campaign > "$root/schemas/campaign.schema.json.tmp"
mv "$root/schemas/campaign.schema.json.tmp" "$root/schemas/campaign.schema.json"

begin='<!-- BEGIN generated: shard schema --markdown -->'
end='<!-- END generated: shard schema --markdown -->'
doc="$root/docs/cases.md"
grep -qF "$begin" "$doc" && grep -qF "$end" "$doc" || { echo "update-schemas: markers missing in $doc" >&2; exit 1; }
table=$(mktemp)
trap 'rm -f "$table"' EXIT
splice() { # DOC BEGIN END: replace the lines between the markers by $table
  awk -v begin="$2" -v end="$3" -v table="$table" '
    $0 == begin { print; while ((getline line < table) > 0) print line; skip = 1; next }
    $0 == end { skip = 0 }
    !skip { print }
  ' "$1" > "$1.tmp"
  mv "$1.tmp" "$1"
}
run schema --markdown > "$table"
splice "$doc" "$begin" "$end"

begin='<!-- BEGIN generated: shard schema outputs -->'
end='<!-- END generated: shard schema outputs -->'
doc="$root/docs/outputs.md"
grep -qF "$begin" "$doc" && grep -qF "$end" "$doc" || { echo "update-schemas: markers missing in $doc" >&2; exit 1; }
run schema outputs > "$table"
splice "$doc" "$begin" "$end"
echo "updated schemas/case.schema.json, docs/cases.md and docs/outputs.md"
