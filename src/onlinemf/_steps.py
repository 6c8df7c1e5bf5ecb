"""Step sizes and momentum shared by every solver: the code, outlier and dictionary steps of
all five methods take them from here, so each idea is written once.

* :func:`spectral_lipschitz` — λ_max of a positive semidefinite Gram matrix A, the Lipschitz
  constant of the gradient of ½tr(DᵀAD) − tr(DᵀB) (and of ½‖x − hD‖² in h for A = DDᵀ).
* :func:`spectral_norm_sq` — ‖D‖₂², the same constant from D itself.
* :func:`safe_cho_factor` — the Cholesky factor of a matrix that should be positive
  definite, shifted just enough when rounding made it indefinite.

None of them raises ``LinAlgError``: a step size or a linear solve inside an iterative
solver must not fail on a numerically awkward iterate (denormal, huge or non-finite entries,
a Gram matrix that rounding left slightly indefinite), so each sanitizes its input, tries
LAPACK, and falls back on a bound that holds for every symmetric matrix (Gershgorin's).
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

__all__ = ["spectral_lipschitz", "spectral_norm_sq", "safe_cho_factor", "finite_matrix",
           "gershgorin_bound", "bb_step", "nesterov_momentum", "accelerated_prox_grad",
           "BB_MIN", "BB_MAX", "MAX_DOUBLINGS"]

BB_MIN, BB_MAX = 1e-10, 1e10
#: Cap of every loop that doubles or halves a step or a bracket: from any finite float,
#: 1100 doublings reach inf and 1100 halvings reach 0, so a loop so capped ends on any input.
MAX_DOUBLINGS = 1100


def finite_matrix(A: np.ndarray) -> np.ndarray:
    """A float64 copy of ``A`` with NaN as 0, ±inf as ±(largest float / 10⁴) and subnormal
    entries flushed to 0: LAPACK's iterations do not converge on non-finite entries and
    lose their accuracy on subnormal ones, and the cap leaves room for the sums built on
    it (a row sum, a diagonal shift) to stay finite."""
    big = np.finfo(np.float64).max / 1e4
    M = np.nan_to_num(np.array(A, dtype=np.float64), nan=0.0, posinf=big, neginf=-big)
    np.clip(M, -big, big, out=M)
    M[np.abs(M) < np.finfo(np.float64).tiny] = 0.0
    return M


def _power_of_two_above(x: float) -> float:
    """The power of two in [x, 2x) (0 for 0): dividing by it is exact in floating point, so
    a rescaled computation gives the same bits as the unscaled one where that one is finite."""
    return 0.0 if x == 0.0 else float(np.ldexp(1.0, np.frexp(x)[1]))


def gershgorin_bound(A: np.ndarray) -> float:
    """max_i Σ_j |A_ij|, an upper bound of every |eigenvalue| of a square matrix (Gershgorin's
    circle theorem); cheap, and cannot fail on finite input."""
    M = np.abs(np.asarray(A, dtype=np.float64))
    return float(M.sum(axis=1).max()) if M.size else 0.0


def spectral_lipschitz(gram: np.ndarray, floor: float = 1e-12) -> float:
    """λ_max(A) of a symmetric positive semidefinite ``gram``, never below ``floor`` (so that
    1/L is finite for an all-zero dictionary or batch) and always finite.

    Exact by LAPACK's symmetric eigensolver (the Gram matrices here are K × K with K small),
    on the matrix divided by the power of two above its largest entry (exact, so no bits
    change, and no intermediate overflows); where the eigensolver does not converge,
    Gershgorin's bound, which is ≥ λ_max and so still gives a step 1/L that decreases the
    objective. Non-finite and subnormal entries are sanitized
    first (:func:`finite_matrix`). Never raises ``LinAlgError``.
    """
    A = np.asarray(gram)
    if A.size == 0:
        return floor
    M = finite_matrix(A)
    top = _power_of_two_above(float(np.abs(M).max()))
    if top == 0.0:
        return floor
    try:
        lam = float(np.linalg.eigvalsh(M / top)[-1]) * top
    except np.linalg.LinAlgError:
        lam = gershgorin_bound(M)
    if not np.isfinite(lam):
        lam = gershgorin_bound(M)
    return float(min(max(lam, floor), np.finfo(np.float64).max))


def spectral_norm_sq(components: np.ndarray) -> float:
    """‖D‖₂², the largest eigenvalue of the smaller Gram matrix of D (D Dᵀ or DᵀD), 0 for an
    empty D: :func:`spectral_lipschitz` with no floor. The Gram matrix is formed from D
    divided by its largest entry, so a D whose squares overflow still gives a finite bound
    (capped at the largest float)."""
    if not np.size(components):
        return 0.0
    D = np.atleast_2d(components)
    if D.dtype.kind == "f" and D.dtype.itemsize >= 8:
        # a finite D of moderate entries needs neither the sanitized copy nor the division:
        # dividing by a power of two is exact, so the Gram matrix of D itself has the same
        # bits scaled, without two more arrays of D's size
        hi, lo = float(D.max()), float(D.min())  # NaN where D has one
        top = _power_of_two_above(max(hi, -lo)) if np.isfinite(hi - lo) else np.inf
        if 2.0 ** -200 <= top <= 2.0 ** 200:
            lam = spectral_lipschitz(D @ D.T if D.shape[0] <= D.shape[1] else D.T @ D,
                                     floor=0.0)
            return float(min(lam, np.finfo(np.float64).max))
    D = finite_matrix(D)
    top = _power_of_two_above(float(np.abs(D).max()))
    if top == 0.0:
        return 0.0
    Ds = D / top
    lam = spectral_lipschitz(Ds @ Ds.T if Ds.shape[0] <= Ds.shape[1] else Ds.T @ Ds,
                             floor=0.0)
    return float(min(lam * top * top, np.finfo(np.float64).max))


def safe_cho_factor(M: np.ndarray, lower: bool = False, max_tries: int = 8) -> tuple:
    """``scipy.linalg.cho_factor`` of a matrix that is positive definite in exact arithmetic
    (A + ρI, DDᵀ + ρI, …), with the same return value, that never raises ``LinAlgError``.

    Where rounding left the matrix indefinite (entries far larger than the shift, a
    rank-deficient Gram matrix), the diagonal is raised by δ = ε·m·10^j for j = 0, 1, …
    (m the largest diagonal entry; at most ``max_tries`` tries) and, failing that, by
    Gershgorin's bound, which makes the matrix strictly diagonally dominant and so
    positive definite: the smallest change that makes the linear solve well posed.
    """
    from scipy.linalg import cho_factor

    A = finite_matrix(M)
    try:
        return cho_factor(A, lower=lower, check_finite=False)
    except np.linalg.LinAlgError:
        pass
    eye = np.eye(A.shape[0])
    m = max(float(np.abs(np.diag(A)).max()) if A.size else 0.0, np.finfo(np.float64).tiny)
    delta = np.finfo(np.float64).eps * m
    for _ in range(max_tries):
        try:
            return cho_factor(A + delta * eye, lower=lower, check_finite=False)
        except np.linalg.LinAlgError:
            delta *= 10.0
    shift = gershgorin_bound(A) + m
    return cho_factor(A + shift * eye, lower=lower, check_finite=False)


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
