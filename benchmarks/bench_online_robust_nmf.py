"""OnlineRobustNMF against its batch versions and against models without an outlier term.

One run, the same outlier-corrupted data for everyone (faces normalized to max 1, a fraction ν
of the samples with a fraction ν̃ of their pixels replaced as in Zhao and Tan 2016, §VII-D5).
Printed per method: time (s), PSNR (dB, peak 1) of the low-rank reconstruction against the
clean faces, and the ratios the issue asks for: batch time / online time at equal PSNR, and
the PSNR gain of the outlier model over scikit-learn's MiniBatchNMF and
MiniBatchDictionaryLearning.

Usage: python benchmarks/bench_online_robust_nmf.py [--data-dir ../shared/data] [--p 10]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.decomposition import MiniBatchDictionaryLearning, MiniBatchNMF
from threadpoolctl import threadpool_limits

from onlinemf import OnlineRobustNMF
from onlinemf.baselines import batch_robust_nmf
from onlinemf.constraints import project_nonneg_l2_ball
from onlinemf.datasets import contaminate, find_data, load_cbcl, render_faces


def psnr(est, clean):
    return float(-10 * np.log10(np.mean((np.clip(est, 0, 1) - clean) ** 2)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--p", type=int, default=4, help="replications of the face set")
    ap.add_argument("--k", type=int, default=49)
    args = ap.parse_args()
    path = find_data(args.data_dir, "cbcl_face", "CBCL_Face.mat")
    faces = load_cbcl(path).data if path else render_faces(8, 64, size=19, random_state=0)[0]
    faces = faces / faces.max(axis=1, keepdims=True)
    rng = np.random.default_rng(0)
    clean = np.tile(faces, (args.p, 1))[rng.permutation(args.p * faces.shape[0])]
    X = contaminate(clean, 0.7, 0.1, rng)
    k = args.k
    print(f"data: {'CBCL' if path else 'embedded rendered faces'} {X.shape}, K={k}, "
          f"PSNR of the corrupted data {psnr(X, clean):.2f} dB")
    rows = {}
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, solver in (("OADMM", "admm"), ("OPGD", "pgd"), ("OAPGD", "apgd")):
            # the paper's settings, λ = 1/√F included, as the batch versions below use (BADMM
            # with its dictionary penalty on the per-sample scale, the library's default)
            est = OnlineRobustNMF(k, solver=solver, batch_size=5, scale=None, settings="paper",
                                  random_state=0)
            t0 = time.perf_counter()
            est.fit(X)
            t = time.perf_counter() - t0
            rows[name] = (t, psnr(est.decompose(X)[0], clean))
        W0 = project_nonneg_l2_ball(np.random.default_rng(0).random((k, X.shape[1])))
        for name, solver in (("BADMM", "admm"), ("BPGD", "pgd")):
            t0 = time.perf_counter()
            res = batch_robust_nmf(X, k, solver=solver, max_iter=400, tol=1e-5, init=W0,
                                   random_state=0, dict_penalty="mean")
            t = time.perf_counter() - t0
            rows[name] = (t, psnr(res.codes @ res.components, clean))
        mb = MiniBatchNMF(k, batch_size=256, max_iter=50, random_state=0)
        t0 = time.perf_counter()
        codes = mb.fit_transform(X)
        rows["MiniBatchNMF (no outliers)"] = (time.perf_counter() - t0,
                                              psnr(codes @ mb.components_, clean))
        dl = MiniBatchDictionaryLearning(k, alpha=0.1, batch_size=256, max_iter=20,
                                         positive_code=True, positive_dict=True,
                                         fit_algorithm="cd", transform_algorithm="lasso_cd",
                                         transform_alpha=0.1, random_state=0)
        t0 = time.perf_counter()
        codes = dl.fit_transform(X)
        rows["MiniBatchDictionaryLearning (no outliers)"] = (time.perf_counter() - t0,
                                                             psnr(codes @ dl.components_,
                                                                  clean))
    print("\n| method | time (s) | PSNR (dB) |\n|---|---|---|")
    for name, val in rows.items():
        print(f"| {name} | {val[0]:.2f} | {val[1]:.2f} |")
    on_t = np.mean([rows[m][0] for m in ("OADMM", "OPGD")])
    b_t = np.mean([rows[m][0] for m in ("BADMM", "BPGD")])
    print(f"\nbatch time / online time (OADMM, OPGD vs BADMM, BPGD): {b_t / on_t:.2f}x")
    print(f"PSNR online - batch: OADMM {rows['OADMM'][1] - rows['BADMM'][1]:+.2f} dB, "
          f"OPGD {rows['OPGD'][1] - rows['BPGD'][1]:+.2f} dB; "
          f"OADMM - OAPGD {rows['OADMM'][1] - rows['OAPGD'][1]:+.2f} dB")
    for m in ("MiniBatchNMF (no outliers)", "MiniBatchDictionaryLearning (no outliers)"):
        print(f"PSNR gain of OADMM over {m}: {rows['OADMM'][1] - rows[m][1]:+.2f} dB")


if __name__ == "__main__":
    main()
