"""The figures of docs/figures, one function each, and the command that
regenerates them:

    python3 -m shard.figures --list
    python3 -m shard.figures confined_length restitution --out docs/figures
    python3 -m shard.figures damaged_bar_drift --exe build/bin/shard --work /tmp/work

Figures of the stored campaigns read results/ (found beside the package in a
source tree, or given with --results). Figures that need simulations run them
through shard.cli into --work (a temporary directory by default) unless their
inputs are given with --input KEY=DIR. Each figure prints the table it draws.

Constants (G_c, density, strength, strain rate, area) come from the runs' own
resolved cases, never from this file; the paper's results (exponents, curves)
are drawn as reference lines and named as such.
"""
from __future__ import annotations

import argparse
import math
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.text  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import yaml  # noqa: E402

from . import cli  # noqa: E402
from .fit import (power_law_fit, power_law_fit_of_means, power_law_fits_by,  # noqa: E402
                  power_law_fits_over_ranges)
from .io import Campaign, Run, ShardDataError, load_campaign, load_run, read_tri2d_vtu, read_vtu  # noqa: E402
from .stats import ks_critical, ks_distance, mean_ci, paired_difference  # noqa: E402

__all__ = ["FIGURES", "Context", "main"]


# --------------------------------------------------------------------------- registry

@dataclass
class Context:
    """Where a figure reads and writes: the output directory, the stored campaigns,
    a work directory for the simulations it runs, the shard executable, and inputs
    given by name (KEY -> directory) instead of simulated."""
    out: Path
    results: Optional[Path] = None
    work: Optional[Path] = None
    exe: Optional[str] = None
    inputs: Dict[str, Path] = field(default_factory=dict)
    source: Optional[Path] = None  # the source tree (cases/), when known
    paper_size: bool = False       # simulate at the campaign files' (paper's) size, not reduced
    log: Callable[[str], None] = print

    def stored(self, name: str) -> Path:
        """The campaign directory `name`: --input name=DIR when given (e.g. a campaign
        in progress), else the stored campaign results/name."""
        if name in self.inputs:
            p = self.inputs[name]
            if not (p / "campaign.csv").exists():
                raise ShardDataError(f"{p}: not a campaign directory (no campaign.csv)")
            return p
        if self.results is None:
            raise ShardDataError("no results directory: pass --results DIR (the repository's results/)")
        p = self.results / name
        if not (p / "campaign.csv").exists():
            raise ShardDataError(f"{p}: no stored campaign (no campaign.csv)")
        return p

    def case(self, rel: str) -> Path:
        if self.source is None or not (self.source / rel).exists():
            raise ShardDataError(f"{rel}: not found; run from a source tree or pass the input with --input")
        return self.source / rel

    def workdir(self, name: str) -> Path:
        if self.work is None:
            self.work = Path(tempfile.mkdtemp(prefix="shard-figures-"))
        return self.work / name


@dataclass
class Figure:
    name: str
    func: Callable[[Context], str]
    summary: str
    cost: str  # "stored" (reads results/) or a note on the simulations it runs


FIGURES: Dict[str, Figure] = {}


def _figure(name: str, summary: str, cost: str = "stored"):
    def deco(func: Callable[[Context], str]):
        FIGURES[name] = Figure(name, func, summary, cost)
        return func
    return deco


_SUBSCRIPTS = [(re.compile(r"(?<![$\w])N_f(?![\w])"), "$N_f$"), (re.compile(r"(?<![$\w])G_c(?![\w])"), "$G_c$"),
               (re.compile(r"Δt_c"), r"$\Delta t_c$"), (re.compile(r"Δt_bulk"), r"$\Delta t_{bulk}$"),
               (re.compile(r"σ_c"), r"$\sigma_c$")]


def _tex(text: str) -> str:
    """Subscripts in labels without mathtext of their own: N_f, G_c, Δt_c, ..."""
    if "$" in text:
        return text
    for pat, rep in _SUBSCRIPTS:
        text = pat.sub(lambda _m, rep=rep: rep, text)
    return text


def _save(fig, ctx: Context, name: str) -> Path:
    for t in fig.findobj(matplotlib.text.Text):
        t.set_text(_tex(t.get_text()))
    ctx.out.mkdir(parents=True, exist_ok=True)
    path = ctx.out / f"{name}.png"
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return path


def _style():
    plt.rcParams.update({"font.size": 10, "axes.grid": True, "grid.alpha": 0.3, "legend.fontsize": 8.5,
                         "legend.framealpha": 0.85, "axes.titlesize": 10.5, "figure.titlesize": 11.5})


def _ok(c: Campaign, need: Sequence[str]) -> pd.DataFrame:
    missing = [k for k in need if k not in c.table.columns]
    if missing:
        raise ShardDataError(f"{c.path / 'campaign.csv'}: no column {', '.join(missing)}")
    ok = c.ok.copy()
    if ok.empty:
        raise ShardDataError(f"{c.path / 'campaign.csv'}: no run with status ok")
    return ok


def _first_case(c: Campaign) -> Run:
    for i in c.table["index"]:
        p = c.run_path(int(i))
        if (p / "case.resolved.yaml").exists():
            return load_run(p)
    raise ShardDataError(f"{c.path}: no run directory with a case.resolved.yaml (the constants come from it)")


def _need(run: Run, key: str) -> float:
    v = run.case_value(key)
    if not isinstance(v, (int, float)):
        raise ShardDataError(f"{run.path / 'case.resolved.yaml'}: {key} is {v!r}, not a number")
    return float(v)


def _fmt_ci(m) -> str:
    return f"{m.mean:.4g} ± {m.ci95:.2g}" if m.n > 1 else f"{m.mean:.4g}"


# --------------------------------------------------------------------------- Fig. 13

def confined_length_data(c: Campaign):
    """Per-run quantities of the confined length study: L, G/L and N_f G_c/L per unit
    section, (N_f - 1) G_c/L, Ĝ/N_f; constants from the runs' resolved case."""
    ok = _ok(c, ["model.length", "fracture.dissipation", "fracture.fragments", "fracture.g_hat_per_fragment"])
    run = _first_case(c)
    gc, area = _need(run, "fracture.g_c"), _need(run, "model.area")
    rho, rate = _need(run, "model.density"), _need(run, "model.initial.strain_rate")
    d = pd.DataFrame({
        "L": ok["model.length"].astype(float),
        "seed": ok["fracture.strength.seed"] if "fracture.strength.seed" in ok else np.nan,
        "G_over_L": ok["fracture.dissipation"].astype(float) / area / ok["model.length"].astype(float),
        "NfGc_over_L": ok["fracture.fragments"].astype(float) * gc / ok["model.length"].astype(float),
        "cracks_Gc_over_L": (ok["fracture.fragments"].astype(float) - 1) * gc / ok["model.length"].astype(float),
        "g_hat_per_fragment": ok["fracture.g_hat_per_fragment"].astype(float),
    })
    d["L"] = d["L"].round(12)
    return d, {"g_c": gc, "area": area, "density": rho, "strain_rate": rate}


def _length_report(d: pd.DataFrame, k: Dict[str, float]):
    """The tables of a length study: seed means per L, the fits over the runs, over
    the seed means, counting cracks, per seed and over ranges of lengths."""
    kinetic = lambda L: k["density"] * np.asarray(L) ** 2 * k["strain_rate"] ** 2 / 24  # noqa: E731
    lines = ["# confined bar over its length: seed means with 95% Student-t intervals (G per unit section)",
             "| L [mm] | runs | G/L [J/m] | N_f G_c/L [J/m] | Ĝ/N_f | kinetic bound [J/m] |", "|---|---|---|---|---|---|"]
    means = []
    for L, g in d.groupby("L"):
        mg, mn, mh = mean_ci(g["G_over_L"]), mean_ci(g["NfGc_over_L"]), mean_ci(g["g_hat_per_fragment"])
        means.append((L, mg, mn, mh))
        lines.append(f"| {L * 1e3:.3g} | {len(g)} | {_fmt_ci(mg)} | {_fmt_ci(mn)} | {_fmt_ci(mh)} | {float(kinetic(L)):.4g} |")
    fg, fn = power_law_fit(d["L"], d["G_over_L"]), power_law_fit(d["L"], d["NfGc_over_L"])
    mg_, mn_ = power_law_fit_of_means(d, "L", "G_over_L"), power_law_fit_of_means(d, "L", "NfGc_over_L")
    fc = power_law_fit(d["L"], d["cracks_Gc_over_L"].where(d["cracks_Gc_over_L"] > 0))
    lines += [f"fitted over {fg.n} runs: G/L ~ L^({fg}) (paper 1.37); N_f G_c/L ~ L^({fn}) (paper 0.61)",
              f"fitted over the {mg_.n} seed means: G/L ~ L^({mg_}); N_f G_c/L ~ L^({mn_})",
              f"counting cracks (N_f - 1) instead of fragments: (N_f - 1) G_c/L ~ L^({fc})"]
    if d["seed"].notna().any():
        pg, pn = power_law_fits_by(d, "L", "G_over_L", "seed"), power_law_fits_by(d, "L", "NfGc_over_L", "seed")
        lines += ["per seed:", "| seed | runs | G/L ~ L^... | N_f G_c/L ~ L^... |", "|---|---|---|---|"]
        for (_, a), (_, b) in zip(pg.iterrows(), pn.iterrows()):
            lines.append(f"| {int(a['seed'])} | {int(a['n'])} | {a['exponent']:.2f} ± {a['ci95']:.2f} | "
                         f"{b['exponent']:.2f} ± {b['ci95']:.2f} |")
    rg, rn = power_law_fits_over_ranges(d, "L", "G_over_L"), power_law_fits_over_ranges(d, "L", "NfGc_over_L")
    if len(rg):
        lines += ["over ranges of three or more lengths (all runs):", "| L [mm] | runs | G/L ~ L^... | N_f G_c/L ~ L^... |",
                  "|---|---|---|---|"]
        for (_, a), (_, b) in zip(rg.iterrows(), rn.iterrows()):
            lines.append(f"| {a['x_lo'] * 1e3:.3g}–{a['x_hi'] * 1e3:.3g} | {int(a['n'])} | {a['exponent']:.2f} ± "
                         f"{a['ci95']:.2f} | {b['exponent']:.2f} ± {b['ci95']:.2f} |")
    return lines, means, fg, fn, kinetic


def _length_ticks(ax, Ls) -> None:
    ticks = [t for t in (1, 1.5, 2, 2.5, 3, 4, 5, 7, 10) if Ls.min() * 1e3 / 1.2 <= t <= Ls.max() * 1e3 * 1.2]
    ax.set_xticks(ticks, labels=[f"{t:g}" for t in ticks])
    ax.minorticks_off()


def _length_panel(a, d, means, fg, fn, kinetic) -> None:
    """G/L and N_f G_c/L against L, log-log: runs, seed means, fits, the paper's exponents
    and the kinetic bound."""
    Ls = np.array([m[0] for m in means])
    xx = np.geomspace(Ls.min() / 1.15, Ls.max() * 1.15, 50)
    mid = math.sqrt(Ls.min() * Ls.max())
    for key, f, paper, col, light, mk, lab in (("G_over_L", fg, 1.37, "#08519c", "#9ecae1", "o", "fracture energy $\\mathcal{G}$/L"),
                                              ("NfGc_over_L", fn, 0.61, "#a63603", "#fdae6b", "s", "N_f G_c/L")):
        a.plot(d["L"] * 1e3, d[key], mk, ms=3.5, color=light, label=f"{lab}, each run")
        idx = 1 if key == "G_over_L" else 2
        a.errorbar(Ls * 1e3, [m[idx].mean for m in means], yerr=[m[idx].ci95 for m in means], fmt=mk, color=col,
                   capsize=3, label=f"{lab}, seed mean ± 95%")
        a.plot(xx * 1e3, f(xx), "-", color=col, lw=1.5, label=f"least-squares fit, all runs: $L^{{{f.exponent:.2f} \\pm {f.exponent_ci95:.2f}}}$")
        a.plot(xx * 1e3, f(mid) * (xx / mid) ** paper, "--", color=col, lw=1.2, dashes=(6, 3),
               label=f"paper: $L^{{{paper}}}$")
    a.plot(xx * 1e3, kinetic(xx), ":", color="black", lw=1.5, label="kinetic bound ρL²ε̇²/24")
    a.set(xscale="log", yscale="log", xlabel="bar length L [mm]", ylabel="energy per length [J/m] (per m² of section)")
    _length_ticks(a, Ls)
    a.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=3)


@_figure("confined_length", "Fig. 13: G/L and N_f G_c/L against L (log-log) with fits and the paper's exponents; "
         "Ĝ/N_f against L (results/confined_length)")
def confined_length(ctx: Context) -> str:
    st = ctx.stored("confined_length")
    extra = [p for p in [st / "recorded_runs_0-15.csv"] if p.exists()]
    c = load_campaign(st, extra)
    d, k = confined_length_data(c)
    lines, means, fg, fn, kinetic = _length_report(d, k)
    _style()
    fig, (a, b) = plt.subplots(1, 2, figsize=(13, 5.2), constrained_layout=True)
    _length_panel(a, d, means, fg, fn, kinetic)
    a.set_title("(a) fracture energy and N_f G_c per length")
    Ls = np.array([m[0] for m in means])
    b.plot(d["L"] * 1e3, d["g_hat_per_fragment"], "o", ms=3.5, color="#9ecae1", label="each run")
    b.errorbar(Ls * 1e3, [m[3].mean for m in means], yerr=[m[3].ci95 for m in means], fmt="o-", color="#08519c",
               capsize=3, label="seed mean ± 95%")
    b.plot([1, 10], [2, 10], "D", ms=8, mfc="none", mec="black", label="paper: ≈ 2 at 1 mm, ≈ 10 at 10 mm")
    b.set(xscale="log", xlabel="bar length L [mm]", ylabel=r"$\hat{G}/N_f = \mathcal{G}\,/\,(N_f\, G_c A)$",
          title="(b) fracture energy per fragment")
    _length_ticks(b, Ls)
    b.legend(loc="upper left")
    fig.suptitle(f"Confined bar over its length (paper Fig. 13): {len(d)} runs, "
                 f"{d['seed'].nunique()} seeds")
    lines.append(f"wrote {_save(fig, ctx, 'confined_length')}")
    return "\n".join(lines)


@_figure("confined_length_small_g", "Fig. 13 reduced: G/L and N_f G_c/L against L on the small confined bar "
         "(1-4 mm, 3 seeds), fits and the paper's exponents",
         cost="about 5 minutes with -j 2: tests/cases/fracture/confined_length_small.yaml (12 runs)")
def confined_length_small_g(ctx: Context) -> str:
    c = _campaign_input(ctx, "confined_length_small", "tests/cases/fracture/confined_length_small.yaml")
    d, k = confined_length_data(c)
    lines, means, fg, fn, kinetic = _length_report(d, k)
    _style()
    fig, a = plt.subplots(figsize=(8.5, 6.4), constrained_layout=True)
    _length_panel(a, d, means, fg, fn, kinetic)
    run = _first_case(c)
    a.set_title(f"Small confined bar over its length (Fig. 13, reduced): {d['L'].min() * 1e3:g}–"
                f"{d['L'].max() * 1e3:g} mm, {int(_need(run, 'model.elements') / _need(run, 'model.length') / 1e3)} "
                f"elements per mm, {d['seed'].nunique()} seeds")
    lines.append(f"wrote {_save(fig, ctx, 'confined_length_small_g')}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- Figs. 14-15

_RESTITUTION_COLS = ["contact.impact.restitution", "fracture.g_hat_per_fragment", "fracture.dissipation",
                     "energy.contact_dissipation", "energy.initial", "energy.external_work", "fracture.fragments",
                     "fracture.strength.seed"]


def restitution_table(c: Campaign, seed: Optional[int] = None):
    """Per e: runs, and mean ± 95% of N_f, Ĝ/N_f, fracture / injected and (fracture +
    contact) / injected, and the mean contact dissipation; and the seed-paired
    difference lowest e minus highest e (N_f, fracture energy) when seeds pair."""
    ok = _ok(c, _RESTITUTION_COLS)
    if seed is not None:
        ok = ok[ok["fracture.strength.seed"] == seed]
        if ok.empty:
            raise ShardDataError(f"{c.path}: no ok run of seed {seed}")
    inj = ok["energy.initial"] + ok["energy.external_work"]
    d = pd.DataFrame({"e": ok["contact.impact.restitution"].astype(float), "seed": ok["fracture.strength.seed"],
                      "n_f": ok["fracture.fragments"].astype(float),
                      "g_hat": ok["fracture.g_hat_per_fragment"].astype(float),
                      "frac": ok["fracture.dissipation"] / inj,
                      "total": (ok["fracture.dissipation"] + ok["energy.contact_dissipation"]) / inj,
                      "contact": ok["energy.contact_dissipation"].astype(float),
                      "g": ok["fracture.dissipation"].astype(float)})
    rows = []
    for e, g in d.groupby("e", sort=True):
        rows.append({"e": e, "runs": len(g), **{k: mean_ci(g[k]) for k in ("n_f", "g_hat", "frac", "total")},
                     "contact": g["contact"].mean()})
    paired = None
    es = sorted(d["e"].unique())
    if len(es) > 1:
        lo = d[d["e"] == es[0]].set_index("seed")
        hi = d[d["e"] == es[-1]].set_index("seed")
        common = lo.index.intersection(hi.index)
        if len(common):
            paired = {"lo": es[0], "hi": es[-1], "n": len(common),
                      "n_f": paired_difference(lo.loc[common, "n_f"], hi.loc[common, "n_f"]),
                      "g": paired_difference(lo.loc[common, "g"], hi.loc[common, "g"]),
                      "more": int((lo.loc[common, "n_f"] > hi.loc[common, "n_f"]).sum())}
    return d, rows, paired


def _restitution_text(rows, paired) -> List[str]:
    def f(m, p):
        return f"{m.mean:.{p}f} ± {m.ci95:.{p}f}" if m.n > 1 else f"{m.mean:.{p}f}"
    out = ["| e | runs | N_f | Ĝ/N_f | fracture / injected | (fracture + contact) / injected | contact dissipation [J] |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['e']:g} | {r['runs']} | {f(r['n_f'], 1)} | {f(r['g_hat'], 2)} | {f(r['frac'], 3)} | "
                   f"{f(r['total'], 3)} | {r['contact']:.0f} |")
    if paired and paired["n"] > 1:
        out.append(f"seed-paired, e = {paired['lo']:g} minus e = {paired['hi']:g}, {paired['n']} seeds: "
                   f"N_f {paired['n_f'].mean:+.1f} ± {paired['n_f'].ci95:.1f} (higher at e = {paired['lo']:g} in "
                   f"{paired['more']} of {paired['n']}), fracture energy {paired['g'].mean:+.0f} ± "
                   f"{paired['g'].ci95:.0f} J")
    return out


def _restitution_plot(ctx: Context, name: str, d: pd.DataFrame, rows, title: str) -> Path:
    single = all(r["runs"] == 1 for r in rows)
    es = [r["e"] for r in rows]
    slot = {e: i for i, e in enumerate(es)}
    x = d["e"].map(slot).to_numpy(dtype=float)
    xs = np.arange(len(es), dtype=float)
    _style()
    fig, axs = plt.subplots(1, 3, figsize=(15, 4.8), constrained_layout=True)
    jitter = (d["seed"].rank(method="dense").to_numpy() - 1) / max(d["seed"].nunique(), 1) * 0.3 - 0.15 \
        if not single else 0 * x

    def series(ax, key, col, label, mk="o"):
        if single:
            ax.plot(xs, [r[key].mean for r in rows], mk + "-", color=col, lw=1.5, label=label)
        else:
            ax.plot(x + jitter, d[key], mk, ms=3.5, mfc="none", color="#b0b0b0")
            ax.errorbar(xs, [r[key].mean for r in rows], yerr=[r[key].ci95 for r in rows], fmt=mk + "-", color=col,
                        capsize=3, lw=1.5, label=f"{label}: seed mean ± 95%")

    a, b, c = axs
    series(a, "g_hat", "#08519c", "shard")
    low = [i for i, e in enumerate(es) if e < 0.999]
    if low:
        a.plot([min(low) - 0.3, max(low) + 0.3], [1.8, 1.8], "--", color="black", dashes=(6, 3),
               label="paper: ≈ 1.8 below e = 0.999")
    if 1.0 in slot:
        a.plot([slot[1.0]], [4.0], "D", ms=9, mfc="none", mec="black", label="paper: ≈ 4 at e = 1")
    a.set(ylabel=r"$\hat{G}/N_f = \mathcal{G}\,/\,(N_f\, G_c A)$", title="(a) fracture energy per fragment")
    series(b, "frac", "#cb181d", "fracture")
    series(b, "total", "black", "fracture + contact", "s")
    b.set(ylabel="dissipated / injected energy", title="(b) where the injected energy goes", ylim=(0, 1.05))
    series(c, "n_f", "#08519c", "shard")
    c.set(ylabel="number of fragments N_f", title="(c) fragments")
    if not single:
        for ax in axs:
            ax.plot([], [], "o", mfc="none", color="#b0b0b0", label="each run (seeds side by side)")
    for ax in axs:
        ax.set_xticks(xs, labels=[f"{e:g}" for e in es])
        ax.set_xlim(-0.5, len(es) - 0.5)
        ax.set_xlabel("restitution coefficient e (one step per value)")
        ax.legend(loc="best")
    fig.suptitle(title)
    return _save(fig, ctx, name)


@_figure("restitution", "Figs. 14-15: Ĝ/N_f, dissipated energy and N_f against e, 8 seeds "
         "(results/restitution)")
def restitution(ctx: Context) -> str:
    c = load_campaign(ctx.stored("restitution"))
    d, rows, paired = restitution_table(c)
    run = _first_case(c)
    p = _restitution_plot(ctx, "restitution", d, rows,
                          f"Confined bar, {_need(run, 'model.length') * 1e3:g} mm, {int(_need(run, 'model.elements'))} "
                          f"elements (paper Figs. 14–15): {d['seed'].nunique()} seeds, means with 95% intervals")
    return "\n".join(_restitution_text(rows, paired) + [f"wrote {p}"])


@_figure("restitution_seed1", "Figs. 14-15 for seed 1 alone (the seed-1 runs of results/restitution)")
def restitution_seed1(ctx: Context) -> str:
    c = load_campaign(ctx.stored("restitution"))
    d, rows, paired = restitution_table(c, seed=1)
    run = _first_case(c)
    p = _restitution_plot(ctx, "restitution_seed1", d, rows,
                          f"Confined bar, {_need(run, 'model.length') * 1e3:g} mm, {int(_need(run, 'model.elements'))} "
                          "elements (paper Figs. 14–15): seed 1, one run per e")
    return "\n".join(_restitution_text(rows, paired) + [f"wrote {p}"])


def _e_axis(ax, es) -> None:
    ax.set_xticks(np.arange(len(es)), labels=[f"{e:g}" for e in es])
    ax.set_xlim(-0.5, len(es) - 0.5)
    ax.set_xlabel("restitution coefficient e (one step per value)")


def _restitution_small(ctx: Context, name: str) -> str:
    c = _paper_campaign(ctx, "restitution_small", "tests/cases/fracture/restitution_small.yaml")
    d, rows, paired = restitution_table(c)
    es = [r["e"] for r in rows]
    slot = {e: i for i, e in enumerate(es)}
    x = d["e"].map(slot).to_numpy(dtype=float)
    jitter = (d["seed"].rank(method="dense").to_numpy() - 1) / max(d["seed"].nunique(), 1) * 0.3 - 0.15
    xs = np.arange(len(es), dtype=float)
    run = _first_case(c)
    _style()
    fig, ax = plt.subplots(figsize=(8.6, 5.2), constrained_layout=True)
    lines = _restitution_text(rows, paired)
    if name.endswith("g_hat"):
        ax.plot(x + jitter, d["g_hat"], "o", ms=4, mfc="none", color="#9e9e9e", label="each run (seeds side by side)")
        ax.errorbar(xs, [r["g_hat"].mean for r in rows], yerr=[r["g_hat"].ci95 for r in rows], fmt="o-",
                    color="#08519c", capsize=3, label="seed mean ± 95%")
        low = [i for i, e in enumerate(es) if e < 0.999]
        if low:
            ax.plot([min(low) - 0.3, max(low) + 0.3], [1.8, 1.8], color="black", dashes=(6, 3),
                    label="paper's bar: ≈ 1.8 below e = 0.999")
        if 1.0 in slot:
            ax.plot([slot[1.0]], [4.0], "D", ms=9, mfc="none", mec="black", label="paper's bar: ≈ 4 at e = 1")
        ax.set_ylabel(r"$\hat{G}/N_f = \mathcal{G}\,/\,(N_f\, G_c A)$")
        ax.set_title("fracture energy per fragment")
    else:
        for key, col, mk, lab in (("g", "#cb181d", "o", "fracture $\\mathcal{G}$"),
                                  ("contact", "#2171b5", "s", "contact")):
            ax.plot(x + jitter, d[key] / 1e3, mk, ms=4, mfc="none", color=col, alpha=0.5)
            m = [mean_ci(d.loc[d["e"] == e, key]) for e in es]
            ax.errorbar(xs, [v.mean / 1e3 for v in m], yerr=[v.ci95 / 1e3 for v in m], fmt=mk + "-", color=col,
                        capsize=3, label=f"{lab}: seed mean ± 95% (open: runs)")
        inj = c.ok["energy.initial"] + c.ok["energy.external_work"]
        ax.axhline(inj.mean() / 1e3, color="black", lw=1.2, dashes=(6, 3), label="injected energy (mean over the runs)")
        ax.set_ylabel("dissipated energy [kJ] (per m² of section)")
        ax.set_ylim(0, None)
        ax.set_title("fracture and contact dissipation")
    _e_axis(ax, es)
    ax.legend(loc="best")
    fig.suptitle(f"Small confined bar, {_need(run, 'model.length') * 1e3:g} mm, {int(_need(run, 'model.elements'))} "
                 f"elements, {d['seed'].nunique()} seeds, against e (paper Figs. 14–15, reduced)")
    lines.append(f"wrote {_save(fig, ctx, name)}")
    return "\n".join(lines)


@_figure("restitution_small_g_hat", "Figs. 14-15 reduced: Ĝ/N_f against e on the small confined bar, 3 seeds",
         cost="about 6 minutes with -j 2: tests/cases/fracture/restitution_small.yaml (21 runs)")
def restitution_small_g_hat(ctx: Context) -> str:
    return _restitution_small(ctx, "restitution_small_g_hat")


@_figure("restitution_small_dissipation", "Figs. 14-15 reduced: fracture and contact dissipation against e, small "
         "confined bar", cost="about 6 minutes with -j 2: tests/cases/fracture/restitution_small.yaml (21 runs)")
def restitution_small_dissipation(ctx: Context) -> str:
    return _restitution_small(ctx, "restitution_small_dissipation")


# --------------------------------------------------------------------------- fragment sizes

def pooled_size_samples(sizes: pd.DataFrame) -> Dict[str, pd.DataFrame]:
    """A campaign's pooled fragment_sizes.csv (group columns, then runs, size,
    size_over_mean, ...) split into one sample per group, labelled in words
    ('e = 0.5' for contact.impact.restitution)."""
    if "runs" not in sizes.columns or "size_over_mean" not in sizes.columns:
        raise ShardDataError(f"{sizes.attrs.get('source', 'table')}: not a campaign fragment_sizes.csv "
                             "(needs the columns runs and size_over_mean)")
    groups = list(sizes.columns[: list(sizes.columns).index("runs")])
    words = {"contact.impact.restitution": "e", "var.rate": "ε̂", "model.length": "L [m]",
             "contact.force.alpha": "α"}
    out: Dict[str, pd.DataFrame] = {}
    grouped = sizes.groupby(groups[0] if len(groups) == 1 else groups, sort=True) if groups else [((), sizes)]
    for key, g in grouped:
        key = key if isinstance(key, tuple) else (key,)
        label = ", ".join(f"{words.get(k, k.split('.')[-1])} = {v:g}" if isinstance(v, (int, float)) else f"{k} = {v}"
                          for k, v in zip(groups, key))
        out[label or "all"] = g
    return out


@_figure("restitution_sizes", "fragment-size distributions at every e, sizes over their run's mean, with KS "
         "distances (results/restitution)")
def restitution_sizes(ctx: Context) -> str:
    c = load_campaign(ctx.stored("restitution"))
    if c.fragment_sizes is None:
        raise ShardDataError(f"{c.path}: no fragment_sizes.csv")
    samples = pooled_size_samples(c.fragment_sizes)
    labels = list(samples)
    first = samples[labels[0]]["size_over_mean"].to_numpy()
    lines = [f"| distribution | runs | fragments | KS distance to {labels[0]} | 5% critical value |", "|---|---|---|---|---|"]
    _style()
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.8), constrained_layout=True)
    cmap = plt.get_cmap("viridis")
    for i, lab in enumerate(labels):
        s = np.sort(samples[lab]["size_over_mean"].to_numpy())
        runs = int(samples[lab]["runs"].iloc[0])
        if i == 0:
            lines.append(f"| {lab} | {runs} | {s.size} | — | — |")
        else:
            lines.append(f"| {lab} | {runs} | {s.size} | {ks_distance(first, s):.3f} | "
                         f"{ks_critical(first.size, s.size):.3f} |")
        y = np.arange(1, s.size + 1) / s.size
        col = cmap(i / max(len(labels) - 1, 1))
        for ax in (a, b):
            ax.step(s, y, where="post", color=col, lw=1.6, label=f"{lab} ({s.size} fragments, {runs} runs)")
    a.set(xlabel="fragment size / mean size of its run", ylabel="cumulative fraction of fragments", ylim=(0, 1),
          xlim=(0, None), title="(a) cumulative distributions")
    b.set(xscale="log", xlabel="fragment size / mean size of its run (log scale)", ylim=(0, 1),
          title="(b) the same, small fragments spread out")
    a.legend(loc="lower right")
    fig.suptitle("Fragment sizes of the confined bar at every restitution coefficient, seeds pooled")
    lines.append(f"wrote {_save(fig, ctx, 'restitution_sizes')}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- e(v): beyond the paper

def thornton_restitution(v, v_y: float):
    """Thornton's (1997) restitution of elastic-perfectly plastic spheres against the
    approach speed v (plugins/contact_laws/thornton_impact): 1 up to the yield
    velocity v_y, then with x = v_y / v,
    e = √(6√3/5) √(1 − x²/6) [x / (x + 2√(6/5 − x²/5))]^(1/4)."""
    v = np.asarray(v, dtype=float)
    if not v_y > 0:
        raise ValueError(f"thornton_restitution: v_y must be > 0, got {v_y}")
    x = np.clip(v_y / np.maximum(v, 1e-300), 0.0, 1.0)
    e = math.sqrt(6.0 * math.sqrt(3.0) / 5.0) * np.sqrt(1.0 - x * x / 6.0) \
        * (x / (x + 2.0 * np.sqrt(6.0 / 5.0 - x * x / 5.0))) ** 0.25
    return np.where(v <= v_y, 1.0, e)


def thornton_yield_velocity(y: float, young: float, nu: float, rho: float, pair: bool = False) -> float:
    """Thornton's yield velocity v_y = 1.56 (Y⁵ / (E*⁴ ρ))^(1/2): the approach speed at
    which the Hertzian peak pressure of a sphere hitting a rigid wall reaches Y, with
    E* = E / (1 − ν²); 1.56 = π²/√40, from ½ m v² = (8/15) E* R^(1/2) δ^(5/2) at
    p0 = (2E*/π)(δ/R)^(1/2) = Y with m = (4/3)πR³ρ, so v_y does not depend on R.
    pair=True: two equal spheres of the material (E* = E / (2(1 − ν²)), m* = m/2,
    R* = R/2), whose relative speed at yield is π²/√160 (Y⁵ / (E*⁴ ρ))^(1/2), half of
    1.56 (...) with that E*."""
    e_star = young / (1.0 - nu * nu) / (2.0 if pair else 1.0)
    return (0.5 if pair else 1.0) * 1.56 * math.sqrt(y ** 5 / (e_star ** 4 * rho))


def approach_speeds(run_dir, near: float = 1e-7) -> Dict[str, np.ndarray]:
    """Approach speeds of a bar run from its field snapshots (fields/*.vtu): 'faces',
    v_left − v_right > 0 at every fragment boundary (the fragment id changes across
    it) whose gap is below `near` [m], one value per boundary and snapshot: the v_n
    an impact law sees, sampled; 'ends', the speed of each end towards its wall,
    one per snapshot (both ends pooled)."""
    files = sorted(Path(run_dir).glob("fields/fields_*.vtu"))
    if not files:
        raise ShardDataError(f"{run_dir}: no field snapshots (fields/*.vtu; run with output.fields_interval)")
    faces, ends = [], []
    for f in files:
        _, a = read_vtu(f)
        conn, v, frag = a["connectivity"], a["v"], a["fragment"]
        x = a["X"] + a["u"]
        left, right = conn[:-1, 1], conn[1:, 0]
        app = v[left] - v[right]
        sel = (frag[:-1] != frag[1:]) & (app > 0) & (x[right] - x[left] < near)
        faces.append(app[sel])
        ends.append([-v[conn[0, 0]], v[conn[-1, 1]]])
    return {"faces": np.concatenate(faces), "ends": np.asarray(ends, dtype=float).ravel()}


# The contact yield Y of dense alumina (the bar's material) for Thornton's v_y, and its
# Poisson ratio; E and ρ come from the runs' case. Brittle: Y is where contact stops
# being elastic, bracketed by the static compressive strength (lower) and the uniaxial
# yield at the Hugoniot elastic limit, HEL (1 − 2ν)/(1 − ν), with HEL 6.7-11 GPa.
ALUMINA_POISSON = 0.22
ALUMINA_CONTACT_YIELD = (("static compressive strength (lower bound)", 2.6e9),
                         ("hardness / 3, and HEL 6.7 GPa as uniaxial yield (central)", 4.7e9),
                         ("HEL 11 GPa as uniaxial yield (upper bound)", 8.0e9))


def yield_velocity_table(young: float, rho: float) -> List[str]:
    """Thornton's v_y of the bar's material for each contact yield of ALUMINA_CONTACT_YIELD,
    against a rigid wall and between two fragments."""
    out = ["| contact yield Y | source | v_y, fragment on a wall [m/s] | v_y, two fragments [m/s] |",
           "|---|---|---|---|"]
    for what, y in ALUMINA_CONTACT_YIELD:
        out.append(f"| {y / 1e9:g} GPa | {what} | {thornton_yield_velocity(y, young, ALUMINA_POISSON, rho):.3g} | "
                   f"{thornton_yield_velocity(y, young, ALUMINA_POISSON, rho, pair=True):.3g} |")
    return out


def _law_label(row) -> str:
    vy = row.get("contact.impact.v_y")
    if vy is not None and not (isinstance(vy, float) and math.isnan(vy)):
        return f"e(v), v_y = {float(vy):g} m/s"
    return f"e = {float(row['contact.impact.restitution']):g}"


def _size_sample(c: Campaign, index: int) -> np.ndarray:
    p = c.run_path(int(index)) / "fragment_sizes.csv"
    if not p.exists():
        raise ShardDataError(f"{p}: missing (the run's fragment sizes)")
    return pd.read_csv(p)["size"].to_numpy(dtype=float)


def restitution_ev_table(ev: Campaign, const: Campaign, reference: str = "e = 1"):
    """One row per restitution law (constant e of `const`, each v_y of `ev`): runs,
    mean ± 95% over the seeds of N_f, of the mean fragment size [µm], of the fracture
    and contact dissipation [J] and their shares of the injected energy; the seeds
    pooled, the KS distance of the fragment sizes (in µm, and over their run's mean)
    to those of the `reference` law and the 5% critical value; and the seed-paired
    difference of N_f to the reference."""
    cols = ["fracture.fragments", "fracture.dissipation", "energy.contact_dissipation", "energy.initial",
            "energy.external_work", "fracture.strength.seed", "fracture.mean_fragment_size", "index"]
    parts = []
    for c in (const, ev):
        ok = _ok(c, cols + (["contact.impact.v_y"] if c is ev else ["contact.impact.restitution"]))
        d = pd.DataFrame({"law": [_law_label(r) for _, r in ok.iterrows()],
                          "seed": ok["fracture.strength.seed"].astype(int).to_numpy(),
                          "n_f": ok["fracture.fragments"].astype(float).to_numpy(),
                          "size": ok["fracture.mean_fragment_size"].astype(float).to_numpy() * 1e6,
                          "g": ok["fracture.dissipation"].astype(float).to_numpy(),
                          "contact": ok["energy.contact_dissipation"].astype(float).to_numpy(),
                          "inj": (ok["energy.initial"] + ok["energy.external_work"]).astype(float).to_numpy()})
        d["sizes"] = [_size_sample(c, i) for i in ok["index"]]
        parts.append(d)
    d = pd.concat(parts, ignore_index=True)
    laws = list(dict.fromkeys(d["law"]))
    if reference not in laws:
        raise ShardDataError(f"{const.path}: no ok run of the reference law {reference}")
    pooled = {k: np.concatenate(list(g["sizes"])) * 1e6 for k, g in d.groupby("law")}
    norm = {k: np.concatenate([s / s.mean() for s in g["sizes"]]) for k, g in d.groupby("law")}
    ref = d[d["law"] == reference].set_index("seed")
    rows = []
    for law in laws:
        g = d[d["law"] == law]
        row = {"law": law, "runs": len(g), "n_f": mean_ci(g["n_f"]), "size": mean_ci(g["size"]),
               "g": mean_ci(g["g"]), "contact": mean_ci(g["contact"]), "frac": mean_ci(g["g"] / g["inj"]),
               "total": mean_ci((g["g"] + g["contact"]) / g["inj"]), "fragments": pooled[law].size}
        if law != reference:
            row["ks"] = ks_distance(pooled[reference], pooled[law])
            row["ks_norm"] = ks_distance(norm[reference], norm[law])
            row["ks_crit"] = ks_critical(pooled[reference].size, pooled[law].size)
            common = g.set_index("seed").index.intersection(ref.index)
            if len(common):
                row["paired"] = paired_difference(g.set_index("seed").loc[common, "n_f"], ref.loc[common, "n_f"])
        rows.append(row)
    return d, rows


def _restitution_ev_text(rows, reference: str) -> List[str]:
    def f(m, p, scale=1.0):
        return f"{m.mean / scale:.{p}f} ± {m.ci95 / scale:.{p}f}" if m.n > 1 else f"{m.mean / scale:.{p}f}"
    out = [f"| law | runs | N_f | N_f − N_f({reference}), seed-paired | mean size [µm] | 𝒢 [kJ] | "
           "contact [kJ] | fracture / injected | (fracture + contact) / injected | fragments | "
           f"KS to {reference}: size | KS: size / run mean | 5% critical |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ks = (f"{r['ks']:.3f} | {r['ks_norm']:.3f} | {r['ks_crit']:.3f}" if "ks" in r else "— | — | —")
        pd_ = f"{r['paired'].mean:+.1f} ± {r['paired'].ci95:.1f}" if "paired" in r else "—"
        out.append(f"| {r['law']} | {r['runs']} | {f(r['n_f'], 1)} | {pd_} | {f(r['size'], 1)} | "
                   f"{f(r['g'], 2, 1e3)} | {f(r['contact'], 2, 1e3)} | {f(r['frac'], 3)} | {f(r['total'], 3)} | "
                   f"{r['fragments']} | {ks} |")
    return out


def _constant_e_campaign(ctx: Context, es=(0.5, 0.9, 1)) -> Campaign:
    """restitution_small.yaml at the constant e of the comparison (--input restitution_small=DIR
    takes a campaign of it with those e among others)."""
    if "restitution_small" in ctx.inputs:
        return load_campaign(ctx.inputs["restitution_small"])
    file = ctx.case("tests/cases/fracture/restitution_small.yaml")
    spec = yaml.safe_load(file.read_text(encoding="utf-8"))
    spec["base"] = str((file.parent / spec["base"]).resolve())
    spec["sweep"]["contact.impact.restitution"] = list(es)
    spec.pop("plots", None)
    reduced = ctx.workdir("restitution_small_const.yaml")
    reduced.parent.mkdir(parents=True, exist_ok=True)
    reduced.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    out = ctx.workdir("restitution_small")
    ctx.log(f"running restitution_small.yaml at e = {list(es)} into {out}")
    cli.campaign(reduced, out, jobs=2, exe=ctx.exe)
    return load_campaign(out)


@_figure("restitution_ev_small", "beyond the paper: Thornton's e(v) at three yield velocities against constant e "
         "on the small confined bar, 3 seeds: e(v) over the measured approach speeds, N_f, dissipation split, "
         "fragment sizes (or --input restitution_ev_small=DIR --input restitution_small=DIR --input speeds=RUN)",
         cost="about 5 minutes with -j 2: restitution_ev_small.yaml (9 runs), restitution_small.yaml at "
              "e = 0.5, 0.9, 1 (9 runs) and one run with field snapshots")
def restitution_ev_small(ctx: Context) -> str:
    ev = _paper_campaign(ctx, "restitution_ev_small", "tests/cases/fracture/restitution_ev_small.yaml")
    const = _constant_e_campaign(ctx)
    speeds_run = _run_input(ctx, "speeds", "tests/cases/fracture/confined_small.yaml",
                            {"output.fields_interval": 5e-8, "output.every": 10000, "output.events": False})
    sp = approach_speeds(speeds_run.path)
    if sp["faces"].size == 0:
        raise ShardDataError(f"{speeds_run.path}: no closing fragment boundary in its field snapshots "
                             "(the run must fragment: the small confined bar at e = 1)")
    reference = "e = 1"
    d, rows = restitution_ev_table(ev, const, reference)
    q = np.percentile(sp["faces"], [10, 25, 50, 75, 90, 99])
    run = _first_case(ev)
    lines = yield_velocity_table(_need(run, "model.young"), _need(run, "model.density")) + [""]
    lines += _restitution_ev_text(rows, reference)
    lines.append(f"approach speeds at fragment boundaries within {1e-7 * 1e6:g} µm (e = 1, seed "
                 f"{speeds_run.case_value('fracture.strength.seed')}, every 0.05 µs, {sp['faces'].size} samples): "
                 "p10 p25 p50 p75 p90 p99 = " + " ".join(f"{v:.3g}" for v in q) +
                 f" m/s, max {sp['faces'].max():.3g}; ends towards the walls up to {sp['ends'].max():.3g} m/s")
    _style()
    fig, axs = plt.subplots(1, 4, figsize=(19, 5.0), constrained_layout=True)
    a, b, c, s = axs
    v = np.geomspace(0.1, 200, 400)
    vys = sorted({float(x) for x in ev.ok["contact.impact.v_y"]})
    cmap = plt.get_cmap("plasma")
    colors = {f"e(v), v_y = {vy:g} m/s": cmap(0.15 + 0.6 * i / max(len(vys) - 1, 1)) for i, vy in enumerate(vys)}
    greys = {f"e = {e:g}": str(0.15 + 0.25 * i) for i, e in enumerate(sorted(
        {float(x) for x in const.ok["contact.impact.restitution"]}, reverse=True))}
    colors.update(greys)
    for vy in vys:
        a.plot(v, thornton_restitution(v, vy), color=colors[f"e(v), v_y = {vy:g} m/s"], lw=1.8,
               label=f"Thornton, v_y = {vy:g} m/s")
    for lab, col in greys.items():
        a.axhline(float(lab.split("=")[1]), color=col, lw=1, dashes=(5, 3), label=f"constant {lab}")
    a.axvspan(q[1], q[3], color="#74c476", alpha=0.25, label="approach speeds: middle half")
    a.axvline(q[2], color="#238b45", lw=1.2, label=f"approach speeds: median {q[2]:.3g} m/s")
    a.axvline(q[4], color="#238b45", lw=1.0, dashes=(2, 2), label=f"approach speeds: 90% below {q[4]:.3g} m/s")
    a.set(xscale="log", xlabel="approach speed −v_n [m/s] (log scale)", ylabel="restitution coefficient e",
          ylim=(0, 1.05), title="(a) the laws and the speeds the bar sees")
    a.legend(loc="lower left", fontsize=7.5)
    laws = [r["law"] for r in rows]
    xs = np.arange(len(laws), dtype=float)
    for i, law in enumerate(laws):
        g = d[d["law"] == law]
        b.plot(np.full(len(g), xs[i]) + np.linspace(-0.12, 0.12, len(g)), g["n_f"], "o", ms=4, mfc="none",
               color="#9e9e9e")
    b.errorbar(xs, [r["n_f"].mean for r in rows], yerr=[r["n_f"].ci95 for r in rows], fmt="o", color="#08519c",
               capsize=3, label="seed mean ± 95%")
    b.plot([], [], "o", mfc="none", color="#9e9e9e", label="each run (seeds side by side)")
    lo = min(r["n_f"].mean - r["n_f"].ci95 for r in rows if r["n_f"].n > 1) if any(r["n_f"].n > 1 for r in rows) \
        else d["n_f"].min()
    b.set(ylabel="number of fragments N_f", title="(b) fragments", ylim=(max(0.0, lo - 0.25 * d["n_f"].max()), None))
    for key, col, mk, lab, off in (("g", "#cb181d", "o", "fracture $\\mathcal{G}$", -0.1),
                                   ("contact", "#2171b5", "s", "contact", 0.1)):
        c.errorbar(xs + off, [r[key].mean / 1e3 for r in rows], yerr=[r[key].ci95 / 1e3 for r in rows], fmt=mk,
                   color=col, capsize=3, label=f"{lab}: seed mean ± 95%")
    c.axhline(d["inj"].mean() / 1e3, color="black", lw=1.2, dashes=(6, 3), label="injected energy (mean)")
    c.set(ylabel="dissipated energy [kJ] (per m² of section)", ylim=(0, 1.3 * d["inj"].mean() / 1e3),
          title="(c) where the energy goes")
    for ax in (b, c):
        ax.set_xticks(xs, labels=[lab.replace("e(v), v_y = ", "Thornton\nv_y = ").replace(" m/s", "")
                                  for lab in laws], fontsize=8)
        ax.set_xlim(-0.5, len(laws) - 0.5)
        ax.set_xlabel("restitution law (constant e; Thornton's e(v) with v_y in m/s)")
        ax.legend(loc="upper left" if ax is c else "lower left", ncol=2 if ax is c else 1, fontsize=7.5)
    for law in laws:
        x = np.sort(np.concatenate(list(d.loc[d["law"] == law, "sizes"]))) * 1e6
        s.step(x, np.arange(1, x.size + 1) / x.size, where="post", color=colors.get(law, "black"), lw=1.5,
               label=f"{law} ({x.size} fragments)", **({"dashes": (5, 3)} if law in greys else {}))
    s.set(xlabel="fragment size [µm]", ylabel="cumulative fraction of fragments", ylim=(0, 1), xlim=(0, None),
          title="(d) fragment sizes, seeds pooled")
    s.legend(loc="lower right", fontsize=7.5)
    fig.suptitle(f"Small confined bar, {_need(run, 'model.length') * 1e3:g} mm, {int(_need(run, 'model.elements'))} "
                 f"elements, {d['seed'].nunique()} seeds: velocity-dependent restitution (Thornton) against constant e")
    lines.append(f"wrote {_save(fig, ctx, 'restitution_ev_small')}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- Fig. 11

def free_ring_table(c: Campaign):
    """Per run: ε̂, ŝ = s / s0, Ĝ = (𝒢 / A L) / (G_c / s0), N_f; s0 = E G_c / σ_c² from
    the run's resolved case."""
    ok = _ok(c, ["var.rate", "model.length", "fracture.mean_fragment_size", "fracture.dissipation",
                 "fracture.fragments"])
    run = _first_case(c)
    gc, young = _need(run, "fracture.g_c"), _need(run, "model.young")
    sigma, area = _need(run, "fracture.strength.nominal"), _need(run, "model.area")
    s0 = young * gc / sigma ** 2
    d = pd.DataFrame({"rate": ok["var.rate"].astype(float),
                      "s_hat": ok["fracture.mean_fragment_size"] / s0,
                      "g_hat": ok["fracture.dissipation"] / area / ok["model.length"] / (gc / s0),
                      "n_f": ok["fracture.fragments"].astype(int)})
    return d, s0


def zmr(x):
    """Zhou-Molinari-Ramesh fragment size s/s0 against ε̂."""
    return 4.5 / (1 + 4.5 * np.asarray(x, dtype=float) ** (2 / 3))


def grady(x):
    """Grady's fragment size s/s0 = (24/ε̂²)^(1/3)."""
    return (24.0 / np.asarray(x, dtype=float) ** 2) ** (1 / 3)


def glenn_chudnovsky(x):
    """Glenn-Chudnovsky's fragment size s/s0 = (4/ε̂) sinh(asinh(1.5 ε̂)/3)."""
    x = np.asarray(x, dtype=float)
    return 4.0 / x * np.sinh(np.arcsinh(1.5 * x) / 3)


@_figure("free_ring", "Fig. 11: ŝ and Ĝ against ε̂, NSN and penalty, beside Grady, Glenn-Chudnovsky and ZMR "
         "(results/free_ring, results/free_ring_penalty)")
def free_ring(ctx: Context) -> str:
    sets = [("NSN", "free_ring", "#1f77b4", "o")]
    if "free_ring_penalty" in ctx.inputs or (ctx.results is not None
                                             and (ctx.results / "free_ring_penalty" / "campaign.csv").exists()):
        sets.append(("penalty", "free_ring_penalty", "#d62728", "s"))
    _style()
    fig, (a, b) = plt.subplots(1, 2, figsize=(13, 5), constrained_layout=True)
    lines = []
    for k, (label, store, col, mk) in enumerate(sets):
        d, s0 = free_ring_table(load_campaign(ctx.stored(store)))
        lines += [f"# {label}: s0 = {s0:.5g} m; ε̂ | runs | ŝ | ŝ ZMR | ŝ / ZMR | Ĝ | Ĝ ZMR bound | N_f (seeds)",
                  "|---|---|---|---|---|---|---|---|"]
        rates, ms, mg = [], [], []
        for r, g in d.groupby("rate", sort=True):
            s, gg = mean_ci(g["s_hat"]), mean_ci(g["g_hat"])
            z = float(zmr(r))
            rates.append(r), ms.append(s), mg.append(gg)
            lines.append(f"| {r:g} | {len(g)} | {s.mean:.3f} ± {s.ci95:.3f} | {z:.3f} | {s.mean / z:.2f} | "
                         f"{gg.mean:.3f} ± {gg.ci95:.3f} | {1 / z:.3f} | {', '.join(str(v) for v in g['n_f'])} |")
        shift = 1.06 if k else 1 / 1.06  # side by side
        for ax, key, m in ((a, "s_hat", ms), (b, "g_hat", mg)):
            ax.plot(d["rate"] * shift, d[key], mk, ms=4, mfc="none", color=col, alpha=0.6)
            ax.errorbar(np.array(rates) * shift, [v.mean for v in m], yerr=[v.ci95 for v in m], fmt=mk, ms=6,
                        color=col, capsize=3, label=f"shard {label}: seed mean ± 95% (open: runs)")
    x = np.geomspace(5e-4, 2e2, 200)
    a.plot(x, grady(x), "--", color="#7f7f7f", lw=1.5, dashes=(6, 3), label="Grady")
    a.plot(x, glenn_chudnovsky(x), "-.", color="#2ca02c", lw=1.5, label="Glenn–Chudnovsky")
    a.plot(x, zmr(x), "-", color="black", lw=1.5, label="Zhou–Molinari–Ramesh")
    a.fill_between(x, 0.7 * zmr(x), 1.3 * zmr(x), color="black", alpha=0.07, label="ZMR ± 30% (paper's band)")
    a.set(xscale="log", yscale="log", xlabel="normalised strain rate ε̂ = ε̇ / ε̇₀",
          ylabel="normalised fragment size ŝ = s / s₀", title="(a) mean fragment size")
    a.legend(loc="lower left")
    b.plot(x, 1 / zmr(x), "-", color="black", lw=1.5, label="ZMR lower bound G_c / s_ZMR")
    b.set(xscale="log", yscale="log", xlabel="normalised strain rate ε̂ = ε̇ / ε̇₀",
          ylabel=r"normalised fracture energy $\hat{G} = (\mathcal{G}/L)\,/\,(G_c/s_0)$", title="(b) fracture energy per length")
    b.legend(loc="upper left")
    fig.suptitle("Free expanding bar over the strain rate (paper Fig. 11)")
    lines.append(f"wrote {_save(fig, ctx, 'free_ring')}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- 2D ring

RING2D_SCHEMES = {0: ("NSN, e = 1", "#1f77b4", "o"), 1: ("penalty α = 10", "#d62728", "s"),
                  2: ("penalty α = 100", "#ff7f0e", "^"), 3: ("NSN, e = 0", "#2ca02c", "D")}


def ring2d_table(c: Campaign):
    """Per ok run of a ring2d campaign: ε̂, scheme, N_f, ŝ = s / s0 (s the mean arc
    length, fracture.mean_fragment_size), N_ZMR = circumference / s_ZMR, Ĝ =
    (𝒢 / V) / (G_c / s0) with V = t π (r_o² - r_i²) the ring's volume, the largest
    balance drift, steps and the loop's wall time; s0 = E G_c / σ_c² from the
    run's resolved case."""
    ok = _ok(c, ["var.rate", "var.scheme", "model.mesh.inner_radius", "model.mesh.outer_radius",
                 "fracture.fragments", "fracture.mean_fragment_size", "fracture.dissipation"])
    run = _first_case(c)
    gc, young = _need(run, "fracture.g_c"), _need(run, "model.young")
    sigma, thick = _need(run, "fracture.strength.nominal"), _need(run, "model.thickness")
    s0 = young * gc / sigma ** 2
    ri, ro = ok["model.mesh.inner_radius"].astype(float), ok["model.mesh.outer_radius"].astype(float)
    rate = ok["var.rate"].astype(float)
    col = lambda k: ok[k].astype(float) if k in ok.columns else pd.Series(np.nan, index=ok.index)  # noqa: E731
    d = pd.DataFrame({"rate": rate, "scheme": ok["var.scheme"].astype(int),
                      "seed": col("fracture.strength.seed"),
                      "n_f": ok["fracture.fragments"].astype(int),
                      "s_hat": ok["fracture.mean_fragment_size"].astype(float) / s0,
                      "n_zmr": np.pi * (ri + ro) / (s0 * zmr(rate)),
                      "g_hat": ok["fracture.dissipation"].astype(float) / (thick * np.pi * (ro ** 2 - ri ** 2))
                      / (gc / s0),
                      "drift": col("energy.max_balance_drift"), "steps": col("steps"),
                      "loop": col("wall_time.loop"),
                      "e0": col("energy.initial"), "kinetic": col("energy.kinetic"),
                      "elastic": col("energy.elastic"), "penalty": col("energy.penalty"),
                      "contact": col("energy.contact_dissipation"), "fracture": col("fracture.dissipation"),
                      "reversible": col("fracture.reversible")})
    return d.reset_index(drop=True), s0


def ring2d_means(d: pd.DataFrame) -> pd.DataFrame:
    """Seed means with 95% intervals per (scheme, ε̂) of N_f, ŝ, Ĝ and the drift."""
    rows = []
    for (sch, r), g in d.groupby(["scheme", "rate"], sort=True):
        row = {"scheme": int(sch), "rate": float(r), "runs": len(g), "n_zmr": float(g["n_zmr"].mean())}
        for k in ("n_f", "s_hat", "g_hat", "drift"):
            m = mean_ci(g[k])
            row[k], row[k + "_ci"] = m.mean, m.ci95
        rows.append(row)
    return pd.DataFrame(rows)


def _ring2d_1d(ctx: Context):
    """shard's 1D free ring (results/free_ring, NSN) as (ε̂, ŝ mean) when stored."""
    try:
        d, _ = free_ring_table(load_campaign(ctx.stored("free_ring")))
    except ShardDataError:
        return None
    return d.groupby("rate", sort=True)["s_hat"].mean()


@_figure("ring2d", "beyond the paper: 2D expanding ring, N_f / N_ZMR, ŝ and Ĝ against ε̂ for NSN (e = 1, 0) and "
         "penalty (α = 10, 100), beside ZMR and shard's 1D bar (results/ring2d)")
def ring2d(ctx: Context) -> str:
    d, s0 = ring2d_table(load_campaign(ctx.stored("ring2d")))
    m = ring2d_means(d)
    one_d = _ring2d_1d(ctx)
    lines = [f"# s0 = {s0:.5g} m; scheme | ε̂ | runs | N_f | N_ZMR | ŝ | ŝ ZMR | ŝ / ZMR | Ĝ | largest drift",
             "|---|---|---|---|---|---|---|---|---|---|"]
    pm = lambda v, ci, f: f"{v:{f}}" + ("" if not np.isfinite(ci) else f" ± {ci:{f}}")  # noqa: E731
    for _, r in m.iterrows():
        z = float(zmr(r["rate"]))
        lines.append(f"| {RING2D_SCHEMES.get(int(r['scheme']), (str(r['scheme']),))[0]} | {r['rate']:.3g} | "
                     f"{int(r['runs'])} | {pm(r['n_f'], r['n_f_ci'], '.1f')} | {r['n_zmr']:.1f} | "
                     f"{pm(r['s_hat'], r['s_hat_ci'], '.3f')} | {z:.3f} | {r['s_hat'] / z:.2f} | "
                     f"{pm(r['g_hat'], r['g_hat_ci'], '.3f')} | {r['drift']:.2g} |")
    _style()
    fig, axs = plt.subplots(1, 3, figsize=(16, 4.9), constrained_layout=True)
    schemes = sorted(m["scheme"].unique())
    for k, sch in enumerate(schemes):
        label, colr, mk = RING2D_SCHEMES.get(sch, (f"scheme {sch}", "gray", "x"))
        shift = 1.05 ** (k - (len(schemes) - 1) / 2)
        g, mm = d[d["scheme"] == sch], m[m["scheme"] == sch]
        for ax, key, norm_runs, norm_mean in ((axs[0], "n_f", g["n_zmr"], mm["n_zmr"]), (axs[1], "s_hat", 1, 1),
                                              (axs[2], "g_hat", 1, 1)):
            ax.plot(g["rate"] * shift, g[key] / norm_runs, mk, ms=4, mfc="none", color=colr, alpha=0.6)
            ax.errorbar(mm["rate"] * shift, mm[key] / norm_mean, yerr=np.nan_to_num(mm[key + "_ci"] / norm_mean), fmt=mk, ms=6,
                        color=colr, capsize=3, label=f"2D {label}")
    x = np.geomspace(0.07, 14, 200)
    axs[0].axhline(1, color="black", lw=1.5, label="ZMR: N_f = circumference / s_ZMR")
    axs[1].plot(x, zmr(x), "-", color="black", lw=1.5, label="Zhou–Molinari–Ramesh")
    axs[1].fill_between(x, 0.7 * zmr(x), 1.3 * zmr(x), color="black", alpha=0.07, label="ZMR ± 30%")
    if one_d is not None:
        sel = one_d[(one_d.index >= 0.05) & (one_d.index <= 20)]
        axs[1].plot(sel.index, sel.values, "*--", color="#7f7f7f", ms=9, label="1D bar, NSN (results/free_ring)")
        lines.append("1D bar (results/free_ring, NSN seed means): " +
                     ", ".join(f"ε̂ {r:g}: ŝ {v:.3f}" for r, v in sel.items()))
    axs[2].plot(x, 1 / zmr(x), "-", color="black", lw=1.5, label="ZMR lower bound G_c / s_ZMR")
    axs[0].set(xscale="log", xlabel="normalised strain rate ε̂ = ε̇ / ε̇₀", ylabel="N_f / N_ZMR",
               title="(a) fragment count against ZMR's")
    axs[0].set_ylim(0, None)
    axs[1].set(xscale="log", yscale="log", xlabel="normalised strain rate ε̂ = ε̇ / ε̇₀",
               ylabel="mean arc length ŝ = s / s₀", title="(b) mean fragment size")
    axs[2].set(xscale="log", yscale="log", xlabel="normalised strain rate ε̂ = ε̇ / ε̇₀",
               ylabel=r"$\hat{G} = (\mathcal{G}/V)\,/\,(G_c/s_0)$", title="(c) fracture energy per volume")
    for ax in axs:
        ax.legend(loc="best")
    fig.suptitle("2D expanding ring (tri2d, plane stress): seed means ± 95% (open: runs)")
    lines.append(f"wrote {_save(fig, ctx, 'ring2d')}")
    return "\n".join(lines)


def ring2d_budget(d: pd.DataFrame) -> pd.DataFrame:
    """Seed means of the final energies over the initial kinetic energy, per (scheme, ε̂):
    kinetic, elastic, penalty, fracture dissipation (cohesive work - reversible),
    reversible, contact dissipation and the rest (initial - all of them: the balance's
    error, positive when energy was lost, negative when it was made)."""
    e = d.copy()
    parts = ["kinetic", "elastic", "penalty", "fracture", "reversible", "contact"]
    for k in parts:
        e[k] = e[k].fillna(0.0) / e["e0"]
    e["rest"] = 1.0 - e[parts].sum(axis=1)
    return e.groupby(["scheme", "rate"], sort=True)[parts + ["rest", "drift"]].mean().reset_index()


@_figure("ring2d_energy", "beyond the paper: 2D expanding ring, where the initial kinetic energy ends, per scheme and "
         "ε̂, and the largest balance drift (results/ring2d)")
def ring2d_energy(ctx: Context) -> str:
    d, _ = ring2d_table(load_campaign(ctx.stored("ring2d")))
    b = ring2d_budget(d)
    parts = [("kinetic", "kinetic", "#9ecae1"), ("elastic", "elastic", "#3182bd"), ("penalty", "penalty", "#fdae6b"),
             ("fracture", "fracture dissipation", "#d62728"), ("reversible", "cohesive reversible", "#ff9896"),
             ("contact", "contact dissipation", "#2ca02c"), ("rest", "balance error", "#7f7f7f")]
    lines = ["| scheme | ε̂ | " + " | ".join(lbl for _, lbl, _ in parts) + " | largest drift |",
             "|---" * (len(parts) + 3) + "|"]
    _style()
    fig, (a, c) = plt.subplots(1, 2, figsize=(15, 5), constrained_layout=True, gridspec_kw={"width_ratios": [2.2, 1]})
    schemes = sorted(b["scheme"].unique())
    rates = sorted(b["rate"].unique())
    width = 0.8 / len(schemes)
    for k, sch in enumerate(schemes):
        label, colr, mk = RING2D_SCHEMES.get(sch, (f"scheme {sch}", "gray", "x"))
        bb = b[b["scheme"] == sch].set_index("rate").reindex(rates)
        xs = np.arange(len(rates)) + (k - (len(schemes) - 1) / 2) * width
        pos, neg = np.zeros(len(rates)), np.zeros(len(rates))
        for key, lbl, pc in parts:
            v = bb[key].fillna(0.0).to_numpy()
            base = np.where(v >= 0, pos, neg)
            a.bar(xs, v, width * 0.92, bottom=base, color=pc, edgecolor="white", lw=0.3,
                  label=lbl if k == 0 else None)
            pos, neg = pos + np.where(v >= 0, v, 0), neg + np.where(v < 0, v, 0)
        for x in xs:
            a.text(x, -0.02, label.replace("penalty ", "").replace("NSN, ", ""), rotation=90, ha="center",
                   va="top", fontsize=6.5)
        for r, row in bb.iterrows():
            lines.append(f"| {label} | {r:.3g} | " + " | ".join(f"{row[key]:.3f}" for key, _, _ in parts) +
                         f" | {row['drift']:.2g} |")
        c.plot(bb.index, bb["drift"], mk + "-", color=colr, label=label)
    a.set_xticks(np.arange(len(rates)), [f"ε̂ = {r:.2g}" for r in rates])
    a.tick_params(axis="x", pad=38)
    a.set(ylabel="energy / initial kinetic energy", title="(a) the final energy budget (seed means)")
    a.set_ylim(top=max(a.get_ylim()[1], 1.2) + 0.3)
    a.legend(loc="upper center", ncol=4, fontsize=7.5)
    c.set(xscale="log", yscale="log", xlabel="ε̂", ylabel="largest |balance drift| / largest energy",
          title="(b) energy balance")
    c.legend(loc="best")
    fig.suptitle("2D expanding ring: energy budget")
    lines.append(f"wrote {_save(fig, ctx, 'ring2d_energy')}")
    return "\n".join(lines)


def ring2d_picture_data(path) -> tuple:
    """(time, triangles' current vertices (ne x 3 x 2), fragment per triangle, number
    of fragments) of a tri2d snapshot with the cell data `fragment`."""
    t, a = read_tri2d_vtu(path)
    if "fragment" not in a:
        raise ShardDataError(f"{path}: no cell data 'fragment' (a snapshot of an older build)")
    frag = np.asarray(a["fragment"], dtype=int)
    return t, a["points"][a["triangles"]], frag, int(len(np.unique(frag)))


def ring2d_store_picture(src, dst) -> Path:
    """Write the part of a tri2d snapshot ring2d_picture draws, gzipped: its time, the
    current positions (9 digits), the triangles and the cell data `fragment` (a
    VTU that ParaView and read_tri2d_vtu open; a fifth of the full snapshot's size)."""
    t, a = read_tri2d_vtu(src)
    if "fragment" not in a:
        raise ShardDataError(f"{src}: no cell data 'fragment'")
    pts, tri, frag = a["points"], a["triangles"], a["fragment"]
    out = ['<?xml version="1.0"?>',
           '<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian">', "  <UnstructuredGrid>",
           "    <FieldData>",
           f'      <DataArray type="Float64" Name="TimeValue" NumberOfTuples="1" format="ascii">{t!r}</DataArray>',
           "    </FieldData>", f'    <Piece NumberOfPoints="{len(pts)}" NumberOfCells="{len(tri)}">',
           '      <Points>\n        <DataArray type="Float64" NumberOfComponents="3" format="ascii">']
    out += [f"{x:.9g} {y:.9g} 0" for x, y in pts]
    out += ["        </DataArray>\n      </Points>\n      <Cells>",
            '        <DataArray type="Int32" Name="connectivity" format="ascii">']
    out += [f"{i} {j} {k}" for i, j, k in tri]
    out += ['        </DataArray>\n        <DataArray type="Int32" Name="offsets" format="ascii">',
            " ".join(str(3 * (e + 1)) for e in range(len(tri))),
            '        </DataArray>\n        <DataArray type="UInt8" Name="types" format="ascii">',
            " ".join("5" for _ in range(len(tri))),
            "        </DataArray>\n      </Cells>\n      <CellData>",
            '        <DataArray type="Int32" Name="fragment" format="ascii">', " ".join(str(int(f)) for f in frag),
            "        </DataArray>\n      </CellData>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n"]
    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    import gzip
    dst.write_bytes(gzip.compress("\n".join(out).encode(), compresslevel=9, mtime=0))
    return dst


@_figure("ring2d_picture", "beyond the paper: a fragmented 2D ring drawn from its snapshot, coloured by fragment "
         "(results/ring2d/picture/*.vtu.gz)")
def ring2d_picture(ctx: Context) -> str:
    root = ctx.stored("ring2d") / "picture"
    files = sorted(root.glob("*.vtu.gz")) + sorted(root.glob("*.vtu"))
    if not files:
        raise ShardDataError(f"{root}: no snapshot (*.vtu.gz)")
    t, tris, frag, nf = ring2d_picture_data(files[0])
    _style()
    fig, axs = plt.subplots(1, 2, figsize=(13, 6.2), constrained_layout=True)
    from matplotlib.collections import PolyCollection
    cmap = plt.get_cmap("tab20")
    rng = np.random.default_rng(1)  # neighbours in different colours: a fixed shuffle of the numbers
    perm = rng.permutation(max(int(frag.max()) + 1, 1))
    colours = cmap((perm[frag] % 20) / 19.0)
    cx, cy = tris[:, :, 0].mean(), tris[:, :, 1].mean()
    r = np.hypot(tris[:, :, 0] - cx, tris[:, :, 1] - cy)
    # the close-up: the first fragment boundary counter-clockwise from the +x axis
    ang = np.arctan2(tris[:, :, 1].mean(axis=1) - cy, tris[:, :, 0].mean(axis=1) - cx) % (2 * np.pi)
    order = np.argsort(ang)
    change = np.nonzero(frag[order][1:] != frag[order][:-1])[0]
    a0 = 0.5 * (ang[order][change[0]] + ang[order][change[0] + 1]) if len(change) else 0.0
    rm, width = float(np.median(r)), float(r.max() - r.min())
    for ax, zoom in ((axs[0], False), (axs[1], True)):
        ax.add_collection(PolyCollection(tris * 1e3, facecolors=colours, edgecolors="k" if zoom else "face",
                                         lw=0.15 if zoom else 0.1))
        ax.set_aspect("equal")
        ax.grid(False)
        ax.set(xlabel="x [mm]", ylabel="y [mm]")
        if zoom:  # six widths of the ring around that boundary
            x0, y0, half = cx + rm * np.cos(a0), cy + rm * np.sin(a0), 3 * width
            ax.set_xlim(1e3 * (x0 - half), 1e3 * (x0 + half))
            ax.set_ylim(1e3 * (y0 - half), 1e3 * (y0 + half))
            ax.set_title(f"(b) close-up of a crack at {np.degrees(a0):.0f}° (edges: the triangles)")
        else:
            ax.autoscale_view()
            ax.set_title(f"(a) {nf} fragments at t = {t * 1e6:.3g} µs")
    fig.suptitle(f"2D expanding ring: triangles at their current positions, one colour per fragment "
                 f"({files[0].name})")
    out = _save(fig, ctx, "ring2d_picture")
    return f"{files[0].name}: t = {t:.6g} s, {len(frag)} triangles, {nf} fragments\nwrote {out}"


# --------------------------------------------------------------------------- Fig. 12

def _scheme(run: Run) -> str:
    plugin = run.case_value("integrator.plugin", "?")
    return {"explicit_newmark": "penalty", "nsn": "NSN"}.get(plugin, plugin)


def _run_dirs(paths: Sequence[Path]) -> List[Path]:
    out: List[Path] = []
    for p in paths:
        if (p / "runs").is_dir():
            out += sorted(q for q in (p / "runs").iterdir() if q.is_dir())
        elif (p / "case.resolved.yaml").exists():
            out.append(p)
        else:
            raise ShardDataError(f"{p}: neither a campaign directory (runs/) nor a run directory (case.resolved.yaml)")
    return out


def _thin(df: pd.DataFrame, n: int = 4000) -> pd.DataFrame:
    """At most about n rows, evenly spaced (plots of long histories)."""
    step = max(1, len(df) // n)
    return df.iloc[::step]


@_figure("free_ring_dt", "Fig. 12: N_f and balance drift over time and against dt/dt_c, penalty and NSN, "
         "L = 0.1 m (--input free_ring_dt=CAMPAIGN_DIR)",
         cost="hours: cases/paper/free_ring_dt.yaml, 6 runs of 5e4 elements (≈ 1.5 h with -j 2)")
def free_ring_dt(ctx: Context) -> str:
    src = ctx.inputs.get("free_ring_dt")
    if src is None:
        src = ctx.workdir("free_ring_dt")
        ctx.log(f"running cases/paper/free_ring_dt.yaml into {src} (hours)")
        try:
            cli.campaign(ctx.case("cases/paper/free_ring_dt.yaml"), src, jobs=2, exe=ctx.exe)
        except cli.ShardError as e:  # the 0.99 dt_c penalty run fails by design
            ctx.log(str(e))
    runs = []
    for p in _run_dirs([Path(src)]):
        if not (p / "summary.yaml").exists():
            ctx.log(f"{p}: no summary.yaml (still running, or killed): skipped")
            continue
        r = load_run(p)
        runs.append((_scheme(r), float(r.value("time.dt_over_dt_c", math.nan)), r))
    if not runs:
        raise ShardDataError(f"{src}: no finished run")
    runs.sort(key=lambda t: (t[0] == "NSN", t[1]))
    nsn_loop = next((r.value("wall_time.loop") for s, _, r in runs if s == "NSN" and r.status == "ok"), None)
    lines = ["| scheme | dt/dt_c | status | steps | N_f | max drift | max drift [J] | 𝒢 [J] | loop [s] | ms/step | loop / NSN loop |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    _style()
    fig, axs = plt.subplots(1, 3, figsize=(16, 4.9), constrained_layout=True)
    cmap = plt.get_cmap("plasma")
    pen = [t for t in runs if t[0] != "NSN"]
    for scheme, ratio, r in runs:
        st = r.status if r.status == "ok" else f"{r.status} ({r.value('message', '')})"
        steps, loop = r.value("steps"), r.value("wall_time.loop")
        drift, e0 = r.value("energy.max_balance_drift"), r.value("energy.initial")
        g, nf = r.value("fracture.dissipation"), r.value("fracture.fragments")
        num = lambda v, f: format(v, f) if isinstance(v, (int, float)) else "-"  # noqa: E731
        lines.append(f"| {scheme} | {ratio:.2f} | {st} | {steps} | {nf} | {num(drift, '.2e')} | "
                     f"{num(drift * e0 if drift is not None and e0 is not None else None, '.3g')} | {num(g, '.0f')} | "
                     f"{num(loop, '.0f')} | {num(1e3 * loop / steps if loop and steps else None, '.2f')} | "
                     f"{num(loop / nsn_loop if loop and nsn_loop else None, '.2f')} |")
        h = _thin(r.table("history", usecols=["t", "fragments", "balance_drift"]))
        if scheme == "NSN":
            kw = dict(color="black", lw=2, ls="--", label=f"NSN, {ratio:.2f} Δt_c")
        else:
            i = pen.index((scheme, ratio, r))
            kw = dict(color=cmap(0.85 * i / max(len(pen) - 1, 1)), lw=1.4,
                      label=f"penalty, {ratio:.2f} Δt_c" + ("" if r.status == "ok" else f" (stopped: {r.status})"))
        axs[0].plot(h["t"] * 1e6, h["fragments"], **kw)
        axs[1].plot(h["t"] * 1e6, h["balance_drift"].abs().where(h["balance_drift"] != 0), **kw)
    axs[0].set(xlabel="time t [µs]", ylabel="number of fragments N_f", title="(a) fragments over time")
    axs[1].set(xlabel="time t [µs]", ylabel="|energy balance drift| / largest energy", yscale="log",
               title="(b) energy balance over time")
    okp = [(ratio, r) for s, ratio, r in pen if r.status == "ok"]
    okn = [(ratio, r) for s, ratio, r in runs if s == "NSN" and r.status == "ok"]
    c = axs[2]
    c.plot([x for x, _ in okp], [r.value("fracture.fragments") for _, r in okp], "o-", color="#1f77b4",
           label="penalty: final N_f")
    c.plot([x for x, _ in okn], [r.value("fracture.fragments") for _, r in okn], "s", ms=9, color="black",
           label="NSN: final N_f")
    c.set(xlabel="time step Δt / Δt_c", ylabel="final N_f", xlim=(0, 1.05), title="(c) against the time step")
    c.set_ylim(0, None)
    c2 = c.twinx()
    c2.plot([x for x, _ in okp], [r.value("energy.max_balance_drift") for _, r in okp], "o--", mfc="none",
            color="#d62728", label="penalty: largest drift")
    c2.plot([x for x, _ in okn], [r.value("energy.max_balance_drift") for _, r in okn], "s", mfc="none", ms=9,
            color="black", label="NSN: largest drift")
    c2.set(yscale="log", ylabel="largest |balance drift|")
    c2.grid(False)
    h1, l1 = c.get_legend_handles_labels()
    h2, l2 = c2.get_legend_handles_labels()
    c.legend(h1 + h2, l1 + l2, loc="center right")
    axs[0].legend(loc="lower right")
    r0 = runs[0][2]
    fig.suptitle(f"Free expanding bar, L = {_need(r0, 'model.length'):g} m, {int(_need(r0, 'model.elements'))} elements, "
                 "ε̂ = 1 (paper Fig. 12)")
    lines.append(f"wrote {_save(fig, ctx, 'free_ring_dt')}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- Fig. 8

def _campaign_input(ctx: Context, key: str, case: str, jobs: int = 2,
                    settings: Optional[Dict[str, object]] = None) -> Campaign:
    """The campaign directory given as --input KEY=DIR, else the campaign file `case`
    run into the work directory, with `settings` added to its `set:` block (a reduced
    copy of the campaign: its base made absolute, its plots dropped)."""
    p = ctx.inputs.get(key)
    if p is None:
        p = ctx.workdir(key)
        file = ctx.case(case)
        if settings:
            spec = yaml.safe_load(file.read_text(encoding="utf-8"))
            spec["base"] = str((file.parent / spec["base"]).resolve())
            spec.setdefault("set", {}).update(settings)
            spec.pop("plots", None)
            file = ctx.workdir(f"{key}.yaml")
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
        ctx.log(f"running {case}{' with ' + str(settings) if settings else ''} into {p}")
        try:
            cli.campaign(file, p, jobs=jobs, exe=ctx.exe)
        except cli.ShardError as e:  # runs past the stable step fail by design; the table is written
            if not (Path(p) / "campaign.csv").exists():
                raise
            ctx.log(f"{case}: {str(e).splitlines()[0]}")
    return load_campaign(p)


# the reduced bar of docs/reproduction.md: 16 times cheaper than the paper's size
DAMAGED_BAR_REDUCED = {"model.elements": 500, "fracture.initial.count": 250, "time.end": 0.6e-6}


@_figure("damaged_bar_study", "Fig. 8: contact-node errors after rebound and balance drift against dt/dt_bulk, "
         "penalty per α and NSN, on the reduced bar (500 elements, 250 damaged interfaces, 0.6 µs; "
         "--paper-size for the campaign files' size; or --input penalty=DIR --input nsn=DIR)",
         cost="runs cases/paper/damaged_bar_study.yaml (30 runs) and damaged_bar_nsn_study.yaml (5 runs): "
              "about a minute on the reduced bar with -j 2, hours at the paper's size")
def damaged_bar_study(ctx: Context) -> str:
    reduced = None if ctx.paper_size else DAMAGED_BAR_REDUCED
    pen = _campaign_input(ctx, "penalty", "cases/paper/damaged_bar_study.yaml", settings=reduced)
    nsn = _campaign_input(ctx, "nsn", "cases/paper/damaged_bar_nsn_study.yaml", settings=reduced)
    cols = ["time.dt_over_dt_c", "time.dt_c", "time.dt_bulk", "energy.max_balance_drift", "reference.eta_u",
            "reference.eta_v"]
    series = []
    p = _ok(pen, cols + ["contact.force.alpha"])
    for alpha, g in p.groupby("contact.force.alpha", sort=True):
        series.append((f"penalty, α = {alpha:g}", g.sort_values("time.dt_over_dt_c"), alpha))
    series.append(("NSN (capped law, e = 0)", _ok(nsn, cols).sort_values("time.dt_over_dt_c"), None))
    _style()
    fig, axs = plt.subplots(1, 3, figsize=(16.5, 4.9), constrained_layout=True)
    cmap = plt.get_cmap("viridis")
    npen = len(series) - 1
    lines = ["| scheme | dt/dt_bulk | dt/dt_c | eta_u | eta_v | max drift |", "|---|---|---|---|---|---|"]
    for i, (label, g, alpha) in enumerate(series):
        x = g["time.dt_over_dt_c"] * g["time.dt_c"] / g["time.dt_bulk"]
        kw = (dict(color="black", ls="--", marker="s", lw=2) if alpha is None
              else dict(color=cmap(0.9 * i / max(npen - 1, 1)), marker="o", lw=1.5))
        for ax, key in zip(axs, ("reference.eta_u", "reference.eta_v", "energy.max_balance_drift")):
            ax.plot(x, g[key], label=label, **kw)
        if alpha is not None:  # the penalty's stable step, dt_c(alpha), in the same colour
            xc = float((g["time.dt_c"] / g["time.dt_bulk"]).iloc[0])
            for ax in axs:
                ax.axvline(xc, color=kw["color"], ls=":", lw=1.2)
        for (_, row), xv in zip(g.iterrows(), x):
            lines.append(f"| {label} | {xv:.3g} | {row['time.dt_over_dt_c']:.3g} | {row['reference.eta_u']:.3g} | "
                         f"{row['reference.eta_v']:.3g} | {row['energy.max_balance_drift']:.3g} |")
    failed = pen.table[(pen.table["status"] != "ok") & pen.table["contact.force.alpha"].notna()]
    if len(failed):  # runs stopped (exit 3): crosses along the top of the balance panel
        xf = failed["time.dt_over_dt_c"] * failed["time.dt_c"] / failed["time.dt_bulk"]
        cols = [cmap(0.9 * sorted(p["contact.force.alpha"].unique()).index(a) / max(npen - 1, 1))
                if a in set(p["contact.force.alpha"]) else "red" for a in failed["contact.force.alpha"]]
        axs[2].scatter(xf, [0.97] * len(xf), marker="x", s=60, c=cols, transform=axs[2].get_xaxis_transform(),
                       label="penalty run stopped (exit 3: unstable, or drift past the guard)", clip_on=False)
        for (_, row), xv in zip(failed.iterrows(), xf):
            lines.append(f"| penalty, α = {row['contact.force.alpha']:g} | {xv:.3g} | - | {row['status']} | | |")
    titles = ("(a) contact-node displacement after rebound", "(b) contact-node velocity after rebound",
              "(c) energy balance")
    ylabels = ("relative L1 error of u", "relative L1 error of v", "largest |balance drift| / largest energy")
    for ax, t, yl in zip(axs, titles, ylabels):
        ax.set(xscale="log", yscale="log", xlabel="time step Δt / Δt_bulk", ylabel=yl, title=t)
    axs[2].plot([], [], ":", color="gray", label="Δt_c(α): penalty's stable step")
    axs[2].legend(loc="center left", bbox_to_anchor=(1.02, 0.5))
    run = _first_case(nsn)
    fig.suptitle(f"Damaged bar, {int(_need(run, 'model.elements'))} elements, "
                 f"{int(_need(run, 'fracture.initial.count'))} damaged interfaces (paper Fig. 8)")
    lines.append(f"wrote {_save(fig, ctx, 'damaged_bar_study')}")
    return "\n".join(lines)


def _run_input(ctx: Context, key: str, case: str, settings: Dict[str, object]) -> Run:
    p = ctx.inputs.get(key)
    if p is not None:
        return load_run(p)
    p = ctx.workdir(key)
    ctx.log(f"running {case} into {p}")
    return cli.run(ctx.case(case), p, settings, exe=ctx.exe)


@_figure("damaged_bar_drift", "§4.3: balance drift over time on the damaged bar, NSN against penalty "
         "(runs both cases; or --input nsn=RUN --input penalty=RUN)",
         cost="about a minute: cases/paper/damaged_bar.yaml and damaged_bar_penalty.yaml")
def damaged_bar_drift(ctx: Context) -> str:
    nsn = _run_input(ctx, "nsn", "cases/paper/damaged_bar.yaml", {"output.every": 20})
    pen = _run_input(ctx, "penalty", "cases/paper/damaged_bar_penalty.yaml", {"output.every": 100})
    _style()
    fig, ax = plt.subplots(figsize=(8.5, 4.6), constrained_layout=True)
    lines = ["| scheme | dt/dt_c | steps | largest drift |", "|---|---|---|---|"]
    for r, col, label in ((nsn, "#08519c", "NSN, capped law, e = 0"),
                          (pen, "#cb181d", f"explicit Newmark + penalty α = {r_alpha(pen):g}, uncapped law")):
        h = r.table("history", usecols=["t", "balance_drift"])
        ratio = r.value("time.dt_over_dt_c")
        ax.plot(h["t"] * 1e6, h["balance_drift"].abs().where(h["balance_drift"] != 0), color=col, lw=1.5,
                label=f"{label}, Δt = {ratio:.2g} Δt_c")
        lines.append(f"| {_scheme(r)} | {ratio:.2g} | {r.value('steps')} | {r.value('energy.max_balance_drift'):.2e} |")
    ax.set(yscale="log", xlabel="time t [µs]", ylabel="|energy balance drift| / largest energy",
           title=f"Damaged bar, {int(_need(nsn, 'model.elements'))} elements: energy balance over time")
    ax.legend(loc="center right")
    lines.append(f"wrote {_save(fig, ctx, 'damaged_bar_drift')}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- Fig. 8b-c

def contact_history_numbers(t, u, v, force, v_ref, t_c: float, t_b: float, v0: float, gap: float = 0.0,
                            hold: Optional[float] = None) -> Dict[str, float]:
    """What a contact-node history shows (the damaged bar, paper Fig. 8b-c), from
    its rows t, u, v, force, v_ref (arrays of one length, t increasing), the time of
    first contact t_c, the exact contact duration t_b = 2L/c, the impact speed v0 and
    the wall's gap (the node touches the wall at u = -gap):

    - rebound: the time the node leaves the wall for good, the first row with zero
      force after the first contact that is followed by no force for at least `hold`
      (default t_b / 4; shorter losses of contact, a penalty node bouncing on the
      wall, do not count); NaN when the force never stops for that long before
      the run ends;
    - rebound_late: (rebound - t_c) / t_b - 1, the relative delay against 2L/c;
    - rebound_velocity: the node's mean velocity over the rows in (rebound,
      rebound + t_b], over v0 (1: released at the impact speed); NaN without rebound;
    - penetration: the largest penetration into the wall, max(0, -(u + gap)) [m];
    - rms_v_contact: the root mean square of v - v_ref over the rows where both the
      exact node and the run's node are on the wall, t_c < t < min(t_c + t_b,
      rebound) [m/s] (a time rms when the rows are evenly spaced; a rebound early or
      late is the rebound time's error, not counted twice), and rms_v_contact_rel,
      the same over v0;
    - contact_share: the share of those rows with a contact force (1: the node never
      leaves the wall during the contact; a penalty node bouncing on it, less);
    - rms_v_after: the same after both rebounds, over the rows t > max(rebound,
      t_c + t_b) to the end of the run [m/s]; NaN without rebound."""
    t, u, v, f, vr = (np.asarray(x, dtype=float) for x in (t, u, v, force, v_ref))
    if not (len(t) == len(u) == len(v) == len(f) == len(vr)) or len(t) == 0:
        raise ValueError("contact_history_numbers: t, u, v, force and v_ref must be non-empty and of one length")
    hold = t_b / 4 if hold is None else hold
    rebound = math.nan
    on = np.flatnonzero(f > 0)
    if len(on):
        # the last contact row of the first episode: the first contact row whose next contact row is more than
        # `hold` later (or that has none, and the run goes on for `hold` without force)
        gaps = np.append(t[on[1:]] - t[on[:-1]], t[-1] - t[on[-1]])
        last = np.flatnonzero(gaps > hold)
        if len(last) and on[last[0]] + 1 < len(t):
            rebound = float(t[on[last[0]] + 1])
    out = {"rebound": rebound, "rebound_late": (rebound - t_c) / t_b - 1 if rebound == rebound else math.nan,
           "rebound_velocity": math.nan}
    if rebound == rebound:
        after = (t > rebound) & (t <= rebound + t_b)
        if after.any():
            out["rebound_velocity"] = float(v[after].mean()) / v0
    out["penetration"] = float(max(0.0, float(np.max(-(u + gap)))))
    during = (t > t_c) & (t < min(t_c + t_b, rebound if rebound == rebound else math.inf))
    rms = float(np.sqrt(np.mean((v[during] - vr[during]) ** 2))) if during.any() else math.nan
    out["rms_v_contact"] = rms
    out["rms_v_contact_rel"] = rms / v0
    out["contact_share"] = float(np.mean(f[during] > 0)) if during.any() else math.nan
    after = t > max(rebound, t_c + t_b) if rebound == rebound else np.zeros(len(t), dtype=bool)
    out["rms_v_after"] = float(np.sqrt(np.mean((v[after] - vr[after]) ** 2))) if after.any() else math.nan
    return out


# the runs of Fig. 8b-c: NSN at its case's 0.99 dt_c, penalty at 0.2 dt_c(alpha) (damaged_bar_penalty.yaml);
# a history row every 5 ps resolves the penalty's bouncing at alpha = 100 (period about 70 ps)
HISTORY_INTERVAL = 5e-12
HISTORY_ALPHAS = (1, 10, 100)


@_figure("damaged_bar_histories", "Fig. 8b-c: the contact node's displacement and velocity against time on the "
         "paper's damaged bar, NSN (0.99 Δt_c) and penalty α = 1, 10, 100 (0.2 Δt_c(α)), beside the 1D wave "
         "solution (runs the 4 cases; or --input nsn=RUN --input penalty_1=RUN ...)",
         cost="about 2.3 CPU-minutes: cases/paper/damaged_bar.yaml and damaged_bar_penalty.yaml at α = 1, 10, 100, "
              "a history row every 5 ps (30-60 MB of history each)")
def damaged_bar_histories(ctx: Context) -> str:
    """Fig. 8b-c at the paper's size (2000 elements, 1000 damaged interfaces, T = 1 µs):
    NSN at 0.99 Δt_c, explicit Newmark + penalty at α = 1, 10, 100 each at 0.2 Δt_c(α)
    (its own stable step with the penalty springs; α = 100 leaves the balance at 0.5),
    history rows every 5 ps. Inputs: --input nsn=RUN and penalty_1, penalty_10,
    penalty_100 = RUN (run directories), else the four cases are run, one after the other
    on one core: 137-139 s of CPU in all, half of it α = 100's 1.7 million steps (measured
    with /usr/bin/time; loop CPU 13, 22, 31, 67-68 s for NSN and α = 1, 10, 100)."""
    every = {"output.interval": HISTORY_INTERVAL, "output.events": False}
    runs = [("NSN (capped law, e = 0)", _run_input(ctx, "nsn", "cases/paper/damaged_bar.yaml", every))]
    for a in HISTORY_ALPHAS:
        runs.append((f"explicit Newmark + penalty α = {a:g}",
                     _run_input(ctx, f"penalty_{a:g}", "cases/paper/damaged_bar_penalty.yaml",
                                {**every, "contact.force.alpha": a, "time.dt": "0.2 * dt_c"})))
    cmap = plt.get_cmap("viridis")
    colours = ["#08519c"] + [cmap(x) for x in (0.9, 0.55, 0.15)]
    _style()
    fig, (au, av) = plt.subplots(2, 1, figsize=(11, 9.5), sharex=True, constrained_layout=True)
    iu_pen = au.inset_axes([0.06, 0.52, 0.32, 0.40])  # the contact: penetration in nm
    iu_reb = au.inset_axes([0.44, 0.52, 0.20, 0.40])  # the rebound in nm
    iv_osc = av.inset_axes([0.36, 0.06, 0.30, 0.40])  # 0.5 ns of the contact
    iv_reb = av.inset_axes([0.72, 0.06, 0.26, 0.40])  # the rebound
    k0 = _bar_scales(runs[0][1])
    t_b, v0 = k0["t_b"], k0["v0"]
    t_osc = 0.1e-6  # the middle of the contact
    lines = [f"2L/c = {t_b * 1e6:.5f} µs, v0 = {v0:g} m/s; rows every {HISTORY_INTERVAL * 1e12:g} ps",
             "| scheme | Δt/Δt_c | rebound [µs] | vs 2L/c | v after rebound / v0 | largest penetration [nm] | "
             "rms(v - v_ref) in contact [m/s] | / v0 | force on in contact | rms(v - v_ref) after rebound [m/s] |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    ref_drawn = False
    for (label, r), col in zip(runs, colours):
        k = _bar_scales(r)
        gap = _need(r, "model.walls.left.gap")
        t_c = gap / k["v0"]
        h = r.table("history", usecols=["t", "u_contact", "v_contact", "force_contact", "u_ref", "v_ref"])
        n = contact_history_numbers(h["t"], h["u_contact"], h["v_contact"], h["force_contact"], h["v_ref"],
                                    t_c, k["t_b"], k["v0"], gap=gap)
        ratio = r.value("time.dt_over_dt_c")
        nsn = r.case_value("integrator.plugin") == "nsn"
        lab = f"{label}, Δt = {ratio:.2g} Δt_c" + ("" if nsn else "(α)")
        lw = 2.2 if nsn else 0.9
        # NSN above the penalties, the narrow bands of small α above the wide ones of large α
        z = 6 if nsn else 4 - HISTORY_ALPHAS.index(r_alpha(r)) if r_alpha(r) in HISTORY_ALPHAS else 1
        tt = h["t"] * 1e6
        if not ref_drawn:
            for ax, col_ref, sc in ((au, "u_ref", 1e6), (av, "v_ref", 1.0), (iu_pen, "u_ref", 1e9),
                                    (iu_reb, "u_ref", 1e9), (iv_osc, "v_ref", 1.0), (iv_reb, "v_ref", 1.0)):
                ax.plot(tt, h[col_ref] * sc, color="black", lw=1.3, dashes=(5, 3), zorder=7,
                        label="1D wave solution (reference)")
            ref_drawn = True
        au.plot(tt, h["u_contact"] * 1e6, color=col, lw=lw, zorder=z, label=lab)
        av.plot(tt, h["v_contact"], color=col, lw=lw, zorder=z, label=lab)
        for ax, y in ((iu_pen, h["u_contact"] * 1e9), (iu_reb, h["u_contact"] * 1e9), (iv_reb, h["v_contact"])):
            ax.plot(tt, y, color=col, lw=1.6 if nsn else 0.8, zorder=z)
        sel = (h["t"] >= t_osc) & (h["t"] <= t_osc + 0.5e-9)
        iv_osc.plot((h["t"][sel] - t_osc) * 1e9, h["v_contact"][sel], color=col, lw=1.6 if nsn else 1.0,
                    marker="." if not nsn else None, ms=2.5, zorder=z)
        lines.append(f"| {label} | {ratio:.2g} | {n['rebound'] * 1e6:.4f} | {100 * n['rebound_late']:+.1f}% | "
                     f"{n['rebound_velocity']:.3f} | {n['penetration'] * 1e9:.3g} | {n['rms_v_contact']:.3g} | "
                     f"{n['rms_v_contact_rel']:.3f} | {100 * n['contact_share']:.0f}% | {n['rms_v_after']:.3g} |")
    # the reference in the 0.5 ns window, in that window's time
    ref_osc = iv_osc.get_lines()[0]
    ref_osc.set_xdata((np.asarray(ref_osc.get_xdata()) - t_osc * 1e6) * 1e3)
    iu_pen.set(xlim=(0, 1.3 * t_b * 1e6), ylim=(-0.4, 0.15), title="u [nm] during the contact (< 0: in the wall)")
    iu_reb.set(xlim=(0.95 * t_b * 1e6, 1.35 * t_b * 1e6), ylim=(-20, 250), title="the rebound [nm]")
    iv_osc.set(xlim=(0, 0.5), ylim=(-7, 7),
               title=f"0.5 ns of the contact, from {t_osc * 1e6:g} µs (t − {t_osc * 1e6:g} µs [ns])")
    iv_reb.set(xlim=(0.9 * t_b * 1e6, 1.45 * t_b * 1e6), ylim=(-1, 6.5), title="the rebound")
    for ins in (iu_pen, iu_reb, iv_osc, iv_reb):
        ins.tick_params(labelsize=7)
        ins.title.set_fontsize(8)
    au.set(ylabel="contact-node displacement u [µm]", ylim=(-0.3, 4.6),
           title="(b) displacement of the contact node (the wall at u = 0; u < 0 is penetration)")
    av.set(xlabel="time t [µs]", ylabel="contact-node velocity v [m/s]", ylim=(-7.5, 7.5),
           title="(c) velocity of the contact node (in contact the exact node rests; the penalty node bounces on "
                 "its springs)")
    au.legend(loc="lower right")
    av.set_xlim(0, _need(runs[0][1], "time.end") * 1e6)
    run = runs[0][1]
    fig.suptitle(f"Damaged bar, {int(_need(run, 'model.elements'))} elements, "
                 f"{int(_need(run, 'fracture.initial.count'))} damaged interfaces, v0 = {v0:g} m/s onto the wall "
                 "(paper Fig. 8b-c)")
    lines.append(f"wrote {_save(fig, ctx, 'damaged_bar_histories')}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- Fig. 9

def damaged_bar_cost_data(c: Campaign) -> pd.DataFrame:
    """One row per run of a cost study (cases/paper/damaged_bar_cost.yaml): the scheme
    in words (NSN, or penalty α = a from contact.force.alpha), dt/dt_c of the scheme's
    own stable step, the contact-node errors after rebound, the loop's CPU time, the
    largest balance drift and the status. Failed runs are kept with their status (no errors)."""
    t = c.table
    need = ["status", "integrator.plugin", "time.dt_over_dt_c", "reference.eta_u", "reference.eta_v",
            "cpu_time.loop", "energy.max_balance_drift"]
    missing = [k for k in need if k not in t.columns]
    if missing:
        raise ShardDataError(f"{c.path / 'campaign.csv'}: no column {', '.join(missing)}")
    alpha = t["contact.force.alpha"] if "contact.force.alpha" in t.columns else pd.Series(np.nan, index=t.index)

    def scheme(plugin, a) -> str:
        if plugin == "nsn":
            return "NSN"
        if plugin == "explicit_newmark" and pd.notna(a):
            return f"penalty α = {float(a):g}"
        return str(plugin)

    num = lambda k: pd.to_numeric(t[k], errors="coerce")  # noqa: E731
    d = pd.DataFrame({
        "index": t["index"].astype(int),
        "scheme": [scheme(p, a) for p, a in zip(t["integrator.plugin"], alpha)],
        "alpha": pd.to_numeric(alpha, errors="coerce"),
        "dt_over_dt_c": num("time.dt_over_dt_c"),
        "eta_u": num("reference.eta_u"),
        "eta_v": num("reference.eta_v"),
        "cpu": num("cpu_time.loop"),
        "steps": pd.to_numeric(t["steps"], errors="coerce") if "steps" in t.columns else np.nan,
        "drift": num("energy.max_balance_drift"),
        "status": t["status"].astype(str),
    })
    # NSN first, then the penalties by α; each scheme by its step, largest first
    d["_order"] = d["alpha"].fillna(-1.0)
    d = d.sort_values(["_order", "dt_over_dt_c"], ascending=[True, False]).drop(columns="_order")
    return d.reset_index(drop=True)


def cheapest_at_error(d: pd.DataFrame, error: str, target: float) -> pd.DataFrame:
    """Per scheme, its cheapest ok run whose `error` column is at most `target`:
    columns scheme, cpu, dt_over_dt_c, error (NaN cpu when no run of the scheme
    reaches the target), cheapest first. The first row is the cheapest scheme at
    that accuracy when its cpu is a number."""
    rows = []
    for s, g in d.groupby("scheme", sort=False):
        ok = g[(g["status"] == "ok") & (g[error] <= target)]
        if ok.empty:
            rows.append({"scheme": s, "cpu": math.nan, "dt_over_dt_c": math.nan, "error": math.nan})
        else:
            best = ok.loc[ok["cpu"].idxmin()]
            rows.append({"scheme": s, "cpu": float(best["cpu"]), "dt_over_dt_c": float(best["dt_over_dt_c"]),
                         "error": float(best[error])})
    out = pd.DataFrame(rows, columns=["scheme", "cpu", "dt_over_dt_c", "error"])
    return out.sort_values("cpu", na_position="last", kind="stable").reset_index(drop=True)


@_figure("damaged_bar_cost", "Fig. 9: contact-node errors after rebound against the loop's CPU time, NSN and "
         "penalty α = 1, 10, 100 over dt/dt_c on the paper's damaged bar (the stored campaign "
         "results/damaged_bar_cost; or --input damaged_bar_cost=DIR)")
def damaged_bar_cost(ctx: Context) -> str:
    c = load_campaign(ctx.stored("damaged_bar_cost"))
    d = damaged_bar_cost_data(c)
    _style()
    fig, axs = plt.subplots(1, 2, figsize=(13.5, 5.2), constrained_layout=True)
    cmap = plt.get_cmap("viridis")
    alphas = sorted(a for a in d["alpha"].dropna().unique())
    lines = ["| scheme | dt/dt_c | status | eta_u | eta_v | loop CPU [s] | CPU µs/step | max drift |",
             "|---|---|---|---|---|---|---|---|"]
    for s, g in d.groupby("scheme", sort=False):
        a = g["alpha"].iloc[0]
        kw = (dict(color="black", ls="--", marker="s", lw=2) if pd.isna(a)
              else dict(color=cmap(0.9 * alphas.index(a) / max(len(alphas) - 1, 1)), marker="o", lw=1.5))
        ok = g[(g["status"] == "ok") & g["cpu"].notna()].sort_values("cpu")
        label = "NSN (capped law, e = 0)" if s == "NSN" else f"explicit Newmark + {s}"
        for ax, key in zip(axs, ("eta_u", "eta_v")):
            ax.plot(ok["cpu"], ok[key], label=label, **kw)
            for _, r in ok.iterrows():
                ax.annotate(f"{r['dt_over_dt_c']:.2g}", (r["cpu"], r[key]), textcoords="offset points",
                            xytext=(4, 4), fontsize=7.5, color=kw["color"])
        for _, r in g.iterrows():
            per = r["cpu"] / r["steps"] * 1e6 if r["steps"] and r["steps"] > 0 else math.nan
            err = (f"{r['eta_u']:.3g} | {r['eta_v']:.3g}" if r["status"] == "ok" else "- | -")
            lines.append(f"| {s} | {r['dt_over_dt_c']:.3g} | {r['status']} | {err} | {r['cpu']:.3g} | "
                         f"{per:.3g} | {r['drift']:.2g} |")
    titles = ("(a) contact-node displacement after rebound", "(b) contact-node velocity after rebound")
    ylabels = ("relative L1 error of u", "relative L1 error of v")
    for ax, t, yl in zip(axs, titles, ylabels):
        ax.set(xscale="log", yscale="log", xlabel="CPU time of the time loop [s]", ylabel=yl, title=t)
        ax.margins(x=0.08)
    failed = d[d["status"] != "ok"]
    if len(failed):  # no error to draw: named in the legend
        stopped = "; ".join(f"{s} at {', '.join(f'{x:.2g}' for x in g['dt_over_dt_c'])}"
                            for s, g in failed.groupby("scheme", sort=False))
        axs[1].plot([], [], " ", label=f"not drawn, stopped (exit 3):\n{stopped}")
    axs[1].legend(loc="center left", bbox_to_anchor=(1.02, 0.5), title="labels: Δt / Δt_c of each scheme")
    run = _first_case(c)
    fig.suptitle(f"Damaged bar, {int(_need(run, 'model.elements'))} elements, "
                 f"{int(_need(run, 'fracture.initial.count'))} damaged interfaces: cost at equal accuracy "
                 "(paper Fig. 9)")
    ok = d[d["status"] == "ok"]
    for key in ("eta_u", "eta_v"):
        nsn = ok[ok["scheme"] == "NSN"][key]
        if nsn.empty:
            continue
        target = float(nsn.max())  # NSN's largest error: every NSN run reaches it
        ch = cheapest_at_error(d, key, target)
        best = ", ".join(f"{r.scheme} {r.cpu:.3g} s (Δt/Δt_c {r.dt_over_dt_c:.2g})" if pd.notna(r.cpu)
                         else f"{r.scheme} never" for r in ch.itertuples())
        lines.append(f"cheapest at {key} <= {target:.3g} (NSN's largest): {best}")
        for s, g in ok[ok["scheme"] != "NSN"].groupby("scheme", sort=False):  # at each penalty's best accuracy
            r = g.loc[g[key].idxmin()]
            n = cheapest_at_error(d[d["scheme"] == "NSN"], key, float(r[key]))
            nsn_cpu = n["cpu"].iloc[0] if len(n) else math.nan
            lines.append(f"  {s} at its smallest {key} {r[key]:.3g} (Δt/Δt_c {r['dt_over_dt_c']:.2g}): {r['cpu']:.3g} s; "
                         + (f"the cheapest NSN run at or below it: {nsn_cpu:.3g} s ({nsn_cpu / r['cpu']:.2g}x), "
                            f"{key} {n['error'].iloc[0]:.3g}" if pd.notna(nsn_cpu) else "no NSN run reaches it"))
    lines.append(f"wrote {_save(fig, ctx, 'damaged_bar_cost')}")
    return "\n".join(lines)


def r_alpha(run: Run) -> float:
    v = run.case_value("contact.force.alpha")
    return float(v) if isinstance(v, (int, float)) else math.nan


# --------------------------------------------------------------------------- Figs. 4-7 (ball and bar)

SCHEMES = {"nsn": "NSN", "moreau_jean": "Moreau–Jean", "cd_lagrange": "CD-Lagrange",
           "explicit_newmark": "explicit Newmark"}
SCHEME_STYLE = {"nsn": dict(color="#1f77b4", marker="o", mfc="none", ms=7, ls="-"),
                "moreau_jean": dict(color="#d62728", marker="s", ms=3.5, ls="--"),
                "cd_lagrange": dict(color="#2ca02c", marker="^", ms=4, ls="-.")}


def _paper_campaign(ctx: Context, key: str, case: str, jobs: int = 2) -> Campaign:
    """A campaign of cases/paper run once per command (or --input KEY=DIR)."""
    cache = getattr(ctx, "_campaigns", None)
    if cache is None:
        cache = ctx._campaigns = {}  # type: ignore[attr-defined]
    if key not in cache:
        cache[key] = _campaign_input(ctx, key, case, jobs=jobs)
    return cache[key]


def _where(c: Campaign, **eq) -> pd.DataFrame:
    ok = c.ok
    for k, v in eq.items():
        ok = ok[np.isclose(ok[k.replace("__", ".")].astype(float), v)] if isinstance(v, (int, float)) \
            else ok[ok[k.replace("__", ".")] == v]
    return ok


def _ball_history(ctx: Context, name: str, e: float) -> str:
    c = _paper_campaign(ctx, "ball_history", "cases/paper/ball_history.yaml")
    rows = _where(c, contact__impact__restitution=e)
    _style()
    fig, (a, b) = plt.subplots(2, 1, figsize=(10, 6.6), sharex=True, constrained_layout=True,
                               gridspec_kw={"height_ratios": [2, 1.2]})
    lines = ["| scheme | steps | η (relative L1 error of u) |", "|---|---|---|"]
    ref_drawn = False
    for _, row in rows.iterrows():
        r = c.run(int(row["index"]))
        h = r.table("history", usecols=["t", "u", "u_ref"])
        sch = row["integrator.plugin"]
        st = SCHEME_STYLE.get(sch, {})
        if not ref_drawn:
            a.plot(h["t"], h["u_ref"], color="black", lw=2.2, label="analytic solution", zorder=1)
            ref_drawn = True
        a.plot(h["t"], h["u"], color=st.get("color"), ls=st.get("ls", "-"), lw=1.3, label=SCHEMES.get(sch, sch))
        b.plot(h["t"], h["u"] - h["u_ref"], color=st.get("color"), ls=st.get("ls", "-"), lw=1.2,
               label=SCHEMES.get(sch, sch))
        lines.append(f"| {SCHEMES.get(sch, sch)} | {r.value('steps')} | {r.value('reference.eta'):.3g} |")
    a.set(ylabel="height u [m]", title=f"(a) ball height, e = {e:g}")
    a.legend(loc="upper right")
    b.set(xlabel="time t [s]", ylabel="u − u_analytic [m]", title="(b) error against the analytic solution")
    b.axhline(0, color="black", lw=0.8)
    run = c.run(int(rows["index"].iloc[0]))
    fig.suptitle(f"Bouncing ball, e = {e:g}, Δt = {_need(run, 'time.dt'):g} s (paper Fig. 4)")
    lines.append(f"wrote {_save(fig, ctx, name)}")
    return "\n".join(lines)


@_figure("ball_history_e1", "Fig. 4: ball height of NSN, Moreau–Jean and CD-Lagrange against the analytic "
         "solution, and the error, e = 1", cost="a second: cases/paper/ball_history.yaml (6 runs)")
def ball_history_e1(ctx: Context) -> str:
    return _ball_history(ctx, "ball_history_e1", 1.0)


@_figure("ball_history_e08", "Fig. 4: the same at e = 0.8 (Zeno accumulation and rest)",
         cost="a second: cases/paper/ball_history.yaml (6 runs)")
def ball_history_e08(ctx: Context) -> str:
    return _ball_history(ctx, "ball_history_e08", 0.8)


def _bar_scales(run: Run):
    L, E, rho = _need(run, "model.length"), _need(run, "model.young"), _need(run, "model.density")
    A, v0 = _need(run, "model.area"), abs(_need(run, "model.initial.velocity"))
    c = math.sqrt(E / rho)
    return {"t_b": 2 * L / c, "L": L, "v0": v0, "F0": rho * c * v0 * A}


def _bar_history(ctx: Context, name: str, e: float, what: str) -> str:
    c = _paper_campaign(ctx, "bar_history", "cases/paper/bar_history.yaml")
    rows = _where(c, contact__impact__restitution=e)
    col, ref = {"u": ("u_contact", "u_ref"), "v": ("v_contact", "v_ref"), "force": ("force_contact", "force_ref")}[what]
    _style()
    fig, axs = plt.subplots(len(rows), 1, figsize=(10, 2.3 * len(rows) + 1), sharex=True, sharey=True,
                            constrained_layout=True)
    axs = np.atleast_1d(axs)
    lines = ["| scheme | contact duration / t_b | mean force / F0 | rebound velocity / v0 |", "|---|---|---|---|"]
    chatter = False
    for ax, (_, row) in zip(axs, rows.iterrows()):
        r = c.run(int(row["index"]))
        k = _bar_scales(r)
        scale = {"u": k["L"], "v": k["v0"], "force": k["F0"]}[what]
        h = r.table("history", usecols=["t", col, ref])
        t = h["t"] / k["t_b"]
        y, yr = h[col] / scale, h[ref] / scale
        sch = row["integrator.plugin"]
        st = SCHEME_STYLE.get(sch, {})
        # chatter: the contact node alternates from one step to the next; draw the
        # raw signal light and its running mean over 6 steps (whole periods of 2 and 3 steps) bold
        jumps = float(np.abs(np.diff(y.to_numpy())).max(initial=0))
        if e > 0 and what != "u" and jumps > 0.5:
            chatter = True
            ax.plot(t, y, color=st.get("color"), lw=0.5, alpha=0.35, label=f"{SCHEMES.get(sch, sch)}, every step")
            ax.plot(t, y.rolling(6, center=True, min_periods=1).mean(), color=st.get("color"), lw=1.8,
                    label=f"{SCHEMES.get(sch, sch)}, mean over 6 steps")
        else:
            ax.plot(t, y, color=st.get("color"), lw=1.5, label=SCHEMES.get(sch, sch))
        ax.plot(t, yr, color="black", lw=1.2, ls="--", dashes=(5, 3), label="1D wave solution")
        ax.legend(loc="upper left", ncol=3)
        if what == "v":  # the release, enlarged (the paper's insets)
            t_rel = 1.0 + _need(r, "model.walls.left.gap") / k["v0"] / k["t_b"]
            ins = ax.inset_axes([0.6, 0.05, 0.38, 0.42])
            sel = (t > t_rel - 0.08) & (t < t_rel + 0.25)
            ins.plot(t[sel], y[sel], color=st.get("color"), lw=1.0, marker=".", ms=2.5)
            ins.plot(t[sel], yr[sel], color="black", lw=1.0, dashes=(5, 3))
            ins.set_title("release, enlarged", fontsize=8)
            ins.tick_params(labelsize=7)
        ax.set_ylabel({"u": "u / L", "v": "v / v₀", "force": "F / F₀"}[what])
        lines.append(f"| {SCHEMES.get(sch, sch)} | {r.value('reference.contact_duration') / k['t_b']:.4f} | "
                     f"{r.value('reference.mean_force') / k['F0']:.4f} | "
                     f"{r.value('reference.rebound_velocity') / k['v0']:.4f} |")
    axs[-1].set_xlabel("time t / t_b (t_b = 2L/c, the exact contact duration)")
    what_w = {"u": "displacement u / L", "v": "velocity v / v₀", "force": "contact force F / F₀"}[what]
    if what == "force":
        axs[-1].set_xlim(0, 2)  # the contact and its ends; zero force elsewhere
    fig.suptitle(f"Impacting bar, e = {e:g}: {what_w} of the contact node (paper Fig. 6)"
                 + ("\nthe node chatters on the wall from step to step: light, every step; bold, the mean over 6 steps"
                    if chatter else ""))
    lines.append(f"wrote {_save(fig, ctx, name)}")
    return "\n".join(lines)


for _e, _es in ((0.0, "e0"), (1.0, "e1")):
    for _w, _ww in (("u", "u"), ("v", "v"), ("force", "force")):
        def _make(ctx: Context, _e=_e, _es=_es, _w=_w, _ww=_ww) -> str:
            return _bar_history(ctx, f"bar_history_{_ww}_{_es}", _e, _w)
        _make.__name__ = f"bar_history_{_ww}_{_es}"
        _make.__doc__ = f"Fig. 6: {_w} of the contact node, e = {_e:g}, one panel per scheme."
        globals()[_make.__name__] = _make
        _figure(_make.__name__, f"Fig. 6: contact-node {_w} against the 1D wave solution, e = {_e:g}, one panel "
                "per scheme", cost="a second: cases/paper/bar_history.yaml (6 runs)")(_make)


def _convergence(ctx: Context, name: str, c: Campaign, e: float, ycol: str, ylabel: str, fine: float,
                 guides: Sequence[float], title: str) -> str:
    """Error against the time step per scheme, log-log, with the least-squares slopes
    over every step and over the steps <= fine, and slope guides of distinct dashes
    through the middle of the data."""
    rows = _where(c, contact__impact__restitution=e)
    rows = rows[rows[ycol].notna() & (rows[ycol] > 0)]
    _style()
    fig, ax = plt.subplots(figsize=(8.6, 5.6), constrained_layout=True)
    lines = [f"| e | scheme | slope, all Δt (points) | slope, Δt ≤ {fine:g} s (points) |", "|---|---|---|---|"]
    for sch in [k for k in SCHEME_STYLE if k in set(rows["integrator.plugin"])]:
        g = rows[rows["integrator.plugin"] == sch].sort_values("time.dt")
        fa = power_law_fit(g["time.dt"], g[ycol])
        gf = g[g["time.dt"] <= fine * (1 + 1e-9)]
        ff = power_law_fit(gf["time.dt"], gf[ycol]) if gf["time.dt"].nunique() >= 2 else None
        st = dict(SCHEME_STYLE[sch])
        ax.plot(g["time.dt"], g[ycol], lw=1.0, label=f"{SCHEMES[sch]}: slope {fa.exponent:.2f}"
                + (f" (Δt ≤ {fine:g} s: {ff.exponent:.2f})" if ff else ""), **st)
        lines.append(f"| {e:g} | {SCHEMES[sch]} | {fa.exponent:.2f} ({fa.n}) | "
                     f"{(f'{ff.exponent:.2f} ({ff.n})') if ff else '-'} |")
    x = rows["time.dt"].astype(float)
    xx = np.geomspace(x.min(), x.max(), 20)
    xm = math.sqrt(x.min() * x.max())
    ym = math.exp(np.log(rows[ycol].astype(float)).mean())
    for slope, dash in zip(guides, [(1, 2), (8, 3), (4, 2, 1, 2)]):
        ax.plot(xx, ym * (xx / xm) ** slope, color="gray", lw=1.2, dashes=dash,
                label=f"slope {'½' if slope == 0.5 else f'{slope:g}'} (guide)")
    ax.set(xscale="log", yscale="log", xlabel="time step Δt [s]", ylabel=ylabel, title=title)
    ax.legend(loc="lower right")
    lines.append(f"wrote {_save(fig, ctx, name)}")
    return "\n".join(lines)


for _e, _es in ((1.0, "e1"), (0.8, "e08")):
    def _make(ctx: Context, _e=_e, _es=_es) -> str:
        c = _paper_campaign(ctx, "ball_convergence", "cases/paper/ball_convergence.yaml")
        return _convergence(ctx, f"ball_convergence_{_es}", c, _e, "reference.eta",
                            "η = Σ|u − u_analytic| / Σ|u_analytic| (relative L1 error of u)", 1e-3, [1.0],
                            f"Bouncing ball, e = {_e:g}: error against the time step (paper Fig. 5)\n"
                            "paper: slope ≈ 1 for all three, Moreau–Jean ≈ NSN, below CD-Lagrange")
    _make.__name__ = f"ball_convergence_{_es}"
    globals()[_make.__name__] = _make
    _figure(_make.__name__, f"Fig. 5: ball error against Δt, three schemes, e = {_e:g}, fitted slopes",
            cost="half a minute: cases/paper/ball_convergence.yaml (300 runs)")(_make)

for _e, _es in ((0.0, "e0"), (1.0, "e1")):
    for _w in ("u", "v"):
        def _make(ctx: Context, _e=_e, _es=_es, _w=_w) -> str:
            c = _paper_campaign(ctx, "bar_convergence", "cases/paper/bar_convergence.yaml")
            word = "displacement" if _w == "u" else "velocity"
            return _convergence(ctx, f"bar_convergence_{_w}_{_es}", c, _e, f"reference.eta_{_w}",
                                f"η_{_w}: relative L1 error of the contact-node {word} after rebound", 1e-6,
                                [1.0, 0.5], f"Impacting bar, e = {_e:g}: {word} error against Δt = 0.999 h/c "
                                "(paper Fig. 7)")
        _make.__name__ = f"bar_convergence_{_w}_{_es}"
        globals()[_make.__name__] = _make
        _figure(_make.__name__, f"Fig. 7: bar contact-node {_w} error against Δt (= 0.999 h/c), e = {_e:g}, "
                "fitted slopes, guides of slope 1 and ½",
                cost="about a minute with -j 2: cases/paper/bar_convergence.yaml (264 runs, up to 5000 elements)")(_make)


@_figure("bar_dispersion_v_nsn", "Fig. 7, why: NSN's velocity error against the mesh at three Courant numbers",
         cost="about 35 s with -j 2: cases/paper/bar_dispersion.yaml (42 runs)")
def bar_dispersion_v_nsn(ctx: Context) -> str:
    c = _paper_campaign(ctx, "bar_dispersion", "cases/paper/bar_dispersion.yaml")
    rows = _where(c, integrator__plugin="nsn")
    rows = rows[rows["reference.eta_v"].notna()]
    _style()
    fig, ax = plt.subplots(figsize=(8.6, 5.4), constrained_layout=True)
    lines = ["| Δt | meshes | η_v ~ N_e^... |", "|---|---|---|"]
    styles = [dict(marker="o", ls="-"), dict(marker="s", ls="--"), dict(marker="^", ls="-.")]
    for st, (dt, g) in zip(styles * 3, rows.groupby("time.dt", sort=True)):
        g = g.sort_values("model.elements")
        f = power_law_fit(g["model.elements"], g["reference.eta_v"])
        label = str(dt).replace(" * h_min / c", " h/c").replace("*", "×")
        ax.plot(g["model.elements"], g["reference.eta_v"], ms=5, lw=1.3,
                label=f"Δt = {label}: slope {f.exponent:.2f} ± {f.exponent_ci95:.2f}", **st)
        lines.append(f"| {label} | {f.n} | {f} |")
    n = rows["model.elements"].astype(float)
    xx = np.geomspace(n.min(), n.max(), 20)
    ym = math.exp(np.log(rows["reference.eta_v"].astype(float)).mean())
    xm = math.sqrt(n.min() * n.max())
    ax.plot(xx, ym * (xx / xm) ** -1.0, color="gray", lw=1.2, dashes=(1, 2), label="slope −1 (guide)")
    ax.set(xscale="log", yscale="log", xlabel="elements N_e", ylabel="η_v: relative L1 error of the contact-node velocity",
           title="Impacting bar, e = 0, NSN: velocity error against the mesh, per time step")
    ax.legend(loc="lower left")
    lines.append(f"wrote {_save(fig, ctx, 'bar_dispersion_v_nsn')}")
    return "\n".join(lines)


@_figure("readme", "the README figure: the e = 0.8 ball (NSN, CD-Lagrange, analytic) and the damaged bar's contact "
         "node and energy balance under NSN", cost="about 20 s: ball_e08.yaml twice and damaged_bar.yaml")
def readme(ctx: Context) -> str:
    nsn = _run_input(ctx, "ball_nsn", "cases/paper/ball_e08.yaml", {})
    cdl = _run_input(ctx, "ball_cdl", "cases/paper/ball_e08.yaml", {"integrator.plugin": "cd_lagrange"})
    bar = _run_input(ctx, "damaged_bar", "cases/paper/damaged_bar.yaml", {"output.every": 20})
    _style()
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.8), constrained_layout=True)
    h = nsn.table("history", usecols=["t", "u", "u_ref"])
    hc = cdl.table("history", usecols=["t", "u"])
    a.plot(h["t"], h["u_ref"], color="#bbbbbb", lw=3.5, label="analytic (rest at the Zeno time)")
    a.plot(h["t"], h["u"], color="#1f77b4", lw=1.5, label="NSN")
    a.plot(hc["t"], hc["u"], color="#d62728", lw=1.1, dashes=(4, 2), label="CD-Lagrange")
    a.set(xlabel="time t [s]", ylabel="height u [m]",
          title=f"Bouncing ball, e = {nsn.case_value('contact.impact.restitution'):g}, Δt = {_need(nsn, 'time.dt'):g} s")
    a.legend(loc="upper right")
    hb = bar.table("history", usecols=["t", "u_contact", "u_ref", "balance_drift"])
    b.plot(hb["t"] * 1e6, hb["u_contact"] * 1e9, color="#1f77b4", lw=2, label="contact node, NSN")
    b.plot(hb["t"] * 1e6, hb["u_ref"] * 1e9, color="#777777", lw=1.3, dashes=(5, 3), label="1D wave solution")
    b.set(xlabel="time t [µs]", ylabel="contact-node displacement u [nm]")
    b2 = b.twinx()
    b2.plot(hb["t"] * 1e6, hb["balance_drift"].abs().where(hb["balance_drift"] != 0), color="#2ca02c", lw=1,
            label="|energy balance drift| (right axis)")
    b2.set(yscale="log", ylabel=r"$|\mathcal{H} + C_{dis} + G - W_{ext}|$ / largest energy")
    b2.grid(False)
    h1, l1 = b.get_legend_handles_labels()
    h2, l2 = b2.get_legend_handles_labels()
    b.legend(h1 + h2, l1 + l2, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3)
    b.set_title(f"Damaged bar, {int(_need(bar, 'model.elements'))} elements, "
                f"{int(_need(bar, 'fracture.initial.count'))} damaged interfaces, NSN at "
                f"{bar.value('time.dt_over_dt_c'):.2g} Δt_c")
    lines = [f"ball: NSN η = {nsn.value('reference.eta'):.3g}, CD-Lagrange η = {cdl.value('reference.eta'):.3g}; "
             f"damaged bar: largest drift {bar.value('energy.max_balance_drift'):.2e}",
             f"wrote {_save(fig, ctx, 'readme')}"]
    return "\n".join(lines)


def read_spacetime(path) -> tuple:
    """A run's spacetime_stress.dat or spacetime_damage.dat (a gnuplot nonuniform
    matrix: first row the column count then x [m]; each further row t [s] then the
    values): (x, t, values[t, x])."""
    path = Path(path)
    try:
        rows = [np.array(line.split(), dtype=float) for line in path.read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    except (OSError, ValueError) as e:
        raise ShardDataError(f"{path}: not a space-time matrix: {e}") from e
    if len(rows) < 2:
        raise ShardDataError(f"{path}: no rows")
    x = rows[0][1:]
    body = np.vstack([r for r in rows[1:] if r.size == x.size + 1])
    return x, body[:, 0], body[:, 1:]


@_figure("free_ring_spacetime", "Fig. 10-like: stress and damage over space and time, free expanding bar, ε̂ = 1, "
         "first 1.5 µs", cost="about 45 s: cases/paper/free_ring_case.yaml with output.spacetime")
def free_ring_spacetime(ctx: Context) -> str:
    run = _run_input(ctx, "free_ring_case", "cases/paper/free_ring_case.yaml", {"output.spacetime": True})
    x, t, stress = read_spacetime(run.path / "spacetime_stress.dat")
    _, td, damage = read_spacetime(run.path / "spacetime_damage.dat")
    keep = t <= 1.5e-6 * (1 + 1e-9)
    _style()
    fig, (a, b) = plt.subplots(1, 2, figsize=(13, 5.4), constrained_layout=True, sharey=True)
    lim = float(np.nanpercentile(np.abs(stress[keep]), 99.5)) / 1e6
    m = a.pcolormesh(x * 1e3, t[keep] * 1e6, stress[keep] / 1e6, cmap="RdBu_r", vmin=-lim, vmax=lim, shading="nearest",
                     rasterized=True)
    fig.colorbar(m, ax=a, label="stress σ [MPa] (clipped at the 99.5th percentile of |σ|)")
    kd = td <= 1.5e-6 * (1 + 1e-9)
    m2 = b.pcolormesh(x * 1e3, td[kd] * 1e6, damage[kd], cmap="YlOrRd", vmin=0, vmax=1, shading="nearest",
                      rasterized=True)
    fig.colorbar(m2, ax=b, label="damage δ_max / δ_c (1: a crack)")
    a.set(xlabel="position x [mm]", ylabel="time t [µs]", title="(a) stress")
    b.set(xlabel="position x [mm]", title="(b) damage of the cohesive interfaces")
    for ax in (a, b):
        ax.grid(False)
    fig.suptitle(f"Free expanding bar, L = {_need(run, 'model.length') * 1e3:g} mm, {int(_need(run, 'model.elements'))} "
                 f"elements, ε̇ = {_need(run, 'model.initial.strain_rate'):g} /s: the first 1.5 µs "
                 f"({run.value('fracture.fragments')} fragments at the end of the run)")
    lines = [f"fragments {run.value('fracture.fragments')}, settled at {run.value('stop_time', math.nan) * 1e6:.2f} µs, "
             f"largest drift {run.value('energy.max_balance_drift'):.2e}", f"wrote {_save(fig, ctx, 'free_ring_spacetime')}"]
    return "\n".join(lines)


def confined_box_table(c: Campaign) -> pd.DataFrame:
    """Per box size α_box: runs, the seeds' N_f, mean ± 95% of N_f, 𝒢 and Ĝ/N_f."""
    ok = _ok(c, ["var.alpha_box", "fracture.fragments", "fracture.dissipation", "fracture.g_hat_per_fragment"])
    rows = []
    for a, g in ok.groupby("var.alpha_box", sort=True):
        rows.append({"alpha_box": float(a), "runs": len(g), "n_f_runs": list(g["fracture.fragments"].astype(int)),
                     "n_f": mean_ci(g["fracture.fragments"]), "g": mean_ci(g["fracture.dissipation"]),
                     "g_hat": mean_ci(g["fracture.g_hat_per_fragment"])})
    return pd.DataFrame(rows)


@_figure("confined_box_fragments", "box-size study: N_f and Ĝ/N_f against α_box on the paper's confined bar, "
         "3 seeds (--input confined_box=DIR)",
         cost="hours (1.9 core-hours in docs/reproduction.md): cases/paper/confined_box.yaml, 15 runs of the 5 mm bar")
def confined_box_fragments(ctx: Context) -> str:
    c = _campaign_input(ctx, "confined_box", "cases/paper/confined_box.yaml")
    t = confined_box_table(c)
    ok = c.ok
    _style()
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.8), constrained_layout=True)
    seeds = sorted(ok["fracture.strength.seed"].unique()) if "fracture.strength.seed" in ok else []
    for i, sd in enumerate(seeds):
        g = ok[ok["fracture.strength.seed"] == sd].sort_values("var.alpha_box")
        for ax, key in ((a, "fracture.fragments"), (b, "fracture.g_hat_per_fragment")):
            ax.plot(g["var.alpha_box"], g[key], marker="os^dv"[i % 5], ms=4, mfc="none", lw=0.8, color="#9e9e9e",
                    label=f"seed {int(sd)}")
    for ax, key in ((a, "n_f"), (b, "g_hat")):
        ax.errorbar(t["alpha_box"], [m.mean for m in t[key]], yerr=[m.ci95 for m in t[key]], fmt="o-",
                    color="#08519c", lw=2, capsize=3, label="seed mean ± 95%")
        ax.axvline(100, color="black", lw=1, dashes=(6, 3), label="the paper's studies: α_box = 100")
        ax.set(xscale="log", xlabel="box size α_box (walls at α_box × the release opening)")
        ax.legend(loc="best")
    a.set(ylabel="number of fragments N_f", title="(a) fragments")
    b.set(ylabel=r"$\hat{G}/N_f = \mathcal{G}\,/\,(N_f\, G_c A)$", title="(b) fracture energy per fragment")
    run = _first_case(c)
    fig.suptitle(f"Confined bar, {_need(run, 'model.length') * 1e3:g} mm, {int(_need(run, 'model.elements'))} elements, "
                 "e = 1: against the box size")
    lines = ["| α_box | runs | N_f (seeds) | mean N_f | 𝒢 [J] | Ĝ/N_f |", "|---|---|---|---|---|---|"]
    for _, r in t.iterrows():
        lines.append(f"| {r['alpha_box']:g} | {r['runs']} | {' / '.join(map(str, r['n_f_runs']))} | {r['n_f'].mean:.1f} | "
                     f"{_fmt_ci(r['g'])} | {_fmt_ci(r['g_hat'])} |")
    lines.append(f"wrote {_save(fig, ctx, 'confined_box_fragments')}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- command line

def _source_tree() -> Optional[Path]:
    root = Path(__file__).resolve().parents[2]
    return root if (root / "cases").is_dir() and (root / "results").is_dir() else None


def restitution_traces_table(c: Campaign, times_us: Sequence[float] = (5, 7, 8, 10, 12, 16.7, 25)):
    """Seed means of N_f and of the fracture and contact dissipation [J] per e
    on a time grid (every run held at its last row after it stopped), from the
    runs' histories: (grid [s], {e: {column: array[seed, time]}}, Markdown lines)."""
    cols = ["t", "fragments", "fracture_dissipation", "contact_dissipation"]
    h = c.histories(cols, params=("contact.impact.restitution", "fracture.strength.seed"))
    grid = np.linspace(0.0, float(h["t"].max()), 400)
    grid = np.union1d(grid, np.asarray(times_us, dtype=float) * 1e-6)
    traces: Dict[float, Dict[str, np.ndarray]] = {}
    for e, g in h.groupby("contact.impact.restitution"):
        per = {k: [] for k in cols[1:]}
        for _, r in g.groupby("run"):
            r = r.sort_values("t")
            at = np.searchsorted(r["t"].to_numpy(), grid, side="right") - 1  # last row at or before
            for k in per:
                per[k].append(r[k].to_numpy(dtype=float)[np.clip(at, 0, None)])
        traces[float(e)] = {k: np.array(v) for k, v in per.items()}
    head = " | ".join(f"{t:g} µs" for t in times_us)
    lines = [f"| e | runs | N_f at {head} |", "|---|---|" + "---|" * len(times_us)]
    idx = [int(np.argmin(np.abs(grid - t * 1e-6))) for t in times_us]
    for e, tr in traces.items():
        lines.append(f"| {e:g} | {tr['fragments'].shape[0]} | " +
                     " | ".join(f"{tr['fragments'][:, i].mean():.1f}" for i in idx) + " |")
    lines += ["", f"| e | fracture dissipation [J] at {head} |", "|---|" + "---|" * len(times_us)]
    for e, tr in traces.items():
        lines.append(f"| {e:g} | " + " | ".join(f"{tr['fracture_dissipation'][:, i].mean():.0f}" for i in idx) + " |")
    return grid, traces, lines


@_figure("restitution_traces", "Fig. 14a: N_f, fracture and contact dissipation against time at every e, seed means "
         "(results/restitution histories)")
def restitution_traces(ctx: Context) -> str:
    c = load_campaign(ctx.stored("restitution"))
    grid, traces, lines = restitution_traces_table(c)
    _style()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8), constrained_layout=True)
    cmap = plt.get_cmap("viridis")
    es = sorted(traces)
    for i, e in enumerate(es):
        col = cmap(i / max(len(es) - 1, 1))
        tr = traces[e]
        n = tr["fragments"].shape[0]
        axes[0].plot(grid * 1e6, tr["fragments"].mean(axis=0), color=col, label=f"e = {e:g} ({n} seeds)")
        axes[1].plot(grid * 1e6, tr["fracture_dissipation"].mean(axis=0) / 1e3, color=col)
        axes[2].plot(grid * 1e6, tr["contact_dissipation"].mean(axis=0) / 1e3, color=col)
    for ax, lab in zip(axes, ("fragments N_f", "fracture dissipation [kJ]", "contact dissipation [kJ]")):
        ax.set_xlabel("time [µs]")
        ax.set_ylabel(lab)
        ax.set_ylim(0, None)
    axes[0].legend(loc="lower right", fontsize=8)
    axes[0].set_title("fragments")
    axes[1].set_title("fracture dissipation (per m² of section)")
    axes[2].set_title("contact dissipation (per m² of section)")
    run = _first_case(c)
    fig.suptitle(f"Confined bar, {_need(run, 'model.length') * 1e3:g} mm, {int(_need(run, 'model.elements'))} elements "
                 "(paper Fig. 14a): seed means over time, each run held at its last value after it settled")
    lines.append(f"wrote {_save(fig, ctx, 'restitution_traces')}")
    return "\n".join(lines)


def lowpass_table(d: pd.DataFrame) -> List[str]:
    """The low-pass test's run table (results/lowpass/runs.csv) as Markdown: per
    e the seed means with 95% intervals, then e = 0 minus e = 1 paired by seed."""
    cols = [("fragments_start", "N_f at the window's start", "{:.1f}"), ("fragments_end", "N_f at its end", "{:.1f}"),
            ("pooled_high_share", "power share above f_c", "{:.3f}"),
            ("mean_high_share", "mean facet share above f_c", "{:.3f}"),
            ("excursions_per_facet", "excursions per facet", "{:.3f}"),
            ("excursion_mean", "mean excursion [ns]", "{:.2f}"), ("facets_broke", "probed facets broken in window", "{:.1f}")]
    scale = {"excursion_mean": 1e9}
    lines = ["| e | runs | " + " | ".join(c[1] for c in cols) + " |", "|---" * (len(cols) + 2) + "|"]
    for e, g in d.groupby("e"):
        cells = []
        for key, _, fmt in cols:
            m = mean_ci(g[key] * scale.get(key, 1.0))
            cells.append((fmt + " ± " + fmt).format(m.mean, m.ci95) if len(g) > 1 else fmt.format(m.mean))
        lines.append(f"| {e:g} | {len(g)} | " + " | ".join(cells) + " |")
    a = d[d["e"] == 0].set_index("seed")
    b = d[d["e"] == 1].set_index("seed")
    seeds = sorted(set(a.index) & set(b.index))
    if len(seeds) > 1:
        cells = []
        for key, _, fmt in cols:
            diff = paired_difference(a.loc[seeds, key] * scale.get(key, 1.0), b.loc[seeds, key] * scale.get(key, 1.0))
            cells.append((fmt + " ± " + fmt).format(diff.mean, diff.ci95))
        lines.append(f"| 0 − 1, paired | {len(seeds)} | " + " | ".join(cells) + " |")
    return lines


@_figure("lowpass_spectra", "the low-pass-filter test: pooled stress spectra of the facets, e = 0 against e = 1, "
         "7-10 µs on the paper's confined bar (results/lowpass)")
def lowpass_spectra(ctx: Context) -> str:
    if ctx.results is None:
        raise ShardDataError("no results directory: pass --results DIR (the repository's results/)")
    base = ctx.results / "lowpass"
    try:
        runs = pd.read_csv(base / "runs.csv")
        spectra = pd.read_csv(base / "spectra.csv")
    except OSError as e:
        raise ShardDataError(f"{base}: cannot read the low-pass test's tables ({e})") from None
    f_cut = float(runs["f_cut"].iloc[0])
    _style()
    fig, (a, b) = plt.subplots(1, 2, figsize=(12.5, 4.8), constrained_layout=True)
    colors = {0.0: "#cb181d", 1.0: "#2171b5"}
    df = np.diff(np.sort(spectra["f"].unique()))[0]  # the resolution: log bins from 20 of it, each >= 2 wide
    edges = np.geomspace(max(spectra["f"].min(), 20 * df), spectra["f"].max() * 1.0001, 40)
    for e, g in spectra.groupby("e"):
        per_seed = []
        for seed, h in g.groupby("seed"):
            h = h[h["f"] >= edges[0]]
            idx = np.digitize(h["f"], edges) - 1
            share = np.bincount(idx, weights=h["share"], minlength=len(edges) - 1)[:len(edges) - 1]
            dens = share / np.diff(edges) * 1e6  # share per MHz
            per_seed.append(dens)
            a.loglog(np.sqrt(edges[:-1] * edges[1:]) / 1e6, np.where(dens > 0, dens, np.nan), color=colors.get(e, "k"),
                     lw=0.7, alpha=0.4)
        mean = np.mean(per_seed, axis=0)
        a.loglog(np.sqrt(edges[:-1] * edges[1:]) / 1e6, np.where(mean > 0, mean, np.nan), color=colors.get(e, "k"), lw=2,
                 label=f"e = {e:g}: mean of {len(per_seed)} seeds (thin: each seed)")
        # share of the power above f, per run
        for seed, h in g.groupby("seed"):
            above = 1.0 - np.cumsum(h["share"].to_numpy())
            b.semilogx(h["f"] / 1e6, above, color=colors.get(e, "k"), lw=1, alpha=0.8,
                       label=f"e = {e:g}" if seed == g["seed"].min() else None)
    for ax in (a, b):
        ax.axvline(f_cut / 1e6, color="black", dashes=(5, 3), lw=1, label=f"c/(2 s̄) = {f_cut / 1e6:.0f} MHz")
        ax.set_xlabel("frequency [MHz]")
    a.set_ylabel("share of the pooled stress power per MHz")
    a.set_title("pooled spectrum of the facets' stress over the probe window")
    b.set_ylabel("share of the power above f")
    b.set_title("cumulative: power above f, each run")
    a.legend(loc="lower left", fontsize=8)
    b.legend(loc="upper right", fontsize=8)
    fig.suptitle("Low-pass-filter test on the paper's confined bar (5 mm, 5000 elements): every 5th facet not broken "
                 "at 7 µs, 1 ns samples")
    lines = lowpass_table(runs)
    lines.append(f"wrote {_save(fig, ctx, 'lowpass_spectra')}")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    src = _source_tree()
    ap = argparse.ArgumentParser(prog="python3 -m shard.figures", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="figures to make (see --list); 'stored' makes every figure of the "
                    "stored campaigns")
    ap.add_argument("--list", action="store_true", help="list the figures and what each needs")
    ap.add_argument("--out", type=Path, default=(src / "docs" / "figures") if src else Path("."),
                    help="output directory (default: the source tree's docs/figures, else .)")
    ap.add_argument("--results", type=Path, default=(src / "results") if src else None,
                    help="the stored campaigns (default: the source tree's results/)")
    ap.add_argument("--source", type=Path, default=src, help="the source tree whose cases/ the simulations run")
    ap.add_argument("--work", type=Path, help="where simulations write (default: a new temporary directory)")
    ap.add_argument("--exe", help="the shard executable (default: $SHARD_EXE, else shard on the PATH)")
    ap.add_argument("--paper-size", action="store_true",
                    help="figures that simulate a reduced problem by default run the paper's size (hours)")
    ap.add_argument("--input", action="append", default=[], metavar="KEY=DIR",
                    help="use DIR for the input KEY of a figure instead of simulating it")
    a = ap.parse_args(argv)
    if a.list:
        for f in FIGURES.values():
            print(f"{f.name:20s} {f.summary}\n{'':20s} cost: {f.cost}")
        return 0
    names: List[str] = []
    for n in a.names:
        names += [f.name for f in FIGURES.values() if f.cost == "stored"] if n == "stored" else [n]
    if not names:
        ap.error("name a figure (see --list)")
    unknown = [n for n in names if n not in FIGURES]
    if unknown:
        ap.error(f"unknown figure {', '.join(unknown)} (known: {', '.join(FIGURES)})")
    inputs = {}
    for s in a.input:
        if "=" not in s:
            ap.error(f"--input {s}: expected KEY=DIR")
        k, v = s.split("=", 1)
        inputs[k] = Path(v)
    ctx = Context(out=a.out, results=a.results, work=a.work, exe=a.exe, inputs=inputs, source=a.source, paper_size=a.paper_size,
                  log=lambda m: print(m, file=sys.stderr))
    status = 0
    for n in names:
        t0 = time.monotonic()
        try:
            print(FIGURES[n].func(ctx))
            print(f"# {n}: {time.monotonic() - t0:.1f} s", file=sys.stderr)
        except (ShardDataError, cli.ShardError, FileNotFoundError) as e:
            print(f"shard.figures: {n}: {e}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
