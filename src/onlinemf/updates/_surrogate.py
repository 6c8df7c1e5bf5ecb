"""Surrogate minimization from sufficient statistics (Zhao and Tan 2016, "Online Nonnegative
Matrix Factorization with Outliers", arXiv:1604.02634; Lyu, Needell and Balzano 2020, "Online
Matrix Factorization for Markovian Data and Applications to Network Dictionary Learning",
arXiv:1911.01931): the dictionary solves (PGD, accelerated PGD, ADMM, block coordinate descent
over the atoms) and the two rules built on them, each an immutable state of running averages
(:class:`~onlinemf.updates.RunningAverage`) plus a pure step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._steps import nesterov_momentum, safe_cho_factor, spectral_lipschitz
from ._running import PowerWeights, RunningAverage, SampleMean, SurrogateState

__all__ = ["DICT_SOLVERS", "solve_surrogate_dictionary", "bcd_dictionary", "BCD_BLOCK_BYTES",
           "BCD_GROUP", "batch_terms", "OutlierSurrogateUpdate", "OMFSurrogateUpdate"]


DICT_SOLVERS = ("pgd", "apgd", "admm")


def solve_surrogate_dictionary(D0, A, B, project, *, solver="admm", max_iter=200, tol=1e-4,
                               kappa=0.7, rho=1.0, w_l1=0.0, w_l2=0.0):
    """min_{D ∈ C} ½⟨DDᵀ, A⟩ − ⟨D, B⟩ (+ w_l1‖D‖₁ + (w_l2/2)‖D‖²), warm-started at D0, for
    the statistics A (K, K) and B (K, F) of a running average.

    ``"pgd"``: eq. (21) with η̃ = κ/‖A‖_F; ``"apgd"``: its accelerated form (step 1/‖A‖₂, with
    adaptive restart); ``"admm"``: eqs. (33)–(35) with penalty ρ, returning the feasible copy.
    Stops when |Δp|/|p| < tol (Zhao and Tan 2016, Section VII-B2; p without the constant c,
    whose size would stop the rule after about one iteration) or after max_iter.

    Returns
    -------
    (D, n_iter)
    """
    if solver not in DICT_SOLVERS:
        raise ValueError(f"unknown dictionary solver {solver!r}; choose one of {DICT_SOLVERS}")
    k = A.shape[0]
    A = A + w_l2 * np.eye(k)
    B = B - w_l1  # D ≥ 0 on every set used here, so ‖D‖₁ = ⟨1, D⟩

    def p(D):
        return 0.5 * float(np.sum((D @ D.T) * A)) - float(np.sum(D * B))

    D = D0.copy()
    prev = p(D)
    it = 0
    if solver == "admm":
        from scipy.linalg import cho_solve

        chol = safe_cho_factor(A + rho * np.eye(k))
        Q, Lam = D.copy(), np.zeros_like(D)
        for it in range(1, max_iter + 1):
            D = cho_solve(chol, B - Lam + rho * Q)
            Q = project(D + Lam / rho)
            Lam += rho * (D - Q)
            cur = p(Q)
            if abs(prev - cur) <= tol * (abs(prev) + 1e-300):
                break
            prev = cur
        return Q, it
    if solver == "pgd":
        eta = kappa / max(float(np.linalg.norm(A)), 1e-300)
    else:
        eta = 1.0 / spectral_lipschitz(A, floor=1e-300)
    Dprev, t = D.copy(), 1.0
    for it in range(1, max_iter + 1):
        if solver == "pgd":
            Dn = project(D - eta * (A @ D - B))
        else:
            t_next, w = nesterov_momentum(t)
            Z = D + w * (D - Dprev)
            Dn = project(Z - eta * (A @ Z - B))
            if p(Dn) > prev:
                Dn, t_next = project(D - eta * (A @ D - B)), 1.0
            Dprev, t = D, t_next
        D = Dn
        cur = p(D)
        if abs(prev - cur) <= tol * (abs(prev) + 1e-300):
            break
        prev = cur
    return D, it


#: bytes of the dictionary's column block that a separable BCD sweep keeps in cache while it
#: updates every atom there (see :func:`bcd_dictionary`)
BCD_BLOCK_BYTES = 1 << 22
#: atoms whose products with a column block one matrix product computes in such a sweep
BCD_GROUP = 32


def bcd_dictionary(D0, A, B, project, *, max_sweeps=10, tol=1e-6, separable=False):
    """Block coordinate descent over the atoms for min_{D ∈ C} tr(DᵀAD)·½ − tr(DᵀB) (Mairal et
    al. 2010, Alg. 2; the dictionary step of Lyu, Needell and Balzano 2020, Algorithm 3, read
    as a loop over the atoms with the current D): atom j ← Π_j(d_j + (b_j − a_jᵀD)/a_jj),
    Gauss–Seidel, atoms with a_jj = 0 left as they are. Each atom step is exact, so the
    objective never rises.

    Parameters
    ----------
    D0 : ndarray (K, F), the warm start.
    A : ndarray (K, K); B : ndarray (K, F).
    project : callable applied to one atom (row) at a time.
    max_sweeps, tol : int, float
        A sweep updates every atom once; the sweeps stop when one changes D by at most
        ``tol`` relative.
    separable : bool, default=False
        Whether ``project`` acts entry by entry (a clip). Then each feature's column of D
        is updated by its own Gauss–Seidel sweep, independent of the other columns, and a
        sweep runs over column blocks of ``BCD_BLOCK_BYTES`` that stay in cache while all K
        atoms update them, the atoms' products taken ``BCD_GROUP`` at a time as matrix
        products: the same sweep (equal up to rounding), with D read from memory once a
        sweep instead of once an atom and the K²F work at matrix-product speed.

    Returns
    -------
    (D, sweeps)
    """
    D = D0.copy()
    sweeps = 0
    k = D.shape[0]
    diag = np.diagonal(A)
    inv = np.divide(1.0, diag, out=np.zeros(diag.shape), where=diag > 0)
    if separable:
        return _bcd_by_blocks(D, A, B, project, diag, inv, max_sweeps, tol)
    for sweeps in range(1, max_sweeps + 1):
        old = D.copy()
        for j in range(k):  # the atoms: a BCD sweep is sequential by definition
            if diag[j] <= 0:
                continue
            r = A[j] @ D  # in place from here: one temporary per atom instead of four
            np.subtract(B[j], r, out=r)
            r *= inv[j]
            r += D[j]
            D[j] = project(r)
        if np.linalg.norm(D - old) <= tol * max(np.linalg.norm(old), 1e-300):
            break
    return D, sweeps


def _bcd_by_blocks(D, A, B, project, diag, inv, max_sweeps, tol):
    """:func:`bcd_dictionary`'s sweeps for an entrywise ``project``, in place on D: over
    column blocks of ``BCD_BLOCK_BYTES`` and, within a block, over groups of
    ``BCD_GROUP`` atoms whose products with the block, a_jᵀD, are one matrix product taken
    before the group's updates; atom j's product then adds the group's earlier atoms' changes,
    a_j[G<j]ᵀ ΔD[G<j], so the sweep is the same Gauss–Seidel sweep. The stopping test's norms
    are summed as the atoms change, without a copy of D."""
    k, f = D.shape
    width = max(1, BCD_BLOCK_BYTES // (D.itemsize * max(k, 1)))
    sweeps = 0
    for sweeps in range(1, max_sweeps + 1):
        moved = size = 0.0
        for c0 in range(0, f, width):
            Dc, Bc = D[:, c0:c0 + width], B[:, c0:c0 + width]  # views: updates land in D
            for g0 in range(0, k, BCD_GROUP):
                g1 = min(g0 + BCD_GROUP, k)
                R = A[g0:g1] @ Dc  # the group's products before its updates
                delta = np.zeros((g1 - g0, Dc.shape[1]), dtype=D.dtype)
                for j in range(g0, g1):
                    i = j - g0
                    old = Dc[j]
                    size += float(np.dot(old, old))
                    if diag[j] <= 0:
                        continue
                    r = R[i]
                    if i:
                        r += A[j, g0:j] @ delta[:i]
                    np.subtract(Bc[j], r, out=r)
                    r *= inv[j]
                    r += old
                    new = project(r)
                    np.subtract(new, old, out=delta[i])
                    moved += float(np.dot(delta[i], delta[i]))
                    Dc[j] = new
        if np.sqrt(moved) <= tol * max(np.sqrt(size), 1e-300):
            break
    return D, sweeps


def batch_terms(H: np.ndarray, X, lam: float) -> tuple:
    """(HᵀH, HᵀX, ‖X‖² + λ‖H‖₁) of a batch X (dense, or CSR rows with ``transpose_times``)
    with nonnegative codes H: the sums that the squared loss's surrogate averages."""
    if hasattr(X, "transpose_times"):  # CSR rows: HᵀX and ‖X‖² from the nonzeros
        HtX, sq = X.transpose_times(X.data, H), float(X.squared_norms().sum())
    else:
        Xf = X.astype(float, copy=False)
        HtX, sq = H.T @ X, float(np.vdot(Xf, Xf))
    return H.T @ H, HtX, sq + lam * float(H.sum())


@dataclass(frozen=True)
class OutlierSurrogateUpdate:
    """Online NMF with outliers (Zhao and Tan 2016, Algorithm 1): the sample means
    A = mean of h hᵀ (K×K), B = mean of h (v − r)ᵀ (K×F) and c = mean of ½‖v − r‖² + λ‖r‖₁,
    so that the surrogate f̃_t(D) = ½⟨DDᵀ, A⟩ − ⟨D, B⟩ + c exactly, then D minimizing it over
    C by PGD, accelerated PGD or ADMM (:func:`solve_surrogate_dictionary`).

    Sample means rather than sums (a mini-batch convention the paper leaves open): they reduce
    to Algorithm 1 at τ = 1 and keep the ADMM penalty's effect independent of τ.

    Parameters
    ----------
    project : callable
        Π_C on the whole dictionary.
    lam : float
        λ, the outliers' ℓ1 weight (in the constant c).
    solver, max_iter, tol, kappa, rho, w_l1, w_l2
        The dictionary solve's settings (:func:`solve_surrogate_dictionary`).
    """

    project: Callable
    lam: float = 0.0
    solver: str = "admm"
    max_iter: int = 200
    tol: float = 1e-4
    kappa: float = 0.7
    rho: float = 1.0
    w_l1: float = 0.0
    w_l2: float = 0.0

    def init(self, components: np.ndarray) -> SurrogateState:
        k, f = components.shape
        return SurrogateState(RunningAverage.zeros(((k, k), (k, f), ()), SampleMean(),
                                                   components.dtype))

    def accumulate(self, stats: RunningAverage, X, H, R) -> RunningAverage:
        """The statistics after the batch X (b, F) with its codes H and outliers R."""
        E = X - R
        c_batch = 0.5 * float(np.einsum("ij,ij->", E, E)) + self.lam * float(np.abs(R).sum())
        return stats.add(H.T @ H, H.T @ E, c_batch, n_rows=X.shape[0])

    def update(self, state: SurrogateState, components, X, H, R):
        """One step on the scaled batch X (b, F) with its codes H and outliers R."""
        stats = self.accumulate(state.stats, X, H, R)
        A, B, _ = stats.sums
        D, its = solve_surrogate_dictionary(
            components, A, B, self.project, solver=self.solver, max_iter=self.max_iter,
            tol=self.tol, kappa=self.kappa, rho=self.rho, w_l1=self.w_l1, w_l2=self.w_l2)
        return (D.astype(components.dtype, copy=False),
                SurrogateState(stats, state.n_steps + 1, stats.n, last_iterations=its))

    def surrogate(self, stats: RunningAverage, D) -> float:
        """f̃_t(D) from the statistics (with the dictionary regularizers of Zhao and Tan 2016,
        Section VI-B, added once, outside the average)."""
        A, B, c = stats.sums
        val = 0.5 * float(np.sum((D @ D.T) * A)) - float(np.sum(D * B)) + c
        return val + self.w_l1 * float(np.abs(D).sum()) + 0.5 * self.w_l2 * float(np.sum(D * D))


@dataclass(frozen=True)
class OMFSurrogateUpdate:
    """Online matrix factorization's step (Mairal et al. 2010; Lyu, Needell and Balzano 2020,
    Algorithm 1): A = (1 − w)A + w HᵀH/b, B = (1 − w)B + w HᵀX/b and the surrogate's constant
    c = (1 − w)c + w(‖X‖² + λ‖H‖₁)/b with w_t = t^(−β) (β = 1: running means, the case the
    theory covers), then block coordinate descent over the atoms on A + κ₁I and B.

    Parameters
    ----------
    project_atom : callable
        Π onto one atom's set.
    alpha : float
        λ, the codes' ℓ1 weight (in c).
    beta : float
        β of the weights.
    dict_l2 : float
        κ₁, a ridge on the dictionary step.
    max_sweeps, tol
        The BCD's settings (:func:`bcd_dictionary`).
    """

    project_atom: Callable
    alpha: float = 1.0
    beta: float = 1.0
    dict_l2: float = 0.0
    max_sweeps: int = 10
    tol: float = 1e-6

    def init(self, components: np.ndarray) -> SurrogateState:
        k, f = components.shape
        return SurrogateState(RunningAverage.zeros(((k, k), (k, f), ()), PowerWeights(self.beta)))

    def update(self, state: SurrogateState, components, H, X):
        """One step on the batch X (b, F) with its codes H."""
        stats = state.stats.add(*batch_terms(H, X, self.alpha), n_rows=X.shape[0])
        A, B, _ = stats.sums
        A = A + self.dict_l2 * np.eye(A.shape[0])
        D, _ = bcd_dictionary(components.astype(float), A, B, self.project_atom,
                              max_sweeps=self.max_sweeps, tol=self.tol)
        return (D.astype(components.dtype),
                SurrogateState(stats, state.n_steps + 1, state.n_samples_seen + X.shape[0]))
