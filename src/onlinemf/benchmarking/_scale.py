"""The ``scale`` suite: how OnlineNMF's cost grows with the number of components K and the
number of features F, against MiniBatchNMF at both sides' defaults (MiniBatchNMF with its
own BLAS threads)."""

from __future__ import annotations

import os
import time
import warnings

import numpy as np
import scipy.sparse as sp

from ._measure import fit_curve, peak_memory_mb, restart_curve, time_to

__all__ = ["suite_scale", "loglog_slope"]

#: components of the dense and sparse cases (``--quick``: the first two)
SCALE_COMPONENTS = (20, 50, 150, 400)
#: the anchor's passes whose objective is the target
TARGET_PASSES = 10
#: one-pass fits timed per side and case; the median is the reading (a pass of a second or
#: two moves from run to run, and the slope reads the small K)
PASS_REPEATS = 3


def loglog_slope(x, y) -> float:
    """Least-squares slope of log y against log x: the exponent p of y ∝ x^p."""
    x, y = np.log(np.asarray(x, dtype=float)), np.log(np.asarray(y, dtype=float))
    return float(np.polyfit(x, y, 1)[0])


def _dense_case(quick: bool):
    """Poisson counts of a rank-20 gamma model, 1000 features, scaled to max 1."""
    n = 4000 if quick else 10000
    rng = np.random.default_rng(0)
    W = rng.gamma(0.3, 1.0, (n, 20))
    H = rng.gamma(0.3, 1.0, (20, 1000))
    X = rng.poisson(W @ H).astype(float)
    return f"Poisson {n}×1000 dense", X / X.max()


def _sparse_case(ctx):
    """20 Newsgroups (all 18846 messages) with its full TF-IDF vocabulary when the data
    folder has it, else a generated Zipf corpus of 10⁵ terms (saying so)."""
    from ..datasets import find_data, load_20newsgroups

    path = find_data(ctx.data_dir, "20newsgroups", "20news-bydate.tar.gz")
    if path:
        from sklearn.feature_extraction.text import TfidfVectorizer

        news = load_20newsgroups(path, "all")
        X = TfidfVectorizer().fit_transform(news.data).tocsr()
        name = f"20 Newsgroups {X.shape[0]}×{X.shape[1]} TF-IDF"
    else:
        n, f = (4000, 100_000) if ctx.quick else (20_000, 100_000)
        rng = np.random.default_rng(0)
        length = rng.poisson(120, n) + 1
        probs = 1.0 / np.arange(1, f + 1) ** 1.1
        cols = rng.choice(f, size=int(length.sum()), p=probs / probs.sum())
        rows = np.repeat(np.arange(n), length)
        X = sp.csr_matrix((np.ones(cols.size), (rows, cols)), shape=(n, f))
        X.sum_duplicates()
        name = f"generated Zipf corpus {n}×{f} (20 Newsgroups not given)"
    return name, (X / X.max()).tocsr()


def _case_rows(ctx, data_name, X, k, lname):
    """Two rows: time to MiniBatchNMF's ``TARGET_PASSES``-pass objective, and one pass."""
    from sklearn.decomposition import MiniBatchNMF

    from .. import OnlineNMF
    from ..losses import get_loss
    from ._suites import SK_LOSS, Row, _neutral_score

    ev = np.random.default_rng(0).choice(X.shape[0], min(500, X.shape[0]), replace=False)
    score = _neutral_score(get_loss(lname), X[ev])

    def anchor(passes):
        return MiniBatchNMF(k, beta_loss=SK_LOSS[lname], max_iter=passes, tol=0,
                            max_no_improvement=None, random_state=0)

    def ours(passes=TARGET_PASSES):
        return OnlineNMF(k, loss=lname, max_iter=passes, max_no_improvement=None,
                         random_state=0)

    ((t10, f10),) = restart_curve(anchor, X, lambda e: score(e.components_),
                                  [TARGET_PASSES])
    est = ours()
    # one fit read through its callback, as a user runs it (a first partial_fit of an eighth
    # of the data would choose the start and the batch size from that eighth)
    curve = fit_curve(est, X, score, passes=TARGET_PASSES, time_budget=0.5 * t10)
    t_target = time_to(curve, f10)
    # one pass as MiniBatchNMF's: fit with max_iter=1, each side timed PASS_REPEATS times
    t1, first = median_pass(lambda: anchor(1), X)
    t_pass, one = median_pass(lambda: ours(1), X)
    mem_ours = peak_memory_mb(lambda: ours(1).fit(X))
    mem_anchor = peak_memory_mb(lambda: anchor(1).fit(X))
    case = f"{data_name} / {lname} (K={k})"
    batch = f"batch_size_={one.batch_size_}"
    return [
        Row("scale", case, "OnlineNMF()", f"MiniBatchNMF {TARGET_PASSES} passes", t10,
            t_target, t_target / t10, f10, curve[-1][1], peak_mb_ours=mem_ours,
            peak_mb_anchor=mem_anchor, note=f"{batch}; ours ends at {curve[-1][0]:.2f} s"),
        Row("scale", f"{case}, one pass", "OnlineNMF() one pass", "MiniBatchNMF one pass",
            t1, t_pass, t_pass / t1, score(first.components_), score(one.components_),
            peak_mb_ours=mem_ours, peak_mb_anchor=mem_anchor,
            note=f"{batch}; median of {PASS_REPEATS} timings a side"),
    ]


def median_pass(make, X, repeats: int | None = None):
    """(median seconds, the last estimator) of ``repeats`` (``PASS_REPEATS``) fits of
    ``make()`` on X, each from scratch."""
    from sklearn.exceptions import ConvergenceWarning

    times = []
    for _ in range(PASS_REPEATS if repeats is None else repeats):
        est = make()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            t0 = time.perf_counter()
            est.fit(X)
            times.append(time.perf_counter() - t0)
    return float(np.median(times)), est


def _slope_row(data_name, lname, ks, passes, n_features):
    """The log–log slope of time per pass against K·F, ours and the anchor's, from the
    one-pass rows ``passes`` measured at the components ``ks`` (in that order)."""
    from ._suites import Row

    kf = [k * n_features for k in ks]
    ours = loglog_slope(kf, [r.ours_time for r in passes])
    anchor = loglog_slope(kf, [r.anchor_time for r in passes])
    return Row("scale", f"{data_name} / {lname}: time per pass against K·F, K = "
               + ", ".join(map(str, ks)), "OnlineNMF()", "MiniBatchNMF", float("nan"),
               float("nan"), float("nan"), anchor, ours,
               metric="log-log slope (1 = linear)",
               note="slope of log(seconds per pass) on log(K·F); anchor_value is "
                    "MiniBatchNMF's")


def suite_scale(ctx) -> list:
    """OnlineNMF at its defaults against MiniBatchNMF for K = 20, 50, 150, 400 (``--quick``:
    20 and 50) on dense data with F = 1000 and on a sparse corpus with ~10⁵ terms, squared
    and KL: time to MiniBatchNMF's 10-pass objective, one pass, peak memory, and the log–log
    slope of time per pass against K·F. Both run with the machine's BLAS threads."""
    from threadpoolctl import threadpool_limits

    ks = SCALE_COMPONENTS[:2] if ctx.quick else SCALE_COMPONENTS
    rows: list = []
    with threadpool_limits(os.cpu_count() or 1):
        for data_name, X in (_dense_case(ctx.quick), _sparse_case(ctx)):
            for lname in ("squared", "kl"):
                case_rows: list = []
                for k in ks:
                    case_rows += _case_rows(ctx, data_name, X, k, lname)
                    if ctx.progress:
                        r, p = case_rows[-2], case_rows[-1]
                        ctx.progress(f"  {r.case}: to target {r.ratio:.3g}, one pass "
                                     f"{p.ratio:.3g}")
                rows += case_rows
                if len(ks) > 1:
                    rows.append(_slope_row(data_name, lname, ks, case_rows[1::2],
                                           X.shape[1]))
    return rows
