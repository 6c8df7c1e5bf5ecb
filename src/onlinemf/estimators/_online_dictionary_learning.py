"""OnlineDictionaryLearning: Mairal et al.'s online matrix factorization as Lyu, Needell and
Balzano (arXiv:1911.01931) use it for i.i.d. and Markovian streams."""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from .._batches import Segment, memory_segments, pass_segments
from .._dask import is_dask_array
from .._steps import accelerated_prox_grad, finite_matrix, spectral_lipschitz
from .._validation import check_complete_input, dense_batch
from ..coders import solve_codes_bsum
from ..constraints import project_nonneg_l2_ball
from ..problems import L1Codes, NonnegUnitNormAtoms, SMFProblem
from ..updates import OMFSurrogateUpdate
from ._base import (
    OnlineFactorizationMixin,
    RuleCountsMixin,
    lazy_blocks,
    one_blas_thread,
    transactional,
)

__all__ = ["OnlineDictionaryLearning", "nonneg_lasso"]


def nonneg_lasso(D, X, alpha: float, l2: float = 0.0, *, tol: float = 1e-6,
                 max_iter: int = 200) -> np.ndarray:
    """argmin_{H ≥ 0} ‖X − HD‖² + α‖H‖₁ + (l2/2)‖H‖² per row (the paper's unhalved convention).

    Half of it is ½‖x − hD‖² + (α/2)‖h‖₁ + (l2/4)‖h‖², solved by accelerated BSUM on the Gram
    matrix (O(bK²) per sweep); each row stops at a gradient mapping ≤ tol·max(1, ‖x‖)."""
    problem = SMFProblem(L1Codes(alpha / 2, ridge=l2 / 2, nonneg=True), NonnegUnitNormAtoms())
    return solve_codes_bsum(problem, np.asarray(D, dtype=float), X, tol, max_iter=max_iter,
                            scale_tol=True, accelerate=True).codes


def _project_atom(d):
    return project_nonneg_l2_ball(d[None])[0]


class OnlineDictionaryLearning(RuleCountsMixin, OnlineFactorizationMixin,
                               ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Online nonnegative dictionary learning (online matrix factorization, OMF).

    Learns a dictionary D (atoms = rows, nonnegative, in the unit ℓ2 ball) from a stream of
    mini-batches X_t (rows = samples). It minimizes the expected loss (12)–(13) of Lyu,
    Needell and Balzano (2020) by their scheme (3), that of Mairal et al. (2010):

    .. math::

        \min_{D \in \mathcal{C}} \; \mathbb{E}_X\Big[\min_{H \ge 0}
        \|X - HD\|_F^2 + \lambda \|H\|_1\Big].

    Per mini-batch X_t:

    1. codes H_t = argmin_{H ≥ 0} ‖X_t − H D‖² + λ‖H‖₁ + (κ₂/2)‖H‖² (an elastic net);
    2. statistics A_t = (1 − w_t)A_{t−1} + w_t H_tᵀH_t/b, B_t = (1 − w_t)B_{t−1} + w_t H_tᵀX_t/b
       with w_t = t^{−β} (β = 1 is the running mean), including the current batch (no one-step
       lag, unlike the authors' code);
    3. D_t = argmin_{D ∈ C} ½tr(Dᵀ(A_t + κ₁I)D) − tr(DᵀB_t) by block coordinate descent over the
       atoms, warm-started at D_{t−1}; it never increases the surrogate.

    The same update serves i.i.d. and Markovian (dependent) streams (Theorem 4.1 of Lyu,
    Needell and Balzano); the NDL estimator feeds it motif patches from an MCMC chain.

    Parameters
    ----------
    n_components : int, default=10
    alpha : float, default=1.0
        λ, the weight of ‖H‖₁ in the code problem ‖X − HD‖² + λ‖H‖₁ (the squared norm is not
        halved, the paper's convention).
    code_l2 : float, default=0.0
        κ₂ (elastic-net term on the codes).
    dict_l2 : float, default=0.0
        κ₁ added to A in the dictionary step.
    beta : float, default=1.0
        Weights w_t = t^{−β}, β ∈ (1/2, 1]; β = 1, the running mean of the paper's
        statistics, is the setting its convergence theorems cover.
    batch_size : int, default=10
    max_iter : int, default=200
        The cap on passes of :meth:`fit`, which usually stops earlier by ``tol`` and
        ``max_no_improvement`` (one pass over a stream: ``max_iter=1,
        max_no_improvement=None``).
    tol : float, default=1e-4
        :meth:`fit` stops when its smoothed objective (the mini-batches' loss ‖x − hD‖² +
        λ‖h‖₁ at their codes, averaged over about a pass) has fallen by less than this
        fraction over ``max_no_improvement`` consecutive mini-batches.
    max_no_improvement : int or None, default=10
        Consecutive mini-batches without an improvement of ``tol`` that stop :meth:`fit`;
        None runs exactly ``max_iter`` passes. A fit stopped by ``max_iter`` with the rule on
        emits a ``ConvergenceWarning``.
    shuffle : bool, default=True
    code_max_iter, code_tol : int, float, default=200, 1e-6
        Accelerated projected gradient (BSUM) for the codes; each row stops when its gradient
        mapping is ≤ code_tol·max(1, ‖x‖).
    relaxed_K : float or None, default=None
        The relaxed OMF of scheme (32) with the stopping rule (152) of Algorithm 2, corrected
        to be computable: the codes of step t stop once the gradient mapping of the
        mini-batch's half-objective has Frobenius norm ≤ K·σ_min(D)²/(r·b·log(t + 1)²)
        (log(t + 1), not log t; a relative 1e-6·‖XDᵀ‖ when σ_min(D) = 0, e.g. r > k²), capped
        at ``code_max_iter``. None: the fixed per-sample rule above.
    dict_max_sweeps, dict_tol : int, float, default=10, 1e-6
    random_state : int, RandomState or None
    verbose : int, default=0
        1 prints the smoothed objective after each pass of :meth:`fit`; 2 adds a progress bar.

    Attributes
    ----------
    components_ : ndarray (n_components, n_features)
    state_ : SurrogateState
        The update rule's immutable state: the sufficient statistics (``stats_``) and the
        step and sample counts.
    stats_ : RunningAverage
        ``state_.stats``: A, B and the surrogate's constant c (the weighted mean of
        (‖X_t‖² + λ‖H_t‖₁)/b).
    A_, B_, C_ : ndarray, ndarray, float
        The three statistics: with them the surrogate f̂_t (:meth:`surrogate_loss`).
    code_sums_ : ndarray (n_components,)
        Total of every atom's codes over the stream (the importance of NDL).
    n_steps_, n_samples_seen_ : int
        Dictionary steps taken and samples seen, read from ``state_``.
    n_iter_ : int
        Passes of :meth:`fit` (one stopped mid-pass counts), plus one per :meth:`partial_fit`.
    converged_ : bool
        Whether the last :meth:`fit` stopped by its rule rather than by ``max_iter``.

    References
    ----------
    H. Lyu, D. Needell and L. Balzano (2020), "Online Matrix Factorization for Markovian Data
    and Applications to Network Dictionary Learning", JMLR 21; arXiv:1911.01931 (equation and
    theorem numbers follow its first arXiv version).
    J. Mairal, F. Bach, J. Ponce and G. Sapiro (2010), "Online Learning for Matrix
    Factorization and Sparse Coding", JMLR 11.

    Examples
    --------
    >>> import numpy as np
    >>> from onlinemf import OnlineDictionaryLearning
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((300, 4)) @ rng.random((4, 20))
    >>> model = OnlineDictionaryLearning(n_components=4, alpha=0.1, random_state=0)
    >>> for chunk in np.array_split(X, 10):  # a stream, in order
    ...     model = model.partial_fit(chunk)
    >>> model.transform(X).shape
    (300, 4)
    >>> bool(model.surrogate_loss() >= model.empirical_loss(X))  # f̂_t majorizes f_t
    True
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "code_l2": [Interval(Real, 0, None, closed="left")],
        "dict_l2": [Interval(Real, 0, None, closed="left")],
        "beta": [Interval(Real, 0.5, 1, closed="right")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_no_improvement": [Interval(Integral, 1, None, closed="left"), None],
        "shuffle": ["boolean"],
        "code_max_iter": [Interval(Integral, 1, None, closed="left")],
        "code_tol": [Interval(Real, 0, None, closed="left")],
        "dict_max_sweeps": [Interval(Integral, 1, None, closed="left")],
        "dict_tol": [Interval(Real, 0, None, closed="left")],
        "relaxed_K": [Interval(Real, 0, None, closed="neither"), None],
        "n_checkpoints": [Interval(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, n_components=10, *, alpha=1.0, code_l2=0.0, dict_l2=0.0, beta=1.0,
                 batch_size=10, max_iter=200, tol=1e-4, max_no_improvement=10, shuffle=True,
                 code_max_iter=200, code_tol=1e-6, dict_max_sweeps=10, dict_tol=1e-6,
                 relaxed_K=None, n_checkpoints=50, random_state=None, verbose=0):
        self.n_components = n_components
        self.alpha = alpha
        self.code_l2 = code_l2
        self.dict_l2 = dict_l2
        self.beta = beta
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.tol = tol
        self.max_no_improvement = max_no_improvement
        self.shuffle = shuffle
        self.code_max_iter = code_max_iter
        self.code_tol = code_tol
        self.dict_max_sweeps = dict_max_sweeps
        self.dict_tol = dict_tol
        self.relaxed_K = relaxed_K
        self.n_checkpoints = n_checkpoints
        self.random_state = random_state
        self.verbose = verbose

    def _check(self, X, reset):
        return check_complete_input(self, X, reset=reset)

    def _initialize(self, X):
        rng = check_random_state(self.random_state)
        self._rng = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
        k, f = self.n_components, X.shape[1]
        self.components_ = project_nonneg_l2_ball(self._rng.random((k, f))).astype(X.dtype)
        self.n_components_ = k
        self.state_ = self._rule().init(self.components_)
        self.code_sums_ = np.zeros(k)
        self._reset_history()

    def _rule(self) -> OMFSurrogateUpdate:
        """The dictionary update rule with the current settings."""
        return OMFSurrogateUpdate(_project_atom, self.alpha, self.beta, self.dict_l2,
                                  self.dict_max_sweeps, self.dict_tol)

    def _codes(self, Xb):
        """argmin_{H ≥ 0} ‖X − HD‖² + λ‖H‖₁ + (κ₂/2)‖H‖² per row (:func:`nonneg_lasso`)."""
        return nonneg_lasso(self.components_, Xb, self.alpha, self.code_l2, tol=self.code_tol,
                            max_iter=self.code_max_iter)

    def relaxed_tolerance(self, t: int, n_rows: int) -> tuple[float, float]:
        """(K·σ_min(D)²/(r·b·log(t + 1)²), σ_min(D)): the rule (152) at step t with
        log(t + 1) for log t (defined at t = 1), and the singular value it rests on."""
        D = self.components_.astype(float)
        smin = _smallest_singular_value(D) if D.shape[0] <= D.shape[1] else 0.0
        r = D.shape[0]
        return self.relaxed_K * smin**2 / (r * n_rows * np.log(t + 1) ** 2), smin

    def _codes_relaxed(self, Xb, t):
        """FISTA on ½‖X − HD‖² + (λ/2)‖H‖₁ + (κ₂/4)‖H‖² over H ≥ 0 (the paper's objective
        halved), stopped by the relaxed rule; returns H and the final gradient-mapping norm."""
        D = self.components_.astype(float)
        G = D @ D.T
        Wx = Xb @ D.T
        L = spectral_lipschitz(G) + self.code_l2 / 2
        tol, smin = self.relaxed_tolerance(t, Xb.shape[0])
        if smin <= 0:
            tol = 1e-6 * np.linalg.norm(Wx)
        pg = [np.inf]  # the gradient mapping's norm L‖y − h⁺‖ of the last step

        def settled(Hn, Y):
            pg[0] = L * np.linalg.norm(Y - Hn)
            return pg[0] <= tol

        H, _ = accelerated_prox_grad(
            np.zeros_like(Wx), lambda Y: Y @ G - Wx + self.alpha / 2 + (self.code_l2 / 2) * Y,
            lambda V, _: np.maximum(V, 0), 1.0 / L, self.code_max_iter, stop=settled)
        self.last_code_residual_ = float(pg[0])
        return H

    @property
    def stats_(self):
        """The surrogate's statistics (``state_.stats``)."""
        check_is_fitted(self, "components_")
        return self.state_.stats

    @property
    def A_(self) -> np.ndarray:
        """Σ-statistic A of the surrogate (K, K)."""
        return self.stats_.sums[0]

    @property
    def B_(self) -> np.ndarray:
        """Σ-statistic B of the surrogate (K, F)."""
        return self.stats_.sums[1]

    @property
    def C_(self) -> float:
        """The surrogate's constant c."""
        return self.stats_.sums[2]

    def surrogate(self, D=None) -> float:
        """ĝ_t(D) = ½tr(Dᵀ(A + κ₁I)D) − tr(DᵀB) at D (default: the current dictionary)."""
        check_is_fitted(self, "components_")
        D = self.components_ if D is None else D
        A = self.A_ + self.dict_l2 * np.eye(self.A_.shape[0])
        return 0.5 * float(np.sum((D @ D.T) * A)) - float(np.sum(D * self.B_))

    def surrogate_loss(self, D=None) -> float:
        """The surrogate f̂_t(D) of eq. (18) = (22): the weighted mean over the stream of
        ‖x_s − h_s D‖² + λ‖h_s‖₁ with the stored codes h_s, i.e. tr(DᵀAD) − 2tr(DᵀB) + c_t.

        It majorizes the empirical loss (``surrogate_loss(D) ≥ empirical_loss(history, D)``
        for β = 1), and along the learned dictionaries the gap closes (Theorem 4.1 (ii)), also on
        Markovian streams. κ₁ and κ₂ are not part of it (they only regularize the steps).
        """
        check_is_fitted(self, "components_")
        D = (self.components_ if D is None else np.asarray(D)).astype(float)
        return float(np.sum((D @ D.T) * self.A_) - 2 * np.sum(D * self.B_) + self.C_)

    def empirical_loss(self, X, D=None) -> float:
        """The empirical loss f_t(D) of eq. (14) over the rows ``X``: the mean of the reduced
        loss min_{h ≥ 0} ‖x − hD‖² + λ‖h‖₁ with fresh, tightly solved codes.

        Given every row seen so far (β = 1, equal mini-batches), this is f_t; it needs one code
        problem per row, which is why the online algorithm tracks the surrogate instead.
        """
        check_is_fitted(self, "components_")
        D = (self.components_ if D is None else np.asarray(D)).astype(float)
        X = self._check(X, False)
        Xd, _ = dense_batch(X, np.arange(X.shape[0]))
        Xd = Xd.astype(float)
        H = nonneg_lasso(D, Xd, self.alpha, 0.0, tol=min(self.code_tol, 1e-8),
                         max_iter=max(self.code_max_iter, 2000))
        R = Xd - H @ D
        return float((np.vdot(R, R) + self.alpha * H.sum()) / Xd.shape[0])

    def score(self, X, y=None) -> float:
        """Minus :meth:`empirical_loss` of X (scikit-learn's convention: greater is better)."""
        return -self.empirical_loss(X)

    def _step(self, Xb):
        t0 = time.perf_counter()
        if self.relaxed_K is None:
            H = self._codes(Xb)
        else:
            H = self._codes_relaxed(Xb, self.n_steps_ + 1)
        # the batch's loss at its codes under the dictionary before the step (fit's rule)
        R = Xb - H @ self.components_
        f = float((np.einsum("ij,ij->", R, R) + self.alpha * H.sum()) / max(Xb.shape[0], 1))
        self.code_sums_ = self.code_sums_ + H.sum(axis=0)
        self.components_, self.state_ = self._rule().update(self.state_, self.components_, H,
                                                            Xb)
        self._fit_time += time.perf_counter() - t0
        return f

    def _record(self, n_rows: int) -> None:
        if self._history.due(self.state_.n_steps):
            self._history.record(self.state_.n_steps * n_rows, self._fit_time, self.surrogate())

    def _open_segment(self, seg: Segment) -> Segment:
        """A fresh piece of a dask array is validated here; the first starts the model."""
        if seg.fresh:
            first = not hasattr(self, "components_")
            X = self._check(seg.X, first)
            if first:
                self._initialize(X)
            seg = Segment(X, None, seg.order)
        return seg

    def _batch_step(self, seg: Segment, rows) -> float:
        return self._step(dense_batch(seg.X, rows)[0])

    @transactional
    @one_blas_thread
    def partial_fit(self, X, y=None):
        """One OMF step per mini-batch of ``batch_size`` consecutive rows (a stream, possibly
        Markovian: the rows are not shuffled; a dask array's row blocks come in order)."""
        if not is_dask_array(X):  # a dask array's pieces are validated as they are read
            first = not hasattr(self, "components_")
            X = self._check(X, first)
            if first:
                self._initialize(X)
        self._pass(pass_segments(X, batch_size=self.batch_size), self.batch_size)
        self.n_iter_ += 1
        return self

    @transactional
    @one_blas_thread
    def fit(self, X, y=None):
        """``max_iter`` shuffled passes over X from a fresh start (the row blocks of a dask
        array in order)."""
        bs = self.batch_size
        if is_dask_array(X):  # a fresh start, from the first piece read
            for attr in ("components_", "n_features_in_"):
                self.__dict__.pop(attr, None)
            self.n_iter_ = 0
            self._converging_passes(X.shape[0], lambda: pass_segments(X, batch_size=bs), bs)
            return self
        X = self._check(X, True)
        self._initialize(X)
        self._converging_passes(
            X.shape[0], lambda: memory_segments(X, None, self._rng if self.shuffle else None), bs)
        return self

    @lazy_blocks("transform")
    def transform(self, X):
        """Nonnegative elastic-net codes of X with the current dictionary (lazy for a dask
        array)."""
        check_is_fitted(self, "components_")
        X = self._check(X, False)
        Xd, _ = dense_batch(X, np.arange(X.shape[0]))
        return self._codes(Xd).astype(self.components_.dtype)


def _smallest_singular_value(D: np.ndarray) -> float:
    """σ_min(D), or 0 where LAPACK's SVD does not converge: the relaxed tolerance is then 0,
    the strict choice (the codes are solved to their iteration cap)."""
    try:
        return float(np.linalg.svd(finite_matrix(D), compute_uv=False).min())
    except np.linalg.LinAlgError:
        return 0.0
