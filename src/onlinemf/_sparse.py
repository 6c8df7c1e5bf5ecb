"""Row-sparse mini-batches for the divergence kernels, without scipy.sparse's per-call cost.

A coder evaluates one batch hundreds of times with one dictionary; :class:`SparseRows` holds
the batch's nonzeros in CSR order with the dictionary's columns at those nonzeros gathered
once, so a model value at the nonzeros is one gather and one row-wise product, and a sum per
row is one ``reduceat``. Every operation is O(nnz·K) and nothing of size n × F is formed.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["SparseRows", "as_sparse_rows", "gather_rows"]


def gather_rows(indptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the given CSR rows' entries, row after row, and each row's entry count:
    ``(take, counts)`` with ``indices[take]`` the rows' columns concatenated."""
    starts = indptr[rows]
    counts = indptr[rows + 1] - starts
    offsets = np.concatenate([[0], np.cumsum(counts)])
    return np.repeat(starts - offsets[:-1], counts) + np.arange(offsets[-1]), counts


class SparseRows:
    """The nonzeros of a CSR batch (n rows), optionally bound to a dictionary D (K, F).

    Attributes
    ----------
    indptr, cols, data : ndarray
        CSR structure and values.
    rows : ndarray (nnz,)
        Row of every nonzero (built on first use).
    shape : tuple
    D, DC, dsum : ndarray or None
        The bound dictionary, its columns at the nonzeros as rows (nnz, K), contiguous
        (gathered on first use), and its row sums D·1 (K,).
    """

    def __init__(self, indptr, cols, data, shape, D=None):
        self.indptr, self.cols, self.data, self.shape = indptr, cols, data, shape
        counts = np.diff(indptr)
        self._nonempty = np.flatnonzero(counts)
        self._rows = self._DC = None
        self.D = self.DT = self.dsum = None
        if D is not None:
            self.DT = np.ascontiguousarray(D.T)
            self.D, self.dsum = D, D.sum(axis=1)

    @property
    def rows(self) -> np.ndarray:
        """Row of every nonzero, built on first use (the Gram-form coder never needs it)."""
        if self._rows is None:
            self._rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        return self._rows

    @property
    def DC(self) -> np.ndarray | None:
        """The bound dictionary's columns at the nonzeros, gathered on first use."""
        if self._DC is None and self.DT is not None:
            self._DC = self.DT[self.cols]
        return self._DC

    @classmethod
    def from_csr(cls, X, D=None) -> SparseRows:
        X = X.tocsr()
        return cls(X.indptr, X.indices, X.data, X.shape, D)

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def nnz(self) -> int:
        return self.data.size

    def bind(self, D) -> SparseRows:
        """The same rows with D bound (its columns gathered once)."""
        if self.D is D:
            return self
        return SparseRows(self.indptr, self.cols, self.data, self.shape, D)

    def columns(self, D) -> np.ndarray:
        """D's columns at the nonzeros as rows, (nnz, K): cached when D is the bound one."""
        return self.DC if self.D is D else D.T[self.cols]

    def model(self, H, D) -> np.ndarray:
        """(HD) at the nonzeros, (nnz,)."""
        return np.einsum("ij,ij->i", H[self.rows], self.columns(D))

    def row_sum(self, values) -> np.ndarray:
        """Σ over each row's nonzeros of ``values`` (nnz,) or (nnz, m): shape (n,) / (n, m)."""
        out = np.zeros((self.shape[0],) + values.shape[1:], dtype=values.dtype)
        if self._nonempty.size:
            out[self._nonempty] = np.add.reduceat(values, self.indptr[self._nonempty], axis=0)
        return out

    def weighted_columns(self, weights, D) -> np.ndarray:
        """Σ_nz w · D[:, col] per row, (n, K): the product (sparse W) · Dᵀ, by scipy's CSR
        kernel (5× faster than a gather and a segment sum, measured at 20NG's density)."""
        if self.DT is None or self.D is not D:
            DT = np.ascontiguousarray(D.T)
        else:
            DT = self.DT
        W = sp.csr_matrix((weights, self.cols, self.indptr), shape=self.shape)
        return np.asarray(W @ DT)

    def transpose_times(self, weights, H) -> np.ndarray:
        """(sparse W)ᵀ · H transposed, a (K, F) array: Σ_nz w · h_row placed at column col."""
        W = sp.csr_matrix((weights, self.cols, self.indptr), shape=self.shape)
        return np.asarray((W.T @ H).T)

    def subset(self, rows) -> SparseRows:
        """The given rows (in order), keeping the bound dictionary's gathered columns."""
        rows = np.asarray(rows)
        take, counts = gather_rows(self.indptr, rows)
        indptr = np.concatenate([[0], np.cumsum(counts)])
        sub = object.__new__(SparseRows)
        sub.indptr, sub.cols, sub.data = indptr, self.cols[take], self.data[take]
        sub.shape = (rows.size, self.shape[1])
        sub._rows = np.repeat(np.arange(rows.size), counts) if self._rows is not None else None
        sub._nonempty = np.flatnonzero(counts)
        sub.D, sub.dsum, sub.DT = self.D, self.dsum, self.DT
        sub._DC = None if self._DC is None else self._DC[take]
        return sub

    def squared_norms(self) -> np.ndarray:
        return self.row_sum(self.data * self.data)

    def times(self, M) -> np.ndarray:
        """X · M for M of shape (F, m): (n, m)."""
        return self.row_sum(self.data[:, None] * M[self.cols])


def as_sparse_rows(X, D=None) -> SparseRows:
    """A CSR matrix (or SparseRows) as SparseRows, bound to D when given."""
    if isinstance(X, SparseRows):
        return X if D is None else X.bind(D)
    if sp.issparse(X):
        return SparseRows.from_csr(X, D)
    raise TypeError(f"expected a sparse matrix, got {type(X).__name__}")
