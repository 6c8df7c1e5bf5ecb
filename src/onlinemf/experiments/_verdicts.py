"""Verdicts of the reproduction claims: each claim states its own tolerance band and why.

A claim row is ``[what, paper, measured, verdict, band, source]``: ``verdict`` is one of
:data:`VERDICTS`; ``band`` says, in words, which measured values count as ``reproduced`` and
which as ``partly``, followed by the reason for that band (the paper's words it rests on);
``source`` says where the claim comes from (:data:`SOURCES`): ``paper`` (a figure, table or
sentence of the seed paper, quoted in ``paper`` with its table/figure), ``spec`` (a check
the implementation adds, not the paper's) or ``extension`` (from outside the seed papers).

The rules the helpers here share, so every experiment judges the same way:

* a *direction* claim (one method faster, an error lower) has a band entirely on the
  paper's side of 1 (or of a tie): a reversed direction can never pass, not even as
  ``partly``; a band that would straddle it is clipped, and a band given explicitly across
  it is refused (:func:`direction_band`);
* ``partly`` means "outside the band but within a stated factor of it" (default
  :data:`PARTLY_FACTOR`), never "anything on the paper's side of 1";
* every ordering has a tie margin: two values closer than it are a tie, which neither
  confirms nor reverses an order (:func:`ordered`, :func:`lowest`);
* the band's numbers are chosen where the claim is made, from the paper's words, and that
  reason is given with the claim (``why``).
"""

from __future__ import annotations

import math

__all__ = ["REPRODUCED", "PARTLY", "NOT_REPRODUCED", "NOT_MEASURED", "VERDICTS", "PAPER",
           "SPEC", "EXTENSION", "SOURCES", "PARTLY_FACTOR", "TIME_TIE", "claim", "judge",
           "ratio_band", "direction_band", "at_least", "at_most", "ordered", "lowest",
           "count_band", "SIGNIFICANT", "SIGNIFICANT_PARTLY", "SIGNIFICANT_WHY", "significantly",
           "SPEED_RATIO", "SPEED_RATIO_PARTLY", "OWN_SCALE_WHY", "common_level_times",
           "speed_band", "descending_times", "descending_reading", "slowdown_band",
           "fmt_times", "speed_parts", "speed_split", "LATE_RISE", "late_rise", "time_to_level",
           "verdict_counts"]

REPRODUCED = "reproduced"
PARTLY = "partly"
NOT_REPRODUCED = "not reproduced"
NOT_MEASURED = "not measured"
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_MEASURED)

PAPER = "paper"
SPEC = "spec"
EXTENSION = "extension"
SOURCES = (PAPER, SPEC, EXTENSION)

#: ``partly`` reaches this factor beyond a ratio band's edges (and no further)
PARTLY_FACTOR = 2.0
#: two running times within 10% of each other are a tie (single timed runs on a shared
#: machine; the papers average ten initializations)
TIME_TIE = 0.10


def worst(verdicts) -> str:
    """The least favourable of ``verdicts`` (reproduced < partly < not measured < not
    reproduced): the verdict of a claim judged on several parts, the worse deciding."""
    order = {REPRODUCED: 0, PARTLY: 1, NOT_MEASURED: 2, NOT_REPRODUCED: 3}
    return max(verdicts, key=order.__getitem__)


def judge(full: bool, partial: bool = False) -> str:
    """``reproduced`` if ``full``, else ``partly`` if ``partial``, else ``not reproduced``."""
    if full:
        return REPRODUCED
    return PARTLY if partial else NOT_REPRODUCED


def claim(what: str, paper: str, measured: str, verdict: str, band: str, *,
          source: str = PAPER, why: str) -> list:
    """One claim row; ``verdict`` must be one of :data:`VERDICTS`, ``source`` one of
    :data:`SOURCES`, and ``why`` (the paper's words, or the check's reason, that set the
    band) must be given."""
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}, got {verdict!r}")
    if source not in SOURCES:
        raise ValueError(f"source must be one of {SOURCES}, got {source!r}")
    if not why or not why.strip():
        raise ValueError("every band states its reason (why)")
    return [what, paper, measured, verdict, f"{band}. Why: {why}", source]


def direction_band(a: float, b: float, direction: str | None) -> tuple[float, float]:
    """The band ``[a, b]`` of a ratio claim, checked against its ``direction`` (``">1"``:
    the ratio must exceed 1, ``"<1"``: stay below 1, None: no direction). A band that
    straddles 1 for a direction claim is refused (ValueError)."""
    if a > b:
        raise ValueError(f"empty band [{a}, {b}]")
    if direction == ">1" and a < 1:
        raise ValueError(f"band [{a:.3g}, {b:.3g}] straddles 1 for a '> 1' claim")
    if direction == "<1" and b > 1:
        raise ValueError(f"band [{a:.3g}, {b:.3g}] straddles 1 for a '< 1' claim")
    if direction not in (">1", "<1", None):
        raise ValueError(f"direction must be '>1', '<1' or None, got {direction!r}")
    return a, b


def _side_ok(x: float, direction: str | None) -> bool:
    return x > 1 if direction == ">1" else x < 1 if direction == "<1" else True


def ratio_band(measured: float, lo: float, hi: float | None = None, rel: float = 0.25,
               factor: float = PARTLY_FACTOR, tie: float | None = None) -> tuple[str, str]:
    """A ratio against the paper's ``[lo, hi]`` (one number if ``hi`` is None).

    ``reproduced`` within ``[lo/(1 + rel), hi·(1 + rel)]``, ``partly`` within ``factor``
    of those edges. When the paper's range lies above 1 (or below), the claim is a
    direction: both windows are clipped at 1, so a ratio on the other side of 1 (or at 1)
    is ``not reproduced``. With ``tie`` (two values within that share of each other are a
    tie, e.g. :data:`TIME_TIE` for times), they are clipped at 1 + tie (or 1/(1 + tie))
    instead, unless the paper's own range reaches into the tie. A paper range that contains
    1 is an "about the same" claim.
    """
    hi = lo if hi is None else hi
    if lo > hi or lo <= 0:
        raise ValueError(f"bad paper range [{lo}, {hi}]")
    direction = ">1" if lo > 1 else "<1" if hi < 1 else None
    a, b = lo / (1 + rel), hi * (1 + rel)
    pa, pb = a / factor, b * factor
    up, edge = 1.0 + (tie or 0.0), 1.0
    if direction == ">1":
        edge = up if lo >= up else 1.0
        a, pa = max(a, edge), max(pa, edge)
    elif direction == "<1":
        edge = 1 / up if hi <= 1 / up else 1.0
        b, pb = min(b, edge), min(pb, edge)
    direction_band(a, b, direction)
    direction_band(pa, pb, direction)

    def inside(x, lo_, hi_):
        return not math.isnan(x) and lo_ <= x <= hi_ and _side_ok(x, direction)

    band = f"reproduced in [{a:.3g}, {b:.3g}] (±{rel:.0%} of the paper's range)"
    band += f"; partly in [{pa:.3g}, {pb:.3g}] (within ×{factor:g} of that band)"
    if direction and edge != 1.0:
        band += (f"; never within the {tie:.0%} tie of 1 (the paper's direction: "
                 f"{'≥' if direction == '>1' else '≤'} {edge:.3g})")
    elif direction:
        band += f"; never {'≤' if direction == '>1' else '≥'} 1 (the paper's direction)"
    return judge(inside(measured, a, b), inside(measured, pa, pb)), band


def _threshold(measured, full, partial, what, sign):
    """``reproduced`` when sign·measured ≥ sign·full, ``partly`` when ≥ sign·partial."""
    word = "≥" if sign > 0 else "≤"
    band = f"reproduced if {what} {word} {full:g}"
    if partial is not None:
        band += f"; partly if {word} {partial:g}"
    # an infinite ratio is a limit, not a failure: "the other never reached our level" is
    # as large as a ratio gets (≥ any threshold, ≤ none); only NaN is unmeasured
    ok = not math.isnan(measured)
    return judge(ok and sign * measured >= sign * full,
                 ok and partial is not None and sign * measured >= sign * partial), band


def at_least(measured: float, full: float, partial: float | None = None,
             what: str = "value") -> tuple[str, str]:
    """``reproduced`` if ``measured ≥ full``, ``partly`` if ``≥ partial``."""
    return _threshold(measured, full, partial, what, 1)


def at_most(measured: float, full: float, partial: float | None = None,
            what: str = "value") -> tuple[str, str]:
    """``reproduced`` if ``measured ≤ full``, ``partly`` if ``≤ partial``."""
    return _threshold(measured, full, partial, what, -1)


def ordered(values, *, tie: float) -> tuple[str, str]:
    """An ordering ``values[0] < values[1] < …`` with a tie margin ``tie`` (absolute, in the
    values' units): a step smaller than ``tie`` either way is a tie.

    ``reproduced`` if every step rises by more than ``tie``; ``partly`` if no step falls by
    more than ``tie`` and the ends differ by more than ``tie`` (some steps tied); else not.
    """
    if tie < 0:
        raise ValueError("tie margin must be ≥ 0")
    v = [float(x) for x in values]
    steps = [b - a for a, b in zip(v, v[1:])]
    full = all(s > tie for s in steps)
    partial = all(s >= -tie for s in steps) and v[-1] - v[0] > tie
    return (judge(full, partial),
            f"reproduced if each step rises by more than {tie:.3g} (closer values are a tie); "
            f"partly if none falls by more than {tie:.3g} and the ends differ by more than "
            f"{tie:.3g}")


def lowest(values: dict, name: str, *, tie: float) -> tuple[str, str]:
    """``values[name]`` below every other value, with a tie margin ``tie`` (absolute).

    ``reproduced`` if it is below each other by more than ``tie``; ``partly`` if it is below
    at least one by more than ``tie`` and above none by more than ``tie`` (ties elsewhere);
    else not."""
    x = float(values[name])
    others = [float(v) for k, v in values.items() if k != name]
    wins = sum(o - x > tie for o in others)
    losses = sum(x - o > tie for o in others)
    return (judge(wins == len(others), wins >= 1 and losses == 0),
            f"reproduced if {name} is below each other by more than {tie:.3g} (closer is a "
            f"tie); partly if below one by more than {tie:.3g} and above none by more")


#: "significantly faster" (or "greatly shorter"): at least this ratio; partly from
#: :data:`SIGNIFICANT_PARTLY` (within ×4/3 of it, well clear of a tie)
SIGNIFICANT, SIGNIFICANT_PARTLY = 2.0, 1.5
SIGNIFICANT_WHY = (
    "the paper's words read as at least 2× (partly from 1.5×, within ×4/3 of that); the "
    "magnitude of the paper's table ratio is printed, not judged: the paper does not say when "
    "its batch solver stops, and here it stops at an iteration cap or a tolerance of its own, "
    "so a batch time is that rule's, not the paper's")


def fmt_ratio(r: float, never: str = "∞") -> str:
    """A time ratio as ``1.87×``, to four decimals where two would round a value just below
    a band's edge (:data:`SIGNIFICANT`, :data:`SIGNIFICANT_PARTLY`) onto it: a 1.9996 printed
    as 2.00 would seem to clear the 2× band. ``never`` for an infinite ratio."""
    if not math.isfinite(r):
        return never
    digits = 2
    while digits < 8 and any(round(r, digits) == e and r < e
                             for e in (SIGNIFICANT, SIGNIFICANT_PARTLY)):
        digits += 2
    return f"{r:.{digits}f}×"


#: The words a claim's measured text carries when its reading lies at a band's edge within
#: the reading's own resolution or noise, or when a second reading of it, shown beside it,
#: gives another verdict (the headline counts such claims apart)
EDGE_MARK = "at the band's edge"


def differs_mark(other: str, verdict: str, what: str) -> str:
    """The words that flag a claim :data:`EDGE_MARK` where a second reading of it, shown
    beside it, gives the verdict ``other`` rather than its own ``verdict`` (``what`` names
    what the second reading changes, e.g. "the level's"); empty where they agree."""
    return (f", {EDGE_MARK} ({what}), where the two readings' verdicts differ"
            if other != verdict else "")


def significantly(ratio: float, what: str) -> tuple[str, str]:
    """A "significantly faster" claim: the slower method's time over the faster's at least
    :data:`SIGNIFICANT` (reproduced) or :data:`SIGNIFICANT_PARTLY` (partly)."""
    return at_least(ratio, SIGNIFICANT, SIGNIFICANT_PARTLY, what)


def count_band(hits: int, total: int, partial: int | None = None) -> tuple[str, str]:
    """``reproduced`` if every one of ``total`` holds, ``partly`` if at least ``partial``."""
    partial = (total + 1) // 2 if partial is None else partial
    return (judge(hits == total, hits >= partial),
            f"reproduced if {total} of {total} hold; partly if ≥ {partial}")


#: "small (or even unnoticeable) variations" of the convergence speed: the slowest run
#: needs at most this multiple of the fastest run's time to a common level (reproduced);
#: :data:`SPEED_RATIO_PARTLY` is partly (within ×4/3 of it)
SPEED_RATIO, SPEED_RATIO_PARTLY = 1.5, 2.0


#: why :func:`common_level_times` found no common level
RISES = "a run does not descend"
DISJOINT = "the runs' objective ranges do not overlap"
APART = "a run never reaches the level the others start from"
FLAT = "a run's objective moves by less than 1% of its start"
#: the level of a parameter that changes the attainable objective: each run's own descent
OWN = "own"
#: a run whose objective moves by less than this share of its first value draws a flat line:
#: no convergence speed can be read from it
FLAT_SHARE = 0.01
#: why a claim over K reads each curve on its own scale
OWN_SCALE_WHY = ("K changes the objective a run can attain, so the runs share no level: each "
                 "curve is read on its own scale, as a plot of each against time shows its "
                 "shape, by the seconds to 90% of its own descent (its first to its final "
                 "objective); a run that moves by less than 1% of its start draws a flat line, "
                 "from which no speed can be read")


def time_to_level(history, level: float) -> float:
    """The first recorded time at which a history's ``objective`` is at or below ``level``
    (``inf`` when no record is)."""
    import numpy as np

    hit = np.flatnonzero(np.asarray(history["objective"]) <= level)
    return float(np.asarray(history["time"], dtype=float)[hit[0]]) if hit.size else math.inf


def verdict_counts(verdicts) -> str:
    """How often each verdict occurs, the most frequent first, e.g. ``"reproduced 24 of 27,
    partly 3"``: how a verdict reads over every choice of one timed run per method or
    setting, which shows how far the medians' verdict is from its neighbours."""
    from collections import Counter

    counts = Counter(verdicts)
    total = sum(counts.values())
    return ", ".join(f"{v} {n}" + (f" of {total}" if i == 0 else "")
                     for i, (v, n) in enumerate(counts.most_common()))


def common_level_times(histories, frac: float = 0.9, same_level: bool = True):
    """Convergence speed of several runs, as the papers plot it (objective against seconds).

    With ``same_level`` (a parameter of the algorithm, such as τ or a step size, that leaves
    the objective's attainable level as it is): the time each run needs to reach a *common*
    level, ``frac`` of the way down from the lowest first objective to the highest final one
    (a level every run reaches by its end); ``(None, APART)`` when the runs descend over
    ranges that do not overlap (one run is far behind the others).

    Without it (K, which changes the attainable level, so no level is common): the time each
    run needs to cover ``frac`` of its own descent, from its first to its final objective
    (level :data:`OWN`); ``(None, FLAT)`` when a run moves by less than :data:`FLAT_SHARE` of
    its start.

    Either way ``(None, RISES)`` when some run's objective does not fall over the stream (it
    shows no convergence at all). Returns ``(seconds, level)``; each history has
    ``objective`` and ``time``."""
    starts = [float(h["objective"][0]) for h in histories]
    finals = [float(h["objective"][-1]) for h in histories]
    if any(not f < s for s, f in zip(starts, finals)):
        return None, RISES
    if same_level:
        top, bottom = min(starts), max(finals)
        if not bottom < top:
            return None, APART
        levels = [top - frac * (top - bottom)] * len(histories)
    else:
        if any(s - f < FLAT_SHARE * abs(s) for s, f in zip(starts, finals)):
            return None, FLAT
        levels = [s - frac * (s - f) for s, f in zip(starts, finals)]
    seconds = [time_to_level(h, level) for h, level in zip(histories, levels)]
    return seconds, (levels[0] if same_level else OWN)


def speed_band(seconds, level=None, descending=None, own=None) -> tuple[str, str]:
    """"Small (or even unnoticeable) variations" of the convergence speed: the slowest of
    :func:`common_level_times` at most :data:`SPEED_RATIO` times the fastest (reproduced) or
    :data:`SPEED_RATIO_PARTLY` (partly). A run that does not descend, or that never reaches
    the others' range on the same objective, is not reproduced; a flat run (K) is not
    measured, unless the runs that descend (``descending``: :func:`descending_times`'
    seconds and level) already fail the band: a run added cannot narrow their spread, so
    the flat run's speed, whatever it is, leaves the claim failed. ``own``: whether the
    grid reads each run on its own scale (by default, whether ``level`` says so; a grid
    whose run rises says neither, so its caller tells)."""
    own = level in (OWN, FLAT) if own is None else own
    target = ("90% of its own descent" if own else "the common level")
    band = (f"reproduced if the slowest run reaches {target} within {SPEED_RATIO:g}× "
            f"the fastest's time; partly within {SPEED_RATIO_PARTLY:g}×; not if a run does not "
            "descend" + ("" if own else " or stays apart from the others on the same objective")
            + ("; not measured if a run's curve is flat" if own else ""))
    if level == FLAT and descending is not None:
        band += (", unless the runs that descend already fail the band (a run added cannot "
                 "narrow their spread)")
        if speed_band(*descending)[0] == NOT_REPRODUCED:
            return NOT_REPRODUCED, band
    if seconds is None:
        return (NOT_MEASURED if level in (DISJOINT, FLAT) else NOT_REPRODUCED), band
    ratio = max(seconds) / max(min(seconds), 1e-12)
    return judge(ratio <= SPEED_RATIO, ratio <= SPEED_RATIO_PARTLY), band


def descending_times(histories, frac: float = 0.9) -> tuple[list, list | None, str]:
    """A grid's runs that fall by at least :data:`FLAT_SHARE` of their start, each read on
    its own scale as :func:`common_level_times` reads a grid over K: ``(indices kept,
    seconds, level)``, seconds None (level :data:`FLAT`) while fewer than two runs fall."""
    keep = [i for i, h in enumerate(histories)
            if float(h["objective"][0]) - float(h["objective"][-1])
            >= FLAT_SHARE * abs(float(h["objective"][0]))]
    if len(keep) < 2:
        return keep, None, FLAT
    return (keep, *common_level_times([histories[i] for i in keep], frac=frac,
                                      same_level=False))


def descending_reading(histories, labels, level) -> tuple[str, tuple | None]:
    """For a grid read on each run's own scale whose ``level`` is :data:`FLAT`: the runs
    that descend (:func:`descending_times`) in words, to append to the claim's measured
    column, and their ``(seconds, level)`` for :func:`speed_band`'s ``descending``;
    ``("", None)`` for any other level."""
    if level != FLAT:
        return "", None
    keep, seconds, own = descending_times(histories)
    if len(keep) < 2:
        return "; fewer than two runs descend", None
    flat = "s" if len(histories) - len(keep) > 1 else ""
    return (f"; the runs that descend, without the flat run{flat}: "
            + fmt_times(seconds, [labels[i] for i in keep], own)), (seconds, own)


def slowdown_band(seconds, level=None) -> tuple[str, str]:
    """A speed that a heavier condition must not slow ("still converge fast … even though ν
    and ν̃ have increased"): each later run's time over the first's (the canonical setting)
    at most :data:`SPEED_RATIO` (reproduced) or :data:`SPEED_RATIO_PARTLY` (partly); a later
    run that is faster holds. Runs without a speed read as :func:`speed_band`'s do."""
    band = (f"reproduced if each heavier setting's run reaches 90% of its own descent within "
            f"{SPEED_RATIO:g}× the canonical run's time (faster holds); partly within "
            f"{SPEED_RATIO_PARTLY:g}×; not if a run does not descend; not measured if a run's "
            "curve is flat")
    if seconds is None:
        return (NOT_MEASURED if level in (DISJOINT, FLAT) else NOT_REPRODUCED), band
    ratio = max(seconds[1:]) / max(seconds[0], 1e-12)
    return judge(ratio <= SPEED_RATIO, ratio <= SPEED_RATIO_PARTLY), band


def fmt_times(spans, labels, level, unit: str = "seconds") -> str:
    """The measured column of a convergence-speed claim: each run's span to ``level`` in
    ``unit`` (seconds, or another clock such as the samples seen), one per label; with
    ``spans`` None, what ``level`` (:data:`RISES`, :data:`APART`, ...) says went wrong."""
    if spans is None:
        return {RISES: "a run's plotted objective ends above its start (no descent on the "
                       "metric the claim reads)",
                APART: "a run never reaches the level the others start from (same objective)",
                DISJOINT: "no common level: the runs' objective ranges do not overlap",
                FLAT: "a run's objective moves by less than 1% of its start (a flat line)"
                }[level]
    ratio = max(spans) / max(min(spans), 1e-12)
    what = ("90% of its own descent" if level == OWN
            else f"the common level {level:.4g}")
    return (f"{unit} to reach {what}: "
            + ", ".join(f"{lab}: {s:.3g}" for lab, s in zip(labels, spans))
            + f" (slowest/fastest {ratio:.2f}×)")


def speed_parts(histories, seconds=None) -> tuple[list, list]:
    """Each run's time to a level split in two: the samples it had seen when it reached the
    level (``seconds``, from :func:`common_level_times`; ``inf`` for a run that never did,
    all None without ``seconds``) and its milliseconds per sample over its whole run. A run
    slow for want of descent per sample needs more samples; a run slow for the cost of its
    steps needs more milliseconds per sample. Each history has ``time`` and
    ``n_samples``."""
    import numpy as np

    samples, cost = [], []
    for i, h in enumerate(histories):
        t = np.asarray(h["time"], dtype=float)
        n = np.asarray(h["n_samples"], dtype=float)
        cost.append(float(t[-1] / max(n[-1], 1.0) * 1e3))
        if seconds is None:
            samples.append(None)
        elif not math.isfinite(seconds[i]):
            samples.append(math.inf)
        else:
            samples.append(float(n[np.flatnonzero(t >= seconds[i])[0]]))
    return samples, cost


def read_in_samples(hists, labels, seconds, level, what: str) -> tuple[str, str | None]:
    """A speed reading's runs in the samples each had seen at its level instead of its
    seconds (each run's curve is one timed run, so a run slowed by a shared machine moves
    its seconds, not its samples; and a parameter such as τ changes the cost of a sample):
    the words to append, and the verdict on those samples of the speed band (``what`` = "K",
    or any grid read by :func:`speed_band`), else of the slowdown band; ``("", None)`` where
    a run has no level or no sample counts."""
    if seconds is None or any("n_samples" not in h for h in hists):
        return "", None
    samples, _ = speed_parts(hists, seconds)
    if not all(math.isfinite(x) and x > 0 for x in samples):
        return "", None
    other = (speed_band if what == "K" else slowdown_band)(samples, level)[0]
    ratio = (max(samples) / min(samples) if what == "K" else max(samples[1:]) / samples[0])
    return ("; in samples seen at the level: " + ", ".join(
        f"{lab}: {x:.0f}" for lab, x in zip(labels, samples))
        + (f" (slowest/fastest {ratio:.2f}×" if what == "K" else
           f" (a heavier setting at most {ratio:.2f}× the canonical one")
        + f", which reads {other})"), other


#: a run whose milliseconds per sample up to its level differ from its whole pass's by more
#: than this factor ran at an uneven pace (a shared machine, or costlier early steps): its
#: split then names both, since samples × the pass's pace no longer gives its seconds
UNEVEN_PACE = 1.5


def speed_split(labels, histories, seconds=None, batch_sizes=None) -> str:
    """:func:`speed_parts` in words, one ``label: samples, ms per sample`` per run, with its
    milliseconds per sample up to the level where its pace was uneven (:data:`UNEVEN_PACE`).
    With ``batch_sizes`` (each run's mini-batch size τ), also its dictionary updates to the
    level (samples / τ) and its milliseconds per update (τ × per sample): runs that need the
    same updates differ only by what an update costs."""
    samples, cost = speed_parts(histories, seconds)
    taus = [None] * len(samples) if batch_sizes is None else list(batch_sizes)
    parts = []
    for i, (lab, s, c, tau) in enumerate(zip(labels, samples, cost, taus)):
        text = f"{lab}: " + ("" if s is None else "never, " if math.isinf(s) else
                             f"{s:.3g} samples, ") + f"{c:.3g} ms per sample"
        if tau is not None and s is not None and math.isfinite(s):
            text += f" ({s / tau:.3g} updates at {c * tau:.3g} ms each)"
        if s is not None and math.isfinite(s) and s > 0 and c > 0:
            early = seconds[i] / s * 1e3
            if not 1 / UNEVEN_PACE <= early / c <= UNEVEN_PACE:
                text += (f" over its pass but {early:.3g} up to the level (an uneven pace: "
                         "its time to the level is not samples × its pass's pace)")
        parts.append(text)
    text = ", ".join(parts)
    if batch_sizes is not None and all(s is not None and math.isfinite(s) and s > 0
                                       for s in samples):
        updates = [s / tau for s, tau in zip(samples, taus)]
        each = [c * tau for c, tau in zip(cost, taus)]
        text += (f" (the runs' updates to the level differ {max(updates) / min(updates):.2f}×"
                 f" and the milliseconds of an update {max(each) / min(each):.2f}×)")
    return text


#: "converges" / "fails to converge": a curve that rises over the second half of its run by
#: at least this share of the lowest value it had reached before is unsettled (perturbed)
LATE_RISE = 0.05


def late_rise(values) -> float:
    """The largest relative rise of ``values`` over their second half above the lowest value
    reached before each point (0 for a curve that keeps falling)."""
    import numpy as np

    v = np.asarray(values, dtype=float)
    low = np.minimum.accumulate(v)
    half = v.size // 2
    return float(np.max((v[half:] - low[half:]) / np.maximum(low[half:], 1e-300), initial=0.0))
