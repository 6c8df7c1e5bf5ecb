"""Registered experiments: one module per paper, each experiment runnable at quick or paper
scale, returning tables, figures and the paper's claims next to the measured values."""

from ._registry import REGISTRY, Context, Result, register, run_experiments, write_report

__all__ = ["REGISTRY", "Context", "Result", "register", "run_experiments", "write_report"]
