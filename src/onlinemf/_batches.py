"""One data source for the online estimators: the mini-batches of one pass over any input.

An in-memory array (ndarray, sparse matrix, memory map) is one *segment*: the array, its
mask and the order its rows are visited in (a permutation when the pass is shuffled). A dask
array is a sequence of segments, one row block (or a bounded buffer of ``int(shuffle)``
blocks) computed at a time, whose mini-batches run across block edges so that they are the
mini-batches of the same rows in memory. The estimators' shared loop
(``OnlineFactorizationMixin._pass``) cuts every segment into mini-batches of ``batch_size``
rows and takes one step per mini-batch, whatever the input.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._dask import is_dask_array, iter_row_blocks, stack_rows

__all__ = ["BATCH_HOOK", "Segment", "pass_segments", "memory_segments", "dask_segments"]

#: the hook of one estimator's loop (its ``owner``): an object with ``owner``,
#: ``enter_pass(segments, monitor)`` (returns the segments to run), ``after_batch(rows)`` and
#: ``end_pass()``; set by ``onlinemf._checkpoint.checkpointing`` (and the shared checks)
BATCH_HOOK: contextvars.ContextVar = contextvars.ContextVar("onlinemf_batch_hook", default=None)


@dataclass
class Segment:
    """Rows in memory and the order a pass visits them in.

    Attributes
    ----------
    X : ndarray or sparse matrix of shape (n_rows, n_features)
        The rows (a whole in-memory input, or a computed dask block or buffer).
    mask : ndarray of bool or None
        True where observed (in-memory input only; dask input marks missing entries by NaN).
    order : ndarray of int
        The rows of ``X`` in the order of the pass; consecutive runs of ``batch_size`` of them
        are the mini-batches.
    fresh : bool
        Whether ``X`` is a piece of a dask array not yet validated by the estimator (the
        shared loop validates each such piece before its steps).
    ctx : object
        What the estimator derived from the segment once, for all its mini-batches (e.g.
        whether they stay sparse).
    """

    X: Any
    mask: Any
    order: np.ndarray
    fresh: bool = False
    ctx: Any = None

    def batches(self, batch_size: int) -> Iterator[np.ndarray]:
        """The row indices of each mini-batch, in order."""
        for start in range(0, self.order.size, batch_size):
            yield self.order[start:start + batch_size]


def memory_segments(X, mask=None, rng: np.random.Generator | None = None
                    ) -> Iterator[Segment]:
    """One pass over in-memory rows: one segment, its rows permuted by ``rng`` (drawn when
    the pass starts) or in their stored order."""
    n = X.shape[0]
    yield Segment(X, mask, rng.permutation(n) if rng is not None else np.arange(n))


def dask_segments(X, batch_size: int, *, rng: np.random.Generator | None = None,
                  buffer_blocks: int = 1, check: Callable | None = None) -> Iterator[Segment]:
    """One pass over a dask array, one block (or ``buffer_blocks`` blocks) in memory at a time.

    ``check`` validates each computed block (then its segments are not ``fresh``); without
    it, each segment is ``fresh`` and the estimator validates it. Every segment but the last
    holds whole mini-batches: the rows left over at a block's end are completed from the next
    block's head (stacked, the only copy), so the mini-batches are those of the same rows in
    memory, in the same order.
    """
    carry = None
    fresh = check is None
    for block in iter_row_blocks(X, buffer_blocks=buffer_blocks, rng=rng):
        if check is not None:
            block = check(block)
        if carry is not None and carry.shape[0]:
            need = batch_size - carry.shape[0]
            head = stack_rows([carry, block[:need]])
            block = block[need:]
            if head.shape[0] < batch_size:
                carry = head
                continue
            yield _whole(head, fresh)
        full = block.shape[0] // batch_size * batch_size
        if full:
            yield _whole(block[:full], fresh)
        carry = block[full:]
    if carry is not None and carry.shape[0]:
        yield _whole(carry, fresh)


def _whole(rows, fresh: bool) -> Segment:
    return Segment(rows, None, np.arange(rows.shape[0]), fresh)


def pass_segments(X, mask=None, *, batch_size: int, rng: np.random.Generator | None = None,
                  buffer_blocks: int = 1, check: Callable | None = None) -> Iterator[Segment]:
    """The segments of one pass over X, in memory or dask (see :func:`memory_segments` and
    :func:`dask_segments`); ``rng`` shuffles the pass (None: the stored order)."""
    if is_dask_array(X):
        if mask is not None:
            raise ValueError("with a dask array, mark missing entries with NaN (mask= is for "
                             "in-memory arrays)")
        return dask_segments(X, batch_size, rng=rng, buffer_blocks=buffer_blocks, check=check)
    return memory_segments(X, mask, rng)
