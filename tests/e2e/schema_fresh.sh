#!/usr/bin/env bash
# The committed schema and generated docs must be what `shard schema` prints
# for the build tree's plugins; every case file must name the schema.
#   bash schema_fresh.sh <shard-exe> <source-dir> <build-dir>
set -u
shard=$1 src=$2 build=$3
fail=0
run() { env -u SHARD_PLUGIN_PATH "$shard" "$@"; }
fix="run: scripts/update-schemas.sh $build"

# The committed schemas and docs list every plugin. A build without an
# optional plugin (no library for it) cannot regenerate them: the comparison
# is skipped, said so, and the rest checked.
missing=""
for d in "$src"/plugins/*/*/; do
  grep -qs '^# optional plugin' "$d/CMakeLists.txt" || continue
  n=$(basename "$d")
  run describe "$n" > /dev/null 2>&1 || missing="$missing $n"
done

diffs=$(mktemp)
if [ -n "$missing" ]; then
  echo "SKIP: this build lacks the optional plugin(s)$missing (scripts/install-deps.sh installs what they need):"
  echo "      schemas/*.schema.json and docs/cases.md, generated with every plugin, are not compared"
elif ! run schema campaign | diff -u "$src/schemas/campaign.schema.json" - > "$diffs"; then
  echo "FAIL: schemas/campaign.schema.json is stale; $fix"
  head -40 "$diffs"
  fail=1
fi
if [ -z "$missing" ] && ! run schema | diff -u "$src/schemas/case.schema.json" - > "$diffs"; then
  echo "FAIL: schemas/case.schema.json is stale; $fix"
  head -40 "$diffs"
  fail=1
fi
rm -f "$diffs"

begin='<!-- BEGIN generated: shard schema --markdown -->'
end='<!-- END generated: shard schema --markdown -->'
committed=$(awk -v begin="$begin" -v end="$end" '$0 == end { skip = 0 } skip { print } $0 == begin { skip = 1 }' "$src/docs/cases.md")
if [ -z "$missing" ] && [ "$committed" != "$(run schema --markdown)" ]; then
  echo "FAIL: the generated tables of docs/cases.md are stale; $fix"
  fail=1
fi

# the schema is valid JSON (python3 is optional: checked when present)
if command -v python3 > /dev/null; then
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$src/schemas/case.schema.json" ||
    { echo "FAIL: schemas/case.schema.json is not valid JSON"; fail=1; }
fi

# every runnable case names its schema on the first line, by a path that exists
while IFS= read -r -d '' f; do
  first=$(head -n1 "$f")
  case "$first" in
    "# yaml-language-server: \$schema="*) ;;
    *) echo "FAIL: $f: first line is not the yaml-language-server schema comment"; fail=1; continue ;;
  esac
  rel=${first#*\$schema=}
  [ -f "$(dirname "$f")/$rel" ] || { echo "FAIL: $f: schema path '$rel' does not exist"; fail=1; }
  # a case that names the case schema is valid
  # a case or campaign that names its schema is valid (campaigns: every point)
  if { [ "$(basename "$rel")" = case.schema.json ] || [ "$(basename "$rel")" = campaign.schema.json ]; } &&
    ! out=$(run validate "$f" 2>&1); then
    echo "FAIL: $f does not validate:"
    printf '%s\n' "$out" | head -10
    fail=1
  fi
done < <(find "$src/cases" "$src/tests/cases/fracture" -name '*.yaml' -print0 2>/dev/null)

if [ "$fail" -eq 0 ]; then
  if [ -n "$missing" ]; then echo "schema_fresh: the case files name and pass the schema (staleness not compared)"
  else echo "schema_fresh: schemas/case.schema.json and docs/cases.md are up to date"; fi
fi
exit "$fail"
