import pickle

import numpy as np
import pytest
from scipy.special import gammaln

from onlinemf import PoissonSubspaceTracker
from onlinemf.updates import log_jensen_gap, poisson_row_objective, solve_poisson_rows


def _stream(rng, n=40, k=4, m=60, p=1.0):
    D = rng.random((n, k))
    Y = rng.poisson((rng.random((m, k)) * 5) @ D.T).astype(float)
    mask = rng.random(Y.shape) < p
    return D, Y, mask


def subspace_error(Dhat, D):
    U, s, _ = np.linalg.svd(Dhat, full_matrices=False)
    U = U[:, s > 1e-10 * max(s.max(), 1e-300)]
    return np.linalg.norm(D - U @ (U.T @ D)) / np.linalg.norm(D)


def test_exact_row_solver_matches_long_pgd_and_is_scale_invariant(rng):
    S, R = rng.random((100, 6)), rng.random((100, 6))
    S[:10, 0] = 0.0  # thresholds at infinity
    beta = rng.random(100) * 3
    D0 = rng.random((100, 6))
    E = solve_poisson_rows(S, beta, R, 0.2, D0)
    P = solve_poisson_rows(S, beta, R, 0.2, D0, solver="pgd", max_iter=20000, tol=1e-14)
    np.testing.assert_allclose(E, P, atol=1e-6)
    assert np.all(poisson_row_objective(E, S, beta, R, 0.2)
                  <= poisson_row_objective(P, S, beta, R, 0.2) + 1e-12)
    # KKT: ∇H_k = 0 where d_k > 0 and ≥ 0 where d_k = 0
    G = S - (beta / np.einsum("ij,ij->i", E, R))[:, None] * R + 0.4 * E
    assert np.all(np.abs(G[E > 0]) < 1e-9) and np.all(G[E == 0] > -1e-9)
    np.testing.assert_allclose(solve_poisson_rows(S, beta, 17.0 * R, 0.2, D0), E, atol=1e-12)


def test_degenerate_rows():
    S = np.ones((3, 2))
    R = np.array([[1.0, 2.0], [0.0, 0.0], [1.0, 1.0]])
    beta = np.array([0.0, 1.0, 1.0])
    prev = np.full((3, 2), 0.7)
    D = solve_poisson_rows(S, beta, R, 0.2, prev)
    np.testing.assert_array_equal(D[0], 0.0)  # β = 0: d = 0
    np.testing.assert_array_equal(D[1], 0.7)  # β > 0, r = 0: ill-posed, keep the row
    assert np.all(np.isfinite(D)) and D[2].sum() > 0


def test_log_jensen_gap_closed_form():
    a, b = 1.0, 10.0
    c = np.linspace(0, 1, 200001)
    brute = np.max(np.log(c * a + (1 - c) * b) - c * np.log(a) - (1 - c) * np.log(b))
    np.testing.assert_allclose(log_jensen_gap(a, b), brute, atol=1e-10)
    np.testing.assert_allclose(log_jensen_gap(1.0, 10.0), 0.6190349, atol=1e-7)
    assert log_jensen_gap(3.0, 3.0) == 0.0


def test_proposition_1_bound(rng):
    # −Σ log pois(y_n; z_n) ≤ Σz − Σy·log(Σ y z / Σ y)... written as in (13) per row
    for _ in range(20):
        d = rng.random(4)
        A = rng.random((30, 4)) * 3
        z = A @ d
        y = rng.poisson(z).astype(float)
        nll = np.sum(z - y * np.log(z) + gammaln(y + 1))
        sy = y.sum()
        rhs = d @ A.sum(axis=0) - sy * np.log(d @ (A * y[:, None]).sum(axis=0)) \
            + gammaln(y + 1).sum() + sy * np.log(sy)
        T = log_jensen_gap(z.min(), z.max())
        assert nll <= rhs + sy * T + 1e-9
        assert nll >= rhs - 1e-9  # plain Jensen: the bound's lower side


@pytest.mark.parametrize("p", [1.0, 0.5])
def test_sa_equals_ml_at_t1(rng, p):
    _, Y, mask = _stream(rng, p=p)
    Ym = np.where(mask, Y, np.nan)
    ml = PoissonSubspaceTracker(4, method="ml", random_state=0).partial_fit(Ym[:1])
    sa = PoissonSubspaceTracker(4, method="sa", sa_max_iter=5000, random_state=0).partial_fit(
        Ym[:1])
    np.testing.assert_allclose(sa.components_, ml.components_, rtol=1e-4, atol=1e-6)


def test_full_mask_reduces_to_no_mask_and_masked_values_are_ignored(rng):
    _, Y, mask = _stream(rng, p=0.6)
    a = PoissonSubspaceTracker(4, random_state=0).partial_fit(Y)
    b = PoissonSubspaceTracker(4, random_state=0).partial_fit(Y, mask=np.ones_like(mask))
    np.testing.assert_array_equal(a.components_, b.components_)
    c = PoissonSubspaceTracker(4, random_state=0).partial_fit(np.where(mask, Y, 0.0),
                                                              mask=mask)
    d = PoissonSubspaceTracker(4, random_state=0).partial_fit(np.where(mask, Y, 99.0),
                                                              mask=mask)
    e = PoissonSubspaceTracker(4, random_state=0).partial_fit(np.where(mask, Y, np.nan))
    np.testing.assert_array_equal(c.components_, d.components_)
    np.testing.assert_allclose(c.components_, e.components_)


@pytest.mark.parametrize("method", ["ml", "sa"])
def test_tracking_recovers_the_subspace(rng, method):
    D, Y, mask = _stream(rng, n=50, k=5, m=300)
    errs = {}
    for p in (1.0, 0.3):
        m = rng.random(Y.shape) < p
        tr = PoissonSubspaceTracker(5, method=method, random_state=0)
        tr.partial_fit(np.where(m, Y, np.nan)[:30])
        early = subspace_error(tr.components_.T, D)
        tr.partial_fit(np.where(m, Y, np.nan)[30:])
        errs[p] = subspace_error(tr.components_.T, D)
        assert errs[p] < early and tr.components_.min() >= 0
    assert errs[1.0] < errs[0.3]


def test_update_returns_code_and_rate_and_no_nan_on_degenerate_streams(rng):
    tr = PoissonSubspaceTracker(3, random_state=0)
    zeros = np.zeros((5, 20))
    tr.partial_fit(zeros)  # all-zero counts: zero codes and rows, never NaN
    a, rate = tr.update(np.r_[np.full(10, np.nan), np.ones(10) * 3])
    assert a.shape == (3,) and rate.shape == (20,)
    assert np.all(np.isfinite(a)) and np.all(np.isfinite(rate)) and a.min() >= 0
    assert np.all(np.isfinite(tr.components_))


def test_forgetting_factor_tracks_an_abrupt_change(rng):
    D1, Y1, _ = _stream(rng, n=40, k=3, m=300)
    D2, Y2, _ = _stream(rng, n=40, k=3, m=300)
    errs = {}
    for g in (1.0, 0.97):
        tr = PoissonSubspaceTracker(3, forget=g, random_state=0).partial_fit(Y1)
        tr.partial_fit(Y2)
        errs[g] = subspace_error(tr.components_.T, D2)
    assert errs[0.97] < errs[1.0]


def test_ml_memory_does_not_grow(rng):
    _, Y, _ = _stream(rng, m=100)
    # checkpoints off: the history is bounded anyway, but grows at first
    tr = PoissonSubspaceTracker(4, n_checkpoints=0, random_state=0).partial_fit(Y[:10])
    size = len(pickle.dumps(tr))
    tr.partial_fit(Y[10:])
    assert len(pickle.dumps(tr)) <= size + 64
    sa = PoissonSubspaceTracker(4, method="sa", random_state=0).partial_fit(Y[:10])
    s10 = len(pickle.dumps(sa))
    sa.partial_fit(Y[10:])
    assert len(pickle.dumps(sa)) > 2 * s10  # SA keeps every sample, as the paper's Alg. 1


def test_step_lengths_decay_like_one_over_t(rng):
    # Lemma 5: t·‖D̂_{t+1} − D̂_t‖_F stays bounded on a stationary stream
    D, Y, _ = _stream(rng, n=30, k=3, m=600)
    tr = PoissonSubspaceTracker(3, random_state=0).partial_fit(Y[:100])
    scaled = []
    for t in range(100, 600):
        before = tr.components_.copy()
        tr.partial_fit(Y[t:t + 1])
        scaled.append((t + 1) * np.linalg.norm(tr.components_ - before))
    scaled = np.array(scaled)
    assert np.median(scaled[-100:]) < 3 * np.median(scaled[:100])


def test_history_records_the_online_objective(rng):
    """history_ holds, at each checkpoint, the mean loss of every step under the subspace it
    was coded with (finite; it was NaN before), and it falls as the subspace is learned."""
    D, Y, mask = _stream(rng, m=300, p=0.8)
    Ym = np.where(mask, Y, np.nan)
    est = PoissonSubspaceTracker(4, random_state=0, n_checkpoints=10).fit(Ym)
    h = est.history_
    assert np.all(np.isfinite(h["objective"])) and h["objective"].size >= 10
    assert h["objective"][-1] < h["objective"][0]
    # the first checkpoint by hand: step 1's loss, coded with the initial subspace
    first = PoissonSubspaceTracker(4, random_state=0).partial_fit(Ym[:1])
    assert first.history_["n_samples"][0] == 1
    assert first.history_["objective"][0] >= 0


def _sa_objective(D, A, Y, P, lam):
    """f′_t(D) = (1/t) Σ_n Σ_i p_ni (d_iᵀa_n − y_ni log d_iᵀa_n) + λ‖D‖² (spec 003 eq. (12)),
    with its gradient; D is (n_features, K)."""
    Z = A @ D.T  # (t, n_features)
    Zs = np.maximum(Z, 1e-300)
    t = A.shape[0]
    f = (P * (Z - Y * np.log(Zs))).sum() / t + lam * (D * D).sum()
    G = ((P * (1.0 - Y / Zs)).T @ A) / t + 2.0 * lam * D
    return f, G


def test_sa_subspace_minimizes_its_objective_at_high_intensity(rng):
    """Spec 003 §6: D̂_t minimizes the SA objective f′_t over D ≥ 0, on a stream with rates up
    to a few hundred (where a stopping test on the first tiny step stops the refit at once)."""
    from scipy.optimize import minimize

    n, k, m = 12, 3, 40
    D = rng.random((n, k))
    Y = rng.poisson((rng.random((m, k)) * 80) @ D.T).astype(float)
    est = PoissonSubspaceTracker(k, method="sa", lam=0.2, random_state=0).partial_fit(Y)
    A = np.array(est.state_.codes)
    P = np.ones_like(Y)
    f_hat, _ = _sa_objective(est.components_.T, A, Y, P, 0.2)
    res = minimize(lambda v: _sa_objective(v.reshape(n, k), A, Y, P, 0.2), est.components_.T
                   .ravel() + 0.1, jac=True, method="L-BFGS-B", bounds=[(0, None)] * (n * k),
                   options={"maxiter": 5000, "ftol": 1e-15, "gtol": 1e-12})
    assert f_hat <= res.fun + 1e-6 * abs(res.fun)


def test_n_iter_counts_the_calls_and_fit_is_one_pass():
    rng = np.random.default_rng(4)
    Y = rng.poisson(3.0, (40, 6)).astype(float)
    est = PoissonSubspaceTracker(2, random_state=0).fit(Y)
    assert est.n_iter_ == 1 and est.n_samples_seen_ == 40
    est.partial_fit(Y[:5])
    est.update(Y[0])
    assert est.n_iter_ == 3 and est.n_samples_seen_ == 46


@pytest.mark.parametrize("method", ["ml", "sa"])
def test_an_array_init_starts_the_track_there(rng, method):
    """A given D̂₀ᵀ tracks as a random start whose subspace is replaced by it (every later
    random draw the same); an atom of zeros starts from the random start's atom; the array is
    copied; bad starts are rejected before the model changes."""
    D, Y, mask = _stream(rng, n=30, k=3, m=40, p=0.8)
    Y[~mask] = np.nan
    start = rng.random((3, 30)) * 2.0

    class Replaced(PoissonSubspaceTracker):
        def _initialize(self, *args, **kwargs):
            super()._initialize(*args, **kwargs)
            self.components_ = start.copy()
            self.state_ = self._rule().init(self.components_)

    given_start = start.copy()
    given = PoissonSubspaceTracker(3, method=method, init=given_start, random_state=0).fit(Y)
    replaced = Replaced(3, method=method, random_state=0).fit(Y)
    np.testing.assert_array_equal(given.components_, replaced.components_)
    np.testing.assert_array_equal(given_start, start)  # the caller's array is untouched
    plain = PoissonSubspaceTracker(3, method=method, random_state=0).fit(Y)
    assert not np.allclose(given.components_, plain.components_)

    with_empty = start.copy()
    with_empty[1] = 0.0
    first = PoissonSubspaceTracker(3, method=method, init=with_empty, random_state=0)
    first._initialize(first._check(Y, None, True)[0], None)
    own = PoissonSubspaceTracker(3, method=method, random_state=0)
    own._initialize(own._check(Y, None, True)[0], None)
    np.testing.assert_array_equal(first.components_[[0, 2]], start[[0, 2]])
    np.testing.assert_array_equal(first.components_[1], own.components_[1])
    assert first.components_[1].max() > 0

    # the data's level scales only the random start: not computed for a full given start
    def level():
        calls.append(1)
        return 4.0
    calls = []
    PoissonSubspaceTracker(3, method=method, init=start)._initialize(Y, None, level)
    assert calls == []
    PoissonSubspaceTracker(3, method=method, init=with_empty)._initialize(Y, None, level)
    assert calls == [1]

    for bad, match in [(np.ones((2, 30)), "init must have shape"),
                       (np.full((3, 30), np.inf), "NaN or inf"),
                       (-start, "negative entries"),
                       ([["a"] * 30] * 3, "numeric array")]:
        est = PoissonSubspaceTracker(3, method=method, init=bad, random_state=0)
        with pytest.raises(ValueError, match=match):
            est.partial_fit(Y)
        assert not hasattr(est, "components_")


def test_a_given_start_codes_the_first_sample_and_partial_fit_continues_a_track(rng):
    """The start is the subspace the first sample is coded on (its statistics empty, the
    first row update refits from that sample): an earlier track's subspace codes it better
    than a random start, outputs stay finite with zero entries in the start, and the fitted
    tracker itself, statistics kept, stays nearer the subspace than a fresh start from it."""
    D, Y, _ = _stream(rng, n=30, k=3, m=200)
    first = PoissonSubspaceTracker(3, random_state=0).fit(Y[:150])
    start = first.components_.copy()
    start[start < np.quantile(start, 0.2)] = 0.0  # zero entries, no empty atom
    warm = PoissonSubspaceTracker(3, init=start, random_state=1).partial_fit(Y[150:151])
    cold = PoissonSubspaceTracker(3, random_state=1).partial_fit(Y[150:151])
    assert warm._loss_sum < 0.8 * cold._loss_sum
    warm.partial_fit(Y[151:160])
    assert np.isfinite(warm.components_).all() and warm.components_.min() >= 0
    first.partial_fit(Y[150:160])
    assert subspace_error(first.components_.T, D) < subspace_error(warm.components_.T, D)


def test_a_tracker_saved_before_init_existed_still_loads_and_tracks(rng):
    _, Y, _ = _stream(rng, m=30)
    est = PoissonSubspaceTracker(3, random_state=0).fit(Y[:20])
    del est.init  # as pickled before the parameter existed
    old = pickle.loads(pickle.dumps(est))
    assert "init" not in vars(old) and old.get_params()["init"] == "random"
    np.testing.assert_array_equal(old.transform(Y[:5]), est.transform(Y[:5]))
    old.partial_fit(Y[20:])
    assert old.n_samples_seen_ == 30


def test_pgd_rows_accept_rounding_level_steps_and_stop_row_by_row(monkeypatch):
    """Near a row's minimum its objective's rounding error exceeds the true decrease: the
    line search accepts a rise of that size instead of halving the step thirty times, and a
    row stops on its own projected gradient, so a tracker step costs a few dozen objective
    evaluations per row, where thirty halvings per iteration would cost far more."""
    import onlinemf.updates._poisson as poisson

    evaluated = [0]
    objective = poisson.poisson_row_objective

    def counting(D, *args, **kwargs):
        evaluated[0] += np.shape(D)[0]
        return objective(D, *args, **kwargs)

    monkeypatch.setattr(poisson, "poisson_row_objective", counting)
    rng = np.random.default_rng(0)
    Y = rng.poisson(rng.random((60, 8)) @ rng.random((8, 150))).T.astype(float)
    PoissonSubspaceTracker(8, row_solver="pgd", random_state=0).fit(Y)
    assert evaluated[0] / (150 * 60) < 60
    # and every row still reaches the exact solver's answer
    S, R = rng.random((50, 6)), rng.random((50, 6)) * 40
    beta, D0 = rng.random(50) * 3 + 0.1, rng.random((50, 6))
    exact = solve_poisson_rows(S, beta, R, 0.2, D0)
    pgd = solve_poisson_rows(S, beta, R, 0.2, D0, solver="pgd", max_iter=2000, tol=1e-10)
    np.testing.assert_allclose(pgd, exact, atol=1e-6)
