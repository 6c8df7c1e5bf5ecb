"""Proximal maps and projections of the eight SMF problems (spec 002 §2.2, §2.4, §7)."""

import numpy as np
import pytest
from scipy.optimize import minimize

from onlinemf.constraints import max_norm_prox
from onlinemf.problems import (
    PROBLEM_NAMES,
    BoxCodes,
    GroupL1Codes,
    L1Codes,
    L1Outliers,
    LaplacianSimplexAtoms,
    MaxNormDictionary,
    QuadraticDictionary,
    RidgeCodes,
    UnitBallCodes,
    make_problem,
    path_laplacian,
)

rng = np.random.default_rng(0)

CODE_PARTS = {
    "l1": (L1Codes(0.3), lambda z: z),
    "l1_ridge_nonneg": (L1Codes(0.3, ridge=0.5, nonneg=True), lambda z: np.maximum(z, 0)),
    "group": (GroupL1Codes(0.4, group_size=2), lambda z: z),
    "ridge": (RidgeCodes(0.7), lambda z: z),
    "ridge_nonneg": (RidgeCodes(0.7, nonneg=True), lambda z: np.maximum(z, 0)),
    "ball": (UnitBallCodes(), lambda z: z / max(1, np.linalg.norm(z))),
    "box": (BoxCodes(0.5), lambda z: np.clip(z, 0, 0.5)),
}


@pytest.mark.parametrize("name", sorted(CODE_PARTS))
def test_code_prox_is_the_argmin(name):
    """prox(x) minimizes step·φ(h) + ½‖h − x‖² over H: no feasible perturbation does better."""
    part, feasible = CODE_PARTS[name]
    step = 0.8
    for _ in range(5):
        x = rng.normal(size=(1, 6))
        p = part.prox(x, step)[0]
        assert np.allclose(feasible(p), p)

        def val(h, x=x):
            return step * part.penalty(h[None])[0] + 0.5 * np.sum((h - x[0]) ** 2)

        best = val(p)
        for _ in range(300):
            q = feasible(p + rng.normal(scale=rng.choice([1e-3, 1e-1]), size=p.size))
            assert val(q) >= best - 1e-12


@pytest.mark.parametrize("name", sorted(CODE_PARTS))
def test_code_prox_idempotent_on_constraint_and_nonexpansive(name):
    part, _ = CODE_PARTS[name]
    X1, X2 = rng.normal(size=(50, 6)), rng.normal(size=(50, 6))
    d = np.linalg.norm(part.prox(X1, 0.5) - part.prox(X2, 0.5), axis=1)
    assert np.all(d <= np.linalg.norm(X1 - X2, axis=1) + 1e-12)


def test_outlier_prox_soft_threshold_then_clip():
    part = L1Outliers(0.5, bound=1.0)
    z = np.array([[-3.0, -0.7, 0.2, 0.9, 4.0]])
    assert np.allclose(part.prox(z), [[-1.0, -0.2, 0.0, 0.4, 1.0]])
    # brute-force argmin of ½(r − z)² + λ|r| over [−M', M'] per entry
    grid = np.linspace(-1, 1, 200001)
    for zi, pi in zip(z[0], part.prox(z)[0]):
        vals = 0.5 * (grid - zi) ** 2 + 0.5 * np.abs(grid)
        assert abs(grid[np.argmin(vals)] - pi) < 1e-4


@pytest.mark.parametrize("name", ["odl", "onmf", "ornmf"])
def test_atom_sets_feasible_and_idempotent(name):
    P = make_problem(name, 20)
    D = P.prox_dictionary(rng.normal(size=(6, 20)) * 3, 0.1)
    norms = np.linalg.norm(D, axis=1)
    if name == "odl":
        assert np.all(norms <= 1 + 1e-12)
    elif name == "onmf":
        assert D.min() >= 0 and np.allclose(D.sum(axis=1), 1, atol=1e-12)
    else:
        assert D.min() >= 0 and np.all(norms <= 1 + 1e-12)
    assert np.allclose(P.prox_dictionary(D, 0.1), D)


def test_ornmf_projection_matches_brute_force():
    """normalize(max(x, 0)) is the projection onto {d ≥ 0, ‖d‖ ≤ 1} (checked by SLSQP)."""
    P = make_problem("ornmf", 5)
    for _ in range(5):
        x = rng.normal(size=5) * 2
        p = P.project_dictionary(x[None])[0]
        res = minimize(lambda d, x=x: 0.5 * np.sum((d - x) ** 2), np.zeros(5), method="SLSQP",
                       bounds=[(0, None)] * 5,
                       constraints=[{"type": "ineq", "fun": lambda d: 1 - d @ d}],
                       options={"ftol": 1e-14, "maxiter": 500})
        assert np.allclose(p, res.x, atol=1e-5)


def _numerical_prox(P, X, eta):
    """argmin_D ηψ(D) + ½‖D − X‖² by BFGS (smooth ψ, C = R^{K×F})."""
    def fun(v):
        D = v.reshape(X.shape)
        return eta * P.psi(D) + 0.5 * np.sum((D - X) ** 2)
    res = minimize(fun, X.ravel(), method="BFGS", options={"gtol": 1e-12})
    return res.x.reshape(X.shape)


@pytest.mark.parametrize("name", ["orpca", "olrr"])
def test_smooth_dictionary_prox_matches_numerical_argmin(name):
    Q = rng.normal(size=(8, 8))
    P = make_problem(name, 8, dict_alpha=2.0, quadratic=Q @ Q.T, n_samples=3)
    X = rng.normal(size=(3, 8))
    assert np.allclose(P.prox_dictionary(X, 0.7), _numerical_prox(P, X, 0.7), atol=1e-5)


def test_max_norm_prox_solves_its_equation_and_is_optimal():
    X = rng.normal(size=(4, 9))
    c = 1.3
    Pd = max_norm_prox(X, c)
    rho = np.linalg.norm(X, axis=0)
    tau = np.linalg.norm(Pd, axis=0).max()
    assert c * tau == pytest.approx(np.maximum(rho - tau, 0).sum(), rel=1e-10)
    part = MaxNormDictionary(alpha=c)

    def val(D):
        return part.penalty(D, 1) + 0.5 * np.sum((D - X) ** 2)

    for _ in range(500):
        assert val(Pd + rng.normal(scale=1e-2, size=X.shape)) >= val(Pd) - 1e-12


def test_laplacian_simplex_prox_matches_slsqp():
    F = 6
    part = LaplacianSimplexAtoms(alpha=0.8, laplacian=path_laplacian(F), prox_iter=2000)
    L = path_laplacian(F).toarray()
    X = rng.normal(size=(2, F))
    Pd = part.prox(X, 1.5, 1)
    for x, p in zip(X, Pd):
        res = minimize(lambda d, x=x: 0.5 * np.sum((d - x) ** 2) + 0.6 * d @ L @ d,
                       np.full(F, 1 / F), method="SLSQP", bounds=[(0, None)] * F,
                       constraints=[{"type": "eq", "fun": lambda d: d.sum() - 1}],
                       options={"ftol": 1e-14, "maxiter": 1000})
        assert np.allclose(p, res.x, atol=1e-5)
        assert p.min() >= 0 and p.sum() == pytest.approx(1)


def test_quadratic_from_olrr_builds_q():
    Y = rng.normal(size=(5, 7))
    A = rng.normal(size=(5, 5))
    Q = QuadraticDictionary.from_olrr(Y, A=A, lam3=0.5).Q
    assert np.allclose(Q, A @ Y @ Y.T @ A.T + 0.5 * np.eye(5))


def test_make_problem_names_and_errors():
    for name in PROBLEM_NAMES:
        P = make_problem(name, 16)
        assert P.robust == (name in ("orpca", "omrmd", "olrr", "ornmf"))
    assert make_problem("odl", 16).codes.alpha == pytest.approx(0.25)
    with pytest.raises(ValueError, match="unknown problem"):
        make_problem("pca", 4)
    with pytest.raises(ValueError, match="alpha"):
        make_problem("odl", 4, alpha=-1.0)


def test_make_problem_builds_only_the_named_problem(monkeypatch):
    """Asking for ODL at a large F must not build OLRR's F×F matrix or SSODL's Laplacian."""
    import onlinemf.problems as mod

    def boom(*a, **k):
        raise AssertionError("built a part of another problem")

    monkeypatch.setattr(mod, "path_laplacian", boom)
    monkeypatch.setattr(mod, "QuadraticDictionary", boom)
    P = mod.make_problem("odl", 4000)
    assert P.name == "odl"
