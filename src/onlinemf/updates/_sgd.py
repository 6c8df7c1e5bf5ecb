"""Projected stochastic gradient on the dictionary with a Robbins–Monro step (Zhao, Tan and Xu
2016, "Online Nonnegative Matrix Factorization with General Divergences", arXiv:1608.00075,
Algorithm 1): an immutable state plus a pure step."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..constraints import project_dictionary_box

__all__ = ["RobbinsMonroSchedule", "SGDState", "ProjectedSGDUpdate"]


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


@dataclass(frozen=True)
class SGDState:
    """State of :class:`ProjectedSGDUpdate`: mini-batch steps taken and samples seen."""

    n_steps: int = 0
    n_samples_seen: int = 0
    last_step_size: float = field(default=float("nan"))
    halvings: int = 0  # the safeguard's halvings at the last step (the next starts at half)


@dataclass(frozen=True)
class ProjectedSGDUpdate:
    """W_t = Π_C(W_{t−1} − η_t G_t), eq. (11), for the mini-batch gradient G_t = Σ_i r_i h_iᵀ.

    Parameters
    ----------
    schedule : RobbinsMonroSchedule
    reduce : {"sum", "mean"}
        Sum the per-sample gradients of the mini-batch (default; the schedule a/(τt + b) is in
        samples, so summing keeps the dynamics insensitive to τ; the paper does not say which)
        or average them.
    eps : float
        Row-sum floor ε of C.
    safeguard : bool
        Halve the step (at most ``max_halvings`` times) until it does not increase the
        mini-batch loss at the batch's own codes, and skip the step if none does. Not in the
        paper: its schedule keeps η ≈ a/b = 1 for the first b samples, which on small data sets
        (or large summed batches) overshoots and oscillates. The schedule itself is unchanged.
        Each step starts at half the last step's halvings (backtracking with a memory that
        fades geometrically), so that where early steps are rejected whole (KL from an NNDSVD
        start on sparse text) a step costs fewer loss evaluations, and a deep rejection does
        not restart at the full step.
    """

    schedule: RobbinsMonroSchedule = RobbinsMonroSchedule()
    reduce: str = "sum"
    eps: float = 1e-8
    safeguard: bool = False
    max_halvings: int = 20

    def init(self, components: np.ndarray) -> SGDState:
        """No steps taken, no samples seen."""
        return SGDState()

    def update(
        self, state: SGDState, components: np.ndarray, grad: np.ndarray, n_batch: int,
        batch_loss=None,
    ) -> tuple[np.ndarray, SGDState]:
        """One step; ``batch_loss(D)`` (the mini-batch loss at fixed codes) enables the
        safeguard."""
        n_seen = state.n_samples_seen + n_batch
        eta = self.schedule(n_seen)
        scale = eta / n_batch if self.reduce == "mean" else eta
        guarded = self.safeguard and batch_loss is not None
        halvings = min(state.halvings // 2, self.max_halvings) if guarded else 0
        scale *= 0.5 ** halvings
        new = project_dictionary_box(components - scale * grad, self.eps)
        if guarded:
            f0 = batch_loss(components)
            while batch_loss(new) > f0:
                if halvings == self.max_halvings:
                    new = components  # no halving helps: skip the step
                    break
                halvings += 1
                scale *= 0.5
                new = project_dictionary_box(components - scale * grad, self.eps)
        return new, SGDState(state.n_steps + 1, n_seen, eta, halvings)
