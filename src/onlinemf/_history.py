"""Bounded objective history shared by the online estimators."""

from __future__ import annotations

import numpy as np

__all__ = ["History"]


class History:
    """Checkpoints of (samples seen, wall time, objective), at most ``2 * max_points`` of them.

    Every step is offered with :meth:`due`; a checkpoint is due every ``interval`` steps.
    When the record holds more than ``2 * max_points`` entries, every other entry is dropped
    and the interval doubles, so the record stays bounded whatever the stream's length and
    stays spread over the whole run (dense early, where the curves move most).
    """

    def __init__(self, max_points: int = 50):
        self.max_points = int(max_points)
        self.interval = 1
        self.n_samples: list[int] = []
        self.time: list[float] = []
        self.objective: list[float] = []
        self.extra: dict[str, list[float]] = {}

    def due(self, step: int) -> bool:
        return self.max_points > 0 and step % self.interval == 0

    def record(self, n_samples: int, time: float, objective: float, **extra: float) -> None:
        """Add a checkpoint; ``extra`` values (the same keys every time) are kept alongside."""
        self.n_samples.append(int(n_samples))
        self.time.append(float(time))
        self.objective.append(float(objective))
        for key, value in extra.items():
            self.extra.setdefault(key, []).append(float(value))
        if len(self.n_samples) > 2 * self.max_points:
            for name in ("n_samples", "time", "objective"):
                setattr(self, name, getattr(self, name)[1::2])
            self.extra = {k: v[1::2] for k, v in self.extra.items()}
            self.interval *= 2

    def as_arrays(self) -> dict[str, np.ndarray]:
        """The record as arrays: ``n_samples``, ``time`` (s), ``objective``."""
        return {
            "n_samples": np.asarray(self.n_samples),
            "time": np.asarray(self.time),
            "objective": np.asarray(self.objective),
            **{k: np.asarray(v) for k, v in self.extra.items()},
        }

    def __deepcopy__(self, memo) -> History:
        # the lists hold ints and floats: copying the lists copies the record (the generic
        # deep copy visits every entry, and a rejected call's rollback copies the history)
        out = History.__new__(History)
        out.max_points, out.interval = self.max_points, self.interval
        out.n_samples, out.time = list(self.n_samples), list(self.time)
        out.objective = list(self.objective)
        out.extra = {k: list(v) for k, v in self.extra.items()}
        return out

    def __len__(self) -> int:
        return len(self.n_samples)

