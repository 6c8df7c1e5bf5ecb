import numpy as np
import pytest

from onlinemf.baselines import OnlineHuberSGD, OnlineISNMF, RobustSANMF, batch_nmf
from onlinemf.datasets import NOISE_FOR_LOSS, make_nmf_synthetic
from onlinemf.losses import get_loss


@pytest.mark.parametrize("loss", ["squared", "kl", "is", "huber", "l1", "l2"])
def test_batch_mu_decreases_the_objective(loss):
    X = make_nmf_synthetic(300, 20, 5, NOISE_FOR_LOSS[loss], random_state=0).X / 4000 + 1e-6
    L = get_loss(loss, **({"delta": 0.05} if loss == "huber" else {}))
    res = batch_nmf(X, 5, L, max_iter=150, tol=0, random_state=0)
    obj = res.history["objective"]
    margin = {"squared": 0.7, "kl": 0.7, "is": 0.7, "l1": 0.95}.get(loss, 0.9)  # outliers dominate
    assert np.isfinite(obj).all() and obj[-1] < margin * obj[0]
    if loss in ("squared", "kl", "is"):  # the β-MU with γ(β) is monotone
        assert np.all(np.diff(obj) <= 1e-9 * obj[:-1])
    assert res.components.min() >= 0 and res.codes.min() >= 0


@pytest.mark.parametrize("loss", ["kl", "huber"])
def test_batch_mu_in_row_blocks_takes_the_same_iterates(loss):
    """In-memory batch MU runs over row blocks (small temporaries): the same iterates and
    objectives as one block, up to the order of the dictionary sums."""
    X = make_nmf_synthetic(250, 20, 5, "poisson", random_state=1).X / 4000 + 1e-6
    one = batch_nmf(X, 5, loss, max_iter=30, tol=0, random_state=0, block_rows=10**6)
    for rows in (7, 64):
        blocked = batch_nmf(X, 5, loss, max_iter=30, tol=0, random_state=0, block_rows=rows)
        np.testing.assert_allclose(blocked.components, one.components, rtol=1e-9)
        np.testing.assert_allclose(blocked.codes, one.codes, rtol=1e-9)
        np.testing.assert_allclose(blocked.history["objective"], one.history["objective"],
                                   rtol=1e-12)
    with pytest.raises(ValueError, match="block_rows"):
        batch_nmf(X, 5, loss, block_rows=0)


def test_online_baselines_learn():
    X = make_nmf_synthetic(2000, 20, 5, "gamma", random_state=0).X / 4000
    for est in (OnlineISNMF(5, batch_size=20, random_state=0),
                RobustSANMF(5, batch_size=20, random_state=0),
                OnlineHuberSGD(5, batch_size=20, random_state=0)):
        obj = est.fit(X).history_["objective"]
        assert np.isfinite(obj).all() and obj[-1] < obj[0], type(est).__name__


def test_online_baselines_continue_for_more_passes_with_the_papers_metric():
    """Further passes continue one run (its first pass as a one-pass fit's, the step
    schedule of one pass); the objective scores every row seen with its latest codes."""
    X = make_nmf_synthetic(600, 12, 4, "gamma", random_state=1).X / 4000
    one = RobustSANMF(4, batch_size=20, random_state=0).fit(X)
    kept = []
    est = RobustSANMF(4, batch_size=20, random_state=0, n_checkpoints=10**6)
    est.callback = lambda info: kept.append((info["rows"].copy(), info["codes"].copy(),
                                             info["components"].copy()))
    est.fit(X, n_passes=3)
    hist = est.history_
    assert hist["n_samples"][-1] == 3 * X.shape[0] and len(kept) == 3 * 30
    # the first pass's dictionaries are the one-pass fit's, to its end
    np.testing.assert_allclose(kept[29][2], one.output_components(), rtol=1e-12)
    assert est._gamma == pytest.approx(one._gamma)  # the same step: T is one pass's
    # the metric at the end: each row's latest codes against the final output dictionary
    codes = np.zeros((X.shape[0], 4))
    for rows, H, _ in kept:
        codes[rows] = H
    expected = 0.5 * ((X - codes @ kept[-1][2]) ** 2).sum() / X.shape[0]
    assert hist["objective"][-1] == pytest.approx(expected, rel=1e-9)
    assert hist["objective"][-1] < hist["objective"][29] < hist["objective"][0]
    for other in (OnlineISNMF(4, batch_size=20, random_state=0),
                  OnlineHuberSGD(4, batch_size=20, random_state=0)):
        obj = other.fit(X, n_passes=2).history_["objective"]
        assert np.isfinite(obj).all() and obj[-1] < obj[0], type(other).__name__
        assert other.history_["n_samples"][-1] == 2 * X.shape[0]
    for bad in (0, 1.5, np.inf, None, "2"):
        with pytest.raises(ValueError, match="n_passes"):
            RobustSANMF(4, random_state=0).fit(X, n_passes=bad)


@pytest.mark.parametrize("make", [
    lambda: OnlineISNMF(3, batch_size=20, random_state=0, n_checkpoints=10**6),
    lambda: RobustSANMF(3, batch_size=20, random_state=0, n_checkpoints=10**6),
    lambda: OnlineHuberSGD(3, batch_size=20, random_state=0, n_checkpoints=10**6)])
def test_online_baselines_one_pass_objective_is_the_papers_per_batch_sum(make):
    """In one pass every row is seen once: the recorded objective is the sum over the batches
    seen so far of their loss at their stored codes under the current output dictionary,
    per row (a last batch shorter than the others included)."""
    X = make_nmf_synthetic(205, 10, 3, "gamma", random_state=2).X / 4000 + 1e-6
    est, batches = make(), []
    loss = est._loss()

    def keep(info):
        batches.append((X[info["rows"]], info["codes"].copy()))
        D = info["components"]
        sums.append(sum(float(loss.value(x, h @ D).sum()) for x, h in batches)
                    / sum(len(x) for x, _ in batches))
    sums = []
    est.callback = keep
    hist = est.fit(X).history_
    assert len(batches) == 11 and len(batches[-1][0]) == 5
    np.testing.assert_allclose(hist["objective"], sums, rtol=1e-10)


def test_batch_stopping_rules():
    X = make_nmf_synthetic(300, 20, 5, "gaussian", random_state=0).X / 4000
    res = batch_nmf(X, 5, "squared", max_iter=400, tol=1e-4, random_state=0)
    assert 5 < res.n_iter < 400  # stops on the relative change, neither at once nor at the cap
    assert res.history["n_samples"][-1] == res.n_iter * X.shape[0]  # recorded to the end
    quick = batch_nmf(X, 5, "squared", max_iter=10**6, tol=0, time_budget=0.2, random_state=0)
    assert quick.history["time"][-1] < 1.0


def test_batch_callback_sees_every_iterate_and_ends_on_the_returned_one():
    """The callback gets iterates 1, 2, … in order; the last one it sees is the dictionary
    returned, and a shorter run from the same seed passes through the same iterates."""
    X = make_nmf_synthetic(200, 15, 4, "poisson", random_state=2).X / 4000 + 1e-6
    seen = {}
    res = batch_nmf(X, 4, "kl", max_iter=25, tol=0, random_state=0,
                    callback=lambda it, D: seen.__setitem__(it, D.copy()))
    assert list(seen) == list(range(1, 26)) and res.n_iter == 25
    np.testing.assert_array_equal(seen[25], res.components)
    short = batch_nmf(X, 4, "kl", max_iter=10, tol=0, random_state=0)
    np.testing.assert_allclose(seen[10], short.components, rtol=1e-12)
    with pytest.raises(TypeError, match="callback"):
        batch_nmf(X, 4, "kl", callback=3)


def _corrupted(seed=0, n=300, f=49, k=4):
    rng = np.random.default_rng(seed)
    V = np.abs(rng.normal(size=(n, k))) @ np.abs(rng.normal(size=(k, f)))
    V /= V.max(axis=1, keepdims=True)
    X = V.copy()
    out = rng.random(V.shape) < 0.1
    X[out] = np.clip(X[out] + rng.uniform(-1, 1, out.sum()), 0, None)
    return V, X


def test_bpgd_steps_monotone_and_badmm_agrees():
    from onlinemf.baselines import batch_robust_nmf

    _, X = _corrupted()
    pgd = batch_robust_nmf(X, 4, solver="pgd", max_iter=300, tol=0, random_state=0)
    obj = pgd.history["objective"]
    assert np.all(np.diff(obj) <= 1e-12 * obj[:-1])  # each block step is an MM step
    admm = batch_robust_nmf(X, 4, solver="admm", max_iter=300, tol=0, random_state=0)
    # both end near the same level (the problem is nonconvex: a loose agreement)
    assert abs(admm.history["objective"][-1] - obj[-1]) < 0.25 * obj[-1]
    assert np.linalg.norm(admm.components, axis=1).max() <= 1 + 1e-9
    assert admm.codes.min() >= 0 and np.abs(admm.outliers).max() <= 1


def test_badmm_dictionary_penalty_on_the_mean_descends_where_the_printed_one_rises():
    """On N = 3000 samples BADMM with ρ̃₃ = ρ on the summed objective (footnote 11 literally)
    lets its objective rise far above its lowest value, while ρ̃₃ = N·ρ (the online penalty
    on the per-sample scale, the default) descends to BPGD's level or below; a bad name is
    refused."""
    from onlinemf.baselines import batch_robust_nmf

    rng = np.random.default_rng(0)
    V = rng.random((3000, 5)) @ rng.random((5, 40))
    V /= V.max(axis=1, keepdims=True)
    X = V.copy()
    out = rng.random(V.shape) < 0.1
    X[out] = np.clip(X[out] + rng.uniform(-1, 1, out.sum()), 0, None)

    def admm(penalty):
        return batch_robust_nmf(X, 5, solver="admm", max_iter=300, tol=0, random_state=0,
                                n_checkpoints=300, dict_penalty=penalty).history["objective"]

    printed, mean = admm("sum"), admm("mean")
    pgd = batch_robust_nmf(X, 5, solver="pgd", max_iter=300, tol=0,
                           random_state=0).history["objective"][-1]
    assert printed[-1] > 1.2 * printed.min()
    assert mean[-1] <= mean.min() * (1 + 1e-6) and mean[-1] <= 1.02 * pgd
    with pytest.raises(ValueError, match="dict_penalty must be 'mean' or 'sum'"):
        batch_robust_nmf(X, 5, solver="admm", dict_penalty="per-sample")


@pytest.mark.parametrize("solver", ["pgd", "admm"])
def test_batch_robust_nmf_in_row_blocks_takes_the_same_iterates(solver):
    """BPGD and BADMM run over row blocks (H, R and ADMM's U, Q, multipliers are row-wise;
    the dictionary step reads HᵀH and Hᵀ(X − R)): the same iterates as one block."""
    from onlinemf.baselines import batch_robust_nmf

    _, X = _corrupted(seed=2, n=130)
    one = batch_robust_nmf(X, 4, solver=solver, max_iter=25, tol=0, random_state=0,
                           block_rows=10**6)
    for rows in (1, 17):
        blocked = batch_robust_nmf(X, 4, solver=solver, max_iter=25, tol=0, random_state=0,
                                   block_rows=rows)
        for a, b in ((blocked.components, one.components), (blocked.codes, one.codes),
                     (blocked.outliers, one.outliers)):
            np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-11)
        np.testing.assert_allclose(blocked.history["objective"], one.history["objective"],
                                   rtol=1e-10)
    with pytest.raises(ValueError, match="block_rows"):
        batch_robust_nmf(X, 4, solver=solver, block_rows=0)


def test_orpca_separates_outliers():
    from onlinemf.baselines import ORPCA

    V, X = _corrupted(n=400)
    est = ORPCA(4, random_state=0).fit(X)
    low, err = est.decompose(X)
    assert np.mean((low - V) ** 2) < 0.5 * np.mean((X - V) ** 2)
    # fit restarts from scratch: a second fit gives the same basis as the first
    again = est.fit(X).components_.copy()
    np.testing.assert_array_equal(again, ORPCA(4, random_state=0).fit(X).components_)


def test_orpca_inner_counts_its_alternations_caps_and_seconds():
    """inner_ counts the (r, e) alternations of each mini-batch's code solve (stopped at
    inner_iter, or by tol), the mini-batches at the cap, and the seconds of the code solves
    and of the basis updates, in OnlineRobustNMF's keys."""
    from onlinemf.baselines import ORPCA

    _, X = _corrupted(n=100)
    capped = ORPCA(4, batch_size=5, inner_iter=3, tol=0.0, random_state=0).fit(X).inner_
    assert capped["code_iterations"] == 3.0 and capped["code_capped"] == 1.0
    assert capped["dict_iterations"] == 1.0 and capped["dict_capped"] == 0.0
    loose = ORPCA(4, batch_size=5, inner_iter=50, tol=1e9, random_state=0).fit(X).inner_
    assert loose["code_iterations"] == 1.0 and loose["code_capped"] == 0.0
    est = ORPCA(4, batch_size=5, random_state=0).fit(X)
    inner = est.inner_
    assert 1.0 < inner["code_iterations"] < 50 and 0.0 <= inner["code_capped"] <= 1.0
    assert inner["dict_seconds"] == est.basis_seconds_
    assert 0.0 < inner["code_seconds"] and inner["code_seconds"] + inner["dict_seconds"] \
        <= est.history_["time"][-1]
    # a fit starts the counts again; partial_fit adds to them
    est.partial_fit(X[:5])
    assert est.inner_["code_seconds"] > inner["code_seconds"]
    assert est.fit(X).inner_["code_iterations"] == inner["code_iterations"]
    with pytest.raises(AttributeError, match="inner_"):
        _ = ORPCA(4).inner_


def test_orpca_mini_batches_code_with_one_basis_then_update_once(blas):
    """With batch_size = τ the τ samples are coded with the basis they found, and the basis
    changes once per batch; the method still separates the outliers."""
    from onlinemf.baselines import ORPCA

    V, X = _corrupted(n=400)
    est = ORPCA(4, batch_size=5, random_state=0)
    est.partial_fit(X[:1])  # the start (initial basis), then its statistics cleared
    L0 = est.components_.copy()
    est._A[:], est._B[:] = 0.0, 0.0
    est.partial_fit(X[1:6])
    ref = ORPCA(4, random_state=0)
    ref.partial_fit(X[:1])
    ref.components_ = L0
    R, E = ref._code(X[1:6])
    np.testing.assert_allclose(est.last_codes_, R, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(est._A, R.T @ R, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(est._B, R.T @ (X[1:6] - E), rtol=1e-10, atol=1e-12)
    # one update of the basis from those statistics, not five
    per_sample = ORPCA(4, random_state=0)
    per_sample.partial_fit(X[:1])
    per_sample.components_, per_sample._A[:], per_sample._B[:] = L0.copy(), 0.0, 0.0
    per_sample.partial_fit(X[1:6])
    assert not np.allclose(per_sample.components_, est.components_)
    # exactly one block-coordinate sweep from L0 on the batch's statistics
    from onlinemf.updates import bcd_dictionary
    one, _ = bcd_dictionary(L0, R.T @ R + est._l1 * np.eye(4), R.T @ (X[1:6] - E),
                            lambda d: d, max_sweeps=1, tol=0.0)
    np.testing.assert_allclose(est.components_, one, rtol=1e-10, atol=1e-12)
    low, _ = ORPCA(4, batch_size=5, random_state=0).fit(X).decompose(X)
    assert np.mean((low - V) ** 2) < 0.5 * np.mean((X - V) ** 2)
    # it learns on one BLAS thread, as the library's online methods do (the process's pool
    # raised to two threads by the probe, so that the limit is seen to apply)
    seen = []
    ORPCA(4, batch_size=5, random_state=0,
          callback=lambda info: seen.append(blas.threads())).fit(X[:100])
    assert seen and set(seen) == {1}
    bad = ORPCA(4, batch_size=0, random_state=0)
    with pytest.raises(ValueError, match="batch_size"):
        bad.partial_fit(X[:5])
    assert not hasattr(bad, "components_")


def _sub_err(Dh, D):
    U, s, _ = np.linalg.svd(Dh, full_matrices=False)
    U = U[:, s > 1e-10 * s.max()]
    return np.linalg.norm(D - U @ (U.T @ D)) / np.linalg.norm(D)


def test_grouse_recovers_a_gaussian_subspace_with_missing_data():
    from onlinemf.baselines import GROUSE

    rng = np.random.default_rng(0)
    D = rng.normal(size=(50, 3))
    Y = rng.normal(size=(2000, 3)) @ D.T
    Y[rng.random(Y.shape) < 0.3] = np.nan
    g = GROUSE(3, step=0.01, random_state=0).partial_fit(Y)  # η must suit the data scale
    U = g.components_.T
    np.testing.assert_allclose(U.T @ U, np.eye(3), atol=1e-10)
    assert _sub_err(U, D) < 0.05


def test_batch_poisson_reference():
    from onlinemf.baselines import batch_poisson_factorization

    rng = np.random.default_rng(0)
    D = rng.random((40, 4))
    Y = rng.poisson(rng.random((400, 4)) * 5 @ D.T).astype(float)
    mask = rng.random(Y.shape) < 0.7
    Db, A = batch_poisson_factorization(np.where(mask, Y, 0), 4, mask, random_state=0)
    assert Db.min() >= 0 and A.min() >= 0
    D0 = np.random.default_rng(99).random((40, 4))  # a random start, for scale
    assert _sub_err(Db, D) < 0.5 * _sub_err(D0, D)


def test_ol_wang_denoises_salted_faces():
    """OL-Wang's constant step is scaled to the data (θ/L̂₀): its dictionary removes most of
    the salt-and-pepper noise (with the former fixed step 0.05 it stayed below the noisy
    input's PSNR)."""
    from onlinemf.baselines import OnlineHuberSGD
    from onlinemf.coders import CodeSolver
    from onlinemf.datasets import render_faces
    from onlinemf.losses import get_loss

    rng = np.random.default_rng(0)
    imgs, subj = render_faces(1, 64, size=16, random_state=0)
    clean = imgs[:64] / 255.0
    noisy = clean.copy()
    hit = rng.random(noisy.shape) < 0.3
    noisy[hit] = np.clip(noisy[hit] + rng.uniform(-1, 1, hit.sum()), 0, 1)
    V = np.tile(noisy, (5, 1))[rng.permutation(5 * 64)]
    est = OnlineHuberSGD(20, 10, delta=0.05, random_state=0).fit(V)
    D = est.components_
    H = CodeSolver("paper", lower=0.0, max_iter=100, f_tol=1e-6, start="best").solve(
        get_loss("huber", delta=0.05), D, noisy).codes

    def psnr(a):
        return 10 * np.log10(1.0 / np.mean((np.clip(a, 0, 1) - clean) ** 2))

    assert psnr(H @ D) > psnr(noisy) + 1.0
