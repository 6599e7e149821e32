#!/usr/bin/env bash
# A plot whose columns exist but hold no number in any ok run (a summary key
# these runs do not write) is not rendered as an empty picture: the campaign
# says which plot and why on stderr and exits 1; the other plots are drawn.
#   bash campaign_plot_empty.sh <shard-exe> <source-dir> <build-dir>
set -u
shard=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$T/base.yaml" <<'YAML'
name: tiny
model: {type: particle, mass: 1.0, position: 1.0}
integrator: {plugin: explicit_newmark}
contact:
  force: {plugin: penalty, stiffness: 1e6}
time: {end: 0.01, dt: 1e-3}
YAML
printf 'base: base.yaml\nsweep:\n  time.dt: [1e-3, 2e-3]\nplots:\n  - {file: a, x: time.dt, y: fracture.fragments}\n  - {file: b, x: time.dt, y: steps}\n' > "$T/c.yaml"
out=$(cd "$T" && "$shard" campaign c.yaml -o out --no-progress 2> err)
rc=$?
[ "$rc" -eq 1 ] || fail "exit $rc, expected 1: $out $(cat "$T/err")"
grep -qxF "shard campaign: 1 plot not drawn: plot 'a': no ok run has numbers in both x (time.dt) and y (fracture.fragments); nothing drawn (plots/a.gp kept)" "$T/err" ||
  fail "stderr: $(cat "$T/err")"
[ ! -e "$T/out/plots/a.png" ] || fail "an empty a.png was rendered"
[ -s "$T/out/plots/a.gp" ] && [ -s "$T/out/plots/b.dat" ] || fail "scripts and data not written"
if command -v gnuplot > /dev/null; then
  [ -s "$T/out/plots/b.png" ] || fail "b.png not rendered"
  grep -qF "plots: 1 of 2 rendered" <<<"$out" || fail "stdout: $out"
fi
# --plots-only from the table says the same
(cd "$T" && "$shard" campaign c.yaml -o out --plots-only > /dev/null 2> err2)
[ $? -eq 1 ] && grep -qF "plot 'a': no ok run has numbers" "$T/err2" || fail "--plots-only: $(cat "$T/err2")"
echo "campaign_plot_empty: ok"
