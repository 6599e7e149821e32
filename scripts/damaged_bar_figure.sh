#!/usr/bin/env bash
# Paper Fig. 8 from the two damaged-bar campaigns: contact-node errors after
# rebound and the balance drift against dt / dt_bulk, penalty (one curve per
# alpha) and NSN. usage:
#   shard campaign cases/paper/damaged_bar_study.yaml -o out/dbp -j 2
#   shard campaign cases/paper/damaged_bar_nsn_study.yaml -o out/dbn -j 2
#   scripts/damaged_bar_figure.sh out/dbp/campaign.csv out/dbn/campaign.csv docs/figures/damaged_bar_study.png
set -euo pipefail
pen=$1 nsn=$2 png=$3
dat=$(mktemp)
trap 'rm -f "$dat"' EXIT
# one gnuplot data block per series: dt/dt_bulk eta_u eta_v drift (ok runs only; NaN where missing)
extract() { # file series-column-or-empty label-prefix
  awk -F, -v scol="$2" -v label="$3" '
    # an empty field is a missing value (a run that ended before the window): NaN, which gnuplot skips
    function num(x) { return x == "" ? "NaN" : sprintf("%.6g", x) }
    NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
    $c["status"] == "ok" {
      s = scol == "" ? label : label $c[scol]
      dt = $c["time.dt_over_dt_c"] * $c["time.dt_c"] / $c["time.dt_bulk"]
      rows[s] = rows[s] sprintf("%.6g %s %s %s\n", dt, num($c["reference.eta_u"]), num($c["reference.eta_v"]), num($c["energy.max_balance_drift"]))
      if (!(s in seen)) { seen[s] = 1; order[++n] = s }
    }
    END { for (k = 1; k <= n; ++k) printf "\"%s\"\n%s\n\n", order[k], rows[order[k]] }' "$1"
}
{ extract "$pen" contact.force.alpha "alpha = "; extract "$nsn" "" "NSN (cap 1, e = 0)"; } > "$dat"
n=$(grep -c '^"' "$dat")
gnuplot <<GP
set terminal pngcairo size 1500,430 font "DejaVu Sans,10" noenhanced
set output "$png"
set multiplot layout 1,3
set logscale xy; set key bottom right font ",8"; set grid
set xlabel "dt / dt_bulk"
set title "contact-node u after rebound (rel. L1)"
plot for [i=0:$((n - 1))] "$dat" index i using 1:2 with linespoints lw 2 title columnheader(1)
set title "contact-node v after rebound (rel. L1)"
plot for [i=0:$((n - 1))] "$dat" index i using 1:3 with linespoints lw 2 title columnheader(1)
set title "max relative drift of H + C_dis + G - W_ext"
set key top left
plot for [i=0:$((n - 1))] "$dat" index i using 1:4 with linespoints lw 2 title columnheader(1)
unset multiplot
GP
echo "wrote $png"
