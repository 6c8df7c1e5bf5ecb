import numpy as np
import pytest
from scipy.optimize import minimize

from onlinemf.constraints import (
    _project_small_simplex,
    project_box,
    project_capped_floor,
    project_dictionary_box,
    project_l1_simplex,
    project_l2_ball,
    project_simplex,
)


def _in_C(D, eps):
    return D.min() >= 0 and D.max() <= 1 and D.sum(axis=0).min() >= eps * (1 - 1e-12)


def test_dictionary_projection_feasible_idempotent_optimal(rng):
    eps = 1e-2
    V = rng.normal(0.3, 1.0, size=(5, 40))
    V[:, :5] = -rng.random((5, 5))  # all-negative feature columns hit the ε-simplex branch
    P = project_dictionary_box(V, eps)
    assert _in_C(P, eps)
    np.testing.assert_allclose(project_dictionary_box(P, eps), P, atol=1e-15)
    # variational inequality ⟨V − P, Z − P⟩ ≤ 0 for Z ∈ C
    for _ in range(200):
        Z = project_dictionary_box(rng.normal(0.3, 1.0, size=V.shape), eps)
        assert np.sum((V - P) * (Z - P)) <= 1e-12
    # the all-negative columns land on the ε-simplex
    np.testing.assert_allclose(P[:, :5].sum(axis=0), eps)


def test_capped_floor_matches_scipy(rng):
    v = rng.normal(-0.5, 0.3, size=6)
    eps = 0.1
    res = minimize(lambda w: 0.5 * np.sum((w - v) ** 2), np.full(6, 0.5), jac=lambda w: w - v,
                   bounds=[(0, 1)] * 6,
                   constraints=[{"type": "ineq", "fun": lambda w: w.sum() - eps}],
                   method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
    np.testing.assert_allclose(project_capped_floor(v[None], eps)[0], res.x, atol=1e-6)


def test_simplex_projection(rng):
    V = rng.normal(size=(50, 8))
    P = project_simplex(V, 2.0)
    assert P.min() >= 0
    np.testing.assert_allclose(P.sum(axis=1), 2.0)
    np.testing.assert_allclose(project_simplex(P, 2.0), P, atol=1e-12)
    for v, p in zip(V[:5], P[:5], strict=True):
        for _ in range(50):
            z = project_simplex(rng.normal(size=8), 2.0)
            assert np.dot(v - p, z - p) <= 1e-10
    np.testing.assert_allclose(project_l1_simplex(V).sum(axis=1), 1.0)


def test_box_and_balls(rng):
    H = rng.normal(size=(20, 4))
    B = project_box(H, 1e-8, 1e8)
    assert B.min() >= 1e-8
    np.testing.assert_array_equal(project_box(B, 1e-8, 1e8), B)
    with pytest.raises(ValueError):
        project_box(H, 1.0, 0.0)
    P = project_l2_ball(H * 5, 1.0)
    assert np.linalg.norm(P, axis=1).max() <= 1 + 1e-12
    inside = H / (10 * np.linalg.norm(H, axis=1, keepdims=True))
    np.testing.assert_allclose(project_l2_ball(inside), inside)
    # the projection scales radially
    big = H[0] * 10
    np.testing.assert_allclose(project_l2_ball(big), big / np.linalg.norm(big))


def test_inputs_not_modified(rng):
    V = rng.normal(size=(3, 6))
    V0 = V.copy()
    project_dictionary_box(V)
    project_simplex(V)
    project_l2_ball(V)
    np.testing.assert_array_equal(V, V0)


@pytest.mark.parametrize("K", [1, 2, 3, 50])
@pytest.mark.parametrize("s", [1e-8, 1.0])
def test_the_small_simplex_shortcuts_equal_the_sorting_projection(K, s):
    # rows answered from their two largest entries (one active entry, all zero) and rows that
    # need the sort (near ties within s, equal entries, all negative) give the same bits
    rng = np.random.default_rng(K)
    V = rng.normal(size=(700, K)) * 1e-3
    V[:100] = 0.0
    V[100:200] = 0.5e-8 * rng.random((100, K))
    V[200:300] = 1e-9
    V[300:400] = -rng.random((100, K))
    np.testing.assert_array_equal(_project_small_simplex(V, s), project_simplex(V, s))


@pytest.mark.parametrize("K", [1, 2, 7])
def test_the_projection_in_place_equals_the_projection_into_a_new_array(K):
    # rows above the cap, rows with negative entries, rows whose clipped sum is under the
    # floor with and without negative entries, and all-zero rows
    rng = np.random.default_rng(K)
    V = rng.normal(0.3, 1.0, size=(60, K))
    V[10:20] = 1e-10 * rng.random((10, K))
    V[20:30] = -rng.random((10, K))
    V[20:30, 0] = 3e-9
    V[30:35] = 0.0
    V[35:40] = 2.0
    expected = project_capped_floor(V, 1e-8)
    W = V.copy()
    out = project_capped_floor(W, 1e-8, out=W)
    assert out is W
    np.testing.assert_array_equal(W, expected)
    D = V.T.copy()  # (K, F): the dictionary's layout, projected by feature column
    np.testing.assert_array_equal(project_dictionary_box(D, 1e-8, out=D), expected.T)
    np.testing.assert_array_equal(D, expected.T)
