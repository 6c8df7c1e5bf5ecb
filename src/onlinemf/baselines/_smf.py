"""The batch reference of stochastic matrix factorization: deterministic proximal gradient with
exact codes, for the log-suboptimality metric of Zhao, Haskell and Feng (2018), "A Unified
Framework for Stochastic Matrix Factorization via Variance Reduction" (arXiv:1705.10679), who
estimate the stationary point Ŵ by a batch gradient method."""

from __future__ import annotations

import joblib
import numpy as np

from .._state_file import data_key, load_state, remove_state, write_state
from .._steps import MAX_DOUBLINGS
from ..metrics import evaluate

__all__ = ["batch_reference"]


def batch_reference(problem, X, D0, *, eta: float | None = None, max_iter: int = 200,
                    rtol: float = 1e-10, tol: float = 1e-8, code_max_iter: int = 5000,
                    chunk_size: int = 2048, callback=None, warm_start: bool = True,
                    ftol: float | None = None, window: int = 10,
                    state_file: str | None = None, map_fn=map) -> tuple[np.ndarray, list]:
    """Ŵ for the log-suboptimality metric: deterministic proximal gradient on f
    with exact codes (Algorithm 1 with b = n) and a backtracking line search, from D0, until
    ‖Γ‖² ≤ rtol·‖Γ(D0)‖² or ``max_iter`` accepted steps, or, with ``ftol``, once f stalls
    (the second stopping rule): the last ``window`` accepted steps lowered f by at most
    ftol·max(|f|, 1) in all. ``ftol=None`` (the default) never stops on a stall.

    With ``warm_start`` every evaluation starts from the codes of the last accepted iterate
    (n × K floats kept; not for a dask X, whose blocks are solved where they live), which
    changes the codes only within ``tol``.

    With ``state_file``, the run is kept there after every accepted step (the iterate, its
    evaluation with the codes, the step size and the f values: (K + n)·F floats or so), and
    a run that finds the file resumes there and ends as an uninterrupted one would; the file
    is removed at the end. A file from another run (other problem, data, start or settings)
    is an error. On Synth one step solves 100000 robust codes, so a reference run is long.

    ``map_fn`` maps each evaluation's chunks (e.g. over worker processes; see
    :func:`onlinemf.metrics.evaluate`): the result does not depend on it.

    Returns the final dictionary and the list of f values of the accepted iterates.
    """
    kw = dict(tol=tol, max_iter=code_max_iter, chunk_size=chunk_size, keep_codes=warm_start,
              map_fn=map_fn)
    key = None if state_file is None else joblib.hash(
        (problem, data_key(X), np.asarray(D0, dtype=float), eta, max_iter, rtol, tol,
         code_max_iter, chunk_size, warm_start, ftol, window))
    state = None if key is None else load_state(state_file, key)
    if state is None:
        D = problem.project_dictionary(np.asarray(D0, dtype=float))
        cur = evaluate(problem, D, X, **kw)
        eta = 1.0 / cur["curvature"] if eta is None else float(eta)
        state = dict(D=D, cur=cur, eta=eta, first=None, values=[cur["objective"]], done=0,
                     stop=False)
    D, cur, eta, first, values = (state[k] for k in ("D", "cur", "eta", "first", "values"))
    for it in range(state["done"], 0 if state["stop"] else max_iter):
        for _ in range(MAX_DOUBLINGS):  # backtracking: halve until the quadratic bound holds
            Dn = problem.prox_dictionary(D - eta * cur["grad"], eta)
            step = Dn - D
            nxt = evaluate(problem, Dn, X, codes0=cur.get("codes"), **kw)
            bound = (cur["objective"] + float(np.sum(cur["grad"] * step))
                     + float(np.sum(step * step)) / (2 * eta))
            if nxt["objective"] <= bound + 1e-12 * abs(bound) or not eta >= 1e-12:
                break
            eta *= 0.5
        gamma2 = float(np.sum(step * step)) / eta**2
        first = gamma2 if first is None else first
        D, cur = Dn, nxt
        values.append(cur["objective"])
        if callback is not None:
            callback(D, cur)
        stop = gamma2 <= rtol * first or _stalled(values, ftol, window)
        eta *= 1.5
        if key is not None:
            write_state(state_file, key, dict(D=D, cur=cur, eta=eta, first=first,
                                              values=values, done=it + 1, stop=stop))
        if stop:
            break
    if key is not None:
        remove_state(state_file)
    return D, values


def _stalled(values: list, ftol: float | None, window: int) -> bool:
    """f lowered by at most ftol·max(|f|, 1) over the last ``window`` accepted steps."""
    if ftol is None or len(values) <= window:
        return False
    return values[-1 - window] - values[-1] <= ftol * max(abs(values[-1]), 1.0)
