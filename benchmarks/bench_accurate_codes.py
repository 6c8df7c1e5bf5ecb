"""The accurate ORPCA code solver (evaluation, the batch reference, ``transform``) against
SciPy on the same rows and dictionaries, with its MM restart on and off.

Per row, ORPCA's codes solve  min_h  e(x − hD) + (λ/2)‖h‖²  with e the Huber envelope of
the ℓ1 outliers (threshold λ = 1/√d): a smooth convex problem in K = 49 unknowns, which
``scipy.optimize.minimize`` (L-BFGS-B, exact gradient, one row at a time) solves as the
anchor. Dictionaries: VR's and SMM's final ORPCA dictionaries on Synth (short atoms: most of
a row's entries inliers) when the paper-scale pieces are at hand, and the stored late SGD
dictionary of the tests (atoms of norm 50–70: most entries outliers), on rows of Synth
(n = 100000, d = 400, ρ_s = 0.1, M = 1000). Prints time, peak memory, mean f and the gap to
the best f found, per solver.

ORNMF's codes (h ∈ [0, M′], no ridge) are compared the same way, SciPy's L-BFGS-B taking
the box as its bounds, on the real Extended YaleB faces with the final dictionaries of the
paper-scale YaleB panel (when ``--data-dir`` holds the faces and the piece is kept).

    python benchmarks/bench_accurate_codes.py [--rows 512] [--pieces reports/paper/pieces]
        [--data-dir ../shared/data]
"""

from __future__ import annotations

import argparse
import os
import pickle
import time

import numpy as np
from scipy.optimize import minimize
from threadpoolctl import threadpool_limits

from onlinemf.benchmarking import peak_memory_mb
from onlinemf.coders import solve_codes_bsum, solve_codes_newton
from onlinemf.datasets import make_smf_synthetic
from onlinemf.problems import make_problem

HERE = os.path.dirname(os.path.abspath(__file__))


def dictionaries(pieces: str) -> dict:
    kept = np.load(os.path.join(HERE, "..", "tests", "data", "orpca_synth_late_dictionary.npz"))
    out = {"SGD, late (stored)": kept["components"]}
    for name, piece in (("VR, final", "vr-run-c4"), ("SMM, final", "smm-run-c1")):
        path = os.path.join(pieces, f"paper-0-zhf-fig1-orpca-synth-{piece}.pkl")
        if os.path.exists(path):
            with open(path, "rb") as fh:
                out[name] = pickle.load(fh)[1]["components"]
    return out


def scipy_codes(D, X, lam, ridge, bounds=None):
    """L-BFGS-B on each row's smooth Huber form, e(x − hD) + (ridge/2)‖h‖² over ``bounds``
    (the anchor; a loop over rows)."""
    H = np.zeros((X.shape[0], D.shape[0]))
    for i, x in enumerate(X):
        def fun(h, x=x):
            z = x - h @ D
            a = np.abs(z)
            f = np.where(a <= lam, 0.5 * z * z, lam * a - 0.5 * lam * lam).sum()
            return f + 0.5 * ridge * h @ h, -np.clip(z, -lam, lam) @ D.T + ridge * h
        H[i] = minimize(fun, H[i], jac=True, method="L-BFGS-B", bounds=bounds,
                        options=dict(maxiter=20000, gtol=1e-9, ftol=1e-15)).x
    return H


def yaleb_case(pieces: str, data_dir: str | None):
    """ORNMF on the Extended YaleB faces (loaded as the YaleB panel loads them) with that
    panel's final dictionaries, or None when the faces or the piece are not at hand."""
    from onlinemf.experiments import Context
    from onlinemf.experiments.zhao_haskell_feng import _scale, load_panel_data

    piece = os.path.join(pieces, "paper-0-zhf-fig1-ornmf-yaleb.pkl")
    if not (data_dir and os.path.exists(piece)):
        return None
    ctx = Context(scale="paper", data_dir=data_dir)
    X, src = load_panel_data("yaleb", ctx, _scale(ctx))
    if not src.startswith("Extended YaleB"):  # the rendered stand-in, not the real faces
        return None
    with open(piece, "rb") as fh:
        runs = pickle.load(fh)[1][0]
    dicts = {f"{m.upper()}, final": np.asarray(runs[m]["components"], dtype=float)
             for m in ("vr", "smm", "sgd")}
    return X, dicts


def compare(P, X, dicts: dict, anchor) -> None:
    """Each solver on each dictionary: time, ratio to the anchor, peak memory, mean f and the
    gap to the best f found, per row."""
    solvers = {
        "Newton (+ MM restart where it applies)": lambda D: solve_codes_newton(
            P, D, X, 1e-4, max_iter=3000).codes,
        "Newton alone": lambda D: solve_codes_newton(P, D, X, 1e-4, max_iter=3000,
                                                     mm_steps=0).codes,
        "accelerated BSUM (3000 sweeps)": lambda D: solve_codes_bsum(
            P, D, X, 1e-4, max_iter=3000, accelerate=True).codes,
        "SciPy L-BFGS-B per row (anchor)": anchor,
    }
    for dname, D in dicts.items():
        print(f"\n{dname} dictionary (atom norms {np.linalg.norm(D, axis=1).min():.3g}–"
              f"{np.linalg.norm(D, axis=1).max():.3g})")
        rows = []
        for name, solve in solvers.items():
            t0 = time.perf_counter()
            H = solve(D)
            seconds = time.perf_counter() - t0
            f = P.sample_losses(X, D, H, P.outliers.prox(X - H @ D))
            rows.append((name, seconds, peak_memory_mb(lambda s=solve, D=D: s(D)), f))
        best = np.min([r[3] for r in rows], axis=0)
        anchor_s = rows[-1][1]
        print(f"{'solver':38s} {'time (s)':>9s} {'vs anchor':>9s} {'peak MB':>8s} "
              f"{'mean f':>12s} {'mean gap':>9s} {'max gap':>9s}")
        for name, seconds, mb, f in rows:
            gap = f - best
            print(f"{name:38s} {seconds:9.2f} {seconds / anchor_s:9.3f} {mb:8.1f} "
                  f"{f.mean():12.6f} {gap.mean():9.2e} {gap.max():9.2e}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=512)
    ap.add_argument("--pieces", default=os.path.join(HERE, "..", "reports", "paper", "pieces"))
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args()
    data, _ = make_smf_synthetic(100_000, 400, 10, 0.1, 1000.0, random_state=0)
    X = data.X[40_000:40_000 + args.rows]
    P = make_problem("orpca", 400).bind(100_000)
    lam = 1 / np.sqrt(400)
    print(f"ORPCA: {args.rows} rows of Synth, K = 49, d = 400, one thread")
    compare(P, X, dictionaries(args.pieces), lambda D: scipy_codes(D, X, lam, lam))
    case = yaleb_case(args.pieces, args.data_dir)
    if case is None:
        print("\nORNMF on YaleB: skipped (needs --data-dir with the faces and the kept "
              "YaleB panel piece)")
        return
    X, dicts = case
    X = X[:args.rows]
    P = make_problem("ornmf", X.shape[1]).bind(X.shape[0])
    lo, hi, _ = P.codes.smooth_box()
    lam = float(P.outliers.alpha)
    print(f"\nORNMF: {X.shape[0]} Extended YaleB faces, K = 49, d = {X.shape[1]}, codes in "
          f"[{lo:g}, {hi:g}], one thread")
    compare(P, X, dicts, lambda D: scipy_codes(D, X, lam, 0.0, [(lo, hi)] * D.shape[0]))


if __name__ == "__main__":
    with threadpool_limits(1):
        main()
