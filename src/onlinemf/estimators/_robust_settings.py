"""OnlineRobustNMF's solver settings and regularizers as parameter objects."""

from __future__ import annotations

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

from .._params import Settings

__all__ = ["RobustSolver", "Penalty", "ROBUST_METHODS"]

#: the methods of Zhao and Tan: name -> (code solver, dictionary solver)
ROBUST_METHODS = {"pgd": ("pgd", "pgd"), "apgd": ("fista", "apgd"), "admm": ("admm", "admm")}


class RobustSolver(Settings):
    """How :class:`~onlinemf.OnlineRobustNMF` solves its two sub-problems (Zhao and Tan 2017).

    The codes and outliers of a mini-batch (eq. (9)) and the dictionary from the statistics
    (eq. (10)) are each solved by ``method`` until the objective's relative change falls below
    the tolerance or the iteration cap is reached (Section VII-B2).

    Parameters
    ----------
    method : {"admm", "pgd", "apgd"}, default="admm"
        OADMM (eqs. (25)–(35)); the paper's OPGD (eqs. (15)–(22)), whose inner solves are
        still far from converged at the caps below; or "apgd", the accelerated form of both,
        which converges within the same caps.
    kappa : float or "auto", default="auto"
        κ of the PGD steps η = κ/‖W‖₂² and η̃ = κ/‖A‖_F. Both are at most 1/L for κ ≤ 1, so
        "auto" is 1 (its longer steps get further within the caps), and 0.7, the paper's,
        under ``settings="paper"``.
    rho : float, default=1.0
        The ADMM penalty ρ₁ = ρ₂ = ρ₃ (the paper's value).
    code_max_iter, code_tol : int, float, default=50, 1e-3
        Cap and tolerance of the codes' solve (the paper's values).
    dict_max_iter, dict_tol : int, float, default=200, 1e-4
        Cap and tolerance of the dictionary's solve (the paper's values).
    code_stopping : {"batch", "sample"}, default="batch"
        Where the codes' tolerance applies while learning (``fit``, ``partial_fit``): to the
        mini-batch's summed objective (the mini-batch solved as one problem), or to each
        sample's own problem, each sample frozen once it has converged. Section VII-B2
        states the rule for one sample's problem (eq. (36)) and is silent on mini-batches.
        "batch" is the default: it treats the mini-batch as the one problem the step solves,
        and a model fitted with it codes as models fitted before this option did; "sample"
        is the paper's wording. ``transform``, ``decompose`` and ``score`` always stop per
        sample, so that a sample's result does not depend on the rows coded with it.
    code_start : {"zero", "uniform"}, default="zero"
        Where the codes' solve starts while learning: h⁰ = 0, or uniform entries in [0, 1]
        drawn afresh for every mini-batch (Section VII-B1 starts h and r "similarly" to W₀;
        the outliers start here at their optimal step from h⁰). Zero is the default: a
        nonnegative code is usually small, so zero is near the solution. ``transform`` and
        ``decompose`` always start at zero, so that their result is reproducible.
    """

    _parameter_constraints: dict = {
        "method": [StrOptions(set(ROBUST_METHODS))],
        "kappa": [Interval(Real, 0, 1, closed="right"), StrOptions({"auto"})],
        "rho": [Interval(Real, 0, None, closed="neither")],
        "code_max_iter": [Interval(Integral, 1, None, closed="left")],
        "code_tol": [Interval(Real, 0, None, closed="left")],
        "dict_max_iter": [Interval(Integral, 1, None, closed="left")],
        "dict_tol": [Interval(Real, 0, None, closed="left")],
        "code_stopping": [StrOptions({"batch", "sample"})],
        "code_start": [StrOptions({"zero", "uniform"})],
    }

    # a solver pickled before these fields existed reads their defaults
    code_stopping = "batch"
    code_start = "zero"

    def __init__(self, method="admm", *, kappa="auto", rho=1.0, code_max_iter=50, code_tol=1e-3,
                 dict_max_iter=200, dict_tol=1e-4, code_stopping="batch", code_start="zero"):
        self.method = method
        self.kappa = kappa
        self.rho = rho
        self.code_max_iter = code_max_iter
        self.code_tol = code_tol
        self.dict_max_iter = dict_max_iter
        self.dict_tol = dict_tol
        self.code_stopping = code_stopping
        self.code_start = code_start


class Penalty(Settings):
    """Regularizers of :class:`~onlinemf.OnlineRobustNMF` (Zhao and Tan 2017, Section VI).

    Parameters
    ----------
    h_l1, h_l2 : float, default=0
        λ₃‖h‖₁ and (λ₄/2)‖h‖² on the codes (Section VI-B).
    h_group, group_size : float, int, default=0, 1
        Group lasso λ₅ Σ_α √ξ_α ‖h_α‖ over contiguous groups of ``group_size`` codes; with
        ``h_l1`` it is the sparse group lasso.
    w_l1, w_l2 : float, default=0
        λ₁‖W‖₁ and (λ₂/2)‖W‖² on the dictionary, added once to the surrogate.
    elastic : tuple of float, default=(1.0, 1.0)
        (γ₁, γ₂) of the atom set C₃ = {w ≥ 0, γ₁‖w‖₁ + (γ₂/2)‖w‖² ≤ 1}, used with
        ``dict_constraint="elastic"``.
    """

    _parameter_constraints: dict = {
        "h_l1": [Interval(Real, 0, None, closed="left")],
        "h_l2": [Interval(Real, 0, None, closed="left")],
        "h_group": [Interval(Real, 0, None, closed="left")],
        "group_size": [Interval(Integral, 1, None, closed="left")],
        "w_l1": [Interval(Real, 0, None, closed="left")],
        "w_l2": [Interval(Real, 0, None, closed="left")],
        "elastic": [tuple],
    }

    def __init__(self, h_l1=0.0, h_l2=0.0, *, h_group=0.0, group_size=1, w_l1=0.0, w_l2=0.0,
                 elastic=(1.0, 1.0)):
        self.h_l1 = h_l1
        self.h_l2 = h_l2
        self.h_group = h_group
        self.group_size = group_size
        self.w_l1 = w_l1
        self.w_l2 = w_l2
        self.elastic = elastic

    def _check_more(self, where: str) -> None:
        if len(self.elastic) != 2:
            raise ValueError(f"{where}: elastic must be a pair (l1, l2)")
