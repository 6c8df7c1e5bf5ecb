"""Euclidean projections onto the dictionary, code and outlier sets, and the proximal maps
(soft thresholds, group shrinkage, the max-norm prox) the solvers share.

All functions are vectorized and return new arrays (inputs are never modified). Orientation is
scikit-learn's: a dictionary is ``components_`` of shape ``(n_components, n_features)`` whose
rows are the atoms (the papers' columns of W), and codes are rows of shape ``(n_components,)``.

The sets of Zhao, Tan and Xu (2016), "Online Nonnegative Matrix Factorization with General
Divergences" (arXiv:1608.00075), Section IV and Supplement S-1:

* C = {W ≥ 0 : every row of W sums to ≥ ε, every column has ∞-norm ≤ 1}, i.e. in our
  orientation every entry of ``components_`` lies in [0, 1] and every *feature column* of
  ``components_`` sums to at least ε. :func:`project_dictionary_box` computes Π_C exactly.
* H = {h : ε′ ≤ h_i ≤ U}, a box: :func:`project_box`.

The atom sets, outlier steps and group shrinkage follow Zhao and Tan (2016), "Online
Nonnegative Matrix Factorization with Outliers" (IEEE Trans. Signal Process. 65(3), 2017;
arXiv:1604.02634); the max-norm prox is the dictionary regularizer of the OMRMD instance in
Zhao, Haskell and Feng (2018), "A Unified Framework for Stochastic Matrix Factorization via
Variance Reduction" (arXiv:1705.10679).
"""

from __future__ import annotations

import numpy as np

from ._steps import MAX_DOUBLINGS

__all__ = [
    "project_box",
    "project_nonnegative",
    "project_simplex",
    "project_capped_floor",
    "project_dictionary_box",
    "project_l2_ball",
    "project_l1_simplex",
    "project_nonneg_l2_ball",
    "project_nonneg_elastic_ball",
    "group_shrink",
    "group_soft_threshold",
    "soft_threshold",
    "outlier_step",
    "max_norm_prox",
]


def project_box(X: np.ndarray, lower: float | np.ndarray, upper: float | np.ndarray) -> np.ndarray:
    """Projection onto the box [lower, upper] (entrywise clipping); Π_H with (ε′, U)."""
    if np.any(np.asarray(lower) > np.asarray(upper)):
        raise ValueError("the box needs lower <= upper")
    return np.clip(X, lower, upper)


def project_nonnegative(X: np.ndarray) -> np.ndarray:
    """Projection onto the nonnegative orthant."""
    return np.maximum(X, 0)


def project_simplex(V: np.ndarray, s: float = 1.0) -> np.ndarray:
    """Project each row of ``V`` onto the scaled simplex {w ≥ 0, Σ w = s}.

    Sort-based O(K log K) per row (Duchi et al., ICML 2008), vectorized over rows.

    Parameters
    ----------
    V : ndarray of shape (n_rows, K) or (K,)
    s : float > 0
    """
    if not s > 0:
        raise ValueError(f"the simplex radius must be positive, got {s!r}")
    V = np.asarray(V)
    vec = V.ndim == 1
    V2 = np.atleast_2d(V)
    K = V2.shape[1]
    U = -np.sort(-V2, axis=1)
    css = np.cumsum(U, axis=1) - s
    idx = np.arange(1, K + 1, dtype=V2.dtype)
    cond = U - css / idx > 0
    rho = K - 1 - np.argmax(cond[:, ::-1], axis=1)  # last index where cond holds
    theta = css[np.arange(V2.shape[0]), rho] / (rho + 1)
    out = np.maximum(V2 - theta[:, None], 0)
    return out[0] if vec else out


def project_capped_floor(V: np.ndarray, floor: float = 1e-8, cap: float = 1.0,
                         out: np.ndarray | None = None) -> np.ndarray:
    """Project each row of ``V`` onto {w : 0 ≤ w ≤ cap, Σ w ≥ floor} exactly (floor < cap).

    Clipping to the box is exact whenever the clipped row still sums to at least ``floor``.
    Otherwise the KKT conditions give w = clip(v + θ, 0, cap) with θ > 0 and Σ w = floor;
    since every entry is then ≤ floor < cap, this is the projection of the original row onto
    the floor-scaled simplex (Zhao, Tan and Xu 2016, Supplement S-1, which says "column" and
    "probability simplex" where the row and the ε-scaled simplex are meant).

    ``out`` (V itself allowed) receives the projection: in place, it saves an array of V's
    size. A row that projects onto the simplex has no entry at or above ``cap`` (its clipped
    sum would reach the floor), so only its negative entries differ from its clipped
    values, and only the rows with a negative entry are kept aside before clipping.
    """
    if not 0 < floor < cap:
        raise ValueError("the row-sum floor must satisfy 0 < floor < cap")
    negative = None
    if out is not None and np.may_share_memory(out, V):
        negative = np.flatnonzero((V < 0).any(axis=1))
        kept = V[negative]
    out = np.clip(V, 0, cap, out=out)
    low = out.sum(axis=1) < floor
    if np.any(low):
        rows = np.flatnonzero(low)
        if negative is None:
            original = V[rows]
        else:  # the clipped rows, with the negative entries of those that had any
            original = out[rows]
            pos = np.full(V.shape[0], -1)
            pos[negative] = np.arange(negative.size)
            p = pos[rows]
            original[p >= 0] = kept[p[p >= 0]]
        out[rows] = _project_small_simplex(original, floor)
    return out


def _project_small_simplex(V: np.ndarray, s: float) -> np.ndarray:
    """:func:`project_simplex` of the rows of ``V`` onto {w ≥ 0, Σ w = s} for a small ``s``,
    with the same arithmetic, without sorting the rows whose answer is known from their two
    largest entries: a row whose runner-up lies at least ``s`` below its maximum projects onto
    that one entry (θ = max − s), and an all-zero row onto s/K everywhere. A dictionary with
    many features has many such rows (features no batch has touched), and sorting them all
    is what the projection would otherwise spend its time on."""
    K = V.shape[1]
    if K < 2:
        return project_simplex(V, s)
    zero = ~np.any(V, axis=1)
    out = np.empty_like(V)
    out[zero] = -(-s / K)
    if zero.all():
        return out
    nonzero = np.flatnonzero(~zero)
    W = V[nonzero]
    top = np.partition(W, K - 2, axis=1)[:, K - 2:]
    u2, u1 = top[:, 0], top[:, 1]
    # the sort-based rule keeps the second entry when u2 − ((u1 + u2) − s)/2 > 0
    single = ~(u2 - ((u1 + u2) - s) / V.dtype.type(2) > 0)
    theta = (u1[single] - s)[:, None]
    W[single] = np.maximum(W[single] - theta, 0)
    if not single.all():
        W[~single] = project_simplex(W[~single], s)
    out[nonzero] = W
    return out


def project_dictionary_box(components: np.ndarray, eps: float = 1e-8,
                           out: np.ndarray | None = None) -> np.ndarray:
    """Π_C for ``components_`` (K, F): entries in [0, 1] and every feature column summing to
    at least ``eps``, so that the reconstruction of any code in H is ≥ ε·ε′ > 0. ``out``
    (``components`` itself allowed) receives the projection."""
    return project_capped_floor(components.T, floor=eps,
                                out=None if out is None else out.T).T


def project_l2_ball(V: np.ndarray, radius: float = 1.0) -> np.ndarray:
    """Project each row of ``V`` onto the ℓ2 ball of the given radius.

    For ``components_`` this is the papers' column ℓ2-ball constraint on the atoms; for a
    batch of codes or outliers it is the unit ℓ2-ball per sample.
    """
    V = np.asarray(V)
    norms = np.linalg.norm(np.atleast_2d(V), axis=1, keepdims=True)
    scale = radius / np.maximum(norms, radius)
    return (np.atleast_2d(V) * scale).reshape(V.shape)


def project_l1_simplex(V: np.ndarray) -> np.ndarray:
    """Project each row of ``V`` onto the probability simplex (nonnegative, ℓ1-normalized)."""
    return project_simplex(V, 1.0)


def project_nonneg_l2_ball(V: np.ndarray, radius: float = 1.0) -> np.ndarray:
    """Project each row onto {w ≥ 0, ‖w‖₂ ≤ radius}: clip, then rescale (Zhao and Tan 2016,
    Lemma S-4; the norm is taken after clipping). The default atom set C of that paper."""
    return project_l2_ball(np.maximum(V, 0), radius)


def project_nonneg_elastic_ball(V: np.ndarray, l1: float, l2: float, n_iter: int = 60
                                ) -> np.ndarray:
    """Project each row onto {w ≥ 0, l1·‖w‖₁ + (l2/2)‖w‖₂² ≤ 1} (the set C₃ of Zhao and Tan
    2016, Section VI-A).

    Rows already inside keep their clipped value; the others are w(μ) = max(v − μ·l1, 0)/(1 +
    μ·l2) with μ > 0 found by bisection (the constraint decreases monotonically in μ). NaN
    entries count as 0; a row with +inf entries goes to the limit of the projection of t·v as
    t → ∞, the point of the ball farthest along those entries (equal values c on them, with
    l1·m·c + (l2/2)·m·c² = 1 for m of them).
    """
    if l1 < 0 or l2 < 0 or (l1 == 0 and l2 == 0):
        raise ValueError("the elastic-net ball needs l1, l2 >= 0, not both zero")
    V = np.atleast_2d(V)
    P = np.maximum(V, 0)

    def g(W):
        return l1 * W.sum(axis=1) + 0.5 * l2 * np.einsum("ij,ij->i", W, W)

    out = P.copy()
    over = g(P) > 1
    if over.any():
        Vo = V[over]
        if not np.isfinite(Vo).all():
            Vo = _elastic_limits(Vo, l1, l2)
        lo = np.zeros(Vo.shape[0])
        hi = np.ones(Vo.shape[0])
        for _ in range(MAX_DOUBLINGS):  # grow the bracket until the constraint holds at hi
            W = np.maximum(Vo - hi[:, None] * l1, 0) / (1 + hi[:, None] * l2)
            bad = g(W) > 1
            if not bad.any():
                break
            hi[bad] *= 2
        for _ in range(n_iter):
            mid = 0.5 * (lo + hi)
            W = np.maximum(Vo - mid[:, None] * l1, 0) / (1 + mid[:, None] * l2)
            big = g(W) > 1
            lo = np.where(big, mid, lo)
            hi = np.where(big, hi, mid)
        out[over] = np.maximum(Vo - hi[:, None] * l1, 0) / (1 + hi[:, None] * l2)
    return out


def _elastic_limits(V: np.ndarray, l1: float, l2: float) -> np.ndarray:
    """V with NaN as 0 and each row holding +inf replaced by its projection's limit (see
    :func:`project_nonneg_elastic_ball`), a point on the ball, which the bisection keeps."""
    V = np.nan_to_num(V, nan=0.0, posinf=np.inf, neginf=0.0)
    up = np.isposinf(V)
    rows = up.any(axis=1)
    m = up[rows].sum(axis=1).astype(float)
    if l2 > 0:
        c = (-l1 * m + np.sqrt((l1 * m) ** 2 + 2.0 * l2 * m)) / (l2 * m)
    else:
        c = 1.0 / (l1 * m)
    V[rows] = np.where(up[rows], c[:, None], 0.0)
    return V


def soft_threshold(X: np.ndarray, lam: float) -> np.ndarray:
    """S_λ(x) = sgn(x)·max(|x| − λ, 0), elementwise: the prox of λ‖·‖₁."""
    return X - np.minimum(np.maximum(X, -lam), lam)  # np.clip's value, by its two ufuncs


def outlier_step(U: np.ndarray, lam: float, bound: float, nonneg: bool = False) -> np.ndarray:
    """argmin_{r ∈ R} ½‖u − r‖² + λ‖r‖₁: clip(S_λ(u), −M, M) (Zhao and Tan 2016, Lemma S-3),
    or clip(u − λ, 0, M) for nonnegative outliers (Section VI-A of that paper). The clip comes
    after the threshold."""
    # clips as np.maximum then np.minimum, the two ufuncs np.clip applies (the same values
    # and dtype: an `out=` is used only where np.clip's was)
    if nonneg:
        return np.minimum(np.maximum(U - lam, 0.0), bound)
    R = np.maximum(U, -lam)
    np.minimum(R, lam, out=R)
    np.subtract(U, R, out=R)  # the soft threshold, in the one new array
    if np.isfinite(bound):  # (a clip to ±inf would be a pass over R for nothing)
        np.maximum(R, -bound, out=R)
        np.minimum(R, bound, out=R)
    return R


def group_soft_threshold(Z: np.ndarray, group_size: int, thresh: float,
                         weighted: bool = False) -> np.ndarray:
    """Prox of thresh·Σ_g w_g‖z_g‖₂ over contiguous groups of ``group_size`` coordinates of
    the last axis (the last group may be shorter): each group is scaled by
    max(0, 1 − thresh·w_g/‖z_g‖), with w_g = √|g| when ``weighted`` (group lasso) else 1."""
    Z = np.asarray(Z)
    out = Z.astype(Z.dtype if np.issubdtype(Z.dtype, np.floating) else float, copy=True)
    if thresh <= 0:
        return out
    for start in range(0, Z.shape[-1], group_size):  # groups, not samples: vectorized rows
        block = out[..., start:start + group_size]
        norm = np.linalg.norm(block, axis=-1, keepdims=True)
        w = np.sqrt(block.shape[-1]) if weighted else 1.0
        out[..., start:start + group_size] = block * np.maximum(
            0.0, 1.0 - thresh * w / np.maximum(norm, 1e-300))
    return out


def group_shrink(H: np.ndarray, group_size: int, thresh: float) -> np.ndarray:
    """Prox of thresh·Σ_α √ξ_α ‖h_α‖₂ on nonnegative codes (group lasso; Zhao and Tan 2016,
    Section VI-B):
    :func:`group_soft_threshold` (weighted) of max(h, 0)."""
    return group_soft_threshold(np.maximum(H, 0), group_size, thresh, weighted=True)


def max_norm_prox(D: np.ndarray, c: float) -> np.ndarray:
    """prox of (c/2)‖W‖²_{2,∞} for W = Dᵀ: the largest feature-column norm ρ_j of D is shrunk.

    With τ ≥ 0 solving c·τ = Σ_j max(ρ_j − τ, 0), columns with ρ_j > τ are rescaled to norm τ
    and the others are left as they are (the OMRMD regularizer of Zhao, Haskell and Feng 2018).
    """
    rho = np.linalg.norm(D, axis=0)
    if c <= 0 or not rho.any():
        return D.copy()
    srt = np.sort(rho)[::-1]
    csum = np.cumsum(srt)
    # with the top j columns active, τ = csum_j / (c + j); find the j consistent with it
    j = np.arange(1, srt.size + 1)
    tau_j = csum / (c + j)
    nxt = np.append(srt[1:], 0.0)
    ok = (tau_j >= nxt) & (tau_j <= srt)
    tau = tau_j[np.argmax(ok)]
    scale = np.where(rho > tau, tau / np.maximum(rho, 1e-300), 1.0)
    return D * scale
