#!/usr/bin/env bash
# Paper Fig. 11 from a free_ring campaign table: normalised fragment size
# s_hat = s / s0 and fracture energy G_hat = (G / L) / (G_c / s0) against
# eps_hat, with the Grady, Glenn-Chudnovsky and Zhou-Molinari-Ramesh curves
# (AD-995: s0 = 2.6954e-4 m, G_c = 50 J/m^2). usage:
#   shard campaign cases/paper/free_ring.yaml -o out/free_ring -j 2
#   scripts/free_ring_figure.sh out/free_ring/campaign.csv docs/figures/free_ring.png
set -euo pipefail
table=$1 png=$2
dat=$(mktemp)
trap 'rm -f "$dat"' EXIT
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
  $c["status"] == "ok" {
    s0 = 2.6954e-4; L = $c["model.length"]
    printf "%.6g %.6g %.6g %s\n", $c["var.rate"], $c["fracture.mean_fragment_size"] / s0,
      $c["fracture.dissipation"] / L / (50 / s0), $c["fracture.fragments"] }' "$table" | sort -g > "$dat"
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
plot "$dat" using 1:2 with points pt 7 ps 1.3 title "shard NSN (mean size)", \
     grady(x) lw 2 title "Grady", gc(x) lw 2 title "Glenn-Chudnovsky", zmr(x) lw 2 title "ZMR"
set title "fracture energy per length"
set ylabel "G_hat = (G / L) / (G_c / s0)"
set key top left
plot "$dat" using 1:3 with points pt 7 ps 1.3 title "shard NSN", 1 / zmr(x) lw 2 title "ZMR lower bound G_c / s_ZMR"
unset multiplot
GP
echo "wrote $png"; cat "$dat"
