"""Repeated timings of one fit: the report's protocol for every time a claim compares.

A single wall-clock reading on a shared machine can be several times the fit's real cost
(another process on the core, a page-cache miss). Each timed fit therefore runs ``repeats``
times and the median is used; a run more than ``outlier`` times the median of the others is
run once more and the rerun replaces it, and every run (replaced ones included) is reported
beside the CPU share the fit got (its process CPU seconds over its wall seconds), so a
reader can see whether the machine was quiet.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

__all__ = ["TimedRuns", "timed", "REPEATS", "OUTLIER", "TIMING_DEPARTURE"]

#: timed runs per fit at the paper's scale (the papers average ten where they say so)
REPEATS = 3
#: a run slower than this many times the median of the others is run again once
OUTLIER = 2.0
#: the departure every experiment with timed claims states while some of its results are
#: kept from before the protocol
TIMING_DEPARTURE = ("Times: a run under the timing protocol times each fit three times and "
                    "uses the median, and its tables list every run and the least CPU share; "
                    "any other time is a single timing taken while other fits shared the "
                    "machine's two cores, which can slow a run several-fold.")


@dataclass
class TimedRuns:
    """The wall and CPU seconds of every run of one fit, in the order they ran.

    ``replaced`` lists the runs that a rerun replaced (each was over ``OUTLIER`` times the
    median of the others); ``load`` is the machine's one-minute load average before each run;
    ``value_run`` is the run whose value :func:`timed` returned (a run that counts).
    """

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    load: list[float] = field(default_factory=list)
    replaced: list[int] = field(default_factory=list)
    value_run: int = 0

    @property
    def kept(self) -> list[float]:
        """Wall seconds of the runs that count (the replaced ones left out)."""
        return [t for i, t in enumerate(self.wall) if i not in self.replaced]

    @property
    def median(self) -> float:
        """The median wall seconds of the runs that count: the fit's time."""
        return float(np.median(self.kept))

    @property
    def cpu_share(self) -> float:
        """Smallest CPU seconds over wall seconds of a run that counts: below 1 a
        single-threaded fit waited for a core."""
        kept = [c / max(w, 1e-12) for i, (w, c) in enumerate(zip(self.wall, self.cpu))
                if i not in self.replaced]
        return float(min(kept))

    def describe(self) -> str:
        """Every run, in order, e.g. ``"12.3 s (median of 3 runs: 12.1, 31 replaced, 12.3,
        14; CPU share ≥ 0.98)"``."""
        share = f"CPU share ≥ {self.cpu_share:.2f}"
        if len(self.wall) == 1:
            return f"{self.wall[0]:.3g} s (one run; {share})"
        runs = ", ".join(f"{t:.3g}" + (" replaced" if i in self.replaced else "")
                         for i, t in enumerate(self.wall))
        return f"{self.median:.3g} s (median of {len(self.kept)} runs: {runs}; {share})"


def _load_average() -> float:
    try:
        return float(os.getloadavg()[0])
    except (AttributeError, OSError):  # not on every platform
        return float("nan")


def timed(fit: Callable[[], object], repeats: int = REPEATS, outlier: float = OUTLIER,
          exclude: Callable[[object], float] | None = None,
          clock: Callable[[], float] = time.perf_counter,
          cpu_clock: Callable[[], float] = time.process_time):
    """Run ``fit()`` ``repeats`` times; return the value of a run that counts and the
    :class:`TimedRuns` of every run.

    The fits a report times are seeded, so every run computes the same model; one value is
    kept, the first run's, or its rerun's when the first run is replaced (a value's own time
    axis, such as a history, then comes from a run that counts). After the ``repeats`` runs,
    each run over ``outlier`` times the median of the others is run once more (the rerun is
    not checked again).

    Parameters
    ----------
    fit : callable
        The work to time; its return value is the first run's.
    repeats : int, default=3
        Runs before the outlier check (1: a single reading, as the quick scales use).
    outlier : float, default=2.0
        A run slower than this many times the median of the other runs is replaced.
    exclude : callable or None
        ``exclude(value)``: seconds of a run's value that are not the fit's (a measurement
        made by a callback during the fit), taken off its wall and CPU time.
    clock, cpu_clock : callable
        Wall and process-CPU clocks (seconds).
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    if not outlier > 1:
        raise ValueError(f"outlier must be above 1, got {outlier}")
    runs = TimedRuns()
    value = None

    def once(keep):
        nonlocal value
        runs.load.append(_load_average())
        t0, c0 = clock(), cpu_clock()
        out = fit()
        wall, cpu = clock() - t0, cpu_clock() - c0
        spent = exclude(out) if exclude is not None else 0.0
        runs.wall.append(wall - spent)
        runs.cpu.append(cpu - spent)
        if keep:
            value = out

    for i in range(repeats):
        once(i == 0)
    if repeats > 1:
        first = list(runs.wall)
        slow = [i for i, t in enumerate(first)
                if t > outlier * float(np.median(first[:i] + first[i + 1:]))]
        for i in slow:
            runs.replaced.append(i)
            once(i == 0)
            if i == 0:
                runs.value_run = len(runs.wall) - 1
    return value, runs
