"""shard.stats on data with known answers."""
import math
import unittest

from shard import stats

# t_{0.975, nu}, nu = 1..30: the table of framework/src/core/stats.c (checked there
# against a numerical inversion of the t distribution to 1e-11)
C_TABLE = [12.706204736174698, 4.302652729749464, 3.182446305284263, 2.776445105197793, 2.570581835636314,
           2.446911851144969, 2.364624251592785, 2.306004135204166, 2.262157162798205, 2.228138851986274,
           2.200985160082949, 2.178812829667228, 2.160368656461013, 2.144786687917804, 2.131449545559774,
           2.119905299221255, 2.109815577833317, 2.100922040241036, 2.093024054408307, 2.085963447265865,
           2.079613844727662, 2.073873067904015, 2.068657610419041, 2.063898561628021, 2.059538552753294,
           2.055529438642871, 2.051830516480283, 2.048407141795244, 2.045229642132703, 2.042272456301238]


def c_cornish_fisher(nu):
    """framework/src/core/stats.c above 30 degrees of freedom."""
    z = 1.959963984540054
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    return z + (g1 + (g2 + (g3 + g4 / nu) / nu) / nu) / nu


class StudentT(unittest.TestCase):
    def test_matches_the_c_table(self):
        for nu, want in enumerate(C_TABLE, start=1):
            self.assertAlmostEqual(stats.t975(nu), want, delta=1e-10 * want, msg=f"nu = {nu}")

    def test_matches_the_c_expansion_above_30(self):
        for nu in (31, 40, 60, 120, 1000):
            self.assertAlmostEqual(stats.t975(nu), c_cornish_fisher(nu), delta=2e-6, msg=f"nu = {nu}")

    def test_printed_table_values(self):
        # two-sided 90% and 99% from printed tables (3 decimals)
        for p, nu, want in ((0.95, 1, 6.314), (0.95, 10, 1.812), (0.995, 5, 4.032), (0.995, 20, 2.845),
                            (0.975, 1e9, 1.960)):
            self.assertAlmostEqual(stats.t_quantile(p, nu), want, delta=6e-4)

    def test_symmetry_and_cdf_inverse(self):
        self.assertEqual(stats.t_quantile(0.5, 3), 0.0)
        self.assertAlmostEqual(stats.t_quantile(0.025, 4), -C_TABLE[3], delta=1e-10)
        self.assertAlmostEqual(stats.t_cdf(C_TABLE[6], 7), 0.975, delta=1e-13)
        # nu = 1 is Cauchy: F(t) = 1/2 + atan(t)/pi
        self.assertAlmostEqual(stats.t_cdf(0.7, 1), 0.5 + math.atan(0.7) / math.pi, delta=1e-14)

    def test_no_degrees_of_freedom(self):
        self.assertTrue(math.isnan(stats.t975(0)))
        with self.assertRaises(ValueError):
            stats.t_quantile(1.0, 3)


class MeanInterval(unittest.TestCase):
    def test_by_hand(self):
        # 78, 76, 80: mean 78, s = 2, half-width t(2) 2/sqrt(3)
        m = stats.mean_ci([80, 76, 78])
        self.assertEqual(m.n, 3)
        self.assertAlmostEqual(m.mean, 78.0, delta=1e-12)
        self.assertAlmostEqual(m.std, 2.0, delta=1e-12)
        self.assertAlmostEqual(m.ci95, C_TABLE[1] * 2 / math.sqrt(3), delta=1e-9)

    def test_missing_and_single(self):
        m = stats.mean_ci([5.0, float("nan"), None])
        self.assertEqual((m.n, m.mean), (1, 5.0))
        self.assertTrue(math.isnan(m.ci95))
        self.assertEqual(stats.mean_ci([]).n, 0)

    def test_paired(self):
        # differences 10, 6, 12: mean 9.333, s = 3.055
        d = stats.paired_difference([80, 76, 78], [70, 70, 66])
        self.assertAlmostEqual(d.mean, 28 / 3, delta=1e-12)
        self.assertAlmostEqual(d.ci95, C_TABLE[1] * math.sqrt(28 / 3) / math.sqrt(3), delta=1e-9)
        with self.assertRaises(ValueError):
            stats.paired_difference([1, 2], [1])


class KolmogorovSmirnov(unittest.TestCase):
    def test_hand_computed(self):
        # A = 0.5, 1, 1.5; B = 0.5, 1.5, 0.5, 0.5, 2. F_A - F_B at 0.5, 1, 1.5, 2:
        # 1/3 - 3/5, 2/3 - 3/5, 1 - 4/5, 1 - 1: D = 4/15
        self.assertAlmostEqual(stats.ks_distance([0.5, 1, 1.5], [0.5, 1.5, 0.5, 0.5, 2]), 4 / 15, delta=1e-15)
        # c(5%) = sqrt(ln(2/0.05)/2) = 1.358...
        self.assertAlmostEqual(stats.ks_critical(3, 5), math.sqrt(math.log(40) / 2) * math.sqrt(8 / 15), delta=1e-14)
        self.assertAlmostEqual(stats.ks_critical(3, 5) / math.sqrt(8 / 15), 1.358, delta=5e-4)

    def test_disjoint_and_identical(self):
        self.assertEqual(stats.ks_distance([0.5, 1, 1.5], [1.6, 1.7, 1.8]), 1.0)
        self.assertEqual(stats.ks_distance([3, 1, 2], [1, 2, 3]), 0.0)
        with self.assertRaises(ValueError):
            stats.ks_distance([], [1])


if __name__ == "__main__":
    unittest.main()
