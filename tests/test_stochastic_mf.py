"""StochasticMF and its finite-sum pieces (spec 002 §7)."""

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from scipy.optimize import nnls
from sklearn.linear_model import Lasso

from onlinemf import Problem, SMFCoder, SMFStep, StochasticMF
from onlinemf.baselines import batch_reference
from onlinemf.coders import solve_codes_accurate, solve_codes_bsum, solve_codes_newton
from onlinemf.coders._accurate import newton_applicable
from onlinemf.constraints import soft_threshold
from onlinemf.datasets import expressed_variance, make_smf_synthetic
from onlinemf.experiments import Context
from onlinemf.metrics import evaluate
from onlinemf.problems import make_problem
from onlinemf.updates import (
    code_tolerance,
    default_batch_params,
    full_gradient,
    sampling_factor,
    theta_min,
    vr_direction,
)

rng = np.random.default_rng(1)


def _data(n=60, F=12, K=4, seed=0, nonneg=True):
    r = np.random.default_rng(seed)
    X = r.random((n, K)) @ r.random((K, F)) + 0.05 * r.random((n, F))
    return X if nonneg else X - 0.5


def _dict(P, K, F, seed=0):
    return P.project_dictionary(np.random.default_rng(seed).random((K, F)) + 0.1)


# ----------------------------------------------------------------------- parameter helpers
def test_sampling_factor_and_defaults():
    assert sampling_factor(10, 10) == 0 and sampling_factor(1, 1) == 0
    assert sampling_factor(100, 7) <= 1 / 7
    assert sampling_factor(2429, 36) == pytest.approx(0.02738, rel=1e-3)
    assert default_batch_params(100_000) == (431, 23)
    assert default_batch_params(2429) == (36, 7)
    assert default_batch_params(60_000) == (307, 20)
    with pytest.raises(ValueError):
        sampling_factor(5, 6)


def test_theta_min_matches_the_spec_table():
    assert theta_min(2429, 36, 7) == pytest.approx(2.321, abs=1e-3)
    assert theta_min(100_000, 431, 23) == pytest.approx(2.1735, abs=1e-3)
    assert theta_min(100_000, 431, 23, inexact=True) == pytest.approx(2.8132, abs=1e-3)
    assert theta_min(10, 10, 5) == 2.0


def test_tolerance_schedule():
    assert code_tolerance(0) == 1.0 and code_tolerance(1) == 1.0
    assert code_tolerance(100, 1e-3) == pytest.approx(100 ** -0.501)


# ----------------------------------------------------------------------- BSUM
def test_bsum_monotone_and_robust_kkt():
    P = make_problem("orpca", 12, alpha=0.3, outlier_alpha=0.2)
    X = _data(nonneg=False)
    D = rng.normal(size=(4, 12))
    prev = None
    H = R = None
    for _ in range(30):  # one sweep at a time, warm-started: the objective never rises
        res = solve_codes_bsum(P, D, X, 0.0, max_iter=1, H0=H, R0=R)
        H, R = res.codes, res.outliers
        val = P.sample_losses(X, D, H, R)
        if prev is not None:
            assert np.all(val <= prev + 1e-12)
        prev = val
    res = solve_codes_bsum(P, D, X, 1e-12, max_iter=20000, accelerate=True)
    H, R = res.codes, res.outliers
    # KKT: ∇_h = (hD + r − x)Dᵀ + λ₁h = 0 and r = soft(x − hD, λ₂)
    assert np.allclose((H @ D + R - X) @ D.T + 0.3 * H, 0, atol=1e-7)
    assert np.allclose(R, soft_threshold(X - H @ D, 0.2), atol=1e-9)


def test_odl_codes_match_sklearn_lasso():
    F = 12
    P = make_problem("odl", F, alpha=0.05)
    X = _data(n=8)
    D = _dict(P, 4, F)
    H = solve_codes_bsum(P, D, X, 1e-12, max_iter=50000, accelerate=True).codes
    for x, h in zip(X, H):  # sklearn: (1/(2F))‖x − Dᵀh‖² + a‖h‖₁ with a = λ/F
        ref = Lasso(alpha=0.05 / F, fit_intercept=False, tol=1e-14, max_iter=100000)
        assert np.allclose(h, ref.fit(D.T, x).coef_, atol=1e-6)


def test_onmf_codes_match_ridge_nnls():
    F, lam = 12, 0.2
    P = make_problem("onmf", F, alpha=lam)
    X = _data(n=6)
    D = _dict(P, 4, F)
    H = solve_codes_bsum(P, D, X, 1e-12, max_iter=50000, accelerate=True).codes
    A = np.vstack([D.T, np.sqrt(lam) * np.eye(4)])
    for x, h in zip(X, H):
        assert np.allclose(h, nnls(A, np.concatenate([x, np.zeros(4)]))[0], atol=1e-7)


def test_orpca_codes_match_alternating_closed_form():
    """Feng et al.: h = (DDᵀ + λ₁I)⁻¹D(x − r), r = soft(x − hD, λ₂), iterated."""
    F = 12
    P = make_problem("orpca", F, alpha=0.4, outlier_alpha=0.1)
    X = _data(n=5, nonneg=False)
    D = rng.normal(size=(3, F))
    res = solve_codes_bsum(P, D, X, 1e-12, max_iter=50000, accelerate=True)
    R = np.zeros_like(X)
    for _ in range(5000):
        H = np.linalg.solve(D @ D.T + 0.4 * np.eye(3), D @ (X - R).T).T
        R = soft_threshold(X - H @ D, 0.1)
    assert np.allclose(res.codes, H, atol=1e-6) and np.allclose(res.outliers, R, atol=1e-6)


def test_ornmf_codes_and_outliers_in_their_boxes():
    P = make_problem("ornmf", 12, code_bound=0.5, outlier_bound=0.3)
    X = _data(nonneg=False) * 5
    res = solve_codes_bsum(P, _dict(P, 4, 12), X, 1e-8, max_iter=2000)
    assert res.codes.min() >= 0 and res.codes.max() <= 0.5
    assert np.abs(res.outliers).max() <= 0.3


def _gross(n=40, F=12, K=3, seed=2):
    """Low-rank rows with a tenth of the entries replaced by gross outliers (±50)."""
    r = np.random.default_rng(seed)
    X = r.random((n, K)) @ r.random((K, F)) - 0.3
    hit = r.random(X.shape) < 0.1
    X[hit] = 50 * r.choice([-1.0, 1.0], size=hit.sum())
    return X


def test_newton_codes_satisfy_orpca_kkt_and_match_fista():
    P = make_problem("orpca", 12, alpha=0.05, outlier_alpha=0.3)
    X = _gross()
    D = rng.normal(size=(5, 12))
    D[4] = D[3] + 1e-3 * D[0]  # a near-redundant atom: an ill-conditioned Gram matrix
    res = solve_codes_newton(P, D, X, 1e-11)
    H, R = res.codes, res.outliers
    assert res.n_iter.max() < 50
    assert np.allclose((H @ D + R - X) @ D.T + 0.05 * H, 0, atol=1e-8)
    assert np.allclose(R, soft_threshold(X - H @ D, 0.3), atol=1e-12)
    ref = solve_codes_bsum(P, D, X, 1e-11, max_iter=200000, accelerate=True)
    assert np.allclose(P.sample_losses(X, D, H, R),
                       P.sample_losses(X, D, ref.codes, ref.outliers), rtol=1e-9)


def test_accurate_codes_converge_on_slow_rows_of_a_late_orpca_dictionary():
    """The accurate solver's iteration cap does not bind before convergence. The stored
    dictionary is ORPCA's after 1.5 passes of SGD at 32 times its automatic step on Synth
    (K = 49, d = 400, ‖d_k‖ ≈ 50–70), with six of the rows on which its Newton method was
    slowest (most of a row's entries are absorbed by the outliers, so the generalized
    Hessian has few quadratic pieces): at 300 iterations, the old cap, two of them were
    still far from stationary (KKT residual 1.5 and 2.3, f too high by 20 and 0.1). Newton
    alone now needs about 210 iterations (645 before its damping was divided by ‖h‖), and
    capped at 150 it leaves rows with f too high by up to 17. With the MM restart they
    converge in a third of Newton's iterations, to the same f."""
    P = make_problem("orpca", 400)  # λ = 1/√d for the outliers and the codes' ridge
    kept = np.load(os.path.join(os.path.dirname(__file__), "data",
                                "orpca_synth_late_dictionary.npz"))
    D, X = kept["components"], kept["rows"]
    lam = 1 / np.sqrt(400)

    def kkt(H):  # the envelope's derivative in z = x − hD is clip(z, ±λ)
        return np.linalg.norm(-np.clip(X - H @ D, -lam, lam) @ D.T + lam * H, axis=1)

    res = solve_codes_accurate(P, D, X, 1e-4, max_iter=3000)
    assert kkt(res.codes).max() < 1e-3
    plain = solve_codes_newton(P, D, X, 1e-4, max_iter=3000, mm_steps=0)  # Newton alone
    assert 150 < plain.n_iter.max() < 3000 and kkt(plain.codes).max() < 1e-3
    assert res.n_iter.max() < plain.n_iter.max() / 3  # the MM restart (below)
    f, f_plain = (P.sample_losses(X, D, r.codes, r.outliers) for r in (res, plain))
    np.testing.assert_allclose(f, f_plain, rtol=1e-9)
    capped = solve_codes_newton(P, D, X, 1e-4, max_iter=150, mm_steps=0)
    f_capped = P.sample_losses(X, D, capped.codes, capped.outliers)
    assert np.all(f <= f_capped + 1e-9) and (f_capped - f).max() > 1.0
    # from a warm start with few entries inside the threshold, MM comes first
    H0 = 0.5 * res.codes
    assert np.all((np.abs(X - H0 @ D) <= lam).sum(axis=1) < 1.5 * 49)
    first = solve_codes_newton(P, D, X, 1e-4, max_iter=3000, H0=H0)
    later = solve_codes_newton(P, D, X, 1e-4, max_iter=3000, H0=H0, mm_first_inliers=0)
    assert kkt(first.codes).max() < 1e-3 and first.n_iter.max() < later.n_iter.max()
    np.testing.assert_allclose(P.sample_losses(X, D, first.codes, first.outliers), f,
                               rtol=1e-9)


def test_huber_mm_steps_never_raise_f_and_fix_the_optimum():
    """The MM step of the Newton solver's restart: F(h) = e(x − hD) + (ridge/2)‖h‖² does not
    rise along the steps (majorization), and the tightly solved codes are its fixed point."""
    from onlinemf.coders._accurate import _huber_mm_steps

    P = make_problem("orpca", 12, alpha=0.05, outlier_alpha=0.3)
    X = _gross()
    D = 5 * rng.normal(size=(5, 12))

    def F(H):
        return P.sample_losses(X, D, H, P.outliers.prox(X - H @ D))

    H = np.zeros((X.shape[0], 5))
    values = [F(H)]
    for _ in range(8):
        H = _huber_mm_steps(D, X, H, 0.3, 0.05, 1, rows=16)
        values.append(F(H))
    assert np.all(np.diff(values, axis=0) <= 1e-10 * np.abs(values[0]))
    assert np.all(values[-1] < values[0] - 1e-3)
    best = solve_codes_newton(P, D, X, 1e-12, mm_steps=0, max_iter=500).codes
    np.testing.assert_allclose(_huber_mm_steps(D, X, best, 0.3, 0.05, 3), best, atol=1e-8)


def test_newton_codes_satisfy_boxed_kkt_for_ornmf():
    """Projected-gradient fixed point h = clip(h − g, 0, M) with both boxes binding, and no
    higher objective than tightly solved accelerated BSUM."""
    P = make_problem("ornmf", 12, outlier_alpha=0.2, code_bound=0.6, outlier_bound=20.0)
    X = _gross(seed=3)
    D = _dict(P, 5, 12, seed=3)
    res = solve_codes_newton(P, D, X, 1e-10, max_iter=500)
    H, R = res.codes, res.outliers
    g = (H @ D + R - X) @ D.T
    assert H.min() >= 0 and H.max() <= 0.6 and (H == 0.6).any() and (H == 0).any()
    assert np.allclose(H, np.clip(H - g, 0, 0.6), atol=1e-8)
    assert np.abs(R).max() <= 20.0 and (np.abs(R) == 20.0).any()
    assert np.allclose(R, np.clip(soft_threshold(X - H @ D, 0.2), -20, 20), atol=1e-12)
    ref = solve_codes_bsum(P, D, X, 1e-10, max_iter=200000, accelerate=True)
    ours = P.sample_losses(X, D, H, R)
    assert np.all(ours <= P.sample_losses(X, D, ref.codes, ref.outliers) + 1e-9)


def test_newton_codes_near_zero_reach_their_bound_over_redundant_atoms():
    """Sparse nonnegative codes over near-duplicated atoms (Synth's K = 49 dictionaries):
    the coordinates held near a bound must move to it in the Newton step. Left in place,
    they moved only by the proximal-gradient fallback, and after 50 iterations 197 of the
    200 rows were unconverged (now 87); run on, every row reaches the fixed point."""
    r = np.random.default_rng(4)
    n, F = 200, 40
    base = r.random((3, F))
    D = np.vstack([base[i % 3] + 1e-2 * r.random(F) for i in range(12)])
    C = np.zeros((n, 3))
    C[np.arange(n), r.integers(0, 3, n)] = r.random(n) + 0.5
    X = C @ base + 0.01 * r.random((n, F))
    X[r.random(X.shape) < 0.1] += 30
    P = make_problem("ornmf", F, outlier_alpha=0.05)
    H0 = np.full((n, 12), 0.02)

    def unconverged(res):
        g = (res.codes @ D + res.outliers - X) @ D.T
        return np.abs(res.codes - np.clip(res.codes - g, 0, np.inf)).max(axis=1) > 1e-5

    assert unconverged(solve_codes_newton(P, D, X, 1e-6, max_iter=50, H0=H0)).mean() < 0.6
    res = solve_codes_newton(P, D, X, 1e-8, max_iter=1000, H0=H0)
    assert res.n_iter.max() < 1000 and not unconverged(res).any()
    ref = solve_codes_bsum(P, D, X, 1e-10, max_iter=100000, accelerate=True)
    assert np.all(P.sample_losses(X, D, res.codes, res.outliers)
                  <= P.sample_losses(X, D, ref.codes, ref.outliers) + 1e-9)


def test_newton_damping_does_not_cap_the_steps_of_large_codes():
    """Nonnegative codes of norm about 140 over unit atoms (ORNMF on Synth: codes of norm
    tens), from h = 0. Damping by the reduced gradient's norm alone held each step near unit
    length, and the rows took 359 iterations; divided by max(1, ‖h‖) they take under 100, to
    the boxed KKT point."""
    r = np.random.default_rng(5)
    n, F, K = 200, 60, 12
    D = r.random((K, F))
    D /= np.linalg.norm(D, axis=1, keepdims=True)
    H = 100 * r.random((n, K)) * (r.random((n, K)) < 0.5)
    X = H @ D + 0.01 * r.standard_normal((n, F))
    X[r.random(X.shape) < 0.1] += 1000
    P = make_problem("ornmf", F, outlier_alpha=0.05)
    res = solve_codes_newton(P, D, X, 1e-6, max_iter=3000)
    assert res.n_iter.max() < 100
    g = (res.codes @ D + res.outliers - X) @ D.T
    assert np.abs(res.codes - np.clip(res.codes - g, 0, np.inf)).max() < 1e-5


def test_accurate_solver_picks_newton_only_where_it_applies():
    X = _gross()
    for name, expect in (("orpca", True), ("olrr", True), ("ornmf", True), ("omrmd", False),
                         ("odl", False), ("onmf", False)):
        P = make_problem(name, 12)
        assert newton_applicable(P) is expect
        D = _dict(P, 3, 12)
        got = solve_codes_accurate(P, D, X, 1e-6)
        ref = (solve_codes_newton(P, D, X, 1e-6, max_iter=300) if expect else
               solve_codes_bsum(P, D, X, 1e-6, max_iter=3000, accelerate=True))
        assert np.array_equal(got.codes, ref.codes)
    with pytest.raises(ValueError, match="omrmd"):
        solve_codes_newton(make_problem("omrmd", 12), _dict(P, 3, 12), X, 1e-6)


def test_evaluation_keeps_codes_in_order_and_warm_starts_to_the_same_value():
    P = make_problem("ornmf", 12).bind(40)
    X = _gross()
    D = _dict(P, 4, 12)
    cold = evaluate(P, D, X, tol=1e-10, chunk_size=7, keep_codes=True)
    ref = solve_codes_accurate(P, D, X, 1e-10, max_iter=5000)
    assert cold["codes"].shape == (40, 4)
    assert np.allclose(cold["codes"], ref.codes, atol=1e-8)
    D2 = P.project_dictionary(D + 0.05 * rng.random(D.shape))
    warm = evaluate(P, D2, X, tol=1e-10, chunk_size=7, codes0=cold["codes"])
    assert "codes" not in warm
    again = evaluate(P, D2, X, tol=1e-10, chunk_size=7)
    assert warm["objective"] == pytest.approx(again["objective"], rel=1e-9)
    assert np.allclose(warm["grad"], again["grad"], atol=1e-6)


# ----------------------------------------------------------------------- gradients
def _loss(P, D, X):
    return evaluate(P, D, X, tol=1e-13, max_iter=100000)["objective"] - P.psi(D)


@pytest.mark.parametrize("name,kw", [("onmf", {}), ("orpca", {}), ("odl", {"ridge": 0.5})])
def test_danskin_gradient_matches_finite_differences(name, kw):
    F, K = 8, 3
    P = make_problem(name, F, alpha=0.3, **kw).bind(5)
    X = _data(n=5, F=F, K=K, nonneg=name != "orpca")
    D = _dict(P, K, F) if name != "orpca" else rng.normal(size=(K, F))
    G = evaluate(P, D, X, tol=1e-13, max_iter=100000)["grad"]
    E = rng.normal(size=D.shape)
    E /= np.linalg.norm(E)
    h = 1e-5
    fd = (_loss(P, D + h * E, X) - _loss(P, D - h * E, X)) / (2 * h)
    assert fd == pytest.approx(float(np.sum(G * E)), rel=1e-5, abs=1e-8)


def test_full_gradient_is_chunk_and_map_invariant():
    P = make_problem("ornmf", 12)
    X = _data(n=50)
    D = _dict(P, 4, 12)
    a = full_gradient(P, D, X, 1e-9, chunk_size=50, max_iter=5000)
    b = full_gradient(P, D, X, 1e-9, chunk_size=7, max_iter=5000)
    with ThreadPoolExecutor(2) as ex:
        c = full_gradient(P, D, X, 1e-9, chunk_size=11, max_iter=5000, map_fn=ex.map)
    for other in (b, c):
        assert np.allclose(a.grad, other.grad, atol=1e-12) and other.count == 50
    # = the mean of the per-sample gradients
    singles = sum(full_gradient(P, D, X[i:i + 1], 1e-9, max_iter=5000).grad for i in range(50))
    assert np.allclose(a.mean_grad, singles / 50, atol=1e-12)


# ----------------------------------------------------------------------- the VR estimator
def _vr_setup(n=40):
    P = make_problem("onmf", 10, alpha=0.2).bind(n)
    X = _data(n=n, F=10, K=3)
    D0 = _dict(P, 3, 10, seed=1)
    D = P.prox_dictionary(D0 - 0.01 * rng.normal(size=D0.shape), 0.01)
    tol = 1e-11
    G0 = full_gradient(P, D0, X, tol, max_iter=50000).mean_grad
    G = full_gradient(P, D, X, tol, max_iter=50000).mean_grad
    return P, X, D0, D, G0, G, tol


def test_vr_direction_at_the_snapshot_is_the_full_gradient():
    P, X, D0, _, G0, _, tol = _vr_setup()
    V, solves = vr_direction(P, D0, D0, X[:7], G0, tol, max_iter=50000)
    assert np.allclose(V, G0, atol=1e-9) and solves == 14


def test_vr_direction_with_the_full_batch_is_the_gradient():
    P, X, D0, D, G0, G, tol = _vr_setup()
    V, _ = vr_direction(P, D, D0, X, G0, tol, max_iter=50000)
    assert np.allclose(V, G, atol=1e-8)


def test_vr_direction_unbiased_with_the_finite_population_variance():
    P, X, D0, D, G0, G, tol = _vr_setup()
    n, b, draws = X.shape[0], 5, 3000
    r = np.random.default_rng(0)
    # per-sample differences Δ_i = ∇ℓ_i(D) − ∇ℓ_i(D0), computed once
    grads = np.array([full_gradient(P, D, X[i:i + 1], tol, max_iter=50000).grad
                      - full_gradient(P, D0, X[i:i + 1], tol, max_iter=50000).grad
                      for i in range(n)])
    Vs = []
    for _ in range(draws):
        rows = r.choice(n, b, replace=False)
        Vs.append(grads[rows].mean(axis=0) + G0)
    Vs = np.array(Vs)
    assert np.linalg.norm(Vs.mean(axis=0) - G) <= 4 * np.sqrt(
        np.mean(np.sum((Vs - G) ** 2, axis=(1, 2))) / draws)
    exact = sampling_factor(n, b) * np.mean(np.sum((grads - grads.mean(0)) ** 2, axis=(1, 2)))
    assert np.mean(np.sum((Vs - G) ** 2, axis=(1, 2))) == pytest.approx(exact, rel=0.1)
    # and vr_direction itself equals this per-sample formula on one batch
    rows = np.arange(5)
    V, _ = vr_direction(P, D, D0, X[rows], G0, tol, max_iter=50000)
    assert np.allclose(V, grads[rows].mean(axis=0) + G0, atol=1e-8)


def test_full_batch_vr_is_monotone_proximal_gradient():
    X = _data(n=50, F=10, K=3)
    est = StochasticMF("onmf", "vr", 3, batch_size=50, inner_iter=5, max_iter=6, eval_every=1e-9,
                       random_state=0, step=SMFStep(learning_rate=0.02),
                       coder=SMFCoder(eval_tol=1e-9)).fit(X)
    f = est.history_["objective"]
    assert len(f) > 20 and np.all(np.diff(f) <= 1e-9)
    gam = est.history_["stationarity"]
    assert gam[-1] < 0.5 * gam[1]


def test_vr_stationarity_falls_over_outer_iterations():
    X = _data(n=300, F=10, K=3, seed=2)
    est = StochasticMF("ornmf", "vr", 3, max_iter=8, eval_every=1.0, random_state=0).fit(X)
    gam = est.history_["stationarity"]
    assert gam[-1] < 0.7 * gam[0] and gam[len(gam) // 2:].mean() < gam[:len(gam) // 2].mean()


def test_snapshot_cache_changes_solves_not_iterates():
    X = _data(n=120)
    # the paper's short inner loop: the cached and re-solved codes differ within the codes'
    # tolerance, which a one-pass inner loop compounds over many more steps
    a = StochasticMF("orpca", "vr", 4, max_iter=2, random_state=0, settings="paper").fit(X)
    b = StochasticMF("orpca", "vr", 4, max_iter=2, random_state=0, settings="paper",
                     coder=SMFCoder(cache_snapshot=True)).fit(X)
    assert np.allclose(a.components_, b.components_)
    assert b.n_solves_ < a.n_solves_
    # without the cache nothing of size n is kept
    big = [k for k, v in vars(a).items() if isinstance(v, np.ndarray) and v.size >= 120 * 4]
    assert big == []


def test_ones_init_is_symmetric_and_jitter_breaks_it():
    """The paper's scalar step keeps identical atoms identical; the default metric step,
    block coordinate descent over the atoms in turn, does not."""
    X = _data(n=100)
    with pytest.warns(UserWarning, match="symmetric"):
        a = StochasticMF("onmf", "vr", 4, init="ones", max_iter=2, random_state=0,
                         settings="paper").fit(X)
    assert np.ptp(a.components_, axis=0).max() < 1e-12
    with pytest.warns(UserWarning, match="symmetric"):
        g = StochasticMF("onmf", "vr", 4, init="ones", max_iter=2, random_state=0).fit(X)
    assert np.ptp(g.components_, axis=0).max() > 1e-4
    b = StochasticMF("onmf", "vr", 4, init="ones_jitter", max_iter=2, random_state=0).fit(X)
    assert np.ptp(b.components_, axis=0).max() > 1e-4


@pytest.mark.parametrize("method", ["vr", "smm", "sgd"])
@pytest.mark.parametrize("problem", ["odl", "onmf", "orpca", "ornmf", "ossl", "ssodl",
                                     "omrmd", "olrr"])
def test_every_problem_and_method_decreases_the_objective(problem, method):
    X = _data(n=150, F=10, K=3, seed=3)
    kw = dict(init="ones_jitter", random_state=0)
    problem = Problem(problem, quadratic="data" if problem == "olrr" else None)
    est = StochasticMF(problem, method, 3, max_iter=3, **kw)
    start = StochasticMF(problem, method, 3, max_iter=1, **kw)
    start._start(start._check(X, True))  # the same initial dictionary, not yet fitted
    est.fit(X)
    assert np.isfinite(est.components_).all()
    assert est.objective(X) < start.objective(X)


def test_option_one_returns_one_of_the_iterates():
    X = _data(n=100)
    est = StochasticMF("onmf", "vr", 4, max_iter=2, output="random", random_state=0).fit(X)
    assert np.all(est.components_ >= 0)
    assert np.allclose(est.components_.sum(axis=1), 1)


def test_orpca_recovers_the_planted_subspace():
    data, W = make_smf_synthetic(2000, 40, 3, density=0.1, magnitude=10, random_state=0)
    est = StochasticMF("orpca", "sgd", 3, max_iter=5, random_state=0).fit(data.X)
    assert expressed_variance(W, est.components_) > 0.95
    assert expressed_variance(W, np.random.default_rng(7).normal(size=(3, 40))) < 0.5


def test_batch_reference_decreases_to_stationarity():
    P = make_problem("onmf", 10, alpha=0.2).bind(40)
    X = _data(n=40, F=10, K=3)
    D, values = batch_reference(P, X, _dict(P, 3, 10), max_iter=60, rtol=1e-6)
    assert np.all(np.diff(values) <= 1e-10) and values[-1] < values[0]


def test_batch_reference_stops_when_f_stalls():
    P = make_problem("onmf", 10, alpha=0.2).bind(40)
    X = _data(n=40, F=10, K=3)
    D0 = _dict(P, 3, 10)
    _, full = batch_reference(P, X, D0, max_iter=60, rtol=0.0)
    assert len(full) == 61  # no stall test by default: every step is taken
    ftol = 2e-4
    drops = [(full[i - 5] - full[i]) / max(abs(full[i]), 1.0) for i in range(5, 61)]
    first = next(i for i, d in zip(range(5, 61), drops) if d <= ftol)  # the stall, by hand
    _, stalled = batch_reference(P, X, D0, max_iter=60, rtol=0.0, ftol=ftol, window=5)
    assert 5 < first < 60 and len(stalled) == first + 1
    np.testing.assert_allclose(stalled, full[:first + 1])


@pytest.mark.parametrize("problem", ["ornmf", "onmf"])
def test_an_interrupted_batch_reference_resumes_to_the_same_result(tmp_path, problem):
    """Killed after its 7th accepted step, the reference resumes from its state file and
    returns the dictionary and f values of an uninterrupted run, bit for bit (the kept
    evaluation carries its codes, so nothing is re-solved); the file goes at the end; a
    file from another start is refused and left as it was."""
    P = make_problem(problem, 10).bind(40)
    X = _data(n=40, F=10, K=3)
    D0 = _dict(P, 3, 10)
    path = str(tmp_path / "ref.state")
    kw = dict(max_iter=25, rtol=0.0, ftol=1e-12, window=5)
    D_whole, whole = batch_reference(P, X, D0, **kw)
    steps = []

    def killed(D, cur):
        steps.append(1)
        if len(steps) == 7:
            raise _Stop

    with pytest.raises(_Stop):
        batch_reference(P, X, D0, state_file=path, callback=killed, **kw)
    with pytest.raises(ValueError, match="other"):
        batch_reference(P, X, D0 * 1.01, state_file=path, **kw)
    D, values = batch_reference(P, X, D0, state_file=path, callback=killed, **kw)
    assert len(steps) == 7 + len(whole) - 1 - 6  # the 7th step (killed) is taken again
    np.testing.assert_array_equal(D, D_whole)
    assert values == whole
    assert not (tmp_path / "ref.state").exists()


def test_a_batch_reference_over_worker_processes_equals_the_serial_one():
    """``reproduce --jobs 2``: the reference's evaluations map their chunks over two worker
    processes (Context.map_fn); the chunks come back in order, so the dictionary and the f
    values are those of the serial run, bit for bit."""
    P = make_problem("ornmf", 10).bind(40)
    X = _data(n=40, F=10, K=3)
    D0 = _dict(P, 3, 10)
    kw = dict(max_iter=6, rtol=0.0, chunk_size=7)  # six chunks, the last one short
    D1, serial = batch_reference(P, X, D0, **kw)
    D2, parallel = batch_reference(P, X, D0, map_fn=Context(jobs=2).map_fn(), **kw)
    np.testing.assert_array_equal(D2, D1)
    assert parallel == serial and serial[-1] < serial[0]
    assert Context().map_fn() is map


def test_transform_decompose_and_partial_fit():
    X = _data(n=80, nonneg=False)
    est = StochasticMF("orpca", "smm", 4, max_iter=1, random_state=0).fit(X)
    low, out = est.decompose(X)
    assert low.shape == out.shape == X.shape
    assert est.transform(X).shape == (80, 4)
    before = est.components_.copy()
    est.partial_fit(X[:20])
    assert not np.allclose(before, est.components_)
    vr = StochasticMF("odl", "vr", 4, random_state=0).partial_fit(X)
    assert vr.n_iter_ == 1


def test_bad_input_names_the_problem_and_keeps_state():
    X = _data(n=50)
    est = StochasticMF("onmf", "smm", 3, max_iter=1, random_state=0).fit(X)
    D = est.components_.copy()
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.partial_fit(bad)
    with pytest.raises(ValueError, match="features"):
        est.partial_fit(X[:, :5])
    assert np.array_equal(D, est.components_)
    with pytest.raises(ValueError, match="init must have shape"):
        StochasticMF("onmf", n_components=3, init=np.ones((2, 2))).fit(X)
    with pytest.raises(FloatingPointError, match="diverged"):
        StochasticMF("ossl", "vr", 3, max_iter=3, step=SMFStep(learning_rate=1e300)).fit(X * 1e3)


def test_step_scale_multiplies_the_automatic_steps():
    X = _data(n=100)
    a = StochasticMF("onmf", "vr", 3, max_iter=1, random_state=0).fit(X)
    b = StochasticMF("onmf", "vr", 3, max_iter=1, random_state=0, step=SMFStep(scale=2.0)).fit(X)
    assert b.learning_rate_ == pytest.approx(2 * a.learning_rate_)
    c = StochasticMF("onmf", "sgd", 3, max_iter=1, random_state=0).partial_fit(X[:20])
    d = StochasticMF("onmf", "sgd", 3, max_iter=1, random_state=0,
                     step=SMFStep(scale=0.5)).partial_fit(X[:20])
    assert d.learning_rate_ == pytest.approx(0.5 * c.learning_rate_)


def test_ones_jitter_follows_random_state_and_init_array_is_copied():
    rng = np.random.default_rng(0)
    X = rng.random((60, 12))
    a = StochasticMF("orpca", "sgd", 3, max_iter=1, init="ones_jitter", random_state=1).fit(X)
    b = StochasticMF("orpca", "sgd", 3, max_iter=1, init="ones_jitter", random_state=2).fit(X)
    c = StochasticMF("orpca", "sgd", 3, max_iter=1, init="ones_jitter", random_state=1).fit(X)
    assert not np.array_equal(a.components_, b.components_)
    np.testing.assert_array_equal(a.components_, c.components_)
    D0 = np.abs(rng.random((3, 12)))
    keep = D0.copy()
    est = StochasticMF("onmf", "smm", 3, max_iter=1, init=D0, random_state=0).fit(X)
    assert est.components_ is not D0 and not np.shares_memory(est.components_, D0)
    np.testing.assert_array_equal(D0, keep)


def _bsum_by_gathers(problem, D, X, tol, max_iter):
    """The plain BSUM sweep with per-sample stopping, gathering the live rows every sweep
    (the reference for the compacted loop)."""
    n, K = X.shape[0], D.shape[0]
    G = D @ D.T
    L = max(float(np.linalg.eigvalsh(G)[-1]), 1e-12)
    H = np.zeros((n, K))
    robust = problem.outliers is not None
    R = np.zeros_like(X) if robust else None
    XDt = X @ D.T
    act = np.arange(n)
    for _ in range(max_iter):
        Ha = H[act]
        grad = Ha @ G - XDt[act]
        if robust:
            grad += R[act] @ D.T
        Hn = problem.codes.prox(Ha - grad / L, 1.0 / L)
        change = L * np.linalg.norm(Hn - Ha, axis=1)
        if robust:
            Rn = problem.outliers.prox(X[act] - Hn @ D)
            change = np.maximum(change, np.linalg.norm(Rn - R[act], axis=1))
            R[act] = Rn
        H[act] = Hn
        act = act[change > tol]
        if act.size == 0:
            break
    return H, R


@pytest.mark.parametrize("name", ["odl", "onmf", "orpca", "ornmf"])
@pytest.mark.parametrize("max_iter", [3, 40, 5000])
def test_compacted_bsum_takes_the_gathering_sweeps_iterates(name, max_iter):
    """Rows stop at different sweeps; the compacted loop gives every row the same result as
    sweeps that gather the live rows each time (to rounding), whether the cap or the
    tolerance stops them."""
    P = make_problem(name, 12)
    X = _data(n=80, nonneg=name in ("onmf", "ornmf"))
    X[::7] *= 30  # rows far apart in scale stop at very different sweeps
    D = _dict(P, 4, 12)
    res = solve_codes_bsum(P, D, X, 1e-7, max_iter=max_iter)
    H, R = _bsum_by_gathers(P, D, X, 1e-7, max_iter)
    np.testing.assert_allclose(res.codes, H, rtol=1e-12, atol=1e-14)
    if R is not None:
        np.testing.assert_allclose(res.outliers, R, rtol=1e-12, atol=1e-14)


# ----------------------------------------------------------------------- the code solver
def test_newton_code_solver_refused_where_it_does_not_apply_state_kept():
    X = _data(n=60)
    est = StochasticMF("onmf", "vr", 3, max_iter=1, random_state=0).fit(X)
    before = est.components_.copy()
    est.set_params(coder=SMFCoder("newton"))
    with pytest.raises(ValueError, match="SMFCoder\\(solver='newton'\\).*'onmf'"):
        est.fit(X)
    assert np.array_equal(est.components_, before)


@pytest.mark.parametrize("method", ["vr", "smm", "sgd"])
def test_newton_and_bsum_code_solvers_give_the_same_iterates_when_tight(method):
    """Both solve the same strictly convex ORPCA code problems: at a tolerance near machine
    precision the algorithm's iterates agree, so the solver changes time, not the method."""
    data, _ = make_smf_synthetic(90, 12, 2, density=0.1, magnitude=5, random_state=0)
    fits = [StochasticMF(Problem("orpca", alpha=0.3), method, 3, max_iter=2, random_state=0,
                         coder=SMFCoder(s, tol=1e-12, max_iter=200_000)).fit(data.X)
            for s in ("bsum", "newton")]
    # (SGD's early steps are long: codes equal to ~1e-10 leave ~1e-6 in the dictionary; VR's
    # metric step divides by the small curvatures of its metric, which leaves ~1e-4)
    atol = 1e-3 if method == "vr" else 1e-5
    assert np.allclose(fits[0].components_, fits[1].components_, atol=atol)
    assert np.ptp(fits[0].components_) > 1e-3  # the fit moved


def test_vr_direction_with_the_newton_solver_is_the_gradient():
    from onlinemf.coders import solve_codes_newton_capped

    P = make_problem("orpca", 12, alpha=0.3, outlier_alpha=0.2).bind(40)
    X = _data(n=40, nonneg=False)
    D0 = rng.normal(size=(4, 12))
    D = D0 + 0.01 * rng.normal(size=D0.shape)
    tol = 1e-11
    G0 = full_gradient(P, D0, X, tol, max_iter=100_000).mean_grad
    G = full_gradient(P, D, X, tol, max_iter=100_000).mean_grad
    V, solves = vr_direction(P, D, D0, X, G0, tol, max_iter=100_000,
                             solver=solve_codes_newton_capped)
    assert solves == 80 and np.allclose(V, G, atol=1e-8)


@pytest.mark.parametrize("density", [0.0, 0.05, 0.5, 0.95, 1.0, "mixed"])
def test_weighted_gram_equals_the_direct_product(density):
    from onlinemf.coders._accurate import _weighted_gram

    r = np.random.default_rng(3)
    K, F, n = 5, 17, 300
    D = r.normal(size=(K, F))
    cut = r.random((n, 1)) if density == "mixed" else density
    W = r.random((n, F)) >= cut
    direct = np.matmul(D[None] * W[:, None, :], D.T)
    got = _weighted_gram(D, W, D @ D.T, rows=16)
    assert got.shape == (n, K, K)
    assert np.allclose(got, direct, atol=1e-12 * max(np.abs(D @ D.T).max(), 1.0))


# ------------------------------------------------------------------------ resumable fits
class _Stop(Exception):
    pass


def _stop_at(passes):
    """A callback that interrupts the fit at its first evaluation after ``passes``."""
    def callback(info):
        if info["passes"] >= passes:
            raise _Stop
    return callback


@pytest.mark.parametrize("method,problem", [("vr", "orpca"), ("vr", "onmf"),
                                            ("sgd", "ornmf"), ("smm", "odl")])
def test_an_interrupted_fit_resumes_from_its_state_file_to_the_same_result(
        tmp_path, method, problem):
    X = _data(n=90, F=10, nonneg=problem != "orpca")
    path = str(tmp_path / "fit.state")
    kw = dict(problem=problem, method=method, n_components=3, max_iter=4, eval_every=0.3,
              random_state=5)
    # an outer iteration is about three passes at the defaults: stop in the second
    whole = StochasticMF(**kw).fit(X)
    est = StochasticMF(**kw, state_file=path, callback=_stop_at(4.5))
    with pytest.raises(_Stop):
        est.fit(X)
    assert not hasattr(est, "components_")  # the failed call left the estimator unfitted
    import pickle
    with open(path, "rb") as fh:
        kept = pickle.load(fh)["state"]
    assert 0 < kept["n_solves_"] < whole.n_solves_  # the file holds a fit midway
    est.set_params(callback=None).fit(X)  # resumes
    assert not (tmp_path / "fit.state").exists()  # removed once the fit ends
    np.testing.assert_array_equal(est.components_, whole.components_)
    h, w = est.history_, whole.history_
    np.testing.assert_array_equal(h["n_samples"], w["n_samples"])
    np.testing.assert_allclose(h["objective"], w["objective"], rtol=1e-12)
    assert np.all(np.diff(h["time"]) >= 0)
    assert est.n_solves_ == whole.n_solves_ and est.n_iter_ == whole.n_iter_


def test_a_state_file_of_another_fit_is_refused_and_left_as_it_was(tmp_path):
    X = _data(n=90, F=10)
    path = tmp_path / "fit.state"
    kw = dict(problem="onmf", n_components=3, max_iter=3, eval_every=0.3, random_state=5)
    with pytest.raises(_Stop):
        StochasticMF(**kw, state_file=str(path), callback=_stop_at(4.5)).fit(X)
    before = path.read_bytes()
    for other_X, other in ((X, dict(kw, n_components=4)), (X[:80], kw),
                           (X, dict(kw, random_state=6))):
        est = StochasticMF(**other, state_file=str(path))
        with pytest.raises(ValueError, match="other data or with other parameters"):
            est.fit(other_X)
        assert not hasattr(est, "components_")
    assert path.read_bytes() == before
    path.write_bytes(b"not a state")
    with pytest.raises(ValueError, match="cannot resume from state_file"):
        StochasticMF(**kw, state_file=str(path)).fit(X)


def test_settings_and_nested_parameters():
    """The problem's weights, the steps and the coder are nested parameters (clone and
    set_params reach them); "paper" keeps the paper's m = 0.5·n^{1/3}, the default an inner
    loop of about one pass (m·b ≈ n)."""
    from sklearn.base import clone

    X = _data(n=200, F=10, K=3, seed=1, nonneg=False)
    est = StochasticMF(Problem("odl", alpha=0.2), "vr", 3, max_iter=1, random_state=0,
                       coder=SMFCoder(tol=0.5))
    params = est.get_params()
    assert params["problem__alpha"] == 0.2 and params["coder__tol"] == 0.5
    fitted = clone(est).set_params(problem__alpha=0.3).fit(X)
    assert fitted.problem_.codes.alpha == 0.3
    b, m = default_batch_params(200)
    paper = clone(est).set_params(settings="paper").fit(X)
    assert (paper.batch_size_, paper.inner_iter_) == (b, m)
    assert fitted.batch_size_ == b and fitted.inner_iter_ * b >= 200 > (fitted.inner_iter_ - 1) * b
    with pytest.raises(ValueError, match="coder: The 'tol' parameter"):
        clone(est).set_params(coder=SMFCoder(tol=-1.0)).fit(X)
    with pytest.raises(ValueError, match="problem: The 'alpha' parameter"):
        clone(est).set_params(problem=Problem("odl", alpha=-1.0)).fit(X)


def test_a_state_file_of_another_format_is_refused_by_name(tmp_path):
    """A state file records its format and the writing version; one in the earlier layout
    (a bare (key, state) pair) is refused with both named, and left as it was."""
    import pickle

    from onlinemf._state_file import STATE_FORMAT

    X = _data(n=90, F=10)
    path = tmp_path / "fit.state"
    kw = dict(problem="onmf", n_components=3, max_iter=3, eval_every=0.3, random_state=5)
    with pytest.raises(_Stop):
        StochasticMF(**kw, state_file=str(path), callback=_stop_at(4.5)).fit(X)
    with open(path, "rb") as fh:
        kept = pickle.load(fh)
    assert kept["format"] == STATE_FORMAT
    with open(path, "wb") as fh:
        pickle.dump((kept["key"], kept["state"]), fh)
    before = path.read_bytes()
    with pytest.raises(ValueError, match=f"format 0.*reads format {STATE_FORMAT}"):
        StochasticMF(**kw, state_file=str(path)).fit(X)
    assert path.read_bytes() == before


# ----------------------------------------------------------------------- VR's metric step
def _metric_objective(P, D, V, M, Dn):
    """⟨V, D'⟩ + ½tr((D' − D)ᵀM(D' − D)) + ψ(D'), the metric step's objective at D'."""
    E = Dn - D
    return float(np.sum(V * Dn) + 0.5 * np.sum(E * (M @ E)) + P.psi(Dn))


def test_metric_step_with_a_scalar_metric_is_the_papers_proximal_step():
    """With M = I/η the metric step is prox_{ηψ}(D − ηV) (ORPCA's ridge ψ: closed form)."""
    from onlinemf.updates._variance_reduction import metric_step

    P = make_problem("orpca", 10).bind(50)
    r = np.random.default_rng(4)
    D, V, eta = r.normal(size=(4, 10)), r.normal(size=(4, 10)), 0.3
    got = metric_step(P, D, V, np.eye(4) / eta)
    assert np.allclose(got, P.prox_dictionary(D - eta * V, eta))


@pytest.mark.parametrize("problem", ["orpca", "odl"])
def test_metric_step_lowers_its_objective_and_is_stationary_where_exact(problem):
    """The step never raises its own objective (BCD's atom steps are exact), and where it is
    solved in closed form (ORPCA) its gradient vanishes there; a random feasible point is
    no lower."""
    from onlinemf.updates._variance_reduction import metric_step

    P = make_problem(problem, 10).bind(50)
    r = np.random.default_rng(5)
    H = r.normal(size=(50, 4))
    M = H.T @ H / 50
    D = P.project_dictionary(r.normal(size=(4, 10)))
    V = r.normal(size=(4, 10))
    Dn = metric_step(P, D, V, M)
    f = _metric_objective(P, D, V, M, Dn)
    assert f < _metric_objective(P, D, V, M, D)
    other = P.project_dictionary(Dn + 0.05 * r.normal(size=Dn.shape))
    assert f <= _metric_objective(P, D, V, M, other) + 1e-12
    if problem == "orpca":
        grad = V + M @ (Dn - D) + P.dictionary.alpha / P.n_samples * Dn
        assert np.abs(grad).max() < 1e-10


def test_default_vr_steps_in_the_snapshot_metric_and_paper_keeps_the_scalar_step():
    """Defaults: the metric rule (M = (Â + δλ_max(Â)I)/η, so the reported step is
    η/((1 + δ)λ_max(Â)), δ the larger one at the cold start of max_iter=1); the paper's preset,
    rule="curvature" and an explicit η keep the scalar step; "paper" equals the default with
    the paper's m, the scalar rule and no warm start."""
    from onlinemf.estimators._smf_settings import METRIC_DAMPING, METRIC_STEP

    X = _data(n=200, F=10, K=3, seed=2)
    assert SMFStep().vr_metric("default") and not SMFStep().vr_metric("paper")
    assert SMFStep(rule="metric").vr_metric("paper")
    assert not SMFStep(rule="curvature").vr_metric("default")
    assert not SMFStep(learning_rate=0.1).vr_metric("default")
    kw = dict(max_iter=1, random_state=0)
    a = StochasticMF("onmf", "vr", 3, **kw).fit(X)
    b = StochasticMF("onmf", "vr", 3, step=SMFStep(rule="curvature"), **kw).fit(X)
    assert a.learning_rate_ == pytest.approx(b.learning_rate_ * METRIC_STEP
                                             / (1 + METRIC_DAMPING))
    assert not np.allclose(a.components_, b.components_)
    _, m = default_batch_params(200)
    kw["max_iter"] = 3
    paper = StochasticMF("onmf", "vr", 3, settings="paper", **kw).fit(X)
    same = StochasticMF("onmf", "vr", 3, inner_iter=m,
                        step=SMFStep(rule="curvature", warm_start=False, safeguard=False),
                        **kw).fit(X)
    assert np.array_equal(paper.components_, same.components_)
    warm = StochasticMF("onmf", "vr", 3, inner_iter=m, step=SMFStep(rule="curvature"),
                        **kw).fit(X)
    assert not np.array_equal(paper.components_, warm.components_)


def test_metric_damping_follows_the_dictionary_step():
    """The metric's δ is the small one where the step is BCD over the atoms (an
    atom-separable set: ODL, ONMF) at a snapshot of a fitted dictionary, and the larger one
    where it is solved as a whole (ORPCA's closed form) or at the cold start; the paper's
    scalar step has no metric."""
    from onlinemf.estimators._smf_settings import METRIC_DAMPING, METRIC_DAMPING_ATOMS

    assert METRIC_DAMPING_ATOMS < METRIC_DAMPING
    X = _data(n=80, F=8, K=3, seed=1, nonneg=False)
    for problem, damping in (("odl", METRIC_DAMPING_ATOMS), ("onmf", METRIC_DAMPING_ATOMS),
                             ("orpca", METRIC_DAMPING)):
        est = StochasticMF(problem, "vr", 3, max_iter=1, random_state=0)
        est.fit(np.abs(X) if problem == "onmf" else X)
        rule = est._vr_rule()  # n_iter_ is 1 after the fit: a fitted dictionary's snapshot
        assert rule.metric and rule.damping == damping
        est.n_iter_ = 0
        assert est._vr_rule().damping == METRIC_DAMPING
    paper = StochasticMF("odl", "vr", 3, max_iter=1, settings="paper", random_state=0).fit(X)
    assert not paper._vr_rule().metric


def _snapshot_spy(monkeypatch):
    """Record (dictionary, steps, solves) at every VR snapshot."""
    seen = []
    original = StochasticMF._vr_snapshot

    def spy(self, X, *args):
        seen.append((self.components_.copy(), self.n_steps_, self.n_solves_))
        return original(self, X, *args)

    monkeypatch.setattr(StochasticMF, "_vr_snapshot", spy)
    return seen


def test_vr_warm_start_is_one_outer_iteration_of_smm_steps(monkeypatch):
    """At the defaults VR's first outer iteration is SMM's first outer iteration exactly:
    the same steps on the same draws (so the first snapshot is SMM's dictionary after its
    budget of one outer iteration), then max_iter − 1 snapshots, at the rivals' passes."""
    X = _data(n=200, F=10, K=3, seed=4)
    seen = _snapshot_spy(monkeypatch)
    vr = StochasticMF("onmf", "vr", 3, max_iter=3, random_state=0).fit(X)
    smm1 = StochasticMF("onmf", "smm", 3, max_iter=1, random_state=0).fit(X)
    smm3 = StochasticMF("onmf", "smm", 3, max_iter=3, random_state=0).fit(X)
    assert len(seen) == 2
    D, steps, solves = seen[0]
    assert steps == smm1.n_steps_ == smm1._budget_steps(200, 1)
    assert solves == smm1.n_solves_
    assert np.array_equal(D, smm1.components_)
    assert vr.state_ is None and vr.n_iter_ == 3
    assert vr.n_steps_ == smm1.n_steps_ + 2 * vr.inner_iter_
    assert vr.n_solves_ == pytest.approx(smm3.n_solves_, abs=vr.batch_size_)


def test_vr_warm_start_is_off_in_the_paper_preset_and_at_one_outer_iteration(monkeypatch):
    """No SMM steps under settings="paper", with warm_start=False, or with max_iter=1 (VR
    would then be SMM); warm_start=True turns it on under the paper's preset."""
    X = _data(n=150, F=8, K=3, seed=3)
    seen = _snapshot_spy(monkeypatch)
    cases = [(dict(settings="paper"), 3), (dict(step=SMFStep(warm_start=False)), 3),
             (dict(settings="paper", step=SMFStep(warm_start=True)), 2)]
    for kw, snapshots in cases:
        seen.clear()
        StochasticMF("onmf", "vr", 3, max_iter=3, random_state=0, **kw).fit(X)
        assert len(seen) == snapshots
        assert (seen[0][1] == 0) == (snapshots == 3)
    seen.clear()
    StochasticMF("onmf", "vr", 3, max_iter=1, random_state=0).fit(X)
    assert len(seen) == 1 and seen[0][1] == 0


def _guard_spy(monkeypatch):
    """Record (objective, η in, η out, halvings after) at every guarded snapshot."""
    seen = []
    original = StochasticMF._guarded

    def spy(self, rule, snap, objective):
        out = original(self, rule, snap, objective)
        seen.append((objective, snap.eta, out.eta, self.vr_step_halvings_))
        return out

    monkeypatch.setattr(StochasticMF, "_guarded", spy)
    return seen


def test_vr_safeguard_halves_the_step_exactly_when_the_snapshot_objective_rose(monkeypatch):
    """At the defaults each snapshot after the first halves η (for the rest of the fit)
    exactly when its objective is above the previous snapshot's; the metric scales with
    it. Too long a step (scale 8) makes the objective rise, so both branches are taken."""
    X = _data(n=150, F=10, K=3, seed=2, nonneg=False)
    seen = _guard_spy(monkeypatch)
    est = StochasticMF("odl", "vr", 4, max_iter=8, step=SMFStep(scale=8.0),
                       random_state=0).fit(X)
    assert len(seen) == 7  # the warm start, then 7 snapshots
    rises = [b[0] > a[0] for a, b in zip(seen, seen[1:])]
    assert any(rises) and not all(rises)
    halvings = [h for *_, h in seen]
    assert halvings[0] == 0
    assert np.diff(halvings).tolist() == [int(r) for r in rises]
    for _, eta_in, eta_out, h in seen:
        assert eta_out == pytest.approx(eta_in * 0.5 ** h)
    assert est.vr_step_halvings_ == halvings[-1] > 0
    assert est.learning_rate_ == seen[-1][2]
    seen.clear()
    off = StochasticMF("odl", "vr", 4, max_iter=8, random_state=0,
                       step=SMFStep(scale=8.0, safeguard=False)).fit(X)
    assert not seen and off.vr_step_halvings_ == 0
    assert not np.array_equal(off.components_, est.components_)
    assert off.n_solves_ == est.n_solves_  # the safeguard spends no solves


def test_vr_safeguard_is_off_in_the_paper_preset_and_in_partial_fit(monkeypatch):
    """The paper's constant η is never halved (settings="paper" is Algorithm 1 as
    published), nor in partial_fit, whose outer iterations are over different rows;
    safeguard=True turns it on under the paper's preset."""
    assert SMFStep().vr_safeguard("default") and not SMFStep().vr_safeguard("paper")
    assert SMFStep(safeguard=True).vr_safeguard("paper")
    assert not SMFStep(safeguard=False).vr_safeguard("default")
    X = _data(n=150, F=10, K=3, seed=2, nonneg=False)
    seen = _guard_spy(monkeypatch)
    kw = dict(max_iter=8, random_state=0)
    paper = StochasticMF("odl", "vr", 4, settings="paper", step=SMFStep(scale=8.0), **kw)
    assert paper.fit(X).vr_step_halvings_ == 0 and not seen
    StochasticMF("odl", "vr", 4, settings="paper", step=SMFStep(scale=8.0, safeguard=True),
                 **kw).fit(X)
    assert len(seen) == 8
    seen.clear()
    est = StochasticMF("odl", "vr", 4, step=SMFStep(scale=8.0), random_state=0)
    for block in np.array_split(X, 3):
        est.partial_fit(block)
    assert not seen and est.vr_step_halvings_ == 0


def test_the_metric_step_is_held_over_the_fit_and_follows_scale():
    """η of the metric rule is the constant ``scale``: each snapshot's metric is its code
    covariance over that η, and twice the scale halves the metric at the same snapshot."""
    from onlinemf.updates import SVRGUpdate

    X = _data(n=120, F=10, K=3, seed=6)
    P = make_problem("onmf", 10).bind(120)
    D = _dict(P, 3, 10)
    snaps = [SVRGUpdate(P, metric=True, step_scale=s).init(D, X, 1e-6) for s in (1.0, 2.0)]
    assert np.allclose(snaps[0].metric, 2 * snaps[1].metric)
    terms = full_gradient(P, D, X, 1e-6)
    assert np.allclose(snaps[0].metric, terms.hh / 120)


def test_default_vr_is_no_worse_than_smm_on_planted_orpca_at_equal_passes():
    """On a small planted ORPCA problem (the Synth recipe, more atoms than the rank) VR at
    its defaults ends no higher than SMM at the same number of passes."""
    data, _ = make_smf_synthetic(200, 16, 2, density=0.1, magnitude=10, random_state=0)
    X = data.X
    fits = {m: StochasticMF("orpca", m, 5, max_iter=6, random_state=0).fit(X)
            for m in ("vr", "smm")}
    assert fits["vr"].n_solves_ == pytest.approx(fits["smm"].n_solves_, rel=0.02)
    assert fits["vr"].objective(X) <= fits["smm"].objective(X)


def test_the_weighted_expressed_variance_is_xu_caramanis_and_mannors():
    # Σ_j ŵ_jᵀ AᵀA ŵ_j over k′ orthonormal estimated directions, divided by the same sum over
    # the clean data's top k′ principal directions (A centred: Xu et al.'s signal has mean
    # zero): 1 for the true span (any basis of it, or a larger span holding it), the direct
    # sum for a k′-dimensional estimate, an estimate of more atoms read through its best k′
    # directions
    from onlinemf.datasets import weighted_expressed_variance

    data, W = make_smf_synthetic(500, 30, 3, density=0.1, magnitude=10, random_state=0)
    A = data.X_clean - data.X_clean.mean(axis=0)
    ev = weighted_expressed_variance(W, A)
    rng = np.random.default_rng(0)
    assert ev(W) == pytest.approx(1.0, abs=1e-10)
    assert ev(rng.normal(size=(3, 3)) @ W) == pytest.approx(1.0, abs=1e-10)
    assert ev(np.vstack([W, rng.normal(size=(4, 30))])) == pytest.approx(1.0, abs=1e-10)
    est = W + 0.5 * rng.normal(size=W.shape)
    Q = np.linalg.qr(est.T)[0]  # orthonormal estimated directions, columns
    top = np.sort(np.linalg.eigvalsh(A.T @ A))[::-1][:3].sum()
    direct = np.trace(Q.T @ A.T @ A @ Q) / top
    assert ev(est) == pytest.approx(direct, rel=1e-10) and 0 < direct < 1
    wide = np.vstack([est, rng.normal(size=(4, 30))])
    assert direct <= ev(wide) <= 1
    assert expressed_variance(W, est, clean=A) == ev(est)
    assert ev(rng.normal(size=(3, 30))) < 0.5
    # the data's mean is no signal: uncentred data give the centred data's EV
    assert weighted_expressed_variance(W, data.X_clean)(est) == pytest.approx(ev(est), rel=1e-9)
    # read through the estimate's own top k′ singular directions: the true span scaled up
    # still scores 1, while a span holding it under larger unrelated atoms scores their share
    assert ev(10 * W, top_directions=True) == pytest.approx(1.0, abs=1e-10)
    noise = 100 * rng.normal(size=(4, 30))
    loud = np.vstack([W, noise])
    assert ev(loud) == pytest.approx(1.0, abs=1e-10)
    Vt = np.linalg.svd(loud, full_matrices=False)[2][:3]
    assert ev(loud, top_directions=True) == pytest.approx(
        np.trace(Vt @ A.T @ A @ Vt.T) / top, rel=1e-10)
    assert ev(loud, top_directions=True) < 0.5
    assert ev(est, top_directions=True) == pytest.approx(ev(est), rel=1e-10)  # k′ atoms
