"""PoissonSubspaceTracker: memory-limited SA against SA, and both against the batch reference and
a Gaussian tracker (GROUSE), on the same Poisson streams, in one run.

Printed:
1. time per step (mean over the last 50 steps) and the size of the tracker's state (its pickle,
   which holds everything it keeps) at stream lengths t = 100, 200, 400, 800: ML-SA's is flat,
   SA's grows with t;
2. at M = 800 (N = 100, K = 10) and p = 1, 0.5, 0.1: final subspace error and total time for
   ML-SA, SA, the batch reference and GROUSE; the ratios SA/ML time and the error differences.

Usage: python benchmarks/bench_poisson_tracker.py [--m 800]
"""

from __future__ import annotations

import argparse
import pickle
import time

import numpy as np
from threadpoolctl import threadpool_limits

from onlinemf import PoissonSubspaceTracker
from onlinemf.baselines import GROUSE, batch_poisson_factorization
from onlinemf.experiments.wang_chi_poisson import poisson_stream, subspace_error


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", type=int, default=800)
    args = ap.parse_args()
    n, k, m = 100, 10, args.m
    rng = np.random.default_rng(0)
    with threadpool_limits(1):
        D, Y = poisson_stream(n, k, m, 1.0, rng)
        print("## time per step and state size against stream length (p = 1)")
        print("| method | t | ms per step (last 50) | state bytes |\n|---|---|---|---|")
        for method in ("ml", "sa"):
            est = PoissonSubspaceTracker(k, method=method, n_checkpoints=0, random_state=0)
            done = 0
            for t in (100, 200, 400, 800):
                if t > m:
                    break
                est.partial_fit(Y[done:t - 50])
                t0 = time.perf_counter()
                est.partial_fit(Y[t - 50:t])
                per = (time.perf_counter() - t0) / 50 * 1e3
                done = t
                print(f"| {method.upper()} | {t} | {per:.2f} | {len(pickle.dumps(est))} |")
        print("\n## error and time at the end of the stream")
        print("| p | method | error | time (s) |\n|---|---|---|---|")
        for p in (1.0, 0.5, 0.1):
            D, Y = poisson_stream(n, k, m, p, rng)
            res = {}
            for method in ("ml", "sa"):
                est = PoissonSubspaceTracker(k, method=method, random_state=0)
                t0 = time.perf_counter()
                est.partial_fit(Y)
                res[method.upper()] = (subspace_error(est.components_.T, D),
                                       time.perf_counter() - t0)
            t0 = time.perf_counter()
            Db, _ = batch_poisson_factorization(np.nan_to_num(Y), k, ~np.isnan(Y),
                                                random_state=0)
            res["batch (substitute)"] = (subspace_error(Db, D), time.perf_counter() - t0)
            for step in (1e-4, 1e-3):
                t0 = time.perf_counter()
                g = GROUSE(k, step=step, random_state=0).partial_fit(Y)
                res[f"GROUSE η={step:g}"] = (subspace_error(g.components_.T, D),
                                             time.perf_counter() - t0)
            for name, (e, s) in res.items():
                print(f"| {p} | {name} | {e:.3f} | {s:.2f} |")
            print(f"| {p} | SA/ML time, ML−SA error | {res['SA'][1] / res['ML'][1]:.1f}x | "
                  f"{res['ML'][0] - res['SA'][0]:+.3f} |")


if __name__ == "__main__":
    main()
