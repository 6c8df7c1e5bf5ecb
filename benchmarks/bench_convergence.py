"""What ``fit`` gives at its defaults: the share of a planted model recovered, the passes the
stopping rule takes, and the time against scikit-learn's ``MiniBatchNMF`` and ``NMF`` at theirs.

1. Planted data (``make_nmf_synthetic``, each loss with its own noise model): the share of the
   gap between a rank-1 model (c·mᵀ: m the column means, c each row's least-squares scale) and
   the planted factors that ``OnlineNMF(k, loss=...).fit`` closes, measured in the loss itself,
   with the passes and the time; for the squared, KL and IS losses also MiniBatchNMF's share and
   time at its defaults.
2. BBC News (``--data-dir`` holding ``bbc/``), TF-IDF as scikit-learn computes it, K = 5: the
   squared objective and the NMI of the argmax clusters for OnlineNMF, MiniBatchNMF and NMF at
   their defaults, three seeds each.

Usage: python benchmarks/bench_convergence.py [--quick] [--data-dir ../shared/data] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings

import numpy as np
from sklearn.decomposition import NMF, MiniBatchNMF
from sklearn.exceptions import ConvergenceWarning

from onlinemf import OnlineNMF
from onlinemf.datasets import make_nmf_synthetic
from onlinemf.losses import get_loss

NOISE = {"squared": "gaussian", "kl": "poisson", "is": "gamma", "beta": "poisson",
         "alpha": "poisson", "hellinger": "poisson", "huber": "outliers", "l1": "outliers"}
SK_LOSS = {"squared": "frobenius", "kl": "kullback-leibler", "is": "itakura-saito"}


def _timed(est, X):
    """``est.fit(X)`` and its wall time (a ConvergenceWarning is part of the result)."""
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X)
    return est, time.perf_counter() - t0


def planted_rows(n, f, k, seeds):
    rows = []
    for loss, noise in NOISE.items():
        for seed in seeds:
            d = make_nmf_synthetic(n, f, k, noise=noise, random_state=seed)
            X = np.maximum(d.X, 1e-8) if loss == "is" else d.X
            est, t = _timed(OnlineNMF(k, loss=loss, random_state=seed), X)
            L, s = get_loss(loss), est.scale_

            def f_of(Y, L=L, s=s, X=X):
                return float(L.value(X / s, np.maximum(Y, 0) / s).mean())

            m = X.mean(axis=0)
            f1, fp = f_of(np.outer(X @ m / (m @ m), m)), f_of(d.X_clean)
            row = {"loss": loss, "seed": seed, "ours_gap": (f1 - f_of(est.transform(X) @
                                                                   est.components_)) / (f1 - fp),
                   "ours_passes": est.n_iter_, "ours_s": t, "ours_converged": est.converged_}
            if loss in SK_LOSS:
                solver = "mu" if loss != "squared" else "cd"
                mb, t_mb = _timed(MiniBatchNMF(k, beta_loss=SK_LOSS[loss], random_state=seed),
                                    X)
                row.update(minibatch_gap=(f1 - f_of(mb.transform(X) @ mb.components_))
                           / (f1 - fp), minibatch_passes=mb.n_iter_, minibatch_s=t_mb)
                nmf, t_nmf = _timed(NMF(k, beta_loss=SK_LOSS[loss], solver=solver,
                                         init="nndsvda", random_state=seed, max_iter=500), X)
                row.update(nmf_gap=(f1 - f_of(nmf.transform(X) @ nmf.components_)) / (f1 - fp),
                           nmf_s=t_nmf)
            rows.append(row)
            print(json.dumps({k_: (round(v, 4) if isinstance(v, float) else v)
                              for k_, v in row.items()}), flush=True)
    return rows


def bbc_rows(data_dir, seeds):
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.metrics import normalized_mutual_info_score

    from onlinemf.datasets._embedded import load_bbc

    corpus = load_bbc(os.path.join(data_dir, "bbc"))
    X = TfidfTransformer().fit_transform(corpus.data).tocsr()
    dense = X.toarray()

    def objective(W, H):
        R = dense - W @ H
        return 0.5 * float(np.einsum("ij,ij->", R, R)) / X.shape[0]

    makers = {"OnlineNMF": lambda s: OnlineNMF(5, random_state=s),
              "MiniBatchNMF": lambda s: MiniBatchNMF(5, random_state=s),
              "NMF": lambda s: NMF(5, init="nndsvda", random_state=s, max_iter=500)}
    rows = []
    for name, make in makers.items():
        for seed in seeds:
            est, t = _timed(make(seed), X)
            W = est.transform(X)
            row = {"data": "bbc tf-idf", "method": name, "seed": seed,
                   "objective": objective(W, est.components_),
                   "nmi": normalized_mutual_info_score(corpus.target, W.argmax(axis=1)),
                   "passes": getattr(est, "n_iter_", None), "s": t}
            rows.append(row)
            print(json.dumps({k_: (round(v, 5) if isinstance(v, float) else v)
                              for k_, v in row.items()}), flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--out", default="bench_out")
    args = ap.parse_args()
    seeds = [0, 1, 2]
    n = 1000 if args.quick else 2000
    out = {"planted": planted_rows(n, 40, 6, seeds)}
    if args.data_dir and os.path.isdir(os.path.join(args.data_dir, "bbc")):
        out["bbc"] = bbc_rows(args.data_dir, seeds)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "convergence.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1, default=float)
    print(f"written to {path}")


if __name__ == "__main__":
    main()
