"""``fit`` converges as a scikit-learn user expects: a cap on passes, a stopping rule on the
smoothed objective, a ConvergenceWarning at the cap, progress lines with ``verbose``; and at
its defaults it recovers planted factors under each loss's own noise model."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from onlinemf import OnlineDictionaryLearning, OnlineNMF, OnlineRobustNMF
from onlinemf.datasets import make_nmf_synthetic
from onlinemf.estimators._convergence import ConvergenceMonitor


def test_monitor_stops_after_max_no_improvement_flat_batches():
    m = ConvergenceMonitor(n_samples=100, tol=0.0, max_no_improvement=3, max_iter=5)
    # w = 10/100: the smoothed value moves a tenth of the way to each batch's loss
    assert not m.update(10.0, 10)
    assert not m.update(5.0, 10)   # improves
    assert m.smoothed == pytest.approx(9.5)
    for _ in range(2):
        assert not m.update(1e6, 10)  # worse: not an improvement
    assert m.update(1e6, 10)          # the third in a row stops
    assert m.converged


def test_monitor_counts_only_a_relative_tol_as_improvement():
    m = ConvergenceMonitor(n_samples=10, tol=0.1, max_no_improvement=2, max_iter=5)
    m.update(1.0, 10)                 # w = 1: the smoothed value is the batch's loss
    assert not m.update(0.95, 10)     # 5% lower: less than tol
    assert m.update(0.93, 10)         # still within 10% of the best (1.0): stop
    m = ConvergenceMonitor(n_samples=10, tol=0.1, max_no_improvement=2, max_iter=5)
    m.update(1.0, 10)
    m.update(0.95, 10)
    assert not m.update(0.85, 10)     # 15% below the best: improvement, counter reset
    assert m.stalled == 0 and m.best == pytest.approx(0.85)


def _data(seed=0):
    return make_nmf_synthetic(600, 20, 4, noise="poisson", random_state=seed).X


# every estimator whose fit makes passes over X, with the stopping rule of MiniBatchNMF
PASSES = {
    "OnlineNMF": lambda **kw: OnlineNMF(4, loss="kl", random_state=0, **kw),
    "OnlineRobustNMF": lambda **kw: OnlineRobustNMF(4, batch_size=20, random_state=0, **kw),
    "OnlineDictionaryLearning": lambda **kw: OnlineDictionaryLearning(
        4, alpha=0.1, batch_size=20, random_state=0, **kw),
}


@pytest.mark.parametrize("name", list(PASSES))
def test_fit_stops_by_its_rule_before_the_cap(name):
    X = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = PASSES[name]().fit(X)
    assert est.converged_
    assert 1 < est.n_iter_ < est.max_iter


def test_stopping_mid_pass_counts_that_pass():
    X = _data()
    est = PASSES["OnlineNMF"]().fit(X)
    per_pass = int(np.ceil(X.shape[0] / est.batch_size_for(X)))
    assert (est.n_iter_ - 1) * per_pass < est.n_steps_ <= est.n_iter_ * per_pass


@pytest.mark.parametrize("name", list(PASSES))
def test_the_cap_warns_only_when_the_rule_was_on(name):
    X = _data()
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        est = PASSES[name](max_iter=2).fit(X)
    assert est.n_iter_ == 2 and not est.converged_
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = PASSES[name](max_iter=3, max_no_improvement=None).fit(X)
    assert est.n_iter_ == 3 and not est.converged_


@pytest.mark.parametrize("name", list(PASSES))
def test_the_rule_off_gives_the_steps_of_the_fixed_pass_count(name):
    X = _data()
    a = PASSES[name](max_iter=2, max_no_improvement=None).fit(X)
    with pytest.warns(ConvergenceWarning):
        b = PASSES[name](max_iter=2).fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)


@pytest.mark.parametrize("name", list(PASSES))
def test_verbose_prints_the_smoothed_objective_each_pass(name, capsys):
    X = _data()
    with pytest.warns(ConvergenceWarning):
        PASSES[name](max_iter=3, verbose=1).fit(X)
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if "smoothed objective" in ln]
    assert len(lines) == 3 and "pass 3/3" in lines[-1]
    values = [float(ln.split("smoothed objective ")[1].split(",")[0]) for ln in lines]
    assert values[-1] < values[0]
    assert "reached max_iter=3" in out


@pytest.mark.parametrize("name", list(PASSES))
def test_partial_fit_counts_a_pass_per_call(name):
    X = _data()
    est = PASSES[name]()
    est.partial_fit(X[:300])
    est.partial_fit(X[300:])
    assert est.n_iter_ == 2


@pytest.mark.parametrize("name", list(PASSES))
def test_a_dask_fit_stops_by_the_same_rule(name):
    da = pytest.importorskip("dask.array")
    X = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = PASSES[name]().fit(da.from_array(X, chunks=(150, -1)))
    assert est.converged_ and 1 < est.n_iter_ < est.max_iter


def test_a_failed_fit_does_not_warn(monkeypatch):
    from onlinemf.coders import CodeSolver

    def broken(*args, **kwargs):
        raise FloatingPointError("forced")

    monkeypatch.setattr(CodeSolver, "solve", broken)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        with pytest.raises(FloatingPointError):
            OnlineNMF(4, loss="kl", max_iter=2, random_state=0).fit(_data())


# -- defaults recover planted factors -------------------------------------------------------
NOISE = {"squared": "gaussian", "kl": "poisson", "is": "gamma", "beta": "poisson",
         "alpha": "poisson", "hellinger": "poisson", "huber": "outliers"}


def gap_closed(loss, seed, n=1000, f=40, k=6):
    """Share of the gap between a rank-1 model (c·mᵀ: m the column means, c each row's
    least-squares scale) and the planted factors that the default fit closes, in the loss
    itself, on data drawn with the loss's own noise model."""
    d = make_nmf_synthetic(n, f, k, noise=NOISE[loss], random_state=seed)
    X = np.maximum(d.X, 1e-8) if loss == "is" else d.X
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = OnlineNMF(k, loss=loss, random_state=seed).fit(X)
    s = est.scale_

    def f_of(Y):
        return float(est.loss_.value(X / s, Y / s).mean())

    m = X.mean(axis=0)
    c = X @ m / (m @ m)
    f1, fp = f_of(np.outer(c, m)), f_of(d.X_clean)
    return (f1 - f_of(est.transform(X) @ est.components_)) / (f1 - fp)


@pytest.mark.parametrize("loss", list(NOISE))
def test_defaults_close_the_rank_one_to_planted_gap(loss):
    closed = np.median([gap_closed(loss, seed) for seed in range(3)])
    assert closed >= 0.9, closed


def test_defaults_close_the_l1_gap_under_outliers():
    NOISE["l1"] = "outliers"
    try:
        closed = np.median([gap_closed("l1", seed) for seed in range(3)])
    finally:
        del NOISE["l1"]
    assert closed >= 0.7, closed


@pytest.mark.parametrize("name", list(PASSES))
def test_a_dask_fit_stopped_mid_pass_reads_no_further_block(name, monkeypatch):
    """Once the rule stops fit, the rest of the pass is not read: on data larger than memory
    each block read is a trip to the disk."""
    da = pytest.importorskip("dask.array")
    import onlinemf._batches as base

    real, reads = base.iter_row_blocks, []

    def counting(*args, **kwargs):
        for block in real(*args, **kwargs):
            reads.append(block.shape[0])
            yield block

    monkeypatch.setattr(base, "iter_row_blocks", counting)
    X = _data()
    est = PASSES[name]().fit(da.from_array(X, chunks=(30, -1)))  # 20 blocks a pass
    assert est.converged_
    assert len(reads) < 20 * est.n_iter_  # the last pass stopped early
