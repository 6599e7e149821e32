#!/usr/bin/env bash
# scripts/restitution_figure.sh on a table written here: per-e seed means
# with 95% Student-t intervals, the seed-paired difference between the
# lowest and highest e, a failed run left out, and the figure written.
# usage: figure_scripts.sh SHARD SOURCE_DIR BUILD_DIR (needs gnuplot)
set -uo pipefail
src=$(cd "$2" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cols="index,status,contact.impact.restitution,fracture.strength.seed,fracture.g_hat_per_fragment,fracture.dissipation"
cols="$cols,energy.contact_dissipation,energy.initial,energy.external_work,fracture.fragments"
{
  echo "$cols"
  # e = 0: N_f 80, 76, 78; e = 1: N_f 70, 70, 66 (differences 10, 6, 12: mean 9.33, sd 3.06)
  echo "0,ok,0,1,1.8,7000,8000,1000,19000,80"
  echo "1,ok,1,1,4.0,14000,0,1000,19000,70"
  echo "2,ok,0,2,1.9,7100,8100,1000,19000,76"
  echo "3,ok,1,2,4.1,13900,0,1000,19000,70"
  echo "4,ok,0,3,1.7,6900,7900,1000,19000,78"
  echo "5,ok,1,3,4.2,13800,0,1000,19000,66"
  echo "6,failed,0,4,,,,,,"
} > "$T/campaign.csv"
out=$(bash "$src/scripts/restitution_figure.sh" "$T/r.png" "$T/campaign.csv" 2>&1) || fail "script: $out"
[ -s "$T/r.png" ] || fail "no figure written"
# e = 0: N_f 78 ± t(2)·2/√3 = 78 ± 4.97; fracture / injected 0.35, 0.355, 0.345: 0.350 ± 4.303·0.005/√3 = ± 0.012
grep -qF "| 0 | 3 | 78.0 ± 5.0 | 1.80 ± 0.25 | 0.350 ± 0.012 | 0.750 ± 0.025 | 8000 |" <<<"$out" || fail "e = 0 row: $out"
grep -qF "| 1 | 3 | 68.7 ± 5.7 | 4.10 ± 0.25 | 0.695 ± 0.012 | 0.695 ± 0.012 | 0 |" <<<"$out" || fail "e = 1 row: $out"
# paired: N_f 9.33 ± 4.303·3.055/√3 = 9.3 ± 7.6; energy -6900 ± 4.303·100/√3 = -6900 ± 248
grep -qF "seed-paired, e = 0 minus e = 1, 3 seeds: N_f +9.3 ± 7.6 (higher at e = 0 in 3 of 3), fracture energy -6900 ± 248 J" <<<"$out" ||
  fail "paired line: $out"
echo PASS
