"""The experiment registry and the Markdown report that ``onlinemf reproduce`` writes."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .._io import write_atomic

__all__ = ["Context", "Result", "register", "REGISTRY", "run_experiments", "write_report",
           "pyplot", "save_figure"]


@dataclass
class Context:
    """What an experiment is given: scale ("quick" or "paper"), output folder, data folder."""

    scale: str = "quick"
    out_dir: str = "out"
    data_dir: str | None = None
    seed: int = 0

    @property
    def quick(self) -> bool:
        return self.scale == "quick"

    def figure_path(self, name: str) -> str:
        os.makedirs(os.path.join(self.out_dir, "figures"), exist_ok=True)
        return os.path.join(self.out_dir, "figures", name)


@dataclass
class Result:
    """What an experiment returns.

    ``claims`` rows are (what, the paper's claim or number, ours, holds?) — the report's core;
    ``tables`` are (caption, header, rows); ``figures`` are (caption, path).
    """

    name: str = ""
    title: str = ""
    claims: list = field(default_factory=list)
    tables: list = field(default_factory=list)
    figures: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    seconds: float = 0.0
    scale: str = ""


@dataclass
class Experiment:
    name: str
    spec: str
    title: str
    func: Callable[[Context], Result]


REGISTRY: dict[str, Experiment] = {}


def pyplot():
    """matplotlib's pyplot on the Agg backend (imported lazily: figures are an extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(ctx: Context, res: Result, fig, name: str, caption: str, dpi: int = 90) -> str:
    """Lay out, write ``figures/name`` and close ``fig``; list it in ``res`` with its caption."""
    fig.tight_layout()
    path = ctx.figure_path(name)
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
    res.figures.append((caption, path))
    return path


def register(name: str, spec: str, title: str):
    """Decorator registering ``func(ctx) -> Result`` under ``name``."""

    def deco(func):
        if name in REGISTRY:
            raise ValueError(f"experiment {name!r} registered twice")
        REGISTRY[name] = Experiment(name, spec, title, func)
        return func

    return deco


def experiment_names(names) -> list[str]:
    """The registered experiments named (``["all"]`` or empty for every one), in order."""
    from . import (  # noqa: F401
        lyu_ndl,
        wang_chi_poisson,
        zhao_divergences,
        zhao_haskell_feng,
        zhao_tan_outliers,
    )

    if not names or "all" in names:
        return list(REGISTRY)
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        raise ValueError(f"unknown experiment(s) {unknown}; known: {sorted(REGISTRY)}")
    return list(names)


def run_experiments(names, ctx: Context, progress=None, on_result=None,
                    done: dict | None = None) -> list[Result]:
    """Run the named experiments (``["all"]`` for every one) and return their results.

    ``on_result(results_so_far)`` is called after each experiment (the CLI writes the report
    and the finished result there, so a stopped run loses nothing); experiments found in
    ``done`` (name → Result) are not run again.
    """
    results = []
    for name in experiment_names(names):
        exp = REGISTRY[name]
        if done and name in done:
            if progress:
                progress(f"kept {name} from the earlier run")
            results.append(done[name])
            continue
        if progress:
            progress(f"running {name}: {exp.title}")
        t0 = time.perf_counter()
        res = exp.func(ctx)
        res.name, res.title = name, exp.title
        res.seconds = time.perf_counter() - t0
        results.append(res)
        if on_result:
            on_result(results)
    return results


def _md_table(header, rows) -> str:
    def fmt(v):
        if isinstance(v, float):
            return f"{v:.4g}"
        return str(v)

    lines = ["| " + " | ".join(map(str, header)) + " |",
             "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def write_report(results: list[Result], ctx: Context) -> str:
    """Write ``report.md`` in ``ctx.out_dir`` and return its path."""
    os.makedirs(ctx.out_dir, exist_ok=True)
    out = ["# onlinemf: reproduction report", "",
           f"Scale: **{ctx.scale}**. Data directory: `{ctx.data_dir or '(embedded data only)'}`.",
           "Times are wall-clock seconds on this machine; compare ratios with the paper's "
           "(MATLAB on an i7-4790), not absolute seconds.", ""]
    for res in results:
        out += [f"## {res.name}: {res.title}", "", f"_Ran in {res.seconds:.1f} s._", ""]
        if res.claims:
            out += ["**Paper versus measured**", "",
                    _md_table(["what", "paper", "measured", "agrees"], res.claims), ""]
        for caption, header, rows in res.tables:
            out += [f"**{caption}**", "", _md_table(header, rows), ""]
        for caption, path in res.figures:
            rel = os.path.relpath(path, ctx.out_dir)
            out += [f"![{caption}]({rel})", "", f"_{caption}_", ""]
        for note in res.notes:
            out += [f"- {note}"]
        out.append("")
    path = os.path.join(ctx.out_dir, "report.md")
    text = "\n".join(out).encode("utf-8")
    write_atomic(path, lambda fh: fh.write(text))  # a stopped run keeps the previous report
    return path
