"""Every configuration a user can pick by a string option, on every awkward but legal input.

The configurations are generated from the estimators' own ``_parameter_constraints``: each
value of each string option once, in a context where it is valid (``CONTEXT``), plus the
product of the options that select a whole method (StochasticMF's problem × method,
PoissonSubspaceTracker's method × row solver). Each meets the inputs of ``INPUTS``: one
feature and one sample (dense and CSR), more components than features, subnormal and
near-overflow magnitudes, integer and boolean dtypes, rows of very different scales, zero rows
and columns, negative entries and NaN. A case ends well when it gives a finite model (fit,
partial_fit, transform, score) or a ``ValueError``/``TypeError`` (a clear refusal) that
leaves a fitted estimator's state unchanged; ordinary data must give a result.
"""

import copy
import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.estimator_checks import check_estimator
from test_hostile import ESTIMATORS

from onlinemf import NetworkDictionaryLearning, SMFCoder, StochasticMF
from onlinemf.losses import get_loss
from onlinemf.testing import same_state

N_FEATURES = 6

def _capped(est):
    if "max_no_improvement" in est.get_params():
        est.set_params(max_iter=2)
    if isinstance(est, StochasticMF):  # a few large steps per pass, each solve capped
        est.set_params(batch_size=20, coder=SMFCoder(max_iter=50))
    return est


# the estimators of the hostile-input tests, as small; fit's passes capped at 2 (a first
# pass from the start and one that carries its state on), StochasticMF's steps over
# mini-batches of 20 rather than its automatic 0.2·n^(2/3) and its code solves capped at 50
# sweeps rather than 500 (the sweep is about the steps on awkward input, not about how many
# steps converge; the automatic size and the default cap have their own tests, and
# scikit-learn's checks run them in test_common)
BASE = {name: (lambda make=make: _capped(make())) for name, make in ESTIMATORS.items()}

# an option value that needs other settings to be valid: the settings it is tried with
CONTEXT = {
    ("OnlineNMF", "coder", "mu"): {"loss": "kl"},
    ("OnlineNMF", "loss", "mahalanobis"): {"loss": get_loss("mahalanobis",
                                                            A=np.linspace(0.5, 2.0, N_FEATURES))},
    ("OnlineNMF", "loss", "is"): {"data_floor": 1e-8},
    ("OnlineNMF", "loss", "itakura-saito"): {"data_floor": 1e-8},
    ("StochasticMF", "coder.solver", "newton"): {"problem": "orpca"},
    ("OnlineNMF", "coder", "admm"): {"loss": "l1"},
}
# options whose values select a whole method: every combination, not each value once
PRODUCTS = {
    "StochasticMF": ("problem", "method"),
    "PoissonSubspaceTracker": ("method", "row_solver"),
}


def _string_options(cls):
    for param, constraints in cls._parameter_constraints.items():
        for c in constraints:
            if isinstance(c, StrOptions):
                yield param, sorted(c.options)


def _nested_options(cls):
    """(param, label, value) for each string option of a nested settings object (a
    ``coder=CodeSolver(...)``, a ``dictionary_update=SGD(...)``), each value once."""
    for param, constraints in cls._parameter_constraints.items():
        # a value the parameter also takes as a string (coder="mu") is swept there already
        named = {v for c in constraints if isinstance(c, StrOptions) for v in c.options}
        for c in constraints:
            if isinstance(c, type) and hasattr(c, "_parameter_constraints"):
                defaults = c().get_params()
                for sub, values in _string_options(c):
                    for v in values:
                        if defaults[sub] != v and v not in named:
                            yield (param, f"{param}.{sub}", v,
                                   f"{param}={c.__name__}({sub}={v!r})", c(**{sub: v}))


def configurations():
    """(name, label, factory) for every configuration of the sweep."""
    out = []
    for name, make in BASE.items():
        base = make()
        defaults = base.get_params()
        out.append((name, "default", make))
        product = PRODUCTS.get(name, ())
        options = dict(_string_options(type(base)))
        for param, values in options.items():
            if param in product:
                continue
            for v in values:
                if defaults[param] == v:
                    continue
                params = {param: v, **CONTEXT.get((name, param, v), {})}
                out.append((name, f"{param}={v}",
                            lambda make=make, params=params: clone(make()).set_params(**params)))
        for param, key, v, label, value in _nested_options(type(base)):
            params = {param: value, **CONTEXT.get((name, key, v), {})}
            out.append((name, label, lambda make=make, params=params:
                        clone(make()).set_params(**params)))
        if product:
            for combo in itertools.product(*(options[p] for p in product)):
                params = dict(zip(product, combo))
                if all(defaults[p] == v for p, v in params.items()):
                    continue  # the default configuration, swept above
                label = ",".join(f"{p}={v}" for p, v in params.items())
                out.append((name, label,
                            lambda make=make, params=params: clone(make()).set_params(**params)))
    return out


def inputs():
    rng = np.random.default_rng(0)
    X = rng.random((40, N_FEATURES)) + 0.05
    denormal = X.copy()
    denormal[denormal < 0.3] = 1e-310
    zeros = X.copy()
    zeros[:5] = 0.0
    zeros[:, 0] = 0.0
    missing = X.copy()
    missing[rng.random(X.shape) < 0.2] = np.nan
    return {
        "ordinary": X,
        "one_feature": X[:, :1],
        "one_feature_csr": sp.csr_matrix(X[:, :1]),
        "one_sample": X[:1],
        "one_sample_csr": sp.csr_matrix(X[:1]),
        "more_components_than_features": X[:, :2],
        "csr": sp.csr_matrix(np.where(X > 0.6, X, 0.0)),
        "subnormal": denormal,
        "near_overflow": X * 1e150,
        "tiny": X * 1e-150,
        "int64": (X * 10).astype(np.int64),
        "bool": X > 0.5,
        "float32": X.astype(np.float32),
        "mixed_row_scales": X * 10.0 ** rng.uniform(-6, 6, (X.shape[0], 1)),
        "zero_rows_cols": zeros,
        "negative": X - 0.5,
        "nan": missing,
    }


def _finite(a) -> bool:
    a = a.data if sp.issparse(a) else a
    return bool(np.isfinite(np.asarray(a, dtype=float)).all())


def run_case(make, X) -> str:
    """'result' or 'refused'; raises AssertionError on a bad ending (any other exception, a
    non-finite output, a rejected call that changed the state)."""
    est = make()
    try:
        est.fit(X)
    except (ValueError, TypeError):
        return "refused"
    assert _finite(est.components_), "non-finite components after fit"
    before = copy.deepcopy(est.__dict__)
    try:
        est.partial_fit(X)
    except (ValueError, TypeError):
        assert same_state(est.__dict__, before), "a refused partial_fit changed the state"
        return "refused"
    assert _finite(est.components_), "non-finite components after partial_fit"
    assert _finite(est.transform(X)), "non-finite transform"
    assert np.isfinite(est.score(X)), "non-finite score"
    return "result"


CONFIGS = configurations()


@pytest.mark.parametrize("name,label,make", CONFIGS, ids=[f"{n}[{c}]" for n, c, _ in CONFIGS])
def test_every_configuration_on_every_awkward_input(name, label, make):
    outcomes = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for iname, X in inputs().items():
            try:
                outcomes[iname] = run_case(make, X)
            except AssertionError as e:
                raise AssertionError(f"{name}({label}) on {iname}: {e}") from e
            except Exception as e:  # noqa: BLE001 - the point: no other exception escapes
                raise AssertionError(f"{name}({label}) on {iname} raised "
                                     f"{type(e).__name__}: {e}") from e
    must = ["ordinary", "one_sample", "int64", "float32", "mixed_row_scales"]
    if "mahalanobis" not in label:  # its weights fix n_features
        must += ["one_feature", "more_components_than_features"]
    for iname in must:
        assert outcomes[iname] == "result", (iname, outcomes[iname])


def test_the_sweep_covers_every_string_option_value():
    seen = {(n, c.split("=")[0], c.split("=")[1]) for n, label, _ in CONFIGS
            for c in label.split(",") if "=" in c}
    for name, make in BASE.items():
        defaults = make().get_params()
        for param, values in _string_options(type(make())):
            for v in values:
                assert (name, param, v) in seen or defaults[param] == v, (name, param, v)


# scikit-learn's own checks over the same configurations (the configurations whose loss
# needs strictly positive data get the floor their CONTEXT gives them). The one exception:
# the Mahalanobis loss's weights fix n_features, which the checks vary by design.
# A loss named by an alias (loss="itakura-saito" for "is") is the same estimator as its
# canonical name's configuration, and is checked there.
def _alias(label: str) -> bool:
    key, _, value = label.partition("=")
    return key == "loss" and get_loss(value).name != value


SK_CONFIGS = [c for c in CONFIGS if "mahalanobis" not in c[1] and not _alias(c[1])]


@pytest.mark.parametrize("name,label,make", SK_CONFIGS,
                         ids=[f"{n}[{c}]" for n, c, _ in SK_CONFIGS])
def test_scikit_learn_checks_over_every_configuration(name, label, make):
    from sklearn.exceptions import SkipTestWarning

    est = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkipTestWarning)
        check_estimator(est)


GRAPHS = {
    "karate": lambda nx: nx.karate_club_graph(),
    "path6": lambda nx: nx.path_graph(6),
    "star_with_isolated": lambda nx: nx.union(nx.star_graph(5), nx.empty_graph(range(6, 8))),
    "two_triangles": lambda nx: nx.disjoint_union(nx.complete_graph(3), nx.complete_graph(3)),
}


@pytest.mark.parametrize("option", [("motif", "path"), ("motif", "star"), ("chain", "auto"),
                                    ("chain", "glauber"), ("chain", "pivot")])
def test_network_dictionary_learning_options_on_small_graphs(option):
    nx = pytest.importorskip("networkx")
    param, value = option
    for gname, make_graph in GRAPHS.items():
        G = make_graph(nx)
        est = NetworkDictionaryLearning(n_components=3, motif_size=3, n_iter=5,
                                        random_state=0).set_params(**{param: value})
        try:
            est.fit(G)
        except ValueError:
            continue  # e.g. no homomorphism of the motif: refused by name
        assert _finite(est.components_), gname
        R = est.reconstruct(G, n_steps=200)
        assert _finite(R), gname
