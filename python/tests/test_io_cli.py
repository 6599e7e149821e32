"""shard.io and shard.cli on runs made here by the built shard ($SHARD_EXE, else
shard on the PATH) and on the stored campaigns under results/."""
import math
import shutil
import tempfile
import unittest
from pathlib import Path

import numpy as np

from shard import cli, io, stats
from shard.fit import power_law_fit

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results"


def exe():
    """The built shard: $SHARD_EXE (ctest sets it), else shard on the PATH; none is a failure."""
    return cli.find_executable()


class CliAndRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="shard-py-"))
        cls.exe = exe()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_run_loads_tables_units_and_summary(self):
        run = cli.run(ROOT / "cases/paper/ball_e08.yaml", self.tmp / "ball", {"time.dt": 1e-3}, exe=self.exe)
        self.assertEqual(run.status, "ok")
        self.assertEqual(run.value("steps"), 5000)
        self.assertEqual(run.case_value("contact.impact.restitution"), 0.8)
        self.assertEqual(run.case_value("time.dt"), 1e-3)
        h = run.history
        self.assertEqual(len(h), 5001)
        self.assertEqual(h.attrs["units"]["t"], "s")
        self.assertEqual(h.attrs["units"]["v"], "m/s")
        self.assertEqual(str(h["step"].dtype), "Int64")
        self.assertAlmostEqual(h["t"].iloc[-1], 5.0, delta=1e-9)
        # the summary's energies are the history's last row
        self.assertAlmostEqual(run.value("energy.contact_dissipation"), h["contact_dissipation"].iloc[-1],
                               delta=1e-9 * abs(h["contact_dissipation"].iloc[-1]))
        self.assertIn("history", run.table_names())
        with self.assertRaises(io.ShardDataError) as cm:
            run.table("fragments")
        self.assertIn("no fragments.csv", str(cm.exception))

    def test_field_snapshots_and_approach_speeds(self):
        from shard import figures
        # the small confined bar for 0.2 µs on 150 elements, a snapshot every 0.05 µs: at t = 0 the
        # velocity is the initial strain rate times X, u the initial strain times X, no fragment yet
        run = cli.run(ROOT / "tests/cases/fracture/confined_small.yaml", self.tmp / "fields",
                      {"model.elements": 150, "time.stop": "end", "time.end": 2e-7, "output.fields_interval": 5e-8},
                      exe=self.exe)
        files = sorted((run.path / "fields").glob("fields_*.vtu"))
        self.assertEqual(len(files), 5)
        t, a = io.read_vtu(files[0])
        self.assertEqual(t, 0.0)
        self.assertEqual(a["connectivity"].shape, (150, 2))
        self.assertEqual(len(a["v"]), 151)
        np.testing.assert_allclose(a["v"], 2.559e4 * a["X"], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(a["X"][[0, -1]], [-2e-3, 2e-3], rtol=1e-14)
        self.assertTrue(np.all(a["fragment"] == 0))
        self.assertAlmostEqual(io.read_vtu(files[-1])[0], 2e-7, delta=run.value("time.dt"))  # on a step
        sp = figures.approach_speeds(run.path)
        self.assertEqual(sp["faces"].size, 0)  # nothing broken in 0.2 µs
        self.assertEqual(sp["ends"].size, 10)
        self.assertAlmostEqual(sp["ends"][0], 0.5 * 2.559e4 * 4e-3, delta=1e-9)  # both ends move out at 51.18 m/s
        self.assertAlmostEqual(sp["ends"][1], 0.5 * 2.559e4 * 4e-3, delta=1e-9)
        bad = self.tmp / "bad.vtu"
        bad.write_bytes(files[0].read_bytes()[:3000])
        with self.assertRaises(io.ShardDataError) as cm:
            io.read_vtu(bad)
        self.assertIn("bad.vtu", str(cm.exception))
        with self.assertRaises(io.ShardDataError) as cm:
            figures.approach_speeds(self.tmp)
        self.assertIn("no field snapshots", str(cm.exception))

    def test_error_carries_stderr(self):
        with self.assertRaises(cli.ShardError) as cm:
            cli.run(ROOT / "cases/paper/ball_e08.yaml", self.tmp / "bad", ["nonsense.key=1"], exe=self.exe)
        self.assertEqual(cm.exception.returncode, 2)
        self.assertIn("unknown top-level key 'nonsense'", str(cm.exception))
        with self.assertRaises(FileNotFoundError):
            cli.run(ROOT / "cases/paper/ball_e08.yaml", self.tmp / "x", exe=self.tmp / "no-such-shard")

    def test_campaign_histories_and_statistics(self):
        f = self.tmp / "tiny.yaml"
        f.write_text(f"name: tiny\nbase: {ROOT / 'cases/paper/ball_e08.yaml'}\n"
                     "sweep:\n  contact.impact.restitution: [0.5, 0.8]\n  time.dt: [1e-3, 2e-3]\n"
                     "statistics:\n  over: time.dt\n  columns: [reference.eta]\n")
        c = cli.campaign(f, self.tmp / "tiny", jobs=1, exe=self.exe)
        self.assertEqual(len(c.ok), 4)
        self.assertEqual(c.table.attrs["units"]["time.dt"], "s")
        h = c.histories(columns=["t", "u"], params=["contact.impact.restitution", "time.dt"])
        self.assertEqual(list(h.columns), ["run", "contact.impact.restitution", "time.dt", "t", "u"])
        self.assertEqual(sorted(h["run"].unique()), [0, 1, 2, 3])
        # 5 s at 1e-3 and 2e-3: 5001 and 2501 rows, twice
        self.assertEqual(len(h), 2 * 5001 + 2 * 2501)
        self.assertEqual(set(h.loc[h["run"] == 1, "time.dt"]), {2e-3})
        # the C host's statistics.csv and shard.stats agree
        for _, row in c.statistics.iterrows():
            m = stats.mean_ci(c.ok.loc[c.ok["contact.impact.restitution"] == row["contact.impact.restitution"],
                                       "reference.eta"])
            self.assertAlmostEqual(m.mean, row["reference.eta.mean"], delta=1e-12 * m.mean)
            self.assertAlmostEqual(m.ci95, row["reference.eta.ci95"], delta=1e-9 * m.ci95)


class AgainstTheHost(unittest.TestCase):
    def test_power_law_fit_matches_the_campaign_slopes(self):
        # a campaign plot with log axes writes the least-squares slope, its standard
        # error and 95% interval per curve (plots/NAME.slopes.csv, computed in C)
        tmp = Path(tempfile.mkdtemp(prefix="shard-slopes-"))
        try:
            f = tmp / "c.yaml"
            f.write_text(f"name: slopes\nbase: {ROOT / 'cases/paper/ball_e08.yaml'}\n"
                         "sweep:\n  integrator.plugin: [nsn, cd_lagrange]\n"
                         "  time.dt: [1e-3, 2e-3, 3e-3, 5e-3, 8e-3]\n"
                         "plots:\n  - {file: eta, x: time.dt, y: reference.eta, series: integrator.plugin, "
                         "logx: true, logy: true}\n")
            c = cli.campaign(f, tmp / "out", exe=exe())
            slopes = io.read_csv(tmp / "out/plots/eta.slopes.csv")
            self.assertEqual(len(slopes), 2)
            for _, row in slopes.iterrows():
                g = c.ok[c.ok["integrator.plugin"] == row["curve"]]
                fit = power_law_fit(g["time.dt"], g["reference.eta"])
                self.assertEqual(fit.n, row["points"])
                # the file has 4 significant digits (%.4g): equal to within its rounding
                for mine, theirs in ((fit.exponent, row["slope"]), (fit.line.slope_se, row["slope_se"]),
                                     (fit.exponent_ci95, row["slope_ci95"])):
                    half_unit = 0.5 * 10 ** (math.floor(math.log10(abs(theirs))) - 3)
                    self.assertAlmostEqual(mine, theirs, delta=half_unit * 1.0001)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class SimulatingFigures(unittest.TestCase):
    """Figures that run their campaigns, on campaigns shrunk to seconds."""

    def test_free_ring_dt_on_a_small_bar(self):
        from shard import figures
        tmp = Path(tempfile.mkdtemp(prefix="shard-frdt-"))
        try:
            ctx = figures.Context(out=tmp / "figs", exe=exe(), source=ROOT, work=tmp, log=lambda m: None)
            figures._campaign_input(ctx, "free_ring_dt", "cases/paper/free_ring_dt.yaml",
                                    settings={"model.length": 5e-4, "model.origin": -2.5e-4, "model.elements": 200,
                                              "time.end": "5 * t0"})
            ctx.inputs["free_ring_dt"] = tmp / "free_ring_dt"
            text = figures.free_ring_dt(ctx)
            rows = [line for line in text.splitlines() if line.startswith("| penalty") or line.startswith("| NSN")]
            self.assertEqual([r.split(" | ")[1] for r in rows], ["0.20", "0.30", "0.40", "0.50", "0.99", "0.99"])
            self.assertTrue(rows[-1].startswith("| NSN | 0.99 | ok |"), rows[-1])
            self.assertTrue(rows[-1].endswith("| 1.00 |"), rows[-1])  # its loop over its own
            self.assertTrue((tmp / "figs/free_ring_dt.png").exists())
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class Stored(unittest.TestCase):
    def test_restitution_store(self):
        c = io.load_campaign(RESULTS / "restitution")
        self.assertEqual(len(c.ok), 56)
        self.assertIsNotNone(c.fragment_sizes)
        run = c.run(0)
        self.assertEqual(run.case_value("fracture.g_c"), 50)
        self.assertEqual(run.case_value("model.density"), 3900)
        self.assertEqual(run.value("fracture.fragments"), c.table.loc[0, "fracture.fragments"])
        h = c.histories(columns=["t", "fragments"], indices=[0, 7], params=["fracture.strength.seed"])
        self.assertEqual(sorted(h["run"].unique()), [0, 7])
        # the gzipped history ends with the summary's fragment count
        last = h[h["run"] == 0]["fragments"].iloc[-1]
        self.assertEqual(last, run.value("fracture.fragments"))
        # statistics.csv (C host) against shard.stats over campaign.csv: every group, every column
        for _, row in c.statistics.iterrows():
            g = c.ok[c.ok["contact.impact.restitution"] == row["contact.impact.restitution"]]
            for col in ("fracture.fragments", "fracture.dissipation", "fracture.g_hat_per_fragment"):
                m = stats.mean_ci(g[col])
                self.assertEqual(m.n, row["n"])
                self.assertAlmostEqual(m.mean, row[col + ".mean"], delta=1e-12 * abs(m.mean))
                self.assertAlmostEqual(m.ci95, row[col + ".ci95"], delta=1e-9 * abs(m.ci95))

    def test_pooled_tables_and_errors(self):
        c = io.load_campaign(RESULTS / "confined_length", [RESULTS / "confined_length/recorded_runs_0-15.csv"])
        self.assertEqual(len(c.ok), 30)
        self.assertEqual(sorted(c.ok["fracture.strength.seed"].unique()), [1, 2, 3, 4, 5])
        self.assertTrue(math.isnan(c.table.loc[c.table["index"] == 0, "wall_time.total"].iloc[0]))
        with self.assertRaises(io.ShardDataError) as cm:
            io.load_campaign(RESULTS)
        self.assertIn("no campaign.csv", str(cm.exception))
        with self.assertRaises(io.ShardDataError) as cm:
            io.load_run(RESULTS / "restitution")
        self.assertIn("not a run directory", str(cm.exception))

    def test_yaml_numbers(self):
        case = io.load_run(RESULTS / "restitution/runs/0000").case
        self.assertEqual(case["model"]["young"], 370e9)           # 370e9: a number, not a string
        self.assertEqual(case["time"]["dt"], "0.99 * dt_c")       # an expression stays text
        self.assertEqual(io.flatten({"a": {"b": 1, "c": {"d": 2}}}), {"a.b": 1, "a.c.d": 2})
        np.testing.assert_equal(io.load_run(RESULTS / "restitution/runs/0000").value("contact.max_active"), 3303)


if __name__ == "__main__":
    unittest.main()
