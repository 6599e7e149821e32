#!/usr/bin/env bash
# Field snapshots are VTK XML with zlib-compressed appended binary data:
# always the structure of the files (VTKFile attributes, every array appended,
# the ParaView collection naming each snapshot); with python3 the appended
# data decoded (zlib, independent of the writer) and checked against itself
# (points = X + u as Float32, fragment ids, cells); with VTK's Python module
# (Debian python3-vtk9) the file read back by vtkXMLUnstructuredGridReader
# and every array compared with the decoded values. The VTK part is skipped,
# with a line saying so, when the module is not installed.
#   bash vtu_binary.sh <shard-exe> <source-dir> <build-dir>
set -u
shard=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
die() { echo "FAIL: $*"; fail=1; }

# a bar of 3000 elements hitting a wall (the points span two compressed blocks): three snapshots
"$shard" run "$src/cases/paper/bar_impact_e0.yaml" -o "$work/run" --no-progress \
  --set model.elements=3000 --set output.every=1000 --set "time.end=2.54e-4 / 5.0 + 2 * t_b" \
  --set "output.fields_interval=(2.54e-4 / 5.0 + 2 * t_b) / 2.5" > "$work/log" 2>&1 ||
  { echo "FAIL: the run failed:"; cat "$work/log"; exit 1; }
n=$(ls "$work/run/fields" | grep -c '^fields_[0-9]*\.vtu$')
[ "$n" -eq 3 ] || die "expected 3 snapshots, got $n"

for f in "$work"/run/fields/fields_*.vtu; do
  name=$(basename "$f")
  head -c 4096 "$f" > "$work/head"
  grep -q '<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64" compressor="vtkZLibDataCompressor">' "$work/head" ||
    die "$name: VTKFile element without the binary/zlib attributes"
  [ "$(grep -c 'format="appended" offset="[0-9]*"/>' "$work/head")" -eq 11 ] || die "$name: not 11 appended arrays"
  grep -q 'format="ascii"' "$work/head" && ! grep -q 'Name="TimeValue".*format="ascii"' "$work/head" &&
    die "$name: an ASCII data array besides the time value"
  grep -q '<AppendedData encoding="raw">' "$work/head" || die "$name: no raw appended data"
  [ "$(tail -c 30 "$f")" = $'\n  </AppendedData>\n</VTKFile>' ] || die "$name: does not end with the closing tags"
  grep -q "file=\"fields/$name\"" "$work/run/fields.pvd" || die "fields.pvd does not list $name"
done

# the Python that has VTK (Debian's module sits in the system Python), else any python3
py=
for p in python3 /usr/bin/python3; do
  command -v "$p" > /dev/null && "$p" -c 'import vtk' 2> /dev/null && { py=$p; break; }
done
[ -n "$py" ] || ! command -v python3 > /dev/null || py=python3
if [ -z "$py" ]; then
  echo "vtu_binary: python3 not found: skipped decoding the data and reading it back with VTK"
else
  "$py" - "$work/run/fields" <<'PY' || fail=1
import os, re, struct, sys, zlib

def decode(path):
    data = open(path, 'rb').read()
    app = data.index(b'<AppendedData encoding="raw">')
    base = data.index(b'_', app) + 1
    xml = data[:app].decode()
    arrays = {}
    expect = 0
    for m in re.finditer(r'<DataArray type="(\w+)" Name="(\w+)"(?: NumberOfComponents="(\d)")? format="appended" offset="(\d+)"/>', xml):
        typ, name, comps, off = m.group(1), m.group(2), int(m.group(3) or 1), int(m.group(4))
        assert off == expect, '%s: %s at offset %d, expected %d' % (path, name, off, expect)
        nb, bs, last = struct.unpack_from('<3Q', data, base + off)
        sizes = struct.unpack_from('<%dQ' % nb, data, base + off + 24)
        at, raw = base + off + 24 + 8 * nb, b''
        for i, c in enumerate(sizes):
            block = zlib.decompress(data[at:at + c])
            want = last if (i == nb - 1 and last) else bs
            assert len(block) == want, '%s: %s block %d inflates to %d bytes, not %d' % (path, name, i, len(block), want)
            raw += block
            at += c
        expect = at - base
        code = {'Float64': 'd', 'Float32': 'f', 'Int32': 'i', 'UInt8': 'B'}[typ]
        arrays[name] = (typ, comps, struct.unpack('<%d%s' % (len(raw) // struct.calcsize(code), code), raw))
    npts = int(re.search(r'NumberOfPoints="(\d+)"', xml).group(1))
    ncells = int(re.search(r'NumberOfCells="(\d+)"', xml).group(1))
    return arrays, npts, ncells

def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]

d = sys.argv[1]
files = sorted(f for f in os.listdir(d) if f.endswith('.vtu'))
decoded = {}
for f in files:
    a, npts, ncells = decode(os.path.join(d, f))
    decoded[f] = (a, npts, ncells)
    assert sorted(a) == sorted(['u', 'v', 'X', 'stress', 'strain', 'damage', 'fragment', 'Points', 'connectivity',
                                'offsets', 'types']), sorted(a)
    assert len(a['u'][2]) == npts and len(a['Points'][2]) == 3 * npts and len(a['stress'][2]) == ncells
    for j in range(npts):
        assert a['Points'][2][3 * j] == f32(a['X'][2][j] + a['u'][2][j]), '%s: point %d is not X + u' % (f, j)
    assert a['types'][2] == (3,) * ncells and a['offsets'][2] == tuple(range(2, 2 * ncells + 1, 2))
    assert a['connectivity'][2] == tuple(k for e in range(ncells) for k in (e, e + 1))
print('vtu_binary: %d snapshots decoded with zlib (offsets back to back, blocks inflate to their sizes)' % len(files))

# at least 4 times smaller than the same snapshot as ASCII VTU (every number
# with 17 digits on its own line, points "x 0 0", as shard wrote them before)
for f in files:
    a, npts, ncells = decoded[f]
    text = 600  # the XML around the data
    for name, (typ, comps, v) in a.items():
        text += 90  # the DataArray tags
        if name == 'Points':
            text += sum(len('%.17g 0 0\n' % v[3 * j]) for j in range(npts))
        elif name == 'connectivity':
            text += sum(len('%d %d\n' % (v[2 * e], v[2 * e + 1])) for e in range(ncells))
        elif typ.startswith('Float'):
            text += sum(len('%.17g\n' % x) for x in v)
        else:
            text += sum(len('%d\n' % x) for x in v)
    size = os.path.getsize(os.path.join(d, f))
    print('vtu_binary: %s: %d bytes, %.2f times less than ASCII (%d bytes)' % (f, size, text / size, text))
    assert text >= 4 * size, '%s: only %.2f times smaller than ASCII' % (f, text / size)

try:
    import vtk
except ImportError:
    print('vtu_binary: VTK Python module not installed (Debian python3-vtk9): skipped reading back with VTK')
    sys.exit(0)

errors = []
class Catch:
    def __call__(self, obj, event):
        errors.append(event)
for f in files:
    r = vtk.vtkXMLUnstructuredGridReader()
    r.AddObserver('ErrorEvent', Catch())
    r.SetFileName(os.path.join(d, f))
    r.Update()
    g = r.GetOutput()
    a, npts, ncells = decoded[f]
    assert not errors, '%s: VTK reported errors' % f
    assert g.GetNumberOfPoints() == npts and g.GetNumberOfCells() == ncells, f
    for name in ('u', 'v', 'X'):
        arr = g.GetPointData().GetArray(name)
        assert arr is not None and arr.GetDataTypeAsString() == 'double', '%s: %s' % (f, name)
        assert tuple(arr.GetValue(i) for i in range(npts)) == a[name][2], '%s: %s differs' % (f, name)
    for name in ('stress', 'strain', 'damage', 'fragment'):
        arr = g.GetCellData().GetArray(name)
        assert arr is not None, '%s: no cell array %s' % (f, name)
        assert tuple(arr.GetValue(i) for i in range(ncells)) == a[name][2], '%s: %s differs' % (f, name)
    pts = g.GetPoints()
    assert tuple(pts.GetPoint(j)[0] for j in range(npts)) == a['Points'][2][0::3], '%s: points differ' % f
    for e in range(ncells):
        c = g.GetCell(e)
        assert c.GetCellType() == 3 and (c.GetPointId(0), c.GetPointId(1)) == (e, e + 1), '%s: cell %d' % (f, e)
    t = g.GetFieldData().GetArray('TimeValue')
    assert t is not None and t.GetNumberOfTuples() == 1
print('vtu_binary: %d snapshots read back by vtkXMLUnstructuredGridReader, every array equal' % len(files))
PY
fi
[ "$fail" -eq 0 ] && echo "vtu_binary: ok"
exit "$fail"
