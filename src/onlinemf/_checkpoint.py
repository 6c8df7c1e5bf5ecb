"""Checkpoints of a running ``fit``, written by the estimators' shared loop, and its resume.

Within :func:`checkpointing`, the loop of one estimator's ``fit`` writes, every ``every``
mini-batches, everything the rest of the fit depends on: the estimator's attributes (its
model, the update rule's immutable ``state_``, the random generator, the history), the pass
index (``n_iter_``), the rows of the current pass already stepped through, the generator's
state at the start of that pass (from which the pass's order is drawn again) and the
stopping rule's state. A ``fit`` called with ``resume=True`` runs its deterministic prologue
(validation, the first model), then replaces its state with the checkpoint's and continues
exactly where the checkpoint was written, so the fitted model equals an uninterrupted fit's,
bit for bit. The record carries the library version and :data:`STATE_FORMAT`; a checkpoint
of another format is refused by name.

``StochasticMF`` keeps its own state file between outer iterations (its ``state_file``): within
:func:`checkpointing` it is pointed at the checkpoint's path for the duration of the call.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from ._batches import BATCH_HOOK, Segment
from ._state_file import load_state, state_key, write_state

__all__ = ["checkpointing"]

#: what a checkpoint keeps of the stopping rule (``ConvergenceMonitor``)
_MONITOR_FIELDS = ("smoothed", "best", "stalled", "converged", "n_passes")


@contextlib.contextmanager
def checkpointing(estimator, X, path: str, *, every: int = 100, resume: bool = False,
                  data_id=None):
    """Checkpoint ``estimator.fit(X)`` called within the block to ``path``, atomically.

    Parameters
    ----------
    estimator : estimator
        The one whose ``fit`` is checkpointed (estimators it uses inside are not).
    X : array-like or dask array
        The data ``fit`` is given (part of the checkpoint's key, with the parameters).
    path : str
        The checkpoint file (written through a temporary file and a rename).
    every : int, default=100
        Mini-batches between checkpoints (``StochasticMF``: each outer iteration).
    resume : bool, default=False
        Continue from the checkpoint in ``path`` when there is one. A checkpoint written for
        other data or parameters, or in another format, is refused with a ValueError.
    data_id : object, optional
        What stands for the data in the key instead of ``X`` itself (e.g. the path of a
        lazily read file, whose dask graph name need not be stable across processes).
    """
    if every < 1:
        raise ValueError(f"checkpoints need every >= 1, got {every}")
    if "state_file" in estimator.get_params(deep=False):
        with _state_file(estimator, path, resume):
            yield
        return
    key = state_key(estimator, X if data_id is None else _Id(data_id))
    saved = load_state(path, key) if resume else None
    token = BATCH_HOOK.set(_Checkpointer(estimator, path, key, every, saved))
    try:
        yield
    finally:
        BATCH_HOOK.reset(token)


class _Id:
    """Data identified by a description (hashed as such, never computed)."""

    def __init__(self, description):
        self.description = description

    def __reduce__(self):
        return (_Id, (self.description,))


@contextlib.contextmanager
def _state_file(estimator, path: str, resume: bool):
    """An estimator with its own ``state_file`` (kept between its outer iterations): pointed
    at ``path`` for the call (a fresh start removes an old file first), unset afterwards so
    the fitted model's parameters are the caller's."""
    if not resume and os.path.exists(path):
        os.remove(path)
    old = estimator.get_params(deep=False)["state_file"]
    estimator.set_params(state_file=path)
    try:
        yield
    finally:
        estimator.set_params(state_file=old)


class _Checkpointer:
    """The loop's hook: tracks the position in the pass, writes checkpoints, and restores a
    saved one at the first pass of a resumed ``fit``."""

    def __init__(self, owner, path: str, key: str, every: int, saved: dict | None):
        self.owner = owner
        self.path, self.key, self.every = path, key, every
        self.saved = saved
        self.n_batches = 0
        self.rows_done = 0
        self.pass_rng = None
        self.monitor = None

    def enter_pass(self, segments: Iterator[Segment], monitor) -> Iterator[Segment]:
        """Called as a pass starts (before its order is drawn): note where the random
        generator stands; on a resumed fit, restore the checkpoint and skip what it did."""
        self.monitor = monitor
        if self.saved is None:
            self.rows_done = 0
            self.pass_rng = _rng_state(self.owner)
            return segments
        saved, self.saved = self.saved, None
        rng = self.owner.__dict__.get("_rng")
        self.owner.__dict__.update(saved["estimator"])
        current = _rng_state(self.owner)
        if rng is not None and current is not None:  # the pass's source holds this object
            rng.bit_generator.state = current
            self.owner._rng = rng
        if monitor is not None:
            monitor.__dict__.update(saved["monitor"])
        self.pass_rng, self.rows_done = saved["pass_rng"], saved["rows_done"]
        return self._skipped(segments, rng, current)

    def _skipped(self, segments, rng, current) -> Iterator[Segment]:
        """The pass's segments after its first ``rows_done`` rows, drawn from the generator
        as it stood when the pass started; from the checkpoint's position on (before the next
        segment is read), the generator as it stood at the checkpoint."""
        if rng is not None and self.pass_rng is not None:
            rng.bit_generator.state = self.pass_rng
        left, restored = self.rows_done, False
        for seg in segments:
            if left >= seg.order.size:
                left -= seg.order.size
                if not left:  # where the checkpoint was: before the next segment is read
                    _set_rng(rng, current)
                    restored = True
                continue
            if left:
                seg = Segment(seg.X, seg.mask, seg.order[left:], seg.fresh, seg.ctx)
                left = 0
            if not restored:
                _set_rng(rng, current)
                restored = True
            yield seg
        if not restored:
            _set_rng(rng, current)

    def after_batch(self, rows) -> None:
        """After each mini-batch's step and record: a checkpoint every ``every`` of them."""
        self.rows_done += len(rows)
        self.n_batches += 1
        if self.n_batches % self.every == 0:
            self.write()

    def end_pass(self) -> None:
        """At a pass's end (or where the stopping rule ended it): a checkpoint, unless the
        last mini-batch's was just written, so a finished fit leaves its final state."""
        if self.n_batches % self.every:
            self.write()

    def write(self) -> None:
        est = self.owner
        params = est.get_params(deep=False)
        monitor = {} if self.monitor is None else {
            k: getattr(self.monitor, k) for k in _MONITOR_FIELDS}
        write_state(self.path, self.key, {
            "estimator": {k: v for k, v in vars(est).items() if k not in params},
            "monitor": monitor, "pass_rng": self.pass_rng, "rows_done": self.rows_done})


def _rng_state(est):
    rng = est.__dict__.get("_rng")
    return None if rng is None else rng.bit_generator.state


def _set_rng(rng, state) -> None:
    if rng is not None and state is not None:
        rng.bit_generator.state = state
