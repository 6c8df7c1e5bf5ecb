"""The parameter grids of Zhao and Tan 2016 (§VII-D3, Figs. 2, 4, 5 on the synthetic data;
§VII-D5 and Section S-10, Figs. 11, 13, 14 on CBCL): one online pass per grid value, the
timing protocol for the grids whose claim reads seconds, and the CBCL claim that reads the
τ, ρ and κ legs together."""

from __future__ import annotations

import functools

from ..estimators import RobustSolver
from ._registry import Context, PieceMissing, Result, pyplot, save_figure
from ._verdicts import (
    EDGE_MARK,
    NOT_MEASURED,
    REPRODUCED,
    claim,
    common_level_times,
    fmt_times,
    judge,
    speed_band,
    worst,
)
from ._zhao_tan_diagnoses import (
    _caps_diagnosis,
    _caps_note,
    _own_descent_medians,
    _speed_spread,
    _stalled,
    _timed_histories,
    paper_pass,
    rho_rule_notes,
    split_text,
    stall_note,
)

#: the synthetic grids (§VII-D3): τ "from 5 to 40 in a log-scale" (Fig. 2), ρ "from 1 to
#: 1000 on a log-scale" (Fig. 4); the paper gives no κ grid (Fig. 5), this one is ours
SENSITIVITY_GRIDS = (("batch_size", (5, 10, 20, 40), "admm"),
                     ("rho", (1, 10, 100, 1000), "admm"),
                     ("kappa", (0.1, 0.4, 0.7, 1.0), "pgd"))

#: Section S-10's CBCL grids: Fig. 11 runs τ for both online algorithms, Figs. 13(b) and
#: 14(b) run ρ for OADMM and κ for OPGD, on the synthetic grids' values
CBCL_GRIDS = (("batch_size", (5, 10, 20, 40), "pgd"),) + SENSITIVITY_GRIDS

#: each CBCL leg's figure
CBCL_FIGURES = {("batch_size", "pgd"): "Fig. 11(a)", ("batch_size", "admm"): "Fig. 11(b)",
                ("rho", "admm"): "Fig. 13(b)", ("kappa", "pgd"): "Fig. 14(b)"}

#: a grid leg's parameter as the claims print it
SYMBOL = {"batch_size": "τ", "rho": "ρ", "kappa": "κ"}

#: the rule of the grids across ρ and κ, which do not read speeds (the paper expects slower
#: runs as ρ grows): every run reaches the level all of them share
CONVERGE_BAND = ("reproduced if every run descends to the common level (90% of the common "
                 "descent) within the pass; not if a run does not descend or stays apart "
                 "from the others")


def grid_pass(X, k: int, seed, solver: str = "admm", kappa="auto", rho: float = 1.0, **kw):
    """The history of one online pass (OADMM for ``solver="admm"``, OPGD for ``"pgd"``)
    over X at the paper's settings, with one grid parameter changed: ``rho`` or ``kappa``
    reach the solver, ``batch_size`` (τ) or ``n_components`` (K) the estimator."""
    return paper_pass(X, k, seed, RobustSolver(solver, kappa=kappa, rho=rho), **kw).history_


def _protocol_text(ctx: Context, name: str, every: list, level, shares) -> str:
    """How a grid's speed claim was timed under the protocol, and how its verdict reads over
    every choice of one run per setting."""
    text = (f"; the median of {ctx.repeats} runs of each, timed alone (each run's seconds on "
            "its own clock)")
    if shares is not None:
        text += f"; over every choice of one run per {name}: " + _speed_spread(every, level)
    return text


def _timed_grid_table(title: str, name: str, values, every: list, timed: list) -> tuple:
    """A grid's runs under the timing protocol: each run's seconds to the claim's level and
    the whole fit's time (its curve's bookkeeping included)."""
    return (f"{title} under the timing protocol: each run's seconds to the level its claim "
            "reads, and its whole fit with its curve's bookkeeping (the time the rerun rule "
            "reads)",
            [name, "seconds to the level, each run", "the whole fit"],
            [[v, ", ".join(f"{t:.3g}" for t in secs), runs.describe()]
             for v, secs, (runs, _) in zip(values, every or [[]] * len(values), timed)])


def timed_grid(ctx: Context, key: str, name: str, title: str, values, fit,
               same_level: bool, prepare=None):
    """A speed grid's runs ``fit(value)`` timed again alone (the piece ``key``), read under
    the timing protocol: ``(seconds, level, how, table, the histories of the runs whose
    values were kept)``, or None while the piece is missing or holds fewer runs than the
    protocol's. ``prepare()``, when given, runs once before the timed runs (building their
    data outside the timing)."""
    def runs():
        if prepare is not None:
            prepare()
        return [_timed_histories(ctx, lambda v=v: fit(v)) for v in values]

    try:
        timed = ctx.memo(key, runs)
    except PieceMissing:
        return None
    if not all(len(runs.kept) >= ctx.repeats for runs, _ in timed):
        return None
    shares, level, every = _own_descent_medians(timed, same_level=same_level)
    return (shares, level, _protocol_text(ctx, name, every, level, shares),
            _timed_grid_table(title, name, values, every, timed),
            [hists[runs.value_run] for runs, hists in timed])


def _rest_times(hists: dict) -> tuple[list, list | None, object]:
    """A grid's values without its smallest, and their runs read as the grid's claim reads
    them (:func:`common_level_times`): ``(values, seconds, level)``."""
    rest = sorted(hists)[1:]
    return (rest, *common_level_times([hists[v] for v in rest]))


def _without_smallest(param: str, hists: dict, decides: bool = True,
                      name: str | None = None) -> str:
    """The runs of a grid (``hists``: value → curve) without its smallest value
    (:func:`_rest_times`): shown beside a verdict whose grid is this implementation's (the
    paper gives only the canonical κ). ``decides``: whether the grid's verdict is its
    claim's, so that a reading that differs flags it; ``name``: the parameter as the text
    prints it (``param`` by default)."""
    name = name or param
    rest, times, level = _rest_times(hists)
    return (f"; without {name} = {min(hists):g} (the grid's smallest; the paper gives no "
            "grid, only the canonical value): "
            + fmt_times(times, [f"{name}={v:g}" for v in rest], level)
            + (": every run reaches the common level, which the claim's band reads "
               "reproduced, so this implementation's choice of the grid decides the verdict, "
               f"{EDGE_MARK} (the grid's), where the two readings' verdicts differ"
               if times is not None and decides else ""))


def cbcl_grid_legs(ctx: Context, X, k: int, values=None) -> list[dict]:
    """Section S-10's CBCL runs across τ, ρ and κ (:data:`CBCL_GRIDS`, each value's run
    one pass over ``X()``, the contaminated faces at the canonical setting). The τ legs
    read seconds, so their runs are timed by the protocol (the pieces
    ``zhao-tan-cbcl-batch_size-timed-{solver}``); the ρ and κ runs are untimed pieces
    (``zhao-tan-cbcl-{param}-{value}``). ``values`` maps a parameter to a shorter grid (the
    quick scales). Each leg: ``param``, ``solver``, ``values``, ``histories`` (None while
    its pieces are missing), ``verdict``, ``text`` and, for a τ leg, its timing ``table``.
    ``X()`` is built once, at the first run that needs it, outside any timed fit."""
    data = functools.cache(X)
    legs = []
    for param, grid, solver in CBCL_GRIDS:
        grid = (values or {}).get(param, grid)
        leg = {"param": param, "solver": solver, "values": list(grid), "histories": None,
               "verdict": NOT_MEASURED, "table": None, "alt": None,
               "text": "not measured: its runs are not made"}
        labels = [f"{SYMBOL[param]}={v:g}" for v in grid]
        if param == "batch_size":
            timed = timed_grid(
                ctx, f"zhao-tan-cbcl-batch_size-timed-{solver}", "τ",
                f"CBCL, O{solver.upper()} across τ ({CBCL_FIGURES[param, solver]})", grid,
                lambda v, solver=solver: grid_pass(data(), k, ctx.seed, solver, batch_size=v),
                same_level=True, prepare=data)
            if timed is not None:
                shares, level, how, leg["table"], leg["histories"] = timed
                leg["verdict"] = speed_band(shares, level)[0]
                leg["text"] = fmt_times(shares, labels, level) + how
        else:
            try:
                hists = [ctx.memo(f"zhao-tan-cbcl-{param}-{v:g}",
                                  lambda v=v, param=param, solver=solver: grid_pass(
                                      data(), k, ctx.seed, solver, **{param: v}))
                         for v in grid]
            except PieceMissing:
                hists = None
            if hists is not None:
                shares, level = common_level_times(hists)
                finals = [float(h["objective"][-1]) for h in hists]
                how, alt = "", None
                if param == "kappa" and shares is None and len(grid) > 2:
                    by_value = dict(zip(grid, hists))
                    how = _without_smallest(param, by_value, decides=False, name=SYMBOL[param])
                    alt = judge(_rest_times(by_value)[1] is not None)
                leg.update(histories=hists, verdict=judge(shares is not None), alt=alt,
                           text=fmt_times(shares, labels, level) + "; final f̃ max/min = "
                           f"{max(finals) / min(finals):.3f} (untimed runs)" + how)
        legs.append(leg)
    return legs


def cbcl_grids_claim(legs: list[dict]) -> list:
    """§VII-D5's "insensitive to the key parameters (τ, K, ρ and κ)" on CBCL, its τ, ρ and κ
    legs (Figs. 11, 13(b), 14(b); the K leg, Fig. 12, is its own claim): each leg read as its
    synthetic counterpart is, since Section S-10 says the CBCL results "agree with those on
    the synthetic dataset"; the worst leg decides, and the claim is not measured while a
    leg's runs are missing unless a measured leg already fails it."""
    parts = [f"O{leg['solver'].upper()} across {SYMBOL[leg['param']]} "
             f"({CBCL_FIGURES[leg['param'], leg['solver']]}): {leg['text']}" for leg in legs]
    missing = any(leg["histories"] is None for leg in legs)
    # a missing leg reads not measured, which only a failed leg outranks
    verdict = worst(leg["verdict"] for leg in legs)
    # the κ grid is this implementation's: without its smallest value, does the claim read
    # otherwise? (each leg's other reading in turn, the rest as measured)
    for i, leg in enumerate(legs):
        alt = leg.get("alt")
        if alt is not None and not missing:
            other = worst([alt] + [o["verdict"] for j, o in enumerate(legs) if j != i])
            if other != verdict:
                parts.append(f"without {SYMBOL[leg['param']]} = {min(leg['values']):g} the "
                             f"claim reads {other}, {EDGE_MARK} (the grid's)")
    speed = speed_band(None, own=False)[1]  # the τ legs' rule, as the synthetic τ leg reads it
    return claim("CBCL: the online algorithms' convergence speed across τ, ρ and κ (Figs. 11, "
                 "13 and 14)", "\"the convergence speeds are insensitive to the key parameters "
                 "(τ, K, ρ and κ)\" (§VII-D5, Section S-10)", "; ".join(parts), verdict,
                 "each leg as its synthetic counterpart reads: across τ, for OPGD and for "
                 f"OADMM (each run timed alone, the median of the protocol's runs), {speed}; "
                 f"across ρ (OADMM) and κ (OPGD), {CONVERGE_BAND}; the worst leg decides; not "
                 "measured while a leg's runs are not made, unless a measured leg fails; the "
                 "κ grid is this implementation's, so the κ leg is also read without its "
                 "smallest value, and the claim flagged at the band's edge where that reading "
                 "would turn the claim's verdict; the batch algorithms (Figs. 13(a), 14(a)) are "
                 "not judged",
                 why="Section S-10: 'all the convergence results on the CBCL face dataset agree "
                     "with those on the synthetic dataset', so each leg takes the rule of its "
                     "synthetic counterpart (Figs. 2, 4 and 5): across τ, seconds to one level "
                     "all runs reach, the slowest within 1.5× the fastest for insensitive "
                     "speeds; across ρ, where the paper expects slower runs as ρ grows, and κ, "
                     "where it finds 'similar effects', every run still converging; the "
                     "sentence is about both online algorithms, and its K leg is judged on its "
                     "own (Fig. 12); the legs' rules were set before the CBCL runs across τ, ρ "
                     "and κ were made; the flag rule for the κ leg's second reading and the "
                     "failed leg's precedence over a missing one were set after the ρ and κ "
                     "runs were seen, with the values known, and change no verdict")


def cbcl_grid_figure(ctx: Context, res: Result, legs: list[dict]) -> None:
    """Figs. 11, 13(b) and 14(b) on CBCL: each measured leg's f̃_t against time."""
    legs = [leg for leg in legs if leg["histories"] is not None]
    if not legs:
        return
    plt = pyplot()
    fig, axes = plt.subplots(1, len(legs), figsize=(4.2 * len(legs), 3.6), squeeze=False)
    for ax, leg in zip(axes[0], legs):
        for v, h in zip(leg["values"], leg["histories"]):
            ax.plot(h["time"], h["objective"], lw=0.9, label=f"{SYMBOL[leg['param']]} = {v:g}")
        ax.set(xlabel="time (s)" + ("" if leg["param"] == "batch_size" else ", untimed runs"),
               ylabel="f̃_t", yscale="log",
               title=f"{CBCL_FIGURES[leg['param'], leg['solver']]}: "
                     f"O{leg['solver'].upper()}")
        ax.legend(fontsize=7)
    save_figure(ctx, res, fig, "zhao_tan_cbcl_grids.png",
                "CBCL, K = 49, (ν, ν̃) = (0.7, 0.1): the online algorithms across τ, ρ and κ")


def cbcl_grid_notes(ctx: Context, legs: list[dict], X, k: int) -> list[str]:
    """Why a CBCL leg does not hold, read as the synthetic grids are: across τ, where each
    timed run's seconds to the level go (samples and updates, and the cost of each:
    :func:`split_text`); across ρ or κ, each run's f̃ at its first checkpoint and at its end
    (:func:`stall_note`), and, for the runs that never left their starting level, the same
    run on a prefix of ``X()`` with its inner solves' caps as run and ten times larger (the
    untimed piece ``zhao-tan-cbcl-caps-x10-…``); where ρ's runs stall, whether the paper's
    stopping rule stalls them (:func:`rho_rule_notes`, untimed pieces
    ``zhao-tan-cbcl-rho-…``)."""
    notes, stalled = [], []
    for leg in legs:
        if leg["histories"] is None or leg["verdict"] == REPRODUCED:
            continue
        if leg["param"] == "batch_size":
            notes.append("CBCL, where the time of the speed comparison goes (each run's "
                         "samples seen when it reached the level, and its milliseconds per "
                         "sample over the pass): " + split_text(
                             f"O{leg['solver'].upper()} across τ (the timed run whose curve "
                             "is kept, of each)", [f"τ={v:g}" for v in leg["values"]],
                             leg["histories"], *common_level_times(leg["histories"]),
                             batch_sizes=leg["values"]) + ".")
            continue
        hists = dict(zip(leg["values"], leg["histories"]))
        if _stalled(hists):
            notes.append("CBCL, " + stall_note(leg["param"], leg["solver"], hists))
            stalled += [(leg["param"], v, leg["solver"]) for v in _stalled(hists)]
    if stalled:
        key = "-".join(f"{p_}{v:g}" for p_, v, _ in stalled)
        try:
            caps = ctx.memo(f"zhao-tan-cbcl-caps-x10-{key}", lambda: _caps_diagnosis(
                X()[:ctx.pick(2000, 5000, tiny=200)], k, ctx.seed, stalled))
            notes.append("CBCL: " + _caps_note(caps))
        except PieceMissing:
            pass
    if any(p_ == "rho" for p_, _, _ in stalled):  # as on the synthetic data: the rule?
        rhos = next(list(leg["values"]) for leg in legs if leg["param"] == "rho")
        notes += ["CBCL: " + note for note in rho_rule_notes(ctx, X, k, rhos,
                                                              key="zhao-tan-cbcl")]
    return notes
