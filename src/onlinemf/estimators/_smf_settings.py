"""StochasticMF's code solves and step sizes as parameter objects."""

from __future__ import annotations

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

from .._params import Settings

__all__ = ["SMFCoder", "SMFStep", "METRIC_DAMPING", "METRIC_DAMPING_ATOMS", "METRIC_STEP"]

#: δ of VR's metric step (:func:`onlinemf.updates.snapshot_metric`): Â + δ·λ_max(Â)·I, so
#: that an atom with near-zero codes takes at most 1/δ times the stiffest atom's step (the
#: inverse of small curvatures also multiplies the mini-batch noise of their directions).
#: This δ is for a dictionary step solved as a whole (ORPCA's closed form applies M⁻¹, whose
#: smallest eigenvalues belong to near-collinear combinations of atoms)
METRIC_DAMPING = 0.1
#: δ where the dictionary's set is atom-separable and the metric step is one sweep of block
#: coordinate descent over the atoms (ODL, ONMF, ...): each atom moves by its own curvature
#: M_kk with the others held, as SMM's step does without any damping, so a rarely used atom
#: (of more atoms than the data's rank, under an ℓ1 code penalty) is not held near its start
METRIC_DAMPING_ATOMS = 0.01
#: η of VR's metric step at ``scale=1``: half the step to the minimum of the sampled
#: quadratic model, whose curvature the mini-batch's noise makes too small in some directions
METRIC_STEP = 0.5


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
        VR's constant η. "auto": set by ``rule``. A number: the paper's scalar step
        D ← prox(D − ηV) with that η (Zhao, Haskell and Feng 2018, Algorithm 1, line 11).
    rule : {"auto", "metric", "curvature"}, default="auto"
        VR's automatic step. "curvature": η = scale/L̂ at every snapshot, L̂ = λ_max(Â) of
        the snapshot's code covariance Â = (1/n)Σhhᵀ (the curvature of g with the codes
        fixed; the paper tunes η and reports no value, its theory asks η = 1/(θL) with
        θ ≈ 2.2, see :func:`~onlinemf.updates.theta_min`). "metric": the proximal step in
        the metric of Â, D ← argmin_{D' ∈ C} ⟨V, D'⟩ + tr((D' − D)ᵀM(D' − D))/(2η) + ψ(D')
        with M = Â + δ·λ_max(Â)·I (δ = 0.01 where the dictionary's set is atom-separable
        and the step is one sweep over the atoms, except at a snapshot of the starting
        dictionary; 0.1 otherwise) and η = 0.5·scale held over the whole fit but for the
        ``safeguard``'s halvings (see :class:`~onlinemf.updates.SVRGUpdate`), whose step
        along each direction of atoms is set by that direction's own curvature instead of
        the largest one's. "auto":
        "metric" under ``settings="default"``, "curvature" under ``settings="paper"`` (the
        protocol of the reproduction experiments).
    scale : float, default=1.0
        Multiplies the automatic steps (VR's η = scale/L̂ or its metric's scale, SGD's
        β = scale·β′/L̂₀): the knob the paper tunes per data set.
    sgd_beta, sgd_beta_prime : float or None, default=None
        SGD's γ_t = β/(bt + β′). None: β′ = n and β = β′/L̂₀ (γ₀ = 1/L̂₀ on the first batch,
        halved after one pass; the paper tunes both and reports neither).
    warm_start : bool or "auto", default="auto"
        Run VR's first outer iteration as SMM steps (the SMM baseline's rule, spending the
        per-sample solves of one VR outer iteration), so that the first snapshot is taken at
        a fitted dictionary instead of the start: the usual warm start of SVRG, whose first
        snapshot at a poor point makes its first epoch's full gradient nearly useless. Only
        in :meth:`~onlinemf.StochasticMF.fit` with ``max_iter`` > 1. "auto": on under
        ``settings="default"``, off under ``settings="paper"`` (Algorithm 1 has none).
    safeguard : bool or "auto", default="auto"
        Halve VR's η (for the rest of the fit) whenever a snapshot's objective is above the
        previous snapshot's, and keep it constant otherwise: every snapshot solves every
        sample's codes, so the full objective is known there without extra solves, and a
        rise over a whole outer iteration means the step, not the mini-batch noise, is too
        long for the data (one η is not right for every data set). Only in
        :meth:`~onlinemf.StochasticMF.fit`, whose snapshots are of the same rows. "auto": on
        under ``settings="default"``, off under ``settings="paper"`` (constant η).
    """

    _parameter_constraints: dict = {
        "learning_rate": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "rule": [StrOptions({"auto", "metric", "curvature"})],
        "scale": [Interval(Real, 0, None, closed="neither")],
        "sgd_beta": [Interval(Real, 0, None, closed="neither"), None],
        "sgd_beta_prime": [Interval(Real, 0, None, closed="neither"), None],
        "warm_start": ["boolean", StrOptions({"auto"})],
        "safeguard": ["boolean", StrOptions({"auto"})],
    }

    def __init__(self, learning_rate="auto", *, rule="auto", scale=1.0, sgd_beta=None,
                 sgd_beta_prime=None, warm_start="auto", safeguard="auto"):
        self.learning_rate = learning_rate
        self.rule = rule
        self.scale = scale
        self.sgd_beta = sgd_beta
        self.sgd_beta_prime = sgd_beta_prime
        self.warm_start = warm_start
        self.safeguard = safeguard

    def vr_warm_start(self, settings: str) -> bool:
        """Whether VR's first outer iteration is SMM steps under ``settings``."""
        if isinstance(self.warm_start, str):
            return settings == "default"
        return bool(self.warm_start)

    def vr_safeguard(self, settings: str) -> bool:
        """Whether VR halves η after a snapshot whose objective rose, under ``settings``."""
        if isinstance(self.safeguard, str):
            return settings == "default"
        return bool(self.safeguard)

    def vr_metric(self, settings: str) -> bool:
        """Whether VR steps in the snapshot's metric under ``settings``: an explicit
        ``learning_rate`` is the paper's scalar step, and "auto" follows the preset."""
        if not isinstance(self.learning_rate, str) or self.rule == "curvature":
            return False
        return self.rule == "metric" or settings == "default"

    def vr_params(self, settings: str, atom_separable: bool = False,
                  cold: bool = False) -> dict:
        """The step parameters of :class:`~onlinemf.updates.SVRGUpdate` under ``settings``,
        for a dictionary set that is ``atom_separable`` or not, at a ``cold`` snapshot (the
        fit's start, no warm start before it) or not: the metric's damping is the small one
        only for an atom-separable set at a snapshot of a fitted dictionary, since the code
        covariance of the starting dictionary says little about the curvature the steps
        will meet."""
        if self.vr_metric(settings):
            small = atom_separable and not cold
            damping = METRIC_DAMPING_ATOMS if small else METRIC_DAMPING
            return dict(metric=True, damping=damping, step_scale=METRIC_STEP * self.scale)
        return dict(step_scale=self.scale, learning_rate=self.learning_rate)
