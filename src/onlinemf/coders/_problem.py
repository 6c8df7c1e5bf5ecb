"""The code problem of a mini-batch: min_{h ∈ [ℓ, u]^K} d(x ‖ hD) + (m/2)‖h‖² per row.

Its objective, gradient and box (:class:`CodeProblem`), with a Gram-matrix shortcut for the
squared loss without missing entries, and the two starts the code solvers use: the
scale-matched constant codes (:func:`initial_codes`) and, row by row, the better of those and
the rescaled least-squares codes (:func:`least_squares_start`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_solve

from .._sparse import SparseRows, as_sparse_rows
from .._steps import safe_cho_factor, spectral_lipschitz, spectral_norm_sq
from ..constraints import project_box
from ..losses import Y_FLOOR

__all__ = ["CodeProblem", "initial_codes", "least_squares_start", "clip"]


def initial_codes(
    components: np.ndarray,
    X: np.ndarray,
    mask: np.ndarray | None = None,
    lower: float = 1e-8,
    upper: float = 1e8,
) -> np.ndarray:
    """Scale-matched constant start h⁰ = (Σ_f x_f / Σ_f (1ᵀD)_f) · 1, clipped to the box.

    Over the observed entries only. The paper leaves h⁰ open; this start matches the scale of
    the data.
    """
    colsum = components.sum(axis=0)  # (F,)
    if sp.issparse(X) or isinstance(X, SparseRows):
        X = as_sparse_rows(X)
        num = X.row_sum(X.data)
        den = np.full(X.shape[0], colsum.sum())
    elif mask is None:
        num = X.sum(axis=1)
        den = np.full(X.shape[0], colsum.sum())
    else:
        num = np.where(mask, X, 0).sum(axis=1)
        den = mask @ colsum
    c = np.divide(num, den, out=np.zeros_like(num, dtype=float), where=den > 0)
    H = np.repeat(c[:, None], components.shape[0], axis=1).astype(X.dtype, copy=False)
    return project_box(H, lower, upper)


def least_squares_start(prob, H, f):
    """Each row's better start of two: ``H`` (value ``f``) or its unconstrained least-squares
    codes on the Gram matrix DDᵀ, clipped to the box and rescaled — by the factor minimizing
    the quadratic for the squared loss, by the one matching the row's data sum otherwise (KL's
    optimal factor; a scale-matched guess for the others). O(K²) per row after one K×K
    factorization, plus one objective evaluation. Returns (H, f)."""
    D, X, lower, upper = prob.D, prob.X, prob.lower, prob.upper
    if prob.gram:
        G0, B = prob.G, prob.B
    else:
        G0 = D @ D.T
        B = X.weighted_columns(X.data, D) if prob.sparse else X @ D.T
    k = G0.shape[0]
    G = G0 + (prob.h_l2 + 1e-10 * max(float(np.trace(G0)) / k, 1e-300)) * np.eye(k)
    factor = safe_cho_factor(G, lower=True)
    # G⁻¹ once (K × K), then one product for the whole batch, cheaper than two triangular
    # solves against the batch's transposed right-hand sides
    Z = B @ cho_solve(factor, np.eye(k), check_finite=False)
    Z = np.clip(Z, lower, upper).astype(H.dtype, copy=False)
    if prob.gram:
        num = np.einsum("ij,ij->i", Z, B)
        den = np.einsum("ij,ij->i", Z @ G, Z)
    else:
        num = X.row_sum(X.data) if prob.sparse else X.sum(axis=1)
        den = Z @ D.sum(axis=1)
    scale = np.divide(num, den, out=np.ones_like(den, dtype=float), where=den > 0)
    Z = np.clip(Z * np.maximum(scale, 0.0)[:, None], lower, upper).astype(H.dtype, copy=False)
    with np.errstate(all="ignore"):
        fz = prob.value(Z)
    better = fz < f
    H[better], f[better] = Z[better], fz[better]
    return H, f


def clip(H, lower, upper):
    """Project ``H`` onto the box [lower, upper] in place."""
    return np.clip(H, lower, upper, out=H)


class CodeProblem:
    """The code problem of a batch: objective, gradient and box, with a Gram-matrix shortcut
    for the squared loss without missing entries (grad = H·DDᵀ − X·Dᵀ, O(K²) per sample).

    Parameters
    ----------
    loss : Loss
    D : ndarray of shape (n_components, n_features)
    X : ndarray, CSR matrix or SparseRows of shape (n_samples, n_features)
    mask : ndarray of bool of the shape of X, or None
    h_l2 : float
        Weight m of the Tikhonov term (m/2)‖h‖².
    lower, upper : float
        The box [ℓ, u]^K of the codes.
    """

    def __init__(self, loss, D, X, mask, h_l2, lower=1e-8, upper=1e8):
        self.loss, self.D, self.X, self.mask, self.h_l2 = loss, D, X, mask, h_l2
        self.lower, self.upper = lower, upper
        self.gram = mask is None and loss.quadratic
        self.split = False
        self.sparse = sp.issparse(X) or isinstance(X, SparseRows)
        if self.sparse and not (self.gram or loss.sparse_kernels):
            raise ValueError(f"the {loss.name} loss needs a dense batch (no sparse kernels)")
        if self.sparse and mask is not None:
            raise ValueError("a sparse batch cannot carry a mask")
        if self.sparse:
            self.X = X = as_sparse_rows(X, D)
        if self.gram:
            self.G = D @ D.T
            self.B = X.weighted_columns(X.data, D) if self.sparse else X @ D.T
            self.c = (0.5 * X.squared_norms() if self.sparse
                      else 0.5 * np.einsum("ij,ij->i", X, X))
        elif mask is None and not self.sparse:
            c = loss.data_terms(X)
            if c is not None:
                self.c, self.split = c, True

    def norm_sq(self) -> float:
        """‖D‖₂², the steps' Lipschitz scale: λ_max of the Gram matrix DDᵀ where the Gram
        form has it (finite), else :func:`~onlinemf.coders.spectral_norm_sq` of D; once a
        problem (the coders ask for it in every rule's first step)."""
        norm = self.__dict__.get("_norm_sq")
        if norm is None:
            G = getattr(self, "G", None)
            norm = (spectral_lipschitz(G, floor=0.0)
                    if self.gram and np.isfinite(G).all() else spectral_norm_sq(self.D))
            self._norm_sq = norm
        return norm

    def subset(self, rows):
        """The problem of the given rows (the Gram products and data terms carried over)."""
        sub = object.__new__(CodeProblem)
        sub.__dict__.update(self.__dict__)
        # the Gram form never reads X again: its rows' products B and norms c suffice
        sub.X = None if self.gram else self.X.subset(rows) if self.sparse else self.X[rows]
        sub.mask = None if self.mask is None else self.mask[rows]
        if self.gram:
            sub.B, sub.c = self.B[rows], self.c[rows]
        elif self.split:
            sub.c = self.c[rows]
        return sub

    @property
    def fused(self) -> bool:
        """Whether the value and the gradient share the model, HD (dense) or HD at the
        nonzeros (sparse): all but the Gram form, whose gradient never forms it."""
        return not self.gram

    def model(self, H):
        return self.X.model(H, self.D) if self.sparse else H @ self.D

    def shared(self, H) -> dict:
        """The product the objective and the gradient at ``H`` both start from, for a rule
        that evaluates one and then takes the other at the same codes, as keywords of
        :meth:`value` and :meth:`grad`: ``product`` HG in the Gram form, ``model`` HD (dense,
        or at the nonzeros) otherwise. Passed to both, it is formed once."""
        return {"product": H @ self.G} if self.gram else {"model": self.model(H)}

    def model_rows(self, y, rows):
        """The given rows' part of a model ``y`` from :meth:`model`."""
        return y[self.X.positions(rows)] if self.sparse else y[rows]

    def between(self, y0, y1, lam, rows):
        """The model at h0 + λ(h1 − h0) for the given rows, from the models y0 at h0 and y1
        at h1 of the whole problem: y0 + λ(y1 − y0), the model being linear in h."""
        if self.sparse:
            at = self.X.positions(rows)
            lo = y0[at]
            return lo + self.X.per_nonzero(lam, rows) * (y1[at] - lo)
        lo = y0[rows]
        return lo + lam[:, None] * (y1[rows] - lo)

    def put_model_rows(self, y, rows, values):
        if self.sparse:
            y[self.X.positions(rows)] = values
        else:
            y[rows] = values

    def value(self, H, literal_domain=False, model=None, product=None):
        """Each row's objective at the codes ``H``; ``model``: HD where already formed (not
        read in the Gram form), ``product``: HG in the Gram form where already formed;
        ``literal_domain``: inf where the model leaves a positive loss's domain."""
        if self.sparse and not self.gram:
            f = self.loss.sparse_value(self.X, H, self.D, model=model)
        elif self.gram:
            HG = H @ self.G if product is None else product
            f = 0.5 * np.einsum("ij,ij->i", H, HG) - np.einsum("ij,ij->i", H, self.B) + self.c
            f = np.maximum(f, 0.0)
        elif self.split:
            Y = H @ self.D if model is None else model
            f = np.maximum(self.loss.model_terms(self.X, np.maximum(Y, Y_FLOOR)) + self.c, 0.0)
            if literal_domain:
                f = np.where((Y <= 0).any(axis=1), np.inf, f)
        else:
            f = _objective(self.loss, self.D, self.X, self.mask, H, 0.0, literal_domain,
                           Y=model)
        if self.h_l2:
            f = f + 0.5 * self.h_l2 * np.einsum("ij,ij->i", H, H)
        return f

    def grad(self, H, model=None, product=None):
        """Each row's gradient (a subgradient for ℓ1 and ℓ2) at ``H``; ``model`` and
        ``product`` as in :meth:`value`."""
        if self.gram:
            G = (H @ self.G if product is None else product) - self.B
        elif self.sparse:
            G = self.loss.sparse_code_grad(self.X, H, self.D, model=model)
        else:
            G = self.loss.grad(self.X, H @ self.D if model is None else model,
                               self.mask) @ self.D.T
        if self.h_l2:
            G = G + self.h_l2 * H
        return G


def _objective(loss, D, X, mask, H, h_l2, literal_domain=False, Y=None):
    Y = H @ D if Y is None else Y
    f = loss.value(X, Y, mask)
    if h_l2:
        f = f + 0.5 * h_l2 * np.einsum("ij,ij->i", H, H)
    if literal_domain and loss.positive_model:
        f = np.where((Y <= 0).any(axis=1), np.inf, f)
    return f

