"""The Ising model on a periodic square lattice and its Gibbs samplers (Lyu, Needell and
Balzano 2020, "Online Matrix Factorization for Markovian Data and Applications to Network
Dictionary Learning", arXiv:1911.01931, eqs. (37)–(40)).

π_T(x) ∝ exp((1/T) Σ_{u∼v} x(u)x(v)), spins ±1, no field, periodic boundaries. The heat-bath
conditional is P(x(v) = +1 | rest) = 1/(1 + exp(−2S/T)) with S the sum of the four neighbours
(the paper prints exp(+2S/T), which favours anti-alignment: corrected).
"""

from __future__ import annotations

import numpy as np

__all__ = ["IsingLattice", "CRITICAL_T"]

#: 2/log(1 + √2), the critical temperature of the square lattice.
CRITICAL_T = 2.0 / np.log(1.0 + np.sqrt(2.0))


class IsingLattice:
    """Spins on an N × N torus with three samplers that all leave π_T invariant.

    * ``"heat-bath"`` — the paper's single-site Gibbs step (a uniform site, redrawn from its
      conditional); sequential by definition;
    * ``"metropolis"`` — the authors' code: flip with probability min(1, exp(−ΔE/T));
    * ``"checkerboard"`` — heat-bath on all sites of one colour at once, then the other (even N):
      one call is a full sweep, vectorized.

    Parameters
    ----------
    size : int
    temperature : float > 0
    sampler : {"checkerboard", "heat-bath", "metropolis"}
    random_state : int, Generator or None
        Also draws the i.i.d. uniform ±1 start.
    """

    def __init__(self, size, temperature, sampler="checkerboard", random_state=None):
        if temperature <= 0:
            raise ValueError("the temperature must be positive")
        if sampler not in ("checkerboard", "heat-bath", "metropolis"):
            raise ValueError(f"unknown sampler {sampler!r}")
        if sampler == "checkerboard" and size % 2:
            raise ValueError("the checkerboard sampler needs an even lattice size")
        self.size, self.T, self.sampler = size, float(temperature), sampler
        self.rng = np.random.default_rng(random_state)
        self.spins = self.rng.choice([-1, 1], size=(size, size))
        ii, jj = np.indices((size, size))
        self._colour = (ii + jj) % 2

    def neighbour_sum(self, x=None):
        x = self.spins if x is None else x
        return np.roll(x, 1, 0) + np.roll(x, -1, 0) + np.roll(x, 1, 1) + np.roll(x, -1, 1)

    def p_up(self, S):
        """Heat-bath probability of +1 given the neighbour sum S."""
        return 1.0 / (1.0 + np.exp(-2.0 * S / self.T))

    def site_step(self, i, j):
        """One single-site update of site (i, j) with the chosen single-site rule."""
        n = self.size
        x = self.spins
        S = x[(i + 1) % n, j] + x[(i - 1) % n, j] + x[i, (j + 1) % n] + x[i, (j - 1) % n]
        if self.sampler == "metropolis":
            dE = 2.0 * x[i, j] * S
            if dE < 0 or self.rng.random() < np.exp(-dE / self.T):
                x[i, j] = -x[i, j]
        else:
            x[i, j] = 1 if self.rng.random() < self.p_up(S) else -1

    def run(self, n):
        """``n`` updates: single sites (heat-bath, Metropolis) or full sweeps (checkerboard)."""
        if self.sampler == "checkerboard":
            for _ in range(n):
                for c in (0, 1):
                    up = self.rng.random(self.spins.shape) < self.p_up(self.neighbour_sum())
                    self.spins = np.where(self._colour == c, np.where(up, 1, -1), self.spins)
            return self.spins
        sites = self.rng.integers(self.size, size=(n, 2))
        for i, j in sites:  # a Markov chain: one site after the other
            self.site_step(int(i), int(j))
        return self.spins

    def image(self):
        """The configuration mapped to {0, 1} ((x + 1)/2, the authors' convention for NMF)."""
        return (self.spins + 1) / 2.0
