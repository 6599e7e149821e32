#!/usr/bin/env bash
# e2e: output.probes (probes.csv). A small confined bar that cracks, with
# field snapshots and probes at the same times: every probed facet's stress
# is the mean of the snapshot's two element stresses beside it and its damage
# gives the snapshot's element damage (the larger of an element's two
# facets), to the snapshot's Float32 precision; samples at the first step at
# or after from + k interval, up to `to` included, none outside the window;
# the stride picks facets 0, N, 2N, ...; datapackage.json lists probes.csv
# only for a run with probes, and a run without probes into the same
# directory removes the earlier probes.csv.
#   bash probes.sh <shard-exe> <source-dir> <build-dir>
set -euo pipefail
shard=$1 src=$(cd "$2" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
case_="$src/tests/cases/fracture/confined_small.yaml"
common=(--no-progress --set model.elements=300 --set time.stop=end --set time.end=3e-6)

"$shard" run "$case_" -o "$T/a" "${common[@]}" --set output.fields_interval=0.5e-6 \
  --set output.probes.from=1e-6 --set output.probes.to=2.5e-6 --set output.probes.interval=0.5e-6 > "$T/log" 2>&1 ||
  { cat "$T/log"; fail "the run with probes failed"; }
"$shard" run "$case_" -o "$T/b" "${common[@]}" \
  --set output.probes.from=1e-6 --set output.probes.to=2.5e-6 --set output.probes.interval=0.5e-6 \
  --set output.probes.stride=7 > "$T/log" 2>&1 || { cat "$T/log"; fail "the run with a stride failed"; }

PYTHONPATH="$src/python" /usr/bin/python3 - "$T/a" "$T/b" <<'PY' || exit 1
import glob, json, sys
import numpy as np, pandas as pd
from shard.io import read_vtu
a, b = sys.argv[1], sys.argv[2]
def fail(m):
    print('FAIL: ' + m); sys.exit(1)
p = pd.read_csv(a + '/probes.csv')
if list(p.columns) != ['t', 'facet', 'stress', 'damage', 'sigma_c']: fail('columns %s' % list(p.columns))
dt = float(open(a + '/summary.yaml').read().split('\n  dt: ')[1].split('\n')[0])
times = sorted(p.t.unique())
want = [1e-6, 1.5e-6, 2e-6, 2.5e-6]
if len(times) != len(want): fail('%d sample times, expected 4: %s' % (len(times), times))
for t, w in zip(times, want):
    if not (w - 1e-12 * dt <= t < w + dt): fail('sample at %.12g s for the time %g s (dt %g)' % (t, w, dt))
snaps = {}
for f in glob.glob(a + '/fields/fields_*.vtu'):
    t, arr = read_vtu(f)
    snaps[float('%.12g' % t)] = arr
checked = damaged = 0
for t in times:
    if t not in snaps: fail('no snapshot at the probe time %.12g s' % t)
    cell = snaps[t]
    rows = p[p.t == t].sort_values('facet')
    nfacet = len(cell['stress']) - 1
    if list(rows.facet) != list(range(nfacet)): fail('t = %g: facets %s' % (t, list(rows.facet)[:5]))
    mean = 0.5 * (cell['stress'][:-1].astype(float) + cell['stress'][1:].astype(float))
    scale = np.abs(cell['stress']).max()
    err = np.abs(rows.stress.values - mean).max() / scale
    if not err < 2e-7: fail('t = %g: probe stress differs from the snapshot by %.3g (relative to max |stress|)' % (t, err))
    d = rows.damage.values
    el = np.maximum(np.r_[0.0, d], np.r_[d, 0.0])  # element e: the larger of facets e-1, e
    derr = np.abs(el - cell['damage'].astype(float)).max()  # Float32 in the snapshot: 6e-8 below 1
    if not derr <= 6e-8: fail('t = %g: damage differs from the snapshot by %.3g' % (t, derr))
    checked += len(rows); damaged += int(((d > 0) & (d < 1)).sum())
if damaged == 0: fail('no partly damaged facet in the window: the test checks nothing about damage')
if not (p.damage == 0).any(): fail('no intact facet in the window')
q = pd.read_csv(b + '/probes.csv')
for t, rows in q.groupby('t'):
    if list(rows.facet) != list(range(0, nfacet, 7)): fail('stride 7: facets %s' % list(rows.facet)[:5])
if sorted(q.t.unique()) != times: fail('stride 7: other sample times')
m = p[p.facet.isin(range(0, nfacet, 7))].reset_index(drop=True)
if not m.equals(q.reset_index(drop=True)): fail('stride 7: values differ from the full run')
pkg = json.load(open(a + '/datapackage.json'))
if 'probes.csv' not in [r['path'] for r in pkg['resources']]: fail('datapackage.json does not list probes.csv')
print('probes: %d samples checked against the snapshots (%d partly damaged)' % (checked, damaged))
PY

# a run without probes into the same directory: no probes.csv left, none listed
"$shard" run "$case_" -o "$T/a" "${common[@]}" > "$T/log" 2>&1 || { cat "$T/log"; fail "the run without probes failed"; }
[ ! -e "$T/a/probes.csv" ] || fail "the earlier run's probes.csv is still there"
grep -q '"probes.csv"' "$T/a/datapackage.json" && fail "datapackage.json lists probes.csv for a run without probes"
echo "probes: ok"
