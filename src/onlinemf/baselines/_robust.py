"""Baselines of Zhao and Tan (2016), "Online Nonnegative Matrix Factorization with Outliers"
(arXiv:1604.02634), Section VII-A and Supplement S-2.

* :func:`batch_robust_nmf` — BPGD (S-8)–(S-10) and BADMM (S-12)–(S-20): the batch problem
  min ½‖X − HD − R‖² + λ‖R‖₁₁ over H ≥ 0, |R| ≤ M, atoms in C, with the online methods' κ and ρ.
* :class:`ORPCA` — online robust PCA by stochastic optimization (Feng, Xu and Yan, NIPS 2013):
  per sample (r, e) = argmin ½‖z − rL − e‖² + (λ₁/2)‖r‖² + λ₂‖e‖₁ by alternating a ridge
  solve and a soft threshold; statistics A = Σ rrᵀ, B = Σ r(z − e)ᵀ; the basis by one pass of
  block-coordinate descent on ½tr(Lᵀ(A + λ₁I)L) − tr(LᵀB) per sample. No nonnegativity.

ONMF without outliers (Guan et al. 2012) is :class:`onlinemf.baselines.RobustSANMF`.
All inputs are rows-as-samples and already normalized (e.g. each sample to unit maximum).
"""

from __future__ import annotations

import time

import numpy as np
from scipy.linalg import cho_solve

from .._history import History
from .._steps import safe_cho_factor
from .._threads import one_blas_thread
from ..coders import spectral_norm_sq
from ..constraints import outlier_step, project_nonneg_l2_ball, soft_threshold
from ..updates import bcd_dictionary
from ._zhao import BatchResult

__all__ = ["batch_robust_nmf", "ORPCA"]


def _batch_objective(X, H, D, R, lam, blocks):
    total = 0.0
    for b in blocks:
        E = X[b] - H[b] @ D - R[b]
        total += 0.5 * float(np.einsum("ij,ij->", E, E)) + lam * float(np.abs(R[b]).sum())
    return total / X.shape[0]


def batch_robust_nmf(X, n_components, lam=None, bound=1.0, *, solver="pgd", kappa=0.7,
                     rho=1.0, max_iter=500, tol=1e-4, time_budget=None, init=None,
                     random_state=None, n_checkpoints=100, project=project_nonneg_l2_ball,
                     block_rows=2048, dict_penalty="mean") -> BatchResult:
    """BPGD (``solver="pgd"``) or BADMM (``"admm"``) for the batch problem (S-7).

    Starts from H = U[0, 1], R = 0 and D = P_C(U[0, 1]) (or ``init``); stops on a relative change
    of the per-sample objective below ``tol``, after ``max_iter`` iterations or ``time_budget``
    seconds (the paper gives no batch stopping rule). The recorded objective is the
    batch objective divided by N, evaluated at the feasible iterates.

    The steps on H and R (and ADMM's U, Q and multipliers) are separable over the rows, and
    the dictionary step needs only HᵀH and Hᵀ(X − R): each iteration is one pass over blocks
    of ``block_rows`` rows that updates the block and adds its share of the sums, so the
    temporaries are block-sized, not N × F (the same iterates as whole-matrix steps, up to the
    order of the sums).

    BADMM's dictionary penalty ρ̃₃ (S-14) weighs against HᵀH, a sum over the N samples, where
    the online update's (S-5) weighs against the average A_t, and the paper gives the batch
    solvers "the same values" as the online ones (footnote 11). ``dict_penalty="sum"`` reads
    that literally, ρ̃₃ = ρ, under which the dictionary block is barely held to its feasible
    copy on large N and the objective at the feasible iterates can rise;
    ``dict_penalty="mean"`` (the default, this library's choice) sets ρ̃₃ = N·ρ, which gives
    the batch update the online update's conditioning. The code
    and outlier blocks are per sample either way (ρ̃₁ = ρ̃₂ = ρ); BPGD has no penalty and
    ignores ``dict_penalty``.
    """
    if solver not in ("pgd", "admm"):
        raise ValueError(f"solver must be 'pgd' or 'admm', got {solver!r}")
    if not (isinstance(dict_penalty, str) and dict_penalty in ("mean", "sum")):
        raise ValueError(f"dict_penalty must be 'mean' or 'sum', got {dict_penalty!r}")
    if not (isinstance(block_rows, (int, np.integer)) and block_rows >= 1):
        raise ValueError(f"block_rows must be a positive integer, got {block_rows!r}")
    if hasattr(X, "to_delayed"):  # a dask array: not silently materialized
        raise ValueError("batch_robust_nmf solves for an outlier matrix as large as the data "
                         "(N × F), so it needs X in memory; OnlineRobustNMF streams a dask "
                         "array")
    X = np.asarray(X, dtype=float)
    n, f = X.shape
    k = n_components
    lam = 1.0 / np.sqrt(f) if lam is None else lam
    rng = np.random.default_rng(random_state)
    D = project(rng.random((k, f))) if init is None else np.array(init, dtype=float)
    H = rng.random((n, k))
    R = np.zeros_like(X)
    blocks = [slice(s, min(s + block_rows, n)) for s in range(0, n, block_rows)]
    hist = History(n_checkpoints)
    elapsed, prev, it = 0.0, None, 0
    eye = np.eye(k)
    rho_w = rho * n if dict_penalty == "mean" else rho
    if solver == "admm":
        U, Q, Psi = H.copy(), R.copy(), D.copy()
        LH, LR, LW = np.zeros_like(H), np.zeros_like(R), np.zeros_like(D)
    for it in range(1, max_iter + 1):
        t0 = time.perf_counter()
        HtH, HtXR = np.zeros((k, k)), np.zeros((k, f))  # HᵀH and Hᵀ(X − R), block by block
        if solver == "pgd":
            eta1 = kappa / max(spectral_norm_sq(D), 1e-300)
            for b in blocks:
                Hb = np.maximum(H[b] - eta1 * ((H[b] @ D + R[b] - X[b]) @ D.T), 0.0)
                Rb = outlier_step(X[b] - Hb @ D, lam, bound)
                H[b], R[b] = Hb, Rb
                HtH += Hb.T @ Hb
                HtXR += Hb.T @ (X[b] - Rb)
            eta2 = kappa / max(float(np.linalg.norm(HtH)), 1e-300)
            D = project(D - eta2 * (HtH @ D - HtXR))
            Hf, Rf, Df = H, R, D
        else:
            gram = safe_cho_factor(D @ D.T + rho * eye)
            for b in blocks:
                Hb = cho_solve(gram, ((X[b] - R[b]) @ D.T + rho * U[b] - LH[b]).T).T
                Rb = soft_threshold(rho * Q[b] + X[b] - LR[b] - Hb @ D, lam) / (1.0 + rho)
                H[b], R[b] = Hb, Rb
                HtH += Hb.T @ Hb
                HtXR += Hb.T @ (X[b] - Rb)
                Ub = np.maximum(Hb + LH[b] / rho, 0.0)
                Qb = np.clip(Rb + LR[b] / rho, -bound, bound)
                LH[b] += rho * (Hb - Ub)
                LR[b] += rho * (Rb - Qb)
                U[b], Q[b] = Ub, Qb
            D = cho_solve(safe_cho_factor(HtH + rho_w * eye), HtXR - LW + rho_w * Psi)
            Psi = project(D + LW / rho_w)
            LW += rho_w * (D - Psi)
            Hf, Rf, Df = U, Q, Psi
        elapsed += time.perf_counter() - t0
        obj = _batch_objective(X, Hf, Df, Rf, lam, blocks)
        if hist.due(it):
            hist.record(it * n, elapsed, obj)
        over = time_budget is not None and elapsed > time_budget
        if over or (prev is not None and abs(prev - obj) <= tol * abs(prev)):
            break
        prev = obj
    if not hist.n_samples or hist.n_samples[-1] != it * n:
        hist.record(it * n, elapsed, _batch_objective(X, Hf, Df, Rf, lam, blocks))
    res = BatchResult(Df, Hf, hist.as_arrays(), it)
    res.outliers = Rf
    return res


class ORPCA:
    """Online robust PCA via stochastic optimization (Feng, Xu and Yan 2013).

    Parameters
    ----------
    n_components : int
    lam1, lam2 : float or None
        Weights of (λ₁/2)‖r‖² (the nuclear-norm surrogate) and λ₂‖e‖₁; None is 1/√F for both
        (the authors' rule of thumb).
    inner_iter : int
        Alternations of the (r, e) solve per sample.
    batch_size : int, default=1
        Samples coded together before each basis update. 1 is Feng, Xu and Yan's method (a
        basis update after every sample); a comparison that runs every online method with
        one mini-batch size τ (Zhao and Tan 2016, §VII-D2) sets it to τ: the τ samples are
        coded with the same basis and their statistics enter one update.
    random_state : int or None
    n_checkpoints : int
    callback : callable or None
        Called after each mini-batch of :meth:`fit` with ``rows``, ``codes`` (the stored
        codes r_i), ``components`` and ``time``, as OnlineRobustNMF's callback.

    Attributes
    ----------
    components_ : ndarray (n_components, n_features)
        The basis Lᵀ (entries of any sign).
    basis_seconds_ : float
        Time spent in the basis updates (one per ``batch_size`` samples, O(K²F) each) since
        the last fresh start.
    inner_ : dict
        Where the steps since the last fresh start went, in OnlineRobustNMF's keys: the (r, e)
        alternations per mini-batch (``code_iterations``), the share of mini-batches that
        stopped at ``inner_iter`` rather than by ``tol`` (``code_capped``), the basis sweeps
        per mini-batch (``dict_iterations``, always one) and the seconds of the (r, e) solves
        (``code_seconds``) and of the sweeps (``dict_seconds``, ``basis_seconds_``; the
        statistics' two products are in neither), so that its pass can be set beside
        theirs. Empty before any mini-batch.
    """

    def __init__(self, n_components, lam1=None, lam2=None, inner_iter=50, tol=1e-6,
                 batch_size=1, random_state=None, n_checkpoints=50, callback=None):
        self.n_components = n_components
        self.lam1, self.lam2 = lam1, lam2
        self.inner_iter, self.tol = inner_iter, tol
        self.batch_size = batch_size
        self.random_state = random_state
        self.n_checkpoints = n_checkpoints
        self.callback = callback

    def _code(self, Z):
        """(r, e) for every row of Z with the current basis, alternating to convergence."""
        L = self.components_
        chol = safe_cho_factor(L @ L.T + self._l1 * np.eye(L.shape[0]))
        E = np.zeros_like(Z)
        Rc = np.zeros((Z.shape[0], L.shape[0]))
        for it in range(1, self.inner_iter + 1):
            Rn = cho_solve(chol, ((Z - E) @ L.T).T).T
            En = soft_threshold(Z - Rn @ L, self._l2)
            done = np.abs(Rn - Rc).max() <= self.tol and np.abs(En - E).max() <= self.tol
            Rc, E = Rn, En
            if done:
                break
        self._code_iterations = it if self.inner_iter > 0 else 0
        self._code_capped = not done if self.inner_iter > 0 else False
        return Rc, E

    @one_blas_thread  # its products are mini-batch sized, as the library's online methods'
    def partial_fit(self, X):
        X = np.asarray(X, dtype=float)
        if not (isinstance(self.batch_size, (int, np.integer)) and self.batch_size >= 1):
            raise ValueError(f"batch_size must be a positive integer, got {self.batch_size!r}")
        if not hasattr(self, "components_"):
            f = X.shape[1]
            self._l1 = 1 / np.sqrt(f) if self.lam1 is None else self.lam1
            self._l2 = 1 / np.sqrt(f) if self.lam2 is None else self.lam2
            rng = np.random.default_rng(self.random_state)
            self.components_ = rng.random((self.n_components, f))
            self._A = np.zeros((self.n_components, self.n_components))
            self._B = np.zeros((self.n_components, f))
            self.basis_seconds_ = 0.0
            self._inner = [0, 0, 0, 0.0]  # steps, alternations, steps at the cap, code seconds
        self.last_codes_ = np.empty((X.shape[0], self.n_components))
        # its paper updates the basis after every sample (batch_size = 1)
        for start in range(0, X.shape[0], self.batch_size):
            Z = X[start:start + self.batch_size]
            t0 = time.perf_counter()
            r, e = self._code(Z)
            self._inner[3] += time.perf_counter() - t0
            self._inner[0] += 1
            self._inner[1] += self._code_iterations
            self._inner[2] += self._code_capped
            self.last_codes_[start:start + Z.shape[0]] = r
            self._A += r.T @ r
            self._B += r.T @ (Z - e)
            t0 = time.perf_counter()
            At = self._A + self._l1 * np.eye(self.n_components)
            # one block-coordinate pass over the (unconstrained) atoms
            self.components_, _ = bcd_dictionary(self.components_, At, self._B, lambda d: d,
                                                 max_sweeps=1, tol=0.0)
            self.basis_seconds_ += time.perf_counter() - t0
        return self

    @property
    def inner_(self) -> dict:
        """The code solves' alternations, caps reached and seconds, and the basis updates'
        seconds (see the class docstring)."""
        if not hasattr(self, "components_"):
            raise AttributeError("inner_ is set by fit or partial_fit")
        n, iters, capped, code_s = self._inner
        if n == 0:
            return {}
        return {"code_iterations": iters / n, "code_capped": capped / n,
                "dict_iterations": 1.0, "dict_capped": 0.0,
                "code_seconds": code_s, "dict_seconds": self.basis_seconds_}

    @one_blas_thread
    def fit(self, X):
        """Learn the basis from a fresh start (as every ``fit``), in chunks of at least 50
        samples, each a whole number of mini-batches; on one BLAS thread, as the library's
        online methods learn."""
        X = np.asarray(X, dtype=float)
        if not (isinstance(self.batch_size, (int, np.integer)) and self.batch_size >= 1):
            raise ValueError(f"batch_size must be a positive integer, got {self.batch_size!r}")
        self.__dict__.pop("components_", None)  # fit restarts; partial_fit continues
        rng = np.random.default_rng(self.random_state)
        hist = History(self.n_checkpoints)
        elapsed = 0.0
        order = rng.permutation(X.shape[0])
        chunk = self.batch_size * -(-50 // self.batch_size)
        for step, start in enumerate(range(0, X.shape[0], chunk), 1):
            rows = order[start:start + chunk]
            t0 = time.perf_counter()
            self.partial_fit(X[rows])
            elapsed += time.perf_counter() - t0
            if self.callback is not None:  # as OnlineRobustNMF's: codes stored at time i
                self.callback({"rows": rows, "codes": self.last_codes_,
                               "components": self.components_, "time": elapsed})
            if hist.due(step):
                hist.record(min(start + chunk, X.shape[0]), elapsed, float("nan"))
        self.history_ = hist.as_arrays()
        return self

    def decompose(self, X):
        """(low-rank part, sparse errors) of the rows of X."""
        Rc, E = self._code(np.asarray(X, dtype=float))
        return Rc @ self.components_, E
