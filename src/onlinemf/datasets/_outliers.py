"""Data for the experiments of Zhao and Tan (2016), "Online Nonnegative Matrix Factorization
with Outliers" (arXiv:1604.02634), Section VII."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
from sklearn.utils import Bunch

__all__ = ["OutlierData", "contaminate", "make_outlier_synthetic", "load_cbcl", "load_video",
           "make_video"]


@dataclass
class OutlierData:
    """Observed data ``X``, clean data ``X_clean`` and the outliers ``R`` (rows = samples)."""

    X: np.ndarray
    X_clean: np.ndarray
    R: np.ndarray
    noise_std: float


def contaminate(clean, frac_samples, frac_features, rng, noise_std=0.0, return_outliers=False):
    """The contamination of Zhao and Tan (2016), Section VII-D1: in ⌊νN⌋ random samples, ⌊ν̃F⌋
    random entries get U[−1, 1] outliers; then optional N(0, noise_std²) noise; then clipping
    to [0, 1]."""
    n, f = clean.shape
    R = np.zeros_like(clean)
    rows = rng.choice(n, int(np.floor(frac_samples * n)), replace=False)
    m = int(np.floor(frac_features * f))
    cols = np.argsort(rng.random((rows.size, f)), axis=1)[:, :m]
    R[np.repeat(rows, m), cols.ravel()] = rng.uniform(-1, 1, rows.size * m)
    X = clean + R
    if noise_std:
        X = X + rng.normal(0, noise_std, size=X.shape)
    X = np.clip(X, 0, 1)
    return (X, R) if return_outliers else X


def make_outlier_synthetic(n_samples=100_000, n_features=400, n_components=49,
                           frac_samples=0.7, frac_features=0.1, *, noise_std=0.01,
                           sigma="std", random_state=None) -> OutlierData:
    """The synthetic set of Zhao and Tan (2016), Section VII-D1: W°, H° with half-normal entries,
    V° = clip(W°H°), outliers in a fraction ν of the samples on a fraction ν̃ of their entries,
    noise, clip.

    ``sigma="std"`` (default) gives the half-normal a standard deviation 1/√K°, because the
    literal reading is degenerate: ``sigma="variance"`` reads 𝒩ℋ(1/√K°) as a variance, which
    makes V° ≡ 1. The paper's noise is standard normal (``noise_std=1``), which on [0, 1] data
    clips most entries; the default 0.01 is documented as a departure.
    """
    rng = np.random.default_rng(random_state)
    s = 1 / np.sqrt(n_components)
    scale = s if sigma == "std" else np.sqrt(s)
    W = np.abs(rng.normal(0, scale, size=(n_components, n_features)))
    H = np.abs(rng.normal(0, scale, size=(n_samples, n_components)))
    clean = np.clip(H @ W, 0, 1)
    X, R = contaminate(clean, frac_samples, frac_features, rng, noise_std, return_outliers=True)
    return OutlierData(X, clean, R, noise_std)


def load_cbcl(path: str) -> Bunch:
    """CBCL faces from ``CBCL_Face.mat`` (variable M, 361 × 2429).

    Returns
    -------
    Bunch
        ``data`` (2429, 361): the faces as rows in C order (upright when reshaped to
        ``images_shape``); ``images_shape`` (19, 19); ``DESCR``.
    """
    from scipy.io import loadmat

    M = loadmat(path)["M"]
    return Bunch(data=M.T.reshape(-1, 19, 19).transpose(0, 2, 1).reshape(-1, 361),
                 images_shape=(19, 19), DESCR="CBCL face database: 19 × 19 faces as rows.")


def load_video(data_dir, name) -> Bunch | None:
    """Hall or Escalator video frames from ``data_dir``, or None when they are not there.

    Returns
    -------
    Bunch or None
        ``data`` (n_frames, h·w): the frames as rows; ``frame_shape`` (h, w); ``DESCR``.
    """
    if name not in ("hall", "escalator"):
        raise ValueError(f"unknown video {name!r}: 'hall' or 'escalator'")
    if name == "hall":
        path = data_dir and (os.path.join(data_dir, "hall", "hall1-200_decoded_gray_uint8.npz"))
        if path and os.path.exists(path):
            frames = np.load(path)["frames"].astype(float)
            return Bunch(data=frames.reshape(frames.shape[0], -1),
                         frame_shape=tuple(frames.shape[1:]),
                         DESCR="Hall surveillance video, grey levels, one frame per row.")
    if name == "escalator":
        path = data_dir and os.path.join(data_dir, "escalator", "escalator_data.mat")
        if path and os.path.exists(path):
            from scipy.io import loadmat

            d = loadmat(path)
            h, w = int(d["m"].ravel()[0]), int(d["n"].ravel()[0])
            frames = d["X"].T.astype(float).reshape(-1, w, h).transpose(0, 2, 1)
            return Bunch(data=frames.reshape(frames.shape[0], -1), frame_shape=(h, w),
                         DESCR="Escalator surveillance video, grey levels, one frame per row.")
    return None


def make_video(n_frames=200, shape=(48, 64), n_objects=4, random_state=0,
               background_only=False):
    """A synthetic surveillance video: bright and dark blocks moving over a static textured
    background (smooth gradient plus fixed texture). Returns (frames as rows, shape)."""
    rng = np.random.default_rng(random_state)
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w]
    background = (0.35 + 0.25 * np.sin(xx / 7.0) * np.cos(yy / 5.0) + 0.2 * xx / w
                  + 0.05 * rng.random(shape))
    frames = np.repeat(background[None], n_frames, axis=0)
    if not background_only:
        pos = rng.uniform([0, 0], [h - 8, w - 8], size=(n_objects, 2))
        vel = rng.uniform(-1.5, 1.5, size=(n_objects, 2))
        level = rng.choice([0.05, 0.98], size=n_objects)
        for t in range(n_frames):
            for o in range(n_objects):
                y, x = (pos[o] + t * vel[o]) % [h - 8, w - 8]
                frames[t, int(y):int(y) + 8, int(x):int(x) + 8] = level[o]
    return frames.reshape(n_frames, -1), shape
