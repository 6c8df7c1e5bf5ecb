"""Codes and outliers: min_{h ≥ 0, r ∈ R} ½‖x − hD − r‖² + λ‖r‖₁ (+ regularizers), batched.

Zhao and Tan, "Online NMF with outliers" (spec 001 §1.1, §3.2–3.4). R is the box |r| ≤ M
(or, with ``nonneg_outliers``, 0 ≤ r ≤ M). Optional regularizers on h: λ₃‖h‖₁ and (λ₄/2)‖h‖².

Solvers, each vectorized over the rows of a mini-batch:

* ``"pgd"`` — alternating block MM, eqs. (15)–(17): a projected gradient step in h with
  η = κ/‖D‖₂², then the exact r-step r = clip(S_λ(x − hD), −M, M).
* ``"fista"`` — the same problem with r eliminated in closed form: h minimizes the Huber-type
  objective Σ ψ_{λ,M}(x − hD) (spec §1.4), whose gradient is −(u − r*(u))Dᵀ, by accelerated
  projected gradient with adaptive restart. It converges where the paper's PGD, capped at 50
  iterations, does not (spec §7).
* ``"admm"`` — eqs. (23)–(30) with penalty ρ; (DDᵀ + ρI) is factored once per call; the
  feasible copies (u, q) are returned.

Stopping (spec §3.7): the relative change of the batch objective below ``tol`` (1e-3) or
``max_iter`` (50) iterations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from ._divergence import spectral_norm_sq

__all__ = ["OUTLIER_SOLVERS", "OutlierCodeResult", "outlier_loss", "outlier_step",
           "soft_threshold", "solve_codes_outliers"]

OUTLIER_SOLVERS = ("pgd", "fista", "admm")
_TINY = 1e-300


def soft_threshold(X: np.ndarray, lam: float) -> np.ndarray:
    """S_λ(x) = sgn(x)·max(|x| − λ, 0), elementwise."""
    return np.sign(X) * np.maximum(np.abs(X) - lam, 0.0)


def outlier_step(U: np.ndarray, lam: float, bound: float, nonneg: bool = False) -> np.ndarray:
    """argmin_{r ∈ R} ½‖u − r‖² + λ‖r‖₁: clip(S_λ(u), −M, M) (Lemma S-3), or clip(u − λ, 0, M)
    for nonnegative outliers (spec §2.2). The clip comes after the threshold."""
    if nonneg:
        return np.clip(U - lam, 0.0, bound)
    return np.clip(soft_threshold(U, lam), -bound, bound)


def outlier_loss(X, H, D, R, lam, h_l1=0.0, h_l2=0.0) -> np.ndarray:
    """Per-sample ℓ̃ = ½‖x − hD − r‖² + λ‖r‖₁ + λ₃‖h‖₁ + (λ₄/2)‖h‖², eq. (6) with §2.3."""
    E = X - H @ D - R
    f = 0.5 * np.einsum("ij,ij->i", E, E) + lam * np.abs(R).sum(axis=1)
    if h_l1:
        f = f + h_l1 * H.sum(axis=1)
    if h_l2:
        f = f + 0.5 * h_l2 * np.einsum("ij,ij->i", H, H)
    return f


@dataclass
class OutlierCodeResult:
    """Codes (n, K), outliers (n, F), and the iterations run."""

    codes: np.ndarray
    outliers: np.ndarray
    n_iter: int


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
) -> OutlierCodeResult:
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
        Start h⁰ (default 0, better than the paper's U[0, 1] for PGD, spec §3.6); r⁰ = 0.
    max_iter, tol : int, float
        Iteration cap and relative-change tolerance of the batch objective.
    kappa : float
        κ ∈ (0, 1], the PGD step η = κ/‖D‖₂².
    rho : float
        ADMM penalty ρ₁ = ρ₂.
    h_l1, h_l2 : float
        λ₃ and λ₄ of the code regularizers.
    nonneg_outliers : bool
        Use R′ = [0, M]^F.
    """
    if solver not in OUTLIER_SOLVERS:
        raise ValueError(f"unknown solver {solver!r}; choose one of {OUTLIER_SOLVERS}")
    D = components
    n, k = X.shape[0], D.shape[0]
    H = np.zeros((n, k), dtype=X.dtype) if init is None else np.maximum(init, 0).astype(X.dtype)
    R = outlier_step(X - H @ D, lam, bound, nonneg_outliers)
    prev = float(outlier_loss(X, H, D, R, lam, h_l1, h_l2).sum())
    if n == 0:
        return OutlierCodeResult(H, R, 0)
    it = 0
    if solver in ("pgd", "fista"):
        L = spectral_norm_sq(D) + h_l2
        eta = (kappa if solver == "pgd" else 1.0) / max(L, _TINY)
        G = D @ D.T
        B = X @ D.T
        Hprev, t = H.copy(), 1.0
        for it in range(1, max_iter + 1):
            if solver == "pgd":
                Z = H
            else:
                t_next = 0.5 * (1 + np.sqrt(1 + 4 * t * t))
                Z = H + ((t - 1) / t_next) * (H - Hprev)
            # ∇_h ½‖x − hD − r‖² = hDDᵀ − (x − r)Dᵀ, with r* of the point for "fista"
            Rz = R if solver == "pgd" else outlier_step(X - Z @ D, lam, bound, nonneg_outliers)
            grad = Z @ G - B + Rz @ D.T + h_l2 * Z + h_l1
            Hn = np.maximum(Z - eta * grad, 0.0)
            Rn = outlier_step(X - Hn @ D, lam, bound, nonneg_outliers)
            cur = float(outlier_loss(X, Hn, D, Rn, lam, h_l1, h_l2).sum())
            if solver == "fista":
                if cur > prev:  # adaptive restart: a plain step from H instead
                    grad = H @ G - B + R @ D.T + h_l2 * H + h_l1
                    Hn = np.maximum(H - eta * grad, 0.0)
                    Rn = outlier_step(X - Hn @ D, lam, bound, nonneg_outliers)
                    cur = float(outlier_loss(X, Hn, D, Rn, lam, h_l1, h_l2).sum())
                    t_next = 1.0
                Hprev, t = H, t_next
            H, R = Hn, Rn
            if abs(prev - cur) <= tol * (abs(prev) + _TINY):
                break
            prev = cur
        return OutlierCodeResult(H, R, it)

    # ADMM, eqs. (25)–(30), rows as samples: h is a row vector, (DDᵀ + ρI) symmetric.
    chol = cho_factor(D @ D.T + (rho + h_l2) * np.eye(k))
    U, Q = H.copy(), R.copy()
    Lh = np.zeros_like(H)
    Lr = np.zeros_like(R)
    for it in range(1, max_iter + 1):
        H = cho_solve(chol, ((X - R) @ D.T + rho * U - Lh - h_l1).T).T
        A = X - H @ D
        R = soft_threshold(rho * Q + A - Lr, lam) / (1.0 + rho)
        U = np.maximum(H + Lh / rho, 0.0)
        Q = (np.clip(R + Lr / rho, 0.0, bound) if nonneg_outliers
             else np.clip(R + Lr / rho, -bound, bound))
        Lh += rho * (H - U)
        Lr += rho * (R - Q)
        cur = float(outlier_loss(X, U, D, Q, lam, h_l1, h_l2).sum())
        if abs(prev - cur) <= tol * (abs(prev) + _TINY):
            break
        prev = cur
    return OutlierCodeResult(U, Q, it)
