"""The shipped checks (``onlinemf.testing``) over every public estimator, from one registry."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

from onlinemf import (
    NetworkDictionaryLearning,
    OnlineDictionaryLearning,
    OnlineNMF,
    OnlineRobustNMF,
    PoissonSubspaceTracker,
    StochasticMF,
)
from onlinemf.testing import check_graph_estimator, check_online_estimator

# name -> (factory, waivers); the waivers are the estimators' documented design
# (OnlineNMF's scale="max" is, by design, the max of X in fit and of the first chunk in
# partial_fit, and its init="samples" draws atoms from X in fit and from the first chunk in
# partial_fit: a fixed scale and the random W₀ make the two comparable; the default
# surrogate dictionary step and the paper's SGD are both checked)
REGISTRY = {
    "OnlineNMF": (lambda: OnlineNMF(3, batch_size=10, scale=10.0, init="random",
                                    random_state=0), {}),
    "OnlineNMF-kl-sparse-steps": (lambda: OnlineNMF(3, loss="kl", batch_size=7, scale=10.0,
                                                    init="random", random_state=0), {}),
    "OnlineNMF-sgd": (lambda: OnlineNMF(3, loss="is", batch_size=10, scale=10.0,
                                        dictionary_update="sgd", data_floor=1e-8,
                                        random_state=0), {}),
    "OnlineRobustNMF": (lambda: OnlineRobustNMF(3, batch_size=10, random_state=0), {}),
    "OnlineDictionaryLearning": (lambda: OnlineDictionaryLearning(3, batch_size=10,
                                                                  random_state=0), {}),
    # SMM: fit's drawn mini-batches, each through partial_fit, end where fit does (a random
    # W₀: the default start draws rows of the data given). SGD's step size is set from the
    # finite sum's size N, which a partial_fit sees as its chunk's rows; VR's partial_fit is
    # an outer iteration whose snapshot is the full gradient of its chunk alone
    "StochasticMF-smm": (lambda: StochasticMF("onmf", "smm", 3, max_iter=1, batch_size=10,
                                              init="random", random_state=0), {}),
    "StochasticMF-smm-odl": (lambda: StochasticMF("odl", "smm", 3, max_iter=1, batch_size=10,
                                                  init="random", random_state=0), {}),
    "StochasticMF-sgd": (lambda: StochasticMF("odl", "sgd", 3, max_iter=1, random_state=0),
                         {"stream_equals_fit": False}),
    "StochasticMF-vr": (lambda: StochasticMF("orpca", "vr", 3, max_iter=2, random_state=0),
                        {"stream_equals_fit": False}),
    # memory-limited SA keeps O(NK); fit is partial_fit from a fresh start
    "PoissonSubspaceTracker": (lambda: PoissonSubspaceTracker(3, random_state=0), {}),
    # the paper's projected-gradient row solver in place of the exact rows
    "PoissonSubspaceTracker-pgd": (lambda: PoissonSubspaceTracker(3, row_solver="pgd",
                                                                  random_state=0), {}),
    # SA refits on the whole past: its state grows with the stream (the paper's Algorithm 1)
    "PoissonSubspaceTracker-sa": (lambda: PoissonSubspaceTracker(3, method="sa",
                                                                 random_state=0),
                                  {"bounded_state": False}),
}


@pytest.mark.parametrize("name", list(REGISTRY))
def test_online_estimator_checks(name):
    make, waivers = REGISTRY[name]
    rng = np.random.default_rng(0)
    X = np.round(rng.random((90, 4)) @ rng.random((4, 12)) * 10, 3) + 0.01
    check_online_estimator(make, X, **waivers)


@pytest.mark.parametrize("name", [n for n in REGISTRY if not n.endswith(("-sa", "-steps"))])
def test_scikit_learn_estimator_checks(name):
    import warnings

    from sklearn.exceptions import SkipTestWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkipTestWarning)
        check_estimator(REGISTRY[name][0]())


@pytest.mark.parametrize("chain", ["glauber", "pivot"])
def test_network_dictionary_learning_checks(chain):
    """NetworkDictionaryLearning is fitted on a network and draws its own samples, so the
    streaming checks do not apply; the checks for a network's estimator do."""
    import networkx as nx

    G = nx.karate_club_graph()
    for u, v in G.edges():
        G[u][v]["weight"] = 1.0 + (u + v) % 3
    check_graph_estimator(lambda: NetworkDictionaryLearning(4, motif_size=4, n_iter=20,
                                                            batch_size=10, chain=chain,
                                                            random_state=0),
                          G, nx.empty_graph(5))


class _LeakyState:
    """A stand-in estimator whose rule state keeps the caller's X (aliasing) and is written
    in place by the next call (not a value): the checks must catch both."""

    def __init__(self, in_place=False):
        self.in_place = in_place

    def fit(self, X):
        return self.partial_fit(X)

    def partial_fit(self, X):
        from onlinemf.updates import SurrogateState

        if self.in_place and hasattr(self, "state_"):
            self.state_.n_samples_seen.fill(X.shape[0])
            return self
        self.components_ = np.ones((2, X.shape[1]))
        self.state_ = SurrogateState(None, 0, X if not self.in_place else np.zeros(1))
        return self

    def transform(self, X):
        return X[:, :2]


def test_the_checks_read_the_state_object():
    from onlinemf.testing import check_no_aliasing, check_state_is_immutable

    X = np.random.default_rng(0).random((10, 3))
    with pytest.raises(AssertionError, match=r"state_\.n_samples_seen aliases"):
        check_no_aliasing(_LeakyState, X)
    with pytest.raises(AssertionError, match="changed the previous state_ in place"):
        check_state_is_immutable(lambda: _LeakyState(in_place=True), X)
