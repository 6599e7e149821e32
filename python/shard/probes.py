"""Stress probes (a run's probes.csv, written with `output.probes`): spectra and
tensile excursions of the facets' stress, the measures of the low-pass-filter
test in docs/reproduction.md ("Why dissipation raises N_f").

- `read_probes` loads probes.csv; `probe_matrix` makes a (time x facet) array
  of one column.
- `power_spectrum`: one-sided periodogram of a signal (or of each column),
  after removing its mean and linear trend and applying a Hann window (the
  trend of a stress over the window would otherwise leak into every frequency).
- `high_share`: the share of the power above a cut-off frequency.
- `excursions`: the lengths of the maximal runs of samples where the stress
  exceeds the strength (a facet's current strength sigma_c (1 - d)).
- `facet_statistics`: both per probed facet of one run; `run_statistics`
  pools them per run.
"""
from __future__ import annotations

from pathlib import Path
from typing import Dict, Tuple, Union

import numpy as np
import pandas as pd

from .io import ShardDataError

__all__ = ["read_probes", "probe_matrix", "power_spectrum", "high_share", "excursions", "facet_statistics",
           "run_statistics", "lowpass_tables", "WAVE_SPEED_PAPER_BAR"]

PathLike = Union[str, Path]
PROBE_COLUMNS = ["t", "facet", "stress", "damage", "sigma_c"]


def read_probes(path: PathLike) -> pd.DataFrame:
    """probes.csv of a run (the file, or the run directory that holds it)."""
    p = Path(path)
    if p.is_dir():
        p = p / "probes.csv"
    try:
        df = pd.read_csv(p)
    except (OSError, pd.errors.ParserError) as e:
        raise ShardDataError(f"{p}: cannot read ({e})") from None
    if list(df.columns) != PROBE_COLUMNS:
        raise ShardDataError(f"{p}: columns {list(df.columns)}, expected {PROBE_COLUMNS}")
    return df


def probe_matrix(df: pd.DataFrame, column: str) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(times, facets, values[time, facet]) of one column of probes.csv."""
    wide = df.pivot(index="t", columns="facet", values=column).sort_index()
    if wide.isna().any().any():
        raise ShardDataError(f"probes: column {column} lacks some (time, facet) samples")
    return wide.index.to_numpy(), wide.columns.to_numpy(), wide.to_numpy()


def power_spectrum(x: np.ndarray, dt: float) -> Tuple[np.ndarray, np.ndarray]:
    """One-sided periodogram of x (along axis 0; a 2-D x gives one spectrum per
    column): mean and linear trend removed, Hann window. Returns (f [Hz], P),
    P in units of x² per bin (only ratios of sums of P are used)."""
    x = np.asarray(x, dtype=float)
    n = x.shape[0]
    if n < 4:
        raise ValueError("power_spectrum: need at least 4 samples")
    t = np.arange(n, dtype=float)
    tc = t - t.mean()
    xs = x - x.mean(axis=0)
    slope = (tc @ xs) / (tc @ tc)  # a number, or one per column
    xs = xs - np.multiply.outer(tc, slope)
    w = np.hanning(n)
    xw = xs * (w if x.ndim == 1 else w[:, None])
    spec = np.abs(np.fft.rfft(xw, axis=0)) ** 2
    return np.fft.rfftfreq(n, dt), spec


def high_share(f: np.ndarray, p: np.ndarray, f_cut: float) -> np.ndarray:
    """Share of the power above f_cut (of the power at f > 0; along axis 0).
    NaN for a signal without power."""
    pos = f > 0
    total = p[pos].sum(axis=0)
    high = p[f > f_cut].sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, high / np.where(total > 0, total, 1.0), np.nan)


def excursions(stress: np.ndarray, strength: np.ndarray, dt: float) -> np.ndarray:
    """Lengths [s] of the maximal runs of consecutive samples with stress >
    strength (a run touching either end of the record counts, cut there)."""
    above = np.asarray(stress, dtype=float) > np.asarray(strength, dtype=float)
    if not above.any():
        return np.zeros(0)
    edges = np.diff(np.r_[0, above.astype(np.int8), 0])
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    return (ends - starts) * dt


def facet_statistics(df: pd.DataFrame, f_cut: float) -> pd.DataFrame:
    """Per probed facet of one run: its class over the window (`broken_before`:
    d = 1 at the first sample; `broke`: reaches d = 1 in the window; `damaged`:
    0 < d < 1 at the end; `intact`), the share of its stress power above f_cut
    (whole window), and its tensile excursions above sigma_c (1 - d) while d < 1:
    their number, mean and longest length [s], and the time spent above."""
    t, facets, s = probe_matrix(df, "stress")
    _, _, d = probe_matrix(df, "damage")
    _, _, sc = probe_matrix(df, "sigma_c")
    dts = np.diff(t)
    dt = float(np.median(dts))
    f, p = power_spectrum(s, dt)
    share = high_share(f, p, f_cut)
    rows = []
    for j, facet in enumerate(facets):
        d0, d1 = d[0, j], d[-1, j]
        cls = "broken_before" if d0 >= 1 else "broke" if d1 >= 1 else "damaged" if d1 > 0 else "intact"
        live = d[:, j] < 1
        ex = excursions(s[live, j], (sc[live, j] * (1 - d[live, j])), dt) if live.any() else np.zeros(0)
        rows.append({"facet": int(facet), "class": cls, "sigma_c": sc[0, j], "damage_start": d0, "damage_end": d1,
                     "high_share": share[j], "power": p[f > 0, j].sum(), "excursions": len(ex),
                     "excursion_mean": ex.mean() if len(ex) else np.nan,
                     "excursion_max": ex.max() if len(ex) else np.nan, "time_above": ex.sum()})
    return pd.DataFrame(rows)


def run_statistics(facets: pd.DataFrame, spectrum: Tuple[np.ndarray, np.ndarray] = None) -> Dict[str, float]:
    """One run's pooled measures from facet_statistics over the facets not
    broken before the window: the power-weighted share above the cut-off
    (= the share of the pooled spectrum), the mean facet share, excursions per
    facet, their mean length (pooled over the excursions) and the time above
    per facet; also per class the facet count."""
    live = facets[facets["class"] != "broken_before"]
    n_ex = live["excursions"].sum()
    out = {"facets": len(live),
           "pooled_high_share": float((live["high_share"] * live["power"]).sum() / live["power"].sum()),
           "mean_high_share": float(live["high_share"].mean()),
           "excursions_per_facet": float(n_ex / len(live)),
           "excursion_mean": float(live["time_above"].sum() / n_ex) if n_ex else float("nan"),
           "time_above_per_facet": float(live["time_above"].mean())}
    for cls in ("broke", "damaged", "intact"):
        g = live[live["class"] == cls]
        out[f"facets_{cls}"] = len(g)
        out[f"high_share_{cls}"] = float(g["high_share"].mean()) if len(g) else float("nan")
        out[f"excursions_per_facet_{cls}"] = float(g["excursions"].mean()) if len(g) else float("nan")
    return out


WAVE_SPEED_PAPER_BAR = (370e9 / 3900) ** 0.5  # c = sqrt(E / rho) of cases/paper/confined_case.yaml [m/s]


def lowpass_tables(runs: Dict[Tuple[float, int], PathLike], f_cut: float, extra_cuts: Tuple[float, ...] = (),
                   t_max: float = float("inf")) -> Tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The low-pass-filter test's tables from runs {(e, seed): run directory}
    with probes.csv and history.csv: per facet (facet_statistics with e, seed),
    per run (run_statistics, N_f at the window's ends from the history, and
    the pooled share above each of extra_cuts as high_share_<MHz>), and the
    pooled spectrum of each run (share of its power per frequency bin, over
    the facets not broken before the window). Samples after t_max are left
    out (runs probed over different windows compared over the common one)."""
    fac, per_run, spectra = [], [], []
    for (e, seed), d in sorted(runs.items()):
        df = read_probes(d)
        df = df[df["t"] <= t_max]
        fs = facet_statistics(df, f_cut)
        fs.insert(0, "seed", seed)
        fs.insert(0, "e", e)
        fac.append(fs)
        row = {"e": e, "seed": seed, "f_cut": f_cut}
        row.update(run_statistics(fs))
        t, facets, s = probe_matrix(df, "stress")
        live = (fs["class"] != "broken_before").to_numpy()
        f, p = power_spectrum(s[:, live], float(np.median(np.diff(t))))
        pooled = p.sum(axis=1)
        for cut in extra_cuts:
            row[f"high_share_{cut / 1e6:g}MHz"] = float(high_share(f, pooled, cut))
        hist = pd.read_csv(Path(d) / "history.csv", usecols=["t", "fragments", "fracture_dissipation"])
        for name, when in (("start", t[0]), ("end", t[-1])):
            last = hist[hist["t"] <= when + 1e-15].iloc[-1]
            row[f"fragments_{name}"] = int(last["fragments"])
            row[f"fracture_dissipation_{name}"] = float(last["fracture_dissipation"])
        per_run.append(row)
        spectra.append(pd.DataFrame({"e": e, "seed": seed, "f": f[1:], "share": pooled[1:] / pooled[1:].sum()}))
    return pd.concat(fac, ignore_index=True), pd.DataFrame(per_run), pd.concat(spectra, ignore_index=True)


def main(argv=None) -> int:
    """python3 -m shard.probes --out results/lowpass E:SEED=RUN_DIR ...: the
    low-pass test's tables (facets.csv, runs.csv, spectra.csv) of the runs."""
    import argparse
    ap = argparse.ArgumentParser(prog="python3 -m shard.probes", description=main.__doc__)
    ap.add_argument("runs", nargs="+", help="E:SEED=DIR, a run with probes.csv and history.csv")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--fragment-size", type=float, default=70e-6,
                    help="s̄ of the cut-off c / (2 s̄) [m] (default 70e-6: the paper's bar's final fragments)")
    ap.add_argument("--until", type=float, default=float("inf"), help="leave out the samples after this time [s]")
    a = ap.parse_args(argv)
    runs = {}
    for spec in a.runs:
        key, _, d = spec.partition("=")
        e, _, seed = key.partition(":")
        if not d or not seed:
            ap.error(f"{spec}: expected E:SEED=DIR")
        runs[(float(e), int(seed))] = d
    f_cut = WAVE_SPEED_PAPER_BAR / (2 * a.fragment_size)
    fac, per_run, spectra = lowpass_tables(runs, f_cut, extra_cuts=(0.5 * f_cut, 2 * f_cut), t_max=a.until)
    a.out.mkdir(parents=True, exist_ok=True)
    fac.to_csv(a.out / "facets.csv", index=False, float_format="%.6g")
    per_run.to_csv(a.out / "runs.csv", index=False, float_format="%.6g")
    spectra.to_csv(a.out / "spectra.csv", index=False, float_format="%.6g")
    print(per_run.to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
