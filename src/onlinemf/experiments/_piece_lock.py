"""One process at a time per piece: several ``reproduce --resume`` processes may share an
output folder (the README invites it), and two of them reaching the same long fit must not
both compute it, nor both write its state file. The process computing a piece holds
``<piece>.lock`` (its host and pid); another waits for it and then loads the piece.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from contextlib import contextmanager

__all__ = ["piece_lock"]


def _holder(lock: str) -> tuple[str, int] | None:
    """(host, pid) written in ``lock``, or None when it is gone or unreadable."""
    try:
        with open(lock, encoding="utf-8") as fh:
            host, pid = fh.read().split()
        return host, int(pid)
    except (OSError, ValueError):
        return None


def _is_stale(holder: tuple[str, int] | None) -> bool:
    """A lock whose holder is known dead: a process of this host that no longer runs (a
    holder on another host is trusted: remove its lock by hand to take over)."""
    if holder is None:
        return True
    host, pid = holder
    if host != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


@contextmanager
def piece_lock(path: str, poll: float = 30.0):
    """Hold ``path + ".lock"`` for the body; yields whether it had to wait for another
    process first (which may have written the piece meanwhile: the caller loads it then).

    The lock is created exclusively (``O_EXCL``), so of two processes arriving together one
    waits; a stale lock (its holder dead) is taken over; the lock is removed on exit, also
    when the body raises.
    """
    lock = path + ".lock"
    os.makedirs(os.path.dirname(os.path.abspath(lock)), exist_ok=True)
    waited = False
    while True:
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            holder = _holder(lock)
            if holder == (socket.gethostname(), os.getpid()):
                raise RuntimeError(f"{os.path.basename(path)} is being computed by this very "
                                   "process (a piece inside itself)") from None
            if _is_stale(holder):
                try:
                    os.remove(lock)
                except FileNotFoundError:
                    pass
                continue
            if not waited:
                print(f"waiting for {os.path.basename(path)}: being computed by process "
                      f"{holder[1]} on {holder[0]} (remove {lock} to take over)",
                      file=sys.stderr, flush=True)
            waited = True
            time.sleep(poll)
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(f"{socket.gethostname()} {os.getpid()}")
        break
    try:
        yield waited
    finally:
        if _holder(lock) == (socket.gethostname(), os.getpid()):
            os.remove(lock)
