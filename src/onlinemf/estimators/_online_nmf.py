"""OnlineNMF: online NMF with general divergences (Zhao, Tan and Xu, arXiv:1608.00075)."""

from __future__ import annotations

import math
import time
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    clone,
)
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._batches import Segment, pass_segments
from .._dask import (
    as_rows,
    dask_nanmax,
    first_rows,
    is_dask_array,
    is_sparse_input,
    iter_row_blocks,
    rows_of,
)
from .._sparse import GatherBuffer, SparseRows, as_sparse_rows
from .._validation import (
    check_magnitude,
    check_start,
    check_stream_input,
    dense_batch,
    fill_empty_atoms,
    guarded_validation,
)
from ..coders import (
    CODE_STEPS,
    MU_CODE_MAX_ITER,
    QUADRATIC_CODE_MAX_ITER,
    CodeSolver,
    code_step_for,
)
from ..constraints import project_dictionary_box
from ..losses import LOSS_NAMES, Loss, get_loss
from ..updates import (
    SGD,
    BCDSurrogateUpdate,
    MultiplicativeSurrogateUpdate,
    ProjectedSGDUpdate,
    RobbinsMonroSchedule,
    Surrogate,
    anchored_state,
)
from ._base import (
    OnlineFactorizationMixin,
    RuleCountsMixin,
    lazy_blocks,
    one_blas_thread,
    transactional,
)

__all__ = ["OnlineNMF", "auto_batch_size", "code_step_for", "MU_MEMORY_ROWS",
           "MU_CODE_MAX_ITER", "QUADRATIC_CODE_MAX_ITER", "SGD_WARMUP_ROWS"]

#: Rows in one unit of the multiplicative surrogate's memory (its weight t^(−decay) counts
#: units of max(batch, MU_MEMORY_ROWS) rows; see ``Surrogate.decay``).
MU_MEMORY_ROWS = 512
#: Rows of the first data seen (or, in a shuffled ``fit``, drawn from X) that
#: ``init="nndsvd"`` reads: a bounded cost, whatever X is
NNDSVD_ROWS = 4096

#: The start's SVD takes the formed Gram matrix's leading eigenpairs by a randomized SVD from
#: r ≥ min(n, F) / this many triplets on, exactly by Lanczos below (see
#: ``_leading_singular_triplets``)
GRAM_EIGEN_DIVISOR = 12
#: Power iterations of that randomized SVD (each one two products with the m × m Gram matrix)
START_POWER_ITERATIONS = 2

#: Rows of projected SGD before the multiplicative surrogate takes over on sparse input
#: (``Surrogate(warmup="auto")``): long enough for SGD to settle the topics the surrogate then keeps
SGD_WARMUP_ROWS = 10000

#: coder iterations a sparse row is taken to cost in "auto" batch sizing of the surrogate
#: updates (the sparse rows' coding work against the dictionary step's O(K²F) or O(K·F))
SPARSE_CODE_ITERATIONS = 8

#: Rows of a sparse batch coded at once: a larger batch (the block-coordinate surrogate's
#: "auto" batches over a large vocabulary) is coded in parts of this many rows, whose
#: statistics sum, so that the dictionary columns gathered at its nonzeros (nnz × K) stay
#: bounded; also the cap of the multiplicative surrogate's "auto" batches of sparse rows
CODE_PART_ROWS = 4096
#: Cap of the block-coordinate surrogate's "auto" batches of sparse rows: each step costs
#: O(K²F), so the batch grows with K until the step weighs no more than the batch's coding
BCD_MAX_BATCH_ROWS = 65536

#: Multiplicative code iterations per online step over a large vocabulary (see
#: ``OnlineNMF._wide_vocabulary``): a batch's coding then dominates a step, and the running
#: surrogate averages the codes of many batches, so iterations saved buy passes
WIDE_MU_CODE_MAX_ITER = 5


def _leading_singular_triplets(S, r: int, seed: int):
    """The r leading singular triplets of S (n, F), singular values in decreasing order
    (approximate from r ≥ min(n, F) / ``GRAM_EIGEN_DIVISOR`` on).

    The eigenpairs of the smaller Gram matrix (S Sᵀ or SᵀS) give σ² and that side's singular
    vectors, and one product with S the other side's. For r < min(n, F) /
    ``GRAM_EIGEN_DIVISOR``, exactly: Lanczos (ARPACK's :func:`scipy.sparse.linalg.eigsh`) on
    the Gram matrix as an operator, two products with S a vector, so a start over many
    features never forms, or orthonormalizes, an F-long basis of r vectors (a randomized
    SVD's cost there, and :func:`scipy.sparse.linalg.svds`'s final dense SVD of the F × r
    products). From there on, where Lanczos's restarts and a dense eigensolver's O(m³)
    reduction both cost more than the start is worth, approximately: a randomized SVD
    (Halko, Martinsson and Tropp 2011, ``START_POWER_ITERATIONS`` power iterations) of the
    formed m × m Gram matrix, O(m²r), exact when S has rank below r plus its
    oversampling. An NNDSVD start needs each triplet's sign pattern and scale, not its
    digits. Squaring S costs no accuracy a start can see. Lanczos needs
    r < min(n, F) − 1; otherwise S is small enough for a dense SVD. All-zero S has no
    singular direction: zero triplets. Should Lanczos fail, a randomized SVD of S answers
    instead."""
    from scipy.sparse.linalg import ArpackError, LinearOperator, eigsh

    n, f = S.shape
    if not (S.nnz if sp.issparse(S) else np.count_nonzero(S)):
        return np.zeros((n, r)), np.zeros(r), np.zeros((r, f))
    m = min(n, f)
    if r >= m - 1:
        dense = S.toarray() if sp.issparse(S) else np.asarray(S)
        U, sig, Vt = np.linalg.svd(dense, full_matrices=False)
        return U[:, :r], sig[:r], Vt[:r]
    wide = n <= f
    A, At = (S, S.T) if wide else (S.T, S)  # the Gram matrix is A·At, m × m
    if r >= m / GRAM_EIGEN_DIVISOR:
        from sklearn.utils.extmath import randomized_svd

        G = A @ At
        G = G.toarray() if sp.issparse(G) else np.asarray(G)
        # G is symmetric positive semidefinite: its singular pairs are its eigenpairs
        V, lam, _ = randomized_svd(G, r, n_iter=START_POWER_ITERATIONS,
                                   power_iteration_normalizer="QR", random_state=seed)
    else:
        gram = LinearOperator((m, m), matvec=lambda v: A @ (At @ v),
                              matmat=lambda V: A @ (At @ V), dtype=np.float64)
        try:
            lam, V = eigsh(gram, r, which="LA",
                           v0=np.random.default_rng(seed).uniform(-1.0, 1.0, m))
        except ArpackError:
            from sklearn.utils.extmath import randomized_svd

            return randomized_svd(S, r, random_state=seed)
    order = np.argsort(lam)[::-1]
    lam, V = lam[order], V[:, order]
    # an eigenvalue at rounding level of the largest is a zero singular value (rank-deficient
    # S), whose other-side vector is zero rather than amplified rounding noise
    sig = np.where(lam > 1e-12 * max(lam[0], 0.0), np.sqrt(np.maximum(lam, 0.0)), 0.0)
    inv = np.divide(1.0, sig, out=np.zeros_like(sig), where=sig > 0)
    other = np.asarray(At @ V) * inv  # the other side's vectors, zero where σ = 0
    return (V, sig, other.T) if wide else (other, sig, V.T)


class OnlineNMF(RuleCountsMixin, OnlineFactorizationMixin, ClassNamePrefixFeaturesOutMixin,
                TransformerMixin, BaseEstimator):
    r"""Online NMF with a general divergence (Algorithm 1 of Zhao, Tan and Xu, faster defaults).

    Learns a nonnegative dictionary ``components_`` (D, the paper's Wᵀ) from a stream of
    samples v by minimizing the expected loss of Zhao, Tan and Xu (2017), eq. (4):

    .. math::

        \min_{W \in \mathcal{C}} \; \mathbb{E}_v\Big[\min_{h \in \mathcal{H}} d(v \,\|\, Wh)\Big],

    where C = {0 ≤ w ≤ 1, every row of W summing to ≥ ε} and H = [ε′, U]^K keep Wh ≥ εε′ > 0.
    Each mini-batch codes h_i ∈ argmin_{h ∈ H} d(v_i ‖ W_{t−1} h) by projected gradient
    descent (Algorithm 2, :meth:`onlinemf.coders.CodeSolver.solve`), then takes the paper's
    projected SGD step W_t = Π_C(W_{t−1} − η_t Σ_i r_i h_iᵀ), r_i = ∇_y d(v_i ‖ W_{t−1} h_i),
    η_t = a / (τt + b) (eq. (11)), or, by default for the squared loss and β-divergences,
    minimizes a running surrogate of all mini-batches so far, which needs no step size.

    Parameters
    ----------
    n_components : int, default=40
        K, the number of atoms; 40 is the paper's canonical value.
    loss : str or Loss, default="squared"
        The divergence d(x ‖ y): "squared" (½‖x − y‖²), "kl", "is", "beta", "alpha",
        "hellinger", "huber", "l1", "l2", or a :class:`onlinemf.losses.Loss` carrying its
        parameters, e.g. ``get_loss("huber", delta=0.05)`` (δ in units of the scaled data).
    dictionary_update : {"auto", "sgd", "surrogate"}, SGD or Surrogate, default="auto"
        "sgd" (or :class:`~onlinemf.updates.SGD` with its settings) is the paper's projected
        SGD with η_t = a/(τt + b). :class:`~onlinemf.updates.Surrogate` minimizes a running
        surrogate of all mini-batches: block coordinate descent for the squared loss,
        multiplicative updates for KL, IS and β ("surrogate" is ``Surrogate(warmup=0)``, from
        the first step). "auto" is ``Surrogate()`` where the loss has one (with an SGD
        warm-up on sparse text, except over a large vocabulary, where the "auto" batches are
        large) and SGD otherwise, because the paper's step, tuned for about 10⁵ samples,
        misjudges smaller data.
    init : {"auto", "random", "samples", "nndsvd"} or array-like, default="auto"
        W₀: i.i.d. U(0, 1) projected onto C (the paper's), K jittered rows of the first data
        seen, or NNDSVDa (Boutsidis and Gallopoulos 2008) on 4096 of its rows (the first
        ones of a stream; in a shuffled :meth:`fit` of an in-memory X, rows drawn at random,
        since data stored in order would start the atoms from their first classes). "auto":
        "nndsvd" for sparse input whose first steps are SGD (better topics on text) and for
        the multiplicative surrogate over a large vocabulary (whose few large steps start
        better from the data's leading singular vectors than from K single rows), "samples"
        with the surrogate otherwise, "random" otherwise and under ``settings="paper"``.
        An array of shape (n_components, n_features) is a given start, e.g. another fit's
        ``components_`` (a warm start): its atoms as rows, nonnegative and finite; an atom
        with an entry above the box's bound 1 is divided by its largest entry (the codes
        absorb an atom's scale), an atom of zeros is replaced by a uniform random one (a
        multiplicative step would keep it empty), then each is projected onto C like every
        start. The array is copied.
    batch_size : int, "auto" or "paper", default="auto"
        τ. "auto" (:func:`auto_batch_size`) makes the vectorized work of a step dominate its
        fixed Python cost, with at least K rows so that a pass costs O(N·K·F) at any K; for
        sparse rows under a surrogate update it grows until their coding outweighs the
        dictionary step, which costs O(K²F) (block coordinates; at most 65536 rows, coded
        4096 at a time) or O(K·F) (multiplicative; at most 4096 rows) whatever the rows'
        nonzeros. "paper" is the paper's 10⁻⁴N in :meth:`fit` and 10 in
        :meth:`partial_fit`, where N is unknown; it is what "auto" means under
        ``settings="paper"``.
    coder : str or CodeSolver, default="auto"
        How the codes are solved: a step rule's name ("auto", "paper", "spg", "mu", "exact",
        "armijo", "lipschitz", "polyak", "fista", "bb", "admm") or a
        :class:`~onlinemf.coders.CodeSolver` with its caps, tolerances, the code box and a Tikhonov
        weight. "auto" uses steps that need no objective evaluations in the online steps
        (for the multiplicative step over a large vocabulary, 5 iterations a step: the
        coding of its large batches dominates, and the surrogate averages their codes).
    scale : "max", float or None, default="max"
        Divide the data by their largest entry (of the first data seen), by a number, or not
        at all (None, as in the paper), because the canonical a, b assume O(1) gradients and
        W ≤ 1. Codes are returned in the data's units.
    data_floor : float or None, default=None
        Floor for data entries, needed by IS (and β ≤ 0, α < 0) on data with zeros (Remark 2
        suggests "small positive numbers"; 1e-8 works). None rejects such data.
    max_iter : int, default=200
        Cap on the passes of :meth:`fit`, which usually stops earlier by ``tol``; the paper's
        single pass is ``max_iter=1, max_no_improvement=None``.
    tol : float, default=1e-4
        :meth:`fit` stops when its smoothed objective (the online loss, averaged over about a
        pass) has fallen by less than this fraction over ``max_no_improvement`` mini-batches.
    max_no_improvement : int or None, default=10
        Mini-batches without an improvement of ``tol`` that stop :meth:`fit`; None runs
        exactly ``max_iter`` passes. Stopping at ``max_iter`` emits a ``ConvergenceWarning``.
    shuffle : bool or int, default=True
        Randomly permute the samples in each pass of :meth:`fit` (Section VIII-B). A dask
        array is shuffled by visiting its row blocks in random order and permuting the rows
        within groups of ``int(shuffle)`` blocks.
    history : {"online", "paper"} or None, default="online"
        What ``history_`` records: "online", the average of each sample's loss when it was
        coded (bounded memory); "paper", (1/t) Σ_{i ≤ t} d(v_i ‖ W_t h_i) (Section VIII-D),
        which keeps every (v_i, h_i); None, nothing.
    callback : callable or None, default=None
        Called after every mini-batch step of :meth:`fit` and :meth:`partial_fit` (not the
        steps of :func:`~onlinemf.fit_data_parallel`, which run on workers) with a dict:
        ``components`` (the dictionary after the step), ``n_samples`` (samples seen) and
        ``time`` (fitting seconds so far, the callback's own time excluded). With it a
        curve of any measure of the dictionary (e.g. its objective with codes fitted afresh
        on held-out rows) can be followed without refitting.
    settings : {"default", "paper"}, default="default"
        "paper" reads every "auto" above as Algorithm 1 does: projected SGD without the
        step-halving safeguard, the paper's code steps from the constant start, random W₀ and
        τ = 10⁻⁴N. Explicit values win. The reproduction experiments use it.
    random_state : int, RandomState or None
        Seeds W₀ and the shuffling.
    verbose : int, default=0
        1 prints the objective after each pass of :meth:`fit`; 2 adds a progress bar (tqdm).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The dictionary D = Wᵀ, entries in [0, 1].
    n_components_, n_steps_, n_samples_seen_, n_features_in_ : int
        ``n_steps_`` and ``n_samples_seen_`` are read from ``state_``.
    state_ : SGDState or SurrogateState
        The dictionary update rule's immutable state (its statistics and counts): a pickled
        estimator resumes exactly from it and ``components_``.
    loss_ : Loss
    coder_ : CodeSolver
        The online steps' code solver, every "auto" resolved.
    dictionary_update_ : SGD or Surrogate
        The dictionary step, every "auto" resolved (a surrogate's SGD warm-up in ``warmup``).
    batch_size_ : int
        τ of the last :meth:`fit` or :meth:`partial_fit`.
    scale_ : float
        The factor the data are divided by.
    n_iter_ : int
        Passes of :meth:`fit` (one stopped mid-pass counts), plus one per :meth:`partial_fit`.
    converged_ : bool
        Whether the last :meth:`fit` stopped by its rule rather than by ``max_iter``.
    n_code_iter_ : int
        Code-solver iterations summed over the samples seen (each about 4·K·F flops).
    history_ : dict of ndarrays
        ``n_samples``, ``time`` (seconds of algorithm time) and ``objective`` at checkpoints.

    References
    ----------
    R. Zhao, V. Y. F. Tan and H. Xu (2017), "Online Nonnegative Matrix Factorization with
    General Divergences", arXiv:1608.00075.

    Examples
    --------
    >>> import numpy as np
    >>> from onlinemf import OnlineNMF
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((500, 6)) @ rng.random((6, 30))
    >>> model = OnlineNMF(n_components=6, batch_size=10, max_iter=3, random_state=0).fit(X)
    >>> codes = model.transform(X)
    >>> bool(np.linalg.norm(X - codes @ model.components_) / np.linalg.norm(X) < 0.1)
    True
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "loss": [StrOptions(set(LOSS_NAMES)), Loss],
        "dictionary_update": [StrOptions({"auto", "sgd", "surrogate"}), SGD, Surrogate],
        "init": [StrOptions({"auto", "random", "samples", "nndsvd"}), "array-like"],
        "batch_size": [Interval(Integral, 1, None, closed="left"),
                       StrOptions({"auto", "paper"})],
        "coder": [StrOptions(set(CODE_STEPS)), CodeSolver],
        "scale": [StrOptions({"max"}), Interval(Real, 0, None, closed="neither"), None],
        "data_floor": [Interval(Real, 0, None, closed="neither"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_no_improvement": [Interval(Integral, 1, None, closed="left"), None],
        "shuffle": ["boolean", Interval(Integral, 1, None, closed="left")],
        "history": [StrOptions({"online", "paper"}), None],
        "callback": [callable, None],
        "settings": [StrOptions({"default", "paper"})],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_components=40,
        *,
        loss="squared",
        dictionary_update="auto",
        init="auto",
        batch_size="auto",
        coder="auto",
        scale="max",
        data_floor=None,
        max_iter=200,
        tol=1e-4,
        max_no_improvement=10,
        shuffle=True,
        history="online",
        callback=None,
        settings="default",
        random_state=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.loss = loss
        self.dictionary_update = dictionary_update
        self.init = init
        self.batch_size = batch_size
        self.coder = coder
        self.scale = scale
        self.data_floor = data_floor
        self.max_iter = max_iter
        self.tol = tol
        self.max_no_improvement = max_no_improvement
        self.shuffle = shuffle
        self.history = history
        self.callback = callback
        self.settings = settings
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ configuration
    def _make_loss(self) -> Loss:
        return get_loss(self.loss)

    def _check_config(self) -> Loss:
        """Validate the parameters (on every call: ``set_params`` may have changed them) and
        resolve the nested settings into ``_code``, ``_sgd`` and ``_surrogate``."""
        self._validate_params()
        loss = self._make_loss()
        coder = self.coder
        self._settle("_code", (CodeSolver(coder) if isinstance(coder, str) else coder)
                     .check("coder"))
        self._resolve_dictionary_update(loss)
        step = code_step_for(self._code_step(), loss)
        if step == "lipschitz" and loss.curvature() is None:
            raise ValueError(f"coder step 'lipschitz' needs a curvature bound, which the "
                             f"{loss.name} loss lacks; use 'armijo'")
        if step == "admm" and not loss.residual_prox_available:
            raise ValueError(f"coder step 'admm' needs a loss with a closed-form proximal map "
                             f"(l1, l2); the {loss.name} loss has none")
        if step == "mu" and not loss.majorized_mu:
            raise ValueError(f"coder step 'mu' needs a beta-divergence (kl, is, beta); the "
                             f"{loss.name} loss has no majorized multiplicative update")
        return loss

    def _code_step(self) -> str:
        """The coder's step setting, with "auto" read as "paper" under ``settings="paper"``."""
        step = self._code.step
        return "paper" if step == "auto" and self.settings == "paper" else step

    def _resolve_dictionary_update(self, loss: Loss) -> None:
        """``_sgd`` (the SGD step's settings, also those of any warm-up) and ``_surrogate``
        (None when the steps are SGD throughout), every "auto" of theirs resolved."""
        du = self.dictionary_update
        paper = self.settings == "paper"
        has_surrogate = loss.quadratic or loss.majorized_mu
        if isinstance(du, str):
            wants = du == "surrogate" or (du == "auto" and not paper and has_surrogate)
            du = (Surrogate(warmup=0) if du == "surrogate" else Surrogate()) if wants else SGD()
        du.check("dictionary_update")
        if isinstance(du, Surrogate) and not has_surrogate:
            raise ValueError(f"dictionary_update='surrogate' is for the squared loss and the "
                             f"beta-divergences (kl, is, beta); the {loss.name} loss has none: "
                             "use 'sgd' or 'auto'")
        sgd = du if isinstance(du, SGD) else SGD(eps=du.eps)
        self._settle("_sgd", clone(sgd).set_params(
            safeguard=(not paper) if sgd.safeguard == "auto" else bool(sgd.safeguard)))
        self._settle("_surrogate", clone(du) if isinstance(du, Surrogate) else None)

    def _coder(self, learning: bool = True, loss: Loss | None = None) -> CodeSolver:
        """The code solver with every "auto" resolved: for the online steps (``learning``),
        or for ``transform`` and ``score``, which code with the accurate spectral step under
        "auto" (the multiplicative step's capped codes serve a stochastic step, not an
        answer)."""
        coder = self._code.resolved(self.loss_ if loss is None else loss, learning,
                                    step=self._code_step())
        if (learning and getattr(self, "_wide", False) and self._code.max_iter == "auto"
                and coder.step == "mu"):
            coder = coder.set_params(max_iter=WIDE_MU_CODE_MAX_ITER)
        return coder

    def _resolved_coder(self, loss: Loss) -> CodeSolver:
        """The online steps' :class:`CodeSolver` with every "auto" resolved (``coder_``)."""
        return self._coder(loss=loss)

    def _update_kind(self, loss: Loss) -> str:
        """"sgd", "bcd" or "mu": the dictionary step for this loss and setting (after any
        SGD warm-up)."""
        if self._surrogate is None:
            return "sgd"
        return "bcd" if loss.quadratic else "mu"

    def _warmup_for(self, loss: Loss, kind: str, sparse: bool) -> int:
        """Rows of SGD before the surrogate update takes over (``Surrogate.warmup``)."""
        if kind == "sgd":
            return 0
        if self._surrogate.warmup != "auto":
            return int(self._surrogate.warmup)
        return SGD_WARMUP_ROWS if sparse and loss.majorized_mu and not self._wide else 0

    def _sparse_rows_rule(self, X) -> tuple[int, int]:
        """(rows, cover) for "auto" batches of a sparse X: the rows whose coding amortizes a
        step's fixed Python cost, and the rows whose coding (K·(nnz + K) a row and
        iteration, ``SPARSE_CODE_ITERATIONS`` iterations) outweighs a dictionary step of
        O(K²F) work (uncapped; the callers cap it)."""
        k = self.n_components
        nnz_row = X.nnz / X.shape[0]
        # rows with at least K nonzeros (text) carry enough work for smaller batches, which
        # take more steps a pass
        work = 7e5 if nnz_row >= k else 2e6
        rows = auto_batch_size(k, max(nnz_row + k, 1.0), work=work, high=CODE_PART_ROWS)
        cover = math.ceil(k * X.shape[1] / (SPARSE_CODE_ITERATIONS * (nnz_row + k)))
        return rows, cover

    def _wide_vocabulary(self, X, loss: Loss) -> bool:
        """Whether the multiplicative surrogate meets a large vocabulary: sparse rows whose
        "auto" batches the dictionary step's O(K·F) enlarges (``_sparse_rows_rule``). There
        the steps are few and large, so the SGD warm-up is skipped (the safeguard rejects
        its summed steps over a large batch), NNDSVDa starts the atoms (few large steps start
        better from the data's leading singular vectors than from K single rows) and the
        codes take ``WIDE_MU_CODE_MAX_ITER`` iterations."""
        if (X is None or self.settings == "paper" or self.batch_size != "auto"
                or not loss.majorized_mu or self._surrogate is None):
            return False
        X = first_rows(X)
        if not (X.shape[0] and self._sparse_batches(X, None, loss)):
            return False
        rows, cover = self._sparse_rows_rule(X)
        return min(cover, CODE_PART_ROWS) > rows

    def _resolved_decay(self) -> float:
        """The surrogate's decay: "auto" is 0.5 for the squared loss's statistics, which stay
        exact as the dictionary moves, and where the multiplicative update starts from a
        dictionary already fitted to the data (after an SGD warm-up, or NNDSVDa's start over
        a large vocabulary), whose statistics then go less stale; 0.3 otherwise."""
        decay = self._surrogate.decay
        if decay != "auto":
            return float(decay)
        fitted_start = self._warmup or getattr(self, "_wide", False)
        return 0.5 if self._dictionary_kind == "bcd" or fitted_start else 0.3

    def _update_rule(self, batch_size: int = 1):
        kind = "sgd" if self._warming_up else self._dictionary_kind
        if kind == "bcd":
            # a batch's weight counts steps of at most CODE_PART_ROWS rows: a batch grown
            # with K weighs as the steps it replaces, and a smaller batch (a short
            # partial_fit call) replaces the statistics only within the first such step
            return BCDSurrogateUpdate(self._resolved_decay(), self._surrogate.eps,
                                      nominal_batch=min(batch_size, CODE_PART_ROWS))
        if kind == "mu":
            return MultiplicativeSurrogateUpdate(self.loss_.mu_exponent, self._resolved_decay(),
                                                 self._surrogate.eps,
                                                 nominal_batch=max(batch_size, MU_MEMORY_ROWS))
        sgd = self._sgd
        return ProjectedSGDUpdate(RobbinsMonroSchedule(sgd.a, sgd.b), sgd.reduce, sgd.eps,
                                  safeguard=sgd.safeguard)

    def batch_size_for(self, X, *, in_fit: bool = True) -> int:
        """τ for a call on X: explicit, the paper's (10⁻⁴N in fit, 10 in partial_fit), or auto.

        For a sparse X that stays sparse, a row costs K·(its nonzeros + K) instead of K·F,
        and each step also pays O(K·F) for the dictionary, so "auto" takes larger batches.
        """
        paper = self.batch_size == "paper" or (self.batch_size == "auto"
                                               and self.settings == "paper")
        if paper:
            return max(1, math.ceil(1e-4 * X.shape[0])) if in_fit else 10
        if self.batch_size != "auto":
            return int(self.batch_size)
        X = first_rows(X)  # of CSR dask blocks, the first one's rows
        if self._sparse_batches(X, None, self._make_loss()) and X.shape[0]:
            # a sparse step also pays O(K·F) for the dictionary and a Python cost per coder
            # iteration that the few nonzeros of a row cannot amortize: larger batches
            rows, cover = self._sparse_rows_rule(X)
            # the surrogate's dictionary step costs O(K²F) (block coordinates) or O(K·F)
            # (multiplicative) whatever the rows' nonzeros: over a large vocabulary it
            # outweighs the coding of a text-sized batch, so the batch grows until a step's
            # dictionary work is about an eighth of its coding's; without a cap below
            # O(K²F)'s cover, a pass of block-coordinate steps would cost O(N·K²F / cap)
            if getattr(self, "_dictionary_kind", None) == "bcd":
                rows = max(rows, min(cover, BCD_MAX_BATCH_ROWS))
            elif getattr(self, "_wide", False):
                rows = max(rows, min(cover, CODE_PART_ROWS))
            return rows
        return auto_batch_size(self.n_components, X.shape[1])

    # ------------------------------------------------------------------ data handling
    def _check_X(self, X, mask, *, reset):
        with guarded_validation(self):
            dtype = None if reset else self.components_.dtype
            X, mask = check_stream_input(self, X, mask, reset=reset, dtype=dtype)
            # parameters are validated on every call (set_params may have changed them); a
            # stream keeps the loss it started with
            loss = self._check_config() if reset else (self._check_config(), self.loss_)[1]
            loss.check_features(X.shape[1])
            scale = self._scale_for(X, mask) if reset else self.scale_
            check_magnitude(X, "OnlineNMF", scale)
            self._check_domain(loss, X, mask)
        return X, mask, loss, scale

    def _scale_for(self, X, mask) -> float:
        if self.scale is None:
            return 1.0
        if self.scale != "max":
            return float(self.scale)
        if sp.issparse(X):
            top = np.nanmax(X.data) if X.nnz else 0.0
        else:
            vals = X if mask is None else np.where(mask, X, 0)
            top = np.nanmax(vals) if vals.size and not np.isnan(vals).all() else 0.0
        return float(top) if top > 0 else 1.0

    def _check_domain(self, loss, X, mask):
        if not loss.positive_data or self.data_floor is not None:
            return
        if sp.issparse(X):
            nnz_all = X.nnz == X.shape[0] * X.shape[1]
            if not nnz_all:
                raise ValueError(f"the {loss.name} divergence needs strictly positive data, "
                                 "but sparse X has implicit zeros; set data_floor (e.g. 1e-8)")
            loss.check_data(X.data)
        else:
            loss.check_data(X if mask is None else np.where(mask, X, np.nan))

    def _sparse_batches(self, X, mask, loss=None) -> bool:
        """Whether batches of X stay CSR: the loss has sparse kernels, nothing is missing
        and no data floor applies (a floor turns implicit zeros into positive entries)."""
        loss = self.loss_ if loss is None else loss
        return (sp.issparse(X) and mask is None and loss.sparse_kernels
                and not (self.data_floor is not None and loss.positive_data)
                and not np.isnan(X.data).any())

    def _prepare_batch(self, X, rows, mask, sparse=False):
        if sparse:
            Xb = X[rows]
            Xb = (Xb / self.scale_ if self.scale_ != 1.0 else Xb.copy()).tocsr()
            return as_sparse_rows(Xb.astype(self.components_.dtype, copy=False)), None
        Xb, Mb = dense_batch(X, rows, mask)
        Xb = Xb / self.scale_ if self.scale_ != 1.0 else Xb.copy()
        if self.data_floor is not None and self.loss_.positive_data:
            Xb = np.maximum(Xb, self.data_floor / self.scale_)
        return Xb.astype(self.components_.dtype, copy=False), Mb

    # ------------------------------------------------------------------ state
    def _given_start(self, n_features):
        """The dictionary an array ``init`` gives, checked and brought into the box (see
        ``init``), or None for a named start."""
        if isinstance(self.init, str):
            return None
        D0 = check_start(self.init, self.n_components, n_features)
        top = D0.max(axis=1, keepdims=True)
        over = top[:, 0] > 1.0
        D0[over] /= top[over]
        return D0

    def _initialize(self, n_features, dtype, loss, scale, X=None, mask=None, shuffled=False):
        given = self._given_start(n_features)  # checked before the start's state is set
        self._warn_more_components_than_features(n_features)
        rng = check_random_state(self.random_state)
        self._rng = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
        D0 = self._rng.random((self.n_components, n_features))
        sparse = X is not None and is_sparse_input(X)
        self._dictionary_kind = self._update_kind(loss)
        self._wide = self._wide_vocabulary(X, loss)
        self._warmup = self._warmup_for(loss, self._dictionary_kind, sparse)
        self._warming_up = self._warmup > 0
        first_sgd = self._dictionary_kind == "sgd" or self._warming_up
        init = "given" if given is not None else self.init if self.init != "auto" else (
            "random" if self.settings == "paper" else "nndsvd" if self._wide else
            "samples" if not first_sgd else "nndsvd" if sparse else "random")
        if given is not None:
            # an atom without mass would stay empty under a multiplicative step: it starts
            # from the uniform draw, which is made in any case (so later draws are those of
            # a random start)
            D0 = fill_empty_atoms(given, D0)
        elif init == "nndsvd" and X is not None and X.shape[0] >= self.n_components:
            D0 = self._atoms_from_nndsvd(X, mask, scale, jitter=D0, shuffled=shuffled)
        elif init in ("samples", "nndsvd") and X is not None and X.shape[0]:
            D0 = self._atoms_from_samples(X, mask, scale, jitter=D0)
        if sparse and self._dictionary_kind == "mu":
            # feature-major: the multiplicative step's products HᵀP over CSR rows come so from
            # scipy's kernel, so every pass of the step over K × F arrays reads them in order,
            # and the coders' columns of D at the nonzeros need no transposed copy
            D0 = np.asfortranarray(D0)
        # D0 is this call's own array: projected in place
        self.components_ = project_dictionary_box(D0, self._sgd.eps, out=D0).astype(
            dtype, copy=False)
        self.coder_ = self._resolved_coder(loss)
        self.dictionary_update_ = (self._sgd if self._surrogate is None else clone(
            self._surrogate).set_params(warmup=self._warmup, decay=self._resolved_decay()))
        self.n_components_ = self.n_components
        self.loss_ = loss
        self.scale_ = scale
        self.state_ = self._update_rule().init(self.components_)
        self._reset_history()
        self._loss_sum = 0.0
        self.n_code_iter_ = 0
        self._buffer = []  # (X, mask, codes) kept only for history="paper"
        self._gather_buffer = GatherBuffer()

    def _atoms_from_nndsvd(self, X, mask, scale, jitter, shuffled=False):
        """NNDSVDa atoms (see ``init``) from ``NNDSVD_ROWS`` rows of X, scaled, with missing
        entries as 0; each atom divided by its maximum. The rows are the first ones of a
        stream, or, for a ``shuffled`` fit of an in-memory X, rows drawn at random: the
        passes will visit X in random order, and data stored sorted (by class, by date)
        would otherwise start every atom from its first classes. An atom without mass (a
        singular value or sign part of zero: all-zero or rank-deficient data) is the
        ``jitter`` row's (U(0, 1)), so no two atoms start as twins."""
        n = min(X.shape[0], NNDSVD_ROWS)
        take = slice(0, n)
        if shuffled and n < X.shape[0] and not is_dask_array(X):
            take = np.sort(self._rng.choice(X.shape[0], n, replace=False))
        S = rows_of(X, take)
        M = None if mask is None else np.asarray(mask[take])
        if sp.issparse(S):
            S = sp.csr_matrix(S if M is None else S.multiply(M)) / scale
            S.data = np.maximum(np.nan_to_num(S.data, nan=0.0, posinf=0.0), 0.0)
        else:
            S = np.asarray(S if M is None else np.where(M, S, 0.0), dtype=float) / scale
            S = np.maximum(np.nan_to_num(S, nan=0.0, posinf=0.0), 0.0)
        mean = float(S.sum()) / (S.shape[0] * S.shape[1])
        k = self.n_components
        seed = int(self._rng.integers(np.iinfo(np.int32).max))
        r = min(k, *S.shape)  # the SVD has no more than min(n, F) singular triplets
        U, sig, Vt = _leading_singular_triplets(S, r, seed)
        atoms = np.zeros((k, S.shape[1]))
        atoms[0] = np.abs(Vt[0]) * np.sqrt(sig[0])  # Perron: one sign throughout
        for j in range(1, r):
            u, v = U[:, j], Vt[j]
            up, un, vp, vn = (np.maximum(z, 0.0) for z in (u, -u, v, -v))
            mass_p = np.linalg.norm(up) * np.linalg.norm(vp)
            mass_n = np.linalg.norm(un) * np.linalg.norm(vn)
            part, mass = (vp, mass_p) if mass_p >= mass_n else (vn, mass_n)
            atoms[j] = np.sqrt(sig[j] * mass) * part / max(np.linalg.norm(part), 1e-300)
        empty = ~(atoms.max(axis=1) > 0)
        atoms[atoms <= 0] = mean
        atoms[empty] = jitter[empty]
        return atoms / atoms.max(axis=1, keepdims=True)

    def _atoms_from_samples(self, X, mask, scale, jitter):
        """K rows of X, scaled, missing entries as 0, plus ``jitter`` (U(0, 1)) times a tenth of
        their mean, each divided by its maximum. If X has fewer than K rows, the other atoms
        are the jitter's own (random) rows: copies of a few rows would start as near-twins."""
        k, n = jitter.shape[0], X.shape[0]
        if n < k:
            out = jitter / jitter.max(axis=1, keepdims=True)
            out[:n] = self._atoms_from_samples(X, mask, scale, jitter[:n])
            return out
        rows = np.sort(self._rng.choice(n, k, replace=False))
        S = rows_of(X, rows)  # dask: only their blocks
        S = S.toarray() if sp.issparse(S) else np.array(S, dtype=float)
        if mask is not None:
            S = np.where(np.asarray(mask)[rows], S, 0.0)
        # in place on S, a fresh K × F float64 array (the same bits as new float64 arrays,
        # fewer of them)
        S = S.astype(float, copy=False)
        np.divide(S, scale, out=S)
        np.nan_to_num(S, copy=False, nan=0.0, posinf=0.0)
        np.maximum(S, 0.0, out=S)
        level = float(S.mean()) if S.any() else 1.0
        S += 0.1 * level * jitter
        S /= S.max(axis=1, keepdims=True)
        return S

    # ------------------------------------------------------------------ the online step
    def _losses(self, Xb, Mb, H, D) -> np.ndarray:
        """Per-sample divergence of a (dense or CSR) batch from H·D."""
        if isinstance(Xb, SparseRows):
            return self.loss_.sparse_value(Xb, H, D)
        return self.loss_.value(Xb, H @ D, Mb)

    def _step(self, Xb, Mb, rule) -> float:
        """One online step on a batch; returns the batch's mean online loss (each sample's
        loss at its codes under the dictionary before the step)."""
        t0 = time.perf_counter()
        D = self.components_
        if isinstance(Xb, SparseRows):
            # D transposed once for the batch (a view of a feature-major D), shared by its
            # parts; the columns at the nonzeros gathered into memory reused from batch to
            # batch (except for batches kept for history="paper")
            Xb = Xb.bind(D, buffer=None if self.history == "paper" else getattr(
                self, "_gather_buffer", None))
        if isinstance(rule, (BCDSurrogateUpdate, MultiplicativeSurrogateUpdate)):
            # the statistics sum over the parts of a batch, so a large one is coded in parts,
            # each part's added as it comes (two sets of statistics alive at a time)
            parts, sums = [], None
            for x, m in code_parts(Xb, Mb):
                part = self._coded_part(D, x, m)
                sums = part.sums if sums is None else sum_statistics((sums, part.sums))
                # a part's rows and codes are kept only for history="paper"
                parts.append(part._replace(sums=None, batch=(
                    part.batch if self.history == "paper" else None)))
            D_new, state = self._surrogate_step(rule, sums, Xb.shape[0])
        else:
            parts = [self._coded_part(D, Xb, Mb, statistics=False)]
            batch = parts[0].batch
            assert batch is not None  # _coded_part always returns it
            Xb, H = batch[0], batch[2]
            if isinstance(Xb, SparseRows):
                grad = self.loss_.sparse_dictionary_grad(Xb, H, D)
            else:
                grad = H.T @ self.loss_.grad(Xb, H @ D, Mb)

            def batch_loss(C):
                return float(self._losses(Xb, Mb, H, C).sum())

            D_new, state = rule.update(self.state_, D, grad, Xb.shape[0],
                                       batch_loss if self._sgd.safeguard else None)
        self.components_ = D_new.astype(D.dtype, copy=False)
        self.state_ = state
        self._fit_time += time.perf_counter() - t0
        return self._account(sum(p.loss for p in parts), Xb.shape[0],
                             sum(p.n_code_iter for p in parts), [p.batch for p in parts])

    def _coded_part(self, D, Xb, Mb, statistics: bool = True) -> CodedPart:
        """A batch (or part of one) coded under D: its surrogate statistics (unless not
        ``statistics``), online loss sum, rows, code iterations and (X, mask, codes)."""
        if isinstance(Xb, SparseRows):
            # D's columns at the nonzeros, gathered once for the coder, the dictionary step's
            # products and the losses alike (a part of a bound batch gathers its own)
            Xb = Xb.bind(D)
        coded = self._coder().solve(self.loss_, D, Xb, Mb)
        H = coded.codes
        sums = tuple(self._surrogate_sums(D, H, Xb, Mb, coded.model)) if statistics else None
        return CodedPart(sums, float(self._online_losses(coded, Xb, Mb, D).sum()),
                         Xb.shape[0], int(coded.n_iter.sum()), (Xb, Mb, H))

    def _surrogate_sums(self, D, H, Xb, Mb, model=None) -> tuple:
        """The statistics a surrogate step adds for a batch coded H under D (``model``: HD,
        when the coder formed it); they sum over the parts of a batch split by rows (see
        :func:`fit_data_parallel`)."""
        if self._dictionary_kind == "bcd":
            return BCDSurrogateUpdate.batch_sums(D, H, Xb, Mb)
        return self.loss_.mu_products(Xb, H, D, Mb, model=model)

    def _surrogate_step(self, rule, sums, n_rows):
        if isinstance(rule, BCDSurrogateUpdate):
            return rule.update_from_sums(self.state_, self.components_, sums, n_rows)
        return rule.update(self.state_, self.components_, sums[0], sums[1], n_rows)

    def _online_losses(self, coded, Xb, Mb, D) -> np.ndarray:
        """Each sample's loss at its codes under the dictionary D they were solved with: the
        coder's final objective less the optional Tikhonov term (no second pass over the
        batch)."""
        f = coded.objective
        if f is None:
            return self._losses(Xb, Mb, coded.codes, D)
        if self._code.l2:
            return f - 0.5 * self._code.l2 * np.einsum("ij,ij->i", coded.codes, coded.codes)
        return f

    def _account(self, batch_loss_sum: float, n_rows: int, n_code_iter: int, batches=()):
        """Count a step's code iterations and online loss (and keep the batch's parts, each
        (X, mask, codes), for ``history="paper"``); returns the batch's mean online loss
        (what ``fit``'s stopping rule reads)."""
        self.n_code_iter_ += n_code_iter
        if self.history == "online":
            self._loss_sum += batch_loss_sum
        elif self.history == "paper":
            self._buffer.extend(b for b in batches if b is not None)
        return batch_loss_sum / max(n_rows, 1)

    def _record(self, n_rows: int) -> None:
        state = self.state_
        if self.history is not None and self._history.due(state.n_steps):
            self._history.record(state.n_samples_seen, self._fit_time, self._objective_now())

    def _objective_now(self) -> float:
        if self.history == "online":
            return self._loss_sum / max(self.state_.n_samples_seen, 1)
        total = sum(float(self._losses(x, m, h, self.components_).sum())
                    for x, m, h in self._buffer)
        return total / max(self.state_.n_samples_seen, 1)

    def _end_warmup(self):
        """Hand the stream from the SGD warm-up to the surrogate update, whose statistics
        start here (the step and sample counts carry on)."""
        self._warming_up = False
        self.state_ = anchored_state(self._update_rule(), self.components_, self.state_)

    def _open_segment(self, seg: Segment) -> Segment:
        seg.ctx = self._sparse_batches(seg.X, seg.mask)  # whether its batches stay CSR
        return seg

    def _batch_step(self, seg: Segment, rows) -> float:
        """The online step on the rows ``rows`` of a segment, after handing the stream from
        the SGD warm-up to the surrogate once the warm-up's rows are seen."""
        if self._warming_up and self.state_.n_samples_seen >= self._warmup:
            self._end_warmup()
        Xb, Mb = self._prepare_batch(seg.X, rows, seg.mask, seg.ctx)
        f = self._step(Xb, Mb, self._update_rule(self.batch_size_))
        if self.callback is not None:
            self.callback({"components": self.components_,
                           "n_samples": self.state_.n_samples_seen, "time": self._fit_time})
        return f

    def _source(self, X, mask, rng):
        """The segments of one pass over X (rows permuted by ``rng``, or in order); a dask
        array's blocks are validated as they are computed."""
        return pass_segments(X, mask, batch_size=self.batch_size_, rng=rng,
                             buffer_blocks=max(int(self.shuffle), 1),
                             check=lambda block: self._check_X(block, None, reset=False)[0])

    def _coded_chunks(self, X, mask, chunk=4096):
        """Yield (rows, scaled batch, mask, codes) over X with the current dictionary."""
        sparse = self._sparse_batches(X, mask)
        for start in range(0, X.shape[0], chunk):
            rows = np.arange(start, min(start + chunk, X.shape[0]))
            Xb, Mb = self._prepare_batch(X, rows, mask, sparse)
            yield rows, Xb, Mb, self._coder(learning=False).solve(
                self.loss_, self.components_, Xb, Mb).codes

    # ------------------------------------------------------------------ public API
    @transactional
    @one_blas_thread
    def partial_fit(self, X, y=None, mask=None):
        """Run one online step per mini-batch of ``batch_size`` rows of X, continuing the stream.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Nonnegative data; NaN marks missing entries.
        y : ignored
        mask : array-like of bool, optional
            True where observed (combined with the NaN mask).

        Returns
        -------
        self
        """
        if not hasattr(self, "components_"):
            X, mask = self._start(X, mask)
        elif not is_dask_array(X):
            X, mask = self._check_X(X, mask, reset=False)[:2]
        self.batch_size_ = self.batch_size_for(X, in_fit=False)
        try:
            self._pass(self._source(X, mask, None), self.batch_size_)
        finally:
            self._release_gather()
        self.n_iter_ += 1
        return self

    def _release_gather(self):
        """Return the gathered columns' memory: the buffer serves the batches of one call
        (a fitted model holds no batch's columns)."""
        buffer = getattr(self, "_gather_buffer", None)
        if buffer is not None:
            buffer.release()

    # ------------------------------------------------------------------ dask arrays
    def _start(self, X, mask, shuffled=False):
        """Validate X and start the model from it (a fresh stream; ``shuffled``: a fit that
        visits X in random order); returns the validated X and mask (a dask array as it is:
        its blocks are validated as they are read)."""
        if not is_dask_array(X):
            X, mask, loss, scale = self._check_X(X, mask, reset=True)
            self._initialize(X.shape[1], X.dtype, loss, scale, X, mask, shuffled=shuffled)
            return X, mask
        self._start_dask(X, mask)
        return X, None

    def _start_dask(self, X, mask):
        """Validate and initialize from a dask array: its first row block for the checks,
        one dask reduction for the "max" scale (what fit computes from an in-memory X)."""
        if mask is not None:
            raise ValueError("with a dask array, mark missing entries with NaN (mask= is for "
                             "in-memory arrays)")
        first = next(iter_row_blocks(X))
        _, _, loss, scale = self._check_X(first, None, reset=True)
        if self.scale == "max":
            top = dask_nanmax(X)
            scale = top if np.isfinite(top) and top > 0 else 1.0
        self._initialize(X.shape[1], first.dtype, loss, scale, X)

    def _loss_block(self, block):
        X, mask, _, _ = self._check_X(as_rows(block), None, reset=False)
        losses = np.empty(X.shape[0])
        for rows, Xb, Mb, Hb in self._coded_chunks(X, mask):
            losses[rows] = self._losses(Xb, Mb, Hb, self.components_)
        return losses

    @transactional
    @one_blas_thread
    def fit(self, X, y=None, mask=None):
        """Learn the dictionary from X by ``max_iter`` shuffled passes of the online algorithm.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Nonnegative data; NaN marks missing entries.
        y : ignored
        mask : array-like of bool, optional
            True where observed.

        Returns
        -------
        self
        """
        X, mask = self._start(X, mask, shuffled=bool(self.shuffle))
        bs = self.batch_size_ = self.batch_size_for(X, in_fit=True)
        try:
            self._converging_passes(
                X.shape[0], lambda: self._source(X, mask, self._rng if self.shuffle else None),
                bs)
        finally:
            self._release_gather()
        return self

    @lazy_blocks("transform")
    def transform(self, X, mask=None):
        """Codes of X with the learned dictionary (Algorithm 2 with the final W).

        Returns
        -------
        codes : ndarray of shape (n_samples, n_components)
            In the units of X: ``transform(X) @ components_ ≈ X``.
        """
        check_is_fitted(self, "components_")
        X, mask, _, _ = self._check_X(X, mask, reset=False)
        H = np.empty((X.shape[0], self.n_components_), dtype=self.components_.dtype)
        for rows, _, _, Hb in self._coded_chunks(X, mask):
            H[rows] = Hb
        return H * self.scale_

    def _score_dask(self, X):
        """``score`` of a dask array: the per-row losses mapped over the row blocks, their
        mean computed here."""
        X = X if len(X.chunks[1]) == 1 else X.rechunk({1: -1})
        losses = X.map_blocks(self._loss_block, drop_axis=1, dtype=float, meta=np.empty((0,)))
        return -float(losses.mean().compute())

    @lazy_blocks("score")
    def score(self, X, y=None, mask=None):
        """Minus the mean per-sample divergence of X from its reconstruction (scaled units)."""
        check_is_fitted(self, "components_")
        X, mask, _, _ = self._check_X(X, mask, reset=False)
        total = sum(float(self._losses(Xb, Mb, Hb, self.components_).sum())
                    for _, Xb, Mb, Hb in self._coded_chunks(X, mask))
        return -total / max(X.shape[0], 1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # NaN marks missing entries
        return tags


class CodedPart(NamedTuple):
    """A batch, or a part of one, coded under the dictionary of a step."""

    sums: tuple | None  # the surrogate statistics it adds (they sum over parts)
    loss: float  # the sum of its rows' online losses
    n_rows: int
    n_code_iter: int
    batch: tuple | None  # (X, mask, codes), what ``history="paper"`` keeps


def code_parts(Xb, Mb, rows: int | None = None):
    """(X, mask) parts of a batch of at most ``rows`` (``CODE_PART_ROWS``) rows each, in
    order: a sparse batch of more rows is split, so that the dictionary columns gathered at
    its nonzeros (nnz × K) stay bounded; a dense batch, whose rows cost K·F each whatever
    their size, is not."""
    rows = CODE_PART_ROWS if rows is None else rows
    n = Xb.shape[0]
    if not isinstance(Xb, SparseRows) or n <= rows:
        return [(Xb, Mb)]
    # each part gathers its own columns, and keeps no reference to the whole batch
    return [(Xb.subset(np.arange(s, min(s + rows, n)), share_gather=False), None)
            for s in range(0, n, rows)]


def sum_statistics(parts) -> tuple:
    """The surrogate statistics of a batch from those of its parts, added in order (the
    same order in one process and on dask workers, so the bits agree)."""
    parts = iter(parts)
    total = list(next(parts))
    for part in parts:
        for i, x in enumerate(part):
            a = total[i]
            # into the first part's own arrays (fresh products of its coding) where writable
            total[i] = (np.add(a, x, out=a) if isinstance(a, np.ndarray) and a.flags.writeable
                        and a.shape == np.shape(x) and a.dtype == np.result_type(a, x)
                        else a + x)
    return tuple(total)


def auto_batch_size(n_components: int, n_features: float, work: float = 6e5,
                    low: int = 16, high: int = 512) -> int:
    """Rows per mini-batch so that one step's vectorized work (∝ rows·K·F) dominates its
    fixed Python cost: ``work / (K·F)`` clipped to [low, high], and at least K.

    Smaller batches pay the per-step cost more often, larger ones take fewer dictionary steps
    per pass; the default ``work`` sits where the per-sample cost stops falling. The floor of
    K rows keeps the cost of a pass linear in K·F: each step also pays O(K²F) for the
    dictionary (its Gram matrix, the block-coordinate sweep), which K rows spread to O(K·F) a
    row, the cost of coding one.
    """
    rows = work / max(n_components * n_features, 1)
    return max(int(min(max(round(rows), low), high)), int(n_components))
