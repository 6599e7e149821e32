#!/usr/bin/env bash
# The LCP failure policy inside a run (docs/cases.md, `lcp`): pgs capped at one sweep fails
# on the damaged bar's coupled blocks; on_failure: stop ends the run with
# exit 3 and a message naming step, time, solver and cause, keeping the
# outputs; on_failure: fallback retries with lemke and counts it; dump: true
# writes the failing problems, which `shard lcp` then solves offline.
set -euo pipefail
shard="$1" src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case="$src/cases/paper/damaged_bar.yaml"
small=(--set model.elements=200 --set fracture.initial.count=100 --set time.end=5e-9 --set lcp.plugin=pgs
       --set lcp.max_sweeps=1 --no-progress)
fail() { echo "FAIL: $*"; exit 1; }

set +e
"$shard" run "$case" "${small[@]}" --set lcp.on_failure=stop -o "$tmp/stop" >/dev/null 2>"$tmp/stop.err"; code=$?
set -e
[ "$code" -eq 3 ] || fail "on_failure=stop exited $code"
grep -qE "step [0-9]+ \(t = [0-9.e+-]+ s\): integrator 'nsn'.*lcp 'pgs': block of [0-9]+ contacts: no convergence after 1 sweep" "$tmp/stop.err" ||
  { cat "$tmp/stop.err"; fail "stop message"; }
grep -q "^status: numerical_failure" "$tmp/stop/summary.yaml" || fail "summary status"
[ -s "$tmp/stop/history.csv" ] || fail "history not kept"

"$shard" run "$case" "${small[@]}" --set lcp.on_failure=fallback --set lcp.fallback=lemke --set lcp.dump=true \
  -o "$tmp/fb" >/dev/null
fallbacks=$(awk '/^  fallbacks:/ {print $2}' "$tmp/fb/summary.yaml")
[ "$fallbacks" -gt 0 ] || fail "no fallback counted"
res=$(awk '/^  max_residual:/ {print $2}' "$tmp/fb/summary.yaml")
awk -v r="$res" 'BEGIN { exit !(r <= 1e-9) }' || fail "fallback residual $res"
dumps=("$tmp/fb"/lcp_step*_block*.M.mtx) # a glob, not ls | head (SIGPIPE under pipefail)
m=${dumps[0]}
[ -f "$m" ] || fail "no dumped problem"
"$shard" lcp --solver lemke "$m" "${m%.M.mtx}.q.mtx" > "$tmp/lcp.out" || fail "shard lcp on the dump"
grep -q "^status: ok" "$tmp/lcp.out" || { cat "$tmp/lcp.out"; fail "shard lcp output"; }
# a misspelt solver or parameter: exit 2 with the closest name
lcp_refuses() { # expected stderr, shard lcp arguments...
  local want=$1 code
  shift
  set +e
  "$shard" lcp "$@" "$m" "${m%.M.mtx}.q.mtx" >/dev/null 2>"$tmp/bad.err"; code=$?
  set -e
  [ "$code" -eq 2 ] || fail "shard lcp $* exited $code"
  grep -qF "$want" "$tmp/bad.err" || { cat "$tmp/bad.err"; fail "shard lcp $*: message"; }
}
lcp_refuses "unknown LCP solver 'lemk'; did you mean 'lemke'?" --solver lemk
lcp_refuses "solver 'pgs' has no parameter 'tolerence'; did you mean 'tolerance'?" --solver pgs --set tolerence=1e-3
echo "lcp_policy: PASS ($fallbacks fallbacks, ${#dumps[@]} dumped problems)"
