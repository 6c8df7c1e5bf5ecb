"""Variance-reduced stochastic matrix factorization (Zhao, Haskell and Feng 2018, "A Unified
Framework for Stochastic Matrix Factorization via Variance Reduction", arXiv:1705.10679): the
Danskin gradient as a map over chunks of samples followed by a sum, the SVRG direction, the
tolerance schedule of Theorem 2, the parameter helpers (the experimental settings of Section 5
and the step conditions of Theorems 1–2), and the dictionary step of the SMM baseline.

Orientation: samples and atoms are rows (x ∈ R^F, D ∈ R^{K×F}); the per-sample gradient of
eq. (7) is ∇_D ℓ(x, D) = h*ᵀ(h*D + r* − x)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial, reduce

import numpy as np

from .._dask import is_dask_array, map_reduce_blocks
from .._steps import accelerated_prox_grad, spectral_lipschitz
from ..coders import solve_codes_bsum
from ._running import CumulativeSums, RunningAverage, SurrogateState
from ._surrogate import bcd_dictionary

__all__ = ["VRSnapshot", "SVRGUpdate", "ProxSGDState", "ProxSGDUpdate", "SMMUpdate",
           "GradientTerms", "sampling_factor",
           "default_batch_params", "theta_min", "theoretical_step_size", "code_tolerance",
           "iter_chunks", "chunk_terms", "residual", "danskin_gradient_sum", "full_gradient",
           "vr_direction", "smm_dictionary", "snapshot_metric", "metric_step"]


@dataclass
class GradientTerms:
    """Sums over a set of samples: Σ∇_D ℓ (K, F), Σℓ̃, Σhhᵀ (K, K) and the sample count.
    Two of them add (the reduce step of :func:`full_gradient`)."""

    grad: np.ndarray
    loss: float
    hh: np.ndarray
    count: int
    codes: tuple = ()  # the chunks' codes, in order, when kept (``keep_codes``)

    def __add__(self, other: GradientTerms) -> GradientTerms:
        return GradientTerms(self.grad + other.grad, self.loss + other.loss,
                             self.hh + other.hh, self.count + other.count,
                             self.codes + other.codes)

    @property
    def mean_grad(self) -> np.ndarray:
        """∇g(D) = (1/n)Σ∇_D ℓ(x_i, D)."""
        return self.grad / max(self.count, 1)

    @property
    def curvature(self) -> float:
        """λ_max((1/n)Σhhᵀ): the Lipschitz constant of ∇g with the codes held fixed."""
        return spectral_lipschitz(self.hh / max(self.count, 1))


def sampling_factor(n: int, b: int) -> float:
    """α(n, b) = (n − b)/(b(n − 1)), the finite-population correction for mini-batches of b
    drawn without replacement (the α(n, b) of Zhao, Haskell and Feng 2018); 0 when n = 1 or
    b = n."""
    if not 1 <= b <= n:
        raise ValueError(f"the mini-batch size must be in [1, n], got b={b}, n={n}")
    return 0.0 if n == 1 else (n - b) / (b * (n - 1))


def default_batch_params(n: int, c1: float = 0.2, c2: float = 0.5) -> tuple[int, int]:
    """The paper's b = c1·n^{2/3} and m = c2·n^{1/3} (Section 5), rounded: b in [1, n],
    m ≥ 1. For n = 1e5: (431, 23); n = 2429: (36, 7); n = 60000: (307, 20)."""
    b = int(np.clip(round(c1 * n ** (2 / 3)), 1, n))
    m = max(1, int(round(c2 * n ** (1 / 3))))
    return b, m


def theta_min(n: int, b: int, m: int, inexact: bool = False) -> float:
    """Smallest θ > 2 with θ(θ − 1) ≥ c·m(m + 1)·α(n, b): c = 2 for Theorem 1 (exact codes),
    c = 4 for Theorem 2 (inexact codes). The theorems then allow η = 1/(θL)."""
    v = (4 if inexact else 2) * m * (m + 1) * sampling_factor(n, b)
    return max(2.0, 0.5 * (1 + np.sqrt(1 + 4 * v)))


def theoretical_step_size(n: int, b: int, m: int, lipschitz: float,
                          inexact: bool = False) -> float:
    """η = 1/(θ_min·L), the step of Theorems 1–2 for a Lipschitz constant L of ∇g (which the
    paper never quantifies: pass an estimate, e.g. :attr:`GradientTerms.curvature`)."""
    if not lipschitz > 0:
        raise ValueError("the Lipschitz constant must be positive")
    return 1.0 / (theta_min(n, b, m, inexact) * lipschitz)


def code_tolerance(counter: int, tau: float = 1e-3) -> float:
    """ε_{s,t} = max(ms + t, 1)^{−(1/2 + τ)}: the error schedule of Theorem 2 of Zhao, Haskell
    and Feng (2018), with max(·, 1) because the schedule is infinite at ms + t = 0."""
    return max(counter, 1) ** (-(0.5 + tau))


def iter_chunks(X, chunk_size: int):
    """Dense row blocks of X (array or sparse) of at most ``chunk_size`` rows."""
    for start in range(0, X.shape[0], chunk_size):
        block = X[start:start + chunk_size]
        yield np.asarray(block.toarray() if hasattr(block, "toarray") else block, dtype=float)


def chunk_terms(problem, D, Xc, tol, max_iter=500, gram=None, lipschitz=None, codes=None,
                solver=solve_codes_bsum, scale_tol=False, H0=None, keep_codes=False):
    """The :class:`GradientTerms` of one chunk of samples (the map step). Codes are solved by
    ``solver`` (BSUM, the algorithm's solves, by default; evaluation passes
    :func:`onlinemf.coders.solve_codes_accurate`), from the start ``H0`` if given, or given
    as (H, R); with ``keep_codes`` the terms carry them."""
    if codes is None:
        res = solver(problem, D, Xc, tol, max_iter=max_iter, gram=gram, lipschitz=lipschitz,
                     scale_tol=scale_tol, H0=H0)
        H, R = res.codes, res.outliers
    else:
        H, R = codes
    E = residual(D, Xc, H, R)  # formed once for the loss and the gradient
    loss = float(problem.sample_losses(Xc, D, H, R, residual=E).sum())
    return GradientTerms(H.T @ E, loss, H.T @ H, Xc.shape[0], (H,) if keep_codes else ())


def residual(D, X, H, R=None) -> np.ndarray:
    """hD + r − x per row, the residual of eq. (7)."""
    E = H @ D - X
    if R is not None:
        E += R
    return E


def danskin_gradient_sum(D, X, H, R=None) -> np.ndarray:
    """Σ_i ∇_D ℓ(x_i, D) = Hᵀ(HD + R − X) at the optimal codes and outliers (eq. 7)."""
    return H.T @ residual(D, X, H, R)


def full_gradient(problem, D, X, tol: float, *, chunk_size: int = 2048, max_iter: int = 500,
                  map_fn=map, solver=solve_codes_bsum, scale_tol: bool = False,
                  codes0=None, keep_codes: bool = False) -> GradientTerms:
    """Σ over all samples of the Danskin gradient, loss and code outer products (lines 4–5 of
    Algorithm 1), computed as ``reduce(+, map_fn(chunk_terms, chunks))``.

    ``map_fn`` is any map (the built-in one, ``concurrent.futures.Executor.map``, a Dask
    bag's or a cluster client's): the chunks are independent and only O(KF) per chunk comes
    back, so the pass distributes without change to the algorithm. A dask array is reduced
    block by block as dask tasks on the active scheduler (``map_fn`` is not used).

    ``solver`` solves each chunk's codes (see :func:`chunk_terms`). ``codes0`` (n, K)
    warm-starts every chunk's solve (in-memory X only); ``keep_codes`` keeps
    the chunks' codes in the result (``np.vstack(terms.codes)``: the next call's start).
    """
    G = D @ D.T
    L = spectral_lipschitz(G)
    work = partial(chunk_terms, problem, D, tol=tol, max_iter=max_iter, gram=G, lipschitz=L,
                   solver=solver, scale_tol=scale_tol)
    if is_dask_array(X):  # one dask task per row block, summed: the data never come back
        return map_reduce_blocks(partial(_block_terms, work, chunk_size), X)
    starts = (None if codes0 is None else codes0[s:s + chunk_size]
              for s in range(0, X.shape[0], chunk_size))
    return reduce(operator.add, map_fn(partial(_started, work, keep_codes),
                                       zip(iter_chunks(X, chunk_size), starts)))


def _started(work, keep_codes, chunk_and_start):
    """``work`` on one (chunk, its warm start or None): one argument, for any map."""
    Xc, H0 = chunk_and_start
    return work(Xc, H0=H0, keep_codes=keep_codes)


def _block_terms(work, chunk_size, block):
    """The terms of one in-memory row block, by chunks of ``chunk_size`` rows."""
    return reduce(operator.add, map(work, iter_chunks(block, chunk_size)))


def vr_direction(problem, D, D0, Xb, full_grad, tol: float, *, snapshot=None,
                 max_iter: int = 500, scale_tol: bool = False, gram0=None, lipschitz0=None,
                 solver=solve_codes_bsum):
    """The variance-reduced direction of line 10 of Algorithm 1 on the mini-batch Xb:

        V = (1/b)Σ_{j∈B}[∇_D ℓ(x_j, D) − ∇_D ℓ(x_j, D0)] + ∇g(D0),

    with the snapshot codes (line 8, at D0; or ``snapshot`` = (H, R) when cached) and the
    current codes (line 9, at D, warm-started from line 8's), both solved by ``solver``.

    Returns
    -------
    V : ndarray (K, F)
    n_solves : int (per-sample solves spent: b or 2b)
    """
    kw = dict(max_iter=max_iter, scale_tol=scale_tol)
    solves = Xb.shape[0]
    if snapshot is None:
        snap = solver(problem, D0, Xb, tol, gram=gram0, lipschitz=lipschitz0, **kw)
        snapshot = (snap.codes, snap.outliers)
        solves *= 2
    cur = solver(problem, D, Xb, tol, H0=snapshot[0], R0=snapshot[1], **kw)
    g1 = danskin_gradient_sum(D, Xb, cur.codes, cur.outliers)
    g0 = danskin_gradient_sum(D0, Xb, *snapshot)
    return (g1 - g0) / Xb.shape[0] + full_grad, solves


def smm_dictionary(problem, D, A, B, *, sweeps: int = 1, tol: float = 0.0,
                   prox_iter: int = 100) -> np.ndarray:
    """argmin_{D ∈ C} ½tr(DᵀAD) − tr(DᵀB) + ψ(D), SMM's surrogate step (Algorithm S-2, line 7,
    of Zhao, Haskell and Feng 2018, with ψ added to the surrogate, which the paper's listing
    leaves out), warm-started at D, with normalized statistics A, B.

    Atom-separable C with ψ = 0: Mairal's block coordinate descent (``sweeps`` sweeps).
    A ridge ψ on a free dictionary: the closed form. A smooth ψ (SSODL): accelerated
    projected gradient on surrogate + ψ. Otherwise: accelerated proximal gradient on the
    surrogate (``prox_iter`` steps of 1/λ_max(A)).
    """
    part = problem.dictionary
    if getattr(part, "separable", False):
        D, _ = bcd_dictionary(D, A, B, lambda d: part.project_atoms(d[None])[0],
                              max_sweeps=sweeps, tol=tol)
        return D
    if hasattr(part, "surrogate_argmin"):
        return part.surrogate_argmin(A, B, problem.n_samples)
    smooth = hasattr(part, "smooth_gradient")  # smooth ψ: project onto C only
    step = 1.0 / (spectral_lipschitz(A) + (part.smooth_lipschitz() if smooth else 0.0))
    if smooth:
        return accelerated_prox_grad(D, lambda Y: A @ Y - B + part.smooth_gradient(Y),
                                     lambda V, _: part.project(V), step, prox_iter)[0]
    return accelerated_prox_grad(D, lambda Y: A @ Y - B, problem.prox_dictionary, step,
                                 prox_iter)[0]


@dataclass(frozen=True)
class SMMUpdate:
    """The SMM baseline's rule (Algorithm S-2 of Zhao, Haskell and Feng 2018): the sums
    A = Σ HᵀH and B = Σ Hᵀ(X − R) (a :class:`RunningAverage` with :class:`CumulativeSums`),
    then :func:`smm_dictionary` on their means.

    Parameters
    ----------
    problem : SMFProblem
    sweeps : int
        BCD sweeps per step where the dictionary's set is atom-separable.
    """

    problem: object
    sweeps: int = 1

    def init(self, components: np.ndarray) -> SurrogateState:
        k, f = components.shape
        return SurrogateState(RunningAverage.zeros(((k, k), (k, f)), CumulativeSums()))

    def update(self, state: SurrogateState, components, H, target):
        """One step on a batch's codes H (b, K) and its target X − R (b, F)."""
        stats = state.stats.add(H.T @ H, H.T @ target, n_rows=H.shape[0])
        A, B = stats.mean()
        D = smm_dictionary(self.problem, components, A, B, sweeps=self.sweeps)
        return D, SurrogateState(stats, state.n_steps + 1, stats.n)


@dataclass(frozen=True)
class VRSnapshot:
    """The state of one SVRG outer iteration (Algorithm 1, lines 3–5): the snapshot D0, its
    full gradient ∇g(D0) and mean loss, its Gram matrix and Lipschitz bound, the step η,
    optionally the snapshot codes of every sample (line 4's, kept for line 8), the
    per-sample solves of the last inner step, and, under the metric rule, the step's metric
    M (K, K) (``eta`` is then η/λ_max(Â), the step along the stiffest direction)."""

    D0: np.ndarray
    grad: np.ndarray
    gram0: np.ndarray
    lipschitz0: float
    eta: float
    codes: tuple | None = None
    loss: float = float("nan")
    last_solves: int = 0
    metric: np.ndarray | None = None


def snapshot_metric(terms: GradientTerms, step: float, damping: float) -> np.ndarray:
    """M = (Â + δ·λ_max(Â)·I)/η with Â = (1/n)Σhhᵀ the snapshot's code covariance: the
    curvature of the sampled loss in D with the codes held fixed, per pair of atoms, so that
    an atom used by few samples (small codes, small curvature) takes a long step and a
    heavily used one a short step. δ bounds the metric's condition number by 1 + 1/δ."""
    A = terms.hh / max(terms.count, 1)
    lam = spectral_lipschitz(A)
    return (A + damping * lam * np.eye(A.shape[0])) / step


def metric_step(problem, D, V, M, *, sweeps: int = 1) -> np.ndarray:
    """argmin_{D' ∈ C} ⟨V, D'⟩ + ½tr((D' − D)ᵀM(D' − D)) + ψ(D'): the proximal step along V
    in the metric M, solved as SMM's surrogate (:func:`smm_dictionary`, A = M and
    B = MD − V: block coordinate descent over the atoms for an atom-separable C, the
    closed form for a ridge ψ). With M = I/η it is the scalar step prox_{ηψ+δ_C}(D − ηV)
    up to the BCD's inexactness on a non-separable C."""
    return smm_dictionary(problem, D, M, M @ D - V, sweeps=sweeps)


@dataclass(frozen=True)
class SVRGUpdate:
    """Variance-reduced stochastic MF (Algorithm 1 of Zhao, Haskell and Feng 2018):
    ``init`` takes the snapshot (lines 3–5, one pass over X, map-reduce for a dask
    array); ``update`` is one inner step (lines 8–11) on a mini-batch.

    Two step rules. ``metric=False`` (the paper's line 11): D ← prox_{ηψ+δ_C}(D − ηV) with
    the constant η = ``step_scale``/L̂ (L̂ = λ_max of the snapshot's code covariance) under
    ``learning_rate="auto"``, else ``learning_rate``. ``metric=True``: the same proximal step
    in the metric of the snapshot's code covariance (``snapshot_metric``,
    ``metric_step``), with η = ``step_scale`` held over the outer iteration: one global
    step 1/L̂ under-steps every atom whose curvature is below the largest, which on the
    robust problems leaves the atoms beyond the data's rank at their start.

    Parameters
    ----------
    problem : SMFProblem
    chunk_size, max_iter, map_fn
        The full-gradient pass's chunks, code caps and map (:func:`full_gradient`).
    cache_codes : bool
        Keep line 4's codes for line 8 (O(n(K + F)) memory); they are then solved by
        ``solve(D0, Xc, tol, gram, lipschitz)`` (the estimator's solver).
    step_scale, learning_rate
        η as above.
    solver : callable
        The code solver (called as :func:`onlinemf.coders.solve_codes_bsum`).
    scale_tol : bool
        Scale the code tolerance by the sample's norm.
    metric : bool
        The metric rule.
    damping : float
        δ of ``snapshot_metric``.
    """

    problem: object
    chunk_size: int = 2048
    max_iter: int = 500
    map_fn: Callable = map
    cache_codes: bool = False
    solve: Callable | None = None
    step_scale: float = 1.0
    learning_rate: object = "auto"
    solver: Callable = solve_codes_bsum
    scale_tol: bool = False
    metric: bool = False
    damping: float = 0.0

    def init(self, components: np.ndarray, X, tol: float) -> VRSnapshot:
        """The snapshot at ``components`` over all rows of X, codes to ``tol``."""
        D0 = components
        gram0 = D0 @ D0.T
        lip0 = spectral_lipschitz(gram0)
        codes = None
        if self.cache_codes:  # keep line 4's codes for line 8 (O(n(K + F)) memory)
            terms, codes = self._cached_terms(D0, X, tol, gram0, lip0)
        else:
            terms = full_gradient(self.problem, D0, X, tol, chunk_size=self.chunk_size,
                                  max_iter=self.max_iter, map_fn=self.map_fn,
                                  solver=self.solver)
        if self.metric:
            M = snapshot_metric(terms, self.step_scale, self.damping)
            return VRSnapshot(D0, terms.mean_grad, gram0, lip0, 1.0 / spectral_lipschitz(M),
                              codes, terms.loss, metric=M)
        eta = (self.step_scale / terms.curvature if self.learning_rate == "auto"
               else float(self.learning_rate))
        return VRSnapshot(D0, terms.mean_grad, gram0, lip0, eta, codes, terms.loss)

    @staticmethod
    def rescaled(state: VRSnapshot, factor: float) -> VRSnapshot:
        """The snapshot with its step η multiplied by ``factor`` (the metric M = ·/η divided
        by it), everything else unchanged."""
        metric = None if state.metric is None else state.metric / factor
        return replace(state, eta=state.eta * factor, metric=metric)

    def _cached_terms(self, D0, X, tol, gram0, lip0):
        """The snapshot's :class:`GradientTerms` chunk by chunk with ``solve``, and the codes
        (H, R) of every row kept."""
        parts, Hs, Rs = [], [], []
        for Xc in iter_chunks(X, self.chunk_size):
            res = self.solve(D0, Xc, tol, gram0, lip0)
            parts.append(chunk_terms(self.problem, D0, Xc, 0.0, codes=(res.codes, res.outliers)))
            Hs.append(res.codes)
            Rs.append(res.outliers)
        terms = sum(parts[1:], parts[0])
        return terms, (np.vstack(Hs), None if Rs[0] is None else np.vstack(Rs))

    def update(self, state: VRSnapshot, components, Xb=None, rows=None, tol: float = 0.0):
        """Lines 8–11 on the mini-batch ``Xb`` (rows ``rows`` of X): the variance-reduced
        direction and the proximal step; without a batch, the step along the snapshot's full
        gradient (the first inner step, where lines 8 and 9 coincide and the correction
        cancels). The new state's ``last_solves`` are the per-sample solves spent."""
        if Xb is None:
            return self._step(state, components, state.grad), replace(state, last_solves=0)
        snap = None if state.codes is None else (
            state.codes[0][rows], None if state.codes[1] is None else state.codes[1][rows])
        V, solves = vr_direction(self.problem, components, state.D0, Xb, state.grad, tol,
                                 snapshot=snap, max_iter=self.max_iter,
                                 scale_tol=self.scale_tol, gram0=state.gram0,
                                 lipschitz0=state.lipschitz0, solver=self.solver)
        return self._step(state, components, V), replace(state, last_solves=solves)

    def _step(self, state: VRSnapshot, D, V) -> np.ndarray:
        """Line 11: the proximal step along V, scalar or in the snapshot's metric."""
        if state.metric is None:
            return self.problem.prox_dictionary(D - state.eta * V, state.eta)
        return metric_step(self.problem, D, V, state.metric)


@dataclass(frozen=True)
class ProxSGDState:
    """State of :class:`ProxSGDUpdate`: L̂₀ of the first mini-batch, the steps taken and the
    last step γ."""

    curvature: float
    n_steps: int = 0
    step_size: float = float("nan")


@dataclass(frozen=True)
class ProxSGDUpdate:
    """The SGD baseline's rule (Algorithm S-3 of Zhao, Haskell and Feng 2018): proximal steps
    with γ_t = β/(b·t + β′), β′ = n unless given and β = c·β′/L̂₀ unless given, L̂₀ =
    λ_max(HᵀH)/b of the first mini-batch's codes.

    Parameters
    ----------
    problem : SMFProblem
    n_samples : int
        n, the default β′.
    beta, beta_prime : float or None
    scale : float
        c.
    """

    problem: object
    n_samples: int = 1
    beta: float | None = None
    beta_prime: float | None = None
    scale: float = 1.0

    def init(self, components: np.ndarray, codes: np.ndarray, n_steps: int = 0) -> ProxSGDState:
        """L̂₀ from the first mini-batch's ``codes``; the step count starts at ``n_steps``."""
        return ProxSGDState(spectral_lipschitz(codes.T @ codes / codes.shape[0]), n_steps)

    def update(self, state: ProxSGDState, components, grad, batch: int):
        """One proximal step along ``grad`` (the mean gradient of a batch of ``batch``
        rows)."""
        bp = self.beta_prime or float(self.n_samples)
        gamma = (self.beta or self.scale * bp / state.curvature) / (batch * state.n_steps + bp)
        D = self.problem.prox_dictionary(components - gamma * grad, gamma)
        return D, ProxSGDState(state.curvature, state.n_steps + 1, gamma)
