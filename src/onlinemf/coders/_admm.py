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
scale of its data (tested every ``ADMM_CHECK_EVERY`` iterations and at the last), so the
batch result is that of a loop over single samples. It is a step rule of the divergence
coder's driver (:class:`ADMM`), whose iterations are those of ADMM.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from scipy.linalg import cho_solve

from .._steps import safe_cho_factor
from ._rules import Step, StepRule

__all__ = ["ADMM", "ADMM_CHECK_EVERY"]

#: Iterations between two evaluations of the objective and of the stopping test.
ADMM_CHECK_EVERY = 5


class ADMM(StepRule):
    """The ADMM above as a step rule: one iteration per driver step, the objective and the
    residual test every ``ADMM_CHECK_EVERY`` iterations and at the last (``max_iter``), the
    rows meeting it stopped by the rule (none of the driver's step and objective tests
    applies to the splitting's iterates). The state holds the working rows' data, split
    variables and penalties, and the best copy seen per batch row."""

    name = "admm"
    uses_objective = False
    objective_test = None
    step_test = False
    dense_only = True  # the losses with a proximal map have no sparse kernels
    compacts = False

    def __init__(self, tol, max_iter):
        self.tol, self.max_iter = tol, max_iter

    def check(self, loss):
        if not loss.residual_prox_available:
            raise ValueError(f"code step 'admm' needs a loss with a closed-form proximal map "
                             f"(l1, l2); the {loss.name} loss has none")

    def init(self, problem, H, f):
        D, mask = problem.D, problem.mask
        X = np.asarray(problem.X, dtype=float)
        n, K = H.shape
        Xf = np.where(mask, X, 0.0) if mask is not None else X
        s = np.sqrt(np.einsum("kf,kf->k", D, D))
        s = np.maximum(s, np.finfo(float).eps * max(float(s.max(initial=0.0)), 1.0))
        factor = safe_cho_factor(D @ D.T + np.diag(s * s))
        st = SimpleNamespace(X=X, Xf=Xf, mask=mask, s=s, M_inv=cho_solve(factor, np.eye(K)),
                             dtype=H.dtype)
        st.Z = np.clip(np.asarray(H, dtype=float), problem.lower, problem.upper)
        st.R = Xf - st.Z @ D
        st.scale = np.maximum(np.sqrt(np.einsum("ij,ij->i", Xf, Xf)), np.finfo(float).tiny)
        mean_abs = np.abs(st.R).mean(axis=1) if st.R.shape[1] else np.ones(n)
        st.rho = 1.0 / np.maximum(mean_abs, 1e-12 * np.maximum(st.scale, 1.0))
        st.U, st.V = np.zeros_like(st.R), np.zeros_like(st.Z)
        st.best_f = self._objective(problem, st, st.Z)
        st.best = st.Z.copy()
        return st

    @staticmethod
    def _objective(problem, st, Z):
        f = problem.loss.value(st.X, Z @ problem.D, st.mask)
        return f + 0.5 * problem.h_l2 * np.einsum("ij,ij->i", Z, Z) if problem.h_l2 else f

    def gradient(self, problem, state, H):
        return None

    def step(self, problem, st, H, f, G, act, live, it):
        D, s, rho = problem.D, st.s, st.rho
        Hs = ((st.Xf - st.R - st.U) @ D.T + (st.Z * s - st.V) * s) @ st.M_inv
        HD = Hs @ D
        T = st.Xf - HD - st.U
        R_old, Z_old = st.R, st.Z
        R = problem.loss.residual_prox(T, 1.0 / rho)
        if st.mask is not None:
            R = np.where(st.mask, R, T)  # an unobserved entry costs nothing: its residual is free
        W = Hs + st.V / s
        h_l2 = problem.h_l2
        Z = W if not h_l2 else W * (rho[:, None] * s * s) / (h_l2 + rho[:, None] * s * s)
        np.clip(Z, problem.lower, problem.upper, out=Z)
        primal_r, primal_z = HD + R - st.Xf, (Hs - Z) * s  # the constraints' residuals
        st.U += primal_r
        st.V += primal_z
        st.R, st.Z = R, Z
        if (it + 1) % ADMM_CHECK_EVERY and it + 1 != self.max_iter:
            return Step(Z.copy(), None)
        fz = self._objective(problem, st, Z)
        better = live & (fz < st.best_f[act])
        st.best_f[act[better]] = fz[better]
        st.best[act[better]] = Z[better]
        primal = np.sqrt(np.einsum("ij,ij->i", primal_r, primal_r)
                         + np.einsum("ij,ij->i", primal_z, primal_z))
        dR, dZ = R - R_old, (Z - Z_old) * s
        change = np.sqrt(np.einsum("ij,ij->i", dR, dR) + np.einsum("ij,ij->i", dZ, dZ))
        tol_scale = self.tol * st.scale
        return Step(Z.copy(), None, stop=(primal <= tol_scale) & (change <= tol_scale))

    def result(self, problem, st, H, f):
        return st.best.astype(st.dtype, copy=False), st.best_f
