"""Pieces shared by several processes: one computes a piece, the others wait and load it."""

import os
import pickle
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from onlinemf.experiments import Context, _piece_lock
from onlinemf.experiments._piece_lock import piece_lock


def _piece(tmp_path, key="a"):
    return tmp_path / "pieces" / f"paper-0-{key}.pkl"


def test_two_processes_compute_a_shared_piece_once(tmp_path):
    """Both start together; the slow piece runs in one of them, the other loads its value."""
    script = textwrap.dedent(f"""
        import os, time
        from onlinemf.experiments import Context
        def slow():
            with open({str(tmp_path / 'calls')!r}, "a") as fh:
                fh.write(str(os.getpid()) + "\\n")
            time.sleep(1.0)
            return os.getpid()
        ctx = Context(scale="paper", out_dir={str(tmp_path)!r}, resume=True, lock_poll=0.05)
        print(ctx.memo("a", slow))
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    calls = (tmp_path / "calls").read_text().split()
    assert len(calls) == 1  # computed once
    assert [int(o[0]) for o in outs] == [int(calls[0])] * 2  # both have its value
    assert any("waiting for paper-0-a.pkl" in o[1] for o in outs)
    assert not os.path.exists(str(_piece(tmp_path)) + ".lock")


HOLD = textwrap.dedent("""
    import fcntl, os, sys, time
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, b"elsewhere 1")
    print("held", flush=True)
    time.sleep(60)
""")


def _finish_later(path, lock, then):
    """Write the piece as another process would, then release its lock (``then``)."""
    def finish():
        time.sleep(0.3)
        with open(path, "wb") as fh:
            pickle.dump(("other", {"v": 7}, 1.5), fh)
        then()

    threading.Thread(target=finish).start()


@pytest.mark.skipif(_piece_lock.fcntl is None, reason="flock is POSIX's")
def test_a_live_holder_is_waited_for_and_its_piece_loaded(tmp_path):
    path = _piece(tmp_path)
    path.parent.mkdir(parents=True)
    lock = str(path) + ".lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, lock], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        _finish_later(path, lock, holder.kill)  # killed: the kernel releases its lock
        ctx = Context(scale="paper", out_dir=str(tmp_path), resume=True, lock_poll=0.02)
        calls = []
        assert ctx.memo("a", lambda: calls.append(1) or {"v": 0}) == {"v": 7}
        assert calls == [] and ctx.versions == {"other"} and ctx.kept_seconds == 1.5
        assert not os.path.exists(lock)
    finally:
        holder.kill()
        holder.wait()


def test_without_flock_the_lock_is_the_file_itself(tmp_path, monkeypatch):
    monkeypatch.setattr(_piece_lock, "fcntl", None)
    path = _piece(tmp_path)
    path.parent.mkdir(parents=True)
    lock = str(path) + ".lock"
    with open(lock, "w") as fh:
        fh.write("elsewhere 1")
    _finish_later(path, lock, lambda: os.remove(lock))
    ctx = Context(scale="paper", out_dir=str(tmp_path), resume=True, lock_poll=0.02)
    assert ctx.memo("a", lambda: {"v": 0}) == {"v": 7}
    with piece_lock(str(tmp_path / "p.pkl"), poll=0.01) as waited:
        assert not waited and os.path.exists(str(tmp_path / "p.pkl.lock"))
    assert not os.path.exists(str(tmp_path / "p.pkl.lock"))


@pytest.mark.skipif(_piece_lock.fcntl is None, reason="flock is POSIX's")
def test_a_lock_file_left_by_a_killed_run_does_not_block(tmp_path):
    path = _piece(tmp_path)
    path.parent.mkdir(parents=True)
    lock = str(path) + ".lock"
    with open(lock, "w") as fh:
        fh.write(f"{socket.gethostname()} 1")
    ctx = Context(scale="paper", out_dir=str(tmp_path), resume=True, lock_poll=10.0)
    t0 = time.perf_counter()
    assert ctx.memo("a", lambda: 3) == 3
    assert time.perf_counter() - t0 < 5.0  # not a single poll: nobody holds it
    assert not os.path.exists(lock)


def test_a_failed_piece_releases_its_lock(tmp_path):
    ctx = Context(scale="paper", out_dir=str(tmp_path), resume=True, lock_poll=0.02)
    lock = str(_piece(tmp_path, "b")) + ".lock"

    def boom():
        assert os.path.exists(lock)  # held while computing
        raise FloatingPointError("diverged")

    with pytest.raises(FloatingPointError):
        ctx.memo("b", boom)
    assert not os.path.exists(lock)
    assert ctx.memo("b", lambda: 4) == 4  # and nothing blocks the next try


def test_a_piece_inside_itself_raises_instead_of_waiting_forever(tmp_path):
    ctx = Context(scale="paper", out_dir=str(tmp_path), lock_poll=0.02)
    with pytest.raises(RuntimeError, match="this very process"):
        ctx.memo("a", lambda: ctx.memo("a", lambda: 1))
    assert ctx.memo("a", lambda: 2) == 2  # released on the way out


@pytest.mark.skipif(_piece_lock.fcntl is None, reason="flock is POSIX's")
def test_a_file_system_without_flock_computes_unlocked_with_a_warning(tmp_path, monkeypatch):
    import errno

    def refuse(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(_piece_lock.fcntl, "flock", refuse)
    ctx = Context(scale="paper", out_dir=str(tmp_path), resume=True, lock_poll=0.02)
    with pytest.warns(RuntimeWarning, match="does not support flock"):
        assert ctx.memo("a", lambda: 5) == 5
    assert not os.path.exists(str(_piece(tmp_path)) + ".lock")
    assert ctx.memo("a", lambda: 6) == 5  # kept, loaded
