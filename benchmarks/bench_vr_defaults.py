"""StochasticMF's variance reduction at its defaults against SMM and SGD at equal data passes.

For each case (ODL, ONMF and ORPCA on planted data of the recipes of Zhao, Haskell and Feng
2018 at small scale; ``odl-cbcl`` and ``odl-mnist``: ODL on the CBCL faces and on MNIST
digits from ``--data-dir``) and seed, the three methods run at their defaults for the same
budget of per-sample solves (``StochasticMF`` gives SMM and SGD VR's budget), and the ratio
f(VR) / min(f(SMM), f(SGD)) of the exact objectives is reported with each method's passes and
wall time (:func:`onlinemf.benchmarking._vr.compare_vr`). ``--paper`` runs VR with the
paper's protocol (``settings="paper"``) instead, as the ablation; ``--rule curvature`` keeps
the default inner loop with the paper's scalar step; ``--no-warm-start`` drops the default
first outer iteration of SMM steps; ``--no-safeguard`` keeps η constant even when a
snapshot's objective rises; ``--scale`` multiplies VR's step. Prints one line per run and a
summary (median and worst ratio per case). The issue's recipe is ``--n 6000 --problems odl``;
the small scale of the target is ``--n 2000`` with every case.

    python benchmarks/bench_vr_defaults.py [--seeds 6] [--paper] [--rule curvature]
        [--no-warm-start] [--no-safeguard] [--scale 1] [--n 6000]
        [--problems odl onmf orpca odl-cbcl odl-mnist] [--data-dir DIR]
"""

from __future__ import annotations

import argparse

import numpy as np

from onlinemf.benchmarking._vr import VR_PROBLEMS, compare_vr, vr_data
from onlinemf.estimators import SMFStep


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--paper", action="store_true", help="VR with the paper's m, b and step")
    ap.add_argument("--rule", choices=["auto", "metric", "curvature"], default="auto",
                    help="VR's step rule (SMFStep(rule=...))")
    ap.add_argument("--no-warm-start", action="store_true",
                    help="VR without the first outer iteration of SMM steps")
    ap.add_argument("--no-safeguard", action="store_true",
                    help="VR's η constant even when a snapshot's objective rises")
    ap.add_argument("--scale", type=float, default=1.0, help="SMFStep(scale=...)")
    ap.add_argument("--n", type=int, default=6000, help="rows of the planted cases")
    ap.add_argument("--problems", nargs="+", default=["odl", "onmf", "orpca"],
                    choices=list(VR_PROBLEMS))
    ap.add_argument("--n-components", type=int, default=20)
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args(argv)
    vr = {"settings": "paper"} if args.paper else {}
    if args.rule != "auto" or args.no_warm_start or args.no_safeguard or args.scale != 1:
        vr["step"] = SMFStep(rule=args.rule, scale=args.scale,
                             warm_start=not args.no_warm_start and "auto",
                             safeguard=not args.no_safeguard and "auto")
    summary = {}
    for case in args.problems:
        ratios = []
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            X = vr_data(case, seed, n=args.n, data_dir=args.data_dir)
            if X is None:
                raise SystemExit(f"{case} needs its data under --data-dir")
            c = compare_vr(case, X, seed, args.n_components, **vr)
            ratios.append(c.ratio)
            print(c.line(), flush=True)
        summary[case] = (float(np.median(ratios)), float(np.max(ratios)))
    label = "paper protocol" if args.paper else f"defaults, rule {args.rule}" + (
        ", no warm start" if args.no_warm_start else "") + (
        ", no safeguard" if args.no_safeguard else "") + (
        f", scale {args.scale:g}" if args.scale != 1 else "")
    for case, (med, worst) in summary.items():
        print(f"{case} ({label}): VR / min(SMM, SGD) median {med:.4f}, worst {worst:.4f}")


if __name__ == "__main__":
    main()
