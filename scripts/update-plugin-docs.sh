#!/usr/bin/env bash
# Regenerate the parameter table of every plugin README from its descriptor.
#
#   scripts/update-plugin-docs.sh [--check] [--shard PATH/TO/shard]
#
# For every plugins/<kind>/<name>/ (a directory with a CMakeLists.txt), the
# README.md must contain the two marker lines
#     <!-- params:begin -->
#     <!-- params:end -->
# and the text between them is replaced with `shard describe <name> --markdown`.
# A folder that holds more plugins than its own name (plugins/models/bar:
# `bar` and `particle`) documents each other one between
#     <!-- params:begin OTHER -->  and  <!-- params:end OTHER -->
# --check rewrites nothing and exits 1 if any README is missing, lacks the
# markers, or is stale (the diff is printed). The shard executable defaults
# to build/bin/shard under the source tree (or $SHARD); it finds the build
# tree's plugins next to itself. An optional plugin (its CMakeLists.txt has a
# line starting '# optional plugin') that the build lacks is skipped, said so.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
check=0
shard="${SHARD:-$root/build/bin/shard}"
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --shard) shard="$2"; shift ;;
    --shard=*) shard="${1#--shard=}" ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "update-plugin-docs: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
if [ ! -x "$shard" ]; then
  echo "update-plugin-docs: no shard executable at '$shard' (build first, or pass --shard)" >&2
  exit 2
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bad=0 n=0
for dir in "$root"/plugins/*/*/; do
  dir="${dir%/}"
  [ -f "$dir/CMakeLists.txt" ] || continue
  n=$((n + 1))
  name="$(basename "$dir")"
  readme="$dir/README.md"
  rel="${readme#"$root"/}"
  if [ ! -f "$readme" ]; then
    echo "$rel: missing (every plugin has a README with a generated parameter table)" >&2
    bad=1
    continue
  fi
  nb=$(grep -c '^<!-- params:begin -->[[:space:]]*$' "$readme" || true)
  ne=$(grep -c '^<!-- params:end -->[[:space:]]*$' "$readme" || true)
  if [ "$nb" != 1 ] || [ "$ne" != 1 ]; then
    echo "$rel: needs exactly one '<!-- params:begin -->' line and one '<!-- params:end -->' line" >&2
    bad=1
    continue
  fi
  if grep -qs '^# optional plugin' "$dir/CMakeLists.txt" && ! "$shard" describe "$name" >/dev/null 2>&1; then
    echo "$rel: not checked: optional plugin '$name' is not in this build (its CMakeLists.txt says what it needs)" >&2
    n=$((n - 1))
    continue
  fi
  if ! "$shard" describe "$name" --markdown >"$tmp/table" 2>"$tmp/err"; then
    echo "$rel: 'shard describe $name --markdown' failed: $(cat "$tmp/err")" >&2
    bad=1
    continue
  fi
  awk -v table="$tmp/table" '
    /^<!-- params:begin -->[[:space:]]*$/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
    /^<!-- params:end -->[[:space:]]*$/ { skip = 0 }
    !skip { print }
  ' "$readme" >"$tmp/new"
  # the folder's other plugins, by name
  for other in $(sed -n 's/^<!-- params:begin \([a-z][a-z0-9_]*\) -->[[:space:]]*$/\1/p' "$readme"); do
    if ! grep -q "^<!-- params:end $other -->[[:space:]]*\$" "$readme"; then
      echo "$rel: '<!-- params:begin $other -->' has no '<!-- params:end $other -->'" >&2
      bad=1
      continue
    fi
    if ! "$shard" describe "$other" --markdown >"$tmp/table" 2>"$tmp/err"; then
      echo "$rel: 'shard describe $other --markdown' failed: $(cat "$tmp/err")" >&2
      bad=1
      continue
    fi
    awk -v table="$tmp/table" -v b="<!-- params:begin $other -->" -v e="<!-- params:end $other -->" '
      $0 == b { print; while ((getline line < table) > 0) print line; close(table); skip = 1; next }
      $0 == e { skip = 0 }
      !skip { print }
    ' "$tmp/new" >"$tmp/new2" && mv "$tmp/new2" "$tmp/new"
  done
  if ! cmp -s "$readme" "$tmp/new"; then
    if [ "$check" = 1 ]; then
      echo "$rel: parameter table is stale (run scripts/update-plugin-docs.sh):" >&2
      diff -u "$readme" "$tmp/new" | sed 's/^/  /' >&2 || true
      bad=1
    else
      cp "$tmp/new" "$readme"
      echo "updated $rel"
    fi
  fi
done
if [ "$check" = 1 ]; then
  if [ "$bad" = 0 ]; then echo "plugin docs: $n README(s) up to date"; fi
fi
exit "$bad"
