"""The ``onlinemf`` command: fit, transform, ndl, reproduce, bench."""

from __future__ import annotations

import argparse
import os
import pickle
import sys

import numpy as np

__all__ = ["main", "read_matrix"]


def read_matrix(path: str):
    """Read a data matrix (rows = samples) from .npy, .npz, .csv or Matrix Market .mtx."""
    ext = os.path.splitext(path)[1].lower()
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such data file: {path}")
    if ext == ".npy":
        return np.load(path, allow_pickle=False)
    if ext == ".npz":
        with np.load(path, allow_pickle=False) as z:
            if {"data", "indices", "indptr", "shape"} <= set(z.files):
                import scipy.sparse as sp

                return sp.load_npz(path)
            key = "X" if "X" in z.files else z.files[0]
            return z[key]
    if ext == ".csv":
        return np.loadtxt(path, delimiter=",", ndmin=2)
    if ext == ".mtx":
        from scipy.io import mmread

        return mmread(path).tocsr()
    raise ValueError(f"unsupported data format {ext!r}: use .npy, .npz, .csv or .mtx")


def _parse_value(text: str):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"none": None, "true": True, "false": False}.get(text.lower(), text)


def _cmd_fit(args) -> int:
    from .estimators import OnlineNMF

    X = read_matrix(args.data)
    params = {"n_components": args.n_components, "loss": args.loss,
              "batch_size": args.batch_size if args.batch_size else "auto",
              "max_iter": args.passes, "random_state": args.random_state, "verbose": 1}
    for item in args.param or []:
        key, _, value = item.partition("=")
        if not _:
            raise SystemExit(f"--param expects KEY=VALUE, got {item!r}")
        if key.startswith("loss."):
            params.setdefault("loss_params", {})[key[5:]] = _parse_value(value)
        else:
            params[key] = _parse_value(value)
    model = OnlineNMF(**params).fit(X)
    with open(args.model, "wb") as fh:
        pickle.dump(model, fh)
    print(f"model written to {args.model}")
    if args.codes:
        np.save(args.codes, model.transform(X))
        print(f"codes written to {args.codes}")
    return 0


def _cmd_transform(args) -> int:
    with open(args.model, "rb") as fh:
        model = pickle.load(fh)
    codes = model.transform(read_matrix(args.data))
    np.save(args.out, codes)
    print(f"codes of shape {codes.shape} written to {args.out}")
    return 0


def _read_graph(path: str):
    """A network from an edge list (.txt/.csv/.edgelist: 'u v [w]' or 'u,v[,w]' per line) or an
    adjacency matrix (.npy, .npz, .mtx, or a whitespace-separated square matrix)."""
    ext = os.path.splitext(path)[1].lower()
    if ext in (".npy", ".npz", ".mtx"):
        return read_matrix(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such graph file: {path}")
    with open(path, encoding="utf-8") as fh:
        first = fh.readline()
    delim = "," if "," in first else None
    arr = np.loadtxt(path, delimiter=delim, ndmin=2)
    from .graphs import as_adjacency

    square = arr.shape[0] == arr.shape[1] and arr.shape[0] > 3
    return as_adjacency(arr, kind=None if square else "edges")


def _cmd_ndl(args) -> int:
    from .estimators import NetworkDictionaryLearning
    from .graphs import path_motif

    G = _read_graph(args.graph)
    motif = path_motif(args.arm, args.arm) if args.motif == "wedge" else args.motif
    est = NetworkDictionaryLearning(args.n_components, motif_size=args.motif_size, motif=motif,
                                    n_iter=args.n_iter, batch_size=args.batch_size,
                                    alpha=args.alpha, chain=args.chain,
                                    random_state=args.random_state).fit(G)
    os.makedirs(args.out, exist_ok=True)
    order = np.argsort(-est.importance_)
    np.savetxt(os.path.join(args.out, "importance.txt"), est.importance_[order], fmt="%.6f")
    np.save(os.path.join(args.out, "patches.npy"), est.patches_[order])
    _patch_figure(est.patches_[order], est.importance_[order],
                  os.path.join(args.out, "patches.png"))
    print(f"{len(order)} patches sorted by importance written to {args.out}")
    if args.reconstruct:
        import scipy.sparse as sp

        R = est.reconstruct(G, n_steps=args.reconstruct, alpha=args.alpha_rec)
        sp.save_npz(os.path.join(args.out, "reconstruction.npz"), R)
        print(f"reconstructed network written to {args.out}/reconstruction.npz")
    return 0


def _patch_figure(patches, importance, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = int(np.ceil(np.sqrt(len(patches))))
    rows = int(np.ceil(len(patches) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(1.4 * cols, 1.5 * rows), squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    for ax, p, w in zip(axes.flat, patches, importance):
        ax.imshow(p, cmap="viridis")
        ax.set_title(f"{w:.3f}", fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _cmd_reproduce(args) -> int:
    from .experiments import Context, run_experiments, write_report

    ctx = Context(scale=args.scale, out_dir=args.out, data_dir=args.data_dir, seed=args.seed)
    results = run_experiments(args.names, ctx, progress=lambda m: print(m, flush=True))
    path = write_report(results, ctx)
    print(f"report written to {path}")
    return 0


def _cmd_bench(args) -> int:
    from .benchmarking import run_benchmarks

    run_benchmarks(args.suites or None, quick=args.quick, data_dir=args.data_dir, out=args.out,
                   threads=args.threads or None)
    print(f"results written to {os.path.join(args.out, 'bench.json')} and bench.md")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="onlinemf", description="Online matrix factorization.")
    sub = p.add_subparsers(dest="command", required=True)

    f = sub.add_parser("fit", help="learn a dictionary from a data file (rows = samples)")
    f.add_argument("data", help=".npy, .npz, .csv or .mtx (sparse) file")
    f.add_argument("-k", "--n-components", type=int, default=40)
    f.add_argument("--loss", default="squared")
    f.add_argument("--batch-size", type=int, default=0, help="τ (default: 10⁻⁴ N)")
    f.add_argument("--passes", type=int, default=1)
    f.add_argument("--random-state", type=int, default=0)
    f.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="any OnlineNMF parameter, or loss.NAME=VALUE for a loss parameter")
    f.add_argument("--model", default="model.pkl", help="where to write the fitted model")
    f.add_argument("--codes", help="also write the codes of DATA (.npy)")
    f.set_defaults(func=_cmd_fit)

    t = sub.add_parser("transform", help="codes of a data file with a saved model")
    t.add_argument("model")
    t.add_argument("data")
    t.add_argument("--out", default="codes.npy")
    t.set_defaults(func=_cmd_transform)

    g = sub.add_parser("ndl", help="network dictionary learning on a graph file")
    g.add_argument("graph", help="edge list (u v [w] per line) or adjacency matrix file")
    g.add_argument("-k", "--n-components", type=int, default=25)
    g.add_argument("--motif", choices=("path", "star", "wedge"), default="path")
    g.add_argument("--motif-size", type=int, default=21, help="nodes of a path or star motif")
    g.add_argument("--arm", type=int, default=1, help="arm length of a wedge motif")
    g.add_argument("--n-iter", type=int, default=100)
    g.add_argument("--batch-size", type=int, default=100)
    g.add_argument("--alpha", type=float, default=1.0)
    g.add_argument("--chain", choices=("glauber", "pivot"), default="glauber",
                   help="MCMC sampler of motif homomorphisms (pivot: exact, tree motifs)")
    g.add_argument("--reconstruct", type=int, default=0, metavar="STEPS",
                   help="also reconstruct the network from this many chain steps")
    g.add_argument("--alpha-rec", type=float, default=0.0)
    g.add_argument("--random-state", type=int, default=0)
    g.add_argument("--out", default="ndl_out")
    g.set_defaults(func=_cmd_ndl)

    r = sub.add_parser("reproduce", help="run registered experiments and write a report")
    r.add_argument("names", nargs="*", default=["all"])
    r.add_argument("--scale", choices=("quick", "paper"), default="quick")
    r.add_argument("--out", default="out")
    r.add_argument("--data-dir", default=None,
                   help="folder holding the papers' data sets (e.g. ../shared/data)")
    r.add_argument("--seed", type=int, default=0)
    r.set_defaults(func=_cmd_reproduce)

    b = sub.add_parser("bench", help="every estimator against its anchors, in one run")
    b.add_argument("suites", nargs="*", help="nmf, topics, sparse, robust, smf, ndl (all)")
    b.add_argument("--quick", action="store_true", help="smaller data (minutes)")
    b.add_argument("--data-dir", default=None,
                   help="folder with the real data sets (20newsgroups/ for the text cases)")
    b.add_argument("--out", default="bench_out")
    b.add_argument("--threads", type=int, default=1,
                   help="BLAS threads (default 1: compare algorithms; 0: leave as is)")
    b.set_defaults(func=_cmd_bench)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"onlinemf: error: {exc}", file=sys.stderr)
        return 2
