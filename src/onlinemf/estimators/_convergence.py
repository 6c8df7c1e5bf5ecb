"""When ``fit`` stops: a smoothed objective over the mini-batches and the rule that reads it.

``fit`` runs shuffled passes of the online steps until the smoothed objective stops improving
or ``max_iter`` passes are done, as scikit-learn's ``MiniBatchNMF`` and
``MiniBatchDictionaryLearning`` do. The objective of a mini-batch is the one the online
algorithm already computes: each sample's loss at its codes under the dictionary before the
step (the papers' online objective), so watching it costs nothing.
"""

from __future__ import annotations

import time
import warnings

from sklearn.exceptions import ConvergenceWarning

__all__ = ["ConvergenceMonitor"]


class ConvergenceMonitor:
    """The stopping rule of ``fit``.

    After each mini-batch of b of the n rows, the smoothed objective is the exponentially
    weighted average s ← (1 − w)·s + w·f_batch with w = min(1, b/n), so that s averages about
    the last pass. A mini-batch *improves* when s falls below best·(1 − tol), best being the
    value of the last improvement (then best ← s); ``fit`` stops after ``max_no_improvement``
    consecutive mini-batches without one, that is when the smoothed objective has fallen by
    less than a fraction ``tol`` over that many mini-batches. ``max_no_improvement=None``
    turns the rule off: ``fit`` then runs exactly ``max_iter`` passes.

    Parameters
    ----------
    n_samples : int
        Rows of the data ``fit`` passes over.
    tol : float
        Relative decrease of the smoothed objective that counts as an improvement.
    max_no_improvement : int or None
        Consecutive mini-batches without improvement that stop ``fit``.
    max_iter : int
        The cap on passes (for the warning and the progress lines).
    verbose : int
        0 silent; 1 a line per pass with the smoothed objective; 2 also a tqdm bar.
    name : str
        The estimator's name, for the messages.
    """

    def __init__(self, n_samples: int, tol: float, max_no_improvement: int | None,
                 max_iter: int, verbose: int = 0, name: str = "fit"):
        self.n_samples = max(int(n_samples), 1)
        self.tol = float(tol)
        self.max_no_improvement = max_no_improvement
        self.max_iter = max_iter
        self.verbose = verbose
        self.name = name
        self.smoothed: float | None = None
        self.best: float | None = None
        self.stalled = 0
        self.converged = False
        self.n_passes = 0
        self._t0 = time.perf_counter()
        self._bar = _progress_bar(verbose, self.n_samples * max_iter, name)

    def update(self, batch_mean_loss: float, batch_rows: int) -> bool:
        """Take one mini-batch's mean online loss; True when ``fit`` should stop."""
        if self._bar is not None:
            self._bar.update(batch_rows)
        w = min(1.0, batch_rows / self.n_samples)
        f = float(batch_mean_loss)
        self.smoothed = f if self.smoothed is None else (1.0 - w) * self.smoothed + w * f
        if self.best is None or self.smoothed < self.best - self.tol * abs(self.best):
            self.best = self.smoothed
            self.stalled = 0
        else:
            self.stalled += 1
        if self.max_no_improvement is not None and self.stalled >= self.max_no_improvement:
            self.converged = True
        return self.converged

    def end_pass(self, n_iter: int) -> None:
        """Report a finished pass (``verbose``)."""
        self.n_passes = n_iter
        if self.verbose and self.smoothed is not None:
            line = (f"{self.name}: pass {n_iter}/{self.max_iter}, smoothed objective "
                    f"{self.smoothed:.6g}, {time.perf_counter() - self._t0:.1f} s")
            if self._bar is not None:
                self._bar.write(line)
            else:
                print(line, flush=True)

    def __enter__(self) -> ConvergenceMonitor:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        """Close the bar; after passes that ended normally, say why they stopped and warn
        when the cap stopped a fit whose rule was on (with the rule off, the cap is the
        requested stop). A failed fit gets neither."""
        if self._bar is not None:
            self._bar.close()
        if exc_type is None:
            self._report()

    def _report(self) -> None:
        n_iter = self.n_passes
        if self.verbose:
            why = ("converged" if self.converged
                   else f"reached max_iter={self.max_iter}")
            print(f"{self.name}: {why} after {n_iter} pass(es)", flush=True)
        if not self.converged and self.max_no_improvement is not None:
            warnings.warn(
                f"{self.name} stopped at max_iter={self.max_iter} passes before its smoothed "
                f"objective settled (tol={self.tol:g}, max_no_improvement="
                f"{self.max_no_improvement}); raise max_iter for a converged model",
                ConvergenceWarning, stacklevel=4)


def _progress_bar(verbose: int, total: int, name: str):
    if verbose < 2:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # an optional extra: the per-pass lines still print
        return None
    return tqdm(total=total, unit="sample", desc=name)
