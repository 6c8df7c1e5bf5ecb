"""Step-size helpers shared by every coder and dictionary solver.

* :func:`spectral_norm_sq` — ‖D‖₂², the Lipschitz constant of ½‖x − hD‖²'s gradient in h.
* :func:`bb_step` — the Barzilai–Borwein step of each row from its last displacement and
  gradient change.
"""

from __future__ import annotations

import numpy as np

__all__ = ["spectral_norm_sq", "bb_step", "BB_MIN", "BB_MAX"]

BB_MIN, BB_MAX = 1e-10, 1e10


def spectral_norm_sq(components: np.ndarray) -> float:
    """‖D‖₂², the largest eigenvalue of the K×K Gram matrix D Dᵀ (exact, by LAPACK).

    K is small in every method of this library, so the symmetric eigensolver on the Gram
    matrix costs less than a power iteration's Python loop.
    """
    D = np.asarray(components)
    if D.size == 0:
        return 0.0
    G = D @ D.T if D.shape[0] <= D.shape[1] else D.T @ D
    return max(float(np.linalg.eigvalsh(G)[-1]), 0.0)


def bb_step(
    dH: np.ndarray, dG: np.ndarray, previous: np.ndarray, kind: str = "long",
    lo: float = BB_MIN, hi: float = BB_MAX,
) -> np.ndarray:
    """Barzilai–Borwein step of every row: ``long`` = sᵀs / sᵀy (BB1, the spectral step of
    Birgin, Martínez and Raydan 2000), ``short`` = sᵀy / yᵀy (BB2), s = ``dH``, y = ``dG``.

    Rows whose curvature sᵀy is not positive keep ``previous`` (the quotient is undefined
    or negative there); the result is clipped to [lo, hi].
    """
    sy = np.einsum("ij,ij->i", dH, dG)
    if kind == "long":
        num, den = np.einsum("ij,ij->i", dH, dH), sy
    elif kind == "short":
        num, den = sy, np.einsum("ij,ij->i", dG, dG)
    else:
        raise ValueError(f"kind must be 'long' or 'short', got {kind!r}")
    ok = (sy > 0) & (den > 0) & (num > 0)
    out = np.array(previous, copy=True)
    out[ok] = num[ok] / den[ok]
    return np.clip(out, lo, hi).astype(out.dtype, copy=False)
