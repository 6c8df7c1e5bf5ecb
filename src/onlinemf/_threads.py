"""BLAS thread limits for the online learning calls."""

from __future__ import annotations

import functools

from threadpoolctl import ThreadpoolController

__all__ = ["one_blas_thread"]


@functools.cache
def _blas_controller() -> ThreadpoolController:
    """One controller per process, made at first use (making one is far costlier than
    applying a limit with it)."""
    return ThreadpoolController()


def one_blas_thread(method):
    """Run ``method`` with one BLAS thread: for the online learning calls, whose products are
    mini-batch sized: on an idle machine one thread is as fast or faster at those sizes (the
    ``scale`` benchmark's K and F), and beside busy processes more threads spin on busy cores
    and take much longer. Calls that code a whole data set at once
    (``transform``, ``score``) keep the process's setting."""

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        with _blas_controller().limit(limits=1, user_api="blas"):
            return method(*args, **kwargs)

    return wrapper
