"""StochasticMF's code solves and step sizes as parameter objects."""

from __future__ import annotations

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

from .._params import Settings

__all__ = ["SMFCoder", "SMFStep"]


class SMFCoder(Settings):
    """How :class:`~onlinemf.StochasticMF` solves the per-sample codes and outliers.

    The algorithm's solves are inexact, stopped at the tolerance ε_{s,t} =
    ``tol``·max(ms + t, 1)^(−(1/2+τ)) of Zhao, Haskell and Feng (2018, Theorem 2), so that
    early solves are cheap and later ones accurate; evaluation and ``transform`` solve to
    ``eval_tol``.

    Parameters
    ----------
    solver : {"bsum", "newton"}, default="bsum"
        "bsum" is the paper's (eqs. 5–6); "newton" is the semismooth Newton method of
        :func:`onlinemf.coders.solve_codes_newton` for the problems with ℓ1 outliers and a
        ridge or box code set (ORPCA, OLRR, ORNMF), stopped by BSUM's test at the same ε.
        Neither is better on every data set, so the paper's stays the default.
    tol : float, default=1e-2
        c of the tolerance schedule. The paper's c = 1 leaves early codes barely solved
        and the fit ending higher; c = 1 stays available.
    tau : float, default=1e-3
        τ of the tolerance schedule.
    scale_tol : bool, default=False
        Multiply ε by max(1, ‖x‖) per sample. Off, because on data with gross outliers ‖x‖
        is the outliers' size and the scaled test leaves the clean part unsolved.
    max_iter : int, default=500
        Cap on BSUM sweeps per solve (Newton takes at most a tenth as many, at least 50).
    eval_tol : float, default=1e-4
        Tolerance of the accurate codes of evaluation and :meth:`~onlinemf.StochasticMF.transform`.
    cache_snapshot : bool, default=False
        Keep VR's snapshot codes for the inner steps: one solve fewer per sampled point for
        O(n(K + F)) memory; off, memory stays O(KF) as the paper claims.
    """

    _parameter_constraints: dict = {
        "solver": [StrOptions({"bsum", "newton"})],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "tau": [Interval(Real, 0, None, closed="neither")],
        "scale_tol": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "eval_tol": [Interval(Real, 0, None, closed="neither")],
        "cache_snapshot": ["boolean"],
    }

    def __init__(self, solver="bsum", *, tol=1e-2, tau=1e-3, scale_tol=False, max_iter=500,
                 eval_tol=1e-4, cache_snapshot=False):
        self.solver = solver
        self.tol = tol
        self.tau = tau
        self.scale_tol = scale_tol
        self.max_iter = max_iter
        self.eval_tol = eval_tol
        self.cache_snapshot = cache_snapshot


class SMFStep(Settings):
    """Step sizes of :class:`~onlinemf.StochasticMF`'s dictionary updates.

    Parameters
    ----------
    learning_rate : float or "auto", default="auto"
        VR's constant η. "auto": η = 1/L̂ at every snapshot, L̂ = λ_max((1/n)Σhhᵀ) the
        curvature of g with the codes fixed (the paper tunes η and reports no value; its
        theory asks η = 1/(θL) with θ ≈ 2.2, see :func:`~onlinemf.updates.theta_min`).
    scale : float, default=1.0
        Multiplies the automatic steps (VR's η = scale/L̂, SGD's β = scale·β′/L̂₀): the knob
        the paper tunes per data set.
    sgd_beta, sgd_beta_prime : float or None, default=None
        SGD's γ_t = β/(bt + β′). None: β′ = n and β = β′/L̂₀ (γ₀ = 1/L̂₀ on the first batch,
        halved after one pass; the paper tunes both and reports neither).
    """

    _parameter_constraints: dict = {
        "learning_rate": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "scale": [Interval(Real, 0, None, closed="neither")],
        "sgd_beta": [Interval(Real, 0, None, closed="neither"), None],
        "sgd_beta_prime": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(self, learning_rate="auto", *, scale=1.0, sgd_beta=None, sgd_beta_prime=None):
        self.learning_rate = learning_rate
        self.scale = scale
        self.sgd_beta = sgd_beta
        self.sgd_beta_prime = sgd_beta_prime
