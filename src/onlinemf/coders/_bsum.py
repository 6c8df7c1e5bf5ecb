"""Block successive upper-bound minimization (BSUM) for the codes and outliers of a
stochastic matrix factorization problem (Zhao, Haskell and Feng 2018, "A Unified Framework for
Stochastic Matrix Factorization via Variance Reduction", arXiv:1705.10679, eqs. 5–6)."""

from __future__ import annotations

import numpy as np

from .._steps import nesterov_momentum, spectral_lipschitz
from ._result import CodeResult

__all__ = ["solve_codes_bsum"]

TOL_FLOOR = 1e-10


def solve_codes_bsum(problem, D, X, tol: float, *, max_iter: int = 500, H0=None, R0=None,
                     scale_tol: bool = False, gram=None, lipschitz=None,
                     accelerate: bool = False) -> CodeResult:
    """min_{h ∈ H, r ∈ R} ½‖x − hD − r‖² + φ(h) + ϕ(r) for every row x of X, by BSUM.

    One sweep is one proximal-gradient step in h (step 1/L′, L′ = ‖D‖₂²; eq. 5) followed by
    the exact minimization in r (eq. 6; skipped for non-robust problems, where r ≡ 0). Each
    sample stops on its own when max(L′‖h⁺ − h‖, ‖r⁺ − r‖) ≤ ε (the gradient mapping in h and
    the change in r; the paper bounds the error but gives no rule), with ε = tol, or
    tol·max(1, ‖x‖) when ``scale_tol`` (scale-aware), floored at 1e-10, or after ``max_iter``
    sweeps; a sample's result therefore does not depend on the rest of the batch.

    Parameters
    ----------
    problem : SMFProblem
    D : ndarray (K, F)
    X : ndarray (n, F)
    tol : float
    H0, R0 : warm starts (default zeros)
    gram, lipschitz : DDᵀ and L′ when the caller already has them (a fixed snapshot).
    accelerate : bool
        Nesterov extrapolation of the h-steps (FISTA). Minimizing out r makes BSUM exactly
        proximal gradient on the Moreau envelope of ϕ at x − hD (a smooth function of h
        whose gradient is (hD + r*(h) − x)Dᵀ, Lipschitz with L′), so the acceleration is
        sound; the stopping test is then taken at the extrapolated point. Off by default
        (the paper's plain BSUM); the accurate solves of evaluation use it.

    Returns
    -------
    CodeResult
        Codes (n, K), outliers (n, F) (None for a problem without them), the sweeps of each
        sample and whether it stopped before ``max_iter``; no objective.
    """
    n = X.shape[0]
    K = D.shape[0]
    G = D @ D.T if gram is None else gram
    L = spectral_lipschitz(G) if lipschitz is None else lipschitz
    H = np.zeros((n, K)) if H0 is None else np.array(H0, dtype=float, copy=True)
    robust = problem.outliers is not None
    R = None
    if robust:
        R = np.zeros_like(X, dtype=float) if R0 is None else np.array(R0, dtype=float,
                                                                      copy=True)
    XDt = X @ D.T
    thr = np.full(n, max(tol, TOL_FLOOR))
    if scale_tol:
        thr = thr * np.maximum(1.0, np.linalg.norm(X, axis=1))
    if accelerate:
        return _accelerated(problem, D, X, XDt, G, L, H, thr, max_iter)
    return _plain(problem, D, X, XDt, G, L, H, R, thr, max_iter)


def _row_norms(A: np.ndarray) -> np.ndarray:
    """‖a_i‖ of each row, formed as ``np.linalg.norm(A, axis=1)`` forms it (the same values),
    without that function's argument handling, which a sweep would pay every time."""
    return np.sqrt(np.add.reduce(A * A, axis=1))


def _plain(problem, D, X, XDt, G, L, H, R, thr, max_iter) -> CodeResult:
    """BSUM's sweeps (eqs. 5–6) on the rows still running, each row stopping on its own."""
    n = X.shape[0]
    robust = R is not None
    step = 1.0 / L
    act = np.arange(n)
    it = 0
    # the rows still running are kept in a compacted block, gathered again only once a
    # quarter of the block has stopped (a gather copies the block's (rows, F) arrays, which
    # cost more than the few extra rows' sweeps); a stopped row's result is written when it
    # stops, so every row's result is its iterate at its own stop, whatever the batch
    Ha, XDta, tha = H, XDt, thr
    Xa, Ra = (X, R) if robust else (None, None)
    running = np.ones(n, dtype=bool)
    n_running = n
    Dt = D.T
    n_iter = np.zeros(n, dtype=np.int64)
    converged = np.zeros(n, dtype=bool)
    for it in range(1, max_iter + 1):
        grad = Ha @ G - XDta
        if robust:
            grad += Ra @ Dt
        Hn = problem.codes.prox(Ha - step * grad, step)
        change = L * _row_norms(Hn - Ha)
        if robust:  # eq. (6): the exact minimization in r at the new h
            Z = Hn @ D
            np.subtract(Xa, Z, out=Z)
            Rn = problem.outliers.prox(Z)
            np.subtract(Rn, Ra, out=Z)
            change = np.maximum(change, np.sqrt(np.einsum("ij,ij->i", Z, Z)))
            Ra = Rn
        Ha = Hn
        stops = running & (change <= tha)
        if not stops.any():
            continue
        H[act[stops]] = Ha[stops]
        n_iter[act[stops]] = it
        converged[act[stops]] = True
        if robust:
            R[act[stops]] = Ra[stops]
        running &= ~stops
        n_running -= int(stops.sum())
        if n_running == 0:
            break
        if n_running <= 0.75 * act.size:
            act, Ha, XDta, tha = act[running], Ha[running], XDta[running], tha[running]
            if robust:
                Xa, Ra = Xa[running], Ra[running]
            running = np.ones(act.size, dtype=bool)
    else:
        H[act[running]] = Ha[running]
        n_iter[act[running]] = it
        if robust:
            R[act[running]] = Ra[running]
    return CodeResult(H, n_iter, converged, outliers=R)


def _accelerated(problem, D, X, XDt, G, L, H, thr, max_iter) -> CodeResult:
    """FISTA on h for the envelope min_r (BSUM with extrapolation). The products hD are
    carried along (the extrapolated point's yD is the same combination of them), so a sweep
    costs two products with D; r*(h) is formed once at the end."""
    n = X.shape[0]
    robust = problem.outliers is not None
    step = 1.0 / L
    HD = H @ D if robust else None
    Y, YD = H.copy(), (HD.copy() if robust else None)
    theta = np.ones(n)
    act = np.arange(n)
    n_iter = np.zeros(n, dtype=np.int64)
    it = 0
    for it in range(1, max_iter + 1):
        n_iter[act] += 1
        full = act.size == n
        Ya = Y if full else Y[act]
        grad = Ya @ G - (XDt if full else XDt[act])
        if robust:
            Ra = problem.outliers.prox((X if full else X[act]) - (YD if full else YD[act]))
            grad += Ra @ D.T
        Hn = problem.codes.prox(Ya - step * grad, step)
        change = L * _row_norms(Hn - Ya)
        th_new, coef = nesterov_momentum(theta[act])
        coef = coef[:, None]
        Ha = H if full else H[act]
        Y[act] = Hn + coef * (Hn - Ha)
        if robust:
            HnD = Hn @ D
            HDa = HD if full else HD[act]
            YD[act] = HnD + coef * (HnD - HDa)
            HD[act] = HnD
        theta[act] = th_new
        H[act] = Hn
        act = act[change > thr[act]]
        if act.size == 0:
            break
    R = problem.outliers.prox(X - HD) if robust else None
    converged = np.ones(n, dtype=bool)
    converged[act] = False
    return CodeResult(H, n_iter, converged, outliers=R)
