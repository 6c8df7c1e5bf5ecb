import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from onlinemf import (  # noqa: E402
    NetworkDictionaryLearning,
    OnlineDictionaryLearning,
    OnlineNMF,
    OnlineRobustNMF,
    PoissonSubspaceTracker,
    StochasticMF,
)
from onlinemf.plotting import (  # noqa: E402
    format_topics,
    objective_history,
    plot_components,
    plot_ndl_patches,
    plot_objective,
    plot_topics,
    top_terms,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _images(fig):
    return [im for ax in fig.axes for im in ax.get_images()]


def _has_colorbar(fig):
    return any(ax.get_label() == "<colorbar>" for ax in fig.axes)


def _overlapping_texts(fig):
    """Pairs of visible, non-empty texts (titles, tick and axis labels) whose drawn boxes
    intersect."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
        texts = [ax.title, ax.xaxis.label, ax.yaxis.label]
        texts += [t for t in ax.get_xticklabels() if x0 <= t.get_position()[0] <= x1]
        texts += [t for t in ax.get_yticklabels() if y0 <= t.get_position()[1] <= y1]
        for t in texts:
            if t.get_visible() and t.get_text():
                boxes.append((t.get_text(), t.get_window_extent(renderer)))
    if fig._suptitle is not None:
        boxes.append((fig._suptitle.get_text(), fig._suptitle.get_window_extent(renderer)))
    bad = []
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i][1], boxes[j][1]
            if a.width and b.width and a.overlaps(b) and a != b:
                bad.append((boxes[i][0], boxes[j][0]))
    return bad


def _all_text(fig):
    out = []
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        out += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
        legend = ax.get_legend()
        if legend is not None:
            out += [t.get_text() for t in legend.get_texts()]
    return out


# --------------------------------------------------------------------------- top terms
def test_top_terms_on_a_hand_made_matrix():
    C = np.array([[0.0, 5.0, 1.0, 3.0],
                  [2.0, 2.0, 0.0, 0.0],   # a tie: vocabulary order
                  [0.0, 0.0, 0.0, 0.0]])  # nothing positive: no terms
    vocab = ["apple", "ball", "cat", "dog"]
    assert top_terms(C, vocab, 2) == [["ball", "dog"], ["apple", "ball"], []]
    assert top_terms(C, vocab, 10) == [["ball", "dog", "cat"], ["apple", "ball"], []]
    weighted = top_terms(C, vocab, 1, return_weights=True)
    assert weighted == [[("ball", 5.0)], [("apple", 2.0)], []]
    text = format_topics(C, vocab, 2, labels=["a", "bb", "c"])
    assert text.splitlines() == ["a : ball dog", "bb: apple ball", "c : (no positive weight)"]


def test_top_terms_reads_a_fitted_model_and_refuses_mismatches():
    rng = np.random.default_rng(0)
    X = rng.random((60, 5))
    X[:, 3] *= 20  # one dominant column
    model = OnlineNMF(2, max_iter=2, max_no_improvement=None, random_state=0).fit(X)
    tops = top_terms(model, list("abcde"), 5)
    assert len(tops) == 2
    for row, terms in zip(model.components_, tops):
        assert terms == [list("abcde")[i] for i in np.argsort(-row, kind="stable")
                         if row[i] > 0]
    with pytest.raises(ValueError, match="vocabulary has 3 terms but the components have 5"):
        top_terms(model, ["a", "b", "c"])
    with pytest.raises(ValueError, match="n_terms"):
        top_terms(model, list("abcde"), 0)
    with pytest.raises(ValueError, match="not fitted"):
        top_terms(OnlineNMF(2), list("abcde"))
    with pytest.raises(ValueError, match="non-finite"):
        top_terms([[np.nan, 1.0]], ["a", "b"])


def test_importing_plotting_does_not_import_matplotlib():
    code = ("import sys, onlinemf.plotting as p; "
            "assert 'matplotlib' not in sys.modules; "
            "print(p.top_terms([[1.0, 2.0]], ['x', 'y']))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[['y', 'x']]"


def test_plot_topics_bars_in_order_with_labels():
    C = np.array([[0.0, 5.0, 1.0, 3.0], [2.0, 0.5, 4.0, 0.0]])
    vocab = ["apple", "ball", "cat", "dog"]
    fig = plot_topics(C, vocab, 3, titles=["sport", "pets"])
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["sport", "pets"]
    for ax, terms, row in zip(axes, top_terms(C, vocab, 3), C):
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert labels == terms
        widths = [p.get_width() for p in ax.patches]
        assert widths == sorted(widths, reverse=True) == [row[vocab.index(t)] for t in terms]
    assert not _overlapping_texts(fig)


# --------------------------------------------------------------------------- grids
def test_plot_components_shares_one_colour_scale_with_a_colour_bar():
    rng = np.random.default_rng(1)
    C = rng.random((7, 12)) * np.arange(1, 8)[:, None]  # atoms of very different ranges
    fig = plot_components(C, (3, 4))
    ims = _images(fig)
    assert len(ims) == 7
    clims = {im.get_clim() for im in ims}
    assert clims == {(C.min(), C.max())}
    for im, atom in zip(ims, C):
        np.testing.assert_array_equal(im.get_array(), atom.reshape(3, 4))
    assert _has_colorbar(fig)
    assert [ax.get_title() for ax in fig.axes if ax.get_images()] == [str(i) for i in range(7)]
    assert not _overlapping_texts(fig)
    # signed atoms: a scale centred on zero
    fig = plot_components(C - 4, (3, 4))
    lo, hi = _images(fig)[0].get_clim()
    assert lo == -hi and hi == pytest.approx(np.abs(C - 4).max())
    # no image shape: one heat map of all components
    fig = plot_components(C)
    (im,) = _images(fig)
    np.testing.assert_array_equal(im.get_array(), C)
    assert _has_colorbar(fig)
    with pytest.raises(ValueError, match="holds 9 pixels but the components have 12"):
        plot_components(C, (3, 3))
    with pytest.raises(ValueError, match="2 titles for 7"):
        plot_components(C, (3, 4), titles=["a", "b"])


def test_plot_ndl_patches_orders_by_importance_and_omits_unused_patches():
    rng = np.random.default_rng(2)
    P = rng.random((5, 3, 3)) * np.array([1, 4, 2, 3, 5])[:, None, None]
    imp = np.array([0.1, 0.0, 0.4, 0.2, 0.3])
    fig = plot_ndl_patches(P, imp)
    ims = _images(fig)
    titles = [ax.get_title() for ax in fig.axes if ax.get_images()]
    assert titles == ["0.400", "0.300", "0.200", "0.100"]  # the unused patch is left out
    for im, j in zip(ims, [2, 4, 3, 0]):
        np.testing.assert_array_equal(im.get_array(), P[j])
    used_max = P[[0, 2, 3, 4]].max()
    assert {im.get_clim() for im in ims} == {(0.0, used_max)}
    assert _has_colorbar(fig)
    assert not _overlapping_texts(fig)
    fig = plot_ndl_patches(P, imp, zero="blank")
    visible = [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]
    assert [ax.get_title() for ax in visible][-1] == "unused"
    assert not visible[-1].get_images()  # drawn blank, not as noise
    with pytest.raises(ValueError, match="4 importances for 5 patches"):
        plot_ndl_patches(P, imp[:4])
    with pytest.raises(ValueError, match="zero importance"):
        plot_ndl_patches(P, np.zeros(5))


def test_plot_ndl_patches_of_a_fitted_model():
    nx = pytest.importorskip("networkx")
    ndl = NetworkDictionaryLearning(4, 3, n_iter=5, batch_size=20, random_state=0)
    ndl.fit(nx.karate_club_graph())
    fig = plot_ndl_patches(ndl)
    values = [float(ax.get_title()) for ax in fig.axes if ax.get_images()]
    assert values == sorted(values, reverse=True)
    assert len(values) == int((ndl.importance_ > 0).sum())


# --------------------------------------------------------------------------- objective
def _fitted_models():
    rng = np.random.default_rng(3)
    X = rng.random((120, 4)) @ rng.random((4, 10))
    Y = rng.poisson(3 * X).astype(float)
    return {
        "nmf": OnlineNMF(3, max_iter=3, max_no_improvement=None, random_state=0).fit(X),
        "robust": OnlineRobustNMF(3, max_iter=2, max_no_improvement=None,
                                  random_state=0).fit(X / X.max()),
        "odl": OnlineDictionaryLearning(3, max_iter=2, max_no_improvement=None,
                                        random_state=0).fit(X),
        "poisson": PoissonSubspaceTracker(3, random_state=0).fit(Y),
        "smf": StochasticMF("onmf", n_components=3, max_iter=2, random_state=0).fit(X),
    }


def test_objective_history_of_every_estimator_and_one_plot_of_them_all():
    models = _fitted_models()
    for name, model in models.items():
        h = objective_history(model)
        assert h.samples.size == h.objective.size > 0, name
        np.testing.assert_array_equal(h.objective, model.history_["objective"][:h.samples.size])
        assert np.all(np.diff(h.samples) >= 0), name
    ax = plot_objective(models)
    lines = ax.get_lines()
    assert len(lines) == len(models)
    assert len({tuple(line.get_color()) if not isinstance(line.get_color(), str)
                else line.get_color() for line in lines}) == len(models)  # no recycled colour
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(models)
    np.testing.assert_array_equal(lines[0].get_ydata(), models["nmf"].history_["objective"])
    fig = ax.figure
    assert not any("$" in s or "\\" in s for s in _all_text(fig))  # no raw TeX
    assert not _overlapping_texts(fig)


def test_plot_objective_of_one_model_many_series_and_bad_requests():
    models = _fitted_models()
    ax = plot_objective(models["nmf"], x="time")
    assert ax.get_xlabel() == "algorithm time (s)" and ax.get_title() == "OnlineNMF"
    assert ax.get_ylabel() == "online objective (mean loss)"
    many = [models["nmf"]] * 13  # more series than tab10 has colours
    ax = plot_objective(many)
    colors = [tuple(matplotlib.colors.to_rgba(line.get_color())) for line in ax.get_lines()]
    assert len(set(colors)) == 13
    assert [t.get_text() for t in ax.get_legend().get_texts()][:2] == ["OnlineNMF 1",
                                                                      "OnlineNMF 2"]
    with pytest.raises(ValueError, match="not fitted"):
        plot_objective(OnlineNMF(2))
    with pytest.raises(ValueError, match="recorded no objective"):
        rng = np.random.default_rng(0)
        plot_objective(OnlineNMF(2, history=None, max_iter=1, max_no_improvement=None)
                       .fit(rng.random((20, 4))))
    with pytest.raises(ValueError, match="x must be"):
        plot_objective(models["nmf"], x="passes")


def test_ndl_objective_is_its_dictionary_learners():
    nx = pytest.importorskip("networkx")
    ndl = NetworkDictionaryLearning(3, 3, n_iter=5, batch_size=10, random_state=0)
    ndl.fit(nx.karate_club_graph())
    h = objective_history(ndl)
    np.testing.assert_array_equal(h.objective, ndl.dictionary_learner_.history_["objective"])
    assert h.objective_label == "surrogate objective"


def test_plot_ndl_patches_draws_the_most_important_on_their_own_scale():
    P = np.stack([np.full((2, 2), v) for v in (9.0, 1.0, 2.0, 3.0)])
    imp = np.array([0.05, 0.5, 0.3, 0.15])
    fig = plot_ndl_patches(P, imp, max_patches=2, title="two of four")
    titles = [ax.get_title() for ax in fig.axes if ax.get_images()]
    assert titles == ["0.500", "0.300"]
    # the scale is that of the patches drawn: the unshown 9 does not wash them out
    assert {im.get_clim() for im in _images(fig)} == {(0.0, 2.0)}
    assert fig.get_suptitle() == "two of four"
    with pytest.raises(ValueError, match="max_patches must be at least 1"):
        plot_ndl_patches(P, imp, max_patches=0)
