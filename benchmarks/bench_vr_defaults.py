"""StochasticMF's variance reduction at its defaults against SMM and SGD at equal data passes.

For each problem (ODL, ONMF, ORPCA at small scale, the recipes of Zhao, Haskell and Feng
2018; ``odl-cbcl``: ODL on the CBCL faces in [0, 1], found by
:func:`onlinemf.datasets.find_papers_data`) and seed, the three methods run at their
defaults for the same budget of per-sample solves (``StochasticMF`` gives SMM and SGD VR's
budget), and the ratio
f(VR) / min(f(SMM), f(SGD)) of the exact objectives is reported with each method's passes and
wall time; ``--paper`` runs VR with the paper's protocol (``settings="paper"``) instead, as the
ablation. Prints one line per run and a summary (median and worst ratio per problem).

    python benchmarks/bench_vr_defaults.py [--seeds 6] [--paper] [--problems odl onmf orpca
                                           odl-cbcl]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from onlinemf import StochasticMF
from onlinemf.datasets import find_papers_data, load_cbcl, make_smf_synthetic


def planted(problem: str, seed: int, n: int = 6000, F: int = 64, rank: int = 10):
    """Centred planted rank-10 data (ODL), nonnegative planted data (ONMF), the Synth
    recipe with 10% outliers at a small scale (ORPCA), or the CBCL faces (``odl-cbcl``)."""
    if problem == "odl-cbcl":
        path = find_papers_data("cbcl_face", "CBCL_Face.mat")
        if path is None:
            raise SystemExit("odl-cbcl needs the CBCL faces (set ONLINEMF_DATA_DIR)")
        return load_cbcl(str(path)).data
    rng = np.random.default_rng(seed)
    if problem == "odl":
        X = rng.standard_normal((n, rank)) @ rng.standard_normal((rank, F))
        X += 0.1 * rng.standard_normal((n, F))
        return X - X.mean(axis=0)
    if problem == "onmf":
        X = rng.random((n, rank)) @ rng.random((rank, F))
        return X + 0.01 * rng.random((n, F))
    data, _ = make_smf_synthetic(n, F, rank, 0.1, 10.0, random_state=seed)
    return data.X


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--paper", action="store_true", help="VR with the paper's m, b and step")
    ap.add_argument("--problems", nargs="+", default=["odl", "onmf", "orpca"],
                    choices=["odl", "onmf", "orpca", "odl-cbcl"])
    ap.add_argument("--n-components", type=int, default=20)
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    summary = {}
    for problem in args.problems:
        ratios = []
        for seed in range(args.seeds):
            X = planted(problem, seed)
            out = {}
            for method in ("vr", "smm", "sgd"):
                kw = {"settings": "paper"} if args.paper else {}
                t0 = time.perf_counter()
                est = StochasticMF(problem.split("-")[0], method, args.n_components,
                                   random_state=seed, **kw).fit(X)
                seconds = time.perf_counter() - t0
                out[method] = (est.objective(X), est.n_solves_ / X.shape[0], seconds)
            ratio = out["vr"][0] / min(out["smm"][0], out["sgd"][0])
            ratios.append(ratio)
            cells = "  ".join(f"{m} f={f:.5g} passes={p:.1f} time={t:.1f}s"
                              for m, (f, p, t) in out.items())
            print(f"{problem} seed {seed}: VR/best {ratio:.4f}  {cells}", flush=True)
        summary[problem] = (float(np.median(ratios)), float(np.max(ratios)))
    label = "paper protocol" if args.paper else "defaults"
    for problem, (med, worst) in summary.items():
        print(f"{problem} ({label}): VR / min(SMM, SGD) median {med:.4f}, worst {worst:.4f}")


if __name__ == "__main__":
    main()
