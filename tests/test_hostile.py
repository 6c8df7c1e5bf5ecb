"""A rejected or failed call leaves an estimator's whole state unchanged (deep comparison),
and overflowing input is refused by name before it turns into inf or NaN mid-step."""

import copy
import warnings

import numpy as np
import pytest

from onlinemf import (
    OnlineDictionaryLearning,
    OnlineNMF,
    OnlineRobustNMF,
    PoissonSubspaceTracker,
    Problem,
    StochasticMF,
)
from onlinemf.testing import same_state

ESTIMATORS = {
    "OnlineNMF": lambda: OnlineNMF(3, batch_size=10, random_state=0),
    "OnlineRobustNMF": lambda: OnlineRobustNMF(3, batch_size=10, random_state=0),
    "OnlineDictionaryLearning": lambda: OnlineDictionaryLearning(3, batch_size=10,
                                                                 random_state=0),
    "StochasticMF": lambda: StochasticMF("odl", "sgd", 3, max_iter=1, random_state=0),
    "PoissonSubspaceTracker": lambda: PoissonSubspaceTracker(3, random_state=0),
}


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_overflowing_or_bad_input_is_refused_with_state_unchanged(name):
    rng = np.random.default_rng(0)
    X = rng.random((60, 8))
    est = ESTIMATORS[name]().partial_fit(X)
    before = copy.deepcopy(est.__dict__)
    bad_inputs = [X[:, :5]]  # changed n_features
    if name not in ("OnlineRobustNMF", "PoissonSubspaceTracker"):
        bad_inputs.append(X * 1e200)  # no per-sample normalization protects these
    if name != "StochasticMF":  # ODL learns signed data
        bad_inputs.append(-X)
    if name in ("OnlineRobustNMF", "StochasticMF", "OnlineDictionaryLearning"):
        nan = X.copy()
        nan[0, 0] = np.nan  # no missing-data model
        bad_inputs.append(nan)
    for bad in bad_inputs:
        with pytest.raises(ValueError):
            est.partial_fit(bad)
        assert same_state(est.__dict__, before), bad.shape
    est.partial_fit(X)  # and it goes on


@pytest.mark.parametrize("name", ["OnlineNMF", "OnlineRobustNMF", "OnlineDictionaryLearning",
                                  "PoissonSubspaceTracker"])
def test_a_call_failing_mid_stream_restores_the_state(name, monkeypatch):
    """A failure after some mini-batches of a call have updated the model (here a solver
    forced to raise on its third use) leaves the state of before the call."""
    import onlinemf.estimators._online_nmf as onmf
    import onlinemf.estimators._online_robust_nmf as ornmf
    import onlinemf.estimators._poisson_tracker as pt
    import onlinemf.updates._surrogate as surrogate_rules

    rng = np.random.default_rng(1)
    X = rng.random((80, 8))
    est = ESTIMATORS[name]().partial_fit(X)
    before = copy.deepcopy(est.__dict__)
    module, attr = {"OnlineNMF": (onmf.CodeSolver, "solve"),
                    "OnlineRobustNMF": (ornmf, "solve_codes_outliers"),
                    "OnlineDictionaryLearning": (surrogate_rules, "bcd_dictionary"),
                    "PoissonSubspaceTracker": (pt.CodeSolver, "solve")}[name]
    real, calls = getattr(module, attr), []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise FloatingPointError("forced failure")
        return real(*args, **kwargs)

    monkeypatch.setattr(module, attr, flaky)
    with pytest.raises(FloatingPointError):
        est.partial_fit(X)
    assert len(calls) == 3
    assert same_state(est.__dict__, before)


def test_stochastic_mf_matrix_parameters_as_lists_or_of_the_wrong_size():
    rng = np.random.default_rng(0)
    X = rng.random((30, 3))
    L = [[1.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 1.0]]
    est = StochasticMF(Problem("ssodl", laplacian=L), "smm", 2, max_iter=1, random_state=0).fit(X)
    assert np.isfinite(est.components_).all()
    with pytest.raises(ValueError, match=r"laplacian must be a \(3, 3\) matrix"):
        StochasticMF(Problem("ssodl", laplacian=[[1.0]]), "smm", 2, max_iter=1).fit(X)
    with pytest.raises(ValueError, match="laplacian must be finite"):
        StochasticMF(Problem("ssodl", laplacian=np.full((3, 3), np.nan)), "smm", 2,
                     max_iter=1).fit(X)


def test_robust_nmf_without_per_sample_scaling_refuses_overflow():
    X = np.random.default_rng(0).random((40, 6))
    est = OnlineRobustNMF(2, scale=None, batch_size=10, random_state=0).partial_fit(X)
    before = copy.deepcopy(est.__dict__)
    with pytest.raises(ValueError, match="overflow"):
        est.partial_fit(X * 1e155)
    with pytest.raises(ValueError, match="overflow"):
        est.score(X * 1e300)
    assert same_state(est.__dict__, before)


@pytest.mark.parametrize("make", [lambda: OnlineNMF(8, max_iter=1),
                                  lambda: OnlineRobustNMF(8, max_iter=1),
                                  lambda: PoissonSubspaceTracker(8)])
def test_more_components_than_features_warns_the_same_way(make):
    """The nonnegative factorizations and the subspace tracker warn alike when K > F (a
    dictionary learner's overcomplete dictionary is its design, and does not warn)."""
    X = np.random.default_rng(0).random((40, 5)) + 0.1
    with pytest.warns(UserWarning, match="n_components=8 exceeds the 5 features"):
        make().fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        OnlineDictionaryLearning(8, max_iter=1, max_no_improvement=None).fit(X)
