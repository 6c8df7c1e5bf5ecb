
import numpy as np
from scipy.optimize import minimize

from onlinemf import OnlineDictionaryLearning
from onlinemf.constraints import project_nonneg_l2_ball
from onlinemf.updates import bcd_dictionary


def _data(rng, n=600, f=20, k=4):
    W = np.abs(rng.normal(size=(k, f)))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    H = rng.gamma(0.5, 1.0, size=(n, k))
    return H @ W, W


def _proj(d):
    return project_nonneg_l2_ball(d[None])[0]


def test_bcd_is_monotone_and_stationary(rng):
    H = rng.random((50, 4))
    X = rng.random((50, 12))
    A, B = H.T @ H / 50, H.T @ X / 50
    D = project_nonneg_l2_ball(rng.random((4, 12)))

    def g(D_):
        return 0.5 * np.sum((D_ @ D_.T) * A) - np.sum(D_ * B)

    prev = g(D)
    for _ in range(30):
        D, _ = bcd_dictionary(D, A, B, _proj, max_sweeps=1)
        assert g(D) <= prev + 1e-12
        prev = g(D)
    D, _ = bcd_dictionary(D, A, B, _proj, max_sweeps=5000, tol=1e-14)
    step = 1 / np.linalg.eigvalsh(A)[-1]
    resid = np.linalg.norm(D - project_nonneg_l2_ball(D - step * (A @ D - B)))
    assert resid < 1e-8


def test_codes_solve_the_elastic_net(rng):
    X, _ = _data(rng, n=5)
    est = OnlineDictionaryLearning(4, alpha=0.2, code_l2=0.1, random_state=0).partial_fit(X)
    D = est.components_
    H = est.transform(X)
    for x, h in zip(X, H):
        def obj(v, x=x):
            r = x - v @ D
            return r @ r + 0.2 * v.sum() + 0.05 * v @ v, -2 * D @ r + 0.2 + 0.1 * v

        ref = minimize(obj, np.zeros(4), jac=True, bounds=[(0, None)] * 4, method="L-BFGS-B",
                       options={"ftol": 1e-15, "gtol": 1e-12})
        assert obj(h)[0] <= ref.fun * (1 + 1e-5) + 1e-9  # code_tol = 1e-6 relative change


def test_statistics_have_no_lag(rng):
    # after one step, A and B hold the codes of that very batch (computed with W₀)
    X, _ = _data(rng, n=40)
    est = OnlineDictionaryLearning(4, batch_size=40, random_state=0).partial_fit(X)
    ref = OnlineDictionaryLearning(4, random_state=0)
    ref._initialize(ref._check(X, True))  # the same W₀
    H = ref._codes(X)
    np.testing.assert_allclose(est.A_, H.T @ H / 40)
    np.testing.assert_allclose(est.B_, H.T @ X / 40)
    assert not np.allclose(est.components_, ref.components_)  # and W moved from them


def test_learns_the_planted_atoms(rng):
    X, W = _data(rng, n=3000)
    est = OnlineDictionaryLearning(4, alpha=0.01, batch_size=20, max_iter=3,
                                   random_state=0).fit(X)
    cos = (W @ est.components_.T) / np.linalg.norm(est.components_, axis=1)
    from scipy.optimize import linear_sum_assignment

    r, c = linear_sum_assignment(-cos)
    assert cos[r, c].mean() > 0.95
    D = est.components_
    assert D.min() >= 0 and np.linalg.norm(D, axis=1).max() <= 1 + 1e-9


def test_steps_shrink_on_a_sticky_markov_chain(rng):
    # a dependent stream: each sample repeats the previous one with probability 0.9
    X, _ = _data(rng, n=50)
    idx = [0]
    for _ in range(2999):
        idx.append(idx[-1] if rng.random() < 0.9 else int(rng.integers(50)))
    stream = X[idx]
    est = OnlineDictionaryLearning(4, alpha=0.05, batch_size=5, random_state=0)
    est.partial_fit(stream[:500])
    scaled = []
    for t, s in enumerate(range(500, 3000, 5), start=101):
        before = est.components_.copy()
        est.partial_fit(stream[s:s + 5])
        scaled.append(t * np.linalg.norm(est.components_ - before))
    scaled = np.array(scaled)
    assert np.median(scaled[-100:]) < 3 * np.median(scaled[:100])


def test_relaxed_stopping_rule_meets_its_tolerance_and_matches_exact_codes():
    from onlinemf import OnlineDictionaryLearning

    rng = np.random.default_rng(0)
    X = rng.random((200, 12))
    est = OnlineDictionaryLearning(4, alpha=0.1, batch_size=20, relaxed_K=1e-3,
                                   code_max_iter=5000, random_state=0).partial_fit(X[:100])
    t = est.n_steps_ + 1
    tol, smin = est.relaxed_tolerance(t, 20)
    assert smin > 0
    H = est._codes_relaxed(X[100:120], t)
    assert est.last_code_residual_ <= tol
    exact = est.set_params(relaxed_K=1e-12, code_max_iter=100000)._codes_relaxed(X[100:120], t)
    est.set_params(relaxed_K=1e-3)
    # strong convexity μ = σ_min(D)²: ‖H − H*‖ ≤ residual·(1 + L/μ)/L ≤ 2·residual/μ
    assert np.linalg.norm(H - exact) <= 2 * tol / smin**2 + 1e-9
    assert np.abs(est._codes(X[100:120]) - exact).max() < 1e-2
    # a loose K stops earlier, with a larger residual
    loose = OnlineDictionaryLearning(4, alpha=0.1, batch_size=20, relaxed_K=1e6,
                                     random_state=0).partial_fit(X[:100])
    loose._codes_relaxed(X[100:120], t)
    assert loose.last_code_residual_ > est.last_code_residual_


def _sticky_stream(rng, states, steps, stay=0.95):
    """Indices of a nearly periodic finite-state chain: stay with probability ``stay``, else
    move to the next state."""
    s, out = 0, []
    for _ in range(steps):
        out.append(s)
        if rng.random() > stay:
            s = (s + 1) % states
    return np.array(out)


def test_surrogate_loss_is_eq_22_with_the_stored_codes(rng):
    X, _ = _data(rng, n=60)
    est = OnlineDictionaryLearning(4, alpha=0.1, batch_size=10, random_state=0)
    codes = []

    def recording(Xb):
        H = type(est)._codes(est, Xb)
        codes.append((Xb.copy(), H))
        return H

    est._codes = recording
    est.partial_fit(X)
    assert len(codes) == 6
    for D in (est.components_, project_nonneg_l2_ball(rng.random((4, 20)))):
        direct = np.mean([(np.sum((Xb - H @ D) ** 2) + 0.1 * H.sum()) / Xb.shape[0]
                          for Xb, H in codes])
        np.testing.assert_allclose(est.surrogate_loss(D), direct, rtol=1e-10)
        # it majorizes the empirical loss over the same rows (spec 004 §6 item 3)
        assert est.surrogate_loss(D) >= est.empirical_loss(X, D) - 1e-10


def test_surrogate_gap_closes_on_a_sticky_markov_chain(rng):
    # spec 004 §9 B4: f̂_t(W_t) − f_t(W_t) → 0 on a finite-state sticky chain
    mats = [_data(rng, n=10)[0] for _ in range(4)]
    chain = _sticky_stream(rng, 4, 1000)
    est = OnlineDictionaryLearning(4, alpha=0.05, batch_size=10, dict_l2=0.01,
                                   random_state=0)
    gaps, counts = {}, np.zeros(4)
    for t, s in enumerate(chain, start=1):
        est.partial_fit(mats[s])
        counts[s] += 1
        if t in (10, 100, 1000):
            f_t = sum(c * est.empirical_loss(m) for c, m in zip(counts, mats)) / t
            gaps[t] = est.surrogate_loss() - f_t
    assert all(g >= -1e-9 for g in gaps.values())
    assert gaps[1000] < 0.2 * gaps[10] and gaps[1000] < gaps[100]


def test_score_is_minus_the_empirical_loss_and_rises_with_training():
    rng = np.random.default_rng(3)
    X = rng.random((120, 4)) @ rng.random((4, 10))
    short = OnlineDictionaryLearning(4, batch_size=10, max_iter=1, random_state=0)
    short.partial_fit(X[:10])
    longer = OnlineDictionaryLearning(4, batch_size=10, max_iter=5, random_state=0).fit(X)
    assert longer.score(X) == -longer.empirical_loss(X)
    assert longer.score(X) > short.score(X)
