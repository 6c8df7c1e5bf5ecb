"""Dictionary steps that minimize a running surrogate of the loss, built from statistics
accumulated over the stream (the fast default of :class:`onlinemf.OnlineNMF`; the paper's
projected SGD is :mod:`onlinemf.updates._sgd`).

* squared loss: the quadratic surrogate ½⟨DDᵀ, A⟩ − ⟨D, B⟩ of Mairal et al. (2010) with
  A = Σ w HᵀH, B = Σ w HᵀX, minimized over the box by block coordinate descent
  (:func:`bcd_dictionary`, the statistics a :class:`RunningAverage` with
  :class:`PowerWeights`);
* β-divergences: the auxiliary function of the multiplicative update (Févotte and Idier 2011)
  with its numerator and denominator accumulated over the stream (Lefèvre, Bach and Févotte
  2011), whose minimizer is their ratio.

The newest mini-batch gets the weight w_t = t^(−decay), t the mini-batches of the nominal
size seen so far (:func:`batch_weight`); decay = 1 is a running mean over the stream, smaller
values forget the early dictionaries faster. A ragged batch (the end of a ``partial_fit``
chunk) counts for its share of a nominal one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..constraints import project_dictionary_box
from ._running import PowerWeights, RunningAverage, SurrogateState
from ._surrogate import batch_terms, bcd_dictionary

__all__ = ["BCDSurrogateUpdate", "MultiplicativeSurrogateUpdate",
           "anchored_state", "batch_weight", "rescale_into_box"]

_TINY = 1e-300
#: Entries of a K × F statistic that the multiplicative step handles at once (a block of
#: features; a few such blocks stay in a core's cache)
MU_BLOCK_ENTRIES = 1 << 15
#: Statistics of at most this many entries are handled whole: they stay in the last-level
#: cache between operations, where blocks would only add their loop
MU_WHOLE_ENTRIES = 1 << 20


def _columns(a, b):
    """The columns ``b`` of a (K, F) array, or the array itself when it is one (K, 1) column
    that broadcasts over the features."""
    return a if np.shape(a)[1] == 1 else a[:, b]


def _feature_blocks(shape):
    """Column slices of a (K, F) array, each about ``MU_BLOCK_ENTRIES`` entries (one slice
    for an array of at most ``MU_WHOLE_ENTRIES``)."""
    k, f = shape
    if k * f <= MU_WHOLE_ENTRIES:
        return [slice(0, f)]
    step = max(1, MU_BLOCK_ENTRIES // max(k, 1))
    return [slice(j, min(j + step, f)) for j in range(0, f, step)]


def batch_weight(n_seen: int, n_batch: int, nominal: int, decay: float) -> float:
    """Weight of the newest mini-batch of ``n_batch`` rows once ``n_seen`` rows are seen:
    w = t^(−decay) at t = n_seen / nominal, the retention 1 − w compounded per row, so that a
    batch of b rows counts as b / nominal steps (a full batch gets exactly t^(−decay); the
    first batch, t ≤ 1, gets 1)."""
    w = min(1.0, (n_seen / nominal) ** (-decay))
    return 1.0 - (1.0 - w) ** (n_batch / nominal)


def anchored_state(rule, components: np.ndarray, counts) -> SurrogateState:
    """A surrogate rule's state that takes over a stream at ``components``: its statistics
    are seeded by the next batch's codes so that they are minimized by the current dictionary
    (the past counts as the rows already seen, weighted as such), and the step and sample
    counts carry on from ``counts`` (any state with ``n_steps`` and ``n_samples_seen``). From
    empty statistics instead, the first step would jump to that one batch's fit."""
    return SurrogateState(rule.init(components, anchored=True).stats, counts.n_steps,
                          counts.n_samples_seen)


def rescale_into_box(D: np.ndarray, stats: RunningAverage, in_place: bool = False
                     ) -> tuple[np.ndarray, RunningAverage]:
    """Each atom d_j with max d_j = m_j > 1 divided by m_j, and the statistics changed with
    it (A_jk ← m_j m_k A_jk, B_j ← m_j B_j): the surrogate ½tr(DᵀAD) − tr(DᵀB) is the same
    function of the product of codes and dictionary, the atom is back in the box [0, 1], and
    the next codes take up the scale. The box only fixes the scale that codes and atoms
    trade; clipping an atom at 1 instead distorts its shape until the codes have grown by
    the slow drift of the statistics.

    ``in_place``: D and the statistics' B are the caller's own fresh arrays (no other state
    holds them), scaled where they are: the same bits without two arrays of D's size."""
    m = np.maximum(D.max(axis=1, initial=0.0), 1.0)
    if np.all(m == 1.0):
        return D, stats
    A, B, c = stats.sums
    if not (in_place and D.dtype == B.dtype == np.result_type(D, B, m)):
        return D / m[:, None], stats.with_sums(A * np.outer(m, m), B * m[:, None], c)
    np.divide(D, m[:, None], out=D)
    B.flags.writeable = True  # frozen by its RunningAverage, which only this call holds
    np.multiply(B, m[:, None], out=B)
    return D, stats.with_sums(A * np.outer(m, m), B, c)


@dataclass(frozen=True)
class BCDSurrogateUpdate:
    """Squared loss: accumulate (A, B), take ``max_sweeps`` BCD sweeps over the nonnegative
    atoms, scale the atoms into the box 0 ≤ d ≤ 1 with the statistics
    (:func:`rescale_into_box`), then project onto C (each feature's entries summing to ≥ ε). Missing
    entries are filled with the current model (the EM majorizer of the masked squared loss).

    One sweep a step by default: the statistics move little between steps, so the dictionary
    needs no exact minimizer of each surrogate."""

    decay: float = 0.3
    eps: float = 1e-8
    max_sweeps: int = 1
    nominal_batch: int = 1

    def init(self, components: np.ndarray, anchored: bool = False) -> SurrogateState:
        """Empty statistics, or (``anchored``) statistics that the first batch fills at the
        current dictionary's fixed point (see :func:`anchored_state`)."""
        k, f = components.shape
        return SurrogateState(None if anchored else RunningAverage.zeros(
            ((k, k), (k, f), ()), PowerWeights(self.decay)))

    def update(self, state: SurrogateState, components, H, X, mask=None):
        """One step on the batch X (b, F) (dense with its ``mask``, or CSR rows) with its
        codes H."""
        return self.update_from_sums(state, components, self.batch_sums(components, H, X, mask),
                                     X.shape[0])

    @staticmethod
    def batch_sums(components, H, X, mask=None) -> tuple:
        """(HᵀH, HᵀX, ‖X‖²) of a batch, missing entries filled with the current model: the
        statistics a step adds, which sum over the parts of a batch split by rows."""
        if mask is not None:
            X = np.where(mask, X, H @ components)
        return batch_terms(H, X, 0.0)

    def update_from_sums(self, state: SurrogateState, components, sums: tuple, b: int):
        """One step on a batch of ``b`` rows given its :meth:`batch_sums` (summed over the
        parts of the batch when it was coded in parts). The sums are the caller's own
        arrays, which the step may overwrite (HᵀX is scaled in place into the average)."""
        HtH = sums[0]
        w = batch_weight(state.n_samples_seen + b, b, self.nominal_batch, self.decay)
        past = state.stats
        if past is None:  # anchored: A = HᵀH/b and B = A·D, whose minimizer is D itself
            A = HtH / b
            past = RunningAverage((A, A @ components.astype(float, copy=False), 0.0),
                                  PowerWeights(self.decay))
        stats = past.add(*sums, n_rows=b, weight=w, scratch=(1,))
        # each atom nonnegative (exact per-atom minimization), then scaled into the box with
        # the statistics (see ``rescale_into_box``), then the whole dictionary onto C: the
        # floor ε on the sum over atoms of each feature couples the atoms, and it only acts
        # where every atom is zero at a feature
        D, _ = bcd_dictionary(components, stats.sums[0], stats.sums[1], _nonnegative,
                              max_sweeps=self.max_sweeps, separable=True)
        # bcd_dictionary's D and the blend's statistics are new arrays of this step's
        D, stats = rescale_into_box(D, stats, in_place=True)
        D = project_dictionary_box(D, self.eps)
        return (D.astype(components.dtype, copy=False),
                SurrogateState(stats, state.n_steps + 1, state.n_samples_seen + b))


def _nonnegative(d):
    return np.maximum(d, 0.0)


@dataclass(frozen=True)
class MultiplicativeSurrogateUpdate:
    """β-divergences: num ← (1 − w)num + w D^{1/γ} ⊙ HᵀP / b, den ← (1 − w)den + w HᵀQ / b,
    D ← (num / den)^γ, with (HᵀP, HᵀQ) from :meth:`onlinemf.losses.Loss.mu_products`. The
    statistics (num, den) are a :class:`RunningAverage` in the γ-linearized units.

    The box keeps atoms at most 1: an atom whose largest entry c exceeds 1 is divided by c and
    its statistics rescaled so that the ratio follows (the codes absorb the factor, as they
    would for the same atom found directly). An atom no code uses (den = 0) stays as it is.
    """

    gamma: float = 1.0
    decay: float = 0.3
    eps: float = 1e-8
    nominal_batch: int = 1

    def init(self, components: np.ndarray, anchored: bool = False) -> SurrogateState:
        """Empty statistics, or (``anchored``) statistics that the first batch fills at the
        current dictionary's fixed point (see :func:`anchored_state`)."""
        if anchored:
            return SurrogateState(None)
        # den starts as one zero column: it broadcasts to (K, F) with the first batch's HᵀQ,
        # and stays a column where HᵀQ is one (KL over sparse rows); num takes the
        # dictionary's layout (see ``update``)
        return SurrogateState(RunningAverage(
            (np.zeros_like(components, dtype=float), np.zeros((components.shape[0], 1))),
            self._weights()))

    def _weights(self) -> PowerWeights:
        return PowerWeights(self.decay, scale_first=True)

    def update(self, state: SurrogateState, components, HtP, HtQ, n_batch: int):
        """One step on a batch of ``n_batch`` rows whose multiplicative-update products are
        (HᵀP, HᵀQ) (K, F), or HᵀQ (K, 1).

        Every operation but the atoms' rescaling acts feature by feature, so the step runs a
        block of features at a time (``MU_BLOCK_ENTRIES``): the blend, the ratio and the
        projection of a block stay in cache, and each K × F array is read from memory about
        once instead of once per operation. The numbers are those of the whole arrays."""
        g = self.gamma
        w = batch_weight(state.n_samples_seen + n_batch, n_batch, self.nominal_batch,
                         self.decay)
        Dg = components if g == 1.0 else components ** (1.0 / g)
        st = state.stats
        if st is None:  # anchored: den = HᵀQ/b and num = D^(1/γ) ⊙ den, whose ratio is D
            den0 = HtQ / n_batch
            st = RunningAverage((Dg * den0, den0), self._weights())
        num0, den0 = st.sums
        # one (K, 1) denominator for every feature (KL over sparse rows): blended once
        column = np.shape(HtQ)[1] == 1 and np.shape(den0)[1] == 1
        if column:
            den = st.with_sums(den0).add(HtQ, n_rows=n_batch, weight=w).sums[0]
        shape = np.broadcast_shapes(num0.shape, np.shape(HtP), Dg.shape)
        # in the dictionary's layout (feature-major over CSR rows, as HᵀP comes): elementwise
        # passes over arrays of one layout read memory in order
        order = ("F" if components.flags.f_contiguous and not components.flags.c_contiguous
                 else "C")
        # each statistic in the dtype of its own blend
        num = np.empty(shape, dtype=np.result_type(num0, Dg, HtP), order=order)
        if not column:
            den = np.empty(shape, dtype=np.result_type(den0, HtQ), order=order)
        D = np.empty(shape, dtype=np.result_type(num, den, Dg), order=order)
        c = np.zeros(shape[0], dtype=D.dtype)
        for b in _feature_blocks(shape):
            # D^(1/γ) ⊙ HᵀP is the block's own temporary: the running average scales it in
            # place
            terms = (np.multiply(Dg[:, b], HtP[:, b]),) + (
                () if column else (_columns(HtQ, b),))
            blended = st.with_sums(num0[:, b], *(() if column else (_columns(den0, b),))).add(
                *terms, n_rows=n_batch, weight=w, scratch=(0,))
            num[:, b] = blended.sums[0]
            if column:
                den_b = den
            else:
                den_b = den[:, b]
                den_b[...] = blended.sums[1]
            # num / den where a code uses the atom's entry, the entry itself elsewhere
            used = den_b > _TINY
            R = D[:, b]
            np.divide(num[:, b], den_b, out=R, where=used)
            if not used.all():
                np.copyto(R, Dg[:, b], where=~used)
            if g != 1.0:
                np.power(R, g, out=R)
            np.maximum(c, R.max(axis=1), out=c)
        big = c > 1.0
        rescale = bool(big.any())
        s = np.where(big, c, 1.0)[:, None]
        for b in _feature_blocks(shape):
            if rescale:  # the other atoms are divided by exactly 1, which changes no bit
                D[:, b] /= s
            project_dictionary_box(D[:, b], self.eps, out=D[:, b])
        if rescale:
            den = den * s
            if g != 1.0:
                num = num * s ** (1.0 - 1.0 / g)
        # the counts of the blend (every block's are the same), the whole statistics
        stats = blended.with_sums(num, den)
        return D.astype(components.dtype, copy=False), SurrogateState(
            stats, state.n_steps + 1, state.n_samples_seen + n_batch)
