"""Events for the debugger: jit, pmap and the transformations report what they did here.

Nothing is recorded unless someone listens (``engine.inspect`` does during a run), so the hot
paths pay one list check.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable

_listeners: list[Callable[[str, dict], None]] = []


def listening() -> bool:
    return bool(_listeners)


def emit(kind: str, **data) -> None:
    for listener in list(_listeners):
        listener(kind, data)


@contextmanager
def listen(callback: Callable[[str, dict], None]):
    """Call ``callback(kind, data)`` for every event while the block runs."""
    _listeners.append(callback)
    try:
        yield
    finally:
        _listeners.remove(callback)
