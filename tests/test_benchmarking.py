import time

import numpy as np
import pytest

from onlinemf import OnlineNMF
from onlinemf.benchmarking import SUITES, run_benchmarks
from onlinemf.benchmarking._measure import (
    fit_curve,
    online_curve,
    peak_memory_mb,
    time_to,
    value_at,
)


def test_time_to_and_value_at_read_the_curve():
    curve = [(0.5, 3.0), (1.0, 2.0), (2.0, 1.0)]
    assert time_to(curve, 2.5) == 1.0
    assert time_to(curve, 0.5) == float("inf")
    assert time_to([(1.0, 0.2), (2.0, 0.5)], 0.4, higher_is_better=True) == 2.0
    assert value_at(curve, 1.5) == 2.0
    assert value_at(curve, 0.1) == 3.0


def test_online_curve_reads_fractions_of_a_pass(rng):
    X = rng.random((200, 8))
    est = OnlineNMF(3, batch_size=25, random_state=0)
    curve = online_curve(est, X, lambda e: -e.score(X), passes=1.5, chunks_per_pass=4,
                         first_pass_chunks=8)
    assert len(curve) == 10  # eighths of the first pass, then quarters; stopped at 1.5 passes
    assert est.n_samples_seen_ == 300
    times = [t for t, _ in curve]
    assert times == sorted(times)


def test_online_curve_feeds_whole_mini_batches(rng):
    from onlinemf.benchmarking._measure import _chunk_size

    assert _chunk_size(1000, 4, 96) == 288  # 1000/4 = 250 rows rounded to whole batches
    assert _chunk_size(1000, 4, None) == 250  # no batch size (not fitted yet): n/parts
    assert _chunk_size(1000, 8, 400) == 400  # at least one batch
    X = rng.random((200, 8))
    est = OnlineNMF(3, batch_size=30, random_state=0)
    calls = []
    fit = est.partial_fit
    est.partial_fit = lambda Xc: (calls.append(Xc.shape[0]), fit(Xc))[1]
    online_curve(est, X, lambda e: 0.0, passes=2, chunks_per_pass=4, first_pass_chunks=8)
    assert calls[0] == 25 and sum(calls) == 400  # the first call sets the batch size
    later = calls[1:]
    assert all(c % 30 == 0 for c in later if c >= 30) and max(later) == 60


def test_fit_curve_reads_one_fit_at_fractions_of_a_pass(rng):
    X = rng.random((200, 8))
    est = OnlineNMF(3, batch_size=25, random_state=0)
    seen = []

    def score(D):
        seen.append(D.copy())
        return float(D.sum())

    curve = fit_curve(est, X, score, passes=2, points_per_pass=4, first_pass_points=8)
    assert len(curve) == 12  # every step of the first pass (eighths), then quarters
    assert est.n_iter_ == 2 and est.n_samples_seen_ == 400  # one fit, no early stop
    times = [t for t, _ in curve]
    assert times == sorted(times)
    np.testing.assert_array_equal(seen[-1], est.components_)  # the last step's dictionary
    # the same run as a plain fit: the reading does not change it
    plain = OnlineNMF(3, batch_size=25, max_iter=2, max_no_improvement=None,
                      random_state=0).fit(X)
    np.testing.assert_array_equal(plain.components_, est.components_)
    # the scoring's own time is not counted: 8 readings of 0.1 s each, 0.7 s of them before
    # the last reading
    slow = fit_curve(OnlineNMF(3, batch_size=25, random_state=0), X,
                     lambda D: time.sleep(0.1) or 0.0, passes=1)
    assert len(slow) == 8 and slow[-1][0] < 0.6
    # a spent budget stops the fit after the step that spent it
    assert len(fit_curve(OnlineNMF(3, batch_size=25, random_state=0), X, score, passes=5,
                         time_budget=0.0)) == 1


def test_peak_memory_sees_numpy_buffers():
    assert peak_memory_mb(lambda: np.ones(2**20)) >= 7.9  # 8 MB of float64


def test_unknown_suite_is_refused():
    assert "nmf" in SUITES
    with pytest.raises(ValueError, match="unknown benchmark suite"):
        run_benchmarks(["nope"], quick=True)


def test_loglog_slope_recovers_the_exponent():
    from onlinemf.benchmarking._scale import loglog_slope

    x = np.array([2e4, 5e4, 1.5e5, 4e5])
    assert loglog_slope(x, 3.0 * x) == pytest.approx(1.0)
    assert loglog_slope(x, 0.1 * x**1.5) == pytest.approx(1.5)
    assert "scale" in SUITES


def test_auto_batch_size_takes_at_least_k_rows():
    from onlinemf.estimators._online_nmf import auto_batch_size

    # the work rule alone gives 16 rows at K = 400, F = 1000; a step's O(K²F) dictionary
    # work needs K rows to cost O(K·F) a row
    assert auto_batch_size(400, 1000) == 400
    assert auto_batch_size(20, 1000) == 30  # the work rule binds below K² F = 6·10⁵
    assert auto_batch_size(2000, 10) == 2000
    est = OnlineNMF(60, random_state=0).fit(np.random.default_rng(0).random((300, 200)))
    assert est.batch_size_ == 60


def test_vr_suite_compares_the_three_methods_at_equal_passes():
    """The vr suite's comparison: VR, SMM and SGD at the same passes, the ratio f(VR) over
    the better rival's f; the planted cases have the asked shape."""
    from onlinemf.benchmarking._vr import SUITE_ROWS, VR_PROBLEMS, compare_vr, vr_data

    assert "vr" in SUITES
    assert [case for case, n in SUITE_ROWS if n == 2000] == list(VR_PROBLEMS)
    assert ("odl", 6000) in SUITE_ROWS  # the recipe of 6000 planted rows
    X = vr_data("onmf", 0, n=120, n_features=8, rank=3)
    assert X.shape == (120, 8) and X.min() >= 0
    assert vr_data("odl", 1, n=50, n_features=6).mean(axis=0) == pytest.approx(np.zeros(6))
    assert vr_data("odl-cbcl", 0, data_dir=None) is None
    c = compare_vr("onmf", X, 0, n_components=3)
    assert c.passes["vr"] == pytest.approx(c.passes["smm"], rel=0.05)
    assert c.passes["sgd"] == pytest.approx(c.passes["smm"])
    assert c.ratio == pytest.approx(c.objective["vr"] / min(c.objective["smm"],
                                                           c.objective["sgd"]))
    assert "VR/best" in c.line()
