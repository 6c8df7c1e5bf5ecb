import numpy as np
import pytest

from onlinemf.losses import (
    AlphaDivergence,
    BetaDivergence,
    HuberLoss,
    ISDivergence,
    KLDivergence,
    L1Loss,
    L2Loss,
    MahalanobisLoss,
    SquaredLoss,
    get_loss,
)


def _points(rng, n=5, f=7):
    X = rng.uniform(0.2, 2.0, size=(n, f))
    Y = rng.uniform(0.2, 2.0, size=(n, f))
    return X, Y


def _fd_grad(loss, X, Y, mask=None, h=1e-6):
    G = np.zeros_like(Y)
    for idx in np.ndindex(Y.shape):
        E = np.zeros_like(Y)
        E[idx] = h
        G[idx] = (loss.value(X, Y + E, mask).sum() - loss.value(X, Y - E, mask).sum()) / (2 * h)
    return G


@pytest.mark.parametrize("masked", [False, True])
def test_gradient_matches_finite_differences(any_loss, rng, masked):
    X, Y = _points(rng)
    mask = rng.random(X.shape) > 0.3 if masked else None
    if masked:
        X = np.where(mask, X, np.nan)
    G = any_loss.grad(X, Y, mask)
    # keep away from the kinks of the nonsmooth losses
    if isinstance(any_loss, (L1Loss, HuberLoss)):
        gap = np.abs(np.abs(Y - X) - getattr(any_loss, "delta", 0.0))
        assert np.nanmin(gap) > 1e-4  # observed entries only; missing ones sit at y = x
    np.testing.assert_allclose(G, _fd_grad(any_loss, X, Y, mask), rtol=1e-5, atol=1e-6)
    if masked:
        assert np.all(G[~mask] == 0)


def test_value_zero_on_diagonal_and_nonnegative(any_loss, rng):
    X, Y = _points(rng)
    np.testing.assert_allclose(any_loss.value(X, X), 0.0, atol=1e-12)
    assert np.all(any_loss.value(X, Y) >= -1e-12)
    assert np.all(np.isfinite(any_loss.value(X, Y)))


def test_mask_restricts_the_sum(rng):
    X, Y = _points(rng)
    mask = rng.random(X.shape) > 0.5
    for loss in (KLDivergence(), ISDivergence(), HuberLoss(0.2), L1Loss(), SquaredLoss()):
        full = loss._value(np.where(mask, X, Y), Y)
        manual = np.where(mask, full, 0).sum(axis=1)
        np.testing.assert_allclose(loss.value(np.where(mask, X, np.nan), Y, mask), manual)


@pytest.mark.parametrize("beta,ref", [(0.0, ISDivergence()), (1.0, KLDivergence()),
                                      (2.0, SquaredLoss())])
def test_beta_limits(rng, beta, ref):
    X, Y = _points(rng)
    for b in (beta - 1e-6, beta + 1e-6):
        near = BetaDivergence(b)
        np.testing.assert_allclose(near.value(X, Y), ref.value(X, Y), rtol=1e-4, atol=1e-8)
        np.testing.assert_allclose(near.grad(X, Y), ref.grad(X, Y), rtol=1e-4, atol=1e-8)
    np.testing.assert_array_equal(BetaDivergence(beta).value(X, Y), ref.value(X, Y))


def test_alpha_limits_and_hellinger(rng):
    X, Y = _points(rng)
    kl = KLDivergence()
    for a in (1 - 1e-6, 1 + 1e-6):
        np.testing.assert_allclose(AlphaDivergence(a).value(X, Y), kl.value(X, Y), rtol=1e-4)
    hell = 2 * ((np.sqrt(X) - np.sqrt(Y)) ** 2).sum(axis=1)
    np.testing.assert_allclose(get_loss("hellinger").value(X, Y), hell, rtol=1e-12)
    np.testing.assert_allclose(AlphaDivergence(0.5).value(X, Y), hell, rtol=1e-12)


def test_huber_pieces_and_continuity():
    loss = HuberLoss(delta=0.5)
    u = np.array([[-2.0, -0.5, -0.2, 0.0, 0.3, 0.5, 1.5]])
    vals = loss._value(np.zeros_like(u), u)
    expected = np.where(np.abs(u) <= 0.5, u**2 / 2, 0.5 * (np.abs(u) - 0.25))
    np.testing.assert_allclose(vals, expected)
    left = loss._value(np.zeros((1, 1)), np.array([[0.5 - 1e-9]]))
    right = loss._value(np.zeros((1, 1)), np.array([[0.5 + 1e-9]]))
    assert abs(left - right).max() < 1e-8


@pytest.mark.parametrize("loss", [L1Loss(), L2Loss()], ids=["l1", "l2"])
def test_subgradient_inequality(loss, rng):
    X, Y = _points(rng)
    G = loss.grad(X, Y)
    for _ in range(20):
        Z = rng.uniform(0.0, 3.0, size=Y.shape)
        lhs = loss.value(X, Z)
        rhs = loss.value(X, Y) + np.einsum("ij,ij->i", G, Z - Y)
        assert np.all(lhs >= rhs - 1e-12)
    # at a zero residual the chosen subgradient is zero
    assert np.all(loss.grad(X, X) == 0)


def test_l2_is_euclidean_norm_not_squared(rng):
    X, Y = _points(rng)
    np.testing.assert_allclose(L2Loss().value(X, Y), np.linalg.norm(X - Y, axis=1))


def test_chain_rule_in_the_dictionary(any_loss, rng):
    # ∇_D Σ_i d(x_i ‖ h_i D) = Hᵀ R with R = ∇_Y d
    H = rng.uniform(0.2, 1.0, size=(4, 3))
    D = rng.uniform(0.2, 1.0, size=(3, 7))
    X = rng.uniform(0.5, 2.0, size=(4, 7))
    G = H.T @ any_loss.grad(X, H @ D)
    fd = np.zeros_like(D)
    for idx in np.ndindex(D.shape):
        E = np.zeros_like(D)
        E[idx] = 1e-6
        fd[idx] = (any_loss.value(X, H @ (D + E)).sum()
                   - any_loss.value(X, H @ (D - E)).sum()) / 2e-6
    np.testing.assert_allclose(G, fd, rtol=1e-5, atol=1e-6)


def test_curvature_bounds_hold(rng):
    # the gradient of the loss in y is c-Lipschitz where a bound c is claimed
    A = rng.normal(size=(7, 7))
    for loss in (SquaredLoss(), HuberLoss(0.3), MahalanobisLoss(A @ A.T)):
        c = loss.curvature()
        X, Y = _points(rng)
        Z = Y + rng.normal(size=Y.shape)
        dg = np.linalg.norm(loss.grad(X, Y) - loss.grad(X, Z), axis=1)
        assert np.all(dg <= c * np.linalg.norm(Y - Z, axis=1) + 1e-12)


def test_domain_checks_and_registry():
    with pytest.raises(ValueError, match="strictly positive"):
        ISDivergence().check_data(np.array([[1.0, 0.0]]))
    KLDivergence().check_data(np.array([[1.0, 0.0]]))  # zeros are fine for KL
    with pytest.raises(ValueError, match="unknown loss"):
        get_loss("nope")
    with pytest.raises(ValueError, match="positive"):
        get_loss("huber", delta=-1)
    with pytest.raises(ValueError, match="semidefinite"):
        MahalanobisLoss(-np.eye(3))
    assert get_loss("frobenius") == SquaredLoss()
    # values stay finite at zero reconstructions (floored)
    assert np.isfinite(KLDivergence().value(np.ones((1, 2)), np.zeros((1, 2)))).all()


@pytest.mark.parametrize("name", ["kl", "squared"])
def test_sparse_kernels_equal_dense(rng, name):
    """Value, code gradient and dictionary gradient from a CSR batch's nonzeros equal the
    dense formulas (rows with no nonzeros included)."""
    import scipy.sparse as sp

    loss = get_loss(name)
    X = rng.poisson(0.4, size=(9, 13)).astype(float)
    X[3] = 0.0
    H, D = rng.uniform(0.1, 1.0, (9, 4)), rng.uniform(0.0, 1.0, (4, 13))
    Xs = sp.csr_matrix(X)
    assert loss.sparse_kernels
    np.testing.assert_allclose(loss.sparse_value(Xs, H, D), loss.value(X, H @ D), rtol=1e-12)
    R = loss.grad(X, H @ D)
    np.testing.assert_allclose(loss.sparse_code_grad(Xs, H, D), R @ D.T, rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(loss.sparse_dictionary_grad(Xs, H, D), H.T @ R, rtol=1e-12,
                               atol=1e-12)


def test_losses_without_sparse_kernels_say_so():
    import scipy.sparse as sp

    loss = get_loss("is")
    assert not loss.sparse_kernels
    with pytest.raises(NotImplementedError, match="is loss has no sparse kernels"):
        loss.sparse_value(sp.csr_matrix(np.ones((1, 2))), np.ones((1, 1)), np.ones((1, 2)))


@pytest.mark.parametrize("name,params", [("squared", {}), ("kl", {}), ("is", {}),
                                         ("beta", {"beta": 1.5}), ("beta", {"beta": 3.0}),
                                         ("huber", {"delta": 0.3}), ("l1", {}), ("l2", {})])
def test_mu_ratios_split_the_gradient(name, params):
    # Q − P is the gradient in y, so the multiplicative update's fixed points are stationary
    rng = np.random.default_rng(0)
    X, Y = rng.uniform(0.5, 2, (6, 5)), rng.uniform(0.5, 2, (6, 5))
    loss = get_loss(name, **params)
    P, Q = loss.mu_ratios(X, Y)
    assert (P >= 0).all() and (Q > 0).all()
    np.testing.assert_allclose(Q - P, loss.grad(X, Y), rtol=1e-10, atol=1e-12)


def test_mu_exponents_and_losses_without_an_update():
    assert get_loss("is").mu_exponent == 0.5 and get_loss("kl").mu_exponent == 1.0
    assert get_loss("beta", beta=0.5).mu_exponent == pytest.approx(1 / 1.5)
    assert get_loss("beta", beta=3.0).mu_exponent == pytest.approx(0.5)
    with pytest.raises(ValueError, match="no batch multiplicative update for the alpha"):
        get_loss("alpha").mu_ratios(np.ones((2, 2)), np.ones((2, 2)))
