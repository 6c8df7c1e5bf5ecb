"""Parameter objects: the nested settings an estimator takes as one parameter."""

from __future__ import annotations

import functools

from sklearn.base import BaseEstimator

__all__ = ["Settings", "param_names"]


@functools.cache
def _names(cls) -> tuple[str, ...]:
    return tuple(BaseEstimator._get_param_names.__func__(cls))


def param_names(cls) -> list[str]:
    """``cls``'s parameter names as scikit-learn reads them from ``__init__``'s signature,
    read once per class: ``get_params`` runs on every ``partial_fit`` (a parameter may have
    changed since the last call), and a class's signature does not change between calls."""
    return list(_names(cls))


class Settings(BaseEstimator):
    """A group of an estimator's settings held as one parameter (``coder=CodeSolver(…)``).

    ``get_params``/``set_params`` reach the fields from the estimator (``coder__max_iter``),
    so ``clone`` and ``GridSearchCV`` handle them; ``_parameter_constraints`` validates them.
    """

    @classmethod
    def _get_param_names(cls):
        return param_names(cls)

    def check(self, where: str):
        """Validate the fields (``where`` names the estimator's parameter in the error);
        return self."""
        try:
            self._validate_params()
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"{where}: {exc}") from None
        self._check_more(where)
        return self

    def _check_more(self, where: str) -> None:
        """Checks across fields, for subclasses."""
