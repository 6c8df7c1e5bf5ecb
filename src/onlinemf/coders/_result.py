"""The one result type of every code solver of :mod:`onlinemf.coders`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["CodeResult"]


@dataclass
class CodeResult:
    """Codes of a batch and how each sample's solve went.

    Attributes
    ----------
    codes : ndarray of shape (n_samples, n_components)
    n_iter : ndarray of int, shape (n_samples,)
        Iterations (or sweeps) run per sample; a solver that stops the batch as a whole
        reports the batch's count for every sample.
    converged : ndarray of bool, shape (n_samples,)
        Whether the sample met a stopping rule before the iteration cap.
    objective : ndarray of shape (n_samples,) or None
        Each sample's objective at the returned codes, where the solver has it at no extra
        cost (None otherwise, and when no iteration ran).
    outliers : ndarray of shape (n_samples, n_features) or None
        The outliers r of the solvers whose problems have them (None otherwise).
    model : ndarray or None
        The model HD at the returned codes of every row (at a sparse batch's nonzeros,
        (nnz,)), where the rule formed it for its last objective (the multiplicative rule;
        None for the others): a dictionary step that needs it reads it instead of forming it
        again.
    """

    codes: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray
    objective: np.ndarray | None = None
    outliers: np.ndarray | None = None
    model: np.ndarray | None = None
