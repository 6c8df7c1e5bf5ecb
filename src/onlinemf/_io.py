"""The command line's files: written so that a reader, or a run killed mid-write, never sees
half of one; CSV read with a header and empty cells; a check of a matrix's orientation."""

from __future__ import annotations

import csv
import os
import tempfile
from collections.abc import Callable
from typing import BinaryIO

import numpy as np

__all__ = ["write_atomic", "read_csv", "count_missing", "looks_transposed"]


def write_atomic(path: str, write: Callable[[BinaryIO], object]) -> None:
    """Write through ``write(file)`` into a temporary file beside ``path``, then rename it
    over ``path``: a reader (or a killed run) sees the old file or the new one, never half."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=os.path.basename(path))
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def read_csv(path: str) -> tuple[np.ndarray, list[str] | None]:
    """A numeric CSV file as a float matrix, and its header (None without one).

    The first row is a header when any of its cells is neither a number nor empty. Empty
    cells (and ``nan``/``NaN``) are missing entries, returned as NaN; any other cell that is
    not a number is an error naming its line and column, as is a row of another length.
    """
    try:  # the fast path: a complete numeric file with no header
        return np.loadtxt(path, delimiter=",", ndmin=2), None
    except ValueError:
        pass
    rows: list[list[float]] = []
    header = None
    with open(path, newline="", encoding="utf-8-sig") as fh:
        for lineno, cells in enumerate(csv.reader(fh), 1):
            if not cells:
                continue  # a blank line
            values = [_cell(c) for c in cells]
            if not rows and header is None and any(v is _TEXT for v in values):
                header = [c.strip() for c in cells]
                continue
            for col, (v, c) in enumerate(zip(values, cells), 1):
                if v is _TEXT:
                    raise ValueError(f"{path}, line {lineno}, column {col}: {c.strip()!r} is "
                                     "not a number")
            width, what = ((len(header), "the header") if header is not None else
                           (len(rows[0]), "the first row") if rows else (len(values), ""))
            if len(values) != width:
                raise ValueError(f"{path}, line {lineno}: {len(values)} cells where {what} "
                                 f"has {width}")
            rows.append(values)  # type: ignore[arg-type]
    if not rows:
        return np.zeros((0, len(header) if header else 0)), header
    return np.array(rows, dtype=float), header


_TEXT = object()


def _cell(text: str):
    text = text.strip()
    if not text:
        return np.nan
    try:
        return float(text)
    except ValueError:
        return _TEXT


def count_missing(X) -> int:
    """NaN entries of an in-memory matrix (dense or sparse); 0 for a lazy one (not read)."""
    import scipy.sparse as sp

    if sp.issparse(X):
        return int(np.isnan(X.data).sum()) if X.dtype.kind == "f" else 0
    if isinstance(X, np.ndarray):
        return int(np.isnan(X).sum()) if X.dtype.kind in "fc" else 0
    return 0


def looks_transposed(X) -> bool:
    """Whether a matrix looks like features × samples: the signature of a terms × documents
    count matrix read with rows as samples.

    True for nonnegative whole-number data (counts) with more rows than columns whose row
    totals are far more spread out than its column totals (coefficient of variation at
    least 1 and at least twice the columns'): the rows are then word-like frequencies, which
    are heavy-tailed, and the columns document-like lengths, which are similar to each other.
    A documents × terms matrix has the opposite pattern. Lazy (dask) inputs are not checked.
    """
    import scipy.sparse as sp

    if not (sp.issparse(X) or isinstance(X, np.ndarray)) or X.ndim != 2:
        return False
    n_rows, n_cols = X.shape
    if n_rows <= n_cols or n_cols < 2:
        return False
    data = X.data if sp.issparse(X) else X
    if data.size == 0 or not np.all(np.isfinite(data)) or data.min() < 0 \
            or not np.all(data == np.round(data)):
        return False
    rows = np.asarray(X.sum(axis=1), dtype=float).ravel()
    cols = np.asarray(X.sum(axis=0), dtype=float).ravel()

    def spread(v):
        m = v.mean()
        return float(v.std() / m) if m > 0 else 0.0

    cv_rows, cv_cols = spread(rows), spread(cols)
    return cv_rows >= 1.0 and cv_rows >= 2.0 * cv_cols
