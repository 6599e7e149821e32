"""The 2D ring's figures on small data written here with known answers: the
per-run table (s0 from the resolved case, N_ZMR, Ĝ per volume), the seed means,
the energy budget, the tri2d snapshot reader and the fragment picture."""
import gzip
import math
import shutil
import tempfile
import unittest
from pathlib import Path

import numpy as np
import pandas as pd

from shard import figures, io

T2 = 4.302652729749464  # t_{0.975, 2}

# E = 4e9, G_c = 1, sigma_c = 2e4: s0 = E G_c / sigma_c^2 = 10 m
CASE = ("model: {young: 4e9, thickness: 0.5, mesh: {inner_radius: 9, outer_radius: 11}}\n"
        "fracture: {g_c: 1, strength: {nominal: 2e4}}\n")


def write_campaign(root: Path, rows) -> io.Campaign:
    root.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(root / "campaign.csv", index=False)
    run = root / "runs" / "0000"
    run.mkdir(parents=True, exist_ok=True)
    (run / "case.resolved.yaml").write_text(CASE)
    return io.load_campaign(root)


# two triangles of a unit square, the second moved by (1, 0); fragments 0 and 1
VTU = """<?xml version="1.0"?>
<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian">
  <UnstructuredGrid>
    <FieldData>
      <DataArray type="Float64" Name="TimeValue" NumberOfTuples="1" format="ascii">2.5e-07</DataArray>
    </FieldData>
    <Piece NumberOfPoints="6" NumberOfCells="2">
      <Points>
        <DataArray type="Float64" NumberOfComponents="3" format="ascii">
          0 0 0  1 0 0  1 1 0  2 0 0  3 1 0  1 1 0
        </DataArray>
      </Points>
      <Cells>
        <DataArray type="Int32" Name="connectivity" format="ascii">
          0 1 2  3 4 5
        </DataArray>
        <DataArray type="Int32" Name="offsets" format="ascii">3 6</DataArray>
        <DataArray type="UInt8" Name="types" format="ascii">5 5</DataArray>
      </Cells>
      <PointData Vectors="u">
        <DataArray type="Float64" Name="u" NumberOfComponents="3" format="ascii">
          0 0 0  0 0 0  0 0 0  1 0 0  1 0 0  0 0 0
        </DataArray>
      </PointData>
      <CellData>
        <DataArray type="Float64" Name="stress" NumberOfComponents="3" ComponentName0="sxx" format="ascii">
          1 2 3  4 5 6
        </DataArray>
        <DataArray type="Int32" Name="fragment" format="ascii">
          0 1
        </DataArray>
      </CellData>
    </Piece>
  </UnstructuredGrid>
</VTKFile>
"""


class Ring2d(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="shard-ring2d-"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def rows(self):
        # eps_hat = 1 (s_ZMR = 4.5 / 5.5 s0), three seeds of scheme 0 and one of scheme 1, one failed run
        rows = []
        base = {"status": "ok", "var.rate": 1.0, "model.mesh.inner_radius": 9.0, "model.mesh.outer_radius": 11.0,
                "energy.initial": 100.0, "energy.kinetic": 20.0, "energy.elastic": 5.0, "energy.penalty": 0.0,
                "energy.contact_dissipation": 1.0, "fracture.reversible": 4.0, "steps": 1000,
                "wall_time.loop": 2.0}
        for i, (sch, seed, nf, s, g, drift) in enumerate([(0, 1, 8, 8.0, 60.0, 1e-3), (0, 2, 10, 6.0, 62.0, 3e-3),
                                                          (0, 3, 12, 4.0, 64.0, 2e-3), (1, 1, 9, 7.0, 70.0, 0.5)]):
            rows.append({"index": i, "var.scheme": sch, "fracture.strength.seed": seed, "fracture.fragments": nf,
                         "fracture.mean_fragment_size": s, "fracture.dissipation": g,
                         "energy.max_balance_drift": drift, **base})
        rows.append({"index": 4, "status": "failed", "var.rate": 1.0, "var.scheme": 0, "fracture.strength.seed": 4})
        return rows

    def test_table_and_means(self):
        c = write_campaign(self.tmp / "t", self.rows())
        d, s0 = figures.ring2d_table(c)
        self.assertAlmostEqual(s0, 10.0)
        self.assertEqual(len(d), 4)  # the failed run left out
        self.assertEqual(list(d["s_hat"]), [0.8, 0.6, 0.4, 0.7])
        # N_ZMR = pi (ri + ro) / s_ZMR, s_ZMR = 10 * 4.5 / 5.5
        self.assertAlmostEqual(d["n_zmr"].iloc[0], math.pi * 20 / (10 * 4.5 / 5.5), delta=1e-12)
        # G hat = G / (t pi (ro^2 - ri^2)) / (G_c / s0) = 60 / (0.5 pi 40) * 10
        self.assertAlmostEqual(d["g_hat"].iloc[0], 60 / (0.5 * math.pi * 40) * 10, delta=1e-12)
        m = figures.ring2d_means(d)
        r0 = m[m["scheme"] == 0].iloc[0]
        self.assertEqual(r0["runs"], 3)
        self.assertAlmostEqual(r0["n_f"], 10.0)
        self.assertAlmostEqual(r0["n_f_ci"], T2 * 2 / math.sqrt(3), delta=1e-9)
        self.assertAlmostEqual(r0["s_hat"], 0.6, delta=1e-12)
        self.assertAlmostEqual(r0["drift"], 2e-3, delta=1e-15)
        self.assertEqual(m[m["scheme"] == 1].iloc[0]["runs"], 1)

    def test_budget_sums_to_one(self):
        d, _ = figures.ring2d_table(write_campaign(self.tmp / "b", self.rows()))
        b = figures.ring2d_budget(d)
        parts = ["kinetic", "elastic", "penalty", "fracture", "reversible", "contact", "rest"]
        self.assertTrue(np.allclose(b[parts].sum(axis=1), 1.0))
        r0 = b[b["scheme"] == 0].iloc[0]
        # scheme 0: fracture 62 on average: the rest 1 - (20 + 5 + 0 + 62 + 4 + 1) / 100 = 0.08
        self.assertAlmostEqual(r0["fracture"], 0.62, delta=1e-12)
        self.assertAlmostEqual(r0["rest"], 0.08, delta=1e-12)

    def test_snapshot_reader_and_picture_data(self):
        for name, data in (("s.vtu", VTU.encode()), ("s.vtu.gz", gzip.compress(VTU.encode()))):
            p = self.tmp / name
            p.write_bytes(data)
            t, a = io.read_tri2d_vtu(p)
            self.assertEqual(t, 2.5e-7)
            self.assertEqual(a["points"].shape, (6, 2))
            self.assertEqual(a["triangles"].tolist(), [[0, 1, 2], [3, 4, 5]])
            self.assertEqual(a["stress"].tolist(), [[1, 2, 3], [4, 5, 6]])
            self.assertEqual(a["u"][3].tolist(), [1, 0])
            t, tris, frag, nf = figures.ring2d_picture_data(p)
            self.assertEqual((nf, frag.tolist()), (2, [0, 1]))
            self.assertEqual(tris[1].tolist(), [[2, 0], [3, 1], [1, 1]])

    def test_stored_picture_keeps_what_is_drawn(self):
        src = self.tmp / "full.vtu"
        src.write_text(VTU)
        dst = figures.ring2d_store_picture(src, self.tmp / "pic" / "small.vtu.gz")
        t, a = io.read_tri2d_vtu(dst)
        self.assertEqual(t, 2.5e-7)
        self.assertEqual(sorted(a), ["fragment", "points", "triangles"])
        t0, a0 = io.read_tri2d_vtu(src)
        self.assertTrue(np.array_equal(a["points"], a0["points"]))
        self.assertEqual(a["triangles"].tolist(), a0["triangles"].tolist())
        self.assertEqual(a["fragment"].tolist(), [0, 1])

    def test_snapshot_errors_name_the_file(self):
        p = self.tmp / "bad.vtu"
        p.write_text(VTU.replace("0 1 2  3 4 5", "0 1 2  3 4 9"))
        with self.assertRaises(io.ShardDataError) as cm:
            io.read_tri2d_vtu(p)
        self.assertIn("bad.vtu: a triangle names a point outside 0..5", str(cm.exception))
        p.write_text(VTU.replace("0 1 2  3 4 5", "0 1 2  3 4"))
        with self.assertRaises(io.ShardDataError) as cm:
            io.read_tri2d_vtu(p)
        self.assertIn("array connectivity has 5 values, expected 6", str(cm.exception))
        p.write_text(VTU.replace('<DataArray type="Int32" Name="fragment" format="ascii">\n          0 1\n'
                                 '        </DataArray>', ""))
        with self.assertRaises(io.ShardDataError) as cm:
            figures.ring2d_picture_data(p)
        self.assertIn("no cell data 'fragment'", str(cm.exception))

    def test_figures_draw_from_a_store(self):
        store = self.tmp / "results" / "ring2d"
        write_campaign(store, self.rows())
        (store / "picture").mkdir()
        (store / "picture" / "s.vtu.gz").write_bytes(gzip.compress(VTU.encode()))
        ctx = figures.Context(out=self.tmp / "out", results=self.tmp / "results", log=lambda _s: None)
        text = figures.ring2d(ctx)
        self.assertIn("| NSN, e = 1 | 1 | 3 | 10.0 ± 5.0 |", text)
        self.assertIn("| 0.600 ± ", text)
        self.assertIn("e = 1 | 1 | 0.200 | 0.050 | 0.000 | 0.620 | 0.040 | 0.010 | 0.080 | 0.002 |",
                      figures.ring2d_energy(ctx))
        self.assertIn("2 triangles, 2 fragments", figures.ring2d_picture(ctx))
        for n in ("ring2d", "ring2d_energy", "ring2d_picture"):
            self.assertEqual((self.tmp / "out" / f"{n}.png").read_bytes()[:4], b"\x89PNG")


if __name__ == "__main__":
    unittest.main()
