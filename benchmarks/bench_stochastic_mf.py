"""StochasticMF (VR, SMM, SGD) against scikit-learn on the same data, λ and mini-batch size.

* ODL (½‖x − hD‖² + λ‖h‖₁, atoms in the unit ℓ2 ball) is exactly the objective of
  ``MiniBatchDictionaryLearning(alpha=λ)``;
* ONMF with a vanishing ridge (λ = 1e-6) and simplex atoms is NMF up to the atoms' scale,
  which the codes absorb: ``MiniBatchNMF(alpha_W=0)``'s components are ℓ1-normalized for the
  comparison.

Every dictionary is scored by the same exact objective f (codes re-solved accurately,
evaluation time excluded). Prints objective against passes and time, the time each method
needs to reach the best objective of scikit-learn's, and the ratios.

    python benchmarks/bench_stochastic_mf.py [--data-dir ../shared/data] [--quick]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.decomposition import MiniBatchDictionaryLearning, MiniBatchNMF
from threadpoolctl import threadpool_limits

from onlinemf import Problem, StochasticMF
from onlinemf.metrics import evaluate
from onlinemf.problems import make_problem
from onlinemf.updates import default_batch_params


def load(data_dir):
    path = data_dir and os.path.join(data_dir, "cbcl_face", "CBCL_Face.mat")
    if path and os.path.exists(path):
        from onlinemf.datasets import load_cbcl

        return load_cbcl(path).data, "CBCL faces (2429 × 361)"
    return load_digits().data / 16.0, "scikit-learn digits (1797 × 64)"


def ours(problem, method, X, K, passes, alpha):
    S = max(1, int(round(passes / 1.2)))
    est = StochasticMF(Problem(problem, alpha=alpha), method, K, max_iter=S,
                       eval_every=passes / 8, random_state=0).fit(X)
    h = est.history_
    return h["n_samples"] / X.shape[0], h["time"], h["objective"]


def sklearn_curve(make, X, b, passes, score, normalize=None):
    """partial_fit over shuffled mini-batches of b; objective at 8 checkpoints."""
    est = make()
    rng = np.random.default_rng(0)
    n = X.shape[0]
    steps = int(passes * n / b)
    marks = set(np.linspace(1, steps, 8).astype(int))
    t, out = 0.0, []
    for step in range(1, steps + 1):
        rows = rng.choice(n, b, replace=False)
        t0 = time.perf_counter()
        est.partial_fit(X[rows])
        t += time.perf_counter() - t0
        if step in marks:
            D = est.components_ if normalize is None else normalize(est.components_)
            out.append((step * b / n, t, score(D)))
    arr = np.array(out)
    return arr[:, 0], arr[:, 1], arr[:, 2]


def time_to(curve, target):
    _, t, f = curve
    hit = np.nonzero(f <= target)[0]
    return float(t[hit[0]]) if hit.size else float("inf")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    X, name = load(args.data_dir)
    n, F = X.shape
    K = 20 if args.quick else 49
    passes = 6.0 if args.quick else 12.0
    b, _ = default_batch_params(n)
    lam = 1 / np.sqrt(F)
    print(f"data: {name}; K = {K}, b = {b}, λ = {lam:.4f}, {passes:g} passes, 1 BLAS thread")
    with threadpool_limits(1):
        P = make_problem("odl", F, alpha=lam).bind(n)
        score = lambda D: evaluate(P, D, X, tol=1e-4, max_iter=3000)["objective"]  # noqa: E731
        curves = {m.upper(): ours("odl", m, X, K, passes, lam) for m in ("vr", "smm", "sgd")}
        curves["MiniBatchDictionaryLearning"] = sklearn_curve(
            lambda: MiniBatchDictionaryLearning(K, alpha=lam, batch_size=b, random_state=0),
            X, b, passes, score)
        report("ODL", curves, "MiniBatchDictionaryLearning")

        P = make_problem("onmf", F, alpha=1e-6).bind(n)
        score = lambda D: evaluate(P, D, X, tol=1e-4, max_iter=3000)["objective"]  # noqa: E731
        curves = {m.upper(): ours("onmf", m, X, K, passes, 1e-6) for m in ("vr", "smm", "sgd")}
        curves["MiniBatchNMF"] = sklearn_curve(
            lambda: MiniBatchNMF(K, batch_size=b, init="random", random_state=0), X, b, passes,
            score, normalize=lambda C: P.project_dictionary(
                C / np.maximum(C.sum(axis=1, keepdims=True), 1e-12)))
        report("ONMF (λ = 1e-6, NMF up to atom scale)", curves, "MiniBatchNMF")


def report(title, curves, anchor):
    print(f"\n## {title}")
    for label, (p, t, f) in curves.items():
        pts = ", ".join(f"{pp:.1f}p/{tt:.2f}s: {ff:.5g}" for pp, tt, ff in zip(p, t, f))
        print(f"{label:>28}: {pts}")
    target = float(np.min(curves[anchor][2]))
    base = time_to(curves[anchor], target)
    print(f"time to reach {anchor}'s best objective {target:.5g}:")
    for label, c in curves.items():
        tt = time_to(c, target)
        ratio = base / tt if np.isfinite(tt) and tt > 0 else 0.0
        final = float(c[2][-1])
        print(f"{label:>28}: {tt:8.2f} s  (speed-up {ratio:5.2f}×; final f {final:.5g})")


if __name__ == "__main__":
    main()
