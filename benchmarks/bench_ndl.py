"""NetworkDictionaryLearning against ndlearn 0.0.2 (Lyu's NDL package, an optional extra) on the
same network, motif, number of atoms and number of samples, in one run.

Printed: time to learn, time to reconstruct, and edge-recovery accuracy (Jaccard index of the
true edges and the reconstructed edges with weight ≥ 0.5, the accuracy ndlearn reports), for
both, and the speed ratios. The network is a Watts–Strogatz small world (300 nodes, degree 10,
p = 0.05), or an edge list given with --edges.

Usage: python benchmarks/bench_ndl.py [--edges FILE] [--samples 1000] [--iters 20] [--recons 2000]
"""

from __future__ import annotations

import argparse
import time

import networkx as nx

from onlinemf import NetworkDictionaryLearning


def jaccard(true_edges: set, found: set) -> float:
    return len(true_edges & found) / max(len(true_edges | found), 1)


def undirected(pairs):
    return {tuple(sorted(e)) for e in pairs if e[0] != e[1]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--edges", default=None)
    ap.add_argument("--samples", type=int, default=1000, help="patches per online step")
    ap.add_argument("--iters", type=int, default=20, help="online steps")
    ap.add_argument("--recons", type=int, default=2000, help="reconstruction chain steps")
    ap.add_argument("--k", type=int, default=21, help="ndlearn's k: a path of k + 1 nodes")
    ap.add_argument("--r", type=int, default=25)
    args = ap.parse_args()
    if args.edges:
        G = nx.read_edgelist(args.edges, nodetype=int, delimiter=",")
    else:
        G = nx.watts_strogatz_graph(300, 10, 0.05, seed=0)
    G = nx.convert_node_labels_to_integers(G)
    truth = undirected(G.edges())
    print(f"network: {G.number_of_nodes()} nodes, {G.number_of_edges()} edges; motif: path of "
          f"{args.k + 1} nodes; r = {args.r}; {args.iters} × {args.samples} samples; "
          f"{args.recons} reconstruction steps")
    rows = {}

    est = NetworkDictionaryLearning(args.r, motif_size=args.k + 1, n_iter=args.iters,
                                    batch_size=args.samples, alpha=0.1, random_state=0)
    t0 = time.perf_counter()
    est.fit(G)
    t_learn = time.perf_counter() - t0
    t0 = time.perf_counter()
    R = est.reconstruct(G, n_steps=args.recons).tocoo()
    t_rec = time.perf_counter() - t0
    found = undirected((u, v) for u, v, w in zip(R.row, R.col, R.data) if w >= 0.5)
    rows["onlinemf"] = (t_learn, t_rec, jaccard(truth, found))

    try:
        from ndl import ndl as ndl_module
        from ndl.NNetwork import Wtd_NNetwork
    except ImportError:
        print("ndlearn is not installed (pip install ndlearn==0.0.2): only onlinemf measured")
    else:
        H = Wtd_NNetwork()
        H.add_edges(edges=[[str(u), str(v)] for u, v in G.edges()], edge_weight=1,
                    increment_weights=False)
        H.add_edges(edges=[[str(v), str(u)] for u, v in G.edges()], edge_weight=1,
                    increment_weights=False)
        learner = ndl_module.NetDictLearner(G=H, n_components=args.r, k=args.k,
                                            MCMC_iterations=args.iters,
                                            sample_size=args.samples)
        t0 = time.perf_counter()
        learner.train_dict(verbose=False)
        t_learn = time.perf_counter() - t0
        t0 = time.perf_counter()
        G_rec = learner.reconstruct(recons_iter=args.recons, if_save_history=False,
                                    verbose=False)
        t_rec = time.perf_counter() - t0
        found = undirected((int(e[0]), int(e[1])) for e in G_rec.get_edges()
                           if G_rec.get_edge_weight(e[0], e[1]) >= 0.5)
        rows["ndlearn 0.0.2"] = (t_learn, t_rec, jaccard(truth, found))

    print("\n| method | learn (s) | reconstruct (s) | edge Jaccard |\n|---|---|---|---|")
    for name, (tl, tr, acc) in rows.items():
        print(f"| {name} | {tl:.1f} | {tr:.1f} | {acc:.3f} |")
    if len(rows) == 2:
        ours, theirs = rows["onlinemf"], rows["ndlearn 0.0.2"]
        print(f"\nndlearn/onlinemf time: learn {theirs[0] / ours[0]:.1f}x, reconstruct "
              f"{theirs[1] / ours[1]:.1f}x; accuracy {ours[2]:.3f} vs {theirs[2]:.3f}")


if __name__ == "__main__":
    main()
