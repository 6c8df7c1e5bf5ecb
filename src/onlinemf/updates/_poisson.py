"""Row solvers of Poisson subspace tracking (Wang and Chi 2016, "Stochastic Approximation and
Memory-Limited Subspace Tracking for Poisson Streaming Data", arXiv:1612.02425): the
row solvers, and the memory-limited and full SA rules, each an immutable state plus a pure
step."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._running import RunningAverage, SampleMean, SurrogateState

__all__ = ["PoissonMemoryLimitedUpdate", "PoissonSAUpdate", "PoissonHistory",
           "poisson_row_objective", "solve_poisson_rows", "log_jensen_gap"]


def poisson_row_objective(D, S, beta, R, lam):
    """H_i(d) = dᵀs_i − β_i log(dᵀr_i) + λ‖d‖² for every row (eq. (14)/(21)); +inf where the
    log argument vanishes while β_i > 0."""
    dr = np.einsum("ij,ij->i", D, R)
    with np.errstate(divide="ignore"):
        logdr = np.where(beta > 0, np.log(np.maximum(dr, 0.0)), 0.0)
    val = np.einsum("ij,ij->i", D, S) - beta * logdr + lam * np.einsum("ij,ij->i", D, D)
    return np.where((beta > 0) & (dr <= 0), np.inf, val)


def solve_poisson_rows(S, beta, R, lam, D_prev, *, solver="exact", max_iter=100, tol=1e-6):
    """argmin_{d ≥ 0} dᵀs − β log(dᵀr) + λ‖d‖² for every row (Wang and Chi, eq. (14)/(21)).

    ``solver="exact"`` (default): the KKT conditions give d(c) = max(0, βr/c − s)/(2λ) with
    c = dᵀr the root of 2λc² + (s_Jᵀr_J)c − β‖r_J‖² = 0 on the active set J = {k : βr_k/s_k >
    c}, found by sorting the thresholds βr_k/s_k as in a simplex projection. ``"pgd"``: the paper's
    projected gradient with the Barzilai–Borwein step, warm-started at ``D_prev``.

    Degenerate rows: β_i = 0 gives d_i = 0; β_i > 0 with r_i = 0 (the problem is
    unbounded) keeps the previous row.

    Parameters
    ----------
    S, R : ndarray (n_rows, K), nonnegative
    beta : ndarray (n_rows,), nonnegative
    lam : float > 0
    D_prev : ndarray (n_rows, K)
    """
    if not lam > 0:
        raise ValueError("the row problem needs lam > 0")
    rnorm = np.abs(R).sum(axis=1)
    ill = (beta > 0) & (rnorm == 0)
    zero = beta <= 0
    if solver == "pgd":
        D = _poisson_rows_pgd(S, beta, R, lam, np.maximum(D_prev, 0), max_iter, tol)
    elif solver == "exact":
        with np.errstate(divide="ignore", invalid="ignore"):
            tau = np.where(S > 0, beta[:, None] * R / S, np.where(R > 0, np.inf, 0.0))
        order = np.argsort(-tau, axis=1)
        ts = np.take_along_axis(tau, order, axis=1)
        rs = np.take_along_axis(R, order, axis=1)
        ss = np.take_along_axis(S, order, axis=1)
        sr = np.cumsum(ss * rs, axis=1)
        rr = np.cumsum(rs * rs, axis=1)
        b = beta[:, None]
        c = (-sr + np.sqrt(sr * sr + 8.0 * lam * b * rr)) / (4.0 * lam)
        nxt = np.concatenate([ts[:, 1:], np.zeros((ts.shape[0], 1))], axis=1)
        valid = (c < ts) & (c >= nxt) & (c > 0)
        j = np.argmax(valid, axis=1)
        cstar = c[np.arange(c.shape[0]), j]
        with np.errstate(divide="ignore", invalid="ignore"):
            D = np.maximum(0.0, b * R / cstar[:, None] - S) / (2.0 * lam)
    else:
        raise ValueError(f"unknown row solver {solver!r}; choose 'exact' or 'pgd'")
    D = np.where(zero[:, None], 0.0, D)
    D = np.where(ill[:, None], D_prev, D)
    return np.nan_to_num(D, nan=0.0, posinf=0.0)


def _poisson_rows_pgd(S, beta, R, lam, D, max_iter, tol):
    """Projected gradient with the Barzilai–Borwein step on every row at once, monotone by
    halving up to rounding, each row stopped on its own when its projected-gradient step
    ‖d − Π₊(d − ∇)‖ falls to ``tol``·max(1, ‖d‖) (first-order optimality, not a short step:
    a step cut short by the line search is no sign of convergence).

    A step is accepted where it raises a row's objective by no more than rounding
    (:data:`_ROUNDING` of its magnitude): near the minimum the objective's own rounding
    error exceeds the true decrease, and refusing such steps would halve the step to
    nothing.

    A row whose warm start has dᵀr = 0 while β > 0 (a row of D at zero from earlier steps
    that saw no counts) sits where the objective is +inf and its gradient unbounded: it
    starts instead at the best multiple of r, d = τr with τ the positive root of
    2λ‖r‖²τ² + (sᵀr)τ − β = 0, finite and feasible, so that every accepted step is a
    finite descent step."""
    D = np.array(D, dtype=float)
    rr = np.einsum("ij,ij->i", R, R)
    cold = (beta > 0) & ~(np.einsum("ij,ij->i", D, R) > 0) & (rr > 0)
    if cold.any():
        sr = np.einsum("ij,ij->i", S[cold], R[cold])
        b, q = beta[cold], rr[cold]
        tau = 2.0 * b / (sr + np.sqrt(sr * sr + 8.0 * lam * b * q))  # the root, cancellation-free
        D[cold] = tau[:, None] * R[cold]
    f = poisson_row_objective(D, S, beta, R, lam)
    alpha = np.full(D.shape[0], 1e-2)
    Dold, Gold = np.zeros_like(D), np.zeros_like(D)
    seen = np.zeros(D.shape[0], dtype=bool)  # a row with a previous iterate (for BB)
    rows = np.flatnonzero(np.isfinite(f))
    for _ in range(max_iter):
        if rows.size == 0:
            break
        d, s, r, b = D[rows], S[rows], R[rows], beta[rows]
        dr = np.maximum(np.einsum("ij,ij->i", d, r), 1e-300)
        G = s - (b / dr)[:, None] * r + 2 * lam * d
        moving = (np.linalg.norm(d - np.maximum(d - G, 0.0), axis=1)
                  > tol * np.maximum(1.0, np.linalg.norm(d, axis=1)))
        rows, d, s, r, b, G = rows[moving], d[moving], s[moving], r[moving], b[moving], G[moving]
        if rows.size == 0:
            break
        prev = seen[rows]
        dD, dG = d[prev] - Dold[rows[prev]], G[prev] - Gold[rows[prev]]
        with np.errstate(over="ignore", invalid="ignore"):
            num, den = np.einsum("ij,ij->i", dD, dG), np.einsum("ij,ij->i", dG, dG)
        ok = (num > 0) & (den > 0) & np.isfinite(num) & np.isfinite(den)
        a = alpha[rows]
        a[np.flatnonzero(prev)[ok]] = np.clip(num[ok] / den[ok], 1e-10, 1e10)
        Dold[rows], Gold[rows], seen[rows] = d, G, True
        fa = f[rows]
        slack = _ROUNDING * np.maximum(np.abs(fa), 1.0)
        dn = np.maximum(d - a[:, None] * G, 0.0)
        fn = poisson_row_objective(dn, s, b, r, lam)
        for _ in range(30):
            up = ~(fn <= fa + slack)
            if not up.any():
                break
            a[up] *= 0.5
            dn[up] = np.maximum(d[up] - a[up, None] * G[up], 0.0)
            fn[up] = poisson_row_objective(dn[up], s[up], b[up], r[up], lam)
        up = ~(fn <= fa + slack)
        dn[up], fn[up] = d[up], fa[up]
        alpha[rows] = a
        D[rows], f[rows] = dn, fn
    return D


#: the share of a row objective's magnitude that a projected-gradient step may raise it by
#: and still be accepted (its rounding error, not a rise)
_ROUNDING = 1e-12


def log_jensen_gap(a, b):
    """T_[a,b] = max_c log(ca + (1−c)b) − c log a − (1−c) log b, in closed form
    ln(L/a) − 1 + a/L with L = (b − a)/ln(b/a) the logarithmic mean: the constant of the
    memory-limited bound (Wang and Chi 2016, Proposition 1). Zero when a = b."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        L = np.where(b > a, (b - a) / np.log(b / a), a)
        return np.where(b > a, np.log(L / a) - 1.0 + a / L, 0.0)


@dataclass(frozen=True)
class PoissonMemoryLimitedUpdate:
    """The memory-limited SA rule (Wang and Chi 2016, Algorithms 2–3): the statistics
    S = Σ w_t p_t a_tᵀ, B = Σ w_t p_t y_t, R = Σ w_t (p_t y_t) a_tᵀ as weighted means over the
    stream, the past discounted by γ = ``forget`` per sample (a :class:`RunningAverage` with
    :class:`SampleMean`; r normalized too: the row argmin is invariant to its scale, and the
    means stay O(1)), then every row of D solved (:func:`solve_poisson_rows`).

    Parameters
    ----------
    lam : float
        λ of the row problems.
    forget : float
        γ in (0, 1].
    solver : {"exact", "pgd"}
        The row solver.
    """

    lam: float = 0.2
    forget: float = 1.0
    solver: str = "exact"

    def init(self, components: np.ndarray) -> SurrogateState:
        k, n = components.shape
        return SurrogateState(RunningAverage.zeros(((n, k), (n,), (n, k)),
                                                   SampleMean(self.forget)))

    def update(self, state: SurrogateState, components, p, py, a):
        """One time step: the observed mask ``p`` (as floats), the masked counts ``py`` (F,)
        and the sample's code ``a`` (K,); ``components`` is D̂ᵀ (K, F)."""
        stats = state.stats.add(np.outer(p, a), py, np.outer(py, a), n_rows=1)
        S, B, R = stats.sums
        D = solve_poisson_rows(S, B, R, self.lam, components.T, solver=self.solver)
        return D.T.copy(), SurrogateState(stats, state.n_steps + 1, state.n_samples_seen + 1)


@dataclass(frozen=True)
class PoissonHistory:
    """State of :class:`PoissonSAUpdate`: the codes, masked counts and masks of the samples
    kept (all of them, or the last ``window``), oldest first, and the samples seen."""

    codes: tuple = ()
    counts: tuple = ()
    masks: tuple = ()
    n_steps: int = 0
    n_samples_seen: int = 0


@dataclass(frozen=True)
class PoissonSAUpdate:
    """The stochastic approximation rule (Wang and Chi 2016, Algorithm 1): D refit on every
    sample kept, each row of D a weighted Poisson regression on the kept codes (eq. (12)):
    Σ_n w_n p_n(dᵀa_n − y_n log dᵀa_n) + λ Σ_n w_n ‖d‖², w_n = γ^(age of sample n).

    The row problems are solved by the caller's ``solve_rows(A, Y, P, D0, l2)``: the KL codes
    of the columns of Y (F, m) and mask P on the "dictionary" A (K, m), from D0 (F, K), with
    the Tikhonov weight ``l2``; it returns the rows (F, K).

    Parameters
    ----------
    lam : float
        λ of eq. (12).
    forget : float
        γ in (0, 1].
    window : int or None
        Keep only the last ``window`` samples (bounded memory; not in the paper).
    """

    lam: float = 0.2
    forget: float = 1.0
    window: int | None = None

    def init(self, components: np.ndarray) -> PoissonHistory:
        return PoissonHistory()

    def update(self, state: PoissonHistory, components, p, py, a, solve_rows):
        """One time step (as :meth:`PoissonMemoryLimitedUpdate.update`), D refit by
        ``solve_rows`` on the kept samples."""
        keep = slice(None) if self.window is None else slice(-self.window, None)
        codes = (state.codes + (a,))[keep]
        counts = (state.counts + (py,))[keep]
        masks = (state.masks + (p > 0,))[keep]
        A = np.array(codes)  # (m, K): the "dictionary" of the row problems
        w = self.forget ** np.arange(len(codes) - 1, -1, -1.0)
        # rows of D as samples: Σ_n w_n p(dᵀa_n − y log dᵀa_n) + λ Σ_n w_n ‖d‖² (eq. (12));
        # weights enter the KL form through (w y, w a): d(w y ‖ w z) = w d(y ‖ z)
        Yh = np.array(counts).T * w
        Ah = A * w[:, None] if self.forget < 1 else A
        D = solve_rows(Ah.T, Yh, np.array(masks).T, components.T, 2.0 * self.lam * w.sum())
        return D.T.copy(), PoissonHistory(codes, counts, masks, state.n_steps + 1,
                                          state.n_samples_seen + 1)
