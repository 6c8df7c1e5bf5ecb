"""Checks every onlinemf estimator must pass (like scikit-learn's ``estimator_checks``):
a streamed ``partial_fit`` equals ``fit`` without shuffling, a pickled estimator resumes bit
for bit, a rejected call changes nothing, the caller's arrays are never modified or aliased
(by a fitted array or one inside the update rule's state ``state_``), the rule's state is an
immutable value that a later call replaces rather than changes, seeded runs are identical, and
the state does not grow with the stream.

Each check takes a factory (no argument → a fresh estimator) and data, and raises
``AssertionError`` naming what failed. :func:`check_online_estimator` runs them all;
:func:`check_graph_estimator` runs those that apply to an estimator fitted on a network.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable

import numpy as np

__all__ = ["same_state", "check_stream_equals_fit", "check_pickle_resume",
           "check_rejected_call_changes_nothing", "check_no_aliasing", "check_state_is_immutable",
           "check_seeded_runs",
           "check_bounded_state", "check_online_estimator", "check_graph_estimator"]


def same_state(a, b) -> bool:
    """Deep equality of estimator states: arrays exactly, containers and objects by value."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
                and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_state(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_state(x, y) for x, y in zip(a, b))
    if isinstance(a, np.random.Generator):
        return same_state(a.bit_generator.state, b.bit_generator.state)
    if hasattr(a, "__dict__") and type(a) is type(b) and not isinstance(a, type):
        return same_state(vars(a), vars(b))
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return True
    return a == b


def _arrays_in(name: str, value, depth: int = 0):
    """(path, array) for ``value`` and every array inside it: the fields of a dataclass or
    object (such as a rule's state and its running statistics), tuples and lists."""
    if isinstance(value, np.ndarray):
        yield name, value
    elif depth < 6 and isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            yield from _arrays_in(f"{name}[{i}]", v, depth + 1)
    elif depth < 6 and hasattr(value, "__dataclass_fields__"):
        for field in value.__dataclass_fields__:
            yield from _arrays_in(f"{name}.{field}", getattr(value, field), depth + 1)


def _fitted_arrays(est) -> dict:
    """Every fitted array, those inside the fitted attributes (the rule's ``state_``)
    included, by path (``state_.stats.sums[1]``)."""
    return {path: arr for k, v in vars(est).items() if k.endswith("_")
            for path, arr in _arrays_in(k, v)}


def check_stream_equals_fit(make: Callable, X) -> None:
    """One pass of ``fit`` without shuffling = ``partial_fit`` over the same rows in chunks
    (whole mini-batches each): the stream is the algorithm. An estimator whose ``fit`` draws
    its mini-batches at random (``_draws_batches``) is checked on the mini-batches it drew:
    ``partial_fit`` over each of them, in turn, ends where ``fit`` did."""
    est = make()
    if getattr(est, "_draws_batches", False):
        _check_drawn_stream_equals_fit(make, X)
        return
    params = est.get_params()
    if "shuffle" in params:
        est.set_params(shuffle=False)
    if "max_iter" in params:
        est.set_params(max_iter=1)
    fitted = est.fit(X)
    stream = make()
    bs = getattr(fitted, "batch_size_", None) or params.get("batch_size")
    step = int(bs) * 3 if isinstance(bs, (int, np.integer)) else X.shape[0]
    for start in range(0, X.shape[0], step):
        stream.partial_fit(X[start:start + step])
    np.testing.assert_array_equal(fitted.components_, stream.components_,
                                  err_msg="partial_fit over a stream differs from fit")


class _BatchRecorder:
    """A hook of the estimators' shared loop that keeps the rows of each mini-batch."""

    def __init__(self, owner):
        self.owner = owner
        self.batches: list[np.ndarray] = []

    def enter_pass(self, segments, monitor):
        return segments

    def after_batch(self, rows) -> None:
        self.batches.append(np.array(rows))

    def end_pass(self) -> None:
        pass


def _check_drawn_stream_equals_fit(make: Callable, X) -> None:
    from ._batches import BATCH_HOOK

    fitted = make()
    recorder = _BatchRecorder(fitted)
    token = BATCH_HOOK.set(recorder)
    try:
        fitted.fit(X)
    finally:
        BATCH_HOOK.reset(token)
    assert recorder.batches, "fit took no mini-batch through the shared loop"
    stream = make()
    for rows in recorder.batches:
        stream.partial_fit(X[rows])
    np.testing.assert_array_equal(fitted.components_, stream.components_,
                                  err_msg="partial_fit over fit's mini-batches differs from fit")


def check_pickle_resume(make: Callable, X) -> None:
    """Pickled halfway, the copy and the original continue identically."""
    half = X.shape[0] // 2
    a = make().partial_fit(X[:half])
    b = pickle.loads(pickle.dumps(a))
    a.partial_fit(X[half:])
    b.partial_fit(X[half:])
    np.testing.assert_array_equal(a.components_, b.components_,
                                  err_msg="a pickled estimator does not resume exactly")


def check_rejected_call_changes_nothing(make: Callable, X) -> None:
    """A call refused for a changed number of features leaves the whole state as it was."""
    import copy

    est = make().partial_fit(X)
    before = copy.deepcopy(vars(est))
    try:
        est.partial_fit(np.concatenate([X, X[:, :1]], axis=1))
    except ValueError:
        pass
    else:
        raise AssertionError("a changed number of features was accepted")
    assert same_state(vars(est), before), "a rejected call changed the state"


def check_no_aliasing(make: Callable, X) -> None:
    """fit, partial_fit and transform never modify X, and no fitted array shares its memory."""
    X0 = X.copy()
    est = make().fit(X)
    est.partial_fit(X)
    est.transform(X)
    np.testing.assert_array_equal(X, X0, err_msg="the caller's X was modified")
    for name, arr in _fitted_arrays(est).items():
        assert not np.shares_memory(arr, X), f"{name} aliases the caller's X"


def check_state_is_immutable(make: Callable, X) -> None:
    """The update rule's state ``state_`` is a value: a later call replaces it and leaves the
    old one, arrays included, as it was (so a failed call can restore it by reference)."""
    import copy

    half = X.shape[0] // 2
    est = make().partial_fit(X[:half])
    old = vars(est).get("state_")
    if old is None:
        return  # no rule state kept between calls (VR's snapshot lasts one outer iteration)
    frozen = copy.deepcopy(old)
    est.partial_fit(X[half:])
    assert same_state(old, frozen), "a call changed the previous state_ in place"
    assert vars(est).get("state_") is not old, "a call did not replace state_"


def check_seeded_runs(make: Callable, X) -> None:
    """The same random_state gives the same model."""
    np.testing.assert_array_equal(make().fit(X).components_, make().fit(X).components_,
                                  err_msg="seeded runs differ")


def check_bounded_state(make: Callable, X, factor: int = 4) -> None:
    """The pickled state after ``factor`` times more samples is not larger by more than a
    small overhead: memory does not grow with the stream."""
    a = make()
    a.partial_fit(X)
    small = len(pickle.dumps(a))
    for _ in range(factor - 1):
        a.partial_fit(X)
    big = len(pickle.dumps(a))
    assert big <= 1.5 * small + 4096, f"state grew from {small} to {big} bytes"


def check_online_estimator(make: Callable, X, *, stream_equals_fit: bool = True,
                           bounded_state: bool = True) -> None:
    """Every check above (two can be waived by estimators whose documented design differs:
    a ``partial_fit`` that is not one pass of ``fit``, or a state that keeps the past)."""
    if stream_equals_fit:
        check_stream_equals_fit(make, X)
    check_pickle_resume(make, X)
    check_rejected_call_changes_nothing(make, X)
    check_no_aliasing(make, X)
    check_state_is_immutable(make, X)
    check_seeded_runs(make, X)
    if bounded_state:
        check_bounded_state(make, X)


def _graph_snapshot(G) -> tuple:
    """What a caller's graph holds: its nodes, and its edges with their data."""
    return (sorted(G.nodes()), sorted((min(u, v), max(u, v), sorted(d.items()))
                                      for u, v, d in G.edges(data=True)))


def check_graph_estimator(make: Callable, G, bad) -> None:
    """The checks that apply to an estimator fitted on a network (NetworkDictionaryLearning,
    whose samples are drawn by its own Markov chain): seeded fits are identical, the caller's
    graph is never modified, a pickled model reconstructs as the original does, and a fit
    refused for the invalid network ``bad`` leaves a fitted model as it was."""
    import copy

    before = _graph_snapshot(G)
    a, b = make().fit(G), make().fit(G)
    np.testing.assert_array_equal(a.components_, b.components_, err_msg="seeded runs differ")
    assert _graph_snapshot(G) == before, "the caller's graph was modified"
    c = pickle.loads(pickle.dumps(a))
    ra = a.reconstruct(G, n_steps=200, random_state=0)
    rc = c.reconstruct(G, n_steps=200, random_state=0)
    np.testing.assert_array_equal(ra.toarray(), rc.toarray(),
                                  err_msg="a pickled model reconstructs differently")
    assert _graph_snapshot(G) == before, "reconstruct modified the caller's graph"
    state = copy.deepcopy(vars(a))
    try:
        a.fit(bad)
    except ValueError:
        pass
    else:
        raise AssertionError("an invalid network was accepted")
    assert same_state(vars(a), state), "a rejected fit changed the state"
