"""Step sizes and momentum shared by every solver: the code, outlier and dictionary steps of
all five methods take them from here, so each idea is written once.

* :func:`spectral_lipschitz` — λ_max of a positive semidefinite Gram matrix A, the Lipschitz
  constant of the gradient of ½tr(DᵀAD) − tr(DᵀB) (and of ½‖x − hD‖² in h for A = DDᵀ).
* :func:`spectral_norm_sq` — ‖D‖₂², the same constant from D itself.
* :func:`bb_step` — the Barzilai–Borwein step of each row from its last displacement and
  gradient change.
* :func:`nesterov_momentum` — FISTA's sequence t_k and extrapolation weight (Beck and
  Teboulle 2009), for one problem or one per row.
* :func:`accelerated_prox_grad` — the accelerated proximal-gradient loop itself, for the
  solvers that need no restart.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["spectral_lipschitz", "spectral_norm_sq", "bb_step", "nesterov_momentum",
           "accelerated_prox_grad", "BB_MIN", "BB_MAX"]

BB_MIN, BB_MAX = 1e-10, 1e10


def spectral_lipschitz(gram: np.ndarray, floor: float = 1e-12) -> float:
    """λ_max(A) of a symmetric positive semidefinite ``gram`` (exact, by LAPACK's symmetric
    eigensolver: the Gram matrices here are K × K with K small), never below ``floor`` (so
    that 1/L is finite for an all-zero dictionary or batch)."""
    A = np.asarray(gram)
    if A.size == 0:
        return floor
    return max(float(np.linalg.eigvalsh(A)[-1]), floor)


def spectral_norm_sq(components: np.ndarray) -> float:
    """‖D‖₂², the largest eigenvalue of the smaller Gram matrix of D (D Dᵀ or DᵀD), 0 for an
    empty D: :func:`spectral_lipschitz` with no floor."""
    D = np.asarray(components)
    if D.size == 0:
        return 0.0
    return spectral_lipschitz(D @ D.T if D.shape[0] <= D.shape[1] else D.T @ D, floor=0.0)


def bb_step(
    dH: np.ndarray, dG: np.ndarray, previous: np.ndarray, kind: str = "long",
    lo: float = BB_MIN, hi: float = BB_MAX,
) -> np.ndarray:
    """Barzilai–Borwein step of every row: ``long`` = sᵀs / sᵀy (BB1, the spectral step of
    Birgin, Martínez and Raydan 2000), ``short`` = sᵀy / yᵀy (BB2), s = ``dH``, y = ``dG``.

    Rows whose curvature sᵀy is not positive keep ``previous`` (the quotient is undefined
    or negative there); the result is clipped to [lo, hi].
    """
    sy = np.einsum("ij,ij->i", dH, dG)
    if kind == "long":
        num, den = np.einsum("ij,ij->i", dH, dH), sy
    elif kind == "short":
        num, den = sy, np.einsum("ij,ij->i", dG, dG)
    else:
        raise ValueError(f"kind must be 'long' or 'short', got {kind!r}")
    ok = (sy > 0) & (den > 0) & (num > 0)
    out = np.array(previous, copy=True)
    out[ok] = num[ok] / den[ok]
    return np.clip(out, lo, hi).astype(out.dtype, copy=False)


def nesterov_momentum(t):
    """FISTA's next t_{k+1} = (1 + √(1 + 4t_k²))/2 and the extrapolation weight
    (t_k − 1)/t_{k+1} of y_{k+1} = x_{k+1} + weight·(x_{k+1} − x_k); ``t`` (t_0 = 1) is a
    scalar or one value per row. Returns (t_next, weight)."""
    t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
    return t_next, (t - 1.0) / t_next


def accelerated_prox_grad(x0: np.ndarray, grad: Callable, prox: Callable, step: float,
                          max_iter: int, stop: Callable | None = None) -> tuple:
    """FISTA for min f(x) + g(x) with a step ``step`` ≤ 1/L_f: x_{k+1} = prox(y_k −
    step·∇f(y_k), step), y_{k+1} = x_{k+1} + w_k(x_{k+1} − x_k), y_0 = x_0 (Beck and Teboulle
    2009), without restart.

    Parameters
    ----------
    x0 : ndarray, the start.
    grad : callable y ↦ ∇f(y).
    prox : callable (v, step) ↦ prox_{step·g}(v) (a projection for an indicator g).
    step : float
    max_iter : int
    stop : callable (x_next, y) ↦ bool, optional
        Checked after each step (the momentum is applied first); True ends the loop.

    Returns
    -------
    (x, n_iter)
    """
    x, y, t = x0, x0, 1.0
    it = 0
    for it in range(1, max_iter + 1):
        x_next = prox(y - step * grad(y), step)
        done = stop is not None and stop(x_next, y)
        t, w = nesterov_momentum(t)
        y = x_next + w * (x_next - x)
        x = x_next
        if done:
            break
    return x, it
