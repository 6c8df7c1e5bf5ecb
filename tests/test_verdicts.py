"""Verdict bands of the reproduction claims, and the report's claims.csv and summary."""

import csv
import os

import pytest

from onlinemf.experiments import REGISTRY, Context, Result, write_report
from onlinemf.experiments._verdicts import (
    NOT_MEASURED,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    at_least,
    at_most,
    claim,
    count_band,
    judge,
    ordered,
    ratio_band,
)


def test_ratio_band_edges():
    assert ratio_band(7.14, 7.14)[0] == REPRODUCED
    assert ratio_band(7.14 * 1.25, 7.14)[0] == REPRODUCED
    assert ratio_band(7.14 * 1.26, 7.14)[0] == PARTLY  # outside the band, right side of 1
    assert ratio_band(1.6, 2.4, 2.7)[0] == PARTLY  # the lenient old "> 1" is now partly
    assert ratio_band(1.8, 2.4, 2.7)[0] == REPRODUCED  # 2.4 · 0.75
    assert ratio_band(0.9, 2.4, 2.7)[0] == NOT_REPRODUCED  # wrong side of 1
    assert ratio_band(1.2, 0.85, 0.88)[0] == NOT_REPRODUCED  # paper < 1, ours > 1
    assert ratio_band(0.5, 0.85, 0.88)[0] == PARTLY
    assert ratio_band(float("nan"), 2.0)[0] == NOT_REPRODUCED
    assert "[1.8, 3.38]" in ratio_band(2.0, 2.4, 2.7)[1]


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
    assert ordered([1, 2, 3])[0] == REPRODUCED
    assert ordered([1, 3, 2])[0] == PARTLY
    assert ordered([3, 2, 1])[0] == NOT_REPRODUCED
    assert count_band(4, 4)[0] == REPRODUCED
    assert count_band(2, 4)[0] == PARTLY
    assert count_band(1, 4)[0] == NOT_REPRODUCED
    assert judge(False, True) == PARTLY


def test_claim_refuses_an_unknown_verdict():
    with pytest.raises(ValueError, match="verdict must be one of"):
        claim("x", "y", "z", "yes", "band")


def test_report_writes_claims_csv_and_summary(tmp_path):
    ctx = Context(scale="quick", out_dir=str(tmp_path))
    os.makedirs(tmp_path / "pieces")
    for piece in ("quick-0-zhf-fig1-odl-cbcl.pkl", "quick-0-zhf-fig1-onmf-cbcl.pkl",
                  "paper-0-zhf-fig2-0.1.pkl"):  # the last: another scale
        (tmp_path / "pieces" / piece).write_bytes(b"")
    res = Result(name="lyu-torus", title="t", scale="quick", commit="abc")
    res.claims = [claim("a", "1", "1", REPRODUCED, "b1"), claim("c", "2", "3", PARTLY, "b2"),
                  ["old", "row", "without verdict", "yes"]]
    path = write_report([res], ctx)
    text = open(path).read()
    assert "**Verdicts per paper**" in text
    # reproduced, partly, not, not measured, claims, and the spec's experiments not run
    n_lyu = sum(e.spec.startswith("004") for e in REGISTRY.values())
    assert f"| spec 004 | 1 | 1 | 0 | 1 | 3 | {n_lyu - 1} |" in text
    # every other experiment is listed as not run, with the pieces kept toward it
    n_zhf = sum(e.spec.startswith("002") for e in REGISTRY.values())
    assert f"| spec 002 | 0 | 0 | 0 | 0 | 0 | {n_zhf} |" in text
    assert "**Not yet run at this scale**" in text
    assert "| zhf-fig1 | 002 §4.4 Fig. 1 |" in text and "| lyu-torus |" not in text
    row = next(line for line in text.splitlines() if line.startswith("| zhf-fig1 |"))
    assert row.endswith("| 2 |")  # the paper-scale piece of zhf-fig2 is not counted
    assert "on abc" in text and "b2" in text
    with open(tmp_path / "claims.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["experiment", "claim", "paper", "measured", "verdict", "scale"]
    assert [r[4] for r in rows[1:]] == [REPRODUCED, PARTLY, NOT_MEASURED]
    assert all(r[0] == "lyu-torus" and r[5] == "quick" for r in rows[1:])


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
