"""Experiments of Zhao and Tan 2016: online NMF with outliers."""

from __future__ import annotations

import itertools
import os
import re
import time

import numpy as np

from ..baselines import ORPCA, RobustSANMF, batch_robust_nmf
from ..coders import CodeSolver
from ..constraints import project_nonneg_l2_ball
from ..datasets import (
    contaminate,
    find_data,
    load_cbcl,
    load_video,
    load_yaleb,
    make_outlier_synthetic,
    make_video,
    render_faces,
)
from ..estimators import OnlineRobustNMF, RobustSolver
from ..losses import get_loss
from ._registry import NOT_RUN, Context, PieceMissing, Result, pyplot, register, save_figure
from ._starts import started_from
from ._timing import TIMING_DEPARTURE, timed
from ._verdicts import (
    EDGE_MARK,
    LATE_RISE,
    NOT_MEASURED,
    NOT_REPRODUCED,
    OWN_SCALE_WHY,
    PARTLY,
    REPRODUCED,
    RISES,
    SIGNIFICANT_WHY,
    SPEC,
    SPEED_RATIO,
    TIME_TIE,
    VERDICTS,
    at_most,
    claim,
    common_level_times,
    count_band,
    descending_reading,
    differs_mark,
    fmt_ratio,
    fmt_times,
    judge,
    late_rise,
    ratio_band,
    read_in_samples,
    significantly,
    slowdown_band,
    speed_band,
    speed_parts,
    speed_split,
    worst,
)
from ._zhao_tan_diagnoses import (
    BATCH_DICT_PENALTY,
    BATCH_GRIDS,
    CODE_COST_HEAD,
    NMF_MAX_ITER,
    ONLINE,
    PSNR_TIE,
    ROBUST_BATCH,
    RULE_MATCH,
    TIGHT_CAP,
    TIGHT_TOL,
    _batch_grid,
    _batch_grid_note,
    _batch_sensitivity_claims,
    _caps_diagnosis,
    _caps_note,
    _inner_note,
    _inner_split,
    _iteration_history,
    _psnr,
    _shortfall_closed,
    _stalled,
    batch_start,
    ceiling_note,
    ceiling_psnr,
    clean_nmf,
    code_cost,
    kappa_rule_notes,
    paper_pass,
    rho_rule_notes,
    robust_batch_note,
    robust_batch_psnr,
    scaled_caps,
    split_text,
    stall_note,
    start_note,
    tight_settings,
    uniform_start_psnr,
)
from ._zhao_tan_grids import (
    CBCL_GRIDS,
    CONVERGE_BAND,
    SENSITIVITY_GRIDS,
    _without_smallest,
    cbcl_grid_figure,
    cbcl_grid_legs,
    cbcl_grid_notes,
    cbcl_grids_claim,
    grid_pass,
    timed_grid,
)

SPEED_WHY = ("the paper plots the objective against time (Figs. 1, 3 and 10–15 say 'as a "
             "function of time'; Figs. 2 and 4–6 name no axis, and their CBCL counterparts, "
             "Figs. 11 and 13–15, whose results 'agree with those on the synthetic dataset' "
             "(§S-10), plot against time): each run's "
             "seconds to one level all runs reach (90% of the common descent), not each run's "
             "own final value; the slowest within 1.5× the fastest for insensitive speeds")
CONVERGE_WHY = ("the paper says both ADMM-based algorithms converge slower as ρ grows (and "
                "finds 'similar effects' of κ on the PGD-based ones), OADMM's change 'much less "
                "drastic' than BADMM's, and 'in less than 10s, all the OADMM algorithms … "
                "converge' (§VII-D3, Fig. 4): the online claim is that every run still "
                "converges, read as reaching a level all runs share within one pass; the "
                "comparison with the batch solver is its own claim")
SPEED_WHY_K = ("the paper plots the objective against time (Figs. 3, 12): the slowest within "
               "1.5× the fastest for insensitive speeds; " + OWN_SCALE_WHY)

#: departures shared by every experiment that runs the other online methods
BASELINE_DEPARTURES = (
    "ORPCA runs with the other online methods' mini-batch size τ, as the paper compares them "
    "(§VII-D2); the tables name it 'ORPCA (τ = 5)'. Fits kept from before ORPCA took a "
    "mini-batch size updated its basis after every sample, as its own paper does (the tables "
    "name that one plain 'ORPCA'): where such fits are kept (CBCL's cells, the videos), the "
    "ORPCA time claim reads a separate timing of ORPCA at τ beside OADMM and OPGD (a table of "
    "its own) where that timing is kept, and is not judged where it is not; on the synthetic "
    "data, Fig. 1(b)'s curves of ORPCA at τ are read beside the kept ones (a note). The PSNR "
    "orderings read the kept fits, where they are the per-sample ORPCA.",
    "ONMF is a stand-in for Guan et al.'s OR-NMF (one projected stochastic gradient step per "
    "mini-batch, without OR-NMF's buffer and inner robust iterations); its time claims are "
    "not judged, since a pass's time turns on those inner iterations. Its PSNRs are judged in "
    "the orderings, which turn on the absence of an outlier model that the stand-in shares "
    "with OR-NMF; whether it fails to converge is not judged, since the stand-in's own step "
    "decides it (measured: a note on the synthetic data). That step can move its PSNR too, so "
    "the orderings' ONMF legs rest on it; where an ordering's ORPCA legs are reversed beyond "
    "the tie, they decide its verdict whatever ONMF scores.",
    "The online methods' code solves start at h⁰ = 0 (r⁰ the outlier step from it), where "
    "§VII-B1 starts h and r as it starts W₀ (uniform entries), and their stopping rule is "
    "applied to the mini-batch's summed objective, where §VII-B2 states it for one sample's "
    "problem (eq. (36)); on the synthetic data and CBCL a note reads OPGD and OADMM with the "
    "rule applied per sample, and with uniform starts; on the synthetic grids a note reads "
    "OADMM at the ρ values where it stalls, and OPGD at the smallest κ whose run descends, "
    "with each of the two changes and with both.",
    "BADMM's dictionary penalty reads footnote 11's 'the same values' literally: ρ̃₃ = ρ in "
    "(S-14), where it weighs against HᵀH, a sum over the N samples, while the online update "
    "(S-5) weighs it against the averaged statistics A_t. ρ̃₃ = N·ρ, this implementation's "
    "choice, gives the batch update the online one's conditioning; a note reads BADMM with it "
    "beside the runs' on YaleB, the videos and CBCL (Table I's cell, and the paper's objective "
    "on the clean faces).")


# The paper's running times (s, means over ten initializations) as (batch / online, ORPCA /
# online) ranges: the two batch-over-online pairs BADMM/OADMM and BPGD/OPGD, and ORPCA over
# OADMM and OPGD; the measured ratio divides the mean batch time by the mean online time.
PAPER_TIMES = {
    # Table I(b), setting 1 (K = 49): BADMM 1000.45, OADMM 416.68, BPGD 1134.89,
    # OPGD 435.32, ORPCA 368.35
    "cbcl": ("Table I(b), setting 1: BADMM/OADMM 1000.45/416.68 = 2.40, BPGD/OPGD "
             "1134.89/435.32 = 2.61", (2.40, 2.61),
             "Table I(b), setting 1: ORPCA 368.35 over OADMM 416.68 / OPGD 435.32 = 0.88 / "
             "0.85", (0.846, 0.884)),
    # Table II (YaleB subject 2): BADMM 175.52, OADMM 51.12, BPGD 212.71, OPGD 62.34,
    # ORPCA 16.38
    "yaleb": ("Table II: BADMM/OADMM 175.52/51.12 = 3.43, BPGD/OPGD 212.71/62.34 = 3.41",
              (3.41, 3.43),
              "Table II: ORPCA 16.38 over OADMM 51.12 / OPGD 62.34 = 0.32 / 0.26",
              (0.263, 0.320)),
    # Table III(a) (Hall): BADMM 1280.06, OADMM 172.29, BPGD 1167.95, OPGD 178.46,
    # ORPCA 166.85
    "hall": ("Table III(a): BADMM/OADMM 1280.06/172.29 = 7.43, BPGD/OPGD 1167.95/178.46 = "
             "6.54", (6.54, 7.43),
             "Table III(a): ORPCA 166.85 over OADMM 172.29 / OPGD 178.46 = 0.97 / 0.93",
             (0.935, 0.968)),
    # Table III(b) (Escalator): BADMM 898.47, OADMM 166.83, BPGD 867.41, OPGD 170.46,
    # ORPCA 160.85
    "escalator": ("Table III(b): BADMM/OADMM 898.47/166.83 = 5.39, BPGD/OPGD 867.41/170.46 = "
                  "5.09", (5.09, 5.39),
                  "Table III(b): ORPCA 160.85 over OADMM 166.83 / OPGD 170.46 = 0.96 / 0.94",
                  (0.944, 0.964)),
    # §VII-D2 on Fig. 1: "our online algorithms converge much faster than their batch
    # counterparts"; "ORPCA converges slightly faster … (the time difference is less than
    # 1s)": no ratio printed, read as ≥ 2× and 0.8–0.99×
    "synthetic": ("\"our online algorithms converge much faster than their batch "
                  "counterparts\" (§VII-D2, Fig. 1(a)); no ratio printed",
                  (2.0, np.inf),
                  "\"the ORPCA algorithm converges slightly faster than our online algorithms "
                  "(the time difference is less than 1s)\" (§VII-D2, Fig. 1(b)); no ratio "
                  "printed",
                  (0.8, 0.99)),
}
# Tables IV–V (Section S-10): the same at K = 25 and K = 100, setting 1 (Table V(a), (b))
PAPER_TIMES.update({
    "cbcl-25": ("Table V(a), K = 25, setting 1: BADMM/OADMM 1009.45/420.58 = 2.40, BPGD/OPGD "
                "1125.58/431.66 = 2.61", (2.40, 2.61),
                "Table V(a), K = 25, setting 1: ORPCA 365.98 over OADMM 420.58 / OPGD 431.66 = "
                "0.87 / 0.85", (0.848, 0.870)),
    "cbcl-100": ("Table V(b), K = 100, setting 1: BADMM/OADMM 1009.04/422.97 = 2.39, BPGD/OPGD "
                 "1131.89/430.19 = 2.63", (2.39, 2.63),
                 "Table V(b), K = 100, setting 1: ORPCA 363.37 over OADMM 422.97 / OPGD "
                 "430.19 = 0.86 / 0.84", (0.845, 0.859)),
})
# ONMF (Guan et al.) over the online algorithms, the same tables: "our online algorithms …
# are significantly faster than the rest ones" (§VII-F), ONMF 5.5–8.9× OADMM's and OPGD's
# times; (paper's words and place, (ONMF/OPGD, ONMF/OADMM))
PAPER_ONMF_TIMES = {
    "cbcl": ("Table I(b), setting 1: ONMF 2385.93 over OADMM 416.68 / OPGD 435.32 = 5.73 / "
             "5.48", (5.48, 5.73)),
    "cbcl-25": ("Table V(a), K = 25, setting 1: ONMF 2384.70 over OADMM 420.58 / OPGD 431.66 = "
                "5.67 / 5.52", (5.52, 5.67)),
    "cbcl-100": ("Table V(b), K = 100, setting 1: ONMF 2379.86 over OADMM 422.97 / OPGD 430.19 "
                 "= 5.63 / 5.53", (5.53, 5.63)),
    "yaleb": ("Table II: ONMF 436.11 over OADMM 51.12 / OPGD 62.34 = 8.53 / 7.00",
              (7.00, 8.53)),
    "hall": ("Table III(a): ONMF 1525.57 over OADMM 172.29 / OPGD 178.46 = 8.85 / 8.55",
             (8.55, 8.85)),
    "escalator": ("Table III(b): ONMF 1324.86 over OADMM 166.83 / OPGD 170.46 = 7.94 / 7.77",
                  (7.77, 7.94)),
}
ONMF = "ONMF (Guan et al.)"
#: the paper's words behind each batch-over-online claim
SIGNIFICANT_TEXT = {
    "synthetic": "\"our online algorithms converge much faster than their batch counterparts\" "
                 "(§VII-D2)",
    "cbcl": "\"significantly faster than the rest ones\" (§VII-F, Table I(b))",
    **dict.fromkeys(("cbcl-25", "cbcl-100"),
                    "\"significantly faster than the rest ones\" (§VII-F, Table I(b); \"similar "
                    "results were observed when K=25 and K=100\")"),
    "yaleb": "\"consistent messages are delivered by Table III as those in Table I(b) and "
             "Table II. Namely, the running times of our online algorithms are ... greatly "
             "shorter than the rest algorithms\" (§VII-H)",
    **dict.fromkeys(("hall", "escalator"),
                    "\"greatly shorter than the rest algorithms\" (§VII-H)"),
}
ORPCA_WHY = ("not judged: the paper runs every online algorithm with the same mini-batch size "
             "τ (§VII-D2), while this ORPCA updates its basis after every sample, as its own "
             "paper does, so its time against the mini-batch methods is not the paper's "
             "comparison; both of the paper's pairs are printed beside the measured ones")
#: the caption's end of the table of an :func:`_orpca_times` piece
ORPCA_TAU_TABLE = "beside OADMM and OPGD, timed together (s)"
ORPCA_TAU_WHY = ("ORPCA with the online methods' mini-batch size τ, as the paper runs it "
                 "(§VII-D2), over OADMM's and over OPGD's time, each against the paper's two "
                 "ratios ±25% (the paper prints each time's spread over its ten runs, e.g. "
                 "Table II's ORPCA 16.38 ± 2.43 s, but not a ratio's) and the worse pair's "
                 "verdict; ORPCA faster than both, as every table prints it: never "
                 "within the 10% timing tie of 1 unless the paper's own ratio is")
ORPCA_CURVE_WHY = ("not judged: the paper's words are about when the f̂_t curves of Fig. 1(b) "
                   "settle ('converges slightly faster … less than 1s'), not about a pass's "
                   "total time, and it prints no time; the pass's times are shown")
ONMF_WHY = ("not judged: ONMF here is a stand-in for Guan et al.'s OR-NMF (one projected "
            "stochastic gradient step per mini-batch, without OR-NMF's buffer and inner robust "
            "iterations), so its running time is not OR-NMF's")


class CleanRegret:
    """The paper's cross-method online measure (eq. (46)) from the codes stored during the
    pass: f̂_t(W_t) = (1/t) Σ_{i ≤ t} ½‖v°_i − W_t h_i‖², v°_i the clean samples.

    A callback of the online methods: it keeps Σ hhᵀ, Σ h v°ᵀ and Σ‖v°‖² (O(K² + KF)), so
    f̂_t(W_t) is exact at every step; :meth:`psnr` is the online PSNR of eq. (48).
    ``seconds`` is its own time, which a timed fit leaves out (the measure is not the
    method's work).
    """

    def __init__(self, clean):
        self.clean = clean
        self.A = self.B = self.W = None
        self.c, self.t = 0.0, 0
        self.trace = []
        self.seconds = 0.0

    def __call__(self, info):
        t0 = time.perf_counter()
        self._add(info)
        self.seconds += time.perf_counter() - t0

    def _add(self, info):
        H, V = np.asarray(info["codes"], float), self.clean[info["rows"]]
        if self.A is None:
            self.A, self.B = np.zeros((H.shape[1],) * 2), np.zeros((H.shape[1], V.shape[1]))
        self.A += H.T @ H
        self.B += H.T @ V
        self.c += float(np.vdot(V, V))
        self.t += V.shape[0]
        self.W = np.array(info["components"], dtype=float)
        self.trace.append((info["time"], self.value(self.W)))

    def value(self, W) -> float:
        return 0.5 * (self.c - 2 * float(np.sum(W * self.B))
                      + float(np.sum((W @ W.T) * self.A))) / self.t

    def psnr(self) -> float:
        """−10 log₁₀(Σ_i ‖v°_i − W_N h_i‖² / (FN)) with the stored h_i (eq. (48))."""
        return fhat_psnr(self.value(self.W), self.clean.shape[1])


def fhat_psnr(value: float, n_features: int) -> float:
    """The PSNR of eq. (48) that an f̂_t of eq. (46) makes over F features: f̂_t is half
    the mean squared error per sample, so −10 log₁₀(2 f̂_t / F) on data in [0, 1]."""
    return float(-10 * np.log10(max(2 * value / n_features, 1e-300)))


#: the batch solvers, by the name the tables give them
BATCH_SOLVERS = {"BADMM": "admm", "BPGD": "pgd"}
#: the batch solvers' tolerance: relative change of the objective per iteration
BATCH_TOL = 1e-5


def _batch_fit(X, k, seed, solver, cap, budget=None, checkpoints=100,
               dict_penalty=BATCH_DICT_PENALTY):
    """One batch solver's fit of X as every run of these experiments makes it: from the
    seed's W₀ (:func:`batch_start`), to :data:`BATCH_TOL` or ``cap`` iterations; its
    objective recorded at ``checkpoints`` iterations (the iterates do not depend on it)."""
    return batch_robust_nmf(X, k, solver=solver, max_iter=cap, tol=BATCH_TOL,
                            time_budget=budget, init=batch_start(seed, k, X.shape[1]),
                            random_state=seed, n_checkpoints=checkpoints,
                            dict_penalty=dict_penalty)


def run_methods(X, k, *, tau, seed, batch_iter, which=("online", "batch", "others"),
                batch_budget=None, clean=None, timer=None, online=tuple(ONLINE)):
    """Fit every method on X (rows = normalized samples) from the same W₀; return, per method,
    its time (s), low-rank part, outliers (or None), atoms and objective history; with the
    clean data ``clean``, the online methods' f̂_t trace (eq. (46)) and stored-code PSNR
    (eq. (48)) too. ``timer(fit) -> (value, TimedRuns)`` times each fit (default: one run);
    ``time`` is then the median of its runs, and ``runs`` all of them. ``which`` names the
    groups: "online" (those of ``online``), "batch", "orpca", "onmf", or "others" for both
    of the last two."""
    timer = timer or (lambda fit, **kw: timed(fit, 1, **kw))
    out = {}

    def regret():
        return CleanRegret(clean) if clean is not None else None

    def run(name, fit, extra):
        """Time ``fit() -> (model, tracker)``; file its model's pieces under ``name``."""
        # the clean-data measure's own time is not the method's
        (model, tracker), runs = timer(fit, exclude=lambda out: out[1].seconds
                                       if out[1] is not None else 0.0)
        out[name] = dict(time=runs.median, runs=runs, **extra(model))
        if tracker is not None:
            out[name].update(regret=np.array(tracker.trace), psnr_stored=tracker.psnr())
        return model

    if "online" in which:  # same random_state, so the same W₀ for every online method
        for name in online:
            def fit_online(solver=ONLINE[name]):
                tracker = regret()
                return paper_pass(X, k, seed, solver, batch_size=tau, callback=tracker), tracker

            def online_parts(est):
                low, R = est.decompose(X)
                return dict(low=low, outliers=R, atoms=est.components_,
                            history=est.history_)

            run(name, fit_online, extra=online_parts)
    if "batch" in which:
        for name, solver in BATCH_SOLVERS.items():
            def fit_batch(solver=solver):
                return _batch_fit(X, k, seed, solver, batch_iter, batch_budget), None

            run(name, fit_batch, extra=lambda res: dict(
                low=res.codes @ res.components, outliers=res.outliers,
                atoms=res.components, history=res.history))
    if "others" in which or "orpca" in which:
        def fit_orpca():
            tracker = regret()
            return ORPCA(k, batch_size=tau, random_state=seed, callback=tracker).fit(X), tracker

        def orpca_parts(orpca):
            low, E = orpca.decompose(X)
            return dict(low=low, outliers=E, atoms=orpca.components_, history=None,
                        batch_size=tau)

        orpca = run("ORPCA", fit_orpca, extra=orpca_parts)
        runs = out["ORPCA"]["runs"]  # the share of the run whose model is kept
        out["ORPCA"]["basis_share"] = orpca.basis_seconds_ / max(runs.wall[runs.value_run],
                                                                 1e-12)
    if "others" in which or "onmf" in which:
        def fit_onmf():
            tracker = regret()
            return RobustSANMF(k, batch_size=tau, random_state=seed,
                               callback=tracker).fit(X), tracker

        def onmf_parts(onmf):
            D = onmf.output_components()
            # no outlier term: plain nonnegative least squares codes
            H = CodeSolver("fista", lower=0.0, max_iter=200, f_tol=1e-6,
                           start="best").solve(get_loss("squared"), D, X).codes
            return dict(low=H @ D, outliers=None, atoms=D, history=None)

        run("ONMF (Guan et al.)", fit_onmf, extra=onmf_parts)
    return out


def _time_text(r) -> str:
    """A method's time: every timed run and their median (one reading for a kept result
    timed before runs were repeated)."""
    return r["runs"].describe() if "runs" in r else f"{r['time']:.2f} (one run)"


def _method_label(m, r) -> str:
    """A method's name in a times table: ORPCA with its mini-batch size where it took one."""
    return f"{m} (τ = {r['batch_size']})" if m == "ORPCA" and "batch_size" in r else m


def _times_table(results):
    return [[_method_label(m, r), _time_text(r)] for m, r in results.items()]


def _table_results(rows) -> dict:
    """The results a kept running-time table (:func:`_times_table`) records: each method's
    ``time`` (its cell "12.3 s (median of …)", "12.34 (one run)" or, kept older, "12.34")
    and ``runs`` (the cell), and ORPCA's ``batch_size`` where its row is "ORPCA (τ = 5)"."""
    results = {m.split(" (τ")[0]: {"time": float(str(t).split()[0]), "runs": str(t)}
               for m, t in rows}
    for m, _ in rows:
        if str(m).startswith("ORPCA (τ = "):
            results["ORPCA"]["batch_size"] = int(str(m)[len("ORPCA (τ = "):].rstrip(")"))
    return results


def _tau_times(results: dict, orpca_times: dict | None, repeats: int) -> dict | None:
    """ORPCA's, OADMM's and OPGD's timed medians with ORPCA at the online methods' τ: from
    ``orpca_times`` (an :func:`_orpca_times` piece) where given, else from ``results`` where
    its ORPCA ran at τ; None otherwise, or where one of them was timed with fewer than
    ``repeats`` runs (a single timing is not the protocol's median)."""
    source = orpca_times or (results if "batch_size" in results.get("ORPCA", {}) else None)
    names = ("ORPCA", "OADMM", "OPGD")
    if source is None or not all(m in source and len(_run_seconds(source[m])) >= repeats
                                 for m in names):
        return None
    return {m: source[m]["time"] for m in names}


def _put_note(res: Result, where: str, head: str, note: str | None) -> None:
    """``note`` into ``res``, replacing an earlier reading's note that starts with
    ``where`` + ``head`` (a kept result read again gets one, not two)."""
    if note is None:
        return
    res.notes = [n for n in res.notes if not n.startswith(where + head)] + [note]


def _run_seconds(entry) -> list[float]:
    """The seconds of the timed runs that count, from a :class:`TimedRuns`, a result with
    ``runs``, or a kept table cell ``"12.3 s (median of 3 runs: 12.1, 31 replaced, 12.3;
    …)"``; empty for a single timing."""
    if isinstance(entry, dict):
        entry = entry.get("runs")
    if hasattr(entry, "kept"):
        return [float(t) for t in entry.kept]
    found = re.search(r"runs: ([^;)]*)", str(entry))
    if not found:
        return []
    return [float(x.split()[0]) for x in found.group(1).split(", ") if "replaced" not in x]


def _run_range(runs: dict, a: str, b: str) -> tuple[float, float] | None:
    """The ratio a/b's range over every pair of the two methods' timed runs, or None
    without runs: how far a ratio can move within the timings' own spread."""
    ra, rb = runs.get(a) or [], runs.get(b) or []
    if not ra or not rb:
        return None
    return min(ra) / max(rb), max(ra) / min(rb)


def _spread(runs: dict, a: str, b: str) -> str:
    """`` (lo–hi× over the runs)`` (:func:`_run_range`), or nothing without runs."""
    span = _run_range(runs, a, b)
    return "" if span is None else f" ({span[0]:.2f}–{span[1]:.2f}× over the runs)"


def _worse_pair_edge(spans: list, judge) -> str:
    """Where the claim's verdict (the worse pair's) is not fixed by the runs: over every
    choice of one end of each pair's :func:`_run_range`, the worse pair's verdict under
    ``judge``; the claim is flagged :data:`EDGE_MARK` where those verdicts differ, and
    nothing is said where they agree (or a pair has no runs)."""
    if any(s is None for s in spans):
        return ""
    worse = {max((judge(x) for x in ends), key=VERDICTS.index)
             for ends in itertools.product(*spans)}
    if len(worse) < 2:
        return ""
    return (f"; {EDGE_MARK}: over the runs' ranges the worse pair reads "
            + " or ".join(v for v in VERDICTS if v in worse))


#: Fig. 1(a)'s counterpart pairs, (batch, online)
COUNTERPARTS = (("BADMM", "OADMM"), ("BPGD", "OPGD"))


def _batch_curve_reading(results: dict, verdict: str) -> str:
    """The synthetic data's batch-over-online claim read on Fig. 1(a)'s curves, as its words
    are ("converge much faster"): each counterpart pair's seconds to its common level
    (:func:`common_level_times`, each method's f̃_t or batch objective / N on its own clock,
    single timings of the curves' run), the worse pair's ratio judged as the claim's band
    judges; flagged :data:`EDGE_MARK` where that verdict differs from ``verdict``."""
    parts, ratios = [], []
    for b, o in COUNTERPARTS:
        secs, level = common_level_times([results[o]["history"], results[b]["history"]])
        if secs is None:
            parts.append(f"{b}/{o}: {level}")
            continue
        ratios.append(secs[1] / max(secs[0], 1e-12))
        parts.append(f"{b}/{o} {fmt_ratio(ratios[-1])} ({b} {secs[1]:.3g} s, {o} "
                     f"{secs[0]:.3g} s to their common level {level:.4g})")
    other = (significantly(min(ratios), "batch time / online time")[0]
             if len(ratios) == len(COUNTERPARTS) else NOT_MEASURED)
    return ("; read on Fig. 1(a)'s curves, as the paper's words are, each pair to its common "
            "level (90% of the common descent; each method on its own clock, single timings "
            "of the curves' run): " + "; ".join(parts) + f" ({other} by the worse pair"
            + differs_mark(other, verdict, "the curves'") + ")")


def _time_claims(times: dict, data: str, where: str = "", orpca_tau: bool = False,
                 orpca_times: dict | None = None, runs: dict | None = None,
                 timings: int = 0) -> list:
    """Time claims from ``times`` (method → seconds) beside the paper's
    :data:`PAPER_TIMES` ``[data]``; ``where`` prefixes each claim (the data set, when one
    experiment has several). Batch over online is judged as "significantly faster"
    (:func:`significantly`); ORPCA's time against the paper's ratios where it ran with the
    online methods' mini-batch size (``orpca_tau``), or from ``orpca_times`` (ORPCA at τ,
    OADMM and OPGD timed together, :func:`_orpca_times`) where given, else reported, not
    judged (:data:`ORPCA_WHY`); on the synthetic data not judged on the pass's times (its
    words are about the curves, :data:`ORPCA_CURVE_WHY`: the experiment judges it on them,
    :func:`_orpca_settle_claim`); ONMF's reported, not judged (:data:`ONMF_WHY`).
    ``runs`` (method → seconds of its timed runs) adds each judged ORPCA ratio's range over
    the runs; ``timings``: the fewest timed runs behind the batch and online times (0 or 1:
    single timings, which the batch claim says)."""
    runs = runs or {}
    on = np.mean([times[m] for m in ("OADMM", "OPGD")])
    b = np.mean([times[m] for m in ("BADMM", "BPGD") if m in times])
    if data not in PAPER_TIMES:  # a stand-in for the paper's data: its videos' range
        return [claim(f"{where}batch time / online time (a stand-in video)",
                      "Table III: batch 5.09–7.43× the online time on the paper's videos",
                      f"{b / on:.2f}×", *ratio_band(b / on, 5.09, 7.43), source=SPEC,
                      why="the embedded video stands in for Hall and Escalator: their range "
                          "of ratios, ±25%")]
    paper_b, _, paper_o, _ = PAPER_TIMES[data]
    out = [claim(f"{where}batch time / online time", paper_b,
                 f"{b / on:.2f}× (whole runs: the mean of BADMM's and BPGD's, each to its "
                 "iteration cap or tolerance, over the mean of OADMM's and OPGD's passes; "
                 + (f"each the median of {timings} or more timed runs)" if timings > 1 else
                    "single timings, taken while other fits may have shared the two cores)"),
                 *significantly(b / on, "batch time / online time"),
                 why=f"{SIGNIFICANT_TEXT[data]}: {SIGNIFICANT_WHY}")]
    if orpca_times is not None:
        times, orpca_tau = {**times, **orpca_times}, "ORPCA" in orpca_times
    if "ORPCA" in times and data == "synthetic":
        pair = ", ".join(f"ORPCA/{m} {times['ORPCA'] / times[m]:.2f}×" for m in ("OADMM", "OPGD"))
        out.append(claim(f"{where}ORPCA time / online time", paper_o, pair, NOT_MEASURED,
                         "not judged", why=ORPCA_CURVE_WHY))
    elif "ORPCA" in times and orpca_tau:
        pairs = {m: times["ORPCA"] / times[m] for m in ("OADMM", "OPGD")}
        paper_range = PAPER_TIMES[data][3]
        judged = [ratio_band(r, *paper_range, tie=TIME_TIE) for r in pairs.values()]
        # the worse pair's verdict: ORPCA against each online method, as the tables print
        verdict = max((v for v, _ in judged), key=VERDICTS.index)
        out.append(claim(f"{where}ORPCA time / online time", paper_o,
                         ", ".join(f"ORPCA/{m} {r:.2f}×" + _spread(runs, "ORPCA", m)
                                   for m, r in pairs.items())
                         + _worse_pair_edge([_run_range(runs, "ORPCA", m) for m in pairs],
                                            lambda x: ratio_band(x, *paper_range,
                                                                 tie=TIME_TIE)[0]),
                         verdict, f"each pair: {judged[0][1]}", why=ORPCA_TAU_WHY))
    elif "ORPCA" in times:
        pair = ", ".join(f"ORPCA/{m} {times['ORPCA'] / times[m]:.2f}×" for m in ("OADMM", "OPGD"))
        out.append(claim(f"{where}ORPCA time / online time", paper_o, pair, NOT_MEASURED,
                         "not judged", why=ORPCA_WHY))
    if ONMF in times and data in PAPER_ONMF_TIMES:
        paper_n, _ = PAPER_ONMF_TIMES[data]
        out.append(claim(f"{where}ONMF time / online time", paper_n,
                         f"{times[ONMF] / on:.2f}× (the stand-in)", NOT_MEASURED,
                         "not judged", why=ONMF_WHY))
    return out


def _orpca_times(ctx: Context, key: str, results: dict, data, k: int,
                 tau: int = 5) -> dict | None:
    """ORPCA with the online methods' mini-batch size ``tau``, OADMM and OPGD fitted on the
    data (``data()`` makes them) and timed together by the timing protocol (``ctx.timed``):
    one piece, ``key``-orpca-tau, for the ORPCA time claim of a kept cell whose ``results``
    ran ORPCA per sample. None where ``results``' ORPCA already took ``tau`` (its own times
    serve) or, in a kept-only assembly, where the piece is not kept (the claim is then not
    judged)."""
    if "batch_size" in results.get("ORPCA", {"batch_size": tau}):
        return None

    def fit():
        out = run_methods(data(), k, tau=tau, seed=ctx.seed, batch_iter=0,
                          which=("online", "orpca"), online=("OADMM", "OPGD"), timer=ctx.timed)
        return {m: {key_: r[key_] for key_ in ("time", "runs", "batch_size", "basis_share")
                    if key_ in r} for m, r in out.items()}
    try:
        times = ctx.memo(f"{key}-orpca-tau", fit)
    except PieceMissing:
        return None
    # a piece timed with fewer runs than the protocol's (a run with --repeats 1) does not count
    return times if all(len(r["runs"].kept) >= ctx.repeats for r in times.values()) else None


def _basis_note(where: str, r: dict) -> str | None:
    """How much of ORPCA's time (``r``: its result) went to its basis updates."""
    share = r.get("basis_share")
    if share is None:
        return None
    if "batch_size" in r:
        return (f"{where}ORPCA (τ = {r['batch_size']}) spent {share:.0%} of its {r['time']:.1f} s "
                "in its basis updates, one per mini-batch as the online methods' (a K×K by K×F "
                "product and a sweep over the K atoms each).")
    return (f"{where}ORPCA spent {share:.0%} of its {r['time']:.1f} s in its basis updates, one "
            "after every sample as in its paper (a K×K by K×F product and a sweep over the K "
            "atoms each); OADMM and OPGD update once per mini-batch and code the batch's "
            "samples together, so what ORPCA costs against them depends on that per-sample "
            "update, not on the projections the paper credits.")


def _ratio_claims(res, results, data, where="", orpca_times: dict | None = None):
    """:func:`_time_claims` of ``results`` into ``res``, with notes on ORPCA's time;
    ``orpca_times``: an :func:`_orpca_times` piece, whose times the ORPCA claim reads."""
    times = {m: r["time"] for m, r in results.items()}
    if "BADMM" not in times:
        return
    counts = [len(_run_seconds(results[m])) for m in ("BADMM", "BPGD", "OADMM", "OPGD")
              if m in results]
    runs = {m: _run_seconds(r) for m, r in {**results, **(orpca_times or {})}.items()}
    res.claims += _time_claims(times, data, where, timings=min(counts),
                               orpca_tau="batch_size" in results.get("ORPCA", {}),
                               orpca_times=None if orpca_times is None else
                               {m: r["time"] for m, r in orpca_times.items()}, runs=runs)
    if orpca_times is not None:
        res.tables.append((f"{where}ORPCA with τ = {orpca_times['ORPCA']['batch_size']} "
                           + ORPCA_TAU_TABLE, ["method", "time (s)"],
                           _times_table(orpca_times)))
    for r in (results.get("ORPCA", {}), (orpca_times or {}).get("ORPCA", {})):
        note = _basis_note(where, r)
        if note:
            res.notes.append(note)


def _rejudge_times(res: Result, data: str | None = None, orpca=None) -> Result:
    """A kept result of timed runs judged by the current rules, from its running-time tables
    (captioned "NAME: running times (s)" for several data sets, else of ``data``);
    ``orpca(name, results)``, where given, returns the :func:`_orpca_times` piece of data
    set ``name`` (or None), which ORPCA's time claim then reads (:func:`_ratio_claims`)."""
    kept = Result()
    for caption, _, rows in res.tables:
        if not caption.lower().endswith("running times (s)"):
            continue
        name, where = (caption.split(":")[0], caption.split(":")[0] + ": ") if ":" in caption \
            else (data, "")
        results = _table_results(rows)
        _ratio_claims(kept, results, name, where,
                      orpca_times=orpca(name, results) if orpca else None)
    res.claims = kept.claims
    # tables and notes of an earlier reading of the same pieces are replaced, not repeated
    res.tables = [t for t in res.tables if not t[0].endswith(ORPCA_TAU_TABLE)] + kept.tables
    res.notes = [n for n in res.notes if n not in kept.notes] + kept.notes
    return res


def _series_styles(n: int):
    """``n`` distinguishable line styles (colour, marker, dash), cycled without repeating a
    combination: for figures with more series than a colour cycle has colours."""
    import itertools

    from matplotlib import colormaps

    colours = colormaps["tab20"].colors
    markers = ("o", "s", "^", "v", "D", "x", "+", "*")
    dashes = ("-", "--", ":", "-.")
    for i in itertools.count():
        yield dict(color=colours[(i * 2) % 20 if i < 10 else (i * 2 + 1) % 20],
                   marker=markers[i % len(markers)], markevery=0.2, ms=4,
                   ls=dashes[(i // len(markers)) % len(dashes)] if n > len(markers) else "-")


def _images(plt, path, rows, shape, titles):
    fig, axes = plt.subplots(len(rows), len(titles), figsize=(1.3 * len(titles),
                                                              1.4 * len(rows)), squeeze=False)
    for i, row in enumerate(rows):
        for j, im in enumerate(row):
            axes[i, j].imshow(np.clip(im, 0, 1).reshape(shape), cmap="gray", vmin=0, vmax=1)
            axes[i, j].axis("off")
            if i == 0:
                axes[i, j].set_title(titles[j], fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# ----------------------------------------------------------------------------- Figs. 1–6
def _onmf_traces(X, clean, k: int, seed, theta: float | None = None) -> tuple:
    """ONMF's clean-data f̂_t (eq. (46)) over one pass of X, read with its output (the
    running average of its iterates) and with its last iterate W_t (the dictionary each
    mini-batch is coded with), seeded as the experiment's ONMF run, at step factor ``theta``
    (None: the stand-in's own): (output trace, iterate trace), rows (time, f̂_t)."""
    avg, last = CleanRegret(clean), CleanRegret(clean)

    def both(info):
        avg(info)
        last({**info, "components": info["iterate"]})
    kw = {} if theta is None else {"theta": theta}
    RobustSANMF(k, batch_size=5, random_state=seed, callback=both, **kw).fit(X)
    return np.array(avg.trace), np.array(last.trace)


def _onmf_iterate_trace(X, clean, k: int, seed) -> np.ndarray:
    """ONMF's clean-data f̂_t read with its last iterate (:func:`_onmf_traces`)."""
    return _onmf_traces(X, clean, k, seed)[1]


#: ONMF's step factors θ tried above the one it runs with (γ = θ/(L̂√T); neither paper
#: gives the stand-in's step)
ONMF_THETAS = (3.0, 10.0)


def _onmf_theta_traces(X, clean, k: int, seed, thetas=ONMF_THETAS) -> dict:
    """:func:`_onmf_traces` at each step factor of ``thetas``: θ → (output, iterate)."""
    return {theta: _onmf_traces(X, clean, k, seed, theta) for theta in thetas}


def _onmf_failing(avg, last, oadmm_rise: float) -> list[str]:
    """Which of ONMF's traces (its output ``avg``, its last iterate ``last``) fail to converge
    by the claim's rule: a late rise above OADMM's by :data:`LATE_RISE` or more."""
    return [w for w, tr in (("the output", avg), ("the last iterate", last))
            if late_rise(tr[:, 1]) - oadmm_rise >= LATE_RISE]


def _and_list(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _outlier_free(d) -> np.ndarray:
    """The stream of ``d`` (an :class:`~onlinemf.datasets.OutlierData`) with its outlier
    entries restored to their clean values: the control for what the outliers do to a run
    (the other entries keep their noise and clipping)."""
    return np.where(d.R != 0, d.X_clean, d.X)


def _onmf_control_text(traces: dict, control: dict, oadmm_rise: float) -> str:
    """The larger steps' failures set against the same runs on the stream with its outlier
    entries restored to their clean values (``control``, as :func:`_onmf_theta_traces`),
    read by the same rule against OADMM's rise on the contaminated stream: a trace that
    settles there needed the outliers to fail, one that fails there too fails from the
    larger step alone."""
    parts, alone, needed = [], [], []
    for theta, (avg, last) in control.items():
        parts.append(f"θ = {theta:g}: the output's rise {late_rise(avg[:, 1]):.1%}, the last "
                     f"iterate's {late_rise(last[:, 1]):.1%}")
        failing_there = _onmf_failing(avg, last, oadmm_rise)
        for which in _onmf_failing(*traces[theta], oadmm_rise):
            (alone if which in failing_there else needed).append(f"{which} at θ = {theta:g}")
    steeper = [f"θ = {t:g}" for t, (avg, last) in control.items()
               if late_rise(avg[:, 1]) > late_rise(traces[t][0][:, 1])
               and late_rise(last[:, 1]) > late_rise(traces[t][1][:, 1])]
    said = []
    if needed:
        one = len(needed) == 1
        said.append(_and_list(needed) + (" settles" if one else " settle") + " without the "
                    "outliers: on this seed they push " + ("it" if one else "them")
                    + " over the rule's edge (the perturbation the paper names)")
    if alone:
        one = len(alone) == 1
        said.append(_and_list(alone) + (" fails" if one else " fail") + " without the "
                    "outliers too: the larger step alone makes " + ("it" if one else "them")
                    + " fail")
    text = "; ".join(said)
    more = (f" At {_and_list(steeper)} both readings rise more steeply without the outliers "
            "than with them." if steeper else "")
    return (" On the same stream with its outlier entries restored to their clean values (a "
            "control, untimed, at the same θ, whose step θ/(L̂√T) takes L̂ from the control's "
            "first batch; the rule's baseline is OADMM's rise on the contaminated stream): "
            + "; ".join(parts) + ". " + text[:1].upper() + text[1:] + "." + more)


def _onmf_theta_note(traces: dict, oadmm_rise: float, as_run_rise: float,
                     control: dict | None = None) -> str:
    """:func:`_onmf_theta_traces` read by the claim's rule (ONMF's late rise less OADMM's at
    least :data:`LATE_RISE`), output and last iterate, at each θ, beside the output's rise as
    run (``as_run_rise``); with ``control`` (the same θ on the stream without its outliers),
    whether each failure is the outliers' or the step's (:func:`_onmf_control_text`)."""
    parts, fails = [], []
    for theta, (avg, last) in traces.items():
        r_avg, r_last = late_rise(avg[:, 1]), late_rise(last[:, 1])
        parts.append(f"θ = {theta:g}: the output's rise {r_avg:.1%} (final f̂ {avg[-1, 1]:.4g}), "
                     f"the last iterate's {r_last:.1%}")
        which = _onmf_failing(avg, last, oadmm_rise)
        if which:
            fails.append(f"at θ = {theta:g} {' and '.join(which)}")
    head = (f"ONMF's step γ = θ/(L̂√T) is this stand-in's (θ = {RobustSANMF(1).theta:g} runs "
            "here, its output's rise "
            f"{as_run_rise:.1%}; neither paper gives one), read at larger θ in untimed runs: "
            + "; ".join(parts) + f" (OADMM's rise {oadmm_rise:.1%}). By the claim's rule ")
    as_run_fails = as_run_rise - oadmm_rise >= LATE_RISE
    if fails:
        text = head + "these fail to converge: " + "; ".join(fails) + (
            ". The stand-in's output fails at θ as run too." if as_run_fails else
            ". Whether the stand-in shows the paper's failure depends on its step; "
            + ("whether the rise comes from the outliers or from the larger step's own noise "
               "is not separated here." if control is None else "whether the rise comes from "
               "the outliers or from the larger step alone is read on a control."))
        if control is not None:
            text += _onmf_control_text(traces, control, oadmm_rise)
    else:
        text = head + "none of them fails to converge."
    return text + (" Since the stand-in's step decides the reading, the claim is not judged on "
                   "the stand-in." if fails and not as_run_fails else
                   " The claim is not judged on the stand-in, whose step neither paper gives.")


def _iterate_note(final: float, rise: float, trace: np.ndarray, oadmm: float,
                  oadmm_rise: float) -> str:
    """:func:`_onmf_iterate_trace` in words, beside the averaged output the claim reads, by
    the claim's own rule (ONMF's late rise less OADMM's, at least :data:`LATE_RISE`)."""
    f_hat = trace[:, 1]
    excess = late_rise(f_hat) - oadmm_rise
    near = abs(excess - LATE_RISE) < 0.01
    return (f"ONMF's f̂_t read with its last iterate W_t rather than its output (the running "
            f"average of its iterates, as robust stochastic approximation returns): lowest "
            f"{f_hat.min():.4g}, final {f_hat[-1]:.4g} ({f_hat[-1] / oadmm:.3g} times OADMM's "
            f"final {oadmm:.4g}), largest rise over the second half of the stream "
            f"{late_rise(f_hat):.1%} (the average: final {final:.4g}, {final / oadmm:.3g} times "
            f"OADMM's, rise {rise:.1%}; OADMM's rise {oadmm_rise:.1%}). "
            + (f"By the claim's rule the iterate fails to converge (its rise exceeds OADMM's by "
               f"{LATE_RISE:.0%} or more): the average hides the perturbation the paper "
               "describes." if excess >= LATE_RISE else
               f"By the claim's rule the iterate settles too (its rise exceeds OADMM's by less "
               f"than {LATE_RISE:.0%}): the average does not hide a failure to converge.")
            + (f" The iterate's reading is within a point of the {LATE_RISE:.0%} edge: a "
               "borderline case." if near else ""))


@register("zhao-tan-synthetic", "001", "Synthetic data: online versus batch, sensitivity "
          "to τ, K, ρ, κ and the outlier density (Figs. 1–6)", departures=(
              "One initialization of W₀.", TIMING_DEPARTURE,
              "The data follow §VII-D1's recipe with two changes: the noise has standard "
              "deviation 0.01 where the paper's entries are i.i.d. standard normal (std 1 on "
              "data in [0, 1], which clipping then sets mostly to 0 or 1), and the half-normal "
              "factors have scale σ = 1/√K° where 𝒩ℋ(1/√K°) read as a variance makes every "
              "clipped entry of V° equal 1. Neither change's effect on the claims is measured.",
              "The κ grid {0.1, 0.4, 0.7, 1.0} is this implementation's: the paper lists no "
              "κ values for Fig. 5 (its canonical κ is 0.7, and κ ∈ (0, 1]).",
              "The batch solvers across ρ and κ (Figs. 4(a), 5(a)) run as untimed pieces "
              "capped at the iterations the canonical batch run took, read in iterations; "
              "a grid value not yet run is named in its claim.", *BASELINE_DEPARTURES))
def synthetic(ctx: Context) -> Result:
    f, k, n = ctx.pick((100, 20, 2000), (400, 49, 100_000), tiny=(30, 4, 300))
    res = Result()
    plt = pyplot()
    d = make_outlier_synthetic(n, f, k, 0.7, 0.1, random_state=ctx.seed)

    def main():
        """Every method on the canonical data, without the N×F parts (a small piece)."""
        results = run_methods(d.X, k, tau=5, seed=ctx.seed, batch_iter=1000,
                              batch_budget=None, clean=d.X_clean, timer=ctx.timed)
        return {m: {**{key: v for key, v in r.items() if key not in ("low", "outliers")},
                    "psnr": _psnr(r["low"], d.X_clean)} for m, r in results.items()}

    def oadmm_like(solver="admm", **kw):
        """OADMM's (or OPGD's) history on the canonical data, at the paper's settings."""
        return grid_pass(d.X, k, ctx.seed, solver, **kw)

    results = ctx.memo("zhao-tan-synthetic-main", main)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for m in ("OADMM", "OPGD", "OAPGD (accelerated)", "BADMM", "BPGD"):
        h = results[m]["history"]
        axes[0].plot(h["time"], h["objective"], label=m)
    axes[0].set(xlabel="time (s)", ylabel="objective f̃_t / batch objective / N",
                yscale="log", title="Fig. 1(a)")
    axes[0].legend(fontsize=7)
    online = ("OADMM", "OPGD", "ORPCA", "ONMF (Guan et al.)")
    for m in online:  # Fig. 1(b): the clean-data regret f̂_t of eq. (46)
        tr = results[m]["regret"]
        axes[2].plot(tr[:, 0], tr[:, 1], label=m)
    axes[2].set(xlabel="time (s)", ylabel="f̂_t(W_t), eq. (46)", yscale="log",
                title="Fig. 1(b)")
    axes[2].legend(fontsize=7)
    rows = []
    for m, r in results.items():
        rows.append([_method_label(m, r), _time_text(r), f"{r['psnr']:.2f}",
                     f"{r['psnr_stored']:.2f}" if "psnr_stored" in r else "—",
                     f"{r['regret'][-1, 1]:.4g}" if "regret" in r else "—"])
    rows.append(["(corrupted data)", "—", f"{_psnr(d.X, d.X_clean):.2f}", "—", "—"])
    res.tables.append(("Time and PSNR (dB, against the clean data V°) at ν = 0.7, ν̃ = 0.1: "
                       "with codes re-solved by W_N, and with the codes stored during the pass "
                       "(eq. (48)); final f̂_N (eq. (46))",
                       ["method", "time (s)", "PSNR (W_N codes)", "PSNR (stored, eq. 48)",
                        "f̂_N"], rows))
    fin = {m: float(results[m]["regret"][-1, 1]) for m in online}
    rise = {m: late_rise(results[m]["regret"][:, 1]) for m in (ONMF, "OADMM")}
    res.claims.append(claim("Fig. 1(b): ONMF fails to converge on f̂_t",
                            "\"the ONMF algorithm fails to converge because it is unable to "
                            "handle the outliers\" (§VII-D2, Fig. 1(b))",
                            f"final f̂: ONMF {fin[ONMF]:.4g}, OADMM {fin['OADMM']:.4g}, OPGD "
                            f"{fin['OPGD']:.4g}; largest rise over the second half of the "
                            f"stream above the lowest f̂ before it: ONMF {rise[ONMF]:.1%}, "
                            f"OADMM {rise['OADMM']:.1%}",
                            NOT_MEASURED,
                            "not judged on the stand-in; the reading it would take: ONMF's late "
                            f"rise less OADMM's ≥ {LATE_RISE:g}",
                            why="\"the constant perturbation from the outliers ... keeps the "
                                "algorithm from converging\": over the second half of the "
                                f"stream ONMF's f̂ would rise by at least {LATE_RISE:.0%} of its "
                                "level above the lowest value it had reached, more than "
                                "OADMM's does. The stand-in's step, which neither paper gives "
                                "(OR-NMF's own is Guan et al.'s), can decide that reading (the "
                                "step note below reads it at larger steps, where they are "
                                "run), so the stand-in cannot say whether OR-NMF fails"))
    settle = _orpca_settle_note(results, n_samples=d.X.shape[0])
    if settle:
        res.notes.append(settle)
    curves = None
    if "batch_size" not in results["ORPCA"]:
        def orpca_tau():
            """Fig. 1(b)'s curves of ORPCA at the online methods' τ, OADMM and OPGD, timed
            together: the paper's comparison, where the kept ORPCA updated per sample."""
            out = run_methods(d.X, k, tau=5, seed=ctx.seed, batch_iter=0, clean=d.X_clean,
                              which=("online", "orpca"), online=("OADMM", "OPGD"),
                              timer=ctx.timed)
            return {m: {key: r[key] for key in ("time", "runs", "batch_size", "regret")
                        if key in r} for m, r in out.items()}

        try:
            curves = ctx.memo("zhao-tan-synthetic-orpca-tau-curves", orpca_tau)
            settle = _orpca_settle_note(curves, n_samples=d.X.shape[0])
            if settle:
                res.notes.append(settle)
        except PieceMissing:
            pass
    _put_note(res, "", CODE_COST_HEAD, code_cost(
        ctx, "zhao-tan-synthetic", "", lambda: d.X, k,
        _tau_times(results, curves, ctx.repeats)))
    try:  # an untimed piece: the stand-in's averaged output against its last iterate
        res.notes.append(_iterate_note(fin[ONMF], rise[ONMF], ctx.memo(
            "zhao-tan-synthetic-onmf-iterate",
            lambda: _onmf_iterate_trace(d.X, d.X_clean, k, ctx.seed)), fin["OADMM"],
            rise["OADMM"]))
    except PieceMissing:
        pass
    try:  # untimed pieces: the stand-in at larger steps, then without the outliers
        traces = ctx.memo("zhao-tan-synthetic-onmf-theta",
                          lambda: _onmf_theta_traces(d.X, d.X_clean, k, ctx.seed))
        try:
            control = ctx.memo("zhao-tan-synthetic-onmf-theta-control", lambda: (
                _onmf_theta_traces(_outlier_free(d), d.X_clean, k, ctx.seed)))
        except PieceMissing:
            control = None
        res.notes.append(_onmf_theta_note(traces, rise["OADMM"], rise[ONMF], control))
    except PieceMissing:
        pass
    res.claims.append(_same_speed_claim(results))

    def canonical_inner():  # an untimed piece: where the three online methods' passes go
        return ctx.memo("zhao-tan-synthetic-inner",
                        lambda: _inner_split(d.X, k, ctx.seed, names=tuple(ONLINE)))

    try:  # an untimed piece: OPGD again with ten times its inner solves' caps
        capped = ctx.memo("zhao-tan-synthetic-opgd-caps-x10",
                          lambda: _opgd_caps_pass(d.X, d.X_clean, k, ctx.seed))
        try:
            inner = canonical_inner()["OPGD"]
        except PieceMissing:
            inner = None
        res.notes.append(_fig1_caps_note(results, capped, inner))
    except PieceMissing:
        pass
    try:  # untimed pieces: OPGD with its solves run tight over a prefix of the stream
        n_prefix = ctx.pick(1280, 5120, tiny=100)
        res.notes.append(_tight_opgd_note(ctx, "zhao-tan-synthetic", lambda: (
            d.X[:n_prefix], d.X_clean[:n_prefix]), k))
    except PieceMissing:
        pass
    if "regret" in results.get(ACCELERATED, {}):
        res.notes.append(_accelerated_speed_note(results))
        try:
            res.notes.append(_accelerated_split_note(results, canonical_inner()))
        except PieceMissing:
            pass
    _ratio_claims(res, results, "synthetic")
    for row in res.claims:  # the batch claim's words are about Fig. 1(a)'s curves
        if row[0] == "batch time / online time":
            row[2] += _batch_curve_reading(results, row[3])
    judged = None if curves is None else _orpca_settle_claim(curves)
    if judged is not None:  # the ORPCA claim read on the curves its words are about
        names = [c[0] for c in res.claims]
        if judged[0] in names:
            res.claims[names.index(judged[0])] = judged
        else:
            res.claims.append(judged)
    ps = {m: r["psnr"] for m, r in results.items()}
    res.claims.append(claim("ONMF far worse than OADMM (PSNR)",
                            "\"the ONMF algorithm fails to converge because it is unable to "
                            "handle the outliers\" (§VII-D2)",
                            f"PSNR {ps[ONMF]:.1f} dB vs OADMM {ps['OADMM']:.1f} dB",
                            NOT_MEASURED, "not judged",
                            why="the paper prints no PSNR on its synthetic data, and its "
                                "sentence is the one the f̂ claim above reads (not judged on "
                                "the stand-in): counting it twice would weigh one sentence as "
                                "two claims"))
    res.claims.append(claim("OPGD (paper's capped inner solves) vs OADMM",
                            "\"no significant differences can be observed between our online "
                            "algorithms\" (§VII-F)",
                            f"{ps['OPGD']:.2f} vs {ps['OADMM']:.2f} dB (accelerated "
                            f"{ps['OAPGD (accelerated)']:.2f} dB)", NOT_MEASURED,
                            "not judged here: judged on CBCL",
                            why="the sentence is about Table I (CBCL faces), where the claim "
                                "is judged; the paper prints no PSNR on its synthetic data"))
    if abs(ps["OPGD"] - ps["OADMM"]) > 1.0:
        res.notes.append(
            f"OPGD against OADMM: {ps['OPGD']:.2f} against {ps['OADMM']:.2f} dB, while the "
            f"accelerated PGD with the same iteration caps reaches "
            f"{ps['OAPGD (accelerated)']:.2f} dB and its final f̂ is "
            f"{float(results['OAPGD (accelerated)']['regret'][-1, 1]):.4g} against OPGD's "
            f"{fin['OPGD']:.4g}: the plain projected-gradient inner solves "
            "stop at the paper's caps before they converge, which acceleration removes; the "
            "two formulations do agree once their inner problems are solved.")
    # Figs. 2, 4, 5, 6: sensitivity of the online solvers, final f̃ levels
    grids = [(p_, list(v), s_) for p_, v, s_ in SENSITIVITY_GRIDS]
    if ctx.quick:
        grids = [(p_, v[::3], s_) for p_, v, s_ in grids]
    sens, splits, stalled, grid_hists = [], [], [], {}
    styles = _series_styles(sum(len(v) for _, v, _ in grids))  # one style per series
    words = {"batch_size": ("Fig. 2", "\"different values of τ have very little effects on "
                            "the convergence speeds of both our online algorithms\""),
             "rho": ("Fig. 4", "\"the change of the convergence speed of OADMM is much less "
                     "drastic … in less than 10s, all the OADMM algorithms (with different "
                     "values of ρ) converge\""),
             "kappa": ("Fig. 5", "\"similar effects of the different values of κ on the "
                       "convergence speeds of the PGD-based algorithms\"")}
    for param, values, solver in grids:
        finals, hists = [], {}
        for v in values:
            h = ctx.memo(f"zhao-tan-synthetic-{param}-{v:g}",
                         lambda param=param, v=v, solver=solver: oadmm_like(
                             solver=solver, **{param: v}))
            axes[1].plot(h["time"], h["objective"], lw=0.9, label=f"{solver} {param}={v:g}",
                         **next(styles))
            finals.append(h["objective"][-1])
            hists[v] = h
        spread = max(finals) / min(finals)
        grid_hists[param] = list(hists.values())
        sens.append([f"{param} ∈ {values} ({solver})", f"{spread:.3f}"])
        shares, level = common_level_times(list(hists.values()))
        how = ""
        timed = None if param != "batch_size" else timed_grid(
            ctx, "zhao-tan-synthetic-batch_size-timed", "τ", "OADMM across τ", values,
            lambda v: oadmm_like(batch_size=v), same_level=True)
        if timed is not None:  # its runs timed again alone, each on its own clock
            shares, level, how, table, kept = timed
            res.tables.append(table)
            hists = dict(zip(values, kept))
        fig_no, quote = words[param]
        verdict, band = speed_band(shares, level)
        why = SPEED_WHY
        if param != "batch_size":
            # the paper expects slower convergence as ρ grows (κ alike), so what it claims of
            # the online solver is that every run still converges, not equal speeds
            verdict, band = judge(shares is not None), CONVERGE_BAND
            why = CONVERGE_WHY
        speed_verdict = verdict
        if param == "batch_size":
            verdict, band, why = _tau_leg_cap(verdict, band, why)
        name = "convergence speed" if param == "batch_size" else "convergence"
        if param == "kappa" and shares is None and len(values) > 2:
            how += _without_smallest(param, hists)
        res.claims.append(claim(f"{name} across {param} ({solver})",
                                f"{quote} (§VII-D3, {fig_no})",
                                fmt_times(shares, [f"{param}={v:g}" for v in values], level)
                                + f"; final f̃ max/min = {spread:.3f}" + how, verdict, band,
                                why=why))
        if spread > 1.25:
            res.notes.append(stall_note(param, solver, hists))
        if speed_verdict != REPRODUCED:  # each history read on its own clock
            splits.append(split_text(f"{solver.upper()} across {param}" + (
                " (the timed run whose curve is kept, of each)" if how else ""),
                [f"{param}={v:g}" for v in values], list(hists.values()),
                *common_level_times(list(hists.values())),
                batch_sizes=values if param == "batch_size" else None))
        stalled += [(param, v, solver) for v in _stalled(hists)]
    axes[1].set(xlabel="time (s)", ylabel="f̃_t", yscale="log", title="Figs. 2, 4, 5")
    values = {p_: v for p_, v, _ in grids}
    if stalled:  # do the stalled runs stall at the inner solves' caps? (an untimed piece)
        key = "-".join(f"{p_}{v:g}" for p_, v, _ in stalled)
        try:
            caps = ctx.memo(f"zhao-tan-synthetic-caps-x10-{key}", lambda: _caps_diagnosis(
                d.X[:ctx.pick(2000, 5000, tiny=200)], k, ctx.seed, stalled))
            res.notes.append(_caps_note(caps))
        except PieceMissing:
            pass
    res.notes += kappa_rule_notes(ctx, d.X, k, [
        v for v in values["kappa"] if ("kappa", v, "pgd") not in stalled])
    batch = {param: _batch_grid(ctx, d.X, k, results, param, values[param])
             for param in BATCH_GRIDS}
    if "rho" in [p_ for p_, _, _ in stalled]:
        res.notes += rho_rule_notes(ctx, d.X, k, values["rho"])
    res.claims += _batch_sensitivity_claims(grid_hists, {
        p_: None if runs is None else {v: _iteration_history(r["history"], n)
                                       for v, r in runs.items()}
        for p_, runs in batch.items()}, values)
    note = _batch_grid_note(batch, n)
    if note:
        res.notes.append(note)
    # Fig. 3: K = 25 and 100 beside the canonical K — each online algorithm's convergence
    # speed, read as the seconds each run needs to cover 90% of its own descent (K changes the
    # attainable level); the worse algorithm decides
    ks = ctx.pick((10, k, 40), (25, k, 100), tiny=(2, k, 6))
    labels = [f"K={kk}" for kk in ks]
    parts, verdicts, band = [], [], ""
    for m, solver, key in (("OADMM", "admm", "zhao-tan-synthetic-K-timed"),
                           ("OPGD", "pgd", "zhao-tan-synthetic-K-timed-pgd")):
        def fit(kk, solver=solver):
            return oadmm_like(solver=solver, n_components=kk)

        timed = timed_grid(ctx, key, "K", f"{m} across K", ks, fit, same_level=False)
        if timed is None and solver == "pgd":  # not run, or not timed enough: the claim says so
            parts.append(f"{m}: not run across K under the timing protocol")
            verdicts.append(PARTLY)
            continue
        if timed is not None:  # the grid's runs timed again alone, each on its own clock
            shares, level, how, table, hk = timed
            res.tables.append(table)
        else:
            hk = [ctx.memo(f"zhao-tan-synthetic-K-{kk}", lambda kk=kk: fit(kk))
                  if kk != k else results[m]["history"] for kk in ks]
            shares, level = common_level_times(hk, same_level=False)
            how = "; each run a single timing (the curves')"
        # with a flat run, the runs that descend; a timed grid's medians are not split so
        extra, descending = (("", None) if timed is not None else
                             descending_reading(hk, labels, level))
        verdict, band = speed_band(shares, level, descending, own=True)
        if verdict != REPRODUCED:  # each history read on its own clock
            splits.append(split_text(f"{m} across K" + (
                " (the timed run whose curve is kept, of each)" if timed else ""), labels, hk,
                *common_level_times(hk, same_level=False)))
        parts.append(f"{m}: " + fmt_times(shares, labels, level) + extra + how)
        verdicts.append(verdict)
    res.claims.append(claim("convergence speed across K (Fig. 3)",
                            "\"the convergence speeds of both our online and batch algorithms "
                            "are insensitive to this parameter\" (§VII-D3, Fig. 3)",
                            "; ".join(parts), worst(verdicts),
                            band + "; for OADMM and for OPGD, the worse decides (at most partly "
                            "while one is not run); the batch algorithms are not judged",
                            why=SPEED_WHY_K + "; the sentence is about both online algorithms "
                                "and the batch ones, whose runs across K are not made here "
                                "(their leg is reported as not judged, not as holding)"))
    axes[1].legend(fontsize=5, ncol=2)
    save_figure(ctx, res, fig, "zhao_tan_fig1_synthetic.png",
                "Objective versus time: online against batch, and sensitivity")
    dens = []
    densities = ((0.7, 0.1), (0.8, 0.2), (0.9, 0.3))
    for nu, nut in densities[1:]:
        def heavier(nu=nu, nut=nut):
            dd = make_outlier_synthetic(n, f, k, nu, nut, random_state=ctx.seed)
            est = paper_pass(dd.X, k, ctx.seed, "admm")
            low, _ = est.decompose(dd.X)
            return _psnr(dd.X, dd.X_clean), _psnr(low, dd.X_clean)

        p_data, p_low = ctx.memo(f"zhao-tan-synthetic-density-{nu}", heavier)
        dens.append([f"({nu}, {nut})", f"{p_data:.2f}", f"{p_low:.2f}"])

    def curves():
        """Fig. 6's curves: OADMM's and OPGD's f̃ histories at the three densities, made
        together so that their times are of one session."""
        out = {"OADMM": {}, "OPGD": {}}
        for nu, nut in densities:
            dd = make_outlier_synthetic(n, f, k, nu, nut, random_state=ctx.seed)
            for m, solver in (("OADMM", "admm"), ("OPGD", "pgd")):
                out[m][(k, nu)] = paper_pass(dd.X, k, ctx.seed, RobustSolver(solver)).history_
        return out

    try:
        online = ctx.memo("zhao-tan-synthetic-density-curves", curves)
        res.claims.append(_online_speed_claim(online, list(online["OADMM"]), "(ν, ν̃)", "6",
                                              data="synthetic"))
        for m, by_key in online.items():
            runs = list(by_key.values())
            splits.append(split_text(f"{m} across (ν, ν̃)", [str(key[1]) for key in by_key],
                                     runs, *common_level_times(runs, same_level=False)))

        def accelerated():
            """OPGD's density curves again with its inner solves accelerated (the same
            caps): whether its spread across densities is its plain inner solves'."""
            out = {}
            for nu, nut in densities:
                dd = make_outlier_synthetic(n, f, k, nu, nut, random_state=ctx.seed)
                out[(k, nu)] = paper_pass(dd.X, k, ctx.seed, RobustSolver("apgd")).history_
            return out

        try:
            apgd = ctx.memo("zhao-tan-synthetic-density-curves-apgd", accelerated)
        except PieceMissing:
            apgd = None
        try:  # an untimed piece: OADMM's inner solves at the heavier densities
            def density_inner():
                return {nu: _inner_split(make_outlier_synthetic(
                    n, f, k, nu, nut, random_state=ctx.seed).X, k, ctx.seed,
                    names=("OADMM",))["OADMM"] for nu, nut in densities[1:]}

            canonical = ctx.memo("zhao-tan-synthetic-inner", lambda: _inner_split(
                d.X, k, ctx.seed, names=tuple(ONLINE)))  # the piece of Fig. 1's note
            heavy = ctx.memo("zhao-tan-synthetic-density-inner", density_inner)
            res.notes.append(_density_inner_note({densities[0][0]: canonical["OADMM"],
                                                  **heavy}))
            nu, nut = densities[-1]

            def larger_caps(nu=nu, nut=nut):
                dd = make_outlier_synthetic(n, f, k, nu, nut, random_state=ctx.seed)
                return paper_pass(dd.X, k, ctx.seed,
                                  scaled_caps(RobustSolver("admm"), 10)).history_

            res.notes.append(_density_caps_note(
                online["OADMM"], (k, nu), ctx.memo(f"zhao-tan-synthetic-density-{nu}-caps-x10",
                                                   larger_caps)))
        except PieceMissing:
            pass
        if apgd is not None:
            row = _online_speed_claim({"OADMM": online["OADMM"], ACCELERATED: apgd},
                                      list(apgd), "(ν, ν̃)", "6", data="synthetic")
            res.notes.append("Fig. 6's claim read the same way with OPGD's inner solves "
                             "accelerated (the same caps; single timings of one session, a "
                             f"diagnosis beside the claim, which reads OPGD): {row[2]}; under "
                             f"the claim's band it would read {row[3]}.")
    except PieceMissing:  # a kept-only assembly before the curves were run
        res.missing.append("Fig. 6's curves")
        res.claims.append(claim("synthetic: the online algorithms' convergence across (ν, ν̃) "
                                "(Fig. 6)", "\"our online algorithms still converge fast and "
                                "steadily (without fluctuations) to a stationary point even "
                                "though both ν and ν̃ have increased\" (§VII-D4, Fig. 6)",
                                NOT_RUN, NOT_MEASURED, "needs the curves at the three densities",
                                why="the curves of Fig. 6 are not yet run at this scale"))
    res.tables.append(("Heavier outliers (Fig. 6): PSNR of the data and of OADMM's low-rank "
                       "part", ["(ν, ν̃)", "PSNR data", "PSNR OADMM"], dens))
    if splits:
        res.notes.append("Where the time of the speed comparisons goes (each run's samples "
                         "seen when it reached the level its claim reads, and its "
                         "milliseconds per sample over the pass): " + "; ".join(splits)
                         + ".")
    res.notes.append(f"Synthetic recipe of §VII-D1 with the fix σ = 1/√K° "
                     f"(the literal 𝒩ℋ(1/√K°) variance makes V° ≡ 1) and noise std "
                     f"{d.noise_std} (the paper's std 1 on [0, 1] data clips 60% of entries); "
                     f"F={f}, K=K°={k}, N={n}, τ=5. PSNR uses codes re-solved with W_N.")
    return res


#: OPGD with accelerated inner solves at the same caps (a diagnosis beside the paper's methods)
ACCELERATED = "OAPGD (accelerated)"


def _same_speed_parts(results: dict, other: str = "OPGD") -> tuple[list, list, str]:
    """OADMM against ``other`` on both subfigures of Fig. 1 (f̃_t in (a), f̂_t in (b)): each
    subfigure's two runs' seconds to a level both reach on that objective, in words, its
    verdict under the speed band, and the band."""
    parts, verdicts, band = [], [], ""
    for name, key in (("f̃_t (a)", "history"), ("f̂_t (b)", "regret")):
        curves = []
        for m in ("OADMM", other):
            c = results[m][key]
            curves.append(c if key == "history" else
                          {"time": c[:, 0], "objective": c[:, 1]})
        seconds, level = common_level_times(curves)
        verdict, band = speed_band(seconds, level)
        parts.append(f"{name}: " + fmt_times(seconds, ["OADMM", other], level))
        verdicts.append(verdict)
    return parts, verdicts, band


def _tau_leg_cap(verdict: str, band: str, why: str) -> tuple[str, str, str]:
    """The τ claim's verdict, band and reason capped at partly: its sentence names both
    online algorithms and only OADMM's runs across τ are made, so it cannot hold on one leg
    (the K claim's rule for a leg not run)."""
    return (PARTLY if verdict == REPRODUCED else verdict,
            band + "; at most partly while OPGD's runs across τ are not made",
            why + "; the sentence is about both online algorithms, and only OADMM's runs "
                  "across τ are made here (the counts over every choice of one run read the "
                  "speed band alone, before this cap)")


def _fhat_curves(results: dict, names) -> dict:
    """Each method's f̂_t curve (its ``regret`` records: seconds, value) as a history with
    ``time`` and ``objective``, as :func:`common_level_times` reads one."""
    return {m: {"time": results[m]["regret"][:, 0], "objective": results[m]["regret"][:, 1]}
            for m in names}


def _orpca_settle_note(results: dict, n_samples: int | None = None) -> str | None:
    """ORPCA's claim of Fig. 1(b) ("converges slightly faster … less than 1s") read from the
    kept f̂_t curves, as its words are about when the curves settle: each curve's seconds to
    90% of its own descent, and ORPCA's against each online method's to a level the pair
    shares; with ``n_samples`` (the stream's length, its records evenly spaced over it),
    each pair's seconds also split into samples and milliseconds per sample
    (:func:`speed_split`). A reading beside the claim, whose band does not read it."""
    names = [m for m in ("ORPCA", "OADMM", "OPGD") if "regret" in results.get(m, {})]
    if len(names) < 3:
        return None
    curves = _fhat_curves(results, names)
    own, level = common_level_times(list(curves.values()), same_level=False)
    tau = results["ORPCA"].get("batch_size")
    which = (f"ORPCA at τ = {tau}" if tau else
             "this ORPCA updating its basis after every sample, as its own paper does")
    text = ("ORPCA's f̂_t in Fig. 1(b) read as the paper's words, from the curves kept (each "
            f"method's own clock; {which}): " + fmt_times(own, names, level))
    for other in ("OADMM", "OPGD"):
        pair, lv = common_level_times([curves["ORPCA"], curves[other]])
        text += f"; ORPCA against {other}, " + fmt_times(pair, ["ORPCA", other], lv)
        if n_samples and pair is not None:
            hists = [dict(c, n_samples=np.arange(1, len(c["time"]) + 1) / len(c["time"])
                          * n_samples) for c in (curves["ORPCA"], curves[other])]
            text += " (" + speed_split(["ORPCA", other], hists, pair) + ")"
    records = ", ".join(f"{m} {len(curves[m]['time'])}" for m in names)
    return text + (f". Each time is read at a record of its curve ({records} records over the "
                   "pass; a sparser curve's first record is further into its descent). On the "
                   "synthetic data the claim reads these curves at ORPCA's τ where they are "
                   "kept; elsewhere the claim reads the pass's times.")


#: "slightly faster": ORPCA's time to a level it shares with an online method at least this
#: share of the online method's (and below it: ORPCA first)
SLIGHTLY = 1 / 1.5


def _orpca_settle_claim(curves: dict):
    """Fig. 1(b)'s ORPCA claim judged on the f̂_t curves it is about (``curves``: the
    ``…-orpca-tau-curves`` piece, ORPCA at the online methods' τ): ORPCA's seconds to the
    level it shares with each online method over that method's, each on its own clock; None
    where a curve is missing."""
    if any("regret" not in curves.get(m, {}) for m in ("ORPCA", "OADMM", "OPGD")):
        return None
    curve = _fhat_curves(curves, ("ORPCA", "OADMM", "OPGD"))
    texts, verdicts = [], []
    for other in ("OADMM", "OPGD"):
        pair, level = common_level_times([curve["ORPCA"], curve[other]])
        if pair is None:
            texts.append(f"ORPCA against {other}: " + fmt_times(pair, ["ORPCA", other], level))
            verdicts.append(NOT_MEASURED)
            continue
        r = pair[0] / max(pair[1], 1e-12)
        texts.append(f"ORPCA/{other} {r:.3g}× (to their common level {level:.4g}: ORPCA "
                     f"{pair[0]:.3g} s, {other} {pair[1]:.3g} s)")
        first = r < 1 / (1 + TIME_TIE)
        verdicts.append(REPRODUCED if first and SLIGHTLY <= r else
                        PARTLY if first and SLIGHTLY / 2 <= r else NOT_REPRODUCED)
    tau = curves["ORPCA"].get("batch_size")
    return claim("ORPCA time / online time", PAPER_TIMES["synthetic"][2],
                 "; ".join(texts) + f" (Fig. 1(b)'s f̂_t curves, ORPCA at τ = {tau}, each "
                 "method on its own clock)", worst(verdicts),
                 f"reproduced if, against each online method, ORPCA reaches the level the "
                 f"pair shares (90% of the common descent) first (below {1 / (1 + TIME_TIE):.3g}×"
                 f", the {TIME_TIE:.0%} timing tie) and in at least {SLIGHTLY:.3g}× the other's "
                 f"time; partly if first and in at least {SLIGHTLY / 2:.3g}×; not if it is not "
                 "first or further ahead; the worse pair decides",
                 why="the paper's words are about when the f̂_t curves of Fig. 1(b) settle, "
                     "and it prints no time: 'slightly faster (the time difference is less "
                     "than 1s)' read as a ratio of times to a shared level (seconds do not "
                     "carry across machines), ORPCA first but by less than the report's "
                     "'partly' edge for 'significantly faster' (1.5×). Set after these times "
                     "were shown beside "
                     "the claim, then unjudged, at an audit's request")


def _accelerated_speed_note(results: dict) -> str:
    """The same reading as Fig. 1's speed claim with OPGD's inner solves accelerated (the
    same caps): whether the claim fails on OPGD's plain projected-gradient inner solves."""
    parts, verdicts, _ = _same_speed_parts(results, ACCELERATED)
    return ("Fig. 1's speed claim read the same way with OPGD's inner solves accelerated (the "
            f"same caps; a diagnosis beside the claim, which reads OPGD): {'; '.join(parts)}; "
            "under the claim's "
            f"band it would read {worst(verdicts)}.")


def _accelerated_split_note(results: dict, inner: dict) -> str:
    """Why OPGD with accelerated inner solves still trails OADMM on Fig. 1(a): the two runs'
    seconds to the level they share split into samples and milliseconds per sample, beside
    where each online method's pass goes (``inner``, from :func:`_inner_split`)."""
    names = ["OADMM", ACCELERATED]
    hists = [results[m]["history"] for m in names]
    seconds, level = common_level_times(hists)
    return ("OADMM against OPGD with accelerated inner solves on f̃_t (a), each run's seconds "
            "to the level split into samples and cost per sample: "
            + split_text("f̃_t (a)", names, hists, seconds, level) + ". "
            + _inner_note("", inner))


def _method_pass(X, clean, k: int, seed, name: str = "OPGD", mult: int = 1,
                 **solver) -> dict:
    """One untimed pass of the online method ``name`` over X (:func:`_one_pass`: τ = 5,
    seeded as the kept runs are, its caps ``mult`` times the paper's and ``solver``'s other
    settings): its f̃_t history, its f̂_t trace against the clean samples ``clean`` (one
    record per mini-batch) and its ``inner_``."""
    est, tracker, _ = _one_pass(clean, X, k, seed, name, mult, **solver)
    return {"history": est.history_, "regret": np.array(tracker.trace),
            "inner": dict(est.inner_), "batch_size": 5}


def _opgd_caps_pass(X, clean, k: int, seed, mult: int = 10) -> dict:
    """:func:`_method_pass` of OPGD with the inner solves' caps ``mult`` times the paper's:
    does OPGD trail OADMM for its codes left short of their optimum at the paper's caps?"""
    return {**_method_pass(X, clean, k, seed, "OPGD", mult), "mult": mult}


#: the solves :func:`_opgd_tight` runs tight, in the order :func:`_fig1_rule_note` reads them
TIGHT_SOLVES = {"codes": "its code solves", "dictionary": "its dictionary's solve",
                "both": "its code and dictionary solves"}


def _opgd_tight(X, clean, k: int, seed, dictionary: bool = False, codes: bool = True) -> dict:
    """:func:`_method_pass` of OPGD with its code solves (with ``codes``) and its
    dictionary's (with ``dictionary``) run tight (:func:`tight_settings`), the others under
    the paper's rule as OADMM's are: does OPGD trail OADMM for its solves stopping early on
    the paper's rule?"""
    return _method_pass(X, clean, k, seed, "OPGD",
                        **tight_settings(codes=codes, dictionary=dictionary))


def _prefix_references(X, clean, k: int, seed) -> dict:
    """What :func:`_opgd_tight`'s passes over the prefix X are read against, over the same
    rows in the same order (a pass shuffles the rows it is given, so the kept runs over the
    whole stream saw other rows first): OADMM and OPGD under the paper's rule, and OADMM
    with both solves tight (how much the rule costs OADMM itself)."""
    return {"OADMM": _method_pass(X, clean, k, seed, "OADMM"),
            "OPGD": _method_pass(X, clean, k, seed, "OPGD"),
            "OADMM tight": _method_pass(X, clean, k, seed, "OADMM",
                                        **tight_settings(dictionary=True))}


#: the paper's readings of its rule tried beside the tight passes, by piece name: the solver
#: settings, what they change in words, and the reading's subject
RULE_READINGS = {
    "per-sample-rule": ({"code_stopping": "sample"},
                        "the rule applied to each sample's own problem (as §VII-B2 states it) "
                        "instead of the mini-batch's sum", "applying the rule per sample"),
    "uniform-start": ({"code_start": "uniform"},
                      "the code solves started at uniform entries (as §VII-B1 starts them) "
                      "instead of h⁰ = 0", "the uniform start"),
}


def _reading_passes(X, clean, k: int, seed, **solver) -> dict:
    """OADMM and OPGD over the prefix X (as :func:`_prefix_references`), both with the
    solver settings of one of :data:`RULE_READINGS`."""
    return {m: _method_pass(X, clean, k, seed, m, **solver) for m in ("OADMM", "OPGD")}


def _gap_closed(start: float, reached: float, target: float) -> str:
    """How much of the gap from ``start`` down to ``target`` a run ending at ``reached``
    closes, in words ("" where ``start`` is not above ``target``)."""
    gap = start - target
    if gap <= 0:
        return ""
    share = (start - reached) / gap
    return (f", {share:.0%} of OPGD's f̂_t gap to OADMM closed" if share >= 0 else
            f", widening OPGD's f̂_t gap to OADMM by {-share:.0%}")


def _fig1_rule_note(refs: dict, runs: dict, n_features: int | None = None,
                    readings: dict | None = None) -> str:
    """OPGD with tight inner solves (``runs``: a key of :data:`TIGHT_SOLVES` →
    :func:`_opgd_tight` over one prefix of the stream) against OADMM and OPGD under the
    paper's rule over the same prefix (``refs``, :func:`_prefix_references`), on f̂_t at
    the prefix's end (Fig. 1(b)'s measure, which both share). The paper's rule on the
    solves run tight accounts for OPGD's lag over the prefix if, with them tight, OPGD ends
    at most :data:`RULE_MATCH` above OADMM, provided that under the rule it ends further
    above (the control). With ``n_features`` (F) each f̂_t is also given as the PSNR of
    eq. (48) it makes. ``readings`` (a name of :data:`RULE_READINGS` →
    :func:`_reading_passes`) are read the same way: such a reading of the paper accounts for
    the lag if under it OPGD ends at most :data:`RULE_MATCH` above OADMM under it too."""
    def value(run):
        v = float(run["regret"][-1, 1])
        return f"{v:.4g}" + (f" ({fhat_psnr(v, n_features):.2f} dB)" if n_features else "")

    at = {m: float(r["regret"][-1, 1]) for m, r in refs.items()}
    parts, held = [], []
    for key, run in runs.items():
        mine, inner = float(run["regret"][-1, 1]), run["inner"]
        ratio = mine / max(at["OADMM"], 1e-300)
        dic = (f", its dictionary's {inner['dict_iterations']:.0f} "
               f"({inner['dict_capped']:.0%})" if key != "codes" else "")
        alike = (f", {mine / max(at['OADMM tight'], 1e-300):.2f}× OADMM's with both solves "
                 "tight too" if key == "both" else "")
        parts.append(f"with {TIGHT_SOLVES[key]} tight: f̂_t {value(run)}, {ratio:.2f}× "
                     f"OADMM's under the rule{alike}"
                     f"{_gap_closed(at['OPGD'], mine, at['OADMM'])} (its code solves "
                     f"take {inner['code_iterations']:.0f} iterations per step, "
                     f"{inner['code_capped']:.0%} at the cap{dic})")
        if ratio <= RULE_MATCH:
            held.append(TIGHT_SOLVES[key])
    if at["OPGD"] <= RULE_MATCH * at["OADMM"]:  # the control: no lag over this prefix
        reading = (f"under the paper's rule OPGD already ends at most {RULE_MATCH - 1:.0%} "
                   "above OADMM over this prefix, so the prefix does not show its lag and "
                   "this reading cannot say whether the rule accounts for it")
    elif held:
        reading = (f"with {held[0]} tight OPGD ends at most {RULE_MATCH - 1:.0%} above "
                   "OADMM under the paper's rule, so over this prefix the paper's stopping "
                   f"rule on {held[0]} accounts for its lag")
    else:
        reading = (f"with no solve tried tight does OPGD end at most {RULE_MATCH - 1:.0%} "
                   "above OADMM, so the rule on them does not account for all of its lag "
                   "over this prefix")
    sample = ""
    for name, passes in (readings or {}).items():
        settings, what, subject = RULE_READINGS[name]
        o, g = (float(passes[m]["regret"][-1, 1]) for m in ("OADMM", "OPGD"))
        inner = passes["OPGD"]["inner"]
        ratio = g / max(o, 1e-300)
        counts = (f"{inner['code_iterations']:.0f} iterations per step on average, counted at "
                  "each step's slowest sample, with a sample at the cap in "
                  f"{inner['code_capped']:.0%} of the steps"
                  if settings.get("code_stopping") == "sample" else
                  f"{inner['code_iterations']:.0f} iterations per step, "
                  f"{inner['code_capped']:.0%} at the cap")
        sample += (f". With {what}: OADMM {value(passes['OADMM'])}, OPGD "
                   f"{value(passes['OPGD'])}, {ratio:.2f}× OADMM's (its code solves run "
                   f"{counts})")
        if at["OPGD"] > RULE_MATCH * at["OADMM"]:
            reading += (f"; with {subject} OPGD ends " + (
                f"at most {RULE_MATCH - 1:.0%} above OADMM, so {subject} accounts for its lag"
                if ratio <= RULE_MATCH else
                f"{ratio:.2f}× OADMM's, so {subject} does not account for it"))
    n = len(refs["OADMM"]["regret"]) * refs["OADMM"]["batch_size"]
    return (f"OPGD with its inner solves run to a relative change of "
            f"1e{round(np.log10(TIGHT_TOL))} (cap {TIGHT_CAP}; the paper's rule: 1e-3 or 50 "
            "iterations for the codes, 1e-4 or 200 for the dictionary), the others under the "
            f"paper's rule, one untimed pass each over the stream's first {n} samples, every "
            "pass over the same rows in the same order; f̂_t at the prefix's end, under the "
            f"paper's rule: OADMM {value(refs['OADMM'])}, OPGD {value(refs['OPGD'])} "
            f"(OADMM with both solves tight: {value(refs['OADMM tight'])}); "
            + "; ".join(parts) + f"{sample}. So {reading}.")


def _tight_opgd_note(ctx: Context, prefix_key: str, data, k: int,
                     n_features: int | None = None) -> str:
    """:func:`_fig1_rule_note` from its kept pieces (``prefix_key`` + "-opgd-…"), computed
    where missing over the prefix ``data() -> (X, clean)``, which only a missing piece
    builds."""
    def piece(name, func):
        return ctx.memo(f"{prefix_key}-{name}", lambda: func(*data()))

    refs = piece("opgd-prefix-references",
                 lambda X, clean: _prefix_references(X, clean, k, ctx.seed))
    runs = {}
    for key in TIGHT_SOLVES:  # the note reads the passes that are kept
        try:
            runs[key] = piece(f"opgd-{key}-tight", lambda X, clean, key=key: _opgd_tight(
                X, clean, k, ctx.seed, dictionary=key != "codes", codes=key != "dictionary"))
        except PieceMissing:
            pass
    if not runs:
        raise PieceMissing(f"{prefix_key}-opgd-codes-tight")
    readings = {}
    for name, (settings, _, _) in RULE_READINGS.items():
        try:
            readings[name] = piece(name, lambda X, clean, settings=settings: _reading_passes(
                X, clean, k, ctx.seed, **settings))
        except PieceMissing:
            pass
    return _fig1_rule_note(refs, runs, n_features, readings)


def _sample_clock(curve, key: str, batch_size: int) -> dict:
    """A run's f̃_t history (``key`` "history") or f̂_t trace ("regret", one record per
    mini-batch) as a curve on the samples seen, so that untimed runs compare by samples."""
    if key == "history":
        return {"time": np.asarray(curve["n_samples"], float), "objective": curve["objective"]}
    curve = np.asarray(curve)
    return {"time": batch_size * np.arange(1.0, len(curve) + 1), "objective": curve[:, 1]}


#: a run whose code solves stop at their cap on fewer of its steps than this share is not
#: held back by that cap: the rest stop on the tolerance
RULED_OUT = 0.05


def _fig1_caps_note(results: dict, capped: dict, inner: dict | None = None) -> str:
    """Fig. 1's speed claim read on the samples each run needs to a level it shares with
    OADMM, OPGD at the paper's caps and with them ``capped["mult"]`` times larger
    (:func:`_opgd_caps_pass`), on both subfigures, with the final f̂_t of each. The larger
    caps account for OPGD's lag if they bring it within the claim's speed ratio of OADMM's
    samples on both, provided that at the paper's caps it is not within it already (the
    control); ``inner``, the paper's caps' split of one untimed pass, is set beside."""
    tau, mult = capped["batch_size"], capped["mult"]
    times = "ten times" if mult == 10 else f"{mult} times"
    parts, within = [], {True: [], False: []}
    for name, key in (("f̃_t (a)", "history"), ("f̂_t (b)", "regret")):
        oadmm = _sample_clock(results["OADMM"][key], key, tau)
        runs = []
        for larger, label, curve in ((False, "at the paper's caps", results["OPGD"][key]),
                                     (True, f"with {times} the caps", capped[key])):
            samples, level = common_level_times([oadmm, _sample_clock(curve, key, tau)])
            runs.append(f"{label}: " + fmt_times(samples, ["OADMM", "OPGD"], level,
                                                 unit="samples"))
            within[larger].append(samples is not None
                                  and max(samples) <= SPEED_RATIO * min(samples))
        parts.append(f"{name}, {runs[0]}; {runs[1]}")
    final = {m: float(results[m]["regret"][-1, 1]) for m in ("OADMM", "OPGD")}
    mine = float(capped["regret"][-1, 1])
    cap = capped["inner"]
    paper = "" if not inner else (f" (at the paper's caps, over one untimed pass: "
                                  f"{inner['code_iterations']:.1f} iterations per step, "
                                  f"{inner['code_capped']:.0%} at the cap)")
    if all(within[False]):
        reading = (f"at the paper's caps OPGD is already within the claim's {SPEED_RATIO:g}× "
                   "of OADMM's samples on both subfigures, so this reading cannot say what "
                   "the caps do to its lag")
    elif all(within[True]):
        reading = (f"the larger caps bring OPGD within the claim's {SPEED_RATIO:g}× of "
                   "OADMM's samples on both subfigures: its codes left short at the paper's "
                   "caps account for its lag in samples")
    else:
        reading = (f"the larger caps leave OPGD beyond the claim's {SPEED_RATIO:g}× of "
                   "OADMM's samples on a subfigure: the caps do not account for all of its "
                   "lag")
        if cap["code_capped"] < RULED_OUT:
            reading += (", and with its code solves stopping at the larger caps on "
                        f"{100 * cap['code_capped']:.2g}% of its steps what lag remains is "
                        "not the code caps'")
    return (f"Fig. 1's speed claim read in samples (one untimed pass of OPGD with its inner "
            f"solves' caps {times} the paper's, beside the kept runs; seconds are not "
            "compared): " + "; ".join(parts) + f". Its final f̂_t: {mine:.4g} with the larger "
            f"caps, against {final['OPGD']:.4g} at the paper's caps and OADMM's "
            f"{final['OADMM']:.4g}{_gap_closed(final['OPGD'], mine, final['OADMM'])}. With the "
            f"larger caps its code solves take {cap['code_iterations']:.1f} iterations per "
            f"step, {cap['code_capped']:.0%} at the cap{paper}. So {reading}.")


def _density_inner_note(inner: dict) -> str:
    """OADMM's inner solves at each outlier density ν (``inner``: ν → its ``inner_`` over
    one untimed pass): the iterations per step and the share of steps at the cap, of its
    code solves, beside the time they take."""
    parts = [f"ν = {nu:g}: {d['code_iterations']:.1f} code iterations per step, "
             f"{d['code_capped']:.0%} of the steps at the cap, "
             f"{d['code_seconds'] / max(d['code_seconds'] + d['dict_seconds'], 1e-12):.0%} "
             "of the pass in the code solves" for nu, d in inner.items()]
    return ("Fig. 6, OADMM's inner solves at each outlier density (one untimed pass each, the "
            "paper's stopping rule and caps): " + "; ".join(parts) + ".")


def _own_descent_samples(h) -> float | None:
    """The samples a run had seen when its objective first covered 90% of its own descent
    (from its first to its final record); None for a flat or rising run."""
    seconds, _ = common_level_times([h], same_level=False)
    return None if seconds is None else speed_parts([h], seconds)[0][0]


def _samples_text(h) -> str:
    n = _own_descent_samples(h)
    return "no descent" if n is None else f"{n:.3g}"


def _density_caps_note(curves: dict, heaviest, capped) -> str:
    """Fig. 6's heaviest density run again with ten times the inner solves' caps
    (``capped``, its history), beside OADMM's runs at each density (``curves``: (K, ν) →
    history): each run's samples to 90% of its own descent, the quantity the claim's spread
    is in. Do the capped code solves cost the heavier density its samples?"""
    parts = [f"ν = {key[1]:g}: {_samples_text(h)}" for key, h in curves.items()]
    return (f"Fig. 6, OADMM at ν = {heaviest[1]:g} again with ten times the inner solves' caps "
            "(one untimed pass): samples to 90% of each run's own descent, at the paper's caps "
            + ", ".join(parts) + f"; at ν = {heaviest[1]:g} with ten times the caps "
            f"{_samples_text(capped)} (f̃ {float(capped['objective'][-1]):.4g} at "
            f"the end, against {float(curves[heaviest]['objective'][-1]):.4g} at the caps).")


def _same_speed_claim(results: dict) -> list:
    """Fig. 1: "the convergence speeds of OADMM and OPGD are almost the same", read from both
    subfigures (f̃_t in (a), f̂_t in (b)) as the two runs' seconds to a level both reach on
    that objective; the worse subfigure decides."""
    parts, verdicts, band = _same_speed_parts(results)
    return claim("Fig. 1: OPGD and OADMM converge almost equally fast",
                 "\"Apart from this difference, the convergence speeds of OADMM and OPGD are "
                 "almost the same\" (§VII-D2, Fig. 1, 'from both subfigures')",
                 "; ".join(parts), worst(verdicts), band + "; on each subfigure, the worse decides",
                 why="the sentence compares speeds on the curves of both subfigures (objective "
                     "against seconds): each method's time to one level both reach on that "
                     "objective, 'almost the same' as the slower within "
                     f"{SPEED_RATIO:g}× the faster (the rule of every speed claim here); the "
                     "final levels are not compared, but a run that never reaches the level the "
                     "other starts from stays behind it on the same objective, which is not "
                     "the same speed")


def _online_speed_claim(online: dict, keys, what: str, fig_no: str, data: str = "CBCL") -> list:
    """Both online algorithms (``online[m][key]``: the f̃ history of OADMM or OPGD at
    (K, ν)) converge at insensitive speeds across K (CBCL, Fig. 12, Section S-10), and "fast
    and steadily" across the outlier densities (§VII-D4: Fig. 6 on the synthetic data,
    Fig. 15 on CBCL). The runs differ in the level they can attain, so each curve is read on
    its own scale; the worse algorithm decides. Each run's time is also read in the samples
    it had seen (:func:`read_in_samples`), and the claim flagged at the band's edge where that
    reading's verdict differs."""
    parts, verdicts, band, in_samples = [], [], "", []
    for m, hists in online.items():
        sh, level = common_level_times([hists[key] for key in keys], same_level=False)
        # across K "insensitive" (a flat run read as speed_band reads it); across heavier
        # densities "still fast": none slower
        if what == "K":
            extra, descending = descending_reading([hists[key] for key in keys],
                                                   [str(key) for key in keys], level)
            verdict, band = speed_band(sh, level, descending, own=True)
        else:
            extra, (verdict, band) = "", slowdown_band(sh, level)
        text = fmt_times(sh, [str(key) for key in keys], level) + extra
        if what != "K":  # heavier outliers: "fast and steadily", both needed
            rises = [late_rise(hists[key]["objective"]) for key in keys]
            steady = all(r < LATE_RISE for r in rises)
            verdict = NOT_REPRODUCED if not steady or level == RISES else verdict
            text = ("late rise of f̃ above its lowest value: " + ", ".join(
                f"{key[1]}: {r:.1%}" for key, r in zip(keys, rises)) + "; " + text)
            if sh is not None:
                text += f"; over the canonical density's (ν = {keys[0][1]:g}): " + ", ".join(
                    f"{key[1]}: {t / max(sh[0], 1e-12):.2f}×" for key, t in zip(keys[1:], sh[1:]))
        samples_text, other = read_in_samples([hists[key] for key in keys],
                                          [str(key) for key in keys], sh, level, what)
        text += samples_text
        # a density's unsteady run fails the claim whatever the speeds read
        in_samples.append(verdict if other is None or (what != "K" and not steady) else other)
        parts.append(f"{m}: {text}")
        verdicts.append(verdict)
    mark = (f"; {EDGE_MARK}: read in samples it reads {worst(in_samples)} (one timed curve per "
            "run)" if worst(in_samples) != worst(verdicts) else "")
    if what == "K":
        return claim(f"CBCL: the online algorithms' convergence speed across {what} (Fig. "
                     f"{fig_no})", "\"the convergence speeds are insensitive to the key "
                     "parameters (τ, K, ρ and κ)\" (§VII-D5, Section S-10)",
                     "; ".join(parts) + mark,
                     worst(verdicts), band + "; for OADMM and for OPGD, the worse decides",
                     why=SPEED_WHY_K + "; the sentence is about both online algorithms and "
                         "names τ, ρ and κ as well, whose CBCL legs (Figs. 11, 13 and 14) are "
                         "judged in a claim of their own: this claim reads its K leg (Fig. 12) "
                         "only")
    where = ("§VII-D4, Fig. 6; §VII-D5, on Section S-10's CBCL runs: \"both our online "
             "algorithms demonstrate fast and steady convergences\", Fig. 15"
             if data == "CBCL" else "§VII-D4, Fig. 6")
    return claim(f"{data}: the online algorithms' convergence across {what} (Fig. {fig_no})",
                 "\"our online algorithms still converge fast and steadily (without "
                 f"fluctuations) to a stationary point even though both ν and ν̃ have "
                 f"increased\" ({where})", "; ".join(parts) + mark,
                 worst(verdicts),
                 "for OADMM and for OPGD, the worse deciding: not reproduced if a run is "
                        f"unsteady (its f̃ rises by {LATE_RISE:.0%} or more above the lowest "
                        "value it had reached, over the second half of the stream); "
                        "otherwise, with every run steady, " + band,
                 why="'steadily' is a curve without a late rise; 'still converge fast … even "
                     "though both ν and ν̃ have increased' is one direction, heavier outliers "
                     "not slowing the algorithms: each heavier density's time to 90% of its own "
                     "descent (densities change the attainable level, so each curve is read on "
                     "its own scale, as across K) within 1.5× the canonical density's, partly "
                     "within 2× as for every speed claim, a faster run holding (the curves are "
                     "single timings)")


# ----------------------------------------------------------------------------- Tables I, IV, V


def _batch_stop(history, n: int) -> tuple[float, float]:
    """(iterations run, relative objective change per iteration at the end) of a batch
    solver's ``history`` over ``n`` samples (its records are every few iterations)."""
    ns, obj = np.asarray(history["n_samples"], float), np.asarray(history["objective"], float)
    if ns.size < 2:
        return ns[-1] / n if ns.size else 0.0, float("nan")
    per = max((ns[-1] - ns[-2]) / n, 1.0)
    return ns[-1] / n, float(abs(obj[-2] - obj[-1]) / max(abs(obj[-1]), 1e-300) / per)


def _batch_stop_note(cells, n: int, cap: int, tol: float = BATCH_TOL) -> str:
    """What stopping the batch solvers at ``cap`` iterations did, from ``cells`` = (label,
    results, PSNR of the contaminated input): their final relative change against the
    tolerance, and the cells where a batch solver ends below the contaminated input."""
    stops, below = [], []
    for label, results, data_psnr in cells:
        for m in ("BADMM", "BPGD"):
            if m not in results or not results[m].get("history"):
                continue
            its, change = _batch_stop(results[m]["history"], n)
            stops.append((its, change))
            if results[m]["psnr"] < data_psnr:
                below.append(f"{label} {m} {results[m]['psnr']:.2f} < {data_psnr:.2f} dB")
    if not stops:
        return ""
    capped = [c for its, c in stops if its >= cap - 0.5]
    text = (f"Batch solvers (BADMM, BPGD): {len(capped)} of {len(stops)} runs stopped at the "
            f"iteration cap ({cap}) rather than at their tolerance (relative objective change "
            f"{tol:g} per iteration)")
    if capped:
        text += (f"; their last change per iteration was {min(capped):.1e} to "
                 f"{max(capped):.1e}, so they are references not run to convergence")
    text += "; PSNR of a batch solver below the contaminated input's own: " + (
        "; ".join(below) if below else "none") + "."
    return text


#: the head of the note on where a kept result's batch solvers stop (:func:`_batch_rerun_note`)
BATCH_RERUN_HEAD = "Where the batch solvers stop"


def _batch_stop_piece(X, k, seed, solver: str, cap: int,
                      dict_penalty: str = BATCH_DICT_PENALTY, clean=None) -> dict:
    """One batch solver fitted again, untimed, as its run fitted it (:func:`_batch_fit`;
    another ``dict_penalty`` for BADMM), its objective recorded at every iteration: the
    iterations it ran, its last relative change (:func:`_batch_stop`: the change its
    tolerance reads), its objective path, its seconds and, with the clean samples ``clean``,
    the PSNR of its low-rank part as the tables score it."""
    t0 = time.perf_counter()
    fit = _batch_fit(X, k, seed, solver, cap, checkpoints=cap, dict_penalty=dict_penalty)
    its, change = _batch_stop(fit.history, X.shape[0])
    out = dict(iterations=its, change=change,
               objective=np.asarray(fit.history["objective"], float),
               seconds=time.perf_counter() - t0)
    if clean is not None:
        out["psnr"] = _psnr(fit.codes @ fit.components, clean)
    return out


#: the head of the note on BADMM with its dictionary penalty on the per-sample scale
BADMM_MEAN_HEAD = "BADMM with its dictionary penalty on the per-sample scale"


def _badmm_mean_note(where: str, printed: dict | None, mean: dict, cap: int,
                     psnrs: dict | None = None) -> str:
    """BADMM fitted with ρ̃₃ = N·ρ (``mean``, :func:`_batch_stop_piece` with
    ``dict_penalty="mean"``) beside it as the runs fit it, ρ̃₃ = ρ on the summed objective
    (footnote 11 read literally; ``printed``, the same kind of piece, or None). Read before
    either was computed: where the printed penalty's objective ends above its lowest value and the
    per-sample penalty's ends at its lowest, the penalty's scale accounts for BADMM's rise;
    with ``psnrs`` (the run's PSNRs by method, the contaminated input's under
    "(contaminated data)"), where BADMM's PSNR as run is below the input's and the
    per-sample penalty's is above it, the scale accounts for that too."""
    def stop(s):
        return f"{_stop_words(s, cap)}; {_batch_path_text(s)}"

    text = (f"{where}{BADMM_MEAN_HEAD} (ρ̃₃ = N·ρ, this implementation's choice: it weighs "
            "against HᵀH/N as the online update (S-5) weighs ρ̃₃ against the averaged A_t; the "
            "runs here read footnote 11's 'the same values' literally, ρ̃₃ = ρ against the sum "
            "HᵀH), fitted again untimed from the run's W₀: it stops "
            f"{stop(mean)} ({mean['seconds']:.0f} s)")
    if printed is not None:
        text += (f"; as the runs fit it, it stops {stop(printed)}; the per-sample fit's final "
                 f"objective is {mean['objective'][-1] / printed['objective'][-1]:.3g}× the "
                 "runs' reading's")
        if min(mean["iterations"], printed["iterations"]) >= cap - 0.5:
            text += (" (both stop at the cap, and an iteration runs the same operations under "
                     "either penalty, so BADMM's time to the cap, which the batch time claims "
                     "read, does not turn on the penalty's scale)")
    reading = []
    if printed is not None:
        rose = printed["objective"][-1] > printed["objective"].min() * 1.01
        settles = mean["objective"][-1] <= mean["objective"].min() * 1.01
        if not rose:  # the reading is made for a rise: it has nothing to read here
            reading.append("the runs' reading ends at its lowest value: this reading, made "
                           "for an objective that ends above its lowest, cannot say whether "
                           "the penalty's scale accounts for BADMM's path")
        else:
            reading.append(
                "the runs' reading ends above its lowest value and the per-sample one at its "
                "lowest: in this refit the penalty's scale accounts for BADMM's rise"
                if settles else
                "the per-sample one does not end at its lowest either: the scale does not "
                "account for BADMM's rise")
    if psnrs is not None and "psnr" in mean:
        data = psnrs["(contaminated data)"]
        others = ", ".join(f"{m} {psnrs[m]:.2f}" for m in ("BPGD", "OADMM", "OPGD")
                           if m in psnrs)
        text += (f". PSNR (its final dictionary's codes, as the tables' first PSNR column): "
                 f"{mean['psnr']:.2f} dB, against BADMM's {psnrs['BADMM']:.2f} as run, "
                 f"{others} and the contaminated input's {data:.2f}")
        if psnrs["BADMM"] < data:
            reading.append(
                "BADMM's PSNR, below the input's as run, is above it on the per-sample "
                "scale: in this refit the penalty's scale accounts for that shortfall"
                if mean["psnr"] > data else
                "BADMM's PSNR stays below the input's on the per-sample scale too: the scale "
                "does not account for that shortfall")
    return text + (". So " + "; ".join(reading) if reading else "") + "."


def _stop_words(stop: dict, cap: int) -> str:
    """Where a batch solver stopped (``stop``: :func:`_batch_stop_piece`), at ``cap`` or at
    its tolerance, in words."""
    where = "at the cap" if stop["iterations"] >= cap - 0.5 else "at the tolerance"
    return f"{where} after {stop['iterations']:.0f} iterations"


def _batch_path_text(stop: dict) -> str:
    """How a batch solver's objective went (``stop``: :func:`_batch_stop_piece`): at its
    first iteration, at 90% of its iterations and at its last, with its highest value where
    that is above the first and its lowest where that is not the last (ADMM's objective,
    read at its feasible iterates, need not fall)."""
    obj = stop["objective"]
    at = np.asarray(stop.get("at", np.arange(1, obj.size + 1)), float)  # iteration per record
    low, high = int(np.argmin(obj)), int(np.argmax(obj))
    first = "its first iteration" if at[0] == 1 else f"iteration {at[0]:.0f}"
    late = min(int(np.searchsorted(at, 0.9 * at[-1])), obj.size - 1)
    text = (f"its objective {obj[0]:.4g} at {first}, "
            + (f"{obj[late]:.4g} at iteration {at[late]:.0f}, " if late < obj.size - 1 else "")
            + f"{obj[-1]:.4g} at its last")
    if obj[high] > obj[0] * 1.01 and high < obj.size - 1:
        text += f", highest {obj[high]:.4g} at iteration {at[high]:.0f}"
    if low < obj.size - 1:
        text += f", lowest {obj[low]:.4g} at iteration {at[low]:.0f}"
    return text


def _badmm_mean_reading(ctx: Context, key: str, where: str, stream, k: int, cap: int,
                        clean=None, psnrs: dict | None = None, printed: dict | None = None
                        ) -> str | None:
    """:func:`_badmm_mean_note` from the piece ``KEY-badmm-meanCAP`` (BADMM with ρ̃₃ = N·ρ on
    the stream ``stream()``, scored against ``clean()`` where given) beside ``printed`` or
    else the piece of BADMM as the runs fit it (:func:`_batch_rerun_note`'s); None without
    the first piece."""
    try:
        mean = ctx.memo(f"{key}-badmm-mean{cap}", lambda: _batch_stop_piece(
            stream(), k, ctx.seed, "admm", cap, dict_penalty="mean",
            clean=None if clean is None else clean()))
    except PieceMissing:
        return None
    if printed is None:
        try:
            printed = ctx.memo(f"{key}-batch-path{cap}-BADMM", lambda: _batch_stop_piece(
                stream(), k, ctx.seed, "admm", cap))
        except PieceMissing:
            pass
    return _badmm_mean_note(where, printed, mean, cap, psnrs)


def _batch_rerun_note(ctx: Context, key: str, where: str, stream, k: int,
                      cap: int) -> str | None:
    """Where a kept result's batch solvers stop, for a result that did not keep their
    objective histories: each solver fitted again untimed (:func:`_batch_stop_piece`, a piece
    per solver under ``key``) from the stream ``stream()``, or None if no piece is kept. A
    cap reached before the tolerance makes the solver a reference not run to convergence,
    which the batch claims' times include."""
    stops = {}
    for m, solver in BATCH_SOLVERS.items():
        try:
            stops[m] = ctx.memo(f"{key}-batch-path{cap}-{m}", lambda solver=solver:
                                _batch_stop_piece(stream(), k, ctx.seed, solver, cap))
        except PieceMissing:
            pass
    if not stops:
        return None
    parts = [f"{m} stops {_stop_words(s, cap)}, its last relative change {s['change']:.1e} "
             f"per iteration; {_batch_path_text(s)} ({s['seconds']:.0f} s)"
             for m, s in stops.items()]
    return (f"{where}{BATCH_RERUN_HEAD} (each fitted again, untimed, at this report's code, "
            f"from the run's W₀, to a relative change of {BATCH_TOL:g} per iteration or "
            f"{cap} iterations; the run kept no objective history): " + ". ".join(parts)
            + ". A solver stopped at the cap is a reference not run to convergence, and the "
            "batch time claims time it to that cap.")


#: the notes a kept result without batch histories reads from its batch pieces: (the note's
#: head, its reading)
BATCH_READINGS = ((BATCH_RERUN_HEAD, _batch_rerun_note), (BADMM_MEAN_HEAD, _badmm_mean_reading))


#: "greatly outperform": at least this many dB
PSNR_GREATLY = 3.0


def _psnr_order_claim(results: dict, what: str, place: str) -> list:
    """Table I(a)'s ordering, on the paper's PSNR (eq. (48), the codes stored during the
    pass, for the online methods): each of "our online algorithms" (OADMM and OPGD) at least
    :data:`PSNR_GREATLY` dB above ONMF ("greatly") and above ORPCA beyond :data:`PSNR_TIE`
    ("slightly"). The batch leg ("only slightly underperform their batch counterparts") is
    reported, not judged: the batch solvers stop at an iteration cap before their
    tolerance, and BADMM's PSNR turns on its dictionary penalty's scale, which the paper
    leaves open."""
    ps = {m: r.get("psnr_stored", r["psnr"]) for m, r in results.items()}
    ours = [m for m in ("OADMM", "OPGD") if m in ps]
    holds = [c for m in ours for c in (ps[m] - ps[ONMF] >= PSNR_GREATLY,
                                        ps[m] > ps["ORPCA"] + PSNR_TIE)]
    # a leg reversed beyond the tie (ours below the method it should outperform) is the
    # paper's ordering turned round, which no count of other legs makes 'partly'
    reversed_ = sum(ps[m] < ps[o] - PSNR_TIE for m in ours for o in (ONMF, "ORPCA"))
    verdict, band = count_band(sum(holds), len(holds))
    if reversed_:
        verdict = NOT_REPRODUCED
    return claim(what, "\"our online algorithms only slightly underperform their batch "
                       "counterparts, but slightly outperform ORPCA and greatly outperform "
                       f"ONMF\" (§VII-F, {place})",
                 "eq. (48) online, eq. (47) batch: "
                 + ", ".join(f"{m} {v:.1f}" for m, v in ps.items())
                 + (f" ({reversed_} of the {len(holds)} orderings reversed beyond the tie)"
                    if reversed_ else ""),
                 verdict, band + "; not reproduced if any ordering is reversed beyond the tie",
                 why=f"two orderings for each of the paper's online algorithms "
                     f"({' and '.join(ours)}): at least {PSNR_GREATLY:g} dB above ONMF "
                     f"('greatly'), above ORPCA by more than the tie margin {PSNR_TIE:g} dB "
                     "('slightly outperform', a margin below the paper's own smallest gap, "
                     "0.10 dB); the batch leg is not judged, its solvers stopping at an "
                     "iteration cap (see the note on their last change) and BADMM's side of "
                     "it turning on the scale of its dictionary penalty, which the paper "
                     "leaves open (see the note on BADMM with the per-sample penalty, on "
                     "Table I's cell); an online method "
                     "below ORPCA or ONMF beyond the tie reverses the paper's order, which "
                     "the other legs cannot make 'partly'")


def _orpca_tau_psnr(clean, X, k: int, seed, tau: int = 5) -> dict:
    """One untimed pass of ORPCA with the online methods' mini-batch size ``tau`` (the
    paper's comparison, §VII-D2), seeded as the runs are: its PSNR with W_N's codes and with
    the codes stored during the pass (eq. (48)), and its seconds."""
    r = run_methods(X, k, tau=tau, seed=seed, batch_iter=0, which=("orpca",),
                    clean=clean)["ORPCA"]
    return {"psnr": _psnr(r["low"], clean), "psnr_stored": r["psnr_stored"],
            "time": r["time"], "batch_size": tau}


def _orpca_tau_psnr_note(where: str, tau_run: dict, results: dict) -> str:
    """The PSNR ordering read again with ORPCA at the online methods' τ (``tau_run``, from
    :func:`_orpca_tau_psnr`) in place of the kept ORPCA that updated its basis after every
    sample: both ORPCAs' PSNRs, and what the ordering's band would read."""
    kept = results["ORPCA"]
    swapped = {**results, "ORPCA": tau_run}
    row = _psnr_order_claim(swapped, "", "")
    mine = {m: results[m].get("psnr_stored", results[m]["psnr"]) for m in ("OADMM", "OPGD")}
    return (f"{where}ORPCA at the online methods' τ = {tau_run['batch_size']} (the paper's "
            "comparison; one untimed pass): PSNR (eq. (48), stored codes) "
            f"{tau_run['psnr_stored']:.2f} dB, {tau_run['psnr']:.2f} with W_N's codes, against "
            f"{kept.get('psnr_stored', kept['psnr']):.2f} for the ORPCA kept, which updated its "
            "basis after every sample; OADMM " + f"{mine['OADMM']:.2f}, OPGD {mine['OPGD']:.2f}. "
            f"With it in the kept ORPCA's place the ordering's band would read '{row[3]}'. A "
            "second reading beside the claim, which reads the ORPCA kept.")


def _caps_psnr(clean, X, k: int, seed, mult: int = 10) -> dict:
    """One untimed pass of OADMM and of OPGD over X with the inner solves' iteration caps
    (code_max_iter, dict_max_iter) ``mult`` times the paper's, seeded as the runs are: each
    one's PSNR with W_N's codes and with the stored codes (eq. (48)), and its seconds. Do
    the paper's caps hold the online methods below ORPCA?"""
    out = {}
    for name in ("OADMM", "OPGD"):
        est, tracker, seconds = _one_pass(clean, X, k, seed, name, mult)
        out[name] = (_psnr(est.decompose(X)[0], clean), tracker.psnr(), seconds)
    return out


def _verdicts_tail(verdicts: list) -> str:
    """The end of a diagnosis note: its verdicts after a full stop, or the full stop."""
    return ". " + "; ".join(verdicts) + "." if verdicts else "."


def _one_pass(clean, X, k: int, seed, name: str, mult: int = 1, lam="auto",
              **solver) -> tuple:
    """One untimed pass of the online method ``name`` (a key of :data:`ONLINE`) over X at
    the paper's settings, its inner solves' caps ``mult`` times the paper's, ``solver``'s
    other :class:`RobustSolver` settings and λ = ``lam`` ("auto": the paper's 1/√F), with
    the clean samples' measure of eq. (46) kept beside it: the fitted estimator, that
    measure and the pass's seconds without it."""
    tracker = CleanRegret(clean)
    t0 = time.perf_counter()
    est = paper_pass(X, k, seed, scaled_caps(RobustSolver(ONLINE[name], **solver), mult),
                     lam=lam, callback=tracker)
    return est, tracker, time.perf_counter() - t0 - tracker.seconds


def _clean_stream(clean, k: int, seed) -> dict:
    """OADMM and OPGD over the outlier-free stream (the clean samples, in the contaminated
    stream's order; one untimed pass each at the paper's settings): each one's PSNR with
    W_N's codes and with the stored codes (eq. (48)), and the share of the clean samples'
    energy its outlier estimates take (W_N's codes), where the data hold no outlier."""
    out = {}
    for name in ("OADMM", "OPGD"):
        est, tracker, _ = _one_pass(clean, clean, k, seed, name)
        low, R = est.decompose(clean)
        out[name] = (_psnr(low, clean), tracker.psnr(),
                     float(np.sum(R ** 2) / np.sum(clean ** 2)))
    return out


#: the dictionary solve's tolerance in :func:`_dict_solve_psnr` (the paper's is 1e-4)
DICT_TOL = 1e-8
#: fewer dictionary iterations per step than this at :data:`DICT_TOL` leave the solve about
#: where the paper's tolerance stops it, so :func:`_dict_solve_note` does not read that run
UNTESTED_DICT_ITERATIONS = 2.0


def _dict_solve_psnr(clean, X, k: int, seed) -> dict:
    """OADMM and OPGD over the contaminated stream X with the dictionary's solve run to a
    relative change of :data:`DICT_TOL` (its cap as the paper's), everything else the
    paper's (one untimed pass each): each one's PSNR with W_N's codes and with the stored
    codes (eq. (48)), the dictionary solve's mean iterations per step and the pass's
    seconds."""
    out = {}
    for name in ("OADMM", "OPGD"):
        est, tracker, seconds = _one_pass(clean, X, k, seed, name, dict_tol=DICT_TOL)
        out[name] = (_psnr(est.decompose(X)[0], clean), tracker.psnr(),
                     est.inner_["dict_iterations"], seconds)
    return out


def _dict_solve_note(k: int, runs: dict, results: dict, nmf: float | None) -> str:
    """:func:`_dict_solve_psnr` beside the runs at the paper's tolerance and, where it is
    kept, the batch NMF of the clean faces (``nmf``, dB). Read before the runs: a method
    whose fit closes at least half of its shortfall below the NMF fit falls short at the
    paper's settings because its dictionary solve stops early; one that closes less does not
    fall short for that reason.

    A run whose solve still takes fewer than :data:`UNTESTED_DICT_ITERATIONS` iterations
    per step has not been run further than the paper's tolerance runs it, and is not read.
    """
    parts, verdicts = [], []
    for m, (wn, stored, its, seconds) in runs.items():
        mixed = results[m].get("psnr_stored", results[m]["psnr"])
        text = (f"{m}: {stored:.2f} dB (stored codes; {wn:.2f} with W_N's codes) against "
                f"{mixed:.2f} at the paper's tolerance, {its:.1f} dictionary iterations per "
                f"step, {seconds:.0f} s")
        closed, share = _shortfall_closed(stored, mixed, nmf)
        if its < UNTESTED_DICT_ITERATIONS:  # the tolerance did not run the solve further
            verdicts.append(f"{m}: its dictionary solve still stops after about one iteration "
                            "per step, so the run does not test it")
        elif closed is not None:
            verdicts.append(f"{m}: its dictionary solve's early stop accounts for most of its "
                            "shortfall" if closed >= 0.5 else
                            f"{m}: its dictionary solve's early stop does not account for "
                            "most of its shortfall")
        parts.append(text + share)
    return (f"K = {k}, setting 1, OADMM and OPGD with the dictionary's solve run to a "
            f"relative change of {DICT_TOL:g} (the paper's tolerance: 1e-4; everything else "
            "the paper's; one untimed pass each)"
            + (f", beside the batch NMF of the clean faces ({nmf:.2f} dB)" if nmf is not None
               else "") + ": " + "; ".join(parts)
            + _verdicts_tail(verdicts))


#: an atom counts as used when its exact nonnegative code is nonzero on this share of faces
USED_SHARE = 0.01


def _dictionary_fit(faces, results: dict) -> dict:
    """How well each online method's final dictionary (``results[m]["atoms"]``, K×F) can
    reconstruct the clean faces (rows of ``faces``) with the best codes for it, apart from
    the codes its own solve found: each face's exact nonnegative least-squares code on the
    atoms (scipy's NNLS; for OADMM and OPGD), the PSNR of that
    reconstruction (eq. (48)) and the atoms whose code is nonzero on at least
    :data:`USED_SHARE` of the faces; and, for every method, the PSNR of the faces projected
    onto the atoms' span (unconstrained codes, as ORPCA's are)."""
    from scipy.optimize import nnls

    out = {}
    for m in ("OADMM", "OPGD", "ORPCA"):
        W = np.asarray(results[m]["atoms"], dtype=float)
        span = np.linalg.lstsq(W.T, faces.T, rcond=None)[0].T @ W
        fit = {"span": _psnr(span, faces)}
        if m != "ORPCA":
            H = np.array([nnls(W.T, v)[0] for v in faces])
            fit["nnls"] = _psnr(H @ W, faces)
            fit["used"] = int(np.sum(np.mean(H > 0, axis=0) >= USED_SHARE))
        out[m] = fit
    return out


def _dictionary_fit_note(k: int, fits: dict, results: dict, nmf: float | None) -> str:
    """:func:`_dictionary_fit` beside each method's PSNR as run (stored codes) and, where
    it is kept, the batch NMF of the clean faces (``nmf``, dB). Read before it was
    computed: an online method whose dictionary, with exact nonnegative codes, closes at
    least half of its shortfall below the NMF fit falls short mostly through its codes (the
    robust code solve as the paper runs it), its dictionary being good; one that closes less
    falls short mostly through its dictionary. ORPCA's span is given beside its PSNR."""
    parts, verdicts = [], []
    for m in ("OADMM", "OPGD"):
        f, as_run = fits[m], results[m].get("psnr_stored", results[m]["psnr"])
        closed, share = _shortfall_closed(f["nnls"], as_run, nmf)
        parts.append(f"{m}: {f['nnls']:.2f} dB with exact nonnegative codes against {as_run:.2f} "
                     f"as run{share}; {f['used']} of {k} atoms used; its span "
                     f"{f['span']:.2f} dB")
        if closed is not None:
            verdicts.append(f"{m}: its codes account for most of its shortfall"
                            if closed >= 0.5 else
                            f"{m}: its dictionary accounts for most of its shortfall")
    orpca = results["ORPCA"].get("psnr_stored", results["ORPCA"]["psnr"])
    parts.append(f"ORPCA: its span {fits['ORPCA']['span']:.2f} dB against {orpca:.2f} as run")
    return (f"K = {k}, setting 1, each final dictionary with the best codes for it on the "
            "clean faces (exact nonnegative least squares per face; an atom used if its code "
            f"is nonzero on at least {USED_SHARE:.0%} of the faces; the span: unconstrained "
            "codes)" + (f", beside the batch NMF of the clean faces ({nmf:.2f} dB)"
                        if nmf is not None else "") + ": " + "; ".join(parts)
            + _verdicts_tail(verdicts))


#: passes of :func:`_passes_psnr`, and the share of the stream's rows it scores after each
MORE_PASSES, SCORED_SHARE = 4, 0.1


def _passes_psnr(clean, X, k: int, seed, name: str, passes: int = MORE_PASSES) -> list:
    """The online method ``name`` over ``passes`` passes of the contaminated stream
    X, everything else the paper's (its first pass as the run's, over the rows shuffled;
    then further passes over the rows in their stored order, each continuing the last;
    untimed): after each pass, the PSNR with W_N's codes (eq. (48)) over the stream's first
    :data:`SCORED_SHARE` of rows (in their stored order)."""
    est = _one_pass(clean, X, k, seed, name)[0]
    est.set_params(callback=None)  # the clean-data measure is not read past the first pass
    rows = slice(0, max(1, int(SCORED_SHARE * X.shape[0])))
    out = [_psnr(est.decompose(X[rows])[0], clean[rows])]
    for _ in range(passes - 1):
        est.partial_fit(X)
        out.append(_psnr(est.decompose(X[rows])[0], clean[rows]))
    return out


def _passes_note(k: int, runs: dict, nmf: float | None) -> str:
    """:func:`_passes_psnr` of each method in ``runs`` beside, where it is kept, the batch
    NMF of the clean faces (``nmf``, dB). Read before the runs: a method that by its last
    pass closes at least half of its first pass's shortfall below the NMF fit falls short at
    the paper's settings for want of passes (the paper's single pass); one that closes less
    does not reach the NMF fit with a few more passes either."""
    parts, verdicts = [], []
    for m, psnr in runs.items():
        closed, share = _shortfall_closed(psnr[-1], psnr[0], nmf)
        parts.append(f"{m}: " + " → ".join(f"{v:.2f}" for v in psnr) + " dB" + share)
        if closed is not None:
            verdicts.append(f"{m}: the single pass accounts for most of its shortfall"
                            if closed >= 0.5 else
                            f"{m}: {len(psnr)} passes do not close most of its shortfall")
    return (f"K = {k}, setting 1, the online methods over {MORE_PASSES} passes of the stream "
            "(the paper's settings; the first pass over the rows shuffled, as the run's, the "
            "others over them in their stored order, each continuing the last; PSNR with "
            f"W_N's codes on the stream's first {SCORED_SHARE:.0%} of rows "
            "after each pass; one untimed run each)"
            + (f", beside the batch NMF of the clean faces ({nmf:.2f} dB)" if nmf is not None
               else "") + ": " + "; ".join(parts)
            + _verdicts_tail(verdicts))


#: shares of the stream after which :func:`_passes_from` scores the dictionary (each at the
#: step nearest it), and the part of a piece's key that names them
WARM_READS = (0.001, 0.01, 0.1, 1.0)
READS_KEY = "reads" + "-".join(f"{share:g}" for share in WARM_READS)


def _passes_from(clean, X, k: int, seed, starts: dict, results: dict) -> dict:
    """OADMM and OPGD over the contaminated stream X from given starts (``starts``: method
    → W₀, K × F, on C; :func:`started_from`): one untimed pass each, the rows in their
    stored order, everything the paper's but the start, with the surrogate's statistics
    empty as at any start. For
    each method, scored by its own code solve (eq. (48) with the scored dictionary's codes)
    on the stream's first :data:`SCORED_SHARE` of rows: the start (``"start"``), the
    dictionary after each share of the stream in :data:`WARM_READS` (``"reads"``) and the
    method's own run from the uniform W₀ (``"uniform"``, ``results[m]["atoms"]``: the kept
    run, whose fit shuffled the rows, another random order of the same rows) on the same
    rows."""
    rows = slice(0, max(1, int(SCORED_SHARE * X.shape[0])))
    steps = -(-X.shape[0] // 5)  # τ = 5: the pass's mini-batches
    at: dict = {}  # step → the shares read after it (a short stream may merge two)
    for share in WARM_READS:
        at.setdefault(max(1, round(share * steps)), []).append(share)
    out = {}
    for name, start in starts.items():
        kept, count = {}, [0]

        def keep(info, kept=kept, count=count):
            count[0] += 1
            for share in at.get(count[0], ()):
                kept[share] = np.array(info["components"])
        est = started_from(OnlineRobustNMF, start)(
            k, solver=RobustSolver(ONLINE[name]), batch_size=5, scale=None, settings="paper",
            callback=keep, random_state=seed).partial_fit(X)

        def score(D, est=est):
            est.components_ = np.ascontiguousarray(D, dtype=X.dtype)
            return _psnr(est.decompose(X[rows])[0], clean[rows])
        out[name] = {"start": score(start),
                     "reads": [(share, score(kept[share])) for share in WARM_READS],
                     "uniform": score(results[name]["atoms"])}
    return out


def _warm_start_psnr(faces, clean, X, k: int, seed, results: dict) -> dict:
    """:func:`_passes_from` the batch NMF fit of the clean ``faces`` (:func:`ceiling_psnr`'s,
    its atoms projected onto C) in place of the uniform W₀, for OADMM and OPGD."""
    start = project_nonneg_l2_ball(clean_nmf(faces, k, seed)[1].components_)
    return _passes_from(clean, X, k, seed, {"OADMM": start, "OPGD": start}, results)


def _data_start_psnr(clean, X, k: int, seed, results: dict) -> dict:
    """:func:`_passes_from` the stream's first K rows as the algorithm sees them (with
    their outliers, projected onto C) in place of the uniform W₀, for OADMM and OPGD: the
    start online dictionary learning often takes from the data."""
    start = project_nonneg_l2_ball(np.array(X[:k], dtype=float))
    return _passes_from(clean, X, k, seed, {"OADMM": start, "OPGD": start}, results)


#: the share of each atom's entries drawn nonzero in :func:`_sparse_start_psnr`
SPARSE_SHARE = 0.1


def sparse_start(k: int, n_features: int, seed) -> np.ndarray:
    """K random atoms on C whose entries are U[0, 1] on a random :data:`SPARSE_SHARE` of
    the pixels (at least one per atom) and 0 elsewhere: atoms far from alike, where the
    uniform W₀'s atoms all point near the all-ones direction, and unlike any face."""
    rng = np.random.default_rng([seed, k, 7])
    D = rng.random((k, n_features)) * (rng.random((k, n_features)) < SPARSE_SHARE)
    D[np.arange(k), rng.integers(n_features, size=k)] = rng.random(k) + 0.5  # never empty
    return project_nonneg_l2_ball(D)


def _sparse_start_psnr(clean, X, k: int, seed, results: dict) -> dict:
    """:func:`_passes_from` :func:`sparse_start`'s atoms in place of the uniform W₀, for
    OADMM and OPGD."""
    start = sparse_start(k, X.shape[1], seed)
    return _passes_from(clean, X, k, seed, {"OADMM": start, "OPGD": start}, results)


def _restart_psnr(clean, X, k: int, seed, results: dict) -> dict:
    """:func:`_passes_from` each method's own final dictionary from the uniform W₀ (its
    run's ``results[m]["atoms"]``), the statistics of that run emptied: one more pass."""
    return _passes_from(clean, X, k, seed, {m: results[m]["atoms"] for m in ("OADMM", "OPGD")},
                        results)


def _from_start_part(m: str, r: dict, top: float | None = None) -> str:
    """One method's pass of :func:`_passes_from` in words: its start, its reads and its run
    from the uniform W₀ (and ``top``, where its pass from the NMF fit ends, if given)."""
    reads = ", ".join(f"{share:.1%} {v:.2f}" for share, v in r["reads"])
    return (f"{m}: from {r['start']:.2f} dB at the start to {reads} of the stream, against "
            f"{r['uniform']:.2f} from the uniform W₀"
            + ("" if top is None else f" and {top:.2f} from the NMF fit"))


def _from_start_note(k: int, what: str, parts: list, verdicts: list) -> str:
    """The note of passes from a start: ``what`` the start is, then each method's part and
    the verdicts."""
    return (f"K = {k}, setting 1, OADMM and OPGD over the contaminated stream {what} (the "
            "statistics empty as at any start; one untimed pass each, the rows in their "
            "stored order, the paper's settings otherwise); PSNR with the scored dictionary's "
            f"codes on the stream's first {SCORED_SHARE:.0%} of rows, after each share of the "
            "stream: " + "; ".join(parts)
            + _verdicts_tail(verdicts))


def _warm_start_note(k: int, warm: dict) -> str:
    """:func:`_warm_start_psnr` in words. Read before the runs: where a method's pass from
    the NMF fit's dictionary ends holding at least half of that start's lead over its own
    run from the uniform W₀ (both scored alike), its update keeps a better dictionary where
    it is given one, so its shortfall lies in where the pass leads from the paper's start;
    where it holds less, the update itself, at the paper's settings, draws a better
    dictionary down towards its own level, so the shortfall lies in the update, not in the
    start. A start not above the method's own run by more than the PSNR tie is not read. A
    share above 100% is a pass that ends above its start."""
    parts, verdicts = [], []
    for m, w in warm.items():
        held, _ = _shortfall_closed(w["reads"][-1][1], w["uniform"], w["start"])
        parts.append(_from_start_part(m, w) + (
            "" if held is None else f" ({held:.0%} of the start's lead held"
            + ("; it ends above its start)" if held > 1 else ")")))
        if held is None:
            continue
        verdicts.append(f"{m}: its update keeps most of a better start's lead, so its "
                        "shortfall lies in where the pass leads from the paper's start"
                        if held >= 0.5 else
                        f"{m}: its update draws a better start down towards its own level, "
                        "so its shortfall lies in the update at the paper's settings, not in "
                        "the start")
    return _from_start_note(k, "started from the batch NMF fit of the clean faces (its atoms "
                            "projected onto C) in place of the uniform W₀", parts, verdicts)


#: passes of :func:`_fresh_passes_psnr`, each from the last one's dictionary; the cap on
#: the passes of its run until they settle (a pass gaining less than the PSNR tie)
FRESH_PASSES, FRESH_CAP = 4, 10


def _fresh_passes_psnr(clean, X, k: int, seed, results: dict, names=("OADMM", "OPGD"),
                       passes: int = FRESH_PASSES, settle: bool = False) -> dict:
    """The methods ``names`` over ``passes`` more passes of the contaminated stream X after
    their kept run from the uniform W₀, each pass started from the last one's dictionary
    with the statistics emptied (:func:`started_from`; the rows in their stored order, the
    paper's settings otherwise; untimed), or, with ``settle``, until a pass gains less than
    the PSNR tie (``passes`` then a cap): for each method, scored by its own code solve on
    the stream's first :data:`SCORED_SHARE` of rows, the kept run (``"uniform"``) and the
    dictionary after each pass (``"passes"``). The first of them is the restart of
    :func:`_restart_psnr`."""
    rows = slice(0, max(1, int(SCORED_SHARE * X.shape[0])))
    out = {}
    for name in names:
        D, scores = results[name]["atoms"], []
        for _ in range(passes):
            est = started_from(OnlineRobustNMF, D)(
                k, solver=RobustSolver(ONLINE[name]), batch_size=5, scale=None,
                settings="paper", random_state=seed).partial_fit(X)
            D = est.components_.copy()
            scores.append(_psnr(est.decompose(X[rows])[0], clean[rows]))
            if settle and len(scores) > 1 and scores[-1] - scores[-2] < PSNR_TIE:
                break
        est.components_ = np.ascontiguousarray(results[name]["atoms"], dtype=X.dtype)
        out[name] = {"uniform": _psnr(est.decompose(X[rows])[0], clean[rows]),
                     "passes": scores}
    return out


def _passes_part(m: str, r: dict) -> str:
    """A method's fresh passes (:func:`_fresh_passes_psnr`) in words: its kept run, then
    each pass."""
    return (f"{m}: {r['uniform']:.2f} dB after its kept run, then "
            + " → ".join(f"{v:.2f}" for v in r["passes"]))


def _way_up_text(top: float | None, share: float | None) -> str:
    """Where the pass from the NMF fit ends (``top``) and the share of the way up to it."""
    return (("" if top is None else f", against {top:.2f} from the NMF fit")
            + ("" if share is None else f" ({share:.0%} of the way up)"))


def _settled_passes_note(k: int, runs: dict, warm: dict | None) -> str:
    """:func:`_fresh_passes_psnr` run until the passes settle (``settle``, capped at
    :data:`FRESH_CAP`), beside the pass from the NMF fit (``warm``). Read before the runs:
    where a method's fresh passes settle (a pass gaining less than the PSNR tie) at least
    half of the way from its kept run up to where its pass from the NMF fit ends, the
    running-mean statistics account for most of its shortfall; where they settle lower, they
    do not; where they have not settled by the cap, the reading is left open."""
    parts, verdicts = [], []
    for m, r in runs.items():
        top = None if warm is None else warm[m]["reads"][-1][1]
        share, _ = _shortfall_closed(r["passes"][-1], r["uniform"], top)
        settled = len(r["passes"]) > 1 and r["passes"][-1] - r["passes"][-2] < PSNR_TIE
        parts.append(_passes_part(m, r)
                     + (f", a pass gaining less than the tie after {len(r['passes'])} passes"
                        if settled else f", still gaining at the cap of {len(r['passes'])} "
                        "passes") + _way_up_text(top, share))
        if share is None:
            continue
        verdicts.append(f"{m}: " + (
            "still gaining at the cap, so the reading is left open" if not settled else
            "the fresh passes slow below the tie at least half of the way up, so the "
            "running-mean statistics account for most of its shortfall (over those passes)"
            if share >= 0.5 else
            "the fresh passes slow below the tie less than half of the way up, so the "
            "running-mean statistics do not account for most of its shortfall"))
    return (f"K = {k}, setting 1, OADMM and OPGD over passes of the contaminated stream after "
            "their kept run, each started from the last one's dictionary with the statistics "
            f"emptied, until a pass gains less than {PSNR_TIE:g} dB (at most {FRESH_CAP}; the "
            "rows in their stored order, the paper's settings otherwise; untimed); PSNR with "
            f"each dictionary's codes on the stream's first {SCORED_SHARE:.0%} of rows after "
            "each pass: " + "; ".join(parts)
            + _verdicts_tail(verdicts))


def _continued_note(k: int, continued: dict, settled: dict, warm: dict) -> str:
    """The continued passes (:func:`_passes_psnr`, the statistics kept, as many passes after
    the first as the method's fresh passes in :func:`_settled_passes_note` took) beside
    those fresh passes and the pass from the NMF fit (``warm``), all scored alike. Read
    before the runs: where the continued passes climb less than half as far up as the fresh
    ones, emptying the statistics, not the extra passes, gives most of the fresh passes'
    climb; where they climb at least half as far, the extra passes give much of it."""
    parts, verdicts = [], []
    for m, cont in continued.items():
        top, fresh = warm[m]["reads"][-1][1], settled[m]
        kept, _ = _shortfall_closed(cont[-1], cont[0], top)
        emptied, _ = _shortfall_closed(fresh["passes"][-1], fresh["uniform"], top)
        parts.append(f"{m}: " + " → ".join(f"{v:.2f}" for v in cont) + " dB with the "
                     f"statistics kept over {len(cont) - 1} more passes"
                     + ("" if kept is None else f" ({kept:.0%} of the way up, against "
                        f"{emptied:.0%} for as many fresh passes)"))
        if kept is None or emptied is None or emptied <= 0:
            continue
        verdicts.append(f"{m}: " + (
            "the continued passes climb less than half as far as the fresh ones, so emptying "
            "the statistics, not the extra passes, gives most of the fresh passes' climb"
            if kept < emptied / 2 else
            "the continued passes climb at least half as far as the fresh ones, so the extra "
            "passes give much of the fresh passes' climb"))
    return (f"K = {k}, setting 1, the online methods over as many continued passes as their "
            "fresh passes took (the first pass over the rows shuffled, as the run's, the "
            "others over them in their stored order, each continuing the last with the "
            "statistics kept; PSNR with each dictionary's codes on the stream's first "
            f"{SCORED_SHARE:.0%} of rows after each pass; untimed): " + "; ".join(parts)
            + _verdicts_tail(verdicts))


def _fresh_passes_note(k: int, runs: dict, warm: dict | None) -> str:
    """:func:`_fresh_passes_psnr` in words, beside the pass from the NMF fit
    (:func:`_warm_start_psnr`'s ``warm``, where kept). Read before the runs: where a
    method's last pass ends at least half of the way from its kept run up to where its pass
    from the NMF fit ends (all scored alike), the running-mean statistics, which keep the
    codes of every earlier dictionary, account for most of its shortfall: emptied at each
    pass, the passes climb most of the way; where it ends lower, they do not account for
    most of it. Without the pass from the NMF fit, or where that pass does not end above the
    kept run by more than the PSNR tie, the numbers are given alone."""
    parts, verdicts = [], []
    for m, r in runs.items():
        top = None if warm is None else warm[m]["reads"][-1][1]
        share, _ = _shortfall_closed(r["passes"][-1], r["uniform"], top)
        parts.append(_passes_part(m, r) + _way_up_text(top, share))
        if share is not None:
            verdicts.append(f"{m}: " + (
                "emptied at each pass, the passes climb most of the way, so the running-mean "
                "statistics account for most of its shortfall" if share >= 0.5 else
                f"emptied at each of {len(r['passes'])} passes, the passes do not climb most "
                "of the way, so within these passes the running-mean statistics do not "
                "account for most of its shortfall"))
    return (f"K = {k}, setting 1, OADMM and OPGD over {FRESH_PASSES} more passes of the "
            "contaminated stream after their kept run, each pass started from the last one's "
            "dictionary with the statistics emptied (the rows in their stored order, the "
            "paper's settings otherwise; untimed); PSNR with each dictionary's codes on the "
            f"stream's first {SCORED_SHARE:.0%} of rows after each pass: " + "; ".join(parts)
            + _verdicts_tail(verdicts))


#: the starts :func:`_start_kind_note` reads: what the start is, and the two readings
START_KINDS = {
    "data": ("started from the stream's first K rows as the algorithm sees them (with their "
             "outliers, projected onto C) in place of the uniform W₀",
             "a start drawn from the data reaches most of the way, so the uniform W₀ itself "
             "accounts for most of its shortfall",
             "a start drawn from the data does not reach most of the way either, so the "
             "uniform W₀ does not account for most of its shortfall"),
    "sparse": ("started from sparse random atoms (U[0, 1] entries on a random "
               f"{SPARSE_SHARE:.0%} of the pixels, projected onto C: atoms far from alike and "
               "unlike any face) in place of the uniform W₀",
               "a start of atoms far from alike reaches most of the way, so the alike atoms "
               "of the uniform W₀ and of the faces account for most of its shortfall",
               "a start of atoms far from alike does not reach most of the way either, so "
               "how alike the start's atoms are does not account for most of its "
               "shortfall"),
    "restart": ("started again from its own final dictionary",
                "emptied of the first pass's statistics (the codes of its early dictionaries) "
                "its dictionary climbs most of the way, so those statistics hold it down",
                "emptied of the first pass's statistics its dictionary does not climb most of "
                "the way in one more pass, so those statistics do not account for most of "
                "its shortfall"),
}


def _start_kind_note(k: int, kind: str, runs: dict, warm: dict | None) -> str:
    """:func:`_data_start_psnr` (``kind="data"``), :func:`_sparse_start_psnr`
    (``"sparse"``) or :func:`_restart_psnr` (``"restart"``) in words, beside the pass from
    the NMF fit (:func:`_warm_start_psnr`'s ``warm``, where kept). Read before the runs:
    where a method's pass from this start ends at least half of the way from its run from
    the uniform W₀ up to where its pass from the NMF fit ends (all scored alike), the first
    reading of :data:`START_KINDS` holds; where it ends lower, the second. Without the pass
    from the NMF fit, or where that pass does not end above the uniform run by more than the
    PSNR tie, the numbers are given alone."""
    what, climbs, stays = START_KINDS[kind]
    parts, verdicts = [], []
    for m, r in runs.items():
        top = None if warm is None else warm[m]["reads"][-1][1]
        share, _ = _shortfall_closed(r["reads"][-1][1], r["uniform"], top)
        parts.append(_from_start_part(m, r, top)
                     + ("" if share is None else f" ({share:.0%} of the way up)"))
        if share is not None:
            verdicts.append(f"{m}: " + (climbs if share >= 0.5 else stays))
    return _from_start_note(k, what, parts, verdicts)


#: the code solve of :func:`_objective_at` (far past the paper's 50 iterations and 1e-3)
OBJECTIVE_CODES = (1000, 1e-7)


def _objective_at(faces, k: int, seed, results: dict) -> dict:
    """The paper's per-sample objective ℓ (eq. (5), λ = 1/√F) on the clean faces, and the
    PSNR (eq. (48)) of its low-rank part, at three dictionaries: OADMM's and OPGD's final
    ones (``results[m]["atoms"]``) and the batch NMF fit of :func:`ceiling_psnr` (its atoms
    projected onto C, their scale left to the codes). Each is scored by one estimator's code
    solve (OADMM's, run to :data:`OBJECTIVE_CODES`), so the three are coded alike."""
    nmf = clean_nmf(faces, k, seed)[1]
    cap, tol = OBJECTIVE_CODES
    est = paper_pass(faces[:5 * k], k, seed,  # only to build the coder
                     RobustSolver("admm", code_max_iter=cap, code_tol=tol))
    out = {}
    for name, D in (("OADMM", results["OADMM"]["atoms"]), ("OPGD", results["OPGD"]["atoms"]),
                    ("NMF fit", project_nonneg_l2_ball(nmf.components_))):
        est.components_ = np.ascontiguousarray(D, dtype=float)
        out[name] = (-est.score(faces), _psnr(est.decompose(faces)[0], faces))
    return out


def _objective_note(k: int, values: dict) -> str:
    """:func:`_objective_at` in words. Read before it was computed: where the NMF fit's
    dictionary reaches a lower value of the paper's own objective than an online method's
    final dictionary, that method stops at a worse point of its own objective than one that
    exists, so its shortfall is its fit's, not the objective's; where it does not, the
    objective itself may hold the method there."""
    nmf = values["NMF fit"][0]
    parts = [f"{m}: objective {v:.4g}, its low-rank part {p:.2f} dB" for m, (v, p) in
             values.items()]
    verdicts = [f"{m} stops at a worse point of its own objective than the NMF fit's "
                "dictionary, so its shortfall is its fit's, not the objective's"
                if values[m][0] > nmf else f"{m}'s dictionary is not worse than the NMF fit's "
                "on the objective, which may hold it there" for m in ("OADMM", "OPGD")]
    return (f"K = {k}, the paper's own objective (eq. (5), λ = 1/√F) on the clean faces at "
            "each dictionary, all coded alike (OADMM's code solve, run to "
            f"{OBJECTIVE_CODES[0]} iterations or a relative change of {OBJECTIVE_CODES[1]:g}): "
            + "; ".join(parts) + ". " + "; ".join(verdicts) + ".")


#: λ in :func:`_no_outlier_term`: above any residual of data in [0, 1], so r ≡ 0
NO_OUTLIER_LAM = 1e6


def _no_outlier_term(clean, k: int, seed) -> dict:
    """OADMM and OPGD over the outlier-free stream (as :func:`_clean_stream`) with the
    outlier term switched off (λ = :data:`NO_OUTLIER_LAM`, so every r is 0 and the code
    problem is nonnegative least squares, solved within the paper's caps), one untimed pass
    each from the paper's W₀, the paper's settings otherwise: each one's PSNR with W_N's
    codes and with the stored codes (eq. (48))."""
    out = {}
    for name in ("OADMM", "OPGD"):
        est, tracker, _ = _one_pass(clean, clean, k, seed, name, lam=NO_OUTLIER_LAM)
        out[name] = (_psnr(est.decompose(clean)[0], clean), tracker.psnr())
    return out


def _no_outlier_note(k: int, runs: dict, clean_runs: dict | None, nmf: float | None) -> str:
    """:func:`_no_outlier_term` beside the same passes with the paper's λ
    (:func:`_clean_stream`'s ``clean_runs``) and the batch NMF of the clean faces (``nmf``,
    dB), where kept. Read before the runs: where switching the outlier term off closes at
    least half of a method's shortfall below the NMF fit (W_N's codes, against its pass with
    the paper's λ), the outlier term, taking up the residuals of a dictionary still far
    from a good one, holds the pass down; where it closes less, the term does not account
    for most of the shortfall."""
    parts, verdicts = [], []
    for m, (wn, stored) in runs.items():
        text = f"{m}: {wn:.2f} dB with W_N's codes ({stored:.2f} stored)"
        if clean_runs is not None:
            with_term = clean_runs[m][0]
            closed, share = _shortfall_closed(wn, with_term, nmf)
            text += (f" against {with_term:.2f} with the paper's λ (each pass scored by its "
                     "own coder)" + share)
            if closed is not None:
                verdicts.append(f"{m}: the outlier term holds the pass down" if closed >= 0.5
                                else f"{m}: switching the outlier term off closes less than "
                                "half of its shortfall, so the term does not account for "
                                "most of it")
        parts.append(text)
    return (f"K = {k}, OADMM and OPGD over the outlier-free stream with the outlier term "
            f"switched off (λ = {NO_OUTLIER_LAM:g}, so r ≡ 0 and the code problem is "
            "nonnegative least squares, solved within the paper's caps; one untimed pass each "
            "from the paper's W₀, its settings "
            "otherwise)" + (f", beside the batch NMF of the clean faces ({nmf:.2f} dB)"
                            if nmf is not None else "") + ": " + "; ".join(parts)
            + _verdicts_tail(verdicts))


def _clean_stream_note(k: int, clean_runs: dict, results: dict, nmf: float | None) -> str:
    """:func:`_clean_stream` beside the contaminated runs and, where it is kept, the batch
    NMF of the clean faces (``nmf``, dB; :func:`ceiling_psnr`). Read before the runs: a
    clean pass that closes at least half of a method's shortfall below the NMF fit (its
    contaminated run's distance below it) says that the outliers account for most of that
    shortfall; one that closes less says that the pass falls short by itself at the paper's
    settings, so the outliers do not account for the online methods' place below ORPCA.
    Without the NMF fit, the two runs' PSNRs are given alone."""
    parts, verdicts = [], []
    for m, (wn, stored, energy) in clean_runs.items():
        mixed = results[m].get("psnr_stored", results[m]["psnr"])
        text = (f"{m}: {stored:.2f} dB (stored codes; {wn:.2f} with W_N's codes) against "
                f"{mixed:.2f} with the outliers; its outlier estimates take {energy:.1%} of the "
                "clean faces' energy")
        closed, share = _shortfall_closed(stored, mixed, nmf)
        if closed is not None:
            verdicts.append(f"{m}: the outliers account for most of its shortfall"
                            if closed >= 0.5 else
                            f"{m}: the pass falls short by itself, without outliers")
        parts.append(text + share)
    return (f"K = {k}, OADMM and OPGD over the outlier-free stream (the clean faces in the "
            "contaminated stream's order; one untimed pass each, the paper's settings)"
            + (f", beside the batch NMF of the clean faces ({nmf:.2f} dB)" if nmf is not None
               else "") + ": " + "; ".join(parts)
            + _verdicts_tail(verdicts))


def _caps_psnr_note(k: int, caps: dict, results: dict, mult: int = 10) -> str:
    """:func:`_caps_psnr` in words, beside the runs at the paper's caps and ORPCA: each
    method's PSNR both ways, the share of its gap to ORPCA the larger caps close, and its
    seconds with them."""
    orpca = results["ORPCA"].get("psnr_stored", results["ORPCA"]["psnr"])
    parts, behind = [], []
    for m, (wn, stored, seconds) in caps.items():
        at_caps = results[m].get("psnr_stored", results[m]["psnr"])
        gap = orpca - at_caps
        closed = (f", {(stored - at_caps) / gap:.0%} of its {gap:.1f} dB gap to ORPCA closed"
                  if gap > PSNR_TIE else "")
        parts.append(f"{m}: {stored:.2f} dB (stored codes; {wn:.2f} with W_N's codes) against "
                     f"{at_caps:.2f} at the caps{closed}, {seconds:.0f} s")
        if stored < orpca - PSNR_TIE:
            behind.append(m)
    below = [m for m in caps
             if results[m].get("psnr_stored", results[m]["psnr"]) < orpca - PSNR_TIE]
    if behind:
        verdict = (f"{' and '.join(behind)} {'stays' if len(behind) == 1 else 'stay'} below "
                   f"ORPCA with {mult} times the caps: the caps do not account for the whole gap")
    elif below:
        verdict = (f"{' and '.join(below)}, below ORPCA at the paper's caps, "
                   f"{'reaches' if len(below) == 1 else 'reach'} it with {mult} times them: "
                   "the caps hold the PSNR below ORPCA's")
    else:
        verdict = "no online method is below ORPCA, at either caps"
    return (f"K = {k}, setting 1, the online methods' inner solves with {mult} times the "
            f"paper's iteration caps (one untimed pass each): " + "; ".join(parts)
            + f"; ORPCA {orpca:.2f} dB: {verdict}.")


def _ordering_notes(ctx: Context, k: int, faces, results: dict, cell, main: bool) -> list:
    """The diagnoses of the PSNR ordering against ORPCA at K = k, setting 1 (one untimed
    piece each, each key naming its settings; a piece not kept leaves its note out): what a
    rank-K fit of the clean ``faces`` scores (:func:`ceiling_psnr`), each final dictionary
    with the best codes for it (:func:`_dictionary_fit`), the batch NMF from the paper's kind
    of start (:func:`uniform_start_psnr`) and the paper's objective in batch
    (:func:`robust_batch_psnr`), the paper's objective at the dictionaries
    (:func:`_objective_at`) and the online methods from the NMF fit
    (:func:`_warm_start_psnr`). At Table I's K (``main``), also the online methods over the
    outlier-free stream (with the paper's λ and with the outlier term off), over more
    passes, with the dictionary's solve run further, and from other starts: rows of the
    stream (:func:`_data_start_psnr`), sparse random atoms (:func:`_sparse_start_psnr`) and
    their own final dictionaries, once (:func:`_restart_psnr`) and pass after pass
    (:func:`_fresh_passes_psnr`). ``cell()`` gives the cell's clean and contaminated
    streams."""
    key, notes = f"zhao-tan-cbcl-{k}", []
    mine = {m: results[m].get("psnr_stored", results[m]["psnr"]) for m in ("OADMM", "OPGD")}

    def read(piece, compute, note):
        try:
            value = ctx.memo(f"{key}-{piece}", compute)
        except PieceMissing:
            return None
        notes.append(note(value))
        return value
    ceiling = read(f"ceiling{NMF_MAX_ITER}", lambda: ceiling_psnr(faces, k, ctx.seed),
                   lambda c: ceiling_note(f"K = {k}: ", c, {
                       **mine, "ORPCA": results["ORPCA"].get("psnr_stored",
                                                             results["ORPCA"]["psnr"])},
                       PSNR_TIE))
    nmf = None if ceiling is None else ceiling["nmf"]
    fits = read(f"dictionary-fit-used{USED_SHARE:g}", lambda: _dictionary_fit(faces, results),
                lambda f: _dictionary_fit_note(k, f, results, nmf))
    if nmf is not None and fits is not None:
        read(f"uniform-start{NMF_MAX_ITER}", lambda: uniform_start_psnr(faces, k, ctx.seed),
             lambda st: start_note(f"K = {k}: ", st, nmf,
                                   {m: fits[m]["nnls"] for m in ("OADMM", "OPGD")}))
    if nmf is not None:
        read(f"robust-batch{ROBUST_BATCH[0]}", lambda: robust_batch_psnr(faces, k, ctx.seed),
             lambda b: robust_batch_note(f"K = {k}: ", b, nmf, mine))
        # the same solve with BADMM's dictionary penalty on the per-sample scale, under
        # which it descends where footnote 11 read literally can rise
        read(f"robust-batch{ROBUST_BATCH[0]}-mean", lambda: robust_batch_psnr(
            faces, k, ctx.seed, dict_penalty="mean"),
             lambda b: robust_batch_note(f"K = {k}: ", b, nmf, mine, dict_penalty="mean"))
    read(f"objective-at{OBJECTIVE_CODES[0]}", lambda: _objective_at(faces, k, ctx.seed,
                                                                    results),
         lambda v: _objective_note(k, v))
    starts = f"rows{SCORED_SHARE:g}-{READS_KEY}"  # how every pass from a start is read
    warm = read(f"warm-start{NMF_MAX_ITER}-{starts}",
                lambda: _warm_start_psnr(faces, *cell(), k, ctx.seed, results),
                lambda w: _warm_start_note(k, w))
    if not main:
        return notes
    clean_runs = read("clean-stream", lambda: _clean_stream(cell()[0], k, ctx.seed),
                      lambda c: _clean_stream_note(k, c, results, nmf))
    read(f"no-outlier-term{NO_OUTLIER_LAM:g}",
         lambda: _no_outlier_term(cell()[0], k, ctx.seed),
         lambda r: _no_outlier_note(k, r, clean_runs, nmf))
    passes = {}
    for m in ("OADMM", "OPGD"):
        try:
            passes[m] = ctx.memo(f"{key}-passes{MORE_PASSES}-rows{SCORED_SHARE:g}-{m}",
                                 lambda m=m: _passes_psnr(*cell(), k, ctx.seed, m))
        except PieceMissing:
            pass
    if passes:
        notes.append(_passes_note(k, passes, nmf))
    read(f"dict-tol{DICT_TOL:g}", lambda: _dict_solve_psnr(*cell(), k, ctx.seed),
         lambda d: _dict_solve_note(k, d, results, nmf))
    read(f"data-start-{starts}",
         lambda: _data_start_psnr(*cell(), k, ctx.seed, results),
         lambda r: _start_kind_note(k, "data", r, warm))
    read(f"sparse-start{SPARSE_SHARE:g}-{starts}",
         lambda: _sparse_start_psnr(*cell(), k, ctx.seed, results),
         lambda r: _start_kind_note(k, "sparse", r, warm))
    read(f"restart-{starts}", lambda: _restart_psnr(*cell(), k, ctx.seed, results),
         lambda r: _start_kind_note(k, "restart", r, warm))
    read(f"fresh-passes{FRESH_PASSES}-rows{SCORED_SHARE:g}",
         lambda: _fresh_passes_psnr(*cell(), k, ctx.seed, results),
         lambda r: _fresh_passes_note(k, r, warm))
    settled = {}
    for m in ("OADMM", "OPGD"):
        try:
            settled[m] = ctx.memo(
                f"{key}-fresh-settled{FRESH_CAP}-tie{PSNR_TIE:g}-rows{SCORED_SHARE:g}-{m}",
                lambda m=m: _fresh_passes_psnr(*cell(), k, ctx.seed, results, names=(m,),
                                               passes=FRESH_CAP, settle=True)[m])
        except PieceMissing:
            pass
    if settled:
        notes.append(_settled_passes_note(k, settled, warm))
    continued = {}
    for m, fresh in settled.items():
        n = 1 + len(fresh["passes"])  # the first pass, then as many as the fresh ones took
        try:
            continued[m] = ctx.memo(f"{key}-passes{n}-rows{SCORED_SHARE:g}-{m}",
                                    lambda m=m, n=n: _passes_psnr(*cell(), k, ctx.seed, m,
                                                                  passes=n))
        except PieceMissing:
            pass
    if continued and warm is not None:
        notes.append(_continued_note(k, continued, settled, warm))
    return notes


@register("zhao-tan-cbcl", "001", "CBCL faces with outliers: PSNR and time (Tables I, IV, V) "
          "and basis images (Fig. 7)", departures=(
              "One initialization of W₀, where Tables I, IV and V average ten.",
              TIMING_DEPARTURE,
              "BADMM and BPGD stop at 300 iterations at the paper's scale (the paper gives no "
              "stopping rule), "
              "before their tolerance: the notes below give their last relative change and "
              "the cells where a batch solver ends below the contaminated input's PSNR.",
              *BASELINE_DEPARTURES))
def cbcl(ctx: Context) -> Result:
    path = find_data(ctx.data_dir, "cbcl_face", "CBCL_Face.mat")
    faces = load_cbcl(path).data if path else render_faces(8, 64, size=19, random_state=ctx.seed)[0]
    faces = faces / faces.max(axis=1, keepdims=True)
    p = ctx.pick(max(1, 1500 // faces.shape[0]), 50, tiny=1)
    settings = [(0.7, 0.1), (0.8, 0.2), (0.9, 0.3)] if not ctx.quick else [(0.7, 0.1)]
    ks = ctx.pick([49], [25, 49, 100], tiny=[6])
    k_main = ctx.pick(49, 49, tiny=6)  # Table I's K
    batch_iter = ctx.pick(150, 300, tiny=20)  # the batch solvers' cap (the paper gives none)
    if ctx.scale == "tiny":
        faces = faces[:100]
    res = Result()
    plt = pyplot()
    paper = {"OADMM": 11.37, "OPGD": 11.48, "BADMM": 11.53, "BPGD": 11.56,
             "ONMF (Guan et al.)": 5.99, "ORPCA": 11.25}

    def cell(k, si):
        """The clean and contaminated data of one (K, setting) cell."""
        nu, nut = settings[si]
        rng = np.random.default_rng([ctx.seed, k, si])
        clean = np.tile(faces, (p, 1))[rng.permutation(p * faces.shape[0])]
        return clean, contaminate(clean, nu, nut, rng)

    def setting(k, si):
        """One (K, setting) cell of Tables I, IV, V, without the N×F parts (a small piece)."""
        clean, X = cell(k, si)
        results = run_methods(X, k, tau=5, seed=ctx.seed,
                              batch_iter=batch_iter, clean=clean, timer=ctx.timed)
        out = {m: {**{key: v for key, v in r.items() if key not in ("low", "outliers")},
                   "psnr": _psnr(r["low"], clean)} for m, r in results.items()}
        out["(contaminated data)"] = {"psnr": _psnr(X, clean), "time": 0.0}
        return out

    rows, stopped, drift, badmm_mean = [], [], [], None
    online = {"OADMM": {}, "OPGD": {}}  # each online algorithm's f̃ history per (K, ν)
    for k in ks:
        for si, (nu, nut) in enumerate(settings):
            results = ctx.memo(f"zhao-tan-cbcl-{k}-{nu}", lambda k=k, si=si: setting(k, si))
            data_psnr = results.pop("(contaminated data)")["psnr"]
            rows.append([k, f"({nu}, {nut})", "(contaminated data)", f"{data_psnr:.2f}", "—",
                         "—", "—"])
            for m in online:
                online[m][(k, nu)] = results[m]["history"]
            stopped.append((f"K = {k}, ({nu}, {nut}):", results, data_psnr))
            if (k, si) == (k_main, 0) and "BADMM" in results:  # Table I's cell
                hist = results["BADMM"]["history"]
                n_rows = p * faces.shape[0]
                badmm_mean = _badmm_mean_reading(
                    ctx, f"zhao-tan-cbcl-{k}-{nu}", f"K = {k}, ({nu}, {nut}): ",
                    lambda k=k, si=si: cell(k, si)[1], k, batch_iter,
                    clean=lambda k=k, si=si: cell(k, si)[0],
                    psnrs={**{m: r["psnr"] for m, r in results.items()},
                           "(contaminated data)": data_psnr},
                    printed=dict(objective=np.asarray(hist["objective"], float),
                                 at=np.asarray(hist["n_samples"], float) / n_rows,
                                 iterations=hist["n_samples"][-1] / n_rows))
            if ONMF in results and "regret" in results[ONMF]:
                f_hat = np.asarray(results[ONMF]["regret"])[:, 1]
                drift.append(f"K = {k}, ({nu}, {nut}): {f_hat.min():.3g} → {f_hat[-1]:.3g} "
                             f"(stored-code PSNR {results[ONMF].get('psnr_stored', np.nan):.2f}"
                             " dB)")
            for m, r in results.items():
                rows.append([k, f"({nu}, {nut})", _method_label(m, r), f"{r['psnr']:.2f}",
                             f"{r['psnr_stored']:.2f}" if "psnr_stored" in r else "—",
                             _time_text(r), paper.get(m, "—") if (k, nu) == (k_main, 0.7)
                             else "—"])
            if nu == 0.7 and k != k_main and f"cbcl-{k}" in PAPER_TIMES:  # Tables IV–V
                table = {25: "IV(a)", 100: "IV(b)"}[k]
                res.claims.append(_psnr_order_claim(
                    results, f"K = {k}: PSNR ordering (Table {table})", "\"Similar results "
                    f"were observed when K=25 and K=100\", Table {table}; Table I(a)'s words"))
                _ratio_claims(res, results, f"cbcl-{k}", where=f"K = {k}: ",
                              orpca_times=_orpca_times(
                                  ctx, f"zhao-tan-cbcl-{k}-{nu}", results,
                                  lambda k=k, si=si: cell(k, si)[1], k))
            if nu == 0.7 and "batch_size" not in results.get("ORPCA", {"batch_size": 5}):
                try:  # an untimed piece: the ordering with ORPCA at the paper's τ
                    res.notes.append(_orpca_tau_psnr_note(f"K = {k}: ", ctx.memo(
                        f"zhao-tan-cbcl-{k}-orpca-tau-psnr", lambda k=k, si=si: _orpca_tau_psnr(
                            *cell(k, si), k, ctx.seed)), results))
                except PieceMissing:
                    pass
            if nu == 0.7 and ctx.scale != "quick":  # why ORPCA leads (untimed pieces)
                res.notes += _ordering_notes(ctx, k, faces, results,
                                             lambda k=k, si=si: cell(k, si), k == k_main)
            if nu == 0.7:  # the ORPCA time claims' other side: where OADMM's and OPGD's
                try:       # pass goes (an untimed piece)
                    res.notes.append(_inner_note(f"K = {k}, ({nu}, {nut}): ", ctx.memo(
                        f"zhao-tan-cbcl-inner-{k}", lambda k=k, si=si: _inner_split(
                            cell(k, si)[1], k, ctx.seed))))
                except PieceMissing:
                    pass
                # and what ORPCA's own code solves cost against theirs (an untimed piece)
                _put_note(res, f"K = {k}: ", CODE_COST_HEAD, code_cost(
                    ctx, f"zhao-tan-cbcl-{k}", f"K = {k}: ", lambda k=k, si=si: cell(k, si)[1],
                    k, _tau_times(results, _orpca_times(ctx, f"zhao-tan-cbcl-{k}-{nu}", results,
                                                        lambda k=k, si=si: cell(k, si)[1], k),
                                  ctx.repeats)))
            if (k, nu) == (k_main, 0.7):
                _ratio_claims(res, results, "cbcl", orpca_times=_orpca_times(
                    ctx, f"zhao-tan-cbcl-{k}-{nu}", results, lambda k=k, si=si: cell(k, si)[1],
                    k))
                fig, axes = plt.subplots(1, 2, figsize=(11, 4))
                for m in ("OADMM", "OPGD", "BADMM", "BPGD"):
                    h = results[m]["history"]
                    axes[0].plot(h["time"], h["objective"], label=m)
                for m in ("OADMM", "OPGD", "ORPCA", "ONMF (Guan et al.)"):
                    tr = results[m]["regret"]
                    axes[1].plot(tr[:, 0], tr[:, 1], label=m)
                axes[0].set(xlabel="time (s)", ylabel="f̃_t / batch objective / N",
                            yscale="log", title="Fig. 10(a): online vs batch")
                axes[1].set(xlabel="time (s)", ylabel="f̂_t(W_t), eq. (46)", yscale="log",
                            title="Fig. 10(b): clean-data regret")
                for ax in axes:
                    ax.legend(fontsize=7)
                save_figure(ctx, res, fig, "zhao_tan_fig10_cbcl.png",
                            "CBCL, K = 49, (ν, ν̃) = (0.7, 0.1): objectives against time")
                ps = {m: r["psnr"] for m, r in results.items()}
                res.claims.append(_psnr_order_claim(results, "PSNR ordering", "Table I(a)"))
                stored = {m: results[m].get("psnr_stored", ps[m]) for m in ("OADMM", "OPGD")}
                res.claims.append(claim(
                    "OPGD and OADMM PSNRs (Table I(a), K = 49, setting 1)",
                    "\"in terms of PSNRs and running times, no significant differences can be "
                    "observed between our online algorithms\" (§VII-F); Table I(a): OADMM "
                    "11.37, OPGD 11.48",
                    f"eq. (48): OPGD {stored['OPGD']:.2f} vs OADMM {stored['OADMM']:.2f} dB",
                    *at_most(abs(stored["OPGD"] - stored["OADMM"]), 1.0, 2.0,
                             "|PSNR difference| (dB)"),
                    why="Table I(a)'s online PSNRs differ by 0.11 dB; 1 dB allows another data "
                        "scale, partly within ×2"))
                try:  # an untimed piece: the ordering against ORPCA with larger caps
                    res.notes.append(_caps_psnr_note(k, ctx.memo(
                        f"zhao-tan-cbcl-{k}-caps-x10", lambda k=k, si=si: _caps_psnr(
                            *cell(k, si), k, ctx.seed)), results))
                except PieceMissing:
                    pass
                try:  # untimed pieces: OPGD with its solves run tight over a prefix
                    n_prefix = ctx.pick(1280, 5120, tiny=100)
                    def prefix(k=k, si=si, n=n_prefix):  # (X, clean), built only if needed
                        clean_k, X_k = cell(k, si)
                        return X_k[:n], clean_k[:n]

                    res.notes.append("The OPGD and OADMM PSNR claim's runs: " + _tight_opgd_note(
                        ctx, f"zhao-tan-cbcl-{k}", prefix, k, n_features=faces.shape[1]))
                except PieceMissing:
                    pass
                # the paper's PSNR: stored codes (eq. (48)) online, eq. (47) for batch
                table = {m: results[m].get("psnr_stored", ps[m]) for m in paper}
                near = sum(abs(table[m] - paper[m]) <= 1.0 for m in paper)
                res.claims.append(claim("Table I(a) PSNRs, K = 49, setting 1, each within 1 dB",
                                        ", ".join(f"{m.split(' ')[0]} {v}"
                                                  for m, v in paper.items())
                                        + " (Table I(a), setting 1)",
                                        ", ".join(f"{m.split(' ')[0]} {v:.2f}"
                                                  for m, v in table.items())
                                        + f" (the contaminated input itself: {data_psnr:.2f})",
                                        *count_band(near, len(paper), 4),
                                        why="the printed PSNRs, each within 1 dB (their stds "
                                            "are ≤ 0.19 dB), partly for 4 of the 6 (two "
                                            "thirds of the table)" + (
                                            f"; the printed values (≤ {max(paper.values())} "
                                            "dB) lie below the contaminated input's own PSNR "
                                            f"under eqs. (47)–(48) ({data_psnr:.2f} dB): a "
                                            "paper inconsistency this computation shows (its "
                                            "PSNR is on another, unstated scale)"
                                            if data_psnr > max(paper.values()) else "")))
                if data_psnr > max(paper.values()):
                    res.notes.append(
                        f"Table I's PSNRs (≤ {max(paper.values())} dB) lie below the PSNR of "
                        f"the contaminated input itself under eq. (47)–(48) as specified "
                        f"({data_psnr:.2f} dB at (0.7, 0.1)): the paper's PSNR cannot be on "
                        "this scale (its normalization of CBCL is unstated), so the claim on "
                        "the absolute values fails on that inconsistency (the ledger counts it "
                        "so) and the ordering claims are the ones that carry over.")
                side = int(round(np.sqrt(faces.shape[1])))
                fpath = ctx.figure_path("zhao_tan_fig7_cbcl_atoms.png")
                names = ["OADMM", "OPGD", "BADMM", "ONMF (Guan et al.)", "ORPCA"]
                atom_rows = []
                for m in names:
                    A = results[m]["atoms"][:8]
                    A = A - A.min(axis=1, keepdims=True)
                    atom_rows.append(A / np.maximum(A.max(axis=1, keepdims=True), 1e-12))
                _images(plt, fpath, [list(a) for a in zip(*atom_rows)], (side, side), names)
                res.figures.append(("Fig. 7: eight atoms per method (columns)", fpath))

    for what, keys, fig_no in (("K", [(k, settings[0][0]) for k in ks], "12"),
                               ("(ν, ν̃)", [(ks[len(ks) // 2], nu) for nu, _ in settings],
                                "15")):
        if len(keys) < 2:
            continue
        res.claims.append(_online_speed_claim(online, keys, what, fig_no))
    # Figs. 11, 13(b) and 14(b): the canonical cell's runs across τ, ρ and κ
    n_grid = ctx.pick(None, None, tiny=300)  # every row of the cell (None) but at tiny scale
    legs = cbcl_grid_legs(ctx, lambda: cell(k_main, 0)[1][:n_grid], k_main, values={
        p_: v[::3] for p_, v, _ in CBCL_GRIDS} if ctx.quick else None)
    res.claims.append(cbcl_grids_claim(legs))
    res.notes += cbcl_grid_notes(ctx, legs, lambda: cell(k_main, 0)[1], k_main)
    res.tables += [leg["table"] for leg in legs if leg["table"] is not None]
    cbcl_grid_figure(ctx, res, legs)
    res.tables.append(("PSNR (dB, peak 1, against the clean faces) and time (s)",
                       ["K", "(ν, ν̃)", "method", "PSNR (W_N codes)", "PSNR (stored codes, "
                        "eq. 48)", "time (s)", "paper PSNR"], rows))
    note = _batch_stop_note(stopped, p * faces.shape[0], batch_iter)
    if note:
        res.notes.append(note)
    if badmm_mean:
        res.notes.append(badmm_mean)
    if drift:
        res.notes.append("ONMF's clean-data objective f̂_t (eq. (46)) over each cell's stream, "
                         "its lowest value → its final one, beside its stored-code PSNR: the "
                         "stand-in has no outlier model, and a cell where f̂_t climbs far above "
                         "its lowest value is one whose later stored codes fit the clean "
                         "faces poorly, which lowers that PSNR: " + "; ".join(drift) + ".")
    src = "CBCL (from --data-dir)" if path else "embedded rendered faces at 19×19"
    res.notes.append(f"Data: {src}, each sample normalized to max 1, replicated p={p}, "
                     "contaminated as in §5.2 (no observation noise); τ=5, canonical λ, M, ρ, κ. "
                     "The paper's PSNR uses codes stored during the pass (eq. (48)); both "
                     "that and codes re-solved with W_N are shown.")
    return res


# ----------------------------------------------------------------------------- Table II, Fig. 8
@register("zhao-tan-yaleb", "001", "YaleB shadow removal (Fig. 8, Table II)", departures=(
              "One initialization of W₀, where Table II averages ten.", TIMING_DEPARTURE,
              "BADMM and BPGD stop at 300 iterations or their tolerance (the paper gives no "
              "stopping rule); a note gives where each stops and its last relative change.",
              "The images are Deng Cai's 32×32 YaleB crops (the paper does not give its image "
              "size).", *BASELINE_DEPARTURES),
          rejudge=lambda res: _rejudge_times(res, "yaleb"),
          later=lambda res, ctx: _yaleb_later(res, ctx),
          # 7: the batch-over-online claim says its times are whole runs
          rules=7)
def yaleb(ctx: Context) -> Result:
    path, subject, faces, X, rng = _yaleb_stream(ctx)
    p = X.shape[0] // faces.shape[0]
    results = run_methods(X, _yaleb_rank(ctx), tau=5, seed=ctx.seed,
                          batch_iter=_yaleb_batch_cap(ctx), timer=ctx.timed)
    res = Result()
    _ratio_claims(res, results, "yaleb")
    res.tables.append(("Running times (s)", ["method", "time (s)"], _times_table(results)))
    plt = pyplot()
    names = ["ONMF (Guan et al.)", "ORPCA", "OADMM", "OPGD", "BADMM", "BPGD"]
    pick = rng.choice(faces.shape[0], 4, replace=False)
    rows = []
    for i in pick:
        j = int(np.flatnonzero((X == faces[i]).all(axis=1))[0])
        rows.append([faces[i]] + [results[m]["low"][j] for m in names])
    fpath = ctx.figure_path("zhao_tan_fig8_yaleb.png")
    _images(plt, fpath, rows, (32, 32), ["original"] + names)
    res.figures.append(("Fig. 8: original and low-rank reconstructions", fpath))
    k = _yaleb_rank(ctx)
    try:  # the ORPCA time claim's other side: where OADMM's and OPGD's pass goes (untimed)
        res.notes.append(_inner_note("", ctx.memo("zhao-tan-yaleb-inner",
                                                  lambda: _inner_split(X, k, ctx.seed))))
    except PieceMissing:
        pass
    res.notes.append(f"Subject {subject} of {'YaleB' if path else 'the embedded rendered faces'},"
                     f" replicated p={p}; shadows are the outliers; K={k}, τ=5.")
    return _yaleb_later(res, ctx)


def _yaleb_rank(ctx: Context) -> int:
    """The YaleB runs' rank K (a later reading and its run must agree)."""
    return ctx.pick(49, 49, tiny=5)


def _yaleb_batch_cap(ctx: Context) -> int:
    """The YaleB batch solvers' iteration cap (the paper gives no stopping rule)."""
    return ctx.pick(300, 300, tiny=20)


def _yaleb_stream(ctx: Context) -> tuple:
    """YaleB's stream as its run makes it: ``(path or None, subject, faces, X, rng)``, the
    subject's faces (each normalized to max 1) replicated and shuffled into X, and the
    generator after the shuffle (the run draws its figure's faces from it)."""
    path = find_data(ctx.data_dir, "yaleb_32x32", "YaleB_32x32.mat")
    if path:
        yb = load_yaleb(os.path.dirname(path))
        imgs, subj = yb.data, yb.target
        subject = 2
    else:
        imgs, subj = render_faces(3, 64, random_state=ctx.seed)
        subject = 1
    faces = imgs[subj == subject]
    faces = faces / faces.max(axis=1, keepdims=True)
    p = ctx.pick(5, 50, tiny=1)
    rng = np.random.default_rng(ctx.seed)
    X = np.tile(faces, (p, 1))[rng.permutation(p * faces.shape[0])]
    return path, subject, faces, X, rng


def _yaleb_later(res: Result, ctx: Context) -> Result:
    """A YaleB result with what ORPCA's code solves cost against OADMM's and OPGD's
    (:func:`code_cost`, an untimed piece) where kept, its seconds read from the result's
    running-time table, where its batch solvers stop (:func:`_batch_rerun_note`) and BADMM
    with its dictionary penalty on the per-sample scale (:func:`_badmm_mean_reading`)."""
    rows = [r for caption, _, r in res.tables if caption == "Running times (s)"]
    if rows:
        _put_note(res, "", CODE_COST_HEAD, code_cost(
            ctx, "zhao-tan-yaleb", "", lambda: _yaleb_stream(ctx)[3], _yaleb_rank(ctx),
            _tau_times(_table_results(rows[0]), None, ctx.repeats)))
    if rows and any(m in BATCH_SOLVERS for m, _ in rows[0]):
        for head, reading in BATCH_READINGS:
            _put_note(res, "", head, reading(ctx, "zhao-tan-yaleb", "",
                                             lambda: _yaleb_stream(ctx)[3], _yaleb_rank(ctx),
                                             _yaleb_batch_cap(ctx)))
    return res


# ----------------------------------------------------------------------------- Table III, Fig. 9
@register("zhao-tan-video", "001", "Background subtraction on video (Fig. 9, Table III)",
          departures=(
              "One initialization of W₀, where Table III averages ten.", TIMING_DEPARTURE,
              "BADMM and BPGD stop at 200 iterations or their tolerance (the paper gives no "
              "stopping rule); a note gives where each stops and its last relative change.",
              *BASELINE_DEPARTURES),
          rejudge=lambda res: _rejudge_times(res), later=lambda res, ctx: _video_later(res, ctx))
def video(ctx: Context) -> Result:
    res = Result()
    plt = pyplot()
    videos = _videos(ctx)

    def one_video(vi, name, frames):
        """Every method on one (replicated) video, keeping of the N×F parts only the middle
        frame's background and foreground (a small piece)."""
        X = _video_stream(ctx, vi, frames)
        which = ("online", "batch", "others") if not ctx.quick or name == "embedded" else (
            "online", "others")
        results = run_methods(X, _video_rank(ctx), tau=5, seed=ctx.seed,
                              batch_iter=_video_batch_cap(ctx), which=which,
                              timer=ctx.timed)
        j = int(np.flatnonzero((X == frames[frames.shape[0] // 2]).all(axis=1))[0])
        for r in results.values():
            r["low"] = r["low"][j]
            r["outliers"] = (np.abs(X[j] - r["low"]) if r["outliers"] is None
                             else np.abs(r["outliers"][j]))
            r.pop("regret", None), r.pop("history", None)
        return results, X[j]

    for vi, (name, frames, shape) in enumerate(videos):
        results, frame = ctx.memo(f"zhao-tan-video-{name}",
                                  lambda vi=vi, name=name, frames=frames: one_video(vi, name,
                                                                                    frames))
        _ratio_claims(res, results, name, where=f"{name}: ")
        res.tables.append((f"{name}: running times (s)", ["method", "time (s)"],
                           _times_table(results)))
        names = [m for m in ("OADMM", "OPGD", "BADMM", "ORPCA", "ONMF (Guan et al.)")
                 if m in results]
        back = [results[m]["low"] for m in names]
        fore = [results[m]["outliers"] for m in names]
        fpath = ctx.figure_path(f"zhao_tan_fig9_{name}.png")
        _images(plt, fpath, [[frame] + back, [frame] + fore], shape, ["frame"] + names)
        res.figures.append((f"Fig. 9 ({name}): backgrounds (top) and foregrounds (bottom)",
                            fpath))
        if name == "embedded":
            truth = make_video(frames.shape[0], shape, random_state=ctx.seed,
                               background_only=True)[0][0]
            err = {m: float(np.mean((results[m]["low"] - truth / frames.max()) ** 2))
                   for m in names}
            res.tables.append(("Embedded video: background MSE against the true background",
                               ["method", "MSE"], [[m, f"{v:.2e}"] for m, v in err.items()]))
    res.notes.append(f"Frames normalized to max 1, replicated p={_video_copies(ctx)}."
                     + (SYNTHETIC_VIDEO if videos[0][0] == "embedded" else ""))
    return _video_later(res, ctx)


#: the video note's sentence on the embedded video (a result of real videos has none)
SYNTHETIC_VIDEO = (" Without --data-dir the video is synthetic: moving bright and dark blocks "
                   "over a static textured background, so the true background is known.")


def _videos(ctx: Context) -> list:
    """``(name, frames, frame shape)`` of the paper's videos found in the data directory
    (each frame normalized to a maximum of 1), or of the embedded synthetic video."""
    videos = []
    for name in ("hall", "escalator"):
        v = load_video(ctx.data_dir, name)
        if v is not None:
            videos.append((name, v.data, v.frame_shape))
    if not videos:
        videos.append(("embedded", *make_video(ctx.pick(200, 200, tiny=40),
                                               ctx.pick((48, 64), (48, 64), tiny=(24, 32)),
                                               random_state=ctx.seed)))
    return [(name, frames / frames.max(axis=1, keepdims=True), shape)
            for name, frames, shape in videos]


def _video_rank(ctx: Context) -> int:
    """The rank K of the video runs (49 at the paper's scale)."""
    return ctx.pick(20, 49, tiny=5)


def _video_batch_cap(ctx: Context) -> int:
    """The video batch solvers' iteration cap (the paper gives no stopping rule)."""
    return ctx.pick(100, 200, tiny=20)


def _video_copies(ctx: Context) -> int:
    """How many times a video's frames are replicated in its stream (the paper's p = 10)."""
    return 10 if not ctx.quick else 1


def _video_stream(ctx: Context, vi: int, frames) -> np.ndarray:
    """The stream of video ``vi``: its frames replicated, shuffled by the run's seed."""
    p = _video_copies(ctx)
    rng = np.random.default_rng([ctx.seed, vi])
    return np.tile(frames, (p, 1))[rng.permutation(p * frames.shape[0])]


def _video_later(res: Result, ctx: Context) -> Result:
    """A video result with where each video's online passes go (:func:`_inner_split`, an
    untimed piece per video), what ORPCA's code solves cost against theirs
    (:func:`code_cost`), where its batch solvers stop (:func:`_batch_rerun_note`) and BADMM
    with its dictionary penalty on the per-sample scale (:func:`_badmm_mean_reading`), each
    where kept; and, where its ORPCA updated per sample, its time claims judged again with
    each video's ORPCA-at-τ timing where kept (:func:`_video_orpca_times`)."""
    times = [(caption.split(":")[0], rows) for caption, _, rows in res.tables
             if caption.endswith(": running times (s)")]
    if times and all(name != "embedded" for name, _ in times):  # kept notes said it always
        res.notes = [n.replace(SYNTHETIC_VIDEO, "") for n in res.notes]
    for name, rows in times:
        if any(m in BATCH_SOLVERS for m, _ in rows):
            for head, reading in BATCH_READINGS:
                _put_note(res, f"{name}: ", head, reading(
                    ctx, f"zhao-tan-video-{name}", f"{name}: ",
                    lambda name=name: _named_video_stream(ctx, name), _video_rank(ctx),
                    _video_batch_cap(ctx)))
        try:
            _put_note(res, f"{name}: ", "Where the online methods' time goes", _inner_note(
                f"{name}: ", ctx.memo(f"zhao-tan-video-{name}-inner", lambda name=name:
                                      _inner_split(_named_video_stream(ctx, name),
                                                   _video_rank(ctx), ctx.seed))))
        except PieceMissing:
            pass
        results = _table_results(rows)
        _put_note(res, f"{name}: ", CODE_COST_HEAD, code_cost(
            ctx, f"zhao-tan-video-{name}", f"{name}: ",
            lambda name=name: _named_video_stream(ctx, name), _video_rank(ctx),
            _tau_times(results, _video_orpca_times(ctx, name, results), ctx.repeats)))
    if not any(m == "ORPCA" for _, rows in times for m, _ in rows):
        return res
    return _rejudge_times(res, orpca=lambda name, results: _video_orpca_times(ctx, name,
                                                                              results))


def _named_video_stream(ctx: Context, name: str) -> np.ndarray:
    """The stream of the video called ``name`` (:func:`_video_stream`)."""
    (vi, frames), = [(vi, f) for vi, (n, f, _) in enumerate(_videos(ctx)) if n == name]
    return _video_stream(ctx, vi, frames)


def _video_orpca_times(ctx: Context, name: str, results: dict) -> dict | None:
    """:func:`_orpca_times` of video ``name`` (its piece ``zhao-tan-video-NAME-orpca-tau``):
    ORPCA's time claim of a kept video result whose ORPCA updated per sample."""
    return _orpca_times(ctx, f"zhao-tan-video-{name}", results,
                        lambda: _named_video_stream(ctx, name), _video_rank(ctx))
