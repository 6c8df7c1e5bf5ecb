import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from onlinemf.losses import get_loss

# the suite runs one worker per core (pytest -n auto): a BLAS pool of several threads in each
# worker would only make the workers' threads take turns on the same cores
threadpool_limits(limits=1, user_api="blas")

#: Every registered divergence with parameters, for tests run over all of them.
ALL_LOSSES = [
    ("squared", {}),
    ("kl", {}),
    ("is", {}),
    ("beta", {"beta": 0.5}),
    ("beta", {"beta": 1.5}),
    ("beta", {"beta": 3.0}),
    ("alpha", {"alpha": 0.3}),
    ("alpha", {"alpha": 2.0}),
    ("hellinger", {}),
    ("mahalanobis", {"A": np.linspace(0.5, 2.0, 7)}),
    ("huber", {"delta": 0.3}),
    ("l1", {}),
    ("l2", {}),
]


def _full_psd(n=7, seed=3):
    B = np.random.default_rng(seed).normal(size=(n, n))
    return B @ B.T / n


ALL_LOSSES.append(("mahalanobis", {"A": _full_psd()}))


def loss_id(case):
    name, params = case
    extra = ",".join(f"{k}={v}" for k, v in params.items() if k != "A")
    if "A" in params:
        extra = "full" if np.ndim(params["A"]) == 2 else "diag"
    return f"{name}[{extra}]" if extra else name


@pytest.fixture(params=ALL_LOSSES, ids=loss_id)
def any_loss(request):
    name, params = request.param
    return get_loss(name, **params)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)



class _BlasProbe:
    """``threads()``: the largest thread count of the loaded BLAS libraries (1 if none
    reports one); ``spy(module, name)``: replace ``module.name`` by a wrapper that records
    ``threads()`` at each call, and return the list of records."""

    def __init__(self, monkeypatch):
        self._monkeypatch = monkeypatch

    @staticmethod
    def threads() -> int:
        from threadpoolctl import threadpool_info

        return max([i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"],
                   default=1)

    def spy(self, module, name) -> list:
        seen, real = [], getattr(module, name)

        def wrapper(*args, **kwargs):
            seen.append(self.threads())
            return real(*args, **kwargs)

        self._monkeypatch.setattr(module, name, wrapper)
        return seen


@pytest.fixture
def blas(monkeypatch):
    """A probe of the BLAS thread count, with the process's pool raised to two threads for
    the test (the suite's workers run on one), so a limit to one is seen to be applied."""
    with threadpool_limits(limits=2, user_api="blas"):
        probe = _BlasProbe(monkeypatch)
        assert probe.threads() == 2, "the BLAS pool could not be raised to two threads"
        yield probe
