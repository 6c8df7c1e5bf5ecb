"""The ledger of why the paper's claims that did not reproduce did not (``causes.csv``)."""

import collections
import csv
import os
import re

import pytest

from onlinemf.experiments import Context, Result, write_report
from onlinemf.experiments._causes import (
    KINDS,
    cause_counts,
    cause_of,
    ledger_rows,
    missing_quotes,
    read_causes,
    sections,
)
from onlinemf.experiments._verdicts import NOT_REPRODUCED, PARTLY, REPRODUCED, SPEC, claim

HERE = os.path.dirname(os.path.abspath(__file__))
PAPER_DIR = os.path.join(HERE, os.pardir, "reports", "paper")
HEADER = ["experiment", "claim", "kind", "where", "explanation"]


def _write(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(HEADER)
        w.writerows(rows)
    return str(path)


@pytest.mark.parametrize("row, message", [
    (["e", "c", "maybe", "", "x"], "kind must be one of"),
    (["e", "c", "measured", "", "  "], "the explanation is empty"),
    (["e", "c(", "measured", "", "x"], "bad claim pattern"),
])
def test_a_bad_ledger_row_is_refused_with_its_line(tmp_path, row, message):
    path = _write(tmp_path / "causes.csv", [["e", "ok", "none", "", "fine"], row])
    with pytest.raises(ValueError, match=f"causes.csv:3: {message}"):
        read_causes(path)


def test_a_short_ledger_row_is_refused_with_its_line(tmp_path):
    path = tmp_path / "causes.csv"
    path.write_text(",".join(HEADER) + "\ne,c,none\n", encoding="utf-8")
    with pytest.raises(ValueError, match="causes.csv:2: a row has the columns"):
        read_causes(str(path))


def test_no_ledger_reads_as_empty(tmp_path):
    assert read_causes(str(tmp_path / "absent.csv")) == []


def test_entries_match_whole_claims_and_quotes_are_checked_in_their_section(tmp_path):
    path = _write(tmp_path / "causes.csv", [
        ["a", r"x: speed across \w+", "measured", "note one || b: note two", "why"],
        ["a", r"y", "in part", "absent words", "part"],
    ])
    causes = read_causes(path)
    assert causes[0].where == ("note one", "b: note two")
    assert cause_of(causes, "a", "x: speed across K") is causes[0]
    assert cause_of(causes, "a", "x: speed across K and more") is None  # the whole claim
    assert cause_of(causes, "b", "x: speed across K") is None  # another experiment
    report = "# r\n\n## a: first\n\n- note one\n\n## b: second\n\n- note two\n"
    secs = sections(report)
    assert set(secs) == {"a", "b"}
    assert missing_quotes(causes[0], secs) == []
    # a quote is looked for in its own section only
    moved = read_causes(_write(tmp_path / "m.csv", [["b", "x", "none", "note one", "w"]]))
    assert missing_quotes(moved[0], secs) == ["note one"]
    # claims.csv rows: experiment, claim, source, paper, measured, band, verdict, scale
    rows = [["a", "x: speed across K", "paper", "", "", "", NOT_REPRODUCED, "paper"],
            ["a", "y", "paper", "", "", "", PARTLY, "paper"],
            ["a", "z", "paper", "", "", "", PARTLY, "paper"]]
    assert cause_counts(rows, causes) == {"measured": 1, "paper": 0, "not judged": 0,
                                          "in part": 1, "none": 1}
    table = ledger_rows(rows, causes, report)
    assert table[0][3:] == ["measured", "why", "“note one”; “b: note two”"]
    assert table[1][5] == "“absent words” (not in this report)"
    assert table[2][3:5] == ["none", "no entry in the ledger"]


def test_the_report_counts_and_lists_the_ledger(tmp_path):
    ctx = Context(scale="quick", out_dir=str(tmp_path))
    res = Result(name="lyu-torus", title="t", scale="quick", commit="abc")
    res.claims = [claim("a", "1", "1", REPRODUCED, "b1", why="w"),
                  claim("c", "2", "3", PARTLY, "b2", why="w"),
                  claim("d", "4", "5", NOT_REPRODUCED, "b3", why="w"),
                  claim("f", "4", "5", NOT_REPRODUCED, "b3", source=SPEC, why="w")]
    res.notes = ["the count is 16n²"]
    _write(tmp_path / "causes.csv", [["lyu-torus", "c", "paper", "the count is 16n²",
                                      "an erratum"]])
    text = open(write_report([res], ctx)).read()
    assert ("**Why the other 2 did not reproduce** (the ledger, last section): 1 explained by a "
            "paper inconsistency shown by computation; 1 without a measured cause. 1 of them "
            "have no entry in the ledger") in text
    assert "quote a passage this report lacks" not in text
    last = text.split("## Why the paper's claims that did not reproduce did not")[1]
    assert "| lyu-torus | c | partly | paper | an erratum | “the count is 16n²” |" in last
    assert "| lyu-torus | d | not reproduced | none | no entry in the ledger |  |" in last
    assert "| f |" not in last  # the implementation's checks are not the papers' claims
    _write(tmp_path / "causes.csv", [["lyu-torus", "c|d", "paper", "a note it lacks", "e"]])
    text = open(write_report([res], ctx)).read()
    assert "2 entries quote a passage this report lacks (flagged there)." in text
    assert "no entry in the ledger" not in text
    os.remove(tmp_path / "causes.csv")
    text = open(write_report([res], ctx)).read()
    assert "the ledger" not in text and "## Why the paper's" not in text


# ---------------------------------------------------------------- the committed ledger
def _committed():
    with open(os.path.join(PAPER_DIR, "claims.csv"), newline="", encoding="utf-8") as fh:
        rows = [list(r.values()) for r in csv.DictReader(fh)]
    with open(os.path.join(PAPER_DIR, "report.md"), encoding="utf-8") as fh:
        report = fh.read()
    return rows, report, read_causes(os.path.join(PAPER_DIR, "causes.csv"))


def test_the_committed_ledger_covers_every_open_paper_claim_once():
    rows, _, causes = _committed()
    open_ = [r for r in rows if r[2] == "paper" and r[6] != REPRODUCED]
    assert open_ and causes
    used = collections.Counter()
    for r in open_:
        hits = [i for i, c in enumerate(causes) if c.matches(r[0], r[1])]
        assert len(hits) == 1, (r[0], r[1], hits)
        used[hits[0]] += 1
    stale = [(c.experiment, c.claim) for i, c in enumerate(causes) if not used[i]]
    assert stale == []  # an entry for no open claim is left over from an older report
    assert {c.kind for c in causes} <= set(KINDS)


def test_the_committed_report_lists_the_committed_ledger():
    """The report's last section and headline were written from the ledger as committed
    (a ledger edited after the report was written shows here)."""
    rows, report, causes = _committed()
    open_ = [r for r in rows if r[2] == "paper" and r[6] != REPRODUCED]
    body, _, last = report.partition("## Why the paper's claims that did not reproduce did not")
    assert last
    for r in ledger_rows(open_, causes, body):
        assert f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} |" in last, r[:2]
    counts = cause_counts(open_, causes)
    assert f"**Why the other {len(open_)} did not reproduce**" in body
    assert all(f"{n} " in body for n in counts.values() if n)


def test_the_committed_ledger_rests_on_passages_the_report_has():
    _, report, causes = _committed()
    secs = sections(report)
    for c in causes:
        assert missing_quotes(c, secs) == [], c
        # a kind that claims a measurement names the passage it rests on
        if c.kind in ("measured", "paper", "in part", "not judged"):
            assert c.where, c
        # every decimal number it states is one of the report's, in a section it quotes
        homes = secs.get(c.experiment, "") + "".join(
            secs.get(q.split(": ", 1)[0], "") for q in c.where)
        for number in re.findall(r"\d+\.\d+|\d+%", c.explanation):
            assert number in homes, (c.experiment, number)
