"""Sample statistics: Student-t quantiles and intervals, paired differences,
and the two-sample Kolmogorov-Smirnov distance.

The Student-t quantile is computed from the regularised incomplete beta
function (no scipy); its 0.975 quantiles agree with the table of the C host
(framework/src/core/stats.c, which writes a campaign's statistics.csv) to 1e-10,
so intervals computed here and there agree.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

__all__ = [
    "betainc", "t_cdf", "t_quantile", "t975", "MeanCI", "mean_ci", "paired_difference",
    "ks_distance", "ks_critical",
]


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            return h
    raise ArithmeticError(f"incomplete beta: no convergence for a={a}, b={b}, x={x}")


def betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1."""
    if not (a > 0 and b > 0) or not 0.0 <= x <= 1.0:
        raise ValueError(f"betainc: need a, b > 0 and 0 <= x <= 1 (a={a}, b={b}, x={x})")
    if x == 0.0 or x == 1.0:
        return x
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, dof: float) -> float:
    """P(T <= t) for Student's t with `dof` degrees of freedom."""
    if not dof > 0:
        raise ValueError(f"t_cdf: degrees of freedom must be positive, not {dof}")
    tail = 0.5 * betainc(0.5 * dof, 0.5, dof / (dof + t * t))
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, dof: float) -> float:
    """The p quantile of Student's t with `dof` > 0 degrees of freedom (NaN for dof < 1
    when dof is an integer count, as the C host)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"t_quantile: p must lie in (0, 1), not {p}")
    if not dof > 0 or math.isnan(dof):
        return math.nan
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, dof)
    # bracket, then bisect on the cdf (monotone), then polish with Newton
    lo, hi = 0.0, 1.0
    while t_cdf(hi, dof) < p:
        lo, hi = hi, 2.0 * hi
        if hi > 1e300:
            return math.inf
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, dof) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * hi:
            break
    return 0.5 * (lo + hi)


def t975(dof: float) -> float:
    """t_{0.975, dof}: the factor of 95% two-sided intervals (NaN for dof < 1)."""
    if not dof >= 1:
        return math.nan
    return t_quantile(0.975, dof)


@dataclass(frozen=True)
class MeanCI:
    """Mean of n values and the half-width of its 95% Student-t interval
    (NaN with fewer than two values), with the sample standard deviation."""
    mean: float
    ci95: float
    std: float
    n: int

    def __str__(self) -> str:
        return f"{self.mean:.4g} ± {self.ci95:.2g}" if self.n > 1 else f"{self.mean:.4g}"


def mean_ci(values: Iterable[float]) -> MeanCI:
    """Mean and 95% Student-t interval of the values (NaN and None skipped)."""
    x = np.asarray([v for v in values if v is not None], dtype=float)
    x = x[~np.isnan(x)]
    n = int(x.size)
    if n == 0:
        return MeanCI(math.nan, math.nan, math.nan, 0)
    mean = float(x.mean())
    if n < 2:
        return MeanCI(mean, math.nan, math.nan, n)
    std = float(x.std(ddof=1))
    return MeanCI(mean, t975(n - 1) * std / math.sqrt(n), std, n)


def paired_difference(a: Sequence[float], b: Sequence[float]) -> MeanCI:
    """Mean and 95% interval of a[i] - b[i] over pairs (e.g. the same seed under two
    settings: the pairing cancels the seed-to-seed scatter)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired_difference: {a.size} values against {b.size}")
    return mean_ci(a - b)


def ks_distance(a: Iterable[float], b: Iterable[float]) -> float:
    """Two-sample Kolmogorov-Smirnov distance sup_x |F_a(x) - F_b(x)| between the
    empirical distribution functions of the two samples."""
    a = np.sort(np.asarray(list(a), dtype=float))
    b = np.sort(np.asarray(list(b), dtype=float))
    if a.size == 0 or b.size == 0:
        raise ValueError("ks_distance: an empty sample")
    x = np.concatenate([a, b])
    fa = np.searchsorted(a, x, side="right") / a.size
    fb = np.searchsorted(b, x, side="right") / b.size
    return float(np.max(np.abs(fa - fb)))


def ks_critical(n: int, m: int, alpha: float = 0.05) -> float:
    """Asymptotic critical value of the two-sample KS distance at level alpha:
    sqrt(-ln(alpha/2)/2) sqrt((n+m)/(n m)) (1.358 sqrt(...) at 5%). It assumes
    independent values; fragments of one run are not quite (they share their run's
    bar), so read it as a scale."""
    if n < 1 or m < 1:
        raise ValueError(f"ks_critical: sample sizes {n} and {m}")
    return math.sqrt(-math.log(alpha / 2.0) / 2.0) * math.sqrt((n + m) / (n * m))
