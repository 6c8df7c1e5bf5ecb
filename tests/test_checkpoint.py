"""A checkpointed ``fit`` (``onlinemf._checkpoint.checkpointing``, the command line's
``--checkpoint``) is the estimator's fit, and one interrupted at any mini-batch and resumed
ends as an uninterrupted one, bit for bit: in memory and over a shuffled dask array whose
mini-batches run across block edges."""

import warnings

import numpy as np
import pytest

from onlinemf import (
    OnlineDictionaryLearning,
    OnlineNMF,
    OnlineRobustNMF,
    PoissonSubspaceTracker,
    StochasticMF,
)
from onlinemf._checkpoint import _Checkpointer, checkpointing

MAKERS = {
    "nmf": lambda: OnlineNMF(4, batch_size=20, max_iter=3, random_state=0),
    "nmf-kl-stops": lambda: OnlineNMF(4, loss="kl", batch_size=20, max_iter=30,
                                      random_state=0),
    "robust-nmf": lambda: OnlineRobustNMF(4, batch_size=20, max_iter=2, random_state=0),
    "odl": lambda: OnlineDictionaryLearning(4, batch_size=20, max_iter=2, random_state=0),
    "poisson": lambda: PoissonSubspaceTracker(4, random_state=0),
}


class _Killed(Exception):
    pass


def _data(lazy: bool):
    rng = np.random.default_rng(0)
    X = np.round(rng.random((300, 5)) @ rng.random((5, 12)) * 10, 3) + 0.01
    if not lazy:
        return X
    da = pytest.importorskip("dask.array")
    return da.from_array(X, chunks=(30, -1))  # blocks of 30 rows, mini-batches of 20


def _fit(make, X, path, *, resume=False, kill_at=None, monkeypatch=None):
    est = make()
    if kill_at is not None:
        after, seen = _Checkpointer.after_batch, [0]

        def killed(self, rows):
            after(self, rows)
            seen[0] += 1
            if seen[0] == kill_at:
                raise _Killed

        monkeypatch.setattr(_Checkpointer, "after_batch", killed)
    with warnings.catch_warnings(), checkpointing(est, X, path, every=3, resume=resume):
        warnings.simplefilter("ignore")
        est.fit(X)
    return est


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("name", list(MAKERS))
def test_interrupted_fit_resumes_to_the_same_model(tmp_path, monkeypatch, name, lazy):
    make, X = MAKERS[name], _data(lazy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = make().fit(X)
    path = str(tmp_path / "c")
    plain = _fit(make, X, path)
    np.testing.assert_array_equal(plain.components_, ref.components_)
    # mid-block, at a block's end (the next block not yet read), across passes
    for kill_at in (5, 9, 16, 22):
        with pytest.raises(_Killed):
            _fit(make, X, path, kill_at=kill_at, monkeypatch=monkeypatch)
        monkeypatch.undo()
        resumed = _fit(make, X, path, resume=True)
        np.testing.assert_array_equal(resumed.components_, ref.components_, err_msg=kill_at)
        assert resumed.n_iter_ == ref.n_iter_
        assert getattr(resumed, "converged_", None) == getattr(ref, "converged_", None)
        np.testing.assert_array_equal(resumed.history_["objective"],
                                      ref.history_["objective"])


def test_a_checkpoint_of_other_parameters_is_refused(tmp_path):
    X = _data(False)
    path = str(tmp_path / "c")
    _fit(MAKERS["nmf"], X, path)
    with pytest.raises(ValueError, match="other parameters"):
        _fit(lambda: OnlineNMF(5, batch_size=20, max_iter=3, random_state=0), X, path,
             resume=True)


def test_stochastic_mf_checkpoints_through_its_state_file(tmp_path):
    """StochasticMF keeps its state between outer iterations in its ``state_file``: pointed
    at the checkpoint for the call, then unset (the model's parameters are the caller's)."""
    X = _data(False)
    est = StochasticMF(n_components=3, max_iter=2, random_state=0)
    with checkpointing(est, X, str(tmp_path / "c")):
        est.fit(X)
    assert est.state_file is None
    ref = StochasticMF(n_components=3, max_iter=2, random_state=0).fit(X)
    np.testing.assert_array_equal(est.components_, ref.components_)
