"""Running averages of sufficient statistics: one immutable value, the averaged sums (A, B, c,
...), and a weight schedule that says how much the newest mini-batch counts.

Every surrogate rule of the package keeps such an average: the sample means of Zhao and Tan
(2016, arXiv:1604.02634), the t^(−β) weights of online matrix factorization (Mairal, Bach,
Ponce and Sapiro 2010; Lyu, Needell and Balzano 2020, arXiv:1911.01931), the forgetting
factor of Poisson subspace tracking (Wang and Chi 2016, arXiv:1612.02425) and the plain sums
of the SMM baseline (Zhao, Haskell and Feng 2018, arXiv:1705.10679). They differ only in the
weight of a batch, so the schedule is the one thing each rule chooses. Each schedule blends a
batch in the order of operations its rule has always used, so that the averages stay the same
numbers to the last bit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

__all__ = ["RunningAverage", "SampleMean", "PowerWeights", "CumulativeSums", "SurrogateState",
           "frozen_array"]


def frozen_array(a):
    """``a`` itself, marked read-only when it is an array: a state's arrays are replaced by
    each update, never written, and a read-only flag makes an accidental write an error
    instead of a silent change of an older state."""
    if isinstance(a, np.ndarray):
        a.flags.writeable = False
    return a


@dataclass(frozen=True)
class SampleMean:
    """Every row of the stream weighs the same, the past discounted by ``forget`` (γ) per
    batch: x ← (γM·x + Σ_batch)/(γM + b), M the past's total weight. γ = 1 is the sample
    mean over the stream; γ < 1 forgets geometrically (Wang and Chi 2016, Algorithm 3)."""

    forget: float = 1.0

    def blend(self, avg: RunningAverage, terms: tuple, n_rows: int, weight=None,
              scratch=()):
        old = avg.mass if self.forget == 1.0 else self.forget * avg.mass
        mass = old + n_rows
        return tuple((old * x + s) / mass for x, s in zip(avg.sums, terms)), mass


@dataclass(frozen=True)
class PowerWeights:
    """The newest batch weighs w_t = t^(−decay) (or the ``weight`` its rule passes):
    x ← (1 − w)x + w·Σ_batch/b. decay = 1 is the running mean over batches (Mairal et al.
    2010); smaller values forget the early batches faster.

    ``scale_first`` forms (w/b)·Σ_batch instead of (w·Σ_batch)/b: the same weight, in the
    order the multiplicative surrogate has always used (the two round differently)."""

    decay: float = 1.0
    scale_first: bool = False

    def blend(self, avg: RunningAverage, terms: tuple, n_rows: int, weight=None,
              scratch=()):
        w = (avg.t + 1) ** (-self.decay) if weight is None else weight
        new = []
        for i, (x, s) in enumerate(zip(avg.sums, terms)):
            if self.scale_first:
                part = _times(s, w / n_rows, i in scratch)
            else:
                part = _times(s, w, i in scratch)
                # in place only into an array of the quotient's own dtype
                fits = (isinstance(part, np.ndarray)
                        and np.result_type(part, n_rows) == part.dtype)
                part = np.divide(part, n_rows, out=part) if fits else part / n_rows
            new.append(_plus((1 - w) * x, part))
        return tuple(new), avg.mass + n_rows


def _times(s, c, lent: bool):
    """c·s, written into ``s`` when the caller lent it (a temporary of its own, of the
    product's dtype): the same bits without another array of the statistics' size."""
    if lent and isinstance(s, np.ndarray) and s.flags.writeable and s.dtype == np.result_type(
            s, c):
        return np.multiply(s, c, out=s)
    return c * s


def _plus(a, b):
    """a + b, written into ``a`` (a fresh product of the caller's) where it has the sum's
    shape: the same bits without a third large array."""
    if (isinstance(a, np.ndarray) and a.shape == np.broadcast_shapes(a.shape, np.shape(b))
            and a.dtype == np.result_type(a, b)):
        return np.add(a, b, out=a)
    return a + b


@dataclass(frozen=True)
class CumulativeSums:
    """Plain sums x ← x + Σ_batch; the mean is x / (rows seen) (:meth:`RunningAverage.mean`),
    as the SMM baseline keeps them (Zhao, Haskell and Feng 2018, Algorithm S-2)."""

    def blend(self, avg: RunningAverage, terms: tuple, n_rows: int, weight=None,
              scratch=()):
        return tuple(x + s for x, s in zip(avg.sums, terms)), avg.mass + n_rows


@dataclass(frozen=True)
class RunningAverage:
    """Averaged statistics as an immutable value: the sums, the batches and rows added, the
    total weight of the past and the weight schedule.

    Parameters
    ----------
    sums : tuple of ndarray or float
        The statistics (e.g. A (K, K), B (K, F) and the surrogate's constant c).
    schedule : SampleMean, PowerWeights or CumulativeSums
        How the newest batch is weighed.
    t : int
        Batches added.
    n : int
        Rows added.
    mass : float
        The past's total weight (rows for :class:`SampleMean` with γ = 1 and
        :class:`CumulativeSums`; Σγ^k·b for γ < 1).
    """

    sums: tuple
    schedule: object = SampleMean()
    t: int = 0
    n: int = 0
    mass: float = 0

    def __post_init__(self):
        for x in self.sums:
            frozen_array(x)

    @classmethod
    def zeros(cls, shapes, schedule, dtype=float) -> RunningAverage:
        """Zero statistics of the given shapes (``()`` for a scalar, kept as a float)."""
        return cls(tuple(0.0 if shape == () else np.zeros(shape, dtype) for shape in shapes),
                   schedule)

    def add(self, *terms, n_rows: int, weight=None, scratch=()) -> RunningAverage:
        """The average after one more batch of ``n_rows`` rows whose statistics sum to
        ``terms`` (in the order of ``sums``); ``weight`` overrides the schedule's w_t
        where it has one. ``scratch`` lists the positions of terms the caller lends as
        workspace (its own temporaries): a schedule may scale them in place, which saves an
        array of the statistics' size per batch (a page-faulted fresh array costs several
        times a pass over one already mapped)."""
        sums, mass = self.schedule.blend(self, terms, n_rows, weight, scratch)
        return RunningAverage(sums, self.schedule, self.t + 1, self.n + n_rows, mass)

    def with_sums(self, *sums) -> RunningAverage:
        """The same average with its statistics replaced (a rescaling that leaves the
        surrogate unchanged, for instance)."""
        return replace(self, sums=tuple(sums))

    def mean(self) -> tuple:
        """The statistics per row (for :class:`CumulativeSums`; the others are averages
        already)."""
        return tuple(x / self.mass for x in self.sums)


@dataclass(frozen=True)
class SurrogateState:
    """State of a rule built on running statistics: the statistics (a
    :class:`RunningAverage`, or None for statistics the next batch seeds) and the step and
    sample counts."""

    stats: RunningAverage | None
    n_steps: int = 0
    n_samples_seen: int = 0
    #: iterations of the last step's inner dictionary solve (0 for a rule without one)
    last_iterations: int = 0
