"""The code solver's settings as one object an estimator holds as a parameter, and the
object API of the divergence coder (:meth:`CodeSolver.solve`)."""

from __future__ import annotations

import math
from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

from .._params import Settings
from ._divergence import STEP_RULES, make_rule, solve_batch
from ._result import CodeResult

__all__ = ["CodeSolver", "CODE_STEPS", "code_step_for", "MU_CODE_MAX_ITER", "MU_STEP_ITER",
           "QUADRATIC_CODE_MAX_ITER", "mu_step_iterations"]

#: what ``CodeSolver.step`` accepts: a step rule, "auto" (the fast defaults) or "paper" (the
#: rules of Zhao, Tan and Xu, Section V-C)
CODE_STEPS = ("auto", "paper", *STEP_RULES)

#: Iterations of the multiplicative code update (``CodeSolver(max_iter="auto")``) for codes
#: that are an answer, and for an online step under the smallest exponent of the usual losses
#: (IS, γ = 1/2)
MU_CODE_MAX_ITER = 20

#: Multiplicative code iterations of an online step at the exponent γ = 1 (KL and
#: 1 ≤ β ≤ 2); a loss whose update takes the exponent γ < 1 takes MU_STEP_ITER / γ of them,
#: at most MU_CODE_MAX_ITER
MU_STEP_ITER = 10

#: Code iterations per online step for the squared loss (``CodeSolver(max_iter="auto")``): after the
#: least-squares start, three projected steps leave codes a stochastic step can use, and the
#: time saved buys more passes
QUADRATIC_CODE_MAX_ITER = 3


def mu_step_iterations(loss) -> int:
    """Multiplicative code iterations of an online step: ``MU_STEP_ITER / γ`` (at most
    ``MU_CODE_MAX_ITER``), γ the loss's exponent (``Loss.mu_exponent``).

    The exponent scales every multiplicative step in log scale (Févotte and Idier 2011), so
    an IS step (γ = 1/2) moves half as far as a KL step and takes twice the iterations. A
    stochastic dictionary step needs codes no more accurate than these, and the iterations
    saved buy samples.

    Parameters
    ----------
    loss : Loss
        A loss with a multiplicative update (``majorized_mu``).

    Returns
    -------
    int
        The ``max_iter`` that "auto" resolves to for an online step's multiplicative codes.
    """
    gamma = float(loss.mu_exponent)
    if not (gamma > 0 and math.isfinite(gamma)):
        return MU_CODE_MAX_ITER
    return int(math.ceil(min(float(MU_CODE_MAX_ITER), MU_STEP_ITER / gamma) - 1e-9))


def code_step_for(code_step: str, loss, learning: bool = True) -> str:
    """The coder's step rule for a ``CodeSolver.step`` setting and loss: under "auto",
    the multiplicative update for the online steps of the β-divergences and the exact line
    search for those of the squared loss, the spectral projected gradient for the other
    smooth losses (and for coding with a fitted model), ADMM for ℓ1 and ℓ2 (whose
    subgradient rules stall far from the minimum at affordable caps)."""
    if code_step == "paper":
        return loss.default_step
    if code_step == "auto":
        if learning and loss.majorized_mu:
            return "mu"
        if learning and loss.quadratic:
            return "exact"
        if loss.smooth:
            return "spg"
        return "admm" if loss.residual_prox_available else loss.default_step
    return code_step


class CodeSolver(Settings):
    r"""How the per-sample code problems of a batch are solved.

    Each sample's code solves

    .. math::

        \min_{h \in [\ell, u]^K} \; d(x \,\|\, hD) + \tfrac{m}{2}\|h\|^2

    by Algorithm 2 of Zhao, Tan and Xu (2017, arXiv:1608.00075), projected (sub)gradient
    descent, with the step rule ``step``. :meth:`solve` codes a batch; as a parameter of
    :class:`~onlinemf.OnlineNMF` (``coder=``), an estimator's ``get_params(deep=True)``
    reaches its fields as ``coder__max_iter`` and so on, so ``clone`` and ``GridSearchCV``
    handle it.

    Parameters
    ----------
    step : str, default="auto"
        "auto": the multiplicative update for the online steps of the β-divergences, the exact
        line search for those of the squared loss, the spectral projected gradient for the
        other smooth losses and for ``transform``/``score`` and :meth:`solve` (whose codes are
        an answer), ADMM for ℓ1 and ℓ2 (the subgradient rules stall far from the minimum).
        "paper": the paper's assignment (1/L for squared and Huber, Polyak for ℓ1, Armijo
        otherwise) from the constant start. Or one rule (see :mod:`onlinemf.coders`): "spg",
        "armijo", "lipschitz", "polyak", "fista", "bb", "mu", "exact", "admm".
    max_iter : int or "auto", default="auto"
        Iteration cap per sample. "auto": with "mu", 10/γ (at most 20) in the online steps
        (γ the update's exponent: 10 for KL, 20 for IS; see
        :func:`onlinemf.coders.mu_step_iterations`) and 20 for codes that are an answer; 3
        for the squared loss's online steps (codes that feed a stochastic step need not be
        exact); 100 otherwise.
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
    start : {"auto", "best", "constant"}, default="auto"
        Without a given start (and without a mask): "constant" starts from the scale-matched
        constant codes of :func:`~onlinemf.coders.initial_codes`; "best" from the better,
        row by row, of those and the rescaled, clipped least-squares codes, which needs fewer
        iterations and ends lower. "auto": "constant" with ``step="paper"`` (Algorithm 2
        leaves the start free), "best" otherwise.
    armijo_init : {"previous", "one"}, default="previous"
        First trial of each Armijo search: min(1, ξ_prev/γ) from the sample's previous
        accepted step (the reuse of Lin 2007, the paper's ref. [65], which saves most
        backtracking evaluations), or ξ = 1 at every iteration as in Algorithm 3.
    bb_step0 : float or None, default=None
        First step length of the Barzilai–Borwein rules ("bb", "spg", "exact"); None: 1/(‖D‖₂²
        + m) for the squared loss, 1/(‖D‖₂²·max(1, max x) + m) otherwise.
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
        "start": [StrOptions({"auto", "best", "constant"})],
        "armijo_init": [StrOptions({"previous", "one"})],
        "bb_step0": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(self, step="auto", *, max_iter="auto", tol=1e-4, f_tol="auto",
                 armijo="projected", polyak_delta=0.01, lower=1e-8, upper=1e8, l2=0.0,
                 start="auto", armijo_init="previous", bb_step0=None):
        self.step = step
        self.max_iter = max_iter
        self.tol = tol
        self.f_tol = f_tol
        self.armijo = armijo
        self.polyak_delta = polyak_delta
        self.lower = lower
        self.upper = upper
        self.l2 = l2
        self.start = start
        self.armijo_init = armijo_init
        self.bb_step0 = bb_step0

    def _check_more(self, where: str) -> None:
        if not self.lower < self.upper:
            raise ValueError(f"{where}: the code box needs lower < upper, got "
                             f"[{self.lower}, {self.upper}]")

    def resolved(self, loss, learning: bool = False, step: str | None = None) -> CodeSolver:
        """A copy with every "auto" settled for ``loss``: for an estimator's online steps
        (``learning``) or for codes that are an answer. ``step`` replaces the ``step``
        setting (an estimator under ``settings="paper"`` reads "auto" as "paper")."""
        user = self.step if step is None else step
        rule = code_step_for(user, loss, learning)
        max_iter = self.max_iter
        if max_iter == "auto":
            max_iter = (mu_step_iterations(loss) if rule == "mu" and learning else
                        MU_CODE_MAX_ITER if rule == "mu" else
                        QUADRATIC_CODE_MAX_ITER if learning and loss.quadratic
                        and user == "auto" else 100)
        f_tol = self.f_tol if self.f_tol != "auto" else 1e-4 if user == "auto" else 1e-6
        start = self.start if self.start != "auto" else (
            "constant" if user == "paper" else "best")
        return CodeSolver(rule, max_iter=max_iter, tol=self.tol, f_tol=f_tol,
                          armijo=self.armijo, polyak_delta=self.polyak_delta, lower=self.lower,
                          upper=self.upper, l2=self.l2, start=start,
                          armijo_init=self.armijo_init, bb_step0=self.bb_step0)

    def solve(self, loss, D, X, mask=None, init=None) -> CodeResult:
        """The codes of every row of ``X``: min_{h ∈ [lower, upper]^K} d(x ‖ hD) + (l2/2)‖h‖².

        Any "auto" setting is first settled as for codes that are an answer
        (:meth:`resolved`); the step rule then runs from the start ``init`` or ``start``.

        Parameters
        ----------
        loss : Loss
        D : ndarray of shape (n_components, n_features)
            The dictionary (atoms as rows).
        X : ndarray or CSR matrix of shape (n_samples, n_features)
            Data (any value where ``mask`` is False). A CSR batch (no mask) is solved from
            its nonzeros for the squared loss and the losses with sparse kernels (KL).
        mask : ndarray of bool of the shape of X, or None
            True where observed.
        init : ndarray of shape (n_samples, n_components) or None
            Start h⁰ (clipped to the box); None: see ``start``.

        Returns
        -------
        CodeResult
            Codes, per-sample iterations and convergence, and each sample's objective at
            its codes (None when no iteration ran).
        """
        settled = self.step in STEP_RULES and "auto" not in (self.max_iter, self.f_tol,
                                                             self.start)
        s = self if settled else self.resolved(loss)
        rule = make_rule(s.step, loss, max_iter=s.max_iter, tol=s.tol, armijo=s.armijo,
                         armijo_init=s.armijo_init, polyak_delta=s.polyak_delta,
                         bb_step0=s.bb_step0)
        return solve_batch(loss, D, X, mask, init, rule=rule, lower=s.lower, upper=s.upper,
                           h_l2=s.l2, max_iter=s.max_iter, tol=s.tol, f_tol=s.f_tol,
                           start=s.start)
