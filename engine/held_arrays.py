"""Arrays the user holds, as a staging trace tells them from the ones the engine makes.

A function closing over a ``jax.Array`` made before tracing (``c = jnp.array(2.0)``) gets it as a
constvar of its jaxpr, scalar or not, keeping its weak type, where numpy scalars, 0-d numpy arrays
and Python scalars become literals (JAX 0.10.2's ``is_literalable``: a jax.Array is never one).
The engine turns those numpy and Python scalars into Arrays itself while tracing, so an Array
records at birth whether a staging trace (make_jaxpr, jit) was running: one made outside is held.
"""

from __future__ import annotations

import threading
from typing import Any
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_tracing = threading.local()  # .depth: how many staging traces now run on this thread


def tracing() -> bool:
    return bool(getattr(_tracing, "depth", 0))


@contextmanager
def staging_trace() -> Iterator[None]:
    depth = getattr(_tracing, "depth", 0)
    _tracing.depth = depth + 1
    if not depth:
        _tracing.copies = {}
    try:
        yield
    finally:
        _tracing.depth = depth
        if not depth:
            _tracing.copies = {}


def trace_copy(x: Any, make: Callable[[Any], Any]) -> Any:
    """``make(x)``, made once for a caller's numpy array ``x`` throughout the outermost staging
    trace: the nested traces of loop bodies and jnp's jitted helpers then hold one constant of it,
    which their caller's trace keeps one constvar of, as JAX's trace keys a numpy constant by its
    identity."""
    copies = getattr(_tracing, "copies", None)
    if copies is None:
        return make(x)
    hit = copies.get(id(x))
    if hit is None or hit[0] is not x:  # (x is kept in the entry, so that its id names only it)
        hit = copies[id(x)] = (x, make(x))
    return hit[1]


def held(x: object) -> bool:
    """``x`` is an Array made while no staging trace ran: JAX's trace makes it a constvar."""
    return getattr(x, "held", False) is True


@contextmanager
def outside_traces() -> Iterator[None]:
    """Arrays made inside are held, as if no trace ran (``jax.ensure_compile_time_eval``: what it
    computes are jax.Arrays, which the trace around keeps as constvars); the traces' shared numpy
    constants are kept for after."""
    depth, copies = getattr(_tracing, "depth", 0), getattr(_tracing, "copies", None)
    _tracing.depth = 0
    try:
        yield
    finally:
        _tracing.depth, _tracing.copies = depth, copies
