"""Input checks at the estimator boundary, shared by every estimator.

All checks run before an estimator changes any state, and each error names the problem.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import validate_data

from ._dask import is_dask_array, take_rows

__all__ = ["check_stream_input", "check_complete_input", "dense_batch", "guarded_validation",
           "check_magnitude"]


class guarded_validation:
    """Context manager restoring the attributes that ``validate_data`` may set on a first
    call (``n_features_in_``, ``feature_names_in_``) when a later check rejects the input."""

    _ATTRS = ("n_features_in_", "feature_names_in_")

    def __init__(self, estimator):
        self.estimator = estimator

    def __enter__(self):
        self.saved = {a: self.estimator.__dict__[a] for a in self._ATTRS
                      if a in self.estimator.__dict__}
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            for a in self._ATTRS:
                self.estimator.__dict__.pop(a, None)
            self.estimator.__dict__.update(self.saved)
        return False


def check_stream_input(estimator, X, mask=None, *, reset: bool, nonnegative: bool = True,
                       dtype=None):
    """Validate a data matrix (dense or scipy.sparse) and an optional observation mask.

    Parameters
    ----------
    estimator : the estimator receiving the data (for ``n_features_in_`` bookkeeping)
    X : array-like or sparse matrix of shape (n_samples, n_features); NaN marks missing
    mask : array-like of bool or None; True where observed
    reset : bool
        True on the call that starts a new fit.
    nonnegative : bool
        Reject negative observed entries.
    dtype : dtype or None
        Force this dtype (a fitted estimator keeps its own); None keeps float32 or float64.

    Returns
    -------
    X : ndarray or CSR matrix, float32 or float64
    mask : ndarray of bool or None
    """
    dtypes = [np.float64, np.float32] if dtype is None else dtype
    X = validate_data(estimator, X, reset=reset, accept_sparse=("csr", "csc"), dtype=dtypes,
                      ensure_all_finite="allow-nan")
    if sp.issparse(X):
        X = X.tocsr()
    if mask is not None:
        if sp.issparse(mask):
            mask = mask.toarray()
        mask = np.asarray(mask)
        if mask.shape != X.shape:
            raise ValueError(f"mask has shape {mask.shape} but X has shape {X.shape}")
        if mask.dtype != bool:
            if not np.isin(mask, (0, 1)).all():
                raise ValueError("mask must be boolean (True where observed)")
            mask = mask.astype(bool)
    if nonnegative:
        values = X.data if sp.issparse(X) else X
        if mask is not None and not sp.issparse(X):
            values = np.where(mask, X, 0)
        if values.size and np.any(values < 0):  # NaN-safe: NaN < 0 is False
            raise ValueError(
                f"Negative values in data passed to {type(estimator).__name__}: "
                "it needs nonnegative data"
            )
    return X, mask


def check_start(init, n_components: int, n_features: int) -> np.ndarray:
    """A starting dictionary given as ``init``: a C-ordered float copy (never the caller's
    array, whatever its layout) of shape (n_components, n_features), checked to be
    numeric, finite and nonnegative, with a ValueError naming what is wrong otherwise."""
    try:
        D0 = np.array(init, dtype=float, order="C")
    except (TypeError, ValueError) as err:
        raise ValueError(f"init must be a numeric array of shape (n_components, "
                         f"n_features): {err}") from None
    if D0.shape != (n_components, n_features):
        raise ValueError(f"init must have shape (n_components, n_features) = "
                         f"({n_components}, {n_features}), got {D0.shape}")
    if not np.isfinite(D0).all():
        raise ValueError("init contains NaN or inf")
    if (D0 < 0).any():
        raise ValueError("init has negative entries: a nonnegative dictionary is needed")
    return D0


def fill_empty_atoms(D0, fallback):
    """``D0`` with each atom (row) of zeros replaced by ``fallback``'s, in place: an empty
    atom would stay empty under a multiplicative step, and two would start as twins."""
    empty = ~(D0.max(axis=1) > 0)
    D0[empty] = fallback[empty]
    return D0


def dense_batch(X, rows, mask=None):
    """Rows ``rows`` of X as a dense array, with the mask of observed entries (NaN = missing).

    Returns ``(Xb, Mb)`` where ``Mb`` is None when every entry of the batch is observed.
    """
    # a dask array: only the blocks the rows live in are computed (CSR if its chunks are)
    Xb = take_rows(X, rows) if is_dask_array(X) else X[rows]
    if sp.issparse(Xb):
        Xb = Xb.toarray()
    nan = np.isnan(Xb)
    Mb = None if mask is None else mask[rows]
    if nan.any():
        Mb = ~nan if Mb is None else (Mb & ~nan)
    if Mb is not None and Mb.all():
        # fully observed: the unmasked path, with identical results (with a full mask,
        # Algorithm 3 of Wang and Chi (2016) reduces to their Algorithm 2)
        Mb = None
    if Mb is not None:
        Xb = np.where(Mb, Xb, 0)
    return np.asarray(Xb), Mb


def check_complete_input(estimator, X, *, reset: bool, nonnegative: bool = True):
    """Validate the parameters and X for an estimator without a missing-data model: the
    fitted dtype is kept, NaN is rejected by name, and a rejected call changes no state."""
    with guarded_validation(estimator):
        estimator._validate_params()
        dtype = None if reset else estimator.components_.dtype
        X, _ = check_stream_input(estimator, X, None, reset=reset, nonnegative=nonnegative,
                                  dtype=dtype)
        data = X.data if not isinstance(X, np.ndarray) else X
        if np.isnan(data).any():
            raise ValueError(f"{type(estimator).__name__} does not model missing entries "
                             "(NaN in X)")
        check_magnitude(X, type(estimator).__name__)
    return X


def check_magnitude(X, who: str, scale: float = 1.0) -> None:
    """Refuse entries whose squares overflow the dtype once divided by ``scale``
    (|x|/scale > √max / 10³): squared losses, Gram matrices and eigenvalue bounds would turn
    them into inf or NaN mid-step."""
    data = X.data if sp.issparse(X) else np.asarray(X)
    if not data.size or data.dtype.kind != "f":
        return
    limit = np.sqrt(np.finfo(data.dtype).max) / 1e3
    if np.isnan(data).all():
        return
    top = max(float(np.nanmax(data)), -float(np.nanmin(data))) / scale  # no |X| temporary
    if top > limit:
        raise ValueError(f"{who}: entries as large as {top:.3g} (in the model's units) "
                         f"overflow its computations (limit {limit:.3g} for {data.dtype}); "
                         "rescale the data")
