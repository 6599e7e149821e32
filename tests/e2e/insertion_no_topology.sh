#!/usr/bin/env bash
# The host refuses cohesive insertion under an integrator that does not
# declare SHARD_CAP_TOPOLOGY (it could not rebuild its storage after a
# crack opens): the fracturing bar under the test_crash integrator (explicit
# central differences, force family, no topology capability) exits 2 before
# any step, naming the case, the integrator and the ways out, and writes no
# run; `validate` refuses it the same way; the same case with
# fracture.insertion: false runs.
set -euo pipefail
shard="$1" src="$2" build="$3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
plugins=(--plugin-path "$build/tests/plugins/crash")
[ -f "$build/tests/plugins/crash/test_crash.so" ] || fail "test_crash.so not built"
case="$src/cases/paper/free_ring_penalty_case.yaml"
common=(--set integrator.plugin=test_crash --set time.end=2e-9 --set time.stop=end --no-progress)
want="$case: integrator 'test_crash' does not support topology changes (cohesive insertion); set fracture.insertion: false or use nsn, cd_lagrange, explicit_newmark or moreau_jean"

set +e
"$shard" "${plugins[@]}" run "$case" "${common[@]}" -o "$tmp/run" >"$tmp/out" 2>"$tmp/err"; code=$?
set -e
[ "$code" -eq 2 ] || { cat "$tmp/err"; fail "insertion under an integrator without SHARD_CAP_TOPOLOGY: exit $code, expected 2"; }
grep -qF "$want" "$tmp/err" || { cat "$tmp/err"; fail "the refusal's message"; }
[ ! -e "$tmp/run/summary.yaml" ] || fail "a refused run wrote a summary"
[ ! -e "$tmp/run/history.csv" ] || fail "a refused run wrote a history"

set +e
"$shard" "${plugins[@]}" validate "$case" "${common[@]:0:6}" >"$tmp/vout" 2>"$tmp/verr"; code=$?
set -e
[ "$code" -eq 2 ] || { cat "$tmp/verr"; fail "validate: exit $code, expected 2"; }
grep -qF "$want" "$tmp/verr" || { cat "$tmp/verr"; fail "validate's message"; }

# without insertion the same integrator runs the case
"$shard" "${plugins[@]}" run "$case" "${common[@]}" --set fracture.insertion=false -o "$tmp/flat" >/dev/null 2>"$tmp/flat.err" ||
  { cat "$tmp/flat.err"; fail "fracture.insertion: false under test_crash did not run"; }
grep -q "^status: ok" "$tmp/flat/summary.yaml" || fail "the run without insertion: $(grep '^status' "$tmp/flat/summary.yaml")"
echo "ok"
