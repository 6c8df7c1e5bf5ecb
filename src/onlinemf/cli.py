"""The ``onlinemf`` command: fit, transform, topics, ndl, reproduce, bench."""

from __future__ import annotations

import argparse
import contextlib
import os
import pickle
import re
import sys
import threading
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._io import count_missing, looks_transposed, read_csv, write_atomic

__all__ = ["main", "build_parser", "read_matrix", "check_output_path", "write_atomic",
           "load_model", "read_vocabulary"]

#: ``fit --estimator`` choices: the estimator class of each (in ``onlinemf.estimators``).
ESTIMATORS = {
    "nmf": "OnlineNMF",
    "robust-nmf": "OnlineRobustNMF",
    "odl": "OnlineDictionaryLearning",
    "poisson": "PoissonSubspaceTracker",
    "smf": "StochasticMF",
}

MODEL_FILE_NOTE = ("Model files are Python pickles: loading one can run arbitrary code, so "
                   "load only model files from sources you trust.")


LAZY_NPY_BYTES = 256 * 2**20  # larger .npy files are memory-mapped and streamed


def read_matrix(path: str, dataset: str | None = None, transpose: bool = False):
    """Read a data matrix (rows = samples) from .npy, .npz, .csv or Matrix Market .mtx; or,
    lazily as a dask array (never loaded whole), from .zarr, from an HDF5 dataset
    (.h5/.hdf5 with ``dataset``) or from a .npy file over 256 MB (memory-mapped).

    A CSV file may have a header row (skipped) and empty cells, which are missing entries
    (NaN). ``transpose`` reads a features × samples file (columns = samples)."""
    ext = os.path.splitext(path.rstrip("/"))[1].lower()
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such data file: {path}")
    if ext in (".zarr", ".h5", ".hdf5") or (
            ext == ".npy" and os.path.getsize(path) > LAZY_NPY_BYTES):
        if transpose:
            raise ValueError(f"--transpose needs an in-memory input; {path} is read lazily "
                             "(store it with samples as rows)")
        return _read_lazy(path, ext, dataset)
    if ext not in (".npy", ".npz", ".csv", ".mtx"):
        raise ValueError(f"unsupported data format {ext!r}: use .npy, .npz, .csv, .mtx, "
                         ".zarr or .h5/.hdf5")
    try:
        X = _read(path, ext)
    except (OSError, EOFError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{path} holds no data matrix (shape {X.shape}; rows are samples)")
    if transpose:
        X = X.T.tocsr() if hasattr(X, "tocsr") else np.ascontiguousarray(X.T)
    return X


def _read_lazy(path: str, ext: str, dataset: str | None):
    try:
        import dask.array as da
    except ImportError:
        raise ValueError(f"reading {ext} files lazily needs dask: pip install "
                         "'onlinemf[dask]'") from None
    if ext == ".zarr":
        X = da.from_zarr(path)
    elif ext == ".npy":
        mm = np.load(path, mmap_mode="r", allow_pickle=False)
        X = da.from_array(mm, chunks=(_block_rows(mm.shape), -1)) if mm.ndim == 2 else mm
    else:
        if not dataset:
            raise ValueError(f"{path} is HDF5: name the dataset to read with --dataset NAME")
        import h5py

        handle = h5py.File(path, "r")
        if dataset not in handle:
            raise ValueError(f"{path} has no dataset {dataset!r} (it has {list(handle)})")
        d = handle[dataset]
        X = da.from_array(d, chunks=(_block_rows(d.shape), -1)) if d.ndim == 2 else d
    if X.ndim != 2 or 0 in X.shape:
        raise ValueError(f"{path} holds no data matrix (shape {X.shape}; rows are samples)")
    return X


def _block_rows(shape) -> int:
    """Rows per block of a lazily read matrix: about 64 MB of float64 a block."""
    return max(1, int(2**23 // max(shape[1] if len(shape) > 1 else 1, 1)))


def _read(path: str, ext: str):
    if ext == ".npy":
        return np.load(path, allow_pickle=False)
    if ext == ".npz":
        with np.load(path, allow_pickle=False) as z:
            if {"data", "indices", "indptr", "shape"} <= set(z.files):
                import scipy.sparse as sp

                return sp.load_npz(path)
            if not z.files:
                raise ValueError(f"{path} holds no arrays")
            key = "X" if "X" in z.files else z.files[0]
            return z[key]
    if ext == ".csv":
        return read_csv(path)[0]
    from scipy.io import mmread

    return mmread(path).tocsr()


def check_output_path(path: str, what: str) -> str:
    """Refuse, before any long computation, an output path that cannot be written: a folder,
    or a file under a missing folder or under a regular file."""
    if os.path.isdir(path) and not path.rstrip("/").lower().endswith(".zarr"):
        raise ValueError(f"{what} {path!r} is a folder; give a file name")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise ValueError(f"{what} {path!r}: {parent!r} is not an existing folder")
    if not os.access(parent, os.W_OK):
        raise ValueError(f"{what} {path!r}: folder {parent!r} is not writable")
    return path


def load_model(path: str):
    """A fitted onlinemf estimator from a pickle, or a clear error."""
    from sklearn.utils.validation import check_is_fitted

    if not os.path.exists(path):
        raise FileNotFoundError(f"no such model file: {path}")
    try:
        with open(path, "rb") as fh:
            model = pickle.load(fh)
    except Exception as exc:  # a corrupt or foreign pickle raises anything
        raise ValueError(f"{path} is not a readable model file ({type(exc).__name__})") from None
    if not (type(model).__module__.startswith("onlinemf.") and hasattr(model, "transform")):
        raise ValueError(f"{path} does not hold an onlinemf model "
                         f"(found {type(model).__name__})")
    check_is_fitted(model)
    return model


def _parse_value(text: str):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"none": None, "true": True, "false": False}.get(text.lower(), text)


def _estimator_class(name: str):
    from . import estimators

    return getattr(estimators, ESTIMATORS[name])


def _fit_params(args) -> tuple[dict, dict]:
    """The estimator's parameters from the options, and for each parameter the option that
    set it (so that an error names what the user typed)."""
    name = args.estimator
    cls = _estimator_class(name)
    known = cls().get_params()
    params: dict[str, Any] = {}
    origin: dict[str, str] = {}

    def put(key, value, option):
        params[key] = value
        origin[key] = option

    k = args.n_components if args.n_components is not None else (40 if name == "nmf" else None)
    if k is not None:
        put("n_components", k, "-k/--n-components")
    put("random_state", args.random_state, "--random-state")
    if "verbose" in known:
        put("verbose", 0, "--quiet")
    if args.loss is not None or name == "nmf":
        if name != "nmf":
            raise ValueError(f"--loss applies to --estimator nmf only (not {name})")
        put("loss", args.loss or "squared", "--loss")
    if name == "nmf" or (args.batch_size and "batch_size" in known):
        put("batch_size", args.batch_size if args.batch_size else "auto", "--batch-size")
    elif args.batch_size:
        raise ValueError(f"--batch-size does not apply to --estimator {name} (it takes one "
                         "sample at a time)")
    if args.passes is not None:
        if args.passes < 1:
            raise ValueError(f"--passes must be at least 1, got {args.passes}")
        if "max_iter" not in known:
            raise ValueError(f"--passes does not apply to --estimator {name}: it makes one "
                             "pass over the rows, in time order")
        put("max_iter", args.passes, "--passes")
        if "max_no_improvement" in known:  # exactly that many passes: the stopping rule off
            put("max_no_improvement", None, "--passes")
    loss_params: dict[str, Any] = {}
    for item in args.param or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--param expects KEY=VALUE, got {item!r}")
        if key.startswith("loss.") and name == "nmf":
            loss_params[key[5:]] = _parse_value(value)
            origin["loss"] = f"--param {key}"
        elif key in known:
            put(key, _parse_value(value), f"--param {key}")
        else:
            raise ValueError(f"--param {key}: {cls.__name__} has no parameter {key!r}")
    if loss_params:  # the loss carries its parameters
        from .losses import get_loss

        params["loss"] = get_loss(params["loss"], **loss_params)
    if args.n_components is not None and args.n_components < 1:
        raise ValueError(f"-k/--n-components must be at least 1, got {args.n_components}")
    return params, origin


_INVALID = re.compile(r"The '(\w+)' parameter of \w+ must be (.*)\. Got (.*) instead\.$",
                      re.DOTALL)


def _check_params(cls, params: dict, origin: dict) -> None:
    """Validate the parameters before any data are read; an error names the option."""
    from sklearn.utils._param_validation import InvalidParameterError

    try:
        cls(**params)._validate_params()
    except InvalidParameterError as exc:
        m = _INVALID.match(str(exc))
        if m and m.group(1) in origin:
            raise ValueError(f"{origin[m.group(1)]} must be {m.group(2)}; got "
                             f"{m.group(3)}") from None
        raise ValueError(str(exc)) from None


def _prepare_data(X, path: str, args, model_or_cls) -> None:
    """Warn when X looks transposed; refuse missing entries an estimator cannot take."""
    if not getattr(args, "transpose", False) and looks_transposed(X):
        print(f"onlinemf: warning: {path} looks like features × samples ({X.shape[0]} rows, "
              f"{X.shape[1]} columns of counts whose row totals vary far more than its column "
              "totals, as a terms × documents matrix does); rows are taken as samples. If "
              "its columns are the samples, add --transpose.", file=sys.stderr)
    missing = count_missing(X)
    if missing and not _accepts_missing(model_or_cls):
        name = model_or_cls.__name__ if isinstance(model_or_cls, type) else \
            type(model_or_cls).__name__
        cells = "empty cell(s)" if path.lower().endswith(".csv") else "missing (NaN) entries"
        raise ValueError(f"{path} has {missing} {cells}, and {name} needs complete data "
                         "(--estimator nmf and poisson take missing entries)")


def _accepts_missing(model_or_cls) -> bool:
    est = model_or_cls() if isinstance(model_or_cls, type) else model_or_cls
    try:
        return bool(est.__sklearn_tags__().input_tags.allow_nan)
    except AttributeError:
        return False


def _cmd_fit(args) -> int:
    name = args.estimator
    cls = _estimator_class(name)
    check_output_path(args.model, "--model")
    if args.codes:
        check_output_path(args.codes, "--codes")
    if args.checkpoint:
        check_output_path(args.checkpoint, "--checkpoint")
    if args.checkpoint_every < 1:
        raise ValueError("--checkpoint-every must be at least 1")
    if args.resume and not args.checkpoint:
        raise ValueError("--resume needs --checkpoint PATH")
    params, origin = _fit_params(args)
    _check_params(cls, params, origin)  # bad values fail before the data are read
    X = read_matrix(args.data, args.dataset, args.transpose)
    _prepare_data(X, args.data, args, cls)
    say = (lambda *a: None) if args.quiet else print
    with _scheduler(args), _converge_warnings(origin):
        est = cls(**params)  # its own fit (a lazy input streams through it), checkpointed
        with _checkpoints(est, X, args), _Progress(est, _progress_total(est, X, args),
                                                   enabled=_show_progress(args)):
            model = est.fit(X)
        write_atomic(args.model, lambda fh: pickle.dump(model, fh))
        say(f"{type(model).__name__} written to {args.model}")
        if args.codes:
            _write_codes(model.transform(X), args.codes, say)
    return 0


@contextlib.contextmanager
def _converge_warnings(origin: dict):
    """Reword fit's warning that its pass cap stopped it, in the options' terms."""
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        yield
    for w in caught:
        if issubclass(w.category, ConvergenceWarning) and "max_iter" not in origin:
            print("onlinemf: warning: fit reached its cap on passes before its objective "
                  "settled; raise the cap with --param max_iter=N, or run exactly N passes "
                  "with --passes N", file=sys.stderr)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def _show_progress(args, stream=None) -> bool:
    """A progress bar on stderr: only on a terminal, never with --quiet, and only when tqdm
    is installed."""
    stream = sys.stderr if stream is None else stream
    if getattr(args, "quiet", False) or not (hasattr(stream, "isatty") and stream.isatty()):
        return False
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    return True


def _progress_total(est, X, args) -> int | None:
    """Samples a fit will read when that is known in advance (None: until its rule stops)."""
    n = X.shape[0]
    if type(est).__name__ == "PoissonSubspaceTracker":
        return int(n)
    if args.passes is not None and type(est).__name__ != "StochasticMF":
        return int(n) * int(args.passes)
    return None


class _Progress:
    """A tqdm bar on stderr that follows a fit from another thread: samples seen and the last
    objective the estimator recorded (its public ``history_``), read a few times a second.
    The fit itself is untouched, so its result is the same with or without the bar."""

    def __init__(self, estimator, total: int | None, enabled: bool, file=None,
                 interval: float = 0.2):
        self.estimator = estimator
        self.total = total
        self.enabled = enabled
        self.file = sys.stderr if file is None else file
        self.interval = interval
        self._stop = threading.Event()
        self._bar = None
        self._thread: threading.Thread | None = None

    def _latest(self):
        try:
            hist = self.estimator.history_
            n = min(len(hist["n_samples"]), len(hist["objective"]))
            if n:
                return int(hist["n_samples"][n - 1]), float(hist["objective"][n - 1])
        except Exception:  # not started yet, or the record is being thinned: try again
            pass
        return None

    def _show(self) -> None:
        latest = self._latest()
        if latest is None or self._bar is None:
            return
        seen, objective = latest
        self._bar.n = seen if self.total is None else min(seen, self.total)
        self._bar.set_postfix_str(f"objective {objective:.6g}", refresh=False)
        self._bar.refresh()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._show()

    def __enter__(self) -> _Progress:
        if self.enabled:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=self.total, unit=" samples", unit_scale=True,
                             file=self.file, desc=type(self.estimator).__name__)
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._show()
            if exc_type is None and self.total is not None:  # the record lags the last steps
                self._bar.n = self.total
                self._bar.refresh()
            self._bar.close()


def _is_lazy(X) -> bool:
    from ._dask import is_dask_array

    return is_dask_array(X)


def _write_codes(codes, path: str, say=print) -> None:
    """Codes to .npy, or streamed block by block to .zarr (a lazy result is never held)."""
    if path.rstrip("/").lower().endswith(".zarr"):
        import dask.array as da

        lazy = codes if _is_lazy(codes) else da.from_array(codes)
        lazy.to_zarr(path, overwrite=True)
    else:
        codes = codes.compute() if _is_lazy(codes) else codes
        write_atomic(path, lambda fh: np.save(fh, codes))
    say(f"codes written to {path}")


def _scheduler(args):
    """The dask scheduler for lazy inputs: --address (a running distributed scheduler) or
    --scheduler; a no-op context otherwise."""
    address, name = getattr(args, "address", None), getattr(args, "scheduler", None)
    if address:
        try:
            from distributed import Client
        except ImportError:
            raise ValueError("--address needs distributed: pip install 'onlinemf[dask]'") \
                from None
        return Client(address)
    if name:
        import dask

        return dask.config.set(scheduler=name)
    return contextlib.nullcontext()


def _checkpoints(est, X, args):
    """``--checkpoint``: the estimator's ``fit`` writes its whole state to the file every
    ``--checkpoint-every`` mini-batches (StochasticMF: after each outer iteration), and
    ``--resume`` continues from it; a resumed fit ends exactly as an uninterrupted one. A lazy
    input is identified in the checkpoint's key by its path (its data are never hashed)."""
    if not args.checkpoint:
        return contextlib.nullcontext()
    from ._checkpoint import checkpointing

    data_id = ((os.path.abspath(args.data), args.dataset, X.shape, str(X.dtype))
               if _is_lazy(X) else None)
    if args.resume and os.path.exists(args.checkpoint) and not args.quiet:
        print(f"resuming from {args.checkpoint}")
    return checkpointing(est, X, args.checkpoint, every=args.checkpoint_every,
                         resume=args.resume, data_id=data_id)


def _cmd_transform(args) -> int:
    check_output_path(args.out, "--out")
    model = load_model(args.model)
    X = read_matrix(args.data, args.dataset, args.transpose)
    _prepare_data(X, args.data, args, model)
    n_features = getattr(model, "n_features_in_", None)
    if n_features is not None and X.shape[1] != n_features:
        hint = " (try --transpose)" if X.shape[0] == n_features else ""
        raise ValueError(f"{args.data} has {X.shape[1]} features (columns) but the model was "
                         f"fitted on {n_features}{hint}")
    with _scheduler(args):
        _write_codes(model.transform(X), args.out, (lambda *a: None) if args.quiet else print)
    return 0


def read_vocabulary(path: str) -> list[str]:
    """Terms from a text file, one per line (as ``bbc.terms``); a CSV header row or a
    one-column CSV file also works. Blank lines are refused (a term would go missing)."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such vocabulary file: {path}")
    with open(path, encoding="utf-8-sig") as fh:
        lines = fh.read().splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) == 1 and "," in lines[0]:  # a single CSV header row
        lines = lines[0].split(",")
    blank = [i for i, t in enumerate(lines, 1) if not t.strip()]
    if not lines:
        raise ValueError(f"{path} holds no terms")
    if blank:
        raise ValueError(f"--vocab {path}: line {blank[0]} is blank ({len(blank)} blank "
                         "line(s)); one term per line is needed")
    return [t.strip() for t in lines]


def _cmd_topics(args) -> int:
    from .plotting import format_topics, plot_topics

    if args.n_terms < 1:
        raise ValueError(f"--n-terms must be at least 1, got {args.n_terms}")
    if args.plot:
        check_output_path(args.plot, "--plot")
    model = load_model(args.model)
    vocab = read_vocabulary(args.vocab)
    n_features = model.components_.shape[1]
    if len(vocab) != n_features:
        raise ValueError(f"--vocab {args.vocab} has {len(vocab)} terms but the model has "
                         f"{n_features} features (a model fitted on a terms × documents file "
                         "without fit --transpose has the documents as features)")
    print(format_topics(model, vocab, args.n_terms))
    if args.plot:
        plt = _agg_pyplot()
        fig = plot_topics(model, vocab, args.n_terms)
        fig.savefig(args.plot, dpi=100)
        plt.close(fig)
        print(f"topics plotted to {args.plot}")
    return 0


def _agg_pyplot():
    """pyplot on the Agg backend (the command writes files and shows no window)."""
    try:
        import matplotlib
    except ImportError:
        raise ValueError("figures need matplotlib: pip install 'onlinemf[figures]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _read_graph(path: str):
    """A network from an edge list (.txt/.csv/.edgelist: 'u v [w]' or 'u,v[,w]' per line) or an
    adjacency matrix (.npy, .npz, .mtx, or a whitespace-separated square matrix)."""
    ext = os.path.splitext(path)[1].lower()
    if ext in (".npy", ".npz", ".mtx"):
        return read_matrix(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such graph file: {path}")
    with open(path, encoding="utf-8") as fh:
        first = fh.readline()
    delim = "," if "," in first else None
    arr = np.loadtxt(path, delimiter=delim, ndmin=2)
    from .graphs import as_adjacency

    square = arr.shape[0] == arr.shape[1] and arr.shape[0] > 3
    return as_adjacency(arr, kind=None if square else "edges")


def _cmd_ndl(args) -> int:
    from .estimators import NetworkDictionaryLearning
    from .graphs import path_motif

    G = _read_graph(args.graph)
    motif = path_motif(args.arm, args.arm) if args.motif == "wedge" else args.motif
    est = NetworkDictionaryLearning(args.n_components, motif_size=args.motif_size, motif=motif,
                                    n_iter=args.n_iter, batch_size=args.batch_size,
                                    alpha=args.alpha, chain=args.chain,
                                    random_state=args.random_state).fit(G)
    os.makedirs(args.out, exist_ok=True)
    order = np.argsort(-est.importance_)
    np.savetxt(os.path.join(args.out, "importance.txt"), est.importance_[order], fmt="%.6f")
    np.save(os.path.join(args.out, "patches.npy"), est.patches_[order])
    _patch_figure(est, os.path.join(args.out, "patches.png"))
    print(f"{len(order)} patches sorted by importance written to {args.out}")
    if args.reconstruct:
        import scipy.sparse as sp

        R = est.reconstruct(G, n_steps=args.reconstruct, alpha=args.alpha_rec)
        sp.save_npz(os.path.join(args.out, "reconstruction.npz"), R)
        print(f"reconstructed network written to {args.out}/reconstruction.npz")
    return 0


def _patch_figure(est, path: str) -> None:
    """The patches ordered and titled by importance on one colour scale (unused ones left
    out), by :func:`onlinemf.plotting.plot_ndl_patches`."""
    from .plotting import plot_ndl_patches

    plt = _agg_pyplot()
    fig = plot_ndl_patches(est)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _list_experiments(args, registry) -> int:
    """One line per registered experiment: name, spec, whether --out holds its result at this
    scale (and how many finished pieces), title."""
    store, pieces = os.path.join(args.out, "results"), os.path.join(args.out, "pieces")
    names = set(os.listdir(pieces)) if os.path.isdir(pieces) else set()
    for name, exp in registry.items():
        res = os.path.join(store, f"{name}.pkl")
        state = "-"
        if os.path.exists(res):
            try:
                with open(res, "rb") as fh:
                    kept = pickle.load(fh)
                state = ("-" if getattr(kept, "scale", None) != args.scale else
                         "partial" if getattr(kept, "missing", None) else "done")
            except Exception:
                state = "unreadable"
        if state == "-":
            n = sum(f.startswith(f"{args.scale}-{args.seed}-{name}-") for f in names)
            state = f"{n} pieces" if n else "-"
        print(f"{name:22s} {exp.spec:22s} {state:10s} {exp.title}")
    return 0


def _cmd_reproduce(args) -> int:
    from .experiments import REGISTRY, Context, run_experiments, write_report

    if args.list:
        return _list_experiments(args, REGISTRY)
    from .experiments import REPEATS

    for flag, value in (("--repeats", args.repeats), ("--jobs", args.jobs)):
        if value is not None and value < 1:
            raise ValueError(f"{flag} must be at least 1, got {value}")
    resume = args.resume or args.kept_only
    ctx = Context(scale=args.scale, out_dir=args.out, data_dir=args.data_dir, seed=args.seed,
                  resume=resume, kept_only=args.kept_only, jobs=args.jobs,
                  repeats=args.repeats or (REPEATS if args.scale == "paper" else 1))
    store = os.path.join(args.out, "results")

    def finished_before() -> dict:
        """Results already in --out (this scale), read afresh: another run may add some."""
        done = {}
        if resume and os.path.isdir(store):
            for fname in sorted(os.listdir(store)):
                if fname.endswith(".pkl"):
                    try:
                        with open(os.path.join(store, fname), "rb") as fh:
                            res = pickle.load(fh)
                    except Exception:  # an unreadable result is run again
                        continue
                    if getattr(res, "scale", args.scale) == args.scale:
                        done[res.name] = res
        return done

    # a partial result (panels missing) is reported until a run completes it, never kept
    # in its place
    done = {n: r for n, r in finished_before().items() if not getattr(r, "missing", None)}

    def with_kept(results):
        """The run's results and, with --resume, every other finished one (registry order):
        experiments run one at a time, or by several runs at once, build one report."""
        have = {r.name: r for r in results}
        extra = {n: r for n, r in finished_before().items() if n not in have}
        order = list(REGISTRY)
        return sorted([*results, *extra.values()],
                      key=lambda r: order.index(r.name) if r.name in order else len(order))

    def finished(results):
        """Keep the newest result and rewrite the report: a stopped run loses nothing."""
        os.makedirs(store, exist_ok=True)
        res = results[-1]
        res.scale = args.scale
        write_report(with_kept(results), ctx)  # first: a kept result always has its section
        write_atomic(os.path.join(store, f"{res.name}.pkl"), lambda fh: pickle.dump(res, fh))

    results = run_experiments(args.names, ctx, progress=lambda m: print(m, flush=True),
                              on_result=finished, done=done)
    path = write_report(with_kept(results), ctx)
    print(f"report written to {path}")
    return 0


def _cmd_bench(args) -> int:
    from .benchmarking import run_benchmarks

    run_benchmarks(args.suites or None, quick=args.quick, data_dir=args.data_dir, out=args.out,
                   threads=args.threads or None)
    print(f"results written to {os.path.join(args.out, 'bench.json')} and bench.md")
    return 0


def _lazy_arguments(p) -> None:
    p.add_argument("--dataset", help="the dataset to read from an .h5/.hdf5 file")
    p.add_argument("--scheduler", choices=("threads", "processes", "synchronous"),
                   help="dask scheduler for lazily read data (.zarr, .h5, large .npy)")
    p.add_argument("--address", metavar="HOST:PORT",
                   help="a running dask.distributed scheduler to compute on")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="onlinemf", description="Online matrix factorization.")
    sub = p.add_subparsers(dest="command", required=True)

    f = sub.add_parser(
        "fit", help="learn a dictionary from a data file (rows = samples)",
        description="Learn a dictionary from a data file whose rows are samples (--transpose "
                    "for a file whose columns are) with any of the online estimators, and "
                    "write the fitted model (a pickle). " + MODEL_FILE_NOTE)
    f.add_argument("data", help=".npy, .npz, .csv (a header row and empty cells allowed), "
                                ".mtx (sparse), or lazily .zarr, .h5/.hdf5")
    f.add_argument("--estimator", choices=tuple(ESTIMATORS), default="nmf",
                   help="nmf: OnlineNMF (default); robust-nmf: OnlineRobustNMF; odl: "
                        "OnlineDictionaryLearning; poisson: PoissonSubspaceTracker (one pass "
                        "in row order; missing entries allowed); smf: StochasticMF")
    f.add_argument("-k", "--n-components", type=int, default=None,
                   help="number of components (default: 40 for nmf, the estimator's own "
                        "default otherwise)")
    f.add_argument("--loss", default=None, help="nmf's divergence (default: squared)")
    f.add_argument("--batch-size", type=int, default=0,
                   help="samples per mini-batch (default: the estimator's automatic size)")
    f.add_argument("--passes", type=int, default=None,
                   help="exactly N passes (default: until fit's stopping rule; for smf, N "
                        "outer iterations; not for poisson)")
    f.add_argument("--random-state", type=int, default=0)
    f.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="any parameter of the chosen estimator, or loss.NAME=VALUE for a "
                        "parameter of nmf's loss")
    f.add_argument("--transpose", action="store_true",
                   help="the file is features × samples (e.g. terms × documents): fit its "
                        "columns as the samples")
    f.add_argument("--model", default="model.pkl", help="where to write the fitted model")
    f.add_argument("--codes", help="also write the codes of DATA (.npy, or .zarr to stream)")
    f.add_argument("--checkpoint", metavar="PATH",
                   help="write the whole state of the estimator's fit here (atomically) as "
                        "it goes: model, position in the pass and its order, random "
                        "generator, stopping rule; any estimator and input")
    f.add_argument("--checkpoint-every", type=int, default=100, metavar="N",
                   help="mini-batches between checkpoints (default 100; smf: after each "
                        "outer iteration)")
    f.add_argument("--resume", action="store_true",
                   help="continue from --checkpoint (the model equals an uninterrupted run's, "
                        "bit for bit; a checkpoint of other data, parameters or format is "
                        "refused)")
    f.add_argument("--quiet", action="store_true",
                   help="no progress bar (shown on a terminal only, on stderr) and no "
                        "messages but warnings and errors")
    _lazy_arguments(f)
    f.set_defaults(func=_cmd_fit)

    t = sub.add_parser(
        "transform", help="codes of a data file with a saved model",
        description="Write the codes of a data file under a model written by fit. "
                    + MODEL_FILE_NOTE)
    t.add_argument("model", help="a model file written by onlinemf fit (a pickle)")
    t.add_argument("data")
    t.add_argument("--out", default="codes.npy", help=".npy, or .zarr to stream the codes")
    t.add_argument("--transpose", action="store_true",
                   help="the file is features × samples, as given to fit --transpose")
    t.add_argument("--quiet", action="store_true", help="no messages but warnings and errors")
    _lazy_arguments(t)
    t.set_defaults(func=_cmd_transform)

    o = sub.add_parser(
        "topics", help="print the top terms of each component of a saved model",
        description="Print the top terms of each component of a model written by fit, "
                    "given the vocabulary of its features. " + MODEL_FILE_NOTE)
    o.add_argument("model", help="a model file written by onlinemf fit (a pickle)")
    o.add_argument("--vocab", required=True, metavar="FILE",
                   help="the terms, one per line, in the order of the model's features "
                        "(e.g. bbc.terms)")
    o.add_argument("-n", "--n-terms", type=int, default=10, help="terms per component")
    o.add_argument("--plot", metavar="PNG", help="also draw the topics as bar charts here")
    o.set_defaults(func=_cmd_topics)

    g = sub.add_parser("ndl", help="network dictionary learning on a graph file")
    g.add_argument("graph", help="edge list (u v [w] per line) or adjacency matrix file")
    g.add_argument("-k", "--n-components", type=int, default=25)
    g.add_argument("--motif", choices=("path", "star", "wedge"), default="path")
    g.add_argument("--motif-size", type=int, default=21, help="nodes of a path or star motif")
    g.add_argument("--arm", type=int, default=1, help="arm length of a wedge motif")
    g.add_argument("--n-iter", type=int, default=100)
    g.add_argument("--batch-size", type=int, default=100)
    g.add_argument("--alpha", type=float, default=1.0)
    g.add_argument("--chain", choices=("auto", "glauber", "pivot"), default="auto",
                   help="MCMC sampler of motif homomorphisms (pivot: exact, tree motifs)")
    g.add_argument("--reconstruct", type=int, default=0, metavar="STEPS",
                   help="also reconstruct the network from this many chain steps")
    g.add_argument("--alpha-rec", type=float, default=0.0)
    g.add_argument("--random-state", type=int, default=0)
    g.add_argument("--out", default="ndl_out")
    g.set_defaults(func=_cmd_ndl)

    r = sub.add_parser("reproduce", help="run registered experiments and write a report")
    r.add_argument("names", nargs="*", default=["all"])
    r.add_argument("--scale", choices=("tiny", "quick", "paper"), default="quick",
                   help="tiny: every line at toy sizes (a smoke test); quick: the demo; "
                        "paper: the papers' sizes")
    r.add_argument("--out", default="out")
    r.add_argument("--data-dir", default=None,
                   help="folder holding the papers' data sets (e.g. ../shared/data)")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--resume", action="store_true",
                   help="keep the experiments (and the pieces of long ones) an earlier run "
                        "into --out finished")
    r.add_argument("--kept-only", action="store_true",
                   help="compute nothing: assemble the named experiments from the pieces kept "
                        "in --out (implies --resume); panels not yet run are reported as not "
                        "measured, and a later --resume run computes them")
    r.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="worker processes for the untimed batch references (the timed fits "
                        "always run in one process)")
    r.add_argument("--repeats", type=int, default=None, metavar="N",
                   help="timed runs of each fit a time claim compares, the median used (a "
                        "run over twice the others' median is run again once); default 3 at "
                        "--scale paper, else 1")
    r.add_argument("--list", action="store_true",
                   help="list the experiments, and which --out holds finished at --scale")
    r.set_defaults(func=_cmd_reproduce)

    b = sub.add_parser("bench", help="every estimator against its anchors, in one run")
    b.add_argument("suites", nargs="*",
                   help="nmf, topics, sparse, robust, smf, ndl, scale, stream (all)")
    b.add_argument("--quick", action="store_true", help="smaller data (minutes)")
    b.add_argument("--data-dir", default=None,
                   help="folder with the real data sets (20newsgroups/ for the text cases)")
    b.add_argument("--out", default="bench_out")
    b.add_argument("--threads", type=int, default=1,
                   help="BLAS threads (default 1: compare algorithms; 0: leave as is)")
    b.set_defaults(func=_cmd_bench)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``onlinemf`` command with ``argv`` (default: the process's arguments); returns
    the exit status (2 for a usage or data error, reported on stderr)."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"onlinemf: error: {exc}", file=sys.stderr)
        return 2
