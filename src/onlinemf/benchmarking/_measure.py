"""Measurement helpers: time-to-objective on curves, peak memory, the machine's GEMM rate."""

from __future__ import annotations

import math
import time
import tracemalloc
from collections.abc import Callable

import numpy as np

__all__ = ["Curve", "time_to", "value_at", "peak_memory_mb", "gemm_rate", "online_curve",
           "fit_curve", "restart_curve"]

Curve = list  # [(seconds, objective), ...], seconds of algorithm time, increasing


def time_to(curve: Curve, level: float, higher_is_better: bool = False) -> float:
    """First time the curve reaches ``level`` (inf if never)."""
    for t, f in curve:
        if (f >= level) if higher_is_better else (f <= level):
            return t
    return float("inf")


def value_at(curve: Curve, seconds: float) -> float:
    """The curve's last value at or before ``seconds`` (its first value if none)."""
    vals = [f for t, f in curve if t <= seconds]
    return vals[-1] if vals else curve[0][1]


def peak_memory_mb(fn: Callable[[], object]) -> float:
    """Peak traced allocation (MB) while running ``fn`` (numpy reports its buffers to
    tracemalloc); run separately from the timed runs, which it would slow."""
    tracemalloc.start()
    try:
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20


def gemm_rate(n: int = 1000, repeats: int = 3) -> float:
    """This machine's float64 GEMM rate (flop/s) for an n×n product, best of ``repeats``."""
    rng = np.random.default_rng(0)
    A, B = rng.random((n, n)), rng.random((n, n))
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        A @ B
        best = min(best, time.perf_counter() - t0)
    return 2.0 * n**3 / best


def online_curve(est, X, score: Callable, passes: float, chunks_per_pass: int = 4,
                 time_budget: float | None = None, seed: int = 0,
                 first_pass_chunks: int = 16) -> Curve:
    """``partial_fit`` over shuffled passes of X in about ``chunks_per_pass`` chunks
    (``first_pass_chunks`` in the first pass, where one pass can already reach an anchor's
    value), scored after each chunk (scoring time excluded): the curve is read at fractions
    of a pass. Stops after ``passes`` passes or once ``time_budget`` seconds of fitting are
    spent.

    An estimator with a mini-batch size (``batch_size_``, known after its first call) is
    fed whole mini-batches: each later chunk is a multiple of it, so the chunking adds no
    short batches that ``fit`` over the same pass would not take (a chunk of 1.15 batches
    would cost two dictionary steps)."""
    rng = np.random.default_rng(seed)
    n = X.shape[0]
    curve, elapsed, done = [], 0.0, 0.0
    while done < passes - 1e-9:
        parts = first_pass_chunks if done == 0.0 else chunks_per_pass
        perm, start = rng.permutation(n), 0
        while start < n:
            size = _chunk_size(n, parts, getattr(est, "batch_size_", None))
            chunk, start = perm[start:start + size], start + size
            t0 = time.perf_counter()
            est.partial_fit(X[chunk])
            elapsed += time.perf_counter() - t0
            done += chunk.size / n
            curve.append((elapsed, score(est)))
            if done >= passes - 1e-9 or (time_budget is not None and elapsed >= time_budget):
                return curve
    return curve


class _Budget(Exception):
    """Raised by :func:`fit_curve`'s callback once the time budget is spent."""


def fit_curve(est, X, score: Callable, passes: int, points_per_pass: int = 4,
              time_budget: float | None = None, first_pass_points: int = 8) -> Curve:
    """One ``fit`` of ``passes`` passes (no early stop), read through the estimator's
    ``callback``: the dictionary is scored (``score(components)``) after the first step at
    or past each 1/``points_per_pass`` of a pass (1/``first_pass_points`` in the first), and
    the curve's seconds are ``fit``'s wall time less the callback's own (the scoring), so
    they include what a user's ``fit`` pays: the start, the validation, the shuffling.

    Unlike :func:`online_curve`, the estimator sees the data as one ``fit`` call, so the
    reading does not change the run (a first ``partial_fit`` of a fraction of a pass would
    choose the start and the batch size from that fraction). Stops once ``time_budget``
    seconds are spent, after scoring the step that spent them; the stop interrupts ``fit``,
    which leaves ``est`` as it was before the call."""
    n = X.shape[0]
    marks = [n * i / first_pass_points for i in range(1, first_pass_points + 1)]
    marks += [n * (p + i / points_per_pass) for p in range(1, passes)
              for i in range(1, points_per_pass + 1)]
    curve: Curve = []
    spent, start, nxt = [0.0], [0.0], [0]

    def read(info):
        t0 = time.perf_counter()
        elapsed = t0 - start[0] - spent[0]
        seen = info["n_samples"]
        spent_all = time_budget is not None and elapsed >= time_budget
        if spent_all or (nxt[0] < len(marks) and seen >= marks[nxt[0]] - 1e-9):
            while nxt[0] < len(marks) and seen >= marks[nxt[0]] - 1e-9:
                nxt[0] += 1
            curve.append((elapsed, score(info["components"])))
        spent[0] += time.perf_counter() - t0
        if spent_all:
            raise _Budget

    import warnings

    from sklearn.exceptions import ConvergenceWarning

    est.set_params(callback=read, max_iter=passes, max_no_improvement=None)
    start[0] = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            est.fit(X)
        except _Budget:
            pass
    return curve


def _chunk_size(n: int, parts: int, step: int | None) -> int:
    """Rows of the next chunk of a pass of ``n`` rows in about ``parts`` chunks: a multiple
    of the mini-batch ``step`` (at least one), or n/parts rounded up without one."""
    if not step or step <= 1:
        return math.ceil(n / parts)
    return max(step, int(round(n / parts / step)) * step)


def restart_curve(make: Callable[[int], object], X, score: Callable, budgets) -> Curve:
    """Fit ``make(budget)`` from scratch for each budget (passes or iterations), each timed."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    curve = []
    for b in budgets:
        est = make(b)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.fit(X)
        curve.append((time.perf_counter() - t0, score(est)))
    return curve
