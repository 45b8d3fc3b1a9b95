"""Arrays the user holds, as a staging trace tells them from the ones the engine makes.

A function closing over a ``jax.Array`` made before tracing (``c = jnp.array(2.0)``) gets it as a
constvar of its jaxpr, scalar or not, keeping its weak type, where numpy scalars, 0-d numpy arrays
and Python scalars become literals (JAX 0.10.2's ``is_literalable``: a jax.Array is never one).
The engine turns those numpy and Python scalars into Arrays itself while tracing, so an Array
records at birth whether a staging trace (make_jaxpr, jit) was running: one made outside is held.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_tracing = threading.local()  # .depth: how many staging traces now run on this thread


def tracing() -> bool:
    return bool(getattr(_tracing, "depth", 0))


@contextmanager
def staging_trace() -> Iterator[None]:
    depth = getattr(_tracing, "depth", 0)
    _tracing.depth = depth + 1
    try:
        yield
    finally:
        _tracing.depth = depth


def held(x: object) -> bool:
    """``x`` is an Array made while no staging trace ran: JAX's trace makes it a constvar."""
    return getattr(x, "held", False) is True
