"""The experiment registry and the Markdown report that ``onlinemf reproduce`` writes."""

from __future__ import annotations

import csv
import io
import os
import pickle
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .._io import write_atomic
from ._causes import KIND_TEXT, KINDS, NO_ENTRY, cause_counts, ledger_rows, read_causes
from ._piece_lock import piece_lock
from ._verdicts import (
    EDGE_MARK,
    EXTENSION,
    NOT_MEASURED,
    NOT_REPRODUCED,
    PAPER,
    PARTLY,
    REPRODUCED,
    SOURCES,
    SPEC,
    VERDICTS,
)

__all__ = ["Context", "Result", "PieceMissing", "register", "REGISTRY", "run_experiments",
           "write_report", "pyplot", "save_figure", "PAPERS", "RULES"]

#: The seed papers, by authors and year (the report names them so, never by number).
PAPERS = {
    "000": "Zhao, Tan and Xu 2016 (online NMF with general divergences)",
    "001": "Zhao and Tan 2016 (online NMF with outliers)",
    "002": "Zhao, Haskell and Feng 2018 (stochastic MF via variance reduction)",
    "003": "Wang and Chi 2016 (Poisson subspace tracking)",
    "004": "Lyu, Needell and Balzano 2020 (online MF on Markovian data, network dictionaries)",
}

#: The version of the verdict rules (bands, sources, tie margins): a kept result judged by
#: older rules is judged again from its kept numbers (``register(..., rejudge=...)``)
#: before it enters a report.
RULES = 6


#: the measured column of a claim whose panel has not run yet (a kept-only assembly)
NOT_RUN = "not yet run at this scale"


class PieceMissing(LookupError):
    """A piece that a ``kept_only`` run would have had to compute (see :meth:`Context.memo`);
    an experiment of independent panels catches it per panel and reports that panel's
    claims as not measured."""


@dataclass
class Context:
    """What an experiment is given: scale ("tiny", "quick" or "paper"), output folder, data
    folder. "tiny" runs the quick branches at the smallest sizes that exercise every line (the
    test suite runs each experiment so); its numbers mean nothing."""

    scale: str = "quick"
    out_dir: str = "out"
    data_dir: str | None = None
    seed: int = 0
    resume: bool = False
    # assemble from kept pieces only: a missing piece raises PieceMissing instead of running
    # (a report of the panels finished so far while the long runs go on)
    kept_only: bool = False
    versions: set = field(default_factory=set)
    # compute seconds of the pieces loaded instead of computed (and how many of those were
    # kept before pieces recorded their time): the report adds them to the run's own time
    kept_seconds: float = 0.0
    kept_untimed: int = 0
    # seconds between looks at a piece that another process is computing
    lock_poll: float = 30.0
    # worker processes for the untimed work of an experiment (its batch references): the
    # timed fits always run in one process, so their times stay comparable
    jobs: int = 1
    # timed runs of each fit whose time a claim compares (:func:`._timing.timed`): the
    # median counts, a run over twice the others' median is run again once
    repeats: int = 1

    @property
    def quick(self) -> bool:
        """Not the paper's scale (quick or tiny)."""
        return self.scale != "paper"

    def map_fn(self):
        """A map over ``jobs`` worker processes (the built-in map for one), for work whose
        items are independent and untimed; results come back in order."""
        if self.jobs <= 1:
            return map
        from joblib import Parallel, delayed

        def parallel_map(func, items):
            return Parallel(n_jobs=self.jobs)(delayed(func)(item) for item in items)

        return parallel_map

    def timed(self, fit, exclude=None):
        """``fit()`` run ``repeats`` times: the value of a run that counts and the
        ``TimedRuns`` of every run (``exclude``: see ``onlinemf.experiments.timed``)."""
        from ._timing import timed

        return timed(fit, self.repeats, exclude=exclude)

    def pick(self, quick, paper, tiny=None):
        """The setting for this scale: ``tiny`` (when given) at tiny scale, else ``quick``
        below the paper's scale, else ``paper``."""
        if self.scale == "paper":
            return paper
        return tiny if self.scale == "tiny" and tiny is not None else quick

    def memo(self, key: str, func: Callable[[], object]):
        """``func()``, kept in ``out_dir/pieces/`` so that a long experiment stopped midway
        resumes piece by piece: with ``resume``, a piece finished earlier (same scale, seed and
        key) is loaded instead of recomputed. The code version of every piece used is kept in
        ``versions`` (the experiment is stamped with all of them). A piece whose content or
        meaning changes needs a new key (kept pieces are not recomputed). With ``kept_only``
        a piece not kept raises :class:`PieceMissing`. A piece that another process is
        computing (:func:`piece_lock`) is waited for, then loaded with ``resume``."""
        path = self._piece_path(key, "pkl")
        if self.resume or self.kept_only:
            kept = self._load(path)
            if kept is not None:
                return kept[0]
        if self.kept_only:
            raise PieceMissing(key)
        with piece_lock(path, poll=self.lock_poll) as waited:
            kept = self._load(path) if waited and self.resume else None
            if kept is not None:  # another process computed it meanwhile
                return kept[0]
            version = code_version()
            t0 = time.perf_counter()
            value = func()
            # its own compute time: pieces loaded inside it are counted as kept already
            seconds = time.perf_counter() - t0
            os.makedirs(os.path.dirname(path), exist_ok=True)
            write_atomic(path, lambda fh: pickle.dump((version, value, seconds), fh))
        self.versions.add(version)
        return value

    def _load(self, path: str) -> tuple | None:
        """``(value,)`` of the piece kept at ``path`` (its version and time recorded), or
        None when it is absent or unreadable (then it is computed again)."""
        if not os.path.exists(path):
            return None
        try:
            with open(path, "rb") as fh:
                version, value, *timed = pickle.load(fh)  # (version, value[, seconds])
        except Exception:
            return None
        self.versions.add(version)
        if timed:
            self.kept_seconds += float(timed[0])
        else:
            self.kept_untimed += 1
        return (value,)

    def _piece_path(self, key: str, ext: str) -> str:
        """The file of piece ``key`` (its kept value, or its fit's state) under ``pieces/``."""
        return os.path.join(self.out_dir, "pieces", f"{self.scale}-{self.seed}-{key}.{ext}")

    def state_file(self, key: str) -> str | None:
        """Where the long fit of piece ``key`` keeps its state between outer iterations
        (``StochasticMF(state_file=...)``), at the paper's scale only: a run stopped
        mid-fit resumes that fit with ``resume``; without it a stale file is removed, so the
        fit starts afresh."""
        if self.scale != "paper":
            return None
        path = self._piece_path(key, "state")
        if not self.resume and os.path.exists(path):
            os.remove(path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return path

    def figure_path(self, name: str) -> str:
        os.makedirs(os.path.join(self.out_dir, "figures"), exist_ok=True)
        return os.path.join(self.out_dir, "figures", name)


@dataclass
class Result:
    """What an experiment returns.

    ``claims`` rows are ``[what, the paper's claim or number, ours, verdict, band]`` (built
    with :func:`onlinemf.experiments._verdicts.claim`) — the report's core; ``tables`` are
    (caption, header, rows); ``figures`` are (caption, path). ``commit`` is the code version
    the experiment ran on.
    """

    name: str = ""
    title: str = ""
    claims: list = field(default_factory=list)
    tables: list = field(default_factory=list)
    figures: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    seconds: float = 0.0
    scale: str = ""
    commit: str = ""
    kept_seconds: float = 0.0  # compute time of the pieces a resumed run loaded
    kept_untimed: int = 0  # loaded pieces written before pieces recorded their time
    # panels not yet run (a kept-only assembly): their claims are "not measured", and a
    # later run computes the experiment again instead of keeping this result
    missing: list = field(default_factory=list)
    # the verdict rules the claims were judged by (a result pickled before this field
    # existed reads as 0: see RULES)
    rules: int = RULES


@dataclass
class Experiment:
    name: str
    spec: str
    title: str
    func: Callable[[Context], Result]
    # judges a result kept from older rules again, from the numbers it kept (its tables
    # and measured values): the same claim functions the experiment itself calls
    rejudge: Callable[[Result], Result] | None = None
    # reads into a result what pieces measured after its run add (a what-if, a timing the
    # run did not make), without repeating the run: ``later(res, ctx)`` loads them from
    # ``ctx`` (or computes them, unless ``ctx.kept_only``) and leaves a result unchanged
    # where they are not kept; reading the same pieces twice adds nothing twice, and an
    # experiment that computes them itself returns ``later(res, ctx)`` (one reading)
    later: Callable[[Result, Context], Result] | None = None
    # where the experiment's protocol departs from its paper's, each with its effect where a
    # run measured it (the report lists them under the experiment, kept results included)
    departures: tuple[str, ...] = ()
    # the version of this experiment's own claim texts (a quote or a band's reason mended
    # since its run): a kept result older than it, or than :data:`RULES`, is judged again,
    # without judging every other experiment's kept results again
    rules: int = RULES

    @property
    def paper(self) -> str:
        """The seed paper, by authors and year."""
        return PAPERS.get(self.spec[:3], self.spec)


REGISTRY: dict[str, Experiment] = {}


def pyplot():
    """matplotlib's pyplot on the Agg backend (imported lazily: figures are an extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(ctx: Context, res: Result, fig, name: str, caption: str, dpi: int = 90) -> str:
    """Lay out, write ``figures/name`` and close ``fig``; list it in ``res`` with its caption.
    A figure that has its own layout engine (those of :mod:`onlinemf.plotting` are laid out
    by matplotlib's constrained layout, colour bars included) keeps it."""
    if fig.get_layout_engine() is None:
        fig.tight_layout()
    path = ctx.figure_path(name)
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
    res.figures.append((caption, path))
    return path


def register(name: str, spec: str, title: str, rejudge=None, departures=(), later=None,
             rules: int = RULES):
    """Decorator registering ``func(ctx) -> Result`` under ``name`` (``spec``: the number of
    its seed paper first; ``rejudge``, ``later`` and ``rules``: see those fields of
    ``Experiment``; ``departures``: sentences stating where the protocol departs from the
    paper's)."""

    def deco(func):
        if name in REGISTRY:
            raise ValueError(f"experiment {name!r} registered twice")
        REGISTRY[name] = Experiment(name, spec, title, func, rejudge=rejudge,
                                    departures=tuple(departures), later=later,
                                    rules=max(rules, RULES))
        return func

    return deco


def source_version(folder: str) -> str | None:
    """The git commit of ``folder`` (``+dirty`` when tracked files under it have local
    changes), or None outside a git work tree."""
    try:
        def git(*args):
            return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True,
                                  timeout=10, check=True).stdout.strip()

        sha = git("rev-parse", "--short=10", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".")
        return sha + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None


def _version_at_load() -> str:
    from .. import __version__

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return source_version(package) or f"onlinemf {__version__}"


# read once, when the package's code is loaded: a long run started before a later commit
# still runs the code it loaded, and is stamped with it, not with the newer HEAD
_LOADED_VERSION = _version_at_load()


def code_version() -> str:
    """The version of the code this process runs: the git commit of the package's source
    when it was loaded (``+dirty`` with local changes then), else the package's version.
    Each piece and experiment of a report is stamped with it."""
    return _LOADED_VERSION


def experiment_names(names) -> list[str]:
    """The registered experiments named (``["all"]`` or empty for every one), in order (the
    package's face imports every experiment module, so the registry is complete)."""
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
            results.append(current(done[name], ctx, compute=True))
            continue
        if progress:
            progress(f"running {name}: {exp.title}")
        version = code_version()
        ctx.versions = {version}
        ctx.kept_seconds, ctx.kept_untimed = 0.0, 0
        t0 = time.perf_counter()
        try:
            res = exp.func(ctx)
        except PieceMissing as missing:  # kept-only, and not assembled panel by panel
            if progress:
                progress(f"  {name}: piece {missing} not kept yet, not assembled")
            continue
        if res.missing and all(c[2] == NOT_RUN for c in res.claims):
            for _, path in res.figures:  # no panel kept: no figure of empty axes either
                if os.path.exists(path):
                    os.remove(path)
            if progress:  # it stays among the experiments not run
                progress(f"  {name}: no panel kept yet ({', '.join(res.missing)}), not "
                         "assembled")
            continue
        res.name, res.title = name, exp.title
        res.rules = exp.rules  # judged just now, by this experiment's current claim texts
        res.seconds = time.perf_counter() - t0
        res.kept_seconds, res.kept_untimed = ctx.kept_seconds, ctx.kept_untimed
        res.scale = res.scale or ctx.scale
        res.commit = ", ".join([version] + sorted(ctx.versions - {version}))
        if progress:
            verdicts = [row[6] for row in claim_rows([res])]
            counts = ", ".join(f"{verdicts.count(v)} {v}" for v in VERDICTS
                               if verdicts.count(v))
            progress(f"  {name} done in {res.seconds:.1f} s: {counts or 'no claims'}")
            for note in res.notes:
                if note.startswith("**Fell back"):
                    progress("  " + note.replace("**", ""))
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


def claim_rows(results: list[Result]) -> list[list[str]]:
    """Every claim as ``[experiment, claim, source, paper, measured, band, verdict, scale]``
    (``claims.csv``). A row of an earlier format (no verdict) counts as ``not measured``;
    one without a source has the source ``""`` (counted apart from the paper's claims)."""
    rows = []
    for res in results:
        for c in res.claims:
            verdict = c[3] if len(c) >= 5 and c[3] in VERDICTS else NOT_MEASURED
            band = str(c[4]) if len(c) >= 5 else ""
            source = c[5] if len(c) >= 6 and c[5] in SOURCES else ""
            rows.append([res.name, str(c[0]), source, str(c[1]), str(c[2]), band, verdict,
                         res.scale])
    return rows


_SPEC_REF = re.compile(r"\s*\((?:the )?spec(?:'s)?(?: \d{3})?(?: §[^)]*)?\)|,? ?spec(?: \d{3})?"
                       r" §[\w.]+(?: item \d+)?(?::? '[^']*')?")


def unspec(text: str) -> str:
    """``text`` without references to the implementation notes ("spec 003 §8.2", "(spec
    §5 item 1)"): a reader of the report cannot resolve them (results kept from before the
    report cited the papers only)."""
    return _SPEC_REF.sub("", text)


def current(res: Result, ctx: Context | None = None, compute: bool = False) -> Result:
    """``res`` judged by the current verdict rules: a result kept from older rules is judged
    again by its experiment's ``rejudge`` (from the numbers it kept), its notes freed of
    references to the implementation notes; then, with ``ctx``, the experiment's ``later``
    reads in the pieces measured since its run — kept pieces only, unless ``compute`` (the
    experiment is one a run names: a missing piece is then computed, once)."""
    exp = REGISTRY.get(res.name)
    # vars(): a result pickled before the field existed has no own value (the class default
    # would read as current)
    if exp is not None and exp.rejudge is not None and vars(res).get("rules", 0) < exp.rules:
        res = exp.rejudge(res)
        res.title = exp.title
        res.notes = [unspec(n) for n in res.notes]
        res.tables = [(unspec(c), h, r) for c, h, r in res.tables]
        res.notes.append(f"The claims above were judged again, from the numbers this run "
                         f"kept, by the verdict rules of {code_version()} (the run itself is "
                         "not repeated); a claim read from numbers it did not keep stays as "
                         "the run judged it.")
        res.rules = exp.rules
    if exp is not None and exp.later is not None and ctx is not None:
        reads = replace(ctx, resume=True, kept_only=ctx.kept_only or not compute,
                        versions=set())
        res = exp.later(res, reads)
        # the result is stamped with the code versions of the pieces read in too
        stamps = [v for v in str(res.commit).split(", ") if v]
        res.commit = ", ".join(stamps + sorted(reads.versions - set(stamps)))
    return res


def _summary(results: list[Result], missing: list[str] = ()) -> list[list]:
    """Verdict counts of the paper's own claims per seed paper (authors and year), their
    share reproduced, then the claims of other sources, and the number of its experiments
    with no result at this scale (``missing``)."""
    counts: dict[str, dict[str, int]] = {}
    order = list(PAPERS)
    for res in results:
        exp = REGISTRY.get(res.name)
        paper = exp.spec[:3] if exp else "?"
        row = counts.setdefault(paper, dict.fromkeys([*VERDICTS, SPEC, EXTENSION, ""], 0))
        for c in claim_rows([res]):
            row[c[6] if c[2] == PAPER else c[2]] += 1
    absent: dict[str, int] = {}
    for name in missing:
        paper = REGISTRY[name].spec[:3]
        counts.setdefault(paper, dict.fromkeys([*VERDICTS, SPEC, EXTENSION, ""], 0))
        absent[paper] = absent.get(paper, 0) + 1
    rows = []
    for p in sorted(counts, key=lambda p: order.index(p) if p in order else len(order)):
        row = counts[p]
        n = sum(row[v] for v in VERDICTS)
        share = f"{row[REPRODUCED] / n:.0%}" if n else "—"
        rows.append([PAPERS.get(p, p), *(row[v] for v in VERDICTS), n, share, row[SPEC],
                     row[EXTENSION], absent.get(p, 0)])
    return rows


def _headline(results: list[Result]) -> str:
    """The paper's claims over all seed papers: reproduced, partly, not, share, and those
    read at a band's edge (:data:`EDGE_MARK`); and the claims of other sources, counted
    apart."""
    rows = claim_rows(results)
    paper = [r[6] for r in rows if r[2] == PAPER]
    n = len(paper)
    spec = [r[6] for r in rows if r[2] == SPEC]
    ext = [r[6] for r in rows if r[2] == EXTENSION]

    def counts(vs):
        return ", ".join(f"{vs.count(v)} {v}" for v in VERDICTS if vs.count(v)) or "none"

    text = (f"**The papers' own claims**: {n} (a figure, table or sentence of a seed paper, "
            f"quoted with its place): {paper.count(REPRODUCED)} reproduced, "
            f"{paper.count(PARTLY)} partly, {paper.count(NOT_REPRODUCED)} not reproduced"
            + (f", {paper.count(NOT_MEASURED)} not measured" if paper.count(NOT_MEASURED)
               else "")
            + (f" — {paper.count(REPRODUCED) / n:.0%} reproduced." if n else "."))
    edge = [r for r in rows if r[2] == PAPER and EDGE_MARK in r[4]]
    if edge:
        text += (f" Of these, {len(edge)} are flagged {EDGE_MARK}: a band's (or a tie's) edge "
                 "lies within the reading's own resolution or noise, or a second reading "
                 "of the claim, shown beside it, gives another verdict, so the verdict could "
                 f"go either way (in {', '.join(sorted({r[0] for r in edge}))}; only claims "
                 "that bound their reading by its records or its runs, or read it twice, can "
                 "be flagged): "
                 f"{counts([r[6] for r in edge])}.")
    text += (f" Counted apart: {len(spec)} checks the implementation adds (source `spec`: "
             f"{counts(spec)}) and {len(ext)} claims from outside the seed papers (source "
             f"`extension`: {counts(ext)}).")
    unknown = sum(r[2] == "" for r in rows)
    if unknown:
        text += f" {unknown} claims of results kept from older rules state no source."
    return text


def _open_claims(results: list[Result]) -> list[list[str]]:
    """The paper's claims not reproduced (partly, not reproduced or not measured)."""
    return [r for r in claim_rows(results) if r[2] == PAPER and r[6] != REPRODUCED]


def _ledger(results: list[Result], ctx: Context, report: list[str]
            ) -> tuple[list[str], list[str]]:
    """The ledger (``causes.csv``) in the report, read against its sections (``report``):
    a paragraph for the headline, how its kinds account for the paper's claims not
    reproduced (and how many have no entry, or quote a passage the report lacks), and the
    last section, each such claim with its entry. Nothing without a ledger."""
    causes = read_causes(os.path.join(ctx.out_dir, "causes.csv"))
    rows = _open_claims(results)
    if not causes or not rows:
        return [], []
    counts = cause_counts(rows, causes)
    parts = [f"{counts[k]} {KIND_TEXT[k]}" for k in KINDS if counts[k]]
    table = ledger_rows(rows, causes, "\n".join(report))
    lost = sum("(not in this report)" in r[5] for r in table)
    unlisted = sum(r[4] == NO_ENTRY for r in table)
    headline = [f"**Why the other {len(rows)} did not reproduce** (the ledger, last section): "
                + "; ".join(parts) + "."
                + (f" {unlisted} of them have no entry in the ledger (counted without a "
                   "measured cause)." if unlisted else "")
                + (f" {lost} entries quote a passage this report lacks (flagged there)."
                   if lost else ""), ""]
    section = ["## Why the paper's claims that did not reproduce did not", "",
               "Each paper claim not reproduced, with what this report measured about why "
               "(`causes.csv`, written by reading the report). Kinds: "
               + "; ".join(f"`{k}`: {t}" for k, t in KIND_TEXT.items()) + ". Each entry "
               "quotes the passages it rests on; a quote this report lacks is flagged.", "",
               _md_table(["experiment", "claim", "verdict", "kind", "why", "where"], table), ""]
    return headline, section


def _missing(results: list[Result], ctx: Context) -> tuple[list[str], list[list]]:
    """The registered experiments without a result, and a table of them with the pieces
    kept toward each (a long run resumes from those)."""
    have = {r.name for r in results}
    names = [n for n in REGISTRY if n not in have]
    pieces = os.path.join(ctx.out_dir, "pieces")
    kept = os.listdir(pieces) if os.path.isdir(pieces) else []
    rows = []
    for n in names:
        prefix = f"{ctx.scale}-{ctx.seed}-{n}-"
        rows.append([n, REGISTRY[n].paper, REGISTRY[n].title,
                     sum(f.startswith(prefix) and f.endswith(".pkl") for f in kept)])
    return names, rows


def _kept_time(res: Result) -> str:
    """What a resumed experiment loaded instead of computing, for its report line."""
    kept = getattr(res, "kept_seconds", 0.0)
    untimed = getattr(res, "kept_untimed", 0)
    if kept and untimed:
        return (f", plus pieces kept from earlier runs ({kept:.1f} s, and {untimed} more "
                "whose time was not recorded)")
    if kept:
        return f", plus pieces kept from earlier runs ({kept:.1f} s)"
    if untimed:
        return f", plus {untimed} pieces kept from earlier runs whose time was not recorded"
    return ""


def _departures(exp: Experiment | None) -> list[str]:
    """The report's lines stating where ``exp``'s protocol departs from its paper's."""
    if exp is None or not exp.departures:
        return []
    return ["**Departures from the paper's protocol**", "",
            *[f"- {d}" for d in exp.departures], ""]


def write_report(results: list[Result], ctx: Context) -> str:
    """Write ``report.md`` and ``claims.csv`` in ``ctx.out_dir``; return the report's path.

    The report opens with the verdicts per paper; each experiment is stamped with its scale
    and the code version it ran on.
    """
    os.makedirs(ctx.out_dir, exist_ok=True)
    results = [current(r, ctx) for r in results]
    out = ["# onlinemf: reproduction report", "",
           f"Scale: **{ctx.scale}**. Data directory: `{ctx.data_dir or '(embedded data only)'}`.",
           "Times are wall-clock seconds on this machine; compare ratios with the paper's "
           "(MATLAB on an i7-4790), not absolute seconds. Each claim's verdict follows the "
           "band stated beside it, with the reason for that band (and in the experiment's "
           "code); `claims.csv` holds them all. Each claim has a source: `paper` (a figure, "
           "table or sentence of the seed paper, quoted with its place), `spec` (a check the "
           "implementation adds) or `extension` (from outside the seed papers); only the "
           "first count toward a paper's verdicts. "
           "Timings: a run with `--repeats N` (3 at the paper's scale) times each timed fit "
           "of the outlier and Huber-face experiments N times, uses the median, runs again "
           "once any run over twice the median of the others, and lists every run (curves "
           "and the topic experiment's ten initializations are single timings); results "
           "kept from before "
           "that protocol hold one run per setting, timed while other fits shared the "
           "machine's two cores (a time ratio there is one sample on a loaded machine, where "
           "the papers average ten runs). Each experiment lists its other departures from "
           "its paper's protocol.",
           "", _headline(results), ""]
    at = len(out)  # the ledger's paragraph goes here, once the sections it quotes exist
    out += ["**Verdicts of the papers' own claims, per paper**", ""]
    missing, missing_rows = _missing(results, ctx)
    out += [_md_table(["paper", *VERDICTS, "paper claims", "share reproduced",
                       "spec checks", "extension claims", "experiments not run"],
                      _summary(results, missing)), ""]
    if missing_rows:
        out += ["**Not yet run at this scale** (their claims are not measured here)", "",
                _md_table(["experiment", "paper", "what", "pieces kept"], missing_rows), ""]
    for res in results:
        exp = REGISTRY.get(res.name)
        out += [f"## {res.name}: {res.title}", "",
                *([f"_Paper: {exp.paper}._", ""] if exp else []),
                f"_Ran in {res.seconds:.1f} s{_kept_time(res)} at scale {res.scale or '?'} on "
                f"{res.commit or 'an unrecorded version'}._", ""]
        out += _departures(exp)
        if getattr(res, "missing", None):
            out += [f"**Partial**: assembled from the pieces finished so far; not yet run at "
                    f"this scale: {', '.join(res.missing)} (their claims are not measured).",
                    ""]
        if res.claims:
            rows = [[r[1], r[2], r[3], r[4], r[6], r[5]] for r in claim_rows([res])]
            out += ["**Paper versus measured**", "",
                    _md_table(["what", "source", "paper (its words and place)", "measured",
                               "verdict", "band, and why"], rows), ""]
        for caption, header, rows in res.tables:
            out += [f"**{caption}**", "", _md_table(header, rows), ""]
        for caption, path in res.figures:
            rel = "figures/" + os.path.basename(path)  # where figure_path writes them
            out += [f"![{caption}]({rel})", "", f"_{caption}_", ""]
        for note in res.notes:
            out += [f"- {note}"]
        out.append("")
    headline, section = _ledger(results, ctx, out)
    out[at:at] = headline
    out += section
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["experiment", "claim", "source", "paper", "measured", "band", "verdict",
                     "scale"])
    writer.writerows(claim_rows(results))
    table = buf.getvalue().encode("utf-8")
    write_atomic(os.path.join(ctx.out_dir, "claims.csv"), lambda fh: fh.write(table))
    path = os.path.join(ctx.out_dir, "report.md")
    text = "\n".join(out).encode("utf-8")
    write_atomic(path, lambda fh: fh.write(text))  # a stopped run keeps the previous report
    return path
