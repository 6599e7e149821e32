#!/usr/bin/env python3
"""shard's NSN step against the same step written in NumPy, on the damaged bar
(cases/paper/damaged_bar.yaml: 2000 elements, 1000 interfaces at d0 = 1e-3,
5 m/s onto the wall, NSN at 0.99 dt_c, capped law, e = 0), in one sitting.

The NumPy step is docs/theory.md §2 as plugins/integrators/nsn/nsn.c does it:

    predictor u~ = u + dt v + dt^2/2 a; active set g(u~) <= 0;
    a* = M^-1 f(u~);  W' = H_A M^-1 (M - dt^2/4 K) M^-1 H_A^T,  q = H_A [(1+e) v + dt/2 (a + a*)];
    0 <= p _|_ W'p + q >= 0 (projected Gauss-Seidel);
    v^ = M^-1 H_A^T p,  a' = a* - dt/2 M^-1 K v^,  v' = v + dt/2 (a + a') + v^,  u' = u~ + dt/2 v^;
    then the cohesive history at u' (camacho_ortiz with the cap).

Every vector operation is vectorised (no Python loop over DOFs or contacts).
K is the bar's stiffness plus the secant springs of the interfaces. Two forms
of the step: (1) plain NumPy, K x and W' assembled per element with
np.bincount (each DOF is in one constraint row at most, so an element adds to
two diagonal entries of W' and one coupling); (2) with scipy (optional), K,
H_A and W' = B M B^T - dt^2/4 B K B^T as scipy.sparse products, B = H_A M^-1.
On a bar W' is tridiagonal in space order (an interface couples only to its
neighbours, through the element between them), so the Gauss-Seidel sweep is
done red-black: the even rows at once, then the odd rows, each a vectorised
projection. That is a Gauss-Seidel ordering of its own (shard's pgs sweeps the
rows in order), with the same fixed point; it sweeps until the largest change
of an impulse is below TOL times the largest impulse.

The mesh (node positions, the twin DOFs of the interfaces, their strengths)
is read from shard's own output: a field snapshot at t = 0 (fields/*.vtu,
whose points are the DOFs) and interfaces.csv. The script then

1. runs shard for CHECK steps writing every step, runs the NumPy step for the
   same steps, and reports the largest differences of the contact node's u
   and v, the kinetic energy and the number of active constraints (the
   comparison fails, exit 1, beyond the tolerances printed);
2. times them over STEPS steps: shard's loop CPU time (cpu_time.per_step of
   its summary, a run without history rows) and the NumPy loops' CPU time
   (time.process_time), per step.

usage: scripts/bench_numpy.py [--shard build/bin/shard] [--steps 5000] [--check 2000] [--tol 1e-13]
"""
from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

try:  # optional: the second form of the step, W' and K by sparse products
    import scipy.sparse as sp
except ImportError:  # pragma: no cover
    sp = None

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
from shard.io import read_vtu  # noqa: E402

CASE = ROOT / "cases/paper/damaged_bar.yaml"


def shard_run(exe: str, out: Path, steps_end: str, every: int, extra=()) -> dict:
    cmd = [exe, "run", str(CASE), "-o", str(out), "--no-progress", "--set", f"time.end={steps_end}",
           "--set", f"output.every={every}", "--set", "output.events=false", *extra]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return summary(out / "summary.yaml")


def summary(path: Path) -> dict:
    """The flat keys of a summary.yaml (two levels, as shard writes them)."""
    d, top = {}, None
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, _, val = line.strip().partition(":")
        val = val.strip()
        if line.startswith(" "):
            d[f"{top}.{key}"] = val
        elif val == "":
            top = key
        else:
            d[key] = val
    return d


class Bar:
    """The damaged bar of a shard run directory, as NumPy arrays and sparse matrices."""

    def __init__(self, run: Path):
        case = yaml.safe_load((run / "case.resolved.yaml").read_text())
        E, rho, A = (float(case["model"][k]) for k in ("young", "density", "area"))
        self.alpha_cap = float(case["fracture"]["cap"]["alpha"])
        self.d0 = float(case["fracture"]["initial"]["damage"])
        _, f = read_vtu(sorted((run / "fields").glob("*.vtu"))[0])
        X = f["X"]
        conn = f["connectivity"].reshape(-1, 2).astype(np.int64)
        self.n = n = X.size
        a, b = conn[:, 0], conn[:, 1]
        h = X[b] - X[a]
        self.nel = h.size
        k = E * A / h
        self.mass = np.zeros(n)
        np.add.at(self.mass, a, 0.5 * rho * A * h)
        np.add.at(self.mass, b, 0.5 * rho * A * h)
        self.minv = 1.0 / self.mass
        self.el_a, self.el_b, self.el_k = a, b, k
        # bulk stiffness: K += k (e_b - e_a)(e_b - e_a)^T per element
        rows = np.concatenate([a, a, b, b])
        cols = np.concatenate([a, b, a, b])
        vals = np.concatenate([k, -k, -k, k])
        self.kbulk = sp.csr_matrix((vals, (rows, cols)), shape=(n, n)) if sp else None
        self.A = A
        with open(run / "interfaces.csv") as fh:
            it = list(csv.DictReader(fh))
        nn = self.nel + 1
        self.if_node = np.array([int(r["node"]) for r in it])
        self.if_twin = nn + np.arange(len(it))
        self.sigma = np.array([float(r["sigma_c"]) for r in it])
        self.deltac = np.array([float(r["delta_c"]) for r in it])
        self.kmax = self.alpha_cap * E / (X[nn - 1] - X[0]) * self.nel  # alpha E / h_mean
        # constraints: the left wall (g = u_0 + gap) first, then the interfaces in node (space) order
        ni = len(it)
        hr = np.concatenate([[0], 1 + np.arange(ni), 1 + np.arange(ni)])
        hc = np.concatenate([[0], self.if_node, self.if_twin])
        hv = np.concatenate([[1.0], -np.ones(ni), np.ones(ni)])
        self.g0 = np.zeros(ni + 1)
        if sp:
            self.H = sp.csr_matrix((hv, (hr, hc)), shape=(ni + 1, n))
            # cohesive springs: K += k_i A (e_t - e_j)(e_t - e_j)^T, the pattern of H's interface rows
            self.HiT = self.H[1:].T.tocsr()
            self.Hi = self.H[1:].tocsr()

        # per DOF: its constraint row (-1: none; each DOF is in one row at most) and H entry
        self.row_of = np.full(n, -1)
        self.h_of = np.zeros(n)
        self.row_of[0], self.h_of[0] = 0, 1.0
        self.row_of[self.if_node], self.h_of[self.if_node] = 1 + np.arange(ni), -1.0
        self.row_of[self.if_twin], self.h_of[self.if_twin] = 1 + np.arange(ni), 1.0
        self.ncon = ni + 1
        # rows of the two ends of each element, for W' (both -1 for an element without constraint DOFs)
        self.el_ra, self.el_rb = self.row_of[a], self.row_of[b]

    def gaps(self, u):
        """g = H u + g0: the wall (+1 on DOF 0), then each interface's opening."""
        g = np.empty(self.ncon)
        g[0] = u[0]
        g[1:] = u[self.if_twin] - u[self.if_node]
        return g + self.g0

    def kdot(self, k_coh, x):
        """K x: the elements and the interfaces' secant springs."""
        s = self.el_k * (x[self.el_b] - x[self.el_a])
        out = np.bincount(self.el_b, s, self.n) - np.bincount(self.el_a, s, self.n)
        c = k_coh * self.A * (x[self.if_twin] - x[self.if_node])
        out[self.if_node] -= c
        out[self.if_twin] += c
        return out

    def wprime(self, active, k_coh, c):
        """W' = H_A M^-1 (M - c K) M^-1 H_A^T on the active rows (a boolean mask over the rows, in
        space order), as its diagonal and its first super-diagonal in the order of the active rows.
        Every DOF is in one row at most, so y = M^-1 h_r has one or two entries and each element
        (spring k between DOFs a, b) adds k (y_a^2, y_b^2, -y_a y_b) to (W_ra,ra, W_rb,rb, W_ra,rb)."""
        y = np.where(self.row_of >= 0, self.h_of * self.minv, 0.0)
        y = np.where((self.row_of >= 0) & active[np.maximum(self.row_of, 0)], y, 0.0)
        m = self.ncon
        ra, rb = self.el_ra, self.el_rb
        ya, yb = y[self.el_a], y[self.el_b]
        diag = np.bincount(np.maximum(self.row_of, 0), self.mass * y * y, m)
        ke = -c * self.el_k
        diag += np.bincount(np.maximum(ra, 0), ke * ya * ya, m) + np.bincount(np.maximum(rb, 0), ke * yb * yb, m)
        # the interface springs: both DOFs in the row's own vector
        dy = y[self.if_twin] - y[self.if_node]
        diag[1:] += -c * k_coh * self.A * dy * dy
        # couplings: an element whose two ends are in two different rows (the next in space order)
        cpl = (ra >= 0) & (rb >= 0) & (ra != rb)
        sup = np.bincount(ra[cpl], -ke[cpl] * ya[cpl] * yb[cpl], m)  # W_{r, r+1} stored at r
        idx = np.flatnonzero(active)
        # consecutive active rows are coupled only when they are consecutive rows
        s = np.where(np.diff(idx) == 1, sup[idx[:-1]], 0.0)
        return diag[idx], s

    def cohesive(self, u, dmax):
        """camacho_ortiz with the cap at the openings of u and history dmax: traction and stiffness
        (per unit area) and the history a commit would leave."""
        x = u[self.if_twin] - u[self.if_node]
        sc, dc = self.sigma, self.deltac
        hm = np.maximum(dmax, 0.0)
        load = x >= hm
        # loading: the envelope at d = x / dc
        tl = np.where(x >= dc, 0.0, sc * (1.0 - x / dc))
        with np.errstate(divide="ignore", invalid="ignore"):
            ksl = np.where(x > 0.0, tl / x, np.inf)
        kl = np.where((x < dc) & (x > 0.0) & (ksl <= self.kmax), ksl, 0.0)
        # below dmax: the secant to the origin, or the capped constant traction
        env = sc * (1.0 - hm / dc)
        with np.errstate(divide="ignore", invalid="ignore"):
            ks = np.where(hm > 0.0, env / hm, np.inf)
        sec = (hm > 0.0) & (ks <= self.kmax)
        tu = np.where(sec, ks * x, env)
        ku = np.where(sec, ks, 0.0)
        broken = (~load) & (hm >= dc)
        t = np.where(load, tl, np.where(broken, 0.0, tu))
        k = np.where(load, kl, np.where(broken, 0.0, ku))
        return t, k, np.where(load, x, dmax)

    def force(self, u, t_coh):
        s = self.el_k * (u[self.el_b] - u[self.el_a])
        f = np.bincount(self.el_a, s, self.n) - np.bincount(self.el_b, s, self.n)
        tf = t_coh * self.A
        f[self.if_node] += tf
        f[self.if_twin] -= tf
        return f

    def stiffness(self, k_coh):
        return self.kbulk + self.HiT @ sp.diags(k_coh * self.A) @ self.Hi


def pgs_tridiagonal(d: np.ndarray, sup: np.ndarray, q: np.ndarray, p: np.ndarray, tol: float,
                    max_sweeps: int = 100000):
    """0 <= p _|_ W p + q >= 0 for a symmetric tridiagonal W (diagonal d, super-diagonal sup),
    red-black projected Gauss-Seidel from p."""
    m = q.size
    lo = np.zeros(m)
    up = np.zeros(m)
    lo[1:] = sup
    up[:-1] = sup
    pp = np.zeros(m + 2)  # padded: pp[i + 1] = p[i]
    pp[1:-1] = p
    red, black = np.arange(0, m, 2), np.arange(1, m, 2)
    for sweep in range(1, max_sweeps + 1):
        old = pp[1:-1].copy()
        for idx in (red, black):
            r = q[idx] + lo[idx] * pp[idx] + up[idx] * pp[idx + 2]
            pp[idx + 1] = np.maximum(0.0, -r / d[idx])
        new = pp[1:-1]
        if np.max(np.abs(new - old), initial=0.0) <= tol * max(np.max(new, initial=0.0), 1e-300):
            return new.copy(), sweep
    raise SystemExit(f"bench_numpy: PGS did not converge in {max_sweeps} sweeps")


class NSN:
    def __init__(self, bar: Bar, dt: float, v0: np.ndarray, tol: float, sparse: bool = False):
        self.bar, self.dt, self.tol, self.sparse = bar, dt, tol, sparse
        self.u = np.zeros(bar.n)
        self.v = v0.copy()
        self.dmax = bar.d0 * bar.deltac
        t, _, _ = bar.cohesive(self.u, self.dmax)
        self.a = bar.minv * bar.force(self.u, t)
        self.p_last = np.zeros(bar.ncon)  # warm start per constraint
        self.sweeps = 0

    def step(self):
        b, dt = self.bar, self.dt
        hdt, hdt2 = 0.5 * dt, 0.5 * dt * dt
        ut = self.u + dt * self.v + hdt2 * self.a
        g = b.gaps(ut)
        act = np.flatnonzero(g <= 0.0)
        # gaps at round-off of zero (the two faces of a closed interface): whether they count as
        # active depends on the last bit of u; their impulse is zero either way
        self.marginal = int(np.count_nonzero(np.abs(g) <= 1e-12 * np.max(np.abs(ut))))
        t, k, _ = b.cohesive(ut, self.dmax)
        astar = b.minv * b.force(ut, t)
        if act.size == 0:
            anew = astar
            vnew = self.v + hdt * (self.a + astar)
        elif self.sparse:  # W' and K as scipy.sparse matrices (the check of the vectorised W')
            K = b.stiffness(k)
            HA = b.H[act]
            B = HA @ sp.diags(b.minv)
            W = (B @ sp.diags(b.mass) @ B.T - (dt * dt / 4.0) * (B @ K @ B.T)).tocsr()
            sup = W.diagonal(1)
            if W.nnz > np.count_nonzero(W.diagonal()) + 2 * np.count_nonzero(sup):
                raise SystemExit("bench_numpy: W' is not tridiagonal in space order")
            q = HA @ self.v + hdt * (HA @ (self.a + astar))  # e = 0
            p, sw = pgs_tridiagonal(W.diagonal(), sup, q, self.p_last[act], self.tol)
            self.sweeps += sw
            self.p_last[:] = 0.0
            self.p_last[act] = p
            vhat = b.minv * (HA.T @ p)
            anew = astar - hdt * b.minv * (K @ vhat)
            vnew = self.v + hdt * (self.a + anew) + vhat
            ut = ut + hdt * vhat
        else:
            mask = g <= 0.0
            d, sup = b.wprime(mask, k, dt * dt / 4.0)
            w = self.v + hdt * (self.a + astar)
            hw = b.h_of * w
            q = np.bincount(np.maximum(b.row_of, 0), np.where(b.row_of >= 0, hw, 0.0), b.ncon)[act]  # e = 0
            p, sw = pgs_tridiagonal(d, sup, q, self.p_last[act], self.tol)
            self.sweeps += sw
            self.p_last[:] = 0.0
            self.p_last[act] = p
            pr = self.p_last
            vhat = np.where(b.row_of >= 0, b.minv * b.h_of * pr[np.maximum(b.row_of, 0)], 0.0)
            anew = astar - hdt * b.minv * b.kdot(k, vhat)
            vnew = self.v + hdt * (self.a + anew) + vhat
            ut = ut + hdt * vhat
        self.u, self.v, self.a = ut, vnew, anew
        _, _, self.dmax = b.cohesive(self.u, self.dmax)  # commit the history
        return act.size


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shard", default=str(ROOT / "build/bin/shard"))
    ap.add_argument("--steps", type=int, default=5000, help="steps timed, both codes")
    ap.add_argument("--check", type=int, default=2000, help="steps compared step by step")
    ap.add_argument("--tol", type=float, default=1e-13, help="PGS: largest impulse change / largest impulse")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-numpy-"))
    try:
        return bench(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def bench(args, work: Path) -> int:
    s0 = shard_run(args.shard, work / "mesh", "1e-15", 1, ["--set", "output.fields_interval=1"])
    dt = float(s0["time.dt"])
    bar = Bar(work / "mesh")
    v0 = read_vtu(sorted((work / "mesh" / "fields").glob("*.vtu"))[0])[1]["v"]
    span = lambda s: f"{dt * (s + 0.5):.17g}"  # noqa: E731  s steps
    print(f"damaged bar: {bar.nel} elements, {bar.if_node.size} interfaces, {bar.n} DOFs; dt = {dt:.6g} s "
          f"({float(s0['time.dt_over_dt_c']):.3g} dt_c)")

    # 1. agreement, step by step (both NumPy forms of W')
    shard_run(args.shard, work / "check", span(args.check), 1)
    with open(work / "check" / "history.csv") as fh:
        hist = [r for r in csv.DictReader(fh) if r["step"] != "0"]
    if any(int(r["insertions"]) != 0 for r in hist):
        raise SystemExit("bench_numpy: shard inserted a facet in the compared steps (the NumPy step does not)")
    tol_u, tol_v, tol_ke = 1e-10, 1e-10, 1e-10
    ok = True
    for sparse in FORMS_HERE:
        sim = NSN(bar, dt, v0, args.tol, sparse)
        du = dv = dke = uscale = 0.0
        nact_diff = nact_bad = 0
        for r in hist:
            na = sim.step()
            u0, vc = float(r["u_contact"]), float(r["v_contact"])
            ke = 0.5 * float(np.sum(bar.mass * sim.v * sim.v))
            du, dv = max(du, abs(sim.u[0] - u0)), max(dv, abs(sim.v[0] - vc))
            uscale = max(uscale, abs(u0))
            dke = max(dke, abs(ke - float(r["kinetic"])) / float(hist[0]["kinetic"]))
            nact_diff += na != int(r["n_active"])
            nact_bad += abs(na - int(r["n_active"])) > sim.marginal
        good = du <= tol_u * uscale and dv <= tol_v * 5.0 and dke <= tol_ke and nact_bad == 0
        ok = ok and good
        print(f"{FORMS[sparse]}: over {len(hist)} steps against shard's history: contact-node u {du / uscale:.2e} "
              f"of its largest |u| (tolerance {tol_u:g}), v {dv / 5.0:.2e} of v0 (tolerance {tol_v:g}), kinetic "
              f"energy {dke:.2e} of its initial value (tolerance {tol_ke:g}), active-set sizes different in {nact_diff} "
              f"steps, {nact_bad} of them by more than the gaps within 1e-12 max|u| of zero (tolerance 0): "
              f"{'agree' if good else 'DIFFER'}")

    # 2. cost, same steps, one sitting
    st = shard_run(args.shard, work / "time", span(args.steps), 1_000_000_000)
    us_shard = float(st["cpu_time.per_step"]) * 1e6
    nsteps = int(st["steps"])
    print(f"CPU per step over {nsteps} steps: shard {us_shard:.1f} us (pgs: {float(st['lcp.blocks']) / nsteps:.0f} "
          f"blocks and {float(st['lcp.iterations']) / nsteps:.0f} sweeps over them a step)")
    for sparse in FORMS_HERE:
        sim = NSN(bar, dt, v0, args.tol, sparse)
        c0 = time.process_time()
        for _ in range(nsteps):
            sim.step()
        us = (time.process_time() - c0) / nsteps * 1e6
        print(f"  {FORMS[sparse]}: {us:.1f} us, {us / us_shard:.2f} x shard "
              f"({sim.sweeps / nsteps:.1f} red-black sweeps a step)")
    return 0 if ok else 1


FORMS = {False: "NumPy, W' assembled by element (bincount)", True: "NumPy + scipy.sparse products for W' and K"}
FORMS_HERE = (False, True) if sp is not None else (False,)


if __name__ == "__main__":
    sys.exit(main())
