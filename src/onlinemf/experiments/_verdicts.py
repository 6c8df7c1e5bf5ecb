"""Verdicts of the reproduction claims: each claim states its own tolerance band.

A claim row is ``[what, paper, measured, verdict, band]``: ``verdict`` is one of
:data:`VERDICTS` and ``band`` says, in words, which measured values count as ``reproduced``
and which as ``partly``. The helpers here compute both, so every experiment words its bands
the same way; the band itself (the numbers) is chosen where the claim is made.
"""

from __future__ import annotations

import math

__all__ = ["REPRODUCED", "PARTLY", "NOT_REPRODUCED", "NOT_MEASURED", "VERDICTS", "claim",
           "judge", "ratio_band", "at_least", "at_most", "ordered", "count_band"]

REPRODUCED = "reproduced"
PARTLY = "partly"
NOT_REPRODUCED = "not reproduced"
NOT_MEASURED = "not measured"
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_MEASURED)


def judge(full: bool, partial: bool = False) -> str:
    """``reproduced`` if ``full``, else ``partly`` if ``partial``, else ``not reproduced``."""
    if full:
        return REPRODUCED
    return PARTLY if partial else NOT_REPRODUCED


def claim(what: str, paper: str, measured: str, verdict: str, band: str) -> list:
    """One claim row; ``verdict`` must be one of :data:`VERDICTS`."""
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}, got {verdict!r}")
    return [what, paper, measured, verdict, band]


def ratio_band(measured: float, lo: float, hi: float | None = None,
               rel: float = 0.25) -> tuple[str, str]:
    """A ratio against the paper's ``[lo, hi]`` (one number if ``hi`` is None).

    ``reproduced`` within ``[lo·(1 − rel), hi·(1 + rel)]``; ``partly`` when outside it but on
    the paper's side of 1 (the same method is faster, or slower); else ``not reproduced``.
    """
    hi = lo if hi is None else hi
    a, b = lo * (1 - rel), hi * (1 + rel)
    same_side = (measured > 1) == (lo > 1) if lo != 1 else True
    ok = math.isfinite(measured) and a <= measured <= b
    band = f"reproduced in [{a:.3g}, {b:.3g}] (±{rel:.0%}); partly on the paper's side of 1"
    return judge(ok, math.isfinite(measured) and same_side), band


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


def ordered(values, strict: bool = True) -> tuple[str, str]:
    """An ordering ``values[0] < values[1] < …``: ``reproduced`` if it holds entirely,
    ``partly`` if the first is below the last (the ends are ordered), else not."""
    v = [float(x) for x in values]
    pairs = zip(v, v[1:])
    full = all(a < b if strict else a <= b for a, b in pairs)
    return (judge(full, v[0] < v[-1]),
            "reproduced if the whole order holds; partly if only the ends are ordered")


def count_band(hits: int, total: int, partial: int | None = None) -> tuple[str, str]:
    """``reproduced`` if every one of ``total`` holds, ``partly`` if at least ``partial``."""
    partial = (total + 1) // 2 if partial is None else partial
    return (judge(hits == total, hits >= partial),
            f"reproduced if {total} of {total} hold; partly if ≥ {partial}")
