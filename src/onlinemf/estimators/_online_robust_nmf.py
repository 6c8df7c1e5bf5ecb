"""OnlineRobustNMF: online NMF with outliers (Zhao and Tan, arXiv:1604.02634)."""

from __future__ import annotations

import math
import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._batches import Segment, memory_segments, pass_segments
from .._dask import is_dask_array
from .._validation import (
    check_magnitude,
    check_start,
    check_stream_input,
    dense_batch,
    fill_empty_atoms,
    guarded_validation,
)
from ..coders import outlier_loss, solve_codes_outliers
from ..constraints import (
    project_l1_simplex,
    project_nonneg_elastic_ball,
    project_nonneg_l2_ball,
    project_nonnegative,
)
from ..updates import OutlierSurrogateUpdate
from ._base import (
    OnlineFactorizationMixin,
    RuleCountsMixin,
    lazy_blocks,
    one_blas_thread,
    transactional,
)
from ._online_nmf import auto_batch_size
from ._robust_settings import ROBUST_METHODS, Penalty, RobustSolver

__all__ = ["OnlineRobustNMF"]

class OnlineRobustNMF(RuleCountsMixin, OnlineFactorizationMixin, ClassNamePrefixFeaturesOutMixin,
                      TransformerMixin, BaseEstimator):
    r"""Online NMF with outliers (ONMFO, Algorithm 1 of Zhao and Tan).

    Each sample is modelled as v = W h + r + noise with h ≥ 0, a nonnegative dictionary W and a
    sparse outlier vector r, and the dictionary minimizes the expected loss of Zhao and Tan
    (2017), eqs. (5)–(8):

    .. math::

        \min_{W \in \mathcal{C}} \; \mathbb{E}_v\Big[\min_{h \ge 0,\ \|r\|_\infty \le M}
        \tfrac12 \|v - Wh - r\|_2^2 + \lambda \|r\|_1\Big].

    Per mini-batch:

    1. solve the codes and outliers (h, r) with the current dictionary (eq. (9));
    2. update the sufficient statistics A = mean hhᵀ, B = mean h(v − r)ᵀ, c (eq. (12));
    3. solve the dictionary from them, warm-started at the previous one (eq. (10)).

    Parameters
    ----------
    n_components : int, default=49
        K (the paper's canonical 49).
    solver : {"admm", "pgd", "apgd"} or RobustSolver, default="admm"
        The method of both sub-problems: OADMM (eqs. (25)–(35)), the paper's OPGD
        (eqs. (15)–(22)) or its accelerated form "apgd"; a :class:`~onlinemf.RobustSolver`
        also sets κ, ρ, the sub-problems' caps and tolerances, and how the codes' solve
        starts and applies its tolerance while learning. ADMM is the default because
        it solves both sub-problems accurately within the paper's caps.
    lam : float, "auto" or "paper", default="auto"
        λ, the weight of the outliers' ℓ1 norm: each residual entry beyond λ is an outlier
        (in the units of the scaled data, like M). "paper" is the paper's 1/√F (also taken
        for None), the value of robust PCA theory for a whole matrix, which for one sample
        shrinks the threshold with the image size. "auto" is M/4, a fixed fraction of the
        outliers' range, so the threshold does not depend on the number of features and
        denoises well across image sizes. The reproduction experiments use "paper".
    bound : float, default=1.0
        M, the box on the outliers (data normalized to max 1 make M = 1 natural).
    batch_size : int, "auto" or "paper", default="auto"
        τ. "auto" sizes the mini-batch to amortize the per-step dictionary solve and the Python
        overhead: 2·10⁵/(K·F) rows clipped to [2K, 512] (:func:`auto_batch_size`). "paper" is
        the paper's 5·10⁻⁵N in :meth:`fit` (at least 1) and 5 in :meth:`partial_fit`; the
        reproduction experiments use it or an explicit τ.
    dict_constraint : {"l2ball", "nonneg", "simplex", "elastic"}, default="l2ball"
        The atom set: C (nonnegative, ‖w‖₂ ≤ 1), C₁ (nonnegative), C₂ (nonnegative, ‖w‖₁ = 1)
        or C₃ (nonnegative, γ₁‖w‖₁ + (γ₂/2)‖w‖² ≤ 1 with ``Penalty(elastic=(γ₁, γ₂))``).
    init : "random" or array-like, default="random"
        W₀: i.i.d. U(0, 1) projected onto the atom set (the paper's), or an array of shape
        (n_components, n_features), e.g. another fit's ``components_`` (a warm start): its
        atoms as rows, nonnegative and finite, an atom of zeros replaced by a uniform random
        one, then projected onto the atom set like the random start. The array is copied.
    nonneg_outliers : bool, default=False
        Outliers in R′ = [0, M]^F instead of [−M, M]^F.
    penalty : Penalty or None, default=None
        Regularizers on the codes and the dictionary (Section VI) and the elastic set's
        (γ₁, γ₂); None is none.
    scale : {"sample_max", "max"}, float or None, default="sample_max"
        The paper normalizes each sample to unit maximum (Section VII-B3) so that M = 1 and
        λ = 1/√F fit; "max" divides all data by one number; None keeps them. :meth:`transform`
        and :meth:`decompose` return results in the units of the data.
    max_iter : int, default=200
        The cap on passes of :meth:`fit`, which usually stops earlier by ``tol`` and
        ``max_no_improvement`` (the paper's single pass: ``max_iter=1,
        max_no_improvement=None``).
    tol : float, default=1e-4
        :meth:`fit` stops when its smoothed objective (the mini-batches' objective at their
        codes, averaged over about a pass) has fallen by less than this fraction over
        ``max_no_improvement`` consecutive mini-batches.
    max_no_improvement : int or None, default=10
        Consecutive mini-batches without an improvement of ``tol`` that stop :meth:`fit`;
        None runs exactly ``max_iter`` passes. A fit stopped by ``max_iter`` with the rule on
        emits a ``ConvergenceWarning``.
    shuffle : bool, default=True
    callback : callable or None, default=None
        Called after every mini-batch step with a dict: ``rows`` (the batch's row indices in
        the X of the call; None for a dask array), ``codes`` (the batch's codes h_i, computed
        with W_(t−1), in the units of X), ``components`` (W_t) and ``time`` (fitting seconds
        so far). With it the paper's clean-data regret f̂_t (eq. (46)) and the online PSNR from
        stored codes (eq. (48)) can be followed without refitting.
    settings : {"default", "paper"}, default="default"
        "paper" reads every "auto" as the paper does: λ = 1/√F, τ = 5·10⁻⁵N and κ = 0.7.
        Explicit values win. The reproduction experiments use it.
    random_state : int, RandomState or None
        Seeds W₀ = P_C(U[0, 1]), the shuffling and, with ``RobustSolver(code_start=
        "uniform")``, the codes' starts.
    verbose : int, default=0
        1 prints the smoothed objective after each pass of :meth:`fit`; 2 adds a progress bar.

    Attributes
    ----------
    components_ : ndarray (n_components, n_features)
    lam_ : float
    solver_ : RobustSolver
        The solver's settings, κ resolved.
    state_ : SurrogateState
        The update rule's immutable state: the surrogate's statistics A, B and c (sample
        averages, a :class:`~onlinemf.updates.RunningAverage`) and the counts.
    stats_ : RunningAverage
        ``state_.stats``.
    n_samples_seen_, n_steps_ : int
        Read from ``state_``.
    n_iter_ : int
        Passes of :meth:`fit` (one stopped mid-pass counts), plus one per :meth:`partial_fit`.
    converged_ : bool
        Whether the last :meth:`fit` stopped by its rule rather than by ``max_iter``.
    history_ : dict of ndarrays
        ``n_samples``, ``time`` and ``objective`` = f̃_t(W_t), the surrogate the paper plots,
        computed exactly from the statistics.
    inner_ : dict
        How the two inner solves went over the steps since the model started: mean
        iterations per step (``code_iterations``, ``dict_iterations``), the share of steps
        that stopped at the cap rather than by the relative-change rule (``code_capped``,
        ``dict_capped``) and the seconds spent in each (``code_seconds``, ``dict_seconds``).
        It tells whether the caps of Section VII-B2 bind, and where a step's time goes (empty
        for a model saved before these counts existed).

    References
    ----------
    R. Zhao and V. Y. F. Tan (2017), "Online Nonnegative Matrix Factorization with Outliers",
    IEEE Trans. Signal Process. 65(3); arXiv:1604.02634.

    Examples
    --------
    >>> import numpy as np
    >>> from onlinemf import OnlineRobustNMF
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((400, 5)) @ rng.random((5, 64))
    >>> X[rng.random(X.shape) < 0.05] = 5.0      # sparse outliers
    >>> model = OnlineRobustNMF(n_components=5, batch_size=10, random_state=0).fit(X)
    >>> low_rank, outliers = model.decompose(X)
    >>> low_rank.shape, outliers.shape
    ((400, 64), (400, 64))
    """

    #: a model saved before ``init`` existed reads the start it was fitted from
    init = "random"

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "solver": [StrOptions(set(ROBUST_METHODS)), RobustSolver],
        "lam": [Interval(Real, 0, None, closed="left"), StrOptions({"auto", "paper"}), None],
        "bound": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left"),
                       StrOptions({"auto", "paper"})],
        "dict_constraint": [StrOptions({"l2ball", "nonneg", "simplex", "elastic"})],
        "init": [StrOptions({"random"}), "array-like"],
        "nonneg_outliers": ["boolean"],
        "penalty": [Penalty, None],
        "scale": [StrOptions({"sample_max", "max"}), Interval(Real, 0, None, closed="neither"),
                  None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_no_improvement": [Interval(Integral, 1, None, closed="left"), None],
        "shuffle": ["boolean"],
        "callback": [callable, None],
        "settings": [StrOptions({"default", "paper"})],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, n_components=49, *, solver="admm", lam="auto", bound=1.0,
                 batch_size="auto", dict_constraint="l2ball", init="random",
                 nonneg_outliers=False, penalty=None, scale="sample_max", max_iter=200, tol=1e-4,
                 max_no_improvement=10, shuffle=True, callback=None, settings="default",
                 random_state=None, verbose=0):
        self.n_components = n_components
        self.solver = solver
        self.lam = lam
        self.bound = bound
        self.batch_size = batch_size
        self.dict_constraint = dict_constraint
        self.init = init
        self.nonneg_outliers = nonneg_outliers
        self.penalty = penalty
        self.scale = scale
        self.max_iter = max_iter
        self.tol = tol
        self.max_no_improvement = max_no_improvement
        self.shuffle = shuffle
        self.callback = callback
        self.settings = settings
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ pieces
    def _project(self, D):
        if self.dict_constraint == "l2ball":
            return project_nonneg_l2_ball(D)
        if self.dict_constraint == "nonneg":
            return project_nonnegative(D)
        if self.dict_constraint == "simplex":
            return project_l1_simplex(D)
        return project_nonneg_elastic_ball(D, *self._penalty.elastic)

    def _batch_size(self, n_samples: int | None) -> int:
        """τ for a call: explicit, the paper's (5·10⁻⁵N in fit, 5 in partial_fit), or auto."""
        if self._paper_batch():
            return 5 if n_samples is None else max(1, math.ceil(5e-5 * n_samples))
        if self.batch_size == "auto":
            k = self.n_components_
            return auto_batch_size(k, self.n_features_in_, work=2e5, low=2 * k)
        return int(self.batch_size)

    def _paper_batch(self) -> bool:
        return self.batch_size == "paper" or (self.batch_size == "auto"
                                              and self.settings == "paper")

    def _sample_scale(self, Xb):
        """Per-sample divisors of a dense batch (the paper's unit-max normalization)."""
        if self.scale == "sample_max":
            m = Xb.max(axis=1) if Xb.shape[1] else np.ones(Xb.shape[0])
            return np.where(m > 0, m, 1.0)
        return np.full(Xb.shape[0], self.scale_)

    def _code(self, Xs, D, stopping=None, learning=False):
        """The codes and outliers of the scaled samples ``Xs`` under the dictionary ``D``.

        Parameters
        ----------
        Xs : ndarray (n, n_features)
        D : ndarray (n_components, n_features)
        stopping : {"batch", "sample"} or None
            Where the tolerance applies; None reads the solver's ``code_stopping`` (what
            learning uses).
        learning : bool
            A learning step: the solve starts as the solver's ``code_start`` says, else at
            zero (so that coding a fitted model is reproducible).
        """
        sol, pen = self._solver, self._penalty
        stopping = stopping or sol.code_stopping
        init = None
        if learning and sol.code_start == "uniform":
            if getattr(self, "_start_rng", None) is None:  # a model saved before the option
                self._start_rng = np.random.default_rng(self.n_steps_)
            init = self._start_rng.random((Xs.shape[0], D.shape[0])).astype(Xs.dtype)
        return solve_codes_outliers(
            D, Xs, self.lam_, self.bound, solver=ROBUST_METHODS[sol.method][0], init=init,
            max_iter=sol.code_max_iter, tol=sol.code_tol, kappa=sol.kappa, rho=sol.rho,
            h_l1=pen.h_l1, h_l2=pen.h_l2, nonneg_outliers=self.nonneg_outliers,
            stopping=stopping, h_group=pen.h_group, group_size=pen.group_size)

    def _losses(self, Xs, res):
        """Per-sample objective ℓ̃ (eq. (6)) of scaled samples at their codes and outliers."""
        pen = self._penalty
        return outlier_loss(Xs, res.codes, self.components_, res.outliers, self.lam_,
                            pen.h_l1, pen.h_l2, pen.h_group, pen.group_size)

    def _check_X(self, X, *, reset):
        with guarded_validation(self):
            self._validate_params()
            dtype = None if reset else self.components_.dtype
            X, _ = check_stream_input(self, X, None, reset=reset, dtype=dtype)
            data = X.data if hasattr(X, "data") and not isinstance(X, np.ndarray) else X
            if np.isnan(data).any():
                raise ValueError("OnlineRobustNMF does not model missing entries (NaN in X): its "
                                 "O(FK) statistics need fully observed samples")
            if self.scale != "sample_max":  # per-sample normalization protects the rest
                if reset:
                    scale = (float(np.max(X)) or 1.0) if self.scale == "max" else (
                        1.0 if self.scale is None else float(self.scale))
                else:
                    scale = self.scale_
                check_magnitude(X, "OnlineRobustNMF", scale)
            self._resolve_settings()
            if self.dict_constraint == "elastic":
                project_nonneg_elastic_ball(np.ones((1, 2)), *self._penalty.elastic)  # validates
        return X

    def _resolve_settings(self) -> None:
        """``_solver`` (κ "auto" resolved: 1, or the paper's 0.7 under ``settings="paper"``)
        and ``_penalty``, validated."""
        solver = self.solver
        solver = (RobustSolver(solver) if isinstance(solver, str) else solver).check("solver")
        if solver.kappa == "auto":
            solver = clone(solver).set_params(kappa=0.7 if self.settings == "paper" else 1.0)
        self._settle("_solver", solver)
        self._settle("_penalty", (Penalty() if self.penalty is None else self.penalty)
                     .check("penalty"))

    def _initialize(self, X):
        # a given start is checked before the start's state is set
        given = (None if isinstance(self.init, str) else
                 check_start(self.init, self.n_components, X.shape[1]))
        self._warn_more_components_than_features(X.shape[1])
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        self._rng = np.random.default_rng(seed)
        # the codes' uniform starts draw from a stream of their own, derived from the same
        # seed, so that W₀, the shuffle and the caller's RandomState are as without them
        self._start_rng = np.random.default_rng([seed, 1])
        n_features = X.shape[1]
        paper_lam = self.lam in (None, "paper") or (self.lam == "auto"
                                                    and self.settings == "paper")
        self.solver_ = clone(self._solver)
        self.lam_ = (1.0 / math.sqrt(n_features) if paper_lam else
                     0.25 * self.bound if self.lam == "auto" else float(self.lam))
        if self.scale == "max":
            top = float(X.max()) if X.shape[0] else 1.0
            self.scale_ = top if top > 0 else 1.0
        else:
            self.scale_ = 1.0 if self.scale in (None, "sample_max") else float(self.scale)
        D0 = self._rng.random((self.n_components, n_features))
        if given is not None:  # the uniform draw is made in any case: later draws are the same
            D0 = fill_empty_atoms(given, D0)
        self.components_ = self._project(D0).astype(X.dtype)
        self.n_components_ = self.n_components
        self.state_ = self._rule().init(self.components_)
        self._inner = (0,) + (0.0,) * 6  # steps, then the sums behind ``inner_``
        self._reset_history()

    def _rule(self) -> OutlierSurrogateUpdate:
        """The dictionary update rule with the current settings."""
        sol = self._solver
        return OutlierSurrogateUpdate(
            self._project, self.lam_, solver=ROBUST_METHODS[sol.method][1],
            max_iter=sol.dict_max_iter, tol=sol.dict_tol, kappa=sol.kappa, rho=sol.rho,
            w_l1=self._penalty.w_l1, w_l2=self._penalty.w_l2)

    @property
    def inner_(self) -> dict:
        """The inner solves' iterations, caps reached and seconds (see the class docstring)."""
        check_is_fitted(self, "components_")
        n, code_it, code_cap, dict_it, dict_cap, code_s, dict_s = getattr(
            self, "_inner", (0,) + (0.0,) * 6)
        if n == 0:  # a model saved before the counts existed: nothing measured
            return {}
        per = 1.0 / n
        return {"code_iterations": code_it * per, "code_capped": code_cap * per,
                "dict_iterations": dict_it * per, "dict_capped": dict_cap * per,
                "code_seconds": code_s, "dict_seconds": dict_s}

    @property
    def stats_(self):
        """The surrogate's statistics (``state_.stats``)."""
        check_is_fitted(self, "components_")
        return self.state_.stats

    def surrogate_objective(self, D=None) -> float:
        """f̃_t(D) = ½⟨DDᵀ, A⟩ − ⟨D, B⟩ + c (eq. (11)) at D (default: W_t), exact from the
        statistics."""
        check_is_fitted(self, "components_")
        return self._rule().surrogate(self.state_.stats, self.components_ if D is None else D)

    def _step(self, Xb, rows=None) -> float:
        """One ONMFO step; returns the batch's mean objective ℓ̃ at its codes and outliers
        (under the dictionary before the step, in scaled units)."""
        t0 = time.perf_counter()
        s = self._sample_scale(Xb)[:, None]
        Xs = Xb / s
        res = self._code(Xs, self.components_, learning=True)
        f = float(self._losses(Xs, res).mean())
        t1 = time.perf_counter()
        self.components_, self.state_ = self._rule().update(self.state_, self.components_, Xs,
                                                            res.codes, res.outliers)
        t2 = time.perf_counter()
        self._fit_time += t2 - t0
        dict_its = self.state_.last_iterations
        n, *sums = getattr(self, "_inner", (0,) + (0.0,) * 6)  # a model saved before them
        self._inner = (n + 1, *(a + b for a, b in zip(sums, (
            float(res.n_iter.max(initial=0)), float(not res.converged.all()), float(dict_its),
            float(dict_its >= self._solver.dict_max_iter), t1 - t0, t2 - t1))))
        if self.callback is not None:
            self.callback({"rows": rows, "codes": res.codes * s, "components": self.components_,
                           "time": self._fit_time})
        return f

    def _record(self, n_rows: int) -> None:
        if self._history.due(self.state_.n_steps):
            self._history.record(self.state_.n_samples_seen, self._fit_time,
                                 self.surrogate_objective())

    def _open_segment(self, seg: Segment) -> Segment:
        """A fresh piece of a dask array is validated here; the first starts the model."""
        if seg.fresh:
            first = not hasattr(self, "components_")
            X = self._check_X(seg.X, reset=first)
            if first:
                self._initialize(X)
            seg = Segment(X, None, seg.order)
        return seg

    def _batch_step(self, seg: Segment, rows) -> float:
        return self._step(dense_batch(seg.X, rows)[0], rows)

    # ------------------------------------------------------------------ public API
    @transactional
    @one_blas_thread
    def partial_fit(self, X, y=None):
        """One ONMFO step per mini-batch of ``batch_size`` rows of X, continuing the stream."""
        if is_dask_array(X):  # pieces validated as they are read; the first starts the model
            bs = self._dask_batch_size(X)
        else:
            first = not hasattr(self, "components_")
            X = self._check_X(X, reset=first)
            if first:
                self._initialize(X)
            bs = self._batch_size(None)
        self._pass(pass_segments(X, batch_size=bs), bs)
        self.n_iter_ += 1
        return self

    def _dask_batch_size(self, X) -> int:
        k = self.n_components
        return (int(self.batch_size) if isinstance(self.batch_size, Integral) else 5
                if self._paper_batch() else
                auto_batch_size(k, X.shape[1], work=2e5, low=2 * k))

    @transactional
    @one_blas_thread
    def fit(self, X, y=None):
        """Learn the dictionary by ``max_iter`` shuffled passes of ONMFO over X (the row
        blocks of a dask array in order)."""
        if is_dask_array(X):  # a fresh start, from the first piece read
            for attr in ("components_", "n_features_in_"):
                self.__dict__.pop(attr, None)
            self.n_iter_ = 0
            bs = self._dask_batch_size(X)
            self._converging_passes(X.shape[0], lambda: pass_segments(X, batch_size=bs), bs)
            return self
        X = self._check_X(X, reset=True)
        self._initialize(X)
        bs = self._batch_size(X.shape[0])
        self._converging_passes(
            X.shape[0], lambda: memory_segments(X, None, self._rng if self.shuffle else None), bs)
        return self

    def _solve_all(self, X):
        X = self._check_X(X, reset=False)
        n = X.shape[0]
        H = np.empty((n, self.n_components_), dtype=self.components_.dtype)
        R = np.empty((n, X.shape[1]), dtype=self.components_.dtype)
        for start in range(0, n, 4096):
            rows = np.arange(start, min(start + 4096, n))
            Xb, _ = dense_batch(X, rows)
            s = self._sample_scale(Xb)[:, None]
            res = self._code(Xb / s, self.components_, stopping="sample")
            H[rows], R[rows] = res.codes * s, res.outliers * s
        return H, R

    @lazy_blocks("transform")
    def transform(self, X):
        """Codes of X (in the units of X): ``transform(X) @ components_`` is the low-rank part.
        A dask array gives a lazy dask array."""
        check_is_fitted(self, "components_")
        return self._solve_all(X)[0]

    @lazy_blocks("decompose")
    def decompose(self, X):
        """Split X into its low-rank part and its sparse outliers: X ≈ low_rank + outliers.

        Returns
        -------
        low_rank : ndarray (n_samples, n_features)
            ``transform(X) @ components_`` (the denoised data, or the background of a video).
        outliers : ndarray (n_samples, n_features)
            The outlier estimates r (the foreground of a video).
        """
        check_is_fitted(self, "components_")
        H, R = self._solve_all(X)
        return H @ self.components_, R

    @lazy_blocks("score")
    def score(self, X, y=None):
        """Minus the mean per-sample loss ℓ(v, W) of eq. (5), on normalized samples (a
        map-reduce pass for a dask array)."""
        check_is_fitted(self, "components_")
        X = self._check_X(X, reset=False)
        total = 0.0
        for start in range(0, X.shape[0], 4096):
            Xb, _ = dense_batch(X, np.arange(start, min(start + 4096, X.shape[0])))
            Xs = Xb / self._sample_scale(Xb)[:, None]
            res = self._code(Xs, self.components_, stopping="sample")
            total += float(self._losses(Xs, res).sum())
        return -total / max(X.shape[0], 1)
