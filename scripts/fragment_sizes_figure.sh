#!/usr/bin/env bash
# Cumulative fragment-size distributions of several runs, sizes normalised
# by each run's mean (paper §5: the restitution study), drawn from the runs'
# fragments.csv. Runs with the same label are pooled.
# usage: scripts/fragment_sizes_figure.sh OUT.png LABEL=RUN_DIR [LABEL=RUN_DIR ...]
#   e.g. scripts/fragment_sizes_figure.sh docs/figures/restitution_sizes.png \
#          "e = 0"=out/e0_s1 "e = 0"=out/e0_s2 "e = 1"=out/e1_s1 "e = 1"=out/e1_s2
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT.png LABEL=RUN_DIR [...]" >&2; exit 2; }
png=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
labels=()
for arg in "$@"; do
  label=${arg%=*} dir=${arg##*=} # split at the last "=": labels may hold one
  [ -f "$dir/fragments.csv" ] || { echo "$0: no $dir/fragments.csv" >&2; exit 2; }
  key=$(printf "%s" "$label" | tr -c 'A-Za-z0-9' '_')
  [ -f "$tmp/$key.raw" ] || labels+=("$label")
  # size / mean size of this run
  awk -F, 'NR > 1 { s[NR] = $4; sum += $4; n++ } END { for (i in s) print s[i] * n / sum }' "$dir/fragments.csv" \
    >> "$tmp/$key.raw"
done
plot=""
for label in "${labels[@]}"; do
  key=$(printf "%s" "$label" | tr -c 'A-Za-z0-9' '_')
  sort -g "$tmp/$key.raw" | awk '{ x[NR] = $1 } END { for (i = 1; i <= NR; ++i) print x[i], i / NR }' > "$tmp/$key.dat"
  n=$(wc -l < "$tmp/$key.dat")
  plot+="${plot:+, }\"$tmp/$key.dat\" using 1:2 with steps lw 2 title \"$label ($n fragments)\""
done
gnuplot <<GP
set terminal pngcairo size 700,450 font "DejaVu Sans,10" noenhanced
set output "$png"
set grid; set key bottom right
set xlabel "fragment size / mean size of its run"
set ylabel "cumulative fraction of fragments"
set xrange [0:*]; set yrange [0:1]
plot $plot
GP
echo "wrote $png"
