"""Code (coefficient) solvers: min_{h ∈ H} d(x ‖ hD) + (m/2)‖h‖² for a whole mini-batch.

Each sample's problem is independent (the divergences are column-separable), so the coder
works on the batch at once with one step size per sample. One driver (:func:`iterate`) runs
every step rule: it owns the start, the active set of the samples still running, each
sample's iteration count and convergence, the stopping tests and the result; a rule (an
object of :mod:`._rules`, or :class:`._admm.ADMM`) only takes the step. The result is the
same as a loop over single samples.

Algorithm 2 of Zhao, Tan and Xu (2016), "Online Nonnegative Matrix Factorization with General
Divergences" (arXiv:1608.00075): projected (sub)gradient descent, eq. (12), with the step
rules of Section V-C:

* ``"armijo"``: Algorithm 3 (α = 0.01, γ = 0.1, q = 10). The default is the projected form
  analysed by Calamai and Moré: accept the first ξ ∈ {1, γ, …, γ^q} with
  f(Π(h − ξg)) ≤ f(h) + α⟨g, Π(h − ξg) − h⟩; a non-finite value is a rejection and a sample with
  no accepted ξ keeps its h and stops. ``armijo="literal"`` is the paper's listing verbatim:
  the test is on the unprojected point h − ξg with decrease α ξ ‖g‖², ξ = γ^(q+1) is returned
  when nothing was accepted, and the step is then applied through Π_H.
* ``"lipschitz"``: the constant step 1/L with L = c‖D‖₂² (+ m), c the loss curvature bound
  (1 for the squared and Huber losses); ‖D‖₂² by the symmetric eigensolver on the Gram matrix.
* ``"polyak"``: the modified Polyak step for ℓ1 with target level f_best − δ (δ = 0.01),
  returning the best iterate seen (subgradient steps are not monotone).
* ``"mu"``: the multiplicative update of the β-divergences (KL, IS, β), h ← h ⊙
  ((P Dᵀ)/(Q Dᵀ))^γ with the exponent γ of Févotte and Idier (2011) that makes it minimize an
  auxiliary function, so every iteration lowers each sample's objective without evaluating it
  (no logarithm per entry: on IS that evaluation is most of an iteration's cost).
* ``"admm"``: for a loss φ(x − y) with a closed-form proximal map (ℓ1, ℓ2), the ADMM of
  :mod:`._admm`, which reaches the minimum where the subgradient rules stall.
* ``"exact"``: for a quadratic objective in Gram form (the squared loss without missing
  entries), projected gradient with the long Barzilai–Borwein trial step and the exact
  minimizer along the projected direction, clipped to the segment: monotone, and neither the
  objective nor the gradient is ever re-evaluated (both follow from one K × K product per
  iteration). Elsewhere it is ``"spg"``.
* ``"spg"``: the spectral projected gradient (Birgin, Martínez and Raydan 2000), the long
  Barzilai–Borwein step with a non-monotone Armijo test; ``"bb"``: the short BB step, halved
  while the objective rises; ``"fista"``: accelerated 1/L steps with adaptive restart.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._sparse import SparseRows, as_sparse_rows
from ._admm import ADMM
from ._problem import CodeProblem, initial_codes, least_squares_start
from ._result import CodeResult
from ._rules import (
    BB,
    FISTA,
    SPG,
    Armijo,
    ExactLineSearch,
    Lipschitz,
    Multiplicative,
    Polyak,
    StepRule,
)

__all__ = ["STEP_RULES", "make_rule", "solve_batch", "iterate"]

STEP_RULES = ("spg", "armijo", "lipschitz", "polyak", "fista", "bb", "mu", "exact", "admm")


def make_rule(name: str, loss, *, max_iter: int, tol: float, armijo: str = "projected",
              armijo_init: str = "previous", polyak_delta: float = 0.01,
              bb_step0: float | None = None) -> StepRule:
    """The step rule ``name`` of :data:`STEP_RULES` with its settings, checked against
    ``loss`` (ValueError where it does not apply)."""
    if armijo not in ("projected", "literal"):
        raise ValueError(f"armijo must be 'projected' or 'literal', got {armijo!r}")
    if armijo_init not in ("previous", "one"):
        raise ValueError(f"armijo_init must be 'previous' or 'one', got {armijo_init!r}")
    makers = {
        "spg": lambda: SPG(bb_step0),
        "armijo": lambda: Armijo(literal=armijo == "literal", first=armijo_init),
        "lipschitz": Lipschitz,
        "polyak": lambda: Polyak(polyak_delta),
        "fista": FISTA,
        "bb": lambda: BB(bb_step0),
        "mu": Multiplicative,
        "exact": lambda: ExactLineSearch(bb_step0),
        "admm": lambda: ADMM(tol, max_iter),
    }
    if name not in makers:
        raise ValueError(f"unknown code step {name!r}; choose one of {STEP_RULES}")
    rule = makers[name]()
    rule.check(loss)
    return rule


def _start_codes(loss, D, X, mask, init, lower, upper):
    """h⁰: the scale-matched constant codes, or ``init`` clipped to the box, in the dtype of
    X. A given start with a zero rate where the data are positive sits on the floor of a
    positive-model divergence (gradients ~ x/1e-16): those rows restart from the constant
    codes (dense batches; a sparse batch's rows are converted first)."""
    H = initial_codes(D, X, mask, lower, upper) if init is None else np.clip(init, lower, upper)
    H = np.array(H, dtype=X.dtype)
    if init is not None and loss.positive_model and H.shape[0] and not (
            sp.issparse(X) or isinstance(X, SparseRows)):
        pos = (X > 0) if mask is None else (mask & (X > 0))
        bad = ((H @ D <= 0) & pos).any(axis=1)
        if bad.any():
            sub_mask = None if mask is None else mask[bad]
            H[bad] = initial_codes(D, X[bad], sub_mask, lower, upper)
    return H


def solve_batch(loss, D, X, mask=None, init=None, *, rule: StepRule, lower: float,
                upper: float, h_l2: float, max_iter: int, tol: float, f_tol: float,
                start: str = "best") -> CodeResult:
    """min_{h ∈ [lower, upper]^K} d(x ‖ hD) + (h_l2/2)‖h‖² for every row x of X by ``rule``.

    The start: ``init`` (clipped), else the constant codes of :func:`initial_codes`, and with
    ``start="best"`` (no ``init``, no mask) row by row the better of those and the rescaled
    least-squares codes (floored at the rule's ``start_floor`` of the constant ones: a
    multiplicative step cannot revive a code clipped to the floor). Then :func:`iterate`.
    ``X`` may be a CSR matrix (or SparseRows) without a mask for the squared loss and the
    losses with sparse kernels; a rule that needs a dense batch gets one.
    """
    if start not in ("best", "constant"):
        raise ValueError(f"start must be 'best' or 'constant', got {start!r}")
    if rule.dense_only and sp.issparse(X):
        X = X.toarray()
    H = _start_codes(loss, D, X, mask, init, lower, upper)
    if sp.issparse(X) or isinstance(X, SparseRows):
        X = as_sparse_rows(X, D)
    n = X.shape[0]
    if n == 0 or max_iter <= 0:
        return CodeResult(H, np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool))
    prob = CodeProblem(loss, D, X, mask, h_l2, lower, upper)
    rule = rule.for_problem(prob)
    best_start = init is None and start == "best" and mask is None
    f = prob.value(H) if rule.uses_objective or best_start else None
    if best_start:
        H, f = least_squares_start(prob, H, f)
        if rule.start_floor is not None:
            np.maximum(H, rule.start_floor * initial_codes(D, X, None, lower, upper), out=H)
    return iterate(rule, prob, H, f if rule.uses_objective else None, max_iter=max_iter,
                   tol=tol, f_tol=f_tol)


def _stops(rule, out, H, f, Hn, fn, it, tol, f_tol):
    """The rows whose step ``out`` (from H, f to Hn, fn) meets a stopping test: the rule's
    own stop, the step within ``tol`` of the codes, the objective's decrease (or change,
    for a non-monotone rule) within ``f_tol`` relative."""
    tests = []  # each a fresh array
    if rule.step_test and (it > 0 or not rule.first_step_guessed):
        # the first Barzilai–Borwein step has a guessed length, so a short first step says
        # nothing about convergence: on counts of a few hundred it is ~1/(‖D‖²·max x) and
        # would stop every refit at once
        if out.step_sq is None:
            dH = Hn - H
            step_sq = np.einsum("ij,ij->i", dH, dH)
        else:
            step_sq = out.step_sq
        ref_sq = np.einsum("ij,ij->i", H, H) if out.ref_sq is None else out.ref_sq
        tests.append(step_sq <= tol * tol * ref_sq)
    if rule.objective_test == "change":
        tests.append(np.abs(f - fn) <= f_tol * np.abs(f))
    elif rule.objective_test == "decrease":
        tests.append((f - fn if out.decrease is None else out.decrease) <= f_tol * np.abs(f))
    if not tests:
        return np.zeros(H.shape[0], dtype=bool) if out.stop is None else out.stop.copy()
    stop = tests[0]
    for test in tests[1:]:
        stop |= test
    if out.stop is not None:
        stop |= out.stop
    return stop


def iterate(rule: StepRule, problem: CodeProblem, H: np.ndarray, f: np.ndarray | None, *,
            max_iter: int, tol: float, f_tol: float) -> CodeResult:
    """Run ``rule`` from the codes ``H`` (objective ``f``, None for a rule that evaluates
    none) on every row of ``problem``, at most ``max_iter`` iterations per row.

    The driver keeps the rows still running (the working set, batch indices ``act``); a row
    that stops is frozen in place (``live`` False) and compacted away only once the stopped
    rows are a quarter of the working set: each compaction copies the batch's rows, so
    compacting at every stop would cost more than computing on a few settled rows (a rule
    without ``compacts`` keeps the whole batch: its results stay bit-identical to those of
    its former solver, whose products ran on the whole batch). Each
    row's count, convergence (a stopping test met before the cap) and codes are its own, so
    the result is that of a loop over single samples. ``H`` is updated in place.
    """
    n = H.shape[0]
    n_iter = np.zeros(n, dtype=np.int64)
    converged = np.zeros(n, dtype=bool)
    state = rule.init(problem, H, f)
    if f is not None:
        f = f.copy()
    act, live, sub = np.arange(n), np.ones(n, dtype=bool), problem
    # every working row live: the common case, spared the frozen rows' bookkeeping
    all_live = True
    Ha, fa = H, f
    ran = 0
    for it in range(max_iter):
        ran = it + 1
        G = rule.gradient(sub, state, Ha)
        out = rule.step(sub, state, Ha, fa, G, act, live, it)
        Hn, fn = out.codes, out.objective
        if not all_live:
            dead = ~live
            Hn[dead] = Ha[dead]
            if fn is not None:
                fn[dead] = fa[dead]
        stop = _stops(rule, out, Ha, fa, Hn, fn, it, tol, f_tol)
        if not all_live:
            stop &= live
        Ha, fa = Hn, fn
        if stop.any():
            # a row's count is the iterations it was live for; the working rows' codes are
            # written back to H only when the working set shrinks and at the end
            stopped = act[stop]
            n_iter[stopped] = ran
            converged[stopped] = True
            live &= ~stop
            all_live = False
            if not live.any():
                break
            if rule.compacts and 4 * (live.size - np.count_nonzero(live)) >= live.size:
                H[act] = Ha
                if fa is not None:
                    f[act] = fa
                rule.compact(sub, state, live)
                act = act[live]
                sub = problem.subset(act)
                Ha = Ha[live]
                fa = None if fa is None else fa[live]
                live = np.ones(act.size, dtype=bool)
                all_live = True
    n_iter[act[live]] = ran
    H[act] = Ha
    if fa is not None:
        f[act] = fa
    H, f = rule.result(problem, state, H, f)
    # a rule that formed the model at every row's returned codes hands it over
    return CodeResult(H, n_iter, converged, f, model=getattr(state, "final_model", None))
