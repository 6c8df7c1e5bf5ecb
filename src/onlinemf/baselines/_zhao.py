"""The methods that Zhao, Tan and Xu (2016), "Online Nonnegative Matrix Factorization with
General Divergences" (arXiv:1608.00075), compare against in Section VIII.

All work in scikit-learn orientation, X (n_samples, n_features) ≈ codes @ components, and
record the per-sample objective against wall time in a :class:`onlinemf._history.History`.

* :func:`batch_nmf` — batch multiplicative updates ("Batch"): the β-divergence MU of Févotte
  and Idier (2011) for IS, KL and squared-ℓ2 (with the exponent γ(β) = 1/(2 − β) for β < 1
  that makes IS monotone); ℓ2,1-norm NMF (Kong, Ding and Huang 2011) for the ℓ2 loss; and
  IRLS-weighted MU for Huber (weights 1 or δ/|r|, after Wang et al. 2013) and ℓ1 (weights
  1/max(|r|, δ), an assumption: the paper does not give them).
* :class:`OnlineISNMF` — OL-Lef (Lefèvre, Bach and Févotte 2011): IS-NMF whose dictionary is
  W = √(A/B) from statistics A, B accumulated over mini-batches.
* :class:`RobustSANMF` — OL-Guan (Guan et al. 2012): squared loss, codes by nonnegative least
  squares, dictionary by projected SGD with the constant step of robust stochastic
  approximation (γ = θ/√T) and iterate averaging.
* :class:`OnlineHuberSGD` — OL-Wang (Wang, Wang and Yeung 2013): Huber loss with an ℓ1
  penalty on the codes, codes by IRLS-weighted MU, dictionary by projected SGD with a constant
  step.
"""

from __future__ import annotations

import operator
import time
from dataclasses import dataclass

import numpy as np

from .._history import History
from ..coders import CodeSolver, spectral_norm_sq
from ..constraints import project_dictionary_box
from ..losses import Y_FLOOR, Loss, get_loss

__all__ = ["BatchResult", "batch_nmf", "OnlineISNMF", "RobustSANMF", "OnlineHuberSGD",
           "BATCH_LOSSES"]

BATCH_LOSSES = ("squared", "kl", "is", "huber", "l1", "l2")
_TINY = 1e-12


@dataclass
class BatchResult:
    """Output of a baseline: the factors and the objective history (per-sample loss)."""

    components: np.ndarray
    codes: np.ndarray
    history: dict
    n_iter: int


def _init_factors(mean, n, f, k, rng):
    scale = np.sqrt(max(mean, _TINY) / k)
    H = scale * rng.uniform(0.5, 1.5, size=(n, k))
    D = scale * rng.uniform(0.5, 1.5, size=(k, f))
    return H, D


def _mu_pass(loss, D, gamma, irls_delta, Xb, Hb):
    """One multiplicative-update pass over a row block: the block's loss (sum, entries) at
    the current factors, its updated codes, and its share Hᵀ P, Hᵀ Q of the dictionary
    update (the map step; the dictionary update is their sum)."""
    Xb = np.asarray(Xb, dtype=float)
    Y = Hb @ D
    v = loss.value(Xb, Y)
    P, Q = loss.mu_ratios(Xb, Y, irls_delta)
    Hn = Hb * ((P @ D.T) / np.maximum(Q @ D.T, _TINY)) ** gamma
    P, Q = loss.mu_ratios(Xb, Hn @ D, irls_delta)
    return Hn, Hn.T @ P, Hn.T @ Q, float(v.sum()), v.size


def _mu_passes(loss, D, gamma, irls_delta, blocks, Hs):
    """:func:`_mu_pass` over every block (as dask tasks for dask blocks), reduced."""
    if blocks and hasattr(blocks[0], "dask"):  # dask.delayed blocks of a dask array
        import dask

        parts = dask.compute(*[dask.delayed(_mu_pass)(loss, D, gamma, irls_delta, xb, hb)
                               for xb, hb in zip(blocks, Hs)])
    else:
        parts = [_mu_pass(loss, D, gamma, irls_delta, xb, hb) for xb, hb in zip(blocks, Hs)]
    num = sum(p[1] for p in parts)
    den = sum(p[2] for p in parts)
    value = sum(p[3] for p in parts) / max(sum(p[4] for p in parts), 1)
    return [p[0] for p in parts], num, den, value


def batch_nmf(
    X: np.ndarray,
    n_components: int,
    loss: str | Loss = "squared",
    *,
    max_iter: int = 500,
    tol: float = 1e-5,
    time_budget: float | None = None,
    irls_delta: float = 1e-6,
    random_state=None,
    n_checkpoints: int = 100,
    block_rows: int = 2048,
    callback=None,
) -> BatchResult:
    """Batch NMF by multiplicative updates for the divergences of the paper's experiments.

    Stops after ``max_iter`` iterations, when the relative decrease of the objective falls
    below ``tol``, or when ``time_budget`` seconds are spent (the paper leaves the batch
    stopping rule unspecified). The objective recorded is the mean divergence
    D(V ‖ WH) per entry.

    A dask array X is never materialized: each iteration is one map-reduce pass of dask
    tasks over its row blocks (the codes of a block, O(n·K) in all, stay in memory; each task
    returns the block's codes and its O(K·F) share of the dictionary update). Each pass also
    evaluates the objective at the previous iterate, which is what the stopping rule reads;
    the iterate returned is the one the rule accepted, as in memory. An in-memory X is
    processed the same way in blocks of ``block_rows`` rows (the same iterates, up to the
    order of the dictionary sums), which keeps each pass's temporaries small.

    ``callback(n_iter, components)``, if given, sees each iterate's dictionary (iterates 1, 2,
    …, the last one the one returned), outside the timed part: a caller can score the
    dictionary as the iterations go on without running Batch again for each count.
    """
    if not (isinstance(block_rows, (int, np.integer)) and block_rows >= 1):
        raise ValueError(f"block_rows must be a positive integer, got {block_rows!r}")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable or None, got {type(callback).__name__}")
    loss = get_loss(loss)
    rng = np.random.default_rng(random_state)
    if hasattr(X, "to_delayed"):  # a dask array: blocks of whole rows
        X = X if len(X.chunks[1]) == 1 else X.rechunk({1: -1})
        blocks = list(X.to_delayed().ravel())
        sizes = X.chunks[0]
        H, D = _init_factors(float(X.mean().compute()), X.shape[0], X.shape[1], n_components,
                             rng)
    else:
        # row blocks even in memory: each pass's temporaries (the model, the ratios) are then
        # block-sized instead of n × F
        X = np.asarray(X, dtype=float)
        cuts = range(block_rows, X.shape[0], block_rows)
        blocks = np.split(X, cuts)
        sizes = [b.shape[0] for b in blocks]
        H, D = _init_factors(X.mean(), X.shape[0], X.shape[1], n_components, rng)
    Hs = np.split(H, np.cumsum(sizes)[:-1])
    gamma = loss.mu_exponent
    n = X.shape[0]
    hist = History(n_checkpoints)
    elapsed, prev, it = 0.0, None, 0
    while True:
        t0 = time.perf_counter()
        new_Hs, num, den, obj = _mu_passes(loss, D, gamma, irls_delta, blocks, Hs)
        # obj is the objective of iterate `it`, the one (Hs, D) holds
        if it > 0 or max_iter == 0:
            if hist.due(it):
                hist.record(it * n, elapsed, obj)
            over_budget = time_budget is not None and elapsed > time_budget
            if over_budget or it >= max_iter or (
                    prev is not None and abs(prev - obj) <= tol * abs(prev)):
                break
            prev = obj
        Hs = new_Hs
        D = D * (num / np.maximum(den, _TINY)) ** gamma
        elapsed += time.perf_counter() - t0
        it += 1
        if callback is not None:
            callback(it, D)
    if not hist.n_samples or hist.n_samples[-1] != it * n:
        hist.record(it * n, elapsed, obj)
    return BatchResult(D, np.vstack(Hs), hist.as_arrays(), it)


class _OnlineBaseline:
    """Shared loop of the online baselines: mini-batches, paper's online objective.

    ``callback`` (None unless a subclass or the caller sets it) gets, after each mini-batch,
    the dict OnlineRobustNMF's callback gets: ``rows``, ``codes``, ``components`` (the
    output, e.g. a running average), ``time``; and ``iterate``, the dictionary the next
    mini-batch is coded with (the same array as ``components`` where there is no average).
    """

    callback = None

    def __init__(self, n_components, batch_size=10, random_state=None, n_checkpoints=50):
        self.n_components = n_components
        self.batch_size = batch_size
        self.random_state = random_state
        self.n_checkpoints = n_checkpoints

    def _loss(self) -> Loss:
        raise NotImplementedError

    def _init(self, X):
        rng = np.random.default_rng(self.random_state)
        self.components_ = project_dictionary_box(rng.random((self.n_components, X.shape[1])))
        return rng

    def _step(self, Xb, t):
        """Update the dictionary from one batch; return the batch's codes."""
        raise NotImplementedError

    def fit(self, X, n_passes: int = 1):
        """Learn the dictionary from the rows of X (n, F) in mini-batches, ``n_passes`` times
        over them, each pass in a fresh random order. The step schedule is one pass's (T,
        the mini-batches of a pass, where a method's step needs it), so further passes
        continue the same run (``n_steps_total_`` is one pass's mini-batches). The objective
        recorded is the paper's online one: every row seen, with the codes its latest
        mini-batch gave it, scored by the current output dictionary, per row; the history's
        ``n_samples`` count rows over all passes."""
        try:
            passes = operator.index(n_passes)
        except TypeError:
            passes = 0
        if passes < 1:
            raise ValueError(f"n_passes must be a positive integer, got {n_passes!r}")
        X = np.asarray(X, dtype=float)
        rng = self._init(X)
        loss = self._loss()
        n = X.shape[0]
        self.n_steps_total_ = int(np.ceil(n / self.batch_size))
        hist = History(self.n_checkpoints)
        codes = np.zeros((n, self.n_components))
        seen = np.zeros(n, dtype=bool)
        elapsed, t = 0.0, 0
        for p in range(passes):
            order = rng.permutation(n)
            for start in range(0, n, self.batch_size):
                t += 1
                rows = order[start:start + self.batch_size]
                t0 = time.perf_counter()
                H = self._step(X[rows], t)
                elapsed += time.perf_counter() - t0
                codes[rows], seen[rows] = H, True
                if self.callback is not None:
                    self.callback({"rows": rows, "codes": H,
                                   "components": self.output_components(),
                                   "iterate": self.components_, "time": elapsed})
                if hist.due(t):
                    val = float(loss.value(X[seen], codes[seen] @ self.output_components())
                                .sum())
                    hist.record(p * n + start + rows.size, elapsed, val / seen.sum())
        self.history_ = hist.as_arrays()
        return self

    def output_components(self):
        return self.components_


class OnlineISNMF(_OnlineBaseline):
    """OL-Lef: online IS-NMF with accumulated auxiliary statistics (Lefèvre et al. 2011).

    Per batch: codes by ``code_iter`` IS multiplicative updates with D fixed; then
    A ← ρA + (Hᵀ(X ⊙ Y⁻²)) ⊙ D², B ← ρB + Hᵀ Y⁻¹ and D ← √(A/B) (ρ = 1: no forgetting).
    """

    def __init__(self, n_components, batch_size=10, code_iter=20, forget=1.0,
                 random_state=None, n_checkpoints=50):
        super().__init__(n_components, batch_size, random_state, n_checkpoints)
        self.code_iter = code_iter
        self.forget = forget

    def _loss(self):
        return get_loss("is")

    def _init(self, X):
        rng = super()._init(X)
        self._A = np.zeros_like(self.components_)
        self._B = np.zeros_like(self.components_)
        return rng

    def _step(self, Xb, t):
        D = self.components_
        loss = self._loss()
        g = loss.mu_exponent  # ½ for IS: the square roots of the update
        H = np.full((Xb.shape[0], D.shape[0]), Xb.mean() / max(D.sum(axis=0).mean(), _TINY))
        for _ in range(self.code_iter):
            P, Q = loss.mu_ratios(Xb, np.maximum(H @ D, Y_FLOOR))
            H *= ((P @ D.T) / np.maximum(Q @ D.T, _TINY)) ** g
        HtP, HtQ = loss.mu_products(Xb, H, D)  # Hᵀ(X ⊙ Y⁻²), Hᵀ Y⁻¹
        self._A = self.forget * self._A + HtP * D ** (1 / g)
        self._B = self.forget * self._B + HtQ
        self.components_ = (self._A / np.maximum(self._B, _TINY)) ** g
        return H


class RobustSANMF(_OnlineBaseline):
    """OL-Guan: squared-loss online NMF by robust stochastic approximation (Guan et al. 2012).

    Codes by nonnegative least squares (accelerated projected gradient); dictionary by
    projected SGD onto C with the constant step γ = θ/(L̂ √T), T the number of mini-batches
    of the pass and L̂ = ‖H‖₂² of the first batch; the output is the running average of the
    iterates (Nemirovski et al. 2009), over every pass when ``fit`` makes several.
    """

    def __init__(self, n_components, batch_size=10, theta=1.0, random_state=None,
                 n_checkpoints=50, callback=None):
        super().__init__(n_components, batch_size, random_state, n_checkpoints)
        self.theta = theta
        self.callback = callback

    def _loss(self):
        return get_loss("squared")

    def _init(self, X):
        rng = super()._init(X)
        self._avg = self.components_.copy()
        self._gamma = None
        return rng

    def _step(self, Xb, t):
        D = self.components_
        H = CodeSolver("fista", lower=0.0, max_iter=50, f_tol=1e-6, start="best").solve(
            get_loss("squared"), D, Xb).codes
        G = H.T @ (H @ D - Xb) / Xb.shape[0]
        if self._gamma is None:
            L = max(spectral_norm_sq(H) / Xb.shape[0], _TINY)
            self._gamma = self.theta / (L * np.sqrt(self.n_steps_total_))
        self.components_ = project_dictionary_box(D - self._gamma * G)
        self._avg += (self.components_ - self._avg) / (t + 1)
        return H

    def output_components(self):
        return self._avg


class OnlineHuberSGD(_OnlineBaseline):
    """OL-Wang: online robust (Huber) NMF with a constant-step projected SGD dictionary update
    and an ℓ1 penalty λ on the codes, solved by IRLS-weighted multiplicative updates
    (Wang, Wang and Yeung 2013; Remark 6 of the paper notes the constant step).

    ``step="auto"`` (default) is the constant θ/L̂₀, L̂₀ = λ_max(HᵀH) of the first mini-batch's
    codes (the curvature of its summed Huber loss is at most that), θ = ``theta``. A fixed
    number ignores the data's scale: small codes (faces coded by atoms in [0, 1]) make 1/L̂₀
    large, and a fixed step small beside it barely moves the dictionary. Neither paper gives
    the value.
    """

    def __init__(self, n_components, batch_size=10, delta=0.1, lam=0.0, step="auto",
                 theta=0.1, code_iter=30, random_state=None, n_checkpoints=50):
        super().__init__(n_components, batch_size, random_state, n_checkpoints)
        self.delta, self.lam, self.step, self.code_iter = delta, lam, step, code_iter
        self.theta = theta

    def _loss(self):
        return get_loss("huber", delta=self.delta)

    def _step(self, Xb, t):
        D = self.components_
        loss = self._loss()
        H = np.full((Xb.shape[0], D.shape[0]), Xb.mean() / max(D.sum(axis=0).mean(), _TINY))
        for _ in range(self.code_iter):  # IRLS: the Huber loss's own MU weights
            P, Q = loss.mu_ratios(Xb, H @ D)
            H *= (P @ D.T) / np.maximum(Q @ D.T + self.lam, _TINY)
        G = H.T @ np.clip(H @ D - Xb, -self.delta, self.delta)
        if t == 1 or not hasattr(self, "_step_size"):
            if self.step == "auto":
                L = max(spectral_norm_sq(H), _TINY)
                self._step_size = self.theta / L
            else:
                self._step_size = float(self.step)
        self.components_ = project_dictionary_box(D - self._step_size * G)
        self.step_size_ = self._step_size
        return H

    def first_step_size(self, X) -> float:
        """The constant step a fit on ``X`` takes (``step="auto"``: set by its first
        mini-batch, drawn as ``fit`` draws it), from that mini-batch alone; the model is left
        after that one step."""
        X = np.asarray(X, dtype=float)
        order = self._init(X).permutation(X.shape[0])
        self.__dict__.pop("_step_size", None)
        self._step(X[order[:self.batch_size]], 1)
        return self.step_size_
