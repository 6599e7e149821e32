"""shard.probes on synthetic signals with known spectra and excursions."""
import unittest

import numpy as np
import pandas as pd

from shard import probes


def tones(n, dt, parts, ramp=0.0):
    t = np.arange(n) * dt
    return sum(a * np.sin(2 * np.pi * f * t + ph) for a, f, ph in parts) + ramp * t / t[-1]


class Spectra(unittest.TestCase):
    n, dt = 3000, 1e-9  # 3 us at 1 ns: bins of 1/3 MHz up to 500 MHz

    def test_two_tones_share_is_their_power_ratio(self):
        # 20 MHz (amplitude 3) and 150 MHz (amplitude 1): above 70 MHz, 1 / (9 + 1)
        x = tones(self.n, self.dt, [(3.0, 20e6, 0.3), (1.0, 150e6, 1.1)])
        f, p = probes.power_spectrum(x, self.dt)
        self.assertAlmostEqual(float(probes.high_share(f, p, 70e6)), 0.1, delta=0.005)
        self.assertAlmostEqual(f[1], 1 / (self.n * self.dt))
        self.assertAlmostEqual(f[np.argmax(p)] / 1e6, 20.0, delta=0.34)

    def test_a_trend_does_not_leak_into_the_high_band(self):
        # the same tones on a ramp 100 times their amplitude (a stress rising over the window)
        x = tones(self.n, self.dt, [(3.0, 20e6, 0.3), (1.0, 150e6, 1.1)], ramp=300.0)
        f, p = probes.power_spectrum(x, self.dt)
        self.assertAlmostEqual(float(probes.high_share(f, p, 70e6)), 0.1, delta=0.01)
        # without the detrend the ramp's leakage would dominate the low band: the share collapses
        w = np.hanning(self.n)
        raw = np.abs(np.fft.rfft((x - x.mean()) * w)) ** 2
        self.assertLess(float(probes.high_share(f, raw, 70e6)), 0.05)

    def test_white_noise_share_is_the_band_fraction(self):
        rng = np.random.default_rng(7)
        x = rng.normal(size=(self.n, 50))
        f, p = probes.power_spectrum(x, self.dt)
        share = probes.high_share(f, p, 100e6)
        self.assertEqual(share.shape, (50,))
        self.assertAlmostEqual(float(share.mean()), 0.8, delta=0.01)  # (500 - 100) / 500

    def test_columns_are_independent_spectra(self):
        a = tones(self.n, self.dt, [(1.0, 10e6, 0.0)])
        b = tones(self.n, self.dt, [(1.0, 200e6, 0.0)])
        f, p = probes.power_spectrum(np.c_[a, b], self.dt)
        s = probes.high_share(f, p, 70e6)
        self.assertLess(s[0], 0.01)
        self.assertGreater(s[1], 0.99)

    def test_no_power_is_nan(self):
        f, p = probes.power_spectrum(np.full(64, 5.0), 1.0)
        self.assertTrue(np.isnan(probes.high_share(f, p, 0.1)))


class Excursions(unittest.TestCase):
    def test_runs_above_the_strength(self):
        s = np.array([0, 2, 2, 0, 0, 3, 0, 2, 2, 2], dtype=float)
        lengths = probes.excursions(s, np.ones(10), 0.5)
        np.testing.assert_allclose(lengths, [1.0, 0.5, 1.5])  # 2, 1 and 3 samples; the last cut at the end

    def test_equal_is_not_above_and_none_is_empty(self):
        self.assertEqual(len(probes.excursions(np.ones(5), np.ones(5), 1.0)), 0)

    def test_strength_per_sample(self):
        # a falling strength (damage growing): the same stress crosses it later on
        s = np.full(6, 1.0)
        lengths = probes.excursions(s, np.array([2, 2, 2, 0.5, 0.5, 2.0]), 1.0)
        np.testing.assert_allclose(lengths, [2.0])


class FacetStatistics(unittest.TestCase):
    def frame(self):
        n, dt = 400, 1e-9
        t = np.arange(n) * dt
        rows = []
        # facet 0: intact, slow; facet 5: damaged in the window, fast with two excursions; facet 10: broken before
        sig = {0: 1e6 * np.sin(2 * np.pi * 10e6 * t),
               5: 1e6 * np.sin(2 * np.pi * 200e6 * t),
               10: np.zeros(n)}
        dmg = {0: np.zeros(n), 5: np.where(t > 200 * dt, 0.5, 0.2), 10: np.ones(n)}
        for k in sig:
            for i in range(n):
                rows.append((t[i], k, sig[k][i], dmg[k][i], 2e6))
        return pd.DataFrame(rows, columns=probes.PROBE_COLUMNS)

    def test_classes_shares_and_excursions(self):
        fs = probes.facet_statistics(self.frame(), 70e6).set_index("facet")
        self.assertEqual(list(fs["class"]), ["intact", "damaged", "broken_before"])
        self.assertLess(fs.loc[0, "high_share"], 0.01)
        self.assertGreater(fs.loc[5, "high_share"], 0.99)
        self.assertEqual(fs.loc[0, "excursions"], 0)  # 1 MPa never above 2 MPa
        # facet 5: 1 MPa peaks above 2 MPa (1 - 0.5) = 1 MPa never (equal at most); above 1.6 MPa never: 0
        self.assertEqual(fs.loc[5, "excursions"], 0)
        run = probes.run_statistics(fs.reset_index())
        self.assertEqual(run["facets"], 2)
        self.assertEqual(run["facets_damaged"], 1)

    def test_excursions_counted_against_the_current_strength(self):
        df = self.frame()
        df.loc[df.facet == 5, "sigma_c"] = 1.5e6  # 1.5 (1 - 0.5) = 0.75 MPa after t = 200 ns: each 200 MHz crest
        fs = probes.facet_statistics(df, 70e6).set_index("facet")
        # 199 samples after 200 ns hold 39.8 periods of 5 ns: one excursion per crest, about 40
        self.assertGreaterEqual(fs.loc[5, "excursions"], 38)
        self.assertLessEqual(fs.loc[5, "excursions"], 41)
        self.assertLess(fs.loc[5, "excursion_mean"], 2.5e-9)


if __name__ == "__main__":
    unittest.main()
