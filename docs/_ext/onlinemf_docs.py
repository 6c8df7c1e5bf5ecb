"""Pages rendered at build time from the project's own outputs.

``.. claims:: PAPER`` renders the reproduction verdicts of one paper from
``reports/paper/claims.csv`` (written by ``onlinemf reproduce``), one table per experiment;
``.. bench-table::`` renders the JSON files that ``onlinemf bench --out DIR`` writes
(``DIR/bench.json``; the configuration lists them, one suite's rows per file at most), and a
chart of their time ratios is drawn into ``_generated/`` when the build starts. Nothing here
is committed output: change the CSV or the JSON and rebuild.
"""

from __future__ import annotations

import csv
import json
import math
import textwrap
from collections import Counter
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive

# the module of each paper's experiments (the registry knows which module registered what)
PAPERS = {
    "zhao-tan-xu": "onlinemf.experiments.zhao_divergences",
    "zhao-tan": "onlinemf.experiments.zhao_tan_outliers",
    "zhao-haskell-feng": "onlinemf.experiments.zhao_haskell_feng",
    "wang-chi": "onlinemf.experiments.wang_chi_poisson",
    "lyu-needell-balzano": "onlinemf.experiments.lyu_ndl",
}
VERDICT_ORDER = ["reproduced", "partly", "not reproduced", "not measured"]
GENERATED = "_generated"


def _table(header: list[str], rows: list[list[str]], widths: list[int] | None = None,
           classes: tuple[str, ...] = ()) -> nodes.table:
    """A docutils table of plain-text cells (no markup is parsed, so no escaping is needed)."""
    table = nodes.table(classes=["onlinemf-table", *classes])
    group = nodes.tgroup(cols=len(header))
    table += group
    for w in widths or [1] * len(header):
        group += nodes.colspec(colwidth=w)

    def row_node(cells, header_row=False):
        row = nodes.row()
        for i, text in enumerate(cells):
            entry = nodes.entry()
            para = nodes.paragraph(text=str(text))
            if not header_row and header[i] == "verdict":
                entry["classes"].append("verdict-" + str(text).replace(" ", "-"))
            entry += para
            row += entry
        return row

    thead = nodes.thead()
    thead += row_node(header, header_row=True)
    group += thead
    tbody = nodes.tbody()
    for cells in rows:
        tbody += row_node(cells)
    group += tbody
    return table


def _section(doc, title: str, ids: str) -> nodes.section:
    sec = nodes.section(ids=[nodes.make_id(ids)])
    sec += nodes.title(text=title)
    doc.note_implicit_target(sec)
    return sec


class ClaimsDirective(Directive):
    """The verdicts of one paper's experiments, from claims.csv."""

    required_arguments = 1
    has_content = False

    def run(self):
        env = self.state.document.settings.env
        paper = self.arguments[0]
        if paper not in PAPERS:
            raise self.error(f"unknown paper {paper!r}; known: {sorted(PAPERS)}")
        path = Path(env.config.onlinemf_claims_csv)
        env.note_dependency(str(path))
        from onlinemf.experiments import REGISTRY

        with open(path, encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh))
        names = [n for n, e in REGISTRY.items() if e.func.__module__ == PAPERS[paper]]
        mine = [r for r in rows if r["experiment"] in names]
        if not mine:
            raise self.error(f"claims.csv has no row for the experiments of {paper}")
        out = []
        counts = Counter(r["verdict"] for r in mine)
        summary = ", ".join(f"{counts[v]} {v}" for v in
                            VERDICT_ORDER + sorted(set(counts) - set(VERDICT_ORDER))
                            if counts[v])
        scales = sorted({r["scale"] for r in mine})
        out.append(nodes.paragraph(text=(
            f"{len(mine)} claims: {summary} (scale: {', '.join(scales)}; "
            f"read from reports/paper/claims.csv when this page was built).")))
        for name in names:
            cells = [r for r in mine if r["experiment"] == name]
            if not cells:
                continue
            sec = _section(self.state.document, name, f"claims-{name}")
            counts = Counter(r["verdict"] for r in cells)
            sec += nodes.paragraph("", "", nodes.emphasis(text=REGISTRY[name].title),
                                   nodes.Text(" — " + ", ".join(
                                       f"{counts[v]} {v}" for v in VERDICT_ORDER
                                       if counts[v]) + "."))
            sec += _table(["claim", "paper", "measured", "verdict"],
                          [[r["claim"], r["paper"], r["measured"], r["verdict"]]
                           for r in cells], widths=[40, 25, 25, 10])
            out.append(sec)
        return out


def _fmt(v) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return "—"
        return "∞" if math.isinf(v) else f"{v:.4g}"
    return "—" if v is None else str(v)


def _bench_files(paths) -> list[dict]:
    """The JSON of each listed ``onlinemf bench`` run."""
    out = []
    for path in [paths] if isinstance(paths, str) else paths:
        with open(path, encoding="utf-8") as fh:
            out.append(json.load(fh))
    return out


def _bench(env) -> list[dict]:
    paths = env.config.onlinemf_bench_json
    for path in [paths] if isinstance(paths, str) else paths:
        env.note_dependency(str(path))
    return _bench_files(paths)


class BenchTableDirective(Directive):
    """One table per suite of the ``onlinemf bench`` JSON."""

    has_content = False

    def run(self):
        env = self.state.document.settings.env
        runs = _bench(env)
        rows = [r for data in runs for r in data["rows"]]
        suites = list(dict.fromkeys(r["suite"] for r in rows))
        sizes = "; ".join(
            f"{', '.join(dict.fromkeys(r['suite'] for r in data['rows']))}: "
            f"{'quick' if data.get('quick') else 'full'} sizes, one-thread float64 GEMM "
            f"{data['gemm_flops'] / 1e9:.1f} GFlop/s" for data in runs)
        out = [nodes.paragraph(text=f"{len(rows)} comparisons from {len(runs)} runs ({sizes}).")]
        for suite in suites:
            mine = [r for r in rows if r["suite"] == suite]
            sec = _section(self.state.document, f"Suite {suite}", f"bench-{suite}")
            sec += _table(
                ["case", "ours / anchor", "metric", "anchor's final value (its time, s)",
                 "our time to that value, s (ratio)", "ours at the anchor's time",
                 "peak MB ours / anchor"],
                [[r["case"], f"{r['ours']} / {r['anchor']}", r["metric"],
                  f"{_fmt(r['anchor_value'])} ({_fmt(r['anchor_time'])})",
                  f"{_fmt(r['ours_time'])} ({_fmt(r['ratio'])})", _fmt(r["ours_value"]),
                  f"{_fmt(r['peak_mb_ours'])} / {_fmt(r['peak_mb_anchor'])}"]
                 for r in mine], widths=[22, 22, 12, 12, 12, 10, 10],
                classes=("bench-table",))
            notes = nodes.bullet_list()
            for r in mine:
                if r["note"]:
                    item = nodes.list_item()
                    item += nodes.paragraph("", "", nodes.emphasis(text=r["case"] + ": "),
                                            nodes.Text(r["note"]))
                    notes += item
            if len(notes):
                sec += notes
            out.append(sec)
        return out


def _short_label(case: str, width: int = 56) -> str:
    """A case's name for the chart: its data set's name shortened, its tail (loss, K, "one
    pass") kept whole, since that is what tells neighbouring bars apart."""
    if len(case) <= width or " / " not in case:
        return textwrap.shorten(case, width, placeholder="…")
    head, tail = case.split(" / ", 1)
    room = max(width - len(tail) - 3, 12)
    return f"{textwrap.shorten(head, room, placeholder='…')} / {tail}"


def _draw_bench(app):
    """Draw the ratio chart into docs/_generated/ before the sources are read."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for data in _bench_files(app.config.onlinemf_bench_json) for r in data["rows"]
            if isinstance(r["ratio"], float) and math.isfinite(r["ratio"])]
    suites = list(dict.fromkeys(r["suite"] for r in rows))
    colours = plt.get_cmap("tab10")
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(rows) + 1.3), layout="constrained")
    y = range(len(rows))[::-1]
    ax.barh(list(y), [r["ratio"] for r in rows],
            color=[colours(suites.index(r["suite"])) for r in rows])
    labels = [_short_label(r["case"]) for r in rows]
    ax.set_yticks(list(y), labels, fontsize=9)
    ax.axvline(1.0, color="black", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("our time to the anchor's final value / the anchor's time  (< 1: faster)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours(i)) for i in range(len(suites))]
    ax.legend(handles, suites, title="suite", loc="upper left", bbox_to_anchor=(1.01, 1),
              fontsize=9)
    out = Path(app.srcdir) / GENERATED
    out.mkdir(exist_ok=True)
    fig.savefig(out / "bench_ratios.png", dpi=110)
    plt.close(fig)


def setup(app):
    app.add_config_value("onlinemf_claims_csv", "", "env")
    app.add_config_value("onlinemf_bench_json", [], "env", types=[list, str])
    app.add_directive("claims", ClaimsDirective)
    app.add_directive("bench-table", BenchTableDirective)
    app.connect("builder-inited", _draw_bench)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
