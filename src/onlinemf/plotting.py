"""Pictures of fitted models: components, topics, objective histories and network patches.

matplotlib is an optional extra (``pip install 'onlinemf[figures]'``); it is imported only
when a plotting function is called, so ``import onlinemf.plotting`` works without it, and
:func:`top_terms` and :func:`format_topics` never need it.

The figures are made with pyplot (so notebooks and sphinx-gallery pick them up) and are
returned, never shown: call ``plt.show()`` or ``fig.savefig(...)`` yourself. Every grid uses
one colour scale for all its panels, with a colour bar, so panels compare by colour.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.utils import Bunch

if TYPE_CHECKING:  # pragma: no cover - for the annotations only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["top_terms", "format_topics", "objective_history", "plot_components",
           "plot_topics", "plot_objective", "plot_ndl_patches"]


# ---------------------------------------------------------------------------------- helpers
def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("onlinemf.plotting needs matplotlib: pip install "
                          "'onlinemf[figures]'") from None
    return plt


def _components(model_or_array, what: str = "components") -> np.ndarray:
    """The (n_components, n_features) matrix of a fitted estimator or an array."""
    if hasattr(model_or_array, "get_params") or hasattr(model_or_array, "fit"):
        if not hasattr(model_or_array, "components_"):
            raise ValueError(f"{type(model_or_array).__name__} is not fitted: it has no "
                             "components_ yet")
        model_or_array = model_or_array.components_
    C = np.asarray(model_or_array, dtype=float)
    if C.ndim == 1:
        C = C[None, :]
    if C.ndim != 2 or 0 in C.shape:
        raise ValueError(f"{what} must be a non-empty (n_components, n_features) matrix, "
                         f"got shape {C.shape}")
    if not np.all(np.isfinite(C)):
        raise ValueError(f"{what} hold {int((~np.isfinite(C)).sum())} non-finite value(s)")
    return C


def _grid(n: int, n_cols: int | None) -> tuple[int, int]:
    if n_cols is not None and n_cols < 1:
        raise ValueError(f"n_cols must be at least 1, got {n_cols}")
    cols = int(n_cols) if n_cols else int(np.ceil(np.sqrt(n)))
    cols = max(1, min(cols, n))
    return int(np.ceil(n / cols)), cols


def _distinct_colors(n: int) -> list:
    """``n`` colours no two of which are the same: the qualitative tab10/tab20 palettes, or
    evenly spaced points of a perceptual colour map beyond 20 series."""
    from matplotlib import colormaps

    if n <= 10:
        return [colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        return [colormaps["tab20"](i) for i in range(n)]
    return [colormaps["turbo"](x) for x in np.linspace(0.05, 0.95, n)]


def _shared_norm(values: np.ndarray, symmetric: bool | None):
    """One colour scale for every panel: [min, max] of all values, or symmetric about 0 when
    the values have both signs (``symmetric=None``) or when asked."""
    from matplotlib.colors import Normalize

    lo, hi = float(np.min(values)), float(np.max(values))
    if symmetric is None:
        symmetric = lo < 0 < hi
    if symmetric:
        m = max(abs(lo), abs(hi)) or 1.0
        return Normalize(-m, m), True
    if hi <= lo:
        hi = lo + 1.0
    return Normalize(lo, hi), False


# ---------------------------------------------------------------------------------- topics
def top_terms(components, vocabulary: Sequence[str], n_terms: int = 10, *,
              return_weights: bool = False) -> list:
    """The top terms of each component: its ``n_terms`` largest positive weights.

    Parameters
    ----------
    components : estimator or array of shape (n_components, n_features)
        A fitted estimator (its ``components_`` are used) or the matrix itself, one row per
        component (topic), one column per term.
    vocabulary : sequence of str of length n_features
        The term of each column.
    n_terms : int, default=10
        Terms per component. Terms of zero or negative weight are never listed, so a
        component with fewer positive weights gets fewer terms (an all-zero one, none).
    return_weights : bool, default=False
        Also return the weights: a list of (term, weight) pairs per component.

    Returns
    -------
    list of lists
        Per component, its terms by decreasing weight (ties in vocabulary order).

    Examples
    --------
    >>> from onlinemf.plotting import top_terms
    >>> top_terms([[0.0, 3.0, 1.0], [2.0, 0.0, 0.5]], ["ball", "vote", "goal"], n_terms=2)
    [['vote', 'goal'], ['ball', 'goal']]
    """
    C = _components(components)
    vocab = [str(t) for t in vocabulary]
    if len(vocab) != C.shape[1]:
        raise ValueError(f"the vocabulary has {len(vocab)} terms but the components have "
                         f"{C.shape[1]} features (one term per column is needed)")
    if int(n_terms) < 1:
        raise ValueError(f"n_terms must be at least 1, got {n_terms}")
    out = []
    for row in C:
        order = np.argsort(-row, kind="stable")[:int(n_terms)]
        order = order[row[order] > 0]
        out.append([(vocab[i], float(row[i])) for i in order] if return_weights
                   else [vocab[i] for i in order])
    return out


def format_topics(components, vocabulary: Sequence[str], n_terms: int = 10, *,
                  labels: Sequence[str] | None = None) -> str:
    """The top terms of each component as text, one line per component.

    Parameters
    ----------
    components, vocabulary, n_terms
        As for :func:`top_terms`.
    labels : sequence of str, optional
        A name per component (default: "topic 0", "topic 1", ...).

    Returns
    -------
    str

    Examples
    --------
    >>> from onlinemf.plotting import format_topics
    >>> print(format_topics([[0.0, 3.0, 1.0], [2.0, 0.0, 0.5]], ["ball", "vote", "goal"], 2))
    topic 0: vote goal
    topic 1: ball goal
    """
    terms = top_terms(components, vocabulary, n_terms)
    if labels is None:
        labels = [f"topic {k}" for k in range(len(terms))]
    elif len(labels) != len(terms):
        raise ValueError(f"{len(labels)} labels for {len(terms)} components")
    width = max(len(str(lab)) for lab in labels)
    return "\n".join(f"{str(lab):<{width}}: {' '.join(t) if t else '(no positive weight)'}"
                     for lab, t in zip(labels, terms))


def plot_topics(components, vocabulary: Sequence[str], n_terms: int = 10, *,
                n_cols: int | None = None, titles: Sequence[str] | None = None,
                color: Any = "tab:blue") -> Figure:
    """Bar charts of the top terms of each component, the largest weight on top.

    Parameters
    ----------
    components, vocabulary, n_terms
        As for :func:`top_terms`.
    n_cols : int, optional
        Panels per row (default: about the square root of the number of components).
    titles : sequence of str, optional
        A title per component (default: "topic 0", "topic 1", ...).
    color : matplotlib colour, default="tab:blue"
        The bars' colour (every panel shows the same kind of quantity).

    Returns
    -------
    matplotlib.figure.Figure
    """
    tops = top_terms(components, vocabulary, n_terms, return_weights=True)
    k = len(tops)
    if titles is None:
        titles = [f"topic {i}" for i in range(k)]
    elif len(titles) != k:
        raise ValueError(f"{len(titles)} titles for {k} components")
    plt = _pyplot()
    rows, cols = _grid(k, n_cols)
    longest = max((len(t) for top in tops for t, _ in top), default=4)
    width = 1.2 + 0.07 * longest + 1.4
    height = 0.6 + 0.22 * max(int(n_terms), 3)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows),
                             squeeze=False, layout="constrained")
    for ax in axes.flat[k:]:
        ax.set_visible(False)
    for ax, top, title in zip(axes.flat, tops, titles):
        ax.set_title(str(title), fontsize=9)
        if not top:
            ax.text(0.5, 0.5, "no positive weight", ha="center", va="center",
                    transform=ax.transAxes, fontsize=8)
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        words = [t for t, _ in top]
        weights = [w for _, w in top]
        pos = np.arange(len(words))
        ax.barh(pos, weights, color=color)
        ax.set_yticks(pos, labels=words, fontsize=8)
        ax.invert_yaxis()
        ax.tick_params(axis="x", labelsize=7)
        ax.set_xlabel("weight", fontsize=8)
    return fig


# ---------------------------------------------------------------------------------- grids
def plot_components(components, image_shape: tuple[int, int] | None = None, *,
                    n_cols: int | None = None, titles: Sequence[str] | None = None,
                    cmap: str | None = None, symmetric: bool | None = None,
                    order: str = "C") -> Figure:
    """The components (atoms) of a model on one shared colour scale, with a colour bar.

    Parameters
    ----------
    components : estimator or array of shape (n_components, n_features)
    image_shape : (height, width), optional
        With it, each atom is drawn as an image in a grid of panels (height·width must equal
        n_features). Without it, the components are one heat map: a row per component, a
        column per feature.
    n_cols : int, optional
        Panels per row of the grid (default: about the square root of n_components).
    titles : sequence of str, optional
        A title per atom (default: its index).
    cmap : str, optional
        Colour map: "viridis" for one-signed atoms, "RdBu_r" (centred on zero) for signed ones.
    symmetric : bool, optional
        Centre the scale on zero (default: when the atoms have both signs).
    order : {"C", "F"}, default="C"
        How an atom's features fill the image (row by row, or column by column).

    Returns
    -------
    matplotlib.figure.Figure
        Its ``axes`` are the panels followed by the colour bar's axes.
    """
    C = _components(components)
    k, f = C.shape
    if titles is not None and len(titles) != k:
        raise ValueError(f"{len(titles)} titles for {k} components")
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    plt = _pyplot()
    norm, signed = _shared_norm(C, symmetric)
    cmap = cmap or ("RdBu_r" if signed else "viridis")
    if image_shape is None:
        fig, ax = plt.subplots(figsize=(min(12.0, 2.0 + 0.02 * f), 1.0 + 0.3 * k),
                               layout="constrained")
        im = ax.imshow(C, aspect="auto", interpolation="nearest", cmap=cmap, norm=norm)
        ax.set_xlabel("feature")
        ax.set_ylabel("component")
        if titles is not None:
            ax.set_yticks(np.arange(k), labels=[str(t) for t in titles])
        fig.colorbar(im, ax=ax, label="weight")
        return fig
    h, w = (int(s) for s in image_shape)
    if h * w != f:
        raise ValueError(f"image_shape {tuple(image_shape)} holds {h * w} pixels but the "
                         f"components have {f} features")
    rows, cols = _grid(k, n_cols)
    panel = 1.5 * max(1.0, min(2.0, w / max(h, 1)))
    fig, axes = plt.subplots(rows, cols, figsize=(panel * cols + 1.0, 1.7 * rows + 0.2),
                             squeeze=False, layout="constrained")
    im = None
    for i, ax in enumerate(axes.flat):
        ax.set_xticks([])
        ax.set_yticks([])
        if i >= k:
            ax.set_visible(False)
            continue
        im = ax.imshow(C[i].reshape((h, w), order=order), cmap=cmap, norm=norm,
                       interpolation="nearest")
        ax.set_title(str(titles[i]) if titles is not None else str(i), fontsize=8)
    fig.colorbar(im, ax=axes.ravel().tolist(), label="weight", shrink=0.9)
    return fig


def plot_ndl_patches(model_or_patches, importance=None, *, n_cols: int | None = None,
                     zero: str = "omit", cmap: str = "gray_r", max_patches: int | None = None,
                     title: str | None = None) -> Figure:
    """Network dictionary patches, most important first, each titled with its importance.

    Parameters
    ----------
    model_or_patches : NetworkDictionaryLearning or array of shape (r, k, k)
        A fitted model (its ``patches_`` and ``importance_``) or the patches themselves.
    importance : array of shape (r,), optional
        Each patch's importance (needed with an array of patches).
    n_cols : int, optional
        Panels per row (default: about the square root of the number of patches drawn).
    zero : {"omit", "blank"}, default="omit"
        Patches of zero importance (never used by the codes) are left out, or drawn as empty
        panels titled "unused".
    cmap : str, default="gray_r"
        Colour map (dark: strong connection).
    max_patches : int, optional
        Draw only the ``max_patches`` most important patches (default: all). The colour
        scale is that of the patches drawn, so a few strong patches are not washed out by
        the range of the ones left out.
    title : str, optional
        The figure's title (default: "patches by importance (share of the code mass)").

    Returns
    -------
    matplotlib.figure.Figure
        Panels in decreasing importance (ties in the model's order), one colour scale shared
        by all of them, and a colour bar.
    """
    if zero not in ("omit", "blank"):
        raise ValueError(f"zero must be 'omit' or 'blank', got {zero!r}")
    if importance is None:
        if not (hasattr(model_or_patches, "patches_") and
                hasattr(model_or_patches, "importance_")):
            raise ValueError("give a fitted NetworkDictionaryLearning, or patches and their "
                             "importance")
        patches, importance = model_or_patches.patches_, model_or_patches.importance_
    else:
        patches = model_or_patches
    P = np.asarray(patches, dtype=float)
    imp = np.asarray(importance, dtype=float).ravel()
    if P.ndim != 3 or P.shape[1] != P.shape[2] or P.shape[0] == 0:
        raise ValueError(f"patches must have shape (r, k, k), got {P.shape}")
    if imp.shape[0] != P.shape[0]:
        raise ValueError(f"{imp.shape[0]} importances for {P.shape[0]} patches")
    if not (np.all(np.isfinite(imp)) and np.all(np.isfinite(P))):
        raise ValueError("patches and importances must be finite")
    if np.any(imp < 0):
        raise ValueError("importances must be nonnegative")
    order = np.argsort(-imp, kind="stable")
    used = order[imp[order] > 0]
    unused = order[imp[order] <= 0]
    if used.size == 0:
        raise ValueError("every patch has zero importance: nothing to draw")
    if max_patches is not None and int(max_patches) < 1:
        raise ValueError(f"max_patches must be at least 1, got {max_patches}")
    shown = np.concatenate([used, unused]) if zero == "blank" else used
    shown = shown[:max_patches] if max_patches is not None else shown
    drawn = shown[imp[shown] > 0]
    plt = _pyplot()
    norm, _ = _shared_norm(np.concatenate([P[drawn].ravel(), [0.0]]), False)
    rows, cols = _grid(shown.size, n_cols)
    fig, axes = plt.subplots(rows, cols, figsize=(1.45 * cols + 1.0, 1.6 * rows + 0.2),
                             squeeze=False, layout="constrained")
    im = None
    for i, ax in enumerate(axes.flat):
        ax.set_xticks([])
        ax.set_yticks([])
        if i >= shown.size:
            ax.set_visible(False)
            continue
        j = shown[i]
        if imp[j] > 0:
            im = ax.imshow(P[j], cmap=cmap, norm=norm, interpolation="nearest")
            ax.set_title(f"{imp[j]:.3f}", fontsize=8)
        else:
            for side in ax.spines.values():
                side.set_linestyle(":")
            ax.set_title("unused", fontsize=8)
    fig.colorbar(im, ax=axes.ravel().tolist(), label="patch weight", shrink=0.9)
    fig.suptitle(title if title is not None else
                 "patches by importance (share of the code mass)", fontsize=9)
    return fig


# ---------------------------------------------------------------------------------- history
_OBJECTIVE_NAMES = {
    "OnlineNMF": "online objective (mean loss)",
    "OnlineRobustNMF": "surrogate objective",
    "OnlineDictionaryLearning": "surrogate objective",
    "PoissonSubspaceTracker": "online objective (mean loss)",
    "StochasticMF": "objective",
    "NetworkDictionaryLearning": "surrogate objective",
}


def objective_history(estimator) -> Bunch:
    """The objective a fitted estimator recorded while learning, in one form for all of them.

    Parameters
    ----------
    estimator : fitted onlinemf estimator
        Any of the online estimators (their ``history_``), or a
        :class:`~onlinemf.NetworkDictionaryLearning` (its inner dictionary learner's history).

    Returns
    -------
    Bunch
        ``samples`` (the x axis: samples seen; per-sample solves for StochasticMF),
        ``time`` (seconds of algorithm time), ``objective``, and the axis labels
        ``samples_label`` and ``objective_label``.
    """
    name = type(estimator).__name__
    source = getattr(estimator, "dictionary_learner_", estimator)
    if not hasattr(source, "components_"):
        raise ValueError(f"{name} is not fitted: fit it before asking for its history")
    try:
        hist = source.history_
    except AttributeError:
        raise ValueError(f"{name} records no objective history") from None
    samples = np.asarray(hist.get("n_samples", ()), dtype=float)
    objective = np.asarray(hist.get("objective", ()), dtype=float)
    time = np.asarray(hist.get("time", np.full(samples.shape, np.nan)), dtype=float)
    n = min(samples.size, objective.size, time.size)
    if n == 0:
        raise ValueError(f"{name} recorded no objective (was it fitted with "
                         "history=None or n_checkpoints=0?)")
    return Bunch(samples=samples[:n], time=time[:n], objective=objective[:n],
                 samples_label=("per-sample solves" if name == "StochasticMF"
                                else "samples seen"),
                 objective_label=_OBJECTIVE_NAMES.get(name, "objective"))


def plot_objective(estimators, *, x: str = "samples", labels: Sequence[str] | None = None,
                   logy: bool = False, ax: Axes | None = None) -> Axes:
    """The objective history of one fitted estimator, or of several on one axes.

    Parameters
    ----------
    estimators : fitted estimator, sequence of them, or mapping label -> estimator
    x : {"samples", "time"}, default="samples"
        The x axis: samples seen (per-sample solves for StochasticMF) or algorithm time.
    labels : sequence of str, optional
        Legend labels (default: the mapping's keys, or the estimators' class names, numbered
        when repeated).
    logy : bool, default=False
        A logarithmic objective axis (the objective must then be positive).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        One line per estimator, each in its own colour.
    """
    if x not in ("samples", "time"):
        raise ValueError(f"x must be 'samples' or 'time', got {x!r}")
    if isinstance(estimators, Mapping):
        names, models = [str(k) for k in estimators], list(estimators.values())
    elif isinstance(estimators, Sequence) and not isinstance(estimators, str):
        models, names = list(estimators), None
    else:
        models, names = [estimators], None
    if not models:
        raise ValueError("no estimator to plot")
    if labels is not None:
        if len(labels) != len(models):
            raise ValueError(f"{len(labels)} labels for {len(models)} estimators")
        names = [str(lab) for lab in labels]
    if names is None:
        base = [type(m).__name__ for m in models]
        names = [f"{b} {base[:i].count(b) + 1}" if base.count(b) > 1 else b
                 for i, b in enumerate(base)]
    histories = [objective_history(m) for m in models]
    if logy and any(np.any(h.objective <= 0) for h in histories):
        raise ValueError("logy needs a positive objective; this history has values <= 0")
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(6.0, 4.0), layout="constrained")
    colors = _distinct_colors(len(models))
    for h, name, color in zip(histories, names, colors):
        xs = h.samples if x == "samples" else h.time
        ax.plot(xs, h.objective, marker="o", markersize=2.5, color=color, label=name)
    xlabels = {h.samples_label for h in histories}
    ax.set_xlabel("algorithm time (s)" if x == "time" else " / ".join(sorted(xlabels)))
    ylabels = {h.objective_label for h in histories}
    ax.set_ylabel(ylabels.pop() if len(ylabels) == 1 else "objective")
    if logy:
        ax.set_yscale("log")
    if len(models) > 1:
        ax.legend(fontsize=8)
    else:
        ax.set_title(names[0], fontsize=10)
    return ax
