"""Diagnoses of the Zhao and Tan 2016 experiments: why a grid run stalls (its inner solves'
caps, the ADMM penalty under the paper's stopping rule), where an online method's pass goes,
and the batch solvers' grids beside the online ones (Figs. 4(a), 5(a)), with the notes and
claims that read them."""

from __future__ import annotations

import numpy as np

from ..baselines import ORPCA, batch_robust_nmf
from ..estimators import OnlineRobustNMF, RobustSolver
from ._registry import Context, PieceMissing
from ._verdicts import (
    NOT_MEASURED,
    NOT_REPRODUCED,
    claim,
    common_level_times,
    differs_mark,
    fmt_times,
    judge,
    speed_band,
    speed_split,
    time_to_level,
    verdict_counts,
)

#: the online methods of the paper, by the solver that runs each
ONLINE = {"OADMM": "admm", "OPGD": "pgd", "OAPGD (accelerated)": "apgd"}


#: the start of :func:`_code_cost_note`'s text after its ``where`` (a later reading replaces it)
CODE_COST_HEAD = "ORPCA's code solves beside OADMM's and OPGD's"


#: The paper's single pass over the stream (Algorithm 1), with fit's stopping rule off.
ONE_PASS = {"max_iter": 1, "max_no_improvement": None}


def paper_pass(X, k: int, seed, solver, batch_size: int = 5, **kw) -> OnlineRobustNMF:
    """One pass of the online method that ``solver`` runs (a :class:`RobustSolver` or its
    name) over X (rows = normalized samples) at the paper's settings (§VII-B), mini-batches
    of ``batch_size`` (the paper's τ = 5), seeded by ``seed`` as the runs are; ``kw`` reaches
    :class:`OnlineRobustNMF` (a callback, λ, ``n_components`` in place of ``k``). Returns the
    fitted estimator."""
    return OnlineRobustNMF(kw.pop("n_components", k), solver=solver, batch_size=batch_size,
                           scale=None, settings="paper", random_state=seed, **ONE_PASS,
                           **kw).fit(X)


#: two PSNRs closer than this (dB) are a tie: below the smallest gap the paper reads as
#: "slightly outperform ORPCA" (OADMM over ORPCA in Tables I(a), IV(a), IV(b): 0.10 to 0.15 dB,
#: the least in Table I(a), setting 3), so the paper's own tables pass the ordering
PSNR_TIE = 0.05


def _shortfall_closed(psnr: float, as_run: float, nmf: float | None) -> tuple:
    """The share of a method's shortfall below the clean faces' NMF fit (``nmf``, dB; its
    run's ``as_run`` PSNR below it) that a diagnostic fit scoring ``psnr`` closes, and that
    share in words (None and "" without the NMF fit, or with a run not below it by more
    than :data:`PSNR_TIE`)."""
    if nmf is None or nmf - as_run <= PSNR_TIE:
        return None, ""
    closed = (psnr - as_run) / (nmf - as_run)
    return closed, f"; {closed:.0%} of its {nmf - as_run:.2f} dB shortfall below the NMF fit closed"


def _way_down(reached: float, level: float, top: float) -> float | None:
    """How far a fit scoring ``reached`` (dB) ends on the way from ``top`` down to
    ``level``: 0 at ``top``, 1 at ``level`` (None where ``level`` is not below ``top`` by
    more than :data:`PSNR_TIE`); the complement of :func:`_shortfall_closed`."""
    closed = _shortfall_closed(reached, level, top)[0]
    return None if closed is None else 1.0 - closed


def _psnr(est, clean):
    """PSNR with peak 1 (eq. (48)), against the clean, normalized data."""
    mse = np.mean((est - clean) ** 2)
    return float(-10 * np.log10(max(mse, 1e-300)))


#: the batch NMF's iteration cap in :func:`ceiling_psnr`
NMF_MAX_ITER = 5000


def clean_nmf(clean, k: int, seed) -> tuple:
    """The batch NMF of the clean samples the diagnoses compare against: scikit-learn's
    coordinate descent from NNDSVDA, run to a tolerance of 1e-6 or :data:`NMF_MAX_ITER`
    iterations. Returns its codes and the fitted model."""
    from sklearn.decomposition import NMF

    nmf = NMF(k, init="nndsvda", solver="cd", tol=1e-6, max_iter=NMF_MAX_ITER,
              random_state=seed)
    return nmf.fit_transform(clean), nmf


def ceiling_psnr(clean, k: int, seed) -> dict:
    """What a rank-k reconstruction of the clean samples (rows of ``clean``, no outliers)
    can score under eq. (48): ``"svd"``, the truncated SVD's PSNR, a bound no rank-k
    reconstruction passes (Eckart–Young), ORPCA's unconstrained one included; ``"nmf"``,
    the PSNR of a batch NMF of the same clean samples (scikit-learn's coordinate descent from
    NNDSVDA, run to a tolerance of 1e-6 or :data:`NMF_MAX_ITER` iterations), a nonnegative
    rank-k fit found without outliers, not a proven optimum; and its iterations."""
    U, sv, Vt = np.linalg.svd(clean, full_matrices=False)
    svd = _psnr((U[:, :k] * sv[:k]) @ Vt[:k], clean)
    W, nmf = clean_nmf(clean, k, seed)
    return {"svd": svd, "nmf": _psnr(W @ nmf.components_, clean), "iterations": nmf.n_iter_}


def uniform_start_psnr(clean, k: int, seed) -> dict:
    """:func:`ceiling_psnr`'s batch NMF of the clean samples started from the paper's W₀
    recipe (:func:`batch_start`: uniform entries projected onto C, the start of the batch
    solvers here; the online methods draw theirs the same way) in place of NNDSVDA, the
    codes starting at each sample's exact nonnegative code on it: its PSNR (eq. (48)) and
    iterations."""
    from scipy.optimize import nnls
    from sklearn.decomposition import NMF

    H0 = batch_start(seed, k, clean.shape[1])
    W0 = np.array([nnls(H0.T, v)[0] for v in clean])
    nmf = NMF(k, init="custom", solver="cd", tol=1e-6, max_iter=NMF_MAX_ITER)
    W = nmf.fit_transform(clean, W=W0, H=H0.copy())
    return {"nmf": _psnr(W @ nmf.components_, clean), "iterations": nmf.n_iter_}


def start_note(where: str, start: dict, nndsvda: float, online: dict) -> str:
    """:func:`uniform_start_psnr` beside the NNDSVDA-started fit (``nndsvda``, dB) and each
    online method's final dictionary with exact nonnegative codes (``online``: method →
    dB). Read before it was computed: where the batch fit from the paper's kind of start
    ends at least half of the way from the NNDSVDA fit down to an online dictionary's
    level, a start of that kind accounts for most of that method's shortfall (the batch
    solver stops as low from it); where it ends nearer the NNDSVDA fit, the start does not
    account for it."""
    parts = []
    for m, level in online.items():
        share = _way_down(start["nmf"], level, nndsvda)
        if share is None:
            parts.append(f"{m}'s dictionary ({level:.2f} dB) is not below the NNDSVDA fit")
            continue
        way = (f"{share:.0%} of the way" if share > 0 else "above the NNDSVDA fit, none of "
               "the way")
        parts.append(f"{way} down to {m}'s dictionary ({level:.2f} dB): "
                     + ("the start accounts for most of its shortfall" if share >= 0.5 else
                        "the start does not account for most of its shortfall"))
    return (f"{where}the batch NMF of the clean faces started as the paper starts W₀ (uniform "
            f"entries projected onto C; {start['iterations']} iterations"
            + (", its cap" if start["iterations"] >= NMF_MAX_ITER else "")
            + f") ends at {start['nmf']:.2f} dB against {nndsvda:.2f} from NNDSVDA: "
            + "; ".join(parts) + ".")


#: BADMM's dictionary penalty in these experiments' runs: footnote 11 read literally, ρ̃₃ = ρ
#: on the summed objective (the kept runs'; :func:`~onlinemf.baselines.batch_robust_nmf`)
BATCH_DICT_PENALTY = "sum"


#: iteration cap and tolerance of :func:`robust_batch_psnr`'s batch solve
ROBUST_BATCH = (3000, 1e-8)


def robust_batch_psnr(clean, k: int, seed, dict_penalty: str = BATCH_DICT_PENALTY) -> dict:
    """The paper's own objective solved in batch on the clean samples (no outliers in
    them): BADMM (:func:`~onlinemf.baselines.batch_robust_nmf`, its dictionary penalty
    ``dict_penalty``) with the paper's λ = 1/√F and ρ, from its uniform start, to a relative
    change of :data:`ROBUST_BATCH`'s tolerance or its cap: the PSNR (eq. (48)) of its
    low-rank part W H and its iterations."""
    from ..baselines import batch_robust_nmf

    cap, tol = ROBUST_BATCH
    res = batch_robust_nmf(clean, k, solver="admm", max_iter=cap, tol=tol, random_state=seed,
                           dict_penalty=dict_penalty)
    return {"psnr": _psnr(res.codes @ res.components, clean), "iterations": res.n_iter}


def robust_batch_note(where: str, batch: dict, nmf: float, as_run: dict,
                      dict_penalty: str = BATCH_DICT_PENALTY) -> str:
    """:func:`robust_batch_psnr` beside the least-squares NMF fit (``nmf``, dB) and each
    online method's PSNR as run (``as_run``: method → dB). Read before it was computed:
    where the paper's objective, solved in batch on the clean faces, ends at least half of
    the way from the NMF fit down to a method's PSNR, the objective itself (its ℓ1 outlier
    term at the paper's λ, which treats part of the faces as outliers) accounts for most of
    that method's shortfall; where it ends nearer the NMF fit, it does not. A solve stopped
    by its cap has reached a point of the objective, not its minimiser, and is not read.
    ``dict_penalty`` names BADMM's dictionary penalty (:func:`robust_batch_psnr`)."""
    capped = batch["iterations"] >= ROBUST_BATCH[0]
    parts = []
    for m, level in as_run.items():
        share = _way_down(batch["psnr"], level, nmf)
        if share is None:
            parts.append(f"{m} ({level:.2f} dB) is not below the NMF fit")
            continue
        way = (f"below {m} itself ({level:.2f} dB)" if share > 1 else
               f"{share:.0%} of the way down to {m} ({level:.2f} dB)")
        parts.append(way if capped else f"{way}: " + (
            "the objective accounts for most of its shortfall" if share >= 0.5 else
            "the objective does not account for most of its shortfall"))
    return (f"{where}the paper's objective (λ = 1/√F) solved in batch on the clean faces "
            f"(BADMM" + (", its dictionary penalty on the per-sample scale, ρ̃₃ = N·ρ"
                         if dict_penalty == "mean" else "")
            + f", {batch['iterations']} iterations"
            + (", its cap: a point of the objective, not its minimiser" if capped else "")
            + f"): its low-rank part W H scores {batch['psnr']:.2f} dB against the NMF fit's "
            f"{nmf:.2f}: " + "; ".join(parts)
            + ("; stopped at its cap, it is not read as a cause." if capped else "."))


def ceiling_note(where: str, ceiling: dict, psnr: dict, tie: float) -> str:
    """:func:`ceiling_psnr` beside the methods' PSNRs (``psnr``: ORPCA's, OADMM's and
    OPGD's, stored codes). Read before it was computed: ORPCA above the clean-data NMF by
    more than ``tie`` (dB) is a reconstruction that no nonnegative fit found on the
    outlier-free samples reaches, so its lead over the nonnegative online methods is its
    unconstrained basis, not how it handles the outliers; ORPCA not above it leaves the lead
    unexplained by the constraint. Each online method's distance below the clean-data NMF is
    what the outliers and the single pass cost it."""
    orpca = psnr["ORPCA"]
    above = orpca - ceiling["nmf"] > tie
    short = ", ".join(f"{m} {psnr[m]:.2f} dB ({ceiling['nmf'] - psnr[m]:.2f} below it)"
                      for m in ("OADMM", "OPGD"))
    return (f"{where}what a rank-K reconstruction of the clean faces scores (eq. (48), no "
            f"outliers): the truncated SVD {ceiling['svd']:.2f} dB, a bound no rank-K "
            f"reconstruction passes; a batch NMF of the same faces {ceiling['nmf']:.2f} dB "
            f"({ceiling['iterations']} iterations"
            + (", its cap" if ceiling["iterations"] >= NMF_MAX_ITER else "")
            + f"; a nonnegative fit found, not a proven optimum). ORPCA {orpca:.2f} dB; {short}. "
            + ("ORPCA's reconstruction scores above the nonnegative fit of the outlier-free "
               "faces: its lead over OADMM and OPGD is its unconstrained basis, which no "
               "nonnegative method found here reaches even without outliers, not its handling "
               "of the outliers" if above else
               "ORPCA does not score above the nonnegative fit of the outlier-free faces, so "
               "the nonnegativity constraint does not account for its lead") + ".")


def _inner_split(X, k: int, seed, names=("OADMM", "OPGD")) -> dict:
    """One untimed pass of each online method of ``names`` (keys of :data:`ONLINE`, or
    "ORPCA" at the same τ = 5, as the paper compares it) over X (rows = normalized samples)
    at the paper's settings, seeded as the runs are: each one's ``inner_`` (the inner solves'
    iterations, steps at their caps and seconds)."""
    def split(name):
        if name == "ORPCA":
            return ORPCA(k, batch_size=5, random_state=seed).fit(X).inner_
        return paper_pass(X, k, seed, ONLINE[name]).inner_
    return {name: split(name) for name in names}


def _code_cost_note(where: str, times: dict, split: dict) -> str | None:
    """What ORPCA's code solves cost against OADMM's and OPGD's: each method's timed median
    (``times``, all at τ = 5) divided as one untimed pass of it divides its counted time
    (``split``: :func:`_inner_split` of the three), so that the seconds compared come from
    runs timed together while the shares come from the passes that count the iterations.
    The code solves and the per-mini-batch updates then account for the ORPCA time ratio,
    term by term, and the ratio its pass would have with each of its iterations at the
    other method's cost separates what an iteration costs from how many it takes. What a
    share holds is each class's ``inner_``: OADMM's and OPGD's dictionary seconds include
    their statistics' update, ORPCA's basis seconds only its sweep. None without all three,
    or where a count is zero."""
    names = ("ORPCA", "OADMM", "OPGD")
    if not all(m in split and split[m] and times.get(m, 0) > 0 for m in names):
        return None
    parts, code, upd, per_it = [], {}, {}, {}
    for m in names:
        d = split[m]
        total = d["code_seconds"] + d["dict_seconds"]
        if min(total, d["code_seconds"], d["dict_seconds"], d["code_iterations"]) <= 0:
            return None
        code[m] = times[m] * d["code_seconds"] / total
        upd[m] = times[m] - code[m]
        per_it[m] = code[m] / d["code_iterations"]
        unit = "alternations" if m == "ORPCA" else "iterations"
        step = "basis sweeps" if m == "ORPCA" else "dictionary solves"
        parts.append(f"{m} {times[m]:.1f} s: code solves {code[m]:.1f} s "
                     f"({d['code_iterations']:.1f} {unit} per mini-batch, "
                     f"{d['code_capped']:.0%} at the cap), {step} {upd[m]:.1f} s")
    ratios = "; ".join(
        f"against {o}, ORPCA's code solves take {code['ORPCA'] / code[o]:.2f}× the time "
        f"({split['ORPCA']['code_iterations'] / split[o]['code_iterations']:.2f}× the "
        f"iterations at {per_it['ORPCA'] / per_it[o]:.2f}× the cost each) and its basis "
        f"sweeps {upd['ORPCA'] / upd[o]:.2f}× that of the dictionary solves, so its pass "
        f"{times['ORPCA'] / times[o]:.2f}×" for o in ("OADMM", "OPGD"))
    # ORPCA's own counts and basis sweeps, each of its iterations at the other's cost
    same = {o: (code[o] * split["ORPCA"]["code_iterations"] / split[o]["code_iterations"]
                + upd["ORPCA"]) / times[o] for o in ("OADMM", "OPGD")}
    own = {m: split[m]["code_seconds"] + split[m]["dict_seconds"] for m in names}
    return (f"{where}{CODE_COST_HEAD} (each method's timed median divided as one untimed "
            "pass of it divides its time between its code solves and its per-mini-batch "
            "update, ORPCA's basis sweep without its statistics' two products and the others' "
            "dictionary solves with their statistics' update; all with the same mini-batch "
            "size τ = 5): " + "; ".join(parts) + ". "
            + ratios[0].upper() + ratios[1:] + ". With each of its iterations at OADMM's and "
            "at OPGD's cost, its own iteration counts and basis sweeps would make its pass "
            f"{same['OADMM']:.2f}× and {same['OPGD']:.2f}× theirs. In the untimed passes "
            "themselves (one "
            "each, run one after another, not by the timing protocol) the code solves and "
            f"updates took ORPCA {own['ORPCA']:.3g} s, OADMM {own['OADMM']:.3g} s and OPGD "
            f"{own['OPGD']:.3g} s (ORPCA {own['ORPCA'] / own['OADMM']:.2f}× and "
            f"{own['ORPCA'] / own['OPGD']:.2f}×).")


def _timed_histories(ctx: Context, fit) -> tuple:
    """``fit()`` (a seeded run that returns its history) timed by the protocol
    (:meth:`Context.timed`): its :class:`TimedRuns` and every run's history, in the order the
    runs ran (each on its own clock; a replaced run's history is kept beside it)."""
    hists = []

    def run():
        hists.append(fit())
        return hists[-1]

    _, runs = ctx.timed(run)
    return runs, hists


def _own_descent_medians(timed: list, same_level: bool = False
                         ) -> tuple[list | None, object, list]:
    """For each setting's ``(runs, histories)`` of :func:`_timed_histories`: the median over
    its runs that count of each one's seconds to its level, ``(medians, level, per-run
    seconds)``. The level is 90% of each run's own descent, or with ``same_level`` the
    common level of the settings' runs (:func:`common_level_times` on the histories of the
    runs whose values were kept; seeded runs share their objectives and differ only in
    their clocks). ``(None, reason, [])`` when there is no such level."""
    level = None
    if same_level:
        seconds, level = common_level_times([h[r.value_run] for r, h in timed])
        if seconds is None:
            return None, level, []
    medians, every = [], []
    for runs, hists in timed:
        secs = []
        for i, h in enumerate(hists):
            if i in runs.replaced:
                continue
            if same_level:
                secs.append(time_to_level(h, level))
                continue
            seconds, level = common_level_times([h], same_level=False)
            if seconds is None:
                return None, level, []
            secs.append(seconds[0])
        medians.append(float(np.median(secs)))
        every.append(secs)
    return medians, level, every


def _speed_spread(every: list, level) -> str:
    """How a speed verdict reads over every choice of one timed run per setting (``every``:
    each setting's runs' seconds, from :func:`_own_descent_medians`), e.g. ``"reproduced 20
    of 27, partly 7"``: how far the medians' verdict is from its neighbours."""
    import itertools

    return verdict_counts(speed_band(list(choice), level)[0]
                          for choice in itertools.product(*every))


def code_cost(ctx: Context, key: str, where: str, data, k: int, times: dict | None
              ) -> str | None:
    """:func:`_code_cost_note` of ``times`` (each method's timed seconds at τ = 5, or None)
    and the piece ``key``-code-cost: one untimed pass each of ORPCA, OADMM and OPGD over
    ``data()`` (:func:`_inner_split`), run one after another in one process. None without
    ``times``, or where the piece is not kept in a kept-only reading."""
    if times is None:
        return None
    try:
        split = ctx.memo(f"{key}-code-cost", lambda: _inner_split(
            data(), k, ctx.seed, names=("ORPCA", "OADMM", "OPGD")))
    except PieceMissing:
        return None
    return _code_cost_note(where, times, split)


def _inner_note(where: str, split: dict) -> str:
    """:func:`_inner_split` in words: where each online method's pass goes."""
    parts = []
    for name, d in split.items():
        total = d["code_seconds"] + d["dict_seconds"]
        parts.append(f"{name}: {d['code_seconds'] / max(total, 1e-12):.0%} of its {total:.1f} s "
                     f"in the code solves ({d['code_iterations']:.1f} iterations per step, "
                     f"{d['code_capped']:.0%} of the steps at the cap), "
                     f"{d['dict_seconds'] / max(total, 1e-12):.0%} in the dictionary solves "
                     f"({d['dict_iterations']:.1f} iterations per step, {d['dict_capped']:.0%} "
                     "at the cap)")
    return (f"{where}Where the online methods' time goes (one untimed pass each, the paper's "
            "stopping rule and caps, §VII-B2): " + "; ".join(parts) + ".")


STALL = 0.01  # a run whose f̃ falls by less than 1% over the stream did not learn


def split_text(name: str, labels, hists, seconds, level, batch_sizes=None) -> str:
    """One speed comparison's runs (``seconds``, ``level`` from
    :func:`common_level_times`), each one's seconds to the level split into samples and
    milliseconds per sample (:func:`speed_split`; with ``batch_sizes``, also into updates and
    milliseconds per update): a run slow for its descent per sample needs more samples, one
    slow for its step's cost more milliseconds per sample."""
    return (f"{name}: " + fmt_times(seconds, labels, level) + "; "
            + speed_split(labels, hists, seconds, batch_sizes))


def scaled_caps(sol: RobustSolver, mult: int) -> RobustSolver:
    """``sol`` with its inner solves' iteration caps (code_max_iter, dict_max_iter) ``mult``
    times larger."""
    return sol.set_params(code_max_iter=sol.code_max_iter * mult,
                          dict_max_iter=sol.dict_max_iter * mult)


def _caps_diagnosis(X, k: int, seed, stalled) -> dict:
    """For each stalled grid run ``(param, value, solver)``: f̃'s first and final value over
    one pass of the stream prefix X, with the inner solves' caps (code_max_iter,
    dict_max_iter) as the grid runs have them and ten times larger."""
    out = {}
    for param, v, solver in stalled:
        for mult in (1, 10):
            sol = scaled_caps(RobustSolver(
                solver, **({param: v} if param in ("rho", "kappa") else {})), mult)
            kw = {param: v} if param == "batch_size" else {}
            h = paper_pass(X, k, seed, sol, **kw).history_
            out[(f"{param} = {v:g}, {solver.upper()}", mult)] = (
                float(h["objective"][0]), float(h["objective"][-1]), X.shape[0])
    return out


def _caps_note(caps: dict) -> str:
    """:func:`_caps_diagnosis` in words: does a tenfold cap let a stalled run descend?"""
    parts, n = [], 0
    for name in dict.fromkeys(name for name, _ in caps):
        (f1, l1, n), (f10, l10, _) = caps[(name, 1)], caps[(name, 10)]
        parts.append(f"{name}: f̃ {f1:.4g} → {l1:.4g} ({100 * (l1 - f1) / f1:+.1f}%) with the "
                     f"caps, {f10:.4g} → {l10:.4g} ({100 * (l10 - f10) / f10:+.1f}%) with ten "
                     "times the caps")
    return (f"The grid runs that never left their starting level, re-run on the stream's "
            f"first {n} samples with the inner solves' iteration caps (code_max_iter, "
            "dict_max_iter) as in the grid and ten times larger: " + "; ".join(parts)
            + ". A run that descends once its caps grow stalled at them; one that does not, "
            "stalls for another reason.")


def batch_start(seed, k: int, n_features: int) -> np.ndarray:
    """The batch solvers' W₀ (K, F): uniform entries projected onto C, drawn from ``seed``
    (every batch run of an experiment starts from it)."""
    from ..constraints import project_nonneg_l2_ball

    return project_nonneg_l2_ball(np.random.default_rng(seed).random((k, n_features)))


def _rho_code_diagnosis(X, k: int, seed, rhos, n_batches: int = 20, tau: int = 5,
                        limit: int = 30_000) -> dict:
    """The codes' ADMM (eqs. (25)–(30)) of the stream's first ``n_batches`` mini-batches,
    from a W₀ of the runs' distribution (uniform, projected onto C), at each ρ: the
    iterations the paper's rule (relative change 1e-3, cap 50; §VII-B2) runs and the
    objective it stops at over the optimum (a solve to 1e-12), and, on the first batch, the
    fewest iterations of a grid (up to ``limit``) that come within 1% of the optimum with no
    tolerance stop."""
    from ..coders import outlier_loss, solve_codes_outliers

    D = batch_start(seed, k, X.shape[1])
    lam = 1.0 / np.sqrt(X.shape[1])
    batches = [X[i * tau:(i + 1) * tau] for i in range(n_batches)]

    def value(Xb, r):
        return float(outlier_loss(Xb, r.codes, D, r.outliers, lam).sum())

    best = [value(Xb, solve_codes_outliers(D, Xb, lam, solver="admm", rho=1.0,
                                           max_iter=20_000, tol=1e-12)) for Xb in batches]
    out = {}
    for rho in rhos:
        runs = [solve_codes_outliers(D, Xb, lam, solver="admm", rho=rho, max_iter=50, tol=1e-3)
                for Xb in batches]
        gaps = [value(Xb, r) / b for Xb, r, b in zip(batches, runs, best)]
        need = None
        for its in [i for i in (10, 30, 100, 300, 1000, 3000, 10_000, 30_000) if i <= limit]:
            r = solve_codes_outliers(D, batches[0], lam, solver="admm", rho=rho,
                                     max_iter=its, tol=0.0)
            if value(batches[0], r) <= 1.01 * best[0]:
                need = its
                break
        out[rho] = {"iterations": float(np.mean([r.n_iter[0] for r in runs])),
                    "capped": float(np.mean([r.n_iter[0] >= 50 for r in runs])),
                    "ratio": float(np.median(gaps)), "need": need, "limit": limit}
    return out


def _rho_code_note(diag: dict, n_batches: int = 20) -> str:
    """:func:`_rho_code_diagnosis` in words, its reading drawn from the numbers: which ρ run
    to the cap far from the optimum, which stop early on the relative-change rule."""
    parts = [f"ρ = {rho:g}: {d['iterations']:.0f} iterations on average "
             f"({d['capped']:.0%} of the batches at the cap), stopping at "
             f"{d['ratio']:.2f}× the optimum (median over the batches); on the first batch, "
             "within 1% of it by "
             + (f"{d['need']} iterations" if d["need"] else
                f"no count up to {d.get('limit', 30_000)}")
             for rho, d in diag.items()]
    far = {rho: d for rho, d in diag.items() if d["ratio"] > 1.05}
    capped = [f"{rho:g}" for rho, d in far.items() if d["capped"] >= 0.5]
    early = [f"{rho:g}" for rho, d in far.items() if d["capped"] < 0.5]
    needs = [d["need"] or np.inf for d in diag.values()]
    reading = []
    if all(a <= b for a, b in zip(needs, needs[1:])) and needs[-1] > needs[0]:
        reading.append("the iterations a solve needs grow with ρ")
    if capped:
        reading.append(f"at ρ = {', '.join(capped)} the solves run to the cap and stop far "
                       "from their optimum")
    if early:
        reading.append(f"at ρ = {', '.join(early)} an iteration changes the objective by "
                       "less than the rule's 1e-3 and the solves stop early, far from their "
                       "optimum, so a larger cap does not help")
    return (f"Why OADMM stalls at large ρ, measured on the codes' ADMM of the stream's first "
            f"{n_batches} mini-batches from a W₀ of the runs' distribution (uniform, projected "
            "onto C), with the paper's stopping rule (relative change of the objective below "
            "1e-3, or 50 iterations; §VII-B2), the iterations to within 1% read on the grid "
            "10, 30, 100, …: "
            + "; ".join(parts) + "." + (" So " + "; ".join(reading) + "." if reading else ""))


#: the inner solves' tolerance (relative change of the objective) of the runs that test the
#: paper's stopping rule (:func:`_rule_diagnosis`, OPGD's tight passes): far below the
#: paper's (1e-3 codes, 1e-4 dictionary), so that a slow iteration's small change no longer
#: stops a solve far from its optimum
TIGHT_TOL = 1e-7

#: the cap of the inner solves run tight (:func:`tight_settings`): a hundred times the
#: paper's 50 for the codes and 25 times its 200 for the dictionary, so that it is the
#: tolerance :data:`TIGHT_TOL` that stops them
TIGHT_CAP = 5000


def tight_settings(codes: bool = True, dictionary: bool = False, code_cap: int = TIGHT_CAP,
                   dict_cap: int = TIGHT_CAP) -> dict:
    """The :class:`RobustSolver` settings that run the code solves (with ``codes``) and the
    dictionary's (with ``dictionary``) to a relative change of :data:`TIGHT_TOL`, capped at
    ``code_cap`` and ``dict_cap``, where the paper's rule stops at 1e-3 or 50 (1e-4 or
    200): the runs that test whether that rule holds a method back."""
    kw = {}
    if codes:
        kw.update(code_tol=TIGHT_TOL, code_max_iter=code_cap)
    if dictionary:
        kw.update(dict_tol=TIGHT_TOL, dict_max_iter=dict_cap)
    return kw


#: a run with tight solves that ends at most this factor above its reference's level is
#: read as no longer held back: the factor leaves room for a grid value's own effect on the
#: level a short prefix reaches
RULE_MATCH = 1.10


#: per grid parameter: its symbol, the solver and the online method it belongs to, what its
#: grid's runs do at the values :func:`_rule_diagnosis` runs again, and that effect's name
RULE_GRIDS = {"rho": ("ρ", "admm", "OADMM", "stalls at large ρ", "stall"),
              "kappa": ("κ", "pgd", "OPGD", "slows down at small κ", "slowdown")}


def _rule_variants(value, second) -> tuple:
    """The solves run tight at grid ``value``: both, and at ``second`` (the first value
    after the reference, when the stall is to be split) each alone, so that the stall is put
    on one solve's rule or the other's."""
    if value == second:
        return ("paper", "codes", "dictionary", "both")
    return ("paper", "both")


def _rule_diagnosis(X, k: int, seed, needs: dict, param: str = "rho",
                    split: bool = True) -> dict:
    """Is the paper's stopping rule why a grid run stalls or slows down? One pass of the
    online method of ``param`` (:data:`RULE_GRIDS`: OADMM across ρ, OPGD across κ) over the
    stream prefix X (rows = normalized samples, τ = 5, seeded as the runs are) at each value
    of ``needs`` (value → the cap of its tight solves: across ρ, the iterations its codes'
    ADMM needs to come within 1% of the optimum on the first mini-batch,
    :func:`_rho_code_diagnosis`; the first value is the reference), with the inner solves
    under the paper's rule (§VII-B2) and run tight: a relative change of
    :data:`TIGHT_TOL`, capped at that count (never below the paper's caps); with ``split``,
    each solve alone too at the second value. Returns (value, variant) → (first f̃, final
    f̃, the pass's ``inner_``); a variant names the solves run tight ("codes",
    "dictionary", "both") or "paper"."""
    values = list(needs)
    solver = RULE_GRIDS[param][1]
    paper = RobustSolver(solver)  # the paper's caps, which a tight solve never goes below
    second = values[1] if split and len(values) > 1 else None
    out = {}
    for value in values:
        need = int(needs[value])
        for variant in _rule_variants(value, second):
            kw = tight_settings(variant in ("codes", "both"), variant in ("dictionary", "both"),
                                max(need, paper.code_max_iter), max(need, paper.dict_max_iter))
            out[(value, variant)] = _pass_ends(X, k, seed,
                                               RobustSolver(solver, **{param: value}, **kw))
    return out


def _pass_ends(X, k: int, seed, solver: RobustSolver) -> tuple:
    """One pass of ``solver``'s online method over X (:func:`paper_pass`): its first and
    final f̃ and its ``inner_``."""
    est = paper_pass(X, k, seed, solver)
    h = est.history_
    return float(h["objective"][0]), float(h["objective"][-1]), dict(est.inner_)


def _rule_note(diag: dict, n_samples: int, caps: str, param: str = "rho") -> str:
    """:func:`_rule_diagnosis` in words, its reading drawn from the numbers: a grid value
    whose tight run ends at most :data:`RULE_MATCH` above the reference value's tight run
    was stalled (or slowed down) by the paper's stopping rule, provided that under the
    paper's rule it ends further above the reference's than that over the same prefix (else
    the prefix does not show the stall, and the reading is void). ``caps`` says what
    capped the tight solves."""
    symbol, _, method, what, effect = RULE_GRIDS[param]
    values = list(dict.fromkeys(value for value, _ in diag))
    ref = values[0]

    def run(value, variant):
        first, final, inner = diag[(value, variant)]
        return (f"f̃ {first:.4g} → {final:.4g} (codes {inner['code_iterations']:.1f} "
                f"iterations per step, dictionary {inner['dict_iterations']:.1f})")

    paper = "; ".join(f"{symbol} = {v:g}: {run(v, 'paper')}" for v in values)
    tight = "; ".join(f"{symbol} = {v:g}: {run(v, 'both')}" for v in values)
    alone = [f"at {symbol} = {v:g} with only the {solve} solve tight: {run(v, variant)}"
             for v in values for variant, solve in (("codes", "codes'"),
                                                    ("dictionary", "dictionary's"))
             if (v, variant) in diag]
    base = diag[(ref, "both")][1]
    held, not_held, void = [], [], []
    for v in values[1:]:
        ratio = diag[(v, "both")][1] / max(base, 1e-300)
        # the control: under the paper's rule the value must end apart from the reference
        # over the same prefix, or its level there does not show the stall or slowdown
        apart = diag[(v, "paper")][1] / max(diag[(ref, "paper")][1], 1e-300)
        if apart <= RULE_MATCH:
            void.append(f"{symbol} = {v:g} ({apart:.2f}×)")
            continue
        (held if ratio <= RULE_MATCH else not_held).append(f"{symbol} = {v:g} ({ratio:.2f}×)")
    reading = []
    if void:
        reading.append(f"under the paper's rule {', '.join(void)} already ends at most "
                       f"{RULE_MATCH - 1:.0%} above {symbol} = {ref:g}'s final f̃ over this "
                       f"prefix, so the prefix's final level does not show the {effect} and "
                       "this reading cannot say whether the rule accounts for it")
    if held:
        reading.append(f"with tight solves {', '.join(held)} ends at most "
                       f"{RULE_MATCH - 1:.0%} above {symbol} = {ref:g}'s final f̃, so the "
                       f"paper's stopping rule accounts for the {effect} there")
    if not_held:
        reading.append(f"with tight solves {', '.join(not_held)} still ends further than "
                       f"{RULE_MATCH - 1:.0%} above {symbol} = {ref:g}'s final f̃, so the "
                       f"rule does not account for all of the {effect} there")
    return (f"Whether the paper's stopping rule is why {method} {what}: one untimed pass over "
            f"the stream's first {n_samples} samples at each {symbol}, from the runs' W₀. "
            "Under the paper's rule (relative change 1e-3 or 50 iterations for the codes, "
            "1e-4 or 200 for the dictionary; §VII-B2): " + paper + ". With both solves run "
            f"to a relative change of 1e{round(np.log10(TIGHT_TOL))}, {caps}: "
            + tight + ("; " + "; ".join(alone) if alone else "") + ". So "
            + "; ".join(reading) + ".")


#: the paper's own reading of the code solves (§VII-B1 starts h and r at uniform entries;
#: §VII-B2 states the stopping rule for one sample's problem, eq. (36)), tried at the grid
#: values whose runs stall or slow down, each departure alone and both together: name →
#: (solver settings, words)
GRID_READINGS = {
    "sample": ({"code_stopping": "sample"}, "the rule applied per sample"),
    "uniform": ({"code_start": "uniform"}, "the code solves started at uniform entries"),
    "both": ({"code_stopping": "sample", "code_start": "uniform"}, "both"),
}


def _readings_diagnosis(X, k: int, seed, values, param: str = "rho") -> dict:
    """One pass of the online method of ``param`` (:data:`RULE_GRIDS`) over the stream
    prefix X at each grid value of ``values`` (the first is the reference), under each of
    :data:`GRID_READINGS`, its solves otherwise under the paper's rule and caps: do this
    implementation's departures from the paper's code solves (h⁰ = 0, the rule on the
    mini-batch's sum) cause the stall? Returns (value, reading) → (first f̃, final f̃, the
    pass's ``inner_``), as :func:`_rule_diagnosis`."""
    solver = RULE_GRIDS[param][1]
    out = {}
    for value in values:
        for name, (settings, _) in GRID_READINGS.items():
            out[(value, name)] = _pass_ends(X, k, seed,
                                            RobustSolver(solver, **{param: value}, **settings))
    return out


def _readings_note(readings: dict, rule: dict, n_samples: int, param: str = "rho") -> str:
    """:func:`_readings_diagnosis` in words, read as :func:`_rule_note` reads the tight
    solves: under a reading, a grid value that ends at most :data:`RULE_MATCH` above the
    reference value's final f̃ under the same reading is no longer held back, so that
    departure accounts for the stall there, provided that as run (``rule``'s "paper" passes
    over the same prefix) it ends further above the reference than that (the control)."""
    symbol, _, method, what, effect = RULE_GRIDS[param]
    values = list(dict.fromkeys(value for value, _ in readings))
    ref = values[0]
    parts, reading = [], []
    for name, (_, words) in GRID_READINGS.items():
        runs = "; ".join(f"{symbol} = {v:g}: f̃ {readings[(v, name)][0]:.4g} → "
                         f"{readings[(v, name)][1]:.4g} (codes "
                         f"{readings[(v, name)][2]['code_iterations']:.1f} iterations per step)"
                         for v in values)
        parts.append(f"with {words if name != 'both' else 'both together'}: {runs}")
    for v in values[1:]:
        apart = rule[(v, "paper")][1] / max(rule[(ref, "paper")][1], 1e-300)
        if apart <= RULE_MATCH:
            reading.append(f"as run, {symbol} = {v:g} already ends at most "
                           f"{RULE_MATCH - 1:.0%} above {symbol} = {ref:g} over this prefix "
                           f"({apart:.2f}×), so it cannot show whether a reading accounts "
                           f"for the {effect}")
            continue
        ratios = {name: readings[(v, name)][1] / max(readings[(ref, name)][1], 1e-300)
                  for name in GRID_READINGS}
        held = [GRID_READINGS[n][1] if n != "both" else "both together"
                for n, r in ratios.items() if r <= RULE_MATCH]
        each = ", ".join(f"{r:.2f}×" for r in ratios.values())
        reading.append(f"{symbol} = {v:g} ends {apart:.2f}× {symbol} = {ref:g}'s final f̃ as "
                       f"run and {each} under the three readings, so "
                       + (f"{' and '.join(held)} account{'s' if len(held) == 1 else ''} for "
                          f"the {effect} there" if held else
                          f"the paper's code-solve protocol does not account for the "
                          f"{effect} there"))
    return (f"Whether this implementation's code solves are why {method} {what} (their start "
            "h⁰ = 0, where §VII-B1 starts h and r at uniform entries, and their rule applied "
            "to the mini-batch's summed objective, where §VII-B2 states it for one sample's "
            f"problem): one untimed pass over the stream's first {n_samples} samples at each "
            f"{symbol}, from the runs' W₀, under the paper's rule and caps otherwise, each "
            f"reading final f̃ against {symbol} = {ref:g}'s under the same reading: "
            + "; ".join(parts) + ". So " + "; ".join(reading) + ".")


def kappa_rule_notes(ctx: Context, X, k: int, kappas) -> list:
    """Is the paper's stopping rule why OPGD slows down at the smaller κ? The grid's κ that
    descend (``kappas``), the largest against the smallest, read by :func:`_rule_note` from
    an untimed piece over a prefix of the stream X; [] with fewer than two, or without the
    piece in a kept-only assembly."""
    kappas = sorted(kappas)
    if len(kappas) < 2:
        return []
    prefix = X[:ctx.pick(1280, 5120, tiny=50)]
    try:
        diag = ctx.memo("zhao-tan-synthetic-kappa-rule-tight", lambda: _rule_diagnosis(
            prefix, k, ctx.seed, {kappas[-1]: TIGHT_CAP, kappas[0]: TIGHT_CAP},
            param="kappa", split=False))
    except PieceMissing:
        return []
    notes = [_rule_note(diag, prefix.shape[0], param="kappa",
                        caps=f"capped at {TIGHT_CAP} iterations")]
    try:
        notes.append(_readings_note(ctx.memo(
            "zhao-tan-synthetic-kappa-rule-readings", lambda: _readings_diagnosis(
                prefix, k, ctx.seed, [kappas[-1], kappas[0]], param="kappa")),
            diag, prefix.shape[0], param="kappa"))
    except PieceMissing:
        pass
    return notes


def rho_rule_notes(ctx: Context, X, k: int, rhos, key: str = "zhao-tan-synthetic") -> list:
    """Why OADMM stalls at large ρ: the codes' ADMM under the paper's rule at each ρ of the
    grid (:func:`_rho_code_note`, an untimed piece of a few seconds), then the ρ whose solves
    stop early on the rule, far from their optimum (where a larger cap cannot help), run
    again with tight solves over a short prefix of the stream X (:func:`_rule_note`; short
    because ρ = 1000's solves are slow). ``X`` is the stream or a function that builds it
    (called only for a piece not kept); the pieces are named ``key``-rho-…. The notes whose
    pieces are kept, in that order."""
    built = [] if callable(X) else [X]

    def data():  # the stream, built at most once
        if not built:
            built.append(X())
        return built[0]

    notes = []
    try:
        code = ctx.memo(f"{key}-rho-code-solves", lambda: _rho_code_diagnosis(
            data(), k, ctx.seed, rhos, limit=ctx.pick(3000, 30_000, tiny=3000)))
        notes.append(_rho_code_note(code))
        first = rhos[0]
        early = {rho: c["need"] for rho, c in code.items()
                 if c["ratio"] > 1.05 and c["capped"] < 0.5 and c["need"] and rho != first}
        if early and code[first]["need"]:
            n_prefix = ctx.pick(1000, 1000, tiny=50)
            tight = ctx.memo(f"{key}-rho-rule-tight", lambda: _rule_diagnosis(
                data()[:n_prefix], k, ctx.seed, {first: code[first]["need"], **early}))
            notes.append(_rule_note(tight, n_prefix, caps="capped at the iterations "
                                    "the first mini-batch's codes need to come within 1% of "
                                    "their optimum (the note above)"))
            notes.append(_readings_note(ctx.memo(
                f"{key}-rho-rule-readings", lambda: _readings_diagnosis(
                    data()[:n_prefix], k, ctx.seed, [first, *early])), tight, n_prefix))
    except PieceMissing:
        pass
    return notes


def _stalled(hists: dict) -> list:
    """The grid values whose f̃ fell by less than :data:`STALL` of its first value over the
    whole stream: runs that did not learn."""
    return [v for v, h in hists.items()
            if h["objective"][0] - h["objective"][-1] < STALL * h["objective"][0]]


def stall_note(param: str, solver: str, hists: dict) -> str:
    """Why a sensitivity grid spreads, read from its runs: each value's f̃ at the first
    checkpoint and at the end, and which runs never left their starting level (f̃ fell by
    less than ``STALL``), against the level the others reach."""
    parts = [f"{param} = {v:g}: {float(h['objective'][0]):.4g} → "
             f"{float(h['objective'][-1]):.4g}" for v, h in hists.items()]
    stalled = [f"{v:g}" for v in _stalled(hists)]
    why = (f"the runs at {param} = {', '.join(stalled)} never leave their starting level "
           f"(f̃ falls by less than {STALL:.0%} over the whole stream): their codes and "
           "dictionary barely move from the start, so the spread measures runs that did not "
           "learn, not different optima (whether the inner solves' iteration caps are why is "
           "measured below)" if stalled else
           "every run learns (f̃ falls by more than 1%), to different levels")
    return f"final f̃ across {param} ({solver.upper()}), first checkpoint → end: " \
        f"{'; '.join(parts)}. {why[0].upper() + why[1:]}."


def _batch_grid(ctx: Context, X, k: int, results: dict, param: str, values) -> dict | None:
    """The batch solver of ``param``'s grid (BADMM across ρ, BPGD across κ) from the main run's
    W₀, each run an untimed piece capped at the iterations the canonical batch run took to
    meet its stopping rule (the same rule, tol 1e-5); the canonical run itself stands for its
    grid value. Returns the kept runs by grid value (a kept-only assembly may lack some), or
    ``None`` when no run beside the canonical one is kept."""
    solver, name = BATCH_GRIDS[param][:2]
    canon = {"rho": 1.0, "kappa": 0.7}[param]
    n = X.shape[0]
    cap = int(round(results[name]["history"]["n_samples"][-1] / n))

    def fit(v):
        out = batch_robust_nmf(X, k, solver=solver, max_iter=cap, tol=1e-5,
                               init=batch_start(ctx.seed, k, X.shape[1]),
                               random_state=ctx.seed, dict_penalty=BATCH_DICT_PENALTY,
                               **{param: v})
        return {"history": out.history, "n_iter": out.n_iter}

    runs = {}
    for v in values:
        if v == canon:
            runs[v] = {"history": results[name]["history"], "n_iter": cap}
            continue
        try:
            runs[v] = ctx.memo(f"zhao-tan-synthetic-batch-{param}-{v:g}", lambda v=v: fit(v))
        except PieceMissing:
            continue
    return runs if len(runs) > 1 else None


#: the batch solver's grid runs beside the online ones (Figs. 4(a), 5(a)): param -> (solver,
#: name of the canonical batch run, the paper's words)
BATCH_GRIDS = {
    "rho": ("admm", "BADMM", "Fig. 4(a): BADMM slows down with ρ much more than OADMM",
            "\"as ρ increases, both ADMM-based algorithms converge slower. However, the change "
            "of the convergence speed of OADMM is much less drastic compared to BADMM\" "
            "(§VII-D3, Fig. 4)"),
    "kappa": ("pgd", "BPGD", "Fig. 5(a): BPGD across κ, against OPGD",
              "\"similar effects of the different values of κ on the convergence speeds of the "
              "PGD-based algorithms\" (§VII-D3, Fig. 5)"),
}


#: "much less drastic": the batch solver's slowdown at least this many times the online one's
DRASTIC = 2.0


def _iteration_history(history, n: int) -> dict:
    """A batch history with its iterations (samples over N) in place of its seconds."""
    return {"objective": np.asarray(history["objective"]),
            "time": np.asarray(history["n_samples"], dtype=float) / n}


def _slowdown(hists: list) -> tuple[float, str]:
    """A grid's slowdown: its slowest run's time to the grid's common level (90% of the
    common descent) over its fastest's; infinite when a run never reaches it or does not
    descend. Returns it with the text of the times."""
    shares, level = common_level_times(hists)
    if shares is None or not all(np.isfinite(shares)):
        return np.inf, fmt_times(shares, [str(i) for i in range(len(hists))], level)
    return max(shares) / max(min(shares), 1e-12), ""


def _without_smallest_slowdowns(online: list, kept: dict, label: str, name: str,
                                verdict: str) -> str:
    """Fig. 5(a) read like for like without the grid's smallest κ (this implementation's
    grid value, the one the κ row's second reading drops): both solvers' slowdowns over the
    rest of their grids (``online`` in the grid's order, ``kept`` by value), judged as the
    claim's band judges them; flagged :data:`EDGE_MARK` where that differs from
    ``verdict``."""
    smallest = min(kept)
    on, _ = _slowdown(online[1:])
    ba, _ = _slowdown([h for v, h in kept.items() if v != smallest])
    other = (NOT_REPRODUCED if np.isinf(on) else judge(ba >= DRASTIC * on, ba > on))
    return (f"; without κ = {smallest:g} on both sides (the grid's smallest, this "
            f"implementation's choice): {label} slowdown "
            + ("unbounded" if np.isinf(on) else f"{on:.2f}×") + f", {name} "
            + ("unbounded" if np.isinf(ba) else f"{ba:.2f}×") + f", which reads {other}"
            + differs_mark(other, verdict, "the grid's"))


def _batch_sensitivity_claims(online: dict, batch: dict, values: dict) -> list:
    """Figs. 4(a) and 5(a): how much more the batch solver slows down across ρ (κ) than the
    online one. ``online[param]`` is the online grid's histories in the order of
    ``values[param]``, ``batch[param]`` the batch ones kept, by grid value, in iterations
    (``None`` when none is kept beside the canonical run). A batch grid not yet complete is
    judged only where the online side decides the claim."""
    band = (f"reproduced if every online run reaches its grid's common level and the batch "
            f"solver's slowdown (its slowest run's iterations to its grid's common level over "
            f"its fastest's) is at least {DRASTIC:g}× the online solver's (the same in "
            f"seconds); partly if it is larger but under {DRASTIC:g}×; not if an online run "
            f"never reaches its grid's common level (an unbounded slowdown, which no batch "
            f"result makes less drastic) or the batch slowdown is no larger; a run that does "
            f"not descend, or stays apart from the others, counts as an unbounded slowdown")
    why = ("the paper says the ADMM-based (and, 'similar effects', the PGD-based) solvers "
           "converge slower as the parameter moves from its best value, the online one's change "
           "'much less drastic' than the batch one's ('similar effects' of κ read as the same "
           "pattern as ρ's): the two slowdowns as ratios over each "
           "grid, 'much' as a factor of 2 as 'much faster' reads elsewhere; the batch solver "
           "counted in iterations, since one of its iterations is one step on every row "
           "whatever ρ or κ (its runs here share the machine, and its seconds per iteration "
           "are shown)")
    rows = []
    for param, (solver, name, what, words) in BATCH_GRIDS.items():
        on, on_text = _slowdown(online[param])
        label = f"O{solver.upper()}"
        measured = (f"{label} across {param}: " + (on_text if np.isinf(on) else
                                                    f"slowdown {on:.2f}×"))
        kept = batch.get(param) or {}
        missing = [f"{v:g}" for v in values.get(param, []) if v not in kept]
        if len(kept) < 2:
            measured += f"; {name} not run across {param}"
            verdict = NOT_REPRODUCED if np.isinf(on) else NOT_MEASURED
        else:
            ba, ba_text = _slowdown(list(kept.values()))
            measured += (f"; {name} over {param} = {', '.join(f'{v:g}' for v in kept)}"
                         + (f" ({', '.join(missing)} not yet run)" if missing else "") + ": "
                         + (ba_text if np.isinf(ba) else f"slowdown {ba:.2f}×"))
            verdict = (NOT_REPRODUCED if np.isinf(on) else NOT_MEASURED if missing else
                       judge(ba >= DRASTIC * on, ba > on))
            if param == "kappa" and not missing and len(kept) > 2:
                measured += _without_smallest_slowdowns(online[param], kept, label, name,
                                                        verdict)
        rows.append(claim(what, words, measured, verdict, band, why=why))
    return rows


def _batch_grid_note(batch: dict, n: int) -> str:
    """Each kept batch grid run (``batch[param]``: runs by grid value): its iterations,
    objective from first to last record, the iterations to the grid's common level and its
    seconds per iteration."""
    parts = []
    for param, runs in batch.items():
        if runs is None:
            continue
        solver, name = BATCH_GRIDS[param][:2]
        hists = [_iteration_history(r["history"], n) for r in runs.values()]
        shares, level = common_level_times(hists)
        for i, (v, r, h) in enumerate(zip(runs, runs.values(), hists)):
            its = h["time"][-1]
            reach = ("—" if shares is None else "never" if not np.isfinite(shares[i])
                     else f"{shares[i]:.0f}")
            parts.append(f"{name} {param} = {v:g}: {its:.0f} iterations, objective "
                         f"{h['objective'][0]:.4g} (its first record, iteration "
                         f"{h['time'][0]:.0f}) → {h['objective'][-1]:.4g}, iterations to "
                         f"the common level {reach}, "
                         f"{r['history']['time'][-1] / max(its, 1):.2f} s per iteration")
    return ("The batch solvers across the grids (each capped at the iterations the canonical "
            "run took to meet its stopping rule, read in iterations; the seconds per "
            "iteration are the wall time of untimed runs that shared the machine, or were "
            "paused while timed runs had it, and compare nothing): " + "; ".join(parts)
            + ".") if parts else ""
