"""Dictionary update rules, each written as explicit state plus a step.

``rule.init(components) -> state`` and ``rule.update(state, components, grad, n_batch) ->
(components, state)``. The estimator keeps the state in its fitted attributes, so a pickled
estimator resumes exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .constraints import project_dictionary_box

__all__ = ["RobbinsMonroSchedule", "ProjectedSGDUpdate", "SGDState"]


@dataclass(frozen=True)
class RobbinsMonroSchedule:
    """η_t = a / (τt + b), written in samples seen: η = a / (n_seen + b) (Section VIII-C).

    With a constant batch size τ, n_seen = τt after t mini-batches, which is the paper's
    schedule; with a ragged last batch it counts the samples actually seen. The canonical
    a = b = 2·10⁴ give η ≈ 1 at the start. Σ η = ∞ and Σ η² < ∞ (condition (8)).
    """

    a: float = 2e4
    b: float = 2e4

    def __call__(self, n_seen: int) -> float:
        return self.a / (n_seen + self.b)


@dataclass
class SGDState:
    """State of :class:`ProjectedSGDUpdate`: mini-batch steps taken and samples seen."""

    n_steps: int = 0
    n_samples_seen: int = 0
    last_step_size: float = field(default=float("nan"))


@dataclass(frozen=True)
class ProjectedSGDUpdate:
    """W_t = Π_C(W_{t−1} − η_t G_t), eq. (11), for the mini-batch gradient G_t = Σ_i r_i h_iᵀ.

    Parameters
    ----------
    schedule : RobbinsMonroSchedule
    reduce : {"sum", "mean"}
        Sum the per-sample gradients of the mini-batch (default; the schedule a/(τt + b) is in
        samples, so summing keeps the dynamics insensitive to τ, spec §2.2) or average them.
    eps : float
        Row-sum floor ε of C.
    """

    schedule: RobbinsMonroSchedule = RobbinsMonroSchedule()
    reduce: str = "sum"
    eps: float = 1e-8

    def init(self, components: np.ndarray) -> SGDState:
        return SGDState()

    def update(
        self, state: SGDState, components: np.ndarray, grad: np.ndarray, n_batch: int
    ) -> tuple[np.ndarray, SGDState]:
        n_seen = state.n_samples_seen + n_batch
        eta = self.schedule(n_seen)
        scale = eta / n_batch if self.reduce == "mean" else eta
        new = project_dictionary_box(components - scale * grad, self.eps)
        return new, SGDState(state.n_steps + 1, n_seen, eta)
