"""Parameter objects: the nested settings an estimator takes as one parameter."""

from __future__ import annotations

from sklearn.base import BaseEstimator

__all__ = ["Settings"]


class Settings(BaseEstimator):
    """A group of an estimator's settings held as one parameter (``coder=CodeSolver(…)``).

    ``get_params``/``set_params`` reach the fields from the estimator (``coder__max_iter``),
    so ``clone`` and ``GridSearchCV`` handle them; ``_parameter_constraints`` validates them.
    """

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
