#!/usr/bin/env bash
# The stable step and the energy balance are checked by the host. On the
# impacting bar (cases/paper/bar_impact_e0.yaml):
# - explicit_newmark at 1.5 dt_c ran to status ok with the energy going from
#   16 to 349 J (drift 0.75). Now it is refused at set-up (exit 2, by run and
#   validate) with dt, dt_c_default, the ratio and the limit; with
#   time.allow_unstable it runs and stops on time.max_balance_drift (exit 3),
#   naming the step as the likely cause;
# - nsn at 1.5 dt_c (allowed) fails its LCP (ray termination: W is no longer
#   positive) and says the time step is the likely cause;
# - moreau_jean (implicit) at 1.5 dt_c is not refused;
# - a run whose balance drifts beyond time.max_balance_drift stops (exit 3).
set -euo pipefail
shard="$1" src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
case="$src/cases/paper/bar_impact_e0.yaml"
en=(--set integrator.plugin=explicit_newmark --set 'time.dt=1.5 * dt_c')
run() { # expected exit, name, arguments...
  local want=$1 name=$2 code
  shift 2
  set +e
  "$shard" run "$case" "$@" -o "$tmp/$name" --no-progress >/dev/null 2>"$tmp/$name.err"; code=$?
  set -e
  [ "$code" -eq "$want" ] || { cat "$tmp/$name.err"; fail "$name: exit $code, expected $want"; }
}

run 2 refused "${en[@]}"
grep -qE "error: 'time.dt' = 6.25175e-07 s is 1.5 times the stable step dt_c_default = 4.16784e-07 s of integrator 'explicit_newmark' \(2/sqrt\(lambda_max\) of M\^-1 K with the bulk, penalty stiffness\): the scheme is stable only for dt / dt_c_default <= 1; lower time.dt, or set time.allow_unstable: true" "$tmp/refused.err" ||
  { cat "$tmp/refused.err"; fail "refusal message"; }
[ ! -e "$tmp/refused/summary.yaml" ] || fail "a refused run wrote a summary"
set +e
"$shard" validate "$case" "${en[@]}" >/dev/null 2>&1; code=$?
set -e
[ "$code" -eq 2 ] || fail "validate of the unstable step: exit $code"

run 3 allowed "${en[@]}" --set time.allow_unstable=true
grep -q "^status: numerical_failure" "$tmp/allowed/summary.yaml" || fail "allowed: summary status"
grep -qE "step [0-9]+ \(t = [0-9.e+-]+ s\): the energy balance drifted by 0\.[0-9]+ of the largest energy [0-9.]+ J, beyond time.max_balance_drift = 0.1: .*time.dt = 6.25175e-07 s is 1.5 times the stable step dt_c_default = 4.16784e-07 s of this scheme \(time.allow_unstable\): the time step is the likely cause" "$tmp/allowed.err" ||
  { cat "$tmp/allowed.err"; fail "allowed: message"; }

run 3 nsn --set 'time.dt=1.5 * dt_c' --set time.allow_unstable=true
grep -qE "integrator 'nsn': .*ray termination.*: the time step is the likely cause" "$tmp/nsn.err" ||
  { cat "$tmp/nsn.err"; fail "nsn: message"; }

run 0 mj --set integrator.plugin=moreau_jean --set 'time.dt=1.5 * dt_c'

run 0 drift_default
run 3 drift_tight --set time.max_balance_drift=1e-20
grep -qE "step [0-9]+ \(t = [0-9.e+-]+ s\): the energy balance drifted by .* beyond time.max_balance_drift = 1e-20" "$tmp/drift_tight.err" ||
  { cat "$tmp/drift_tight.err"; fail "drift_tight: message"; }
grep -q "^status: numerical_failure" "$tmp/drift_tight/summary.yaml" || fail "drift_tight: summary status"
echo "stable_step: PASS"
