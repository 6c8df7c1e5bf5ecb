"""OL's pass of the Fig. 2 races (Zhao, Tan and Xu 2016) at two versions of the code, timed
in turn on one day: how much of a change between two race sessions is the code's and how
much the machine's.

Each run is a fresh process that imports the package from a git worktree of its revision and
times OL's one pass (no history, as the races time it) over the paper-scale synthetic stream
of one loss (N = 100 000, F = 100, K = 40, τ = 10). The revisions alternate run by run, so
a drift of the machine falls on both. Reported: every run's seconds and, per loss, the
medians and their ratio (the second revision over the first). Run it alone on the machine.

Usage: python benchmarks/bench_ol_pass_two_codes.py OLD NEW [--losses squared huber l2]
[--repeats 3] [--out DIR] (writes ``ol_pass_two_codes.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# the pass as the races time it, run inside the worktree's package
PASS = """
import time
from onlinemf.datasets import make_nmf_synthetic
from onlinemf.experiments.zhao_divergences import NOISE_FOR_LOSS, _ol
loss = {loss!r}
d = make_nmf_synthetic(100_000, 100, 40, NOISE_FOR_LOSS[loss], random_state=0)
ol = _ol(loss, 40, 10, 0, history=None)
t0 = time.perf_counter()
ol.fit(d.X)
print(time.perf_counter() - t0)
"""


def _seconds(src: str, loss: str) -> float:
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run([sys.executable, "-c", PASS.format(loss=loss)], env=env, check=True,
                         capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--losses", nargs="+", default=["squared", "huber", "l2"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results"))
    args = ap.parse_args(argv)
    out = {"old": args.old, "new": args.new, "losses": {}}
    with tempfile.TemporaryDirectory() as tmp:
        src = {}
        for name in ("old", "new"):
            tree = os.path.join(tmp, name)
            subprocess.run(["git", "-C", ROOT, "worktree", "add", "-f", "--detach", tree,
                            getattr(args, name)], check=True, capture_output=True)
            src[name] = os.path.join(tree, "src")
        try:
            for loss in args.losses:
                runs = {"old": [], "new": []}
                for _ in range(args.repeats):
                    for name in ("old", "new"):
                        runs[name].append(_seconds(src[name], loss))
                med = {k: float(np.median(v)) for k, v in runs.items()}
                out["losses"][loss] = {"runs": runs, "median": med,
                                       "new_over_old": med["new"] / med["old"]}
                print(f"{loss}: {args.old} {med['old']:.1f} s, {args.new} {med['new']:.1f} s "
                      f"({med['new'] / med['old']:.2f}×; runs {runs})", flush=True)
        finally:
            for name in ("old", "new"):
                subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force",
                                os.path.join(tmp, name)], capture_output=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "ol_pass_two_codes.json"), "w") as fh:
        json.dump(out, fh, indent=1)
    return out


if __name__ == "__main__":
    main()
