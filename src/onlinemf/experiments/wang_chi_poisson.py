"""Experiments of Wang and Chi 2016: Poisson streaming subspace tracking with missing data."""

from __future__ import annotations

import re
import time

import numpy as np

from ..baselines import GROUSE, batch_poisson_factorization
from ..estimators import PoissonSubspaceTracker
from ._registry import Context, PieceMissing, Result, pyplot, register, save_figure
from ._verdicts import (
    EDGE_MARK,
    LATE_RISE,
    NOT_MEASURED,
    NOT_REPRODUCED,
    PARTLY_FACTOR,
    SPEC,
    TIME_TIE,
    at_least,
    at_most,
    claim,
    count_band,
    differs_mark,
    judge,
    late_rise,
    ordered,
    ratio_band,
)

#: two normalized subspace (or frame) errors closer than this are a tie
ERR_TIE = 0.01

#: the version of these experiments' claim texts (see ``register``): 7 states the partly
#: factors of the close-to-SA and video bands, the rank result's kept claims, the
#: Monte-Carlo bound's reason and batch text, and the sotu claim's dates; 8 leaves the
#: order by observation rate, which the paper's text does not state, not judged; 9 reads
#: the video gaps relative to batch's error and ML-SA's time with the paper's row solver;
#: 10 asks the rank result's convergence for a fall
WANG_CHI_RULES = 10


def subspace_error(D_hat, D):
    """‖P_{D̂⊥} D‖_F / ‖D‖_F with an SVD basis of range(D̂) (rank tolerance), in [0, 1]."""
    U, s, _ = np.linalg.svd(D_hat, full_matrices=False)
    if s.size == 0 or s.max() == 0:
        return 1.0
    U = U[:, s > 1e-10 * s.max()]
    return float(np.linalg.norm(D - U @ (U.T @ D)) / np.linalg.norm(D))


def poisson_stream(n, k, m, p, rng, D=None):
    """The synthetic recipe of §V-A: D, a_n ~ U[0, 1], y ~ Pois(D a), mask ~ B(p)."""
    D, _, Y = poisson_rates_stream(n, k, m, p, rng, D)
    return D, Y


def poisson_rates_stream(n, k, m, p, rng, D=None):
    """``poisson_stream`` with the true rates: (D, the m × n rates A Dᵀ, the counts with
    NaN where unobserved), the same draws in the same order."""
    D = rng.random((n, k)) if D is None else D
    rates = rng.random((m, k)) @ D.T
    Y = rng.poisson(rates).astype(float)
    return D, rates, np.where(rng.random(Y.shape) < p, Y, np.nan)


def track(est, Y, truth, every):
    """Feed the stream in chunks; return (t, error, cumulative seconds) at each chunk end.
    ``truth(t)`` is the subspace active at time t."""
    ts, errs, secs, total = [], [], [], 0.0
    for start in range(0, Y.shape[0], every):
        t0 = time.perf_counter()
        est.partial_fit(Y[start:start + every])
        total += time.perf_counter() - t0
        t = min(start + every, Y.shape[0])
        ts.append(t)
        errs.append(subspace_error(est.components_.T, truth(t)))
        secs.append(total)
    return np.array(ts), np.array(errs), np.array(secs)


def _best_grouse(Y, D, k, seed):
    best = None
    for step in (1e-4, 1e-3):
        g = GROUSE(k, step=step, random_state=seed)
        out = track(g, Y, lambda t: D, max(1, Y.shape[0] // 20))
        if best is None or out[1][-1] < best[1][-1]:
            best = (*out, step)
    return best


# ----------------------------------------------------------------------------- Figs. 1–3
@register("wang-chi-synthetic", "003", "Poisson subspace tracking, full and missing data: "
          "SA, memory-limited SA, batch and GROUSE (Figs. 1–3)",
          rejudge=lambda res: _rejudge_synthetic(res), rules=WANG_CHI_RULES,
          later=lambda res, ctx: _synthetic_later(res, ctx),
          departures=(
              "ML-SA's row problems (step 4 of Algorithms 2 and 3) are solved exactly from "
              "their KKT conditions, this implementation's default, where the paper solves "
              "them by projected gradient descent. The time claim reads ML-SA with a "
              "projected-gradient row solver, timed by the protocol, and gives the exact "
              "solver's ratio beside it; the error curves are the exact solver's.",
              "The batch reference is a substitute for Cao and Xie's method (alternating "
              "minimization of the same Poisson objective over several passes), and GROUSE "
              "stands in for the Gaussian trackers: ReProCS, BPFA and DMD are not "
              "implemented."))
def synthetic(ctx: Context) -> Result:
    n, k, m = _synthetic_sizes(ctx)
    rng = np.random.default_rng(ctx.seed)
    res = Result()
    plt = pyplot()
    fig, axes = plt.subplots(1, 4, figsize=(17, 3.8))
    rows, final, timings, median = [], {}, [], {}
    for ax, p in zip(axes[:3], (1.0, 0.5, 0.1)):
        D, Y = poisson_stream(n, k, m, p, rng)
        out = {}
        for method in ("ml", "sa"):
            curve, runs = _timed_track(ctx, Y, D, k, method)
            out[method.upper()] = curve
            median[method.upper()] = runs.median
            timings.append([p, method.upper(), runs.describe()])
        gt, ge, gs, step = _best_grouse(Y, D, k, ctx.seed)
        out[f"GROUSE (η={step:g})"] = (gt, ge, gs)
        t0 = time.perf_counter()
        Db, _ = batch_poisson_factorization(np.nan_to_num(Y), k, ~np.isnan(Y),
                                            random_state=ctx.seed)
        tb = time.perf_counter() - t0
        eb = subspace_error(Db, D)
        for name, (t, e, _) in out.items():
            ax.plot(t, e, label=name)
        ax.axhline(eb, color="k", ls="--", label="batch (substitute)")
        ax.set(title=f"p = {p}", xlabel="t", ylabel="normalized subspace error",
               yscale="log")
        ax.legend(fontsize=7)
        for name, (t, e, s) in out.items():
            rows.append([p, name, f"{e[-1]:.3f}", f"{median.get(name, s[-1]):.2f}"])
            if name in ("ML", "SA") or name.startswith("GROUSE"):
                axes[3].plot(s, e, label=f"{name}, p={p}")
        rows.append([p, "batch (substitute for Cao–Xie)", f"{eb:.3f}", f"{tb:.2f}"])
        final[p] = {name: (e[-1], median.get(name, s[-1])) for name, (t, e, s) in out.items()}
        final[p]["batch"] = (eb, tb)
    axes[3].set(xscale="log", yscale="log", xlabel="running time (s)",
                ylabel="subspace error", title="Fig. 3")
    axes[3].legend(fontsize=6)
    save_figure(ctx, res, fig, "wang_chi_fig1_3.png",
                f"Subspace error against t (N={n}, K={k}, M={m}) and against time")
    res.tables.append(("Final subspace error and running time (SA and ML-SA: the median of "
                       "their timed runs; GROUSE and batch: one run each)",
                       ["p", "method", "error", "time (s)"], rows))
    res.tables.append(("Every timed run of SA and ML-SA (seconds in partial_fit)",
                       ["p", "method", "runs"], timings))
    res.claims += _synthetic_claims(final, n, k, ctx.seed)
    res = _synthetic_later(res, ctx)
    res.notes.append("The batch reference is multi-pass alternating minimization of the same "
                     "Poisson objective, a substitute for Cao and Xie's method. "
                     "GROUSE gets the better of two steps. ReProCS, BPFA and DMD (the "
                     "paper's other baselines) are not implemented, so no claim names them. "
                     + CLOSE_NOTE + " λ = 0.2, μ = 0.1.")
    return res


#: how 'close to batch' is counted (the note of the synthetic experiment)
CLOSE_NOTE = ("'Close to batch' counts a rate where ML-SA's error closes at least half the "
              "gap from a random nonnegative subspace's error (no learning) to the batch "
              "error.")


#: the piece of ML-SA with the paper's projected-gradient row solver, timed at p = 1
ML_PGD_KEY = "wang-chi-synthetic-times-together"
ML_TIME_CLAIM = "SA time / ML-SA time (p = 1)"
#: the fits the time claim times together: (label, method, ML-SA's row solver)
TOGETHER = (("SA", "sa", "exact"), ("ML-SA (projected gradient)", "ml", "pgd"),
            ("ML-SA (exact rows)", "ml", "exact"))


def _times_together(ctx: Context) -> dict:
    """SA and ML-SA, the latter with the paper's row solver, projected gradient
    (``row_solver="pgd"``), and with the exact one, on the run's stream at p = 1 (the first
    the run draws from its seed), each timed by the protocol as the run times them (their
    error evaluations left out) in one session, so that their ratios compare times taken
    together: label → median seconds, the number of runs that count, every run in words and
    the final subspace error."""
    n, k, m = _synthetic_sizes(ctx)
    D, Y = poisson_stream(n, k, m, 1.0, np.random.default_rng(ctx.seed))
    out = {}
    for label, method, rows in TOGETHER:
        curve, runs = _timed_track(ctx, Y, D, k, method, rows)
        out[label] = {"median": runs.median, "n": len(runs.kept), "runs": runs.describe(),
                      "error": float(curve[1][-1])}
    return out


def _timed_track(ctx: Context, Y, D, k: int, method: str, row_solver: str = "exact"):
    """A tracker fitted on the stream ``Y`` (subspace ``D``) under the timing protocol, its
    error curve recorded at each 1/40 of the stream: the error evaluations are not the
    tracker's time, so each run's time is its partial_fit seconds. Returns the curve of the
    run that counts and the ``TimedRuns``."""
    every = max(1, Y.shape[0] // 40)

    def run():
        t0 = time.perf_counter()
        est = PoissonSubspaceTracker(k, method=method, row_solver=row_solver,
                                     random_state=ctx.seed)
        return track(est, Y, lambda t: D, every), time.perf_counter() - t0

    (curve, _), runs = ctx.timed(run, exclude=lambda v: v[1] - v[0][2][-1])
    return curve, runs


def _synthetic_sizes(ctx: Context) -> tuple:
    """(N, K, M) of the synthetic experiment at ``ctx``'s scale."""
    return ctx.pick((100, 10, 400), (100, 10, 800), tiny=(30, 3, 60))


def _synthetic_later(res: Result, ctx: Context) -> Result:
    """The time claim read from the fits timed together (:func:`_times_together`), where
    that piece is kept (or computed, outside a kept-only assembly), with a note of every
    run; without it the claim is not judged (the run's own SA and ML-SA times are of
    another row solver)."""
    try:
        together = ctx.memo(ML_PGD_KEY, lambda: _times_together(ctx))
    except PieceMissing:
        together = None
    res.claims = [_ml_time_claim(together) if c[0] == ML_TIME_CLAIM else c
                  for c in res.claims]
    head = "SA and ML-SA at p = 1 timed together"
    res.notes = [n for n in res.notes if not n.startswith(head)]
    if together is not None:
        res.notes.append(f"{head} (the time claim's piece): " + "; ".join(
            f"{label} {t['runs']}, final subspace error {t['error']:.3f}"
            for label, t in together.items()) + ".")
    return res


def _ml_time_claim(together: dict | None) -> list:
    """'With a smaller complexity': SA's time over ML-SA's at p = 1, timed together
    (:func:`_times_together`; None: not timed so, not judged), ML-SA with the paper's
    projected-gradient row solver deciding and the exact solver's ratio beside it."""
    paper = "\"with a smaller complexity\" (§V-A; Fig. 3 plots time, no ratio)"
    why = ("a smaller complexity should show as a clearly shorter time (≥ 1.5×); within "
           f"{TIME_TIE:.0%} of 1 is a tie; ML-SA read with the paper's row solver, projected "
           "gradient (step 4 of Algorithms 2 and 3), and timed in one session with SA (read "
           "so since an audit, with the values known: it had been read with the exact "
           "solver)")
    if together is None:
        return claim(ML_TIME_CLAIM, paper, "not measured: SA and ML-SA not yet timed together",
                     NOT_MEASURED, "needs SA and ML-SA timed together", why=why)
    sa, pgd, exact = (together[label] for label, _, _ in TOGETHER)
    fewest = min(t["n"] for t in (sa, pgd, exact))
    how = (f"each the median of {fewest} or more timed runs" if fewest > 1 else
           "single timings")
    speed = sa["median"] / pgd["median"]
    return claim(ML_TIME_CLAIM, paper,
                 f"{speed:.2f}× with the projected-gradient row solver (SA {sa['median']:.1f} s, "
                 f"ML-SA {pgd['median']:.1f} s, timed together, {how}); "
                 f"{sa['median'] / exact['median']:.1f}× with the exact row solver, this "
                 "implementation's default",
                 *at_least(speed, 1.5, 1 + TIME_TIE, "SA time / ML-SA time"), why=why)


def _synthetic_claims(final, n: int, k: int, seed: int) -> list:
    """Figs. 1–3's claims from ``final[p][method] = (final error, seconds)`` (methods ML, SA,
    GROUSE…, batch) on data of dimension ``n`` and rank ``k``."""
    rand, _ = random_subspace_error(n, k, 20, seed)
    # judged at the three decimals it is printed to (a table's rounded errors would
    # otherwise land a printed edge value on either side of it)
    d_ml = round(max(abs(final[p]["ML"][0] - final[p]["SA"][0]) for p in final), 3)
    g = {p: min(v for kk, v in final[p].items() if kk.startswith("GROUSE")) for p in final}
    rates = sorted(final, reverse=True)
    return [
        claim("ML-SA close to SA",
              "\"the memory-limited SA algorithm yields a very similar performance towards "
              "the SA algorithm\" (§V-A, Figs. 1–2)",
              f"largest error difference {d_ml:.3f}",
              *at_most(d_ml, 3 * ERR_TIE, PARTLY_FACTOR * 3 * ERR_TIE,
                       "largest |error difference|"),
              why=f"'very similar' read as within three tie margins ({3 * ERR_TIE:g}) of "
                  f"normalized subspace error at every rate; partly within ×{PARTLY_FACTOR:g} "
                  "of that"),
        _ml_time_claim(None),
        claim("error ordered by observation rate",
              "no order in the text: Figs. 1–2 plot the errors at p = 1, 0.5 and 0.1 (§V-A)",
              ", ".join(f"p={p}: {final[p]['ML'][0]:.3f}" for p in final) + (
                  f" (rising at each step beyond the tie {ERR_TIE:g})"
                  if ordered([final[p]["ML"][0] for p in rates], tie=ERR_TIE)[0] == "reproduced"
                  else f" (not rising at each step beyond the tie {ERR_TIE:g})"), NOT_MEASURED,
              "not judged: the paper's own order is not stated",
              why="the text orders no errors by the observation rate, and the figures' values "
                  "are not in the text, so the paper's order cannot be checked against the "
                  "paper; the measured order is shown"),
        claim("Poisson ahead of a Gaussian subspace tracker (GROUSE stands in: ReProCS, "
              "BPFA and DMD are not implemented)",
              "\"much better estimates than the ReProCS algorithm, which produces very poor "
              "results\" (§V-A) — about ReProCS, which is not run here",
              ", ".join(f"p={p}: ML {final[p]['ML'][0]:.3f} vs GROUSE {g[p][0]:.3f}"
                        for p in final),
              *count_band(sum(final[p]["ML"][0] < g[p][0] - ERR_TIE for p in final),
                          len(final), 2), source=SPEC,
              why="the implementation's stand-in for the paper's Gaussian baseline; ahead "
                  f"by more than the tie margin {ERR_TIE:g} at a rate"),
        claim("close to the batch algorithm at large t",
              "\"yields similar performances of the batch algorithm when the data index is "
              "large enough\" (§V-A, Figs. 1–2)",
              ", ".join(f"p={p}: ML {final[p]['ML'][0]:.3f} vs batch {final[p]['batch'][0]:.3f}"
                        for p in final) + f" (a random nonnegative subspace: {rand:.3f})",
              *count_band(sum(final[p]["ML"][0] <= final[p]["batch"][0]
                              + 0.5 * (rand - final[p]["batch"][0]) for p in final),
                          len(final), 2),
              why="'similar' read at a rate as closing at least half the gap from a random "
                  "nonnegative subspace's error (no learning) to the batch error, the "
                  "Monte-Carlo and rank claims' 'learned' (a bound relative to the batch "
                  "error alone would pass a random subspace); the batch reference is a "
                  "substitute for the paper's"),
        claim("Fig. 3: running time against error at least competitive with the other "
              "algorithms",
              "\"the running time is plotted against the normalized subspace error in Fig. 3. "
              "It can be found that the proposed algorithms are at least competitive, "
              "compared to other algorithms under considerations\" (§V-A, Fig. 3)",
              "not measured: Fig. 3's other algorithms (ReProCS, BPFA) are not implemented, "
              "and its batch algorithm (Cao and Xie's) only has a substitute here",
              NOT_MEASURED, "needs the paper's baselines, timed as SA and ML-SA are (three "
                            "runs or more, the median)",
              why="a running-time claim against baselines this implementation does not run"),
    ]


def _rejudge_synthetic(res: Result) -> Result:
    """A kept wang-chi-synthetic result judged by the current rules, from its table."""
    final = {}
    for p, name, err, secs in res.tables[0][2]:
        key = "batch" if name.startswith("batch") else name
        final.setdefault(float(p), {})[key] = (float(err), float(secs))
    n, k = (30, 3) if res.scale == "tiny" else (100, 10)
    res.claims = _synthetic_claims(final, n, k, 0)
    res.notes = [re.sub(r"; 'close to batch' counts a rate where ML-SA's error is ≤ 1\.\d+× "
                        r"the batch error\.", ". " + CLOSE_NOTE, note) for note in res.notes]
    return res


# ----------------------------------------------------------------------------- Figs. 4–5
@register("wang-chi-rank", "003", "Over-specified rank (Figs. 4–5)",
          rejudge=lambda res: _rejudge_rank(res), rules=WANG_CHI_RULES,
          later=lambda res, ctx: _rank_later(res))
def rank(ctx: Context) -> Result:
    n, k, m = ctx.pick((100, 10, 400), (100, 10, 800), tiny=(30, 10, 60))
    methods = ("ml",) if ctx.quick else ("ml", "sa")
    rng = np.random.default_rng(ctx.seed)
    res = Result()
    rows, converge_rows = [], []
    plt = pyplot()
    fig, axes = plt.subplots(len(methods), 2, figsize=(10, 3.5 * len(methods)), squeeze=False)
    for j, p in enumerate((1.0, 0.5)):
        D, rates, Y = poisson_rates_stream(n, k, m, p, rng)
        for i, method in enumerate(methods):
            finals, traces = [], {}
            for r in RANKS:
                est = PoissonSubspaceTracker(r, method=method, random_state=ctx.seed)
                t, e, _ = track(est, Y, lambda t, D=D: D, max(1, m // 20))
                axes[i, j].plot(t, e, label=f"rank {r}")
                finals.append(e[-1])
                traces[r] = e
                rows.append([method.upper(), p, r, f"{e[-1]:.3f}",
                             *(f"{v:.4f}" for v in rate_errors(est, Y, rates))])
            axes[i, j].set(title=f"{method.upper()}, p = {p}", xlabel="t", yscale="log")
            axes[i, j].legend(fontsize=7)
            res.claims.append(_rank_claim(method.upper(), p, finals))
            claim_row, trace_rows = _converge_claim(method.upper(), p, traces, n, k, m,
                                                    ctx.seed)
            res.claims.append(claim_row)
            converge_rows += trace_rows
    save_figure(ctx, res, fig, "wang_chi_fig4_5.png",
                "Subspace error with the rank over-specified (true K = 10)")
    res.tables.append(("Final errors: the subspace error the claims read, and the estimated "
                       "rates' error ‖Λ − Λ̂‖_F/‖Λ‖_F (Λ the true rates of the stream, Λ̂ its "
                       "samples coded by the final subspace, over every entry, observed or not) "
                       "and its distance to the observed counts ‖(Y − Λ̂)_Ω‖_F/‖Y_Ω‖_F",
                       ["method", "p", "input rank", "error", "rate error", "count misfit"],
                       rows))
    res.tables.append(("Convergence at each input rank: the error's first and final values, "
                       "its largest rise over the second half of the stream, and the levels "
                       "of a random nonnegative subspace and of a batch SVD of that rank",
                       ["method", "p", "input rank", "first → final", "late rise",
                        "random subspace", "batch SVD"], converge_rows))
    res.notes.append(rank_note(rows))
    return _rank_later(res)


#: how the rates' error note begins
RATE_HEAD = "The estimated rates' error ‖Λ − Λ̂‖_F/‖Λ‖_F at input ranks"


def _rank_later(res: Result) -> Result:
    """A wang-chi-rank result with its rates' error note read from its final-error table
    (in place of any earlier reading; a result kept without that column has none)."""
    res.notes = [n for n in res.notes if not n.startswith(RATE_HEAD)]
    rows = res.tables[0][2] if res.tables else []
    if rows and len(rows[0]) == 6:
        res.notes.append(rate_note(rows))
    return res


def rate_errors(est, Y, rates) -> tuple[float, float]:
    """The stream ``Y`` (NaN where unobserved) coded by ``est``'s current subspace, Λ̂:
    its error against the true ``rates``, ‖Λ − Λ̂‖_F/‖Λ‖_F over every entry (the error of
    what a user reads off the model, where the subspace error reads its span only), and
    its misfit to the observed counts, ‖(Y − Λ̂)_Ω‖_F/‖Y_Ω‖_F (a model that fits the
    counts' noise lowers the second and raises the first)."""
    fitted = est.transform(Y) @ est.components_
    seen = ~np.isnan(Y)
    return (float(np.linalg.norm(rates - fitted) / np.linalg.norm(rates)),
            float(np.linalg.norm((Y - fitted)[seen]) / np.linalg.norm(Y[seen])))


def rate_note(rows) -> str:
    """The estimated rates' error against the input rank, from the final-error table's
    ``rows`` (method, p, input rank, subspace error, rate error, count misfit): a second
    error, beside the claims, which read the subspace error the paper names. It rises in a
    panel when no step falls by more than the tie and the ends are more than the tie apart,
    upwards (the order claims' partly reading; 'gracefully' allows small steps)."""
    panels = {}
    for method, p, _, _, rate, misfit in rows:
        panels.setdefault((method, p), []).append((float(rate), float(misfit)))
    parts, rising, fitting = [], 0, 0
    for (method, p), vals in panels.items():
        errs, misfits = [v for v, _ in vals], [v for _, v in vals]
        up = (ordered(errs, tie=ERR_TIE)[0] != NOT_REPRODUCED
              and errs[-1] - errs[0] > ERR_TIE)
        rising += up
        fitting += up and misfits[-1] < misfits[0]
        parts.append(f"{method}, p = {p}: " + ", ".join(f"{v:.3f}" for v in errs)
                     + (" (rises)" if up else " (does not rise)")
                     + f", the count misfit {misfits[0]:.4f} → {misfits[-1]:.4f}")
    text = (f"{RATE_HEAD} {', '.join(map(str, RANKS))} (the stream coded by each run's final "
            "subspace): " + "; ".join(parts) + f". It rises with the rank (no step falling by "
            f"more than the tie {ERR_TIE:g}, the ends more than it apart: the claims' band "
            "reads such a rise partly where a step is within the tie; this reading of a rise "
            f"was set with the values known) in {rising} of {len(panels)} panels, where the "
            "subspace error falls")
    if fitting:
        text += (f"; in {fitting} of them the misfit to the observed counts falls from rank "
                 f"{RANKS[0]} to rank {RANKS[-1]}: the larger span fits the counts more "
                 "closely and the true rates less so, that is, more of the Poisson noise")
    return (text + ". The claims read the subspace error the paper names (§V-A); this "
            "second error is shown beside them and does not change their verdicts.")


#: the input ranks of Figs. 4–5 (the true rank is 10)
RANKS = (10, 12, 15, 20)


def rank_note(rows) -> str:
    """Why the error falls with the input rank, from the final-error table's ``rows``
    (method, p, input rank, error): expected of this metric, not forced by it."""
    panels = {}
    for method, p, _, err, *_ in rows:
        panels.setdefault((method, p), []).append(float(err))
    falls = sum(e[-1] < e[0] - ERR_TIE for e in panels.values())
    return ("Under the paper's metric ‖P_{D̂⊥}D‖/‖D‖ a larger span captures at least as much "
            "of D only when the spans are nested; the runs at each input rank are fitted "
            "separately, so a fall with the rank is expected, not forced (a larger-rank run "
            "could end worse, for instance by converging more slowly within the stream). Both "
            "references of the table above fall with the rank (a random nonnegative subspace "
            "and a batch SVD of as many samples drawn by the same recipe). The measured error "
            f"falls from rank {RANKS[0]} to rank {RANKS[-1]} by more than the tie margin "
            f"{ERR_TIE:g} in {falls} of {len(panels)} panels; the claims read not reproduced "
            "where it falls.")


def _converge_claim(method: str, p: float, traces, n, k, m, seed):
    """Figs. 4–5: "still converge nicely even when the rank is not perfectly known". Each
    input rank's error settles (no late rise) and learns the subspace (at least half way
    from a random nonnegative subspace of that rank to a batch SVD of that rank, the
    Monte-Carlo experiment's "learned"); returns the claim and a table row per rank."""
    ok, some, rows = [], [], []
    for r, e in traces.items():
        rand, rand_std = random_subspace_error(n, k, 20, seed, rank=r)
        batch = batch_subspace_error(n, k, m, p, 5, seed, rank=r)
        rise, final = late_rise(e), float(e[-1])
        steady = rise < LATE_RISE and float(e[0]) - final > ERR_TIE
        ok.append(steady and final <= batch + 0.5 * (rand - batch))
        some.append(steady and final <= batch + 0.75 * (rand - batch))
        rows.append([method, p, r, f"{float(e[0]):.3f} → {final:.3f}", f"{rise:.1%}",
                     f"{rand:.3f} ± {rand_std:.3f}", f"{batch:.3f}"])
    measured = "; ".join(f"rank {row[2]}: {row[3]} (late rise {row[4]}; random {row[5]}, "
                         f"batch {row[6]})" for row in rows)
    return claim(f"{method}, p = {p}: converges at every input rank",
                 "\"both of the proposed algorithms still converge nicely even when the rank "
                 "is not perfectly known\" (§V-A, Figs. 4–5)", measured,
                 judge(all(ok), all(some)),
                 f"reproduced if, at every input rank, the error falls from its first "
                 f"reading by more than the tie {ERR_TIE:g}, rises by less than "
                 f"{LATE_RISE:.0%} over the second half of the stream and ends at least half "
                 "way from a random nonnegative subspace's error to a batch SVD's of that rank; "
                 "partly if it settles so and ends at least a quarter of the way",
                 why="'converge' is an error curve that falls and settles (no late rise: "
                     "Figs. 4–5 show curves that fall and flatten; the fall was added after an "
                     "audit, with the values known); 'nicely' is an end near what the "
                     "samples allow, judged as the Monte-Carlo runs' 'learned' (half the gap "
                     "from no learning to a batch SVD), with references of the input rank "
                     "because a larger rank lowers both"), rows


def _rank_claim(method: str, p: float, finals) -> list:
    """Figs. 4–5: the final errors at input ranks 10, 12, 15, 20 should rise, gracefully."""
    verdict, band = ordered(finals, tie=ERR_TIE)
    graceful = max(finals) / max(min(finals), 1e-300) <= 2.5
    if verdict == "reproduced" and not graceful:
        verdict = "partly"
    return claim(f"{method}, p = {p}: error with ranks 10, 12, 15, 20",
                 "\"the error increases gracefully as we increase the rank\" (§V-A, "
                 "Figs. 4–5)", ", ".join(f"{f:.3f}" for f in finals), verdict,
                 band + "; and max/min ≤ 2.5 for reproduced",
                 why=f"'increases' is an order over the ranks (tie margin {ERR_TIE:g}); "
                     "'gracefully' bounds the rise (at most 2.5× over the four ranks)")


def _rejudge_rank(res: Result) -> Result:
    """A kept wang-chi-rank result judged by the current rules, from its table."""
    errs = {}
    for method, p, _, err, *_ in res.tables[0][2]:
        errs.setdefault((method, float(p)), []).append(float(err))
    # the convergence claims are judged from the traces, which the result does not keep:
    # they stay as judged when the run was made
    kept = [c for c in res.claims if "converges at every input rank" in str(c[0])]
    res.claims = [_rank_claim(m, p, v) for (m, p), v in
                  sorted(errs.items(), key=lambda kv: (-kv[0][1], kv[0][0] != "ML"))] + kept
    # the note on why the error falls, as any older run worded it, is today's
    res.notes = [rank_note(res.tables[0][2])
                 if n.startswith("Under the paper's metric ‖P_{D̂⊥}D‖/‖D‖") or "rate error" in n
                 else n for n in res.notes if n != RANK_KEPT]
    if kept:
        res.notes.append(RANK_KEPT)
    return res


#: why a kept wang-chi-rank result's convergence claims are not judged again
RANK_KEPT = ("The convergence claims are read from the error traces, which this result does "
             "not keep: they stay as the run judged them.")


# ----------------------------------------------------------------------------- Fig. 6
@register("wang-chi-tracking", "003", "Tracking abrupt subspace changes (Fig. 6)",
          rejudge=lambda res: _rejudge_tracking(res),
          later=lambda res, ctx: _tracking_edges(res, ctx.seed))
def tracking(ctx: Context) -> Result:
    n, k = ctx.pick((100, 10), (100, 10), tiny=(30, 3))
    changes = ctx.pick((351, 601, 901), (701, 1201, 1801), tiny=(61, 101, 141))
    m = ctx.pick(1300, 2600, tiny=200)
    rng = np.random.default_rng(ctx.seed)
    bounds = (0, *[c - 1 for c in changes], m)
    Ds, parts = [], []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        D, Y = poisson_stream(n, k, hi - lo, 1.0, rng)
        Ds.append(D)
        parts.append(Y)
    Y = np.vstack(parts)

    def truth(t):
        return Ds[int(np.searchsorted(np.array(changes), t, side="right"))]

    configs = [("ML, γ = 1 (paper)", dict(method="ml")),
               ("ML, γ = 0.98", dict(method="ml", forget=0.98))]
    if not ctx.quick:
        configs += [("SA, γ = 1 (paper)", dict(method="sa")),
                    ("SA, γ = 0.98", dict(method="sa", forget=0.98))]
    res = Result()
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 3.8))
    rows, late = [], []
    batch = _segment_batch_errors(n, k, changes, m, ctx.seed)
    learned = _learned_levels(n, k, changes, m, ctx.seed, batch=batch)
    for name, kw in configs:
        est = PoissonSubspaceTracker(k, random_state=ctx.seed, **kw)
        t, e, _ = track(est, Y, truth, 25)
        ax.plot(t, e, label=name)
        # error just after each change, and at the end of that segment
        starts = [int(np.searchsorted(t, c + 24)) for c in changes]
        ends = _segment_ends(t, changes)
        after = [e[i] for i in starts]
        seg_end = [e[i] for i in ends]
        rows.append([name] + [f"{a:.3f} → {b:.3f}" for a, b in zip(after, seg_end)])
        res.claims.append(_tracking_claim(name, after, seg_end, learned, _spreads(batch),
                                          changes))
        late.append((name, _last_quarters(t, e, changes, ends)))
    for c in changes:
        ax.axvline(c, color="r", lw=0.8)
    ax.set(xlabel="t", ylabel="subspace error", yscale="log")
    ax.legend(fontsize=8)
    save_figure(ctx, res, fig, "wang_chi_fig6.png", "Subspace error with changes at the red lines")
    res.tables.append(("Error 25 samples after each change → at the end of its segment",
                       ["configuration"] + [f"segment from t={c}" for c in changes], rows))
    res.notes.append("The paper's algorithms have no forgetting (γ = 1); γ = 0.98 is this "
                     "library's documented extension, checked apart from the paper's claims.")
    res.notes.append(_late_fall_note(late, learned, changes)
                     + _level_spread_text(batch, changes))
    return res


def _segment_ends(t, changes) -> list:
    """The index of each segment's last reading: the last at or before the next change's
    sample c − 1, and the stream's last for the final segment."""
    return [int(np.searchsorted(t, c)) - 1 for c in changes[1:]] + [len(t) - 1]


def _last_quarters(t, e, changes, ends) -> list:
    """Each segment's error at the start of its last quarter (the last reading at or before
    it, so the window spans at least a quarter) and at its end, ``(t₁, e₁, t₂, e₂)``, with
    t₁ and e₁ None where the readings are too sparse for a window: whether the error still
    falls when the next change (or the stream's end) comes."""
    out = []
    for c, i in zip(changes, ends):
        q = int(np.searchsorted(t, c + 0.75 * (t[i] - c), side="right")) - 1
        window = 0 <= q < i and t[q] >= c
        out.append((int(t[q]) if window else None, float(e[q]) if window else None,
                    int(t[i]), float(e[i])))
    return out


def _late_fall_note(late, learned, changes) -> str:
    """Where a segment ends above its learned level: what its error did over the segment's
    last quarter.

    The reading: a fall by more than the tie margin reads "still falling when the segment
    ends" (the change comes before the tracker reaches the level); a change within the tie
    margin either way reads "within the tie over its last quarter", which cannot tell a
    settled error from a slow one where the shortfall is under the tie; a rise by more than
    the tie reads "rising"."""
    parts = []
    for name, quarters in late:
        for c, lv, (t1, e1, t2, e2) in zip(changes, learned, quarters):
            if e2 <= lv:
                continue
            if t1 is None:
                parts.append(f"{name}, segment from t={c}: ends at {e2:.3f}, {e2 - lv:.3f} "
                             f"above its learned level {lv:.3f}; too few readings for a window")
                continue
            fall = e1 - e2
            reading = ("still falling when the segment ends" if fall > ERR_TIE else
                       "rising" if fall < -ERR_TIE else
                       "within the tie over its last quarter")
            parts.append(f"{name}, segment from t={c}: ends at {e2:.3f}, {e2 - lv:.3f} above "
                         f"its learned level {lv:.3f}; over its last quarter (t={t1} to {t2}) "
                         f"the error goes {e1:.3f} → {e2:.3f} (a fall of {fall:.3f}): "
                         f"{reading}")
    if not parts:
        return "Every segment of every configuration ends at or below its learned level."
    return ("Segments that end above their learned level, and what the error did over the "
            f"segment's last quarter (against the tie margin {ERR_TIE:g}): "
            + "; ".join(parts) + ".")


def _level_spread_text(batch, changes) -> str:
    """How much the batch SVD's error behind each learned level varies over the draws the
    level averages (``batch``, :func:`_segment_batch_errors`; a standard deviation per
    draw). The level is half that error, so a stream's own draw would move its level by
    about half this spread; the averaged level's own uncertainty is smaller still (the
    draws' standard error)."""
    sds = _spreads(batch)
    return (" The learned levels average a batch SVD over 5 draws of a subspace and its "
            "data; over those draws its error's standard deviation is "
            + ", ".join(f"{sd:.4f}" for sd in sds)
            + " for the segments from t=" + ", ".join(str(c) for c in changes) + ".")


def _segment_batch_errors(n: int, k: int, changes, m: int, seed: int) -> list:
    """For each segment after a change (from a change to the next, the last to ``m``), a
    batch SVD's error on each of 5 draws of as many samples by the same recipe."""
    lengths = np.diff([*changes, m + 1])
    return [batch_subspace_errors(n, k, int(size), 1.0, 5, seed) for size in lengths]


def _learned_levels(n: int, k: int, changes, m: int, seed: int, batch=None) -> list:
    """For each segment after a change, the error that shows the new subspace learned: half
    way from a random nonnegative subspace's error to the mean of
    :func:`_segment_batch_errors` (``batch`` where already computed), the Monte-Carlo
    claims' 'learned'."""
    rand, _ = random_subspace_error(n, k, 20, seed)
    batch = _segment_batch_errors(n, k, changes, m, seed) if batch is None else batch
    return [b + 0.5 * (rand - b) for b in (float(np.mean(errs)) for errs in batch)]


def _spreads(batch) -> list:
    """Each segment's standard deviation of the batch SVD's error over its draws
    (``batch``: :func:`_segment_batch_errors`)."""
    return [float(np.std(errs)) for errs in batch]


def _tracking_edge(after, seg_end, learned, spreads, changes) -> str:
    """The edge flag of a Fig. 6 claim: the segments (named by their ``changes``) that fall
    by more than the tie and end within ``spreads`` (one per segment, :func:`_spreads`) of
    their learned level, either side, in words, else "". One stream is one draw: its error at
    a given quality moves between draws about as much as the batch SVD's does, so such a
    segment's pass or miss, and with it the count the verdict rests on, is within the
    reading's own noise."""
    parts = [f"the segment from t={c} ends at {b:.3f} against its level {lv:.3f}, within the "
             f"batch SVD's standard deviation {sd:.4f} over the draws behind that level"
             for c, a, b, lv, sd in zip(changes, after, seg_end, learned, spreads)
             if b < a - ERR_TIE and abs(b - lv) <= sd]
    return f"; {EDGE_MARK}: " + "; ".join(parts) if parts else ""


def _tracking_claim(name: str, after, seg_end, learned, spreads=None, changes=None) -> list:
    """Fig. 6: after each change the error falls (by more than the tie margin) to a level
    that shows the new subspace learned (``learned``: one level per segment, a threshold
    read strictly, as the other claims' half-way levels are); flagged at the band's edge
    where a segment's pass or miss lies within ``spreads`` (:func:`_tracking_edge`, its
    segments named by ``changes``)."""
    tracked = sum(b < a - ERR_TIE and b <= lv
                  for a, b, lv in zip(after, seg_end, learned))
    edge = "" if spreads is None else _tracking_edge(after, seg_end, learned, spreads, changes)
    return claim(f"{name}: error falls after each change",
                 "\"both algorithms have successfully tracked the subspace when changes "
                 "occur\" (§V-A, Fig. 6)" if "paper" in name else
                 "tracks the changes (forgetting is the library's extension, not the paper's)",
                 "; ".join(f"{a:.3f} → {b:.3f} (learned ≤ {lv:.3f})"
                           for a, b, lv in zip(after, seg_end, learned)) + edge,
                 *count_band(tracked, len(after), 2), source="paper" if "paper" in name else SPEC,
                 why="tracking a change shows as an error that falls after it, by more than "
                     f"the tie margin {ERR_TIE:g}, to a level that shows the new subspace "
                     "learned: at least half way from a random nonnegative subspace's error "
                     "to a batch SVD's of as many samples drawn by the same recipe, the "
                     "close-to-batch, rank and Monte-Carlo claims' 'learned' (a fall alone "
                     "would pass an estimate that barely leaves the random level)")


def _tracking_sizes(scale: str) -> tuple:
    """Fig. 6's ``(n, k, changes, m)`` at ``scale``."""
    return ((30, 3, (61, 101, 141), 200) if scale == "tiny" else
            (100, 10, (351, 601, 901), 1300) if scale == "quick" else
            (100, 10, (701, 1201, 1801), 2600))


def _table_pairs(cells) -> tuple:
    """A tracking table row's cells ``"a → b"`` as the errors after each change and at the
    ends of the segments."""
    pairs = [tuple(float(x) for x in c.split(" → ")) for c in cells]
    return [a for a, _ in pairs], [b for _, b in pairs]


def _tracking_edges(res: Result, seed: int = 0) -> Result:
    """Flags each of a kept tracking result's claims that a segment within the level's noise
    decides (as :func:`_tracking_claim` does with ``spreads``), read from its table's errors
    (to three decimals); the verdicts are left as judged, since judging them again from the
    rounded errors could move a fall that the run judged by its exact errors. ``seed``: the
    run's, which drew the levels its claims print."""
    if not res.tables:
        return res
    n, k, changes, m = _tracking_sizes(res.scale)
    batch = _segment_batch_errors(n, k, changes, m, seed)
    learned = _learned_levels(n, k, changes, m, seed, batch=batch)
    rows = {row[0]: row[1:] for row in res.tables[0][2]}
    for c in res.claims:
        name = str(c[0]).removesuffix(": error falls after each change")
        if EDGE_MARK in c[2] or name not in rows:
            continue
        c[2] += _tracking_edge(*_table_pairs(rows[name]), learned, _spreads(batch), changes)
    return res


def _rejudge_tracking(res: Result) -> Result:
    """A kept wang-chi-tracking result judged by the current rules, from its table."""
    n, k, changes, m = _tracking_sizes(res.scale)
    batch = _segment_batch_errors(n, k, changes, m, 0)
    learned = _learned_levels(n, k, changes, m, 0, batch=batch)
    claims = []
    for name, *cells in res.tables[0][2]:
        claims.append(_tracking_claim(name, *_table_pairs(cells), learned, _spreads(batch),
                                      changes))
    res.claims = claims
    res.notes = [n.replace("library's documented extension (spec §2.7).",
                           "library's documented extension, checked apart from the paper's "
                           "claims.") for n in res.notes]
    return res


# ----------------------------------------------------------------------------- Fig. 7
#: Fig. 7's runs "examine the effect of random initialization"; each run here draws its data too
MONTECARLO_DEPARTURE = (
    "Each Monte-Carlo run draws new data as well as a new initialization, where Fig. 7's "
    "runs are said to 'examine the effect of random initialization' (the paper does not say "
    "whether its data were drawn again): the spread reported is that of data and start "
    "together. Measured at the quick sizes (N = 200, K = 20, M = 400, p = 1, ML-SA, 20 "
    "runs): the final error's standard deviation is 0.0055 with the data redrawn and "
    "0.0024 with the data fixed (means 0.444 and 0.449), so redrawing about doubles the "
    "spread; either way it is far inside the claims' spread bound (std/mean ≤ 0.2).")


@register("wang-chi-montecarlo", "003", "Sensitivity to the random initialization (Fig. 7)",
          departures=(MONTECARLO_DEPARTURE,),
          rejudge=lambda res: _rejudge_montecarlo(res), rules=WANG_CHI_RULES)
def montecarlo(ctx: Context) -> Result:
    n, k, m, runs = ctx.pick((200, 20, 400, 5), (200, 20, 800, 50), tiny=(40, 4, 60, 2))
    methods = ("ml",) if ctx.quick else ("ml", "sa")
    res = Result()
    rows = []

    def run(p, method, r):
        """One Monte-Carlo run: data and initialization drawn from its own seed (a piece)."""
        D, Y = poisson_stream(n, k, m, p, np.random.default_rng([ctx.seed, int(p * 10), r]))
        est = PoissonSubspaceTracker(k, method=method, random_state=ctx.seed + r)
        est.partial_fit(Y)
        return subspace_error(est.components_.T, D)

    for p in (1.0, 0.5):
        for method in methods:
            finals = [ctx.memo(f"wang-chi-montecarlo-{method}-{p}-{r}",
                               lambda p=p, method=method, r=r: run(p, method, r))
                      for r in range(runs)]  # data and initialization redrawn each run
            mean, std = float(np.mean(finals)), float(np.std(finals))
            rows.append([method.upper(), p, runs, f"{mean:.3f}", f"{std:.3f}"])
    res.claims += _montecarlo_claims(rows, n, k, m, runs, ctx.seed)
    res.tables.append((f"Final error over Monte-Carlo runs (N={n}, K={k}, M={m})",
                       ["method", "p", "runs", "mean", "std"], rows))
    res.tables.append(_random_table(n, k, runs, ctx.seed))
    return res


def random_subspace_error(n: int, k: int, runs: int, seed: int,
                          rank: int | None = None) -> tuple[float, float]:
    """Mean and std of the error of a random nonnegative subspace of dimension ``rank``
    (default K; entries U[0, 1]) against the data's D (drawn by the same recipe): the level
    that shows no learning at all."""
    rng = np.random.default_rng([seed, 7919])
    errs = [subspace_error(rng.random((n, rank or k)), rng.random((n, k)))
            for _ in range(runs)]
    return float(np.mean(errs)), float(np.std(errs))


def _random_table(n, k, runs, seed):
    mean, std = random_subspace_error(n, k, runs, seed)
    return ("A random nonnegative subspace against D (no learning)", ["draws", "mean", "std"],
            [[runs, f"{mean:.3f}", f"{std:.3f}"]])


def batch_subspace_errors(n: int, k: int, m: int, p: float, draws: int, seed: int,
                          rank: int | None = None) -> np.ndarray:
    """The error of a batch reference on each of ``draws`` data sets of the same recipe: the
    ``rank`` (default K) leading right singular vectors of all M count vectors at once
    (missing entries as 0, the rest divided by p, an unbiased fill), against that draw's D —
    what learning from these M samples can be expected to reach."""
    errs = []
    for r in range(draws):
        D, Y = poisson_stream(n, k, m, p, np.random.default_rng([seed, 104729, int(p * 10), r]))
        _, _, Vt = np.linalg.svd(np.nan_to_num(Y, nan=0.0) / p, full_matrices=False)
        errs.append(subspace_error(Vt[:rank or k].T, D))
    return np.array(errs)


def batch_subspace_error(n: int, k: int, m: int, p: float, draws: int, seed: int,
                         rank: int | None = None) -> float:
    """The mean of :func:`batch_subspace_errors`."""
    return float(np.mean(batch_subspace_errors(n, k, m, p, draws, seed, rank)))


def _montecarlo_claims(rows, n, k, m, runs, seed) -> list:
    """Fig. 7: the spread over the runs is small, and the runs learned: at least half way
    from a random nonnegative subspace's error to a batch SVD's on the same recipe (partly: a
    quarter of the way)."""
    rand, rand_std = random_subspace_error(n, k, runs, seed)
    out = []
    for method, p, _, mean, std in rows:
        mean, std, p = float(mean), float(std), float(p)
        batch = batch_subspace_error(n, k, m, p, 5, seed)
        small = std / max(mean, 1e-300) <= 0.2
        learned = mean <= batch + 0.5 * (rand - batch)
        # partly within ×2 of the half: a quarter of the gap
        some = mean <= batch + (1 - 0.5 / PARTLY_FACTOR) * (rand - batch)
        out.append(claim(f"{method}, p = {p}: spread over {runs} runs",
                         "\"the overall performance is not very sensitive to the random "
                         "initialization\" (§V-A, Fig. 7)",
                         f"mean {mean:.3f} ± {std:.3f}; a random nonnegative subspace scores "
                         f"{rand:.3f} ± {rand_std:.3f}, a batch SVD of M samples drawn by "
                         f"the same recipe {batch:.3f} (the mean over 5 draws)",
                         judge(small and learned, small and some),
                         "reproduced if std/mean ≤ 0.2 and the mean closes at least half the "
                         "gap from the random subspace's error to the batch SVD's; partly if "
                         "std/mean ≤ 0.2 and it closes at least a quarter of that gap (within "
                         f"×{PARTLY_FACTOR:g})",
                         why="a small spread means insensitivity only for runs that learned "
                             "the subspace (an error near a random subspace's shows no "
                             "learning, however small its spread); what M samples allow is "
                             "set by a batch SVD of them, not by an absolute fraction of the "
                             "random error. The paper gives no spread; the bound 0.2 is this "
                             "report's own, loose by design (it only rules out runs whose "
                             "errors scatter by a fifth of their size), so the learned "
                             "condition carries the claim"))
    return out


def _rejudge_montecarlo(res: Result) -> Result:
    """A kept wang-chi-montecarlo result judged by the current rules, from its table (the
    random-subspace level is computed afresh: a few SVDs)."""
    import re

    caption, _, rows = res.tables[0]
    n, k, m = (int(x) for x in re.search(r"N=(\d+), K=(\d+), M=(\d+)", caption).groups())
    runs = int(rows[0][2])
    res.claims = _montecarlo_claims(rows, n, k, m, runs, 0)
    res.tables = [res.tables[0], _random_table(n, k, runs, 0)]
    return res


# ----------------------------------------------------------------------------- Figs. 8–9
def _video_frames(ctx):
    from ..datasets import load_video, make_video

    v = load_video(ctx.data_dir, "hall")
    if v is not None:
        frames, shape = v.data, v.frame_shape
        from scipy.ndimage import zoom

        imgs = frames.reshape(-1, *shape)
        small = np.array([zoom(im, (50 / shape[0], 50 / shape[1]), order=1) for im in imgs])
        return np.clip(small, 0, 255).reshape(len(small), -1), (50, 50), "Hall (50×50)"
    frames, shape = make_video(ctx.pick(100, 250, tiny=30), (50, 50), random_state=ctx.seed)
    return 255 * frames / frames.max(), shape, "embedded synthetic video"


#: the methods whose frame error Fig. 9 draws: "ML" is memory-limited SA, "SA" the full one
VIDEO_METHODS = {"ML": "ML-SA", "SA": "SA"}


#: the frames whose mean error opens and closes a video's stream in Fig. 9's claims
VIDEO_ENDS = 25

#: the share of its first gap to batch a method's error closes by the stream's end for
#: "approaches the performance of the batch algorithm" (partly: within ``PARTLY_FACTOR``)
VIDEO_CLOSED = 0.5


def _video_reading(first, online_end, b_first, batch_end, relative: bool = True) -> tuple:
    """Fig. 9's reading of one method: its gap to batch at both ends of the stream, the share
    of the first closed by the last, whether it ends within the tie of batch, and the verdict
    of :func:`_video_claim`'s band. The share closed reads each gap relative to batch's
    error on the same frames (the method's error over batch's, less one): batch's own error
    moves with the frames' difficulty, and an absolute gap shrinks with it even where the
    method comes no nearer to batch. ``relative=False``: the share of the absolute gap, the
    reading shown beside it."""
    gap_start, gap_end = first - b_first, online_end - batch_end
    rel_start, rel_end = ((_excess(first, b_first), _excess(online_end, batch_end)) if relative
                          else (gap_start, gap_end))
    closed = (rel_start - rel_end) / rel_start if gap_start > ERR_TIE else 0.0
    falls = online_end < first - ERR_TIE
    near = gap_end <= ERR_TIE
    return gap_start, gap_end, closed, near, judge(
        falls and closed >= VIDEO_CLOSED, falls and closed >= VIDEO_CLOSED / PARTLY_FACTOR
        or near)


def _excess(error: float, batch: float) -> float:
    """A method's error over batch's on the same frames, less one (0: at batch's level)."""
    return error / max(batch, 1e-12) - 1.0


def _video_claim(p, first, online_end, batch_first, batch_end, method: str = "ML",
                 frame_one=None) -> list:
    """Fig. 9: a method's frame error falls over the stream towards the batch error.

    ``first`` and ``online_end`` are the method's mean frame errors over the first and the
    last 25 frames, ``batch_first`` and ``batch_end`` batch's over the same frames (its error
    is not flat over a video: the frames differ in difficulty), so the gap to batch is read
    on the same frames at both ends; ``batch_first=None`` reads a kept result that has only
    batch's mean over the video (``batch_end``) at both ends. ``frame_one``, the method's and
    batch's errors on the first frame (the method's is its random start's first estimate),
    reads the first 25 frames without it too: where that changes the verdict, the claim is
    flagged at the band's edge, since one frame of the 25 decides it."""
    b_first = batch_end if batch_first is None else batch_first
    gap_start, gap_end, closed, near, verdict = _video_reading(first, online_end, b_first,
                                                               batch_end)
    batch_text = (f"batch {batch_end:.3f} (its mean over the video)" if batch_first is None
                  else f"batch {batch_first:.3f} → {batch_end:.3f} on the same frames")
    edge = ("" if frame_one is None or batch_first is None else
            _frame_one_edge(first, online_end, b_first, batch_end, frame_one, verdict))
    if gap_start > ERR_TIE and batch_first is not None:  # the absolute gap, read before
        *_, shut, _, absolute = _video_reading(first, online_end, b_first, batch_end,
                                               relative=False)
        if absolute != verdict:
            edge = (f"; read on the absolute gap (the reading before an audit) {shut:.0%} "
                    f"closed, which reads {absolute}"
                    + differs_mark(absolute, verdict, "the absolute gap's") + edge)
    return claim(f"p = {p}: {VIDEO_METHODS[method]} error falls towards batch",
                 "\"the performance improves with the increase of the data stream index, and "
                 "approaches the performance of the batch algorithm\" (§V-B, Fig. 9)",
                 f"first 25 frames {first:.3f}, last 25 {online_end:.3f}; {batch_text}: the gap "
                 f"{gap_start:.3f} → {gap_end:.3f} " + (
                     f"(relative to batch's error {_excess(first, b_first):.0%} → "
                     f"{_excess(online_end, batch_end):.0%}, {closed:.0%} closed)"
                     if gap_start > ERR_TIE else
                     f"({_start_text(gap_start)} and ends within {ERR_TIE:g} of it: no gap to "
                     "close)" if near else
                     f"({_start_text(gap_start)} and ends {gap_end:.3f} above it)") + edge,
                 verdict,
                 f"reproduced if the error falls (by more than {ERR_TIE:g}) and closes ≥ "
                 f"{VIDEO_CLOSED:.0%} of its gap to batch (relative to batch's error on the "
                 f"same frames); partly if it falls and closes ≥ "
                 f"{VIDEO_CLOSED / PARTLY_FACTOR:.0%} (within ×{PARTLY_FACTOR:g}), or ends "
                 f"within {ERR_TIE:g} of batch or below it",
                 why="'improves' is a fall of the method's own error over the stream; "
                     "'approaches' is read as closing at least half of the gap to the batch "
                     "error, the gap read on the same frames at both ends (the first 25 and the "
                     "last 25: the frames differ in difficulty) and relative to batch's error "
                     "there, since an absolute gap shrinks as the frames get easier even where "
                     "the method comes no nearer to batch (read so after an audit, with the "
                     "values known; the absolute reading is shown where it differs); a method "
                     "that starts and ends within the tie of batch has no gap to close")


def _frame_one_edge(first, online_end, b_first, batch_end, frame_one, verdict) -> str:
    """The edge flag of a Fig. 9 claim judged ``verdict``: its reading with the first 25
    frames' means taken without frame 1 (``frame_one``: the method's and batch's errors
    there), in words where that reading's verdict differs, else ""."""
    e1, b1 = frame_one
    rest = VIDEO_ENDS - 1
    gs, ge, cl, _, without = _video_reading((VIDEO_ENDS * first - e1) / rest, online_end,
                                            (VIDEO_ENDS * b_first - b1) / rest, batch_end)
    if without == verdict:
        return ""
    first_wo, b_wo = (VIDEO_ENDS * first - e1) / rest, (VIDEO_ENDS * b_first - b1) / rest
    return (f"; {EDGE_MARK}: without frame 1 (the random start's first estimate, {e1:.3f}, "
            f"batch {b1:.3f}) the gap is {gs:.3f} → {ge:.3f}, relative to batch's error "
            f"{_excess(first_wo, b_wo):.0%} → {_excess(online_end, batch_end):.0%} "
            f"({cl:.0%} closed), which reads "
            f"{without}")


def _video_edges(res: Result) -> None:
    """Flags each of a kept video result's claims that one frame decides (as
    :func:`_video_claim` does with ``frame_one``), read from its table's means (to three
    decimals) and the marks note's first-frame errors; the verdicts are left as judged."""
    one = _frame_one(res.notes)
    rows = res.tables[0][2] if res.tables else []
    names = {v: key for key, v in VIDEO_METHODS.items()}
    for c in res.claims:
        found = re.fullmatch(r"p = ([\d.]+): (\S+) error falls towards batch", c[0])
        if "without frame 1" in c[2] or found is None or found[2] not in names:
            continue
        p, method = float(found[1]), names[found[2]]
        row = next((r for r in rows if float(r[0]) == p and r[1] == method), None)
        batch = next((r for r in rows if float(r[0]) == p and r[1].startswith("batch")), None)
        e1, b1 = one.get((p, method)), one.get((p, "batch"))
        if None in (row, batch, e1, b1) or batch[2] == "—":
            continue
        c[2] += _frame_one_edge(float(row[2]), float(row[3]), float(batch[2]),
                                float(batch[3]), (e1, b1), c[3])


#: the start of the note that quotes each video curve at a few frames
MARKS_HEAD = "Relative frame error at frames along the stream"


def _frame_one(notes) -> dict:
    """The first frame's errors that a video result's marks note quotes: (p, "ML" | "SA" |
    "batch") → error."""
    note = next((n for n in notes if n.startswith(MARKS_HEAD)), "")
    return {(float(p), who): float(e)
            for p, who, e in re.findall(r"p = ([\d.]+), (\w+): 1: ([\d.]+)", note)}


def _start_text(gap_start: float) -> str:
    """Where a method starts against batch, when it does not start above it beyond the tie."""
    if gap_start < -ERR_TIE:
        return f"it starts {-gap_start:.3f} below batch"
    return f"it starts within {ERR_TIE:g} of batch"


def _first_draw(Z, seed) -> np.ndarray:
    """The run's stream at p = 1: the first Poisson draw of the rates ``Z`` with its seed."""
    return _video_draws(Z, seed)[1.0]


#: Fig. 9's observation rates, in the order the run draws their streams
VIDEO_RATES = (1.0, 0.5)


def _video_draws(Z, seed) -> dict:
    """Fig. 9's streams of the rates ``Z``: ``{p: counts with NaN where unobserved}``, a
    Poisson draw and a mask at each rate of ``VIDEO_RATES`` in turn from one generator."""
    rng = np.random.default_rng(seed)
    draws = {}
    for p in VIDEO_RATES:
        Y = rng.poisson(Z).astype(float)
        Y[rng.random(Y.shape) >= p] = np.nan
        draws[p] = Y
    return draws


def _relative_errors(R, Z) -> list[float]:
    """Each row's relative error ‖r − z‖ / ‖z‖ of the estimates ``R`` against the rates."""
    return list(np.linalg.norm(R - Z, axis=1) / np.linalg.norm(Z, axis=1))


def _coded_errors(model, Y, Z) -> list[float]:
    """:func:`_relative_errors` of the frames ``Y`` coded again by the tracker's coder on
    ``model``'s subspace (its deterministic start; no update)."""
    return _relative_errors(model.transform(Y) @ model.components_, Z)


def _coded_on(model, subspace, Y, Z) -> list[float]:
    """:func:`_coded_errors` with ``model``'s coder on another ``subspace`` (K × F), the
    model itself left as it is."""
    import copy

    other = copy.deepcopy(model)
    other.components_ = np.ascontiguousarray(subspace)
    return _coded_errors(other, Y, Z)


def _tail(values, frames: int) -> float:
    """The mean of the last ``frames`` values."""
    return float(np.mean(values[-frames:]))


def _frame_errors(est, Y, Z) -> tuple[list[float], np.ndarray]:
    """Each frame's relative error of ``est``'s estimate at that step, over the stream ``Y``
    of the true rates ``Z``, and the last step's estimate."""
    errs = []
    for n in range(Y.shape[0]):
        _, rate = est.update(Y[n])
        errs.append(float(np.linalg.norm(rate - Z[n]) / np.linalg.norm(Z[n])))
    return errs, rate


def _longer_stream(Z, k: int, seed, n_iter: int) -> dict:
    """Fig. 9 at p = 1 on a stream twice the video's length: the video, then the video again
    with fresh Poisson draws, tracked by ML-SA and SA; with batch's frame errors on the
    first pass (fitted as in the run), to set them against on the same frames."""
    Y = _first_draw(Z, seed)
    again = np.random.default_rng([seed, 5]).poisson(Z).astype(float)
    out = {}
    for method in ("ml", "sa"):
        est = PoissonSubspaceTracker(k, method=method, random_state=seed)
        out[method.upper()] = _frame_errors(est, np.vstack([Y, again]), np.vstack([Z, Z]))[0]
    Db, A = batch_poisson_factorization(Y, k, np.ones(Y.shape, bool), n_iter=n_iter,
                                        random_state=seed)
    out["batch"] = _relative_errors(A @ Db.T, Z)
    return out


#: how the longer-stream reading's note begins
LONGER = "A longer stream at p = 1"


def _longer_note(errs: dict, paper_frames: int = 250) -> str:
    """What a longer stream does to Fig. 9's p = 1 claims: each method's gap to batch on the
    same frames, at the first 25 frames, the last 25 of the run's stream, the last 25 of a
    stream of the paper's length and of twice the video."""
    n = len(errs["batch"])
    be = np.asarray(errs["batch"])

    def gap(method, end):  # the 25 frames up to ``end`` (1-based), against batch on them
        e = np.asarray(errs[method][end - 25:end])
        frames = np.arange(end - 25, end) % n
        return float(np.mean(e) - np.mean(be[frames]))

    paper = [paper_frames] if n < paper_frames < 2 * n else []
    ends = [25, n, *paper, 2 * n]
    parts = []
    for method in ("ML", "SA"):
        g = [gap(method, end) for end in ends]
        parts.append(f"{VIDEO_METHODS[method]} " + " → ".join(
            f"{v:.3f} (frames {end - 24}–{end})" for v, end in zip(g, ends)) + (
            f", {(g[0] - g[-1]) / g[0]:.0%} of its first gap closed by frame {ends[-1]}"
            if g[0] > ERR_TIE else ""))
    return (f"{LONGER} (the video played twice, fresh Poisson draws on the "
            "second pass; an untimed piece): each method's gap to batch on the same frames "
            "(the second pass's frames set against batch's on the first): "
            + "; ".join(parts) + "."
            + (f" Frame {paper_frames} ends a stream of the paper's length." if paper else ""))


def _sa_gap_parts(Z, k: int, seed, n_iter: int, p: float = 1.0) -> dict:
    """Where SA's frame error above batch's comes from at ``p`` (1 or 0.5), on the run's
    stream there and batch fitted as in the run: each frame's relative error of SA as
    run (D̂_n â_n, â_n from a random start with the previous subspace), of SA's final
    subspace with the frames coded again by the tracker's coder (no update, its
    deterministic start), of batch's subspace coded by that same coder, and of batch's own
    fit. SA's gap to batch on any frames is then the sum of three parts: the running
    subspace against its final one, the final subspaces against each other (coded alike)
    and the coder against batch's own codes; every pixel is scored, observed or not."""
    Y = _video_draws(Z, seed)[p]
    est = PoissonSubspaceTracker(k, method="sa", random_state=seed)
    online = _frame_errors(est, Y, Z)[0]
    Db, A = batch_poisson_factorization(np.nan_to_num(Y), k, ~np.isnan(Y), n_iter=n_iter,
                                        random_state=seed)
    return {"online": online, "sa_final": _coded_errors(est, Y, Z),
            "batch_dict": _coded_on(est, Db.T, Y, Z), "batch": _relative_errors(A @ Db.T, Z)}


def _gap_head(p: float) -> str:
    """How the reading of :func:`_sa_gap_parts` at ``p`` begins."""
    return f"SA's gap to batch at p = {p:g} taken apart"


#: how the reading of :func:`_sa_gap_parts` at p = 1 begins
GAP_PARTS = _gap_head(1.0)


def _sa_gap_note(parts: dict, frames: int = 25, p: float = 1.0) -> str:
    """:func:`_sa_gap_parts` at ``p`` over the first and the last ``frames`` frames. Read
    before its run: a part that is at least half of the last frames' gap is what keeps SA above
    batch there (SA's running estimates against its final subspace; SA's final subspace against
    batch's, both coded alike; or the coder against batch's own codes); where no part is,
    none accounts for most of it. Where one part gives some of the gap back, two can each
    be at least half of it, and both are named."""
    mean = {key: (float(np.mean(v[:frames])), float(np.mean(v[-frames:])))
            for key, v in parts.items()}
    names = {"lag": "SA's running estimates (each frame coded with the subspace before it, "
                    "then multiplied by the one it updated) against its final subspace",
             "dictionary": "SA's final subspace against batch's, both coded alike",
             "coder": "the tracker's coder against batch's own codes"}
    texts, last = [], {}
    for i, where in enumerate((f"first {frames}", f"last {frames}")):
        m = {key: v[i] for key, v in mean.items()}
        split = {"lag": m["online"] - m["sa_final"], "dictionary": m["sa_final"]
                 - m["batch_dict"], "coder": m["batch_dict"] - m["batch"]}
        gap = m["online"] - m["batch"]
        texts.append(f"{where} frames: SA as run {m['online']:.3f}, its final subspace coded "
                     f"again {m['sa_final']:.3f}, batch's subspace coded as SA codes "
                     f"{m['batch_dict']:.3f}, batch {m['batch']:.3f}: the gap {gap:.3f}, of which "
                     + ", ".join(f"{v:+.3f} from {names[key]}" for key, v in split.items()))
        last = {"gap": gap, **split}
    gap = last.pop("gap")
    half = [key for key, v in sorted(last.items(), key=lambda kv: -kv[1]) if v >= gap / 2]
    if gap > ERR_TIE and len(half) == 1:
        verdict = (f"on the last {frames} frames {names[half[0]]} is "
                   f"{last[half[0]] / gap:.0%} of the gap: it is what keeps SA above batch "
                   "there")
    elif gap > ERR_TIE and half:  # parts above half of it, another giving some back
        verdict = (f"on the last {frames} frames " + " and ".join(
            f"{names[key]} ({last[key] / gap:.0%})" for key in half)
            + " are each at least half of the gap: each keeps SA above batch there")
    elif gap > ERR_TIE:
        verdict = f"on the last {frames} frames no part is half of the gap"
    else:
        verdict = f"on the last {frames} frames SA is within {ERR_TIE:g} of batch"
    return (f"{_gap_head(p)} (the run's stream and batch fit again; an untimed piece): "
            + "; ".join(texts) + f". {verdict[0].upper()}{verdict[1:]}.")


def _sa_warm_parts(Z, k: int, seed, n_iter: int) -> dict:
    """SA at p = 1 on the run's stream (its first Poisson draw) started from batch's
    subspace (fitted as in the run) in place of its random start (``init``: its random
    draws otherwise as SA's own run), its kept samples empty as at any start: each
    frame's relative error as run from there (``"online"``), of its final subspace with the
    frames coded again by the tracker's coder (``"final"``), and of batch's subspace coded
    by that same coder (``"batch_dict"``), as :func:`_sa_gap_parts` scores SA's own run."""
    Y = _first_draw(Z, seed)
    Db, _ = batch_poisson_factorization(Y, k, np.ones(Y.shape, bool), n_iter=n_iter,
                                        random_state=seed)
    est = PoissonSubspaceTracker(k, method="sa", init=Db.T, random_state=seed)
    online = _frame_errors(est, Y, Z)[0]
    return {"online": online, "final": _coded_errors(est, Y, Z),
            "batch_dict": _coded_on(est, Db.T, Y, Z)}


#: how the reading of :func:`_sa_warm_parts` begins
WARM_PARTS = "SA at p = 1 started from batch's subspace"


def _sa_warm_note(warm: dict, parts: dict | None, frames: int = 25) -> str:
    """:func:`_sa_warm_parts` over the last ``frames`` frames, beside SA's own run taken
    apart (:func:`_sa_gap_parts`' ``parts``, where kept). Read before its run: where SA's
    final subspace from batch's start stays above batch's (both coded alike) by at most
    half of what SA's final subspace from its random start does, the random start (with
    the codes SA keeps from its first frames) accounts for most of that part of SA's gap;
    where it stays above by more, SA's rule draws even batch's subspace away at these
    settings, so that part lies in the rule, not in the start. A part within the error tie
    is not read."""
    w = {key: _tail(v, frames) for key, v in warm.items()}
    warm_part = w["final"] - w["batch_dict"]
    text = (f"{WARM_PARTS} in place of its random start (the run's stream and batch fit "
            f"again; an untimed piece): on the last {frames} frames SA as run from there "
            f"{w['online']:.3f}, its final subspace coded again {w['final']:.3f}, batch's "
            f"subspace coded alike {w['batch_dict']:.3f}: its final subspace "
            f"{warm_part:+.3f} above batch's")
    if parts is None:
        return text + "."
    own = _tail(parts["sa_final"], frames) - _tail(parts["batch_dict"], frames)
    text += (f", against {own:+.3f} from its random start, SA as run there "
             f"{_tail(parts['online'], frames):.3f}")
    if own <= ERR_TIE:
        verdict = (f"from its random start SA's final subspace is within {ERR_TIE:g} of "
                   "batch's, so the start is not read")
    elif warm_part <= own / 2:
        verdict = ("from batch's start SA's final subspace stays within half of its own "
                   "run's distance to batch's: the random start, with the codes SA keeps from "
                   "its first frames, accounts for most of that part of the gap")
    else:
        verdict = ("from batch's start SA's final subspace is drawn away from batch's by more "
                   "than half of its own run's distance: that part of the gap lies in SA's "
                   "rule at these settings, not in its start")
    return f"{text}. {verdict[0].upper()}{verdict[1:]}."


#: the alternations after which :func:`_sa_refit_parts` scores the refitted subspace
SA_REFITS = (1, 3)


def _sa_refit_parts(Z, k: int, seed) -> dict:
    """SA at p = 1 on the run's stream (its first Poisson draw, from its random start, as
    run), then its final subspace refitted by SA's own rule on every frame with the codes
    recomputed by the tracker's coder from the subspace being refitted, in place of the
    codes SA stored as it went (each computed once, with the subspace of its time): each
    frame's relative error of SA's final subspace (``"final"``) and of the subspace after
    each count of such refits in :data:`SA_REFITS` (``"refit1"``, …), all coded again by
    the tracker's coder, as :func:`_sa_gap_parts` scores them. The refit is the SA rule's
    row problem with every frame kept at weight 1 (its forgetting and window off, as run)."""
    Y = _first_draw(Z, seed)
    model = PoissonSubspaceTracker(k, method="sa", random_state=seed)
    _frame_errors(model, Y, Z)
    out = {"final": _coded_errors(model, Y, Z)}
    seen = np.ones(Y.T.shape, bool)
    for i in range(1, max(SA_REFITS) + 1):
        A = model.transform(Y)  # the codes recomputed from the current subspace
        D = model._sa_rows(A.T, Y.T, seen, model.components_.T, 2.0 * model.lam * len(Y))
        model.components_ = np.ascontiguousarray(D.T)
        if i in SA_REFITS:
            out[f"refit{i}"] = _coded_errors(model, Y, Z)
    return out


#: how the reading of :func:`_sa_refit_parts` begins
REFIT_PARTS = "SA's final subspace refitted on codes recomputed from it"


def _sa_refit_note(refit: dict, parts: dict | None, frames: int = 25) -> str:
    """:func:`_sa_refit_parts` over the last ``frames`` frames, beside batch's subspace coded
    alike (:func:`_sa_gap_parts`' ``parts``, where kept). Read before its run: where one
    refit on recomputed codes closes at least half of the distance of SA's final subspace
    above batch's (both coded alike), the codes SA stores as it goes, each computed once
    with the subspace of its time, account for most of that part of SA's gap; where it
    closes less, they do not. A distance within the error tie is not read; the later refits
    are shown, not read."""
    counts = [i for i in SA_REFITS if f"refit{i}" in refit]
    text = (f"{REFIT_PARTS} (the refit SA makes at each step, on every frame, with the codes "
            "recomputed by the tracker's coder in place of those SA stored; the run's stream, "
            f"an untimed piece): on the last {frames} frames SA's final subspace "
            f"{_tail(refit['final'], frames):.3f}, after "
            + ", ".join(f"{i} refit{'s' if i > 1 else ''} {_tail(refit[f'refit{i}'], frames):.3f}"
                        for i in counts))
    if parts is None or 1 not in counts:  # the reading is of one refit
        return text + "."
    base = _tail(parts["batch_dict"], frames)
    own, once = _tail(refit["final"], frames) - base, _tail(refit["refit1"], frames) - base
    text += f", against batch's subspace coded alike {base:.3f}"
    if own <= ERR_TIE:
        verdict = (f"SA's final subspace is within {ERR_TIE:g} of batch's, so the refit is "
                   "not read")
    elif own - once >= own / 2:
        verdict = (f"one refit closes {(own - once) / own:.0%} of SA's final subspace's "
                   f"{own:.3f} above batch's: the codes SA stores as it goes, each computed "
                   "once with the subspace of its time, account for most of that part of "
                   "the gap")
    else:
        verdict = (f"one refit closes {(own - once) / own:.0%} of SA's final subspace's "
                   f"{own:.3f} above batch's: the codes SA stores do not account for most "
                   "of that part of the gap")
    return f"{text}. {verdict[0].upper()}{verdict[1:]}."


def _sa_lag_parts(Z, k: int, seed) -> dict:
    """SA's running estimates at p = 1 on the run's stream (its first Poisson draw, from
    its random start, as run) taken apart: each frame's relative error as run (``"online"``:
    D̂_n â_n, â_n coded from a random start with the subspace before it), with â_n replaced
    by the tracker's coder from its deterministic start on the same subspace (``"fixed"``:
    the same strictly convex code problem, so the two differ only where a solve stops
    short of its optimum), and of SA's final subspace with the frames coded again
    (``"sa_final"``, as :func:`_sa_gap_parts`). The deterministic codes are computed
    before each step without changing the run."""
    Y = _first_draw(Z, seed)
    est = PoissonSubspaceTracker(k, method="sa", random_state=seed)
    online, fixed = [], []
    for n in range(Y.shape[0]):
        code = est.transform(Y[n][None])[0] if n else None  # no model before the first
        _, rate = est.update(Y[n])
        online.append(rate)
        fixed.append(rate if code is None else code @ est.components_)
    return {"online": _relative_errors(np.array(online), Z),
            "fixed": _relative_errors(np.array(fixed), Z), "sa_final": _coded_errors(est, Y, Z)}


#: how the reading of :func:`_sa_lag_parts` begins
LAG_PARTS = "SA's running estimates at p = 1 taken apart"


def _sa_lag_note(lag: dict, frames: int = 25) -> str:
    """:func:`_sa_lag_parts` over the last ``frames`` frames. Read before its run: the
    running estimates' distance above SA's final subspace coded again is the sum of the
    coder's start (as run against the deterministic start, the same subspaces) and the
    subspace (each frame's codes and subspace at its step against the final subspace);
    where the coder's start is at least half of that distance, the code solves stopping
    short of their optimum from a random start account for most of it; where it is less,
    the subspace at each step does. A distance within the error tie is not read."""
    online, fixed, final = (_tail(lag[key], frames) for key in ("online", "fixed", "sa_final"))
    lead, start = online - final, online - fixed
    text = (f"{LAG_PARTS} (the run's stream, an untimed piece): on the last {frames} frames "
            f"SA as run {online:.4f}, with each frame coded from the deterministic start on "
            f"the same subspaces {fixed:.4f}, its final subspace coded again {final:.4f}: "
            f"the running estimates {lead:+.4f} above the final subspace, of which "
            f"{start:+.4f} from the codes' random start and {fixed - final:+.4f} from the "
            "subspace at each step")
    if lead <= ERR_TIE:
        verdict = (f"the running estimates are within {ERR_TIE:g} of the final subspace, so "
                   "the parts are not read")
    elif start >= lead / 2:
        verdict = (f"the codes' random start is {start / lead:.0%} of it: the code solves "
                   "stopping short of their optimum account for most of the running "
                   "estimates' distance")
    else:
        verdict = (f"the codes' random start is {start / lead:.0%} of it: the subspace at "
                   "each step, not the code solves, accounts for most of the running "
                   "estimates' distance")
    return f"{text}. {verdict[0].upper()}{verdict[1:]}."


def _sa_step_errors(Z, k: int, seed) -> dict:
    """SA at p = 1 on the run's stream (its first Poisson draw, from its random start, as
    run), each frame coded afresh by the tracker's coder on the subspace of its own step
    (D̂_n, after the step's update; ``"own"``), and SA's final subspace with the frames coded
    again (``"sa_final"``, as :func:`_sa_gap_parts`). The codes are computed after each
    step without changing the run."""
    Y = _first_draw(Z, seed)
    est = PoissonSubspaceTracker(k, method="sa", random_state=seed)
    own = []
    for n in range(Y.shape[0]):
        est.update(Y[n])
        own.append(est.transform(Y[n][None])[0] @ est.components_)
    return {"own": _relative_errors(np.array(own), Z), "sa_final": _coded_errors(est, Y, Z)}


#: how the reading of :func:`_sa_step_errors` begins
STEP_PARTS = "SA's running estimates at p = 1 against the subspace of each step"


def _sa_step_note(step: dict, lag: dict, frames: int = 25) -> str:
    """:func:`_sa_step_errors` beside :func:`_sa_lag_parts`' ``lag`` (the same run): the
    running estimates' distance above SA's final subspace on the last ``frames`` frames
    split once more, the subspace part into each frame coded with the subspace before its
    update (as run against coded afresh on its own step's subspace) and the subspaces of the
    steps themselves, coded afresh, against the final one; the first frames' numbers are
    shown. Read before its run: where the steps' own subspaces are at least half of the
    distance, SA's subspace still changes over the stream's last frames towards one that
    codes them better, and that accounts for most of it; where they are less, coding each
    frame with the subspace before its update does. A distance within the error tie is not
    read."""
    def split(sl):
        return {key: float(np.mean(np.asarray(v)[sl])) for key, v in
                (("online", lag["online"]), ("fixed", lag["fixed"]), ("own", step["own"]),
                 ("final", step["sa_final"]))}
    first, last = split(slice(None, frames)), split(slice(-frames, None))
    lead, learning = last["online"] - last["final"], last["own"] - last["final"]
    text = (f"{STEP_PARTS} (the run's stream, an untimed piece; each frame coded afresh on "
            "its own step's subspace, after the step's update, whose fit includes that frame): "
            f"on the last {frames} frames SA as run "
            f"{last['online']:.4f}, each frame's codes from the subspace before its update "
            f"{last['fixed']:.4f}, coded afresh on its own step's subspace {last['own']:.4f}, "
            f"the final subspace {last['final']:.4f}: of the running estimates' "
            f"{lead:+.4f} above the final subspace, {last['fixed'] - last['own']:+.4f} from "
            f"coding each frame with the subspace before its update and {learning:+.4f} from "
            f"the steps' subspaces themselves; on the first {frames} frames, in the same order, "
            f"{first['online']:.4f}, {first['fixed']:.4f}, {first['own']:.4f} and "
            f"{first['final']:.4f}")
    if lead <= ERR_TIE:
        verdict = (f"the running estimates are within {ERR_TIE:g} of the final subspace, so "
                   "the parts are not read")
    elif learning >= lead / 2:
        verdict = (f"the steps' own subspaces are {learning / lead:.0%} of the distance: SA's "
                   "subspace still changes over the stream's last frames towards one that "
                   "codes them better, and that accounts for most of the running estimates' "
                   "distance")
    else:
        verdict = (f"the steps' own subspaces are {learning / lead:.0%} of the distance: "
                   "coding each frame with the subspace before its update accounts for most "
                   "of it")
    return f"{text}. {verdict[0].upper()}{verdict[1:]}."


def _rejudge_video(res: Result) -> Result:
    """A kept wang-chi-video result judged by the current rules, from its table (a result
    kept before batch's first 25 frames were tabled reads batch's mean at both ends)."""
    rows = res.tables[0][2]
    claims = []
    for p in dict.fromkeys(r[0] for r in rows):
        batch = next(r for r in rows if r[0] == p and r[1].startswith("batch"))
        b_first = None if batch[2] == "—" else float(batch[2])
        for r in rows:
            if r[0] == p and r[1] in VIDEO_METHODS:
                claims.append(_video_claim(p, float(r[2]), float(r[3]), b_first,
                                           float(batch[3]), r[1]))
    res.claims = claims
    return res


def _video_later(res: Result, ctx: Context) -> Result:
    """A wang-chi-video result with the readings of its later pieces where they are kept,
    in place of any earlier readings: the longer stream (:func:`_longer_stream`, piece
    ``wang-chi-video-longer``) and, at the paper's scale only (where SA runs), SA's gap taken
    apart (:func:`_sa_gap_parts`, ``…-sa-gap``, and at p = 0.5 ``…-sa-gap-half``), SA
    from batch's subspace
    (:func:`_sa_warm_parts`, ``…-sa-from-batch``), SA's subspace refitted on recomputed codes
    (:func:`_sa_refit_parts`, ``…-sa-refit`` and its refit counts), SA's running
    estimates taken apart (:func:`_sa_lag_parts`, ``…-sa-lag``) and, beside them, each
    step's own subspace (:func:`_sa_step_errors`, ``…-sa-step``); and each claim that one
    frame decides flagged (:func:`_video_edges`)."""
    def kept(key, compute, paper_only=True):
        if paper_only and ctx.quick:
            return None
        try:
            return ctx.memo(f"wang-chi-video-{key}", compute)
        except PieceMissing:
            return None

    def frames():
        return _video_stream_frames(ctx)[0], _video_rank(ctx), ctx.seed

    longer = kept("longer", lambda: _longer_stream(*frames(), _video_batch_iters(ctx)),
                  paper_only=False)
    parts = kept("sa-gap", lambda: _sa_gap_parts(*frames(), _video_batch_iters(ctx)))
    half = kept("sa-gap-half", lambda: _sa_gap_parts(*frames(), _video_batch_iters(ctx), 0.5))
    warm = kept("sa-from-batch", lambda: _sa_warm_parts(*frames(), _video_batch_iters(ctx)))
    refit = kept("sa-refit" + "-".join(map(str, SA_REFITS)),
                 lambda: _sa_refit_parts(*frames()))
    lag = kept("sa-lag", lambda: _sa_lag_parts(*frames()))
    step = None if lag is None else kept("sa-step", lambda: _sa_step_errors(*frames()))
    notes = [None if longer is None else _longer_note(longer),
             None if parts is None else _sa_gap_note(parts),
             None if half is None else _sa_gap_note(half, p=0.5),
             None if warm is None else _sa_warm_note(warm, parts),
             None if refit is None else _sa_refit_note(refit, parts),
             None if lag is None else _sa_lag_note(lag),
             None if step is None else _sa_step_note(step, lag)]
    res.notes = [n for n in res.notes
                 if not n.startswith((LONGER, GAP_PARTS, _gap_head(0.5), WARM_PARTS,
                                      REFIT_PARTS, LAG_PARTS, STEP_PARTS))]
    res.notes += [n for n in notes if n]
    _video_edges(res)
    return res


def _video_rank(ctx: Context) -> int:
    """Fig. 9's rank K (40)."""
    return ctx.pick(40, 40, tiny=5)


def _video_batch_iters(ctx: Context) -> int:
    """The batch substitute's iterations in Fig. 9."""
    return ctx.pick(8, 30, tiny=2)


def _video_stream_frames(ctx: Context):
    """:func:`_video_frames` cut to the run's stream (shorter below the paper's scale)."""
    Z, shape, src = _video_frames(ctx)
    if ctx.quick:
        Z = Z[:ctx.pick(100, None, tiny=30)]
    return Z, shape, src


@register("wang-chi-video", "003", "Poisson video recovery with missing pixels (Figs. 8–9)",
          departures=(
              "The paper's video has 250 frames of 50×50; the Hall sequence here has 200 "
              "(downscaled to 50×50): the data hold no more frames, so the stream is a fifth "
              "shorter and 'the last 25 frames' end at frame 200. The effect of the length is "
              "read on the video played twice (a note below).",),
          rejudge=lambda res: _rejudge_video(res), later=lambda res, ctx: _video_later(res, ctx),
          rules=WANG_CHI_RULES)
def video(ctx: Context) -> Result:
    Z, shape, src = _video_stream_frames(ctx)
    k = _video_rank(ctx)
    draws = _video_draws(Z, ctx.seed)
    res = Result()
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.5))
    panels, rows, marks, firsts = [], [], [], {}
    methods = ("ml",) if ctx.quick else ("ml", "sa")
    for ax, (p, Y) in zip(axes, draws.items()):
        for method in methods:
            est = PoissonSubspaceTracker(k, method=method, random_state=ctx.seed)
            mid = Z.shape[0] // 2  # Fig. 8 shows the middle frame's estimate
            errs, recon = _frame_errors(est, Y[:mid + 1], Z[:mid + 1])
            errs += _frame_errors(est, Y[mid + 1:], Z[mid + 1:])[0]
            ax.plot(errs, label=method.upper())
            firsts[(p, method.upper())] = float(errs[0])
            marks.append(f"p = {p:g}, {method.upper()}: " + ", ".join(
                f"{i + 1}: {errs[i]:.3f}" for i in _mark_frames(len(errs))))
            rows.append([p, method.upper(), f"{np.mean(errs[:VIDEO_ENDS]):.3f}",
                         f"{np.mean(errs[-VIDEO_ENDS:]):.3f}"])
            panels.append((f"{method.upper()}, p={p}", recon))
        Db, A = batch_poisson_factorization(np.nan_to_num(Y), k, ~np.isnan(Y),
                                            n_iter=_video_batch_iters(ctx),
                                            random_state=ctx.seed)
        be = np.linalg.norm(A @ Db.T - Z, axis=1) / np.linalg.norm(Z, axis=1)
        # the online methods' last 25 frames are set against batch's on the same frames
        # (the frames differ in difficulty: batch's error is not flat over the video)
        be_end = float(np.mean(be[-VIDEO_ENDS:]))
        ax.plot(be, color="k", ls="--", lw=0.8, label="batch (substitute)")
        marks.append(f"p = {p:g}, batch: " + ", ".join(
            f"{i + 1}: {be[i]:.3f}" for i in _mark_frames(len(be))))
        if p == 1.0:  # online RPCA (Gaussian, no missing data), as the paper compares
            from ..baselines import ORPCA

            orpca = ORPCA(k, lam1=1.0 / np.sqrt(Z.shape[1]), lam2=1.0 / np.sqrt(Z.shape[1]),
                          random_state=ctx.seed)
            oe = []
            for n in range(Z.shape[0]):
                orpca.partial_fit(Y[n:n + 1])
                low, _ = orpca.decompose(Y[n:n + 1])
                oe.append(np.linalg.norm(low[0] - Z[n]) / np.linalg.norm(Z[n]))
            ax.plot(oe, label="online RPCA")
            rows.append([p, "online RPCA (Feng et al.)", f"{np.mean(oe[:VIDEO_ENDS]):.3f}",
                         f"{np.mean(oe[-VIDEO_ENDS:]):.3f}"])
        rows.append([p, "batch (substitute)", f"{np.mean(be[:VIDEO_ENDS]):.3f}", f"{be_end:.3f}"])
        panels.append((f"batch, p={p}", (A @ Db.T)[Z.shape[0] // 2]))
        ax.set(title=f"p = {p}", xlabel="frame", ylabel="relative frame error", yscale="log")
        ax.legend(fontsize=7)
        for r in rows:
            if r[0] == p and r[1] in VIDEO_METHODS:
                res.claims.append(_video_claim(p, float(r[2]), float(r[3]),
                                               float(np.mean(be[:VIDEO_ENDS])), be_end, r[1],
                                               (firsts[(p, r[1])], float(be[0]))))
    save_figure(ctx, res, fig, "wang_chi_fig9_video.png",
                "Fig. 9: relative frame error against the frame index")
    fpath = ctx.figure_path("wang_chi_fig8_video_frames.png")
    fig, axes = plt.subplots(1, len(panels) + 1, figsize=(2 * (len(panels) + 1), 2.2))
    for ax_, (title, im) in zip(axes, [("original", Z[Z.shape[0] // 2])] + panels):
        ax_.imshow(np.clip(im, 0, 255).reshape(shape), cmap="gray", vmin=0, vmax=255)
        ax_.set_title(title, fontsize=7)
        ax_.axis("off")
    fig.tight_layout()
    fig.savefig(fpath, dpi=100)
    plt.close(fig)
    res.figures.append(("Fig. 8: a frame and its recoveries", fpath))
    res.tables.append(("Mean relative frame error", ["p", "method", "first 25 frames",
                                                     "last 25 frames"], rows))
    res.notes.append(f"Data: {src}, gray levels 0–255 used as Poisson rates (the paper does "
                     f"not state its scaling), K={k}, λ=0.2, μ=0.1. The online error at frame n "
                     "uses that step's estimate D̂_n â_n.")
    res.notes.append(f"{MARKS_HEAD} (frame: error), which "
                     "tells a method that improves within the first 25 frames, and so shows "
                     "little fall between their mean and the last 25 frames', from one that "
                     "does not improve: " + "; ".join(marks) + ".")
    return _video_later(res, ctx)  # the paper's stream is longer than the video


def _mark_frames(n: int) -> list[int]:
    """Frame indices (0-based) at which a video's error curve is quoted: the first frame,
    the 5th, 10th, 25th, 50th and 100th where the stream has them, and the last."""
    return sorted({i for i in (0, 4, 9, 24, 49, 99) if i < n} | {n - 1})


# ----------------------------------------------------------------------------- Table I, Fig. 10
TABLE_ONE = (("iraq", "terrorists", "terror", "afghanistan"),
             ("war", "enemy", "japanese", "german"),
             ("energy", "nuclear", "development", "policy"),
             ("island", "islands", "philippine", "military"))
# Fig. 10's dating of the matched topics: (topic, years where it should be strongest)
TABLE_ONE_YEARS = ((0, (2001, 2014)), (1, (1917, 1945)), (3, (1898, 1913)))


def _top_words(D, terms, n: int = 10) -> list[set]:
    """Each learned topic's ``n`` heaviest words (ties in vocabulary order): what Table I's
    topics are matched against."""
    return [set(terms[np.argsort(-D[j], kind="stable")[:n]]) for j in range(D.shape[0])]


def _table_one_match(D, intensity, terms, years) -> tuple:
    """Match Table I's four topics automatically: ``(rows, hits, dated)``.

    A paper topic is matched by the learned topic whose top 10 words share the most of its 4
    words (at least 2); ``rows`` shows each best topic, ``hits`` counts the matches and
    ``dated`` holds, for each matched topic Fig. 10's comment dates, (paper topic, its mean
    intensity inside those years, outside them); the Philippine–American war is dated
    1898–1913.
    """
    terms = np.asarray(terms)
    tops = _top_words(D, terms)
    matches, rows = [], []
    for words in TABLE_ONE:
        overlap = [len(t & set(words)) for t in tops]
        j = int(np.argmax(overlap))
        matches.append(j if overlap[j] >= 2 else None)
        # a topic that shares no word is no candidate: none is named
        rows.append([" / ".join(words), f"topic {j}" if overlap[j] else "none",
                     f"{overlap[j]} of 4", ", ".join(terms[np.argsort(-D[j], kind="stable")[:6]])
                     if overlap[j] else "—"])
    years = np.asarray(years)
    dated = []
    for i, (lo, hi) in TABLE_ONE_YEARS:
        if matches[i] is None:
            continue
        inside = (years >= lo) & (years <= hi)
        a = intensity[:, matches[i]]
        dated.append((i, float(a[inside].mean()), float(a[~inside].mean())))
    return rows, sum(m is not None for m in matches), dated


def _table_one_claims(D, intensity, terms, years, n_terms, res) -> list:
    """Table I's four topics matched (:func:`_table_one_match`, its table added to ``res``)
    and their dating in Fig. 10 judged."""
    rows, hits, dated = _table_one_match(D, intensity, terms, years)
    res.tables.append(("Table I matched automatically (top 10 words of the best learned topic)",
                       ["paper's topic", "learned", "shared words", "its top words"], rows))
    return _sotu_claims(hits, n_terms, dated)


def _paper_size_note(D, A, terms, years, threshold: int, as_run: int) -> str:
    """Table I's matches and Fig. 10's dating read again on a pass over the vocabulary cut
    to the paper's size (``threshold``: the total count that gives the paper's 2216 terms;
    ``A``, ``D``: that pass's codes and topics), beside the ``as_run`` matches: whether the
    vocabulary's size, a departure from the paper, accounts for the claims' shortfall. The
    threshold is chosen to match the paper's number, not by the paper's stated rule, so the
    verdicts keep their reading."""
    intensity = A / np.maximum(A.sum(axis=1, keepdims=True), 1e-12)
    rows, hits, dated = _table_one_match(D, intensity, terms, years)
    ok = sum(inn > 2 * out for _, inn, out in dated)
    return (f"Second reading, the vocabulary cut to the paper's size (total count ≥ "
            f"{threshold}, {len(terms)} terms, the same SA pass otherwise, one seed): Table I "
            f"matched {hits} of 4, against {as_run} as run ("
            + "; ".join(f"{r[0]}: {r[2]}" + (f" in {r[1]}" if r[1] != "none" else "")
                        for r in rows)
            + f"); of the matched topics Fig. 10 dates, {ok} of {len(dated)} are at least "
            "twice as intense inside their years as outside"
            + ("" if not dated else " (" + "; ".join(
                f"{TABLE_ONE[i][0]}: {inn:.3f} vs {out:.3f}" for i, inn, out in dated) + ")")
            + (f". On this seed the smaller vocabulary matches "
               f"{'fewer' if hits < as_run else 'as many'} of Table I's topics: its size alone "
               "does not recover the matches" if hits <= as_run else
               ". On this seed the smaller vocabulary matches more of Table I's topics: its "
               "size accounts for part of the shortfall")
            + ". The verdicts stay with the stated rule (a total count ≥ 20): this cut is "
            "chosen to hit the paper's number, not read from its recipe.")


def _table_one_diagnosis(D, Y, terms, years) -> str:
    """What the corpus and the learned topics hold of Table I's words, measured: each word's
    count in the corpus and its best rank over the learned topics (``—`` when the vocabulary
    lacks it), and, for the topics Fig. 10 dates, the share of their words among all words
    inside their years against outside: the addresses' mean rate of those words per
    thousand counted terms (the vocabulary kept after the filtering), what the corpus itself
    says of the peak."""
    terms = np.asarray(terms)
    index = {t: i for i, t in enumerate(terms)}
    # ranks[j, w]: w's rank in topic j (ties in vocabulary order)
    ranks = np.argsort(np.argsort(-D, axis=1, kind="stable"), axis=1, kind="stable")
    total = Y.sum(axis=0)
    parts = []
    for words in TABLE_ONE:
        cells = []
        for w in words:
            i = index.get(w)
            cells.append(f"{w} —" if i is None else
                         f"{w} {total[i]:.0f}× (rank {int(ranks[:, i].min()) + 1})")
        parts.append(", ".join(cells))
    years = np.asarray(years)
    share = []
    for t, (lo, hi) in TABLE_ONE_YEARS:
        cols = [index[w] for w in TABLE_ONE[t] if w in index]
        inside = (years >= lo) & (years <= hi)
        rate = Y[:, cols].sum(axis=1) / np.maximum(Y.sum(axis=1), 1.0)
        share.append(f"{' / '.join(TABLE_ONE[t])}: {1e3 * rate[inside].mean():.2f} per "
                     f"thousand counted terms in {lo}–{hi} against "
                     f"{1e3 * rate[~inside].mean():.2f} outside")
    return ("Table I's words in this corpus (count, and best rank over the learned topics' "
            "word lists): " + "; ".join(parts) + ". The dated topics' words in the "
            "addresses themselves (each address's rate among its terms of the vocabulary, "
            "averaged): " + "; ".join(share) + ".")


def _dating_diagnosis(D, intensity, terms, years) -> str:
    """For each topic Fig. 10 dates, the learned topic most concentrated in its years (the
    largest mean intensity inside them over outside, among the topics holding at least one
    of its Table I words in their top 10) beside the one the automatic match picks: whether
    the era's topic was learned but holds too few of the paper's words to be matched."""
    terms = np.asarray(terms)
    years = np.asarray(years)
    tops = _top_words(D, terms)
    parts = []
    for i, (lo, hi) in TABLE_ONE_YEARS:
        words = set(TABLE_ONE[i])
        inside = (years >= lo) & (years <= hi)
        ratio = intensity[inside].mean(axis=0) / np.maximum(intensity[~inside].mean(axis=0),
                                                              1e-12)
        overlap = np.array([len(t & words) for t in tops])
        matched = int(np.argmax(overlap))
        held = np.flatnonzero(overlap >= 1)
        best = int(held[np.argmax(ratio[held])]) if held.size else matched

        def describe(j, overlap=overlap, ratio=ratio):
            top = ", ".join(terms[np.argsort(-D[j], kind="stable")[:6]])
            return (f"topic {j} ({top}; {overlap[j]} of its 4 words, peak "
                    f"{years[np.argmax(intensity[:, j])]}, {ratio[j]:.1f}× inside)")

        label = "matched " if overlap[matched] >= 2 else "none matched; the best overlap "
        parts.append(f"{' / '.join(TABLE_ONE[i])} ({lo}–{hi}): {label}"
                     + describe(matched) + ("; it is also the most concentrated" if
                                            best == matched else
                                            "; most concentrated " + describe(best)))
    return ("The dated topics' eras in the learned topics (intensity inside the years over "
            "outside): " + "; ".join(parts) + ".")


def _rejudge_sotu(res: Result) -> Result:
    """A kept wang-chi-sotu result judged by the current rules, from its measured values
    (matched topics, vocabulary size, intensities inside and outside their years)."""
    import re

    old = {c[0].split(" (")[0]: c[2] for c in res.claims}
    hits = int(old["Table I topics matched automatically"].split()[0])
    n_terms = int(old["vocabulary after removing stop words and terms seen < 20 times"]
                  .split()[0])
    dated = [(int(i) - 1, float(a), float(b)) for i, a, b in re.findall(
        r"topic (\d+): ([\d.]+) inside vs ([\d.]+) outside",
        old.get("matched topics strongest in their years", ""))]
    res.claims = _sotu_claims(hits, n_terms, dated)
    return res


#: the vocabulary size the paper reports for its State of the Union corpus (§V-C)
SOTU_PAPER_TERMS = 2216


def _paper_size_threshold(total, target: int = SOTU_PAPER_TERMS) -> int:
    """The total-count threshold (from 20 up) whose vocabulary is nearest ``target`` terms;
    ``total``: each term's count over the corpus."""
    sizes = np.array([(total >= t).sum() for t in range(20, 401)])
    return 20 + int(np.argmin(np.abs(sizes - target)))


def _vocabulary_note(C, cv, texts, target: int = SOTU_PAPER_TERMS) -> str:
    """The paper's N = 2216 under each reading of "removing stop words and terms which appear
    less than 20 times in the address" (§V-C), measured on the count matrix ``C`` (documents
    × terms, stop words removed by the vectorizer ``cv``): the total count, the documents, the
    largest count in one address, the stop list's share, and the total-count threshold that
    would give ``target`` (the paper's 2216)."""
    from sklearn.feature_extraction.text import CountVectorizer

    total = np.asarray(C.sum(axis=0)).ravel()
    in_docs = int((np.asarray((C > 0).sum(axis=0)).ravel() >= 20).sum())
    in_one = int((np.asarray(C.max(axis=0).toarray()).ravel() >= 20).sum())
    bare = CountVectorizer(token_pattern=cv.token_pattern).fit_transform(texts)
    unstopped = int((np.asarray(bare.sum(axis=0)).ravel() >= 20).sum())
    at = _paper_size_threshold(total, target)
    return (f"Vocabulary rules measured: a total count ≥ 20 gives {(total >= 20).sum()} terms, "
            f"≥ 20 documents {in_docs}, ≥ 20 times within one address {in_one}; without the "
            f"stop list a total count ≥ 20 gives {unstopped}, so the stop list removes "
            f"{unstopped - (total >= 20).sum()} of them. The paper's {target} would "
            f"need a total count ≥ {at} ({(total >= at).sum()} terms), {at / 20:.1f}× the "
            "stated 20. Table I lists 'island' beside 'islands', so the paper's vocabulary "
            "was not stemmed (a stemmer would merge the two); its tokenizer and stop list are "
            "unstated.")


def _sotu_claims(hits: int, n_terms: int, dated) -> list:
    """Table I and Fig. 10's claims: ``hits`` of Table I's four topics matched, the
    vocabulary size, and ``dated`` = (paper topic, mean intensity inside its years, outside)
    for the matched topics that Fig. 10 dates."""
    out = [claim("Table I topics matched automatically (≥ 2 of 4 words in a learned "
                 "topic's top 10)", "4 example topics and their top words (Table I)",
                 f"{hits} of 4 matched", *count_band(hits, 4, 2),
                 why="Table I's topics should be found again; two shared words of four in a "
                     "topic's top ten identify one"),
           claim("vocabulary after removing stop words and terms seen < 20 times",
                 "\"yielding a V of size N = 2216\" (§V-C)",
                 f"{n_terms} ({n_terms / SOTU_PAPER_TERMS:.2f}× the paper's)",
                 *ratio_band(n_terms / SOTU_PAPER_TERMS, 1.0, rel=0.1, factor=1.5),
                 why="the vocabulary follows from the recipe the paper states; ±10% allows "
                     "a different tokenizer or stop list, and beyond ×1.5 of that the recipe "
                     "is not the paper's")]
    if dated:
        ok = sum(inn > 2 * out_ for _, inn, out_ in dated)
        lo, hi = dict(TABLE_ONE_YEARS)[3]
        out.append(claim("matched topics strongest in their years (Fig. 10: after 2001, the "
                         f"world wars; the Philippine–American war dated here, {lo}–{hi})",
                         "\"its intensity strongly presents after year 2001\"; \"reaches the "
                         "highest point\" at the world wars; \"the inferred intensity "
                         "dynamically tracks the topics mentioned in these addresses\" (§V-C, "
                         "Fig. 10)",
                         "; ".join(f"topic {i + 1}: {inn:.3f} inside vs {o:.3f} outside"
                                   for i, inn, o in dated),
                         *count_band(ok, len(dated), 1),
                         why="a topic that 'strongly presents' in its years is at least twice "
                             "as intense inside them as outside"))
    else:
        out.append(claim("matched topics strongest in their years (Fig. 10)",
                         "peaks at those years (§V-C, Fig. 10)", "no Table I topic matched",
                         NOT_REPRODUCED, "needs matched topics",
                         why="a topic not found cannot be dated"))
    return out


@register("wang-chi-sotu", "003", "State of the Union topics and their intensity over time "
          "(Table I, Fig. 10)", rejudge=lambda res: _rejudge_sotu(res), rules=WANG_CHI_RULES,
          departures=("The corpus here holds 224 addresses where the paper's holds 225, and "
                      "its vocabulary after the paper's filtering has 5156 terms against the "
                      "paper's 2216 (the claim on the vocabulary reports it).",))
def sotu(ctx: Context) -> Result:
    from ..datasets import find_data, load_sotu, make_topic_stream

    path = find_data(ctx.data_dir, "sotu", "stateoftheunion1790-2017.txt.gz")
    res = Result()
    if path:
        from sklearn.feature_extraction.text import CountVectorizer

        sotu_texts = load_sotu(path)
        years, texts = sotu_texts.years, sotu_texts.data
        cv = CountVectorizer(stop_words="english", token_pattern=r"(?u)\b[a-zA-Z]{2,}\b")
        C = cv.fit_transform(texts)
        total = np.asarray(C.sum(axis=0)).ravel()
        keep = np.flatnonzero(total >= 20)
        res.notes.append(_vocabulary_note(C, cv, texts))
        Y = C[:, keep].toarray().astype(float)
        terms = cv.get_feature_names_out()[keep]
        k, planted = 50, None
    else:
        Y, terms, years, planted = make_topic_stream(random_state=ctx.seed)
        terms = np.array(terms)
        k = 5
    method = "sa" if (not ctx.quick or not path) else "ml"

    def fit(Y):
        """The codes and topics of one pass over ``Y``, kept as a piece (the report and its
        figure are assembled from it again without refitting)."""
        def one_pass():
            est = PoissonSubspaceTracker(k, method=method, lam=0.15, mu=0.1,
                                         random_state=ctx.seed)
            return np.array([est.update(y)[0] for y in Y]), est.components_
        return ctx.memo(f"wang-chi-sotu-{method}-{k}-{Y.shape[1]}", one_pass)

    A, D = fit(Y)
    intensity = A / np.maximum(A.sum(axis=1, keepdims=True), 1e-12)
    order = np.argsort(-intensity.max(axis=0))[: min(8, k)]
    top = [[str(terms[i]) for i in np.argsort(-D[j], kind="stable")[:6]] for j in order]
    res.tables.append(("Top words of the topics with the highest peak intensity",
                       [f"topic {j}" for j in order], [list(r) for r in zip(*top)]))
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(10, 3.5))
    for j in order[:4]:
        ax.plot(years, intensity[:, j], label=", ".join(top[list(order).index(j)][:3]))
    ax.set(xlabel="year", ylabel=r"topic intensity $a_{n,i}\,/\,\Sigma_j\,a_{n,j}$")
    ax.legend(fontsize=7)
    save_figure(ctx, res, fig, "wang_chi_fig10_sotu.png",
                "Fig. 10: intensity of four topics over time")
    if planted is not None:
        # match learned topics to planted ones by the correlation of their intensity curves
        corr = np.corrcoef(intensity.T, planted.T)[:k, k:]
        best = np.nan_to_num(corr).max(axis=0)
        res.claims.append(claim("planted topic intensities recovered (embedded stream)",
                                "topics interpretable, intensities historically consistent",
                                "best correlation per planted topic: "
                                + ", ".join(f"{b:.2f}" for b in best),
                                *at_least(float(np.median(best)), 0.7, 0.4,
                                          "median correlation"), source=SPEC,
                                why="a stand-in for the paper's data: planted intensities "
                                    "should be found again"))
    else:
        res.claims += _table_one_claims(D, intensity, terms, years, Y.shape[1], res)
        res.notes.append(_table_one_diagnosis(D, Y, terms, years))
        at = _paper_size_threshold(total)
        cut = np.flatnonzero(total >= at)
        try:  # the same pass over the vocabulary cut to the paper's size (a second reading)
            A2, D2 = fit(C[:, cut].toarray().astype(float))
            res.notes.append(_paper_size_note(
                D2, A2, cv.get_feature_names_out()[cut], years, at,
                _table_one_match(D, intensity, terms, years)[1]))
        except PieceMissing:
            pass
        res.notes.append(_dating_diagnosis(D, intensity, terms, years))
    src = "State of the Union 1790–2014 (from --data-dir)" if path else \
        "embedded five-topic stream with planted intensities"
    res.notes.append(f"Data: {src}; {Y.shape[0]} documents, vocabulary {Y.shape[1]} (the paper "
                     f"has 2216 with its tokenizer); K={k}, λ=0.15, μ=0.1, method "
                     f"{method.upper()} (the paper uses SA).")
    return res
