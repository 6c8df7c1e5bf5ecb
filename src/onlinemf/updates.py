"""Dictionary update rules, each written as explicit state plus a step.

``rule.init(components) -> state`` and ``rule.update(state, components, grad, n_batch) ->
(components, state)``. The estimator keeps the state in its fitted attributes, so a pickled
estimator resumes exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .constraints import project_dictionary_box

__all__ = ["RobbinsMonroSchedule", "ProjectedSGDUpdate", "SGDState", "SurrogateStats",
           "DICT_SOLVERS", "solve_surrogate_dictionary", "solve_poisson_rows",
           "poisson_row_objective", "log_jensen_gap", "bcd_dictionary"]


@dataclass(frozen=True)
class RobbinsMonroSchedule:
    """η_t = a / (τt + b), written in samples seen: η = a / (n_seen + b) (Section VIII-C).

    With a constant batch size τ, n_seen = τt after t mini-batches, which is the paper's
    schedule; with a ragged last batch it counts the samples actually seen. The canonical
    a = b = 2·10⁴ give η ≈ 1 at the start. Σ η = ∞ and Σ η² < ∞ (condition (8)).
    """

    a: float = 2e4
    b: float = 2e4

    def __call__(self, n_seen: int) -> float:
        return self.a / (n_seen + self.b)


@dataclass
class SGDState:
    """State of :class:`ProjectedSGDUpdate`: mini-batch steps taken and samples seen."""

    n_steps: int = 0
    n_samples_seen: int = 0
    last_step_size: float = field(default=float("nan"))


@dataclass(frozen=True)
class ProjectedSGDUpdate:
    """W_t = Π_C(W_{t−1} − η_t G_t), eq. (11), for the mini-batch gradient G_t = Σ_i r_i h_iᵀ.

    Parameters
    ----------
    schedule : RobbinsMonroSchedule
    reduce : {"sum", "mean"}
        Sum the per-sample gradients of the mini-batch (default; the schedule a/(τt + b) is in
        samples, so summing keeps the dynamics insensitive to τ, spec §2.2) or average them.
    eps : float
        Row-sum floor ε of C.
    safeguard : bool
        Halve the step (at most ``max_halvings`` times) until it does not increase the
        mini-batch loss at the batch's own codes, and skip the step if none does. Not in the
        paper: its schedule keeps η ≈ a/b = 1 for the first b samples, which on small data sets
        (or large summed batches) overshoots and oscillates. The schedule itself is unchanged.
    """

    schedule: RobbinsMonroSchedule = RobbinsMonroSchedule()
    reduce: str = "sum"
    eps: float = 1e-8
    safeguard: bool = False
    max_halvings: int = 20

    def init(self, components: np.ndarray) -> SGDState:
        return SGDState()

    def update(
        self, state: SGDState, components: np.ndarray, grad: np.ndarray, n_batch: int,
        batch_loss=None,
    ) -> tuple[np.ndarray, SGDState]:
        """One step; ``batch_loss(D)`` (the mini-batch loss at fixed codes) enables the
        safeguard."""
        n_seen = state.n_samples_seen + n_batch
        eta = self.schedule(n_seen)
        scale = eta / n_batch if self.reduce == "mean" else eta
        new = project_dictionary_box(components - scale * grad, self.eps)
        if self.safeguard and batch_loss is not None:
            f0 = batch_loss(components)
            for _ in range(self.max_halvings):
                if batch_loss(new) <= f0:
                    break
                scale *= 0.5
                new = project_dictionary_box(components - scale * grad, self.eps)
            else:
                new = components
        return new, SGDState(state.n_steps + 1, n_seen, eta)


@dataclass
class SurrogateStats:
    """Sufficient statistics of the surrogate f̃_t (Zhao and Tan, eqs. (11)–(12)).

    In scikit-learn orientation: A = mean of h hᵀ (K×K), B = mean of h (v − r)ᵀ (K×F) and
    c = mean of ½‖v − r‖² + λ‖r‖₁, so that f̃_t(D) = ½⟨DDᵀ, A⟩ − ⟨D, B⟩ + c exactly. They are
    sample averages (the mini-batch convention of spec 001 §3.9, which reduces to Algorithm 1
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
        """f̃_t(D) (with the dictionary regularizers of spec 001 §2.3 added once)."""
        val = 0.5 * float(np.sum((D @ D.T) * self.A)) - float(np.sum(D * self.B)) + self.c
        return val + w_l1 * float(np.abs(D).sum()) + 0.5 * w_l2 * float(np.sum(D * D))


DICT_SOLVERS = ("pgd", "apgd", "admm")


def solve_surrogate_dictionary(D0, stats: SurrogateStats, project, *, solver="admm",
                               max_iter=200, tol=1e-4, kappa=0.7, rho=1.0, w_l1=0.0,
                               w_l2=0.0):
    """min_{D ∈ C} ½⟨DDᵀ, A⟩ − ⟨D, B⟩ (+ w_l1‖D‖₁ + (w_l2/2)‖D‖²), warm-started at D0.

    ``"pgd"``: eq. (21) with η̃ = κ/‖A‖_F; ``"apgd"``: its accelerated form (step 1/‖A‖₂, with
    adaptive restart); ``"admm"``: eqs. (33)–(35) with penalty ρ, returning the feasible copy.
    Stops when |Δp|/|p| < tol (p without the constant c, spec §3.7) or after max_iter.

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
        from scipy.linalg import cho_factor, cho_solve

        chol = cho_factor(A + rho * np.eye(k))
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
        eta = 1.0 / max(float(np.linalg.eigvalsh(A)[-1]), 1e-300)
    Dprev, t = D.copy(), 1.0
    for it in range(1, max_iter + 1):
        if solver == "pgd":
            Dn = project(D - eta * (A @ D - B))
        else:
            t_next = 0.5 * (1 + np.sqrt(1 + 4 * t * t))
            Z = D + ((t - 1) / t_next) * (D - Dprev)
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


# ------------------------------------------------------------------------ Poisson rows (spec 003)
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
    c}, found by sorting the thresholds βr_k/s_k (spec 003 §2.6). ``"pgd"``: the paper's
    projected gradient with the Barzilai–Borwein step, warm-started at ``D_prev``.

    Degenerate rows (spec §5): β_i = 0 gives d_i = 0; β_i > 0 with r_i = 0 (the problem is
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
    """Projected gradient with the BB step on every row at once, monotone by halving."""
    f = poisson_row_objective(D, S, beta, R, lam)
    alpha = np.full(D.shape[0], 1e-2)
    Dold = Gold = None
    for _ in range(max_iter):
        dr = np.maximum(np.einsum("ij,ij->i", D, R), 1e-300)
        G = S - (beta / dr)[:, None] * R + 2 * lam * D
        if Gold is not None:
            dD, dG = D - Dold, G - Gold
            num, den = np.einsum("ij,ij->i", dD, dG), np.einsum("ij,ij->i", dG, dG)
            ok = (num > 0) & (den > 0)
            alpha[ok] = np.clip(num[ok] / den[ok], 1e-10, 1e10)
        Dold, Gold = D, G
        Dn = np.maximum(D - alpha[:, None] * G, 0.0)
        fn = poisson_row_objective(Dn, S, beta, R, lam)
        for _ in range(30):
            up = ~(fn <= f)
            if not up.any():
                break
            alpha[up] *= 0.5
            Dn[up] = np.maximum(D[up] - alpha[up, None] * G[up], 0.0)
            fn[up] = poisson_row_objective(Dn[up], S[up], beta[up], R[up], lam)
        up = ~(fn <= f)
        Dn[up], fn[up] = D[up], f[up]
        step = np.linalg.norm(Dn - D, axis=1)
        D, f = Dn, fn
        if np.all(step <= tol * np.maximum(1.0, np.linalg.norm(D, axis=1))):
            break
    return D


def log_jensen_gap(a, b):
    """T_[a,b] = max_c log(ca + (1−c)b) − c log a − (1−c) log b, in closed form
    ln(L/a) − 1 + a/L with L = (b − a)/ln(b/a) the logarithmic mean (spec 003 §2.3): the
    constant of the memory-limited bound (Proposition 1). Zero when a = b."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        L = np.where(b > a, (b - a) / np.log(b / a), a)
        return np.where(b > a, np.log(L / a) - 1.0 + a / L, 0.0)


def bcd_dictionary(D0, A, B, project, *, max_sweeps=10, tol=1e-6):
    """Block coordinate descent over the atoms for min_{D ∈ C} tr(DᵀAD)·½ − tr(DᵀB) (Mairal et
    al. 2010, Alg. 2; the dictionary step of Lyu, Needell and Balzano, Alg. 3 with its
    corrections, spec 004 §2.3): atom j ← Π_j(d_j + (b_j − a_jᵀD)/a_jj), Gauss–Seidel, atoms
    with a_jj = 0 left as they are. Each atom step is exact, so the objective never rises.

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
    for sweeps in range(1, max_sweeps + 1):
        old = D.copy()
        for j in range(D.shape[0]):  # the atoms: a BCD sweep is sequential by definition
            if A[j, j] <= 0:
                continue
            D[j] = project(D[j] + (B[j] - A[j] @ D) / A[j, j])
        if np.linalg.norm(D - old) <= tol * max(np.linalg.norm(old), 1e-300):
            break
    return D, sweeps
