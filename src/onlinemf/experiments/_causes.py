"""The ledger of why the papers' claims that did not reproduce did not.

A reproduction report's verdicts say *whether* a paper's claim holds here; a claim that does
not needs a *why* a reader can check: a measurement in the report that accounts for the
shortfall, or an inconsistency in the paper shown by computation. The ledger is written by
hand after reading the report, one row per claim (or per family of claims, by a regular
expression), in ``causes.csv`` beside ``report.md``:

``experiment``
    the experiment's name;
``claim``
    a regular expression that matches the whole of the claim's ``what`` (``re.fullmatch``);
``kind``
    one of :data:`KINDS`;
``where``
    the report's passages the explanation rests on, each an exact quote of its text,
    separated by ``" || "``; a quote from another experiment's section starts with that
    experiment's name and ``": "``;
``explanation``
    one or two sentences: what the measurement shows, or what is still unexplained.

The report's last section lists the ledger's rows for every ``paper`` claim not reproduced,
with each quote checked against the report just written (a quote not found is flagged, so a
rerun that drops a note shows).
"""

from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass

__all__ = ["KINDS", "KIND_TEXT", "NO_ENTRY", "Cause", "read_causes", "cause_of", "sections",
           "missing_quotes", "cause_counts", "ledger_rows"]

#: what each kind of entry says about a claim that did not reproduce
KIND_TEXT = {
    "measured": "explained by a measurement in this report",
    "paper": "explained by a paper inconsistency shown by computation",
    "not judged": "not judgeable (a protocol sentence, a control, a duplicate, or a method "
                  "not implemented)",
    "in part": "explained in part by a measurement, the rest open",
    "none": "without a measured cause",
}
KINDS = tuple(KIND_TEXT)
#: the explanation the report gives a claim the ledger has no entry for
NO_ENTRY = "no entry in the ledger"
_SEP = " || "
_COLUMNS = ("experiment", "claim", "kind", "where", "explanation")


@dataclass(frozen=True)
class Cause:
    """One row of the ledger (see the module's docstring)."""

    experiment: str
    claim: str
    kind: str
    where: tuple[str, ...]
    explanation: str

    def matches(self, experiment: str, what: str) -> bool:
        return experiment == self.experiment and re.fullmatch(self.claim, what) is not None


def read_causes(path: str) -> list[Cause]:
    """The ledger in ``path`` (empty if there is none). A row with an unknown kind, a bad
    regular expression or an empty explanation is refused (ValueError)."""
    if not os.path.exists(path):
        return []
    out = []
    with open(path, newline="", encoding="utf-8") as fh:
        for i, row in enumerate(csv.DictReader(fh), start=2):
            if any(row.get(col) is None for col in _COLUMNS):
                raise ValueError(f"{path}:{i}: a row has the columns {_COLUMNS}")
            if row["kind"] not in KINDS:
                raise ValueError(f"{path}:{i}: kind must be one of {KINDS}, got {row['kind']!r}")
            if not row["explanation"].strip():
                raise ValueError(f"{path}:{i}: the explanation is empty")
            try:
                re.compile(row["claim"])
            except re.error as exc:
                raise ValueError(f"{path}:{i}: bad claim pattern: {exc}") from exc
            where = tuple(q.strip() for q in row["where"].split(_SEP) if q.strip())
            out.append(Cause(row["experiment"], row["claim"], row["kind"], where,
                             row["explanation"].strip()))
    return out


def cause_of(causes: list[Cause], experiment: str, what: str) -> Cause | None:
    """The ledger's entry for one claim: the first that matches, or None."""
    return next((c for c in causes if c.matches(experiment, what)), None)


def sections(report: str) -> dict[str, str]:
    """The report's text per experiment (``## name: title`` up to the next ``## ``)."""
    parts = re.split(r"^## ", report, flags=re.M)
    return {p.split(":", 1)[0].strip(): p for p in parts[1:]}


def _quote_home(cause: Cause, quote: str, names) -> tuple[str, str]:
    head, _, rest = quote.partition(": ")
    if rest and head in names and head != cause.experiment:
        return head, rest
    return cause.experiment, quote


def missing_quotes(cause: Cause, secs: dict[str, str]) -> list[str]:
    """The quotes of ``cause`` not found in their section of the report (``secs``)."""
    out = []
    for q in cause.where:
        name, text = _quote_home(cause, q, secs)
        if text not in secs.get(name, ""):
            out.append(q)
    return out


def cause_counts(rows: list[list[str]], causes: list[Cause]) -> dict[str, int]:
    """How many of the claims ``rows`` (claims.csv rows: experiment, what, …) each kind
    covers; claims without an entry count under ``"none"``."""
    counts = dict.fromkeys(KINDS, 0)
    for r in rows:
        c = cause_of(causes, r[0], r[1])
        counts[c.kind if c else "none"] += 1
    return counts


def ledger_rows(rows: list[list[str]], causes: list[Cause], report: str) -> list[list[str]]:
    """The report's table of the claims ``rows`` with their entries: experiment, claim,
    verdict, kind, explanation, and where it rests (its quotes, a quote the report lacks
    flagged)."""
    secs = sections(report)
    out = []
    for r in rows:
        c = cause_of(causes, r[0], r[1])
        if c is None:
            out.append([r[0], r[1], r[6], "none", NO_ENTRY, ""])
            continue
        lost = set(missing_quotes(c, secs))
        where = "; ".join(f"“{q}”" + (" (not in this report)" if q in lost else "")
                          for q in c.where)
        out.append([r[0], r[1], r[6], c.kind, c.explanation, where])
    return out
