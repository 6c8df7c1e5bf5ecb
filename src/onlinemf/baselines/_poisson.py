"""Baselines for Poisson subspace tracking (Wang and Chi 2016, "Stochastic Approximation and
Memory-Limited Subspace Tracking for Poisson Streaming Data", arXiv:1612.02425, Section V).

* :func:`batch_poisson_factorization` — the batch reference: multi-pass alternating
  minimization of the same objective as SA at t = M, Σ_n [Σ_i p_{n,i}(d_iᵀa_n − y_{n,i}
  log d_iᵀa_n) + μ‖a_n‖²] + Mλ‖D‖², codes and rows each by the Barzilai–Borwein projected
  gradient. It stands in for Cao and Xie's batch Poisson matrix completion, which the paper
  compares against, and is labelled as a substitute in the experiments.
* :class:`GROUSE` — Grassmannian rank-one update subspace estimation (Balzano, Nowak and Recht,
  2010): a Gaussian subspace tracker with missing data, the model Poisson tracking is
  compared against. Per sample, w = argmin ‖U_Ω w − v_Ω‖, residual r on Ω, and a geodesic step
  U ← U + ((cos ση − 1) p/‖p‖ + sin ση · r/‖r‖) wᵀ/‖w‖ with σ = ‖r‖‖p‖, p = Uw.
"""

from __future__ import annotations

import numpy as np

from ..coders import CodeSolver
from ..losses import KLDivergence

__all__ = ["batch_poisson_factorization", "GROUSE"]

_KL = KLDivergence()


def batch_poisson_factorization(Y, n_components, mask=None, *, lam=0.2, mu=0.1, n_iter=30,
                                inner_iter=50, random_state=None):
    """Batch alternating minimization of the Poisson objective; returns (D (n_features, K),
    A (n_samples, K)). ``Y`` rows are samples; ``mask`` True where observed."""
    if hasattr(Y, "to_delayed"):  # a dask array: not silently materialized
        raise ValueError("batch_poisson_factorization solves each dictionary row over all "
                         "samples at once, so it needs Y in memory; PoissonSubspaceTracker "
                         "streams a dask array")
    Y = np.asarray(Y, dtype=float)
    rng = np.random.default_rng(random_state)
    m, n = Y.shape
    P = None if mask is None else np.asarray(mask, dtype=bool)
    Yf = Y if P is None else np.where(P, Y, 0.0)
    level = float(Yf.sum() / (P.sum() if P is not None else Yf.size))
    D = rng.random((n, n_components)) * np.sqrt(max(level, 1e-12) / n_components)
    A = rng.random((m, n_components))
    for _ in range(n_iter):
        A = CodeSolver("bb", lower=0.0, upper=np.inf, l2=2 * mu, max_iter=inner_iter,
                       tol=1e-7, f_tol=0.0, start="best").solve(_KL, D.T, Yf, P, init=A).codes
        D = CodeSolver("bb", lower=0.0, upper=np.inf, l2=2 * lam * m, max_iter=inner_iter,
                       tol=1e-7, f_tol=0.0, start="best").solve(
            _KL, A.T, Yf.T, None if P is None else P.T, init=D).codes
    return D, A


class GROUSE:
    """GROUSE subspace tracking with missing data (Gaussian model).

    Parameters
    ----------
    n_components : int
    step : float
        η₀; the step at time t is η₀/t (``decay=True``) or η₀.
    random_state : int or None

    Attributes
    ----------
    components_ : ndarray (n_components, n_features)
        Uᵀ, an orthonormal basis of the tracked subspace.
    """

    def __init__(self, n_components, step=0.1, decay=False, random_state=None):
        self.n_components = n_components
        self.step = step
        self.decay = decay
        self.random_state = random_state

    def partial_fit(self, Y, mask=None):
        Y = np.asarray(Y, dtype=float)
        if not hasattr(self, "components_"):
            rng = np.random.default_rng(self.random_state)
            U, _ = np.linalg.qr(rng.normal(size=(Y.shape[1], self.n_components)))
            self._U = U
            self._t = 0
        P = ~np.isnan(Y) if mask is None else np.asarray(mask, dtype=bool) & ~np.isnan(Y)
        for y, p in zip(Y, P):  # the method is sequential in time
            self._t += 1
            U = self._U
            Uo = U[p]
            w, *_ = np.linalg.lstsq(Uo, y[p], rcond=None)
            pvec = U @ w
            r = np.zeros(U.shape[0])
            r[p] = y[p] - Uo @ w
            rn, pn, wn = np.linalg.norm(r), np.linalg.norm(pvec), np.linalg.norm(w)
            if rn == 0 or pn == 0 or wn == 0:
                continue
            eta = self.step / self._t if self.decay else self.step
            sigma = rn * pn
            U = U + np.outer((np.cos(sigma * eta) - 1) * pvec / pn
                             + np.sin(sigma * eta) * r / rn, w / wn)
            self._U, _ = np.linalg.qr(U)  # re-orthonormalize against drift
        self.components_ = self._U.T
        return self
