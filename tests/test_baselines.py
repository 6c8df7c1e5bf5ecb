import numpy as np
import pytest

from onlinemf.baselines import OnlineHuberSGD, OnlineISNMF, RobustSANMF, batch_nmf
from onlinemf.datasets import NOISE_FOR_LOSS, make_nmf_synthetic
from onlinemf.losses import get_loss


@pytest.mark.parametrize("loss", ["squared", "kl", "is", "huber", "l1", "l2"])
def test_batch_mu_decreases_the_objective(loss):
    X = make_nmf_synthetic(300, 20, 5, NOISE_FOR_LOSS[loss], random_state=0).X / 4000 + 1e-6
    L = get_loss(loss, **({"delta": 0.05} if loss == "huber" else {}))
    res = batch_nmf(X, 5, L, max_iter=150, tol=0, random_state=0)
    obj = res.history["objective"]
    margin = {"squared": 0.7, "kl": 0.7, "is": 0.7, "l1": 0.95}.get(loss, 0.9)  # outliers dominate
    assert np.isfinite(obj).all() and obj[-1] < margin * obj[0]
    if loss in ("squared", "kl", "is"):  # the β-MU with γ(β) is monotone
        assert np.all(np.diff(obj) <= 1e-9 * obj[:-1])
    assert res.components.min() >= 0 and res.codes.min() >= 0


def test_online_baselines_learn():
    X = make_nmf_synthetic(2000, 20, 5, "gamma", random_state=0).X / 4000
    for est in (OnlineISNMF(5, batch_size=20, random_state=0),
                RobustSANMF(5, batch_size=20, random_state=0),
                OnlineHuberSGD(5, batch_size=20, random_state=0)):
        obj = est.fit(X).history_["objective"]
        assert np.isfinite(obj).all() and obj[-1] < obj[0], type(est).__name__


def test_batch_stopping_rules():
    X = make_nmf_synthetic(300, 20, 5, "gaussian", random_state=0).X / 4000
    res = batch_nmf(X, 5, "squared", max_iter=400, tol=1e-4, random_state=0)
    assert 5 < res.n_iter < 400  # stops on the relative change, neither at once nor at the cap
    assert res.history["n_samples"][-1] == res.n_iter * X.shape[0]  # recorded to the end
    quick = batch_nmf(X, 5, "squared", max_iter=10**6, tol=0, time_budget=0.2, random_state=0)
    assert quick.history["time"][-1] < 1.0
