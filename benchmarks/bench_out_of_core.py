"""OnlineNMF on data larger than it keeps in memory: a float32 zarr array (default 1.5 M × 100,
600 MB) fitted by streaming its row blocks; peak resident memory of the fitting process against
the data size, and the time. Then the map-reduce parts (``transform`` to zarr, ``score``) on a
``distributed.LocalCluster`` with 1 and 2 worker processes.

    python benchmarks/bench_out_of_core.py [--rows 1500000] [--workdir /tmp/onlinemf_ooc]

``--sparse`` instead streams a corpus of CSR row blocks (default 10⁶ documents × 3000 terms,
10 nonzeros a row; each block made on demand from its seed, so the whole matrix never
exists), one KL pass, and compares time and peak memory with the same pass over the CSR
matrix in memory.

    python benchmarks/bench_out_of_core.py --sparse [--rows 1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

# the children's peak memory: VmHWM (the peak resident set of this process image), since
# ru_maxrss would count the parent's memory at fork time, which exec does not reset on Linux
PEAK = """
peak = next(int(line.split()[1]) for line in open("/proc/self/status")
            if line.startswith("VmHWM")) / 1024
"""

CHILD = """
import json, sys, time
import dask, dask.array as da
from onlinemf import OnlineNMF
path = sys.argv[1]
X = da.from_zarr(path)
t0 = time.perf_counter()
with dask.config.set(scheduler="synchronous"):
    est = OnlineNMF(20, loss="kl", random_state=0).fit(X)
t = time.perf_counter() - t0
""" + PEAK + """
print(json.dumps({"fit_s": t, "peak_rss_mb": peak, "steps": est.n_steps_}))
"""


SPARSE_CHILD = """
import json, sys, time
import numpy as np, scipy.sparse as sp
import dask, dask.array as da
from onlinemf import OnlineNMF
rows, cols, per_row, block, mode = int(sys.argv[1]), 3000, 10, 50_000, sys.argv[2]

def make_block(i, n):
    rng = np.random.default_rng(i)
    ind = rng.integers(0, cols, size=n * per_row)
    vals = rng.poisson(2.0, size=n * per_row) + 1.0
    return sp.csr_matrix((vals, ind, np.arange(0, n * per_row + 1, per_row)), shape=(n, cols))

sizes = [min(block, rows - lo) for lo in range(0, rows, block)]
if mode == "dask":
    X = da.concatenate([da.from_delayed(dask.delayed(make_block)(i, n), shape=(n, cols),
                                        dtype=float, meta=sp.csr_matrix((0, cols)))
                        for i, n in enumerate(sizes)])
else:
    X = sp.vstack([make_block(i, n) for i, n in enumerate(sizes)], format="csr")
t0 = time.perf_counter()
with dask.config.set(scheduler="synchronous"):
    est = OnlineNMF(20, loss="kl", random_state=0).partial_fit(X)
t = time.perf_counter() - t0
""" + PEAK + """
print(json.dumps({"fit_s": t, "peak_rss_mb": peak, "steps": est.n_steps_,
                  "nnz": rows * per_row}))
"""


def sparse_main(rows: int) -> None:
    """One KL pass over a CSR corpus streamed from dask blocks, against the same in memory."""
    nnz = rows * 10
    print(f"corpus: {rows} × 3000, {nnz} nonzeros ({nnz * 12 / 2**20:.0f} MB as CSR, "
          f"{rows * 3000 * 8 / 2**30:.1f} GB if dense)")
    for mode in ("dask", "memory"):
        out = subprocess.run([sys.executable, "-c", SPARSE_CHILD, str(rows), mode],
                             capture_output=True, text=True, check=True)
        res = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{mode:6s}: one KL pass (K = 20) {res['fit_s']:.1f} s, {res['steps']} steps, "
              f"peak RSS {res['peak_rss_mb']:.0f} MB")


def make_data(path: str, rows: int, cols: int = 100, block: int = 50_000) -> None:
    import dask.array as da

    if os.path.exists(path):
        return
    rng = da.random.default_rng(0)
    W = rng.gamma(1.0, 1.0, size=(rows, 10), chunks=(block, 10))
    H = np.random.default_rng(1).gamma(1.0, 1.0, size=(10, cols))
    X = rng.poisson(W @ H).astype(np.float32)
    X.rechunk((block, cols)).to_zarr(path)  # 20 MB chunks: memory is a few chunks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_500_000)
    ap.add_argument("--workdir", default="/tmp/onlinemf_ooc")
    ap.add_argument("--skip-cluster", action="store_true")
    ap.add_argument("--sparse", action="store_true",
                    help="stream a CSR corpus (default 10^6 rows) instead of the zarr array")
    args = ap.parse_args()
    if args.sparse:
        sparse_main(args.rows if args.rows != 1_500_000 else 1_000_000)
        return
    os.makedirs(args.workdir, exist_ok=True)
    path = os.path.join(args.workdir, f"X_{args.rows}_c50k.zarr")
    t0 = time.perf_counter()
    make_data(path, args.rows)
    print(f"data: {path} ({args.rows} × 100 float32, {args.rows * 400 / 2**20:.0f} MB), "
          f"made in {time.perf_counter() - t0:.1f} s")
    out = subprocess.run([sys.executable, "-c", CHILD, path], capture_output=True, text=True,
                         check=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"fit (one pass, KL, K = 20, streamed): {res['fit_s']:.1f} s, {res['steps']} steps, "
          f"peak RSS {res['peak_rss_mb']:.0f} MB for {args.rows * 400 / 2**20:.0f} MB of data")

    if args.skip_cluster:
        return
    import dask.array as da
    from distributed import Client, LocalCluster

    from onlinemf import OnlineNMF

    X = da.from_zarr(path)
    est = OnlineNMF(20, loss="kl", random_state=0).fit(X[:100_000].compute())
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster):
            t0 = time.perf_counter()
            est.transform(X).to_zarr(os.path.join(args.workdir, f"codes_{workers}.zarr"),
                                     overwrite=True)
            t_tr = time.perf_counter() - t0
            t0 = time.perf_counter()
            s = est.score(X)
            t_sc = time.perf_counter() - t0
        print(f"LocalCluster {workers} worker(s): transform → zarr {t_tr:.1f} s, score "
              f"{t_sc:.1f} s (score {s:.4f})")


if __name__ == "__main__":
    main()
