"""Dask arrays as streams: row blocks computed one (or a bounded buffer) at a time.

Dask is an optional extra (``onlinemf[dask]``), imported lazily: these helpers recognise a
``dask.array.Array`` without importing dask, and compute only the blocks they yield, on
whatever scheduler is active (a ``distributed.Client`` included).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

__all__ = ["is_dask_array", "has_sparse_chunks", "as_rows", "stack_rows", "iter_row_blocks",
           "dask_nanmax", "dask_nanmean", "take_rows", "map_reduce_blocks", "check_dask_rows",
           "is_sparse_input", "rows_of", "first_rows"]


def is_dask_array(X) -> bool:
    """Whether X is a dask array (checked by type name, so dask need not be imported)."""
    return any(c.__module__.startswith("dask.") and c.__name__ == "Array"
               for c in type(X).__mro__)


def has_sparse_chunks(X) -> bool:
    """Whether a dask array's chunks are scipy sparse matrices (a corpus stored as CSR
    blocks), which dask's reductions do not handle: they are read block by block here."""
    import scipy.sparse as sp

    return sp.issparse(getattr(X, "_meta", None))


def as_rows(block):
    """A computed block as in-memory rows: CSR if it is sparse, else an ndarray."""
    import scipy.sparse as sp

    return sp.csr_matrix(block) if sp.issparse(block) else np.asarray(block)


def stack_rows(parts):
    """Row blocks one under the other (CSR if any is sparse)."""
    import scipy.sparse as sp

    if any(sp.issparse(p) for p in parts):
        return sp.vstack(parts, format="csr")
    return np.concatenate(parts, axis=0)


def _whole_rows(X):
    """The array with each row block holding whole rows (one chunk across the features)."""
    if X.ndim != 2:
        raise ValueError(f"expected a 2-D dask array (n_samples, n_features), got {X.ndim}-D")
    return X if len(X.chunks[1]) == 1 else X.rechunk({1: -1})


def iter_row_blocks(X, *, buffer_blocks: int = 1, rng: np.random.Generator | None = None
                    ) -> Iterator[np.ndarray]:
    """Yield X's rows as in-memory arrays, block by block.

    With ``rng``, the blocks are visited in a random order and the rows of each group of
    ``buffer_blocks`` consecutive (visited) blocks are permuted together: a shuffle bounded by
    the buffer, so memory is ``buffer_blocks`` blocks whatever the array's size. Without
    ``rng`` the rows come in their stored order.
    """
    X = _whole_rows(X)
    n_blocks = X.numblocks[0]
    order = rng.permutation(n_blocks) if rng is not None else np.arange(n_blocks)
    for start in range(0, n_blocks, buffer_blocks):
        group = [as_rows(X.blocks[int(i)].compute()) for i in order[start:start + buffer_blocks]]
        rows = stack_rows(group) if len(group) > 1 else group[0]
        if rng is not None:
            rows = rows[rng.permutation(rows.shape[0])]
        yield rows


def dask_nanmax(X) -> float:
    """max of X ignoring NaN, as one dask reduction (a pass over the blocks; for sparse
    chunks a max over each block's stored values and its implicit zeros)."""
    import dask.array as da

    if has_sparse_chunks(X):
        return map_reduce_blocks(_sparse_block_max, X, combine=max)
    return float(da.nanmax(X).compute())


def dask_nanmean(X) -> float:
    """mean of X ignoring NaN, as one pass over the blocks (sparse chunks: their implicit
    zeros count); NaN if every entry is NaN."""
    import dask.array as da

    if not has_sparse_chunks(X):
        return float(da.nanmean(X).compute())
    total, count = map_reduce_blocks(_sparse_block_sum_count, X)
    return float(total / count) if count else float("nan")


def _sparse_block_sum_count(block) -> np.ndarray:
    data = block.tocsr().data
    nan = np.isnan(data)
    return np.array([float(data[~nan].sum()), block.shape[0] * block.shape[1] - nan.sum()])


def _sparse_block_max(block) -> float:
    data = block.tocsr().data
    top = float(np.nanmax(data)) if data.size and not np.isnan(data).all() else -np.inf
    return max(top, 0.0) if data.size < block.shape[0] * block.shape[1] else top


def take_rows(X, rows) -> np.ndarray:
    """X[rows] in memory, in the order of ``rows``: fetched in sorted order (dask then
    computes only the blocks those rows live in) and put back in the asked order."""
    rows = np.asarray(rows)
    order = np.argsort(rows, kind="stable")
    out = as_rows(X[rows[order]].compute())
    back = np.empty_like(order)
    back[order] = np.arange(order.size)
    return out[back]


def map_reduce_blocks(func, X, combine=None):
    """``func(block)`` on every row block of X as independent dask tasks (on the active
    scheduler, a ``distributed.Client`` included), combined with ``combine`` (default ``+``):
    a map-reduce pass that brings back only what ``func`` returns, never the data."""
    import dask

    tasks = [dask.delayed(func)(block) for block in _whole_rows(X).to_delayed().ravel()]
    parts = dask.compute(*tasks)
    total = parts[0]
    for part in parts[1:]:
        total = total + part if combine is None else combine(total, part)
    return total


def check_dask_rows(X, name: str, n_features: int | None = None):
    """X with whole-row blocks after checking, as one blockwise reduction, that every entry is
    finite; ``n_features`` (when fitted) must match. Raises ValueError naming the problem."""
    import dask.array as da

    X = _whole_rows(X)
    if X.shape[0] == 0:
        raise ValueError(f"{name} got an empty dask array")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} features, but {name} is expecting {n_features} "
                         "features as input")
    if not np.issubdtype(X.dtype, np.number):
        raise ValueError(f"{name} needs a numeric dask array, got dtype {X.dtype}")
    finite = (map_reduce_blocks(_sparse_block_finite, X, combine=lambda a, b: a and b)
              if has_sparse_chunks(X) else bool(da.isfinite(X).all().compute()))
    if not finite:
        raise ValueError(f"Input X contains NaN or infinity ({name} needs finite data)")
    return X


def _sparse_block_finite(block) -> bool:
    return bool(np.isfinite(block.tocsr().data).all())


def is_sparse_input(X) -> bool:
    """Whether X is a scipy sparse matrix or a dask array of sparse (CSR) chunks."""
    import scipy.sparse as sp

    return sp.issparse(X) or is_dask_array(X) and has_sparse_chunks(X)


def rows_of(X, rows):
    """X[rows] (indices or a slice) in memory: of a dask array, only the blocks those rows
    live in are computed (:func:`take_rows`)."""
    if not is_dask_array(X):
        return X[rows]
    if isinstance(rows, slice):
        rows = np.arange(*rows.indices(X.shape[0]))
    return take_rows(X, rows)


def first_rows(X):
    """Rows that stand for X in a cheap look at its sparsity: X itself, or a dask array's
    first row block in memory when its chunks are sparse (a dense dask array as it is)."""
    if is_dask_array(X) and has_sparse_chunks(X):
        return as_rows(X.blocks[0].compute())
    return X
