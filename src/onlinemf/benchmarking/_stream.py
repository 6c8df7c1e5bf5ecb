"""The ``stream`` suite: one pass of OnlineNMF (KL, K = 50) over streams that are never held
whole — a sparse corpus generated block by block as dask CSR chunks, and a float32 zarr array
on disk — with rows per second and the process's peak resident memory at two lengths, so
that the memory's independence of N shows. MiniBatchNMF's ``partial_fit`` over the same
blocks is the anchor.

Each run is a fresh process (``python -m onlinemf.benchmarking._stream``), so its peak RSS is
its own.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

__all__ = ["suite_stream", "sparse_stream", "zarr_stream"]

#: rows per dask block of the generated streams
BLOCK_ROWS = 100_000
#: the sparse corpus: features and nonzeros per row (10⁸ nonzeros at 10⁷ rows)
SPARSE_FEATURES, SPARSE_NNZ_ROW = 10_000, 10
#: the dense stream's features
DENSE_FEATURES = 100
#: row blocks a data-parallel step codes (the same model with 1 and 2 workers)
PARALLEL_BLOCKS = 2


def _sparse_block(i: int, rows: int):
    """Block ``i`` of the generated corpus: Zipf-distributed terms, counts 1–3, seeded by i."""
    import scipy.sparse as sp

    rng = np.random.default_rng(10_000 + i)
    probs = 1.0 / np.arange(1, SPARSE_FEATURES + 1) ** 1.05
    cols = rng.choice(SPARSE_FEATURES, size=rows * SPARSE_NNZ_ROW, p=probs / probs.sum())
    data = rng.integers(1, 4, cols.size).astype(np.float64)
    indptr = np.arange(0, cols.size + 1, SPARSE_NNZ_ROW)
    block = sp.csr_matrix((data, cols, indptr), shape=(rows, SPARSE_FEATURES))
    block.sum_duplicates()
    return block


def sparse_stream(n_rows: int):
    """A dask array of ``n_rows`` × 10⁴ CSR chunks, each generated when it is computed."""
    import dask
    import dask.array as da
    import scipy.sparse as sp

    parts = []
    for i, start in enumerate(range(0, n_rows, BLOCK_ROWS)):
        rows = min(BLOCK_ROWS, n_rows - start)
        parts.append(da.from_delayed(dask.delayed(_sparse_block)(i, rows),
                                     shape=(rows, SPARSE_FEATURES), dtype=np.float64,
                                     meta=sp.csr_matrix((0, SPARSE_FEATURES))))
    return da.concatenate(parts, axis=0)


def zarr_stream(n_rows: int, folder: str):
    """A ``n_rows`` × 100 float32 zarr array of Poisson counts written block by block into
    ``folder`` (reused when it is already there), opened as a dask array."""
    import dask.array as da
    import zarr

    path = os.path.join(folder, f"stream_{n_rows}.zarr")
    if not os.path.exists(os.path.join(path, ".done")):
        z = zarr.open_array(path, mode="w", shape=(n_rows, DENSE_FEATURES),
                            chunks=(BLOCK_ROWS, DENSE_FEATURES), dtype="float32")
        topics = np.random.default_rng(0).gamma(0.5, 1.0, (10, DENSE_FEATURES))
        for i, start in enumerate(range(0, n_rows, BLOCK_ROWS)):
            rng = np.random.default_rng(20_000 + i)
            rows = min(BLOCK_ROWS, n_rows - start)
            W = rng.gamma(0.5, 1.0, (rows, 10))
            z[start:start + rows] = rng.poisson(W @ topics).astype(np.float32)
        open(os.path.join(path, ".done"), "w").close()
    return da.from_zarr(path)


def _one_run(kind: str, n_rows: int, method: str, folder: str) -> dict:
    """One pass in this process; returns rows/s and peak RSS (MB)."""
    X = sparse_stream(n_rows) if kind == "sparse" else zarr_stream(n_rows, folder)
    if method == "ours":
        from .. import OnlineNMF

        est = OnlineNMF(50, loss="kl", random_state=0)
        t0 = time.perf_counter()
        est.partial_fit(X)
        seconds = time.perf_counter() - t0
        extra = {"batch_size": int(est.batch_size_)}
    elif method.startswith("parallel"):
        from distributed import Client, LocalCluster

        from .. import OnlineNMF, fit_data_parallel

        workers = int(method[len("parallel"):])
        est = OnlineNMF(50, loss="kl", random_state=0, max_iter=1, max_no_improvement=None)
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster):
            t0 = time.perf_counter()
            fit_data_parallel(est, X, blocks_per_step=PARALLEL_BLOCKS)
            seconds = time.perf_counter() - t0
        extra = {"batch_size": int(est.batch_size_)}
    else:
        from sklearn.decomposition import MiniBatchNMF

        from .._dask import iter_row_blocks

        est = MiniBatchNMF(50, beta_loss="kullback-leibler", random_state=0)
        t0 = time.perf_counter()
        for block in iter_row_blocks(X):
            est.partial_fit(block)
        seconds = time.perf_counter() - t0
        extra = {}
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux
    return {"kind": kind, "rows": n_rows, "method": method, "seconds": seconds,
            "rows_per_s": n_rows / seconds, "peak_rss_mb": peak, **extra}


def _run_in_child(kind: str, n_rows: int, method: str, folder: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "onlinemf.benchmarking._stream", kind,
                          str(n_rows), method, folder], capture_output=True, text=True,
                          check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def suite_stream(ctx) -> list:
    """One KL pass (K = 50) over a generated sparse corpus (10⁴ terms, 10 nonzeros a row)
    and a float32 zarr array (100 features) of 10⁶ and 10⁷ rows (``--quick``: 10⁵ and 10⁶):
    rows per second and peak RSS, ours against MiniBatchNMF's ``partial_fit`` block by
    block, timed on the shorter stream (its cost per row does not grow with N, and 10⁷ rows
    would add most of half an hour) and compared at its rows per second on the longer one."""
    from ._suites import Row

    sizes = (100_000, 1_000_000) if ctx.quick else (1_000_000, 10_000_000)
    rows = []
    with tempfile.TemporaryDirectory(prefix="onlinemf-stream-") as folder:
        for kind in ("sparse", "zarr"):
            anchor = None
            for n in sizes:
                ours = _run_in_child(kind, n, "ours", folder)
                if anchor is None:  # the shorter stream only (its cost per row is flat)
                    anchor = _run_in_child(kind, n, "anchor", folder)
                anchor_note = ("" if anchor["rows"] == n else
                               f"; MiniBatchNMF timed on the first {anchor['rows']:.0e} rows, its "
                               "time here scaled to this stream's rows")
                anchor_seconds = anchor["seconds"] * n / anchor["rows"]
                desc = (f"{n:.0e} × {SPARSE_FEATURES} CSR chunks, {SPARSE_NNZ_ROW} nonzeros a "
                        "row" if kind == "sparse" else
                        f"{n:.0e} × {DENSE_FEATURES} float32 zarr")
                rows.append(Row(
                    "stream", f"{desc} / KL one pass (K=50)", "OnlineNMF().partial_fit",
                    "MiniBatchNMF.partial_fit per block", anchor_seconds, ours["seconds"],
                    ours["seconds"] / anchor_seconds, anchor["rows_per_s"],
                    ours["rows_per_s"], metric="rows per second (higher is better)",
                    peak_mb_ours=ours["peak_rss_mb"], peak_mb_anchor=anchor["peak_rss_mb"],
                    note=f"peak RSS of the whole process; batch_size_={ours['batch_size']}; "
                         "ours includes the pass that finds the data's maximum (scale='max')"
                         + anchor_note))
                if ctx.progress:
                    ctx.progress(f"  {rows[-1].case}: {ours['rows_per_s']:.0f} rows/s, "
                                 f"{ours['peak_rss_mb']:.0f} MB (anchor "
                                 f"{anchor['rows_per_s']:.0f} rows/s)")
                rows += _parallel_rows(kind, n, desc, ours, folder, ctx)
    return rows


def _parallel_rows(kind, n, desc, single, folder, ctx) -> list:
    """:func:`~onlinemf.fit_data_parallel` on a LocalCluster of 1 and 2 worker processes
    against the one-process pass ``single``: the speed-up of coding a step's blocks on the
    workers (each pass one fresh cluster; the client's peak RSS, not the workers')."""
    from ._suites import Row

    out = []
    for workers in (1, 2):
        par = _run_in_child(kind, n, f"parallel{workers}", folder)
        out.append(Row(
            "stream", f"{desc} / KL one pass (K=50), data-parallel on {workers} worker(s)",
            f"fit_data_parallel(blocks_per_step={PARALLEL_BLOCKS})",
            "OnlineNMF().partial_fit in one process", single["seconds"], par["seconds"],
            par["seconds"] / single["seconds"], single["rows_per_s"], par["rows_per_s"],
            metric="rows per second (higher is better)", peak_mb_ours=par["peak_rss_mb"],
            peak_mb_anchor=single["peak_rss_mb"],
            note=f"steps of {PARALLEL_BLOCKS} blocks of {BLOCK_ROWS} rows; a LocalCluster of "
                 f"{workers} process(es) with one thread each; peak RSS of the client only"))
        if ctx.progress:
            ctx.progress(f"  {out[-1].case}: {par['rows_per_s']:.0f} rows/s "
                         f"({par['seconds'] / single['seconds']:.2f}x the one-process time)")
    return out


def _main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="one streamed pass (a child of the suite)")
    parser.add_argument("kind", choices=("sparse", "zarr"))
    parser.add_argument("rows", type=int)
    parser.add_argument("method", choices=("ours", "anchor", "parallel1", "parallel2"))
    parser.add_argument("folder")
    args = parser.parse_args(argv)
    print(json.dumps(_one_run(args.kind, args.rows, args.method, args.folder)))


if __name__ == "__main__":
    _main()
