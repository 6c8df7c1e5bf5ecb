"""Accurate codes (and outliers) of the stochastic matrix factorization problems of Zhao,
Haskell and Feng (2018, arXiv:1705.10679), for evaluation, reference solves and ``transform``
(solved tightly, outside the time an algorithm is charged): :func:`solve_codes_accurate`
takes a semismooth projected Newton method on the envelope for the robust problems it applies
to, and accelerated BSUM otherwise.

With the outliers minimized out, the code problem of a sample is

    min_{h ∈ H}  F(h) = e(x − hD) + φ(h),   e(z) = Σ_f min_{r ∈ R} ½(z_f − r)² + λ|r|,

a convex function whose gradient is (hD + r*(h) − x)Dᵀ + ∇φ(h) (BSUM's, eq. 5, at the exact
r of eq. 6) and whose generalized Hessian is D diag(w) Dᵀ + ∇²φ, w_f = 1 where r*_f sits at a
constant (0 inside the threshold, ±M′ at the box) and 0 where r*_f follows z_f. e is piecewise
quadratic, so the Newton step with the current pieces is exact once they settle: a handful
of iterations, where proximal gradient (BSUM, even accelerated) needs a great many on data
whose dictionary is ill-conditioned.

Box-like code sets (R^K, R₊^K, [0, M]^K) are handled by Bertsekas's projected Newton: the
coordinates near a bound whose gradient pushes towards it are held out of the Newton system
and step to that bound, the step solves the Newton system on the others, and the whole is
backtracked along the projection arc.

Where the codes are free and the outliers unbounded (ORPCA, OLRR), rows that Newton has not
solved after a few iterations take a few majorization–minimization steps (iteratively
reweighted least squares on the Huber envelope) and Newton resumes from there: on
dictionaries with long atoms, where most entries of a row are outliers, Newton's line search
otherwise cuts its steps short for many iterations.
"""

from __future__ import annotations

import numpy as np

from ._bsum import TOL_FLOOR, solve_codes_bsum, spectral_lipschitz
from ._result import CodeResult

__all__ = ["newton_applicable", "solve_codes_accurate", "solve_codes_newton",
           "solve_codes_newton_capped"]


def _code_box(codes) -> tuple[float, float, float] | None:
    """(lower, upper, ridge) of a smooth, box-constrained code part (its ``smooth_box``:
    RidgeCodes, BoxCodes), or None."""
    box = getattr(codes, "smooth_box", None)
    return None if box is None else box()


def newton_applicable(problem) -> bool:
    """Whether :func:`solve_codes_newton` handles this problem: ℓ1 outliers (optionally
    boxed) and a ridge or box code part (ORPCA, OLRR, ORNMF; not OMRMD's ball)."""
    return (getattr(problem.outliers, "l1_box", False)
            and _code_box(problem.codes) is not None)


def solve_codes_accurate(problem, D, X, tol: float, *, max_iter: int = 3000, H0=None,
                         gram=None, lipschitz=None, scale_tol: bool = False) -> CodeResult:
    """Tightly solved codes: :func:`solve_codes_newton` where :func:`newton_applicable`
    (ORPCA, OLRR, ORNMF, whose ill-conditioned dictionaries leave accelerated BSUM slower
    and, at its sweep cap, at a higher objective), else accelerated BSUM (the non-robust
    problems, whose Gram-form sweeps are cheap, and OMRMD).
    ``max_iter`` caps BSUM's sweeps or the Newton iterations, a cap meant never to bind: a
    chunk's time goes to its first iterations, while all its rows are active, so the few
    slow rows cost little more. ``H0`` warm-starts either (the codes at a nearby dictionary
    save Newton much of its work)."""
    if newton_applicable(problem):
        return solve_codes_newton(problem, D, X, tol, max_iter=max_iter, H0=H0, gram=gram,
                                  lipschitz=lipschitz, scale_tol=scale_tol)
    return solve_codes_bsum(problem, D, X, tol, max_iter=max_iter, H0=H0, gram=gram,
                            lipschitz=lipschitz, scale_tol=scale_tol, accelerate=True)


def solve_codes_newton_capped(problem, D, X, tol: float, *, max_iter: int = 500,
                              **kwargs) -> CodeResult:
    """:func:`solve_codes_newton` with ``max_iter`` read as a cap on BSUM sweeps: at most
    max(50, max_iter // 10) Newton iterations (each costs about ten sweeps: a K×K solve per
    sample and a line search). Called as :func:`solve_codes_bsum` is, so either serves as
    an algorithm's code solver."""
    return solve_codes_newton(problem, D, X, tol, max_iter=max(50, max_iter // 10), **kwargs)


def solve_codes_newton(problem, D, X, tol: float, *, max_iter: int = 100, H0=None, R0=None,
                       gram=None, lipschitz=None, scale_tol: bool = False,
                       armijo: float = 1e-4, max_backtracks: int = 30,
                       mm_after: int = 15, mm_steps: int = 10,
                       mm_first_inliers: float = 1.5) -> CodeResult:
    """min_{h ∈ H, r ∈ R} ½‖x − hD − r‖² + φ(h) + ϕ(r) for every row x of X, accurately.

    Stops a sample by BSUM's test, max(L′‖h⁺ − h‖, ‖r⁺ − r‖) ≤ max(tol, 1e-10)
    (times max(1, ‖x‖) with ``scale_tol``), with h⁺ the proximal-gradient step from h, so
    its codes are as accurate as BSUM's at the same tolerance; a sample whose Newton step
    fails the Armijo test (or does worse than h⁺) takes h⁺ instead: monotone either way.

    Parameters
    ----------
    problem : SMFProblem
        With :func:`newton_applicable` true.
    D : ndarray (K, F)
    X : ndarray (n, F)
    tol : float
    max_iter : int
        Cap on Newton iterations per sample.
    H0 : ndarray (n, K) or None
        Warm start (default zeros, projected onto H).
    R0 : ignored
        The outliers are minimized out exactly from h (r*(h)); accepted so that the solver
        is called as :func:`solve_codes_bsum` is.
    gram, lipschitz : DDᵀ and L′ = ‖D‖₂² when known.
    mm_after, mm_steps : int
        Where the codes are unconstrained and the outliers unbounded (ORPCA, OLRR), the rows
        still unconverged after ``mm_after`` iterations first take ``mm_steps``
        majorization–minimization steps (:func:`_huber_mm_steps`), then Newton resumes
        (0 steps: never).
    mm_first_inliers : float
        From a warm start ``H0``, the rows with fewer than ``mm_first_inliers``·K entries
        inside the Huber threshold take those MM steps before the first Newton iteration:
        with fewer quadratic pieces than about K, D diag(w) Dᵀ is (nearly) singular and the
        Newton model poor from the start. A cold start (h = 0) leaves nearly every entry
        outside the threshold whatever the dictionary, so it waits for ``mm_after``.

    Returns
    -------
    CodeResult
        Codes, outliers r*(h), each sample's Newton iterations (its last one the test it
        met) and whether it stopped before ``max_iter``; no objective.
    """
    box = _code_box(problem.codes)
    if problem.outliers is None or box is None:
        raise ValueError(f"the Newton code solver needs l1 outliers and a ridge or box code "
                         f"part; {problem.name!r} does not have both")
    lo, hi, ridge = box
    n, K = X.shape[0], D.shape[0]
    G = D @ D.T if gram is None else gram
    L = spectral_lipschitz(G) if lipschitz is None else lipschitz
    reg = ridge + 1e-12 * L  # keeps D diag(w) Dᵀ invertible when few entries are quadratic
    H = np.zeros((n, K)) if H0 is None else np.array(H0, dtype=float, copy=True)
    H = np.clip(H, lo, hi)
    R = np.zeros_like(X, dtype=float)
    thr = np.full(n, max(tol, TOL_FLOOR))
    if scale_tol:
        thr = thr * np.maximum(1.0, np.linalg.norm(X, axis=1))
    outl = problem.outliers

    def parts(Hs, Xs):
        """r*(h), the residual x − hD − r* and F(h) per row."""
        Z = Xs - Hs @ D
        Rs = outl.prox(Z)
        E = Z - Rs
        f = 0.5 * np.einsum("ij,ij->i", E, E) + outl.penalty(Rs) + problem.codes.penalty(Hs)
        return Rs, E, f

    # the MM restart needs e's quadratic majorizer in z² (unbounded outliers) and
    # unconstrained codes
    mm = (mm_steps > 0 and np.isinf(outl.bound) and np.isinf(lo) and np.isinf(hi)
          and ridge > 0)
    act = np.arange(n)
    n_iter = np.zeros(n, dtype=np.int64)
    converged = np.zeros(n, dtype=bool)
    if mm and H0 is not None:
        few = (np.abs(X - H @ D) <= outl.alpha).sum(axis=1) < mm_first_inliers * K
        if few.any():
            H[few] = _huber_mm_steps(D, X[few], H[few], outl.alpha, ridge, mm_steps)
    it = 0
    for it in range(1, max_iter + 1):
        if mm and it == mm_after + 1 and act.size:
            H[act] = _huber_mm_steps(D, X[act], H[act], outl.alpha, ridge, mm_steps)
        Xa, Ha = X[act], H[act]
        Ra, E, f = parts(Ha, Xa)
        g_smooth = -(E @ D.T)
        g = g_smooth + ridge * Ha
        # BSUM's stopping test at h: one proximal-gradient step and the exact r after it
        Hp = problem.codes.prox(Ha - g_smooth / L, 1.0 / L)
        Rp, _, fp = parts(Hp, Xa)
        change = np.maximum(L * np.linalg.norm(Hp - Ha, axis=1),
                            np.linalg.norm(Rp - Ra, axis=1))
        done = change <= thr[act]
        R[act] = Ra
        n_iter[act[done]] = it
        converged[act[done]] = True
        if done.all():
            break
        keep = ~done
        act, Xa, Ha, Ra, f, g, Hp, fp = (v[keep] for v in (act, Xa, Ha, Ra, f, g, Hp, fp))
        # the Newton step on the free coordinates, backtracked along the projection arc
        step = _newton_step(D, G, Ha, g, Ra, outl, lo, hi, reg)
        Hn = _arc_search(parts, Ha, Xa, step, g, f, Hp, fp, lo, hi, armijo, max_backtracks)
        H[act] = Hn
    else:  # the cap: report r* at the final codes
        R[act] = parts(H[act], X[act])[0]
        n_iter[act] = it
    return CodeResult(H, n_iter, converged, outliers=R)


def _newton_step(D, G, Ha, g, Ra, outl, lo, hi, reg):
    """The projected Newton step of each row (Bertsekas): the Newton system on the free
    coordinates, with the generalized Hessian D diag(w) Dᵀ (w_f = 1 where r*_f is constant)
    and Levenberg–Marquardt damping, and the held coordinates sent to their bound."""
    K = D.shape[0]
    eye = np.eye(K)
    # Bertsekas's ε-active set: coordinates within ε of a bound that the gradient pushes
    # against are held (without the ε, coordinates just above a bound take Newton steps
    # the projection cuts to nothing, and the method crawls)
    eps = np.minimum(np.linalg.norm(Ha - np.clip(Ha - g, lo, hi), axis=1), 0.1)[:, None]
    held = ((Ha <= lo + eps) & (g > 0)) | ((Ha >= hi - eps) & (g < 0))
    w = (Ra == 0) | (np.abs(Ra) >= outl.bound)
    A = _weighted_gram(D, w, G)
    free = (~held).astype(float)
    # Levenberg–Marquardt damping μ = ‖reduced gradient‖ / max(1, ‖h‖): without a ridge
    # (ORNMF) and with redundant atoms, D diag(w) Dᵀ is nearly singular and the plain
    # Newton step is huge along its null directions; the damping vanishes at the
    # solution, so the local convergence stays fast. Divided by ‖h‖ it is a curvature
    # (g scales as D diag(w) Dᵀ h) and does not grow with the codes' scale: undivided, it
    # caps each step near unit length, however large the codes
    mu = reg + np.linalg.norm(g * free, axis=1) / np.maximum(
        1.0, np.linalg.norm(Ha, axis=1))
    A += mu[:, None, None] * eye
    A *= free[:, :, None] * free[:, None, :]
    A[:, np.arange(K), np.arange(K)] += 1.0 - free
    step = -np.linalg.solve(A, (g * free)[:, :, None])[:, :, 0]
    # the held coordinates head for the bound they are pushed against (a positive
    # diagonal scaling of their gradient, as Bertsekas allows): held at their value
    # instead, a code just above 0 moves only by the proximal-gradient fallback, and on
    # sparse codes over redundant atoms (ORNMF) the method crawls at its pace
    step += np.where(held, np.where(g > 0, lo, hi) - Ha, 0.0)
    return step


def _arc_search(parts, Ha, Xa, step, g, f, Hp, fp, lo, hi, armijo, max_backtracks):
    """Backtracking along the projection arc (Armijo), per row: the first of t = 1, ½, …
    whose projected point decreases F enough and does no worse than the proximal-gradient
    point ``Hp`` (value ``fp``), else ``Hp``."""
    Hn = Hp  # the proximal-gradient step where no Newton trial is accepted
    t = np.ones(Ha.shape[0])
    pend = np.arange(Ha.shape[0])
    for _ in range(max_backtracks):
        Ht = np.clip(Ha[pend] + t[pend, None] * step[pend], lo, hi)
        _, _, ft = parts(Ht, Xa[pend])
        slope = np.einsum("ij,ij->i", g[pend], Ht - Ha[pend])
        # near the solution the predicted decrease falls below the rounding of f: compare
        # within a few ulps, or the search would halve t on noise
        noise = 16 * np.finfo(float).eps * np.maximum(np.abs(f[pend]), 1.0)
        ok = ((ft <= f[pend] + armijo * slope + noise) & (slope < 0)
              & (ft <= fp[pend] + noise))
        Hn[pend[ok]] = Ht[ok]
        pend = pend[~ok]
        if not pend.size:
            break
        t[pend] *= 0.5
    return Hn


def _huber_mm_steps(D, X, H, alpha: float, ridge: float, steps: int,
                    rows: int = 256) -> np.ndarray:
    """``steps`` majorization–minimization steps on h ↦ e(x − hD) + (ridge/2)‖h‖² with
    unbounded ℓ1 outliers, where e is the Huber function of threshold ``alpha``: at z₀ it is
    majorized by the quadratic with weights w_f = min(1, alpha/|z₀_f|) (Huber is concave in
    z²), so each step solves (D diag(w) Dᵀ + ridge·I) h = D diag(w) x and never raises F.

    Where most of a row's entries are outliers and its atoms are long, the quadratic pieces
    of e are narrow in h, the semismooth Newton step crosses many of them and its line
    search cuts it short: rows take many iterations. The MM steps see every entry at once
    and close most of that distance."""
    H = np.array(H, dtype=float, copy=True)
    eye = ridge * np.eye(D.shape[0])
    for s in range(0, X.shape[0], rows):  # blocks of rows bound the (rows, K, F) product
        Xb, Hb = X[s:s + rows], H[s:s + rows]
        for _ in range(steps):
            W = np.minimum(1.0, alpha / np.maximum(np.abs(Xb - Hb @ D), np.finfo(float).tiny))
            A = np.matmul(D[None] * W[:, None, :], D.T) + eye
            Hb = np.linalg.solve(A, ((W * Xb) @ D.T)[:, :, None])[:, :, 0]
        H[s:s + rows] = Hb
    return H


def _weighted_gram(D, W, gram, rows: int = 128):
    """D diag(w_i) Dᵀ for every boolean row w_i of W: (n, K, K).

    Each is formed over the smaller of the row's two column sets: Σ_{f on} d_f d_fᵀ, or
    DDᵀ − Σ_{f off} d_f d_fᵀ (the off entries are those an outlier absorbs). Rows are taken
    in the order of their off count, in blocks of ``rows``, each block's sets padded to its
    largest with a zero column: about K²·min(|on|, |off|) per row instead of K²·F."""
    n, K = W.shape[0], D.shape[0]
    F = D.shape[1]
    out = np.empty((n, K, K))
    Dt0 = np.vstack([D.T, np.zeros((1, K))])  # row F: the padding's zero column
    n_off = F - W.sum(axis=1)
    order = np.argsort(n_off, kind="stable")
    for s in range(0, n, rows):
        blk = order[s:s + rows]
        lo, hi = int(n_off[blk[0]]), int(n_off[blk[-1]])
        subtract = hi <= F - lo  # the off sets are the smaller ones
        sel = ~W[blk] if subtract else W[blk]
        counts = sel.sum(axis=1)
        m = int(counts.max(initial=0))
        r, c = np.nonzero(sel)  # row-major: each row's columns in order
        pos = np.arange(r.size) - np.repeat(np.cumsum(counts) - counts, counts)
        idx = np.full((blk.size, m), F)
        idx[r, pos] = c
        Ds = Dt0[idx]  # (rows, m, K)
        part = np.matmul(Ds.transpose(0, 2, 1), Ds)
        out[blk] = gram[None] - part if subtract else part
    return out
