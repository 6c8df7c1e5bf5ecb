"""Property-based checks over every public estimator, from one registry (hypothesis, fixed
seed, bounded examples): whatever the input — shapes, dtypes, NaN/inf, negatives, zeros,
extreme scales, sparse matrices, lists, a changed number of features, bad parameters set by
``set_params`` — a call ends either in a ValueError/TypeError that names the problem with the
estimator's state unchanged, or in finite outputs of the right shape."""

from __future__ import annotations

import copy
from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onlinemf as om
from onlinemf.testing import same_state

# name -> (factory, whether it takes a missing-data mask via NaN, bad set_params)
REGISTRY = {
    "OnlineNMF": (lambda: om.OnlineNMF(2, batch_size=5, random_state=0), True,
                  [{"batch_size": 0}, {"loss": "foo"}, {"n_components": -1},
                   {"dictionary_update": om.SGD(a=-1.0)},
                   {"coder": om.CodeSolver(tol=np.nan)}]),
    "OnlineNMF-kl": (lambda: om.OnlineNMF(2, loss="kl", batch_size=5, random_state=0), True,
                     [{"batch_size": -3}, {"dictionary_update": om.Surrogate(eps=2.0)}]),
    "OnlineRobustNMF": (lambda: om.OnlineRobustNMF(2, batch_size=5, random_state=0), False,
                        [{"batch_size": 0}, {"solver": "foo"},
                         {"solver": om.RobustSolver(kappa=5.0)}]),
    "OnlineDictionaryLearning": (lambda: om.OnlineDictionaryLearning(2, batch_size=5,
                                                                  random_state=0), False,
                                 [{"batch_size": 0}, {"alpha": -1.0}]),
    "StochasticMF-onmf": (lambda: om.StochasticMF("onmf", "sgd", 2, max_iter=1,
                                               random_state=0), False,
                          [{"method": "foo"}, {"max_iter": 0}]),
    "PoissonSubspaceTracker": (lambda: om.PoissonSubspaceTracker(2, random_state=0), True,
                               [{"lam": -1.0}, {"method": "foo"}]),
}

OUTCOMES: dict[str, Counter] = {name: Counter() for name in REGISTRY}

KINDS = ("plain", "zeros", "tiny", "huge", "negative", "nan", "inf", "sparse", "list",
         "float32", "empty_rows", "one_row", "changed_features", "bad_params")


@st.composite
def cases(draw):
    n = draw(st.integers(1, 25))
    f = draw(st.integers(1, 7))
    kind = draw(st.sampled_from(KINDS))
    seed = draw(st.integers(0, 2**16))
    return n, f, kind, seed


def _data(n, f, kind, seed):
    rng = np.random.default_rng(seed)
    X = rng.random((n, f)) * 3
    if kind == "zeros":
        X[:] = 0.0
    elif kind == "tiny":
        X *= 1e-300
    elif kind == "huge":
        X *= 10.0 ** rng.integers(10, 300)
    elif kind == "negative":
        X[0, 0] = -1.0
    elif kind == "nan":
        X[rng.random(X.shape) < 0.3] = np.nan
    elif kind == "inf":
        X[0, -1] = np.inf
    elif kind == "sparse":
        X[X < 1.5] = 0.0
        return sp.csr_matrix(X)
    elif kind == "list":
        return X.tolist()
    elif kind == "float32":
        return X.astype(np.float32)
    elif kind == "empty_rows":
        return X[:0]
    elif kind == "one_row":
        return X[:1]
    return X


def _outputs_ok(est, X, n_rows, n_features):
    """Finite outputs of the right shape from the fitted estimator on X (if it accepts X)."""
    codes = est.transform(X)
    assert codes.shape == (n_rows, est.components_.shape[0])
    assert np.all(np.isfinite(codes))
    assert est.components_.shape[1] == n_features and np.all(np.isfinite(est.components_))
    if hasattr(est, "score"):
        assert np.isfinite(est.score(X))


def _check(name, case):
    factory, _, bad_params = REGISTRY[name]
    n, f, kind, seed = case
    rng = np.random.default_rng(seed)
    base = rng.random((12, f)) + 0.1
    est = factory().partial_fit(base)  # a fitted state to protect
    before = copy.deepcopy(est.__dict__)
    X = _data(n, f, kind, seed)
    if kind == "changed_features":
        X = rng.random((n, f + 1))
    if kind == "bad_params":
        est.set_params(**bad_params[seed % len(bad_params)])
        X = base
    try:
        est.partial_fit(X)
    except (ValueError, TypeError) as exc:
        assert str(exc), "an error must say what is wrong"
        if kind == "bad_params":
            est.set_params(**factory().get_params())
        assert same_state(est.__dict__, before), (kind, str(exc))
        OUTCOMES[name]["refused"] += 1
        return
    assert kind != "bad_params", "a bad parameter was accepted"
    rows = len(X) if isinstance(X, list) else X.shape[0]
    if rows:
        _outputs_ok(est, X, rows, f)
    OUTCOMES[name]["accepted"] += 1


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_estimator_refuses_clearly_or_gives_finite_output(name):
    @settings(max_examples=150, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(cases())
    def run(case):
        _check(name, case)

    run()
    assert sum(OUTCOMES[name].values()) >= 150
    print(f"\n{name}: {dict(OUTCOMES[name])}")  # shown with pytest -s


NDL_OUTCOMES: Counter = Counter()


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.integers(0, 9), st.lists(
    st.tuples(st.integers(0, 7), st.integers(0, 7),
              st.sampled_from([1.0, 2.5, 0.0, -1.0, np.inf, np.nan, 1e-300, 1e300])),
    max_size=20), st.booleans())
def test_network_dictionary_learning_on_generated_edge_lists(n_bad_ids, edges, as_graph):
    """Edge lists with any weights (negative, zero, inf, NaN, extreme) and fractional ids, as a
    networkx graph or an array: a clear ValueError, or finite patches and reconstruction."""
    import networkx as nx

    from onlinemf import NetworkDictionaryLearning

    arr = np.array([[u, v, w] for u, v, w in edges], dtype=float).reshape(-1, 3)
    if n_bad_ids == 0 and len(arr):
        arr[0, 0] += 0.5  # a fractional node id
    if as_graph:
        G = nx.Graph()
        G.add_weighted_edges_from((int(u), int(v), w) for u, v, w in arr)
    else:
        G = arr
    est = NetworkDictionaryLearning(2, 3, n_iter=2, batch_size=5, random_state=0)
    try:
        est.fit(G) if as_graph else est.fit(_edges(G))
    except ValueError as exc:
        assert str(exc)
        NDL_OUTCOMES["refused"] += 1
        return
    assert np.all(np.isfinite(est.patches_)) and np.all(np.isfinite(est.importance_))
    R = est.reconstruct(G if as_graph else _edges(G), n_steps=20)
    assert np.all(np.isfinite(R.data))
    NDL_OUTCOMES["accepted"] += 1


def _edges(arr):
    from onlinemf.graphs import as_adjacency

    return as_adjacency(arr, kind="edges")
