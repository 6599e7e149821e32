#!/usr/bin/env bash
# scripts/restitution_figure.sh on a table written here: per-e seed means
# with 95% Student-t intervals, the seed-paired difference between the
# lowest and highest e, a failed run left out, and the figure written.
# scripts/fragment_sizes_figure.sh on run directories and on a campaign's
# pooled fragment_sizes.csv: sizes over their run's mean, pooled per label or
# group, and the Kolmogorov-Smirnov distance to the first distribution.
# scripts/confined_length_figure.sh on exact power laws: the exponents over
# the runs, per seed, over ranges of lengths and counting cracks.
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

# scripts/confined_length_figure.sh: exact power laws over L = 1, 4, 16, 64 mm.
# Seed 1: G/L ~ L^1.5, seed 2: G/L ~ L^1; both N_f ~ L^1.5 (N_f G_c/L ~ L^0.5),
# seed 2 with twice seed 1's count. Pooled, balanced: G/L slope 1.25 and
# N_f G_c/L slope 0.5, whose residuals are ± ln2/2, so the interval is
# t(6) sqrt(2 ln²2 / 6 / (10 ln²4)) = 2.4469 · 0.0913 = 0.223. Counting cracks,
# (N_f - 1) G_c/L: 0.609 ± 0.275 (least squares by hand). A failed run is
# left out; the campaigns are read as two files.
{
  echo "index,status,fracture.strength.seed,model.length,fracture.dissipation,fracture.fragments,fracture.g_hat_per_fragment"
  echo "0,ok,1,0.001,1,2,0.01"; echo "1,ok,1,0.004,32,16,0.04"; echo "2,ok,1,0.016,1024,128,0.16"
  echo "3,ok,1,0.064,32768,1024,0.64"
  echo "4,failed,2,0.001,,,"
} > "$T/length_a.csv"
{
  echo "index,status,fracture.strength.seed,model.length,fracture.dissipation,fracture.fragments,fracture.g_hat_per_fragment"
  echo "4,ok,2,0.001,2,4,0.01"; echo "5,ok,2,0.004,32,32,0.02"; echo "6,ok,2,0.016,512,256,0.04"
  echo "7,ok,2,0.064,8192,2048,0.08"
} > "$T/length_b.csv"
out=$(bash "$src/scripts/confined_length_figure.sh" "$T/l.png" "$T/length_a.csv" "$T/length_b.csv" 2>&1) || fail "length: $out"
[ -s "$T/l.png" ] || fail "no length figure written"
grep -qF "fitted over 8 runs: G/L ~ L^(1.250 ± 0.274) (paper 1.37); N_f G_c/L ~ L^(0.500 ± 0.223)" <<<"$out" ||
  fail "run fit: $out"
grep -qF "(N_f - 1) G_c/L ~ L^(0.609 ± 0.275)" <<<"$out" || fail "cracks fit: $out"
grep -qF "| 1 | 4 | 1.50 ± 0.00 | 0.50 ± 0.00 |" <<<"$out" || fail "seed 1 fit: $out"
grep -qF "| 2 | 4 | 1.00 ± 0.00 | 0.50 ± 0.00 |" <<<"$out" || fail "seed 2 fit: $out"
# three lengths of two seeds (least squares by hand, t(4) = 2.776): the seeds'
# G/L meet at 4 mm, in the middle of 1–16 mm and at the end of 4–64 mm
grep -qF "| 1–16 | 6 | 1.25 ± 0.35 | 0.50 ± 0.43 |" <<<"$out" || fail "range 1-16: $out"
grep -qF "| 4–64 | 6 | 1.25 ± 0.55 | 0.50 ± 0.43 |" <<<"$out" || fail "range 4-64: $out"

# run directories: A = sizes 1, 2, 3 (over the mean 2: 0.5, 1, 1.5); B pools
# two runs, sizes 1, 3 and 2, 2, 8 (0.5, 1.5 and 0.5, 0.5, 2).
# F_A - F_B at 0.5, 1, 1.5, 2: 1/3 - 3/5, 2/3 - 3/5, 1 - 4/5, 1 - 1: D = 0.267;
# critical value 1.358 sqrt(8/15) = 0.992
frag() { # frag DIR SIZE...: a run directory with these fragments
  local d=$T/$1 i=0; shift; mkdir -p "$d"
  { echo "index,x_left,x_right,size,mass,velocity"
    for s in "$@"; do echo "$i,0,0,$s,1,0"; i=$((i + 1)); done; } > "$d/fragments.csv"; }
frag a 1 2 3
frag b1 1 3
frag b2 2 2 8
out=$(bash "$src/scripts/fragment_sizes_figure.sh" "$T/s.png" "A=$T/a" "B=$T/b1" "B=$T/b2" 2>&1) || fail "sizes: $out"
[ -s "$T/s.png" ] || fail "no size figure written"
grep -qF "| A | 1 | 3 | — | — |" <<<"$out" || fail "A row: $out"
grep -qF "| B | 2 | 5 | 0.267 | 0.992 |" <<<"$out" || fail "B row: $out"
# a campaign's pooled table: e = 1 lies wholly above e = 0, D = 1
{
  echo "contact.impact.restitution,runs,size,size_over_mean,cumulative_number"
  echo "0,1,1e-6,0.5,0.333"; echo "0,1,2e-6,1,0.667"; echo "0,1,3e-6,1.5,1"
  echo "1,2,1e-6,1.6,0.333"; echo "1,2,1e-6,1.7,0.667"; echo "1,2,1e-6,1.8,1"
} > "$T/fragment_sizes.csv"
out=$(bash "$src/scripts/fragment_sizes_figure.sh" "$T/p.png" "$T/fragment_sizes.csv" 2>&1) || fail "pooled: $out"
grep -qF "| restitution = 1 | 2 | 3 | 1.000 | 1.109 |" <<<"$out" || fail "pooled row: $out"
bash "$src/scripts/fragment_sizes_figure.sh" "$T/q.png" "$T/campaign.csv" >/dev/null 2>&1 &&
  fail "a campaign.csv taken for a fragment_sizes.csv"

# scripts/damaged_bar_figure.sh: columns read by name (run_dir and summary
# columns in any order), and a missing error (an empty field: the run ended
# before the window) is NaN in the plotted data, which gnuplot skips — not 0.
# A stand-in gnuplot keeps the data file the script plots.
mkdir -p "$T/bin"
cat > "$T/bin/gnuplot" <<GP
#!/usr/bin/env bash
dat=\$(grep -o '"[^"]*" index i' | head -1 | cut -d'"' -f2)
cp "\$dat" "$T/damaged.dat"
GP
chmod +x "$T/bin/gnuplot"
hdr="index,contact.force.alpha,status,run_dir,time.dt_c,time.dt_bulk,time.dt_over_dt_c,energy.max_balance_drift"
{
  echo "$hdr,reference.eta_u,reference.eta_v"
  echo "0,1,ok,runs/0000,2e-6,1e-6,0.5,1e-9,0.01,0.02"
  echo "1,1,ok,runs/0001,2e-6,1e-6,0.9,2e-9,,"
} > "$T/pen.csv"
{
  echo "index,status,run_dir,reference.eta_v,reference.eta_u,time.dt_over_dt_c,time.dt_c,time.dt_bulk,energy.max_balance_drift"
  echo "0,ok,runs/0000,0.04,0.03,0.5,2e-6,1e-6,3e-9"
} > "$T/nsn.csv"
out=$(PATH="$T/bin:$PATH" bash "$src/scripts/damaged_bar_figure.sh" "$T/pen.csv" "$T/nsn.csv" "$T/d.png" 2>&1) ||
  fail "damaged_bar_figure: $out"
grep -qxF "1 0.01 0.02 1e-09" "$T/damaged.dat" || fail "damaged_bar_figure: run 0: $(cat "$T/damaged.dat")"
grep -qxF "1.8 NaN NaN 2e-09" "$T/damaged.dat" || fail "damaged_bar_figure: missing errors not NaN: $(cat "$T/damaged.dat")"
grep -qxF "1 0.03 0.04 3e-09" "$T/damaged.dat" || fail "damaged_bar_figure: NSN row: $(cat "$T/damaged.dat")"
echo PASS
