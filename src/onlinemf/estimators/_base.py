"""What the online factorization estimators share."""

from __future__ import annotations

import copy
import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._batches import BATCH_HOOK, Segment
from .._dask import as_rows, is_dask_array, map_reduce_blocks
from .._history import History
from .._params import Settings, param_names
from .._threads import one_blas_thread
from ._convergence import ConvergenceMonitor

__all__ = ["OnlineFactorizationMixin", "RuleCountsMixin", "lazy_blocks", "one_blas_thread",
           "transactional"]

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
    cannot change it (an immutable value, a frozen dataclass such as a rule's state, an array
    or a settings object: the estimators replace their arrays and settings and never write
    into them), a shallow copy of an append-only list, a deep copy otherwise (the random
    generator, the history, ...)."""
    if name in _APPEND_ONLY:
        return list(value)
    if isinstance(value, (_IMMUTABLE, np.ndarray, Settings)) or _is_frozen_value(value):
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


def lazy_blocks(kind: str):
    """Give a dask array to ``transform``, ``score`` or ``decompose`` (``kind``) the base
    mixin's blockwise path (``_transform_dask``, ``_score_dask``, ``_decompose_dask``: lazy, or
    a map-reduce pass), after the estimator's ``_dask_input`` check; any other input, or a
    call with a further argument (a ``mask``), goes to the method itself."""

    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, X, *args, **kwargs):
            if is_dask_array(X) and all(a is None for a in (*args, *kwargs.values())):
                check_is_fitted(self, "components_")
                return getattr(self, f"_{kind}_dask")(self._dask_input(X))
            return method(self, X, *args, **kwargs)

        return wrapper

    return decorate


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

    @classmethod
    def _get_param_names(cls):
        return param_names(cls)

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

    # ------------------------------------------------------------------ the one loop
    def _open_segment(self, seg: Segment) -> Segment:
        """Validate a segment before its steps (the estimator's own: a fresh dask piece is
        checked, and the first one starts the model); returns the segment to step through."""
        return seg

    def _batch_step(self, seg: Segment, rows: np.ndarray) -> float:
        """The estimator's online step (code, then update) on the rows ``rows`` of
        ``seg.X``; returns the mini-batch's mean online loss (``fit``'s stopping rule reads
        it)."""
        raise NotImplementedError

    def _record(self, n_rows: int) -> None:
        """Record the step just taken (the estimator's history), after its step."""

    def _pass(self, segments, batch_size: int, monitor: ConvergenceMonitor | None = None
              ) -> bool:
        """One pass of the loop every streaming estimator runs, for ``fit`` and ``partial_fit``
        alike: for each segment of the source (:mod:`onlinemf._batches`), validate it, then for
        each mini-batch of ``batch_size`` of its rows the estimator's step and the record
        (history, the stopping rule, the checkpoint hook). True when ``monitor`` (``fit``'s
        stopping rule) ended the pass; no further segment is read then."""
        hook = BATCH_HOOK.get()
        hook = hook if hook is not None and hook.owner is self else None
        if hook is not None:  # a checkpointed fit: a resumed one restores its state here
            segments = hook.enter_pass(segments, monitor)
            if monitor is not None and monitor.converged:
                return True
        stopped = False
        for seg in segments:
            stopped = self._steps(self._open_segment(seg), batch_size, monitor, hook)
            if stopped:
                break
        if hook is not None:
            hook.end_pass()
        return stopped

    def _steps(self, seg: Segment, batch_size: int, monitor, hook) -> bool:
        """The mini-batches of one segment: the estimator's step, then the record; True when
        the stopping rule ends the pass."""
        for rows in seg.batches(batch_size):
            f = self._batch_step(seg, rows)
            self._record(rows.size)
            stop = monitor is not None and monitor.update(f, rows.size)
            if hook is not None:
                hook.after_batch(rows)
            if stop:
                return True
        return False

    def _converging_passes(self, n_samples: int, new_pass: Callable[[], Any],
                           batch_size: int) -> None:
        """``fit``'s loop: passes of the segments ``new_pass()`` gives, up to ``max_iter`` of
        them, until the stopping rule of :class:`ConvergenceMonitor` (``tol``,
        ``max_no_improvement``) ends one; sets ``n_iter_`` and ``converged_``."""
        monitor = ConvergenceMonitor(n_samples, self.tol, self.max_no_improvement,
                                     self.max_iter, self.verbose, type(self).__name__)
        with monitor:  # n_iter_ is 0 here, or a resumed fit's passes after its first _pass
            while self.n_iter_ < self.max_iter:
                stopped = self._pass(new_pass(), batch_size, monitor)
                self.n_iter_ += 1
                monitor.end_pass(self.n_iter_)
                if stopped:
                    break
        self.converged_ = monitor.converged

    def _dask_input(self, X):
        """A dask array for the blockwise paths (:func:`lazy_blocks`), checked as the
        estimator needs (default: as it is; each block is checked when it is computed)."""
        return X

    def _transform_dask(self, X):
        """A lazy ``transform`` of a dask array: one task per row block (``map_blocks``), each
        block in memory as rows (CSR chunks stay sparse); the codes are dense."""
        X = X if len(X.chunks[1]) == 1 else X.rechunk({1: -1})
        dtype = self.components_.dtype
        return X.map_blocks(self._transform_block, chunks=(X.chunks[0], (self.n_components_,)),
                            dtype=dtype, meta=np.empty((0, 0), dtype))

    def _transform_block(self, block):
        return self.transform(as_rows(block))

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


class RuleCountsMixin:
    """``n_steps_`` and ``n_samples_seen_`` of an estimator whose update rule's immutable
    state ``state_`` counts them (so a pickled or checkpointed estimator carries them)."""

    state_: Any

    @property
    def n_steps_(self) -> int:
        """Dictionary steps taken (``state_.n_steps``)."""
        check_is_fitted(self, "components_")
        return self.state_.n_steps

    @property
    def n_samples_seen_(self) -> int:
        """Samples the steps have seen (``state_.n_samples_seen``)."""
        check_is_fitted(self, "components_")
        return self.state_.n_samples_seen


def _weighted_score(estimator, block):
    """(score·rows, rows) of one in-memory row block (the map step of ``_score_dask``)."""
    block = as_rows(block)
    return np.array([estimator.score(block) * block.shape[0], block.shape[0]])


def _stacked_parts(estimator, block):
    """``decompose`` of one row block, the two parts side by side."""
    low, out = estimator.decompose(np.asarray(block))
    return np.hstack([low, out])
