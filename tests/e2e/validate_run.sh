#!/usr/bin/env bash
# `shard validate` checks whatever `shard run` checks before its first step
# (they share the set-up): over the whole bad corpus tests/cases/bad/, and a
# few refusals of the set-up itself given with --set, both commands exit
# alike and print the same error lines (the closing "shard run: ..." /
# "shard validate: ..." line compared without its command word). Every case
# of cases/ and tests/cases/fracture/ validates.
#   bash validate_run.sh <shard-exe> <source-dir> <build-dir>
set -u
shard=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$src/tests/e2e/lib/bad_corpus.sh"
stage_bad_corpus "$src" "$work"
cp "$src/cases/paper/bar_impact_e0.yaml" "$work/bar.yaml"

fail=0 n=0
# what a command says about an input: its errors, the command word taken out
said() {
  grep -E ': error: |^shard (run|validate): ' | sed -E 's/^shard (run|validate): /shard: /' |
    grep -v '^shard: outputs up to the failing step'
}
compare() { # label, input, extra arguments...
  local label=$1 input=$2
  shift 2
  local vout vrc rout rrc
  vout=$(cd "$work" && timeout 20 "$shard" validate "$input" "$@" 2>&1)
  vrc=$?
  rout=$(cd "$work" && timeout 20 "$shard" run "$input" "$@" -o "$work/out-$n" --no-progress 2>&1)
  rrc=$?
  n=$((n + 1))
  if [ "$vrc" -ne "$rrc" ]; then
    echo "FAIL $label: validate exits $vrc, run exits $rrc"
    printf '%s\n' "$vout" "$rout" | head -8 | sed 's/^/    /'
    fail=1
  elif [ "$vrc" -ne 2 ]; then
    echo "FAIL $label: exit $vrc, expected 2"
    fail=1
  elif [ "$(printf '%s\n' "$vout" | said)" != "$(printf '%s\n' "$rout" | said)" ]; then
    echo "FAIL $label: validate and run say different things"
    diff <(printf '%s\n' "$vout" | said) <(printf '%s\n' "$rout" | said) | head -8 | sed 's/^/    /'
    fail=1
  fi
}
for f in "$bad"/*.yaml; do
  compare "$(basename "$f")" "tests/cases/bad/$(basename "$f")"
done
# refusals of the set-up, not of the file
compare "fallback nosuch" bar.yaml --set lcp.on_failure=fallback --set lcp.fallback=nosuch
compare "young 1.7e308" bar.yaml --set model.young=1.7e308
compare "explicit_newmark at 1.5 dt_c" bar.yaml --set integrator.plugin=explicit_newmark --set 'time.dt=1.5 * dt_c'
compare "nsn at 1.01 dt_c" bar.yaml --set 'time.dt=1.01 * dt_c_default'
compare "checkpoint_every int64 max" bar.yaml --set time.checkpoint_every=9223372036854775807
compare "fields interval" bar.yaml --set output.fields_interval=-1
# a campaign is validated run by run through the same set-up
printf 'base: bar.yaml\nset:\n  integrator.plugin: explicit_newmark\nsweep:\n  time.dt: ["0.5 * dt_c", "1.5 * dt_c"]\n' \
  > "$work/camp.yaml"
out=$(cd "$work" && timeout 20 "$shard" validate camp.yaml 2>&1)
rc=$?
n=$((n + 1))
if [ "$rc" -ne 2 ] || ! printf '%s\n' "$out" | grep -q "run 1 (time.dt=1.5 \* dt_c) is not a valid case" ||
  ! printf '%s\n' "$out" | grep -q "is 1.5 times the stable step dt_c_default"; then
  echo "FAIL campaign with a run above the stable step: exit $rc"
  printf '%s\n' "$out" | head -5 | sed 's/^/    /'
  fail=1
fi
# every case validates (campaign files are checked by campaign_validate.sh)
for f in "$src"/cases/paper/*.yaml "$src"/tests/cases/fracture/*.yaml; do
  grep -qE '^(sweep|sweeps|base):' "$f" && continue
  out=$(timeout 60 "$shard" validate "$f" 2>&1) || { echo "FAIL $f does not validate:"; printf '%s\n' "$out" | head -5; fail=1; }
done
[ "$fail" -eq 0 ] && echo "validate_run: $n inputs, validate and run refuse each alike"
exit "$fail"
