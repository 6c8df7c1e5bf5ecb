"""The report's timing protocol: repeated runs, the median, one rerun of an outlying run."""

import pickle

import numpy as np
import pytest

from onlinemf.cli import main
from onlinemf.experiments import Context
from onlinemf.experiments._timing import TimedRuns, timed


def scripted(durations):
    """A fit whose runs take ``durations`` seconds on a fake clock, and that clock: each
    call of the fit advances it by the next duration and returns the run's index."""
    now = [0.0]
    calls = []

    def fit():
        calls.append(len(calls))
        now[0] += durations[len(calls) - 1]
        return len(calls) - 1

    return fit, (lambda: now[0]), calls


def test_median_of_three_and_first_value():
    fit, clock, calls = scripted([3.0, 1.0, 2.0])
    value, runs = timed(fit, repeats=3, clock=clock)
    assert value == 0 and len(calls) == 3
    assert runs.wall == [3.0, 1.0, 2.0] and runs.replaced == []
    assert runs.median == 2.0
    assert "median of 3 runs" in runs.describe()


def test_outlier_is_rerun_once_and_reported():
    # 9 > 2 × median(1, 1.2): replaced by a fourth run, whose 1.1 is not checked again
    fit, clock, calls = scripted([1.0, 9.0, 1.2, 1.1])
    value, runs = timed(fit, repeats=3, clock=clock)
    assert value == 0 and len(calls) == 4
    assert runs.replaced == [1]
    assert runs.kept == pytest.approx([1.0, 1.2, 1.1])
    assert runs.median == pytest.approx(1.1)
    assert "9 replaced" in runs.describe()


def test_a_run_at_twice_the_median_is_kept():
    fit, clock, calls = scripted([1.0, 2.0, 1.0])
    _, runs = timed(fit, repeats=3, clock=clock)
    assert runs.replaced == [] and len(calls) == 3


def test_one_run_is_a_single_reading():
    fit, clock, calls = scripted([5.0])
    value, runs = timed(fit, repeats=1, clock=clock)
    assert value == 0 and runs.wall == [5.0] and runs.describe().startswith("5 s (one run;")


def test_cpu_share_and_load_are_recorded():
    # scripted clocks: a fit of 2 s wall that got 1.5 s and then 2 s of CPU
    fit, clock, calls = scripted([2.0, 2.0])
    cpu = iter([0.0, 1.5, 1.5, 3.5])
    _, runs = timed(fit, repeats=2, clock=clock, cpu_clock=lambda: next(cpu))
    assert len(runs.cpu) == len(runs.load) == len(runs.wall) == 2
    assert runs.cpu == [1.5, 2.0] and runs.cpu_share == pytest.approx(0.75)
    assert pickle.loads(pickle.dumps(runs)).wall == runs.wall


def test_real_clocks_give_one_finite_reading():
    _, runs = timed(lambda: sum(range(200000)), repeats=1)
    assert len(runs.cpu) == len(runs.load) == 1
    # the CPU seconds are the process's (idle BLAS threads of earlier tests may add some)
    assert runs.wall[0] > 0 and np.isfinite(runs.cpu_share) and runs.cpu_share > 0


@pytest.mark.parametrize("kw, match", [({"repeats": 0}, "repeats"), ({"outlier": 1.0},
                                                                     "outlier")])
def test_rejects_bad_settings(kw, match):
    with pytest.raises(ValueError, match=match):
        timed(lambda: None, **kw)


def test_context_uses_its_repeats():
    import time

    calls = []
    ctx = Context(repeats=2)
    value, runs = ctx.timed(lambda: calls.append(time.sleep(0.02)) or len(calls))
    # two runs of the same length (a third only if the machine stalled one of them)
    assert value == 1 and len(calls) >= 2 and isinstance(runs, TimedRuns)


def test_cli_rejects_repeats_below_one(tmp_path, capsys):
    assert main(["reproduce", "zhao-synthetic", "--scale", "tiny", "--repeats", "0",
                 "--out", str(tmp_path)]) == 2
    assert "--repeats must be at least 1" in capsys.readouterr().err


def test_excluded_seconds_leave_the_fit_time():
    # each run takes 3 s, of which a callback's measurement took 1 s
    fit, clock, calls = scripted([3.0, 3.0, 3.0])
    _, runs = timed(fit, repeats=3, exclude=lambda value: 1.0, clock=clock)
    assert runs.wall == [2.0, 2.0, 2.0]


def test_the_clean_regret_counts_its_own_time():
    import numpy as np

    from onlinemf.experiments.zhao_tan_outliers import CleanRegret

    clean = np.ones((6, 3))
    tracker = CleanRegret(clean)
    tracker({"codes": np.ones((2, 2)), "rows": np.array([0, 1]),
             "components": np.full((2, 3), 0.5), "time": 0.1})
    assert tracker.seconds > 0 and len(tracker.trace) == 1
    assert tracker.value(np.full((2, 3), 0.5)) == 0.0  # (1/2)·(0.5 + 0.5)·1 = clean: exact


def test_a_replaced_first_run_gives_its_rerun_value():
    # the first run (the one whose value would be kept) is the slow one: its rerun's value
    # is returned, so a history's time axis comes from a run that counts
    fit, clock, calls = scripted([9.0, 1.0, 1.2, 1.1])
    value, runs = timed(fit, repeats=3, clock=clock)
    assert runs.replaced == [0] and value == 3 and runs.value_run == 3
    assert runs.median == pytest.approx(1.1)
