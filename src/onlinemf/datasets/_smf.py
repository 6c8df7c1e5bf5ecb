"""Data for the experiments of Zhao, Haskell and Feng (2018), "A Unified Framework for
Stochastic Matrix Factorization via Variance Reduction" (arXiv:1705.10679), Section 5."""

from __future__ import annotations

import gzip
import os

import numpy as np
from sklearn.utils import Bunch

from ._outliers import OutlierData

__all__ = ["make_smf_synthetic", "load_mnist", "expressed_variance"]


def make_smf_synthetic(n_samples: int = 100_000, n_features: int = 400, rank: int = 10,
                       density: float = 0.1, magnitude: float = 1000.0, *,
                       variance: str = "literal", random_state=None) -> tuple[OutlierData,
                                                                               np.ndarray]:
    """The Synth set of Zhao, Haskell and Feng (2018), Section 5.1: X = HW + R.

    W (rank × F) and H (n × rank) have i.i.d. N(0.5, σ²) entries; R has exactly
    F·n − ⌊(1 − ρ_s)F·n⌋ nonzero entries at uniformly chosen positions, i.i.d. U[−M, M].

    Parameters
    ----------
    density : float
        ρ_s, the outlier density (0.1 and 0.3 in the paper).
    magnitude : float
        M, the outlier range (1000 in the paper; not ORNMF's code bound).
    variance : {"literal", "std"}
        "literal" reads "variance 1/√k′" as written (σ = k′^{−1/4}); "std" takes σ = 1/√k′.

    Returns
    -------
    data : OutlierData (X, X_clean = HW, R)
    W : ndarray (rank, F), the planted atoms (their span is the subspace U of the EV metric)
    """
    if not 0 <= density <= 1:
        raise ValueError(f"density must be in [0, 1], got {density}")
    rng = np.random.default_rng(random_state)
    sigma = rank ** -0.25 if variance == "literal" else rank ** -0.5
    W = rng.normal(0.5, sigma, size=(rank, n_features))
    H = rng.normal(0.5, sigma, size=(n_samples, rank))
    clean = H @ W
    total = n_samples * n_features
    n_out = total - int(np.floor((1 - density) * total))
    R = np.zeros(total)
    R[rng.choice(total, size=n_out, replace=False)] = rng.uniform(-magnitude, magnitude, n_out)
    R = R.reshape(n_samples, n_features)
    return OutlierData(clean + R, clean, R, 0.0), W


def load_mnist(data_dir: str, n_samples: int | None = None) -> Bunch | None:
    """MNIST images from ``mnist/*-images-idx3-ubyte.gz`` under ``data_dir`` (the training
    file when present, else the 10k test file), or None when neither is there.

    Returns
    -------
    Bunch or None
        ``data`` (n, 784): images as rows in [0, 1]; ``images_shape`` (28, 28); ``DESCR``
        (which file was read).
    """
    folder = os.path.join(data_dir, "mnist")
    for name in ("train-images-idx3-ubyte.gz", "t10k-images-idx3-ubyte.gz"):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            with gzip.open(path) as fh:
                X = np.frombuffer(fh.read(), np.uint8, offset=16).reshape(-1, 784)
            X = X[:n_samples] if n_samples else X
            return Bunch(data=X.astype(float) / 255.0, images_shape=(28, 28),
                         DESCR=f"MNIST digits from {name}, one image per row, in [0, 1].")
    return None


def _row_basis(W, rtol=1e-10):
    _, s, Vt = np.linalg.svd(np.atleast_2d(W), full_matrices=False)
    return Vt[s > rtol * max(s.max(initial=0.0), 1e-300)]


def expressed_variance(W_true, W_est, clean=None) -> float:
    """How much of the planted subspace span(W_true) (atoms = rows) the estimate recovers.

    Default (the form of Feng, Xu and Yan's online robust PCA, 2013): EV = ‖U Lᵀ‖²_F / k′
    with U, L orthonormal bases of the two row spaces, in [0, 1], 1 for perfect recovery.
    With ``clean`` (the clean data, rows), Xu, Caramanis and Mannor's (2013) form (see
    :func:`weighted_expressed_variance`).
    """
    if clean is not None:
        return weighted_expressed_variance(W_true, clean)(W_est)
    U = _row_basis(W_true)
    L = _row_basis(W_est)
    return float(np.sum((U @ L.T) ** 2) / U.shape[0])


def weighted_expressed_variance(W_true, clean):
    """Xu, Caramanis and Mannor's (2013) expressed variance as a function of the estimate:
    the variance of the clean data (rows, centred) captured by the best k′ directions of
    span(W_est) over that captured by its top k′ principal directions, k′ = rank of W_true.
    1 when the estimate's span holds the clean data's top k′ principal subspace; an estimate
    of more than k′ atoms is read through its best k′ directions (Xu et al. score k′
    estimated directions). The data are centred because Xu et al.'s signal has mean zero:
    the uncentred second moment of nonnegative data gives its mean direction most of the
    variance, which any span near the all-ones vector would then capture. The covariance
    and its top-k′ variance are formed once, for the many dictionaries of one fit. The
    function returned takes ``top_directions=True`` to read an estimate through its own top
    k′ singular directions instead, a choice that does not look at the clean data."""
    k = _row_basis(W_true).shape[0]
    clean = np.asarray(clean, dtype=float)
    clean = clean - clean.mean(axis=0)
    C = clean.T @ clean
    top = np.linalg.eigh(C)[0][::-1][:k].sum()

    def ev(W_est, top_directions: bool = False) -> float:
        L = _row_basis(W_est)
        if top_directions:  # the estimate's own leading k directions (rows of L by σ)
            L = L[:k]
            captured = float(np.trace(L @ C @ L.T))
        else:  # the best k-dimensional subspace of span(W_est) for the clean data
            captured = np.linalg.eigh(L @ C @ L.T)[0][::-1][:k].sum()
        return float(captured / top) if top > 0 else 0.0

    return ev
