import pickle

import numpy as np
import pytest
from scipy.optimize import minimize

from onlinemf import OnlineRobustNMF, Penalty, RobustSolver
from onlinemf.coders import outlier_loss, solve_codes_outliers
from onlinemf.constraints import (
    outlier_step,
    project_nonneg_elastic_ball,
    project_nonneg_l2_ball,
    soft_threshold,
)
from onlinemf.updates import OutlierSurrogateUpdate, solve_surrogate_dictionary


def _empty_stats():
    """The zero statistics of OnlineRobustNMF's rule for K = 5 atoms of F = 64 features."""
    return OutlierSurrogateUpdate(project_nonneg_l2_ball).init(np.zeros((5, 64))).stats

def _planted(rng, n=600, f=64, k=5, density=0.1):
    W = np.abs(rng.normal(size=(k, f)))
    H = np.abs(rng.normal(size=(n, k)))
    V = H @ W
    V /= V.max(axis=1, keepdims=True)
    X = V.copy()
    out = rng.random(V.shape) < density
    X[out] = np.clip(X[out] + rng.uniform(-1, 1, out.sum()), 0, None)
    return V, X, out


def _psnr(a, b):
    return 10 * np.log10(1.0 / np.mean((a - b) ** 2))


def test_clipped_soft_threshold_and_huber_identity(rng):
    x = rng.normal(0, 2, size=200)
    lam, M = 0.3, 1.0
    r = outlier_step(x[None], lam, M)[0]
    np.testing.assert_allclose(r, np.clip(soft_threshold(x, lam), -M, M))
    # min_{|r| ≤ M} ½(x − r)² + λ|r| = ψ_{λ,M}(x), against a fine grid
    grid = np.linspace(-M, M, 200001)
    brute = np.array([np.min(0.5 * (xi - grid) ** 2 + lam * np.abs(grid)) for xi in x[:30]])
    a = np.abs(x[:30])
    psi = np.where(a <= lam, 0.5 * a**2,
                   np.where(a <= lam + M, lam * a - 0.5 * lam**2, 0.5 * (a - M) ** 2 + lam * M))
    np.testing.assert_allclose(psi, brute, atol=1e-8)
    np.testing.assert_allclose(0.5 * (x[:30] - r[:30]) ** 2 + lam * np.abs(r[:30]), psi,
                               atol=1e-12)


def test_admm_r_step_is_optimal(rng):
    a, q, beta = rng.normal(size=(3, 50))
    lam, rho = 0.2, 1.5
    r = soft_threshold(a + rho * q - beta, lam) / (1 + rho)
    # subgradient optimality: 0 ∈ (r − a) + ρ(r − q) + β + λ ∂|r|
    g = (r - a) + rho * (r - q) + beta
    nz = r != 0
    np.testing.assert_allclose(g[nz], -lam * np.sign(r[nz]), atol=1e-12)
    assert np.all(np.abs(g[~nz]) <= lam + 1e-12)


def test_atom_projections(rng):
    V = rng.normal(size=(6, 20))
    P = project_nonneg_l2_ball(V)
    assert P.min() >= 0 and np.linalg.norm(P, axis=1).max() <= 1 + 1e-12
    np.testing.assert_allclose(project_nonneg_l2_ball(P), P)
    for _ in range(100):
        Z = project_nonneg_l2_ball(rng.normal(size=V.shape))
        assert np.sum((V - P) * (Z - P)) <= 1e-12
    l1, l2 = 0.5, 1.0
    E = project_nonneg_elastic_ball(3 * V, l1, l2)
    g = l1 * E.sum(axis=1) + 0.5 * l2 * (E**2).sum(axis=1)
    assert E.min() >= 0 and g.max() <= 1 + 1e-9
    v = 3 * V[0]
    cons = {"type": "ineq", "fun": lambda w: 1 - l1 * w.sum() - 0.5 * l2 * w @ w}
    ref = minimize(lambda w: 0.5 * np.sum((w - v) ** 2), np.zeros(20), jac=lambda w: w - v,
                   bounds=[(0, None)] * 20, constraints=[cons], method="SLSQP",
                   options={"ftol": 1e-14, "maxiter": 500})
    np.testing.assert_allclose(E[0], ref.x, atol=1e-5)


@pytest.mark.parametrize("solver", ["pgd", "fista", "admm"])
def test_code_solvers_reach_the_minimum(rng, solver):
    _, X, _ = _planted(rng, n=5)
    D = project_nonneg_l2_ball(rng.random((5, 64)))
    lam = 0.125
    res = solve_codes_outliers(D, X, lam, 1.0, solver=solver, max_iter=20000, tol=1e-14)
    # reference: the Huber form in h, by L-BFGS-B with bounds
    for i in range(X.shape[0]):
        x = X[i]

        def fun(h, x=x):
            u = x - h @ D
            r = outlier_step(u[None], lam, 1.0)[0]
            return 0.5 * np.sum((u - r) ** 2) + lam * np.abs(r).sum(), -(u - r) @ D.T

        ref = minimize(fun, np.zeros(5), jac=True, bounds=[(0, None)] * 5, method="L-BFGS-B",
                       options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10000})
        ours = outlier_loss(X[i:i + 1], res.codes[i:i + 1], D, res.outliers[i:i + 1], lam)[0]
        assert ours <= ref.fun + 1e-6 * max(1.0, ref.fun)
    assert res.codes.min() >= 0 and np.abs(res.outliers).max() <= 1.0


def test_pgd_codes_and_dictionary_monotone(rng):
    _, X, _ = _planted(rng, n=20)
    D = project_nonneg_l2_ball(rng.random((5, 64)))
    lam = 0.125
    res = solve_codes_outliers(D, X, lam, solver="pgd", max_iter=0)
    prev = outlier_loss(X, res.codes, D, res.outliers, lam).sum()
    H = res.codes
    for _ in range(100):
        r = solve_codes_outliers(D, X, lam, solver="pgd", init=H, max_iter=1, tol=0)
        H = r.codes
        cur = outlier_loss(X, H, D, r.outliers, lam).sum()
        assert cur <= prev + 1e-12
        prev = cur
    rule = OutlierSurrogateUpdate(project_nonneg_l2_ball, lam)
    stats = rule.accumulate(_empty_stats(), X, H, r.outliers)
    W = project_nonneg_l2_ball(rng.random((5, 64)))
    prev = rule.surrogate(stats, W)
    for _ in range(50):
        W, _ = solve_surrogate_dictionary(W, *stats.sums[:2], project_nonneg_l2_ball,
                                          solver="pgd", max_iter=1, tol=0)
        cur = rule.surrogate(stats, W)
        assert cur <= prev + 1e-12
        prev = cur


def test_dictionary_solvers_agree_and_are_stationary(rng):
    _, X, _ = _planted(rng, n=200)
    D0 = project_nonneg_l2_ball(rng.random((5, 64)))
    res = solve_codes_outliers(D0, X, 0.125)
    rule = OutlierSurrogateUpdate(project_nonneg_l2_ball, 0.125)
    stats = rule.accumulate(_empty_stats(), X, res.codes, res.outliers)
    A, B, _ = stats.sums
    sols = {s: solve_surrogate_dictionary(D0, A, B, project_nonneg_l2_ball, solver=s,
                                          max_iter=20000, tol=1e-15)[0]
            for s in ("pgd", "apgd", "admm")}
    vals = {s: rule.surrogate(stats, W) for s, W in sols.items()}
    assert max(vals.values()) - min(vals.values()) < 1e-7 * abs(min(vals.values()))
    W = sols["apgd"]
    step = 1.0 / np.linalg.eigvalsh(A)[-1]
    resid = np.linalg.norm(W - project_nonneg_l2_ball(W - step * (A @ W - B)))
    assert resid < 1e-6


def test_statistics_are_exact_averages_and_batch_invariant(rng):
    _, X, _ = _planted(rng, n=30)
    D = project_nonneg_l2_ball(rng.random((5, 64)))
    res = solve_codes_outliers(D, X, 0.125)
    H, R = res.codes, res.outliers
    rule = OutlierSurrogateUpdate(project_nonneg_l2_ball, 0.125)
    one = _empty_stats()
    for i in range(30):  # τ = 1, Algorithm 1
        one = rule.accumulate(one, X[i:i + 1], H[i:i + 1], R[i:i + 1])
    batched = _empty_stats()
    for i in range(0, 30, 10):
        batched = rule.accumulate(batched, X[i:i + 10], H[i:i + 10], R[i:i + 10])
    A1, B1, _ = one.sums
    np.testing.assert_allclose(A1, H.T @ H / 30)
    np.testing.assert_allclose(B1, H.T @ (X - R) / 30)
    np.testing.assert_allclose(batched.sums[0], A1)
    np.testing.assert_allclose(batched.sums[1], B1)
    assert np.allclose(A1, A1.T) and np.linalg.eigvalsh(A1).min() > -1e-12
    # f̃(W) from the statistics equals the direct average of eq. (11), for any W
    W = project_nonneg_l2_ball(rng.random((5, 64)))
    direct = outlier_loss(X, H, W, R, 0.125).mean()
    np.testing.assert_allclose(rule.surrogate(one, W), direct)
    # averaged statistics: the ADMM dictionary step does not depend on τ (its ρ is unchanged)
    Wa = solve_surrogate_dictionary(W, *one.sums[:2], project_nonneg_l2_ball, solver="admm")[0]
    Wb = solve_surrogate_dictionary(W, *batched.sums[:2], project_nonneg_l2_ball,
                                    solver="admm")[0]
    np.testing.assert_allclose(Wa, Wb, atol=1e-10)


def test_surrogate_majorizes_the_empirical_loss(rng):
    _, X, _ = _planted(rng, n=400)
    est = OnlineRobustNMF(5, batch_size=10, random_state=0).fit(X)
    Xs = X / X.max(axis=1, keepdims=True)  # the statistics are built on normalized samples
    for W in (est.components_, project_nonneg_l2_ball(rng.random((5, 64)))):
        # f_t(W): every (h, r) re-solved for W with a converging solver
        res = solve_codes_outliers(W, Xs, est.lam_, solver="admm", max_iter=3000, tol=1e-13)
        f_t = outlier_loss(Xs, res.codes, W, res.outliers, est.lam_).mean()
        assert est.surrogate_objective(W) >= f_t - 1e-7


@pytest.mark.parametrize("solver", ["admm", "pgd", "apgd"])
@pytest.mark.parametrize("constraint", ["l2ball", "nonneg", "simplex", "elastic"])
def test_feasibility_and_denoising(rng, solver, constraint):
    V, X, _ = _planted(rng)
    est = OnlineRobustNMF(5, solver=solver, dict_constraint=constraint, batch_size=10,
                          penalty=Penalty(elastic=(0.2, 1.0)), random_state=0).fit(X)
    D = est.components_
    assert D.min() >= 0
    if constraint == "l2ball":
        assert np.linalg.norm(D, axis=1).max() <= 1 + 1e-9
    if constraint == "simplex":
        np.testing.assert_allclose(D.sum(axis=1), 1.0)
    H = est.transform(X)
    low, out = est.decompose(X)
    assert H.min() >= 0 and np.isfinite(low).all()
    np.testing.assert_allclose(low, H @ D)
    assert np.all(np.abs(out) <= est.bound * X.max(axis=1, keepdims=True) + 1e-12)
    if constraint == "l2ball":
        assert _psnr(low, V) > _psnr(X, V) + 8  # the outliers are removed


def test_planted_outlier_support_recovered(rng):
    V, X, out = _planted(rng, n=1500, density=0.05)
    est = OnlineRobustNMF(5, batch_size=10, random_state=0).fit(X)
    _, R = est.decompose(X)
    big = out & (np.abs(X - V) > 0.3)
    found = np.abs(R) > 1e-6
    assert (found & big).sum() / big.sum() > 0.9  # recall of the large outliers
    assert (found & out).sum() / found.sum() > 0.7  # precision


def test_nonneg_outliers_option(rng):
    _, X, _ = _planted(rng)
    est = OnlineRobustNMF(5, nonneg_outliers=True, batch_size=10, random_state=0).fit(X)
    assert est.decompose(X)[1].min() >= 0


def test_history_is_the_surrogate_and_levels_off(rng):
    _, X, _ = _planted(rng, n=3000)
    est = OnlineRobustNMF(5, batch_size=10, max_iter=1, max_no_improvement=None,
                          random_state=0).fit(X)  # one pass of 300 steps: the last recorded
    h = est.history_
    assert np.isclose(h["objective"][-1], est.surrogate_objective())
    tail = h["objective"][int(0.9 * len(h["objective"])):]
    assert np.ptp(tail) < 0.05 * tail.mean()


def test_rejects_missing_and_negative(rng):
    _, X, _ = _planted(rng, n=50)
    est = OnlineRobustNMF(3, batch_size=5).partial_fit(X)
    before = pickle.dumps(sorted(est.__dict__.items(), key=lambda kv: kv[0]))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="missing"):
        est.partial_fit(Xn)
    with pytest.raises(ValueError, match="Negative"):
        est.partial_fit(-X)
    assert pickle.dumps(sorted(est.__dict__.items(), key=lambda kv: kv[0])) == before


@pytest.mark.parametrize("solver", ["pgd", "fista", "admm"])
def test_per_sample_stopping_equals_a_loop(rng, solver):
    _, X, _ = _planted(rng, n=12)
    D = project_nonneg_l2_ball(rng.random((5, 64)))
    batch = solve_codes_outliers(D, X, 0.125, solver=solver, stopping="sample")
    for i in range(12):
        one = solve_codes_outliers(D, X[i:i + 1], 0.125, solver=solver)
        np.testing.assert_allclose(batch.codes[i], one.codes[0], rtol=1e-9, atol=1e-12)


def test_group_shrink_is_the_prox(rng):
    from onlinemf.constraints import group_shrink

    y = rng.normal(size=6)
    t = 0.4

    def obj(z):
        return 0.5 * np.sum((z - y) ** 2) + t * sum(np.sqrt(3) * np.linalg.norm(z[i:i + 3])
                                                    for i in (0, 3))

    ref = minimize(obj, np.abs(y) + 0.1, bounds=[(0, None)] * 6, method="L-BFGS-B",
                   options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 5000})
    np.testing.assert_allclose(group_shrink(y[None], 3, t)[0], ref.x, atol=1e-4)


@pytest.mark.parametrize("solver", ["pgd", "fista", "admm"])
def test_sparse_group_lasso_zeroes_whole_groups(rng, solver):
    _, X, _ = _planted(rng, n=20)
    D = project_nonneg_l2_ball(rng.random((6, 64)))
    kw = dict(h_group=2.0, group_size=3, h_l1=0.05, max_iter=3000, tol=1e-12)
    res = solve_codes_outliers(D, X, 0.125, solver=solver, **kw)
    H = res.codes
    groups = np.stack([np.linalg.norm(H[:, :3], axis=1), np.linalg.norm(H[:, 3:], axis=1)], 1)
    assert (groups < 1e-10).any()  # some groups switched off entirely
    plain = solve_codes_outliers(D, X, 0.125, solver=solver, max_iter=3000, tol=1e-12).codes
    assert (np.abs(plain) < 1e-10).sum() < (np.abs(H) < 1e-10).sum()
    # every solver reaches the same regularized optimum
    ref = solve_codes_outliers(D, X, 0.125, solver="admm", **{**kw, "max_iter": 20000})
    f = outlier_loss(X, H, D, res.outliers, 0.125, 0.05, 0.0, 2.0, 3).sum()
    f_ref = outlier_loss(X, ref.codes, D, ref.outliers, 0.125, 0.05, 0.0, 2.0, 3).sum()
    assert f <= f_ref * (1 + 1e-4) + 1e-9


def test_callback_gives_the_stored_codes_and_eq_46_follows_them(rng):
    from onlinemf.experiments.zhao_tan_outliers import CleanRegret

    clean = rng.random((120, 16))
    X = clean + (rng.random(clean.shape) < 0.05)
    seen = []
    tracker = CleanRegret(clean)

    def both(info):
        seen.append((info["rows"].copy(), info["codes"].copy()))
        tracker(info)

    est = OnlineRobustNMF(4, batch_size=10, scale=None, callback=both, max_iter=1,
                          max_no_improvement=None, random_state=0).fit(X)  # the paper's pass
    rows = np.concatenate([r for r, _ in seen])
    assert np.array_equal(np.sort(rows), np.arange(120))  # every row once per pass
    H = np.zeros((120, 4))
    for r, h in seen:
        H[r] = h
    W = est.components_
    direct = 0.5 * np.sum((clean - H @ W) ** 2) / 120  # eq. (46) at t = N
    np.testing.assert_allclose(tracker.value(W), direct, rtol=1e-10)
    np.testing.assert_allclose(tracker.psnr(),
                               -10 * np.log10(np.sum((clean - H @ W) ** 2) / clean.size))


def test_lambda_auto_paper_and_explicit():
    """λ "auto" is M/4 in the scaled units; "paper" (and None) the paper's 1/√F."""
    X = np.random.default_rng(0).random((30, 16))
    assert OnlineRobustNMF(3, random_state=0).fit(X).lam_ == 0.25
    assert OnlineRobustNMF(3, bound=2.0, random_state=0).fit(X).lam_ == 0.5
    X = np.random.default_rng(0).random((30, 25))  # 1/√25 = 0.2, apart from M/4 = 0.25
    for lam in ("paper", None):
        assert np.isclose(OnlineRobustNMF(3, lam=lam, random_state=0).fit(X).lam_, 0.2)
    assert OnlineRobustNMF(3, lam=0.07, random_state=0).fit(X).lam_ == 0.07


def test_solver_settings_reach_the_sub_problems_and_the_paper_preset(rng):
    """A RobustSolver's fields are nested parameters (clone and set_params reach them), its
    κ "auto" resolves to 1 (0.7 under the paper's settings) and its caps bound the solves."""
    from sklearn.base import clone

    _, X, _ = _planted(rng, n=40)
    est = OnlineRobustNMF(3, solver=RobustSolver("pgd", code_max_iter=2), batch_size=10,
                          random_state=0)
    assert est.get_params()["solver__code_max_iter"] == 2
    est = clone(est).set_params(solver__code_max_iter=1).partial_fit(X)
    assert est.solver_.kappa == 1.0 and est.solver_.code_max_iter == 1
    assert est.lam_ == 0.25 * est.bound
    paper = OnlineRobustNMF(3, settings="paper", random_state=0).partial_fit(X)
    assert paper.solver_.kappa == 0.7 and paper.lam_ == pytest.approx(1 / np.sqrt(64))
    assert paper._batch_size(None) == 5
    Xs = X / X.max(axis=1, keepdims=True)
    capped = est._code(Xs, est.components_)
    loose = OnlineRobustNMF(3, solver="pgd", batch_size=10, random_state=0).partial_fit(X)
    more = loose._code(Xs, est.components_)  # the same dictionary, fifty iterations
    assert est._losses(Xs, capped).sum() > est._losses(Xs, more).sum()


def test_code_stopping_applies_the_rule_per_sample_in_fit():
    """With ``code_stopping="sample"`` fit's code solves stop each sample on its own
    problem's relative change: a sample still changing keeps iterating after the batch's
    sum has settled, so the pass runs at least as many iterations per step, and the
    mini-batch's codes then no longer depend on which rows share it. A bad value is refused
    with the parameter named and the estimator unfitted."""
    rng = np.random.default_rng(0)
    X = rng.random((60, 4)) @ rng.random((4, 20))
    kw = dict(batch_size=5, settings="paper", random_state=0, max_iter=1,
              max_no_improvement=None)
    batch = OnlineRobustNMF(3, solver=RobustSolver("pgd"), **kw).fit(X)
    sample = OnlineRobustNMF(3, solver=RobustSolver("pgd", code_stopping="sample"),
                             **kw).fit(X)
    assert sample.get_params()["solver__code_stopping"] == "sample"
    assert sample.inner_["code_iterations"] > batch.inner_["code_iterations"]
    assert not np.allclose(sample.components_, batch.components_)
    # per sample, a row's codes are the same whatever rows it is coded with
    Xs = X[:10] / X[:10].max(axis=1, keepdims=True)
    D = sample.components_
    together = sample._code(Xs, D)
    alone = sample._code(Xs[:1], D)
    assert np.allclose(together.codes[:1], alone.codes)
    bad = OnlineRobustNMF(3, solver=RobustSolver(code_stopping="each"), batch_size=5)
    with pytest.raises(ValueError, match="code_stopping"):
        bad.fit(X)
    assert not hasattr(bad, "components_")


def test_code_start_uniform_draws_fresh_starts_without_moving_the_shuffle():
    """With ``code_start="uniform"`` learning starts every mini-batch's code solve at fresh
    uniform entries: the pass differs from the zero start, yet its W₀ and the rows it
    visits are the same (the starts draw from a stream of their own); transform still
    starts at zero, so a fitted model codes reproducibly."""
    rng = np.random.default_rng(0)
    X = rng.random((40, 4)) @ rng.random((4, 20))
    seen = {}

    def fit(start):
        rows = []
        est = OnlineRobustNMF(3, solver=RobustSolver("pgd", code_start=start), batch_size=5,
                              settings="paper", random_state=0, max_iter=1,
                              max_no_improvement=None,
                              callback=lambda info: rows.append(np.array(info["rows"])))
        est.fit(X)
        seen[start] = np.concatenate(rows)
        return est

    zero, uniform = fit("zero"), fit("uniform")
    assert np.array_equal(seen["zero"], seen["uniform"])
    assert not np.allclose(zero.components_, uniform.components_)
    # the same seed gives the same pass, on a second fit too
    assert np.array_equal(fit("uniform").components_, uniform.components_)
    assert np.array_equal(uniform.fit(X).components_, fit("uniform").components_)
    # coding a fitted model starts at zero whatever the solver's start: it draws nothing
    # from the starts' stream and gives the same codes every time
    state = uniform._start_rng.bit_generator.state
    first = uniform.transform(X[:5])
    assert uniform._start_rng.bit_generator.state == state
    assert np.array_equal(uniform.transform(X[:5]), first)
    # partial_fit starts its codes uniformly too, float32 stays float32, and a model saved
    # before the start's stream existed still learns
    part = OnlineRobustNMF(3, solver=RobustSolver("pgd", code_start="uniform"), batch_size=5,
                           random_state=0).partial_fit(X[:10].astype(np.float32))
    assert part.components_.dtype == np.float32
    del part._start_rng
    assert np.isfinite(part.partial_fit(X[10:20].astype(np.float32)).components_).all()
    with pytest.raises(ValueError, match="code_start"):
        OnlineRobustNMF(3, solver=RobustSolver(code_start="random"), batch_size=5).fit(X)


def test_a_solver_saved_before_the_start_and_stopping_fields_reads_their_defaults():
    """A RobustSolver pickled before ``code_start`` and ``code_stopping`` existed (its state
    without them) reads the defaults, so its model still codes and learns."""
    import pickle

    rng = np.random.default_rng(0)
    X = rng.random((30, 4)) @ rng.random((4, 12))
    est = OnlineRobustNMF(3, solver="pgd", batch_size=5, random_state=0).fit(X)
    for sol in (est._solver, est.solver_):
        del sol.__dict__["code_start"], sol.__dict__["code_stopping"]
    old = pickle.loads(pickle.dumps(est))
    assert old.solver_.code_start == "zero" and old.solver_.code_stopping == "batch"
    assert np.allclose(old.transform(X[:5]), est.transform(X[:5]))
    assert np.isfinite(old.partial_fit(X[:10]).components_).all()


def test_inner_reports_the_inner_solves_iterations_caps_and_seconds():
    """``inner_`` averages the inner solves over the steps: at a cap of one iteration every
    step stops at the cap; with the paper's caps the iterations stay within them; a
    partial_fit adds its steps to those of fit."""
    rng = np.random.default_rng(0)
    X = rng.random((60, 4)) @ rng.random((4, 20))
    one = OnlineRobustNMF(3, solver=RobustSolver("pgd", code_max_iter=1, dict_max_iter=1),
                          batch_size=5, random_state=0, max_iter=1,
                          max_no_improvement=None).fit(X)
    assert one.inner_["code_iterations"] == 1.0 and one.inner_["dict_iterations"] == 1.0
    assert one.inner_["dict_capped"] == 1.0 and one.inner_["code_capped"] > 0.0
    est = OnlineRobustNMF(3, batch_size=5, settings="paper", random_state=0, max_iter=1,
                          max_no_improvement=None).fit(X)
    inner = est.inner_
    assert 1.0 <= inner["code_iterations"] <= 50 and 1.0 <= inner["dict_iterations"] <= 200
    assert 0.0 <= inner["code_capped"] <= 1.0 and 0.0 <= inner["dict_capped"] <= 1.0
    assert inner["code_seconds"] > 0.0 and inner["dict_seconds"] > 0.0
    steps = est.n_steps_
    est.partial_fit(X[:10])
    assert est.n_steps_ == steps + 2
    assert est.inner_["code_seconds"] > inner["code_seconds"]
    del est._inner  # a model saved before the counts existed: nothing measured, still fits
    assert est.inner_ == {}
    est.partial_fit(X[:5])
    assert est.inner_["code_iterations"] >= 1.0


def test_an_array_init_starts_the_robust_fit_there():
    """A given W₀ (already in the atom set) gives the fit of a random start whose dictionary
    is replaced by it; an atom of zeros starts from the random start's atom; bad starts are
    rejected before the model changes."""
    rng = np.random.default_rng(11)
    X = rng.random((300, 20))
    D0 = rng.uniform(0.05, 0.9, size=(4, 20))
    D0 /= np.linalg.norm(D0, axis=1, keepdims=True)  # inside the unit ℓ2 ball

    class Replaced(OnlineRobustNMF):
        def _initialize(self, X):
            super()._initialize(X)
            self.components_ = D0.astype(self.components_.dtype)
            self.state_ = self._rule().init(self.components_)

    kw = dict(max_iter=2, batch_size=25, random_state=0)
    given = OnlineRobustNMF(4, init=D0, **kw).fit(X)
    replaced = Replaced(4, **kw).fit(X)
    np.testing.assert_array_equal(given.components_, replaced.components_)
    assert not np.allclose(given.components_, OnlineRobustNMF(4, **kw).fit(X).components_)

    seen = []

    class Peek(OnlineRobustNMF):
        def _initialize(self, X):
            super()._initialize(X)
            seen.append(self.components_.copy())

    with_empty = D0.copy()
    with_empty[1] = 0.0
    Peek(4, init=with_empty, **kw).partial_fit(X[:25])
    Peek(4, **kw).partial_fit(X[:25])
    np.testing.assert_array_equal(seen[0][[0, 2, 3]], D0[[0, 2, 3]])
    np.testing.assert_array_equal(seen[0][1], seen[1][1])

    # a start outside the atom set is projected onto it, like the random start
    outside = OnlineRobustNMF(4, init=3.0 * D0, **kw).fit(X)
    np.testing.assert_allclose(outside.components_, given.components_, rtol=1e-12, atol=1e-15)

    for bad, match in [(np.ones((3, 20)), "init must have shape"),
                       (np.full((4, 20), np.nan), "NaN or inf"),
                       (-D0, "negative entries")]:
        est = OnlineRobustNMF(4, init=bad, **kw)
        with pytest.raises(ValueError, match=match):
            est.fit(X)
        assert not hasattr(est, "components_")


def test_a_model_saved_before_init_existed_still_loads_and_transforms():
    X = np.random.default_rng(12).random((120, 10))
    est = OnlineRobustNMF(3, max_iter=1, batch_size=20, random_state=0).fit(X)
    del est.init  # as pickled before the parameter existed
    old = pickle.loads(pickle.dumps(est))
    assert "init" not in vars(old)
    assert old.get_params()["init"] == "random"
    np.testing.assert_array_equal(old.transform(X[:5]), est.transform(X[:5]))
    old.partial_fit(X[:20])
