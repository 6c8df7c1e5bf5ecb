"""StochasticMF: stochastic matrix factorization by variance reduction (SVRG), stochastic
majorization-minimization (SMM) or proximal SGD, over the eight problems of Zhao, Haskell and
Feng (2018), "A Unified Framework for Stochastic Matrix Factorization via Variance Reduction"
(arXiv:1705.10679)."""

from __future__ import annotations

import math
import os
import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._batches import Segment, memory_segments
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
from ..problems import PROBLEM_NAMES, Problem, SMFProblem
from ..updates import (
    ProxSGDUpdate,
    SMMUpdate,
    SVRGUpdate,
    code_tolerance,
    danskin_gradient_sum,
    default_batch_params,
    iter_chunks,
)
from ._base import OnlineFactorizationMixin, lazy_blocks, transactional
from ._smf_settings import SMFCoder, SMFStep

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
    problem : str, Problem or SMFProblem, default="odl"
        One of the paper's eight problems by name ("odl", "ossl", "onmf", "ssodl", "orpca",
        "omrmd", "olrr", "ornmf") at its default weights (1/√F, the paper's setting), a
        :class:`~onlinemf.problems.Problem` with its weights, or any
        :class:`~onlinemf.problems.SMFProblem` assembled from parts.
    method : {"vr", "smm", "sgd"}, default="vr"
    n_components : int, default=10
        K (the paper's k; it uses 49).
    batch_size, inner_iter : int or None
        b and m; None: b = 0.2·n^{2/3} (the paper's, Section 5) and m = ⌈n/b⌉, or the
        paper's m = 0.5·n^{1/3} under ``settings="paper"``.
    max_iter : int, default=10
        S, the number of outer iterations (VR), and the budget of SMM and SGD.
    step : SMFStep or None, default=None
        The step sizes (VR's η, its scale, SGD's schedule); None: ``SMFStep()``.
    coder : SMFCoder or None, default=None
        The code solver, its tolerance schedule and caps; None: ``SMFCoder()``.
    output : {"last", "random"}, default="last"
        Option II or Option I of Algorithm 1.
    init : {"auto", "random_samples", "ones_jitter", "ones", "random"} or array,
        default="auto"
        "ones" is the paper's literal all-ones start, projected onto C; it is a symmetric
        fixed set (all atoms stay identical) and warns. "ones_jitter" adds 1e-3·U(0, 1)
        first, which breaks the symmetry; "random_samples" takes K training rows projected
        onto C. "auto": "random_samples" for the non-robust problems (the fits end lower
        from them) and "ones_jitter" for the robust ones, whose samples carry the outliers.
    smm_sweeps : int, default=1
        BCD sweeps per SMM step (Mairal: one, warm-started).
    chunk_size : int, default=2048
        Rows per chunk of the full-gradient pass.
    gradient_map : callable or None
        The map used by the full-gradient pass (default: built-in ``map``); e.g. an executor's
        ``map`` to spread the chunks over workers.
    eval_every : float or None
        Every so many passes, evaluate f and ‖Γ‖² on the training data with accurate codes
        (time excluded) and record them in ``history_``; None: VR records its snapshot
        objective, SMM and SGD their running mini-batch loss.
    callback : callable or None
        Called at each evaluation with a dict (passes, samples, solves, time, objective,
        stationarity, components); its time is excluded.
    settings : {"default", "paper"}, default="default"
        "paper" keeps the paper's protocol for every setting left at None: b = 0.2·n^{2/3},
        m = 0.5·n^{1/3} and VR's scalar step 1/L̂ (``SMFStep(rule="auto")``). The default
        runs m = ⌈n/b⌉ inner steps (one pass of them per outer iteration, the balance of the
        paper's own complexity argument) in the snapshot's metric, after a first outer
        iteration of SMM steps (``SMFStep(warm_start=...)``), with η halved after any
        snapshot whose objective rose (``SMFStep(safeguard=...)``). The reproduction
        experiments use "paper".
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
    vr_step_halvings_ : int
        How many times VR's step safeguard halved η (``SMFStep(safeguard=...)``).
    n_solves_ : int
        Per-sample subproblem solves (1 pass = n solves).
    state_ : SurrogateState, ProxSGDState or None
        The SMM or SGD rule's immutable state (its sums, or its schedule's curvature and
        steps); None for VR, whose snapshot lasts one outer iteration.
    n_samples_drawn_ : int
    """

    _parameter_constraints: dict = {
        "problem": [StrOptions(set(PROBLEM_NAMES)), Problem, SMFProblem],
        "method": [StrOptions(set(METHODS))],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left"), None],
        "inner_iter": [Interval(Integral, 1, None, closed="left"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "step": [SMFStep, None],
        "coder": [SMFCoder, None],
        "output": [StrOptions({"last", "random"})],
        "init": [StrOptions(set(INITS)), "array-like"],
        "smm_sweeps": [Interval(Integral, 1, None, closed="left")],
        "chunk_size": [Interval(Integral, 1, None, closed="left")],
        "gradient_map": [callable, None],
        "eval_every": [Interval(Real, 0, None, closed="neither"), None],
        "callback": [callable, None],
        "settings": [StrOptions({"default", "paper"})],
        "random_state": ["random_state"],
        "state_file": [str, os.PathLike, None],
    }

    #: checkpoints the history keeps (between this many and twice as many)
    _history_checkpoints = 200

    def __init__(self, problem="odl", method="vr", n_components=10, *, batch_size=None,
                 inner_iter=None, max_iter=10, step=None, coder=None, output="last",
                 init="auto", smm_sweeps=1, chunk_size=2048, gradient_map=None,
                 eval_every=None, callback=None, settings="default", random_state=None,
                 state_file=None):
        self.problem = problem
        self.method = method
        self.n_components = n_components
        self.batch_size = batch_size
        self.inner_iter = inner_iter
        self.max_iter = max_iter
        self.step = step
        self.coder = coder
        self.output = output
        self.init = init
        self.smm_sweeps = smm_sweeps
        self.chunk_size = chunk_size
        self.gradient_map = gradient_map
        self.eval_every = eval_every
        self.callback = callback
        self.settings = settings
        self.random_state = random_state
        self.state_file = state_file

    def _resolve_settings(self) -> None:
        """``_step_s`` and ``_code_s``: the step and coder settings, validated."""
        self._settle("_step_s", (SMFStep() if self.step is None else self.step).check("step"))
        self._settle("_code_s", (SMFCoder() if self.coder is None else self.coder)
                     .check("coder"))
        problem = self.problem
        if isinstance(problem, Problem):
            problem.check("problem")

    # ------------------------------------------------------------------ set-up
    def _check(self, X, reset):
        if is_dask_array(X):  # validated lazily, as one blockwise pass; never materialized
            with guarded_validation(self):
                self._validate_params()
                self._resolve_settings()
                if reset and isinstance(getattr(self.problem, "quadratic", None), str):
                    raise ValueError("quadratic='data' forms XᵀX from X in memory; give a "
                                     "NumPy array or the matrix itself")
                n_features = None if reset else self.components_.shape[1]
                X = check_dask_rows(X, type(self).__name__, n_features)
                if reset:
                    self.n_features_in_ = X.shape[1]
            return X
        X = check_complete_input(self, X, reset=reset, nonnegative=False)
        with guarded_validation(self):
            self._resolve_settings()
        return X

    def _make_problem(self, X) -> SMFProblem:
        if isinstance(self.problem, SMFProblem):
            return self.problem.bind(X.shape[0])
        spec = Problem(self.problem) if isinstance(self.problem, str) else self.problem
        return spec.build(X)

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
        if self.inner_iter:
            self.inner_iter_ = self.inner_iter
        elif self.settings == "paper":
            self.inner_iter_ = m
        else:  # an inner loop that covers about one pass: m·b ≈ n, as SVRG balances it
            self.inner_iter_ = max(1, math.ceil(n / self.batch_size_))
        D = self._initial_dictionary(X, self.problem_)
        self.components_ = D
        self.n_components_ = self.n_components
        self.n_solves_ = 0
        self.n_samples_drawn_ = 0
        self.n_steps_ = 0
        self.learning_rate_ = None
        self.vr_step_halvings_ = 0
        self._vr_objective = None  # the last snapshot's objective (VR's step safeguard)
        self.state_ = None  # the SMM / SGD rule's state, from the first mini-batch
        self._running_loss = None
        self._next_eval = 0.0
        self._eval_codes = None  # the last evaluation's codes: the next one's start
        self._reservoir = (None, 0)
        self._reset_history()

    def _check_solver(self, problem):
        if self._code_s.solver == "newton" and not newton_applicable(problem):
            raise ValueError(f"SMFCoder(solver='newton') needs l1 outliers and a ridge or box code "
                             f"set (ORPCA, OLRR, ORNMF); problem {problem.name!r} has not; "
                             f"use 'bsum'")

    # ------------------------------------------------------------------ pieces
    @property
    def _solver(self):
        """The algorithm's code solver, called as :func:`solve_codes_bsum` is."""
        return solve_codes_newton_capped if self._code_s.solver == "newton" else solve_codes_bsum

    def _solve(self, D, Xb, tol, warm=None, gram=None, lipschitz=None):
        H0, R0 = (None, None) if warm is None else (warm.codes, warm.outliers)
        res = self._solver(self.problem_, D, Xb, tol, max_iter=self._code_s.max_iter, H0=H0,
                           R0=R0, scale_tol=self._code_s.scale_tol, gram=gram, lipschitz=lipschitz)
        self.n_solves_ += Xb.shape[0]
        return res

    def _checkpoint(self, X, fit_obj=None):
        """Evaluate (time excluded) when due; ``fit_obj`` is the free estimate otherwise."""
        n = X.shape[0]
        passes = self.n_solves_ / n
        if self.eval_every is None:
            if fit_obj is not None:
                self._history.record(self.n_solves_, self._fit_time, fit_obj,
                                     samples=self.n_samples_drawn_)
            return
        if passes + 1e-12 < self._next_eval:
            return
        self._next_eval = (np.floor(passes / self.eval_every) + 1) * self.eval_every
        # each evaluation starts from the previous one's codes (n × K floats, in-memory X):
        # a nearby dictionary's codes save much of the accurate solves' time
        ev = evaluate(self.problem_, self.components_, X, eta=self._eval_eta(),
                      tol=self._code_s.eval_tol, max_iter=max(self._code_s.max_iter, 3000),
                      chunk_size=self.chunk_size, scale_tol=self._code_s.scale_tol,
                      codes0=self._eval_codes, keep_codes=True)
        self._eval_codes = ev["codes"]
        self._history.record(self.n_solves_, self._fit_time, ev["objective"],
                             samples=self.n_samples_drawn_, stationarity=ev["stationarity"])
        if self.callback is not None:
            self.callback({"passes": passes, "samples": self.n_samples_drawn_,
                           "solves": self.n_solves_, "time": self._fit_time,
                           "objective": ev["objective"], "stationarity": ev["stationarity"],
                           "components": self.components_.copy()})

    def _eval_eta(self):
        if isinstance(self._step_s.learning_rate, Real):
            return float(self._step_s.learning_rate)
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
    def _vr_epoch(self, X, guard=False):
        """One outer iteration as a batch source: the snapshot (the rule's state, with its full
        gradient) and the first inner step, which needs no mini-batch (W^{s,0} is the snapshot,
        so the correction cancels), then one segment of ``batch_size`` drawn rows per further
        inner step (drawn as the steps go, after Option I's reservoir draw); ``guard``: the
        step safeguard (:meth:`_guarded`) applies."""
        n = X.shape[0]
        self._epoch = self._vr_snapshot(X, guard)
        self._vr_inner(X, 0)
        for t in range(1, self.inner_iter_):
            self._keep_iterate(self.components_)
            rows = self._rng.choice(n, size=self.batch_size_, replace=False)
            yield Segment(X, None, rows, ctx=t)
        del self._epoch
        self.n_iter_ += 1

    def _vr_snapshot(self, X, guard=False):
        """The rule and its snapshot state at W^{s,0} (the full gradient), recorded."""
        m, s = self.inner_iter_, self.n_iter_
        t0 = time.perf_counter()
        D0 = self.components_.astype(float)
        tol = self._code_s.tol * code_tolerance(m * s, self._code_s.tau)
        rule = self._vr_rule()
        snap = rule.init(D0, X, tol)
        if not self._code_s.cache_snapshot:
            self.n_solves_ += X.shape[0]
        objective = snap.loss / X.shape[0] + self.problem_.psi(D0)
        snap = self._guarded(rule, snap, objective) if guard else snap
        self.learning_rate_ = snap.eta
        self._fit_time += time.perf_counter() - t0
        self._checkpoint(X, objective)
        self.components_ = D0
        return rule, snap

    def _guarded(self, rule, snap, objective):
        """The step safeguard: η halved for the rest of the fit when the snapshot's
        ``objective`` is above the previous snapshot's (the halvings are counted in
        ``vr_step_halvings_``)."""
        previous, self._vr_objective = self._vr_objective, objective
        if previous is not None and objective > previous:
            self.vr_step_halvings_ += 1
        halvings = self.vr_step_halvings_
        return rule.rescaled(snap, 0.5 ** halvings) if halvings else snap

    def _vr_inner(self, X, t, rows=None):
        """Inner step t of the outer iteration (t = 0: the snapshot's own step)."""
        t1 = time.perf_counter()
        rule, snap = self._epoch
        D = self.components_
        if t == 0:
            self._keep_iterate(D)
            D, snap = rule.update(snap, D)
        else:
            self.n_samples_drawn_ += rows.size
            Xb = dense_batch(X, rows)[0].astype(float)
            c = self._code_s
            tol = c.tol * code_tolerance(self.inner_iter_ * self.n_iter_ + t, c.tau)
            D, snap = rule.update(snap, D, Xb, rows, tol)
            self.n_solves_ += snap.last_solves
        self._epoch = (rule, snap)
        _check_finite(D, "StochasticMF(method='vr') diverged with learning_rate="
                         f"{self.learning_rate_:g}; use a smaller step")
        self.components_ = D
        self.n_steps_ += 1
        self._fit_time += time.perf_counter() - t1
        self._checkpoint(X)

    def _smm_epoch(self, X):
        """VR's warm start: the first outer iteration as SMM steps on mini-batches drawn as
        SMM's are, as many as spend that iteration's per-sample solves; SMM's sums are then
        dropped (the snapshots carry no state from it)."""
        for _ in range(self._budget_steps(X.shape[0], 1)):
            yield self._drawn_batch(X, ctx="smm")
        self.state_ = None
        self.n_iter_ += 1

    def _vr_rule(self) -> SVRGUpdate:
        """The SVRG rule with the current settings (its snapshot lives for one outer
        iteration)."""
        c = self._code_s
        return SVRGUpdate(
            self.problem_, chunk_size=self.chunk_size, max_iter=c.max_iter,
            map_fn=self.gradient_map or map, cache_codes=c.cache_snapshot,
            solve=lambda D, Xc, tol, gram, lip: self._solve(D, Xc, tol, gram=gram,
                                                            lipschitz=lip),
            solver=self._solver, scale_tol=c.scale_tol,
            **self._step_s.vr_params(self.settings,
                                     getattr(self.problem_.dictionary, "separable", False),
                                     cold=self.n_iter_ == 0))

    # ------------------------------------------------------------------ SMM and SGD
    def _stochastic_step(self, X, Xb, method=None):
        """One SMM or SGD step (``method``, default the estimator's) on the mini-batch Xb."""
        t1 = time.perf_counter()
        P = self.problem_
        D = self.components_.astype(float)
        res = self._solve(D, Xb, self._code_s.tol * code_tolerance(self.n_steps_, self._code_s.tau))
        b = Xb.shape[0]
        loss = float(P.sample_losses(Xb, D, res.codes, res.outliers).mean())
        self._running_loss = loss if self._running_loss is None else (
            0.9 * self._running_loss + 0.1 * loss)
        if (method or self.method) == "smm":
            target = Xb if res.outliers is None else Xb - res.outliers
            rule = SMMUpdate(P, self.smm_sweeps)
            if self.state_ is None:
                self.state_ = rule.init(D)
            D, self.state_ = rule.update(self.state_, D, res.codes, target)
        else:
            V = danskin_gradient_sum(D, Xb, res.codes, res.outliers) / b
            rule = ProxSGDUpdate(P, X.shape[0], self._step_s.sgd_beta,
                                 self._step_s.sgd_beta_prime, self._step_s.scale)
            if self.state_ is None:  # the rule's state, from the first mini-batch
                self.state_ = rule.init(D, res.codes, self.n_steps_)
            D, self.state_ = rule.update(self.state_, D, V, b)
            self.learning_rate_ = self.state_.step_size
        _check_finite(D, f"StochasticMF(method={self.method!r}) diverged; use a smaller "
                         "step (SMFStep(sgd_beta=...))")
        self.components_ = D
        self.n_steps_ += 1
        self._keep_iterate(D)
        self._fit_time += time.perf_counter() - t1
        self._checkpoint(X, self._running_loss)

    @property
    def _draws_batches(self) -> bool:
        """SMM and SGD's ``fit`` draws its mini-batches at random (the shared "stream equals
        fit" check replays the drawn ones through ``partial_fit``)."""
        return self.method != "vr"

    def _budget_steps(self, n, outer=None):
        """SMM/SGD steps spending the solves of ``outer`` (default ``max_iter``) VR outer
        iterations."""
        b, m = self.batch_size_, self.inner_iter_
        per_epoch = n + (m - 1) * (b if self._code_s.cache_snapshot else 2 * b)
        return max(1, int(np.ceil((outer or self.max_iter) * per_epoch / b)))

    def _drawn_batch(self, X, ctx=None) -> Segment:
        """One mini-batch of ``batch_size`` rows of X drawn without replacement."""
        return Segment(X, None, self._rng.choice(X.shape[0], size=self.batch_size_,
                                                 replace=False), ctx=ctx)

    def _drawn_batches(self, X, key):
        """SMM/SGD's batch source in ``fit``: ``batch_size`` rows drawn without replacement for
        each step (drawn as the steps go), the budget of :meth:`_budget_steps`, the state saved
        every ``max_iter``-th of it."""
        steps = self._budget_steps(X.shape[0])
        per_outer = max(1, steps // self.max_iter)
        while self.n_steps_ < steps:
            yield self._drawn_batch(X)
            if self.n_steps_ % per_outer == 0:
                self._save_state(key)
        self.n_iter_ = self.max_iter

    def _vr_epochs(self, X, key):
        """VR's batch source in ``fit``: the warm-start outer iteration when due, then the
        outer iterations left, the state saved after each."""
        if self.n_iter_ == 0 and self.max_iter > 1 and self._step_s.vr_warm_start(self.settings):
            yield from self._smm_epoch(X)
            self._save_state(key)
        guard = self._step_s.vr_safeguard(self.settings)
        while self.n_iter_ < self.max_iter:
            yield from self._vr_epoch(X, guard)
            self._save_state(key)

    def _batch_step(self, seg: Segment, rows) -> float:
        """VR's inner step (``seg.ctx`` its index), or an SMM/SGD step on the rows; returns
        the running loss (NaN for VR: ``fit`` runs its budget, no stopping rule); VR's
        warm-start segments (``seg.ctx`` "smm") take SMM steps."""
        if self.method == "vr" and seg.ctx != "smm":
            self._vr_inner(seg.X, seg.ctx, rows)
            return float("nan")
        self.n_samples_drawn_ += rows.size
        self._stochastic_step(seg.X, dense_batch(seg.X, rows)[0].astype(float),
                              "smm" if seg.ctx == "smm" else None)
        return self._running_loss

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
        source = self._vr_epochs if self.method == "vr" else self._drawn_batches
        self._pass(source(X, key), self.batch_size_)
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
        source = self._vr_epoch(X) if self.method == "vr" else memory_segments(X)
        self._pass(source, self.batch_size_)
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
            c = self._code_s
            res = solve_codes_accurate(self.problem_, self.components_.astype(float), Xc,
                                       c.eval_tol, max_iter=max(c.max_iter, 3000),
                                       scale_tol=c.scale_tol)
            Hs.append(res.codes)
            Rs.append(res.outliers)
        H = np.vstack(Hs) if Hs else np.zeros((0, self.n_components_))
        R = None if Rs and Rs[0] is None else np.vstack(Rs) if Rs else None
        return H.astype(self.components_.dtype, copy=False), R

    def _dask_input(self, X):
        """A dask array for ``transform``/``decompose``, checked as one blockwise pass."""
        return self._check(X, False)

    @lazy_blocks("transform")
    def transform(self, X):
        """The codes h*(x, D) of every row (BSUM, tolerance ``eval_tol``); a dask array gives
        a lazy dask array (one task per row block)."""
        return self._solve_all(X)[0]

    @lazy_blocks("decompose")
    def decompose(self, X):
        """Split X ≈ low_rank + outliers: (``transform(X) @ components_``, r*) — outliers are
        zero for the non-robust problems."""
        H, R = self._solve_all(X)
        low = H @ self.components_
        return low, (np.zeros_like(low) if R is None else R.astype(low.dtype))

    def objective(self, X) -> float:
        """f(D) on the rows of X: (1/n)Σℓ(x_i, D) + ψ(D), with accurate codes."""
        check_is_fitted(self, "components_")
        X = self._check(X, False)
        P = self.problem_.bind(X.shape[0])
        return evaluate(P, self.components_.astype(float), X, tol=self._code_s.eval_tol,
                        chunk_size=self.chunk_size, scale_tol=self._code_s.scale_tol)["objective"]

    def score(self, X, y=None):
        """Minus the objective f(D) on X."""
        return -self.objective(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = False
        return tags
