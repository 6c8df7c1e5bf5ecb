"""Surrogate minimization from sufficient statistics (Zhao and Tan 2016, "Online Nonnegative
Matrix Factorization with Outliers", arXiv:1604.02634; Lyu, Needell and Balzano 2020, "Online
Matrix Factorization for Markovian Data and Applications to Network Dictionary Learning",
arXiv:1911.01931): the statistics as an immutable value, and the dictionary solves (PGD,
accelerated PGD, ADMM, block coordinate descent over the atoms)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._steps import nesterov_momentum, safe_cho_factor, spectral_lipschitz

__all__ = ["WeightedStats", "SurrogateStats", "DICT_SOLVERS", "solve_surrogate_dictionary",
           "bcd_dictionary"]


@dataclass
class SurrogateStats:
    """Sufficient statistics of the surrogate f̃_t (Zhao and Tan 2016, eqs. (11)–(12)).

    In scikit-learn orientation: A = mean of h hᵀ (K×K), B = mean of h (v − r)ᵀ (K×F) and
    c = mean of ½‖v − r‖² + λ‖r‖₁, so that f̃_t(D) = ½⟨DDᵀ, A⟩ − ⟨D, B⟩ + c exactly. They are
    sample averages (a mini-batch convention the paper leaves open: it reduces to Algorithm 1
    at τ = 1 and keeps the ADMM penalty's effect independent of τ).
    """

    A: np.ndarray
    B: np.ndarray
    c: float = 0.0
    n: int = 0

    @classmethod
    def zeros(cls, n_components: int, n_features: int, dtype=float) -> SurrogateStats:
        return cls(np.zeros((n_components, n_components), dtype),
                   np.zeros((n_components, n_features), dtype))

    def add(self, X, H, R, lam: float) -> SurrogateStats:
        """Statistics after a batch of samples X with codes H and outliers R (new object)."""
        b = X.shape[0]
        m = self.n + b
        E = X - R
        c_batch = 0.5 * float(np.einsum("ij,ij->", E, E)) + lam * float(np.abs(R).sum())
        return SurrogateStats((self.n * self.A + H.T @ H) / m, (self.n * self.B + H.T @ E) / m,
                              (self.n * self.c + c_batch) / m, m)

    def surrogate(self, D, w_l1: float = 0.0, w_l2: float = 0.0) -> float:
        """f̃_t(D) (with the dictionary regularizers of Zhao and Tan 2016, Section VI-B, added
        once, outside the average)."""
        val = 0.5 * float(np.sum((D @ D.T) * self.A)) - float(np.sum(D * self.B)) + self.c
        return val + w_l1 * float(np.abs(D).sum()) + 0.5 * w_l2 * float(np.sum(D * D))


DICT_SOLVERS = ("pgd", "apgd", "admm")


def solve_surrogate_dictionary(D0, stats: SurrogateStats, project, *, solver="admm",
                               max_iter=200, tol=1e-4, kappa=0.7, rho=1.0, w_l1=0.0,
                               w_l2=0.0):
    """min_{D ∈ C} ½⟨DDᵀ, A⟩ − ⟨D, B⟩ (+ w_l1‖D‖₁ + (w_l2/2)‖D‖²), warm-started at D0.

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
    k = stats.A.shape[0]
    A = stats.A + w_l2 * np.eye(k)
    B = stats.B - w_l1  # D ≥ 0 on every set used here, so ‖D‖₁ = ⟨1, D⟩

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


def bcd_dictionary(D0, A, B, project, *, max_sweeps=10, tol=1e-6):
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

    Returns
    -------
    (D, sweeps)
    """
    D = D0.copy()
    sweeps = 0
    diag = np.diagonal(A)
    inv = np.divide(1.0, diag, out=np.zeros(diag.shape), where=diag > 0)
    for sweeps in range(1, max_sweeps + 1):
        old = D.copy()
        for j in range(D.shape[0]):  # the atoms: a BCD sweep is sequential by definition
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


@dataclass(frozen=True)
class WeightedStats:
    """Online matrix factorization's statistics with weights w_t = t^(−β) (β = 1 gives the
    1/t running means of Lyu, Needell and Balzano 2020, the case their theory covers):
    A = (1 − w)A + w HᵀH/b, B = (1 − w)B + w HᵀX/b and the constant c of the surrogate,
    c = (1 − w)c + w(‖X‖² + λ‖H‖₁)/b. With β = 1 they are running means over the stream.
    :meth:`add` returns the next state; the dictionary step is :func:`bcd_dictionary`."""

    A: np.ndarray
    B: np.ndarray
    c: float = 0.0
    t: int = 0

    @classmethod
    def zeros(cls, n_components: int, n_features: int) -> WeightedStats:
        return cls(np.zeros((n_components, n_components)), np.zeros((n_components, n_features)))

    def add(self, H: np.ndarray, X, lam: float, beta: float,
            weight: float | None = None) -> WeightedStats:
        """The statistics after a batch X (dense, or CSR rows with ``transpose_times``), with
        the weight t^(−β), or ``weight`` if given."""
        t = self.t + 1
        w = t ** (-beta) if weight is None else weight
        b = X.shape[0]
        if hasattr(X, "transpose_times"):  # CSR rows: HᵀX and ‖X‖² from the nonzeros
            HtX, sq = X.transpose_times(X.data, H), float(X.squared_norms().sum())
        else:
            Xf = X.astype(float, copy=False)
            HtX, sq = H.T @ X, float(np.vdot(Xf, Xf))
        c = sq + lam * float(H.sum())
        return WeightedStats((1 - w) * self.A + w * (H.T @ H) / b,
                             (1 - w) * self.B + w * HtX / b,
                             (1 - w) * self.c + w * c / b, t)
