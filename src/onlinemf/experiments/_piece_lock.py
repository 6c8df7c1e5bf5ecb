"""One process at a time per piece: several ``reproduce --resume`` processes may share an
output folder (the README invites it), and two of them reaching the same long fit must not
both compute it, nor both write its state file. The process computing a piece holds a lock
on ``<piece>.lock``; another waits for it and then loads the piece.

Where the system has ``fcntl`` (POSIX), the lock is the kernel's ``flock``: it is released
when its holder exits, however it exits, so a killed run leaves nothing to clean up. Else
the lock is the file's exclusive creation, and a file left by a killed run must be removed by
hand (the waiting message names it).
"""

from __future__ import annotations

import os
import socket
import sys
import time
import warnings
from contextlib import contextmanager

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None

__all__ = ["piece_lock"]

_HELD: set[str] = set()  # the locks this process holds (a piece inside itself never ends)


class _NoLocks(OSError):
    """The file system of the output folder does not support ``flock``."""


def _holder(lock: str) -> str:
    """Who wrote ``lock`` (host and pid), for the waiting message."""
    try:
        with open(lock, encoding="utf-8") as fh:
            return fh.read().strip() or "another process"
    except OSError:
        return "another process"


def _try_flock(lock: str) -> int | None:
    """A descriptor of ``lock`` holding its ``flock``, or None while another process holds
    it. A lock file that was removed or replaced after it was opened is opened again (its
    holder released it: the next holder must lock the file now at that path)."""
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except OSError as exc:  # a file system without flock (some network mounts)
            os.close(fd)
            raise _NoLocks(str(exc)) from None
        try:
            same = os.stat(lock).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)


def _try_create(lock: str) -> int | None:
    """A descriptor of ``lock`` created exclusively, or None while it exists."""
    try:
        return os.open(lock, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return None


@contextmanager
def piece_lock(path: str, poll: float = 30.0):
    """Hold the lock of piece file ``path`` for the body; yields whether another process
    held it first (and may have written the piece meanwhile: the caller loads it then).

    Released on exit, also when the body raises. A piece computed inside itself raises
    RuntimeError instead of waiting for itself. Where the folder's file system refuses
    ``flock``, the body runs unlocked, with a RuntimeWarning.
    """
    lock = os.path.abspath(path) + ".lock"
    if lock in _HELD:
        raise RuntimeError(f"{os.path.basename(path)} is being computed by this very process "
                           "(a piece inside itself)")
    os.makedirs(os.path.dirname(lock), exist_ok=True)
    take = _try_flock if fcntl is not None else _try_create
    waited = False
    try:
        fd = take(lock)
    except _NoLocks as exc:
        warnings.warn(f"no lock for {os.path.basename(path)} ({exc}): its folder's file "
                      "system does not support flock, so processes sharing it are not kept "
                      "from computing the same piece", RuntimeWarning, stacklevel=3)
        if os.path.exists(lock):
            os.remove(lock)
        yield False
        return
    while fd is None:
        if not waited:
            how = ("" if fcntl is not None
                   else "; if that process was killed, remove the file to go on")
            print(f"waiting for {os.path.basename(path)}: being computed by {_holder(lock)} "
                  f"({lock}{how})", file=sys.stderr, flush=True)
        waited = True
        time.sleep(poll)
        fd = take(lock)
    os.ftruncate(fd, 0)
    os.write(fd, f"{socket.gethostname()} {os.getpid()}".encode())
    _HELD.add(lock)
    try:
        yield waited
    finally:
        _HELD.discard(lock)
        os.remove(lock)  # before the release: a waiter then re-opens a fresh file
        os.close(fd)
