import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog, nnls

from onlinemf._steps import accelerated_prox_grad, nesterov_momentum
from onlinemf.coders import (
    STEP_RULES,
    CodeSolver,
    bb_step,
    initial_codes,
    spectral_lipschitz,
    spectral_norm_sq,
)
from onlinemf.losses import HuberLoss, KLDivergence, L1Loss, get_loss


def _solve(loss, D, X, mask=None, *, step="paper", init=None, max_iter=100, f_tol=1e-6,
           start="best", **settings):
    """``CodeSolver(...).solve`` with the settings these tests were written against unless
    given: the loss's own rule of the paper, 100 iterations, f_tol 1e-6, the better start."""
    coder = CodeSolver(step, max_iter=max_iter, f_tol=f_tol, start=start, **settings)
    return coder.solve(loss, D, X, mask, init=init)


def _problem(rng, n=30, k=5, f=40, noise=0.05):
    D = rng.uniform(0.0, 1.0, size=(k, f))
    H = rng.uniform(0.1, 1.0, size=(n, k))
    X = H @ D * (1 + noise * rng.uniform(-1, 1, size=(n, f)))
    return D, X


def _track(loss, D, X, step, iters, **kw):
    """Objective after 0..iters iterations (warm restarts of one-iteration solves)."""
    res = _solve(loss, D, X, step=step, max_iter=0, **kw)
    vals = [loss.value(X, res.codes @ D)]
    H = res.codes
    for _ in range(iters):
        H = _solve(loss, D, X, step=step, init=H, max_iter=1, tol=0, f_tol=0,
                        armijo_init="one", **kw).codes
        vals.append(loss.value(X, H @ D))
    return np.array(vals)


@pytest.mark.parametrize("name", ["kl", "is", "hellinger", "l2", "beta"])
def test_projected_armijo_monotone(rng, name):
    loss = get_loss(name, **({"beta": 1.5} if name == "beta" else {}))
    D, X = _problem(rng)
    vals = _track(loss, D, X, "armijo", 30)
    assert np.all(np.diff(vals, axis=0) <= 1e-12 * np.abs(vals[:-1]) + 1e-15)
    assert np.all(vals[-1] < vals[0])


@pytest.mark.parametrize("loss", [get_loss("squared"), HuberLoss(0.05)], ids=["sq", "huber"])
@pytest.mark.parametrize("step", ["lipschitz", "fista"])
def test_constant_step_monotone(rng, loss, step):
    D, X = _problem(rng)
    res = _solve(loss, D, X, step=step, max_iter=0)
    H, prev = res.codes, loss.value(X, res.codes @ D)
    for _ in range(40):
        H = _solve(loss, D, X, step=step, init=H, max_iter=1, tol=0, f_tol=0).codes
        cur = loss.value(X, H @ D)
        assert np.all(cur <= prev + 1e-12)
        prev = cur


@pytest.mark.parametrize("step", ["lipschitz", "fista", "armijo", "spg", "bb", "exact"])
def test_squared_matches_scipy_nnls(rng, step):
    D, X = _problem(rng, n=10)
    res = _solve(get_loss("squared"), D, X, step=step, lower=0.0, max_iter=5000,
                      tol=1e-12, f_tol=1e-15)
    for x, h in zip(X, res.codes, strict=True):
        ref, _ = nnls(D.T, x)
        np.testing.assert_allclose(h, ref, atol=1e-5)


def test_squared_least_squares_start_and_exact_line_search(rng):
    """The squared loss starts each row from the better of the scale-matched codes and its
    rescaled, clipped least-squares codes: a row whose unconstrained solution is interior is
    exact after one iteration. The spectral step's backtracking on this quadratic is the
    exact minimizer along the projected direction: the objective never rises above the
    non-monotone reference and every row reaches scipy's NNLS value."""
    D, _ = _problem(rng, n=1)
    H_true = rng.uniform(0.5, 2.0, size=(6, D.shape[0]))
    X = H_true @ D
    res = _solve(get_loss("squared"), D, X, step="spg", lower=0.0, max_iter=1)
    np.testing.assert_allclose(res.codes, H_true, rtol=1e-7)
    # correlated atoms (rows of positive data): the hard case for projected gradients
    D2 = np.abs(rng.normal(size=(8, 30))) + 2.0
    X2 = np.abs(rng.normal(size=(40, 30)))
    sq = get_loss("squared")
    start = _solve(sq, D2, X2, lower=0.0, max_iter=0).codes  # the scale-matched start
    first = _solve(sq, D2, X2, step="spg", lower=0.0, max_iter=1, tol=0, f_tol=0).codes
    assert np.all(sq.value(X2, first @ D2) <= sq.value(X2, start @ D2) + 1e-12)
    res = _solve(sq, D2, X2, step="spg", lower=0.0, max_iter=3000, tol=1e-12, f_tol=1e-15)
    ref = np.array([nnls(D2.T, x)[1] ** 2 / 2 for x in X2])
    np.testing.assert_allclose(sq.value(X2, res.codes @ D2), ref, rtol=1e-6, atol=1e-10)


def test_exact_line_search_is_monotone_and_tracks_its_objective(rng):
    """The "exact" rule on the squared loss: every iteration lowers every row's objective
    (never above the previous one), the objective it reports without evaluating it is the true
    one, its first iteration is no worse than the spectral step's, a sparse batch gives the
    dense result, the Tikhonov term is in its curvature, and with a mask (no Gram form) it is
    the spectral step."""
    sq = get_loss("squared")
    D = np.abs(rng.normal(size=(8, 30))) + 2.0  # correlated atoms: projections bind
    X = np.abs(rng.normal(size=(40, 30)))
    X[X < 0.5] = 0.0
    prev = _solve(sq, D, X, step="exact", lower=0.0, max_iter=0).codes
    prev_f = sq.value(X, prev @ D)
    H = _solve(sq, D, X, step="exact", lower=0.0, max_iter=1, tol=0, f_tol=0)
    for it in range(2, 30):
        res = _solve(sq, D, X, step="exact", lower=0.0, max_iter=it, tol=0, f_tol=0)
        f = sq.value(X, res.codes @ D)
        np.testing.assert_allclose(res.objective, f, rtol=1e-9, atol=1e-12)
        assert np.all(f <= prev_f + 1e-12) and np.all(res.codes >= 0.0)
        prev_f = f
    spg = _solve(sq, D, X, step="spg", lower=0.0, max_iter=1, tol=0, f_tol=0)
    assert np.all(H.objective <= spg.objective + 1e-12)
    sparse = _solve(sq, D, sp.csr_matrix(X), step="exact", lower=0.0, max_iter=5)
    dense = _solve(sq, D, X, step="exact", lower=0.0, max_iter=5)
    np.testing.assert_allclose(sparse.codes, dense.codes, rtol=1e-10, atol=1e-12)
    ridge = _solve(sq, D, X, step="exact", lower=0.0, max_iter=3000, tol=1e-13,
                        f_tol=0, l2=0.5)
    ref = _solve(sq, D, X, step="spg", lower=0.0, max_iter=3000, tol=1e-13, f_tol=0,
                      l2=0.5)
    np.testing.assert_allclose(ridge.objective, ref.objective, rtol=1e-8)
    mask = rng.random(X.shape) > 0.2
    a = _solve(sq, D, X, mask, step="exact", lower=0.0, max_iter=4)
    b = _solve(sq, D, X, mask, step="spg", lower=0.0, max_iter=4)
    np.testing.assert_array_equal(a.codes, b.codes)


@pytest.mark.parametrize("name", ["kl", "is", "squared"])
def test_least_squares_start_is_exact_on_planted_interior_codes(rng, name):
    """start="best" (the default) begins from the rescaled least-squares codes where they fit
    better: on X = H°D with interior H°, every divergence is zero there, so one iteration
    leaves H°; the scale-matched constant start ("constant", the paper's) is far from it."""
    D, _ = _problem(rng, n=1)
    H_true = rng.uniform(0.5, 2.0, size=(6, D.shape[0]))
    X = H_true @ D
    loss = get_loss(name)
    best = _solve(loss, D, X, step="spg", max_iter=1, tol=0, f_tol=0)
    np.testing.assert_allclose(best.codes, H_true, rtol=1e-6)
    const = _solve(loss, D, X, step="spg", max_iter=1, tol=0, f_tol=0, start="constant")
    assert np.abs(const.codes - H_true).max() > 1e-2
    with pytest.raises(ValueError, match="start"):
        _solve(loss, D, X, start="zeros")


@pytest.mark.parametrize("step", ["armijo", "spg"])
def test_kkt_residual_small_for_smooth_losses(rng, step):
    D, X = _problem(rng)
    for loss in (KLDivergence(), get_loss("is"), get_loss("hellinger")):
        res = _solve(loss, D, X, step=step, max_iter=2000, tol=1e-10, f_tol=1e-14)
        H = res.codes
        G = loss.grad(X, H @ D) @ D.T
        pg = np.linalg.norm(H - np.clip(H - G, 1e-8, 1e8), axis=1)
        G0 = loss.grad(X, np.full((1, D.shape[1]), 1.0) * (H @ D).mean()) @ D.T
        assert np.all(pg <= 1e-3 * max(np.linalg.norm(G0), 1.0))


def test_polyak_reaches_lp_optimum(rng):
    D, X = _problem(rng, n=5, k=3, f=15, noise=0.3)
    loss = L1Loss()
    res = _solve(loss, D, X, step="polyak", max_iter=3000, lower=0.0, polyak_delta=0.01)
    k, f = D.shape
    for x, h in zip(X, res.codes, strict=True):
        # min Σ t  s.t.  −t ≤ x − Dᵀh ≤ t, h ≥ 0
        c = np.r_[np.zeros(k), np.ones(f)]
        A = np.block([[-D.T, -np.eye(f)], [D.T, -np.eye(f)]])
        b = np.r_[-x, x]
        lp = linprog(c, A_ub=A, b_ub=b, bounds=[(0, None)] * (k + f))
        val = loss.value(x[None], (h @ D)[None])[0]
        assert val <= lp.fun + 0.01 + 0.02 * lp.fun


def test_literal_armijo_runs_and_stays_in_box(rng):
    D, X = _problem(rng)
    res = _solve(get_loss("is"), D, X, step="armijo", armijo="literal", max_iter=50)
    assert res.codes.min() >= 1e-8 and np.isfinite(res.codes).all()
    v0 = get_loss("is").value(X, _solve(get_loss("is"), D, X, max_iter=0).codes @ D)
    assert get_loss("is").value(X, res.codes @ D).mean() < v0.mean()


def test_masked_codes_ignore_missing(rng):
    D, X = _problem(rng, n=8)
    mask = rng.random(X.shape) > 0.3
    Xn = np.where(mask, X, 1e6)  # garbage where missing
    a = _solve(KLDivergence(), D, Xn, mask, max_iter=100).codes
    b = _solve(KLDivergence(), D, np.where(mask, X, -5.0), mask, max_iter=100).codes
    np.testing.assert_allclose(a, b)


def test_spectral_norm(rng):
    D = rng.random((6, 30))
    np.testing.assert_allclose(spectral_norm_sq(D), np.linalg.norm(D, 2) ** 2, rtol=1e-8)
    np.testing.assert_allclose(spectral_norm_sq(D.T), np.linalg.norm(D, 2) ** 2, rtol=1e-8)
    assert spectral_norm_sq(np.zeros((3, 4))) == 0.0
    np.testing.assert_allclose(spectral_lipschitz(D @ D.T), np.linalg.norm(D, 2) ** 2,
                               rtol=1e-8)
    assert spectral_lipschitz(np.zeros((3, 3))) == 1e-12  # the floor keeps 1/L finite


def test_nesterov_momentum_sequence():
    """t_{k+1}² − t_{k+1} = t_k² (the identity FISTA's O(1/k²) rate rests on), t_k ≥ (k+1)/2,
    the weight (t_k − 1)/t_{k+1} in [0, 1), and per-row arrays give the scalar values."""
    t, ts = 1.0, []
    for k in range(50):
        t_next, w = nesterov_momentum(t)
        assert t_next**2 - t_next == pytest.approx(t * t, rel=1e-12)
        assert 0.0 <= w < 1.0 and t_next >= (k + 2) / 2
        ts.append(t)
        t = t_next
    rows, w_rows = nesterov_momentum(np.array(ts))
    np.testing.assert_allclose(rows[:-1], ts[1:], rtol=1e-14)
    assert np.all(w_rows >= 0)


def test_accelerated_prox_grad_solves_nnls_and_stops_on_request(rng):
    """The FISTA loop on ½‖Ax − b‖² over x ≥ 0 reaches scipy's NNLS solution, faster than the
    plain projected gradient with the same step, and ``stop`` ends it (after the momentum)."""
    A = rng.random((40, 8)) + 0.5
    b = rng.random(40)
    G, c = A.T @ A, A.T @ b
    step = 1.0 / spectral_lipschitz(G)

    def grad(x):
        return G @ x - c

    def nonneg(v, _):
        return np.maximum(v, 0.0)

    ref, _ = nnls(A, b)
    x, it = accelerated_prox_grad(np.zeros(8), grad, nonneg, step, 20000,
                                  stop=lambda xn, y: np.linalg.norm(xn - y) < 1e-13)
    np.testing.assert_allclose(x, ref, atol=1e-8)
    assert it < 20000

    def f(v):
        return 0.5 * np.sum((A @ v - b) ** 2)

    fista, _ = accelerated_prox_grad(np.zeros(8), grad, nonneg, step, 200)
    plain = np.zeros(8)
    for _ in range(200):
        plain = nonneg(plain - step * grad(plain), step)
    assert f(fista) - f(ref) <= f(plain) - f(ref) + 1e-15
    seen = []
    accelerated_prox_grad(np.zeros(8), grad, nonneg, step, 50,
                          stop=lambda xn, y: seen.append(1) or len(seen) == 3)
    assert len(seen) == 3


def test_bad_step_rejected(rng):
    D, X = _problem(rng)
    with pytest.raises(ValueError, match="code step"):
        _solve(KLDivergence(), D, X, step="newton")
    with pytest.raises(ValueError, match="curvature"):
        _solve(KLDivergence(), D, X, step="lipschitz")


def test_bb_step_monotone_and_optimal_for_poisson_codes(rng):
    # Wang and Chi's coefficient problem: Σ (d_iᵀa − y_i log d_iᵀa) + μ‖a‖², a ≥ 0
    from scipy.optimize import minimize

    D = rng.uniform(0.0, 1.0, size=(4, 30))
    Y = rng.poisson(rng.uniform(0.5, 3.0, size=(6, 4)) @ D).astype(float)
    mu = 0.1
    loss = KLDivergence()
    res = _solve(loss, D, Y, step="bb", lower=0.0, l2=2 * mu, max_iter=3000,
                      tol=1e-12, f_tol=1e-15)
    for y, a in zip(Y, res.codes, strict=True):
        def g(v, y=y):
            z = np.maximum(v @ D, 1e-10)
            return (z - y * np.log(z)).sum() + mu * v @ v, D @ (1 - y / z) + 2 * mu * v

        ref = minimize(g, np.ones(4), jac=True, bounds=[(0, None)] * 4, method="L-BFGS-B",
                       options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 5000})
        np.testing.assert_allclose(a, ref.x, atol=1e-5)
    vals = _track(loss, D, Y, "bb", 30, lower=0.0, l2=0.2)
    assert np.all(np.diff(vals, axis=0) <= 1e-12 * np.abs(vals[:-1]) + 1e-15)


@pytest.mark.parametrize("name", ["kl", "is", "squared", "beta"])
def test_spg_batch_equals_loop_over_samples(rng, name):
    """Per-sample steps, memories and stopping: the batch solve is a loop of single solves."""
    loss = get_loss(name, **({"beta": 1.5} if name == "beta" else {}))
    D, X = _problem(rng, n=12)
    batch = _solve(loss, D, X, step="spg", bb_step0=0.05)
    for i in range(X.shape[0]):
        one = _solve(loss, D, X[i:i + 1], step="spg", bb_step0=0.05)
        np.testing.assert_allclose(batch.codes[i], one.codes[0], rtol=1e-8, atol=1e-12)
        assert batch.n_iter[i] == one.n_iter[0]


def test_spg_never_above_its_reference_and_lower_than_start(rng):
    """The non-monotone test keeps every iterate below the start's objective (the first
    reference) and the final objective below the start's."""
    loss = KLDivergence()
    D, X = _problem(rng)
    start = _solve(loss, D, X, step="spg", max_iter=0).codes
    f0 = loss.value(X, start @ D)
    H = start
    for _ in range(30):
        H = _solve(loss, D, X, step="spg", init=H, max_iter=1, tol=0, f_tol=0).codes
        assert np.all(loss.value(X, H @ D) <= f0 + 1e-12)
    assert np.all(loss.value(X, H @ D) < f0)


def test_bb_step_quotients_and_fallback():
    s = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 0.0]])
    y = np.array([[2.0, 0.0], [0.5, 0.5], [-1.0, 0.0]])
    prev = np.array([7.0, 7.0, 7.0])
    np.testing.assert_allclose(bb_step(s, y, prev, "long"), [0.5, 2.0, 7.0])
    np.testing.assert_allclose(bb_step(s, y, prev, "short"), [0.5, 2.0, 7.0])
    y2 = np.array([[1.0, 1.0], [2.0, 0.0], [1.0, 0.0]])
    # long: sᵀs/sᵀy, short: sᵀy/yᵀy differ when y is not parallel to s
    np.testing.assert_allclose(bb_step(s, y2, prev, "long"), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(bb_step(s, y2, prev, "short"), [0.5, 0.5, 1.0])
    with pytest.raises(ValueError, match="kind"):
        bb_step(s, y, prev, "medium")


@pytest.mark.parametrize("name", ["kl", "squared"])
@pytest.mark.parametrize("step", ["spg", "armijo"])
def test_sparse_batch_same_iterates_as_dense(rng, name, step):
    """A CSR batch is solved from its nonzeros with the same iterates as the dense batch."""

    loss = get_loss(name)
    D, X = _problem(rng, n=20)
    X[X < np.quantile(X, 0.6)] = 0.0
    X[4] = 0.0  # an empty row
    # from the same start (the squared loss's default least-squares start solves some rows
    # exactly, and with f_tol = 0 roundoff alone would then decide when they stop)
    H0 = initial_codes(D, X)
    dense = _solve(loss, D, X, step=step, max_iter=8, tol=0, f_tol=0, init=H0)
    sparse = _solve(loss, D, sp.csr_matrix(X), step=step, max_iter=8, tol=0, f_tol=0,
                         init=H0)
    np.testing.assert_allclose(sparse.codes, dense.codes, rtol=1e-6, atol=1e-10)
    np.testing.assert_array_equal(sparse.n_iter, dense.n_iter)
    dense = _solve(loss, D, X, step=step, max_iter=8)
    sparse = _solve(loss, D, sp.csr_matrix(X), step=step, max_iter=8)
    np.testing.assert_allclose(sparse.codes, dense.codes, rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize("step", ["spg", "armijo", "lipschitz", "bb"])
@pytest.mark.parametrize("sparse", [False, True])
def test_float32_stays_float32(rng, step, sparse):
    """float32 in, float32 through the iteration (step sizes included) and out."""

    D, X = _problem(rng)
    D, X = D.astype(np.float32), X.astype(np.float32)
    loss = get_loss("kl" if step != "lipschitz" else "squared")
    Xin = sp.csr_matrix(X) if sparse else X
    res = _solve(loss, D, Xin, step=step, max_iter=20)
    assert res.codes.dtype == np.float32
    assert bb_step(X[:, :3], X[:, :3], np.ones(X.shape[0], np.float32)).dtype == np.float32


@pytest.mark.parametrize("name,step,form", [
    ("squared", "spg", "dense"), ("squared", "spg", "sparse"), ("squared", "armijo", "mask"),
    ("kl", "spg", "dense"), ("kl", "spg", "sparse"), ("kl", "armijo", "mask"),
    ("is", "spg", "dense"), ("l1", "polyak", "dense"),
])
def test_reported_objective_is_the_objective_at_the_codes(rng, name, step, form):
    """CodeResult.objective is d(x ‖ hD) + (m/2)‖h‖² at the returned codes, for every form of
    the batch (the estimators record it instead of evaluating the batch again)."""

    loss = get_loss(name)
    D, X = _problem(rng)
    mask = None
    if form == "sparse":
        X[X < np.quantile(X, 0.5)] = 0.0
    if form == "mask":
        mask = rng.random(X.shape) < 0.7
    Xin = sp.csr_matrix(X) if form == "sparse" else X
    m = 0.1
    res = _solve(loss, D, Xin, mask, step=step, max_iter=15, l2=m)
    H = res.codes
    expected = loss.value(X, H @ D, mask) + 0.5 * m * np.einsum("ij,ij->i", H, H)
    np.testing.assert_allclose(res.objective, expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("kind", ["dense", "masked", "sparse"])
def test_value_and_gradient_from_a_shared_model_equal_the_separate_ones(kind):
    """The spectral step forms hD once for the value at the trial point and reuses it for the
    gradient there (the next iteration's): both must equal their stand-alone forms."""

    from onlinemf.coders._problem import CodeProblem as _Problem

    rng = np.random.default_rng(7)
    X = rng.gamma(0.5, 1.0, size=(12, 9)) * (rng.random((12, 9)) < 0.5)
    mask = rng.random(X.shape) < 0.8 if kind == "masked" else None
    Xb = sp.csr_matrix(X) if kind == "sparse" else X + 0.01
    D, H = rng.random((3, 9)) + 0.1, rng.random((12, 3))
    prob = _Problem(get_loss("kl"), D, Xb, mask, 0.1)
    assert prob.fused
    Y = prob.model(H)
    assert np.array_equal(prob.value(H, model=Y), prob.value(H))
    assert np.array_equal(prob.grad(H, model=Y), prob.grad(H))


@pytest.mark.parametrize("loss_name, kind", [("squared", "dense"), ("squared", "sparse"),
                                             ("huber", "dense"), ("kl", "dense"),
                                             ("kl", "sparse"), ("l1", "dense")])
def test_the_shared_product_gives_the_value_and_gradient_bit_for_bit(loss_name, kind):
    """The product a rule carries from its step's objective to its next gradient (HG in the
    Gram form, the model HD otherwise) gives exactly the stand-alone value and gradient."""

    from onlinemf.coders._problem import CodeProblem as _Problem

    rng = np.random.default_rng(17)
    X = rng.gamma(0.5, 1.0, size=(11, 9)) * (rng.random((11, 9)) < 0.6) + 0.01
    D, H = rng.random((4, 9)) + 0.1, rng.random((11, 4))
    prob = _Problem(get_loss(loss_name), D, sp.csr_matrix(X) if kind == "sparse" else X,
                    None, 0.05)
    y = prob.shared(H)
    if prob.gram:
        assert list(y) == ["product"] and np.array_equal(y["product"], H @ (D @ D.T))
    else:
        assert list(y) == ["model"] and np.array_equal(y["model"], H @ D if kind == "dense"
                                                       else prob.model(H))
    assert np.array_equal(prob.value(H, **y), prob.value(H))
    assert np.array_equal(prob.grad(H, **y), prob.grad(H))


def test_beta_two_codes_in_gram_form_with_the_multiplicative_step():
    """β = 2 is quadratic (the Gram form) and has a multiplicative update: the final model
    the step hands over is HD, which the Gram form's objective must not read as its HG."""
    from onlinemf import OnlineNMF
    from onlinemf.losses import BetaDivergence

    rng = np.random.default_rng(23)
    X = rng.random((40, 12)) + 0.05
    D = rng.random((5, 12)) + 0.1
    loss = BetaDivergence(2.0)
    res = CodeSolver("mu", max_iter=30).solve(loss, D, X)
    H = res.codes
    np.testing.assert_allclose(res.objective, loss.value(X, H @ D), rtol=1e-9, atol=1e-12)
    est = OnlineNMF(5, loss=loss, random_state=0, max_iter=2).fit(X)
    assert np.isfinite(est.components_).all()


def test_polyak_keeps_a_stopped_rows_codes():
    """A row that stops keeps the codes it stopped with, as it would solved alone."""
    from onlinemf.coders._divergence import iterate, make_rule
    from onlinemf.coders._problem import CodeProblem as _Problem

    rng = np.random.default_rng(29)
    X = rng.gamma(0.5, 1.0, size=(30, 15)) + 1e-3
    X[:8] *= 30
    D = rng.random((5, 15)) + 0.05
    loss = get_loss("l1")

    def run(rows, cap):
        prob = _Problem(loss, D, X[rows], None, 0.0)
        H = np.full((len(rows), 5), 0.3)
        return iterate(make_rule("polyak", loss, max_iter=cap, tol=1e-3), prob, H,
                       prob.value(H), max_iter=cap, tol=1e-3, f_tol=1e-7)

    res = run(np.arange(30), 200)
    early = np.flatnonzero(res.n_iter < 200)
    assert early.size >= 3
    for i in early[:5]:
        alone = run(np.array([i]), 200)
        assert alone.n_iter[0] == res.n_iter[i]
        np.testing.assert_allclose(res.codes[i], alone.codes[0], rtol=1e-9, atol=1e-12)


class _Uncarried:
    """A rule run as if it carried nothing from its step to its next gradient."""

    def __init__(self, rule):
        self.rule = rule

    def __getattr__(self, name):
        return getattr(self.rule, name)

    def gradient(self, problem, state, H):
        state.shared = None
        return problem.grad(H)


@pytest.mark.parametrize("loss_name, step", [("squared", "lipschitz"), ("huber", "lipschitz"),
                                             ("kl", "armijo"), ("is", "armijo"),
                                             ("l2", "armijo"), ("l1", "polyak")])
def test_carrying_the_product_leaves_every_iterate_unchanged(loss_name, step):
    """Rows stop at different iterations (the working set is cut): the codes, counts and
    objectives equal those of the same rule forming every gradient afresh, bit for bit."""
    from onlinemf.coders._divergence import iterate, make_rule
    from onlinemf.coders._problem import CodeProblem as _Problem

    rng = np.random.default_rng(19)
    X = rng.gamma(0.5, 1.0, size=(40, 15)) + 1e-3
    X[:10] *= 30
    D = rng.random((5, 15)) + 0.05
    loss = get_loss(loss_name)
    tol = 1e-3 if step == "polyak" else 1e-5  # the subgradient steps stop on the step only
    runs = []
    for wrap in (lambda r: r, _Uncarried):
        rule = make_rule(step, loss, max_iter=200, tol=tol, armijo="projected")
        prob = _Problem(loss, D, X, None, 0.0)
        H = np.full((40, 5), 0.3)
        res = iterate(wrap(rule), prob, H, prob.value(H), max_iter=200, tol=tol, f_tol=1e-7)
        runs.append(res)
    assert len(set(runs[0].n_iter.tolist())) > 2
    assert np.array_equal(runs[0].codes, runs[1].codes)
    assert np.array_equal(runs[0].n_iter, runs[1].n_iter)
    assert np.array_equal(runs[0].objective, runs[1].objective)


def test_spg_rows_are_solved_independently_of_the_batch():
    """Rows that stop early are frozen and never backtracked for: every row's codes are the
    ones it gets alone (up to the rounding of batched products; the first step length, which
    defaults to a batch-wide bound, is given)."""
    rng = np.random.default_rng(8)
    X = rng.gamma(0.4, 1.0, size=(40, 15)) + 1e-3
    X[:10] *= 50  # rows of very different scales stop at different iterations
    D = rng.random((4, 15)) + 0.05
    loss = get_loss("kl")
    kw = dict(step="spg", max_iter=300, tol=1e-6, f_tol=1e-9, bb_step0=1e-3)
    res = _solve(loss, D, X, **kw)
    assert len(set(res.n_iter.tolist())) > 3
    for i in range(0, 40, 7):
        alone = _solve(loss, D, X[i:i + 1], **kw)
        assert np.allclose(res.codes[i], alone.codes[0], rtol=1e-6, atol=1e-9)


def test_spg_backtracking_interpolates_the_model_exactly():
    """On a sparse batch a backtracked trial's model is interpolated between the model at h
    and at the projected point (hD is linear in h): the model and gradient returned for the
    accepted point equal the ones formed from scratch there, and failed rows keep h."""

    from onlinemf.coders._problem import CodeProblem as _Problem
    from onlinemf.coders._rules import _spg_step

    rng = np.random.default_rng(11)
    X = sp.csr_matrix(rng.gamma(0.5, 1.0, size=(30, 12)) * (rng.random((30, 12)) < 0.4))
    D = rng.random((4, 12)) + 0.05
    prob = _Problem(get_loss("kl"), D, X, None, 0.0)
    H = rng.random((30, 4)) + 0.1
    y0 = prob.model(H)
    f0, G = prob.value(H, model=y0), prob.grad(H, model=y0)
    alpha = np.full(30, 50.0)  # far too long: most rows must backtrack
    live = np.ones(30, dtype=bool)
    Hn, fn, failed, Gn, yn = _spg_step(prob, H, f0, f0, G, alpha, 1e-8, 1e8, 1e-4, live, y0)
    moved = np.any(Hn != np.clip(H - alpha[:, None] * G, 1e-8, 1e8), axis=1)
    assert moved.sum() > 10  # backtracked rows
    np.testing.assert_allclose(yn, prob.model(Hn), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(Gn, prob.grad(Hn), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fn, prob.value(Hn), rtol=1e-12, atol=1e-12)
    assert np.array_equal(Hn[failed], H[failed])
    assert np.all(fn <= f0 + 1e-12)


def test_sparse_rows_caches_follow_their_rows():
    """SparseRows keeps per-batch work (the data terms of a divergence, the CSR structure,
    the dictionary's columns at the nonzeros); a subset's cached values are its own rows'."""

    from onlinemf._sparse import as_sparse_rows

    rng = np.random.default_rng(12)
    A = sp.random(15, 10, density=0.4, format="csr", random_state=3)
    D = rng.random((3, 10))
    R = as_sparse_rows(A, D)
    const = R.row_constant("sq", lambda x: x * x)
    np.testing.assert_allclose(const, np.asarray(A.multiply(A).sum(axis=1)).ravel())
    rows = np.array([7, 2, 11, 0])
    sub = R.subset(rows)
    np.testing.assert_allclose(sub.row_constant("sq", lambda x: x * 0), const[rows])
    H = rng.random((4, 3))
    np.testing.assert_allclose(sub.model(H, D), as_sparse_rows(A[rows], D).model(H, D))
    assert R.DC.shape == (A.nnz, 3)  # gathered on the parent: a subset takes its rows
    np.testing.assert_array_equal(R.subset(rows).DC, D.T[A[rows].indices])
    W1, W2 = rng.random(A.nnz), rng.random(A.nnz)
    for w in (W1, W2):  # one CSR structure, values swapped in per call
        Aw = sp.csr_matrix((w, A.indices, A.indptr), shape=A.shape)
        np.testing.assert_allclose(R.weighted_columns(w, D), Aw @ D.T)
        H15 = rng.random((15, 3))
        np.testing.assert_allclose(R.transpose_times(w, H15), (Aw.T @ H15).T)


@pytest.mark.parametrize("block", [1, 7, 40, 1 << 20])
def test_sparse_rows_model_by_blocks_equals_the_dense_product(block, monkeypatch):
    """(HD) at the nonzeros, formed a block of rows at a time, is the dense product's
    entries there, bit for bit across block sizes, with empty rows and on a subset."""
    import onlinemf._sparse as sparse_rows

    rng = np.random.default_rng(5)
    A = sp.random(40, 30, density=0.2, format="csr", random_state=4)
    A = sp.csr_matrix(A.multiply((np.arange(40) % 6 != 0)[:, None]))  # some empty rows
    A.eliminate_zeros()
    D, H = rng.random((4, 30)), rng.random((40, 4))
    R = sparse_rows.as_sparse_rows(A, D)
    direct = R.model(H, D)
    monkeypatch.setattr(sparse_rows, "MODEL_BLOCK", block)
    np.testing.assert_array_equal(R.model(H, D), direct)
    rows, dense = A.nonzero(), H @ D
    np.testing.assert_allclose(direct, dense[rows], rtol=1e-13)
    sub_rows = np.array([3, 0, 17, 6, 39])
    sub = R.subset(sub_rows)
    np.testing.assert_allclose(sub.model(H[sub_rows], D), (H[sub_rows] @ D)[
        A[sub_rows].nonzero()], rtol=1e-13)


def test_sparse_rows_weighted_columns_from_the_gathered_columns():
    """Once D's columns at the nonzeros are gathered, (sparse W)·Dᵀ comes from them: the
    same sums in the same order as scipy's product, for new weights each call, on a subset,
    and for a dictionary other than the bound one."""
    from onlinemf._sparse import as_sparse_rows

    rng = np.random.default_rng(8)
    A = sp.random(30, 50, density=0.15, format="csr", random_state=6)
    D = rng.random((5, 50))
    R = as_sparse_rows(A, D)
    assert R.DC is not None  # gathered
    for _ in range(2):
        w = rng.random(A.nnz)
        Aw = sp.csr_matrix((w, A.indices, A.indptr), shape=A.shape)
        np.testing.assert_array_equal(R.weighted_columns(w, D), Aw @ D.T)
    rows = np.array([4, 9, 0, 22])
    sub = R.subset(rows)
    assert sub.DC is not None
    ws = rng.random(sub.nnz)
    np.testing.assert_allclose(sub.weighted_columns(ws, D), sp.csr_matrix(
        (ws, A[rows].indices, A[rows].indptr), shape=(4, 50)) @ D.T, rtol=1e-14)
    D2 = rng.random((5, 50))
    np.testing.assert_allclose(R.weighted_columns(A.data, D2), A @ D2.T, rtol=1e-14)


def _mu_reference(loss, D, X, mask, H, m, iters):
    """The multiplicative update written out entry by entry from its definition (Févotte and
    Idier 2011): h_k ← h_k (Σ_f d_kf x_f y_f^(β−2) / (Σ_f d_kf y_f^(β−1) + m h_k))^γ over
    the observed entries."""
    beta = {"kl": 1.0, "is": 0.0}.get(loss.name, getattr(loss, "beta", None))
    gamma = 1.0 / (2.0 - beta) if beta < 1 else (1.0 if beta <= 2 else 1.0 / (beta - 1.0))
    W = np.ones_like(X, dtype=bool) if mask is None else mask
    H = H.copy()
    for _ in range(iters):
        Y = H @ D
        for i in range(X.shape[0]):
            o = W[i]
            num = D[:, o] @ (X[i, o] * Y[i, o] ** (beta - 2.0))
            den = D[:, o] @ (Y[i, o] ** (beta - 1.0)) + m * H[i]
            H[i] = np.clip(H[i] * (num / den) ** gamma, 1e-8, 1e8)
    return H


@pytest.mark.parametrize("name", ["kl", "is", "beta"])
@pytest.mark.parametrize("form", ["dense", "mask", "sparse"])
def test_mu_codes_match_their_definition_and_decrease(rng, name, form):
    """code step 'mu': the iterates of the written-out multiplicative update, each iteration
    lowering every sample's objective (the auxiliary function's guarantee), the reported
    objective the one at the codes."""

    if form == "sparse" and name != "kl":
        return  # only KL has sparse kernels (the others reject CSR batches; tested elsewhere)
    loss = get_loss(name, **({"beta": 0.5} if name == "beta" else {}))
    D, X = _problem(rng)
    mask = rng.random(X.shape) < 0.7 if form == "mask" else None
    if form == "sparse":
        X[X < np.quantile(X, 0.5)] = 0.0
    Xin = sp.csr_matrix(X) if form == "sparse" else X
    m = 0.05
    H0 = initial_codes(D, X, mask)
    res = _solve(loss, D, Xin, mask, step="mu", init=H0, max_iter=6, tol=0, l2=m)
    np.testing.assert_allclose(res.codes, _mu_reference(loss, D, X, mask, H0, m, 6),
                               rtol=1e-9)
    assert np.all(res.n_iter == 6)

    def objective(H):
        return loss.value(X, H @ D, mask) + 0.5 * m * np.einsum("ij,ij->i", H, H)

    np.testing.assert_allclose(res.objective, objective(res.codes), rtol=1e-9)
    prev, H = objective(H0), H0
    for _ in range(25):
        H = _solve(loss, D, Xin, mask, step="mu", init=H, max_iter=1, tol=0, l2=m).codes
        cur = objective(H)
        assert np.all(cur <= prev * (1 + 1e-12))
        prev = cur
    assert np.all(prev < objective(H0))


def test_mu_codes_reach_the_optimum_and_stop_per_sample(rng):
    """Run long, the multiplicative codes reach the spectral solver's optimum (KKT); a sample
    stops once its relative step is within tol, each on its own count; the update is for the
    beta-divergences only."""
    D, X = _problem(rng, n=12)
    loss = get_loss("is")
    ref = _solve(loss, D, X, step="spg", max_iter=5000, tol=1e-12, f_tol=1e-15)
    mu = _solve(loss, D, X, step="mu", max_iter=20000, tol=1e-10)
    np.testing.assert_allclose(mu.objective, ref.objective, rtol=1e-6)
    short = _solve(loss, D, X, step="mu", max_iter=5000, tol=1e-3)
    assert short.converged.all() and short.n_iter.min() < short.n_iter.max() < 5000
    for i in (0, 5):
        one = _solve(loss, D, X[i:i + 1], step="mu", max_iter=5000, tol=1e-3)
        np.testing.assert_allclose(one.codes[0], short.codes[i], rtol=1e-10)
        assert one.n_iter[0] == short.n_iter[i]
    with pytest.raises(ValueError, match="beta-divergence"):
        _solve(get_loss("hellinger"), D, X, step="mu")


# -- ADMM codes for the non-smooth losses --------------------------------------------------
def _lad_by_linprog(D, x):
    """min_{h ≥ 0} ‖x − hD‖₁ as a linear program (scipy's HiGHS)."""
    K, F = D.shape
    c = np.r_[np.zeros(K), np.ones(F)]
    A = np.block([[-D.T, -np.eye(F)], [D.T, -np.eye(F)]])
    res = linprog(c, A_ub=A, b_ub=np.r_[-x, x], bounds=[(0, None)] * (K + F))
    return res.fun


def test_admm_codes_reach_the_least_absolute_deviations_minimum():
    rng = np.random.default_rng(0)
    D = rng.random((4, 15)) * np.array([[1.0], [0.05], [1.0], [0.5]])  # one short atom
    H_true = rng.random((30, 4)) * 3
    X = H_true @ D
    out = rng.random(X.shape) < 0.2
    X[out] += rng.uniform(0.0, 2.0, size=out.sum())  # outliers
    res = _solve(get_loss("l1"), D, X, step="admm", lower=0.0, upper=1e8,
                      max_iter=2000, tol=1e-9)
    ours = np.abs(X - res.codes @ D).sum(axis=1)
    exact = np.array([_lad_by_linprog(D, x) for x in X])
    assert (ours >= exact - 1e-7).all()
    np.testing.assert_allclose(ours, exact, rtol=1e-4, atol=1e-8)
    np.testing.assert_allclose(res.objective, ours)
    assert (res.codes >= 0).all()


def test_admm_codes_for_l2_are_nonnegative_least_squares():
    rng = np.random.default_rng(1)
    D = rng.random((3, 12))
    X = rng.random((10, 12))
    res = _solve(get_loss("l2"), D, X, step="admm", lower=0.0, upper=1e8,
                      max_iter=3000, tol=1e-10)
    for x, h in zip(X, res.codes):
        h_star, r_star = nnls(D.T, x)
        assert np.linalg.norm(x - h @ D) == pytest.approx(r_star, rel=1e-5)


def test_admm_batch_equals_a_loop_over_single_samples_and_ignores_missing_entries():
    rng = np.random.default_rng(2)
    D = rng.random((3, 10))
    X = rng.random((8, 10))
    mask = rng.random(X.shape) > 0.3
    loss = get_loss("l1")
    kw = dict(step="admm", lower=1e-8, upper=1e8, max_iter=300, tol=1e-6)
    batch = _solve(loss, D, X, mask, **kw)
    for i in range(X.shape[0]):
        one = _solve(loss, D, X[i:i + 1], mask[i:i + 1], **kw)
        np.testing.assert_allclose(one.codes[0], batch.codes[i], rtol=1e-12, atol=1e-14)
        assert one.n_iter[0] == batch.n_iter[i]
    # a missing entry's value does not matter
    Xm = np.where(mask, X, 1e6)
    np.testing.assert_allclose(_solve(loss, D, Xm, mask, **kw).codes, batch.codes)


def test_admm_is_refused_for_a_loss_without_a_proximal_map():
    D = np.ones((2, 3))
    with pytest.raises(ValueError, match="proximal map"):
        _solve(get_loss("kl"), D, np.ones((2, 3)), step="admm")


# -- every step rule through the one driver -----------------------------------------------
#: rule case -> (the coder's settings, the loss, the batch forms the rule takes)
RULE_CASES = {
    "spg": (dict(step="spg", bb_step0=0.05), "kl", ("dense", "mask", "sparse")),
    "armijo": (dict(step="armijo"), "kl", ("dense", "mask", "sparse")),
    "armijo-literal": (dict(step="armijo", armijo="literal"), "is", ("dense", "mask")),
    "lipschitz": (dict(step="lipschitz"), "huber", ("dense", "mask")),
    "polyak": (dict(step="polyak"), "l1", ("dense", "mask")),
    "fista": (dict(step="fista"), "squared", ("dense", "mask", "sparse")),
    "bb": (dict(step="bb", bb_step0=0.05), "kl", ("dense", "mask", "sparse")),
    "mu": (dict(step="mu"), "kl", ("dense", "mask", "sparse")),
    "exact": (dict(step="exact"), "squared", ("dense", "sparse")),
    "admm": (dict(step="admm"), "l1", ("dense", "mask", "sparse")),
}


def _rule_batch(rng, name, form, n=12):
    """A batch for a rule case: dense, with a mask, or CSR (a third of the entries 0)."""
    D, X = _problem(rng, n=n)
    mask = rng.random(X.shape) > 0.25 if form == "mask" else None
    if form == "sparse":
        X[X < np.quantile(X, 0.3)] = 0.0
        return D, X, sp.csr_matrix(X), mask
    return D, X, X, mask


def test_rule_cases_cover_every_step_rule():
    assert {s["step"] for s, _, _ in RULE_CASES.values()} == set(STEP_RULES)


@pytest.mark.parametrize("case,form", [(c, f) for c, (_, _, forms) in RULE_CASES.items()
                                       for f in forms])
def test_every_rule_batch_equals_a_loop_over_single_samples(case, form):
    """The driver keeps each row's step state, count, stopping and codes its own: the batch
    result is, row by row, the result of the row alone (the stopping tolerances make rows
    stop at different iterations, so the working set shrinks mid-solve)."""
    settings, name, _ = RULE_CASES[case]
    rng = np.random.default_rng(3)
    D, _, Xin, mask = _rule_batch(rng, name, form)
    loss = get_loss(name, **({"delta": 0.1} if name == "huber" else {}))
    coder = CodeSolver(**settings, max_iter=300, tol=1e-4, f_tol=1e-7, start="best")
    batch = coder.solve(loss, D, Xin, mask)
    assert batch.n_iter.min() >= 1
    for i in range(Xin.shape[0]):
        one = coder.solve(loss, D, Xin[i:i + 1], None if mask is None else mask[i:i + 1])
        np.testing.assert_allclose(one.codes[0], batch.codes[i], rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(one.objective[0], batch.objective[i], rtol=1e-10)
        assert one.n_iter[0] == batch.n_iter[i]
        assert one.converged[0] == batch.converged[i]


#: rule case -> the smooth loss its KKT test runs on. Not here: Polyak's step, whose ℓ1
#: loss is not smooth (its optimum is checked against a linear program above), and the
#: literal Armijo listing, whose test on the unprojected point rejects the steps that would
#: move a code along an active bound, so it stalls there instead of converging
KKT_LOSSES = {"spg": "kl", "armijo": "kl", "lipschitz": "squared", "fista": "squared",
              "bb": "kl", "mu": "kl", "exact": "squared", "admm": "l2"}


@pytest.mark.parametrize("case", list(KKT_LOSSES))
def test_every_rule_meets_the_kkt_conditions_of_the_box(case):
    """Run to convergence on a small smooth problem, every rule's codes are stationary for
    min_{h ∈ [ℓ, u]^K} d(x ‖ hD) + (m/2)‖h‖²: the projected gradient h − Π(h − ∇f(h)), which
    vanishes exactly at the box's KKT points, is small against the gradient at the start."""
    settings = RULE_CASES[case][0]
    rng = np.random.default_rng(5)
    D = rng.uniform(0.0, 1.0, size=(3, 15))
    H_true = rng.uniform(0.1, 1.0, size=(6, 3))
    H_true[rng.random(H_true.shape) < 0.4] = 0.0  # codes at the bound: active constraints
    X = H_true @ D * (1 + 0.3 * rng.uniform(-1, 1, size=(6, 15))) + 0.02
    loss, m, lower, upper = get_loss(KKT_LOSSES[case]), 0.05, 1e-8, 1e8
    coder = CodeSolver(**settings, max_iter=20000, tol=1e-12, f_tol=0.0, l2=m, start="best")
    res = coder.solve(loss, D, X)

    def gradient(H):
        return loss.grad(X, H @ D) @ D.T + m * H

    H = res.codes
    pg = np.linalg.norm(H - np.clip(H - gradient(H), lower, upper), axis=1)
    H0 = initial_codes(D, X)
    scale = np.linalg.norm(gradient(H0), axis=1)
    assert np.all(pg <= 1e-5 * scale), (pg / scale).max()
    assert np.all(H >= lower) and np.all(H <= upper)
    assert np.any(H == lower)  # a bound is active at the solution


@pytest.mark.parametrize("name, kind", [("kl", "sparse"), ("kl", "dense"), ("kl", "masked"),
                                        ("is", "dense"), ("beta", "masked")])
def test_the_multiplicative_coder_hands_over_its_model_for_the_dictionary_products(name, kind):
    # the rule's last objective forms HD at the final codes; the dictionary step's products
    # read it, and they are those it would form itself, bit for bit
    from onlinemf._sparse import as_sparse_rows

    rng = np.random.default_rng(0)
    loss = get_loss(name)
    D = rng.random((4, 30)) + 0.05
    X = sp.random(25, 30, density=0.3, format="csr", random_state=0)
    mask = rng.random((25, 30)) > 0.3 if kind == "masked" else None
    data = as_sparse_rows(X, D) if kind == "sparse" else X.toarray() + 0.1
    res = CodeSolver("mu", max_iter=20).solve(loss, D, data, mask)
    assert res.model is not None
    expected = data.model(res.codes, D) if kind == "sparse" else res.codes @ D
    np.testing.assert_array_equal(res.model, expected)
    for given, fresh in zip(loss.mu_products(data, res.codes, D, mask, model=res.model),
                            loss.mu_products(data, res.codes, D, mask)):
        np.testing.assert_array_equal(given, fresh)


@pytest.mark.parametrize("step", ["spg", "exact"])
def test_only_the_multiplicative_rule_hands_over_a_model(step):
    # a rule whose state keeps a working set's model (the spectral projected gradient's,
    # compacted as rows stop) hands none over, and a KL fit over sparse rows with such a
    # coder and the multiplicative dictionary step runs on the products it forms itself
    from onlinemf import OnlineNMF

    X = sp.random(400, 60, density=0.2, format="csr", random_state=4)
    D = np.random.default_rng(0).random((5, 60)) + 0.05
    res = CodeSolver(step, max_iter=50).solve(get_loss("kl"), D, X)
    assert res.model is None
    est = OnlineNMF(5, loss="kl", coder=CodeSolver(step), dictionary_update="surrogate",
                    batch_size=100, max_iter=2, max_no_improvement=None,
                    random_state=0).fit(X)
    assert np.isfinite(est.components_).all()
