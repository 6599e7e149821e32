#!/usr/bin/env bash
# A case whose contact law is of the other family than its integrator's is
# refused (exit 2) with a message naming both, in plain English: "a force
# law", "an impact law".
#   bash contact_family_messages.sh <shard-exe> <source-dir> <build-dir>
set -u
shard=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() { # yaml expected-message
  printf '%s' "$1" > "$work/c.yaml"
  out=$(cd "$work" && "$shard" run c.yaml -o out 2>&1)
  rc=$?
  [ "$rc" -eq 2 ] || { echo "FAIL: exit $rc, expected 2: $out"; fail=1; }
  [ "$out" = "shard run: $2" ] || { echo "FAIL: message differs"; echo "  got:      $out"; echo "  expected: shard run: $2"; fail=1; }
}
check $'model: {type: particle, position: 1}\nintegrator: {plugin: explicit_newmark}\ncontact:\n  impact: {plugin: newton_impact, restitution: 0.5}\ntime: {end: 1, dt: 1e-3}\n' \
  "c.yaml: integrator 'explicit_newmark' uses a force law but the case has no 'contact.force'; add for example contact: {force: {plugin: penalty, alpha: 10}}"
check $'model: {type: particle, position: 1}\nintegrator: {plugin: nsn}\ncontact:\n  force: {plugin: penalty, alpha: 10}\ntime: {end: 1, dt: 1e-3}\n' \
  "c.yaml: integrator 'nsn' uses an impact law but the case has no 'contact.impact'; add for example contact: {impact: {plugin: newton_impact, restitution: 0.5}}"
check $'model: {type: particle, position: 1}\nintegrator: {plugin: nsn}\ncontact:\n  impact: {plugin: penalty, alpha: 10}\ntime: {end: 1, dt: 1e-3}\n' \
  "c.yaml: 'penalty' is a force law, but integrator 'nsn' takes an impact law in 'contact.impact' (for example newton_impact)"
[ "$fail" -eq 0 ] && echo "contact_family_messages: ok"
exit "$fail"
