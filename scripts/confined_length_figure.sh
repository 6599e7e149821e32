#!/usr/bin/env bash
# Paper Fig. 13 from confined_length campaign tables (the confined bar,
# eps_hat = 1, alpha_box = 100, over its length L, one run per seed):
#   (a) the fracture energy per length G/L and N_f G_c / L against L, log-log,
#       every run as a point, the seed means with their 95% Student-t
#       intervals, the least-squares power laws fitted to all runs, and the
#       kinetic bound rho L^2 rate^2 / 24 (the kinetic energy per length of
#       v = rate x, all of which fracture could take);
#   (b) G_hat / N_f = G / (N_f G_c) against L.
# Prints the per-L table and the fitted exponents with their 95% intervals
# (t quantile at n - 2 degrees of freedom over the n runs), and the same
# fit over the seed means, one point per length (which weights the lengths
# alike while a campaign in progress has more runs at some); the paper has
# G/L ~ L^1.37 and N_f G_c / L ~ L^0.61. Then the fit counting cracks,
# (N_f - 1) G_c / L, instead of fragments; the fits per seed (column
# fracture.strength.seed, when the tables have it); and the fits over every
# range of three or more neighbouring lengths, since log G/L need not be
# straight in log L. Any number of campaign.csv files
# (split or partial campaigns) are pooled; runs whose status is not ok are
# left out. The material is the paper's (rho = 3900, G_c = 50, rate 2.559e4,
# section 1 m^2, the base case's): G and N_f G_c are then per unit section.
# usage:
#   shard campaign cases/paper/confined_length.yaml -o out/confined_length -j 2
#   scripts/confined_length_figure.sh docs/figures/confined_length.png out/confined_length/campaign.csv
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT.png CAMPAIGN.csv [CAMPAIGN.csv...]" >&2; exit 2; }
png=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# runs: L G/L NfGc/L ghat; means: L n, then mean and ci of those three; fits: name slope ci intercept n
awk -F, -v runs="$tmp/runs" -v means="$tmp/means" -v fits="$tmp/fits" -v perseed="$tmp/perseed" \
  -v ranges="$tmp/ranges" -f "$here/lib/student_t.awk" -f <(cat <<'AWK'
  FNR == 1 { delete c; for (i = 1; i <= NF; ++i) c[$i] = i
             split("model.length status fracture.dissipation fracture.fragments fracture.g_hat_per_fragment", need, " ")
             for (k in need) if (!(need[k] in c)) { print FILENAME ": no column " need[k] > "/dev/stderr"; exit 2 }
             next }
  $c["status"] == "ok" {
    L = $c["model.length"] + 0; key = sprintf("%.6g", L)
    v[1] = $c["fracture.dissipation"] / L; v[2] = $c["fracture.fragments"] * 50 / L; v[3] = $c["fracture.g_hat_per_fragment"]
    if (!(key in n)) { ls[++nl] = key; len[key] = L }
    n[key]++
    for (k = 1; k <= 3; ++k) { s[key, k] += v[k]; s2[key, k] += v[k] * v[k] }
    printf "%.6g %.6g %.6g %.6g\n", L, v[1], v[2], v[3] > runs
    # every run for the fits: log L, log G/L, log N_f G_c/L and, counting
    # cracks instead of fragments, log (N_f - 1) G_c/L; its seed when known
    ++nr; rkey[nr] = key; rx[nr] = log(L); ry[nr, 1] = log(v[1]); ry[nr, 2] = log(v[2])
    nf = $c["fracture.fragments"] + 0
    if (nf > 1) ry[nr, 3] = log((nf - 1) * 50 / L)
    rseed[nr] = ("fracture.strength.seed" in c) ? $c["fracture.strength.seed"] : ""
  }
  END {
    if (nl == 0) { print "no run with status ok" > "/dev/stderr"; exit 1 }
    for (i = 1; i <= nl; ++i) for (j = i + 1; j <= nl; ++j) if (len[ls[j]] < len[ls[i]]) { t = ls[i]; ls[i] = ls[j]; ls[j] = t }
    for (i = 1; i <= nl; ++i) {
      key = ls[i]; k_n = n[key]; out = len[key] " " k_n
      for (k = 1; k <= 3; ++k) {
        out = out " " s[key, k] / k_n " " ci95(s[key, k], s2[key, k], k_n)
      }
      print out > means
      # the same fit over the seed means, one point per length
      x = log(len[key]); mm++; msx += x; msxx += x * x
      for (k = 1; k <= 2; ++k) { y = log(s[key, k] / k_n); msy[k] += y; msxy[k] += x * y; msyy[k] += y * y }
    }
    for (i = 1; i <= nl; ++i) rank[ls[i]] = i
    split("G_over_L NfGc_over_L", name, " ")
    for (k = 1; k <= 2; ++k) {
      fit_runs(name[k], 1, nl, "", k)
      lsq(name[k] "_means", mm, msx, msxx, msy[k], msxy[k], msyy[k], mm >= 3)
    }
    fit_runs("cracks", 1, nl, "", 3)
    # per seed, and over every range of three or more neighbouring lengths
    for (r = 1; r <= nr; ++r) if (rseed[r] != "" && !(rseed[r] in seen)) { seen[rseed[r]] = 1; seeds[++ns] = rseed[r] }
    for (i = 1; i <= ns; ++i) for (j = i + 1; j <= ns; ++j) if (seeds[j] + 0 < seeds[i] + 0) { t = seeds[i]; seeds[i] = seeds[j]; seeds[j] = t }
    for (i = 1; i <= ns; ++i) {
      g = fit_runs("", 1, nl, seeds[i], 1); f = fit_runs("", 1, nl, seeds[i], 2)
      printf "| %s | %d | %s | %s |\n", seeds[i], lsq_m, g, f > perseed
    }
    for (i = 1; i <= nl; ++i) for (j = i + 2; j <= nl; ++j) {
      g = fit_runs("", i, j, "", 1); f = fit_runs("", i, j, "", 2)
      printf "| %.3g–%.3g | %d | %s | %s |\n", len[ls[i]] * 1e3, len[ls[j]] * 1e3, lsq_m, g, f > ranges
    }
  }
  # the least-squares fit of ry[., k] against rx over the runs whose length
  # ranks lo..hi and whose seed is `seed` (any when empty), as "slope ± ci"
  # (to fits as well when labelled)
  function fit_runs(label, lo, hi, seed, k,    r, m, sx, sxx, sy, sxy, syy, x, y, lens, nlen) {
    for (r = 1; r <= nr; ++r) {
      if (rank[rkey[r]] < lo || rank[rkey[r]] > hi || (seed != "" && rseed[r] != seed) || !((r, k) in ry)) continue
      x = rx[r]; y = ry[r, k]; m++; sx += x; sxx += x * x; sy += y; sxy += x * y; syy += y * y
      if (!(rkey[r] in lens)) { lens[rkey[r]] = 1; nlen++ }
    }
    lsq(label, m, sx, sxx, sy, sxy, syy, nlen >= 2)
    return lsq_b == "nan" ? "-" : sprintf("%.2f ± %.2f", lsq_b, lsq_ci)
  }
  # least squares y = a + b x from the sums over m points: "label slope ci95 intercept m"
  # to fits (unless label is empty), or nan when `enough` is false or the x are
  # all equal (no interval under 3 points); the slope and its interval also in
  # lsq_b and lsq_ci, m in lsq_m
  function lsq(label, m, sx, sxx, sy, sxy, syy, enough,    d, a, b, rss, se) {
    d = m * sxx - sx * sx
    lsq_m = m; lsq_b = lsq_ci = "nan"
    if (!enough || d <= 0) { if (label != "") printf "%s nan nan nan %d\n", label, m > fits; return }
    b = (m * sxy - sx * sy) / d; a = (sy - b * sx) / m
    rss = syy - a * sy - b * sxy
    se = m > 2 ? sqrt((rss > 0 ? rss : 0) / (m - 2) / (sxx - sx * sx / m)) : 0
    lsq_b = b; lsq_ci = m > 2 ? t975(m - 2) * se : 0
    if (label != "") printf "%s %.6g %.6g %.6g %d\n", label, b, lsq_ci, a, m > fits
  }
AWK
) "$@"

read -r _ bG ciG aG nG < <(grep '^G_over_L ' "$tmp/fits")
read -r _ bN ciN aN _ < <(grep '^NfGc_over_L ' "$tmp/fits")

echo "# confined bar over its length: seed means with 95% Student-t intervals (G per unit section)"
printf "| L [mm] | runs | G/L [J/m] | N_f G_c/L [J/m] | G_hat/N_f | kinetic bound [J/m] |\n|---|---|---|---|---|---|\n"
awk '{ printf "| %.3g | %d | %.4g ± %.2g | %.4g ± %.2g | %.3g ± %.2g | %.4g |\n", $1 * 1e3, $2, $3, $4, $5, $6, $7, $8, 3900 * $1 * $1 * 2.559e4 * 2.559e4 / 24 }' "$tmp/means"
printf "fitted over %s runs: G/L ~ L^(%.3f ± %.3f) (paper 1.37); N_f G_c/L ~ L^(%.3f ± %.3f) (paper 0.61)\n" \
  "$nG" "$bG" "$ciG" "$bN" "$ciN"
read -r _ mbG mciG _ mnG < <(grep '^G_over_L_means ' "$tmp/fits")
read -r _ mbN mciN _ _ < <(grep '^NfGc_over_L_means ' "$tmp/fits")
printf "fitted over the %s seed means (one point per length): G/L ~ L^(%.3f ± %.3f); N_f G_c/L ~ L^(%.3f ± %.3f)\n" \
  "$mnG" "$mbG" "$mciG" "$mbN" "$mciN"
read -r _ cb cci _ cn < <(grep '^cracks ' "$tmp/fits")
printf "counting cracks (N_f - 1) instead of fragments, over %s runs: (N_f - 1) G_c/L ~ L^(%.3f ± %.3f)\n" "$cn" "$cb" "$cci"
if [ -s "$tmp/perseed" ]; then
  printf "per seed:\n| seed | runs | G/L ~ L^... | N_f G_c/L ~ L^... |\n|---|---|---|---|\n"
  cat "$tmp/perseed"
fi
if [ -s "$tmp/ranges" ]; then
  printf "over ranges of three or more lengths (all runs):\n| L [mm] | runs | G/L ~ L^... | N_f G_c/L ~ L^... |\n|---|---|---|---|\n"
  cat "$tmp/ranges"
fi

# the fitted lines (none with a single length)
fit_line() { # slope ci intercept paper -> "expression title 'text'"
  if [ "$1" = nan ]; then echo "1/0 notitle"
  else printf "exp(%s) * x**%s title 'fit L^{%.2f ± %.2f} (paper %s)'" "$3" "$1" "$1" "$2" "$4"; fi
}
fitG=$(fit_line "$bG" "$ciG" "$aG" 1.37)
fitN=$(fit_line "$bN" "$ciN" "$aN" 0.61)
read -r xlo xhi < <(awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo / 1.25, hi * 1.25 }' "$tmp/means")
gnuplot <<GP
set terminal pngcairo size 1400,560 font ",11"
set output "$png"
set multiplot layout 1,2
set logscale xy
set format x "%g"
set xrange [$xlo:$xhi]
set xtics (0.001, 0.0015, 0.002, 0.003, 0.005, 0.007, 0.01)
set xlabel "L [m]"
set ylabel "energy per length [J/m] (per unit section)"
set title "(a) fracture energy and N_f G_c per length against L"
set key top left
plot "$tmp/runs" using 1:2 with points pt 7 ps 0.5 lc rgb "#9ecae1" title "G/L, runs", \
     "$tmp/means" using 1:3:4 with yerrorbars pt 7 lc rgb "#08519c" title "G/L, seed mean ± 95%", \
     $fitG with lines lc rgb "#08519c" dt 2, \
     "$tmp/runs" using 1:3 with points pt 5 ps 0.5 lc rgb "#fdae6b" title "N_f G_c/L, runs", \
     "$tmp/means" using 1:5:6 with yerrorbars pt 5 lc rgb "#a63603" title "N_f G_c/L, seed mean ± 95%", \
     $fitN with lines lc rgb "#a63603" dt 2, \
     3900 * x * x * 2.559e4 * 2.559e4 / 24 with lines lc rgb "black" title "kinetic bound ρL^2 ε̇^2/24"
unset logscale y
set format y "%g"
set ylabel "Ĝ / N_f"
set title "(b) fracture energy per fragment against L (paper: ≈ 2 to ≈ 10)"
plot "$tmp/runs" using 1:4 with points pt 7 ps 0.5 lc rgb "#9ecae1" title "runs", \
     "$tmp/means" using 1:7:8 with yerrorbars pt 7 lc rgb "#08519c" title "seed mean ± 95%"
unset multiplot
GP
echo "wrote $png"
