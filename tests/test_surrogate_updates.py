"""The running-surrogate dictionary steps of OnlineNMF (the default for the squared loss and
the β-divergences): the multiplicative step is the batch MU at its first step and a
majorization step after it, its box rescaling keeps the statistics consistent, the BCD step
minimizes the box quadratic (checked against L-BFGS-B), and the sparse and masked products
are those of the dense ones."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.datasets import load_digits

from onlinemf import OnlineNMF, Surrogate
from onlinemf._sparse import as_sparse_rows
from onlinemf.estimators._online_nmf import SGD_WARMUP_ROWS
from onlinemf.losses import get_loss
from onlinemf.updates import (
    BCDSurrogateUpdate,
    MultiplicativeSurrogateUpdate,
    SGDState,
    SurrogateState,
    anchored_state,
    batch_weight,
)

BETA_LOSSES = [("kl", {}), ("is", {}), ("beta", {"beta": 0.5}), ("beta", {"beta": 3.0}),
               ("squared", {})]


def _batch(seed=0, n=40, f=12, k=4):
    rng = np.random.default_rng(seed)
    D = rng.uniform(0.05, 0.3, (k, f))
    H = rng.uniform(0.2, 2.0, (n, k))
    X = H @ D * rng.uniform(0.5, 1.5, (n, f))
    return X, H, D


def _unboxed(loss, D, H, X):
    HtP, HtQ = loss.mu_products(X, H, D)
    return D * (HtP / HtQ) ** loss.mu_exponent


@pytest.mark.parametrize("name,params", BETA_LOSSES)
def test_first_multiplicative_step_is_the_batch_mu_rescaled_into_the_box(name, params):
    loss = get_loss(name, **params)
    X, H, D = _batch()
    rule = MultiplicativeSurrogateUpdate(loss.mu_exponent, decay=0.5)
    HtP, HtQ = loss.mu_products(X, H, D)
    D1, state = rule.update(rule.init(D), D, HtP, HtQ, X.shape[0])
    R = _unboxed(loss, D, H, X)
    expected = R / np.maximum(R.max(axis=1), 1.0)[:, None]
    np.testing.assert_allclose(D1, expected, rtol=1e-12)
    assert D1.max() <= 1.0 and state.n_steps == 1 and state.n_samples_seen == X.shape[0]


@pytest.mark.parametrize("name,params", BETA_LOSSES)
def test_multiplicative_step_does_not_increase_the_batch_loss(name, params):
    # the MU with the exponent γ minimizes an auxiliary function of the β-divergence
    loss = get_loss(name, **params)
    for seed in range(3):
        X, H, D = _batch(seed)
        before = loss.value(X, H @ D).sum()
        after = loss.value(X, H @ _unboxed(loss, D, H, X)).sum()
        assert after <= before * (1 + 1e-12)


@pytest.mark.parametrize("name,params", BETA_LOSSES)
def test_box_rescaling_keeps_the_statistics_consistent(name, params):
    """Rescaling an atom into the box (its codes grow by the same factor) must leave the
    next step's atom direction as if no box were there."""
    loss = get_loss(name, **params)
    g = loss.mu_exponent
    X1, H1, D = _batch(1)
    X2, H2, _ = _batch(2)
    D = D * 8.0  # atoms above 1 after the first step: the box rescales them
    H1, H2 = H1 / 8.0, H2 / 8.0
    rule = MultiplicativeSurrogateUpdate(g, decay=0.5, nominal_batch=X1.shape[0])
    D1, s1 = rule.update(rule.init(D), D, *loss.mu_products(X1, H1, D), X1.shape[0])
    R1 = _unboxed(loss, D, H1, X1)
    c1 = R1.max(axis=1) / D1.max(axis=1)
    assert c1.max() > 1.5  # the box did act
    # the same second batch, with the codes the rescaled atoms need (model unchanged)
    D2, _ = rule.update(s1, D1, *loss.mu_products(X2, H2 * c1, D1), X2.shape[0])
    # no box: accumulate the same two batches by hand
    w = 2 ** -0.5
    num = (1 - w) * (D ** (1 / g) * loss.mu_products(X1, H1, D)[0]) / X1.shape[0] \
        + w * (R1 ** (1 / g) * loss.mu_products(X2, H2, R1)[0]) / X2.shape[0]
    den = (1 - w) * loss.mu_products(X1, H1, D)[1] / X1.shape[0] \
        + w * loss.mu_products(X2, H2, R1)[1] / X2.shape[0]
    R2 = (num / den) ** g
    np.testing.assert_allclose(D2 / D2.max(axis=1, keepdims=True),
                               R2 / R2.max(axis=1, keepdims=True), rtol=1e-10)


@pytest.mark.parametrize("gain", [1.0, 10.0])
def test_bcd_step_minimizes_the_quadratic_and_scales_atoms_into_the_box(gain):
    """Many sweeps reach the minimizer of ½tr(DᵀAD) − tr(DᵀB) over D ≥ 0 (checked against
    L-BFGS-B); atoms above 1 (data ×10) are then divided by their maximum and the
    statistics follow (A ← SAS, B ← SB), so the surrogate is the same function of the
    product and its value at the returned atoms is the minimum. Atoms within the box
    (data ×1) are left as they are."""
    X, H, D = _batch(3)
    X = gain * X
    b = X.shape[0]
    rule = BCDSurrogateUpdate(decay=1.0, max_sweeps=500, nominal_batch=b)
    D1, state = rule.update(rule.init(D), D, H, X)
    A0, B0 = H.T @ H / b, H.T @ X / b
    A, B, _ = state.stats.sums
    m = np.sqrt(np.diagonal(A) / np.diagonal(A0))
    assert np.all(D1 >= 0) and np.all(D1 <= 1)
    if gain == 1.0:
        np.testing.assert_allclose(m, 1.0)
    else:
        assert m.min() > 1.0  # every atom was scaled back into the box
        np.testing.assert_allclose(D1.max(axis=1), 1.0)
    np.testing.assert_allclose(A, A0 * np.outer(m, m), rtol=1e-12)
    np.testing.assert_allclose(B, B0 * m[:, None], rtol=1e-12)

    def f(d, A=A0, B=B0):
        M = d.reshape(D.shape)
        return 0.5 * np.sum((M @ M.T) * A) - np.sum(M * B), (A @ M - B).ravel()

    ref = minimize(f, D.ravel(), jac=True, method="L-BFGS-B", bounds=[(0, None)] * D.size,
                   options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10000})
    unscaled = m[:, None] * D1
    assert f(unscaled.ravel())[0] <= ref.fun + 1e-9 * abs(ref.fun)
    assert f(D1.ravel(), A, B)[0] == pytest.approx(f(unscaled.ravel())[0], rel=1e-12)


def test_bcd_step_fills_missing_entries_with_the_model():
    X, H, D = _batch(4)
    mask = np.random.default_rng(0).random(X.shape) > 0.3
    rule = BCDSurrogateUpdate()
    filled = np.where(mask, X, H @ D)
    a = rule.update(rule.init(D), D, H, np.where(mask, X, 123.0), mask)[0]
    b = rule.update(rule.init(D), D, H, filled)[0]
    np.testing.assert_array_equal(a, b)


def test_sparse_and_masked_products_equal_the_dense_ones():
    X, H, D = _batch(5)
    X[X < np.quantile(X, 0.6)] = 0.0
    kl = get_loss("kl")
    dense = kl.mu_products(X, H, D)
    sparse = kl.mu_products(as_sparse_rows(sp.csr_matrix(X)), H, D)
    assert sparse[1].shape == (D.shape[0], 1)  # KL's Q = 1: one column for every feature
    for a, b in zip(dense, sparse):
        np.testing.assert_allclose(a, np.broadcast_to(b, a.shape), rtol=1e-12)
    mask = X > 0
    for name, params in BETA_LOSSES:
        loss = get_loss(name, **params)
        Xp = np.where(mask, X, 1.0)
        a = loss.mu_products(Xp, H, D, mask)
        b = loss.mu_products(np.where(mask, X, 7.0), H, D, mask)
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("loss", ["squared", "kl"])
def test_surrogate_step_learns_faster_than_the_papers_sgd_on_digits(loss):
    X = load_digits().data[:900] / 16.0
    fresh = get_loss(loss)

    def fit_error(est):
        return -est.score(X)

    one = {"max_iter": 1, "max_no_improvement": None}  # a pass each
    sgd = OnlineNMF(10, loss=loss, dictionary_update="sgd", random_state=0, **one).fit(X)
    sur = OnlineNMF(10, loss=loss, random_state=0, **one).fit(X)
    assert sur._update_kind(fresh) in ("bcd", "mu")
    assert fit_error(sur) < 0.9 * fit_error(sgd)
    more = OnlineNMF(10, loss=loss, max_iter=3, max_no_improvement=None,
                     random_state=0).fit(X)
    assert fit_error(more) < fit_error(sur)


def test_surrogate_needs_a_loss_that_has_one_and_a_refusal_changes_nothing():
    X = load_digits().data[:200] / 16.0
    est = OnlineNMF(4, loss="huber", random_state=0).fit(X)
    assert est._update_kind(est.loss_) == "sgd"
    before = est.components_.copy()
    est.set_params(dictionary_update="surrogate")
    with pytest.raises(ValueError, match="huber loss has none"):
        est.partial_fit(X)
    np.testing.assert_array_equal(est.components_, before)


@pytest.mark.parametrize("sparse", [False, True])
def test_atoms_from_samples_lie_in_the_box_even_with_fewer_rows_than_atoms(sparse):
    X = load_digits().data[:5] / 16.0
    X = sp.csr_matrix(X) if sparse else X
    est = OnlineNMF(8, loss="kl", init="samples", dictionary_update="surrogate",
                    random_state=0).partial_fit(X)
    D = est.components_
    assert np.isfinite(D).all() and D.min() > 0 and D.max() <= 1.0


def test_a_first_chunk_smaller_than_k_leaves_the_other_atoms_random():
    X = load_digits().data[:3] / 16.0
    est = OnlineNMF(8, loss="kl", init="samples", random_state=0).partial_fit(X)
    D = est.components_
    # three atoms follow the three rows (jittered), the other five are not near-copies of them
    rows = X / X.max(axis=1, keepdims=True)
    corr = np.corrcoef(np.vstack([rows, D]))[:3, 3:]
    assert (corr.max(axis=0)[:3] > 0.9).all()
    assert (corr.max(axis=0)[3:] < 0.9).all()


def test_sparse_input_gives_the_dense_fit_with_the_surrogate_and_auto_warms_text_up():
    rng = np.random.default_rng(0)
    X = sp.random(300, 40, density=0.15, format="csr", random_state=0,
                  data_rvs=lambda m: rng.poisson(2.0, m) + 1.0)
    kw = dict(loss="kl", dictionary_update="surrogate", batch_size=50, random_state=0)
    a = OnlineNMF(5, **kw).fit(X)
    b = OnlineNMF(5, **kw).fit(X.toarray())
    assert a._dictionary_kind == b._dictionary_kind == "mu"
    np.testing.assert_allclose(a.components_, b.components_, rtol=1e-8, atol=1e-12)
    text = OnlineNMF(5, loss="kl").fit(X)
    assert text._dictionary_kind == "mu" and text._warmup == SGD_WARMUP_ROWS
    dense = OnlineNMF(5, loss="kl").fit(X.toarray())
    assert dense._dictionary_kind == "mu" and dense._warmup == 0
    assert OnlineNMF(5).fit(X)._dictionary_kind == "bcd"
    assert OnlineNMF(5, loss="kl", dictionary_update="sgd").fit(X)._warmup == 0


def test_batch_weight_counts_a_ragged_batch_for_its_share():
    assert batch_weight(300, 300, 300, 0.3) == 1.0  # the first full batch replaces nothing
    for t in (2, 5, 40):
        assert batch_weight(300 * t, 300, 300, 0.3) == pytest.approx(t ** -0.3, rel=1e-12)
    # a 12-row tail counts for 12/300 of a step: far less than a full batch at the same t
    full, tail = batch_weight(3000, 300, 300, 0.3), batch_weight(3000, 12, 300, 0.3)
    assert tail < full / 10 and tail == pytest.approx(1 - (1 - full) ** (12 / 300))


def _nndsvd_atoms(X, k, mask=None, seed=0):
    est = OnlineNMF(k, loss="kl", init="nndsvd", random_state=seed)
    est._rng = np.random.default_rng(seed)
    return est._atoms_from_nndsvd(X, mask, 1.0, est._rng.random((k, X.shape[1])))


def test_nndsvd_of_a_rank_one_matrix_is_its_right_factor_with_the_mean_filled_in():
    r = np.random.default_rng(0)
    u = r.random(40) + 0.5
    v = r.random(25)
    v[[3, 7, 11]] = 0.0
    X = np.outer(u, v)
    D = _nndsvd_atoms(X, 1)[0]
    on = v > 0
    np.testing.assert_allclose(D[on], v[on] / v.max(), rtol=1e-8)
    # the zeros hold NNDSVDa's fill, the data mean, in the atom's own scale (√σ·v/‖v‖)
    fill = X.mean() / (np.sqrt(np.linalg.norm(u) * np.linalg.norm(v)) * v.max()
                       / np.linalg.norm(v))
    np.testing.assert_allclose(D[~on], fill, rtol=1e-8)


def test_nndsvd_atoms_lie_in_the_box_and_sparse_masked_equal_dense():
    r = np.random.default_rng(1)
    X = r.random((60, 6)) @ r.random((6, 30))
    X[X < np.quantile(X, 0.4)] = 0.0
    mask = r.random(X.shape) > 0.2
    D = _nndsvd_atoms(X, 5)
    assert np.isfinite(D).all() and D.min() > 0
    np.testing.assert_allclose(D.max(axis=1), 1.0)
    np.testing.assert_allclose(_nndsvd_atoms(sp.csr_matrix(X), 5), D, atol=1e-10)
    Dm = _nndsvd_atoms(X, 5, mask=mask)
    np.testing.assert_allclose(_nndsvd_atoms(np.where(mask, X, 0.0), 5), Dm, atol=1e-12)
    np.testing.assert_allclose(_nndsvd_atoms(sp.csr_matrix(X), 5, mask=mask), Dm, atol=1e-10)


def test_nndsvd_with_fewer_rows_than_atoms_starts_from_samples():
    X = load_digits().data[:3] / 16.0
    a = OnlineNMF(8, loss="kl", init="nndsvd", random_state=0).partial_fit(X)
    b = OnlineNMF(8, loss="kl", init="samples", random_state=0).partial_fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)


def test_nndsvd_start_fits_and_ends_in_the_box():
    X = load_digits().data / 16.0
    est = OnlineNMF(10, loss="kl", init="nndsvd", dictionary_update="surrogate",
                    random_state=0).fit(X)
    D = est.components_
    assert np.isfinite(D).all() and D.min() >= 0 and D.max() <= 1.0
    # and the fit improves on its start (the same estimator with the start's atoms)
    start = clone(est)
    start.fit(X)
    start.components_ = _nndsvd_atoms(X, 10)
    assert est.score(X) > start.score(X) + 1e-3 * abs(start.score(X))


def test_nndsvd_of_a_zero_first_chunk_starts_from_distinct_random_atoms():
    X = sp.csr_matrix((30, 12))  # no mass at all: every atom from the random start
    D = _nndsvd_atoms(X, 4)
    assert np.isfinite(D).all() and D.min() > 0
    assert np.ptp(D, axis=0).max() > 1e-2  # no twins


def test_auto_starts_sparse_sgd_from_nndsvd_and_dense_sgd_at_random():
    X = load_digits().data[:200] / 16.0
    sparse_auto = OnlineNMF(6, loss="kl", random_state=0).partial_fit(sp.csr_matrix(X))
    sparse_nndsvd = OnlineNMF(6, loss="kl", init="nndsvd", random_state=0).partial_fit(
        sp.csr_matrix(X))
    np.testing.assert_array_equal(sparse_auto.components_, sparse_nndsvd.components_)
    dense_auto = OnlineNMF(6, loss="kl", dictionary_update="sgd", random_state=0).partial_fit(X)
    dense_random = OnlineNMF(6, loss="kl", dictionary_update="sgd", init="random",
                             random_state=0).partial_fit(X)
    np.testing.assert_array_equal(dense_auto.components_, dense_random.components_)


# ----------------------------------------------------------------------------- SGD warm-up
@pytest.mark.parametrize("name,params", BETA_LOSSES)
def test_an_anchored_multiplicative_step_moves_its_share_w_from_the_dictionary(name, params):
    """Anchored statistics are the current dictionary's fixed point, weighted 1 − w: the step
    is D ⊙ ((1 − w)·HᵀQ + w·HᵀP)/HᵀQ (γ-linearized), not the batch's full MU step."""
    loss = get_loss(name, **params)
    g = loss.mu_exponent
    X, H, D = _batch(4)
    n = X.shape[0]
    rule = MultiplicativeSurrogateUpdate(g, decay=0.5, nominal_batch=n)
    counts = SGDState(n_steps=7, n_samples_seen=3 * n)
    state = anchored_state(rule, D, counts)
    D1, s1 = rule.update(state, D, *loss.mu_products(X, H, D), n)
    w = batch_weight(4 * n, n, n, 0.5)
    assert 0 < w < 1
    HtP, HtQ = loss.mu_products(X, H, D)
    R = D * ((1 - w) + w * HtP / HtQ) ** g
    np.testing.assert_allclose(D1, R / np.maximum(R.max(axis=1), 1.0)[:, None], rtol=1e-12)
    full = _unboxed(loss, D, H, X)  # what empty statistics would give: a larger move
    assert np.abs(np.log(R / D)).max() < np.abs(np.log(full / D)).max()
    assert (s1.n_steps, s1.n_samples_seen) == (8, 4 * n)


def test_an_anchored_bcd_step_keeps_the_dictionary_on_data_it_already_fits():
    X, H, D = _batch(5)
    Xfit = H @ D  # the batch is fitted exactly by D: past and batch are both minimized by D
    rule = BCDSurrogateUpdate(decay=0.5, max_sweeps=50, nominal_batch=X.shape[0])
    D1, _ = rule.update(anchored_state(rule, D, SGDState(3, 120)), D, H, Xfit)
    np.testing.assert_allclose(D1, D, atol=1e-9)
    # from empty statistics the same step lands at the batch's own least-squares fit, from
    # anchored ones between it and D
    D_empty, _ = rule.update(rule.init(D), D, H, X)
    D_anch, _ = rule.update(anchored_state(rule, D, SGDState(3, 120)), D, H, X)
    assert 0 < np.linalg.norm(D_anch - D) < np.linalg.norm(D_empty - D)


def test_sgd_warmup_hands_the_stream_to_the_surrogate_after_its_rows():
    X = sp.csr_matrix(load_digits().data[:600] / 16.0)
    est = OnlineNMF(6, loss="kl", dictionary_update=Surrogate(warmup=250), batch_size=100,
                    random_state=0)
    est.partial_fit(X[:200])
    assert isinstance(est.state_, SGDState) and est._warming_up
    est.partial_fit(X[200:400])  # steps at 200 (SGD: 200 < 250), then at 300 the surrogate
    assert isinstance(est.state_, SurrogateState) and not est._warming_up
    assert (est.n_steps_, est.n_samples_seen_) == (4, 400)
    est.partial_fit(X[400:])
    assert np.isfinite(est.components_).all() and est.components_.max() <= 1.0
    # the same rows in other chunks give the same stream (the same first chunk: NNDSVD's)
    other = OnlineNMF(6, loss="kl", dictionary_update=Surrogate(warmup=250), batch_size=100,
                    random_state=0)
    other.partial_fit(X[:200])
    for lo in range(200, 600, 100):
        other.partial_fit(X[lo:lo + 100])
    np.testing.assert_allclose(other.components_, est.components_, rtol=1e-10)
    # the warm-up starts from NNDSVD (its first steps are SGD's); zero rows: from samples
    nowarm = OnlineNMF(6, loss="kl", dictionary_update=Surrogate(warmup=0),
                       random_state=0).partial_fit(X)
    assert isinstance(nowarm.state_, SurrogateState) and not nowarm._warming_up


def test_sgd_warmup_then_surrogate_ends_below_either_alone_on_topics():
    """The default text path: SGD from NNDSVD, then the anchored surrogate, ends at a lower
    KL than SGD alone after the same rows (the stall the warm-up exists to break)."""
    from sklearn.feature_extraction.text import TfidfTransformer

    from onlinemf.datasets import make_topic_corpus

    X = sp.csr_matrix(TfidfTransformer().fit_transform(
        make_topic_corpus(3000, random_state=0).data))
    kw = dict(loss="kl", random_state=0, max_iter=3)
    hybrid = OnlineNMF(5, dictionary_update=Surrogate(warmup=3000), **kw).fit(X)
    sgd = OnlineNMF(5, dictionary_update="sgd", init="nndsvd", **kw).fit(X)
    assert hybrid.score(X) > sgd.score(X)


def test_a_pickled_stream_resumes_exactly_across_the_warmup_switch():
    import pickle

    X = sp.csr_matrix(load_digits().data[:500] / 16.0)
    kw = dict(loss="kl", dictionary_update=Surrogate(warmup=200), batch_size=100, random_state=0)
    whole = OnlineNMF(6, **kw)
    for lo in range(0, 500, 100):
        whole.partial_fit(X[lo:lo + 100])
    # cut mid-warm-up, at its last row (the switch comes with the next batch) and after it
    for cut in (100, 200, 300):
        est = OnlineNMF(6, **kw)
        for lo in range(0, cut, 100):
            est.partial_fit(X[lo:lo + 100])
        est = pickle.loads(pickle.dumps(est))
        for lo in range(cut, 500, 100):
            est.partial_fit(X[lo:lo + 100])
        np.testing.assert_array_equal(est.components_, whole.components_)


@pytest.mark.parametrize("group", [1, 2, 32])
@pytest.mark.parametrize("width_bytes", [8 * 5 * 1, 8 * 5 * 7, 8 * 5 * 64])
def test_bcd_over_column_blocks_equals_the_whole_sweep(monkeypatch, width_bytes, group):
    """A separable projection (a clip) leaves each feature's column its own Gauss–Seidel
    sweep, so running every atom over one column block at a time (blocks of 1, 7 and all 64
    columns here), the products of ``group`` atoms at a time, gives the whole-dictionary
    sweep's D and sweep count, up to rounding."""
    import onlinemf.updates._surrogate as surrogate

    rng = np.random.default_rng(3)
    H = rng.random((40, 5))
    A = H.T @ H / 40
    B = H.T @ rng.random((40, 64)) / 40 - 0.05  # some entries clip at 0
    D0 = rng.random((5, 64))

    def clip(d):
        return np.maximum(d, 0.0)

    whole, n_whole = surrogate.bcd_dictionary(D0, A, B, clip, max_sweeps=5000, tol=1e-15)
    monkeypatch.setattr(surrogate, "BCD_BLOCK_BYTES", width_bytes)
    monkeypatch.setattr(surrogate, "BCD_GROUP", group)
    blocked, n_blocked = surrogate.bcd_dictionary(D0, A, B, clip, max_sweeps=5000, tol=1e-15,
                                                  separable=True)
    np.testing.assert_allclose(blocked, whole, rtol=1e-10, atol=1e-12)
    # at a tolerance of 1e-15 the last sweep's change is at the rounding floor, where the two
    # summation orders (and the CPU's vector width) may stop one sweep apart
    assert abs(n_blocked - n_whole) <= 1 and n_whole > 10
    assert (whole == 0).any() and not np.shares_memory(blocked, D0)
    # and it is the minimizer: KKT of ½tr(DᵀAD) − tr(DᵀB) over D ≥ 0, to the sweeps' accuracy
    grad = A @ blocked - B
    assert np.all(grad[blocked == 0] >= -1e-8)
    assert np.abs(grad[blocked > 0]).max() < 1e-8


def test_bcd_by_groups_leaves_an_unused_atom_and_matches_a_few_sweeps(monkeypatch):
    """An atom no code uses (a_jj = 0) stays as it is, and with a capped sweep count (the
    online steps' case) the grouped sweeps give the plain sweeps' D."""
    import onlinemf.updates._surrogate as surrogate

    rng = np.random.default_rng(5)
    H = rng.random((30, 6))
    H[:, 2] = 0.0
    A, B = H.T @ H / 30, H.T @ rng.random((30, 50)) / 30
    D0 = rng.random((6, 50))
    whole, n_whole = surrogate.bcd_dictionary(D0, A, B, lambda d: np.maximum(d, 0), max_sweeps=3)
    monkeypatch.setattr(surrogate, "BCD_GROUP", 4)
    monkeypatch.setattr(surrogate, "BCD_BLOCK_BYTES", 8 * 6 * 16)
    grouped, n_grouped = surrogate.bcd_dictionary(D0, A, B, lambda d: np.maximum(d, 0),
                                                  max_sweeps=3, separable=True)
    np.testing.assert_allclose(grouped, whole, rtol=1e-12, atol=1e-14)
    assert n_grouped == n_whole == 3
    np.testing.assert_array_equal(grouped[2], D0[2])


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("gamma", [1.0, 0.5])
@pytest.mark.parametrize("column", [True, False])
@pytest.mark.parametrize("anchored", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_multiplicative_step_by_feature_blocks_equals_the_whole_arrays(
        monkeypatch, order, gamma, column, anchored, dtype):
    # every operation of the step but the atoms' rescaling acts feature by feature: blocks
    # of 7 features (a ragged last one) give the bits of one block, statistics included, with
    # an atom no code uses and atoms rescaled into the box, float32 components included
    import onlinemf.updates._majorization as mj

    k, f = 5, 103
    rng = np.random.default_rng(0)
    D0 = np.asarray(rng.random((k, f)) * 0.5, order=order).astype(dtype, copy=False)

    def run(entries):
        monkeypatch.setattr(mj, "MU_BLOCK_ENTRIES", entries)
        monkeypatch.setattr(mj, "MU_WHOLE_ENTRIES", 0)
        rule = MultiplicativeSurrogateUpdate(gamma=gamma, nominal_batch=50)
        state, D, out = rule.init(D0, anchored=anchored), D0, []
        r = np.random.default_rng(1)
        for _ in range(4):
            HtP = r.random((k, f)) * 3
            HtP = np.asarray(HtP, order=order)
            HtQ = (r.random((k, 1) if column else (k, f)) * 2).astype(dtype)
            HtQ[0] = 0.0
            D, state = rule.update(state, D, HtP, HtQ, 50)
            st = state.stats
            out.append((D, st.sums, st.t, st.n, st.mass))
        return out

    blocks, whole = run(7 * k), run(1 << 30)
    assert whole[-1][0].max() == 1.0  # some atom was rescaled into the box
    for (D1, s1, *c1), (D2, s2, *c2) in zip(blocks, whole):
        np.testing.assert_array_equal(D1, D2)
        for a, b in zip(s1, s2):
            np.testing.assert_array_equal(a, b)
        assert c1 == c2
        assert D1.flags.f_contiguous == (order == "F")


def test_each_statistic_of_the_multiplicative_step_keeps_the_dtype_of_its_blend():
    # float32 components and HᵀQ with float64 HᵀP, no atom rescaled: the numerator is
    # float64, the denominator stays float32 (its blend never meets a float64 array)
    rule = MultiplicativeSurrogateUpdate(nominal_batch=50)
    rng = np.random.default_rng(0)
    D = (rng.random((4, 30)) * 0.1).astype(np.float32)
    state = rule.init(D, anchored=True)
    for _ in range(3):
        HtQ = (rng.random((4, 1)) + 1.0).astype(np.float32)
        D, state = rule.update(state, D, rng.random((4, 30)) * 1e-3, HtQ, 50)
        num, den = state.stats.sums
        assert D.dtype == np.float32 and D.max() < 1.0
        assert num.dtype == np.float64 and den.dtype == np.float32
