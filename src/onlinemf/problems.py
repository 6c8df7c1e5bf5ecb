"""The stochastic matrix factorization problems of Zhao, Haskell and Feng (2018), "A Unified
Framework for Stochastic Matrix Factorization via Variance Reduction" (arXiv:1705.10679).

One problem is the finite sum  f(D) = (1/n) Σ_i ℓ(x_i, D) + ψ(D)  over D ∈ C, with the
per-sample loss

    ℓ(x, D) = min_{h ∈ H, r ∈ R}  ½‖x − hD − r‖² + φ(h) + ϕ(r)          (eqs. 1–2)

in the library's orientation (samples and atoms are rows: x, r ∈ R^F, h ∈ R^K, D ∈ R^{K×F};
the paper's W is Dᵀ). A problem is built from three parts, each with its penalty and its
proximal map in closed form:

- a code part (H, φ): :class:`L1Codes`, :class:`GroupL1Codes`, :class:`RidgeCodes`,
  :class:`UnitBallCodes`, :class:`BoxCodes`;
- an outlier part (R, ϕ): ``None`` (the non-robust loss ℓ1) or :class:`L1Outliers`;
- a dictionary part (C, ψ): :class:`UnitNormAtoms`, :class:`SimplexAtoms`,
  :class:`NonnegUnitNormAtoms`, :class:`FreeDictionary` (with an optional ridge ψ),
  :class:`MaxNormDictionary`, :class:`QuadraticDictionary`, :class:`LaplacianSimplexAtoms`.

:func:`make_problem` assembles the paper's eight instances (ODL, OSSL, ONMF, SSODL, ORPCA,
OMRMD, OLRR, ORNMF) by name. Penalties that the paper scales by 1/n (ORPCA, OMRMD, OLRR) take
n from :meth:`SMFProblem.bind`, called when the data are known.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from ._params import Settings
from ._steps import accelerated_prox_grad, spectral_lipschitz
from .constraints import (
    group_soft_threshold,
    max_norm_prox,
    outlier_step,
    project_l2_ball,
    project_nonneg_l2_ball,
    project_simplex,
    soft_threshold,
)

__all__ = [
    "Problem", "SMFProblem", "make_problem", "PROBLEM_NAMES",
    "L1Codes", "GroupL1Codes", "RidgeCodes", "UnitBallCodes", "BoxCodes", "L1Outliers",
    "UnitNormAtoms", "SimplexAtoms", "NonnegUnitNormAtoms", "FreeDictionary",
    "MaxNormDictionary", "QuadraticDictionary", "LaplacianSimplexAtoms", "path_laplacian",
]


# --------------------------------------------------------------------------- code parts
@dataclass(frozen=True)
class L1Codes:
    """φ(h) = λ‖h‖₁ + (κ/2)‖h‖² on H = R^K (or R₊^K with ``nonneg``). κ > 0 makes the lasso
    strongly convex (the paper's assumption A4), κ = 0 is the paper's ODL."""

    alpha: float
    ridge: float = 0.0
    nonneg: bool = False

    def penalty(self, H):
        return self.alpha * np.abs(H).sum(axis=-1) + 0.5 * self.ridge * (H * H).sum(axis=-1)

    def prox(self, X, step):
        """argmin_h step·φ(h) + δ_H(h) + ½‖h − x‖², row-wise."""
        Z = np.maximum(X - step * self.alpha, 0) if self.nonneg else soft_threshold(
            X, step * self.alpha)
        return Z / (1 + step * self.ridge)


@dataclass(frozen=True)
class GroupL1Codes:
    """φ(h) = λ Σ_g ‖h_g‖ over contiguous groups of ``group_size`` coordinates (OSSL, P2)."""

    alpha: float
    group_size: int = 1

    def _groups(self, K):
        return [slice(s, s + self.group_size) for s in range(0, K, self.group_size)]

    def penalty(self, H):
        return self.alpha * sum(np.linalg.norm(H[..., g], axis=-1)
                                for g in self._groups(H.shape[-1]))

    def prox(self, X, step):
        return group_soft_threshold(X, self.group_size, step * self.alpha)


@dataclass(frozen=True)
class RidgeCodes:
    """φ(h) = (λ/2)‖h‖² on R^K, or on R₊^K with ``nonneg`` (ONMF, SSODL, ORPCA, OLRR)."""

    alpha: float
    nonneg: bool = False

    def penalty(self, H):
        return 0.5 * self.alpha * (H * H).sum(axis=-1)

    def prox(self, X, step):
        Z = np.maximum(X, 0) if self.nonneg else X
        return Z / (1 + step * self.alpha)

    def smooth_box(self) -> tuple[float, float, float]:
        """(lower, upper, ridge): H is a box and φ = (ridge/2)‖h‖² (the Newton solver's)."""
        return (0.0 if self.nonneg else -np.inf), np.inf, float(self.alpha)


@dataclass(frozen=True)
class UnitBallCodes:
    """H = {‖h‖ ≤ 1}, φ = 0 (OMRMD, P6)."""

    def penalty(self, H):
        return np.zeros(H.shape[:-1])

    def prox(self, X, step):
        return project_l2_ball(X)


@dataclass(frozen=True)
class BoxCodes:
    """H = [0, M]^K, φ = 0 (ORNMF, P8)."""

    bound: float

    def penalty(self, H):
        return np.zeros(H.shape[:-1])

    def prox(self, X, step):
        return np.clip(X, 0.0, self.bound)

    def smooth_box(self) -> tuple[float, float, float]:
        """(lower, upper, ridge) = (0, M, 0)."""
        return 0.0, float(self.bound), 0.0


# --------------------------------------------------------------------------- outlier part
@dataclass(frozen=True)
class L1Outliers:
    """ϕ(r) = λ‖r‖₁ on R = [−M′, M′]^F (M′ = inf: all of R^F). Its prox is the soft threshold
    followed by the clip (both separable, the box contains 0)."""

    alpha: float
    bound: float = np.inf
    # its envelope is piecewise quadratic: r* is 0, ±bound or z ∓ alpha (the Newton solver)
    l1_box = True

    def penalty(self, R):
        return self.alpha * np.abs(R).sum(axis=-1)

    def prox(self, Z):
        return outlier_step(Z, self.alpha, self.bound)


# --------------------------------------------------------------------------- dictionary parts
class _AtomSet:
    """A constraint on each atom separately, ψ = 0: the prox is the projection."""

    separable = True

    def penalty(self, D, n):
        return 0.0

    def project_atoms(self, D):
        raise NotImplementedError

    def prox(self, D, eta, n):
        return self.project_atoms(D)

    def project(self, D):
        return self.project_atoms(D)


@dataclass(frozen=True)
class UnitNormAtoms(_AtomSet):
    """C = {‖d_j‖ ≤ 1 ∀ j} (ODL, P1)."""

    def project_atoms(self, D):
        return project_l2_ball(D)


@dataclass(frozen=True)
class SimplexAtoms(_AtomSet):
    """C = {d_j ≥ 0, ‖d_j‖₁ = 1 ∀ j} (ONMF, P3)."""

    def project_atoms(self, D):
        return project_simplex(D)


@dataclass(frozen=True)
class NonnegUnitNormAtoms(_AtomSet):
    """C = {d_j ≥ 0, ‖d_j‖ ≤ 1 ∀ j} (ORNMF, P8)."""

    def project_atoms(self, D):
        return project_nonneg_l2_ball(D)


@dataclass(frozen=True)
class FreeDictionary:
    """C = R^{K×F} with ψ(D) = (λ/(2n))‖D‖²_F (ORPCA, P5; λ = 0: OSSL, P2)."""

    alpha: float = 0.0
    separable = False

    def penalty(self, D, n):
        return 0.5 * self.alpha / n * float(np.sum(D * D))

    def prox(self, D, eta, n):
        return D / (1 + eta * self.alpha / n)

    def project(self, D):
        return D

    def surrogate_argmin(self, A, B, n):
        """argmin_D ½tr(DᵀAD) − tr(DᵀB) + ψ(D) = (A + (λ/n)I)⁺B."""
        return np.linalg.lstsq(A + self.alpha / n * np.eye(A.shape[0]), B, rcond=None)[0]


@dataclass(frozen=True)
class MaxNormDictionary:
    """C = R^{K×F}, ψ(D) = (λ/(2n))‖Dᵀ‖²_{2,∞} (OMRMD, P6)."""

    alpha: float
    separable = False

    def penalty(self, D, n):
        return 0.5 * self.alpha / n * float(np.max(np.sum(D * D, axis=0)))

    def prox(self, D, eta, n):
        return max_norm_prox(D, eta * self.alpha / n)

    def project(self, D):
        return D


@dataclass(frozen=True, eq=False)
class QuadraticDictionary:
    """C = R^{K×F}, ψ(D) = (1/(2n²)) tr(D Q Dᵀ) with Q ⪰ 0 (F×F). OLRR (P7) has
    Q = (AY)(AY)ᵀ + λ₃BᵀB (see :meth:`from_olrr`). The prox solves (I + (η/n²)Q) linearly."""

    Q: np.ndarray
    separable = False

    @classmethod
    def from_olrr(cls, Y, A=None, B=None, lam3=1.0):
        """Q for OLRR from its constant matrices: Y (F×n, data columns), A (·×F), B (·×F)."""
        AY = Y if A is None else A @ Y
        BtB = np.eye(Y.shape[0]) if B is None else B.T @ B
        return cls(np.asarray(AY @ AY.T + lam3 * BtB, dtype=float))

    def penalty(self, D, n):
        return 0.5 / n**2 * float(np.sum((D @ self.Q) * D))

    def prox(self, D, eta, n):
        M = np.eye(self.Q.shape[0]) + eta / n**2 * self.Q
        return np.linalg.solve(M, D.T).T

    def project(self, D):
        return D


def path_laplacian(n_features: int) -> sp.csr_matrix:
    """Laplacian of the path graph over the features (neighbours in feature order), the
    default smoothness prior of SSODL."""
    main = np.full(n_features, 2.0)
    main[[0, -1]] = 1.0
    off = -np.ones(n_features - 1)
    return sp.diags([off, main, off], [-1, 0, 1], format="csr")


@dataclass(frozen=True, eq=False)
class LaplacianSimplexAtoms:
    """C = simplex atoms, ψ(D) = (λ/2) tr(D L Dᵀ) with a Laplacian L ⪰ 0 (SSODL, P4).

    No closed form: the prox argmin_{d ∈ Δ} ½‖d − x‖² + (ηλ/2) dᵀLd is solved for all atoms
    at once by accelerated projected gradient (``prox_iter`` steps, step 1/(1 + ηλ‖L‖₂)).
    """

    alpha: float
    laplacian: object
    prox_iter: int = 100
    separable = False

    @cached_property
    def _lmax(self):
        L = self.laplacian
        if sp.issparse(L):
            return float(abs(L).sum(axis=1).max())  # Gershgorin bound on ‖L‖₂
        return spectral_lipschitz(L, floor=0.0)

    @cached_property
    def _transposed(self):
        # D L computed as (Lᵀ Dᵀ)ᵀ: a CSR product with a dense block, without the format
        # conversion scipy makes for a dense-times-sparse product at every call
        L = self.laplacian
        return L.T.tocsr() if sp.issparse(L) else np.ascontiguousarray(L.T)

    def _times_laplacian(self, D):
        """D L for a (K, F) block D."""
        return np.asarray(self._transposed @ D.T).T

    def penalty(self, D, n):
        return 0.5 * self.alpha * float(np.sum(self._times_laplacian(D) * D))

    def prox(self, D, eta, n):
        c = eta * self.alpha
        step = 1.0 / (1.0 + c * self._lmax)
        return accelerated_prox_grad(
            project_simplex(D), lambda Y: (Y - D) + c * self._times_laplacian(Y),
            lambda V, _: project_simplex(V), step, self.prox_iter)[0]

    def project(self, D):
        return project_simplex(D)

    def smooth_gradient(self, D):
        """∇ψ(D) = λDL (ψ is smooth: SMM minimizes its surrogate by projected gradient)."""
        return self.alpha * self._times_laplacian(D)

    def smooth_lipschitz(self):
        return self.alpha * self._lmax


# --------------------------------------------------------------------------- the problem
@dataclass(frozen=True)
class SMFProblem:
    """A stochastic matrix factorization problem: code part, outlier part (None: no
    outliers), dictionary part, and the number of samples n in the finite sum (for the
    penalties that the paper scales by 1/n)."""

    codes: Any
    dictionary: Any
    outliers: Any = None
    n_samples: int = 1
    name: str = "custom"

    @property
    def robust(self) -> bool:
        return self.outliers is not None

    def bind(self, n_samples: int) -> SMFProblem:
        """The same problem with the finite sum over ``n_samples`` samples."""
        return replace(self, n_samples=int(n_samples))

    def psi(self, D) -> float:
        """ψ(D)."""
        return float(self.dictionary.penalty(D, self.n_samples))

    def prox_dictionary(self, D, eta: float):
        """prox_{ηψ + δ_C}(D) (line 11 of Algorithm 1)."""
        return self.dictionary.prox(D, eta, self.n_samples)

    def project_dictionary(self, D):
        """Π_C(D) (for initial dictionaries)."""
        return self.dictionary.project(D)

    def sample_losses(self, X, D, H, R=None, residual=None):
        """ℓ̃(x_i, D, h_i, r_i) per sample (rows); ``residual`` = hD + r − x if already formed."""
        E = residual
        if E is None:
            E = H @ D - X if R is None else H @ D + R - X
        out = 0.5 * np.einsum("ij,ij->i", E, E) + self.codes.penalty(H)
        if self.outliers is not None and R is not None:
            out = out + self.outliers.penalty(R)
        return out


PROBLEM_NAMES = ("odl", "ossl", "onmf", "ssodl", "orpca", "omrmd", "olrr", "ornmf")


def make_problem(name: str, n_features: int, *, alpha: float | None = None,
                 outlier_alpha: float | None = None, dict_alpha: float | None = None,
                 code_bound: float = 1e3, outlier_bound: float = np.inf, ridge: float = 0.0,
                 group_size: int = 1, laplacian=None, quadratic=None,
                 n_samples: int = 1) -> SMFProblem:
    """One of the eight problems of Zhao, Haskell and Feng (2018) by name.

    Parameters
    ----------
    name : {"odl", "ossl", "onmf", "ssodl", "orpca", "omrmd", "olrr", "ornmf"}
    n_features : int
        F (the paper's d); the default weights are 1/√F (the paper's setting).
    alpha : float or None
        Weight of the code regularizer φ (λ of ODL, OSSL, ONMF; λ₂ of SSODL; λ₁ of ORPCA and
        OLRR). None: 1/√F.
    outlier_alpha : float or None
        Weight of ϕ(r) = λ‖r‖₁ (λ₂ of ORPCA, OMRMD, OLRR; λ of ORNMF). None: 1/√F.
    dict_alpha : float or None
        Weight of ψ (λ₁ of SSODL, ORPCA, OMRMD; λ₃ of OLRR's default Q). None: for ORPCA the
        code weight (the paper ties λ₁ to both), else 1/√F.
    code_bound, outlier_bound : float
        M and M′ of ORNMF (not reported by the paper: M = 1e3 and M′ = inf by default, so
        that outliers of any size fit).
    ridge : float
        Optional κ/2‖h‖² added to ODL's lasso (assumption A4), 0 in the paper.
    group_size : int
        Group length of OSSL's group lasso.
    laplacian : (F, F) array or sparse, optional
        L of SSODL; default: the path-graph Laplacian over the features.
    quadratic : (F, F) array, optional
        Q of OLRR; default λ₃·I (A = 0, B = I), replaced by a data-based Q when the estimator
        is given ``quadratic="data"``.
    n_samples : int
        n of the finite sum.
    """
    if name not in PROBLEM_NAMES:
        raise ValueError(f"unknown problem {name!r}; choose one of {PROBLEM_NAMES}")
    for label, M in (("laplacian", laplacian), ("quadratic", quadratic)):
        if M is None:
            continue
        shape = M.shape if sp.issparse(M) else np.shape(M)
        if tuple(shape) != (n_features, n_features):
            raise ValueError(f"{label} must be a ({n_features}, {n_features}) matrix, got "
                             f"shape {tuple(shape)}")
        values = M.data if sp.issparse(M) else np.asarray(M, dtype=float)
        if not np.all(np.isfinite(values)):
            raise ValueError(f"{label} must be finite")
    if laplacian is not None and not sp.issparse(laplacian):
        laplacian = np.asarray(laplacian, dtype=float)
    default = 1.0 / np.sqrt(n_features)
    lam = default if alpha is None else float(alpha)
    lam_r = default if outlier_alpha is None else float(outlier_alpha)
    lam_d = (lam if name == "orpca" else default) if dict_alpha is None else float(dict_alpha)
    for label, v in (("alpha", lam), ("outlier_alpha", lam_r), ("dict_alpha", lam_d)):
        if not (np.isfinite(v) and v >= 0):
            raise ValueError(f"{label} must be a finite nonnegative number, got {v!r}")
    if not code_bound > 0 or not outlier_bound > 0:
        raise ValueError("code_bound and outlier_bound must be positive")
    outl = L1Outliers(lam_r, outlier_bound)
    # builders, so that only the named problem is constructed (OLRR's default Q alone is an
    # F×F identity: 128 MB at F = 4000)
    parts = {
        "odl": lambda: (L1Codes(lam, ridge), UnitNormAtoms(), None),
        "ossl": lambda: (GroupL1Codes(lam, group_size), FreeDictionary(0.0), None),
        "onmf": lambda: (RidgeCodes(lam, nonneg=True), SimplexAtoms(), None),
        "ssodl": lambda: (RidgeCodes(lam, nonneg=True),
                          LaplacianSimplexAtoms(lam_d, path_laplacian(n_features)
                                                if laplacian is None else laplacian), None),
        "orpca": lambda: (RidgeCodes(lam), FreeDictionary(lam_d), outl),
        "omrmd": lambda: (UnitBallCodes(), MaxNormDictionary(lam_d), outl),
        "olrr": lambda: (RidgeCodes(lam), QuadraticDictionary(
            lam_d * np.eye(n_features) if quadratic is None else np.asarray(quadratic)), outl),
        "ornmf": lambda: (BoxCodes(code_bound), NonnegUnitNormAtoms(), outl),
    }
    codes, dictionary, outliers = parts[name]()
    return SMFProblem(codes, dictionary, outliers, int(n_samples), name)


class Problem(Settings):
    """One of the eight problems of Zhao, Haskell and Feng (2018) by name, with its weights:
    :class:`~onlinemf.StochasticMF`'s ``problem`` parameter (``problem__alpha`` and so on
    reach the fields). It is built into an :class:`~onlinemf.problems.SMFProblem` when the
    data are known.

    Parameters
    ----------
    name : {"odl", "ossl", "onmf", "ssodl", "orpca", "omrmd", "olrr", "ornmf"}, default="odl"
    alpha, outlier_alpha, dict_alpha : float or None, default=None
        Weights of φ, ϕ and ψ (see :func:`~onlinemf.problems.make_problem`); None: 1/√F, the
        paper's setting
        (ORPCA's ψ weight follows ``alpha``).
    code_bound, outlier_bound : float, default=1e3, inf
        M and M′ of ORNMF (the paper does not report them; these let outliers of any size
        fit).
    ridge : float, default=0.0
        κ/2‖h‖² added to ODL's lasso (assumption A4; 0 in the paper).
    group_size : int, default=1
        OSSL's group length.
    laplacian : (F, F) array or sparse matrix, optional
        SSODL's L (default: the path-graph Laplacian over the features).
    quadratic : (F, F) array or "data", optional
        OLRR's Q; "data" builds Q = XᵀX + λ₃I from the training data (A = I, B = I).
    """

    _parameter_constraints: dict = {
        "name": [StrOptions(set(PROBLEM_NAMES))],
        "alpha": [Interval(Real, 0, None, closed="left"), None],
        "outlier_alpha": [Interval(Real, 0, None, closed="left"), None],
        "dict_alpha": [Interval(Real, 0, None, closed="left"), None],
        "code_bound": [Interval(Real, 0, None, closed="neither")],
        "outlier_bound": [Interval(Real, 0, None, closed="right")],
        "ridge": [Interval(Real, 0, None, closed="left")],
        "group_size": [Interval(Integral, 1, None, closed="left")],
        "laplacian": ["array-like", "sparse matrix", None],
        "quadratic": ["array-like", StrOptions({"data"}), None],
    }

    def __init__(self, name="odl", *, alpha=None, outlier_alpha=None, dict_alpha=None,
                 code_bound=1e3, outlier_bound=np.inf, ridge=0.0, group_size=1, laplacian=None,
                 quadratic=None):
        self.name = name
        self.alpha = alpha
        self.outlier_alpha = outlier_alpha
        self.dict_alpha = dict_alpha
        self.code_bound = code_bound
        self.outlier_bound = outlier_bound
        self.ridge = ridge
        self.group_size = group_size
        self.laplacian = laplacian
        self.quadratic = quadratic

    def build(self, X) -> SMFProblem:
        """The :class:`~onlinemf.problems.SMFProblem` for the (n, F) training data X (X is read
        only for ``quadratic="data"``)."""
        n, F = X.shape
        quadratic = self.quadratic
        if isinstance(quadratic, str):  # "data": OLRR's Q = XᵀX + λ₃I (A = I, B = I)
            lam3 = 1.0 / np.sqrt(F) if self.dict_alpha is None else self.dict_alpha
            Xd = X.toarray() if hasattr(X, "toarray") else X
            quadratic = QuadraticDictionary.from_olrr(np.asarray(Xd, float).T, lam3=lam3).Q
        elif quadratic is not None:
            quadratic = np.asarray(quadratic, dtype=float)
            if quadratic.shape != (F, F):
                raise ValueError(f"quadratic must be ({F}, {F}), got {quadratic.shape}")
        return make_problem(self.name, F, alpha=self.alpha, outlier_alpha=self.outlier_alpha,
                            dict_alpha=self.dict_alpha, code_bound=self.code_bound,
                            outlier_bound=self.outlier_bound, ridge=self.ridge,
                            group_size=self.group_size, laplacian=self.laplacian,
                            quadratic=quadratic, n_samples=n)
