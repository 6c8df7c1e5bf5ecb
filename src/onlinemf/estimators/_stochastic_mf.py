"""StochasticMF: stochastic matrix factorization by variance reduction (SVRG), stochastic
majorization-minimization (SMM) or proximal SGD, over the eight problems of Zhao, Haskell and
Feng (2018), "A Unified Framework for Stochastic Matrix Factorization via Variance Reduction"
(arXiv:1705.10679)."""

from __future__ import annotations

import os
import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._dask import check_dask_rows, is_dask_array
from .._state_file import load_state, remove_state, save_state, state_key
from .._validation import check_complete_input, dense_batch, guarded_validation
from ..coders import (
    newton_applicable,
    solve_codes_accurate,
    solve_codes_bsum,
    solve_codes_newton_capped,
)
from ..metrics import evaluate
from ..problems import PROBLEM_NAMES, QuadraticDictionary, SMFProblem, make_problem
from ..updates import (
    ProxSGDSchedule,
    SMMStats,
    VRSnapshot,
    code_tolerance,
    danskin_gradient_sum,
    default_batch_params,
    iter_chunks,
)
from ._base import OnlineFactorizationMixin, transactional

__all__ = ["StochasticMF", "DivergedError", "METHODS", "INITS"]

METHODS = ("vr", "smm", "sgd")
INITS = ("auto", "ones_jitter", "ones", "random_samples", "random")


class DivergedError(FloatingPointError, ValueError):
    """The iteration diverged (a step too large for the data's scale): a FloatingPointError,
    and a ValueError like every refusal of input the estimator cannot handle."""


def _check_finite(D, message):
    """Raise if D (or its squared norm) is no longer finite: a step size that diverges."""
    with np.errstate(over="ignore", invalid="ignore"):
        ok = np.isfinite(D).all() and np.isfinite(np.einsum("ij,ij->", D, D))
    if not ok:
        raise DivergedError(message)


class StochasticMF(OnlineFactorizationMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                   BaseEstimator):
    r"""Stochastic matrix factorization  min_{D ∈ C} (1/n)Σ_i ℓ(x_i, D) + ψ(D)  (Zhao, Haskell and
    Feng 2018, eq. 3).

    The per-sample loss is ℓ(x, D) = min_{h ∈ H, r ∈ R} ½‖x − hD − r‖² + φ(h) + ϕ(r); the
    problem (C, ψ, H, φ, R, ϕ) is one of the paper's eight instances by name, or any
    :class:`~onlinemf.problems.SMFProblem` assembled from parts. Codes and outliers are
    solved by BSUM (eqs. 5–6); the dictionary by one of three methods on the same problem:

    ``"vr"`` — Algorithm 1 (SVRG): each outer iteration s takes the full Danskin gradient
    G = ∇g(D^{s,0}) at a snapshot (a map over chunks of samples followed by a sum), then m
    inner steps D ← prox_{ηψ+δ_C}(D − ηV) with V = ∇g_B(D) − ∇g_B(D^{s,0}) + G over
    mini-batches B of b samples drawn without replacement. At t = 0 the correction cancels
    and V = G exactly (no solves). Output: last iterate (Option II, the paper's practice) or
    one drawn uniformly from all iterates (Option I, the theory's; kept by reservoir sampling,
    so memory stays O(KF)). Codes are solved to ε_{s,t} = max(ms + t, 1)^{−(1/2+τ)}.

    ``"smm"`` — Mairal et al.'s stochastic majorization-minimization (Alg. S-2): running
    statistics A = Σhhᵀ, B = Σhᵀ(x − r), dictionary = argmin of the surrogate (BCD over the
    atoms for atom-separable C; closed form for ORPCA; with ψ included).

    ``"sgd"`` — proximal SGD (Alg. S-3): D ← prox_{γ_tψ+δ_C}(D − γ_t V_t), γ_t = β/(bt + β′).

    SMM and SGD run for the same budget of per-sample solves as VR with ``max_iter`` outer
    iterations (about 1.2 passes per outer iteration), so the three compare at equal passes.

    Parameters
    ----------
    problem : {"odl", "ossl", "onmf", "ssodl", "orpca", "omrmd", "olrr", "ornmf"} or SMFProblem
    method : {"vr", "smm", "sgd"}, default="vr"
    n_components : int, default=10
        K (the paper's k; it uses 49).
    alpha, outlier_alpha, dict_alpha : float or None
        Weights of φ, ϕ and ψ; None: 1/√F (the paper's setting; ORPCA's ψ weight follows
        ``alpha``).
        Ignored when ``problem`` is an SMFProblem.
    code_bound, outlier_bound : float, default=1e3, inf
        M and M′ of ORNMF (unreported in the paper).
    ridge : float, default=0
        κ/2‖h‖² added to ODL's lasso (assumption A4).
    group_size : int, default=1
        OSSL's group length.
    laplacian : (F, F) array or sparse, optional
        SSODL's L (default: path-graph Laplacian over the features).
    quadratic : (F, F) array or "data", optional
        OLRR's Q; "data" builds Q = XᵀX + λ₃I from the training data (A = I, B = I).
    learning_rate : float or "auto", default="auto"
        VR's constant η. "auto": η = 1/L̂ at every snapshot, L̂ = λ_max((1/n)Σhhᵀ) the
        curvature of g with the codes fixed (the paper tunes η and reports no value; its
        theory asks η = 1/(θL) with θ ≈ 2.2, see :func:`~onlinemf.updates.theta_min`).
    step_scale : float, default=1.0
        Multiplies the automatic steps (VR's η = step_scale/L̂, SGD's β = step_scale·β′/L̂₀):
        the knob the paper tunes per data set.
    sgd_beta, sgd_beta_prime : float or None
        SGD's γ_t = β/(bt + β′). None: β′ = n and β = β′/L̂₀ (γ₀ = 1/L̂₀ on the first batch,
        halved after one pass; the paper tunes both and reports neither).
    batch_size, inner_iter : int or None
        b and m; None: b = 0.2·n^{2/3}, m = 0.5·n^{1/3} (the paper's setting, Section 5).
    max_iter : int, default=10
        S, the number of outer iterations (VR), and the budget of SMM and SGD.
    tau : float, default=1e-3
        τ of the tolerance schedule.
    code_tol : float, default=1e-2
        c in the code tolerance ε_{s,t} = c·max(ms + t, 1)^{−(1/2+τ)}; SMM and SGD use their
        step counter in place of ms + t. The paper's schedule has c = 1, which with the
        scale-aware test leaves early codes barely solved and the fit ending higher, hence
        the default; c = 1 stays available.
    scale_tol : bool, default=False
        Multiply ε by max(1, ‖x‖) per sample (a scale-aware test). Off by
        default: on data with gross outliers (Synth, |r| ≤ 1000) ‖x‖ is the outliers' size
        and the scaled test leaves the clean part unsolved.
    output : {"last", "random"}, default="last"
        Option II or Option I of Algorithm 1.
    init : {"auto", "random_samples", "ones_jitter", "ones", "random"} or array,
        default="auto"
        "ones" is the paper's literal all-ones start, projected onto C; it is a symmetric
        fixed set (all atoms stay identical) and warns. "ones_jitter" adds 1e-3·U(0, 1)
        first, which breaks the symmetry; "random_samples" takes K training rows projected
        onto C. "auto": "random_samples" for the non-robust problems (the fits end lower
        from them) and "ones_jitter" for the robust ones, whose samples carry the outliers.
    cache_snapshot_codes : bool, default=False
        Keep the snapshot codes of line 4 for line 8 (O(n(K + F)) memory, one solve fewer
        per sampled point); off: O(KF) memory, as the paper claims.
    smm_sweeps : int, default=1
        BCD sweeps per SMM step (Mairal: one, warm-started).
    chunk_size : int, default=2048
        Rows per chunk of the full-gradient pass.
    gradient_map : callable or None
        The map used by the full-gradient pass (default: built-in ``map``); e.g. an executor's
        ``map`` to spread the chunks over workers.
    code_max_iter : int, default=500
        Cap on BSUM sweeps per solve (the Newton solver takes at most a tenth as many
        iterations, and at least 50).
    code_solver : {"bsum", "newton"}, default="bsum"
        The solver of the algorithm's code solves (lines 4, 8 and 9 of Algorithm 1, and
        SMM's and SGD's). "bsum" is the paper's (eqs. 5–6); "newton" is the semismooth
        Newton method of :func:`onlinemf.coders.solve_codes_newton` for the problems with
        ℓ1 outliers and a ridge or box code set (ORPCA, OLRR, ORNMF), stopped by BSUM's own
        test at the same tolerance ε_{s,t}, so Theorem 2's inexactness condition holds as
        for BSUM. It is not the default because it helps on one data set and hurts on
        another: on Synth it ends ORPCA lower in less time, while on Extended YaleB it ends
        VR and SGD higher (BSUM's codes, stopped early from a warm start, damp VR's first
        long steps from the near-symmetric start; Newton's accurate codes do not).
    eval_every : float or None
        Every so many passes, evaluate f and ‖Γ‖² on the training data with accurate codes
        (time excluded) and record them in ``history_``; None: VR records its snapshot
        objective, SMM and SGD their running mini-batch loss.
    eval_tol : float, default=1e-4
        Code tolerance for evaluation and :meth:`transform`. Their codes are solved by
        :func:`onlinemf.coders.solve_codes_accurate` (a semismooth Newton method for ORPCA,
        OLRR and ORNMF, faster there than accelerated BSUM, with a
        majorization–minimization restart for ORPCA's and OLRR's slow rows); evaluations during
        :meth:`fit` start from the previous evaluation's codes (n × K floats kept).
    callback : callable or None
        Called at each evaluation with a dict (passes, samples, solves, time, objective,
        stationarity, components); its time is excluded.
    n_checkpoints : int, default=200
    random_state : int, RandomState or None
    state_file : str or None
        A file in which :meth:`fit` keeps its whole state after every outer iteration (VR)
        or after each outer iteration's budget of steps (SMM, SGD). A fit that finds the file
        resumes there and ends exactly as an uninterrupted fit would (same draws, same
        dictionary, same history; time continues); the file is removed when the fit ends.
        For long fits (such as a paper-scale fit on Synth). The file must come
        from the same data and parameters (``callback``, ``gradient_map`` and this one
        excepted), else fit raises before changing anything; the code version is not
        checked. Calls made to ``callback`` before the interruption are not repeated.

    Attributes
    ----------
    components_ : ndarray (n_components, n_features)
    problem_ : SMFProblem (bound to the n of the data)
    batch_size_, inner_iter_ : int
    learning_rate_ : float (last η used by VR; γ of the last SGD step)
    n_solves_ : int
        Per-sample subproblem solves (1 pass = n solves).
    n_samples_drawn_ : int
    """

    _parameter_constraints: dict = {
        "problem": [StrOptions(set(PROBLEM_NAMES)), SMFProblem],
        "method": [StrOptions(set(METHODS))],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left"), None],
        "outlier_alpha": [Interval(Real, 0, None, closed="left"), None],
        "dict_alpha": [Interval(Real, 0, None, closed="left"), None],
        "code_bound": [Interval(Real, 0, None, closed="neither")],
        "outlier_bound": [Interval(Real, 0, None, closed="right")],
        "ridge": [Interval(Real, 0, None, closed="left")],
        "group_size": [Interval(Integral, 1, None, closed="left")],
        "laplacian": ["array-like", "sparse matrix", None],
        "quadratic": ["array-like", StrOptions({"data"}), None],
        "learning_rate": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "step_scale": [Interval(Real, 0, None, closed="neither")],
        "sgd_beta": [Interval(Real, 0, None, closed="neither"), None],
        "sgd_beta_prime": [Interval(Real, 0, None, closed="neither"), None],
        "batch_size": [Interval(Integral, 1, None, closed="left"), None],
        "inner_iter": [Interval(Integral, 1, None, closed="left"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tau": [Interval(Real, 0, None, closed="neither")],
        "code_tol": [Interval(Real, 0, None, closed="neither")],
        "scale_tol": ["boolean"],
        "output": [StrOptions({"last", "random"})],
        "init": [StrOptions(set(INITS)), "array-like"],
        "cache_snapshot_codes": ["boolean"],
        "smm_sweeps": [Interval(Integral, 1, None, closed="left")],
        "chunk_size": [Interval(Integral, 1, None, closed="left")],
        "gradient_map": [callable, None],
        "code_max_iter": [Interval(Integral, 1, None, closed="left")],
        "code_solver": [StrOptions({"bsum", "newton"})],
        "eval_every": [Interval(Real, 0, None, closed="neither"), None],
        "eval_tol": [Interval(Real, 0, None, closed="neither")],
        "callback": [callable, None],
        "n_checkpoints": [Interval(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
        "state_file": [str, os.PathLike, None],
    }

    def __init__(self, problem="odl", method="vr", n_components=10, *, alpha=None,
                 outlier_alpha=None, dict_alpha=None, code_bound=1e3, outlier_bound=np.inf,
                 ridge=0.0, group_size=1, laplacian=None, quadratic=None,
                 learning_rate="auto", step_scale=1.0, sgd_beta=None, sgd_beta_prime=None,
                 batch_size=None, inner_iter=None, max_iter=10, tau=1e-3, code_tol=1e-2,
                 scale_tol=False, output="last",
                 init="auto", cache_snapshot_codes=False, smm_sweeps=1,
                 chunk_size=2048, gradient_map=None, code_max_iter=500, code_solver="bsum",
                 eval_every=None,
                 eval_tol=1e-4, callback=None, n_checkpoints=200, random_state=None,
                 state_file=None):
        self.problem = problem
        self.method = method
        self.n_components = n_components
        self.alpha = alpha
        self.outlier_alpha = outlier_alpha
        self.dict_alpha = dict_alpha
        self.code_bound = code_bound
        self.outlier_bound = outlier_bound
        self.ridge = ridge
        self.group_size = group_size
        self.laplacian = laplacian
        self.quadratic = quadratic
        self.learning_rate = learning_rate
        self.step_scale = step_scale
        self.sgd_beta = sgd_beta
        self.sgd_beta_prime = sgd_beta_prime
        self.batch_size = batch_size
        self.inner_iter = inner_iter
        self.max_iter = max_iter
        self.tau = tau
        self.code_tol = code_tol
        self.scale_tol = scale_tol
        self.output = output
        self.init = init
        self.cache_snapshot_codes = cache_snapshot_codes
        self.smm_sweeps = smm_sweeps
        self.chunk_size = chunk_size
        self.gradient_map = gradient_map
        self.code_max_iter = code_max_iter
        self.code_solver = code_solver
        self.eval_every = eval_every
        self.eval_tol = eval_tol
        self.callback = callback
        self.n_checkpoints = n_checkpoints
        self.random_state = random_state
        self.state_file = state_file

    # ------------------------------------------------------------------ set-up
    def _check(self, X, reset):
        if is_dask_array(X):  # validated lazily, as one blockwise pass; never materialized
            with guarded_validation(self):
                self._validate_params()
                if reset and isinstance(self.quadratic, str):
                    raise ValueError("quadratic='data' forms XᵀX from X in memory; give a "
                                     "NumPy array or the matrix itself")
                n_features = None if reset else self.components_.shape[1]
                X = check_dask_rows(X, type(self).__name__, n_features)
                if reset:
                    self.n_features_in_ = X.shape[1]
            return X
        return check_complete_input(self, X, reset=reset, nonnegative=False)

    def _make_problem(self, X) -> SMFProblem:
        n, F = X.shape
        if isinstance(self.problem, SMFProblem):
            return self.problem.bind(n)
        quadratic = self.quadratic
        if isinstance(quadratic, str):  # "data": OLRR's Q = XᵀX + λ₃I (A = I, B = I)
            lam3 = 1.0 / np.sqrt(F) if self.dict_alpha is None else self.dict_alpha
            Xd = X.toarray() if hasattr(X, "toarray") else X
            quadratic = QuadraticDictionary.from_olrr(np.asarray(Xd, float).T, lam3=lam3).Q
        elif quadratic is not None:
            quadratic = np.asarray(quadratic, dtype=float)
            if quadratic.shape != (F, F):
                raise ValueError(f"quadratic must be ({F}, {F}), got {quadratic.shape}")
        return make_problem(self.problem, F, alpha=self.alpha,
                            outlier_alpha=self.outlier_alpha, dict_alpha=self.dict_alpha,
                            code_bound=self.code_bound, outlier_bound=self.outlier_bound,
                            ridge=self.ridge, group_size=self.group_size,
                            laplacian=self.laplacian, quadratic=quadratic, n_samples=n)

    def _initial_dictionary(self, X, problem):
        n, F = X.shape
        K = self.n_components
        init = self.init
        if isinstance(init, str) and init == "auto":
            init = "ones_jitter" if problem.robust else "random_samples"
        if not isinstance(init, str):
            D0 = np.array(self.init, dtype=float)  # a copy: never alias the caller's array
            if D0.shape != (K, F):
                raise ValueError(f"init must have shape ({K}, {F}), got {D0.shape}")
            if not np.isfinite(D0).all():
                raise ValueError("init contains NaN or inf")
        elif init in ("ones", "ones_jitter"):
            D0 = np.ones((K, F))
            if init == "ones":
                import warnings

                warnings.warn("init='ones' is a symmetric fixed set: every atom stays "
                              "identical under the symmetric updates; use 'ones_jitter'",
                              stacklevel=3)
            else:
                D0 += 1e-3 * self._rng.random((K, F))  # seeded by random_state
        elif init == "random_samples":
            rows = self._rng.choice(n, size=K, replace=K > n)
            D0, _ = dense_batch(X, rows)
            D0 = D0.astype(float) + 1e-3 * self._rng.random((K, F))
        else:
            D0 = self._rng.random((K, F))
        return problem.project_dictionary(D0)

    def _start(self, X):
        n = X.shape[0]
        self.problem_ = self._make_problem(X)
        self._check_solver(self.problem_)
        rng = check_random_state(self.random_state)
        self._rng = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
        b, m = default_batch_params(n)
        self.batch_size_ = min(self.batch_size or b, n)
        self.inner_iter_ = self.inner_iter or m
        D = self._initial_dictionary(X, self.problem_)
        self.components_ = D
        self.n_components_ = self.n_components
        self.n_solves_ = 0
        self.n_samples_drawn_ = 0
        self.n_steps_ = 0
        self.learning_rate_ = None
        self._smm = self._sgd = None  # the SMM / SGD rules' states
        self._running_loss = None
        self._next_eval = 0.0
        self._eval_codes = None  # the last evaluation's codes: the next one's start
        self._reservoir = (None, 0)
        self._reset_history()

    def _check_solver(self, problem):
        if self.code_solver == "newton" and not newton_applicable(problem):
            raise ValueError(f"code_solver='newton' needs l1 outliers and a ridge or box code "
                             f"set (ORPCA, OLRR, ORNMF); problem {problem.name!r} has not; "
                             f"use 'bsum'")

    # ------------------------------------------------------------------ pieces
    @property
    def _solver(self):
        """The algorithm's code solver, called as :func:`solve_codes_bsum` is."""
        return solve_codes_newton_capped if self.code_solver == "newton" else solve_codes_bsum

    def _solve(self, D, Xb, tol, warm=None, gram=None, lipschitz=None):
        H0, R0 = (None, None) if warm is None else (warm.codes, warm.outliers)
        res = self._solver(self.problem_, D, Xb, tol, max_iter=self.code_max_iter, H0=H0,
                           R0=R0, scale_tol=self.scale_tol, gram=gram, lipschitz=lipschitz)
        self.n_solves_ += Xb.shape[0]
        return res

    def _draw(self, X):
        n = X.shape[0]
        rows = self._rng.choice(n, size=self.batch_size_, replace=False)
        self.n_samples_drawn_ += rows.size
        return dense_batch(X, rows)[0].astype(float)

    def _checkpoint(self, X, fit_obj=None):
        """Evaluate (time excluded) when due; ``fit_obj`` is the free estimate otherwise."""
        n = X.shape[0]
        passes = self.n_solves_ / n
        if self.eval_every is None:
            if fit_obj is not None and self.n_checkpoints:
                self._history.record(self.n_solves_, self._fit_time, fit_obj,
                                     samples=self.n_samples_drawn_)
            return
        if passes + 1e-12 < self._next_eval:
            return
        self._next_eval = (np.floor(passes / self.eval_every) + 1) * self.eval_every
        # each evaluation starts from the previous one's codes (n × K floats, in-memory X):
        # a nearby dictionary's codes save much of the accurate solves' time
        ev = evaluate(self.problem_, self.components_, X, eta=self._eval_eta(),
                      tol=self.eval_tol, max_iter=max(self.code_max_iter, 3000),
                      chunk_size=self.chunk_size, scale_tol=self.scale_tol,
                      codes0=self._eval_codes, keep_codes=True)
        self._eval_codes = ev["codes"]
        if self.n_checkpoints:
            self._history.record(self.n_solves_, self._fit_time, ev["objective"],
                                 samples=self.n_samples_drawn_,
                                 stationarity=ev["stationarity"])
        if self.callback is not None:
            self.callback({"passes": passes, "samples": self.n_samples_drawn_,
                           "solves": self.n_solves_, "time": self._fit_time,
                           "objective": ev["objective"], "stationarity": ev["stationarity"],
                           "components": self.components_.copy()})

    def _eval_eta(self):
        if isinstance(self.learning_rate, Real):
            return float(self.learning_rate)
        return self.learning_rate_ or 1.0

    def _keep_iterate(self, D):
        """Reservoir sampling of one iterate, uniform over all offered (Option I)."""
        if self.output != "random":
            return
        kept, count = self._reservoir
        count += 1
        if self._rng.random() < 1.0 / count:
            kept = D.copy()
        self._reservoir = (kept, count)

    # ------------------------------------------------------------------ VR (Algorithm 1)
    def _vr_epoch(self, X):
        """One outer iteration: the snapshot (the rule's state), then ``inner_iter`` steps."""
        P = self.problem_
        n = X.shape[0]
        b, m = self.batch_size_, self.inner_iter_
        s = self.n_iter_
        t0 = time.perf_counter()
        D0 = self.components_.astype(float)
        tol = self.code_tol * code_tolerance(m * s, self.tau)
        snap, terms = VRSnapshot.take(
            P, D0, X, tol, chunk_size=self.chunk_size, max_iter=self.code_max_iter,
            map_fn=self.gradient_map or map, cache_codes=self.cache_snapshot_codes,
            solve=lambda D, Xc, tol, gram, lip: self._solve(D, Xc, tol, gram=gram,
                                                            lipschitz=lip),
            step_scale=self.step_scale, learning_rate=self.learning_rate,
            solver=self._solver)
        if not self.cache_snapshot_codes:
            self.n_solves_ += n
        eta = self.learning_rate_ = snap.eta
        self._fit_time += time.perf_counter() - t0
        self._checkpoint(X, terms.loss / n + P.psi(D0))
        D = D0
        for t in range(m):
            t1 = time.perf_counter()
            self._keep_iterate(D)
            if t == 0:  # W^{s,0} = snapshot: lines 8 and 9 coincide, the correction cancels
                D = P.prox_dictionary(D - eta * snap.grad, eta)
            else:
                rows = self._rng.choice(n, size=b, replace=False)
                self.n_samples_drawn_ += b
                Xb = dense_batch(X, rows)[0].astype(float)
                D, solves = snap.step(P, D, Xb, rows,
                                      self.code_tol * code_tolerance(m * s + t, self.tau),
                                      max_iter=self.code_max_iter, scale_tol=self.scale_tol,
                                      solver=self._solver)
                self.n_solves_ += solves
            _check_finite(D, f"StochasticMF(method='vr') diverged with learning_rate={eta:g}"
                             "; use a smaller step")
            self.components_ = D
            self.n_steps_ += 1
            self._fit_time += time.perf_counter() - t1
            self._checkpoint(X)
        self.n_iter_ += 1

    # ------------------------------------------------------------------ SMM and SGD
    def _stochastic_step(self, X, Xb):
        t1 = time.perf_counter()
        P = self.problem_
        D = self.components_.astype(float)
        res = self._solve(D, Xb, self.code_tol * code_tolerance(self.n_steps_, self.tau))
        b = Xb.shape[0]
        loss = float(P.sample_losses(Xb, D, res.codes, res.outliers).mean())
        self._running_loss = loss if self._running_loss is None else (
            0.9 * self._running_loss + 0.1 * loss)
        if self.method == "smm":
            H = res.codes
            target = Xb if res.outliers is None else Xb - res.outliers
            if self._smm is None:
                self._smm = SMMStats.zeros(*D.shape)
            self._smm = self._smm.add(H, target)  # the rule's state, then its step
            D = self._smm.step(P, D, sweeps=self.smm_sweeps)
        else:
            V = danskin_gradient_sum(D, Xb, res.codes, res.outliers) / b
            if self._sgd is None:  # the rule's state, from the first mini-batch
                self._sgd = ProxSGDSchedule.first(res.codes)
            D, self.learning_rate_ = self._sgd.step(
                P, D, V, steps_done=self.n_steps_, batch=b, n_samples=X.shape[0],
                beta=self.sgd_beta, beta_prime=self.sgd_beta_prime, scale=self.step_scale)
        _check_finite(D, f"StochasticMF(method={self.method!r}) diverged; use a smaller "
                         "step (sgd_beta)")
        self.components_ = D
        self.n_steps_ += 1
        self._keep_iterate(D)
        self._fit_time += time.perf_counter() - t1
        self._checkpoint(X, self._running_loss)

    def _budget_steps(self, n):
        """SMM/SGD steps spending the solves of ``max_iter`` VR outer iterations."""
        b, m = self.batch_size_, self.inner_iter_
        per_epoch = n + (m - 1) * (b if self.cache_snapshot_codes else 2 * b)
        return max(1, int(np.ceil(self.max_iter * per_epoch / b)))

    # ------------------------------------------------------------------ public API
    @transactional
    def fit(self, X, y=None):
        """Run the chosen method on the finite sum over the rows of X (resumed from
        ``state_file`` when it holds an interrupted fit's state)."""
        X = self._check(X, True)
        key = state_key(self, X) if self.state_file is not None else None
        state = None if key is None else load_state(self.state_file, key)
        if state is None:
            self._start(X)
            self._checkpoint(X)
        else:
            self.__dict__.update(state)
        if self.method == "vr":
            while self.n_iter_ < self.max_iter:
                self._vr_epoch(X)
                self._save_state(key)
        else:
            steps = self._budget_steps(X.shape[0])
            per_outer = max(1, steps // self.max_iter)
            while self.n_steps_ < steps:
                self._stochastic_step(X, self._draw(X))
                if self.n_steps_ % per_outer == 0:
                    self._save_state(key)
            self.n_iter_ = self.max_iter
        self._finish(X.dtype)
        self._checkpoint_final(X)
        if key is not None:
            remove_state(self.state_file)
        return self

    def _save_state(self, key):
        if key is not None:
            save_state(self.state_file, key, self, self.get_params(deep=False))

    @transactional
    def partial_fit(self, X, y=None):
        """Continue on a new block of rows: one outer iteration on it (VR), or one step per
        ``batch_size`` consecutive rows (SMM, SGD: a stream)."""
        first = not hasattr(self, "components_")
        X = self._check(X, first)
        if first:
            self._start(X)
        else:
            self.problem_ = self.problem_.bind(X.shape[0])
            self.batch_size_ = min(self.batch_size_, X.shape[0])
        if self.method == "vr":
            self._vr_epoch(X)
        else:
            for start in range(0, X.shape[0], self.batch_size_):
                rows = np.arange(start, min(start + self.batch_size_, X.shape[0]))
                self.n_samples_drawn_ += rows.size
                self._stochastic_step(X, dense_batch(X, rows)[0].astype(float))
        self.components_ = self.components_.astype(X.dtype, copy=False)
        return self

    def _finish(self, dtype):
        """Option I's draw, and the dictionary in the dtype of the data (float32 stays)."""
        if self.output == "random" and self._reservoir[0] is not None:
            self.components_ = self._reservoir[0]
        self.components_ = self.components_.astype(dtype, copy=False)

    def _checkpoint_final(self, X):
        if self.eval_every is not None:
            self._next_eval = 0.0
            self._checkpoint(X)

    def _solve_all(self, X):
        check_is_fitted(self, "components_")
        X = self._check(X, False)
        Hs, Rs = [], []
        for Xc in iter_chunks(X, self.chunk_size):
            res = solve_codes_accurate(self.problem_, self.components_.astype(float), Xc,
                                       self.eval_tol, max_iter=max(self.code_max_iter, 3000),
                                       scale_tol=self.scale_tol)
            Hs.append(res.codes)
            Rs.append(res.outliers)
        H = np.vstack(Hs) if Hs else np.zeros((0, self.n_components_))
        R = None if Rs and Rs[0] is None else np.vstack(Rs) if Rs else None
        return H.astype(self.components_.dtype, copy=False), R

    def transform(self, X):
        """The codes h*(x, D) of every row (BSUM, tolerance ``eval_tol``); a dask array gives
        a lazy dask array (one task per row block)."""
        if is_dask_array(X):
            check_is_fitted(self, "components_")
            return self._transform_dask(self._check(X, False))
        return self._solve_all(X)[0]

    def decompose(self, X):
        """Split X ≈ low_rank + outliers: (``transform(X) @ components_``, r*) — outliers are
        zero for the non-robust problems."""
        if is_dask_array(X):  # lazy: one task per row block
            check_is_fitted(self, "components_")
            return self._decompose_dask(self._check(X, False))
        H, R = self._solve_all(X)
        low = H @ self.components_
        return low, (np.zeros_like(low) if R is None else R.astype(low.dtype))

    def objective(self, X) -> float:
        """f(D) on the rows of X: (1/n)Σℓ(x_i, D) + ψ(D), with accurate codes."""
        check_is_fitted(self, "components_")
        X = self._check(X, False)
        P = self.problem_.bind(X.shape[0])
        return evaluate(P, self.components_.astype(float), X, tol=self.eval_tol,
                        chunk_size=self.chunk_size, scale_tol=self.scale_tol)["objective"]

    def score(self, X, y=None):
        """Minus the objective f(D) on X."""
        return -self.objective(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = False
        return tags
