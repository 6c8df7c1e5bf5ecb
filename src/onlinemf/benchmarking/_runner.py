"""Run benchmark suites, print their table and write JSON."""

from __future__ import annotations

import json
import os
from dataclasses import asdict

from ._suites import SUITE_FUNCTIONS, BenchContext, Row

__all__ = ["SUITES", "run_benchmarks", "format_table"]

SUITES = tuple(SUITE_FUNCTIONS)


def _fmt(v) -> str:
    if isinstance(v, float):
        return "—" if v != v else ("∞" if v == float("inf") else f"{v:.4g}")
    return str(v)


def format_table(rows: list[Row]) -> str:
    """A Markdown table of the rows."""
    head = ["suite", "case", "ours", "anchor", "anchor s", "ours s to anchor's value",
            "ratio", "metric", "anchor", "ours at anchor's time", "peak MB ours / anchor",
            "GEMM frac.", "note"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        out.append("| " + " | ".join(_fmt(v) for v in (
            r.suite, r.case, r.ours, r.anchor, r.anchor_time, r.ours_time, r.ratio, r.metric,
            r.anchor_value, r.ours_value,
            f"{_fmt(r.peak_mb_ours)} / {_fmt(r.peak_mb_anchor)}", r.gemm_fraction, r.note))
            + " |")
    return "\n".join(out)


def run_benchmarks(names=None, *, quick: bool = False, data_dir: str | None = None,
                   out: str | None = None, threads: int | None = 1, progress=print) -> list[Row]:
    """Run the named suites (all by default) with BLAS limited to ``threads`` (None: as is),
    print the table, and write ``bench.json`` and ``bench.md`` in ``out``."""
    names = list(names or SUITES)
    unknown = [n for n in names if n not in SUITE_FUNCTIONS]
    if unknown:
        raise ValueError(f"unknown benchmark suite(s) {unknown}; known: {list(SUITES)}")
    from threadpoolctl import threadpool_limits

    rows: list[Row] = []
    with threadpool_limits(threads):
        ctx = BenchContext(quick=quick, data_dir=data_dir, progress=progress)
        progress(f"GEMM rate: {ctx.gemm / 1e9:.2f} GFlop/s (float64, "
                 f"{threads or 'all'} thread(s))")
        for name in names:
            progress(f"running suite {name}")
            new = SUITE_FUNCTIONS[name](ctx)
            rows += new
            progress(format_table(new))
    table = format_table(rows)
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "bench.json"), "w", encoding="utf-8") as fh:
            json.dump({"gemm_flops": ctx.gemm, "quick": quick,
                       "rows": [asdict(r) for r in rows]}, fh, indent=1)
        with open(os.path.join(out, "bench.md"), "w", encoding="utf-8") as fh:
            fh.write(table + "\n")
    return rows
