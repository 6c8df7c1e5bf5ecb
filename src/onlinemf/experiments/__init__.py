"""Registered experiments: one module per paper, each experiment runnable at tiny, quick or
paper scale, returning tables, figures and the paper's claims next to the measured values.

The registry (``_registry``) imports no experiment; this face imports every experiment module
once, after it, so the registry is complete whenever the package is imported.
"""

from . import lyu_ndl, wang_chi_poisson, zhao_divergences, zhao_haskell_feng, zhao_tan_outliers
from ._registry import (
    REGISTRY,
    Context,
    PieceMissing,
    Result,
    experiment_names,
    register,
    run_experiments,
    write_report,
)
from ._timing import REPEATS, TimedRuns, timed

__all__ = ["REGISTRY", "Context", "PieceMissing", "Result", "experiment_names", "register",
           "run_experiments", "write_report", "lyu_ndl", "wang_chi_poisson", "zhao_divergences",
           "zhao_haskell_feng", "zhao_tan_outliers", "REPEATS", "TimedRuns", "timed"]
