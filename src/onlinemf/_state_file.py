"""A fit's state kept in a file between its outer iterations, so that a long fit that is
interrupted (a killed process, the end of a batch job's time) resumes where it stopped and
ends exactly as an uninterrupted one would."""

from __future__ import annotations

import os
import pickle

import joblib

from ._dask import is_dask_array
from ._io import write_atomic
from ._version import __version__

__all__ = ["data_key", "state_key", "load_state", "save_state", "write_state", "remove_state",
           "STATE_FORMAT", "check_format"]

#: the layout of a state file (and of the command line's checkpoints): a file of another
#: layout is refused by name rather than misread (2: each estimator keeps its update rule's
#: state in one immutable ``state_`` object)
STATE_FORMAT = 2

# parameters that do not change what a fit computes: a resumed fit may differ in them
_NOT_IN_KEY = ("callback", "gradient_map", "state_file")


def state_key(est, X) -> str:
    """A hash of what the fit's result depends on: the estimator's class and parameters
    (those in ``_NOT_IN_KEY`` excepted; a RandomState instance counts as "an instance",
    since drawing from it changes it) and the data (a dask array by its graph's name)."""
    params = {k: v for k, v in est.get_params(deep=False).items() if k not in _NOT_IN_KEY}
    rs = params.get("random_state")
    if rs is not None and not isinstance(rs, int):
        params["random_state"] = type(rs).__name__
    return joblib.hash((type(est).__name__, params, data_key(X)))


def data_key(X):
    """What stands for the data in a state's key: the array itself (hashed), or a dask
    array's graph name and shape (hashing it would compute it)."""
    return ("dask", X.name, X.shape) if is_dask_array(X) else X


def load_state(path: str, key: str) -> dict | None:
    """The state kept in ``path`` (None when there is no such file). A file written by
    another fit (other data or parameters) or unreadable is an error that names it."""
    if not os.path.exists(path):
        return None
    try:
        with open(path, "rb") as fh:
            kept = pickle.load(fh)
    except Exception as exc:
        raise ValueError(f"cannot resume from state_file {path!r}: {exc}; delete it to start "
                         "afresh") from None
    check_format(kept, f"state_file {path!r}")
    kept_key, state = kept["key"], kept["state"]
    if kept_key != key:
        raise ValueError(f"state_file {path!r} was written by a fit on other data or with "
                         "other parameters; delete it or pass another path")
    return state


def save_state(path: str, key: str, est, params) -> None:
    """Write the estimator's attributes other than its parameters (atomically)."""
    write_state(path, key, {k: v for k, v in vars(est).items() if k not in params})


def write_state(path: str, key: str, state: dict) -> None:
    """Write ``state`` under ``key`` (atomically), for :func:`load_state`."""
    record = {"format": STATE_FORMAT, "version": __version__, "key": key, "state": state}
    write_atomic(path, lambda fh: pickle.dump(record, fh, protocol=pickle.HIGHEST_PROTOCOL))


def check_format(kept, what: str) -> None:
    """Refuse a kept state (a state file's or a checkpoint's record) of another layout than
    :data:`STATE_FORMAT`, naming the version that wrote it."""
    found = kept.get("format") if isinstance(kept, dict) else None
    if found != STATE_FORMAT:
        wrote = kept.get("version", "an unknown version") if isinstance(kept, dict) else \
            "an earlier version"
        raise ValueError(f"{what} was written by onlinemf {wrote} in format "
                         f"{found if found is not None else 0}; onlinemf {__version__} reads "
                         f"format {STATE_FORMAT}: delete it to start afresh")


def remove_state(path: str) -> None:
    if os.path.exists(path):
        os.remove(path)
