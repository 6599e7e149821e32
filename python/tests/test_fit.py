"""shard.fit on data with known answers."""
import math
import unittest

import numpy as np
import pandas as pd

from shard import fit

T4 = 2.776445105197793  # t_{0.975, 4}
T6 = 2.446911851144969  # t_{0.975, 6}


class Line(unittest.TestCase):
    def test_exact_line(self):
        f = fit.line_fit([1, 2, 3, 4], [3, 5, 7, 9])
        self.assertAlmostEqual(f.slope, 2.0, delta=1e-14)
        self.assertAlmostEqual(f.intercept, 1.0, delta=1e-14)
        self.assertAlmostEqual(f.slope_ci95, 0.0, delta=1e-12)

    def test_standard_error_by_hand(self):
        # x = 0..4, y = 0, 1, 1, 3, 3: Sxy = 8, Sxx = 10, slope 0.8, intercept 0.0, residuals
        # 0, .2, -.6, .6, -.2: RSS 0.8, s² = 0.8/3; se = sqrt(s²/10), intercept se = sqrt(s² (1/5 + 4/10))
        f = fit.line_fit(range(5), [0, 1, 1, 3, 3])
        self.assertAlmostEqual(f.slope, 0.8, delta=1e-14)
        self.assertAlmostEqual(f.intercept, 0.0, delta=1e-14)
        s2 = 0.8 / 3
        self.assertAlmostEqual(f.slope_se, math.sqrt(s2 / 10), delta=1e-14)
        self.assertAlmostEqual(f.intercept_se, math.sqrt(s2 * 0.6), delta=1e-14)
        self.assertAlmostEqual(f.slope_ci95, 3.182446305284263 * math.sqrt(s2 / 10), delta=1e-9)

    def test_two_points_no_interval_and_errors(self):
        f = fit.line_fit([1, 2], [1, 3])
        self.assertAlmostEqual(f.slope, 2.0)
        self.assertTrue(math.isnan(f.slope_ci95))
        with self.assertRaises(ValueError):
            fit.line_fit([1, 1, 1], [1, 2, 3])
        with self.assertRaises(ValueError):
            fit.line_fit([1, 2], [1, 2, 3])

    def test_nan_points_left_out(self):
        f = fit.line_fit([1, 2, 3, float("nan")], [2, 4, 6, 100])
        self.assertEqual(f.n, 3)
        self.assertAlmostEqual(f.slope, 2.0)


def length_study():
    """Two seeds over L = 1, 4, 16, 64 mm: seed 1 G/L ~ L^1.5, seed 2 G/L ~ L^1;
    N_f G_c/L ~ L^0.5 for both, seed 2 twice seed 1's."""
    L = np.array([0.001, 0.004, 0.016, 0.064])
    rows = []
    for seed, g_exp, nf_scale in ((1, 1.5, 1.0), (2, 1.0, 2.0)):
        for li in L:
            rows.append({"seed": seed, "L": li, "G_over_L": 3.0 * (li / 0.001) ** g_exp,
                         "NfGc_over_L": nf_scale * 7.0 * (li / 0.001) ** 0.5})
    return pd.DataFrame(rows)


class PowerLaw(unittest.TestCase):
    def test_exact_power_law_recovers_exponent(self):
        x = np.geomspace(1e-3, 1e-2, 7)
        f = fit.power_law_fit(x, 2.5 * x ** 1.37)
        self.assertAlmostEqual(f.exponent, 1.37, delta=1e-12)
        self.assertAlmostEqual(f.prefactor, 2.5, delta=1e-10)
        self.assertAlmostEqual(f.exponent_ci95, 0.0, delta=1e-10)
        np.testing.assert_allclose(f(x), 2.5 * x ** 1.37, rtol=1e-12)

    def test_non_positive_refused(self):
        with self.assertRaises(ValueError):
            fit.power_law_fit([1, 2, 3], [1, 0, 2])

    def test_pooled_seeds_interval_by_hand(self):
        # pooled, balanced: G/L slope 1.25, N_f G_c/L slope 0.5 with residuals ± ln2/2:
        # interval t(6) sqrt(2 ln²2 / 6 / (10 ln²4)) = 2.4469 * 0.0913 = 0.223
        d = length_study()
        fn = fit.power_law_fit(d["L"], d["NfGc_over_L"])
        self.assertAlmostEqual(fn.exponent, 0.5, delta=1e-12)
        self.assertAlmostEqual(fn.exponent_ci95, T6 * math.sqrt(2 * math.log(2) ** 2 / 6 / (10 * math.log(4) ** 2)),
                               delta=1e-9)
        self.assertAlmostEqual(fit.power_law_fit(d["L"], d["G_over_L"]).exponent, 1.25, delta=1e-12)

    def test_per_seed_and_seed_means(self):
        d = length_study()
        per = fit.power_law_fits_by(d, "L", "G_over_L", "seed")
        self.assertEqual(list(per["seed"]), [1, 2])
        np.testing.assert_allclose(per["exponent"], [1.5, 1.0], atol=1e-12)
        np.testing.assert_allclose(per["ci95"], [0.0, 0.0], atol=1e-9)
        self.assertEqual(list(per["n"]), [4, 4])
        # the means of N_f G_c/L are 1.5 x 7 (L/1mm)^0.5: exact, exponent 0.5
        m = fit.power_law_fit_of_means(d, "L", "NfGc_over_L")
        self.assertEqual(m.n, 4)
        self.assertAlmostEqual(m.exponent, 0.5, delta=1e-12)
        self.assertAlmostEqual(m.prefactor * 0.001 ** 0.5, 10.5, delta=1e-9)

    def test_ranges(self):
        d = length_study()
        r = fit.power_law_fits_over_ranges(d, "L", "NfGc_over_L")
        self.assertEqual([(round(a * 1e3), round(b * 1e3)) for a, b in zip(r["x_lo"], r["x_hi"])],
                         [(1, 16), (1, 64), (4, 64)])
        np.testing.assert_allclose(r["exponent"], 0.5, atol=1e-12)
        self.assertEqual(list(r["n"]), [6, 8, 6])
        # over three lengths of two seeds the log offset ± ln2/2 gives t(4) sqrt(s²/Sxx)
        sxx = 2 * 2 * math.log(4) ** 2  # x = -ln4, 0, ln4 around the middle, twice
        self.assertAlmostEqual(r["ci95"].iloc[0], T4 * math.sqrt(6 * (math.log(2) / 2) ** 2 / 4 / sxx), delta=1e-9)


if __name__ == "__main__":
    unittest.main()
