#!/usr/bin/env bash
# Cumulative fragment-size distributions, sizes normalised by the mean of
# each fragment's own run (paper §5: the restitution study), and how far
# apart they are: the two-sample Kolmogorov–Smirnov distance of every
# distribution to the first one, beside its 5% critical value.
# Inputs, any mix of:
#   LABEL=RUN_DIR   a run's fragments.csv; runs with the same label are pooled
#   POOLED.csv      a campaign's fragment_sizes.csv (shard campaign with
#                   statistics: one distribution per group, labelled by the
#                   last word of each group column, e.g. "restitution = 0")
# usage: scripts/fragment_sizes_figure.sh OUT.png INPUT [INPUT ...]
#   e.g. scripts/fragment_sizes_figure.sh docs/figures/restitution_sizes.png \
#          "e = 0"=out/e0_s1 "e = 0"=out/e0_s2 "e = 1"=out/e1_s1 "e = 1"=out/e1_s2
#        scripts/fragment_sizes_figure.sh sizes.png results/restitution/fragment_sizes.csv
# The KS critical value 1.358·sqrt((n+m)/(n m)) assumes independent sizes;
# fragments of one run are not quite (they share their run's mean and fill
# its bar), so read it as a scale, not as an exact test.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT.png LABEL=RUN_DIR|POOLED.csv [...]" >&2; exit 2; }
png=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# $tmp/all: label TAB size/mean; $tmp/runs: label TAB runs
: > "$tmp/all"
: > "$tmp/runs"
for arg in "$@"; do
  if [[ $arg == *=* ]]; then
    label=${arg%=*} dir=${arg##*=} # split at the last "=": labels may hold one
    [ -f "$dir/fragments.csv" ] || { echo "$0: no $dir/fragments.csv" >&2; exit 2; }
    awk -F, -v l="$label" 'NR > 1 { s[NR] = $4; sum += $4; n++ }
      END { if (n == 0) { print FILENAME ": no fragments" > "/dev/stderr"; exit 2 }
            for (i in s) print l "\t" s[i] * n / sum }' "$dir/fragments.csv" >> "$tmp/all"
    printf '%s\t1\n' "$label" >> "$tmp/runs"
  else
    [ -f "$arg" ] || { echo "$0: no $arg" >&2; exit 2; }
    awk -F, -v all="$tmp/all" -v runs="$tmp/runs" '
      FNR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i
                 if (!("runs" in c) || !("size_over_mean" in c)) {
                   print FILENAME ": not a campaign fragment_sizes.csv (needs runs and size_over_mean)" > "/dev/stderr"
                   exit 2 }
                 for (i = 1; i < c["runs"]; ++i) { k = split($i, part, "."); h[i] = part[k] }
                 next }
      { l = ""; for (i = 1; i < c["runs"]; ++i) l = l (i > 1 ? ", " : "") h[i] " = " $i
        print l "\t" $c["size_over_mean"] > all
        if (!(l in seen)) { seen[l] = 1; print l "\t" $c["runs"] > runs } }' "$arg"
  fi
done
[ -s "$tmp/all" ] || { echo "$0: no fragments in the inputs" >&2; exit 2; }
mapfile -t labels < <(cut -f1 "$tmp/all" | awk '!seen[$0]++')

# one sorted sample per label
for i in "${!labels[@]}"; do
  awk -F'\t' -v l="${labels[$i]}" '$1 == l { print $2 }' "$tmp/all" | sort -g > "$tmp/$i.sorted"
done

echo "| distribution | runs | fragments | KS distance to the first | 5% critical value |"
echo "|---|---|---|---|---|"
plot=""
for i in "${!labels[@]}"; do
  label=${labels[$i]}
  n=$(wc -l < "$tmp/$i.sorted")
  nruns=$(awk -F'\t' -v l="$label" '$1 == l { s += $2 } END { print s }' "$tmp/runs")
  if [ "$i" -eq 0 ]; then
    ks="—"; crit="—"
  else
    # sup |F_first - F_i| over the merged sample: step both empirical
    # distributions past every value equal to the smallest one left
    read -r ks crit < <(awk 'FNR == NR { a[++n] = $1; next } { b[++m] = $1 }
      END { i = j = 0; d = 0
            while (i < n && j < m) {
              x = a[i + 1] < b[j + 1] ? a[i + 1] : b[j + 1]
              while (i < n && a[i + 1] == x) ++i
              while (j < m && b[j + 1] == x) ++j
              diff = i / n - j / m; if (diff < 0) diff = -diff; if (diff > d) d = diff }
            printf "%.3f %.3f\n", d, 1.358 * sqrt((n + m) / (n * m)) }' "$tmp/0.sorted" "$tmp/$i.sorted")
  fi
  echo "| $label | $nruns | $n | $ks | $crit |"
  awk '{ x[NR] = $1 } END { for (i = 1; i <= NR; ++i) print x[i], i / NR }' "$tmp/$i.sorted" > "$tmp/$i.dat"
  plot+="${plot:+, }\"$tmp/$i.dat\" using 1:2 with steps lw 2 title \"$label ($n fragments)\""
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
