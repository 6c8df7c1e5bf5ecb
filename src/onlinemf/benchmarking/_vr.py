"""The ``vr`` suite: StochasticMF's variance reduction (VR) at its defaults against its two
baselines, SMM and proximal SGD, at their defaults, at equal data passes.

StochasticMF gives SMM and SGD the budget of per-sample solves that VR spends (its snapshot
passes counted), so the three fits end at the same number of passes; a row compares their
exact objectives there, f(VR) / min(f(SMM), f(SGD)) (below 1: VR ends lower), with each
method's wall time beside it. The problems are those of Zhao, Haskell and Feng (2018,
arXiv:1705.10679) at a small scale: ODL on centred planted low-rank data, ONMF on
nonnegative planted data, ORPCA on their Synth recipe (10% outliers), and ODL on the CBCL
faces and MNIST digits when the data folder holds them.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np

__all__ = ["VR_PROBLEMS", "SUITE_ROWS", "VRComparison", "vr_data", "compare_vr", "suite_vr"]

#: the suite's cases: the problem's name, then the data (``vr_data``)
VR_PROBLEMS = ("odl", "onmf", "orpca", "odl-cbcl", "odl-mnist")
#: rows of the MNIST case (the 10000 test images are the data folder's; a subset keeps the
#: case as long as the others)
MNIST_ROWS = 3000
#: the suite's rows: (case, rows of planted data): each case at the small scale, and ODL at
#: the 6000 rows of the recipe that showed VR ending above its rivals at the defaults
SUITE_ROWS = tuple((case, 2000) for case in VR_PROBLEMS) + (("odl", 6000),)


def vr_data(case: str, seed: int, n: int = 6000, n_features: int = 64, rank: int = 10,
            data_dir: str | None = None):
    """The rows of one case: centred planted rank-``rank`` data with 0.1 Gaussian noise
    (``odl``), nonnegative planted data (``onmf``), the Synth recipe with 10% outliers of
    size 10 (``orpca``), the CBCL faces (``odl-cbcl``) or MNIST's first ``MNIST_ROWS``
    images (``odl-mnist``), the last two in [0, 1] and None when the data are not found."""
    from ..datasets import find_data, load_cbcl, load_mnist, make_smf_synthetic

    if case == "odl-cbcl":
        path = find_data(data_dir, "cbcl_face", "CBCL_Face.mat")
        return None if path is None else load_cbcl(str(path)).data
    if case == "odl-mnist":
        path = find_data(data_dir, "mnist", "t10k-images-idx3-ubyte.gz")
        if path is None:
            return None
        import os

        return load_mnist(os.path.dirname(os.path.dirname(str(path))), MNIST_ROWS).data
    rng = np.random.default_rng(seed)
    if case == "odl":
        X = rng.standard_normal((n, rank)) @ rng.standard_normal((rank, n_features))
        X += 0.1 * rng.standard_normal((n, n_features))
        return X - X.mean(axis=0)
    if case == "onmf":
        X = rng.random((n, rank)) @ rng.random((rank, n_features))
        return X + 0.01 * rng.random((n, n_features))
    if case == "orpca":
        return make_smf_synthetic(n, n_features, rank, 0.1, 10.0, random_state=seed)[0].X
    raise ValueError(f"unknown case {case!r}; known: {VR_PROBLEMS}")


@dataclass
class VRComparison:
    """One case and seed: per method (vr, smm, sgd) the final objective, passes and wall
    time."""

    case: str
    seed: int
    objective: dict
    passes: dict
    seconds: dict

    @property
    def ratio(self) -> float:
        """f(VR) / min(f(SMM), f(SGD))."""
        return self.objective["vr"] / min(self.objective["smm"], self.objective["sgd"])

    def line(self) -> str:
        cells = "  ".join(f"{m} f={self.objective[m]:.6g} passes={self.passes[m]:.1f} "
                          f"time={self.seconds[m]:.1f}s" for m in self.objective)
        return f"{self.case} seed {self.seed}: VR/best {self.ratio:.4f}  {cells}"


def compare_vr(case: str, X, seed: int, n_components: int = 20, **vr_params) -> VRComparison:
    """Fit VR, SMM and SGD at their defaults (``vr_params`` change VR's, e.g.
    ``settings="paper"`` for the paper's protocol) and read their exact objectives."""
    from .. import StochasticMF

    out = {k: {} for k in ("objective", "passes", "seconds")}
    for method in ("vr", "smm", "sgd"):
        kw = vr_params if method == "vr" else {}
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = StochasticMF(case.split("-")[0], method, n_components, random_state=seed,
                               **kw).fit(X)
        out["seconds"][method] = time.perf_counter() - t0
        out["objective"][method] = est.objective(X)
        out["passes"][method] = est.n_solves_ / X.shape[0]
    return VRComparison(case, seed, **out)


def suite_vr(ctx) -> list:
    """One row per entry of ``SUITE_ROWS``: VR against the better of SMM and SGD at equal
    passes (seed 0; with ``--quick`` the 6000-row recipe is left out)."""
    from ._suites import Row

    rows = []
    for case, n in SUITE_ROWS:
        if ctx.quick and n > 2000:
            continue
        X = vr_data(case, 0, n=n, data_dir=ctx.data_dir)
        if X is None:
            continue
        c = compare_vr(case, X, 0)
        best = min(("smm", "sgd"), key=c.objective.get)
        rows.append(Row("vr", f"{case} {X.shape[0]}×{X.shape[1]} (K=20)",
                        "StochasticMF vr", f"{best} (the better of SMM, SGD)",
                        c.seconds[best], c.seconds["vr"], c.seconds["vr"] / c.seconds[best],
                        c.objective[best], c.objective["vr"],
                        metric="objective at equal passes (ratio: wall time)",
                        note=f"f(VR)/min(f(SMM), f(SGD)) {c.ratio:.4f} at "
                             f"{c.passes['vr']:.1f} passes; SMM {c.objective['smm']:.6g} "
                             f"in {c.seconds['smm']:.1f} s, SGD {c.objective['sgd']:.6g} in "
                             f"{c.seconds['sgd']:.1f} s"))
        if ctx.progress:
            ctx.progress("  " + c.line())
    return rows
