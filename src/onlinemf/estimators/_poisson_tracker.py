"""PoissonSubspaceTracker: Poisson streaming subspace tracking with missing data (Wang and Chi
2016, "Stochastic Approximation and Memory-Limited Subspace Tracking for Poisson Streaming
Data", arXiv:1612.02425; IEEE TSP 2018)."""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._batches import Segment, pass_segments
from .._dask import dask_nanmean, is_dask_array, iter_row_blocks
from .._validation import (
    check_magnitude,
    check_start,
    check_stream_input,
    dense_batch,
    fill_empty_atoms,
    guarded_validation,
)
from ..coders import CodeSolver
from ..losses import KLDivergence
from ..updates import PoissonMemoryLimitedUpdate, PoissonSAUpdate
from ._base import (
    OnlineFactorizationMixin,
    RuleCountsMixin,
    lazy_blocks,
    one_blas_thread,
    transactional,
)

__all__ = ["PoissonSubspaceTracker"]

_KL = KLDivergence()  # the Poisson negative log-likelihood up to terms free of the rate


class PoissonSubspaceTracker(RuleCountsMixin, OnlineFactorizationMixin,
                             ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Track a nonnegative low-rank Poisson rate from a stream of count vectors with missing
    entries (Wang and Chi 2016, "Stochastic approximation and memory-limited subspace tracking
    for Poisson streaming data").

    Each count vector y_t ~ Poisson(D a_t) with D ≥ 0 (n_features × K) and a_t ≥ 0. Per time
    step, on the observed entries p_t:

    1. â_t = argmin_{a ≥ 0} Σ_i p_{t,i}(d_iᵀa − y_{t,i} log d_iᵀa) + μ‖a‖² (eq. (10)/(19)), by
       projected gradient with the Barzilai–Borwein step (safeguarded: the step clipped, and
       halved while the objective rises);
    2. the subspace, row by row:

       * ``method="ml"`` (memory-limited SA, Algorithms 2–3): d_i = argmin_{d ≥ 0} dᵀs_i −
         β_i log(dᵀr_i) + λ‖d‖² from statistics s_i (mean of p a), β_i (mean of p y) and r_i
         (mean of p y a): O(NK) memory whatever the stream's length; the row problem solved
         exactly (default) or by the paper's projected gradient;
       * ``method="sa"`` (Algorithm 1): d_i refitted on all past samples,
         (1/t) Σ_n p_{n,i}(dᵀâ_n − y_{n,i} log dᵀâ_n) + λ‖d‖², warm-started.

    Parameters
    ----------
    n_components : int, default=10
        K.
    method : {"ml", "sa"}, default="ml"
    lam : float, default=0.2
        λ, the Frobenius penalty on D (the paper's 0.2).
    mu : float, default=0.1
        μ, the ℓ2 penalty on the codes (the paper's 0.1).
    forget : float in (0, 1], default=1.0
        Forgetting factor γ: statistics weighted by γ^{t−n} (not in the paper, which is γ = 1;
        γ ≈ 0.98–0.995 suits a subspace that changes abruptly).
    row_solver : {"exact", "pgd"}, default="exact"
        ML row problem: solved exactly from its KKT conditions (a closed form once the active
        set is found by sorting), or by the paper's projected gradient.
    init : "random" or array-like, default="random"
        D̂₀ᵀ: i.i.d. U[0, 1] entries scaled by √(mean y/K), on the data's scale (the paper's
        random start), or an array of shape (n_components, n_features) such as a batch
        fit's subspace, used as given: nonnegative and finite, an atom of zeros replaced by
        the random start's (with μ > 0 a zero atom gets zero codes, so no step would revive
        it). The array is copied. The statistics start empty either way, so the start is
        the subspace the first sample is coded on (and the first warm start of the SA
        refits and of ``row_solver="pgd"``): the first row update refits D̂ from that
        sample. To go on tracking a stream, call :meth:`partial_fit` on the fitted
        tracker, which keeps its statistics.
    window : int or None, default=None
        SA only: refit on the last ``window`` samples instead of all of them (a departure from
        the paper, for bounded memory on long streams).
    code_max_iter, code_tol : int, float, default=100, 1e-6
    sa_max_iter : int, default=50
        Iterations of the SA row refit per step.
    random_state : int, RandomState or None
        Seeds D̂₀ (drawn even when ``init`` is an array, so a given start changes no later
        draw) and the random starts of the coefficient solver (U[0, 1], the paper's "random
        initial point").

    Attributes
    ----------
    components_ : ndarray (n_components, n_features)
        D̂ᵀ, the current subspace (nonnegative).
    n_samples_seen_, n_steps_ : int
        t, and the steps taken (one per sample).
    n_iter_ : int
        Calls of :meth:`partial_fit` (and :meth:`update`); :meth:`fit` tracks X in one pass,
        in time order, as the algorithm is sequential by definition.
    state_ : SurrogateState or PoissonHistory
        The update rule's immutable state: the memory-limited rule's statistics S, B, R
        (``method="ml"``), or the samples the SA rule refits on (``method="sa"``), and the
        counts.

    Examples
    --------
    >>> import numpy as np
    >>> from onlinemf import PoissonSubspaceTracker
    >>> rng = np.random.default_rng(0)
    >>> D = rng.random((50, 5)) * 3
    >>> Y = rng.poisson(rng.random((300, 5)) @ D.T).astype(float)
    >>> Y[rng.random(Y.shape) < 0.3] = np.nan            # 30% missing
    >>> tracker = PoissonSubspaceTracker(n_components=5, random_state=0).partial_fit(Y)
    >>> code, rate = tracker.update(Y[0])
    >>> rate.shape
    (50,)
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "method": [StrOptions({"ml", "sa"})],
        "lam": [Interval(Real, 0, None, closed="neither")],
        "mu": [Interval(Real, 0, None, closed="left")],
        "forget": [Interval(Real, 0, 1, closed="right")],
        "row_solver": [StrOptions({"exact", "pgd"})],
        "init": [StrOptions({"random"}), "array-like"],
        "window": [Interval(Integral, 1, None, closed="left"), None],
        "code_max_iter": [Interval(Integral, 1, None, closed="left")],
        "code_tol": [Interval(Real, 0, None, closed="left")],
        "sa_max_iter": [Interval(Integral, 1, None, closed="left")],
        "n_checkpoints": [Interval(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    #: a model saved before ``init`` existed reads the start it was fitted from
    init = "random"

    def __init__(self, n_components=10, *, method="ml", lam=0.2, mu=0.1, forget=1.0,
                 row_solver="exact", init="random", window=None, code_max_iter=100,
                 code_tol=1e-6, sa_max_iter=50, n_checkpoints=50, random_state=None):
        self.n_components = n_components
        self.method = method
        self.lam = lam
        self.mu = mu
        self.forget = forget
        self.row_solver = row_solver
        self.init = init
        self.window = window
        self.code_max_iter = code_max_iter
        self.code_tol = code_tol
        self.sa_max_iter = sa_max_iter
        self.n_checkpoints = n_checkpoints
        self.random_state = random_state

    # ------------------------------------------------------------------ state
    def _check(self, Y, mask, reset):
        with guarded_validation(self):
            self._validate_params()
            dtype = None if reset else np.float64
            Y, mask = check_stream_input(self, Y, mask, reset=reset, dtype=dtype)
            if not is_dask_array(Y):
                check_magnitude(Y, type(self).__name__)
        return Y, mask

    def _initialize(self, Y, mask, level=None):
        """Start from ``init`` or from U[0, 1] atoms scaled to the mean observed count:
        ``level()`` where given (a dask array's, one reduction over all its blocks), else
        Y's; it is computed only where the random start is used."""
        # a given start is checked before the start's state is set
        given = (None if isinstance(self.init, str) else
                 check_start(self.init, self.n_components, Y.shape[1]))
        self._warn_more_components_than_features(Y.shape[1])
        rng = check_random_state(self.random_state)
        self._rng = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
        n, k = Y.shape[1], self.n_components
        U = self._rng.random((n, k))  # drawn in any case: later draws are the same
        if given is not None and (given.max(axis=1) > 0).all():
            D0 = given
        else:
            if level is not None:
                level = level()
            else:
                Yd, P = dense_batch(Y, np.arange(Y.shape[0]), mask)
                obs = Yd if P is None else Yd[P]
                level = float(np.mean(obs)) if obs.size else 1.0
            level = level if np.isfinite(level) else 1.0
            D0 = (U * np.sqrt(max(level, 1e-12) / k)).T.copy()
            if given is not None:
                D0 = fill_empty_atoms(given, D0)
        self.components_ = D0
        self.n_components_ = k
        self.state_ = self._rule().init(self.components_)
        self._loss_sum = 0.0
        self._reset_history()

    def _rule(self):
        """The update rule of ``method`` with the current settings."""
        if self.method == "ml":
            return PoissonMemoryLimitedUpdate(self.lam, self.forget, self.row_solver)
        return PoissonSAUpdate(self.lam, self.forget, self.window)

    def _sa_rows(self, Ah, Yh, P, D, h_l2):
        """The SA rule's row problems: the KL codes of the columns of ``Yh`` on ``Ah``."""
        coder = CodeSolver("bb", lower=0.0, upper=np.inf, l2=h_l2, max_iter=self.sa_max_iter,
                           tol=1e-6, f_tol=0.0, start="best")
        return coder.solve(_KL, Ah, Yh, P, init=D).codes

    def _code(self, y, p, random_start=True):
        """â for a batch of rows (codes depend on D only; rows are independent). Fitting starts
        from U[0, 1] (the paper); ``transform`` from the deterministic scale-matched point."""
        init = self._rng.random((y.shape[0], self.n_components_)) if random_start else None
        coder = CodeSolver("bb", lower=0.0, upper=np.inf, l2=2.0 * self.mu,
                           max_iter=self.code_max_iter, tol=self.code_tol, f_tol=0.0,
                           start="best")
        return coder.solve(_KL, self.components_, y, p, init=init).codes

    def _step(self, y, p):
        """One time step on a single count vector y (n_features,) with observed mask p."""
        t0 = time.perf_counter()
        a = self._code(y[None], None if p is None else p[None])[0]
        self._last_a = a
        # the online objective: this step's loss under the subspace it was coded with
        loss = float(_KL.value(y[None], (a @ self.components_)[None],
                               None if p is None else p[None])[0])
        self._loss_sum += loss
        pf = np.ones_like(y) if p is None else p.astype(float)
        py = pf * np.where(pf > 0, y, 0.0)
        if self.method == "ml":  # the memory-limited rule: state, then its step
            self.components_, self.state_ = self._rule().update(self.state_, self.components_,
                                                                pf, py, a)
        else:
            self.components_, self.state_ = self._rule().update(
                self.state_, self.components_, pf, py, a, self._sa_rows)
        self._fit_time += time.perf_counter() - t0
        return loss

    def _record(self, n_rows: int) -> None:
        t = self.state_.n_samples_seen
        if self._history.due(t):
            self._history.record(t, self._fit_time, self._loss_sum / t)

    def _open_segment(self, seg: Segment) -> Segment:
        """A fresh piece of a dask array is validated here (the model has started)."""
        if seg.fresh:
            Y, mask = self._check(seg.X, seg.mask, False)
            seg = Segment(Y, mask, seg.order)
        return seg

    def _batch_step(self, seg: Segment, rows) -> float:
        """One tracking step on one row (the algorithm is sequential in time)."""
        yi, pi = dense_batch(seg.X, rows, seg.mask)
        return self._step(yi[0], None if pi is None else pi[0])

    # ------------------------------------------------------------------ public API
    @transactional
    @one_blas_thread
    def partial_fit(self, X, y=None, mask=None):
        """One tracking step per row of X (count vectors; NaN marks missing entries)."""
        first = not hasattr(self, "components_")
        if is_dask_array(X):  # one step per row: any row blocks, in order
            if mask is not None:
                raise ValueError("with a dask array, mark missing entries with NaN")
            if first:
                block, _ = self._check(next(iter_row_blocks(X)), None, True)
                self._initialize(block, None, lambda: dask_nanmean(X))
        else:
            X, mask = self._check(X, mask, first)
            if first:
                self._initialize(X, mask)
        self._pass(pass_segments(X, mask, batch_size=1), 1)
        self.n_iter_ += 1
        return self

    @transactional
    @one_blas_thread
    def fit(self, X, y=None, mask=None):
        """Track the whole stream X from a fresh start (rows in time order)."""
        for attr in ("components_", "n_features_in_"):
            self.__dict__.pop(attr, None)
        return self.partial_fit(X, mask=mask)

    def update(self, y, mask=None):
        """One streaming step: returns (â_t, the rate estimate D̂_t â_t) for this time step."""
        y = np.asarray(y, dtype=float)
        if y.ndim != 1:
            raise ValueError(f"update takes one count vector, got shape {y.shape}")
        m = None if mask is None else np.asarray(mask)[None]
        self.partial_fit(y[None], mask=m)
        return self._last_a, self._last_a @ self.components_

    @lazy_blocks("transform")
    def transform(self, X, mask=None):
        """Codes of the rows of X with the current subspace (no update; lazy for a dask
        array)."""
        check_is_fitted(self, "components_")
        X, mask = self._check(X, mask, False)
        Yd, P = dense_batch(X, np.arange(X.shape[0]), mask)
        return self._code(Yd, P, random_start=False)

    @lazy_blocks("score")
    def score(self, X, y=None, mask=None):
        """Minus the mean Poisson deviance/2 of the observed entries under the current model
        (a map-reduce pass for a dask array, NaN marking the missing entries)."""
        check_is_fitted(self, "components_")
        X, mask = self._check(X, mask, False)
        Yd, P = dense_batch(X, np.arange(X.shape[0]), mask)
        A = self._code(Yd, P, random_start=False)
        return -float(_KL.value(Yd, A @ self.components_, P).mean())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags
