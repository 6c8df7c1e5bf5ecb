"""Every registered experiment runs once at tiny scale on embedded data: its claims carry a
verdict and a band, its tables are filled and its figures written (a smoke test: the numbers
at this size mean nothing)."""

import os

import pytest

from onlinemf.experiments import REGISTRY, Context, experiment_names, run_experiments
from onlinemf.experiments._verdicts import VERDICTS

NAMES = experiment_names([])


def test_every_experiment_is_registered_once():
    assert len(NAMES) == len(set(NAMES)) == len(REGISTRY) >= 23


@pytest.mark.parametrize("name", NAMES)
def test_experiment_runs_at_tiny_scale(name, tmp_path):
    ctx = Context(scale="tiny", out_dir=str(tmp_path))
    (res,) = run_experiments([name], ctx)
    assert res.name == name and res.scale == "tiny" and res.commit
    assert res.claims, "every experiment states at least one claim"
    for row in res.claims:
        assert len(row) == 5 and row[3] in VERDICTS and row[4], row
    assert res.tables or res.figures
    for _, header, rows in res.tables:
        assert rows and all(len(r) == len(header) for r in rows)
    for _, path in res.figures:
        assert os.path.getsize(path) > 1000
