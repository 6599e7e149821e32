"""Least-squares fits with 95% intervals: straight lines and power laws.

A power law y = A x^b is fitted as the straight line log y = log A + b log x.
The interval of the slope is t_{0.975, n-2} times its standard error
sqrt(RSS / (n - 2) / Sxx); with two points the line is exact and has no
interval (NaN).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from .stats import t975

__all__ = ["LineFit", "PowerLawFit", "line_fit", "power_law_fit", "power_law_fits_by",
           "power_law_fit_of_means", "power_law_fits_over_ranges"]


@dataclass(frozen=True)
class LineFit:
    """y = intercept + slope x by least squares over n points."""
    slope: float
    intercept: float
    slope_se: float      # standard error of the slope (NaN under 3 points)
    intercept_se: float  # standard error of the intercept (NaN under 3 points)
    n: int

    @property
    def slope_ci95(self) -> float:
        """Half-width of the 95% Student-t interval of the slope."""
        return t975(self.n - 2) * self.slope_se if self.n > 2 else math.nan

    def __call__(self, x):
        return self.intercept + self.slope * np.asarray(x, dtype=float)


@dataclass(frozen=True)
class PowerLawFit:
    """y = prefactor x^exponent, fitted in logs over n points."""
    line: LineFit

    @property
    def exponent(self) -> float:
        return self.line.slope

    @property
    def exponent_ci95(self) -> float:
        return self.line.slope_ci95

    @property
    def prefactor(self) -> float:
        return math.exp(self.line.intercept)

    @property
    def n(self) -> int:
        return self.line.n

    def __call__(self, x):
        return self.prefactor * np.asarray(x, dtype=float) ** self.exponent

    def __str__(self) -> str:
        ci = self.exponent_ci95
        return f"{self.exponent:.2f} ± {ci:.2f}" if not math.isnan(ci) else f"{self.exponent:.2f}"


def line_fit(x: Sequence[float], y: Sequence[float]) -> LineFit:
    """Least-squares straight line through the points (x, y); points where x or y is
    NaN are left out. Raises ValueError when fewer than two distinct x remain."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"line_fit: {x.size} x values against {y.size} y values")
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    n = int(x.size)
    if n < 2 or np.unique(x).size < 2:
        raise ValueError(f"line_fit: need two distinct x values, have {np.unique(x).size} in {n} points")
    xm, ym = x.mean(), y.mean()
    sxx = float(((x - xm) ** 2).sum())
    slope = float(((x - xm) * (y - ym)).sum() / sxx)
    intercept = float(ym - slope * xm)
    if n > 2:
        rss = float(((y - intercept - slope * x) ** 2).sum())
        s2 = rss / (n - 2)
        slope_se = math.sqrt(s2 / sxx)
        intercept_se = math.sqrt(s2 * (1.0 / n + xm * xm / sxx))
    else:
        slope_se = intercept_se = math.nan
    return LineFit(slope, intercept, slope_se, intercept_se, n)


def power_law_fit(x: Sequence[float], y: Sequence[float]) -> PowerLawFit:
    """Least-squares fit of y = A x^b in logs; x and y must be positive (non-positive
    values raise ValueError: their logarithm does not exist)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    bad = (x <= 0) | (y <= 0)
    if bad.any():
        raise ValueError(f"power_law_fit: {int(bad.sum())} non-positive values (a power law needs x, y > 0)")
    return PowerLawFit(line_fit(np.log(x), np.log(y)))


def power_law_fits_by(df: pd.DataFrame, x: str, y: str, by: str) -> pd.DataFrame:
    """One power-law fit of column y against column x per value of column `by` (e.g.
    the seed): a table with by, n, exponent, ci95, prefactor (NaN where a group has
    fewer than two distinct x)."""
    rows = []
    for key, g in df.groupby(by, sort=True):
        try:
            f = power_law_fit(g[x], g[y])
            rows.append({by: key, "n": f.n, "exponent": f.exponent, "ci95": f.exponent_ci95,
                         "prefactor": f.prefactor})
        except ValueError:
            rows.append({by: key, "n": len(g), "exponent": math.nan, "ci95": math.nan, "prefactor": math.nan})
    return pd.DataFrame(rows)


def power_law_fit_of_means(df: pd.DataFrame, x: str, y: str) -> PowerLawFit:
    """The power-law fit over the means of y at each x (one point per x: the x values
    weigh alike however many runs each has)."""
    means = df.groupby(x, sort=True)[y].mean()
    return power_law_fit(means.index.to_numpy(dtype=float), means.to_numpy(dtype=float))


def power_law_fits_over_ranges(df: pd.DataFrame, x: str, y: str, min_points: int = 3,
                               ) -> pd.DataFrame:
    """Power-law fits of y against x over every range of `min_points` or more
    neighbouring distinct x values (all rows at those x): a curved log-log relation
    shows as exponents that move with the range. Columns: x_lo, x_hi, n, exponent,
    ci95."""
    xs = np.sort(df[x].dropna().unique())
    rows = []
    for i in range(len(xs)):
        for j in range(i + min_points - 1, len(xs)):
            g = df[(df[x] >= xs[i]) & (df[x] <= xs[j])]
            f = power_law_fit(g[x], g[y])
            rows.append({"x_lo": xs[i], "x_hi": xs[j], "n": f.n, "exponent": f.exponent,
                         "ci95": f.exponent_ci95})
    return pd.DataFrame(rows)


