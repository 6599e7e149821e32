#!/usr/bin/env bash
# The exact chain solver `tridiag` inside a fragmentation run against pgs at
# tolerance 1e-12: tests/cases/fracture/ring_small.yaml to t = 2e-7 s, by
# which the bar has broken into its 14 fragments and the fragments collide
# (chain blocks of up to 5 contacts). Same fragment count, insertions and
# broken interfaces; every fragment's bounds, mass and velocity and every
# energy of summary.yaml within 1e-9 relative (contact dissipation, ~1e-12 J,
# within 1e-9 of the initial energy); tridiag's LCP residual below 1e-13
# and no fallback. Later the two runs part, as pgs at 1e-12 and at 1e-14 do
# (contacts with w ~ 0 switch on residuals of 1e-13; docs/theory.md §15).
#   bash lcp_tridiag.sh <shard-exe> <source-dir> <build-dir>
set -euo pipefail
shard="$1" src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
case="$src/tests/cases/fracture/ring_small.yaml"
for s in pgs tridiag; do
  "$shard" run "$case" --no-progress --set time.end=2e-7 --set lcp.plugin=$s --set lcp.tolerance=1e-12 \
    -o "$tmp/$s" >/dev/null 2>"$tmp/$s.err" || { cat "$tmp/$s.err"; fail "run with lcp.plugin=$s"; }
done
val() { awk -v k="$2" '$1 == k":" {print $2; exit}' "$tmp/$1/summary.yaml"; }
[ "$(val tridiag fragments)" = 14 ] || fail "tridiag: $(val tridiag fragments) fragments, expected 14"
for k in fragments broken insertions steps; do
  [ "$(val pgs $k)" = "$(val tridiag $k)" ] || fail "$k: pgs $(val pgs $k), tridiag $(val tridiag $k)"
done
[ "$(val tridiag fallbacks)" = 0 ] || fail "tridiag: $(val tridiag fallbacks) fallbacks"
awk -v r="$(val tridiag max_residual)" 'BEGIN { exit !(r <= 1e-13) }' || fail "tridiag residual $(val tridiag max_residual)"
awk -v b="$(val tridiag largest_block)" 'BEGIN { exit !(b >= 3) }' || fail "no chain block (largest $(val tridiag largest_block))"
worst=0
for k in kinetic elastic external_work algorithmic dissipation cohesive_work reversible momentum; do
  a=$(val pgs $k) b=$(val tridiag $k)
  worst=$(awk -v a="$a" -v b="$b" -v w="$worst" -v k="$k" 'BEGIN {
    d = a - b; if (d < 0) d = -d; s = a < 0 ? -a : a; r = s > 0 ? d / s : d
    if (!(r <= 1e-9)) { printf "FAIL: %s: pgs %s, tridiag %s (relative %.3g)\n", k, a, b, r > "/dev/stderr"; exit 1 }
    print (r > w ? r : w) }') || fail "energies differ"
done
awk -v a="$(val pgs contact_dissipation)" -v b="$(val tridiag contact_dissipation)" -v e="$(val pgs initial)" \
  'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * e) }' || fail "contact dissipation"
# fragments.csv: same rows, every number within 1e-9 relative
paste -d, "$tmp/pgs/fragments.csv" "$tmp/tridiag/fragments.csv" | awk -F, -v w="$worst" '
  NR == 1 { n = NF / 2; next }
  { for (i = 1; i <= n; ++i) { a = $i; b = $(i + n); d = a - b; if (d < 0) d = -d; s = a < 0 ? -a : a
      r = s > 0 ? d / s : d; if (!(r <= 1e-9)) { printf "FAIL: fragments.csv row %d column %d: %s against %s\n", NR, i, a, b; bad = 1 }
      if (r > w) w = r } }
  END { if (bad || NR != 15) exit 1; printf "%.3g\n", w > "'"$tmp/worst"'" }' ||
  fail "fragments.csv differs (or not 14 fragments)"
echo "lcp_tridiag: PASS (14 fragments; largest relative difference to pgs $(cat "$tmp/worst"))"
