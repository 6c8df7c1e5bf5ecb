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
           "count_band", "SPEED_SPREAD", "common_level_shares", "speed_band", "fmt_shares"]

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
               factor: float = PARTLY_FACTOR) -> tuple[str, str]:
    """A ratio against the paper's ``[lo, hi]`` (one number if ``hi`` is None).

    ``reproduced`` within ``[lo/(1 + rel), hi·(1 + rel)]``, ``partly`` within ``factor``
    of those edges. When the paper's range lies above 1 (or below), the claim is a
    direction: both windows are clipped at 1, so a ratio on the other side of 1 (or at 1)
    is ``not reproduced``. A paper range that contains 1 is an "about the same" claim.
    """
    hi = lo if hi is None else hi
    if lo > hi or lo <= 0:
        raise ValueError(f"bad paper range [{lo}, {hi}]")
    direction = ">1" if lo > 1 else "<1" if hi < 1 else None
    a, b = lo / (1 + rel), hi * (1 + rel)
    pa, pb = a / factor, b * factor
    if direction == ">1":
        a, pa = max(a, 1.0), max(pa, 1.0)
    elif direction == "<1":
        b, pb = min(b, 1.0), min(pb, 1.0)
    direction_band(a, b, direction)
    direction_band(pa, pb, direction)

    def inside(x, lo_, hi_):
        return not math.isnan(x) and lo_ <= x <= hi_ and _side_ok(x, direction)

    band = f"reproduced in [{a:.3g}, {b:.3g}] (±{rel:.0%} of the paper's range)"
    band += f"; partly in [{pa:.3g}, {pb:.3g}] (within ×{factor:g} of that band)"
    if direction:
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


def count_band(hits: int, total: int, partial: int | None = None) -> tuple[str, str]:
    """``reproduced`` if every one of ``total`` holds, ``partly`` if at least ``partial``."""
    partial = (total + 1) // 2 if partial is None else partial
    return (judge(hits == total, hits >= partial),
            f"reproduced if {total} of {total} hold; partly if ≥ {partial}")


#: a convergence-speed spread (share of the stream) of at most this is "little effect";
#: twice it is partly
SPEED_SPREAD = 0.3


#: why :func:`common_level_shares` found no common level
RISES = "a run does not descend"
DISJOINT = "the runs' objective ranges do not overlap"


def common_level_shares(histories, frac: float = 0.9):
    """Convergence speed of several runs on one scale: the share of the stream each needs
    to reach a *common* level, ``frac`` of the way down from the lowest first objective to
    the highest final one (a level every run reaches by its end, on every run's descent).

    Returns ``(shares, level)``; or ``(None, RISES)`` when some run's objective does not
    fall over the stream (it shows no convergence at all), or ``(None, DISJOINT)`` when the
    runs descend over ranges that do not overlap (different data, or levels the parameter
    changes: no level is common to them, so this measure cannot compare their speeds).
    Each history has ``objective`` and ``n_samples``."""
    import numpy as np

    starts = [float(h["objective"][0]) for h in histories]
    finals = [float(h["objective"][-1]) for h in histories]
    if any(not f < s for s, f in zip(starts, finals)):
        return None, RISES
    top, bottom = min(starts), max(finals)
    if not bottom < top:
        return None, DISJOINT
    level = top - frac * (top - bottom)
    shares = []
    for h in histories:
        obj, n = np.asarray(h["objective"]), np.asarray(h["n_samples"])
        hit = np.flatnonzero(obj <= level)
        shares.append(float(n[hit[0]] / n[-1]) if hit.size else math.inf)
    return shares, level


def speed_band(shares, level=None) -> tuple[str, str]:
    """"Little effect on the convergence speed": the spread of :func:`common_level_shares`
    at most :data:`SPEED_SPREAD` of the stream (reproduced) or twice it (partly). A run that
    does not descend is not reproduced; runs with no common level are not measured."""
    band = (f"reproduced if the runs reach a common level within {SPEED_SPREAD:g} of the "
            f"stream of each other; partly within {2 * SPEED_SPREAD:g}; not if a run does not "
            "descend; not measured if the runs share no level")
    if shares is None:
        return (NOT_MEASURED if level == DISJOINT else NOT_REPRODUCED), band
    spread = max(shares) - min(shares)
    return judge(spread <= SPEED_SPREAD, spread <= 2 * SPEED_SPREAD), band


def fmt_shares(shares, labels, level) -> str:
    """The measured column of a convergence-speed claim."""
    if shares is None:
        return {RISES: "a run's objective does not fall over the stream (no convergence)",
                DISJOINT: "no common level: the runs' objective ranges do not overlap"}[level]
    return (f"share of the stream to reach the common level {level:.4g}: "
            + ", ".join(f"{lab}: {s:.2f}" for lab, s in zip(labels, shares)))
