"""The cheap parts of a call's rollback: parameter names read once per class, settings kept
by reference, the history copied list by list; a failed call still restores everything."""

import copy
import pickle

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from onlinemf import OnlineNMF, OnlineRobustNMF, PoissonSubspaceTracker
from onlinemf._history import History
from onlinemf._params import param_names
from onlinemf.coders import CodeSolver
from onlinemf.updates import SGD


@pytest.mark.parametrize("cls", [OnlineNMF, OnlineRobustNMF, PoissonSubspaceTracker,
                                 CodeSolver, SGD])
def test_param_names_are_scikit_learns(cls):
    assert cls._get_param_names() == BaseEstimator._get_param_names.__func__(cls)
    names = param_names(cls)
    names.append("x")  # the caller's list is its own
    assert "x" not in cls._get_param_names()


def test_history_deep_copy_is_equal_and_independent():
    h = History(max_points=2)
    for i in range(7):
        h.record(10 * i, 0.1 * i, 1.0 / (i + 1), gap=float(i))
    c = copy.deepcopy(h)
    assert vars(c) == vars(h) and c.interval == h.interval == 2
    c.record(100, 1.0, 0.01, gap=9.0)
    assert len(h) == 4 and h.extra["gap"] == [1.0, 3.0, 5.0, 6.0]
    assert c.extra["gap"] == [3.0, 6.0] and c.interval == 4  # thinned: its own lists


class Boom(RuntimeError):
    pass


class FailThird:
    """A callback that raises at its third step (module level, so the state pickles)."""

    def __init__(self):
        self.calls = 0

    def __call__(self, info):
        self.calls += 1
        if self.calls == 3:
            raise Boom("stop")


def test_a_call_that_fails_mid_step_restores_the_whole_state():
    rng = np.random.default_rng(0)
    X = rng.gamma(2.0, 1.0, (200, 12))
    est = OnlineNMF(n_components=3, loss="kl", batch_size=10, random_state=0,
                    callback=FailThird())
    est.partial_fit(X[:10]).partial_fit(X[10:20])
    before = pickle.dumps(sorted(est.__dict__.items(), key=lambda kv: kv[0]))
    with pytest.raises(Boom):
        est.partial_fit(X[20:30])
    assert pickle.dumps(sorted(est.__dict__.items(), key=lambda kv: kv[0])) == before
    # and it goes on from there as if the failed call had not happened
    est.callback = None
    again = OnlineNMF(n_components=3, loss="kl", batch_size=10, random_state=0)
    again.partial_fit(X[:10]).partial_fit(X[10:20]).partial_fit(X[20:30])
    est.partial_fit(X[20:30])
    np.testing.assert_allclose(est.components_, again.components_)
