"""Every dictionary update rule follows one protocol: a frozen rule of settings,
``init(components, ...) -> state`` and ``update(state, components, ...) -> (components, state)``
with an immutable state that ``update`` replaces and never changes; and the running averages
of the rules' statistics are the weighted sums their schedules say."""

import copy
import dataclasses

import numpy as np
import pytest

from onlinemf import PoissonSubspaceTracker
from onlinemf.constraints import project_nonneg_l2_ball
from onlinemf.problems import make_problem
from onlinemf.testing import same_state
from onlinemf.updates import (
    BCDSurrogateUpdate,
    CumulativeSums,
    MultiplicativeSurrogateUpdate,
    OMFSurrogateUpdate,
    OutlierSurrogateUpdate,
    PoissonMemoryLimitedUpdate,
    PoissonSAUpdate,
    PowerWeights,
    ProjectedSGDUpdate,
    ProxSGDUpdate,
    RobbinsMonroSchedule,
    RunningAverage,
    SampleMean,
    SMMUpdate,
    SVRGUpdate,
    anchored_state,
)

K, F, B = 3, 8, 6


def _atom(d):
    return project_nonneg_l2_ball(d[None])[0]


def _batch(seed):
    r = np.random.default_rng(seed)
    return r.random((B, F)), r.random((B, K)), r.random((K, F))


def _sgd():
    rule = ProjectedSGDUpdate(RobbinsMonroSchedule(2.0, 1.0), safeguard=True)
    X, H, D = _batch(0)

    def batch_loss(C):
        return float(np.sum((X - H @ C) ** 2))

    return rule, (D,), lambda s: (s, D, H.T @ (H @ D - X), B, batch_loss)


def _bcd(anchored=False):
    rule = BCDSurrogateUpdate(decay=0.5, nominal_batch=B)
    X, H, D = _batch(1)
    if anchored:
        return rule, None, lambda s: (anchored_state(rule, D, s), D, H, X)
    return rule, (D,), lambda s: (s, D, H, X)


def _mu(gamma):
    rule = MultiplicativeSurrogateUpdate(gamma, decay=0.5, nominal_batch=B)
    X, H, D = _batch(2)
    return rule, (D,), lambda s: (s, D, H.T @ X, H.T @ (H @ D), B)


def _outliers(solver):
    rule = OutlierSurrogateUpdate(project_nonneg_l2_ball, 0.1, solver=solver, max_iter=20)
    X, H, D = _batch(3)
    return rule, (D,), lambda s: (s, D, X, H, 0.1 * X)


def _omf():
    rule = OMFSurrogateUpdate(_atom, alpha=0.1, beta=0.8, dict_l2=0.01)
    X, H, D = _batch(4)
    return rule, (D,), lambda s: (s, D, H, X)


def _poisson(method):
    X, H, D = _batch(5)
    p = (X[0] > 0.2).astype(float)
    py = p * np.floor(10 * X[1])
    a = H[0]
    if method == "ml":
        return PoissonMemoryLimitedUpdate(0.2, 0.9), (D,), lambda s: (s, D, p, py, a)
    solve = PoissonSubspaceTracker(K, sa_max_iter=10)._sa_rows
    return (PoissonSAUpdate(0.2, 0.9, window=3), (D,),
            lambda s: (s, D, p, py, a, solve))


def _smm():
    X, H, D = _batch(6)
    rule = SMMUpdate(make_problem("onmf", F, n_samples=B))
    return rule, (D,), lambda s: (s, D, H, X)


def _prox_sgd():
    X, H, D = _batch(7)
    rule = ProxSGDUpdate(make_problem("odl", F, n_samples=B), n_samples=B)
    return rule, (D, H, 2), lambda s: (s, D, H.T @ (H @ D - X) / B, B)


def _svrg(first):
    X, _, D = _batch(8)
    rule = SVRGUpdate(make_problem("odl", F, n_samples=B), max_iter=50)
    if first:
        return rule, (D, X, 1e-4), lambda s: (s, D)
    rows = np.array([0, 2, 4])
    return rule, (D, X, 1e-4), lambda s: (s, D + 0.01, X[rows], rows, 1e-4)


RULES = {
    "projected-sgd": _sgd, "bcd": _bcd, "bcd-anchored": lambda: _bcd(anchored=True),
    "mu-1": lambda: _mu(1.0), "mu-0.5": lambda: _mu(0.5),
    "outliers-pgd": lambda: _outliers("pgd"), "outliers-apgd": lambda: _outliers("apgd"),
    "outliers-admm": lambda: _outliers("admm"), "omf": _omf,
    "poisson-ml": lambda: _poisson("ml"), "poisson-sa": lambda: _poisson("sa"),
    "smm": _smm, "prox-sgd": _prox_sgd,
    "svrg-first": lambda: _svrg(True), "svrg-inner": lambda: _svrg(False),
}


def _is_frozen(obj) -> bool:
    return dataclasses.is_dataclass(obj) and type(obj).__dataclass_params__.frozen


def _arrays(value):
    """Every array in a state, for the check that none is written in place."""
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _arrays(v)]
    if dataclasses.is_dataclass(value):
        return [a for f in dataclasses.fields(value) for a in _arrays(getattr(value, f.name))]
    return []


@pytest.mark.parametrize("name", list(RULES))
def test_init_then_update_returns_a_new_state_and_leaves_the_old_one(name):
    rule, init_args, update_args = RULES[name]()
    assert _is_frozen(rule), "a rule holds only settings, frozen"
    base = rule.init(np.zeros((K, F))) if init_args is None else rule.init(*init_args)
    args = update_args(base)
    state = args[0]
    assert _is_frozen(state), "a state is an immutable value"
    before = copy.deepcopy(state)
    inputs = copy.deepcopy(args[1:-1] if callable(args[-1]) else args[1:])
    D, new = rule.update(*args)
    assert _is_frozen(new) and new is not state and type(new) is type(state)
    assert D.shape == (K, F) and np.isfinite(D).all()
    assert same_state(state, before), "update changed the old state"
    now = args[1:-1] if callable(args[-1]) else args[1:]
    assert same_state(list(now), list(inputs)), "update changed its inputs"
    assert not any(np.shares_memory(D, a) for a in _arrays(state)), "D aliases the old state"


@pytest.mark.parametrize("name", list(RULES))
def test_two_updates_from_the_same_state_are_equal(name):
    """Purity: the step depends on its arguments only."""
    rule, init_args, update_args = RULES[name]()
    base = rule.init(np.zeros((K, F))) if init_args is None else rule.init(*init_args)
    D1, s1 = rule.update(*update_args(base))
    D2, s2 = rule.update(*update_args(base))
    np.testing.assert_array_equal(D1, D2)
    assert same_state(s1, s2)
    # and a second step goes on from the new state alike
    args = update_args(s1)
    D3, s3 = rule.update(*args)
    D4, s4 = rule.update(*args)
    np.testing.assert_array_equal(D3, D4)
    assert same_state(s3, s4)


def test_running_statistics_are_read_only():
    avg = RunningAverage.zeros(((2, 2), ()), SampleMean())
    nxt = avg.add(np.ones((2, 2)), 3.0, n_rows=2)
    with pytest.raises(ValueError):
        nxt.sums[0][0, 0] = 1.0
    assert avg.sums[0].sum() == 0 and nxt.t == 1 and nxt.n == 2


# ---------------------------------------------------------------- running averages
def _stream(seed=0, T=7):
    """T batches: (batch sums of two statistics (3, 4) and (), rows of the batch)."""
    r = np.random.default_rng(seed)
    sizes = r.integers(1, 5, T)
    return [((r.random((3, 4)) * b, float(r.random() * b)), int(b)) for b in sizes]


def _fold(schedule, stream, weights=None):
    avg = RunningAverage.zeros(((3, 4), ()), schedule)
    for t, (terms, b) in enumerate(stream):
        avg = avg.add(*terms, n_rows=b, weight=None if weights is None else weights[t])
    return avg


@pytest.mark.parametrize("forget", [1.0, 0.8])
def test_sample_mean_is_the_discounted_mean_of_the_rows(forget):
    stream = _stream()
    avg = _fold(SampleMean(forget), stream)
    T = len(stream)
    disc = [forget ** (T - 1 - t) for t in range(T)]
    total = sum(d * b for d, (_, b) in zip(disc, stream))
    for i in range(2):
        direct = sum(d * terms[i] for d, (terms, _) in zip(disc, stream)) / total
        np.testing.assert_allclose(avg.sums[i], direct, rtol=1e-12)
    assert avg.n == sum(b for _, b in stream) and avg.t == T


@pytest.mark.parametrize("decay", [1.0, 0.6])
@pytest.mark.parametrize("scale_first", [False, True])
def test_power_weights_are_the_weighted_sum_of_the_batch_means(decay, scale_first):
    stream = _stream(1)
    avg = _fold(PowerWeights(decay, scale_first), stream)
    T = len(stream)
    w = [(t + 1) ** (-decay) for t in range(T)]
    # batch t keeps w_t Π_{s>t} (1 − w_s) of its mean
    coef = [w[t] * np.prod([1 - w[s] for s in range(t + 1, T)]) for t in range(T)]
    for i in range(2):
        direct = sum(c * terms[i] / b for c, (terms, b) in zip(coef, stream))
        np.testing.assert_allclose(avg.sums[i], direct, rtol=1e-12)
    if decay == 1.0:  # running mean of the batch means
        np.testing.assert_allclose(avg.sums[0], np.mean([s[0] / b for s, b in stream], axis=0))


def test_power_weights_take_the_rules_weights():
    stream = _stream(2)
    weights = [1.0, 0.5, 0.25, 0.4, 0.1, 0.3, 0.2]
    avg = _fold(PowerWeights(0.5), stream, weights)
    T = len(stream)
    coef = [weights[t] * np.prod([1 - weights[s] for s in range(t + 1, T)]) for t in range(T)]
    direct = sum(c * terms[0] / b for c, (terms, b) in zip(coef, stream))
    np.testing.assert_allclose(avg.sums[0], direct, rtol=1e-12)


def test_cumulative_sums_and_their_mean():
    stream = _stream(3)
    avg = _fold(CumulativeSums(), stream)
    n = sum(b for _, b in stream)
    direct = sum(terms[0] for terms, _ in stream)
    np.testing.assert_allclose(avg.sums[0], direct, rtol=1e-12)
    np.testing.assert_allclose(avg.mean()[0], direct / n, rtol=1e-12)
    assert avg.mass == n


@pytest.mark.parametrize("schedule", [PowerWeights(0.6), PowerWeights(0.6, scale_first=True),
                                      SampleMean(0.8), CumulativeSums()])
def test_lent_terms_give_the_same_bits_and_others_stay_untouched(schedule):
    stream = _stream(4)
    plain = _fold(schedule, stream)
    lent = RunningAverage.zeros(((3, 4), ()), schedule)
    for terms, b in stream:
        mine, theirs = terms[0].copy(), terms[0].copy()
        lent = lent.add(mine, terms[1], n_rows=b, scratch=(0,))
        kept = lent.add(theirs, terms[1], n_rows=b)  # not lent: the caller's array intact
        np.testing.assert_array_equal(theirs, terms[0])
        assert kept.sums[0] is not theirs
    np.testing.assert_array_equal(lent.sums[0], plain.sums[0])
    assert lent.sums[1] == plain.sums[1]


def test_a_lent_float32_term_keeps_the_quotients_dtype():
    # (w·s)/b with a NumPy integer b promotes float32 to float64: the lent term must not be
    # divided in place into float32
    avg = RunningAverage.zeros(((2, 3),), PowerWeights(0.5), dtype=np.float32)
    term = np.arange(6, dtype=np.float32).reshape(2, 3) + 1
    plain = avg.add(term.copy(), n_rows=np.int64(3))
    lent = avg.add(term.copy(), n_rows=np.int64(3), scratch=(0,))
    assert lent.sums[0].dtype == plain.sums[0].dtype
    np.testing.assert_array_equal(lent.sums[0], plain.sums[0])


def test_the_squared_step_rescales_its_own_arrays_and_leaves_the_past_intact():
    # the step scales its new dictionary and statistics into the box in place: the same
    # numbers as the out-of-place rescaling, and the state it started from is untouched
    from onlinemf.updates._majorization import rescale_into_box

    rng = np.random.default_rng(4)
    D0 = rng.random((3, 8))
    rule = BCDSurrogateUpdate(decay=0.5)
    state = rule.init(D0)
    for _ in range(3):
        H, X = 3.0 * rng.random((6, 3)), 4.0 * rng.random((6, 8))
        before = copy.deepcopy(state)
        D1, s1 = rule.update(state, D0, H, X)
        D2, s2 = rule.update(state, D0, H, X)  # the same step again from the same state
        assert same_state(state, before)
        np.testing.assert_array_equal(D1, D2)
        np.testing.assert_array_equal(s1.stats.sums[1], s2.stats.sums[1])
        state, D0 = s1, D1
    D = 2.0 * rng.random((3, 8)) + 0.5
    stats = RunningAverage((rng.random((3, 3)), rng.random((3, 8)), 1.0), PowerWeights(0.5))
    out_D, out_stats = rescale_into_box(D, stats)
    in_D, in_stats = rescale_into_box(D.copy(), RunningAverage(
        tuple(np.array(x) if isinstance(x, np.ndarray) else x for x in stats.sums),
        PowerWeights(0.5)), in_place=True)
    np.testing.assert_array_equal(in_D, out_D)
    for a, b in zip(in_stats.sums, out_stats.sums):
        np.testing.assert_array_equal(a, b)
    assert not in_stats.sums[1].flags.writeable  # frozen again in its new average
