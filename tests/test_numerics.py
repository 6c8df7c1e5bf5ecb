"""Numerically awkward but ordinary input: the shared spectral bound and Cholesky factor never
raise, every capped loop ends at its cap, and the cases a hostile-input sweep found end in a
finite model or a ValueError that names the problem (with the state unchanged)."""

import copy
import signal
from contextlib import contextmanager

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve

from onlinemf import (
    NetworkDictionaryLearning,
    OnlineNMF,
    OnlineRobustNMF,
    PoissonSubspaceTracker,
)
from onlinemf._steps import (
    MAX_DOUBLINGS,
    gershgorin_bound,
    safe_cho_factor,
    spectral_lipschitz,
    spectral_norm_sq,
)
from onlinemf.constraints import project_nonneg_elastic_ball
from onlinemf.losses import get_loss
from onlinemf.testing import same_state
from onlinemf.updates._poisson import poisson_row_objective, solve_poisson_rows


@contextmanager
def deadline(seconds):
    """Fail (instead of hanging) if the block runs longer than ``seconds``."""
    def expired(*_):
        raise TimeoutError(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# -- the shared helpers --------------------------------------------------------------------
def test_spectral_lipschitz_is_exact_on_ordinary_matrices():
    rng = np.random.default_rng(0)
    for k in (1, 3, 12):
        M = rng.standard_normal((k, 2 * k))
        A = M @ M.T
        assert spectral_lipschitz(A) == pytest.approx(np.linalg.eigvalsh(A)[-1], rel=1e-13)
        assert spectral_norm_sq(M) == pytest.approx(np.linalg.norm(M, 2) ** 2, rel=1e-12)
        assert spectral_norm_sq(M.T) == pytest.approx(np.linalg.norm(M, 2) ** 2, rel=1e-12)


@pytest.mark.parametrize("top", [1.0, 2.0 ** 150, 2.0 ** -150, 2.0 ** 300])
def test_the_spectral_norm_is_the_same_with_and_without_the_sanitized_copy(top):
    # a finite D of moderate entries takes the Gram matrix of D itself; dividing by a power
    # of two is exact, so that gives the bits of the scaled (sanitized) computation, and the
    # coders' Gram form gives them again from the Gram matrix it has already formed
    from onlinemf.coders._problem import CodeProblem

    rng = np.random.default_rng(2)
    D = rng.random((5, 40)) * top
    Ds = D / 2.0 ** np.frexp(D.max())[1]
    scaled = spectral_lipschitz(Ds @ Ds.T, floor=0.0) * (D.max() / Ds.max()) ** 2
    assert spectral_norm_sq(D) == scaled
    assert spectral_norm_sq(D) == pytest.approx(np.linalg.norm(D, 2) ** 2, rel=1e-12)
    if top == 1.0:
        problem = CodeProblem(get_loss("squared"), D, rng.random((3, 40)), None, 0.0)
        assert problem.norm_sq() == spectral_norm_sq(D)


@pytest.mark.parametrize("bad", [np.inf, np.nan, 1e-310, 1e300])
def test_spectral_bounds_are_finite_on_awkward_entries(bad):
    A = np.array([[2.0, bad, 0.0], [bad, 1.0, 0.0], [0.0, 0.0, 3.0]])
    lam = spectral_lipschitz(A, floor=1e-12)
    assert np.isfinite(lam) and lam >= 1e-12
    D = np.array([[1.0, bad], [0.5, 2.0]])
    assert np.isfinite(spectral_norm_sq(D))
    # a dictionary whose Gram matrix overflows still gets a bound (the largest float)
    assert spectral_norm_sq(np.full((2, 3), 1e200)) == np.finfo(float).max


def test_spectral_lipschitz_falls_back_on_gershgorin_when_lapack_fails(monkeypatch):
    rng = np.random.default_rng(1)
    M = rng.standard_normal((4, 6))
    A = M @ M.T
    exact = np.linalg.eigvalsh(A)[-1]

    def failing(_):
        raise np.linalg.LinAlgError("Eigenvalues did not converge")

    monkeypatch.setattr(np.linalg, "eigvalsh", failing)
    lam = spectral_lipschitz(A)
    assert lam == pytest.approx(gershgorin_bound(A))
    assert lam >= exact  # still an upper bound: 1/lam is a safe step


def test_safe_cho_factor_matches_scipy_and_repairs_rounding():
    rng = np.random.default_rng(2)
    M = rng.standard_normal((5, 8))
    A = M @ M.T + np.eye(5)
    c, low = safe_cho_factor(A)
    c0, _ = cho_factor(A)
    np.testing.assert_array_equal(np.triu(c), np.triu(c0))
    # positive definite in exact arithmetic, not after rounding: a huge rank-one Gram + I
    v = rng.random(4) * 1e100
    G = np.outer(v, v) + np.eye(4)
    with pytest.raises(np.linalg.LinAlgError):
        cho_factor(G)
    factor = safe_cho_factor(G)
    x = cho_solve(factor, np.ones(4))
    assert np.isfinite(x).all()


def test_safe_cho_factor_reaches_its_last_resort_on_an_indefinite_matrix():
    # every small shift fails (eigenvalue −1): the Gershgorin shift makes it definite
    A = np.array([[1.0, 2.0], [2.0, 1.0]])
    c, lower = safe_cho_factor(A, max_tries=3)
    L = np.tril(c) if lower else np.triu(c).T
    assert np.isfinite(L).all() and (np.diag(L) > 0).all()
    assert np.isfinite(safe_cho_factor(np.full((3, 3), np.nan))[0]).all()


def test_elastic_projection_bracket_ends_at_its_cap_on_infinite_input():
    with deadline(30):
        out = project_nonneg_elastic_ball(np.array([[np.inf, 1.0], [3.0, 4.0]]), 1.0, 1.0)
    assert np.isfinite(out).all()
    for w in out:  # both rows land on the ball's surface
        assert w.sum() + 0.5 * w @ w == pytest.approx(1.0, rel=1e-6)
    np.testing.assert_allclose(out[0], [np.sqrt(3.0) - 1.0, 0.0], rtol=1e-6)
    assert MAX_DOUBLINGS >= 1075  # enough doublings to go from the smallest float to inf


def test_batch_reference_backtracking_ends_with_a_non_finite_step():
    from onlinemf.baselines import batch_reference
    from onlinemf.problems import make_problem

    rng = np.random.default_rng(3)
    X = rng.standard_normal((20, 5))
    P = make_problem("odl", 5)
    D0 = rng.standard_normal((2, 5))
    with deadline(60):
        D, values = batch_reference(P, X, D0, eta=float("nan"), max_iter=2)
    assert len(values) >= 1


def test_batch_nmf_ends_with_a_negative_iteration_cap():
    from onlinemf.baselines import batch_nmf

    X = np.random.default_rng(4).random((12, 5))
    with deadline(30):
        res = batch_nmf(X, 2, "kl", max_iter=-1, random_state=0)
    assert res.n_iter <= 1


# -- Poisson subspace tracking with the paper's projected-gradient row solver ----------------
def test_pgd_row_solver_from_a_cold_start_reaches_the_exact_rows():
    """Rows of D at zero with counts observed (dᵀr = 0, β > 0) start where the objective is
    +inf: the solver must still reach the exact rows, not jump to 1e300."""
    rng = np.random.default_rng(5)
    S, R = rng.random((40, 4)), rng.random((40, 4))
    beta = rng.random(40) * 3
    beta[:5] = 0.0
    exact = solve_poisson_rows(S, beta, R, 0.3, np.zeros((40, 4)), solver="exact")
    pgd = solve_poisson_rows(S, beta, R, 0.3, np.zeros((40, 4)), solver="pgd",
                             max_iter=2000, tol=1e-12)
    np.testing.assert_allclose(pgd, exact, atol=1e-6)
    gap = poisson_row_objective(pgd, S, beta, R, 0.3) - poisson_row_objective(exact, S, beta,
                                                                               R, 0.3)
    assert (gap >= -1e-9).all() and (gap <= 1e-8).all()


def _counts(rng, n=40, f=12):
    return rng.poisson(3, (n, f)).astype(float)


@pytest.mark.parametrize("kind", ["float", "int64", "bool", "csr", "mask", "zero_rows_cols"])
def test_pgd_tracker_fits_ordinary_counts(kind):
    rng = np.random.default_rng(6)
    C = _counts(rng)
    mask = None
    if kind == "int64":
        C = C.astype(np.int64)
    elif kind == "bool":
        C = C > 2
    elif kind == "csr":
        C = sp.csr_matrix(C)
    elif kind == "mask":
        mask = rng.random(C.shape) > 0.3
    elif kind == "zero_rows_cols":
        C[:, 0] = 0
        C[3] = 0
    est = PoissonSubspaceTracker(3, row_solver="pgd", random_state=0).fit(C, mask=mask)
    exact = PoissonSubspaceTracker(3, random_state=0).fit(C, mask=mask)
    assert np.isfinite(est.components_).all()
    # the same model class as the exact rows, not a blown-up one
    assert np.abs(est.components_).max() < 10 * np.abs(exact.components_).max() + 1.0
    assert np.isfinite(est.score(C if kind != "mask" else np.where(mask, C, np.nan)))


def test_pgd_tracker_follows_a_stream_with_missing_entries():
    rng = np.random.default_rng(7)
    est = PoissonSubspaceTracker(3, row_solver="pgd", random_state=0)
    for _ in range(150):
        x = rng.poisson(3, (1, 12)).astype(float)
        x[rng.random(x.shape) < 0.3] = np.nan
        est.partial_fit(x)
    assert np.isfinite(est.components_).all()
    assert np.abs(est.components_).max() < 1e3


def test_tracker_refuses_counts_whose_computations_overflow():
    rng = np.random.default_rng(8)
    X = rng.random((30, 6))
    est = PoissonSubspaceTracker(3, random_state=0).fit(X)
    before = copy.deepcopy(est.__dict__)
    with pytest.raises(ValueError, match="overflow"):
        est.score(X * 1e300)
    with pytest.raises(ValueError, match="overflow"):
        est.partial_fit(X * 1e300)
    assert same_state(est.__dict__, before)


# -- OnlineNMF ----------------------------------------------------------------------------
@pytest.mark.parametrize("loss", ["squared", "kl", "is", "beta", "alpha", "hellinger",
                                  "huber", "l1", "l2"])
def test_online_nmf_on_a_single_feature_csr_matrix(loss):
    X = sp.csr_matrix(np.random.default_rng(9).random((30, 1)) + 0.1)
    est = OnlineNMF(8, loss=loss, random_state=0)
    est.fit(X)
    assert est.components_.shape == (8, 1)
    assert np.isfinite(est.components_).all()
    assert np.isfinite(est.transform(X)).all()


def test_negative_alpha_divergence_refuses_data_whose_power_overflows():
    rng = np.random.default_rng(10)
    X = rng.random((30, 5)) + 0.1
    est = OnlineNMF(3, loss=get_loss("alpha", alpha=-1), random_state=0).fit(X)
    before = copy.deepcopy(est.__dict__)
    tiny = X.copy()
    tiny[tiny < 0.4] = 1e-310
    with pytest.raises(ValueError, match="power -1.*overflows"):
        est.partial_fit(tiny)
    assert same_state(est.__dict__, before)
    with pytest.raises(ValueError, match="overflows"):
        OnlineNMF(3, loss=get_loss("beta", beta=-2), random_state=0).fit(tiny)
    # floored, the same data are fine
    floored = OnlineNMF(3, loss=get_loss("alpha", alpha=-1), data_floor=1e-8,
                        random_state=0).fit(tiny)
    assert np.isfinite(floored.components_).all()


def test_robust_nmf_admm_simplex_on_rows_of_very_different_scales():
    rng = np.random.default_rng(11)
    X = rng.random((35, 3)) * 10.0 ** rng.uniform(-3, 3, (35, 1))
    est = OnlineRobustNMF(4, solver="admm", dict_constraint="simplex", scale="max",
                          random_state=0).fit(X)
    est.partial_fit(X * 10.0 ** rng.uniform(-5, 100, (35, 1)))
    assert np.isfinite(est.components_).all()
    np.testing.assert_allclose(est.components_.sum(axis=1), 1.0, rtol=1e-6)


def test_network_reconstruction_refuses_a_negative_l1_weight():
    import networkx as nx

    G = nx.karate_club_graph()
    est = NetworkDictionaryLearning(n_components=4, motif_size=5, n_iter=20, random_state=0).fit(G)
    for bad in (-1, np.nan, np.inf):
        with pytest.raises(ValueError, match="alpha"):
            est.reconstruct(G, alpha=bad, n_steps=100)
    with pytest.raises(ValueError, match="code_tol"):
        est.reconstruct(G, code_tol=0.0, n_steps=100)


def test_mahalanobis_weights_must_be_finite_and_positive_semidefinite():
    from onlinemf.losses import MahalanobisLoss

    for bad in (np.array([[1.0, np.nan], [np.nan, 1.0]]), np.array([1.0, np.inf])):
        with pytest.raises(ValueError, match="finite"):
            MahalanobisLoss(bad)
    with pytest.raises(ValueError, match="positive semidefinite"):
        MahalanobisLoss(np.array([[1.0, 2.0], [2.0, 1.0]]))
    assert MahalanobisLoss(np.eye(2)).curvature() == pytest.approx(1.0)
