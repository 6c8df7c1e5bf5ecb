"""Codes and outliers: min_{h ≥ 0, r ∈ R} ½‖x − hD − r‖² + λ‖r‖₁ (+ regularizers), batched.

Zhao and Tan (2016), "Online Nonnegative Matrix Factorization with Outliers"
(arXiv:1604.02634), problem (9) and Sections IV-A1 and IV-B1. R is the box |r| ≤ M (or, with
``nonneg_outliers``, 0 ≤ r ≤ M). Optional regularizers on h: λ₃‖h‖₁ and (λ₄/2)‖h‖².

Solvers, each vectorized over the rows of a mini-batch:

* ``"pgd"`` — alternating block MM, eqs. (15)–(17): a projected gradient step in h with
  η = κ/‖D‖₂², then the exact r-step r = clip(S_λ(x − hD), −M, M).
* ``"fista"`` — the same problem with r eliminated in closed form: h minimizes the Huber-type
  objective Σ ψ_{λ,M}(x − hD), whose gradient is −(u − r*(u))Dᵀ, by accelerated projected
  gradient with adaptive restart. It converges where the paper's PGD, capped at 50
  iterations, does not: with a learned nonnegative dictionary the h-problem is badly
  conditioned.
* ``"admm"`` — eqs. (23)–(30) with penalty ρ; (DDᵀ + ρI) is factored once per call; the
  feasible copies (u, q) are returned.

Stopping (Zhao and Tan 2016, Section VII-B2): the relative change of the batch objective
below ``tol`` (1e-3) or ``max_iter`` (50) iterations.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve

from .._steps import nesterov_momentum, safe_cho_factor, spectral_norm_sq
from ..constraints import group_shrink, outlier_step, soft_threshold
from ._result import CodeResult

__all__ = ["OUTLIER_SOLVERS", "outlier_loss", "solve_codes_outliers"]

OUTLIER_SOLVERS = ("pgd", "fista", "admm")
_TINY = 1e-300


def outlier_loss(X, H, D, R, lam, h_l1=0.0, h_l2=0.0, h_group=0.0, group_size=1
                 ) -> np.ndarray:
    """Per-sample ℓ̃ = ½‖x − hD − r‖² + λ‖r‖₁ + λ₃‖h‖₁ + (λ₄/2)‖h‖² + λ₅ Σ_α √ξ_α‖h_α‖,
    eq. (6) with the code regularizers of Section VI-B (λ₃ with λ₅ is the sparse group
    lasso)."""
    E = X - H @ D - R
    f = 0.5 * np.einsum("ij,ij->i", E, E) + lam * np.add.reduce(np.abs(R), axis=1)
    if h_l1:
        f = f + h_l1 * H.sum(axis=1)
    if h_l2:
        f = f + 0.5 * h_l2 * np.einsum("ij,ij->i", H, H)
    if h_group:
        for start in range(0, H.shape[1], group_size):
            block = H[:, start:start + group_size]
            f = f + h_group * np.sqrt(block.shape[1]) * np.linalg.norm(block, axis=1)
    return f


def solve_codes_outliers(
    components: np.ndarray,
    X: np.ndarray,
    lam: float,
    bound: float = 1.0,
    *,
    solver: str = "admm",
    init: np.ndarray | None = None,
    max_iter: int = 50,
    tol: float = 1e-3,
    kappa: float = 0.7,
    rho: float = 1.0,
    h_l1: float = 0.0,
    h_l2: float = 0.0,
    nonneg_outliers: bool = False,
    stopping: str = "batch",
    h_group: float = 0.0,
    group_size: int = 1,
) -> CodeResult:
    """Solve problem (9) for every row of ``X`` with the dictionary ``components`` (K, F).

    Parameters
    ----------
    components : ndarray (n_components, n_features)
    X : ndarray (n_samples, n_features)
    lam : float
        λ, the weight of ‖r‖₁.
    bound : float
        M, the box on the outliers (``np.inf`` for none).
    solver : {"pgd", "fista", "admm"}
    init : ndarray (n_samples, n_components) or None
        Start h⁰ (default 0, a better start for PGD than the paper's U[0, 1] of Section
        VII-B1); r⁰ = 0.
    max_iter, tol : int, float
        Iteration cap and relative-change tolerance of the batch objective.
    kappa : float
        κ ∈ (0, 1], the PGD step η = κ/‖D‖₂².
    rho : float
        ADMM penalty ρ₁ = ρ₂.
    h_l1, h_l2 : float
        λ₃ and λ₄ of the code regularizers.
    h_group, group_size : float, int
        λ₅ of the group lasso over contiguous groups of ``group_size`` codes (with ``h_l1``,
        the sparse group lasso); its prox follows each projected step (PGD, FISTA) or forms
        ADMM's u-step.
    nonneg_outliers : bool
        Use R′ = [0, M]^F.
    stopping : {"batch", "sample"}
        Apply the relative-change rule of Section VII-B2 to the batch's summed objective (the
        mini-batch as one problem), or to each sample's own objective, freezing each sample
        once it has converged; then each row's result does not depend on the other rows of
        the batch.

    Returns
    -------
    CodeResult
        Codes (n, K), outliers (n, F), the iterations each sample ran (the batch's count for
        every sample with ``stopping="batch"``) and whether it met the stopping rule before
        ``max_iter``; no objective.
    """
    if solver not in OUTLIER_SOLVERS:
        raise ValueError(f"unknown solver {solver!r}; choose one of {OUTLIER_SOLVERS}")
    if stopping not in ("batch", "sample"):
        raise ValueError(f"stopping must be 'batch' or 'sample', got {stopping!r}")
    b = _Batch(components, X, lam, bound, nonneg_outliers, h_l1, h_l2, h_group, group_size,
               tol, per_sample=stopping == "sample")
    n, k = X.shape[0], components.shape[0]
    H = np.zeros((n, k), dtype=X.dtype) if init is None else np.maximum(init, 0).astype(X.dtype)
    R = outlier_step(X - H @ components, lam, bound, nonneg_outliers)
    prev = b.objective(H, R)
    if n == 0:
        return b.result(H, R)
    if solver in ("pgd", "fista"):
        return _proximal_gradient(b, H, R, prev, solver == "fista", kappa, max_iter)
    return _admm(b, H, R, prev, rho, max_iter)


class _Batch:
    """Problem (9) of a batch with its stopping rule: the data and weights, the rows still
    running (``active``) and each row's iteration count."""

    def __init__(self, D, X, lam, bound, nonneg, h_l1, h_l2, h_group, group_size, tol,
                 per_sample):
        self.D, self.X, self.lam, self.bound, self.nonneg = D, X, lam, bound, nonneg
        self.h_l1, self.h_l2, self.h_group, self.group_size = h_l1, h_l2, h_group, group_size
        self.tol, self.per_sample = tol, per_sample
        self.active = np.ones(X.shape[0], dtype=bool)
        self.n_iter = np.zeros(X.shape[0], dtype=np.int64)

    def objective(self, H_, R_):
        f = outlier_loss(self.X, H_, self.D, R_, self.lam, self.h_l1, self.h_l2, self.h_group,
                         self.group_size)
        return f if self.per_sample else float(f.sum())

    def finished(self, prev_, cur_):
        """Apply the stopping rule; in per-sample mode, freeze the rows that have settled.
        Counts the iteration of every sample that was running."""
        active = self.active
        self.n_iter[active] += 1
        done = np.abs(prev_ - cur_) <= self.tol * (np.abs(prev_) + _TINY)
        if self.per_sample:
            np.logical_and(active, ~done, out=active)
            return not active.any()
        if done:
            active[:] = False
        return bool(done)

    def result(self, H_, R_):
        return CodeResult(H_, self.n_iter, ~self.active, outliers=R_)


def _proximal_gradient(b, H, R, prev, fista, kappa, max_iter):
    """The alternating block MM of eqs. (15)–(17) ("pgd": step κ/L in h, then the exact r),
    or accelerated projected gradient on the h-problem with r minimized out ("fista",
    adaptive restart)."""
    X, D, lam, bound, nonneg_outliers = b.X, b.D, b.lam, b.bound, b.nonneg
    h_l1, h_l2, h_group, group_size = b.h_l1, b.h_l2, b.h_group, b.group_size
    per_sample, active, n = b.per_sample, b.active, X.shape[0]
    L = spectral_norm_sq(D) + h_l2
    eta = (1.0 if fista else kappa) / max(L, _TINY)
    G = D @ D.T
    B = X @ D.T
    Hprev, t = H.copy(), np.ones(n) if per_sample else 1.0
    for _ in range(max_iter):
        if not fista:
            Z = H
        else:
            t_next, w = nesterov_momentum(t)
            Z = H + np.reshape(w, (-1, 1) if per_sample else ()) * (H - Hprev)
        # ∇_h ½‖x − hD − r‖² = hDDᵀ − (x − r)Dᵀ, with r* of the point for "fista"
        Rz = R if not fista else outlier_step(X - Z @ D, lam, bound, nonneg_outliers)
        grad = Z @ G - B + Rz @ D.T + h_l2 * Z + h_l1
        Hn = group_shrink(Z - eta * grad, group_size, eta * h_group)
        Rn = outlier_step(X - Hn @ D, lam, bound, nonneg_outliers)
        cur = b.objective(Hn, Rn)
        if fista:
            up = cur > prev  # adaptive restart: a plain step from H instead
            if np.any(up):
                rows = up if per_sample else slice(None)
                grad = H[rows] @ G - B[rows] + R[rows] @ D.T + h_l2 * H[rows] + h_l1
                Hn[rows] = group_shrink(H[rows] - eta * grad, group_size, eta * h_group)
                Rn[rows] = outlier_step(X[rows] - Hn[rows] @ D, lam, bound, nonneg_outliers)
                cur = b.objective(Hn, Rn)
                t_next = np.where(up, 1.0, t_next)
            Hprev, t = H, t_next
        if per_sample:
            Hn[~active], Rn[~active], cur[~active] = H[~active], R[~active], prev[~active]
            if fista:
                t = np.where(active, t, 1.0)
        H, R = Hn, Rn
        stop = b.finished(prev, cur)
        prev = cur
        if stop:
            break
    return b.result(H, R)


def _admm(b, H, R, prev, rho, max_iter):
    """ADMM, eqs. (25)–(30), rows as samples: h is a row vector, (DDᵀ + ρI) symmetric; the
    feasible copies (u, q) are returned."""
    X, D, lam, bound, nonneg_outliers = b.X, b.D, b.lam, b.bound, b.nonneg
    h_l1, h_l2, h_group, group_size = b.h_l1, b.h_l2, b.h_group, b.group_size
    per_sample, active, k = b.per_sample, b.active, D.shape[0]
    # (DDᵀ + ρI)⁻¹ once per call: K is small and ρ > 0 bounds its condition number by
    # (‖D‖₂² + ρ)/ρ, so one K×K inverse applied by a matrix product replaces a triangular
    # solve per iteration, which is costly at mini-batch sizes
    inv = cho_solve(safe_cho_factor(D @ D.T + (rho + h_l2) * np.eye(k)), np.eye(k)).astype(X.dtype)
    XD = X @ D.T - h_l1
    U, Q = H.copy(), R.copy()
    Lh = np.zeros_like(H)
    Lr = np.zeros_like(R)
    for _ in range(max_iter):
        Hn = (XD - R @ D.T + rho * U - Lh) @ inv
        Rn = soft_threshold(rho * Q + X - Hn @ D - Lr, lam) / (1.0 + rho)
        Un = group_shrink(Hn + Lh / rho, group_size, h_group / rho)
        Qn = np.minimum(np.maximum(Rn + Lr / rho, 0.0 if nonneg_outliers else -bound),
                        bound)  # the clip to R
        cur = b.objective(Un, Qn)
        if per_sample:  # frozen rows keep their state
            keep = active[:, None]
            Hn, Rn = np.where(keep, Hn, H), np.where(keep, Rn, R)
            Un, Qn = np.where(keep, Un, U), np.where(keep, Qn, Q)
            cur = np.where(active, cur, prev)
        Lh += rho * (Hn - Un)
        Lr += rho * (Rn - Qn)
        H, R, U, Q = Hn, Rn, Un, Qn
        stop = b.finished(prev, cur)
        prev = cur
        if stop:
            break
    return b.result(U, Q)
