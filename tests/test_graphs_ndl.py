import itertools

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import roc_auc_score

from onlinemf import NetworkDictionaryLearning
from onlinemf.graphs import (
    GlauberChain,
    ParallelGlauberChains,
    as_adjacency,
    patch,
    path_motif,
    star_motif,
)


def test_motifs():
    np.testing.assert_array_equal(path_motif(1, 1), [[0, 1, 1], [0, 0, 0], [0, 0, 0]])
    d2 = path_motif(2, 2)  # 0→1→2 and 0→3→4
    assert d2.sum() == 4 and d2[0, 1] == d2[1, 2] == d2[0, 3] == d2[3, 4] == 1
    assert path_motif(3, 0).sum() == 3 and star_motif(4)[0].sum() == 3
    with pytest.raises(ValueError):
        path_motif(0, 0)


def test_adjacency_inputs_agree():
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, 2.0), (1, 2, 1.0), (2, 0, 0.5)])
    dense = np.array([[0, 2.0, 0], [0, 0, 1.0], [0.5, 0, 0]])
    for source in (G, dense, sp.csr_matrix(dense)):
        np.testing.assert_array_equal(as_adjacency(source).toarray(), dense)
    edges = np.array([[0, 1, 2.0], [1, 2, 1.0], [2, 0, 0.5]])
    np.testing.assert_array_equal(as_adjacency(edges, kind="edges").toarray(), dense)
    with pytest.raises(ValueError, match="nonnegative"):
        as_adjacency(-dense)


def test_glauber_kernel_is_stationary_by_exact_enumeration():
    # a weighted, directed 4-node network and the wedge motif (k = 3): 64 maps
    A = np.array([[0.5, 1.0, 0.3, 0.0],
                  [0.2, 0.0, 1.0, 0.7],
                  [1.0, 0.4, 0.0, 1.0],
                  [0.6, 0.0, 0.9, 0.2]])
    F = path_motif(1, 1)
    chain = GlauberChain(A, F, random_state=0)
    n, k = 4, 3
    states = list(itertools.product(range(n), repeat=k))
    index = {s: i for i, s in enumerate(states)}
    pi = np.array([np.prod([A[s[a], s[b]] ** F[a, b] for a in range(k) for b in range(k)])
                   for s in states])
    pi /= pi.sum()
    P = np.zeros((len(states), len(states)))
    for s in states:
        x = np.array(s)
        for i in range(k):
            nodes, w = chain.conditional(i, x)
            for y, wy in zip(nodes, w / w.sum()):
                t = list(s)
                t[i] = y
                P[index[s], index[tuple(t)]] += wy / k
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(pi @ P, pi, atol=1e-12)


def test_parallel_glauber_chains_share_the_single_chains_kernel():
    """Every one of the parallel chains redraws x(i) from the single chain's exact conditional
    (so each is stationary for π, by the enumeration test above): weights equal for all 64
    states of a weighted directed network, a motif with an exponent and a self-loop; and one
    joint step of 20000 chains in the same state draws from that conditional."""
    A = np.array([[0.5, 1.0, 0.3, 0.0],
                  [0.2, 0.0, 1.0, 0.7],
                  [1.0, 0.4, 0.0, 1.0],
                  [0.6, 0.0, 0.9, 0.2]])
    F = path_motif(1, 1)
    F[0, 1], F[2, 2] = 2.0, 1.0
    n, k = 4, 3
    states = np.array(list(itertools.product(range(n), repeat=k)))
    single = GlauberChain(A, F, random_state=0)
    par = ParallelGlauberChains(A, F, len(states), random_state=0)
    for i in range(k):
        owner, nodes, w = par.conditional(i, states)
        got = np.zeros((len(states), n))
        np.add.at(got, (owner, nodes), w)
        want = np.zeros((len(states), n))
        for c, x in enumerate(states):
            cand, wc = single.conditional(i, x)
            np.add.at(want[c], cand, wc)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    par = ParallelGlauberChains(A, F, 20000, random_state=1)
    par.x[:] = [0, 1, 2]
    before = par.x.copy()
    after = par.step().copy()
    moved = np.flatnonzero((after != before).any(axis=0))
    i = int(moved[0]) if moved.size else None
    assert moved.size <= 1  # one shared coordinate per joint step
    if i is not None:
        cand, wc = single.conditional(i, np.array([0, 1, 2]))
        p = np.zeros(n)
        np.add.at(p, cand, wc / wc.sum())
        freq = np.bincount(after[:, i], minlength=n) / after.shape[0]
        np.testing.assert_allclose(freq, p, atol=0.02)


def test_parallel_chains_stream_does_not_depend_on_how_it_is_cut():
    G = nx.karate_club_graph()
    F = path_motif(4, 0)
    a = ParallelGlauberChains(G, F, 16, random_state=5).sample_patches(300)[0]
    chain = ParallelGlauberChains(G, F, 16, random_state=5)
    b = np.concatenate([chain.sample_patches(m)[0] for m in (7, 100, 1, 192)])
    np.testing.assert_array_equal(a, b)
    A = as_adjacency(G).toarray()
    assert all(A[x[j], x[j + 1]] > 0 for x in a for j in range(4))  # homomorphisms
    with pytest.raises(ValueError, match="n_chains"):
        ParallelGlauberChains(G, F, 0)


def test_sampled_maps_are_homomorphisms_and_patches_index_the_graph():
    G = nx.karate_club_graph()
    A = as_adjacency(G)
    A.data[:] = 1.0
    F = path_motif(2, 2)
    chain = GlauberChain(A, F, random_state=1)
    states, patches = chain.sample_patches(300)
    dense = A.toarray()
    for x, p in zip(states, patches):
        assert all(dense[x[a], x[b]] == 1 for a, b in zip(*np.nonzero(F)))
        np.testing.assert_array_equal(p.reshape(5, 5), dense[np.ix_(x, x)])
        np.testing.assert_array_equal(patch(A, x), dense[np.ix_(x, x)])


def test_ndl_learns_and_reconstructs():
    G = nx.karate_club_graph()
    est = NetworkDictionaryLearning(9, motif_size=5, n_iter=40, batch_size=50, alpha=0.1,
                                    random_state=0).fit(G)
    assert est.patches_.shape == (9, 5, 5) and est.patches_.min() >= 0
    np.testing.assert_allclose(est.importance_.sum(), 1.0)
    R = est.reconstruct(G, n_steps=4000).toarray()
    A = nx.to_numpy_array(G, weight=None)
    iu = np.triu_indices(34, 1)
    assert roc_auc_score(A[iu] > 0, R[iu]) > 0.85
    assert np.isfinite(R).all() and R.min() >= 0
    with pytest.raises(ValueError, match="no edges"):
        est.fit(np.zeros((5, 5)))


def test_torus_example_is_exact():
    """Spec 004 §3.4 and B1: on the 10×10 torus, |Hom(wedge, G)| = 16n² = 1600 (not the
    paper's 9n²), every wedge patch is A_F, the atoms aligned with A_F carry all the
    importance, and NNLS reconstruction is exact on every visited entry."""
    G = nx.grid_2d_graph(10, 10, periodic=True)
    A = as_adjacency(G)
    Ad = A.toarray()
    assert int(np.einsum("ab,ac->", Ad, Ad)) == 1600
    F = star_motif(3)
    AF = F + F.T
    states, X = GlauberChain(A, F, random_state=0).sample_patches(300)
    assert np.array_equal(X, np.tile(AF.ravel(), (300, 1)))
    ndl = NetworkDictionaryLearning(9, 3, motif="star", n_iter=50, batch_size=50, alpha=0.5,
                                    random_state=0).fit(G)
    D = ndl.components_
    cos = D @ AF.ravel() / (np.linalg.norm(D, axis=1) * np.linalg.norm(AF) + 1e-300)
    assert ndl.importance_[cos > 1 - 1e-9].sum() > 0.99
    R = ndl.reconstruct(G, n_steps=5000, alpha=0.0, code_tol=1e-9).tocoo()
    # visited non-edges are reconstructed as 0 (implicit), every edge as its weight 1
    assert np.abs(R.data - Ad[R.row, R.col]).max() < 1e-8
    np.testing.assert_allclose(ndl.reconstruct(G, n_steps=5000, code_tol=1e-9).toarray()[Ad > 0],
                               1.0, atol=1e-8)


def _pivot_kernel(chain, states):
    """Exact transition matrix of the pivot chain over all n^k maps (tiny graphs)."""
    from itertools import product

    n, k = chain.A.shape[0], chain.k
    A = chain.A.toarray()
    index = {s: i for i, s in enumerate(states)}
    P = np.zeros((len(states), len(states)))

    def rest_prob(x):  # probability of drawing x's non-root nodes top-down given x(0)
        p = 1.0
        for c in range(1, k):
            par = chain.parents[c]
            w = A[x[par]] ** chain.motif[par, c] * chain.below[c]
            p *= w[x[c]] / w.sum() if w.sum() > 0 else float(x[c] == x[par])
        return p

    for s in states:
        nodes, probs = chain.root_kernel(s[0])
        for y, py in zip(nodes, probs):
            for rest in product(range(n), repeat=k - 1):
                x = (int(y), *rest)
                pr = rest_prob(x)
                if pr:
                    P[index[s], index[x]] += py * pr
    return P


@pytest.mark.parametrize("lazy,weight", [(False, 1.0), (True, 1.0), (False, 2.0)])
def test_pivot_chain_stationary_by_enumeration(lazy, weight):
    from itertools import product

    from onlinemf.graphs import PivotChain

    A = np.array([[0, 2, 1, 0], [1, 0, 1, 0], [0, 1, 0, 3], [1, 0, 1, 0]], float)  # directed
    F = path_motif(2, 1)  # root 0 → 1 → 2 and 0 → 3: a depth-2 tree
    F[1, 2] = weight  # an edge weight is an exponent on A's entry in π_{F→𝒢}
    chain = PivotChain(A, F, lazy=lazy, random_state=0)
    states = list(product(range(4), repeat=4))
    pi = np.array([np.prod([A[s[p], s[c]] ** F[p, c] for p, c in zip(*np.nonzero(F))])
                   for s in states])
    pi /= pi.sum()
    P = _pivot_kernel(chain, states)
    assert np.allclose(P.sum(axis=1)[pi > 0], 1)
    assert np.allclose(pi @ P, pi, atol=1e-12)
    # and sampled maps are homomorphisms with patches equal to the entries they index
    st, X = chain.sample_patches(200)
    for x, p in zip(st, X):
        assert all(A[x[a], x[b]] > 0 for a, b in zip(*np.nonzero(F)))
        assert np.array_equal(p, patch(as_adjacency(A), x).ravel())


@pytest.mark.parametrize("lazy", [False, True])
def test_parallel_pivot_chains_step_by_the_pivot_kernel(lazy):
    """Many chains started in one state, one joint step: the empirical law of the new
    states is the exact pivot kernel's row (proposal + acceptance draws the same law as the
    whole-row kernel), from a state with walking and from an isolated root."""
    from itertools import product

    from onlinemf.graphs import ParallelPivotChains, PivotChain

    A = np.array([[0, 2, 1, 0, 0], [1, 0, 1, 0, 0], [0, 1, 0, 3, 0], [1, 0, 1, 0, 0],
                  [0, 0, 0, 0, 0.0]])  # node 4 isolated
    A[4, 4] = 0
    F = path_motif(2, 0)  # 0 → 1 → 2
    single = PivotChain(A, F, lazy=lazy, random_state=0)
    states = list(product(range(5), repeat=3))
    P = _pivot_kernel(single, states)
    m = 40000
    for start in [(0, 1, 2), (2, 3, 0), (4, 4, 4)]:
        par = ParallelPivotChains(A, F, m, lazy=lazy, random_state=3)
        par.x[:] = start
        after = par.step()
        codes = after @ np.array([25, 5, 1])
        freq = np.bincount(codes, minlength=125) / m
        want = P[states.index(start)]
        assert 0.5 * np.abs(freq - want).sum() < 0.02
        assert freq[want == 0].sum() == 0  # never an impossible map


def test_parallel_pivot_chains_sample_homomorphisms_and_cut_freely():
    from onlinemf.graphs import ParallelPivotChains

    G = nx.karate_club_graph()
    F = path_motif(5, 0)
    a = ParallelPivotChains(G, F, 8, random_state=2).sample_patches(100)[0]
    chain = ParallelPivotChains(G, F, 8, random_state=2)
    b = np.concatenate([chain.sample_patches(m)[0] for m in (3, 60, 37)])
    np.testing.assert_array_equal(a, b)
    A = as_adjacency(G).toarray()
    assert all(A[x[j], x[j + 1]] > 0 for x in a for j in range(5))
    with pytest.raises(ValueError, match="n_chains"):
        ParallelPivotChains(G, F, 0)


def test_pivot_chain_rejects_non_tree_motifs():
    from onlinemf.graphs import PivotChain

    F = np.ones((3, 3)) - np.eye(3)
    with pytest.raises(ValueError, match="tree"):
        PivotChain(nx.cycle_graph(5), F)


def test_ndl_with_the_pivot_chain_reconstructs_karate():
    G = nx.karate_club_graph()
    est = NetworkDictionaryLearning(16, 6, chain="pivot", n_iter=30, batch_size=50, alpha=0.2,
                                    random_state=0).fit(G)
    R = est.reconstruct(G, n_steps=3000).toarray()
    A = nx.to_numpy_array(G, nodelist=sorted(G), weight="weight")
    iu = np.triu_indices(34, 1)
    assert roc_auc_score(A[iu] > 0, R[iu]) > 0.85
    with pytest.raises(ValueError, match="chain"):
        NetworkDictionaryLearning(chain="metropolis").fit(G)
    with pytest.raises(ValueError, match="unknown chain"):
        est.reconstruct(G, n_steps=10, chain="metropolis")
    # one pivot chain (the estimator's) and 64 advanced together reconstruct alike
    one = est.reconstruct(G, n_steps=3000, n_chains=1).toarray()
    assert roc_auc_score(A[iu] > 0, one[iu]) > 0.85


def test_reconstruction_samples_by_edge_cover_for_tree_motifs_else_the_learning_chain():
    """chain=None: the edge-cover sampler for a rooted tree (paths, two-armed paths, stars),
    pivot chains for one with the motif's edges left out, the learning chain otherwise (a
    triangle)."""
    from onlinemf.estimators._network_dictionary_learning import _is_rooted_tree

    triangle = np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]], float)
    assert _is_rooted_tree(path_motif(5, 0)) and _is_rooted_tree(path_motif(2, 2))
    assert not _is_rooted_tree(triangle)
    G = nx.karate_club_graph()
    for motif, expected in [("path", "cover"), (triangle, "glauber")]:
        est = NetworkDictionaryLearning(4, 5, motif=motif, n_iter=5, batch_size=20,
                                        random_state=0).fit(G)
        default = est.reconstruct(G, n_steps=300, random_state=1)
        other = {"cover": "pivot", "glauber": "pivot"}[expected]
        same = est.reconstruct(G, n_steps=300, random_state=1, chain=expected)
        assert (default != same).nnz == 0
        if expected == "cover":
            assert (default != est.reconstruct(G, n_steps=300, random_state=1,
                                               chain=other)).nnz > 0
            # leaving the motif's edges out (denoising), the default is the pivot chains
            kw = {"n_steps": 300, "random_state": 1, "omit_motif_edges": True}
            assert (est.reconstruct(G, **kw) != est.reconstruct(G, chain="pivot", **kw)).nnz == 0


@pytest.mark.parametrize("mode", ["add", "remove"])
def test_corruption_and_denoising_auc(mode):
    from onlinemf.graphs import corrupt_network
    from onlinemf.metrics import denoising_auc, edge_recovery

    G = nx.karate_club_graph()
    A = (as_adjacency(G) > 0).astype(float)
    noisy, pairs = corrupt_network(A, 0.1, mode, random_state=0)
    assert len(pairs) == round(0.1 * A.nnz / 2)
    change = (noisy - A).tocoo()
    assert change.nnz == 2 * len(pairs) and np.all(change.data == (1 if mode == "add" else -1))
    # the original graph as the "reconstruction" ranks perfectly; its negation worst
    assert denoising_auc(A, noisy, A, pairs, mode) == 1.0
    assert denoising_auc(A, noisy, -A, pairs, mode) == 0.0
    assert edge_recovery(A, A) == 1.0 and edge_recovery(A, 0.4 * A) == 0.0
    with pytest.raises(ValueError, match="fraction"):
        corrupt_network(A, 1.5)


def test_reconstruct_accumulates_by_chunk_and_uses_a_fresh_chain():
    """Chunked accumulation gives the same reconstruction whatever the chunk size, and the
    default reconstruction chain is not the training chain replayed."""
    G = nx.les_miserables_graph()
    ndl = NetworkDictionaryLearning(6, 5, n_iter=5, batch_size=40, random_state=3).fit(G)
    a = ndl.reconstruct(G, n_steps=900, chunk=1000, random_state=7)
    b = ndl.reconstruct(G, n_steps=900, chunk=125, random_state=7)
    np.testing.assert_allclose(a.toarray(), b.toarray(), rtol=1e-10, atol=1e-12)
    # small graphs accumulate in dense arrays, large ones in sparse matrices: the same result
    from onlinemf.estimators._network_dictionary_learning import _EntrySums

    _EntrySums.dense_max, kept = 0, _EntrySums.dense_max
    try:
        c = ndl.reconstruct(G, n_steps=900, chunk=125, random_state=7)
    finally:
        _EntrySums.dense_max = kept
    np.testing.assert_allclose(c.toarray(), a.toarray(), rtol=1e-10, atol=1e-12)
    assert (c != 0).nnz == (a != 0).nnz
    assert ndl.reconstruct_seed_ != 3
    replay = ndl.reconstruct(G, n_steps=900, random_state=3)
    fresh = ndl.reconstruct(G, n_steps=900)
    assert (replay != fresh).nnz > 0
    with pytest.raises(ValueError, match="n_steps"):
        ndl.reconstruct(G, n_steps=0)
    with pytest.raises(ValueError, match="n_chains"):
        ndl.reconstruct(G, n_steps=10, n_chains=0)
    single = ndl.reconstruct(G, n_steps=900, n_chains=1, random_state=7)
    assert single.nnz > 0 and np.isfinite(single.data).all()


def test_corrupt_network_on_dense_graphs_returns_or_refuses():
    from onlinemf.graphs import corrupt_network

    noisy, pairs = corrupt_network(nx.complete_graph(6), 0.05, mode="remove", random_state=0)
    assert len(pairs) == 1
    with pytest.raises(ValueError, match="only 0 non-edges"):
        corrupt_network(nx.complete_graph(6), 0.5, mode="add")
    G = nx.complete_graph(8)
    G.remove_edges_from([(0, 1), (2, 3), (4, 5)])
    noisy, pairs = corrupt_network(G, 0.1, mode="add", random_state=0)
    assert len(pairs) == 2 and all(not G.has_edge(int(i), int(j)) for i, j in pairs)
    assert (noisy != noisy.T).nnz == 0


def test_ndl_refuses_bad_parameters_and_networks_clearly():
    G = nx.karate_club_graph()
    for bad in ({"n_iter": 0}, {"batch_size": 0}, {"alpha": -1.0}, {"chain": "gibbs"},
                {"n_components": 0}):
        with pytest.raises(ValueError, match=list(bad)[0]):
            NetworkDictionaryLearning(**bad).fit(G)
    neg = nx.Graph()
    neg.add_edge(0, 1, weight=-1.0)
    neg.add_edge(1, 2, weight=1.0)
    with pytest.raises(ValueError, match="nonnegative"):
        NetworkDictionaryLearning(3, 3).fit(neg)
    inf = nx.Graph()
    inf.add_edge(0, 1, weight=np.inf)
    with pytest.raises(ValueError, match="finite"):
        NetworkDictionaryLearning(3, 3).fit(inf)
    with pytest.raises(ValueError, match="no edges"):
        NetworkDictionaryLearning(3, 3).fit(nx.empty_graph(5))
    with pytest.raises(ValueError, match="no nodes"):
        NetworkDictionaryLearning(3, 3).fit(nx.Graph())
    zero = nx.path_graph(4)
    nx.set_edge_attributes(zero, 0.0, "weight")
    with pytest.raises(ValueError, match="no edges"):
        NetworkDictionaryLearning(3, 3).fit(zero)
    with pytest.raises(ValueError, match="nonnegative integers"):
        as_adjacency(np.array([[0.0, 1.5], [1.0, 2.0]]), kind="edges")


def test_ndl_runs_its_small_products_on_one_blas_thread(blas):
    """Fit and reconstruction limit BLAS to one thread (their products are K × k² patches;
    a second thread spins on busy cores) and give the setting back afterwards."""
    import onlinemf.estimators._network_dictionary_learning as mod

    seen = blas.spy(mod, "nonneg_lasso")
    before = blas.threads()
    G = nx.karate_club_graph()
    ndl = NetworkDictionaryLearning(4, 4, n_iter=3, batch_size=20, random_state=0).fit(G)
    ndl.reconstruct(G, n_steps=200)
    assert seen and max(seen) == 1
    assert blas.threads() == before


def test_auto_reconstruction_length_follows_the_network_size():
    """n_steps="auto" is, for a chain, max(50000, 256·n) patches, and for the edge cover
    max(50000, passes · edges): the paper's 50000 on a small network (the same
    reconstruction as asking for it), more on a larger one; other strings fail."""
    G = nx.karate_club_graph()
    est = NetworkDictionaryLearning(4, 4, n_iter=5, batch_size=20, random_state=0).fit(G)
    auto = est.reconstruct(G, random_state=3, chain="pivot")
    assert (auto != est.reconstruct(G, n_steps=50_000, random_state=3, chain="pivot")).nnz == 0
    est.auto_patches_per_node = 2000  # 34 nodes → 68000 patches
    longer = est.reconstruct(G, random_state=3, chain="pivot")
    assert (longer != est.reconstruct(G, n_steps=68_000, random_state=3,
                                      chain="pivot")).nnz == 0
    assert (longer != auto).nnz > 0
    cover = est.reconstruct(G, random_state=3)
    assert (cover != est.reconstruct(G, n_steps=50_000, random_state=3)).nnz == 0
    est.auto_cover_passes = 1000  # 78 edges → 78000 patches
    assert (est.reconstruct(G, random_state=3)
            != est.reconstruct(G, n_steps=78_000, random_state=3)).nnz == 0
    with pytest.raises(ValueError, match="n_steps"):
        est.reconstruct(G, n_steps="many")


def _all_pairs_auc(A, R):
    """AUC of the pair scores (mean of both orientations) over all pairs i < j, a pair the
    reconstruction never visited scoring 0."""
    n = A.shape[0]
    iu = np.triu_indices(n, 1)
    S = R.toarray()
    return roc_auc_score(A.toarray()[iu] > 0, (S + S.T)[iu])


@pytest.mark.parametrize("motif", [path_motif(4, 0), path_motif(1, 2), star_motif(4)])
def test_edge_cover_visits_every_edge_once_a_pass_with_homomorphisms(motif):
    """A pass of as many patches as anchors puts every edge of the network under the motif's
    first edge exactly once (each undirected edge in one orientation); every state is a
    homomorphism and its patch indexes the graph; the stream does not depend on the cut."""
    from onlinemf.graphs import EdgeCoverSampler

    G = nx.barabasi_albert_graph(60, 3, seed=1)
    A = as_adjacency(G)
    s = EdgeCoverSampler(A, motif, random_state=0)
    assert s.n_anchors == G.number_of_edges()
    states, X = s.sample_patches(s.n_anchors)
    c1 = s.anchor_child
    pairs = {tuple(sorted(p)) for p in states[:, [0, c1]].tolist()}
    assert len(pairs) == G.number_of_edges() and all(G.has_edge(u, v) for u, v in pairs)
    dense, k = A.toarray(), motif.shape[0]
    for x, p in zip(states, X):
        assert all(dense[x[a], x[b]] == 1 for a, b in zip(*np.nonzero(motif)))
        np.testing.assert_array_equal(p.reshape(k, k), dense[np.ix_(x, x)])
    a = EdgeCoverSampler(A, motif, random_state=5)
    b = EdgeCoverSampler(A, motif, random_state=5)
    whole = a.sample_patches(250)[0]
    cut = np.concatenate([b.sample_patches(m)[0] for m in (7, 100, 143)])
    np.testing.assert_array_equal(whole, cut)


def test_edge_cover_draws_the_rest_from_the_exact_conditional():
    """Given its anchor (x(0), x(1)) = (u, v), a path of 4 nodes has
    P(x(2) = w, x(3) = z) ∝ A(v, w)·A(w, z): the drawn frequencies match the enumeration."""
    from onlinemf.graphs import EdgeCoverSampler

    G = nx.Graph([(0, 1), (1, 2), (1, 3), (2, 3), (3, 4), (2, 5)])
    A = as_adjacency(G)
    s = EdgeCoverSampler(A, path_motif(3, 0), random_state=0)
    s.anchors = np.array([[0, 1]])  # always anchor on the edge 0 → 1
    states = s.sample_patches(40_000)[0]
    dense = A.toarray()
    w = {(a, b): dense[1, a] * dense[a, b] for a in range(6) for b in range(6)}
    total = sum(w.values())
    for (a, b), weight in w.items():
        seen = np.mean((states[:, 2] == a) & (states[:, 3] == b))
        assert abs(seen - weight / total) < 0.01, (a, b)


def test_edge_cover_reconstruction_ranks_a_planted_graphs_edges_over_all_pairs():
    """On a heavy-tailed planted network, the default reconstruction (one pass of the edge
    cover) visits every edge, whatever its endpoints' degrees, and ranks the edges above
    the non-edges over all pairs; 64 pivot chains with as many patches leave edges
    unvisited."""
    G = nx.powerlaw_cluster_graph(300, 3, 0.3, seed=2)
    A = (as_adjacency(G) > 0).astype(float)
    est = NetworkDictionaryLearning(8, 6, n_iter=20, batch_size=50, random_state=0).fit(G)
    steps = G.number_of_edges()
    R = est.reconstruct(G, n_steps=steps, random_state=1)
    assert A.multiply(abs(R) > 0).nnz == A.nnz
    assert _all_pairs_auc(A, R) > 0.95
    P = est.reconstruct(G, n_steps=steps, random_state=1, chain="pivot")
    assert A.multiply(abs(P) > 0).nnz < A.nnz
    assert _all_pairs_auc(A, P) < _all_pairs_auc(A, R)


def test_sparse_entry_sums_hold_the_visited_entries_and_one_buffer():
    """The sparse accumulation gives the dense one's sums and counts, and holds at most
    twice the distinct entries seen plus the merge threshold, however many chunks arrive."""
    from onlinemf.estimators._network_dictionary_learning import _EntrySums

    rng = np.random.default_rng(0)
    n, chunk = 40, 300
    dense, sparse = _EntrySums(n, dense=True), _EntrySums(n, dense=False)
    sparse.merge_min = 500
    seen, worst = set(), 0
    for _ in range(60):
        r, c = rng.integers(n, size=chunk), rng.integers(n // 2, size=chunk)
        v = rng.random(chunk)
        dense.add(r, c, v)
        sparse.add(r, c, v)
        seen.update(zip(r.tolist(), c.tolist()))
        worst = max(worst, sparse.stored - 2 * len(seen))
    assert worst <= sparse.merge_min
    for got, want in zip(sparse.result(), dense.result()):
        np.testing.assert_allclose(got.toarray(), want.toarray(), rtol=1e-12)


def test_edge_cover_on_a_directed_network_anchors_on_every_arc():
    """A directed network's arcs are anchors one by one (an arc and its reverse are two);
    the motif's edges follow the arcs' direction, and a node without a way down is copied."""
    from onlinemf.graphs import EdgeCoverSampler

    A = sp.csr_matrix(np.array([[0, 2, 0, 0], [1, 0, 3, 0], [0, 0, 0, 1], [0, 0, 0, 0.]]))
    s = EdgeCoverSampler(A, path_motif(2, 0), random_state=0)
    assert s.n_anchors == A.nnz
    states = s.sample_patches(4 * A.nnz)[0]
    dense = A.toarray()
    assert {tuple(p) for p in states[:, :2].tolist()} == set(zip(*A.nonzero()))
    for x in states:
        assert dense[x[1], x[2]] > 0 or (x[2] == x[1] and not dense[x[1]].any())
