"""Code (coefficient) solvers: min_{h ∈ H} d(x ‖ hD) + (m/2)‖h‖² for a whole mini-batch.

Each sample's problem is independent (the divergences are column-separable), so the solvers
work on the batch at once with one step size per sample, and freeze the samples that have
converged (an active set). The result is the same as a loop over single samples.

Algorithm 2 of Zhao, Tan and Xu (2016), "Online Nonnegative Matrix Factorization with General
Divergences" (arXiv:1608.00075): projected (sub)gradient descent, eq. (12), with the step
rules of Section V-C:

* ``"armijo"``: Algorithm 3 (α = 0.01, γ = 0.1, q = 10). The default is the projected form
  analysed by Calamai and Moré: accept the first ξ ∈ {1, γ, …, γ^q} with
  f(Π(h − ξg)) ≤ f(h) + α⟨g, Π(h − ξg) − h⟩; a non-finite value is a rejection and a sample with
  no accepted ξ keeps its h and stops. ``armijo="literal"`` is the paper's listing verbatim:
  the test is on the unprojected point h − ξg with decrease α ξ ‖g‖², ξ = γ^(q+1) is returned
  when nothing was accepted, and the step is then applied through Π_H.
* ``"lipschitz"``: the constant step 1/L with L = c‖D‖₂² (+ m), c the loss curvature bound
  (1 for the squared and Huber losses); ‖D‖₂² by the symmetric eigensolver on the Gram matrix.
* ``"polyak"``: the modified Polyak step for ℓ1 with target level f_best − δ (δ = 0.01),
  returning the best iterate seen (subgradient steps are not monotone).
* ``"mu"``: the multiplicative update of the β-divergences (KL, IS, β), h ← h ⊙
  ((P Dᵀ)/(Q Dᵀ))^γ with the exponent γ of Févotte and Idier (2011) that makes it minimize an
  auxiliary function, so every iteration lowers each sample's objective without evaluating it
  (no logarithm per entry: on IS that evaluation is most of an iteration's cost).
* ``"admm"``: for a loss φ(x − y) with a closed-form proximal map (ℓ1, ℓ2), the ADMM of
  :mod:`._admm`, which reaches the minimum where the subgradient rules stall.
* ``"exact"``: for a quadratic objective in Gram form (the squared loss without missing
  entries), projected gradient with the long Barzilai–Borwein trial step and the exact
  minimizer along the projected direction, clipped to the segment: monotone, and neither the
  objective nor the gradient is ever re-evaluated (both follow from one K × K product per
  iteration). Elsewhere it is ``"spg"``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_solve

from .._sparse import SparseRows, as_sparse_rows
from .._steps import bb_step, nesterov_momentum, safe_cho_factor, spectral_norm_sq
from ..constraints import project_box
from ..losses import Y_FLOOR, Loss
from ._admm import solve_codes_admm

__all__ = ["CodeResult", "solve_codes", "spectral_norm_sq", "initial_codes", "STEP_RULES"]

STEP_RULES = ("spg", "armijo", "lipschitz", "polyak", "fista", "bb", "mu", "exact", "admm")

#: the multiplicative coder starts from the better of the constant and least-squares codes,
#: each code at least this fraction of the constant one
MU_START_FLOOR = 0.6


@dataclass
class CodeResult:
    """Output of :func:`solve_codes`.

    Attributes
    ----------
    codes : ndarray of shape (n_samples, n_components)
    n_iter : ndarray of int, shape (n_samples,)
        Projected-gradient iterations run per sample.
    converged : ndarray of bool, shape (n_samples,)
        Whether the sample met a stopping rule before ``max_iter``.
    objective : ndarray of shape (n_samples,) or None
        Each sample's objective d(x ‖ hD) + (m/2)‖h‖² at the returned codes (None when no
        iteration ran).
    """

    codes: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray
    objective: np.ndarray | None = None


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


def _least_squares_start(prob, H, f, lower, upper):
    """Each row's better start of two: ``H`` (value ``f``) or its unconstrained least-squares
    codes on the Gram matrix DDᵀ, clipped to the box and rescaled — by the factor minimizing
    the quadratic for the squared loss, by the one matching the row's data sum otherwise (KL's
    optimal factor; a scale-matched guess for the others). O(K²) per row after one K×K
    factorization, plus one objective evaluation. Returns (H, f)."""
    D, X = prob.D, prob.X
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


def _clip(H, lower, upper):
    return np.clip(H, lower, upper, out=H)


class _Problem:
    """The code problem of a batch: objective and gradient, with a Gram-matrix shortcut for
    the squared loss without missing entries (grad = H·DDᵀ − X·Dᵀ, O(K²) per sample)."""

    def __init__(self, loss, D, X, mask, h_l2):
        self.loss, self.D, self.X, self.mask, self.h_l2 = loss, D, X, mask, h_l2
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

    def subset(self, rows):
        sub = object.__new__(_Problem)
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

    def value(self, H, literal_domain=False, model=None):
        if self.sparse and not self.gram:
            f = self.loss.sparse_value(self.X, H, self.D, model=model)
        elif self.gram:
            HG = H @ self.G
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

    def grad(self, H, model=None):
        if self.gram:
            G = H @ self.G - self.B
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


def solve_codes(
    loss: Loss,
    components: np.ndarray,
    X: np.ndarray,
    mask: np.ndarray | None = None,
    *,
    step: str | None = None,
    init: np.ndarray | None = None,
    lower: float = 1e-8,
    upper: float = 1e8,
    max_iter: int = 100,
    tol: float = 1e-4,
    f_tol: float = 1e-6,
    h_l2: float = 0.0,
    armijo: str = "projected",
    armijo_alpha: float = 0.01,
    armijo_gamma: float = 0.1,
    armijo_q: int = 10,
    armijo_init: str = "previous",
    polyak_delta: float = 0.01,
    lipschitz: float | None = None,
    bb_step0: float | None = None,
    spg_memory: int = 10,
    start: str = "best",
) -> CodeResult:
    """Solve the code problems of a mini-batch by projected (sub)gradient descent.

    Parameters
    ----------
    loss : Loss
    components : ndarray of shape (n_components, n_features)
        The dictionary D = Wᵀ.
    X : ndarray or CSR matrix of shape (n_samples, n_features)
        Data (any value where ``mask`` is False). A CSR batch (no mask) is solved from its
        nonzeros for the squared loss and losses with ``sparse_kernels`` (KL).
    mask : ndarray of bool or None
        True where observed.
    step : {"spg", "armijo", "lipschitz", "polyak", "fista", "bb", "mu", "exact"} or None
        Step rule; None takes the loss's default (the paper's assignment, Section V-C).
        "exact" is projected gradient with the exact line search of a quadratic (the squared
        loss without a mask; "spg" otherwise), see the module docstring.
        "spg" is the spectral projected gradient: the long Barzilai–Borwein step with a
        non-monotone Armijo test over the last ``spg_memory`` objective values (one objective
        and one gradient per iteration in the common case; the fast default of the
        estimators for smooth losses). "mu" is the multiplicative update of the
        β-divergences (see the module docstring), which stops on ``tol`` and ``max_iter``
        only; without ``init`` it starts from the better of the constant and least-squares
        codes, each code floored at ``MU_START_FLOOR`` times the constant one.
    init : ndarray of shape (n_samples, n_components) or None
        Start h⁰; None uses :func:`initial_codes`.
    lower, upper : float
        The box H = [ε′, U]^K.
    max_iter : int
        Iteration cap per sample.
    tol : float
        Stop when ‖h^k − h^{k−1}‖ ≤ tol · ‖h^{k−1}‖.
    f_tol : float
        Also stop when the relative decrease of the objective is ≤ f_tol (not for Polyak,
        which is not monotone).
    h_l2 : float
        Weight m of the optional Tikhonov term (m/2)‖h‖² (Remark 7; 0 in the paper).
    armijo : {"projected", "literal"}
    armijo_alpha, armijo_gamma, armijo_q : float, float, int
        Algorithm 3's α, γ and q.
    armijo_init : {"previous", "one"}
        First trial step of each backtracking: ξ = 1 at every iteration as in Algorithm 3
        ("one"), or min(1, ξ_prev/γ) from the sample's previous accepted step ("previous",
        default; the reuse of the last step in Lin (2007), the paper's ref. [65]), which saves
        most backtracking evaluations. The first iteration always starts at ξ = 1.
    polyak_delta : float
        δ_tol of the modified Polyak step, in the units of the loss.
    lipschitz : float or None
        Precomputed L for the constant step; computed from ``components`` when None.
    bb_step0 : float or None
        First step of the Barzilai–Borwein rule ("bb": α_k = ΔhᵀΔg/‖Δg‖², the short BB step
        of Wang and Chi's coefficient solver, clipped to [1e-10, 1e10], the previous α kept
        when the quotient is undefined, and halved up to 30 times while the objective rises,
        so the iteration is monotone), and of "spg". None uses 1/(‖D‖₂² + m) for the squared
        loss and 1/(‖D‖₂²·max(1, max x) + m) otherwise.
    spg_memory : int
        Number of recent objective values the non-monotone test of "spg" compares against.
    start : {"best", "constant"}
        Without ``init`` (and without a mask): "constant" starts from the scale-matched
        constant codes of :func:`initial_codes`; "best" from the better, row by row, of
        those and the rescaled, clipped least-squares codes, which needs fewer iterations
        and ends at a lower objective.

    Returns
    -------
    CodeResult
    """
    step = step or loss.default_step
    if step not in STEP_RULES:
        raise ValueError(f"unknown code step {step!r}; choose one of {STEP_RULES}")
    if armijo not in ("projected", "literal"):
        raise ValueError(f"armijo must be 'projected' or 'literal', got {armijo!r}")
    if start not in ("best", "constant"):
        raise ValueError(f"start must be 'best' or 'constant', got {start!r}")
    if armijo_init not in ("previous", "one"):
        raise ValueError(f"armijo_init must be 'previous' or 'one', got {armijo_init!r}")
    D = components
    n = X.shape[0]
    if step == "admm" and sp.issparse(X):
        X = X.toarray()  # the losses with a proximal map have no sparse kernels
    H = initial_codes(D, X, mask, lower, upper) if init is None else np.clip(init, lower, upper)
    H = np.array(H, dtype=X.dtype)
    if step == "admm":
        if not loss.residual_prox_available:
            raise ValueError(f"code step 'admm' needs a loss with a closed-form proximal map "
                             f"(l1, l2); the {loss.name} loss has none")
        if init is None and start == "best" and mask is None and n:
            full = _Problem(loss, D, X, None, h_l2)
            H, _ = _least_squares_start(full, H, full.value(H), lower, upper)
        codes, n_it, conv, f = solve_codes_admm(loss, D, X, mask, H, lower=lower, upper=upper,
                                                max_iter=max_iter, tol=tol, h_l2=h_l2)
        return CodeResult(codes.astype(H.dtype, copy=False), n_it, conv, f)
    sparse = sp.issparse(X) or isinstance(X, SparseRows)
    if sparse:
        X = as_sparse_rows(X, D)
    if init is not None and loss.positive_model and n and not sparse:
        # a start with a zero rate where the data are positive sits on the floor of the
        # divergence (gradients ~ x/1e-16): restart those rows from the scale-matched point
        pos = (X > 0) if mask is None else (mask & (X > 0))
        bad = ((H @ D <= 0) & pos).any(axis=1)
        if bad.any():
            sub_mask = None if mask is None else mask[bad]
            H[bad] = initial_codes(D, X[bad], sub_mask, lower, upper)
    n_iter = np.zeros(n, dtype=np.int64)
    converged = np.zeros(n, dtype=bool)
    if n == 0 or max_iter <= 0:
        return CodeResult(H, n_iter, converged)

    full = _Problem(loss, D, X, mask, h_l2)
    prob = full
    act = np.arange(n)
    if step == "mu":
        if init is None and start == "best" and mask is None:
            # the better start, floored at 0.6 of the constant one: a multiplicative step
            # cannot revive a code the least-squares start clipped to the floor
            H, _ = _least_squares_start(full, H, prob.value(H), lower, upper)
            np.maximum(H, MU_START_FLOOR * initial_codes(D, X, None, lower, upper), out=H)
        _mu_iterations(full, H, n_iter, converged, max_iter, tol, lower, upper)
        return CodeResult(H, n_iter, converged, full.value(H))
    f = prob.value(H)
    if init is None and start == "best" and mask is None:
        H, f = _least_squares_start(full, H, f, lower, upper)
    if step == "exact":
        if full.gram:
            a0 = bb_step0 if bb_step0 is not None else 1.0 / (spectral_norm_sq(D) + h_l2 + 1e-300)
            _exact_iterations(full, H, f, n_iter, converged, max_iter, tol, f_tol, lower,
                              upper, a0)
            return CodeResult(H, n_iter, converged, f)
        step = "spg"
    if step in ("lipschitz", "fista"):
        if lipschitz is None:
            c = loss.curvature()
            if c is None:
                raise ValueError(f"the {loss.name} loss has no global curvature bound; use armijo")
            lipschitz = c * spectral_norm_sq(D) + h_l2
        inv_L = 1.0 / max(lipschitz, np.finfo(float).tiny)

    Ha, fa = H, f.copy()
    xi = np.ones(n, dtype=H.dtype)
    if step == "fista":
        mom = np.ones(n)  # FISTA's t_k per sample
        Hprev = H.copy()
    if step in ("bb", "spg"):
        if bb_step0 is None:
            if full.gram:
                bb_step0 = 1.0 / (spectral_norm_sq(D) + h_l2 + 1e-300)
            else:
                top = (float(X.data.max()) if X.nnz else 1.0) if sparse else (
                    float(np.nanmax(X)) if X.size else 1.0)
                bb_step0 = 1.0 / (spectral_norm_sq(D) * max(1.0, top) + h_l2 + 1e-300)
        alpha = np.full(n, bb_step0, dtype=H.dtype)
        Hold, Gold = H.copy(), np.zeros_like(H)
        first = True
    if step == "spg":
        f_recent = np.full((n, spg_memory), -np.inf)
        f_recent[:, 0] = f
    if step == "polyak":
        best_f, best_H = f.copy(), H.copy()

    # rows that stop are frozen in place (``live`` False) and compacted away only once they
    # are a quarter of the working set: each compaction copies the batch's rows, so
    # compacting at every stop would cost more than computing on a few settled rows
    live = np.ones(n, dtype=bool)
    G_next = None  # the gradient at the accepted point, when the step already formed it
    Y = None  # SPG on a sparse batch with a model (not the Gram form): the model at Ha
    for it in range(max_iter):
        if G_next is None:
            Y = prob.model(Ha) if step == "spg" and prob.fused and prob.sparse else None
            G = prob.grad(Ha, model=Y)
        else:
            G = G_next
        G_next = None
        n_iter[act[live]] += 1
        stop = np.zeros(act.size, dtype=bool)
        if step == "lipschitz":
            Hn = _clip(Ha - inv_L * G, lower, upper)
            fn = prob.value(Hn)
        elif step == "fista":
            Hn, fn = _fista_step(prob, Ha, fa, Hprev, mom, act, inv_L, lower, upper)
            Hprev[act] = Ha
        elif step in ("bb", "spg"):
            if not first:
                alpha[act] = bb_step(Ha - Hold[act], G - Gold[act], alpha[act],
                                     "short" if step == "bb" else "long")
            first = False
            Hold[act], Gold[act] = Ha, G
            if step == "bb":
                Hn, fn, alpha[act] = _bb_step(prob, Ha, fa, G, alpha[act], lower, upper)
            else:
                Hn, fn, failed, G_next, Y = _spg_step(
                    prob, Ha, fa, f_recent[act].max(axis=1), G, alpha[act], lower, upper,
                    armijo_alpha, live, Y)
                f_recent[act, (it + 1) % spg_memory] = fn
                stop |= failed
        elif step == "polyak":
            g2 = np.einsum("ij,ij->i", G, G)
            stop |= g2 == 0
            beta = np.divide(fa - best_f[act] + polyak_delta, g2, out=np.zeros_like(g2),
                             where=g2 > 0)
            Hn = _clip(Ha - beta[:, None] * G, lower, upper)
            fn = prob.value(Hn)
            better = fn < best_f[act]
            best_f[act[better]] = fn[better]
            best_H[act[better]] = Hn[better]
        else:
            Hn, fn, xa, failed = _armijo_step(prob, Ha, fa, G, xi[act], lower, upper,
                                              armijo == "literal", armijo_alpha, armijo_gamma,
                                              armijo_q)
            if armijo_init == "previous":
                xi[act] = np.minimum(1.0, xa / armijo_gamma)
            stop |= failed
        dead = ~live
        if dead.any():
            Hn[dead], fn[dead] = Ha[dead], fa[dead]
        dH = Hn - Ha
        dh2 = np.einsum("ij,ij->i", dH, dH)
        if it > 0 or step not in ("bb", "spg"):
            # the first Barzilai–Borwein step has a guessed length (bb_step0), so a short
            # first step says nothing about convergence: on counts of a few hundred it is
            # ~1/(‖D‖²·max x) and would stop every refit at once
            stop |= dh2 <= tol * tol * np.einsum("ij,ij->i", Ha, Ha)
        if step == "spg":  # not monotone: a small change either way
            stop |= np.abs(fa - fn) <= f_tol * np.abs(fa)
        elif step != "polyak":
            stop |= (fa - fn) <= f_tol * np.abs(fa)
        stop &= live
        H[act] = Hn
        f[act] = fn
        if stop.any():
            converged[act[stop]] = True
            live &= ~stop
            if not live.any():
                break
            if 4 * (live.size - np.count_nonzero(live)) >= live.size:
                if Y is not None:
                    Y = prob.model_rows(Y, np.flatnonzero(live))
                act = act[live]
                prob = full.subset(act)
                Hn, fn = Hn[live], fn[live]
                if G_next is not None:
                    G_next = G_next[live]
                live = np.ones(act.size, dtype=bool)
        Ha, fa = Hn, fn

    if step == "polyak":
        H, f = best_H, best_f
    return CodeResult(H, n_iter, converged, f)


def _exact_iterations(prob, H, f, n_iter, converged, max_iter, tol, f_tol, lower, upper,
                      alpha0):
    """Projected gradient on the quadratic ½hᵀGh − hᵀb + c (G = DDᵀ + m·I) in place on
    ``H`` and its objective ``f``: per row, the trial point P = Π(h − αg) with α the long
    Barzilai–Borwein step, then h ← h + λ(P − h) with λ ∈ [0, 1] the exact minimizer along the
    segment (which lies in the box). With d = P − h the change of the gradient is λ·dG and of
    the objective λ⟨g, d⟩ + ½λ²⟨d, dG⟩, and the next BB step is ⟨d, d⟩/⟨d, dG⟩, so each
    iteration costs one (rows × K) × (K × K) product. A row stops when its step is within
    ``tol`` of its codes (after the first, whose length is a guess) or its objective falls by
    at most ``f_tol`` relative; stopped rows keep their codes."""
    k = H.shape[1]
    Gm = prob.G + prob.h_l2 * np.eye(k) if prob.h_l2 else prob.G
    grad = H @ Gm - prob.B
    alpha = np.full(H.shape[0], alpha0, dtype=H.dtype)
    live = np.ones(H.shape[0], dtype=bool)
    for it in range(max_iter):
        P = _clip(H - alpha[:, None] * grad, lower, upper)
        d = P - H
        gd = np.einsum("ij,ij->i", grad, d)  # ≤ 0: a projected gradient direction
        Gd = d @ Gm
        curv = np.einsum("ij,ij->i", d, Gd)
        with np.errstate(divide="ignore", invalid="ignore"):
            lam = np.where(curv > 0, np.clip(-gd / curv, 0.0, 1.0), 1.0)
        lam[~live] = 0.0
        alpha = bb_step(d, Gd, alpha, "long")  # s = λd, y = λ·dG: the same quotient
        n_iter[live] += 1
        step_sq = lam * lam * np.einsum("ij,ij->i", d, d)
        drop = -(lam * gd + 0.5 * lam * lam * curv)  # the objective's decrease, ≥ 0
        H += lam[:, None] * d
        grad += lam[:, None] * Gd
        stop = drop <= f_tol * np.abs(f)
        if it > 0:
            stop |= step_sq <= tol * tol * np.einsum("ij,ij->i", H, H)
        np.maximum(f - drop, 0.0, out=f)
        stop &= live
        converged[stop] = True
        live &= ~stop
        if not live.any():
            return


def _mu_iterations(prob, H, n_iter, converged, max_iter, tol, lower, upper):
    """Multiplicative updates of the codes in place, h ← Π(h ⊙ ((P Dᵀ)/(Q Dᵀ + m h))^γ),
    (P, Q) from :meth:`onlinemf.losses.Loss.mu_code_products` (the Tikhonov term m‖h‖²/2 joins
    the denominator, as its gradient is positive). A sample stops once
    ‖h⁺ − h‖ ≤ tol·‖h‖; the stopped samples leave the working set when they are a quarter of
    it (see the main loop of :func:`solve_codes`)."""
    loss = prob.loss
    if not loss.majorized_mu:
        raise ValueError(f"code step 'mu' needs a beta-divergence (kl, is, beta); the "
                         f"{loss.name} loss has no majorized multiplicative update")
    gamma = loss.mu_exponent
    act = np.arange(H.shape[0])
    live = np.ones(act.size, dtype=bool)
    sub = prob
    for _ in range(max_iter):
        Ha = H[act]
        num, den = loss.mu_code_products(sub.X, Ha, sub.D, sub.mask)
        if sub.h_l2:
            den = den + sub.h_l2 * Ha
        ratio = np.divide(num, den, out=np.ones_like(num), where=den > 0)
        Hn = _clip(Ha * (ratio if gamma == 1.0 else ratio ** gamma), lower, upper)
        dH = Hn - Ha
        stop = live & (np.einsum("ij,ij->i", dH, dH) <= tol * tol * np.einsum("ij,ij->i", Ha, Ha))
        n_iter[act[live]] += 1
        H[act[live]] = Hn[live]
        converged[act[stop]] = True
        live &= ~stop
        if not live.any():
            return
        if 4 * (live.size - np.count_nonzero(live)) >= live.size:
            act = act[live]
            sub = prob.subset(act)
            live = np.ones(act.size, dtype=bool)


def _fista_step(prob, H, f0, Hprev, mom, act, inv_L, lower, upper):
    """One accelerated projected step (Beck and Teboulle 2009) from the extrapolated point,
    with the adaptive restart of O'Donoghue and Candès (2015): a sample whose objective would
    rise takes a plain projected step from H and restarts its momentum. Monotone."""
    t_next, w = nesterov_momentum(mom[act])
    Z = H + w[:, None] * (H - Hprev[act])
    Hn = _clip(Z - inv_L * prob.grad(Z), lower, upper)
    fn = prob.value(Hn)
    up = fn > f0
    if up.any():
        sub = prob.subset(np.flatnonzero(up))
        Hu = _clip(H[up] - inv_L * sub.grad(H[up]), lower, upper)
        Hn[up], fn[up] = Hu, sub.value(Hu)
        t_next[up] = 1.0
    mom[act] = t_next
    return Hn, fn


def _spg_step(prob, H, f0, f_ref, G, alpha, lower, upper, gamma, live, y0=None,
              max_backtracks=30):
    """One spectral projected-gradient step per row (Birgin, Martínez and Raydan 2000, SPG2):
    the projected point P = Π(H − αG) along d = P − H, backtracked H + λd (λ by safeguarded
    quadratic interpolation) until the non-monotone Armijo test f ≤ f_ref + γλ⟨G, d⟩ holds,
    f_ref the row's largest objective of its last few iterations (Grippo, Lampariello and
    Lucidi 1986). Rows with no accepted λ keep H and are reported failed. Rows not ``live``
    (stopped, kept in place by the caller) are never backtracked.

    Sparse problems pass ``y0``, the model at H (at the nonzeros): the model at a trial
    H + λd is then y0 + λ(y_P − y0), the model being linear in h, so backtracking gathers no
    columns of D and forms no product with them, and the gradient at the accepted point is
    formed from its model. Dense batches recompute the model, whose product costs about as
    much as the interpolation.

    Returns (H_new, f_new, failed, G_new, y_new): the gradient at H_new (None for the Gram
    form, whose gradient never forms the model, and after a dense backtrack) and the model
    at H_new (sparse problems only)."""
    P = _clip(H - alpha[:, None] * G, lower, upper)
    d = P - H
    gd = np.einsum("ij,ij->i", G, d)
    y = prob.model(P) if prob.fused else None
    fn = prob.value(P, model=y)
    ok = (np.isfinite(fn) & (fn <= f_ref + gamma * gd)) | ~live
    failed = np.zeros(H.shape[0], dtype=bool)
    if ok.all():
        return (P, fn, failed, None if y is None else prob.grad(P, model=y),
                y if prob.sparse else None)
    Hn = P
    pend = np.flatnonzero(~ok)
    sub = prob.subset(pend)
    if prob.gram:
        # a quadratic objective: its exact minimizer along d, in closed form (the
        # interpolation below would reach it after one trial, but rows whose minimizer lies
        # below λ/10 would then crawl down by tenths, one objective evaluation per tenth)
        dp = d[pend]
        curv = np.einsum("ij,ij->i", dp @ prob.G, dp)
        if prob.h_l2:
            curv = curv + prob.h_l2 * np.einsum("ij,ij->i", dp, dp)
        with np.errstate(divide="ignore", invalid="ignore"):
            lam = np.where(curv > 0, np.clip(-gd[pend] / curv, 0.0, 1.0), 1.0)
        Ht = H[pend] + lam[:, None] * dp
        ft = sub.value(Ht)
        good = np.isfinite(ft) & (ft <= f_ref[pend] + gamma * lam * gd[pend])
        Hn[pend[good]], fn[pend[good]] = Ht[good], ft[good]
        failed[pend[~good]] = True
        Hn[pend[~good]], fn[pend[~good]] = H[pend[~good]], f0[pend[~good]]
        return Hn, fn, failed, None, None
    start = pend
    lam = np.ones(H.shape[0], dtype=H.dtype)
    f_try = fn.copy()
    for _ in range(max_backtracks):
        # the minimizer of the quadratic through f(H), its slope and f(H + λd), kept in
        # [λ/10, λ/2] (SPG2's safeguarded interpolation); a non-finite trial takes λ/10
        lp, gp, fp = lam[pend], gd[pend], f_try[pend]
        curv = fp - f0[pend] - lp * gp
        with np.errstate(divide="ignore", invalid="ignore"):
            quad = np.where(np.isfinite(fp) & (curv > 0), -0.5 * lp * lp * gp / curv, 0.1 * lp)
        lam[pend] = np.clip(quad, 0.1 * lp, 0.5 * lp)
        Ht = H[pend] + lam[pend, None] * d[pend]
        yt = None if y0 is None else prob.between(y0, y, lam[pend], pend)
        ft = sub.value(Ht, model=yt)
        f_try[pend] = ft
        good = np.isfinite(ft) & (ft <= f_ref[pend] + gamma * lam[pend] * gd[pend])
        Hn[pend[good]], fn[pend[good]] = Ht[good], ft[good]
        if good.any():
            sub = sub.subset(np.flatnonzero(~good))
        pend = pend[~good]
        if not pend.size:
            break
    else:
        failed[pend] = True
        Hn[pend], fn[pend] = H[pend], f0[pend]
        lam[pend] = 0.0
    if y0 is None:
        return Hn, fn, failed, None, None
    y_new = y.copy()
    prob.put_model_rows(y_new, start, prob.between(y0, y, lam[start], start))
    return Hn, fn, failed, prob.grad(Hn, model=y_new), y_new


def _bb_step(prob, H, f0, G, alpha, lower, upper, max_halvings=30):
    """A projected step with per-row steps ``alpha``, halved (at most ``max_halvings`` times)
    on the rows whose objective would rise; such rows keep H if no step helps."""
    alpha = alpha.copy()
    Hn = _clip(H - alpha[:, None] * G, lower, upper)
    fn = prob.value(Hn)
    for _ in range(max_halvings):
        up = ~(fn <= f0)
        if not up.any():
            break
        alpha[up] *= 0.5
        rows = np.flatnonzero(up)
        sub = prob.subset(rows)
        Hn[rows] = _clip(H[rows] - alpha[rows, None] * G[rows], lower, upper)
        fn[rows] = sub.value(Hn[rows])
    else:
        up = ~(fn <= f0)
        Hn[up], fn[up] = H[up], f0[up]
    return Hn, fn, alpha


def _armijo_step(prob, H, f0, G, xi0, lower, upper, literal, alpha, gamma, q):
    """One Armijo-backtracked projected step per row, from per-row first trials ``xi0``.

    Returns (H_new, f_new, accepted_xi, failed).
    """
    Hn = H.copy()
    fn = f0.copy()
    xi_acc = xi0.copy()
    failed = np.zeros(H.shape[0], dtype=bool)
    pend = np.arange(H.shape[0])
    sub = prob
    xi = xi0.copy()
    g2 = np.einsum("ij,ij->i", G, G) if literal else None
    for _ in range(q + 1):
        Hp, Gp, xp = H[pend], G[pend], xi[pend][:, None]
        if literal:
            Ht = Hp - xp * Gp
            ft = sub.value(Ht, literal_domain=True)
            ok = np.isfinite(ft) & (ft <= f0[pend] - alpha * xi[pend] * g2[pend])
            Ht = _clip(Ht, lower, upper)
            ft = sub.value(Ht)
        else:
            Ht = _clip(Hp - xp * Gp, lower, upper)
            ft = sub.value(Ht)
            ok = np.isfinite(ft) & (ft <= f0[pend] + alpha * np.einsum("ij,ij->i", Gp, Ht - Hp))
        acc = pend[ok]
        Hn[acc], fn[acc], xi_acc[acc] = Ht[ok], ft[ok], xi[acc]
        if ok.all():
            return Hn, fn, xi_acc, failed
        pend = pend[~ok]
        sub = prob.subset(pend)
        xi[pend] *= gamma
    if literal:
        # Algorithm 3 returns ξ = γ^(q+1) even though the test never held.
        Ht = _clip(H[pend] - xi[pend][:, None] * G[pend], lower, upper)
        Hn[pend], fn[pend], xi_acc[pend] = Ht, sub.value(Ht), xi[pend]
    else:
        failed[pend] = True
    return Hn, fn, xi_acc, failed
