"""The code solver's settings as one object an estimator holds as a parameter."""

from __future__ import annotations

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

from .._params import Settings
from ._divergence import STEP_RULES

__all__ = ["CodeSolver", "CODE_STEPS"]

#: what ``CodeSolver.step`` accepts: a rule of :func:`onlinemf.coders.solve_codes`, "auto"
#: (the fast defaults) or "paper" (the rules of Zhao, Tan and Xu, Section V-C)
CODE_STEPS = ("auto", "paper", *STEP_RULES)


class CodeSolver(Settings):
    r"""How :class:`~onlinemf.OnlineNMF` solves its per-sample code problems.

    Each sample's code solves

    .. math::

        \min_{h \in [\ell, u]^K} \; d(x \,\|\, hD) + \tfrac{m}{2}\|h\|^2

    by Algorithm 2 of Zhao, Tan and Xu (2017, arXiv:1608.00075) with the step rule ``step``
    (see :func:`onlinemf.coders.solve_codes`). It is a parameter object: an estimator's
    ``get_params(deep=True)`` reaches its fields as ``coder__max_iter`` and so on, so
    ``clone`` and ``GridSearchCV`` handle it.

    Parameters
    ----------
    step : str, default="auto"
        "auto": the multiplicative update for the online steps of the β-divergences, the exact
        line search for those of the squared loss, the spectral projected gradient for the
        other smooth losses and for ``transform``/``score`` (whose codes are an answer),
        ADMM for ℓ1 and ℓ2 (the subgradient rules stall far from the minimum). "paper": the
        paper's assignment (1/L for squared and Huber, Polyak for ℓ1, Armijo otherwise) from
        the constant start. Or one rule: "spg", "armijo", "lipschitz", "polyak", "fista", "bb",
        "mu", "exact", "admm".
    max_iter : int or "auto", default="auto"
        Iteration cap per sample. "auto": 20 with "mu" and 3 for the squared loss's online
        steps (codes that feed a stochastic step need not be exact); 100 otherwise.
    tol : float, default=1e-4
        A sample stops when its step is below ``tol`` relative to its code...
    f_tol : float or "auto", default="auto"
        ...or its objective changes by less than ``f_tol`` relative ("auto": 1e-4 with
        ``step="auto"``, 1e-6 otherwise).
    armijo : {"projected", "literal"}, default="projected"
        Projected Armijo (Calamai and Moré), which stays in the loss's domain, or the
        paper's Algorithm 3 verbatim.
    polyak_delta : float, default=0.01
        δ of the modified Polyak step (ℓ1), in the units of the scaled data; the paper's value.
    lower, upper : float, default=1e-8, 1e8
        The box [ε′, U] of the codes; the paper's values (ε′ > 0 keeps Wh > 0).
    l2 : float, default=0.0
        Tikhonov weight m on the codes (Remark 7 of the paper; 0 there).
    """

    _parameter_constraints: dict = {
        "step": [StrOptions(set(CODE_STEPS))],
        "max_iter": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "tol": [Interval(Real, 0, None, closed="left")],
        "f_tol": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
        "armijo": [StrOptions({"projected", "literal"})],
        "polyak_delta": [Interval(Real, 0, None, closed="neither")],
        "lower": [Interval(Real, 0, None, closed="left")],
        "upper": [Interval(Real, 0, None, closed="neither")],
        "l2": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, step="auto", *, max_iter="auto", tol=1e-4, f_tol="auto",
                 armijo="projected", polyak_delta=0.01, lower=1e-8, upper=1e8, l2=0.0):
        self.step = step
        self.max_iter = max_iter
        self.tol = tol
        self.f_tol = f_tol
        self.armijo = armijo
        self.polyak_delta = polyak_delta
        self.lower = lower
        self.upper = upper
        self.l2 = l2

    def _check_more(self, where: str) -> None:
        if not self.lower < self.upper:
            raise ValueError(f"{where}: the code box needs lower < upper, got "
                             f"[{self.lower}, {self.upper}]")
