"""Step rules of the divergence coder: each is an object the driver of :mod:`._divergence`
iterates, one projected step of every working row at a time.

A rule has

* ``init(problem, H, f) -> state``: its per-sample state at the start H (objective f, or
  None for rules that evaluate none), e.g. step lengths, momentum, the best iterate seen;
* ``gradient(problem, state, H)``: the gradient the step needs at the working rows' codes
  H (None for the rules that use none; a rule may carry it over from its last step);
* ``step(problem, state, H, f, G, act, live, it) -> Step``: the new codes (and objective)
  of the working rows, whose indices in the batch are ``act``; rows not ``live`` have
  stopped and are overwritten with their old codes by the driver, so a rule may compute
  them as it likes; ``it`` counts the iterations from 0;
* ``compact(problem, state, keep)``: drop the working-set state of the rows not ``keep``
  when the driver shrinks the working set (``problem`` is the working set's before the cut);
* ``result(problem, state, H, f) -> (H, f)``: the returned codes and objective;

and class attributes that select the driver's stopping tests: ``step_test`` (a row stops when
its step is within ``tol`` of its codes; skipped at the first iteration where
``first_step_guessed``, whose length is a guess), ``objective_test`` ("decrease": the
objective falls by at most ``f_tol`` relative; "change": changes by at most that either way,
for a non-monotone rule; None: no such test) and ``uses_objective`` (False: the rule
evaluates no objective while iterating; the driver then carries none). The :class:`Step` a
rule returns may also carry its own stop (a failed line search, a met residual test) and the
quantities of the stopping tests where the rule knows them more exactly than from the codes.

The rules are those of Zhao, Tan and Xu (2016, arXiv:1608.00075), Section V-C, and the faster
ones this package adds; see the module docstring of :mod:`._divergence`.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import NamedTuple

import numpy as np

from .._steps import bb_step, nesterov_momentum
from ._problem import clip

__all__ = ["Step", "StepRule", "SPG", "Armijo", "Lipschitz", "Polyak", "FISTA", "BB",
           "Multiplicative", "ExactLineSearch", "MU_START_FLOOR"]

#: the multiplicative coder starts from the better of the constant and least-squares codes,
#: each code at least this fraction of the constant one
MU_START_FLOOR = 0.6


class Step(NamedTuple):
    """What one iteration of a rule returns for the working rows.

    ``codes`` and ``objective`` (None for a rule without ``uses_objective``) are the new
    iterate; ``stop`` marks rows the rule itself stops; ``step_sq``, ``ref_sq`` and
    ``decrease`` replace, where given, the driver's ‖h⁺ − h‖², ‖h‖² and f(h) − f(h⁺) in its
    tests (a rule whose update is h + λd knows its step and decrease without the rounding
    of their differences)."""

    codes: np.ndarray
    objective: np.ndarray | None
    stop: np.ndarray | None = None
    step_sq: np.ndarray | None = None
    ref_sq: np.ndarray | None = None
    decrease: np.ndarray | None = None


class StepRule:
    """The protocol of a step rule (see the module docstring); the defaults suit a monotone
    projected-gradient rule that needs the gradient at each iterate and no state."""

    name = ""
    uses_objective = True
    objective_test: str | None = "decrease"
    step_test = True
    first_step_guessed = False
    #: with the least-squares start, each code floored at this fraction of the constant one
    start_floor: float | None = None
    #: whether the rule needs a dense batch (a sparse one is densified first)
    dense_only = False
    #: whether the driver may shrink the working set to the rows still running (False: the
    #: stopped rows stay in it, frozen; the products with D then keep the batch's row count,
    #: whose blocking sets their rounding)
    compacts = True

    def check(self, loss) -> None:
        """Raise ValueError if the rule does not apply to ``loss``."""

    def for_problem(self, problem) -> StepRule:
        """The rule to run on ``problem`` (a rule may hand over to another where it does
        not apply)."""
        return self

    def init(self, problem, H, f):
        return SimpleNamespace()

    def gradient(self, problem, state, H):
        return problem.grad(H)

    def step(self, problem, state, H, f, G, act, live, it) -> Step:
        raise NotImplementedError

    def compact(self, problem, state, keep) -> None:
        """Nothing to drop: the state of the rules below is indexed by batch row."""

    def result(self, problem, state, H, f):
        return H, f


class _CarriesProduct(StepRule):
    """A rule whose step ends at the objective of the codes where the next gradient is taken:
    the product both start from (:meth:`~._problem.CodeProblem.shared`) is formed once and
    carried over. It is carried only from a step at which every working row was live (the
    driver resets a frozen row's codes after the step) and dropped when the working set
    shrinks."""

    def gradient(self, problem, state, H):
        return problem.grad(H, **(getattr(state, "shared", None) or {}))

    def compact(self, problem, state, keep):
        # formed again on the rows kept: a product's rows round as its row count blocks them
        state.shared = None

    @staticmethod
    def _keep(state, y, live):
        """Carry ``y`` (keywords from :meth:`~._problem.CodeProblem.shared`, or None) to the
        next gradient if every working row was live at this step."""
        state.shared = y if y is not None and live.all() else None


class Lipschitz(_CarriesProduct):
    """The constant step 1/L, L = c‖D‖₂² + m with c the loss's curvature bound."""

    name = "lipschitz"

    def check(self, loss):
        if loss.curvature() is None:
            raise ValueError(f"the {loss.name} loss has no global curvature bound; use armijo")

    def init(self, problem, H, f):
        L = problem.loss.curvature() * problem.norm_sq() + problem.h_l2
        return SimpleNamespace(inv_L=1.0 / max(L, np.finfo(float).tiny))

    def step(self, problem, state, H, f, G, act, live, it):
        Hn = clip(H - state.inv_L * G, problem.lower, problem.upper)
        y = problem.shared(Hn)
        self._keep(state, y, live)
        return Step(Hn, problem.value(Hn, **y))


class FISTA(Lipschitz):
    """Accelerated projected gradient with step 1/L and adaptive restart (monotone)."""

    name = "fista"

    def init(self, problem, H, f):
        state = super().init(problem, H, f)
        state.mom = np.ones(H.shape[0])  # FISTA's t_k per sample
        state.H_prev = H.copy()
        return state

    def gradient(self, problem, state, H):
        return None  # the step takes its gradient at the extrapolated point

    def step(self, problem, state, H, f, G, act, live, it):
        Hn, fn = _fista_step(problem, H, f, state.H_prev, state.mom, act, state.inv_L,
                             problem.lower, problem.upper)
        state.H_prev[act] = H
        return Step(Hn, fn)


class Armijo(_CarriesProduct):
    """Algorithm 3 of the paper: backtracking ξ ∈ {1, γ, …, γ^q} with sufficient decrease α,
    projected (Calamai and Moré) or ``literal``. ``first``: "previous" starts each search at
    min(1, ξ_prev/γ) (Lin 2007), "one" at ξ = 1 as in Algorithm 3."""

    name = "armijo"

    def __init__(self, literal=False, alpha=0.01, gamma=0.1, q=10, first="previous"):
        self.literal, self.alpha, self.gamma, self.q, self.first = literal, alpha, gamma, q, first

    def init(self, problem, H, f):
        return SimpleNamespace(xi=np.ones(H.shape[0], dtype=H.dtype))

    def step(self, problem, state, H, f, G, act, live, it):
        Hn, fn, xa, failed, y = _armijo_step(problem, H, f, G, state.xi[act], problem.lower,
                                             problem.upper, self.literal, self.alpha,
                                             self.gamma, self.q)
        if self.first == "previous":
            state.xi[act] = np.minimum(1.0, xa / self.gamma)
        self._keep(state, y, live)
        return Step(Hn, fn, stop=failed)


class Polyak(_CarriesProduct):
    """The modified Polyak step for ℓ1 with target f_best − δ; returns the best iterate seen
    (subgradient steps are not monotone, so no objective test)."""

    name = "polyak"
    objective_test = None

    def __init__(self, delta=0.01):
        self.delta = delta

    def init(self, problem, H, f):
        return SimpleNamespace(best_f=f.copy(), best_H=H.copy())

    def step(self, problem, state, H, f, G, act, live, it):
        g2 = np.einsum("ij,ij->i", G, G)
        beta = np.divide(f - state.best_f[act] + self.delta, g2, out=np.zeros_like(g2),
                         where=g2 > 0)
        Hn = clip(H - beta[:, None] * G, problem.lower, problem.upper)
        y = problem.shared(Hn)
        self._keep(state, y, live)
        fn = problem.value(Hn, **y)
        # a stopped row keeps the best codes it had when it stopped
        better = (fn < state.best_f[act]) & live
        state.best_f[act[better]] = fn[better]
        state.best_H[act[better]] = Hn[better]
        return Step(Hn, fn, stop=g2 == 0)

    def result(self, problem, state, H, f):
        return state.best_H, state.best_f


def first_bb_step(problem, step0=None):
    """The first step length of the Barzilai–Borwein rules: ``step0``, else 1/(‖D‖₂² + m)
    for the Gram form and 1/(‖D‖₂²·max(1, max x) + m) otherwise (a guess at 1/L)."""
    if step0 is not None:
        return step0
    norm = problem.norm_sq()
    if problem.gram:
        return 1.0 / (norm + problem.h_l2 + 1e-300)
    X = problem.X
    top = (float(X.data.max()) if X.nnz else 1.0) if problem.sparse else (
        float(np.nanmax(X)) if X.size else 1.0)
    return 1.0 / (norm * max(1.0, top) + problem.h_l2 + 1e-300)


class BB(StepRule):
    """Projected gradient with the short Barzilai–Borwein step, clipped to [1e-10, 1e10]
    and halved (up to 30 times) while the objective rises: monotone."""

    name = "bb"
    first_step_guessed = True
    kind = "short"

    def __init__(self, step0=None):
        self.step0 = step0

    def init(self, problem, H, f):
        alpha = np.full(H.shape[0], first_bb_step(problem, self.step0), dtype=H.dtype)
        return SimpleNamespace(alpha=alpha, H_old=H.copy(), G_old=np.zeros_like(H))

    def _spectral(self, state, H, G, act, it):
        """The rows' Barzilai–Borwein steps from their last displacement (none at first)."""
        if it > 0:
            state.alpha[act] = bb_step(H - state.H_old[act], G - state.G_old[act],
                                       state.alpha[act], self.kind)
        state.H_old[act], state.G_old[act] = H, G

    def step(self, problem, state, H, f, G, act, live, it):
        self._spectral(state, H, G, act, it)
        Hn, fn, state.alpha[act] = _bb_step(problem, H, f, G, state.alpha[act], problem.lower,
                                            problem.upper)
        return Step(Hn, fn)


class SPG(BB):
    """Spectral projected gradient (Birgin, Martínez and Raydan 2000): the long BB step with
    a non-monotone Armijo test (sufficient decrease ``gamma``) over the last ``memory``
    objective values, so its objective test is on the change either way. The gradient at
    the accepted point, and on a sparse batch the model there, carry over to the next
    iteration (``state.G_next``, ``state.model``)."""

    name = "spg"
    objective_test = "change"
    kind = "long"

    def __init__(self, step0=None, memory=10, gamma=0.01):
        super().__init__(step0)
        self.memory, self.gamma = memory, gamma

    def init(self, problem, H, f):
        state = super().init(problem, H, f)
        state.f_recent = np.full((H.shape[0], self.memory), -np.inf)
        state.f_recent[:, 0] = f
        state.G_next, state.model = None, None
        return state

    def gradient(self, problem, state, H):
        if state.G_next is not None:
            G, state.G_next = state.G_next, None
            return G
        state.model = problem.model(H) if problem.fused and problem.sparse else None
        return problem.grad(H, model=state.model)

    def step(self, problem, state, H, f, G, act, live, it):
        self._spectral(state, H, G, act, it)
        Hn, fn, failed, state.G_next, state.model = _spg_step(
            problem, H, f, state.f_recent[act].max(axis=1), G, state.alpha[act],
            problem.lower, problem.upper, self.gamma, live, state.model)
        state.f_recent[act, (it + 1) % self.memory] = fn
        return Step(Hn, fn, stop=failed)

    def compact(self, problem, state, keep):
        if state.model is not None:
            state.model = problem.model_rows(state.model, np.flatnonzero(keep))
        if state.G_next is not None:
            state.G_next = state.G_next[keep]


class ExactLineSearch(StepRule):
    """Projected gradient on the quadratic ½hᵀGh − hᵀb + c (G = DDᵀ + m·I; the squared loss
    in Gram form): per row, the trial point P = Π(h − αg) with α the long Barzilai–Borwein
    step, then h ← h + λ(P − h) with λ ∈ [0, 1] the exact minimizer along the segment (which
    lies in the box). With d = P − h the change of the gradient is λ·dG and of the objective
    λ⟨g, d⟩ + ½λ²⟨d, dG⟩, and the next BB step is ⟨d, d⟩/⟨d, dG⟩, so an iteration costs one
    (rows × K) × (K × K) product and neither the objective nor the gradient is re-evaluated:
    the gradient is carried (``state.grad``, of the working rows) and the step's length and
    decrease are exact. Elsewhere (a mask, another loss) the rule is :class:`SPG`."""

    name = "exact"
    first_step_guessed = True
    compacts = False

    def __init__(self, step0=None):
        self.step0 = step0

    def for_problem(self, problem):
        return self if problem.gram else SPG(self.step0)

    def init(self, problem, H, f):
        k = H.shape[1]
        Gm = problem.G + problem.h_l2 * np.eye(k) if problem.h_l2 else problem.G
        a0 = (self.step0 if self.step0 is not None
              else 1.0 / (problem.norm_sq() + problem.h_l2 + 1e-300))
        return SimpleNamespace(Gm=Gm, grad=H @ Gm - problem.B,
                               alpha=np.full(H.shape[0], a0, dtype=H.dtype))

    def gradient(self, problem, state, H):
        return state.grad

    def step(self, problem, state, H, f, G, act, live, it):
        P = clip(H - state.alpha[:, None] * G, problem.lower, problem.upper)
        d = P - H
        gd = np.einsum("ij,ij->i", G, d)  # ≤ 0: a projected gradient direction
        Gd = d @ state.Gm
        curv = np.einsum("ij,ij->i", d, Gd)
        with np.errstate(divide="ignore", invalid="ignore"):
            lam = np.where(curv > 0, np.clip(-gd / curv, 0.0, 1.0), 1.0)
        lam[~live] = 0.0
        state.alpha = bb_step(d, Gd, state.alpha, "long")  # s = λd, y = λ·dG: the same quotient
        step_sq = lam * lam * np.einsum("ij,ij->i", d, d)
        drop = -(lam * gd + 0.5 * lam * lam * curv)  # the objective's decrease, ≥ 0
        Hn = (H + lam[:, None] * d).astype(H.dtype, copy=False)  # the codes keep their dtype
        state.grad = G + lam[:, None] * Gd
        return Step(Hn, np.maximum(f - drop, 0.0), step_sq=step_sq,
                    ref_sq=np.einsum("ij,ij->i", Hn, Hn), decrease=drop)


class Multiplicative(StepRule):
    """The multiplicative update of the β-divergences, h ← Π(h ⊙ ((P Dᵀ)/(Q Dᵀ + m h))^γ),
    (P, Q) from :meth:`onlinemf.losses.Loss.mu_code_products` and γ the exponent of Févotte
    and Idier (2011) that makes it minimize an auxiliary function: every iteration lowers
    each sample's objective, so none is evaluated while iterating (on IS that evaluation is
    most of an iteration's cost); the Tikhonov term joins the denominator, its gradient being
    positive. Stops on the step only; the objective is evaluated once, at the end."""

    name = "mu"
    uses_objective = False
    objective_test = None
    start_floor = MU_START_FLOOR

    def check(self, loss):
        if not loss.majorized_mu:
            raise ValueError(f"code step 'mu' needs a beta-divergence (kl, is, beta); the "
                             f"{loss.name} loss has no majorized multiplicative update")

    def init(self, problem, H, f):
        return SimpleNamespace(gamma=problem.loss.mu_exponent)

    def gradient(self, problem, state, H):
        return None

    def step(self, problem, state, H, f, G, act, live, it):
        num, den = problem.loss.mu_code_products(problem.X, H, problem.D, problem.mask)
        if problem.h_l2:
            den = den + problem.h_l2 * H
        ratio = np.divide(num, den, out=np.ones_like(num), where=den > 0)
        gamma = state.gamma
        Hn = clip(H * (ratio if gamma == 1.0 else ratio ** gamma), problem.lower, problem.upper)
        # the test on the step before the new codes are rounded to the batch's dtype, which
        # they take for the next iteration
        dH = Hn - H
        return Step(Hn.astype(H.dtype, copy=False), None, step_sq=np.einsum("ij,ij->i", dH, dH),
                    ref_sq=np.einsum("ij,ij->i", H, H))

    def result(self, problem, state, H, f):
        # the model at the final codes of every row, kept for a dictionary step that reads
        # it (``CodeResult.model``)
        state.final_model = problem.model(H)
        return H, problem.value(H, model=state.final_model)


def _fista_step(prob, H, f0, Hprev, mom, act, inv_L, lower, upper):
    """One accelerated projected step (Beck and Teboulle 2009) from the extrapolated point,
    with the adaptive restart of O'Donoghue and Candès (2015): a sample whose objective would
    rise takes a plain projected step from H and restarts its momentum. Monotone."""
    t_next, w = nesterov_momentum(mom[act])
    Z = H + w[:, None] * (H - Hprev[act])
    Hn = clip(Z - inv_L * prob.grad(Z), lower, upper)
    fn = prob.value(Hn)
    up = fn > f0
    if up.any():
        sub = prob.subset(np.flatnonzero(up))
        Hu = clip(H[up] - inv_L * sub.grad(H[up]), lower, upper)
        Hn[up], fn[up] = Hu, sub.value(Hu)
        t_next[up] = 1.0
    mom[act] = t_next
    return Hn, fn


def _spg_step(prob, H, f0, f_ref, G, alpha, lower, upper, gamma, live, y0=None,
              max_backtracks=30):
    """One spectral projected-gradient step per row (Birgin, Martínez and Raydan 2000, SPG2):
    the projected point P = Π(H − αG) along d = P − H, backtracked H + λd (λ by safeguarded
    quadratic interpolation) until the non-monotone Armijo test f ≤ f_ref + γλ⟨G, d⟩ holds,
    f_ref the row's largest objective of its last few iterations (Grippo, Lampariello and
    Lucidi 1986). Rows with no accepted λ keep H and are reported failed. Rows not ``live``
    (stopped, kept in place by the caller) are never backtracked.

    Sparse problems pass ``y0``, the model at H (at the nonzeros): the model at a trial
    H + λd is then y0 + λ(y_P − y0), the model being linear in h, so backtracking gathers no
    columns of D and forms no product with them, and the gradient at the accepted point is
    formed from its model. Dense batches recompute the model, whose product costs about as
    much as the interpolation.

    Returns (H_new, f_new, failed, G_new, y_new): the gradient at H_new (None for the Gram
    form, whose gradient never forms the model, and after a dense backtrack) and the model
    at H_new (sparse problems only)."""
    P = clip(H - alpha[:, None] * G, lower, upper)
    d = P - H
    gd = np.einsum("ij,ij->i", G, d)
    y = prob.model(P) if prob.fused else None
    fn = prob.value(P, model=y)
    ok = (np.isfinite(fn) & (fn <= f_ref + gamma * gd)) | ~live
    failed = np.zeros(H.shape[0], dtype=bool)
    if ok.all():
        return (P, fn, failed, None if y is None else prob.grad(P, model=y),
                y if prob.sparse else None)
    pend = np.flatnonzero(~ok)
    if prob.gram:
        return _spg_exact_search(prob, H, f0, f_ref, d, gd, P, fn, gamma, pend)
    return _spg_backtrack(prob, H, f0, f_ref, d, gd, P, fn, gamma, pend, y0, y,
                          max_backtracks)


def _spg_exact_search(prob, H, f0, f_ref, d, gd, P, fn, gamma, pend):
    """The rows ``pend`` of a quadratic objective (Gram form) whose projected point P failed
    the test: the exact minimizer along d, in closed form (the interpolation of
    :func:`_spg_backtrack` would reach it after one trial, but rows whose minimizer lies
    below λ/10 would then crawl down by tenths, one objective evaluation per tenth); a row
    failing the test there keeps H. Returns as :func:`_spg_step`."""
    Hn = P
    failed = np.zeros(H.shape[0], dtype=bool)
    sub = prob.subset(pend)
    dp = d[pend]
    curv = np.einsum("ij,ij->i", dp @ prob.G, dp)
    if prob.h_l2:
        curv = curv + prob.h_l2 * np.einsum("ij,ij->i", dp, dp)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(curv > 0, np.clip(-gd[pend] / curv, 0.0, 1.0), 1.0)
    Ht = H[pend] + lam[:, None] * dp
    ft = sub.value(Ht)
    good = np.isfinite(ft) & (ft <= f_ref[pend] + gamma * lam * gd[pend])
    Hn[pend[good]], fn[pend[good]] = Ht[good], ft[good]
    failed[pend[~good]] = True
    Hn[pend[~good]], fn[pend[~good]] = H[pend[~good]], f0[pend[~good]]
    return Hn, fn, failed, None, None


def _spg_backtrack(prob, H, f0, f_ref, d, gd, P, fn, gamma, pend, y0, y, max_backtracks):
    """Backtracking H + λd on the rows ``pend`` whose projected point P failed the test, λ
    by safeguarded quadratic interpolation; rows with no accepted λ keep H and are failed.
    On a sparse batch (``y0``, ``y``: the models at H and P) the trials' models are
    interpolated. Returns as :func:`_spg_step`."""
    Hn = P
    failed = np.zeros(H.shape[0], dtype=bool)
    sub = prob.subset(pend)
    start = pend
    lam = np.ones(H.shape[0], dtype=H.dtype)
    f_try = fn.copy()
    for _ in range(max_backtracks):
        # the minimizer of the quadratic through f(H), its slope and f(H + λd), kept in
        # [λ/10, λ/2] (SPG2's safeguarded interpolation); a non-finite trial takes λ/10
        lp, gp, fp = lam[pend], gd[pend], f_try[pend]
        curv = fp - f0[pend] - lp * gp
        with np.errstate(divide="ignore", invalid="ignore"):
            quad = np.where(np.isfinite(fp) & (curv > 0), -0.5 * lp * lp * gp / curv, 0.1 * lp)
        lam[pend] = np.clip(quad, 0.1 * lp, 0.5 * lp)
        Ht = H[pend] + lam[pend, None] * d[pend]
        yt = None if y0 is None else prob.between(y0, y, lam[pend], pend)
        ft = sub.value(Ht, model=yt)
        f_try[pend] = ft
        good = np.isfinite(ft) & (ft <= f_ref[pend] + gamma * lam[pend] * gd[pend])
        Hn[pend[good]], fn[pend[good]] = Ht[good], ft[good]
        if good.any():
            sub = sub.subset(np.flatnonzero(~good))
        pend = pend[~good]
        if not pend.size:
            break
    else:
        failed[pend] = True
        Hn[pend], fn[pend] = H[pend], f0[pend]
        lam[pend] = 0.0
    if y0 is None:
        return Hn, fn, failed, None, None
    y_new = y.copy()
    prob.put_model_rows(y_new, start, prob.between(y0, y, lam[start], start))
    return Hn, fn, failed, prob.grad(Hn, model=y_new), y_new


def _bb_step(prob, H, f0, G, alpha, lower, upper, max_halvings=30):
    """A projected step with per-row steps ``alpha``, halved (at most ``max_halvings`` times)
    on the rows whose objective would rise; such rows keep H if no step helps."""
    alpha = alpha.copy()
    Hn = clip(H - alpha[:, None] * G, lower, upper)
    fn = prob.value(Hn)
    for _ in range(max_halvings):
        up = ~(fn <= f0)
        if not up.any():
            break
        alpha[up] *= 0.5
        rows = np.flatnonzero(up)
        sub = prob.subset(rows)
        Hn[rows] = clip(H[rows] - alpha[rows, None] * G[rows], lower, upper)
        fn[rows] = sub.value(Hn[rows])
    else:
        up = ~(fn <= f0)
        Hn[up], fn[up] = H[up], f0[up]
    return Hn, fn, alpha


def _armijo_step(prob, H, f0, G, xi0, lower, upper, literal, alpha, gamma, q):
    """One Armijo-backtracked projected step per row, from per-row first trials ``xi0``.

    Returns (H_new, f_new, accepted_xi, failed, shared): ``shared`` is the product of
    :meth:`~._problem.CodeProblem.shared` at H_new where every row accepted its first trial
    and the products are row-indexed (dense or Gram form), else None.
    """
    n = H.shape[0]
    Hn = H.copy()
    fn = f0.copy()
    xi_acc = xi0.copy()
    failed = np.zeros(n, dtype=bool)
    pend = np.arange(n)
    sub = prob
    xi = xi0.copy()
    g2 = np.einsum("ij,ij->i", G, G) if literal else None
    # the product of the first trial is carried only where every row accepts it: products
    # formed on the rows of a backtrack round differently from the whole batch's
    carry = prob.gram or not prob.sparse
    for trial in range(q + 1):
        # the first trial runs on every row: no gather of the rows still pending
        Hp, Gp, fp, xp = ((H, G, f0, xi) if trial == 0 else
                          (H[pend], G[pend], f0[pend], xi[pend]))
        if literal:
            Ht = Hp - xp[:, None] * Gp
            ft = sub.value(Ht, literal_domain=True)
            ok = np.isfinite(ft) & (ft <= fp - alpha * xp * (g2 if trial == 0 else g2[pend]))
            Ht = clip(Ht, lower, upper)
        else:
            Ht = clip(Hp - xp[:, None] * Gp, lower, upper)
        # a trial in another dtype is rounded into H's: its product would not be the next one's
        carry = carry and trial == 0 and Ht.dtype == H.dtype
        yt = sub.shared(Ht) if carry else None
        ft = sub.value(Ht, **(yt or {}))
        if not literal:
            ok = np.isfinite(ft) & (ft <= fp + alpha * np.einsum("ij,ij->i", Gp, Ht - Hp))
        if trial == 0 and carry and ft.dtype == f0.dtype and ok.all():
            return Ht, ft, xi, failed, yt
        acc = pend[ok]
        Hn[acc], fn[acc], xi_acc[acc] = Ht[ok], ft[ok], xi[acc]
        if ok.all():
            return Hn, fn, xi_acc, failed, None
        pend = pend[~ok]
        sub = prob.subset(pend)
        xi[pend] *= gamma
    if literal:
        # Algorithm 3 returns ξ = γ^(q+1) even though the test never held.
        Ht = clip(H[pend] - xi[pend][:, None] * G[pend], lower, upper)
        Hn[pend], fn[pend], xi_acc[pend] = Ht, sub.value(Ht), xi[pend]
    else:
        failed[pend] = True
    return Hn, fn, xi_acc, failed, None
