"""Networks, motifs and MCMC sampling of motif homomorphisms (Lyu, Needell and Balzano 2020,
"Online Matrix Factorization for Markovian Data and Applications to Network Dictionary
Learning", JMLR 21; arXiv:1911.01931).

A network is a weighted, possibly directed adjacency matrix A (n × n, nonnegative) with node
weights α (uniform here); a motif F is a k × k nonnegative matrix A_F. The random homomorphism
x: [k] → [n] has law π(x) ∝ Π_{i,j} A(x(i), x(j))^{A_F(i,j)} Π_i α(x(i)) (eq. (44), 0⁰ = 1), and
its F-patch is the k × k matrix A[x(a), x(b)] (eq. (42)), all k² entries.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._sparse import gather_rows

__all__ = ["as_adjacency", "path_motif", "star_motif", "GlauberChain", "ParallelGlauberChains",
           "PivotChain", "ParallelPivotChains", "EdgeCoverSampler", "draw_segments", "patch",
           "patches_of", "motif_tree", "corrupt_network"]


def as_adjacency(G, kind: str | None = None) -> sp.csr_matrix:
    """A CSR adjacency matrix from a networkx graph (edge weights from the ``weight`` attribute),
    an edge list (m × 2 or m × 3 array: u, v[, weight]) or a dense or sparse matrix.

    A square array is read as an adjacency matrix unless ``kind="edges"``."""
    try:
        import networkx as nx
    except ImportError:  # optional extra
        nx = None
    if nx is not None and isinstance(G, nx.Graph):
        if G.number_of_nodes() == 0:
            raise ValueError("the network has no nodes")
        A = nx.to_scipy_sparse_array(G, nodelist=list(G.nodes()), weight="weight", format="csr")
        A = sp.csr_matrix(A, dtype=float)
    elif sp.issparse(G):
        A = sp.csr_matrix(G, dtype=float)
    else:
        arr = np.asarray(G, dtype=float)
        square = arr.ndim == 2 and arr.shape[0] == arr.shape[1]
        if square and kind != "edges":
            A = sp.csr_matrix(arr)
        elif arr.ndim == 2 and arr.shape[1] in (2, 3):
            ids = arr[:, :2]
            if not np.all(np.isfinite(ids)) or np.any(ids != np.round(ids)) or np.any(ids < 0):
                raise ValueError("node ids of an edge list must be nonnegative integers")
            if arr.shape[0] == 0:
                raise ValueError("the edge list is empty")
            u, v = arr[:, 0].astype(int), arr[:, 1].astype(int)
            w = arr[:, 2] if arr.shape[1] == 3 else np.ones(len(u))
            n = int(max(u.max(), v.max())) + 1
            A = sp.csr_matrix((w, (u, v)), shape=(n, n))
        else:
            raise ValueError("a network must be a networkx graph, an edge list (m × 2 or m × 3) "
                             f"or a square adjacency matrix; got an array of shape {arr.shape}")
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"the adjacency matrix must be square, got {A.shape}")
    if A.nnz and not np.all(np.isfinite(A.data)):
        raise ValueError("network weights must be finite")
    if A.nnz and A.data.min() < 0:
        raise ValueError("network weights must be nonnegative")
    A.sum_duplicates()
    A.eliminate_zeros()  # a zero-weight edge is no edge
    return A


def path_motif(k1: int, k2: int = 0) -> np.ndarray:
    """Two directed arms of lengths k1 and k2 from root 0 (the authors' ``path_adj``): (1, 1) is
    the wedge, (2, 2) and (3, 3) the deeper wedges, (k, 0) a directed path of k + 1 nodes."""
    if k1 < 0 or k2 < 0 or k1 + k2 == 0:
        raise ValueError("the motif needs k1, k2 >= 0 and at least one edge")
    k = k1 + k2 + 1
    B = np.eye(k, k=1)
    if k1 and k2:
        B[k1, k1 + 1] = 0.0
        B[0, k1 + 1] = 1.0
    return B


def star_motif(k: int) -> np.ndarray:
    """A directed star: root 0 with edges to the k − 1 other nodes."""
    if k < 2:
        raise ValueError("a star motif needs k >= 2 nodes")
    B = np.zeros((k, k))
    B[0, 1:] = 1.0
    return B


def patch(A: sp.csr_matrix, x: np.ndarray) -> np.ndarray:
    """The F-patch A[x(a), x(b)], a k × k dense matrix (eq. (42))."""
    return A[x][:, x].toarray()


def draw_weighted(rng, items: np.ndarray, weights: np.ndarray, total: float):
    """One item drawn with probability weights/total (inverse CDF; faster than rng.choice)."""
    pos = np.searchsorted(np.cumsum(weights), rng.random() * total, side="right")
    return items[min(int(pos), items.size - 1)]


class _Patches:
    """Patches read from the chain's network (a dense copy for small networks, built once)."""

    def _table(self):
        if getattr(self, "_lookup", None) is None:
            self._lookup = lookup_table(self.A)
        return self._lookup


class _HomomorphismChain(_Patches):
    """What the homomorphism samplers share: ``step()`` moves ``self.x``; patches of a run."""

    def sample_patches(self, n_samples: int) -> tuple[np.ndarray, np.ndarray]:
        """``n_samples`` consecutive states and their vectorized patches (row-major, k²)."""
        states = np.empty((n_samples, self.k), dtype=np.int64)
        for s in range(n_samples):  # a Markov chain: each state depends on the previous one
            states[s] = self.step()
        return states, patches_of(self._table(), states)


class GlauberChain(_HomomorphismChain):
    """The Glauber chain on homomorphisms F → 𝒢 (Lyu, Needell and Balzano 2020).

    One step picks a motif node i uniformly and redraws x(i) from its exact conditional
    P(x(i) = y | rest) ∝ Π_{j: A_F(j,i) > 0} A(x(j), y)^{A_F(j,i)} · Π_{j: A_F(i,j) > 0}
    A(y, x(j))^{A_F(i,j)} · A(y, y)^{A_F(i,i)} (α uniform cancels). Products over sparse rows and
    columns are intersections of neighbour sets. A zero normalizer (only from an invalid state)
    draws y uniformly.

    Parameters
    ----------
    A : adjacency (anything :func:`as_adjacency` takes)
    motif : ndarray (k, k)
    random_state : int, Generator or None
    """

    def __init__(self, A, motif, random_state=None):
        self.A = as_adjacency(A)
        self.A.sort_indices()
        self.At = self.A.T.tocsr()  # columns of A as rows
        self.At.sort_indices()
        self._diag = self.A.diagonal()
        self.motif = np.asarray(motif, dtype=float)
        self.k = self.motif.shape[0]
        self.rng = np.random.default_rng(random_state)
        self.x = self.initial_state()

    def initial_state(self) -> np.ndarray:
        """Tree sampling: a uniform root, then each node from a random-walk step of its parent
        (the first node with an edge into it); a node whose parent has no out-edge copies it."""
        n, k = self.A.shape[0], self.k
        x = np.zeros(k, dtype=np.int64)
        x[0] = self.rng.integers(n)
        for i in range(1, k):
            parents = np.flatnonzero(self.motif[:i, i] > 0)
            p = int(parents[0]) if parents.size else 0
            row = self.A[x[p]]
            if row.nnz:
                x[i] = self.rng.choice(row.indices, p=row.data / row.data.sum())
            else:
                x[i] = x[p]
        return x

    def _row(self, M, v):
        lo, hi = M.indptr[v], M.indptr[v + 1]
        return M.indices[lo:hi], M.data[lo:hi]

    def conditional(self, i: int, x: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(candidate nodes, unnormalized weights) of x(i) given the other coordinates.

        The candidates are the neighbours in the sparsest factor's row; the other factors are
        looked up at them (sorted CSR indices), so a step costs O(k·deg), not O(n)."""
        x = self.x if x is None else x
        F = self.motif
        factors = []  # (indices, values, exponent) of A(x(j), ·) or A(·, x(j)) as rows
        for j in range(self.k):
            if j == i:
                continue
            if F[j, i] > 0:  # edge j → i: A(x(j), y)
                factors.append((*self._row(self.A, x[j]), F[j, i]))
            if F[i, j] > 0:  # edge i → j: A(y, x(j))
                factors.append((*self._row(self.At, x[j]), F[i, j]))
        if not factors:
            nodes = np.arange(self.A.shape[0])
            w = np.ones(nodes.size)
        else:
            factors.sort(key=lambda f: f[0].size)
            nodes, vals, e = factors[0]
            w = vals ** e
            for idx, vals, e in factors[1:]:
                pos = np.searchsorted(idx, nodes).clip(max=max(idx.size - 1, 0))
                hit = (idx[pos] == nodes) if idx.size else np.zeros(nodes.size, bool)
                w = w * np.where(hit, vals[pos] if idx.size else 0.0, 0.0) ** e
        if F[i, i] > 0:
            w = w * self._diag[nodes] ** F[i, i]
        return nodes, w

    def step(self) -> np.ndarray:
        i = int(self.rng.integers(self.k))
        nodes, w = self.conditional(i)
        total = w.sum()
        if total > 0:
            self.x[i] = draw_weighted(self.rng, nodes, w, total)
        else:
            self.x[i] = self.rng.integers(self.A.shape[0])
        return self.x



def draw_segments(rng, owner: np.ndarray, nodes: np.ndarray, w: np.ndarray,
                  m: int) -> tuple[np.ndarray, np.ndarray]:
    """One weighted draw per segment: ``owner`` (sorted) gives each candidate's segment in
    [0, m), ``w`` its unnormalized weight. Returns (the drawn node of every segment, whether the
    segment had positive total weight); a segment without weight gets a placeholder node that
    the caller replaces."""
    totals = np.bincount(owner, weights=w, minlength=m)
    counts = np.bincount(owner, minlength=m)
    if not nodes.size:
        return np.zeros(m, dtype=np.int64), np.zeros(m, dtype=bool)
    cum = np.cumsum(w)
    ends = np.cumsum(counts)
    before = np.where(ends - counts > 0, cum[np.maximum(ends - counts - 1, 0)], 0.0)
    pos = np.searchsorted(cum, before + rng.random(m) * totals, side="right")
    pos = np.minimum(pos, np.maximum(ends - 1, 0))
    return nodes[pos].astype(np.int64), totals > 0


class _JointChains(_Patches):
    """What chains advanced together share: ``step()`` moves all ``n_chains`` states
    ``self.x`` (n_chains, k) at once; runs are cut into patches chain by chain."""

    def sample_patches(self, n_samples: int) -> tuple[np.ndarray, np.ndarray]:
        """The next ``n_samples`` states (the chains' states after each joint step, chain by
        chain) and their vectorized patches (row-major, k²). States of a joint step that do
        not fit are kept for the next call, so the stream does not depend on how it is cut."""
        pending = self._pending
        steps = max(0, -(-(n_samples - pending.shape[0]) // self.n_chains))
        states = np.empty((steps, self.n_chains, self.k), dtype=np.int64)
        for s in range(steps):  # Markov chains: each joint state depends on the previous one
            states[s] = self.step()
        states = np.concatenate([pending, states.reshape(-1, self.k)])
        states, self._pending = states[:n_samples], states[n_samples:]
        return states, patches_of(self._table(), states)


class ParallelGlauberChains(_JointChains):
    """``n_chains`` independent Glauber chains on homomorphisms F → 𝒢, advanced together.

    At each step one motif node i is drawn and every chain redraws its x(i) from the exact
    conditional of :class:`GlauberChain` (the draw of i is shared; each chain, taken alone, is a
    Glauber chain with its own state and draws). The candidates of all chains are one
    concatenated array and the other factors are looked up for all of them at once, so a step
    costs a few array operations for all chains instead of one Python pass per chain and per
    step. Started from independent tree samplings, the chains also spread over the graph: for
    a reconstruction, more of it is covered than by one chain of the same total length.

    Parameters
    ----------
    A : adjacency (anything :func:`as_adjacency` takes)
    motif : ndarray (k, k)
    n_chains : int
    random_state : int, Generator or None
    """

    def __init__(self, A, motif, n_chains: int, random_state=None):
        if n_chains < 1:
            raise ValueError(f"n_chains must be at least 1, got {n_chains}")
        self.rng = np.random.default_rng(random_state)
        single = GlauberChain(A, motif, random_state=self.rng)
        self.A, self.At, self._diag = single.A, single.At, single._diag
        self.motif, self.k = single.motif, single.k
        self.n_chains = int(n_chains)
        self.x = np.array([single.x] + [single.initial_state()
                                        for _ in range(self.n_chains - 1)], dtype=np.int64)
        self._pending = np.empty((0, self.k), dtype=np.int64)
        F = self.motif  # per motif node i: the (matrix, other node, exponent) of its factors
        self._factors = [[(self.A, j, F[j, i]) for j in range(self.k) if j != i and F[j, i] > 0]
                         + [(self.At, j, F[i, j]) for j in range(self.k)
                            if j != i and F[i, j] > 0] for i in range(self.k)]

    def conditional(self, i: int, x: np.ndarray | None = None):
        """(owner chain, candidate node, unnormalized weight) of x(i) for every chain, as
        three flat arrays (each chain's candidates contiguous, in chain order)."""
        x = self.x if x is None else x
        factors = self._factors[i]
        m = x.shape[0]
        if not factors:
            n = self.A.shape[0]
            return (np.repeat(np.arange(m), n), np.tile(np.arange(n), m), np.ones(m * n))
        M0, j0, e0 = factors[0]
        take, counts = gather_rows(M0.indptr, x[:, j0])
        owner = np.repeat(np.arange(m), counts)
        nodes = M0.indices[take]
        w = M0.data[take] ** e0
        for M, j, e in factors[1:]:
            w = w * np.asarray(M[x[owner, j], nodes]).ravel() ** e
        if self.motif[i, i] > 0:
            w = w * self._diag[nodes] ** self.motif[i, i]
        return owner, nodes, w

    def step(self) -> np.ndarray:
        """Advance every chain by one Glauber step; returns the states (n_chains, k)."""
        i = int(self.rng.integers(self.k))
        owner, nodes, w = self.conditional(i)
        m = self.n_chains
        if not nodes.size:  # no chain has a candidate (only from invalid states): uniform
            self.x[:, i] = self.rng.integers(self.A.shape[0], size=m)
            return self.x
        drawn, ok = draw_segments(self.rng, owner, nodes, w, m)
        new = self.rng.integers(self.A.shape[0], size=m)  # a zero normalizer: uniform
        new[ok] = drawn[ok]
        self.x[:, i] = new
        return self.x


def motif_tree(motif: np.ndarray) -> list[int]:
    """Parents of a motif that is a directed tree rooted at node 0 (edges parent → child):
    ``parents[0] = -1``; raises if the motif is not such a tree."""
    F = np.asarray(motif) > 0
    k = F.shape[0]
    if np.any(np.diag(F)):
        raise ValueError("the pivot chain needs a motif without self-loops")
    parents = [-1] * k
    for c in range(1, k):
        ps = np.flatnonzero(F[:, c])
        if ps.size != 1:
            raise ValueError("the pivot chain needs a directed tree rooted at node 0 "
                             f"(node {c} has {ps.size} parents)")
        parents[c] = int(ps[0])
    if F[:, 0].any():
        raise ValueError("the root (node 0) of a pivot-chain motif has no parent")
    seen, stack = {0}, [0]
    while stack:  # every node reachable from the root
        p = stack.pop()
        for c in np.flatnonzero(F[p]):
            if int(c) not in seen:
                seen.add(int(c))
                stack.append(int(c))
    if len(seen) != k:
        raise ValueError("the pivot-chain motif is not connected to its root")
    return parents


def _depth(parents: list[int], c: int) -> int:
    d = 0
    while parents[c] >= 0:
        c, d = parents[c], d + 1
    return d


def tree_messages(A: sp.csr_matrix, motif: np.ndarray, parents: list[int]) -> list[np.ndarray]:
    """The bottom-up messages of a directed tree motif: ``below[c]`` (n,) is the product over
    the children c′ of c of M_{c′} = A^{∘F(c, c′)}·below[c′], so that the exact conditional of
    a child given its parent v is P(x(c) = u | x(p) = v) ∝ A(v, u)^{F(p,c)}·below[c](u), and
    ``below[0]`` is the root's marginal up to a constant."""
    n, k = A.shape[0], motif.shape[0]
    below = [np.ones(n) for _ in range(k)]
    for c in sorted(range(k), key=lambda c: _depth(parents, c), reverse=True):
        p = parents[c]
        if p >= 0:  # M_c = A^{∘F(p,c)}·(c's product), multiplied into its parent's
            Ap = A
            if motif[p, c] != 1:  # the edge weight's exponent
                Ap = A.copy()
                Ap.data = Ap.data ** motif[p, c]
            below[p] = below[p] * (Ap @ below[c])
    return below


class PivotChain(_HomomorphismChain):
    """The pivot chain on homomorphisms of a directed tree motif F → 𝒢, exact.

    Messages M_c = A^{∘F(p,c)}·Π_{c′ child of c} M_{c′} (bottom-up, once; the motif's edge
    weight F(p, c) is an exponent on A's entries, as in π_{F→𝒢}) give the root's marginal
    π₁(x) ∝ Π_{c child of root} M_c(x). One step moves the root by Metropolis–Hastings with a
    random-walk proposal on max(A, Aᵀ) targeting π₁ (an isolated root jumps uniformly), then
    redraws every other node top-down from its exact conditional P(x(c) = u | x(p) = v) ∝
    A(v, u)·Π_{c′ child of c} M_{c′}(u). The chain is stationary for π_{F→𝒢} (checked by
    enumeration in the tests), unlike the authors' approximations (uniform-pivot acceptance,
    children drawn without the downstream factor). ``lazy`` stays put with probability ½, which
    removes the periodicity of the walk on regular bipartite graphs. The
    first state is an exact draw (root from π₁, then top-down).
    """

    def __init__(self, A, motif, lazy: bool = False, random_state=None):
        self.A = as_adjacency(A)
        self.motif = np.asarray(motif, dtype=float)
        self.k = self.motif.shape[0]
        self.parents = motif_tree(self.motif)
        self.children = [[c for c in range(self.k) if self.parents[c] == p]
                         for p in range(self.k)]
        self.lazy = lazy
        self.rng = np.random.default_rng(random_state)
        sym = self.A.maximum(self.A.T).tocsr()
        self.sym = sym
        self.sym_deg = np.asarray(sym.sum(axis=1)).ravel()
        self.below = tree_messages(self.A, self.motif, self.parents)
        self._order = sorted(range(self.k), key=self._depth)
        self.root_weight = self.below[0]
        if not self.root_weight.any():
            raise ValueError("the network has no homomorphism of this motif")
        self.x = self.exact_sample()

    def _depth(self, c):
        return _depth(self.parents, c)

    def _draw_below(self, x):
        """Redraw every non-root node top-down given x(0)."""
        A = self.A
        for p in self._order:  # parents before children
            lo, hi = A.indptr[x[p]], A.indptr[x[p] + 1]
            idx, data = A.indices[lo:hi], A.data[lo:hi]
            for c in self.children[p]:
                w = data ** self.motif[p, c] * self.below[c][idx]
                total = w.sum()
                x[c] = draw_weighted(self.rng, idx, w, total) if total > 0 else x[p]
        return x

    def exact_sample(self) -> np.ndarray:
        """An i.i.d. draw from π_{F→𝒢}: the root from π₁, the rest top-down."""
        x = np.zeros(self.k, dtype=np.int64)
        x[0] = self.rng.choice(self.A.shape[0], p=self.root_weight / self.root_weight.sum())
        return self._draw_below(x)

    def root_kernel(self, u: int) -> tuple[np.ndarray, np.ndarray]:
        """The root's MH transition probabilities from u: (next nodes, probabilities)."""
        n = self.A.shape[0]
        pi = self.root_weight
        if self.sym_deg[u] == 0:
            nodes, prop = np.arange(n), np.full(n, 1.0 / n)
            acc = np.minimum(1.0, pi / max(pi[u], 1e-300)) if pi[u] > 0 else np.ones(n)
        else:
            lo, hi = self.sym.indptr[u], self.sym.indptr[u + 1]
            nodes, weights = self.sym.indices[lo:hi], self.sym.data[lo:hi]
            prop = weights / self.sym_deg[u]
            back = weights / self.sym_deg[nodes]  # max(A, Aᵀ) is symmetric
            acc = np.ones(nodes.size) if pi[u] == 0 else np.minimum(
                1.0, pi[nodes] * back / (pi[u] * prop))
        probs = prop * acc
        if self.lazy:
            probs = 0.5 * probs
        stay = max(0.0, 1.0 - probs.sum())  # rounding can leave −1e-17
        return np.append(nodes, u), np.append(probs, stay)

    def step(self) -> np.ndarray:
        nodes, probs = self.root_kernel(int(self.x[0]))
        self.x[0] = self.rng.choice(nodes, p=probs / probs.sum())
        self._draw_below(self.x)
        return self.x



class ParallelPivotChains(_JointChains):
    """``n_chains`` independent pivot chains (:class:`PivotChain`) advanced together.

    A joint step moves every root by Metropolis–Hastings at once — a neighbour proposed from
    max(A, Aᵀ) in proportion to the edge weight, accepted with min(1, π₁(y)·deg(u) /
    (π₁(u)·deg(y))); an isolated root proposes uniformly and accepts with min(1, π₁(y)/π₁(u))
    — which is the transition law of :meth:`PivotChain.root_kernel` drawn by proposal and
    acceptance instead of from the whole row, then redraws every other node top-down for all
    chains from one gathered array per motif edge. Each chain is started from its own exact
    draw. The pivot redraws the whole map at every step, so consecutive patches are nearly
    independent and the chains spread over the graph: the reconstruction's default sampler.

    Parameters
    ----------
    A : adjacency (anything :func:`as_adjacency` takes)
    motif : ndarray (k, k), a directed tree rooted at node 0
    n_chains : int
    lazy : bool, default=False
    random_state : int, Generator or None
    """

    def __init__(self, A, motif, n_chains: int, lazy: bool = False, random_state=None):
        if n_chains < 1:
            raise ValueError(f"n_chains must be at least 1, got {n_chains}")
        self.rng = np.random.default_rng(random_state)
        single = PivotChain(A, motif, lazy=lazy, random_state=self.rng)
        self.single = single
        self.A, self.motif, self.k, self.lazy = single.A, single.motif, single.k, lazy
        self.n_chains = int(n_chains)
        self.x = np.array([single.x] + [single.exact_sample()
                                        for _ in range(self.n_chains - 1)], dtype=np.int64)
        self._pending = np.empty((0, self.k), dtype=np.int64)
        # per motif edge p → c (parents first): A with the edge's exponent applied
        self._edges = []
        for p in single._order:
            for c in single.children[p]:
                Ap = self.A
                if self.motif[p, c] != 1:
                    Ap = self.A.copy()
                    Ap.data = Ap.data ** self.motif[p, c]
                self._edges.append((p, c, Ap))

    def _move_roots(self):
        s, m, n = self.single, self.n_chains, self.A.shape[0]
        pi, deg = s.root_weight, s.sym_deg
        u = self.x[:, 0]
        y = self.rng.integers(n, size=m)  # isolated roots: a uniform proposal
        walk = deg[u] > 0
        if walk.any():
            take, counts = gather_rows(s.sym.indptr, u[walk])
            owner = np.repeat(np.arange(int(walk.sum())), counts)
            y[walk] = draw_segments(self.rng, owner, s.sym.indices[take], s.sym.data[take],
                                    int(walk.sum()))[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(walk, pi[y] * deg[u] / (pi[u] * np.where(walk, deg[y], 1.0)),
                             pi[y] / pi[u])
        accept = (pi[u] == 0) | (self.rng.random(m) < ratio)
        if self.lazy:
            accept &= self.rng.random(m) < 0.5
        self.x[:, 0] = np.where(accept, y, u)

    def step(self) -> np.ndarray:
        """Advance every chain by one pivot step; returns the states (n_chains, k)."""
        self._move_roots()
        below, m = self.single.below, self.n_chains
        for p, c, Ap in self._edges:
            take, counts = gather_rows(Ap.indptr, self.x[:, p])
            owner = np.repeat(np.arange(m), counts)
            nodes = Ap.indices[take]
            drawn, ok = draw_segments(self.rng, owner, nodes, Ap.data[take] * below[c][nodes],
                                      m)
            self.x[:, c] = np.where(ok, drawn, self.x[:, p])  # no way down: copy the parent
        return self.x


class EdgeCoverSampler(_Patches):
    """Patches of a directed tree motif (paths, stars) anchored on every edge of the network
    in turn, for the reconstruction.

    Each patch fixes the motif's first edge 0 → c₁ on an edge (u, v) of the network, taken in
    a random order that runs through all the edges before any repeats (each undirected edge
    once, in a random orientation, when A is symmetric), and draws every other motif node
    top-down from its exact conditional given its parent, as :class:`PivotChain` does: the
    patch is a draw of π_{F→𝒢} conditioned on x(0) = u, x(c₁) = v. A pass of as many patches
    as edges therefore visits every edge of the network, whereas the pivot chain visits an
    edge in proportion to the homomorphisms through it (a path of k nodes through a hub's
    edge is counted by the walks around the hub, not by the edge), and on a heavy-tailed
    network leaves many edges unvisited after several times as many patches. Patches are
    independent given their anchors, so a whole chunk is drawn at once: per motif edge, one
    binary search per patch in the row-normalized cumulative weights of that edge's
    conditional (built once, O(nnz) memory per motif edge).

    Parameters
    ----------
    A : adjacency (anything :func:`as_adjacency` takes)
    motif : ndarray (k, k), a directed tree rooted at node 0
    random_state : int, Generator or None
    """

    def __init__(self, A, motif, random_state=None):
        self.A = as_adjacency(A)
        self.A.sort_indices()
        self.motif = np.asarray(motif, dtype=float)
        self.k = self.motif.shape[0]
        self.parents = motif_tree(self.motif)
        rng = np.random.default_rng(random_state)
        # the anchors' order and the draws from separate streams, one row of k uniforms per
        # patch: the patches do not depend on how the run is cut into chunks
        self._order_rng, self.rng = (np.random.default_rng(s) for s in rng.integers(2**63, size=2))
        below = tree_messages(self.A, self.motif, self.parents)
        order = sorted(range(1, self.k), key=lambda c: _depth(self.parents, c))
        self.anchor_child = min(c for c in range(self.k) if self.parents[c] == 0)
        self._edges = [(self.parents[c], c, self._cumulative(self.motif[self.parents[c], c],
                                                             below[c]))
                       for c in order if c != self.anchor_child]
        rows, cols = self.A.nonzero()
        if (self.A != self.A.T).nnz == 0:  # undirected: each edge once, either way
            rows, cols = rows[rows <= cols], cols[rows <= cols]
            flip = self._order_rng.random(rows.size) < 0.5
            rows, cols = np.where(flip, cols, rows), np.where(flip, rows, cols)
        self.anchors = np.column_stack([rows, cols]).astype(np.int64)
        self._queue = np.empty(0, dtype=np.int64)

    @property
    def n_anchors(self) -> int:
        """The patches of one pass over the network's edges."""
        return self.anchors.shape[0]

    def _cumulative(self, exponent, below_c):
        """Row-normalized cumulative weights of A(v, u)^e·below(u) over the entries of each
        row v (each row's run rises by 1 if the row has weight, else stays flat)."""
        A = self.A
        w = A.data ** exponent * below_c[A.indices]
        row = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
        total = np.bincount(row, weights=w, minlength=A.shape[0])
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(total[row] > 0, w / total[row], 0.0)
        return np.cumsum(w), total > 0

    def _draw(self, table, parents, u):
        """One node per parent from the conditional whose cumulative weights are ``table``,
        by the uniforms ``u``; a parent without weight (no way down) is copied."""
        cum, ok = table
        lo, hi = self.A.indptr[parents], self.A.indptr[parents + 1]
        ok = ok[parents]
        start = np.where(lo > 0, cum[np.maximum(lo - 1, 0)], 0.0)
        end = cum[np.maximum(hi - 1, 0)]
        pos = np.searchsorted(cum, start + u * (end - start), side="right")
        pos = np.clip(pos, lo, np.maximum(hi - 1, lo))
        return np.where(ok, self.A.indices[np.minimum(pos, self.A.indices.size - 1)], parents)

    def _next_anchors(self, m):
        while self._queue.size < m:  # a fresh random order per pass over the edges
            self._queue = np.concatenate([self._queue,
                                          self._order_rng.permutation(self.n_anchors)])
        take, self._queue = self._queue[:m], self._queue[m:]
        return self.anchors[take]

    def sample_patches(self, n_samples: int) -> tuple[np.ndarray, np.ndarray]:
        """The next ``n_samples`` anchored states and their vectorized patches (row-major,
        k²)."""
        x = np.empty((n_samples, self.k), dtype=np.int64)
        x[:, [0, self.anchor_child]] = self._next_anchors(n_samples)
        u = self.rng.random((n_samples, self.k))
        for p, c, table in self._edges:  # parents before children
            x[:, c] = self._draw(table, x[:, p], u[:, c])
        return x, patches_of(self._table(), x)


DENSE_LOOKUP_NODES = 2048  # up to here patches are read from a dense copy (32 MB at most)


def lookup_table(A: sp.csr_matrix):
    """What :func:`patches_of` reads: a dense copy of A for networks of up to
    ``DENSE_LOOKUP_NODES`` nodes (one fancy-index per patch entry, much faster than sparse
    lookups), else A."""
    return A.toarray() if A.shape[0] <= DENSE_LOOKUP_NODES else A


def patches_of(A, states: np.ndarray) -> np.ndarray:
    """Vectorized patches (row-major k²) of many states at once: A[x_a, x_b] for all a, b.
    ``A`` is a sparse adjacency or a dense one (:func:`lookup_table`)."""
    k = states.shape[1]
    rows = np.repeat(states, k, axis=1).ravel()
    cols = np.tile(states, (1, k)).ravel()
    if isinstance(A, np.ndarray):
        return A[rows, cols].reshape(states.shape[0], k * k)
    return np.asarray(A[rows, cols]).reshape(states.shape[0], k * k)






def corrupt_network(A, fraction: float, mode: str = "add", random_state=None):
    """A symmetric simple graph with ``fraction``·|E| random edges added (``mode="add"``) or
    removed (``"remove"``), for the denoising task. Returns (noisy adjacency, changed pairs
    (m, 2) with i < j)."""
    if mode not in ("add", "remove"):
        raise ValueError(f"mode must be 'add' or 'remove', got {mode!r}")
    if not 0 < fraction < 1:
        raise ValueError(f"fraction must be in (0, 1), got {fraction}")
    rng = np.random.default_rng(random_state)
    B = (as_adjacency(A) > 0).astype(float)
    B = B.maximum(B.T).tocsr()
    B.setdiag(0)
    B.eliminate_zeros()
    n = B.shape[0]
    iu, ju = sp.triu(B, k=1).nonzero()
    m = max(1, int(round(fraction * iu.size)))
    if mode == "remove":
        pick = rng.choice(iu.size, m, replace=False)
        pairs = np.column_stack([iu[pick], ju[pick]])
        vals = -1.0
    else:
        available = n * (n - 1) // 2 - iu.size
        if m > available:
            raise ValueError(f"cannot add {m} edges: the graph has only {available} non-edges")
        existing = set(zip(iu.tolist(), ju.tolist()))
        pairs = []
        if 4 * m > available:  # dense graph: rejection would stall; draw from the non-edges
            full = np.ones((n, n), dtype=bool)
            full[iu, ju] = False
            ci, cj = np.nonzero(np.triu(full, k=1))
            pick = rng.choice(ci.size, m, replace=False)
            pairs = list(zip(ci[pick].tolist(), cj[pick].tolist()))
        while len(pairs) < m:  # rejection sampling of non-edges (sparse graphs: fast)
            i, j = sorted(rng.choice(n, 2, replace=False).tolist())
            if (i, j) not in existing:
                existing.add((i, j))
                pairs.append((i, j))
        pairs = np.array(pairs)
        vals = 1.0
    D = sp.coo_matrix((np.full(len(pairs), vals), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    noisy = (B + D + D.T).tocsr()
    noisy.eliminate_zeros()
    return noisy, pairs


