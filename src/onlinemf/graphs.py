"""Networks, motifs and MCMC sampling of motif homomorphisms (Lyu, Needell and Balzano; spec 004
§2.8–2.9).

A network is a weighted, possibly directed adjacency matrix A (n × n, nonnegative) with node
weights α (uniform here); a motif F is a k × k nonnegative matrix A_F. The random homomorphism
x: [k] → [n] has law π(x) ∝ Π_{i,j} A(x(i), x(j))^{A_F(i,j)} Π_i α(x(i)) (eq. (44), 0⁰ = 1), and
its F-patch is the k × k matrix A[x(a), x(b)] (eq. (42)), all k² entries.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["as_adjacency", "path_motif", "star_motif", "GlauberChain", "patch"]


def as_adjacency(G, kind: str | None = None) -> sp.csr_matrix:
    """A CSR adjacency matrix from a networkx graph (edge weights from the ``weight`` attribute),
    an edge list (m × 2 or m × 3 array: u, v[, weight]) or a dense or sparse matrix.

    A square array is read as an adjacency matrix unless ``kind="edges"``."""
    try:
        import networkx as nx
    except ImportError:  # optional extra
        nx = None
    if nx is not None and isinstance(G, nx.Graph):
        A = nx.to_scipy_sparse_array(G, nodelist=list(G.nodes()), weight="weight", format="csr")
        return sp.csr_matrix(A, dtype=float)
    if sp.issparse(G):
        A = sp.csr_matrix(G, dtype=float)
    else:
        arr = np.asarray(G, dtype=float)
        square = arr.ndim == 2 and arr.shape[0] == arr.shape[1]
        if square and kind != "edges":
            A = sp.csr_matrix(arr)
        elif arr.ndim == 2 and arr.shape[1] in (2, 3):
            u, v = arr[:, 0].astype(int), arr[:, 1].astype(int)
            w = arr[:, 2] if arr.shape[1] == 3 else np.ones(len(u))
            n = int(max(u.max(), v.max())) + 1
            A = sp.csr_matrix((w, (u, v)), shape=(n, n))
        else:
            raise ValueError("a network must be a networkx graph, an edge list (m × 2 or m × 3) "
                             f"or a square adjacency matrix; got an array of shape {arr.shape}")
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"the adjacency matrix must be square, got {A.shape}")
    if A.nnz and A.data.min() < 0:
        raise ValueError("network weights must be nonnegative")
    A.sum_duplicates()
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


class GlauberChain:
    """The Glauber chain on homomorphisms F → 𝒢 (spec 004 §2.9).

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
        self.At = self.A.T.tocsr()  # columns of A as rows
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

    def conditional(self, i: int, x: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(candidate nodes, unnormalized weights) of x(i) given the other coordinates."""
        x = self.x if x is None else x
        n = self.A.shape[0]
        w = np.ones(n)
        F = self.motif
        for j in range(self.k):
            if j == i:
                continue
            if F[j, i] > 0:  # edge j → i: A(x(j), y)
                w *= self.A[x[j]].toarray().ravel() ** F[j, i]
            if F[i, j] > 0:  # edge i → j: A(y, x(j))
                w *= self.At[x[j]].toarray().ravel() ** F[i, j]
        if F[i, i] > 0:
            w *= self.A.diagonal() ** F[i, i]
        return np.arange(n), w

    def step(self) -> np.ndarray:
        i = int(self.rng.integers(self.k))
        nodes, w = self.conditional(i)
        total = w.sum()
        if total > 0:
            self.x[i] = self.rng.choice(nodes, p=w / total)
        else:
            self.x[i] = self.rng.integers(self.A.shape[0])
        return self.x

    def sample_patches(self, n_samples: int) -> tuple[np.ndarray, np.ndarray]:
        """``n_samples`` consecutive states and their vectorized patches (row-major, k²)."""
        states = np.empty((n_samples, self.k), dtype=np.int64)
        patches = np.empty((n_samples, self.k * self.k))
        for s in range(n_samples):  # a Markov chain: each state depends on the previous one
            x = self.step()
            states[s] = x
            patches[s] = patch(self.A, x).ravel()
        return states, patches
