"""The tables behind the figures, on small campaigns written here with known answers:
failed runs left out, seed pairing, constants read from the runs' resolved case."""
import math
import shutil
import tempfile
import unittest
from pathlib import Path

import numpy as np
import pandas as pd

from shard import figures, io

T2 = 4.302652729749464  # t_{0.975, 2}


def write_campaign(root: Path, rows, case_text: str) -> io.Campaign:
    root.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(root / "campaign.csv", index=False)
    run = root / "runs" / "0000"
    run.mkdir(parents=True, exist_ok=True)
    (run / "case.resolved.yaml").write_text(case_text)
    return io.load_campaign(root)


class FigureTables(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="shard-figdata-"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_restitution_table_pairs_seeds_and_skips_failed_runs(self):
        # e = 0: N_f 80, 76, 78; e = 1: N_f 70, 70, 66 (differences 10, 6, 12: mean 9.33, sd 3.06)
        base = {"energy.initial": 1000.0, "energy.external_work": 19000.0}
        rows = []
        for i, (e, seed, nf, g, cd, gh) in enumerate([(0, 1, 80, 7000, 8000, 1.8), (1, 1, 70, 14000, 0, 4.0),
                                                      (0, 2, 76, 7100, 8100, 1.9), (1, 2, 70, 13900, 0, 4.1),
                                                      (0, 3, 78, 6900, 7900, 1.7), (1, 3, 66, 13800, 0, 4.2)]):
            rows.append({"index": i, "status": "ok", "contact.impact.restitution": e, "fracture.strength.seed": seed,
                         "fracture.fragments": nf, "fracture.dissipation": g, "energy.contact_dissipation": cd,
                         "fracture.g_hat_per_fragment": gh, **base})
        rows.append({"index": 6, "status": "failed", "contact.impact.restitution": 0, "fracture.strength.seed": 4})
        c = write_campaign(self.tmp / "rest", rows, "model: {length: 5e-3, elements: 10}\n")
        d, table, paired = figures.restitution_table(c)
        self.assertEqual(len(d), 6)
        e0 = table[0]
        self.assertEqual((e0["e"], e0["runs"]), (0.0, 3))
        self.assertAlmostEqual(e0["n_f"].mean, 78.0)
        self.assertAlmostEqual(e0["n_f"].ci95, T2 * 2 / math.sqrt(3), delta=1e-9)
        # fracture / injected 0.35, 0.355, 0.345
        self.assertAlmostEqual(e0["frac"].mean, 0.35, delta=1e-12)
        self.assertAlmostEqual(e0["frac"].ci95, T2 * 0.005 / math.sqrt(3), delta=1e-9)
        self.assertEqual((paired["lo"], paired["hi"], paired["n"], paired["more"]), (0, 1, 3, 3))
        self.assertAlmostEqual(paired["n_f"].mean, 28 / 3, delta=1e-12)
        self.assertAlmostEqual(paired["n_f"].ci95, T2 * math.sqrt(28 / 3) / math.sqrt(3), delta=1e-9)
        self.assertAlmostEqual(paired["g"].mean, -6900, delta=1e-9)
        self.assertAlmostEqual(paired["g"].ci95, T2 * 100 / math.sqrt(3), delta=1e-9)
        text = "\n".join(figures._restitution_text(table, paired))
        self.assertIn("seed-paired, e = 0 minus e = 1, 3 seeds: N_f +9.3 ± 7.6 (higher at e = 0 in 3 of 3), "
                      "fracture energy -6900 ± 248 J", text)
        d1, table1, _ = figures.restitution_table(c, seed=2)
        self.assertEqual([r["runs"] for r in table1], [1, 1])
        self.assertTrue(math.isnan(table1[0]["n_f"].ci95))

    def test_thornton_restitution_known_values(self):
        vy = 2.0
        self.assertEqual(list(figures.thornton_restitution([0.5, 1.0, 2.0], vy)), [1.0, 1.0, 1.0])
        # v = 2 v_y (x = 1/2): √(6√3/5) √(1 − 1/24) [0.5 / (0.5 + 2√1.15)]^(1/4), by hand 0.93066
        self.assertAlmostEqual(float(figures.thornton_restitution(4.0, vy)), 0.93066, delta=5e-5)
        # continuous at v_y, decreasing above, ≈ 1.185 (v_y/v)^(1/4) far above
        self.assertAlmostEqual(float(figures.thornton_restitution(vy * (1 + 1e-9), vy)), 1.0, delta=1e-6)
        e = figures.thornton_restitution(np.geomspace(2.01, 2e4, 50), vy)
        self.assertTrue(np.all(np.diff(e) < 0))
        self.assertAlmostEqual(float(figures.thornton_restitution(2e8, vy)) * (1e8) ** 0.25, 1.1851, delta=1e-3)
        with self.assertRaises(ValueError):
            figures.thornton_restitution(1.0, 0.0)

    def test_thornton_yield_velocity(self):
        # 1.56 = π²/√40: the Hertz impact of a sphere on a rigid wall whose peak pressure reaches Y
        self.assertAlmostEqual(math.pi ** 2 / math.sqrt(40), 1.56, delta=1e-3)
        # E* = E/(1 − ν²) = 1 on the wall: 1.56 (Y⁵/ρ)^(1/2)
        self.assertAlmostEqual(figures.thornton_yield_velocity(1.0, 0.75, 0.5, 1.0), 1.56)
        self.assertAlmostEqual(figures.thornton_yield_velocity(4.0, 0.75, 0.5, 1.0), 1.56 * 32)      # Y^(5/2)
        self.assertAlmostEqual(figures.thornton_yield_velocity(1.0, 1.5, 0.5, 4.0), 1.56 / 4 / 2)   # E*^-2 ρ^-1/2
        # a pair: E* halves (v_y × 4), the reduced mass per R*³ is 4 × (v_y / 2): twice the wall's
        self.assertAlmostEqual(figures.thornton_yield_velocity(1.0, 0.75, 0.5, 1.0, pair=True), 1.56 * 2)
        # the pair from the energy directly: ½ (m/2) v² = (8/15) E* (R/2)^½ δ^(5/2), δ = (R/2) (πY/2E*)²
        R, rho, Y, Es = 1e-3, 3900.0, 4.7e9, 370e9 / (2 * (1 - 0.22 ** 2))
        m = 4 / 3 * math.pi * R ** 3 * rho
        delta = R / 2 * (math.pi * Y / (2 * Es)) ** 2
        v = math.sqrt(8 / 15 * Es * math.sqrt(R / 2) * delta ** 2.5 / (0.25 * m))
        self.assertAlmostEqual(figures.thornton_yield_velocity(Y, 370e9, 0.22, rho, pair=True), v, delta=1e-3 * v)
        # alumina: E = 370 GPa, ν = 0.22, ρ = 3900 kg/m³, Y = 4.7 GPa: 0.250 m/s on a wall, 0.500 m/s in pairs
        self.assertAlmostEqual(figures.thornton_yield_velocity(4.7e9, 370e9, 0.22, 3900), 0.2502, delta=2e-4)
        self.assertAlmostEqual(figures.thornton_yield_velocity(4.7e9, 370e9, 0.22, 3900, pair=True), 0.5005,
                               delta=2e-4)

    def test_restitution_ev_table(self):
        # constant e = 0.5 and e = 1, and v_y = 1: two seeds each, sizes in µm known
        def camp(name, key, runs):
            rows = []
            for i, (val, seed, sizes, g, cd) in enumerate(runs):
                rows.append({"index": i, "status": "ok", key: val, "fracture.strength.seed": seed,
                             "fracture.fragments": len(sizes), "fracture.mean_fragment_size": np.mean(sizes) * 1e-6,
                             "fracture.dissipation": g, "energy.contact_dissipation": cd,
                             "energy.initial": 1000.0, "energy.external_work": 9000.0})
                d = self.tmp / name / "runs" / f"{i:04d}"
                d.mkdir(parents=True, exist_ok=True)
                pd.DataFrame({"rank": range(1, len(sizes) + 1), "size": np.asarray(sizes) * 1e-6}).to_csv(
                    d / "fragment_sizes.csv", index=False)
            rows.append({"index": len(runs), "status": "failed", key: runs[0][0], "fracture.strength.seed": 9})
            return write_campaign(self.tmp / name, rows, "model: {length: 4e-3, elements: 1500}\n")
        const = camp("ev_const", "contact.impact.restitution",
                     [(0.5, 1, [10, 20, 30, 40], 4000.0, 4000.0), (0.5, 2, [10, 30], 4200.0, 3600.0),
                      (1, 1, [20, 40, 60], 8000.0, 0.0), (1, 2, [50, 70], 7600.0, 0.0)])
        ev = camp("ev_vy", "contact.impact.v_y",
                  [(1, 1, [11, 21, 31, 41, 51], 5000.0, 3000.0), (1, 2, [12, 22, 32], 5200.0, 2800.0)])
        d, rows = figures.restitution_ev_table(ev, const)
        self.assertEqual([r["law"] for r in rows], ["e = 0.5", "e = 1", "e(v), v_y = 1 m/s"])
        self.assertEqual([r["runs"] for r in rows], [2, 2, 2])
        r05, r1, rv = rows
        self.assertAlmostEqual(r05["n_f"].mean, 3.0)
        self.assertAlmostEqual(r05["n_f"].ci95, figures.mean_ci([4, 2]).ci95)
        self.assertAlmostEqual(r05["size"].mean, (25 + 20) / 2)
        self.assertAlmostEqual(r1["g"].mean, 7800.0)
        self.assertAlmostEqual(rv["frac"].mean, 0.51)
        self.assertAlmostEqual(rv["total"].mean, 0.80)
        # paired to e = 1: v_y = 1 has 5 − 3 and 3 − 2 more fragments
        self.assertAlmostEqual(rv["paired"].mean, 1.5)
        self.assertEqual(rv["fragments"], 8)
        self.assertNotIn("ks", r1)
        # KS: e = 1 pooled {20, 40, 50, 60, 70} against e = 0.5 {10, 10, 20, 30, 30, 40}: F at 30 is 5/6 vs 1/5
        self.assertAlmostEqual(r05["ks"], 5 / 6 - 1 / 5)
        self.assertAlmostEqual(r05["ks_crit"], figures.ks_critical(5, 6))
        text = "\n".join(figures._restitution_ev_text(rows, "e = 1"))
        self.assertIn("| e = 1 | 2 | 2.5 ± 6.4 | — | 50.0 ± 127.1 | 7.80 ± 2.54 | 0.00 ± 0.00 |", text)
        self.assertIn("| e(v), v_y = 1 m/s | 2 | 4.0 ± 12.7 | +1.5 ± 6.4 | ", text)
        with self.assertRaises(io.ShardDataError) as cm:
            figures.restitution_ev_table(ev, const, reference="e = 0")
        self.assertIn("no ok run of the reference law e = 0", str(cm.exception))

    def test_length_constants_come_from_the_case(self):
        # G_c = 25 and a section of 2 m² in the case: N_f G_c / L and G / (A L) use them
        rows = [{"index": 0, "status": "ok", "model.length": 0.001, "fracture.strength.seed": 1,
                 "fracture.dissipation": 400.0, "fracture.fragments": 8, "fracture.g_hat_per_fragment": 1.0},
                {"index": 1, "status": "ok", "model.length": 0.004, "fracture.strength.seed": 1,
                 "fracture.dissipation": 6400.0, "fracture.fragments": 32, "fracture.g_hat_per_fragment": 4.0}]
        case = ("model: {length: 1e-3, area: 2, density: 1000, initial: {strain_rate: 1e4}}\n"
                "fracture: {g_c: 25}\n")
        c = write_campaign(self.tmp / "len", rows, case)
        d, k = figures.confined_length_data(c)
        self.assertEqual(k, {"g_c": 25.0, "area": 2.0, "density": 1000.0, "strain_rate": 1e4})
        self.assertAlmostEqual(d["NfGc_over_L"].iloc[0], 8 * 25 / 0.001)
        self.assertAlmostEqual(d["G_over_L"].iloc[1], 6400 / 2 / 0.004)
        # an expression where a number is needed is an error naming the file and key
        (self.tmp / "len/runs/0000/case.resolved.yaml").write_text(case.replace("g_c: 25", "g_c: 2 * x"))
        with self.assertRaises(io.ShardDataError) as cm:
            figures.confined_length_data(io.load_campaign(self.tmp / "len"))
        self.assertIn("fracture.g_c is '2 * x', not a number", str(cm.exception))

    def test_pooled_sizes_in_words_and_ks(self):
        sizes = pd.DataFrame({"contact.impact.restitution": [0, 0, 0, 1, 1, 1], "runs": [1, 1, 1, 2, 2, 2],
                              "size": [1e-6] * 6, "size_over_mean": [0.5, 1, 1.5, 1.6, 1.7, 1.8],
                              "cumulative_number": [0.33, 0.67, 1, 0.33, 0.67, 1]})
        s = figures.pooled_size_samples(sizes)
        self.assertEqual(list(s), ["e = 0", "e = 1"])
        with self.assertRaises(io.ShardDataError):
            figures.pooled_size_samples(pd.DataFrame({"index": [0], "status": ["ok"]}))

    def test_confined_box_figure(self):
        rows = []
        for i, (a, seed, nf) in enumerate([(1, 1, 27), (1, 2, 25), (10, 1, 60), (10, 2, 52)]):
            rows.append({"index": i, "status": "ok", "var.alpha_box": a, "fracture.strength.seed": seed,
                         "fracture.fragments": nf, "fracture.dissipation": 13000.0 + nf,
                         "fracture.g_hat_per_fragment": 13000.0 / nf / 50})
        write_campaign(self.tmp / "box", rows, "model: {length: 5e-3, elements: 5000}\n")
        ctx = figures.Context(out=self.tmp / "figs", inputs={"confined_box": self.tmp / "box"}, log=lambda m: None)
        text = figures.FIGURES["confined_box_fragments"].func(ctx)
        self.assertIn("| 1 | 2 | 27 / 25 | 26.0 |", text)
        self.assertIn("| 10 | 2 | 60 / 52 | 56.0 |", text)
        self.assertTrue((self.tmp / "figs/confined_box_fragments.png").exists())

    def test_damaged_bar_cost_cheapest_scheme_at_an_error(self):
        # NSN: errors 0.004, 0.001 at 10 s, 40 s; penalty alpha = 1: 0.1, 0.09 at 2 s, 8 s; alpha = 10:
        # 0.02 at 6 s and 0.003 at 50 s, and a failed run at 0.99 (no error, cheapest: must not count)
        rows = [dict(index=i, status=st, **{"integrator.plugin": pl, "contact.force.alpha": a,
                                            "time.dt_over_dt_c": f, "reference.eta_u": eu, "reference.eta_v": eu,
                                            "cpu_time.loop": cpu, "steps": 1000, "energy.max_balance_drift": 1e-9})
                for i, (st, pl, a, f, eu, cpu) in enumerate([
                    ("ok", "nsn", None, 0.99, 0.004, 10.0), ("ok", "nsn", None, 0.2, 0.001, 40.0),
                    ("ok", "explicit_newmark", 1, 0.99, 0.1, 2.0), ("ok", "explicit_newmark", 1, 0.2, 0.09, 8.0),
                    ("ok", "explicit_newmark", 10, 0.5, 0.02, 6.0), ("ok", "explicit_newmark", 10, 0.1, 0.003, 50.0),
                    ("numerical_failure", "explicit_newmark", 10, 0.99, None, 0.5)])]
        c = write_campaign(self.tmp / "cost", rows,
                           "model: {elements: 40}\nfracture: {initial: {count: 20}}\n")
        d = figures.damaged_bar_cost_data(c)
        self.assertEqual(list(d["scheme"]), ["NSN", "NSN", "penalty α = 1", "penalty α = 1", "penalty α = 10",
                                             "penalty α = 10", "penalty α = 10"])
        self.assertEqual(list(d["dt_over_dt_c"]), [0.99, 0.2, 0.99, 0.2, 0.99, 0.5, 0.1])
        # at 0.005 only NSN (10 s) and alpha = 10 at 0.1 (50 s) qualify: NSN is the cheapest
        ch = figures.cheapest_at_error(d, "eta_u", 0.005)
        self.assertEqual(list(ch["scheme"][:2]), ["NSN", "penalty α = 10"])
        self.assertEqual(list(ch["cpu"][:2]), [10.0, 50.0])
        self.assertEqual(ch["dt_over_dt_c"].iloc[1], 0.1)
        self.assertEqual(ch["scheme"].iloc[2], "penalty α = 1")
        self.assertTrue(math.isnan(ch["cpu"].iloc[2]))
        # at 0.02 alpha = 10 at 0.5 (6 s) beats NSN; the failed run (0.5 s) is not a candidate
        ch = figures.cheapest_at_error(d, "eta_u", 0.02)
        self.assertEqual((ch["scheme"].iloc[0], ch["cpu"].iloc[0], ch["error"].iloc[0]), ("penalty α = 10", 6.0, 0.02))
        # at 0.1 alpha = 1 at 0.99 (2 s); at 0.0005 nobody
        self.assertEqual(figures.cheapest_at_error(d, "eta_u", 0.1)["scheme"].iloc[0], "penalty α = 1")
        self.assertTrue(figures.cheapest_at_error(d, "eta_u", 0.0005)["cpu"].isna().all())
        # the figure draws them and prints the table, the failed run without errors
        out = figures.damaged_bar_cost(figures.Context(out=self.tmp / "figs", inputs={"damaged_bar_cost": self.tmp / "cost"},
                                                       log=lambda _m: None))
        self.assertIn("| penalty α = 10 | 0.99 | numerical_failure | - | - | 0.5 | 500 | 1e-09 |", out)
        self.assertIn("cheapest at eta_u <= 0.004 (NSN's largest): NSN 10 s (Δt/Δt_c 0.99), penalty α = 10 50 s "
                      "(Δt/Δt_c 0.1), penalty α = 1 never", out)
        self.assertIn("penalty α = 10 at its smallest eta_u 0.003 (Δt/Δt_c 0.1): 50 s; the cheapest NSN run at or "
                      "below it: 40 s (0.8x), eta_u 0.001", out)
        self.assertTrue((self.tmp / "figs/damaged_bar_cost.png").exists())


    # ------------------------------------------------------------------ Fig. 8b-c: contact-node histories

    @staticmethod
    def contact_history(n=2049, late_end=0.75, chatter=(0.3, 0.31)):
        """A contact node on the wall (gap 0.625, v0 = 5, t_c = 0.125, t_b = 0.5), rows every
        1/1024 (exact in binary) up to t = 2: force from t_c to late_end except over `chatter`
        (shorter than t_b / 4), the velocity 2 sin(2π 64 (t - t_c)) around v_ref = 0 in contact
        (32 whole periods in [t_c, t_c + t_b), 16 rows each), then
        4 m/s over (late_end, late_end + 0.25] and 5 m/s after; one row 3e-3 into the wall."""
        t = np.arange(n) / 1024
        t_c, t_b, v0, gap = 0.125, 0.5, 5.0, 0.625
        force = np.where((t >= t_c) & (t < late_end), 1.0, 0.0)
        force[(t >= chatter[0]) & (t < chatter[1])] = 0.0
        v_ref = np.where(t < t_c, -v0, np.where(t <= t_c + t_b, 0.0, v0))
        v = v_ref.copy()
        during = (t >= t_c) & (t <= t_c + t_b)
        v[during] += 2 * np.sin(2 * np.pi * 64 * (t[during] - t_c))
        v[(t > late_end) & (t <= late_end + 0.25)] = 4.0
        v[t > late_end + 0.25] = 5.0
        u = np.where(t < t_c, -v0 * t, -gap) + np.where(t > late_end, t - late_end, 0.0)
        u[200] = -gap - 3e-3
        return t, u, v, force, v_ref, dict(t_c=t_c, t_b=t_b, v0=v0, gap=gap)

    def test_contact_history_numbers_known_answers(self):
        t, u, v, f, vr, k = self.contact_history()
        n = figures.contact_history_numbers(t, u, v, f, vr, **k)
        self.assertEqual(n["rebound"], 0.75)                      # the chatter at 0.3 is no rebound
        self.assertAlmostEqual(n["rebound_late"], 0.25, places=14)  # (0.75 - 0.125) / 0.5 - 1
        self.assertAlmostEqual(n["rebound_velocity"], 0.9, places=14)  # (256 rows at 4 + 256 at 5) / 512 / 5
        self.assertAlmostEqual(n["penetration"], 3e-3, places=14)
        # the rows of (t_c, t_c + t_b): 511 rows, 32 whole periods of the sine but its first zero
        self.assertAlmostEqual(n["rms_v_contact"], 2 * math.sqrt(256 / 511), places=12)
        self.assertAlmostEqual(n["rms_v_contact_rel"], 2 * math.sqrt(256 / 511) / 5, places=12)
        # the force is off over the 10 rows of [0.3, 0.31) (t = 308/1024 ... 317/1024) of those 511
        self.assertAlmostEqual(n["contact_share"], 501 / 511, places=14)
        # after the rebound: 1280 rows in (0.75, 2], 256 of them 1 m/s below v_ref
        self.assertAlmostEqual(n["rms_v_after"], math.sqrt(256 / 1280), places=14)
        # an early rebound (at 0.5 < t_c + t_b) ends the window: 383 rows, 24 periods
        t, u, v, f, vr, k = self.contact_history(late_end=0.5)
        n = figures.contact_history_numbers(t, u, v, f, vr, **k)
        self.assertEqual(n["rebound"], 0.5)
        self.assertAlmostEqual(n["rebound_late"], -0.25, places=14)
        self.assertAlmostEqual(n["rms_v_contact"], 2 * math.sqrt(192 / 383), places=12)
        # a loss of contact longer than the hold is the rebound; a longer hold bridges it
        t, u, v, f, vr, k = self.contact_history(chatter=(0.3125, 0.46875))
        self.assertEqual(figures.contact_history_numbers(t, u, v, f, vr, **k)["rebound"], 0.3125)
        self.assertEqual(figures.contact_history_numbers(t, u, v, f, vr, hold=0.2, **k)["rebound"], 0.75)

    def test_contact_history_numbers_no_rebound_and_exact_node(self):
        # the force until the end, or stopping less than t_b / 4 before it: no rebound in the run
        for end in (3.0, 2.0 - 0.1):
            t, u, v, f, vr, k = self.contact_history(late_end=end)
            n = figures.contact_history_numbers(t, u, v, f, vr, **k)
            self.assertTrue(math.isnan(n["rebound"]) and math.isnan(n["rebound_late"])
                            and math.isnan(n["rebound_velocity"]) and math.isnan(n["rms_v_after"]), (end, n))
        # never in contact: no rebound either
        t, u, v, f, vr, k = self.contact_history()
        self.assertTrue(math.isnan(figures.contact_history_numbers(t, u, v, 0 * f, vr, **k)["rebound"]))
        # the exact node: at rest on the wall, no penetration, no velocity error
        n = figures.contact_history_numbers(t, np.maximum(u, -k["gap"]), vr, f, vr, **k)
        self.assertEqual((n["penetration"], n["rms_v_contact"]), (0.0, 0.0))
        self.assertEqual(figures.contact_history_numbers(t, u, v, np.where(t > 0.125, 1.0, 0.0), vr,
                                                         **k)["contact_share"], 1.0)
        with self.assertRaises(ValueError):
            figures.contact_history_numbers(t, u[:-1], v, f, vr, **k)

    def test_damaged_bar_histories_from_given_runs(self):
        # four run directories as --input: the figure reads them, prints the numbers of each, draws the PNG
        t, u, v, f, vr, k = self.contact_history()
        L = 1.25  # t_b = 2 L / c = 0.5 with c = 5 (young 25, density 1)
        inputs = {}
        for key, plugin, ratio in (("nsn", "nsn", 0.99), ("penalty_1", "explicit_newmark", 0.2),
                                   ("penalty_10", "explicit_newmark", 0.2), ("penalty_100", "explicit_newmark", 0.2)):
            d = self.tmp / "histories" / key
            d.mkdir(parents=True, exist_ok=True)
            (d / "case.resolved.yaml").write_text(
                f"model: {{length: {L}, young: 25, density: 1, area: 1, elements: 40, "
                f"initial: {{velocity: -5}}, walls: {{left: {{gap: {k['gap']}}}}}}}\n"
                f"fracture: {{initial: {{count: 20}}}}\nintegrator: {{plugin: {plugin}}}\ntime: {{end: 2.0}}\n")
            (d / "summary.yaml").write_text(f"status: ok\ntime: {{dt_over_dt_c: {ratio}}}\n")
            pd.DataFrame({"t": t, "u_contact": u, "v_contact": v, "force_contact": f, "u_ref": np.maximum(u, -k["gap"]),
                          "v_ref": vr}).to_csv(d / "history.csv", index=False)
            inputs[key] = d
        out = figures.damaged_bar_histories(figures.Context(out=self.tmp / "figs", inputs=inputs, log=lambda _m: None))
        self.assertIn("| NSN (capped law, e = 0) | 0.99 | 750000.0000 | +25.0% | 0.900 | 3e+06 | 1.42 | 0.283 | 98% "
                      "| 0.447 |", out)
        self.assertIn("| explicit Newmark + penalty α = 100 | 0.2 |", out)
        self.assertTrue((self.tmp / "figs/damaged_bar_histories.png").exists())

if __name__ == "__main__":
    unittest.main()
