#!/usr/bin/env bash
# e2e: a symbolic link planted in a run directory under the name of a file
# the run writes through (the partial history DIR/.history.csv.partial) is
# never followed: its target stays as it was, on a fresh start and on a
# --resume from a checkpoint. Temporaries are new files with unique names:
# none is left behind.
# usage: outdir_symlink.sh SHARD SOURCE_DIR BUILD_DIR
set -euo pipefail
shard=$1 src=$(cd "$2" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$src/tests/e2e/lib/kill.sh"
ball="$src/cases/paper/ball_e08.yaml"
printf 'precious\n' >"$T/victim"

# 1. fresh start: the planted link is removed, not followed
mkdir "$T/d"
ln -s "$T/victim" "$T/d/.history.csv.partial"
"$shard" run "$ball" -o "$T/d" --no-progress >/dev/null
[ "$(cat "$T/victim")" = precious ] || fail "the link's target was overwritten: $(head -c 80 "$T/victim")"
[ -f "$T/d/history.csv" ] && [ ! -L "$T/d/history.csv" ] || fail "history.csv is not a regular file"
grep -qx 'status: ok' "$T/d/summary.yaml" || fail "the run"
left=$(find "$T/d" -name '.*.tmp.*')
[ -z "$left" ] || fail "temporaries left behind: $left"

# 2. --resume from a checkpoint whose partial history is a link: refused, target untouched
case="$src/tests/cases/fracture/expanding.yaml"
sets=(--set model.elements=2000 --set time.checkpoint_every=400 --no-progress)
kill_after_checkpoint "$T/r" "$shard" run "$case" -o "$T/r" "${sets[@]}"
cp "$T/r/.history.csv.partial" "$T/victim2"
rm "$T/r/.history.csv.partial"
ln -s "$T/victim2" "$T/r/.history.csv.partial"
before=$(sha256sum <"$T/victim2")
code=0
"$shard" run "$case" -o "$T/r" "${sets[@]}" --resume >/dev/null 2>"$T/err" || code=$?
[ "$(sha256sum <"$T/victim2")" = "$before" ] || fail "--resume wrote through the planted link"
[ "$code" -eq 2 ] || fail "--resume through a linked partial history exited $code: $(cat "$T/err")"
grep -qF "cannot read the partial history $T/r/.history.csv.partial of the checkpoint $T/r/checkpoint.bin: it is a symbolic link" "$T/err" ||
  fail "message: $(cat "$T/err")"
[ ! -e "$T/r/summary.yaml" ] || fail "a refused resume wrote a summary"
echo "outdir_symlink: planted links never followed (fresh start, --resume); no temporaries left"
