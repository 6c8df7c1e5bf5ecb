import itertools

import numpy as np
import pytest

from onlinemf.datasets import CRITICAL_T, IsingLattice


def _kernel(lat, states):
    """The single-site transition matrix (uniform site) by exact enumeration."""
    n = lat.size
    index = {s: i for i, s in enumerate(states)}
    P = np.zeros((len(states), len(states)))
    for s in states:
        x = np.array(s).reshape(n, n)
        S = lat.neighbour_sum(x)
        for i, j in itertools.product(range(n), repeat=2):
            up, down = x.copy(), x.copy()
            up[i, j], down[i, j] = 1, -1
            if lat.sampler == "heat-bath":
                p = lat.p_up(S[i, j])
                moves = [(up, p), (down, 1 - p)]
            else:
                dE = 2.0 * x[i, j] * S[i, j]
                acc = min(1.0, np.exp(-dE / lat.T))
                flip = x.copy()
                flip[i, j] = -x[i, j]
                moves = [(flip, acc), (x, 1 - acc)]
            for y, q in moves:
                P[index[s], index[tuple(y.ravel())]] += q / n**2
    return P


@pytest.mark.parametrize("sampler", ["heat-bath", "metropolis"])
def test_single_site_kernels_are_stationary(sampler):
    lat = IsingLattice(3, 2.0, sampler=sampler, random_state=0)
    states = list(itertools.product([-1, 1], repeat=9))
    # π ∝ exp((1/T) Σ_edges x_u x_v), each edge counted once: ½ Σ_v x_v S_v
    energy = np.array([0.5 * np.sum(np.array(s).reshape(3, 3) * lat.neighbour_sum(
        np.array(s).reshape(3, 3))) for s in states])
    pi = np.exp(energy / lat.T)
    pi /= pi.sum()
    P = _kernel(lat, states)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(pi @ P, pi, atol=1e-12)


def test_flip_probability_favours_alignment():
    lat = IsingLattice(4, 1.0, random_state=0)
    assert lat.p_up(4) > 0.99 and lat.p_up(-4) < 0.01 and lat.p_up(0) == 0.5
    assert abs(CRITICAL_T - 2.269185) < 1e-6


def test_temperature_orders_the_magnetization_and_runs():
    mags = []
    for T in (1.0, 5.0):
        lat = IsingLattice(32, T, random_state=1)
        lat.spins[:] = 1  # start ordered: low T keeps it, high T melts it
        lat.run(200)
        mags.append(abs(lat.spins.mean()))
    assert mags[0] > 0.9 > 0.3 > mags[1]
    single = IsingLattice(8, 2.0, sampler="heat-bath", random_state=0)
    single.run(500)
    assert set(np.unique(single.spins)) <= {-1, 1}
    assert single.image().min() >= 0 and single.image().max() <= 1
    with pytest.raises(ValueError):
        IsingLattice(5, 1.0)  # checkerboard needs an even size
