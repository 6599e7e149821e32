#!/usr/bin/env bash
# Paper Fig. 12 from the time-step campaign: fragments N_f(t) and the balance
# drift |drift|(t) of every run (penalty per dt / dt_c, NSN dashed), and the
# final N_f and largest drift against dt / dt_c, on one page; and a table of
# every run: scheme, dt / dt_c, steps, final N_f, largest drift (relative, and
# in joules beside the fracture dissipation), loop wall time, time per step
# and the loop time over the NSN run's.
# usage:
#   shard campaign cases/paper/free_ring_dt.yaml -o out/free_ring_dt -j 2
#   scripts/free_ring_dt_figure.sh docs/figures/free_ring_dt.png out/free_ring_dt
# Each DIR is a campaign directory (its runs/*) or a single run directory; the
# scheme of a run is the integrator of its case.resolved.yaml.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT.png DIR [DIR...]   (campaign or run directories)" >&2; exit 2; }
png=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

runs=()
for d in "$@"; do
  d=${d%/}
  if [ -d "$d/runs" ]; then
    for r in "$d"/runs/*/; do runs+=("${r%/}"); done
  elif [ -f "$d/case.resolved.yaml" ]; then
    runs+=("$d")
  else
    echo "$0: $d is neither a campaign directory (runs/) nor a run directory (case.resolved.yaml)" >&2
    exit 2
  fi
done

# One line per run: scheme|status|dt/dt_c|steps|N_f|max drift|initial energy|G|loop|message|data file
: > "$tmp/runs"
n=0
for r in "${runs[@]}"; do
  if [ ! -f "$r/summary.yaml" ]; then
    echo "$0: $r has no summary.yaml (still running, or killed): skipped" >&2
    continue
  fi
  n=$((n + 1))
  scheme=$(awk '/^integrator:/ { f = 1; next } f && /^  plugin:/ { print $2; exit } /^[^ ]/ { f = 0 }' \
    "$r/case.resolved.yaml")
  [ "$scheme" = explicit_newmark ] && scheme=penalty
  awk -v label="$scheme" -v dat="$tmp/run$n.dat" '
    /^[^ #]/ { sec = $1; sub(":", "", sec) }
    /^  [^ ]/ { key = $1; sub(":", "", key); v[sec "." key] = $2 }
    /^status:/ { st = $2 } /^steps:/ { steps = $2 }
    /^message:/ { msg = $0; sub("^message: *", "", msg); gsub("\"", "", msg) }
    END {
      printf "%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n", label, st, v["time.dt_over_dt_c"], steps,
             v["fracture.fragments"], v["energy.max_balance_drift"], v["energy.initial"],
             v["fracture.dissipation"], v["wall_time.loop"], msg, dat
    }' "$r/summary.yaml" >> "$tmp/runs"
  # t [us], N_f, |drift|
  awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
           { d = $c["balance_drift"]; if (d < 0) d = -d
             printf "%.9g %s %.6e\n", $c["t"] * 1e6, $c["fragments"], d }' "$r/history.csv" > "$tmp/run$n.dat"
done
[ "$n" -gt 0 ] || { echo "$0: no finished run" >&2; exit 1; }
sort -t'|' -k1,1r -k3,3g -o "$tmp/runs" "$tmp/runs" # penalty by step, then NSN

# The table, with each run's loop time over the (first) NSN run's.
nsn_loop=$(awk -F'|' '$1 == "nsn" && $2 == "ok" { print $9; exit }' "$tmp/runs")
echo "| scheme | dt/dt_c | status | steps | N_f | max drift | max drift [J] | G [J] | loop [s] | ms/step | loop / NSN loop |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
awk -F'|' -v nl="${nsn_loop:-0}" '{
  st = $2 == "ok" ? "ok" : $2 " (" $10 ")"
  dj = ($6 != "" && $7 != "") ? sprintf("%.3g", $6 * $7) : "-"
  ms = ($4 > 0 && $9 != "") ? sprintf("%.2f", 1e3 * $9 / $4) : "-"
  ratio = ($9 != "" && nl > 0) ? sprintf("%.2f", $9 / nl) : "-"
  printf "| %s | %.2f | %s | %s | %s | %.2e | %s | %.4g | %.0f | %s | %s |\n", $1, $3, st, $4, $5, $6, dj, $8, $9, ms, ratio
}' "$tmp/runs"

# Final N_f and largest drift against dt / dt_c (completed runs only).
awk -F'|' '$2 == "ok" && $1 != "nsn" { print $3, $5, $6 }' "$tmp/runs" > "$tmp/pen.pts"
awk -F'|' '$2 == "ok" && $1 == "nsn" { print $3, $5, $6 }' "$tmp/runs" > "$tmp/nsn.pts"

# The plot: one colour per penalty step (runs stopped by a failure drawn up to
# where they stopped), NSN black dashed.
curves() { # COLUMN_EXPR
  local sep=""
  while IFS='|' read -r label st ratio steps nf drift e0 g loop msg dat; do
    if [ "$label" = nsn ]; then
      printf "%s'%s' u 1:%s w l lw 2 dt 2 lc 'black' t 'NSN %.2f dt_c'" "$sep" "$dat" "$1" "$ratio"
    else
      printf "%s'%s' u 1:%s w l lw 1.5 t '%s %.2f dt_c%s'" "$sep" "$dat" "$1" "$label" "$ratio" \
        "$([ "$st" = ok ] || echo " (failed)")"
    fi
    sep=", "
  done < "$tmp/runs"
  echo
}
{
  echo "set terminal pngcairo size 1500,480 font 'sans,10'"
  echo "set output '$png'"
  echo "set multiplot layout 1,3 title 'Free expanding bar L = 0.1 m, 5e4 elements, eps\\_hat = 1 (paper Fig. 12)'"
  echo "set xlabel 't [us]'; set grid; set key bottom right"
  echo "set ylabel 'N_f'"
  echo "plot $(curves 2)"
  echo "set ylabel '|balance drift| / largest energy'; set logscale y; set format y '10^{%T}'; set key top left"
  echo "plot $(curves '($3 > 0 ? $3 : 1/0)')"
  echo "set xlabel 'dt / dt_c'; set xrange [0:1.05]; set key center right"
  echo "set ylabel 'final N_f'; unset logscale y; set format y '%g'; set yrange [0:*]"
  echo "set y2label 'largest |balance drift|'; set logscale y2; set format y2 '10^{%T}'; set y2tics; set ytics nomirror"
  echo "plot '$tmp/pen.pts' u 1:2 w lp pt 7 lc 'blue' t 'penalty N_f', '$tmp/nsn.pts' u 1:2 w p pt 5 ps 1.5 lc 'black' t 'NSN N_f', \\"
  echo "  '$tmp/pen.pts' u 1:3 axes x1y2 w lp pt 6 dt 3 lc 'red' t 'penalty drift', '$tmp/nsn.pts' u 1:3 axes x1y2 w p pt 4 ps 1.5 lc 'black' t 'NSN drift'"
  echo "unset multiplot"
} > "$tmp/plot.gp"
gnuplot "$tmp/plot.gp"
echo "wrote $png" >&2
