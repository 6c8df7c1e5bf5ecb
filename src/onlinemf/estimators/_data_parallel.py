"""Data-parallel fitting of OnlineNMF on dask: the codes of a step's rows computed where the
rows live, only the surrogate's summed statistics brought back.

A mini-batch's codes are independent per sample, and the surrogate updates (the squared
loss's (HᵀH, HᵀX), the β-divergences' multiplicative numerator and denominator) need only
sums over the batch. So a step can take several row blocks of a dask array, code each block
as a dask task on whichever worker holds it, and add the blocks' statistics on the client in
block order before one dictionary update. The tasks are dask's own (``dask.compute`` on the
active scheduler: threads, processes or a ``distributed.Client``), so a lost worker's blocks
are recomputed elsewhere, and pure: the model depends on the blocks and their order, not on
where or how often a block was coded.
"""

from __future__ import annotations

import copy
import os
import time

import numpy as np

from .._dask import as_rows, is_dask_array
from ._base import one_blas_thread, transactional
from ._convergence import ConvergenceMonitor
from ._online_nmf import OnlineNMF, sum_statistics

__all__ = ["fit_data_parallel"]


def fit_data_parallel(estimator, X, *, blocks_per_step: int | None = None):
    """Fit an :class:`~onlinemf.OnlineNMF` on a dask array, coding each step's row blocks in
    parallel as dask tasks.

    Each step takes ``blocks_per_step`` consecutive row blocks of X (blocks visited in a
    random order per pass when ``shuffle``), codes every block under the current dictionary
    in its own task, sums the blocks' surrogate statistics in block order on the client and
    makes one dictionary update from them (the surrogate of Mairal et al. 2010 for the
    squared loss, the multiplicative surrogate of Lefèvre, Bach and Févotte 2011 for the
    β-divergences). Passes follow the estimator's ``max_iter``, ``tol`` and
    ``max_no_improvement`` as in :meth:`~onlinemf.OnlineNMF.fit`. Any SGD warm-up of the
    surrogate (``Surrogate(warmup=...)``) runs first, on the client, in mini-batches of the
    estimator's own batch size over the blocks in the same order, up to the end of the step
    in which it ends; the steps after it are parallel.

    The result equals the same blocks coded one after the other in one process, added in the
    same order: it depends on the chunking and ``blocks_per_step``, not on the scheduler or
    the number of workers. A step's batch is therefore ``blocks_per_step`` blocks, not
    ``batch_size`` rows: choose the row chunks as the mini-batch parts.

    Parameters
    ----------
    estimator : OnlineNMF
        Its settings are used; it is refitted from scratch (like ``fit``). Its dictionary
        update must be a surrogate (the squared loss, KL, IS or β), and ``history`` not
        "paper" (which keeps every batch on the client).
    X : dask array of shape (n_samples, n_features)
        Dense or CSR row blocks.
    blocks_per_step : int, optional
        Row blocks coded in parallel for one step. Default: the number of workers of the
        active ``distributed.Client``, or of the machine's cores without one. Give it
        explicitly for a model that does not depend on the cluster's size.

    Returns
    -------
    estimator
    """
    if not is_dask_array(X):
        raise TypeError("fit_data_parallel takes a dask array; fit an in-memory X with fit")
    if not isinstance(estimator, OnlineNMF):
        raise TypeError(f"fit_data_parallel fits an OnlineNMF, not {type(estimator).__name__}")
    if blocks_per_step is not None and (not isinstance(blocks_per_step, (int, np.integer))
                                        or blocks_per_step < 1):
        raise ValueError(f"blocks_per_step must be a positive integer, got {blocks_per_step!r}")
    return _fit(estimator, X, blocks_per_step)


@transactional
@one_blas_thread
def _fit(est, X, blocks_per_step):
    est._start_dask(X, None)
    if est._dictionary_kind == "sgd":
        raise ValueError(f"fit_data_parallel needs a surrogate dictionary update; the "
                         f"{est.loss_.name} loss with dictionary_update="
                         f"{est.dictionary_update!r} steps by SGD, whose safeguard reads the "
                         "whole batch (use fit)")
    if est.history == "paper":
        raise ValueError("fit_data_parallel keeps no batches on the client: use history="
                         "'online' or None")
    X = X if len(X.chunks[1]) == 1 else X.rechunk({1: -1})
    blocks = X.to_delayed().ravel()
    per_step = _default_blocks_per_step() if blocks_per_step is None else int(blocks_per_step)
    # the warm-up's steps on the client take the estimator's own batch size; the parallel
    # steps take a step's rows (the nominal batch of the surrogate's forgetting)
    warm_batch = est.batch_size_for(X, in_fit=True)
    est.batch_size_ = int(per_step * max(X.chunks[0]))

    def one_pass(monitor):
        order = est._rng.permutation(len(blocks)) if est.shuffle else np.arange(len(blocks))
        for start in range(0, order.size, per_step):
            group = [blocks[i] for i in order[start:start + per_step]]
            if _step(est, group, monitor, warm_batch):
                return True
        return False

    monitor = ConvergenceMonitor(X.shape[0], est.tol, est.max_no_improvement, est.max_iter,
                                 est.verbose, "fit_data_parallel")
    with monitor:
        while est.n_iter_ < est.max_iter:
            stopped = one_pass(monitor)
            est.n_iter_ += 1
            monitor.end_pass(est.n_iter_)
            if stopped:
                break
    est.converged_ = monitor.converged
    return est


def _step(est, group, monitor, warm_batch: int) -> bool:
    """One step over the blocks ``group``: in parallel once the surrogate has taken over, on
    the client during an SGD warm-up. True when ``monitor`` stops the fit."""
    import dask

    if est._warming_up and est.state_.n_samples_seen >= est._warmup:
        est._end_warmup()
    if est._warming_up:  # the estimator's own loop over the group's rows, on the client
        from .._dask import stack_rows

        rows = stack_rows([as_rows(b) for b in dask.compute(*group)])
        rows = est._check_X(rows, None, reset=False)[0]
        step_rows, est.batch_size_ = est.batch_size_, warm_batch
        try:
            return est._pass(est._source(rows, None, None), warm_batch, monitor)
        finally:
            est.batch_size_ = step_rows
    t0 = time.perf_counter()
    model = dask.delayed(_coding_copy(est), traverse=False)
    parts = dask.compute(*[dask.delayed(_block_sums)(model, b) for b in group])
    n_rows = sum(p[2] for p in parts)
    rule = est._update_rule(est.batch_size_)
    D_new, state = est._surrogate_step(rule, sum_statistics(p[0] for p in parts), n_rows)
    est.components_ = D_new.astype(est.components_.dtype, copy=False)
    est.state_ = state
    est._fit_time += time.perf_counter() - t0
    mean = est._account(float(sum(p[1] for p in parts)), n_rows, sum(p[3] for p in parts))
    est._record(n_rows)
    return monitor.update(mean, n_rows)


def _coding_copy(est):
    """What a worker needs to code a block: the estimator without its statistics and
    history (a shallow copy sharing the dictionary)."""
    light = copy.copy(est)
    for name in ("state_", "_history", "_buffer"):
        light.__dict__.pop(name, None)
    return light


def _block_sums(model, block):
    """(statistics, online loss sum, rows, code iterations) of one row block coded under
    ``model``'s dictionary: validated and scaled as ``fit`` does its batches."""
    X, mask, _, _ = model._check_X(as_rows(block), None, reset=False)
    sparse = model._sparse_batches(X, mask)
    Xb, Mb = model._prepare_batch(X, np.arange(X.shape[0]), mask, sparse)
    part = model._coded_part(model.components_, Xb, Mb)
    return part.sums, part.loss, part.n_rows, part.n_code_iter


def _default_blocks_per_step() -> int:
    """The workers of the active ``distributed.Client``, else the machine's cores."""
    try:
        from distributed import get_client

        return max(len(get_client().scheduler_info()["workers"]), 1)
    except (ImportError, ValueError):
        return os.cpu_count() or 1
