"""Verdict bands of the reproduction claims, and the report's claims.csv and summary."""

import csv
import math
import os

import numpy as np
import pytest

from onlinemf.experiments import REGISTRY, Context, Result, write_report
from onlinemf.experiments._registry import PAPERS
from onlinemf.experiments._verdicts import (
    EXTENSION,
    NOT_MEASURED,
    NOT_REPRODUCED,
    PAPER,
    PARTLY,
    REPRODUCED,
    SPEC,
    SPEED_RATIO_PARTLY,
    at_least,
    at_most,
    claim,
    common_level_times,
    count_band,
    descending_reading,
    descending_times,
    direction_band,
    fmt_times,
    judge,
    lowest,
    ordered,
    ratio_band,
    slowdown_band,
    speed_band,
    speed_parts,
    speed_split,
)


def test_ratio_band_edges():
    assert ratio_band(7.14, 7.14)[0] == REPRODUCED
    assert ratio_band(7.14 * 1.25, 7.14)[0] == REPRODUCED
    assert ratio_band(7.14 * 1.26, 7.14)[0] == PARTLY  # outside the band, within ×2 of it
    assert ratio_band(7.14 * 1.25 * 2.01, 7.14)[0] == NOT_REPRODUCED  # beyond ×2: not partly
    assert ratio_band(0.9, 2.4, 2.7)[0] == NOT_REPRODUCED  # wrong side of 1
    assert ratio_band(1.2, 0.85, 0.88)[0] == NOT_REPRODUCED  # paper < 1, ours > 1
    assert ratio_band(0.5, 0.85, 0.88)[0] == PARTLY
    assert ratio_band(float("nan"), 2.0)[0] == NOT_REPRODUCED
    assert "[1.92, 3.38]" in ratio_band(2.0, 2.4, 2.7)[1]
    assert "(the paper's direction)" in ratio_band(2.0, 2.4, 2.7)[1]


def test_ratio_band_tie_keeps_a_direction_claim_out_of_the_tie():
    """With a tie margin, a ratio within it of 1 is not "faster" (nor "slower"), unless the
    paper's own range reaches into the tie, where the edge stays at 1."""
    assert ratio_band(0.95, 0.85, 0.88, tie=0.1)[0] == NOT_REPRODUCED
    assert ratio_band(0.95, 0.85, 0.88)[0] == REPRODUCED  # without the tie
    assert ratio_band(0.90, 0.85, 0.88, tie=0.1)[0] == REPRODUCED
    assert "never within the 10% tie of 1" in ratio_band(0.9, 0.85, 0.88, tie=0.1)[1]
    assert ratio_band(1.05, 1.3, 1.5, tie=0.1)[0] == NOT_REPRODUCED
    assert ratio_band(1.12, 1.3, 1.5, tie=0.1)[0] == REPRODUCED
    # the paper's 0.93–0.97 is itself within the tie: the edge stays at 1
    assert ratio_band(0.96, 0.935, 0.968, tie=0.1)[0] == REPRODUCED
    assert ratio_band(1.0, 0.935, 0.968, tie=0.1)[0] == NOT_REPRODUCED


@pytest.mark.parametrize("lo,hi", [(0.935, 0.968), (0.85, 0.88), (0.26, 0.32), (1.02, 1.1),
                                   (2.4, 2.61), (5.09, 5.39)])
def test_a_reversed_direction_never_passes(lo, hi):
    """A paper range on one side of 1 makes a direction claim: no ratio on the other side of
    1, nor 1 itself, reads reproduced or partly, however wide ±rel or the partly factor."""
    above = lo > 1
    for rel in (0.1, 0.25, 0.5):
        for factor in (1.5, 2.0, 4.0):
            for x in np.linspace(0.02, 8.0, 400):
                verdict = ratio_band(float(x), lo, hi, rel=rel, factor=factor)[0]
                if (x <= 1) if above else (x >= 1):
                    assert verdict == NOT_REPRODUCED, (lo, hi, rel, factor, x)


def test_a_band_across_one_is_refused():
    with pytest.raises(ValueError, match="straddles 1"):
        direction_band(0.8, 1.2, ">1")
    with pytest.raises(ValueError, match="straddles 1"):
        direction_band(0.9, 1.06, "<1")
    assert direction_band(0.8, 1.2, None) == (0.8, 1.2)  # "about the same" may contain 1
    assert direction_band(1.5, 3.0, ">1") == (1.5, 3.0)


@pytest.mark.parametrize("factor", [1.25, 1.5, 2.0, 3.0])
def test_partly_only_within_the_stated_factor_of_the_band(factor):
    """``partly`` exactly where the ratio lies outside the band but within ``factor`` of its
    edges (read back from the band's own words), never further out."""
    import re

    for lo, hi in ((2.4, 2.61), (0.85, 0.88), (1.0, 1.0), (0.97, 1.03)):
        band = ratio_band(1.0, lo, hi, factor=factor)[1]
        (a, b), (pa, pb) = [tuple(map(float, m)) for m in
                            re.findall(r"\[([\d.e+-]+), ([\d.e+-]+)\]", band)]
        assert f"×{factor:g}" in band
        tol = 0.01  # the band prints its edges to three significant figures
        assert pa >= a / factor * (1 - tol) and pb <= b * factor * (1 + tol)
        for x in np.geomspace(0.05, 20.0, 500):
            verdict = ratio_band(float(x), lo, hi, factor=factor)[0]
            if verdict == PARTLY:
                assert a / factor * (1 - tol) <= x <= b * factor * (1 + tol), (lo, hi, x)
                assert not a * (1 + tol) <= x <= b * (1 - tol), (lo, hi, x)
            if not pa * (1 - tol) <= x <= pb * (1 + tol):
                assert verdict == NOT_REPRODUCED, (lo, hi, x)


def test_a_tie_within_the_margin_is_a_tie():
    assert ordered([1.0, 2.0, 3.0], tie=0.1)[0] == REPRODUCED
    assert ordered([1.0, 1.05, 3.0], tie=0.1)[0] == PARTLY  # one step tied: not a full order
    assert ordered([1.0, 0.95, 3.0], tie=0.1)[0] == PARTLY  # a fall within the margin: a tie
    assert ordered([1.0, 0.8, 3.0], tie=0.1)[0] == NOT_REPRODUCED  # a real reversal
    assert ordered([1.0, 1.05, 1.08], tie=0.1)[0] == NOT_REPRODUCED  # all tied: no order
    assert ordered([3, 2, 1], tie=0.0)[0] == NOT_REPRODUCED
    # the same values flip with the margin: the margin, not the noise, decides
    assert ordered([1.0, 1.02], tie=0.0)[0] == REPRODUCED
    assert ordered([1.0, 1.02], tie=0.05)[0] == NOT_REPRODUCED
    assert lowest({"vr": -1.57, "smm": -1.09, "sgd": -1.59}, "vr", tie=0.05)[0] == PARTLY
    assert lowest({"vr": -1.57, "smm": -1.09, "sgd": -1.59}, "vr", tie=0.0)[0] == \
        NOT_REPRODUCED
    assert lowest({"vr": -2.0, "smm": -1.09, "sgd": -1.59}, "vr", tie=0.05)[0] == REPRODUCED
    assert lowest({"vr": -0.14, "smm": -0.90, "sgd": 0.79}, "vr", tie=0.05)[0] == \
        NOT_REPRODUCED  # below one, far above the other
    assert lowest({"vr": 1.0, "smm": 1.01, "sgd": 0.99}, "vr", tie=0.05)[0] == \
        NOT_REPRODUCED  # ties only: nothing shown
    with pytest.raises(ValueError):
        ordered([1, 2], tie=-1)


def _hist(objective):
    objective = np.asarray(objective, dtype=float)
    return {"objective": objective, "n_samples": np.arange(1, objective.size + 1) * 10,
            "time": np.arange(1, objective.size + 1) * 0.5}


def test_speed_parts_split_a_runs_time_into_samples_and_cost():
    """A run's seconds to a level are split into the samples it had seen by then and its
    milliseconds per sample: the same curve at twice the cost per sample needs the same
    samples and twice the milliseconds; a run that never reaches the level says so."""
    cheap = _hist(np.linspace(10.0, 1.0, 100))  # 0.5 s per 10 samples: 50 ms per sample
    dear = {**cheap, "time": cheap["time"] * 2}
    seconds, _ = common_level_times([cheap, dear])
    samples, cost = speed_parts([cheap, dear], seconds)
    # the common level 10 − 0.9·9 = 1.9 is first reached at record 91 (10 samples each)
    assert samples == [910.0, 910.0]
    assert cost == [50.0, 100.0]
    assert speed_parts([cheap], None) == ([None], [50.0])
    assert speed_parts([cheap], [math.inf])[0] == [math.inf]
    text = speed_split(["a", "b"], [cheap, dear], seconds)
    assert f"a: {samples[0]:.3g} samples, 50 ms per sample" in text
    assert "b:" in text and "100 ms per sample" in text
    assert speed_split(["a"], [cheap], [math.inf]) == "a: never, 50 ms per sample"
    assert "uneven" not in text  # each run's pace is even
    # with mini-batch sizes: 910 samples are 91 updates of 10 (at 500 ms each) and 182 of 5
    by_tau = speed_split(["a", "b"], [cheap, dear], seconds, batch_sizes=[10, 5])
    assert "a: 910 samples, 50 ms per sample (91 updates at 500 ms each)" in by_tau
    assert "b: 910 samples, 100 ms per sample (182 updates at 500 ms each)" in by_tau
    assert "updates" not in speed_split(["a"], [cheap], [math.inf], batch_sizes=[10])
    assert by_tau.endswith("(the runs' updates to the level differ 2.00× and the "
                           "milliseconds of an update 1.00×)")
    # a slow first half (4× the later cost per sample) and a level reached early, at its
    # 210th sample: 200 ms per sample until then against 125 over the pass, both named
    t = np.cumsum(np.where(np.arange(100) < 50, 2.0, 0.5))
    slow_start = {**cheap, "time": t}
    uneven = speed_split(["c"], [slow_start], [float(t[20])])
    assert "c: 210 samples, 125 ms per sample over its pass but 200 up to the level" in uneven
    assert "uneven" not in speed_split(["c"], [slow_start], [float(t[90])])  # 132 vs 125


def test_convergence_speed_is_time_to_a_common_level():
    fast = _hist(np.r_[10.0, np.full(99, 1.0)])
    slow = _hist(np.linspace(10.0, 1.0, 100))
    seconds, level = common_level_times([fast, fast])
    assert speed_band(seconds)[0] == REPRODUCED and 1.0 < level < 10.0
    seconds, _ = common_level_times([fast, slow])
    assert seconds[0] == 1.0 and seconds[1] > 40.0  # the time of the first record at the level
    assert speed_band(seconds)[0] == NOT_REPRODUCED
    assert "slowest/fastest" in fmt_times(seconds, ["a", "b"], level)
    # the same curve at two speeds: within the ratio band, then beyond it
    half = {**slow, "time": slow["time"] * 1.4}
    assert speed_band(common_level_times([slow, half])[0])[0] == REPRODUCED
    third = {**slow, "time": slow["time"] * 1.8}
    assert speed_band(common_level_times([slow, third])[0])[0] == PARTLY
    # a run that barely moves passes a "within 10% of its own final" test at once; at a
    # common level it is the slowest
    flat = _hist(np.linspace(10.0, 9.7, 100))
    seconds, level = common_level_times([fast, flat])
    assert level > 9.7 and seconds[1] > 40 and speed_band(seconds)[0] == NOT_REPRODUCED
    # a rising objective shows no convergence: not reproduced
    rising = _hist(np.linspace(1.0, 2.0, 100))
    seconds, why = common_level_times([rising, fast])
    assert seconds is None and speed_band(seconds, why)[0] == NOT_REPRODUCED
    assert "ends above its start" in fmt_times(seconds, [], why)
    # disjoint ranges on one objective (an algorithm's parameter): one run is far behind
    low = _hist(np.linspace(0.5, 0.1, 100))
    seconds, why = common_level_times([fast, low])
    assert seconds is None and speed_band(seconds, why)[0] == NOT_REPRODUCED
    assert "never reaches" in fmt_times(seconds, [], why)
    # where the parameter changes the attainable level (K), each curve is read on its own
    # scale: disjoint ranges descending alike are equally fast, whatever their levels
    seconds, own = common_level_times([slow, _hist(np.linspace(0.5, 0.1, 100))],
                                      same_level=False)
    assert seconds[0] == seconds[1] and speed_band(seconds, own)[0] == REPRODUCED
    assert "own descent" in fmt_times(seconds, ["a", "b"], own)
    assert "own descent" in speed_band(seconds, own)[1]
    # a curve that drops at once against one that descends steadily: far apart
    seconds, own = common_level_times([fast, low], same_level=False)
    assert seconds[0] == 1.0 and seconds[1] > 40 and speed_band(seconds, own)[0] == NOT_REPRODUCED
    # a run that moves by less than 1% of its start draws a flat line: not measured
    seconds, why = common_level_times([fast, _hist(np.linspace(10.0, 9.95, 100))],
                                      same_level=False)
    assert seconds is None and speed_band(seconds, why)[0] == NOT_MEASURED
    assert "flat" in fmt_times(seconds, [], why)
    # the flat line's edge: a descent just over 1% of the start is read, one just under is not
    edge = _hist(np.r_[10.0, np.full(99, 9.899)])
    assert common_level_times([fast, edge], same_level=False)[0] is not None
    under = _hist(np.r_[10.0, np.full(99, 9.901)])
    assert common_level_times([fast, under], same_level=False)[1] == "a run's objective " \
        "moves by less than 1% of its start"
    # a rising run fails on either scale
    seconds, why = common_level_times([rising, fast], same_level=False)
    assert speed_band(seconds, why)[0] == NOT_REPRODUCED
    # a flat run with the runs that descend already apart beyond the partly bound: failed
    # whatever the flat run's speed (a run added cannot narrow a spread); within the bound,
    # or with one run descending, it stays unread
    flat_hist = _hist(np.linspace(10.0, 9.95, 100))
    grid = [flat_hist, fast, low]
    seconds, why = common_level_times(grid, same_level=False)
    keep, d_seconds, d_level = descending_times(grid)
    assert keep == [1, 2] and d_seconds[1] / d_seconds[0] > SPEED_RATIO_PARTLY
    verdict, band = speed_band(seconds, why, (d_seconds, d_level))
    assert verdict == NOT_REPRODUCED and "unless the runs that descend already fail" in band
    alike = [flat_hist, slow, _hist(np.linspace(0.5, 0.1, 100))]
    seconds, why = common_level_times(alike, same_level=False)
    assert speed_band(seconds, why, descending_times(alike)[1:])[0] == NOT_MEASURED
    assert descending_times([flat_hist, fast])[1:] == (None, why)
    assert speed_band(seconds, why, descending_times([flat_hist, fast])[1:])[0] == NOT_MEASURED
    # in words, for the claim's measured column: only where a run is flat
    assert descending_reading(grid, ["10", "20", "40"], "own") == ("", None)
    text, d = descending_reading([flat_hist, flat_hist, fast, low], list("abcd"), why)
    assert text.startswith("; the runs that descend, without the flat runs: ") and \
        "c: 1" in text and d == tuple(descending_times([fast, low])[1:])
    assert descending_reading([flat_hist, fast], ["a", "b"], why) == (
        "; fewer than two runs descend", None)


def test_threshold_bands():
    assert at_least(3.0, 2.0, 1.0)[0] == REPRODUCED
    assert at_least(1.5, 2.0, 1.0)[0] == PARTLY
    assert at_least(0.5, 2.0, 1.0)[0] == NOT_REPRODUCED
    assert at_least(1.5, 2.0)[0] == NOT_REPRODUCED
    assert at_most(0.2, 0.3, 0.6)[0] == REPRODUCED
    assert at_most(0.5, 0.3, 0.6)[0] == PARTLY
    assert at_most(float("inf"), 0.3, 0.6)[0] == NOT_REPRODUCED
    # "Batch never reached OL's level" is an infinite speed-up: the claim holds
    assert at_least(float("inf"), 2.0, 1.0)[0] == REPRODUCED
    assert at_least(float("nan"), 2.0, 1.0)[0] == NOT_REPRODUCED
    assert count_band(4, 4)[0] == REPRODUCED
    assert count_band(2, 4)[0] == PARTLY
    assert count_band(1, 4)[0] == NOT_REPRODUCED
    assert judge(False, True) == PARTLY


def test_claim_refuses_an_unknown_verdict_source_or_a_band_without_reason():
    with pytest.raises(ValueError, match="verdict must be one of"):
        claim("x", "y", "z", "yes", "band", why="w")
    with pytest.raises(ValueError, match="source must be one of"):
        claim("x", "y", "z", REPRODUCED, "band", source="blog", why="w")
    with pytest.raises(ValueError, match="reason"):
        claim("x", "y", "z", REPRODUCED, "band", why=" ")
    with pytest.raises(TypeError):
        claim("x", "y", "z", REPRODUCED, "band")  # the reason is required
    row = claim("x", "y", "z", REPRODUCED, "band", source=SPEC, why="because")
    assert row[4] == "band. Why: because" and row[5] == SPEC


def test_report_writes_claims_csv_and_summary(tmp_path):
    ctx = Context(scale="quick", out_dir=str(tmp_path))
    os.makedirs(tmp_path / "pieces")
    for piece in ("quick-0-zhf-fig1-odl-cbcl.pkl", "quick-0-zhf-fig1-onmf-cbcl.pkl",
                  "paper-0-zhf-fig2-0.1.pkl"):  # the last: another scale
        (tmp_path / "pieces" / piece).write_bytes(b"")
    res = Result(name="lyu-torus", title="t", scale="quick", commit="abc")
    res.claims = [claim("a", "1", "1", REPRODUCED, "b1", why="w"),
                  claim("c", "2", "3", PARTLY, "b2", why="w"),
                  claim("d", "4", "5", NOT_REPRODUCED, "b3", source=SPEC, why="w"),
                  claim("e", "6", "7", REPRODUCED, "b4", source=EXTENSION, why="w"),
                  ["old", "row", "without verdict", "yes"]]
    path = write_report([res], ctx)
    text = open(path).read()
    assert "**Verdicts of the papers' own claims, per paper**" in text
    assert "spec 00" not in text  # the papers are named by their authors and year
    # the paper's claims counted apart: reproduced, partly, not, not measured, claims, share,
    # then the spec checks, extension claims and the paper's experiments not run
    n_lyu = sum(e.spec.startswith("004") for e in REGISTRY.values())
    lyu = PAPERS["004"]
    assert f"| {lyu} | 1 | 1 | 0 | 0 | 2 | 50% | 1 | 1 | {n_lyu - 1} |" in text
    assert "**The papers' own claims**: 2" in text and "1 reproduced, 1 partly" in text
    # every other experiment is listed as not run, with the pieces kept toward it
    n_zhf = sum(e.spec.startswith("002") for e in REGISTRY.values())
    assert f"| {PAPERS['002']} | 0 | 0 | 0 | 0 | 0 | — | 0 | 0 | {n_zhf} |" in text
    assert "**Not yet run at this scale**" in text
    assert f"| zhf-fig1 | {PAPERS['002']} |" in text and "| lyu-torus |" not in text
    row = next(line for line in text.splitlines() if line.startswith("| zhf-fig1 |"))
    assert row.endswith("| 2 |")  # the paper-scale piece of zhf-fig2 is not counted
    assert "on abc" in text and "b2. Why: w" in text
    with open(tmp_path / "claims.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["experiment", "claim", "source", "paper", "measured", "band", "verdict",
                       "scale"]
    assert [r[6] for r in rows[1:]] == [REPRODUCED, PARTLY, NOT_REPRODUCED, REPRODUCED,
                                        NOT_MEASURED]
    assert [r[2] for r in rows[1:]] == [PAPER, PAPER, SPEC, EXTENSION, ""]
    assert all(r[0] == "lyu-torus" and r[7] == "quick" for r in rows[1:])


def test_a_result_kept_from_older_rules_is_judged_again(tmp_path):
    """A result pickled before the current rules (no ``rules`` of its own) is judged again
    by its experiment's rejudge before it enters a report; a current one is left alone."""
    import pickle

    from onlinemf.experiments._registry import current

    old = Result(name="wang-chi-rank", title="old title", scale="paper", commit="abc")
    old.tables = [("Final errors", ["method", "p", "input rank", "error"],
                   [["ML", 1.0, r, f"{e:.3f}"] for r, e in zip((10, 12, 15, 20),
                                                                (0.41, 0.40, 0.39, 0.37))])]
    old.claims = [["ML, p = 1.0: error with ranks 10, 12, 15, 20", "x", "y", REPRODUCED,
                   "max/min ≤ 2.5"]]
    old.notes = ["matches the rate error instead (spec 003 §8.2)."]
    del old.__dict__["rules"]  # as pickled before the field existed
    again = current(pickle.loads(pickle.dumps(old)))
    (row,) = again.claims
    assert row[3] == NOT_REPRODUCED and row[5] == PAPER  # falling errors: not "increasing"
    assert "spec" not in " ".join(again.notes) and again.title != "old title"
    # a note that called the fall a paper inconsistency reads as today's: expected, not forced
    old.notes = ["Under the paper's metric ‖P_{D̂⊥}D‖/‖D‖ a larger input rank can only help "
                 "… cannot hold for this error … (a paper inconsistency)."]
    (note,) = [n for n in current(pickle.loads(pickle.dumps(old))).notes
               if n.startswith("Under the paper's metric")]
    assert "inconsistency" not in note and "not forced" in note
    assert "by more than the tie margin 0.01 in 1 of 1 panels" in note  # 0.41 → 0.37
    fresh = Result(name="wang-chi-rank", claims=[claim("a", "b", "c", PARTLY, "d", why="e")],
                   rules=REGISTRY["wang-chi-rank"].rules)
    assert current(fresh) is fresh and fresh.claims[0][3] == PARTLY


def test_a_kept_rank_result_says_which_claims_keep_the_runs_verdicts():
    """The convergence claims are read from traces a kept result does not keep: a rejudged
    result says they stay as the run judged them (once, however often it is judged)."""
    from onlinemf.experiments.wang_chi_poisson import RANK_KEPT, _rejudge_rank

    old = Result(name="wang-chi-rank", scale="paper")
    old.tables = [("Final errors", ["method", "p", "input rank", "error"],
                   [["ML", 1.0, r, f"{e:.3f}"] for r, e in zip((10, 12, 15, 20),
                                                                (0.41, 0.40, 0.39, 0.37))])]
    kept = ["ML, p = 1.0: converges at every input rank", "q", "m", REPRODUCED, "b", PAPER]
    old.claims = [["ML, p = 1.0: error with ranks 10, 12, 15, 20", "x", "y", REPRODUCED, "z"],
                  kept]
    again = _rejudge_rank(_rejudge_rank(old))
    assert again.notes.count(RANK_KEPT) == 1 and kept in again.claims
    old.claims = old.claims[:1]
    assert RANK_KEPT not in _rejudge_rank(old).notes


def test_memo_keeps_pieces_for_a_resumed_run(tmp_path):
    calls = []

    def piece():
        calls.append(1)
        return {"value": len(calls)}

    ctx = Context(scale="paper", out_dir=str(tmp_path), resume=False)
    assert ctx.memo("a", piece) == {"value": 1}
    assert ctx.memo("a", piece) == {"value": 2}  # without resume: computed again
    again = Context(scale="paper", out_dir=str(tmp_path), resume=True)
    assert again.memo("a", piece) == {"value": 2} and len(calls) == 2  # kept
    assert again.versions  # stamped with the version that computed it
    other = Context(scale="quick", out_dir=str(tmp_path), resume=True)
    assert other.memo("a", piece) == {"value": 3}  # another scale is another piece
    (tmp_path / "pieces" / "paper-0-a.pkl").write_bytes(b"garbage")
    assert again.memo("a", piece) == {"value": 4}  # unreadable: computed again


def test_resumed_run_reports_the_compute_time_of_its_kept_pieces(tmp_path):
    import pickle
    import time

    def slow():
        time.sleep(0.05)
        return 1

    Context(scale="paper", out_dir=str(tmp_path)).memo("p", slow)
    with open(tmp_path / "pieces" / "paper-0-old.pkl", "wb") as fh:
        pickle.dump(("v0", 2), fh)  # a piece of the earlier format, with no time
    ctx = Context(scale="paper", out_dir=str(tmp_path), resume=True)
    assert ctx.memo("p", slow) == 1 and ctx.memo("old", slow) == 2
    assert ctx.kept_seconds >= 0.05 and ctx.kept_untimed == 1
    res = Result(name="lyu-torus", title="t", scale="paper", commit="abc", seconds=0.1,
                 kept_seconds=ctx.kept_seconds, kept_untimed=ctx.kept_untimed)
    text = open(write_report([res], ctx)).read()
    assert "_Ran in 0.1 s, plus pieces kept from earlier runs (0.1 s, and 1 more whose time " \
        "was not recorded) at scale paper on abc._" in text


def test_source_version_reads_the_commit_and_local_changes(tmp_path):
    import shutil
    import subprocess

    from onlinemf.experiments._registry import source_version

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    assert source_version(str(tmp_path)) is None  # not a work tree

    def git(*args):
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                              cwd=tmp_path, check=True, capture_output=True, text=True
                              ).stdout.strip()

    git("init", "-q")
    (tmp_path / "a.py").write_text("x = 1\n")
    git("add", "a.py")
    git("commit", "-qm", "one")
    sha = git("rev-parse", "--short=10", "HEAD")
    assert source_version(str(tmp_path)) == sha
    (tmp_path / "a.py").write_text("x = 2\n")
    assert source_version(str(tmp_path)) == sha + "+dirty"
    (tmp_path / "b.py").write_text("untracked\n")  # untracked files do not count
    git("checkout", "-q", "a.py")
    assert source_version(str(tmp_path)) == sha


def test_pieces_are_stamped_with_the_code_loaded_not_a_later_head(tmp_path, monkeypatch):
    """A long run that outlives a commit still runs the code it loaded: its pieces must not
    take the newer HEAD (nor the fallback, were git to fail later)."""
    import pickle
    import subprocess

    from onlinemf.experiments import _registry

    loaded = _registry.code_version()

    def later_head(*args, **kwargs):
        return subprocess.CompletedProcess(args, 0, stdout="feedfacefe\n", stderr="")

    monkeypatch.setattr(_registry.subprocess, "run", later_head)
    ctx = Context(scale="paper", out_dir=str(tmp_path))
    ctx.memo("a", lambda: 1)
    with open(tmp_path / "pieces" / "paper-0-a.pkl", "rb") as fh:
        assert pickle.load(fh)[0] == loaded != "feedfacefe"
    assert ctx.versions == {loaded}


def test_significantly_faster_is_a_threshold_with_a_bounded_partly():
    from onlinemf.experiments._verdicts import significantly

    assert significantly(2.0, "r")[0] == REPRODUCED
    assert significantly(1.6, "r")[0] == PARTLY
    assert significantly(1.2, "r")[0] == NOT_REPRODUCED  # the paper's side of 1, not enough
    assert significantly(0.8, "r")[0] == NOT_REPRODUCED
    assert significantly(float("inf"), "r")[0] == REPRODUCED  # never reached: the limit


def test_late_rise_tells_a_perturbed_curve_from_a_falling_one():
    from onlinemf.experiments._verdicts import late_rise as _late_rise

    assert _late_rise(np.linspace(2.0, 1.0, 50)) == 0.0  # keeps falling, however high
    bumpy = np.r_[np.linspace(2.0, 1.0, 25), 1.0 + 0.2 * (np.arange(25) % 2)]
    assert _late_rise(bumpy) == pytest.approx(0.2)
    early_bump = np.r_[2.0, 3.0, np.linspace(1.5, 1.0, 48)]  # a rise in the first half only
    assert _late_rise(early_bump) == 0.0


def test_slowdown_band_reads_only_a_slower_heavier_setting():
    """'Still fast even though the outliers increased': each heavier setting's time over the
    canonical (first) run's; a heavier run that is faster holds, however much faster, while
    the symmetric speed band would fail the same times."""
    assert slowdown_band([119.0, 101.0, 41.2])[0] == REPRODUCED
    assert speed_band([119.0, 101.0, 41.2])[0] == NOT_REPRODUCED
    assert slowdown_band([41.8, 49.2, 69.0])[0] == PARTLY  # 1.65×
    assert slowdown_band([10.0, 15.0, 9.0])[0] == REPRODUCED  # 1.5× exactly
    assert slowdown_band([10.0, 5.0, 20.1])[0] == NOT_REPRODUCED  # 2.01×
    from onlinemf.experiments._verdicts import FLAT, RISES

    assert slowdown_band(None, FLAT)[0] == NOT_MEASURED
    assert slowdown_band(None, RISES)[0] == NOT_REPRODUCED
    assert "faster holds" in slowdown_band([1.0, 1.0])[1]
