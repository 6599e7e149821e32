#!/usr/bin/env bash
# Paper Fig. 11 from free_ring campaign tables: normalised fragment size
# s_hat = s / s0 and fracture energy G_hat = (G / L) / (G_c / s0) against
# eps_hat, every run as a small point and the seed mean with its 95% Student-t
# interval, beside the Grady, Glenn-Chudnovsky and Zhou-Molinari-Ramesh curves
# (AD-995: s0 = 2.6954e-4 m, G_c = 50 J/m^2). Prints the per-rate table.
# usage:
#   shard campaign cases/paper/free_ring.yaml -o out/free_ring -j 2
#   scripts/free_ring_figure.sh out/free_ring/campaign.csv docs/figures/free_ring.png \
#     [out/free_ring_penalty/campaign.csv]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 NSN_CAMPAIGN.csv OUT.png [PENALTY_CAMPAIGN.csv]" >&2; exit 2; }
nsn=$1 png=$2 pen=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# runs: rate s_hat G_hat N_f; means: rate n s_mean s_ci G_mean G_ci N_f_mean
summarise() { # TABLE PREFIX
  awk -F, -v runs="$2.runs" -v means="$2.means" -f "$here/lib/student_t.awk" -f <(cat <<'AWK'
    NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
    $c["status"] == "ok" {
      s0 = 2.6954e-4; L = $c["model.length"]; r = $c["var.rate"] + 0
      s = $c["fracture.mean_fragment_size"] / s0; g = $c["fracture.dissipation"] / L / (50 / s0)
      printf "%.6g %.6g %.6g %s\n", r, s, g, $c["fracture.fragments"] > runs
      if (!(r in n)) order[++k] = r
      n[r]++; ss[r] += s; s2[r] += s * s; gs[r] += g; g2[r] += g * g; nf[r] += $c["fracture.fragments"]
    }
    END {
      for (i = 1; i <= k; ++i) {
        r = order[i]; m = n[r]; tq = t975(m - 1)
        sm = ss[r] / m; gm = gs[r] / m
        sci = m > 1 ? tq * sqrt(((s2[r] - m * sm * sm) > 0 ? s2[r] - m * sm * sm : 0) / (m - 1) / m) : 0
        gci = m > 1 ? tq * sqrt(((g2[r] - m * gm * gm) > 0 ? g2[r] - m * gm * gm : 0) / (m - 1) / m) : 0
        printf "%.6g %d %.6g %.6g %.6g %.6g %.6g\n", r, m, sm, sci, gm, gci, nf[r] / m > means
      }
    }
AWK
  ) "$1"
  sort -g -o "$2.means" "$2.means"
}
summarise "$nsn" "$tmp/nsn"
plot_s="\"$tmp/nsn.runs\" using 1:2 with points pt 6 ps 0.8 lc rgb '#1f77b4' notitle, \
  \"$tmp/nsn.means\" using 1:3:4 with yerrorbars pt 7 ps 1.2 lc rgb '#1f77b4' title 'shard NSN (seed mean, 95% CI)'"
plot_g="\"$tmp/nsn.runs\" using 1:3 with points pt 6 ps 0.8 lc rgb '#1f77b4' notitle, \
  \"$tmp/nsn.means\" using 1:5:6 with yerrorbars pt 7 ps 1.2 lc rgb '#1f77b4' title 'shard NSN (seed mean, 95% CI)'"
if [ -n "$pen" ]; then
  summarise "$pen" "$tmp/pen"
  plot_s="$plot_s, \"$tmp/pen.runs\" using 1:2 with points pt 4 ps 0.8 lc rgb '#d62728' notitle, \
    \"$tmp/pen.means\" using 1:3:4 with yerrorbars pt 5 ps 1.1 lc rgb '#d62728' title 'shard penalty (seed mean, 95% CI)'"
  plot_g="$plot_g, \"$tmp/pen.runs\" using 1:3 with points pt 4 ps 0.8 lc rgb '#d62728' notitle, \
    \"$tmp/pen.means\" using 1:5:6 with yerrorbars pt 5 ps 1.1 lc rgb '#d62728' title 'shard penalty (seed mean, 95% CI)'"
fi
gnuplot <<GP
set terminal pngcairo size 1200,450 font "DejaVu Sans,10" noenhanced
set output "$png"
set multiplot layout 1,2
set logscale xy; set grid; set key bottom left font ",9"; set xrange [5e-4:2e2]
set xlabel "eps_hat = strain rate / eps0"
grady(x) = (24.0 / x**2)**(1.0/3)   # s / s0 with rho c^2 = E: (24 G_c/(rho rate^2))^(1/3) / s0
gc(x) = (4.0 / x) * sinh(asinh(1.5 * x) / 3)
zmr(x) = 4.5 / (1 + 4.5 * x**(2.0/3))
set title "fragment size"
set ylabel "s_hat = s / s0"
plot $plot_s, grady(x) lw 2 lc rgb "#7f7f7f" dt 2 title "Grady", gc(x) lw 2 lc rgb "#2ca02c" title "Glenn-Chudnovsky", \
  zmr(x) lw 2 lc rgb "black" title "ZMR"
set title "fracture energy per length"
set ylabel "G_hat = (G / L) / (G_c / s0)"
set key top left
plot $plot_g, 1 / zmr(x) lw 2 lc rgb "black" title "ZMR lower bound G_c / s_ZMR"
unset multiplot
GP
echo "wrote $png"
for f in "$tmp"/*.means; do
  echo "# $(basename "$f" .means): eps_hat runs s_hat ci95 s_ZMR s_hat/ZMR G_hat ci95 G_ZMR_bound N_f"
  awk '{ z = 4.5 / (1 + 4.5 * $1 ^ (2 / 3)); printf "%-8.4g %d %.3f %.3f %.3f %.2f %.3f %.3f %.3f %.1f\n",
         $1, $2, $3, $4, z, $3 / z, $5, $6, 1 / z, $7 }' "$f"
done
