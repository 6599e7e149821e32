#!/usr/bin/env bash
# Run and campaign directories describe their CSVs in datapackage.json
# (Frictionless Data Package, Table Schema with units): the fields of every
# resource are the CSV's header, in order, each with a type and a unit; the
# campaign table has a run_dir column naming each run's directory. With
# python3 the JSON is parsed and checked; with pandas every CSV is read with
# the types of its schema (empty fields missing); without python3 a plain
# text check of the JSON.
#   bash outputs_package.sh <shard-exe> <source-dir> <build-dir>
set -u
shard=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
die() { echo "FAIL: $*"; fail=1; }

# a small fracture campaign with statistics over the strength seed
cat > "$work/c.yaml" <<EOF
name: pkg
base: $src/tests/cases/fracture/ring_small.yaml
set: {model.elements: 120, output.every: 500}
sweep:
  time.end: [200 * t0]
  fracture.strength.seed: [1, 2, 3]
statistics: {over: fracture.strength.seed}
EOF
"$shard" campaign "$work/c.yaml" -o "$work/camp" -j 1 --no-progress > "$work/log" 2>&1 ||
  { echo "FAIL: the campaign failed:"; cat "$work/log"; exit 1; }
camp=$work/camp
for f in campaign.csv statistics.csv fragment_sizes.csv datapackage.json; do
  [ -s "$camp/$f" ] || die "the campaign directory has no $f"
done

# run_dir, read by name: each row's directory holds that run's summary
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; if (!("run_dir" in c)) exit 1; next }
         { print $c["index"], $c["run_dir"] }' "$camp/campaign.csv" > "$work/dirs" || die "campaign.csv has no run_dir column"
n=0
while read -r index dir; do
  n=$((n + 1))
  [ "$dir" = "runs/000$index" ] || die "run $index: run_dir '$dir', expected runs/000$index"
  [ -s "$camp/$dir/summary.yaml" ] && [ -s "$camp/$dir/datapackage.json" ] || die "run $index: $camp/$dir has no summary.yaml and datapackage.json"
done < "$work/dirs"
[ "$n" -eq 3 ] || die "expected 3 rows in campaign.csv, got $n"
run=$camp/runs/0000

# the Python that has pandas (Debian's sits in the system Python), else any python3
py=
for p in python3 /usr/bin/python3; do
  command -v "$p" > /dev/null && "$p" -c 'import pandas' 2> /dev/null && { py=$p; break; }
done
[ -n "$py" ] || ! command -v python3 > /dev/null || py=python3

if [ -z "$py" ]; then
  # without python: every CSV named in the package, and the package names its header's columns in order
  for d in "$run" "$camp"; do
    for csv in "$d"/*.csv; do
      name=$(basename "$csv")
      grep -q "\"path\": \"$name\"" "$d/datapackage.json" || die "$d/datapackage.json does not describe $name"
      fields=$(awk -v p="\"path\": \"$name\"" 'index($0, p) { on = 1 } on && /"path": / && !index($0, p) { on = 0 }
                  on && /\{"name": / { sub(/.*\{"name": "/, ""); sub(/".*/, ""); printf "%s%s", sep, $0; sep = "," }' "$d/datapackage.json")
      [ "$fields" = "$(head -1 "$csv")" ] || die "$d/datapackage.json: the fields of $name are not its header"
    done
  done
  echo "outputs_package: python3 not found: plain-text check of datapackage.json only"
else
  "$py" - "$run" "$camp" <<'PY' || fail=1
import csv, json, os, sys

def check(d, expect):
    pkg = json.load(open(os.path.join(d, 'datapackage.json')))
    assert pkg['profile'] == 'tabular-data-package'
    paths = [r['path'] for r in pkg['resources']]
    csvs = sorted(f for f in os.listdir(d) if f.endswith('.csv'))
    assert sorted(paths) == csvs, '%s: package %s, files %s' % (d, paths, csvs)
    assert sorted(paths) == sorted(expect), paths
    for r in pkg['resources']:
        header = next(csv.reader(open(os.path.join(d, r['path']))))
        fields = r['schema']['fields']
        assert [f['name'] for f in fields] == header, '%s: fields %s, header %s' % (r['path'], [f['name'] for f in fields], header)
        assert r['schema']['missingValues'] == ['']
        for f in fields:
            assert f['type'] in ('integer', 'number', 'string', 'boolean'), f
            assert 'unit' in f and f['description'], f
    return pkg

run, camp = sys.argv[1], sys.argv[2]
rp = check(run, ['history.csv', 'fragments.csv', 'fragment_sizes.csv', 'fragment_histogram.csv', 'interfaces.csv'])
cp = check(camp, ['campaign.csv', 'statistics.csv', 'fragment_sizes.csv'])
units = {r['path']: {f['name']: f['unit'] for f in r['schema']['fields']} for r in cp['resources']}
hist = {f['name']: f['unit'] for f in rp['resources'][0]['schema']['fields']}
for table, col, unit in [('campaign.csv', 'wall_time', 's'), ('campaign.csv', 'energy.kinetic', 'J'),
                         ('campaign.csv', 'time.end', 's'), ('campaign.csv', 'fracture.mean_fragment_size', 'm'),
                         ('statistics.csv', 'fracture.dissipation.mean', 'J'),
                         ('statistics.csv', 'fracture.fragments.mean', ''),
                         ('fragment_sizes.csv', 'size', 'm')]:
    assert units[table].get(col) == unit, '%s: %s has unit %r, expected %r' % (table, col, units[table].get(col), unit)
assert hist['t'] == 's' and hist['kinetic'] == 'J' and hist['momentum'] == 'kg m/s', hist
print('outputs_package: datapackage.json of the run and of the campaign describe every CSV, header for header')

try:
    import pandas
except ImportError:
    print('outputs_package: pandas not installed (Debian python3-pandas): skipped reading the CSVs with pandas')
    sys.exit(0)
dtypes = {'integer': 'Int64', 'number': 'float64', 'string': 'string', 'boolean': 'boolean'}
n = 0
for d, pkg in ((run, rp), (camp, cp)):
    for r in pkg['resources']:
        fields = r['schema']['fields']
        df = pandas.read_csv(os.path.join(d, r['path']), keep_default_na=False, na_values=r['schema']['missingValues'],
                             dtype={f['name']: dtypes[f['type']] for f in fields})
        assert list(df.columns) == [f['name'] for f in fields] and len(df) > 0, r['path']
        for f in fields:
            if f['type'] in ('integer', 'number'):
                assert pandas.api.types.is_numeric_dtype(df[f['name']]), (r['path'], f['name'], df[f['name']].dtype)
        df.attrs['units'] = {f['name']: f['unit'] for f in fields}
        n += 1
# a missing value is missing, not a number: a history without a contact node
h = pandas.read_csv(os.path.join(run, 'history.csv'), keep_default_na=False, na_values=[''])
assert h['u_contact'].isna().all() and h['v_contact'].isna().all()
print('outputs_package: pandas read %d CSVs with the types of their schemas' % n)
PY
fi
[ "$fail" -eq 0 ] && echo "outputs_package: ok"
exit "$fail"
