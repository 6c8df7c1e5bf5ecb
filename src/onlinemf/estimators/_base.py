"""What the online factorization estimators share."""

from __future__ import annotations

import copy
import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import ThreadpoolController

from .._dask import as_rows, is_dask_array, iter_row_blocks, map_reduce_blocks, stack_rows
from .._history import History
from ._convergence import ConvergenceMonitor

__all__ = ["OnlineFactorizationMixin", "one_blas_thread", "transactional"]

#: checkpoints a history keeps (between this many and twice as many) where the estimator
#: has no ``n_checkpoints`` parameter
HISTORY_CHECKPOINTS = 50

# lists that only ever grow by appending items that are never modified in place: a shallow
# copy restores them (a deep copy would cost O(stream) per call)
_APPEND_ONLY = ("_buffer",)
# values that cannot change: kept by reference
_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, np.generic, frozenset)


def _kept(name: str, value):
    """What restores attribute ``name`` after a failed call: the value itself where the call
    cannot change it (an immutable value, a frozen dataclass such as a rule's state, or an
    array: the estimators replace their arrays and never write into them), a shallow copy of
    an append-only list, a deep copy otherwise (the random generator, the history, ...)."""
    if name in _APPEND_ONLY:
        return list(value)
    if isinstance(value, (_IMMUTABLE, np.ndarray)) or _is_frozen_value(value):
        return value
    return copy.deepcopy(value)


def _is_frozen_value(value) -> bool:
    """A frozen dataclass instance (rule states, settings of rules), or a tuple of such
    values."""
    if isinstance(value, tuple):
        return all(isinstance(v, (_IMMUTABLE, np.ndarray)) or _is_frozen_value(v)
                   for v in value)
    params = getattr(type(value), "__dataclass_params__", None)
    return params is not None and params.frozen and not isinstance(value, type)


def transactional(method):
    """Run ``method`` so that, if it raises, the estimator's whole state is as before the
    call: a rejected or failed call changes nothing. Only what a call may change is copied
    (see ``_kept``): the rule's state is immutable, so keeping a reference to it is enough."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        saved = {k: _kept(k, v) for k, v in self.__dict__.items()}
        try:
            return method(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    return wrapper


@functools.cache
def _blas_controller() -> ThreadpoolController:
    """One controller per process, made at first use (making one is far costlier than
    applying a limit with it)."""
    return ThreadpoolController()


def one_blas_thread(method):
    """Run ``method`` with one BLAS thread: for the online learning calls, whose products are
    mini-batch sized: on an idle machine one thread is as fast or faster at those sizes (the
    ``scale`` benchmark's K and F), and beside busy processes more threads spin on busy cores
    and take much longer. Calls that code a whole data set at once
    (``transform``, ``score``) keep the process's setting."""

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        with _blas_controller().limit(limits=1, user_api="blas"):
            return method(*args, **kwargs)

    return wrapper


class OnlineFactorizationMixin:
    """Shared parts of the online estimators: the bounded objective history, the algorithm's
    own wall time (evaluation excluded), completed passes, and the scikit-learn tags of a
    nonnegative factorization that accepts sparse input and preserves float32."""

    # what the shared loop reads from the estimator that mixes it in
    max_iter: int
    tol: float
    max_no_improvement: int | None
    verbose: int
    partial_fit: Callable[..., Any]

    def _warn_more_components_than_features(self, n_features: int) -> None:
        """Warn when K > F: a nonnegative factorization (or a subspace) with more components
        than features has more atoms than it can tell apart, so some are redundant."""
        k = getattr(self, "n_components", None)
        if k is not None and k > n_features:
            warnings.warn(f"{type(self).__name__}: n_components={k} exceeds the {n_features} "
                          "features; some components will be redundant (choose "
                          f"n_components <= {n_features})", UserWarning, stacklevel=4)

    def _settle(self, name: str, settings) -> None:
        """Keep the resolved settings object ``name`` unless ``settings`` differ from it, so
        that a call that only reads the model (transform, score) leaves the state as it was."""
        old = self.__dict__.get(name)
        same = (old is settings or old is not None and settings is not None
                and type(old) is type(settings) and old.get_params() == settings.get_params())
        if name not in self.__dict__ or not same:
            setattr(self, name, settings)

    def _reset_history(self) -> None:
        n = getattr(self, "n_checkpoints", None)
        self._history = History(getattr(self, "_history_checkpoints", HISTORY_CHECKPOINTS)
                                if n is None else n)
        self._fit_time = 0.0
        self.n_iter_ = 0

    @property
    def history_(self) -> dict:
        """Checkpoints: ``n_samples``, ``time`` (s of algorithm time), ``objective``."""
        check_is_fitted(self, "components_")
        return self._history.as_arrays()

    def _converging_passes(self, n_samples: int, one_pass) -> None:
        """``fit``'s loop: ``one_pass(monitor)`` (True when the monitor stopped it mid-pass)
        up to ``max_iter`` times, until the stopping rule of :class:`ConvergenceMonitor`
        (``tol``, ``max_no_improvement``) ends it; sets ``n_iter_`` and ``converged_``."""
        monitor = ConvergenceMonitor(n_samples, self.tol, self.max_no_improvement,
                                     self.max_iter, self.verbose, type(self).__name__)
        with monitor:
            for _ in range(self.max_iter):
                stopped = one_pass(monitor)
                self.n_iter_ += 1
                monitor.end_pass(self.n_iter_)
                if stopped:
                    break
        self.converged_ = monitor.converged

    def _stream_dask_rows(self, X, batch_size: int, step=None, check=None, rng=None,
                          buffer_blocks: int = 1, stop=None) -> None:
        """Feed a dask array's row blocks, one (or ``buffer_blocks``) in memory at a time, to
        ``step`` (default ``partial_fit``) in whole mini-batches of ``batch_size`` rows that
        run across block edges: the steps of the same rows in memory. ``check`` validates each
        block first; the pending batch is completed from a block's head, so no block is
        copied. ``stop()`` (optional) is asked after each block's steps: True ends the stream
        there, before the next block is read (``fit``'s stopping rule, mid-pass)."""
        step = self.partial_fit if step is None else step
        carry = None
        for block in iter_row_blocks(X, buffer_blocks=buffer_blocks, rng=rng):
            if check is not None:
                block = check(block)
            if carry is not None and carry.shape[0]:
                head = stack_rows([carry, block[:batch_size - carry.shape[0]]])
                block = block[batch_size - carry.shape[0]:]
                if head.shape[0] < batch_size:
                    carry = head
                    continue
                step(head)
            full = block.shape[0] // batch_size * batch_size
            if full:
                step(block[:full])
            carry = block[full:]
            if stop is not None and stop():
                return
        if carry is not None and carry.shape[0]:
            step(carry)

    def _fit_dask_passes(self, X, batch_size: int, rows_step):
        """``fit`` of a dask array: a fresh start, then passes over the row blocks in order,
        each block's rows through ``rows_step(rows, monitor)`` (which starts the model on the
        first rows and returns True when ``fit``'s stopping rule ends the pass), under the
        same rule as in memory."""
        for attr in ("components_", "n_features_in_"):
            self.__dict__.pop(attr, None)

        self._converging_passes(
            X.shape[0], lambda monitor: self._stream_dask_until(X, batch_size, rows_step,
                                                                monitor))
        return self

    def _stream_dask_until(self, X, batch_size: int, rows_step, monitor, **stream) -> bool:
        """One pass of :meth:`_stream_dask_rows` whose steps are ``rows_step(rows, monitor)``,
        ended (no further block read) once one of them returns True; returns whether one did.
        ``stream`` goes to :meth:`_stream_dask_rows` (``rng``, ``buffer_blocks``, ``check``)."""
        stopped: list[bool] = []

        def step(rows):
            if not stopped and rows_step(rows, monitor):
                stopped.append(True)

        self._stream_dask_rows(X, batch_size, step=step, stop=lambda: bool(stopped), **stream)
        return bool(stopped)

    def _transform_dask(self, X):
        """A lazy ``transform`` of a dask array: one task per row block (``map_blocks``)."""
        X = X if len(X.chunks[1]) == 1 else X.rechunk({1: -1})
        return X.map_blocks(self.transform, chunks=(X.chunks[0], (self.n_components_,)),
                            dtype=self.components_.dtype)

    def _score_dask(self, X):
        """``score`` of a dask array as a map-reduce pass: each row block's score weighted by
        its rows, summed as dask tasks (the scores are per-row or per-entry means)."""
        total, rows = map_reduce_blocks(functools.partial(_weighted_score, self), X)
        return float(total / max(rows, 1))

    def _decompose_dask(self, X):
        """A lazy ``decompose`` of a dask array: one task per row block gives both parts."""
        X = X if len(X.chunks[1]) == 1 else X.rechunk({1: -1})
        F = X.shape[1]
        both = X.map_blocks(functools.partial(_stacked_parts, self),
                            chunks=(X.chunks[0], (2 * F,)), dtype=self.components_.dtype)
        return both[:, :F], both[:, F:]

    def inverse_transform(self, X):
        """Reconstruction ``codes @ components_`` from codes (in the units of the data); lazy
        for a dask array of codes."""
        check_is_fitted(self, "components_")
        if is_dask_array(X):
            if X.ndim != 2 or X.shape[1] != self.n_components_:
                raise ValueError(f"codes must have shape (n_samples, {self.n_components_}), "
                                 f"got {X.shape}")
            return X.astype(self.components_.dtype) @ self.components_
        X = np.asarray(X, dtype=self.components_.dtype)
        if X.ndim != 2 or X.shape[1] != self.n_components_:
            raise ValueError(f"codes must have shape (n_samples, {self.n_components_}), "
                             f"got {X.shape}")
        return X @ self.components_

    @property
    def _n_features_out(self):
        return self.components_.shape[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


def _weighted_score(estimator, block):
    """(score·rows, rows) of one in-memory row block (the map step of ``_score_dask``)."""
    block = as_rows(block)
    return np.array([estimator.score(block) * block.shape[0], block.shape[0]])


def _stacked_parts(estimator, block):
    """``decompose`` of one row block, the two parts side by side."""
    low, out = estimator.decompose(np.asarray(block))
    return np.hstack([low, out])
