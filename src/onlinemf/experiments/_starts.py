"""Estimators started from a given dictionary, for the reproduction's diagnoses."""

from __future__ import annotations

import numpy as np

__all__ = ["started_from"]


def started_from(estimator_cls, start):
    """A subclass of ``estimator_cls`` whose fit starts from the dictionary ``start``
    (n_components × n_features) in place of the one it draws, its update rule's state
    empty as at any start.

    The class still draws its own start (and discards it), so every later random draw of
    a fit, such as a code solver's random starts, is the one the class makes without it:
    only the start differs, and it is taken as given (not projected). It serves the
    diagnoses of OnlineRobustNMF written before that estimator took a start of its own
    (``init``, which projects it onto the atom set), whose kept results it reproduces.
    """

    class Started(estimator_cls):
        def _initialize(self, *args, **kwargs):
            super()._initialize(*args, **kwargs)
            self.components_ = np.array(start, dtype=self.components_.dtype, order="C")
            self.state_ = self._rule().init(self.components_)

    Started.__name__ = Started.__qualname__ = f"{estimator_cls.__name__}FromStart"
    return Started
