"""Events for the debugger: jit, pmap and the transformations report what they did here.

Nothing is recorded unless someone listens (``engine.inspect`` does during a run), so the hot
paths pay one list check.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Callable

_listeners: list[Callable[[str, dict], None]] = []
_profiling = [False]  # jit programs compiled meanwhile time each kernel launch
_quiet = threading.local()  # .on: this thread's work is nobody's call (background compiles)


def listening() -> bool:
    return bool(_listeners) and not getattr(_quiet, "on", False)


def emit(kind: str, **data) -> None:
    if getattr(_quiet, "on", False):
        return
    for listener in list(_listeners):
        listener(kind, data)


@contextmanager
def quiet():
    """Events of this thread are not emitted while the block runs (a background compile reports
    through its job, when a call looks at it, not into whichever call happens to be recorded)."""
    _quiet.on = True
    try:
        yield
    finally:
        _quiet.on = False


@contextmanager
def listen(callback: Callable[[str, dict], None]):
    """Call ``callback(kind, data)`` for every event while the block runs."""
    _listeners.append(callback)
    try:
        yield
    finally:
        _listeners.remove(callback)


def kernel_profiling() -> bool:
    return _profiling[0]


@contextmanager
def profile_kernels():
    """Programs jit compiles while the block runs time each kernel launch (a few hundred ns per
    launch): their executables carry ``launch_seconds``/``launch_counts``/``launch_min`` beside
    ``launches``."""
    before = _profiling[0]
    _profiling[0] = True
    try:
        yield
    finally:
        _profiling[0] = before
