"""``onlinemf bench``: every estimator against the tool a user would pick instead, on the same
data, in one run, with time-to-the-anchor's-objective ratios, final objectives, peak memory
and the fraction of this machine's GEMM rate the hot products reach.

The suites are registered in :data:`SUITES`; :func:`run_benchmarks` runs some or all of them.
"""

from ._measure import gemm_rate, online_curve, peak_memory_mb, restart_curve, time_to, value_at
from ._runner import SUITES, format_table, run_benchmarks

__all__ = ["SUITES", "run_benchmarks", "format_table", "gemm_rate", "online_curve",
           "peak_memory_mb", "restart_curve", "time_to", "value_at"]
