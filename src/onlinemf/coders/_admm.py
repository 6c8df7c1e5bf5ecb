"""Codes under a non-smooth loss φ(x − y) by ADMM: ℓ1 (least absolute deviations) and ℓ2.

For every sample of the batch, min_{h ∈ [l, u]^K} φ(x − hD) + (m/2)‖h‖², split as

    min φ(r) + ι_box(z) + (m/2)‖z‖²  subject to  hD + r = x,  S(h − z) = 0,

with S = diag(‖d_k‖) the atoms' norms (Boyd, Parikh, Chu, Peleato and Eckstein 2011, §6.4
and §3.4.1). Scaling the copy constraint by S balances it against the data constraint: an
atom with a small norm needs a large code, and with an unscaled copy constraint the iterations
on such codes crawl. Each iteration is

* h: the least-squares solve h (DDᵀ + S²) = (x − r − u)Dᵀ + (S z − v)S, one K × K factor for
  the whole batch (the scaled penalty ρ cancels from this step, so each sample has its own ρ);
* r: the proximal map of φ/ρ at x − hD − u (soft thresholding for ℓ1);
* z: the box projection of the copy (shrunk by m when the Tikhonov term is on);
* the scaled dual steps u += hD + r − x, v += S(h − z).

ρ starts at 1/mean|x − h⁰D| per sample (the residual's scale, so that the threshold 1/ρ is
comparable with it). The projected (sub)gradient rules for these losses (Polyak's step, the
paper's) stop far from the minimum at the iteration caps the online steps can afford; ADMM
reaches it to a few digits in a hundred iterations. The codes returned are the feasible copy
z with the lowest objective seen (the iterates are not monotone). Each sample stops when its
residuals ‖hD + r − x‖, ‖S(h − z)‖ and the change of (r, Sz) are all below ``tol`` times the
scale of its data, so the batch result is that of a loop over single samples.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve

from .._steps import safe_cho_factor
from ..losses import Loss

__all__ = ["solve_codes_admm", "ADMM_CHECK_EVERY"]

#: Iterations between two evaluations of the objective and of the stopping test.
ADMM_CHECK_EVERY = 5


def solve_codes_admm(loss: Loss, D: np.ndarray, X, mask, H0: np.ndarray, *, lower: float,
                     upper: float, max_iter: int, tol: float, h_l2: float = 0.0):
    """Codes of a batch by the ADMM above.

    Parameters
    ----------
    loss : Loss with ``residual_prox_available``
    D : ndarray (K, F)
    X : ndarray (n, F); entries where ``mask`` is False are ignored
    mask : ndarray of bool (n, F) or None
    H0 : ndarray (n, K), the start (inside the box)
    lower, upper : float, the box of the codes
    max_iter : int
    tol : float
    h_l2 : float, the Tikhonov weight m

    Returns
    -------
    (codes, n_iter, converged, objective) : per-sample arrays
    """
    X = np.asarray(X, dtype=float)
    n, K = H0.shape
    Xf = np.where(mask, X, 0.0) if mask is not None else X
    s = np.sqrt(np.einsum("kf,kf->k", D, D))
    s = np.maximum(s, np.finfo(float).eps * max(float(s.max(initial=0.0)), 1.0))
    factor = safe_cho_factor(D @ D.T + np.diag(s * s))
    M_inv = cho_solve(factor, np.eye(K))

    def objective(Z):
        f = loss.value(X, Z @ D, mask)
        return f + 0.5 * h_l2 * np.einsum("ij,ij->i", Z, Z) if h_l2 else f

    Z = np.clip(np.asarray(H0, dtype=float), lower, upper)
    HD = Z @ D
    R = Xf - HD
    scale = np.maximum(np.sqrt(np.einsum("ij,ij->i", Xf, Xf)), np.finfo(float).tiny)
    mean_abs = np.abs(R).mean(axis=1) if R.shape[1] else np.ones(n)
    rho = 1.0 / np.maximum(mean_abs, 1e-12 * np.maximum(scale, 1.0))
    U = np.zeros_like(R)
    V = np.zeros_like(Z)
    best_f = objective(Z)
    best = Z.copy()
    n_iter = np.zeros(n, dtype=np.int64)
    converged = np.zeros(n, dtype=bool)
    live = np.ones(n, dtype=bool)
    for it in range(1, max_iter + 1):
        H = ((Xf - R - U) @ D.T + (Z * s - V) * s) @ M_inv
        HD = H @ D
        T = Xf - HD - U
        R_old, Z_old = R, Z
        R = loss.residual_prox(T, 1.0 / rho)
        if mask is not None:
            R = np.where(mask, R, T)  # an unobserved entry costs nothing: its residual is free
        W = H + V / s
        Z = W if not h_l2 else W * (rho[:, None] * s * s) / (h_l2 + rho[:, None] * s * s)
        np.clip(Z, lower, upper, out=Z)
        primal_r, primal_z = HD + R - Xf, (H - Z) * s  # the constraints' residuals
        U += primal_r
        V += primal_z
        n_iter[live] += 1
        if it % ADMM_CHECK_EVERY and it != max_iter:
            continue
        f = objective(Z)
        better = live & (f < best_f)
        best_f[better] = f[better]
        best[better] = Z[better]
        primal = np.sqrt(np.einsum("ij,ij->i", primal_r, primal_r)
                         + np.einsum("ij,ij->i", primal_z, primal_z))
        dR, dZ = R - R_old, (Z - Z_old) * s
        change = np.sqrt(np.einsum("ij,ij->i", dR, dR) + np.einsum("ij,ij->i", dZ, dZ))
        done = live & (primal <= tol * scale) & (change <= tol * scale)
        converged |= done
        live &= ~done
        if not live.any():
            break
    return best, n_iter, converged, best_f
