#!/usr/bin/env bash
# The host checks every LCP solution a solver reports as solved (z >= 0,
# w = Wz + q >= 0, complementarity, to lcp.check_tolerance). test_liar_lcp
# returns z = 0 with status OK on every block: the impacting bar then went
# through the wall (1.96 mm) with exit 0. Now on_failure: stop ends the run
# with exit 3 naming step, time, solver and the failed condition, and
# on_failure: fallback solves every block with lemke (counted), the bar
# stopping at the wall.
set -euo pipefail
shard="$1" src="$2" build="$3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
liar=(--plugin-path "$build/tests/plugins/liar")
case="$src/cases/paper/bar_impact_e0.yaml"
common=(--set lcp.plugin=test_liar_lcp --set lcp.scalar_blocks=solver --no-progress)

set +e
"$shard" "${liar[@]}" run "$case" "${common[@]}" -o "$tmp/stop" >/dev/null 2>"$tmp/stop.err"; code=$?
set -e
[ "$code" -eq 3 ] || { cat "$tmp/stop.err"; fail "a solver returning z = 0 as solved: exit $code, expected 3"; }
grep -qE "step [0-9]+ \(t = [0-9.e+-]+ s\): integrator 'nsn': .*lcp 'test_liar_lcp': block of 1 contacts: reported success, but the host's check of its solution fails at contact 0 of 1: violated constraint \(w < 0\), z = 0, w = -[0-9.e+-]+; residual 1 above the check tolerance 1e-11" "$tmp/stop.err" ||
  { cat "$tmp/stop.err"; fail "stop message"; }
grep -q "^status: numerical_failure" "$tmp/stop/summary.yaml" || fail "summary status"
pen=$(awk '/^  max_penetration:/ {print $2}' "$tmp/stop/summary.yaml")
awk -v p="$pen" 'BEGIN { exit !(p < 1e-5) }' || fail "penetration $pen m before the stop"

"$shard" "${liar[@]}" run "$case" "${common[@]}" --set lcp.on_failure=fallback --set lcp.fallback=lemke \
  -o "$tmp/fb" >/dev/null
fallbacks=$(awk '/^  fallbacks:/ {print $2}' "$tmp/fb/summary.yaml")
blocks=$(awk '/^  blocks:/ {print $2}' "$tmp/fb/summary.yaml")
# z = 0 is the true solution of a block whose contact separates: not every block falls back
[ "$fallbacks" -gt 0 ] && [ "$fallbacks" -le "$blocks" ] || fail "fallbacks $fallbacks of $blocks blocks"
pen=$(awk '/^  max_penetration:/ {print $2}' "$tmp/fb/summary.yaml")
awk -v p="$pen" 'BEGIN { exit !(p < 1e-5) }' || fail "penetration $pen m with the fallback"

# an explicit check tolerance is the one applied (and named)
set +e
"$shard" "${liar[@]}" run "$case" "${common[@]}" --set lcp.check_tolerance=0.5 -o "$tmp/tol" >/dev/null 2>"$tmp/tol.err"
code=$?
set -e
[ "$code" -eq 3 ] && grep -q "residual 1 above the check tolerance 0.5" "$tmp/tol.err" ||
  { cat "$tmp/tol.err"; fail "lcp.check_tolerance = 0.5: exit $code"; }
echo "lcp_host_check: PASS (stop at exit 3; $fallbacks fallbacks, penetration $pen m)"
