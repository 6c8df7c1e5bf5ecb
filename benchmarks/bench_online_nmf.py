"""OnlineNMF against scikit-learn's MiniBatchNMF and NMF, on the same data, in one run.

For every data set and loss (frobenius, KL, IS) each method is run with growing budgets
(passes for the online methods, iterations for batch NMF); every run is timed, and its
dictionary is scored by one neutral evaluator: the mean per-sample divergence of the data from
its reconstruction, with codes re-solved by the same solver (200 projected-gradient
iterations) whatever method produced the dictionary. The data are scaled to [0, 1] for all.

Printed: objective versus time per method, then each method's time to reach two targets:
(a) MiniBatchNMF's best objective, (b) within 1% of the best objective any method reached;
and the ratio of MiniBatchNMF's time to ours. BLAS is limited to one thread so that timings
compare algorithms, not threading.

Usage: python benchmarks/bench_online_nmf.py [--quick] [--out bench_out]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.decomposition import NMF, MiniBatchNMF
from threadpoolctl import threadpool_limits

from onlinemf import OnlineNMF
from onlinemf.benchmarking import restart_curve
from onlinemf.coders import CodeSolver
from onlinemf.datasets import make_nmf_synthetic, make_topic_corpus, render_faces
from onlinemf.losses import get_loss

SK_LOSS = {"squared": "frobenius", "kl": "kullback-leibler", "is": "itakura-saito"}


def datasets(quick: bool):
    n = 5000 if quick else 20000
    yield "synthetic", make_nmf_synthetic(n, 100, 40, "poisson", random_state=0).X, 40
    yield "digits", load_digits().data, 16
    faces, _ = render_faces(8, 64, random_state=0)
    yield "faces", faces, 25
    yield "text", make_topic_corpus(2000 if quick else 5000, random_state=0).data, 5


def evaluate(loss, components, X):
    """Neutral score: codes re-solved for the given dictionary, mean per-sample divergence."""
    D = np.asarray(components, dtype=float)
    D = D / max(D.max(), 1e-300)  # any positive rescaling; the codes absorb it
    step = "fista" if loss.name == "squared" else "armijo"
    H = CodeSolver(step, lower=0.0 if loss.name != "is" else 1e-8, max_iter=200, tol=1e-6,
                   f_tol=1e-8, start="best").solve(loss, D, X).codes
    return float(loss.value(X, H @ D).mean())


def make_methods(k: int, lname: str, sk_batch: int = 256) -> dict:
    """The contenders. Ours at its defaults, and with the paper's rules (τ = 10, the paper's
    code steps; sum reduction, canonical a, b in both); scikit-learn's MiniBatchNMF with batch
    256 and no early stopping; batch NMF with CD for the Frobenius loss and MU otherwise."""
    return {
        "OnlineNMF": lambda: OnlineNMF(k, loss=lname, random_state=0),
        "OnlineNMF(paper)": lambda: OnlineNMF(k, loss=lname, batch_size="paper",
                                              coder="paper", random_state=0),
        "MiniBatchNMF": lambda it: MiniBatchNMF(k, beta_loss=SK_LOSS[lname],
                                                batch_size=sk_batch, max_iter=it, tol=0,
                                                max_no_improvement=None, random_state=0),
        "NMF": lambda it: NMF(k, beta_loss=SK_LOSS[lname],
                              solver="cd" if lname == "squared" else "mu", init="nndsvda",
                              max_iter=it, tol=0, random_state=0),
    }


def run_online(make, X, loss, budgets):
    """Cumulative passes of partial_fit over shuffled data; snapshot after each budget."""
    est = make()
    rng = np.random.default_rng(0)
    curve, elapsed, done = [], 0.0, 0
    for passes in budgets:
        t0 = time.perf_counter()
        for _ in range(passes - done):
            est.partial_fit(X[rng.permutation(X.shape[0])])
        elapsed += time.perf_counter() - t0
        done = passes
        curve.append((elapsed, evaluate(loss, est.components_, X)))
    return curve


def run_restart(make, X, loss, budgets):
    """scikit-learn estimators, refit from scratch with max_iter = budget, each run timed."""
    return restart_curve(make, X, lambda est: evaluate(loss, est.components_, X), budgets)


def time_to(curve, level):
    hits = [t for t, f in curve if f <= level]
    return min(hits) if hits else float("inf")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default="bench_out")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    passes = [1, 2, 4, 8] if args.quick else [1, 2, 4, 8, 16]
    iters = [5, 10, 20, 50, 100, 200] if args.quick else [5, 10, 20, 50, 100, 200, 400]
    summary, curves = [], {}
    for dname, X, k in datasets(args.quick):
        X = np.asarray(X, dtype=float)
        for lname in ("squared", "kl", "is"):
            Xs = X / X.max()
            if lname == "is":
                Xs = np.maximum(Xs, 1e-3)  # IS needs positive data; same floor for everyone
            loss = get_loss(lname)
            methods = make_methods(k, lname)
            res = {}
            with threadpool_limits(1):
                for name, make in methods.items():
                    if name.startswith("OnlineNMF"):
                        res[name] = run_online(make, Xs, loss, passes)
                    else:
                        res[name] = run_restart(make, Xs, loss, iters)
            key = f"{dname}/{lname}"
            curves[key] = res
            best = min(f for c in res.values() for _, f in c)
            mb_best = min(f for _, f in res["MiniBatchNMF"])
            print(f"\n## {key}  (n={Xs.shape[0]}, F={Xs.shape[1]}, K={k})")
            for name, c in res.items():
                pts = "  ".join(f"{t:.2f}s:{f:.5g}" for t, f in c)
                print(f"  {name:18s} {pts}")
            for name, c in res.items():
                ta, tb = time_to(c, mb_best), time_to(c, 1.01 * best)
                summary.append((key, name, ta, tb, min(f for _, f in c)))
            ours = [s for s in summary[-len(res):] if s[1].startswith("OnlineNMF")]
            mb = [s for s in summary[-len(res):] if s[1] == "MiniBatchNMF"][0]
            for s in ours:
                print(f"  ratio MiniBatchNMF/{s[1]} to MiniBatchNMF's best: "
                      f"{mb[2] / s[2]:.2f}x;  to 1% of best: "
                      + (f"{mb[3] / s[3]:.2f}x" if np.isfinite(s[3]) else "ours not reached"))
    print("\n| data/loss | method | time to MiniBatchNMF best (s) | time to 1% of best (s) "
          "| best objective |")
    print("|---|---|---|---|---|")
    for key, name, ta, tb, fb in summary:
        print(f"| {key} | {name} | {ta:.2f} | {tb:.2f} | {fb:.5g} |")
    with open(os.path.join(args.out, "bench_online_nmf.json"), "w") as fh:
        json.dump({k: {m: c for m, c in v.items()} for k, v in curves.items()}, fh)


if __name__ == "__main__":
    main()
