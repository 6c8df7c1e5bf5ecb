"""What a ``partial_fit`` call costs beyond its step: a stream fed in small mini-batches pays
each call's validation and rollback bookkeeping once per batch.

For each estimator and mini-batch size, the same rows are learned twice from the same seed:
by ``fit`` (one pass, the batches inside one call) and by one ``partial_fit`` call per batch.
Reported: milliseconds per batch of each and their ratio (1 would mean no per-call cost), the
median of ``--repeats`` runs, under one BLAS thread (the steps' own setting). Run it alone on
the machine; the ratio is what to compare across versions.

Usage: python benchmarks/bench_partial_fit.py [--rows 3000] [--repeats 3] [--out DIR]
(writes ``partial_fit_overhead.json``: the ``bench_*.json`` there are ``onlinemf bench``'s
races against the anchors, which the documentation reads).
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from onlinemf import OnlineDictionaryLearning, OnlineNMF, OnlineRobustNMF

CASES = {
    "OnlineNMF (kl)": lambda k: OnlineNMF(k, loss="kl", random_state=0),
    "OnlineNMF (squared)": lambda k: OnlineNMF(k, random_state=0),
    "OnlineRobustNMF": lambda k: OnlineRobustNMF(k, random_state=0),
    "OnlineDictionaryLearning": lambda k: OnlineDictionaryLearning(k, random_state=0),
}


def _median_seconds(run, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def measure(rows: int, features: int, k: int, batch_sizes, repeats: int) -> list[dict]:
    X = np.random.default_rng(0).gamma(2.0, 1.0, (rows, features))
    out = []
    for name, make in CASES.items():
        for b in batch_sizes:
            n_batches = rows // b

            def by_fit(make=make, b=b, n=n_batches):
                est = make(k).set_params(batch_size=b, max_iter=1)
                if "max_no_improvement" in est.get_params():  # one whole pass
                    est.set_params(max_no_improvement=None)
                est.fit(X[:n * b])

            def by_partial(make=make, b=b, n=n_batches):
                est = make(k).set_params(batch_size=b)
                for i in range(n):
                    est.partial_fit(X[i * b:(i + 1) * b])

            fit_s, part_s = _median_seconds(by_fit, repeats), _median_seconds(by_partial,
                                                                                repeats)
            out.append({"estimator": name, "batch_size": b, "batches": n_batches,
                        "fit_ms_per_batch": 1e3 * fit_s / n_batches,
                        "partial_fit_ms_per_call": 1e3 * part_s / n_batches,
                        "ratio": part_s / fit_s})
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=3000)
    ap.add_argument("--features", type=int, default=100)
    ap.add_argument("--components", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results"))
    args = ap.parse_args(argv)
    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore")
        rows = measure(args.rows, args.features, args.components, (1, 10, 100), args.repeats)
    print(f"{'estimator':24s} {'τ':>4s} {'fit ms/batch':>13s} {'partial_fit ms/call':>20s} "
          f"{'ratio':>6s}")
    for r in rows:
        print(f"{r['estimator']:24s} {r['batch_size']:4d} {r['fit_ms_per_batch']:13.2f} "
              f"{r['partial_fit_ms_per_call']:20.2f} {r['ratio']:6.2f}")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "partial_fit_overhead.json"), "w") as fh:
        json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
