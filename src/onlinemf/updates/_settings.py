"""OnlineNMF's dictionary steps as parameter objects (``dictionary_update=SGD(a=…)``)."""

from __future__ import annotations

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

from .._params import Settings

__all__ = ["SGD", "Surrogate"]


class SGD(Settings):
    r"""The paper's projected SGD step on the dictionary (Zhao, Tan and Xu 2017, eq. (11)).

    .. math::

        W_t = \Pi_{\mathcal{C}}\big(W_{t-1} - \eta_t \textstyle\sum_i r_i h_i^\top\big),
        \qquad \eta_t = a / (\tau t + b),

    with :math:`r_i = \nabla_y d(v_i \| W_{t-1} h_i)` and C = {0 ≤ w ≤ 1, row sums ≥ ε}.

    Parameters
    ----------
    a, b : float, default=2e4
        The step schedule; the paper's canonical values (η ≈ 1 for the first b samples).
    reduce : {"sum", "mean"}, default="sum"
        Sum or average the per-sample gradients of a mini-batch. The paper does not say;
        summing keeps the dynamics independent of τ, because the schedule counts samples.
    safeguard : bool or "auto", default="auto"
        Halve a step until it does not increase the mini-batch loss, because the paper's first
        steps (η ≈ 1) overshoot on small data sets. "auto": on, except under
        ``settings="paper"`` (Algorithm 1 has no safeguard).
    eps : float, default=1e-8
        ε, the row-sum floor of C (the paper's value).
    """

    _parameter_constraints: dict = {
        "a": [Interval(Real, 0, None, closed="neither")],
        "b": [Interval(Real, 0, None, closed="left")],
        "reduce": [StrOptions({"sum", "mean"})],
        "safeguard": ["boolean", StrOptions({"auto"})],
        "eps": [Interval(Real, 0, 1, closed="neither")],
    }

    def __init__(self, a=2e4, b=2e4, *, reduce="sum", safeguard="auto", eps=1e-8):
        self.a = a
        self.b = b
        self.reduce = reduce
        self.safeguard = safeguard
        self.eps = eps


class Surrogate(Settings):
    r"""Minimize a running surrogate of all mini-batches instead of a gradient step.

    For the squared loss, block coordinate descent on the statistics A = Σ HᵀH and B = Σ HᵀX
    (Mairal, Bach, Ponce and Sapiro 2010); for KL, IS and β, multiplicative updates on
    accumulated statistics (Lefèvre, Bach and Févotte 2011). Needs no step size, which is why
    it is the default where the loss allows it.

    Parameters
    ----------
    decay : float or "auto", default="auto"
        The newest mini-batch weighs t^(−decay) in the statistics (1: a running mean).
        "auto": 0.5 for the squared loss, whose statistics stay exact as the dictionary moves,
        and 0.3 for the multiplicative update, whose statistics go stale (0.5 where it starts
        from a dictionary fitted to the data: after an SGD warm-up, or from NNDSVDa over a
        large vocabulary). The multiplicative update counts t in units of 512 rows.
    warmup : int or "auto", default="auto"
        Rows of projected SGD before the surrogate takes over. "auto": 10⁴ rows for KL, IS and
        β on sparse input, where SGD finds good topics the surrogate then keeps; 0 otherwise.
    eps : float, default=1e-8
        ε, the row-sum floor of the dictionary's set C.
    """

    _parameter_constraints: dict = {
        "decay": [Interval(Real, 0, 1, closed="right"), StrOptions({"auto"})],
        "warmup": [Interval(Integral, 0, None, closed="left"), StrOptions({"auto"})],
        "eps": [Interval(Real, 0, 1, closed="neither")],
    }

    def __init__(self, decay="auto", *, warmup="auto", eps=1e-8):
        self.decay = decay
        self.warmup = warmup
        self.eps = eps
