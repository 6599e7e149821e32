#!/usr/bin/env bash
# e2e: `name:` of a case or a campaign names its default output directory
# out/NAME, so it is one plain path component (as plot file names are): '..',
# '.', '', 'a/b', '../../X' (hostile input) are refused by validate, run and
# campaign with exit 2 and FILE:LINE:COL, and nothing is written outside out/.
# (The case files are in tests/cases/bad/name_*.yaml, run by bad_inputs.sh.)
# usage: outdir_names.sh SHARD SOURCE_DIR BUILD_DIR
set -uo pipefail
shard=$(realpath "$1") src=$(cd "$2" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$T/a/b"
cd "$T/a/b" || exit 1
cp "$src/cases/paper/ball_e08.yaml" base.yaml
msg="must be a plain name (letters, digits, '_', '-', '.'; not starting with '.'): it names the output directory"
n=0
for name in '../../X' '..' '.' '' 'a/b' '/tmp/X' '.hidden'; do # hostile input
  # a campaign named so
  printf 'name: "%s"\nbase: base.yaml\nsweep:\n  time.dt: [1e-2, 2e-2]\n' "$name" >c.yaml
  for cmd in "campaign c.yaml --dry-run" "campaign c.yaml --no-progress"; do
    out=$("$shard" $cmd 2>&1); code=$?
    [ "$code" -eq 2 ] || fail "'$cmd' with name '$name' exited $code: $out"
    grep -qxF "c.yaml:1:7: error: campaign name '$name' $msg" <<<"$out" || fail "campaign name '$name': $out"
  done
  # a case named so, by --set
  for cmd in validate run; do
    out=$("$shard" $cmd base.yaml --set "name=\"$name\"" 2>&1); code=$?
    [ "$code" -eq 2 ] || fail "$cmd --set name='$name' exited $code: $out"
    grep -qF "error: case name '$name' $msg" <<<"$out" || fail "$cmd --set name='$name': $out"
  done
  n=$((n + 1))
done
[ -z "$(ls -A "$T" | grep -vx a)" ] && [ -z "$(ls -A "$T/a" | grep -vx b)" ] || fail "written outside out/: $(ls -A "$T" "$T/a")"
# plain names still work
printf 'name: my_study-1.b\nbase: base.yaml\nsweep:\n  time.dt: [1e-2]\n' >c.yaml
"$shard" campaign c.yaml --no-progress >/dev/null || fail "campaign with a plain name"
[ -f out/my_study-1.b/campaign.csv ] || fail "out/my_study-1.b/campaign.csv"
echo "outdir_names: $n bad names refused in campaigns and cases (exit 2, file:line:col); plain names run"
