"""Synthetic data recipes of the papers: the data of Zhao, Tan and Xu (2016), "Online
Nonnegative Matrix Factorization with General Divergences" (arXiv:1608.00075)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["SyntheticNMF", "make_nmf_synthetic", "NOISE_FOR_LOSS"]

#: Noise model the paper pairs with each tested divergence (Zhao, Tan and Xu 2016, Table IV).
NOISE_FOR_LOSS = {
    "is": "gamma",
    "kl": "poisson",
    "squared": "gaussian",
    "huber": "outliers",
    "l1": "outliers",
    "l2": "outliers",
}


@dataclass
class SyntheticNMF:
    """A synthetic NMF data set in scikit-learn orientation.

    Attributes
    ----------
    X : ndarray (n_samples, n_features)
        The observed data V̄ᵀ, clipped to the compact set [0, clip].
    X_clean : ndarray (n_samples, n_features)
        The noiseless V°ᵀ = H°ᵀ W°ᵀ.
    codes : ndarray (n_samples, n_components)
        H°ᵀ.
    components : ndarray (n_components, n_features)
        W°ᵀ.
    noise : str
    snr_db : float
        20 log10(‖V°‖ / ‖V̄ − V°‖) before clipping.
    """

    X: np.ndarray
    X_clean: np.ndarray
    codes: np.ndarray
    components: np.ndarray
    noise: str
    snr_db: float


def make_nmf_synthetic(
    n_samples: int = 10_000,
    n_features: int = 100,
    n_components: int = 40,
    noise: str = "gaussian",
    *,
    shift: float = 1.0,
    sigma: float = 5.0,
    gaussian_std: float = 30.0,
    gamma_shape: float = 1000.0,
    outlier_fraction: float = 0.3,
    outlier_magnitude: float = 2000.0,
    clip: float = 4000.0,
    random_state=None,
) -> SyntheticNMF:
    """Generate the synthetic data of Zhao, Tan and Xu (2016), Section VIII-D.

    W° and H° have i.i.d. shifted half-normal entries y = ϰ + |N(0, σ²)| (ϰ = 1, σ = 5), so
    E[v°] ≈ 996 for K° = 40. Noise (Table IV): multiplicative Gamma(κ, 1/κ) for IS (κ = 1000,
    30 dB), Poisson for KL, additive N(0, 30²) for squared-ℓ2, and for Huber, ℓ1, ℓ2 outliers:
    in every sample, a fraction 0.3 of the features replaced by U(v° − λ, v° + λ), λ = 2000.
    The result is clipped to [0, 4000]. The paper does not give F; the default is 100.

    Parameters
    ----------
    noise : {"gaussian", "poisson", "gamma", "outliers", "none"}
    random_state : int, Generator or None
        Separate streams are drawn for the factors and the noise.
    """
    rng = np.random.default_rng(random_state)
    f_rng, n_rng = (np.random.default_rng(s) for s in rng.integers(0, 2**31, size=2))
    W = shift + np.abs(f_rng.normal(0.0, sigma, size=(n_components, n_features)))
    H = shift + np.abs(f_rng.normal(0.0, sigma, size=(n_samples, n_components)))
    V = H @ W
    if noise == "gaussian":
        Vn = V + n_rng.normal(0.0, gaussian_std, size=V.shape)
    elif noise == "poisson":
        Vn = n_rng.poisson(V).astype(float)
    elif noise == "gamma":
        Vn = V * n_rng.gamma(gamma_shape, 1.0 / gamma_shape, size=V.shape)
    elif noise == "outliers":
        Vn = V.copy()
        n_out = int(round(outlier_fraction * n_features))
        cols = np.argsort(n_rng.random(V.shape), axis=1)[:, :n_out]
        rows = np.repeat(np.arange(n_samples), n_out)
        cols = cols.ravel()
        Vn[rows, cols] = V[rows, cols] + n_rng.uniform(-outlier_magnitude, outlier_magnitude,
                                                       size=rows.size)
    elif noise == "none":
        Vn = V.copy()
    else:
        raise ValueError(f"unknown noise {noise!r}")
    err = np.linalg.norm(Vn - V)
    snr = float("inf") if err == 0 else 20 * np.log10(np.linalg.norm(V) / err)
    return SyntheticNMF(np.clip(Vn, 0.0, clip), V, H, W, noise, snr)
