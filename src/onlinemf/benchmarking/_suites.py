"""The benchmark suites: each runs one estimator and its anchors on the same data, in one run,
and returns rows for the table (see :func:`onlinemf.benchmarking.run_benchmarks`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ._measure import (
    gemm_rate,
    online_curve,
    peak_memory_mb,
    restart_curve,
    time_to,
    value_at,
)

__all__ = ["BenchContext", "Row", "SUITE_FUNCTIONS"]


@dataclass
class BenchContext:
    quick: bool = False
    data_dir: str | None = None
    gemm: float = field(default_factory=gemm_rate)
    progress: object = None


@dataclass
class Row:
    """One comparison: ``ratio`` = our time to the anchor's final objective (or metric) over
    the anchor's time (< 1: we are faster); objectives are lower-is-better unless ``metric``
    says otherwise."""

    suite: str
    case: str
    ours: str
    anchor: str
    anchor_time: float
    ours_time: float
    ratio: float
    anchor_value: float
    ours_value: float
    metric: str = "objective"
    peak_mb_ours: float = float("nan")
    peak_mb_anchor: float = float("nan")
    gemm_fraction: float = float("nan")
    note: str = ""


SK_LOSS = {"squared": "frobenius", "kl": "kullback-leibler", "is": "itakura-saito"}


# ----------------------------------------------------------------------------- data
def _tfidf(ctx: BenchContext):
    """20 Newsgroups train (2000 TF-IDF terms) from --data-dir, else the embedded corpus."""
    from sklearn.feature_extraction.text import TfidfTransformer, TfidfVectorizer

    from ..datasets import find_data, load_20newsgroups, make_topic_corpus

    path = find_data(ctx.data_dir, "20newsgroups", "20news-bydate.tar.gz")
    if path:
        news = load_20newsgroups(path)
        texts, labels = news.data, news.target
        X = TfidfVectorizer(max_features=2000, stop_words="english", max_df=0.95,
                            min_df=2).fit_transform(texts)
        return X.tocsr(), labels, "20 Newsgroups train (11314 × 2000 TF-IDF)"
    corpus = make_topic_corpus(3000 if ctx.quick else 10000, random_state=0)
    X = TfidfTransformer().fit_transform(corpus.data)
    return sp.csr_matrix(X), corpus.target, "embedded 5-topic corpus (20NG not given)"


def _nmf_cases(ctx: BenchContext):
    from sklearn.datasets import load_digits

    from ..datasets import make_nmf_synthetic

    n = 5000 if ctx.quick else 20000
    yield ("synthetic Poisson", make_nmf_synthetic(n, 100, 20, "poisson", random_state=0).X,
           20)
    yield "digits", load_digits().data, 16
    X, _, name = _tfidf(ctx)
    yield name, X, 20


def _neutral_score(loss, X_eval):
    """Mean divergence of the evaluation rows from their best reconstruction with a given
    dictionary (codes re-solved accurately, the same solver for every method)."""
    from ..coders import CodeSolver

    lower = 1e-8 if loss.positive_data else 0.0

    def score(components):
        D = np.asarray(components, dtype=float)
        D = D / max(float(D.max()), 1e-300)  # any positive rescaling: codes absorb it
        H = CodeSolver("spg", lower=lower, max_iter=300, tol=1e-6, f_tol=1e-9,
                       start="best").solve(loss, D, X_eval).codes
        if sp.issparse(X_eval):
            return float(loss.sparse_value(X_eval, H, D).mean())
        return float(loss.value(X_eval, H @ D).mean())

    return score


def _flops_fraction(est, seconds, nnz_per_row, gemm) -> float:
    """Useful flops of OnlineNMF's hot products (≈ 4·K·F per code iteration per sample and
    6·K·F per sample for the dictionary step; F → nonzeros per row on sparse batches) per
    second, over the machine's GEMM rate."""
    k = est.n_components_
    flops = 4.0 * k * nnz_per_row * est.n_code_iter_ + 6.0 * k * nnz_per_row * \
        est.n_samples_seen_
    return flops / max(seconds, 1e-12) / gemm


# ----------------------------------------------------------------------------- suites
def suite_nmf(ctx: BenchContext) -> list[Row]:
    """OnlineNMF at its defaults against MiniBatchNMF (20 passes, no early stop) for the
    squared, KL and IS losses: time to MiniBatchNMF's 20-pass objective, read at sixteenths
    of the first pass and halves of the next, and our objective at MiniBatchNMF's 20-pass
    time, each the median over ``NMF_SEEDS`` (our start and shuffle; the first only with
    ``--quick``)."""
    from ..losses import get_loss

    rows = []
    for name, X0, k in _nmf_cases(ctx):
        for lname in ("squared", "kl", "is"):
            X = X0 / X0.max()
            if get_loss(lname).positive_data:  # IS: the same positive floor for everyone
                X = np.maximum(X.toarray() if sp.issparse(X) else X, 1e-3)
            X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X, dtype=float)
            rows.append(_nmf_case(ctx, name, X, k, lname))
            if ctx.progress:
                r = rows[-1]
                ctx.progress(f"  {r.case}: ratio {r.ratio:.3g}, anchor {r.anchor_value:.4g} "
                             f"in {r.anchor_time:.2f} s, ours {r.ours_value:.4g}")
    return rows


#: seeds of our runs in the nmf suite (the start and the shuffle): the time to the anchor's
#: objective depends on the run, so the table gives the median and the note each seed's.
#: ``--quick`` runs the first only (three seeds are slow on IS over 20 Newsgroups, whose
#: neutral evaluation codes 2000 dense rows at every reading)
NMF_SEEDS = (0, 1, 2)
#: evaluation rows of the nmf suite's neutral score, and of the losses on positive data (IS,
#: whose every reading codes dense rows with logarithms: fewer rows keep a case in minutes)
NMF_EVAL_ROWS, NMF_EVAL_ROWS_POSITIVE = 2000, 500


def _nmf_case(ctx: BenchContext, name: str, X, k: int, lname: str) -> Row:
    from sklearn.decomposition import MiniBatchNMF

    from .. import OnlineNMF
    from ..losses import get_loss

    loss = get_loss(lname)
    n_eval = NMF_EVAL_ROWS_POSITIVE if loss.positive_data else NMF_EVAL_ROWS
    ev = np.random.default_rng(0).choice(X.shape[0], min(n_eval, X.shape[0]), replace=False)
    score = _neutral_score(loss, X[ev])

    def anchor(passes):
        return MiniBatchNMF(k, beta_loss=SK_LOSS[lname], max_iter=passes, tol=0,
                            max_no_improvement=None, random_state=0)

    def ours(seed=0):
        return OnlineNMF(k, loss=lname, random_state=seed)

    curve_a = restart_curve(anchor, X, lambda est: score(est.components_), [1, 2, 5, 10, 20])
    t_anchor, f_anchor = curve_a[-1]
    times, at_anchor, ends, first = [], [], [], None
    seeds = NMF_SEEDS[:1] if ctx.quick else NMF_SEEDS
    for seed in seeds:
        est = ours(seed)
        curve = online_curve(est, X, lambda e: score(e.components_), passes=20,
                             chunks_per_pass=2, time_budget=1.25 * t_anchor, seed=seed)
        first = first or (est, curve)
        times.append(time_to(curve, f_anchor))
        at_anchor.append(value_at(curve, t_anchor))
        ends.append(f"{curve[-1][1]:.4g} at {curve[-1][0]:.2f} s")
    est, curve = first
    t_ours = float(np.median(times))
    nnz = X.nnz / X.shape[0] if sp.issparse(X) else X.shape[1]
    return Row("nmf", f"{name} / {lname} (K={k})", "OnlineNMF()", "MiniBatchNMF 20 passes",
               t_anchor, t_ours, t_ours / t_anchor, f_anchor, float(np.median(at_anchor)),
               peak_mb_ours=peak_memory_mb(lambda: ours().partial_fit(X)),
               peak_mb_anchor=peak_memory_mb(lambda: anchor(1).fit(X)),
               gemm_fraction=_flops_fraction(est, curve[-1][0], nnz, ctx.gemm),
               note=f"median of seeds {'/'.join(map(str, seeds))}: ratios "
                    + " / ".join(f"{t / t_anchor:.2f}" for t in times)
                    + "; at the anchor's time " + " / ".join(f"{v:.4g}" for v in at_anchor)
                    + "; ends " + ", ".join(ends))


def suite_topics(ctx: BenchContext) -> list[Row]:
    """KL topics: NMI of the argmax topic against the labels; our time to MiniBatchNMF's
    20-pass NMI, and our NMI at its time (the model a user holds then; the highest reading
    within that time is in the note)."""
    from sklearn.decomposition import MiniBatchNMF
    from sklearn.metrics import normalized_mutual_info_score

    from .. import OnlineNMF

    X, labels, name = _tfidf(ctx)
    k = 20 if labels.max() >= 10 else int(labels.max()) + 1

    def nmi(est):
        H = est.transform(X)
        return float(normalized_mutual_info_score(
            labels, np.argmax(H * est.components_.sum(axis=1)[None, :], axis=1)))

    t0 = time.perf_counter()
    mb = MiniBatchNMF(k, beta_loss="kullback-leibler", max_iter=20, tol=0,
                      max_no_improvement=None, random_state=0).fit(X)
    t_anchor = time.perf_counter() - t0
    v_anchor = nmi(mb)
    ours = online_curve(OnlineNMF(k, loss="kl", random_state=0), X, nmi, passes=20,
                        time_budget=1.5 * t_anchor)
    t_ours = time_to(ours, v_anchor, higher_is_better=True)
    best_in_time = max([v for t, v in ours if t <= t_anchor] or [ours[0][1]])
    return [Row("topics", f"{name} / KL (K={k})", "OnlineNMF(loss='kl')",
                "MiniBatchNMF 20 passes", t_anchor, t_ours, t_ours / t_anchor, v_anchor,
                value_at(ours, t_anchor), metric="NMI (higher is better)",
                note=f"time to NMI 0.40: {time_to(ours, 0.40, True):.2f} s; highest within "
                     f"the anchor's time {best_in_time:.3f}")]


def suite_sparse(ctx: BenchContext) -> list[Row]:
    """One KL pass over a large sparse matrix (text-like: 3 nonzeros a row): time and peak
    memory against one pass of MiniBatchNMF."""
    from sklearn.decomposition import MiniBatchNMF

    from .. import OnlineNMF

    n = 20_000 if ctx.quick else 100_000
    rng = np.random.default_rng(0)
    X = sp.random(n, 3000, density=1e-3, format="csr", random_state=0,
                  data_rvs=lambda m: rng.poisson(2.0, m) + 1.0)
    X = (X / X.max()).tocsr()
    ev = X[:2000]
    from ..losses import get_loss

    score = _neutral_score(get_loss("kl"), ev)

    def mb():
        return MiniBatchNMF(20, beta_loss="kullback-leibler", max_iter=1, random_state=0)

    def ours():
        return OnlineNMF(20, loss="kl", random_state=0)

    t0 = time.perf_counter()
    a = mb().fit(X)
    t_anchor = time.perf_counter() - t0
    t0 = time.perf_counter()
    o = ours().partial_fit(X)
    t_ours = time.perf_counter() - t0
    return [Row("sparse", f"{n}×3000 CSR, {X.nnz} nonzeros / KL one pass", "OnlineNMF",
                "MiniBatchNMF 1 pass", t_anchor, t_ours, t_ours / t_anchor,
                score(a.components_), score(o.components_),
                peak_mb_ours=peak_memory_mb(lambda: ours().partial_fit(X)),
                peak_mb_anchor=peak_memory_mb(lambda: mb().fit(X)),
                gemm_fraction=_flops_fraction(o, t_ours, X.nnz / n, ctx.gemm),
                note=f"data {X.data.nbytes / 2**20:.1f} MB of values")]


def suite_robust(ctx: BenchContext) -> list[Row]:
    """Denoising salted digits (15% of pixels set to the maximum): OnlineRobustNMF (ADMM and
    PGD, defaults) against MiniBatchNMF (30 passes); PSNR of the low-rank part against the
    clean images. As in the other suites, our time is that of the stream (``partial_fit``
    over shuffled chunks) to the anchor's PSNR, and our value the stream's PSNR at the anchor's
    time; the note gives what ``fit`` at its defaults (passes until its stopping rule) ends
    at, and its time."""
    import warnings

    from sklearn.datasets import load_digits
    from sklearn.decomposition import MiniBatchNMF
    from sklearn.exceptions import ConvergenceWarning

    from .. import OnlineRobustNMF

    rng = np.random.default_rng(0)
    clean = np.tile(load_digits().data / 16.0, (1 if ctx.quick else 5, 1))
    noisy = clean.copy()
    noisy[rng.random(clean.shape) < 0.15] = 1.0

    def psnr(low):
        return float(10 * np.log10(1.0 / np.mean((low - clean) ** 2)))

    t0 = time.perf_counter()
    mb = MiniBatchNMF(20, max_iter=30, tol=0, max_no_improvement=None,
                      random_state=0).fit(noisy)
    t_anchor = time.perf_counter() - t0
    p_anchor = psnr(mb.transform(noisy) @ mb.components_)
    rows = []
    for solver in ("admm", "pgd"):
        curve = online_curve(OnlineRobustNMF(20, solver=solver, random_state=0), noisy,
                             lambda e: psnr(e.decompose(noisy)[0]), passes=2)
        t_to = time_to(curve, p_anchor, higher_is_better=True)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est = OnlineRobustNMF(20, solver=solver, random_state=0).fit(noisy)
        t_fit = time.perf_counter() - t0
        p_fit = psnr(est.decompose(noisy)[0])
        rows.append(Row("robust", f"salted digits {noisy.shape[0]}×64 (noisy "
                        f"{psnr(noisy):.2f} dB)", f"OnlineRobustNMF(solver='{solver}')",
                        "MiniBatchNMF 30 passes", t_anchor, t_to, t_to / t_anchor, p_anchor,
                        value_at(curve, t_anchor), metric="PSNR dB (higher is better)",
                        peak_mb_ours=peak_memory_mb(
                            lambda solver=solver: OnlineRobustNMF(20, solver=solver,
                                                                  random_state=0).fit(noisy)),
                        peak_mb_anchor=peak_memory_mb(
                            lambda: MiniBatchNMF(20, max_iter=30, random_state=0).fit(noisy)),
                        note=f"fit at defaults: {p_fit:.2f} dB ({p_fit - p_anchor:+.2f}) in "
                             f"{t_fit:.3f} s, {est.n_iter_} passes"))
    return rows


def suite_smf(ctx: BenchContext) -> list[Row]:
    """ODL (½‖x − hD‖² + λ‖h‖₁, atoms in the unit ball), the objective of scikit-learn's
    MiniBatchDictionaryLearning(alpha=λ): StochasticMF (SMM) against it on digits, same λ and
    mini-batch, both scored by the same exact objective. Both curves are read at data passes:
    SMM's ``max_iter`` counts budgets of VR's outer iterations (several passes each at the
    defaults), so ``inner_iter=1`` makes each of its ``max_iter`` one pass of draws."""
    from sklearn.datasets import load_digits
    from sklearn.decomposition import MiniBatchDictionaryLearning

    from .. import Problem, StochasticMF
    from ..metrics import evaluate
    from ..problems import make_problem
    from ..updates import default_batch_params

    X = load_digits().data / 16.0
    n, F = X.shape
    K, lam = 20, 1 / np.sqrt(F)
    b, _ = default_batch_params(n)
    P = make_problem("odl", F, alpha=lam).bind(n)

    def f(D):
        return evaluate(P, D, X, tol=1e-4, max_iter=3000)["objective"]

    passes = [1, 2, 4] if ctx.quick else [1, 2, 4, 8]
    anchor = restart_curve(
        lambda p: MiniBatchDictionaryLearning(K, alpha=lam, batch_size=b,
                                              max_iter=p, random_state=0),
        X, lambda est: f(est.components_), passes)
    t_anchor, f_anchor = anchor[-1]
    ours = restart_curve(lambda p: StochasticMF(Problem("odl", alpha=lam), "smm", K, max_iter=p,
                                                inner_iter=1, random_state=0),
                         X, lambda est: f(est.components_), passes)
    t_ours = time_to(ours, f_anchor)
    return [Row("smf", f"digits 1797×64 / ODL (K={K}, λ={lam:.3f})", "StochasticMF('odl', "
                "'smm')", f"MiniBatchDictionaryLearning {passes[-1]} passes", t_anchor,
                t_ours, t_ours / t_anchor, f_anchor, value_at(ours, t_anchor))]


def _ndl_networks(ctx: BenchContext):
    """Caltech36 (Facebook100, 769 nodes) when ``--data-dir`` holds ``caltech36/Caltech36.txt``
    (a comma-separated edge list), and two 800-node social-like stand-ins."""
    import networkx as nx

    from ..datasets import find_data

    path = find_data(ctx.data_dir, "caltech36", "Caltech36.txt")
    if path:
        G = nx.Graph()
        G.add_edges_from(np.loadtxt(path, delimiter=",", dtype=np.int64).tolist())
        yield "Caltech36 (769 nodes, real)", nx.convert_node_labels_to_integers(G)
    yield "powerlaw-cluster 800 nodes", nx.powerlaw_cluster_graph(800, 8, 0.5, seed=0)
    yield "relaxed caveman 20×40 nodes", nx.relaxed_caveman_graph(20, 40, 0.2, seed=0)


def suite_ndl(ctx: BenchContext) -> list[Row]:
    """Network denoising: NetworkDictionaryLearning (the paper's 50000 reconstruction
    patches, and the default ``n_steps="auto"``) on social networks with 10% random edges
    added; AUC of the reconstruction ranking the original edges above the added ones, fit +
    reconstruct time. The anchor is the common-neighbour count of each pair (the simplest
    link-prediction score; ``benchmarks/bench_ndl.py`` runs ndlearn)."""
    from .. import NetworkDictionaryLearning
    from ..graphs import as_adjacency, corrupt_network
    from ..metrics import denoising_auc

    rows = []
    steps = 50_000
    for name, G in _ndl_networks(ctx):
        A = as_adjacency(G)
        noisy, pairs = corrupt_network(A, 0.1, "add", random_state=0)
        t0 = time.perf_counter()
        N = sp.csr_matrix(noisy)
        common = N @ N
        t_cn = time.perf_counter() - t0
        auc_cn = denoising_auc(A, noisy, common, pairs, "add")
        t0 = time.perf_counter()
        ndl = NetworkDictionaryLearning(25, 21, random_state=0).fit(noisy)
        t_fit = time.perf_counter() - t0
        for n_steps in (steps, "auto"):
            t0 = time.perf_counter()
            R = ndl.reconstruct(noisy, n_steps=n_steps, omit_motif_edges=True)
            t = t_fit + time.perf_counter() - t0
            auc = denoising_auc(A, noisy, R, pairs, "add")
            rows.append(Row("ndl", f"{name}, +10% edges", f"NDL fit + {n_steps} patches"
                            + (f" ({ndl.auto_patches(A.shape[0])})"
                               if n_steps == "auto" else ""),
                            "common neighbours", t_cn, t, float("nan"), auc_cn, auc,
                            metric="edge AUC (higher is better)"))
    return rows + suite_ndl_scale(ctx)


def _ndl_scale_networks(ctx: BenchContext):
    """The paper repository's 5000-node BA, ER and WS networks when ``--data-dir`` holds
    ``synthetic_networks/``, and a generated heavy-tailed network (powerlaw-cluster, seeded):
    about 18000 nodes and 200000 edges, or 3000 nodes with ``--quick`` (which skips the
    5000-node files)."""
    import networkx as nx

    from ..datasets import find_data
    from ..graphs import as_adjacency

    files = [("BA 5000 nodes, m=25", "true_edgelist_for_BA_5000_m_25.txt"),
             ("ER 5000 nodes, mean degree 50", "true_edgelist_for_ER_5000_mean_degree_50.txt"),
             ("WS 5000 nodes, k=50, p=0.05", "true_edgelist_for_SW_5000_k_50_p_0.05.txt")]
    for name, file in [] if ctx.quick else files:
        path = find_data(ctx.data_dir, "synthetic_networks", file)
        if path:
            edges = np.loadtxt(path, delimiter=",", dtype=np.int64)
            yield name, _simple_graph(as_adjacency(edges, kind="edges"))
    n, m = (3000, 8) if ctx.quick else (18_000, 11)
    G = nx.powerlaw_cluster_graph(n, m, 0.1, seed=0)
    yield (f"powerlaw-cluster {n} nodes, {G.number_of_edges()} edges",
           _simple_graph(as_adjacency(G)))


def _simple_graph(A):
    """The symmetric 0/1 adjacency without self-loops of a network."""
    B = (A > 0).astype(float)
    B = B.maximum(B.T).tocsr()
    B.setdiag(0)
    B.eliminate_zeros()
    return B


def _all_pairs_auc(A, R) -> tuple[float, float]:
    """(AUC, share of edges visited) of the reconstruction R as a score of the pairs i < j of
    the simple graph A: a pair's score is the mean of R(i, j) and R(j, i), and a pair R never
    visited scores 0 (tied with every other such pair). Computed from R's entries and the
    counts of the implicit zeros, so the n²/2 pairs are never formed."""
    n = A.shape[0]
    S = sp.triu((R + R.T) * 0.5, k=1).tocoo()
    keys = S.row.astype(np.int64) * n + S.col
    T = sp.triu(A, k=1).tocoo()
    edge = np.isin(keys, T.row.astype(np.int64) * n + T.col)
    n_pos = T.nnz
    n_neg = n * (n - 1) // 2 - n_pos
    values = np.concatenate([S.data, [0.0]])
    pos = np.concatenate([edge, [0.0]]).astype(float)
    neg = np.concatenate([~edge, [0.0]]).astype(float)
    pos[-1], neg[-1] = n_pos - edge.sum(), n_neg - (~edge).sum()  # the implicit zeros
    levels, at = np.unique(values, return_inverse=True)
    p, q = np.bincount(at, pos, levels.size), np.bincount(at, neg, levels.size)
    below = np.cumsum(q) - q  # non-edges scored strictly lower
    auc = float((p * (below + 0.5 * q)).sum() / (n_pos * n_neg))
    visited = float(edge[S.data != 0].sum() / n_pos)
    return auc, visited


def suite_ndl_scale(ctx: BenchContext) -> list[Row]:
    """Edge recovery of large networks by NetworkDictionaryLearning at its defaults (fit, then
    ``reconstruct()``: one pass of the edge cover): fit + reconstruct time, AUC of the
    reconstruction over all node pairs (a pair never visited scores 0), share of the edges
    visited, peak memory. The anchor is the same fitted model reconstructed by 64 pivot
    chains with as many patches (the sampler of the authors' code)."""
    from .. import NetworkDictionaryLearning

    rows = []
    for name, A in _ndl_scale_networks(ctx):
        def run(A=A):
            w0, c0 = time.perf_counter(), time.process_time()
            ndl = NetworkDictionaryLearning(random_state=0).fit(A)
            w1 = time.perf_counter()
            R = ndl.reconstruct(A)
            w2, c2 = time.perf_counter(), time.process_time()
            return ndl, R, w1 - w0, w2 - w1, c2 - c0

        ndl, R, t_fit, t_rec, cpu = run()
        auc, visited = _all_pairs_auc(A, R)
        n_steps = ndl.auto_patches(A.shape[0], A.nnz // 2)
        t0 = time.perf_counter()
        P = ndl.reconstruct(A, n_steps=n_steps, chain="pivot")
        t_pivot = t_fit + time.perf_counter() - t0
        auc_p, visited_p = _all_pairs_auc(A, P)
        rows.append(Row("ndl", f"{name}: edges over all pairs", "NDL defaults (edge cover)",
                        f"64 pivot chains, {n_steps} patches", t_pivot, t_fit + t_rec,
                        (t_fit + t_rec) / t_pivot, auc_p, auc,
                        metric="all-pairs edge AUC (higher is better)",
                        peak_mb_ours=peak_memory_mb(run),
                        note=f"fit {t_fit:.1f} s + reconstruct {t_rec:.1f} s (CPU {cpu:.1f} s), "
                             f"{n_steps} patches; edges visited {visited:.3f} (pivot "
                             f"{visited_p:.3f})"))
    return rows


def suite_scale(ctx: BenchContext) -> list[Row]:
    """Cost against K and F (see :func:`onlinemf.benchmarking._scale.suite_scale`)."""
    from ._scale import suite_scale as run

    return run(ctx)


def suite_stream(ctx: BenchContext) -> list[Row]:
    """Streams never held whole (see :func:`onlinemf.benchmarking._stream.suite_stream`)."""
    from ._stream import suite_stream as run

    return run(ctx)


def suite_vr(ctx: BenchContext) -> list[Row]:
    """StochasticMF's VR against SMM and SGD at equal passes (see
    :func:`onlinemf.benchmarking._vr.suite_vr`)."""
    from ._vr import suite_vr as run

    return run(ctx)


SUITE_FUNCTIONS = {"nmf": suite_nmf, "topics": suite_topics, "sparse": suite_sparse,
                   "robust": suite_robust, "smf": suite_smf, "ndl": suite_ndl,
                   "scale": suite_scale, "stream": suite_stream, "vr": suite_vr}
