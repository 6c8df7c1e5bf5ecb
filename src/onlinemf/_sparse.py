"""Row-sparse mini-batches for the divergence kernels, without scipy.sparse's per-call cost.

A coder evaluates one batch hundreds of times with one dictionary; :class:`SparseRows` holds
the batch's nonzeros in CSR order with the dictionary's columns at those nonzeros gathered
once, so a model value at the nonzeros is one gather and one row-wise product, and a sum per
row is one ``reduceat``. Every operation is O(nnz·K) and nothing of size n × F is formed.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["GatherBuffer", "SparseRows", "as_sparse_rows", "gather_rows"]

#: entries of the (nonzeros × K) repeated codes that :meth:`SparseRows.model` forms at once
MODEL_BLOCK = 1 << 20


def gather_rows(indptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the given CSR rows' entries, row after row, and each row's entry count:
    ``(take, counts)`` with ``indices[take]`` the rows' columns concatenated."""
    starts = indptr[rows]
    counts = indptr[rows + 1] - starts
    offsets = np.concatenate([[0], np.cumsum(counts)])
    return np.repeat(starts - offsets[:-1], counts) + np.arange(offsets[-1]), counts


class GatherBuffer:
    """Memory for the dictionary columns gathered at a batch's nonzeros (nnz × K), reused
    from batch to batch by one owner that codes one batch at a time (an estimator's step):
    writing memory the process already holds costs a fraction of mapping a fresh array of
    that size (its page faults can cost more than the gather), and the largest array of a
    step over many components is this one. It grows to the largest batch seen, with an
    eighth to spare (batches of one size differ a little in their nonzeros); its owner
    releases it at the end of a call (:meth:`release`), and it pickles and copies empty."""

    def __init__(self):
        self._flat = None

    def take(self, shape, dtype) -> np.ndarray:
        """An uninitialized array of ``shape`` over the buffer (grown when too small)."""
        size = int(np.prod(shape))
        if self._flat is None or self._flat.size < size or self._flat.dtype != dtype:
            self._flat = None  # the old buffer goes before the new one is mapped
            self._flat = np.empty(size + size // 8, dtype=dtype)
        return self._flat[:size].reshape(shape)

    def release(self):
        """Let the memory go (the next :meth:`take` maps it again)."""
        self._flat = None

    def __reduce__(self):
        return (GatherBuffer, ())


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
        self._counts = counts = np.diff(indptr)
        self._nonempty = np.flatnonzero(counts)
        self._rows = self._DC = self._csr = self._parent = self._segments = None
        self._buffer = None
        self._row_consts = {}
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
        """The bound dictionary's columns at the nonzeros, gathered on first use (a subset
        takes them from its parent's, when those were gathered)."""
        if self._DC is None and self.DT is not None:
            parent, take = self._parent or (None, None)
            if parent is not None and parent._DC is not None:
                self._DC = parent._DC[take]
            elif self._buffer is not None:
                if self.nnz and not 0 <= self.cols.min() <= self.cols.max() < self.DT.shape[0]:
                    raise IndexError("a column index of the sparse batch is out of range")
                out = self._buffer.take((self.nnz, self.DT.shape[1]), self.DT.dtype)
                # "clip" (the columns were checked) writes straight into out, unbuffered
                self._DC = np.take(self.DT, self.cols, axis=0, out=out, mode="clip")
            else:
                self._DC = self.DT[self.cols]
            self._parent = None
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

    def bind(self, D, buffer: GatherBuffer | None = None) -> SparseRows:
        """The same rows with D bound (its columns gathered once, into ``buffer`` if given:
        the caller then codes no other batch with that buffer while this one is in use)."""
        if self.D is D and (buffer is None or buffer is self._buffer):
            return self
        if self.D is D:
            out = SparseRows(self.indptr, self.cols, self.data, self.shape)
            out.D, out.DT, out.dsum, out._DC = self.D, self.DT, self.dsum, self._DC
        else:
            out = SparseRows(self.indptr, self.cols, self.data, self.shape, D)
        out._row_consts = self._row_consts  # same rows, same data
        out._buffer = buffer
        return out

    def columns(self, D) -> np.ndarray:
        """D's columns at the nonzeros as rows, (nnz, K): cached when D is the bound one."""
        return self.DC if self.D is D else D.T[self.cols]

    def model(self, H, D) -> np.ndarray:
        """(HD) at the nonzeros, (nnz,). Each code row is repeated over its row's nonzeros,
        which is faster than gathering it by the row index of every nonzero, a block of rows
        at a time so that the repeated codes (``MODEL_BLOCK`` entries) stay in cache."""
        C = self.columns(D)
        n, k = self.shape[0], max(H.shape[1], 1)
        if self.nnz * k <= MODEL_BLOCK:
            return np.einsum("ij,ij->i", np.repeat(H, self._counts, axis=0), C)
        step = max(1, MODEL_BLOCK * n // (self.nnz * k))
        out = np.empty(self.nnz, dtype=np.result_type(H, C))
        ends = self.indptr - self.indptr[0]
        for s in range(0, n, step):
            e = min(s + step, n)
            lo, hi = ends[s], ends[e]
            out[lo:hi] = np.einsum("ij,ij->i", np.repeat(H[s:e], self._counts[s:e], axis=0),
                                   C[lo:hi])
        return out

    def row_constant(self, name: str, per_nonzero) -> np.ndarray:
        """Σ over each row's nonzeros of ``per_nonzero(data)``, computed once per batch and
        kept under ``name`` (subsets keep their rows' values): the data terms of a divergence,
        which every evaluation of a coder would otherwise recompute."""
        out = self._row_consts.get(name)
        if out is None:
            out = self._row_consts[name] = self.row_sum(per_nonzero(self.data))
        return out

    def _weighted(self, weights, by_nonzero: bool = False) -> sp.csr_matrix:
        """The batch's structure with ``weights`` as values: (n, F) by column, or (n, nnz)
        with each nonzero its own column (``by_nonzero``, to multiply the gathered columns).
        Each CSR matrix is built (and validated) once per batch, and each call only swaps
        its values in."""
        name = "_segments" if by_nonzero else "_csr"
        csr = getattr(self, name)
        if csr is not None:
            csr.data = weights
            return csr
        if by_nonzero:
            csr = sp.csr_matrix((weights, np.arange(self.nnz), self.indptr - self.indptr[0]),
                                shape=(self.shape[0], self.nnz))
        else:
            csr = sp.csr_matrix((weights, self.cols, self.indptr), shape=self.shape)
        setattr(self, name, csr)
        return csr

    def row_sum(self, values) -> np.ndarray:
        """Σ over each row's nonzeros of ``values`` (nnz,) or (nnz, m): shape (n,) / (n, m)."""
        out = np.zeros((self.shape[0],) + values.shape[1:], dtype=values.dtype)
        if self._nonempty.size:
            out[self._nonempty] = np.add.reduceat(values, self.indptr[self._nonempty], axis=0)
        return out

    def weighted_columns(self, weights, D) -> np.ndarray:
        """Σ_nz w · D[:, col] per row, (n, K): the product (sparse W) · Dᵀ by scipy's CSR
        kernel. When D's columns at the nonzeros are gathered already, the same sums in the
        same order come from those contiguous rows (a row-by-nonzero matrix of the weights
        times them), which reads memory in order instead of D's columns at random."""
        if self._DC is not None and self.D is D:
            return np.asarray(self._weighted(weights, by_nonzero=True) @ self._DC)
        if self.DT is None or self.D is not D:
            DT = np.ascontiguousarray(D.T)
        else:
            DT = self.DT
        return np.asarray(self._weighted(weights) @ DT)

    def transpose_times(self, weights, H) -> np.ndarray:
        """(sparse W)ᵀ · H transposed, a (K, F) array: Σ_nz w · h_row placed at column col."""
        return np.asarray((self._weighted(weights).T @ H).T)

    def subset(self, rows, share_gather: bool = True) -> SparseRows:
        """The given rows (in order), keeping the bound dictionary's gathered columns (taken
        from this batch's, should it gather them first, unless not ``share_gather``: then
        the subset holds no reference to this batch)."""
        rows = np.asarray(rows)
        take, counts = gather_rows(self.indptr, rows)
        indptr = np.concatenate([[0], np.cumsum(counts)])
        sub = object.__new__(SparseRows)
        sub.indptr, sub.cols, sub.data = indptr, self.cols[take], self.data[take]
        sub.shape = (rows.size, self.shape[1])
        sub._rows = np.repeat(np.arange(rows.size), counts) if self._rows is not None else None
        sub._counts, sub._nonempty, sub._csr = counts, np.flatnonzero(counts), None
        sub._segments = None
        sub._row_consts = {name: v[rows] for name, v in self._row_consts.items()}
        sub.D, sub.dsum, sub.DT = self.D, self.dsum, self.DT
        # the columns at the nonzeros are gathered only if the subset needs them (a coder's
        # line search that interpolates the model never does)
        sub._DC, sub._parent = None, ((self, take) if share_gather else None)
        # a part that gathers its own columns (a batch coded in parts, one after the other)
        # may gather them into the batch's buffer; a subset sharing the batch's gather, alive
        # beside it, may not
        sub._buffer = None if share_gather else self._buffer
        return sub

    def positions(self, rows) -> np.ndarray:
        """Positions in :attr:`data` of the given rows' nonzeros, row after row."""
        return gather_rows(self.indptr, np.asarray(rows))[0]

    def per_nonzero(self, values, rows=None) -> np.ndarray:
        """One value per row, (n,) or per given row, repeated over the row's nonzeros."""
        return np.repeat(values, self._counts if rows is None else self._counts[rows])

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
