#!/usr/bin/env bash
# Paper Figs. 14-15 from restitution campaign tables (the confined bar at
# several restitution coefficients e, one run per seed): against e, on an
# axis with one equal step per value of e (0 ... 0.9999 and 1 crowd a linear
# axis), every run as a point and the mean over seeds with its 95% Student-t
# interval, of
#   (a) the fracture energy per fragment G_hat / N_f,
#   (b) the dissipated energy over the injected energy, fracture and
#       fracture + contact (E_inj = initial energy + external work),
#   (c) the final number of fragments N_f;
# and prints the per-e table, then the seed-paired differences between the
# lowest and the highest e (same strength field, so the pairs cancel the
# seed-to-seed scatter): N_f and the fracture energy, mean and 95% interval.
# Any number of campaign.csv files (split or partial campaigns) are pooled;
# runs whose status is not ok are left out.
# usage:
#   shard campaign cases/paper/restitution.yaml -o out/restitution -j 2
#   scripts/restitution_figure.sh docs/figures/restitution.png out/restitution/campaign.csv
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT.png CAMPAIGN.csv [CAMPAIGN.csv...]" >&2; exit 2; }
png=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# runs: slot e g_hat frac_ratio total_ratio N_f; means: slot e n, then mean and ci of those four, contact J
awk -F, -v runs="$tmp/runs" -v means="$tmp/means" -v paired="$tmp/paired" -f "$here/lib/student_t.awk" -f <(cat <<'AWK'
  FNR == 1 { delete c; for (i = 1; i <= NF; ++i) c[$i] = i
             split("contact.impact.restitution status fracture.g_hat_per_fragment fracture.dissipation " \
                   "energy.contact_dissipation energy.initial energy.external_work fracture.fragments " \
                   "fracture.strength.seed", need, " ")
             for (k in need) if (!(need[k] in c)) { print FILENAME ": no column " need[k] > "/dev/stderr"; exit 2 }
             next }
  $c["status"] == "ok" {
    e = $c["contact.impact.restitution"] + 0; inj = $c["energy.initial"] + $c["energy.external_work"]
    v[1] = $c["fracture.g_hat_per_fragment"]; v[2] = $c["fracture.dissipation"] / inj
    v[3] = ($c["fracture.dissipation"] + $c["energy.contact_dissipation"]) / inj; v[4] = $c["fracture.fragments"]
    if (!(e in n)) es[++ne] = e
    n[e]++; cj[e] += $c["energy.contact_dissipation"]
    seed = $c["fracture.strength.seed"] + 0; nf[e, seed] = v[4]; gf[e, seed] = $c["fracture.dissipation"]; has[e, seed] = 1
    if (!(seed in sseen)) { sseen[seed] = 1; seeds[++nseeds] = seed }
    for (k = 1; k <= 4; ++k) { s[e, k] += v[k]; s2[e, k] += v[k] * v[k] }
    line[++nl] = e " " v[1] " " v[2] " " v[3] " " v[4]
  }
  END {
    if (ne == 0) { print "no run with status ok" > "/dev/stderr"; exit 1 }
    for (i = 1; i <= ne; ++i) for (j = i + 1; j <= ne; ++j) if (es[j] < es[i]) { t = es[i]; es[i] = es[j]; es[j] = t }
    for (i = 1; i <= ne; ++i) slot[es[i]] = i - 1
    for (r = 1; r <= nl; ++r) { split(line[r], f, " "); print slot[f[1] + 0], line[r] > runs }
    for (i = 1; i <= ne; ++i) {
      e = es[i]; m = n[e]; out = slot[e] " " e " " m
      for (k = 1; k <= 4; ++k) {
        out = out " " s[e, k] / m " " ci95(s[e, k], s2[e, k], m)
      }
      print out, cj[e] / m > means
    }
    # seed-paired differences, lowest e minus highest e
    lo = es[1]; hi = es[ne]; np = 0; sn = sn2 = sg = sg2 = 0; more = 0
    for (k = 1; k <= nseeds; ++k) {
      sd = seeds[k]
      if (!((lo, sd) in has) || !((hi, sd) in has)) continue
      dn = nf[lo, sd] - nf[hi, sd]; dg = gf[lo, sd] - gf[hi, sd]
      ++np; sn += dn; sn2 += dn * dn; sg += dg; sg2 += dg * dg; more += dn > 0
    }
    if (ne > 1 && np > 0) {
      mn = sn / np; mg = sg / np; cn = ci95(sn, sn2, np); cg = ci95(sg, sg2, np)
      printf "seed-paired, e = %s minus e = %s, %d seeds: N_f %+.1f ± %.1f (higher at e = %s in %d of %d), fracture energy %+.0f ± %.0f J\n", \
             lo, hi, np, mn, cn, lo, more, np, mg, cg > paired
    }
  }
AWK
) "$@"

echo "| e | runs | N_f | G_hat/N_f | fracture / injected | (fracture + contact) / injected | contact dissipation [J] |"
echo "|---|---|---|---|---|---|---|"
awk '{ printf "| %s | %d | %.1f ± %.1f | %.2f ± %.2f | %.3f ± %.3f | %.3f ± %.3f | %.0f |\n",
       $2, $3, $10, $11, $4, $5, $6, $7, $8, $9, $12 }' "$tmp/means"
if [ -s "$tmp/paired" ]; then echo; cat "$tmp/paired"; fi

tics=$(awk '{ printf "%s\"%s\" %s", (NR > 1 ? ", " : ""), $2, $1 }' "$tmp/means")
last=$(awk 'END { print $1 }' "$tmp/means")
cat > "$tmp/plot.gp" <<EOF
set terminal pngcairo size 1500,480 font 'sans,10'
set output '$png'
set multiplot layout 1,3 title 'Confined bar, 5 mm, 5000 elements, alpha\\_box = 100, eps\\_hat = 1 (paper Figs. 14-15): runs and seed means with 95% intervals'
set xtics ($tics)
set xrange [-0.4:$last + 0.4]
set xlabel 'restitution coefficient e'
set grid
set key top left
set ylabel 'Ĝ / N_f = G / (N_f G_c A)'
plot '$tmp/runs' u 1:3 w p pt 6 lc 'gray' t 'runs', '$tmp/means' u 1:4:5 w yerrorlines pt 7 lw 2 lc 'blue' t 'mean'
set ylabel 'dissipated / injected energy'
set yrange [0:*]
set key bottom right
plot '$tmp/runs' u 1:4 w p pt 6 lc 'gray' notitle, '$tmp/runs' u 1:5 w p pt 4 lc 'gray' notitle, \\
  '$tmp/means' u 1:6:7 w yerrorlines pt 7 lw 2 lc 'red' t 'fracture', \\
  '$tmp/means' u 1:8:9 w yerrorlines pt 5 lw 2 lc 'black' t 'fracture + contact'
set ylabel 'N_f'
set yrange [*:*]
set key top right
plot '$tmp/runs' u 1:6 w p pt 6 lc 'gray' t 'runs', '$tmp/means' u 1:10:11 w yerrorlines pt 7 lw 2 lc 'blue' t 'mean'
unset multiplot
EOF
gnuplot "$tmp/plot.gp"
echo "wrote $png" >&2
