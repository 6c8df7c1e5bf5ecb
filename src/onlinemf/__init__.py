"""onlinemf: online (streaming) matrix factorization.

Orientation is scikit-learn's: ``X`` is (n_samples, n_features) and
``X ≈ transform(X) @ components_`` with ``components_`` of shape (n_components, n_features).
"""

from . import estimators
from ._version import __version__
from .coders import CodeSolver
from .estimators import *  # noqa: F403  (the public estimators)
from .problems import Problem
from .updates import SGD, Surrogate

__all__ = [*estimators.__all__, "CodeSolver", "Problem", "SGD", "Surrogate", "__version__"]
