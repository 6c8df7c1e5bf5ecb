"""Divergences d(x ‖ y) between data x and a reconstruction y, written once each.

Every loss is an object holding its value and its gradient in the reconstruction together.
Rows are samples (scikit-learn orientation): ``X`` and ``Y`` are ``(n_samples, n_features)``,
``value`` returns one number per sample and ``grad`` returns ∂d/∂Y with the shape of ``Y``.

Missing entries are given by a boolean ``mask`` (True = observed) or by NaN in ``X``. They are
handled by filling the missing data with the model value: every divergence here satisfies
d(y ‖ y) = 0 with a zero gradient, so a missing entry contributes nothing to the value, to the
gradient, or (for the per-sample ℓ2 norm and the Mahalanobis form) to the norm of the residual.

The table of divergences, their gradients and their classes follows Tables I–III of Zhao, Tan
and Xu (2016), "Online Nonnegative Matrix Factorization with General Divergences"
(arXiv:1608.00075).
"""

from __future__ import annotations

import inspect

import numpy as np

from ._sparse import as_sparse_rows
from ._steps import spectral_lipschitz

__all__ = [
    "Loss",
    "SquaredLoss",
    "KLDivergence",
    "ISDivergence",
    "BetaDivergence",
    "AlphaDivergence",
    "MahalanobisLoss",
    "HuberLoss",
    "L1Loss",
    "L2Loss",
    "get_loss",
    "LOSS_NAMES",
    "fill_missing",
]

#: Floor applied to the reconstruction inside losses defined only for y > 0: the paper's
#: constraints keep y ≥ εε′ = 1e-16 in exact arithmetic, and the floor guards against rounding.
Y_FLOOR = 1e-16


def _kl_data_terms(x: np.ndarray) -> np.ndarray:
    """x log x − x entrywise (0 where x = 0): the part of the KL divergence that depends on
    the data alone."""
    return x * np.log(np.where(x > 0, x, 1.0)) - x


def fill_missing(X: np.ndarray, Y: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """Return ``X`` with its unobserved entries replaced by the model value ``Y``.

    Parameters
    ----------
    X, Y : ndarray of shape (n_samples, n_features)
    mask : ndarray of bool of the same shape, True where observed, or None (all observed).
    """
    if mask is None:
        return X
    return np.where(mask, X, Y)


class Loss:
    """A divergence d(x ‖ y), summed over the features of each sample.

    Attributes
    ----------
    name : str
        Registry name.
    smooth : bool
        In class D1 of the paper (differentiable with a locally Lipschitz gradient).
    convex : bool
        In class D2 (convex in y), the class Theorem 1 covers.
    positive_data : bool
        The divergence needs strictly positive data (zeros are rejected, or floored on request).
    positive_model : bool
        The divergence needs y > 0; the reconstruction is floored at ``Y_FLOOR``.
    default_step : {"armijo", "lipschitz", "polyak"}
        The code-step rule the paper assigns (Zhao, Tan and Xu 2016, Section V-C).
    sparse_kernels : bool
        :meth:`sparse_value`, :meth:`sparse_code_grad` and :meth:`sparse_dictionary_grad`
        work on a CSR batch from its nonzeros (O(nnz·K + n·K²) instead of O(n·F·K)).
    quadratic : bool
        ½‖x − y‖²: the code gradient is H·DDᵀ − X·Dᵀ, computed from the Gram matrix.
    """

    name = "loss"
    smooth = True
    convex = True
    positive_data = False
    positive_model = False
    default_step = "armijo"
    sparse_kernels = False
    quadratic = False

    # -- elementwise kernels, overridden by separable losses -------------------------------
    def _value(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _grad(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    # -- public interface ------------------------------------------------------------------
    def _prepare(self, X, Y, mask):
        if self.positive_model:
            Y = np.maximum(Y, Y_FLOOR)
        return fill_missing(X, Y, mask), Y

    def value(self, X: np.ndarray, Y: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Per-sample divergence Σ_f d(x_f ‖ y_f) over observed entries, shape (n_samples,)."""
        X, Y = self._prepare(X, Y, mask)
        return self._value(X, Y).sum(axis=-1)

    def grad(self, X: np.ndarray, Y: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Gradient (a subgradient for ℓ1 and ℓ2) of the divergence in ``Y``; zero at
        unobserved entries (the value does not depend on them)."""
        X, Y = self._prepare(X, Y, mask)
        G = self._grad(X, Y)
        return G if mask is None else np.where(mask, G, 0)

    def data_terms(self, X: np.ndarray) -> np.ndarray | None:
        """Per-sample sum of the terms of d(x ‖ y) that do not depend on y, or None.

        With :meth:`model_terms`, d(x ‖ y) = data_terms(x) + model_terms(x, y) (no mask, y
        floored). The coders evaluate many reconstructions of one batch and cache the first.
        """
        return None

    def model_terms(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """Per-sample sum of the y-dependent terms (see :meth:`data_terms`)."""
        raise NotImplementedError

    # -- sparse batches (CSR X, codes H (n, K), dictionary D (K, F), no missing entries) -----
    def sparse_value(self, X, H: np.ndarray, D: np.ndarray, model=None) -> np.ndarray:
        """Per-sample d(x ‖ hD) of a CSR batch, from its nonzeros. ``model``: (hD) at the
        nonzeros when already formed (``SparseRows.model``)."""
        raise NotImplementedError(f"the {self.name} loss has no sparse kernels")

    def sparse_code_grad(self, X, H: np.ndarray, D: np.ndarray, model=None) -> np.ndarray:
        """Gradient in the codes, ∇_h d(x ‖ hD) = ∇_y d · Dᵀ, of a CSR batch (n, K)."""
        raise NotImplementedError(f"the {self.name} loss has no sparse kernels")

    def sparse_dictionary_grad(self, X, H: np.ndarray, D: np.ndarray) -> np.ndarray:
        """Gradient in the dictionary, Σ_i h_iᵀ ∇_y d(x_i ‖ h_i D), of a CSR batch (K, F)."""
        raise NotImplementedError(f"the {self.name} loss has no sparse kernels")

    def curvature(self) -> float | None:
        """Bound c on the curvature in y, so that L = c·‖D‖₂² bounds the code problem's
        gradient-Lipschitz constant; None where no global bound exists."""
        return None

    #: exponent γ of the multiplicative update (Févotte and Idier 2011: 1/(2 − β) for β < 1)
    mu_exponent = 1.0

    def mu_ratios(self, X: np.ndarray, Y: np.ndarray,
                  irls_delta: float = 1e-6) -> tuple[np.ndarray, np.ndarray]:
        """Weights (P, Q) of the batch multiplicative update at the model Y = HD:
        H ← H ⊙ ((P Dᵀ)/(Q Dᵀ))^γ and D ← D ⊙ ((Hᵀ P)/(Hᵀ Q))^γ, γ = :attr:`mu_exponent`
        (the heuristic MU of the β-divergences; iteratively reweighted least squares for the
        robust losses, with weights floored at ``irls_delta``)."""
        raise ValueError(f"no batch multiplicative update for the {self.name} loss")

    #: the multiplicative update minimizes an auxiliary function of the loss (the β-divergences
    #: with the exponent γ; Févotte and Idier 2011), so it can run on accumulated statistics
    majorized_mu = False

    def _mu_weights(self, X, H, D, mask, model=None):
        """The weights (P, Q) of :meth:`mu_ratios` at Y = HD (``model``, when the caller has
        it) of a dense batch, zero where an entry is missing (CSR rows: losses with sparse
        kernels override the callers)."""
        if hasattr(X, "transpose_times"):
            raise NotImplementedError(f"the {self.name} loss has no sparse kernels")
        X, Y = self._prepare(X, H @ D if model is None else model, mask)
        P, Q = self.mu_ratios(X, Y)
        if mask is not None:
            P, Q = np.where(mask, P, 0), np.where(mask, Q, 0)
        return P, Q

    def mu_products(self, X, H: np.ndarray, D: np.ndarray, mask: np.ndarray | None = None,
                    model: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(HᵀP, HᵀQ), the (K, F) numerator and denominator of the dictionary's multiplicative
        update for a batch X (dense with an optional mask of observed entries, or CSR rows):
        the weights P, Q of :meth:`mu_ratios` at Y = HD, zero where an entry is missing.
        ``model`` is Y (at a sparse batch's nonzeros) when the caller has it (the coder's
        last evaluation), which saves forming it again. A loss whose Q is the same for every
        feature may return HᵀQ as a (K, 1) column, which broadcasts."""
        P, Q = self._mu_weights(X, H, D, mask, model)
        return H.T @ P, H.T @ Q

    def mu_code_products(self, X, H: np.ndarray, D: np.ndarray,
                         mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(P Dᵀ, Q Dᵀ), the (n, K) numerator and denominator of the codes' multiplicative
        update for a batch X (dense with an optional mask, or CSR rows): the same weights."""
        P, Q = self._mu_weights(X, H, D, mask)
        return P @ D.T, Q @ D.T

    #: Whether :meth:`residual_prox` exists: the loss is φ(x − y) for a convex φ with a
    #: closed-form proximal map, so the ADMM code solver applies.
    residual_prox_available = False

    def residual_prox(self, T: np.ndarray, t: np.ndarray) -> np.ndarray:
        """argmin_r φ(r) + ‖r − T‖²/(2t) for each row of ``T`` (t one value per row)."""
        raise NotImplementedError(f"the {self.name} loss has no closed-form proximal map")

    def check_features(self, n_features: int) -> None:
        """Raise ``ValueError`` if the loss's parameters do not fit ``n_features``."""

    def check_data(self, X: np.ndarray) -> None:
        """Raise ``ValueError`` if observed data lie outside the divergence's domain: zero or
        negative entries where it needs positive data, and entries so small that the
        negative power x^p in its formula (:attr:`data_power`) overflows."""
        if self.positive_data:
            finite = X[~np.isnan(X)] if np.issubdtype(X.dtype, np.floating) else X
            if finite.size and finite.min() <= 0:
                raise ValueError(
                    f"the {self.name} divergence needs strictly positive data, but X has "
                    "zero or negative entries; floor them (e.g. data_floor=1e-8) or mark them "
                    "missing with NaN"
                )
            low = self.smallest_data()
            if finite.size and finite.min() < low:
                raise ValueError(
                    f"the {self.name} divergence raises the data to the power "
                    f"{self.data_power:g}, which overflows for entries below {low:.3g}, and X "
                    f"has entries down to {float(finite.min()):.3g}; floor them (data_floor) or "
                    "mark them missing with NaN"
                )

    #: The most negative power of x in the divergence's value or gradient, or None: entries
    #: below :meth:`smallest_data` would overflow it.
    data_power: float | None = None

    def smallest_data(self) -> float:
        """The smallest positive entry the divergence's formulas take without overflow: x^p
        stays below 10³⁰⁰ (room for the sums and the model factor around it); 0 when no
        negative power of x appears."""
        p = self.data_power
        return 0.0 if p is None or p >= 0 else float(1e300 ** (1.0 / p))

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({params})"

    def _params(self) -> dict:
        return {}

    def get_params(self, deep: bool = True) -> dict:
        """The loss's parameters (e.g. ``{"delta": 0.1}`` for Huber), so that an estimator's
        ``get_params(deep=True)`` reaches them as ``loss__delta`` and ``clone`` copies them."""
        if type(self).__init__ is object.__init__:
            return {}
        kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        names = [name for name, p in inspect.signature(type(self).__init__).parameters.items()
                 if name != "self" and p.kind in kinds]
        return {name: getattr(self, name) for name in names}

    def set_params(self, **params) -> Loss:
        """Set parameters and recompute what depends on them; returns self."""
        current = self.get_params()
        unknown = set(params) - set(current)
        if unknown:
            raise ValueError(f"invalid parameter(s) {sorted(unknown)} for {type(self).__name__}; "
                             f"valid: {sorted(current)}")
        type(self).__init__(self, **{**current, **params})
        return self

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self._params() == other._params()

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self._params().items()))))


class SquaredLoss(Loss):
    """Half squared Euclidean distance ½‖x − y‖² (Table II's convention, equal to β = 2).

    The factor ½ is used consistently in the code problem, the dictionary gradient and the
    reported objective.
    """

    quadratic = True
    name = "squared"
    default_step = "lipschitz"

    def _value(self, X, Y):
        R = Y - X
        return 0.5 * R * R

    def _grad(self, X, Y):
        return Y - X

    def curvature(self):
        return 1.0

    sparse_kernels = True

    def mu_ratios(self, X, Y, irls_delta=1e-6):
        return X, Y

    def sparse_value(self, X, H, D, model=None):
        # ½‖hD‖² − ⟨x, hD⟩ + ½‖x‖², the cross term from the nonzeros only
        X = as_sparse_rows(X)
        HD2 = np.einsum("ij,ij->i", H @ (D @ D.T), H)
        cross = np.einsum("ij,ij->i", H, X.weighted_columns(X.data, D))
        return np.maximum(0.5 * HD2 - cross + 0.5 * X.squared_norms(), 0.0)

    def sparse_code_grad(self, X, H, D, model=None):
        X = as_sparse_rows(X)
        return H @ (D @ D.T) - X.weighted_columns(X.data, D)

    def sparse_dictionary_grad(self, X, H, D):
        X = as_sparse_rows(X)
        return (H.T @ H) @ D - X.transpose_times(X.data, H)


class KLDivergence(Loss):
    """Generalized Kullback–Leibler divergence Σ x log(x/y) − x + y (β = 1, α = 1).

    Zero data are allowed (0 · log 0 = 0); the model is floored at ``Y_FLOOR``.
    """

    name = "kl"
    positive_model = True

    def _value(self, X, Y):
        with np.errstate(divide="ignore", invalid="ignore"):
            xlog = np.where(X > 0, X * np.log(np.where(X > 0, X, 1.0) / Y), 0.0)
        return xlog - X + Y

    def _grad(self, X, Y):
        return 1.0 - X / Y

    def mu_ratios(self, X, Y, irls_delta=1e-6):
        return X / np.maximum(Y, Y_FLOOR), np.ones_like(Y)

    def data_terms(self, X):
        pos = X > 0
        return (np.where(pos, X * np.log(np.where(pos, X, 1.0)), 0.0) - X).sum(axis=-1)

    def model_terms(self, X, Y):
        return (Y - X * np.log(Y)).sum(axis=-1)

    sparse_kernels = True

    def sparse_value(self, X, H, D, model=None):
        # Σ_f y_f − Σ_nz x log y + Σ_nz (x log x − x): the zeros of x contribute y only
        # (the data's own terms Σ_nz x log x − x are kept per row with the batch)
        X = as_sparse_rows(X)
        y = np.maximum(X.model(H, D) if model is None else model, Y_FLOOR)
        np.log(y, out=y)
        y *= X.data
        dsum = X.dsum if X.D is D else D.sum(axis=1)
        const = X.row_constant("kl", _kl_data_terms)
        return np.maximum(H @ dsum - X.row_sum(y) + const, 0.0)

    def sparse_code_grad(self, X, H, D, model=None):
        X = as_sparse_rows(X)
        dsum = X.dsum if X.D is D else D.sum(axis=1)
        ratio = X.data / np.maximum(X.model(H, D) if model is None else model, Y_FLOOR)
        return dsum[None, :] - X.weighted_columns(ratio, D)

    def sparse_dictionary_grad(self, X, H, D):
        X = as_sparse_rows(X)
        ratio = X.data / np.maximum(X.model(H, D), Y_FLOOR)
        return H.sum(axis=0)[:, None] - X.transpose_times(ratio, H)

    majorized_mu = True

    def mu_code_products(self, X, H, D, mask=None):
        # Q = 1 at every observed entry: QDᵀ is the atoms' sums (over the observed entries)
        if hasattr(X, "transpose_times"):
            ratio = X.data / np.maximum(X.model(H, D), Y_FLOOR)
            num = X.weighted_columns(ratio, D)
            return num, np.broadcast_to(D.sum(axis=1), num.shape)
        Y = np.maximum(H @ D, Y_FLOOR)
        if mask is None:
            return (X / Y) @ D.T, np.broadcast_to(D.sum(axis=1), H.shape)
        return np.where(mask, X / Y, 0) @ D.T, mask.astype(D.dtype) @ D.T

    def mu_products(self, X, H, D, mask=None, model=None):
        if not hasattr(X, "transpose_times"):
            return super().mu_products(X, H, D, mask, model)
        # P = x/y at the nonzeros only, Q = 1: HᵀQ is the codes' column sums, the same for
        # every feature, so it stays one (K, 1) column (a (K, F) copy would cost a dense
        # pass over a large vocabulary for nothing)
        ratio = X.data / np.maximum(X.model(H, D) if model is None else model, Y_FLOOR)
        return X.transpose_times(ratio, H), H.sum(axis=0)[:, None].astype(D.dtype)


class ISDivergence(Loss):
    """Itakura–Saito divergence Σ x/y − log(x/y) − 1 (β = 0). Not convex in y (class D1∖D2)."""

    name = "is"
    convex = False
    positive_data = True
    positive_model = True

    def _value(self, X, Y):
        Q = X / Y
        return Q - np.log(Q) - 1.0

    def _grad(self, X, Y):
        return (Y - X) / (Y * Y)

    mu_exponent = 0.5
    majorized_mu = True

    def mu_ratios(self, X, Y, irls_delta=1e-6):
        Yf = np.maximum(Y, Y_FLOOR)
        return X / (Yf * Yf), 1.0 / Yf

    def data_terms(self, X):
        return (-np.log(X) - 1.0).sum(axis=-1)

    def model_terms(self, X, Y):
        return (X / Y + np.log(Y)).sum(axis=-1)


class BetaDivergence(Loss):
    """β-divergence 1/(β(β−1)) Σ x^β + (β−1) y^β − β x y^(β−1), for any real β.

    β = 0, 1 and 2 are computed by the exact IS, KL and ½-squared formulas; nearby values agree
    with them in the limit. Convex in y only for 1 ≤ β ≤ 2.
    """

    name = "beta"

    def __init__(self, beta: float = 1.5):
        self.beta = float(beta)
        b = self.beta
        self._special = {0.0: ISDivergence(), 1.0: KLDivergence(), 2.0: SquaredLoss()}.get(b)
        self.convex = 1.0 <= b <= 2.0
        self.positive_data = b <= 0.0
        self.data_power = b if b < 0.0 else None
        self.positive_model = b < 2.0
        self.quadratic = b == 2.0
        self.default_step = "lipschitz" if b == 2.0 else "armijo"

    def _params(self):
        return {"beta": self.beta}

    def _value(self, X, Y):
        if self._special is not None:
            return self._special._value(X, Y)
        b = self.beta
        return (X**b + (b - 1.0) * Y**b - b * X * Y ** (b - 1.0)) / (b * (b - 1.0))

    def _grad(self, X, Y):
        if self._special is not None:
            return self._special._grad(X, Y)
        b = self.beta
        return Y ** (b - 2.0) * (Y - X)

    majorized_mu = True

    @property
    def mu_exponent(self):
        b = self.beta
        return 1.0 / (2.0 - b) if b < 1.0 else (1.0 / (b - 1.0) if b > 2.0 else 1.0)

    def mu_ratios(self, X, Y, irls_delta=1e-6):
        Yf = np.maximum(Y, Y_FLOOR)
        return X * Yf ** (self.beta - 2.0), Yf ** (self.beta - 1.0)

    def curvature(self):
        return 1.0 if self.beta == 2.0 else None


class AlphaDivergence(Loss):
    """α-divergence 1/(α(α−1)) Σ x^α y^(1−α) − α x + (α−1) y (Amari; Table I, corrected form).

    α = ½ is the Hellinger distance 2 Σ (√x − √y)²; α → 1 gives KL. Convex in y for every α.
    """

    name = "alpha"
    positive_model = True

    def __init__(self, alpha: float = 0.5):
        self.alpha = float(alpha)
        if self.alpha in (0.0, 1.0):
            raise ValueError("alpha must differ from 0 and 1 (use loss='kl' for α → 1)")
        self.positive_data = self.alpha < 0.0
        self.data_power = self.alpha if self.alpha < 0.0 else None

    def _params(self):
        return {"alpha": self.alpha}

    def _value(self, X, Y):
        a = self.alpha
        return (X**a * Y ** (1.0 - a) - a * X + (a - 1.0) * Y) / (a * (a - 1.0))

    def _grad(self, X, Y):
        a = self.alpha
        return (1.0 - (X / Y) ** a) / a


class HellingerDistance(AlphaDivergence):
    """Squared Hellinger distance 2 Σ (√x − √y)², the α-divergence at α = ½."""

    name = "hellinger"

    def __init__(self):
        super().__init__(alpha=0.5)

    def _params(self):
        return {}


class MahalanobisLoss(Loss):
    """Mahalanobis distance ½ (x − y)ᵀ A (x − y) with A positive semidefinite.

    ``A`` is a full (n_features, n_features) PSD matrix or a vector holding its diagonal.
    With missing entries the residual is zero there, so the form is restricted to the
    observed coordinates.
    """

    name = "mahalanobis"
    default_step = "lipschitz"

    def __init__(self, A):
        A = np.asarray(A, dtype=float)
        if not np.isfinite(A).all():
            raise ValueError("the Mahalanobis matrix A must be finite (no NaN or inf)")
        if A.ndim == 1:
            if np.any(A < 0):
                raise ValueError("the diagonal Mahalanobis weights must be nonnegative")
        elif A.ndim == 2 and A.shape[0] == A.shape[1]:
            if not np.allclose(A, A.T):
                raise ValueError("the Mahalanobis matrix A must be symmetric")
            lam_min = -spectral_lipschitz(-A, floor=-np.inf)  # λ_min(A) = −λ_max(−A)
            if lam_min < -1e-10 * max(1.0, np.abs(A).max()):
                raise ValueError("the Mahalanobis matrix A must be positive semidefinite")
        else:
            raise ValueError("A must be a square matrix or a vector of diagonal weights")
        self.A = A

    def _params(self):
        return {"A": self.A.tobytes()}

    def __repr__(self):
        return f"MahalanobisLoss(A of shape {self.A.shape})"

    def check_features(self, n_features):
        if self.A.shape[0] != n_features:
            raise ValueError(f"the Mahalanobis A has size {self.A.shape[0]} but the data have "
                             f"{n_features} features")

    def _apply(self, R):
        return R * self.A if self.A.ndim == 1 else R @ self.A

    def _value(self, X, Y):
        R = Y - X
        return 0.5 * R * self._apply(R)

    def _grad(self, X, Y):
        return self._apply(Y - X)

    def curvature(self):
        if self.A.ndim == 1:
            return float(self.A.max(initial=0.0))
        return spectral_lipschitz(self.A, floor=0.0)


class HuberLoss(Loss):
    """Huber loss Σ h_δ(x − y): u²/2 for |u| ≤ δ, δ(|u| − δ/2) beyond (Table III).

    The threshold ``delta`` is absolute: it is in the units of the (scaled) data.
    """

    name = "huber"
    default_step = "lipschitz"

    def __init__(self, delta: float = 0.1):
        if not delta > 0:
            raise ValueError(f"the Huber threshold delta must be positive, got {delta!r}")
        self.delta = float(delta)

    def _params(self):
        return {"delta": self.delta}

    def _value(self, X, Y):
        # with m = min(|u|, δ): m(|u| − m/2) is u²/2 inside and δ(|u| − δ/2) beyond, in
        # three in-place passes over the batch instead of a branch evaluating both sides
        A = np.abs(Y - X)
        m = np.minimum(A, self.delta)
        A -= 0.5 * m
        A *= m
        return A

    def _grad(self, X, Y):
        return np.clip(Y - X, -self.delta, self.delta)

    def mu_ratios(self, X, Y, irls_delta=1e-6):
        # the IRLS weight min(1, δ/|x − y|) as δ / max(|x − y|, δ)
        w = np.abs(X - Y)
        np.maximum(w, self.delta, out=w)
        np.divide(self.delta, w, out=w)
        return w * X, w * Y

    def curvature(self):
        return 1.0


class L1Loss(Loss):
    """ℓ1 distance Σ |x − y| (convex, nonsmooth: class D2∖D1); subgradient sign(y − x)."""

    name = "l1"
    smooth = False
    default_step = "polyak"
    residual_prox_available = True

    def residual_prox(self, T, t):
        """Soft thresholding at t: the proximal map of t·‖·‖₁."""
        return np.sign(T) * np.maximum(np.abs(T) - t[:, None], 0.0)

    def _value(self, X, Y):
        return np.abs(Y - X)

    def _grad(self, X, Y):
        return np.sign(Y - X)

    def mu_ratios(self, X, Y, irls_delta=1e-6):
        w = 1.0 / np.maximum(np.abs(X - Y), irls_delta)
        return w * X, w * Y


class L2Loss(Loss):
    """ℓ2 distance ‖x − y‖ per sample (the Euclidean norm, not squared; class D2∖D1).

    The subgradient is (y − x)/‖y − x‖, and the zero vector where the residual vanishes.
    """

    name = "l2"
    smooth = False
    residual_prox_available = True

    def residual_prox(self, T, t):
        """Block soft thresholding of each row at t: the proximal map of t·‖·‖₂."""
        norm = np.sqrt(np.einsum("ij,ij->i", T, T))
        shrink = np.maximum(1.0 - t / np.maximum(norm, np.finfo(float).tiny), 0.0)
        return T * shrink[:, None]

    def value(self, X, Y, mask=None):
        R = Y - fill_missing(X, Y, mask)
        return np.sqrt(np.einsum("ij,ij->i", R, R))

    def grad(self, X, Y, mask=None):
        R = Y - fill_missing(X, Y, mask)
        norm = np.sqrt(np.einsum("ij,ij->i", R, R))[:, None]
        return np.divide(R, norm, out=np.zeros_like(R), where=norm > 0)

    def mu_ratios(self, X, Y, irls_delta=1e-6):
        w = 1.0 / np.maximum(np.linalg.norm(X - Y, axis=1, keepdims=True), irls_delta)
        return w * X, w * Y


_REGISTRY = {
    "squared": SquaredLoss,
    "frobenius": SquaredLoss,
    "kl": KLDivergence,
    "kullback-leibler": KLDivergence,
    "is": ISDivergence,
    "itakura-saito": ISDivergence,
    "beta": BetaDivergence,
    "alpha": AlphaDivergence,
    "hellinger": HellingerDistance,
    "mahalanobis": MahalanobisLoss,
    "huber": HuberLoss,
    "l1": L1Loss,
    "l2": L2Loss,
}

#: Names accepted by :func:`get_loss` (aliases included).
LOSS_NAMES = tuple(_REGISTRY)


def get_loss(loss: str | Loss, **params) -> Loss:
    """Return a :class:`Loss` from its name and parameters, or ``loss`` itself.

    Examples
    --------
    >>> get_loss("huber", delta=0.5)
    HuberLoss(delta=0.5)
    >>> get_loss("beta", beta=0.0).value(np.ones((1, 2)), np.ones((1, 2)))
    array([0.])
    """
    if isinstance(loss, Loss):
        if params:
            raise ValueError("loss parameters cannot be given with a Loss instance")
        return loss
    key = str(loss).lower()
    if key not in _REGISTRY:
        raise ValueError(f"unknown loss {loss!r}; choose one of {sorted(set(_REGISTRY))}")
    for name, value in params.items():  # NaN or inf parameters give NaN divergences
        try:
            finite = bool(np.all(np.isfinite(np.asarray(value, dtype=float))))
        except (TypeError, ValueError):
            raise ValueError(f"loss parameter {name!r} must be numeric, got {value!r}") from None
        if not finite:
            raise ValueError(f"loss parameter {name!r} must be finite, got {value!r}")
    try:
        return _REGISTRY[key](**params)
    except TypeError as exc:
        raise ValueError(f"invalid parameters {params} for loss {loss!r}: {exc}") from None
