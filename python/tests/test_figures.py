"""shard.figures: the list, and the figures of the stored campaigns with the numbers
their tables print (those of docs/reproduction.md)."""
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from shard import figures

PYTHON_DIR = Path(__file__).resolve().parents[1]


def module(*args):
    return subprocess.run([sys.executable, "-m", "shard.figures", *args], cwd=PYTHON_DIR, capture_output=True,
                          text=True, timeout=300)


class Figures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="shard-fig-"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_list(self):
        p = module("--list")
        self.assertEqual(p.returncode, 0, p.stderr)
        names = [line.split()[0] for line in p.stdout.splitlines() if line and not line.startswith(" ")]
        self.assertEqual(names, list(figures.FIGURES))
        for want in ("confined_length", "restitution", "restitution_seed1", "restitution_sizes", "free_ring",
                     "free_ring_dt", "damaged_bar_study", "damaged_bar_drift", "damaged_bar_cost"):
            self.assertIn(want, names)

    def test_every_figure_of_the_docs_has_its_function(self):
        docs = Path(__file__).resolve().parents[2] / "docs" / "figures"
        pngs = sorted(p.stem for p in docs.glob("*.png"))
        self.assertTrue(pngs)
        self.assertEqual([p for p in pngs if p not in figures.FIGURES], [])
        self.assertEqual([n for n in figures.FIGURES if n not in pngs], [])
        self.assertEqual(sorted(p.name for p in docs.iterdir() if p.suffix != ".png"), [])  # no gnuplot scripts left

    def test_unknown_figure(self):
        p = module("no_such_figure", "--out", str(self.tmp))
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown figure no_such_figure", p.stderr)

    def test_stored_figures_and_their_numbers(self):
        p = module("stored", "--out", str(self.tmp))
        self.assertEqual(p.returncode, 0, p.stderr)
        for name in ("confined_length", "restitution", "restitution_seed1", "restitution_sizes", "free_ring",
                     "damaged_bar_cost"):
            png = self.tmp / f"{name}.png"
            self.assertTrue(png.exists() and png.read_bytes()[:4] == b"\x89PNG", name)
        out = p.stdout
        for line in ("fitted over 30 runs: G/L ~ L^(1.24 ± 0.11) (paper 1.37); N_f G_c/L ~ L^(0.50 ± 0.04) (paper 0.61)",
                     "fitted over the 6 seed means: G/L ~ L^(1.24 ± 0.37); N_f G_c/L ~ L^(0.50 ± 0.07)",
                     "(N_f - 1) G_c/L ~ L^(0.57 ± 0.04)",
                     "| 1 | 6 | 1.28 ± 0.33 | 0.53 ± 0.20 |",
                     "| 0 | 8 | 79.5 ± 2.1 | 1.83 ± 0.04 | 0.460 ± 0.011 | 0.956 ± 0.014 | 7833 |",
                     "| 1 | 8 | 67.4 ± 3.6 | 4.13 ± 0.22 | 0.877 ± 0.003 | 0.877 ± 0.003 | 0 |",
                     "seed-paired, e = 0 minus e = 1, 8 seeds: N_f +12.1 ± 3.7 (higher at e = 0 in 8 of 8), "
                     "fracture energy -6595 ± 217 J",
                     "| e = 0.5 | 8 | 628 | 0.041 | 0.076 |",
                     "| 1 | 3 | 0.809 ± 0.094 | 0.818 | 0.99 | 2.253 ± 0.197 | 1.222 | 26, 24, 26 |",
                     "| NSN | 0.99 | ok | 0.00546 | 0.00747 | 11 | 110 | 4.4e-13 |",
                     "| penalty α = 100 | 0.5 | numerical_failure | - | - | 25.4 | 45.4 | 1 |",
                     "cheapest at eta_u <= 0.00546 (NSN's largest): NSN 11 s (Δt/Δt_c 0.99), penalty α = 100 73.9 s "
                     "(Δt/Δt_c 0.2), penalty α = 1 never, penalty α = 10 never"):
            self.assertIn(line, out)

    def test_missing_store_is_a_clear_error(self):
        p = module("restitution", "--out", str(self.tmp), "--results", str(self.tmp / "nowhere"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("restitution: ", p.stderr)
        self.assertIn("no stored campaign", p.stderr)


if __name__ == "__main__":
    unittest.main()
