"""NetworkDictionaryLearning: dictionaries of motif patches learned from MCMC samples (Lyu,
Needell and Balzano 2020, "Online Matrix Factorization for Markovian Data and Applications to
Network Dictionary Learning", JMLR 21; arXiv:1911.01931)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._batches import Segment
from ..graphs import (
    EdgeCoverSampler,
    GlauberChain,
    ParallelGlauberChains,
    ParallelPivotChains,
    PivotChain,
    as_adjacency,
    motif_tree,
    path_motif,
    star_motif,
)
from ._base import one_blas_thread, transactional
from ._online_dictionary_learning import OnlineDictionaryLearning, nonneg_lasso

__all__ = ["NetworkDictionaryLearning"]


class NetworkDictionaryLearning(BaseEstimator):
    """Learn r network dictionary patches (k × k) of a network by online NMF on the F-patches
    of an MCMC chain of motif homomorphisms (pivot or Glauber), and reconstruct the network
    from them.

    Parameters
    ----------
    n_components : int, default=25
        r, the number of patches.
    motif_size : int, default=21
        k, the number of motif nodes.
    motif : {"path", "star"} or ndarray (k, k), default="path"
        A directed path of k nodes (the authors' k-chain), a star, or any motif matrix.
    n_iter : int, default=100
        Online steps when learning.
    batch_size : int, default=100
        N, consecutive chain states per step (eq. (45)).
    alpha : float, default=1.0
        λ of the code problem, in the paper's convention ‖X − HD‖² + λ‖H‖₁.
    chain : {"auto", "glauber", "pivot"}, default="auto"
        The MCMC sampler of homomorphisms that the patches are learned from: the Glauber chain
        (the paper's), or the exact pivot chain (motifs that are directed trees rooted at node
        0: paths and stars). "auto" is the pivot chain for such motifs and Glauber otherwise:
        the pivot redraws the whole map at every step, so its patches are nearly independent,
        and the dictionary learned from them denoises better for a somewhat longer fit. The
        reproduction experiments pass "glauber".
    lazy : bool, default=False
        Pivot chain only: stay put with probability ½ (aperiodic on bipartite graphs).
    n_chains : int, default=1
        Independent chains, each started from its own seed; every step pools ``batch_size``
        consecutive states of each (the pooled stream is a Markov chain on the product space,
        which the theory covers). With dask installed the chains advance as dask tasks on the
        active scheduler (threads by default, or a ``distributed.Client``); the result does
        not depend on the scheduler. 1 is the paper's single chain.
    random_state : int or None

    Attributes
    ----------
    components_ : ndarray (n_components, k·k)
    patches_ : ndarray (n_components, k, k)
    importance_ : ndarray (n_components,)
        Share of the total code mass of each patch (the paper's importance); patches are not
        reordered — ``np.argsort(-importance_)`` gives the display order.
    scale_ : float
        max(A): the network is learned as A/max(A).
    """

    auto_patches_per_node = 256  # chains: reconstruct(n_steps="auto") is max(50000, 256·n)
    auto_cover_passes = 1  # edge cover: max(50000, passes · edges)

    def auto_patches(self, n_nodes: int, n_edges: int | None = None) -> int:
        """The patches of ``reconstruct(n_steps="auto")``: with the edge-cover sampler
        (``n_edges`` anchors, one per edge), ``auto_cover_passes`` passes over the edges, at
        least the paper's 50000; with a chain, max(50000, 256·n) for ``n_nodes``."""
        if n_edges is not None:
            return max(50_000, self.auto_cover_passes * n_edges)
        return max(50_000, self.auto_patches_per_node * n_nodes)

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "motif_size": [Interval(Integral, 2, None, closed="left")],
        "motif": [StrOptions({"path", "star"}), "array-like"],
        "n_iter": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "chain": [StrOptions({"auto", "glauber", "pivot"})],
        "lazy": ["boolean"],
        "n_chains": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, n_components=25, motif_size=21, *, motif="path", n_iter=100,
                 batch_size=100, alpha=1.0, chain="auto", lazy=False, n_chains=1,
                 random_state=None):
        self.n_components = n_components
        self.motif_size = motif_size
        self.motif = motif
        self.n_iter = n_iter
        self.batch_size = batch_size
        self.alpha = alpha
        self.chain = chain
        self.lazy = lazy
        self.n_chains = n_chains
        self.random_state = random_state

    def _chain(self, A, F, seed):
        chain = self.chain
        if chain == "auto":
            chain = "pivot" if _is_rooted_tree(F) else "glauber"
        return self._sampler(A, chain, 1, seed, F)

    def _sampler(self, A, chain, n_chains, seed, F=None):
        """One chain, or ``n_chains`` advanced together, of the named sampler."""
        F = self.motif_ if F is None else F
        if chain == "glauber":
            return (GlauberChain(A, F, random_state=seed) if n_chains == 1 else
                    ParallelGlauberChains(A, F, n_chains, random_state=seed))
        if chain == "pivot":
            return (PivotChain(A, F, lazy=self.lazy, random_state=seed) if n_chains == 1 else
                    ParallelPivotChains(A, F, n_chains, lazy=self.lazy, random_state=seed))
        raise ValueError(f"unknown chain {chain!r}; use 'glauber' or 'pivot'")

    def _reconstruction_sampler(self, A, chain, n_chains, seed, omit_motif_edges, n_steps):
        """The reconstruction's sampler on the normalized network A and its patch count
        (``n_steps``, or the "auto" count of that sampler)."""
        if chain is None:
            chain = _default_reconstruction_sampler(self.motif_, omit_motif_edges)
        if chain not in ("cover", "pivot", "glauber"):
            raise ValueError(f"unknown chain {chain!r}; use 'cover', 'glauber' or 'pivot'")
        if chain == "cover":
            sampler = EdgeCoverSampler(A, self.motif_, random_state=seed)
            auto = self.auto_patches(A.shape[0], sampler.n_anchors)
        else:
            sampler = self._sampler(A, chain, 64 if n_chains is None else n_chains, seed)
            auto = self.auto_patches(A.shape[0])
        return sampler, auto if isinstance(n_steps, str) else n_steps

    def _motif(self):
        if isinstance(self.motif, str):
            if self.motif == "path":
                return path_motif(self.motif_size - 1, 0)
            if self.motif == "star":
                return star_motif(self.motif_size)
            raise ValueError(f"unknown motif {self.motif!r}; use 'path', 'star' or a matrix")
        F = np.asarray(self.motif, dtype=float)
        if F.ndim != 2 or F.shape[0] != F.shape[1] or F.min() < 0:
            raise ValueError("a motif matrix must be square and nonnegative")
        return F

    def _normalized(self, G):
        A = as_adjacency(G)
        if A.shape[0] == 0 or A.nnz == 0:
            raise ValueError("the network has no edges")
        return A, float(A.data.max())

    @transactional
    @one_blas_thread
    def fit(self, G, y=None):
        """Learn the patches from ``n_iter × batch_size`` states of the chain(s) on G."""
        self._validate_params()
        A, top = self._normalized(G)
        F = self._motif()
        rng = np.random.default_rng(self.random_state)
        chains = [self._chain(A / top, F, rng.integers(2**31))]
        odl = OnlineDictionaryLearning(self.n_components, alpha=self.alpha,
                                       batch_size=self.batch_size * self.n_chains,
                                       random_state=int(rng.integers(2**31)))
        self.reconstruct_seed_ = int(rng.integers(2**31))
        chains += [self._chain(A / top, F, rng.integers(2**31)) for _ in
                   range(self.n_chains - 1)]
        # the stream is the chain(s) itself: its mini-batches go through the learner's loop
        odl._pass(_chain_batches(chains, self.n_iter, self.batch_size), odl.batch_size)
        odl.n_iter_ = self.n_iter  # one partial_fit's worth per mini-batch of patches
        k = F.shape[0]
        self.motif_ = F
        self.scale_ = top
        self.dictionary_learner_ = odl
        self.components_ = odl.components_
        self.patches_ = odl.components_.reshape(-1, k, k)
        self.importance_ = odl.code_sums_ / max(odl.code_sums_.sum(), 1e-300)
        return self

    def _coded_patches(self, X, alpha: float, code_tol: float) -> np.ndarray:
        """Vectorized patches X (n × k²) as the reconstruction sees them: coded with the
        learned dictionary (min ‖p − hD‖² + α‖h‖₁ over h ≥ 0, to ``code_tol``) and mapped
        back, hD."""
        H = nonneg_lasso(self.components_, X, alpha, tol=code_tol, max_iter=1000)
        return H @ self.components_

    @one_blas_thread
    def reconstruct(self, G, n_steps="auto", alpha=0.0, chunk=1000, code_tol=1e-3,
                    random_state=None, omit_motif_edges=False, n_chains=None, chain=None):
        """Reconstruct G: draw ``n_steps`` fresh patches (``chain``), code each with the learned
        dictionary (min ‖p − hD‖² + α‖h‖₁ over h ≥ 0; α = 0 is nonnegative least squares, the
        authors use 0.2 for the WAN), and average every entry over the patches that cover it
        (the reconstruction of Lyu, Needell and Balzano 2020). Returns a weighted adjacency
        (CSR) in the units of G; entries no patch covered are 0.

        The entry sums and counts are accumulated chunk by chunk (``chunk`` patches at a
        time), so memory is O(entries visited + chunk·k²), not O(n_steps·k²).

        Parameters
        ----------
        n_steps : int or "auto", default="auto"
            Patches in all. With the edge-cover sampler, "auto" is one pass over the edges
            (``auto_cover_passes``), at least the paper's 50000: every edge is then in a patch,
            and an edge's score is a mean over its patches, so it does not depend on how often
            it was visited. With a chain, "auto" is max(50000, 256·n) for n nodes
            (``auto_patches_per_node``): a chain covers a pair only by chance, so the patches
            needed grow with the network. 50000 is the paper's count, which its 211-node WAN
            still gets.
        code_tol : float, default=1e-3
            Gradient-mapping tolerance of each code (relative to max(1, ‖patch‖)). The default
            scores edges as tighter tolerances do, in less time.
        omit_motif_edges : bool, default=False
            Leave out of the averages the patch entries of the motif's own edges. Along a
            homomorphism those entries are edges by construction, so they carry no evidence
            about the pair; denoising (ranking a noisy network's edges) turns this on, as the
            NDL authors' code does for that task.
        random_state : int or None
            Seeds the reconstruction chain; None draws it from the fitted model's
            ``random_state`` stream, distinct from the training chain's seed (a replay of
            the training chain would reconstruct only what was learned from).
        n_chains : int or None
            Independent chains advanced together (:class:`ParallelPivotChains`,
            :class:`ParallelGlauberChains`), ``n_steps`` patches in all; None is 64. 1 is the
            paper's single chain. The edge-cover sampler has no chains and ignores it.
        chain : {"cover", "pivot", "glauber"} or None
            The sampler of the reconstruction. None is "cover" when the motif is a directed
            tree rooted at node 0 (paths and stars), "pivot" for such a motif with
            ``omit_motif_edges`` (denoising scores an edge only where a patch holds it off the
            motif's edges, which anchoring the motif on it does not give), else the Glauber
            chain. "cover" (:class:`~onlinemf.graphs.EdgeCoverSampler`) anchors the motif's
            first edge on every edge of the network in turn and draws the rest of the
            homomorphism from its exact conditional, so every edge is scored after one pass;
            a chain, pivot or
            Glauber, visits an edge in proportion to the homomorphisms through it, which on a
            heavy-tailed network leaves edges unvisited after many more patches. "pivot" with
            64 chains is the authors' code (Glauber to learn, pivot to reconstruct); the paper
            (Glauber only) is ``chain="glauber", n_chains=1``, which the reproduction
            experiments pass.
        """
        check_is_fitted(self, "components_")
        _check_reconstruct_args(n_steps, chunk, alpha, code_tol, n_chains)
        A, top = self._normalized(G)
        n, k = A.shape[0], self.motif_.shape[0]
        seed = self.reconstruct_seed_ if random_state is None else random_state
        seed = np.random.default_rng(seed).integers(2**31)
        chain, n_steps = self._reconstruction_sampler(A / top, chain, n_chains, seed,
                                                      omit_motif_edges, n_steps)
        a_idx, b_idx = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
        keep = np.ones(k * k, dtype=bool)
        if omit_motif_edges:
            keep = ~((self.motif_ + self.motif_.T) > 0).ravel()
        a_idx, b_idx = a_idx.ravel()[keep], b_idx.ravel()[keep]
        acc = _EntrySums(n)
        for start in range(0, n_steps, chunk):
            states, X = chain.sample_patches(min(chunk, n_steps - start))
            acc.add(states[:, a_idx].ravel(), states[:, b_idx].ravel(),
                    self._coded_patches(X, alpha, code_tol)[:, keep].ravel())
        # the mean over the covering patches; a visited entry whose mean is 0 stays implicit
        total, count = acc.result()
        return sp.csr_matrix(total.multiply(count.power(-1)) * top)


def _check_reconstruct_args(n_steps, chunk, alpha, code_tol, n_chains):
    """Refuse, by name, the arguments of ``reconstruct`` that are out of range."""
    auto = isinstance(n_steps, str) and n_steps == "auto"
    if not auto and not (isinstance(n_steps, Integral) and n_steps >= 1):
        raise ValueError(f"n_steps must be a positive integer or 'auto', got {n_steps!r}")
    if not (isinstance(chunk, Integral) and chunk >= 1):
        raise ValueError(f"chunk must be a positive integer, got {chunk!r}")
    if not (isinstance(alpha, Real) and np.isfinite(alpha) and alpha >= 0):
        raise ValueError(f"alpha (the codes' l1 weight) must be a finite number >= 0, got "
                         f"{alpha!r}")
    if not (isinstance(code_tol, Real) and np.isfinite(code_tol) and code_tol > 0):
        raise ValueError(f"code_tol must be a finite number > 0, got {code_tol!r}")
    if n_chains is not None and not (isinstance(n_chains, Integral) and n_chains >= 1):
        raise ValueError(f"n_chains must be a positive integer, got {n_chains!r}")


def _default_reconstruction_sampler(F, omit_motif_edges: bool) -> str:
    """``reconstruct(chain=None)``: the edge cover for a rooted tree motif; pivot chains for
    one when the motif's own edges are left out (an edge is then scored only where a patch
    holds it off the motif's edges, which anchoring the motif on it does not give); the
    Glauber chain for any other motif."""
    if not _is_rooted_tree(F):
        return "glauber"
    return "pivot" if omit_motif_edges else "cover"


def _is_rooted_tree(F) -> bool:
    """Whether the pivot chain can sample the motif (a directed tree rooted at node 0)."""
    try:
        motif_tree(F)
    except ValueError:
        return False
    return True


class _EntrySums:
    """Sums and counts of values landing on the entries (r, c) of an n×n matrix, chunk by
    chunk. Up to ``dense_max`` entries (n ≤ 2048: 32 MB an array) they go into two dense
    arrays by ``np.bincount`` (no sort). Above, the chunks' (entry, value) pairs are buffered
    and folded into sorted unique entries with their sums and counts whenever the buffer
    outgrows ``merge_min`` and a quarter of the entries held, so memory is O(entries visited
    + merge_min), not n² nor the number of chunks; each pair is sorted once, with its
    buffer, and the held entries are only copied."""

    dense_max = 2048 * 2048
    merge_min = 1 << 21

    def __init__(self, n: int, dense: bool | None = None):
        self.n = n
        self.dense = n * n <= self.dense_max if dense is None else dense
        if self.dense:
            self.total, self.count = np.zeros(n * n), np.zeros(n * n)
        else:
            self.keys = np.empty(0, dtype=np.int64)
            self.total, self.count = np.empty(0), np.empty(0)
            self._buffer: list[tuple[np.ndarray, np.ndarray]] = []
            self._buffered = 0

    def add(self, r, c, values):
        n = self.n
        flat = r.astype(np.int64) * n + c
        if self.dense:
            self.total += np.bincount(flat, weights=values, minlength=n * n)
            self.count += np.bincount(flat, minlength=n * n)
            return
        self._buffer.append((flat, np.asarray(values, dtype=float)))
        self._buffered += flat.size
        if self._buffered >= max(self.merge_min, self.keys.size // 4):
            self._merge()

    def _merge(self):
        """Fold the buffer into the sorted unique entries: sort and reduce the buffer alone,
        then add its entries already held and insert the new ones (O(buffer log buffer +
        held), so the held entries are never sorted again)."""
        if not self._buffer:
            return
        keys = np.concatenate([f for f, _ in self._buffer])
        vals = np.concatenate([v for _, v in self._buffer])
        order = _sort_order(keys, self.n)
        keys = keys[order]
        first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        keys, vals = keys[first], np.add.reduceat(vals[order], first)
        cnts = np.diff(np.r_[first, order.size]).astype(float)
        pos = np.searchsorted(self.keys, keys)
        held = pos < self.keys.size
        held[held] = self.keys[pos[held]] == keys[held]
        self.total[pos[held]] += vals[held]
        self.count[pos[held]] += cnts[held]
        new, at = ~held, pos[~held]
        self.keys = np.insert(self.keys, at, keys[new])
        self.total = np.insert(self.total, at, vals[new])
        self.count = np.insert(self.count, at, cnts[new])
        self._buffer, self._buffered = [], 0

    @property
    def stored(self) -> int:
        """Entries held now (merged and buffered): the accumulation's memory in pairs."""
        if self.dense:
            return self.total.size
        return self.keys.size + self._buffered

    def result(self):
        """(sums, counts) as CSR matrices."""
        n = self.n
        if self.dense:
            return (sp.csr_matrix(self.total.reshape(n, n)),
                    sp.csr_matrix(self.count.reshape(n, n)))
        self._merge()
        r, c = np.divmod(self.keys, n)
        return (sp.csr_matrix((self.total, (r, c)), shape=(n, n)),
                sp.csr_matrix((self.count, (r, c)), shape=(n, n)))


def _sort_order(keys: np.ndarray, n: int) -> np.ndarray:
    """The order sorting the entry keys r·n + c: for n < 2¹⁶, two stable sorts of 16-bit
    integers (numpy sorts those by radix, in linear time: columns, then rows), else one
    comparison sort."""
    if n >= 1 << 16:
        return np.argsort(keys)
    rows, cols = np.divmod(keys, n)
    order = np.argsort(cols.astype(np.uint16), kind="stable")
    return order[np.argsort(rows.astype(np.uint16)[order], kind="stable")]


def _chain_batches(chains, n_iter: int, n_states: int):
    """The batch source of ``fit``: ``n_iter`` mini-batches, each the patches of ``n_states``
    further states of every chain (stacked), advanced only when the loop asks for them;
    each is validated by the learner as a fresh piece (the first starts it)."""
    for _ in range(n_iter):
        chains, parts = _advance_chains(chains, n_states)
        X = np.vstack(parts) if len(parts) > 1 else parts[0]
        yield Segment(X, None, np.arange(X.shape[0]), fresh=True)


def _advance(chain, n_states):
    """``n_states`` more states of ``chain``: (the advanced chain, their patches)."""
    _, X = chain.sample_patches(n_states)
    return chain, X


def _advance_chains(chains, n_states):
    """Advance every chain by ``n_states`` states; several chains run as dask tasks when dask
    is installed (each task returns its advanced chain, so any scheduler gives the same)."""
    if len(chains) > 1:
        try:
            import dask
        except ImportError:
            dask = None
        if dask is not None:
            done = dask.compute(*[dask.delayed(_advance)(c, n_states) for c in chains])
            return [c for c, _ in done], [X for _, X in done]
    done = [_advance(c, n_states) for c in chains]
    return [c for c, _ in done], [X for _, X in done]
