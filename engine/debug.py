"""``jax.debug``: print and call back from inside transformed code.

``debug_callback`` is a primitive with no outputs that dead-code elimination keeps
(``ir.effectful``), so a ``jax.debug.print`` inside ``jit`` still prints every time the compiled
function runs, with the runtime values, not the tracers.

  >>> import engine as jax
  >>> @jax.jit
  ... def f(x):
  ...     jax.debug.print("x = {}", x)
  ...     return x * 2
  >>> f(3.0)
  x = 3.0
  Array(6., dtype=float32, weak_type=True)

Where the text goes: ``sys.stdout``, unless a sink is installed (``engine.inspect`` installs one to
tag each line with the device that printed it). Under ``pmap`` each device sets its id with
:func:`device_context`, and the line is tagged with it.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable

import numpy as np

from . import ad, batching, core, ir
from .backends.rows import Special, lowerings
from .core import Array, Primitive
from .tree_util import tree_flatten, tree_unflatten

debug_callback_p = Primitive("debug_callback", multiple_results=True)
ir.effectful.add(debug_callback_p)

_local = threading.local()
_sinks: list[Callable[[str, int | None], None]] = []


def current_device() -> int | None:
    """The device id of the code running now (set by pmap), or None outside pmap."""
    return getattr(_local, "device", None)


@contextmanager
def device_context(device: int | None):
    """Tag prints made inside the block with ``device`` (pmap calls this per device)."""
    prev = current_device()
    _local.device = device
    try:
        yield
    finally:
        _local.device = prev


@contextmanager
def capture(sink: Callable[[str, int | None], None]):
    """Send ``jax.debug.print`` lines to ``sink(text, device)`` instead of stdout while the block runs."""
    _sinks.append(sink)
    try:
        yield
    finally:
        _sinks.remove(sink)


@contextmanager
def device_prints(device: int):
    """In a device process: collect the lines printed while the block runs, tagged ``device``.

    The host hands the collected lists to :func:`replay_device_prints`; lines then reach the
    host's sink (the report) or stdout, device by device, so the order does not depend on which
    device finished first.
    """
    lines: list[str] = []
    with device_context(device), capture(lambda text, _device: lines.append(text)):
        yield lines


def replay_device_prints(prints_by_device: dict[int, list[str]]) -> None:
    for device in sorted(prints_by_device):
        for text in prints_by_device[device]:
            emit_print(text, device)


def emit_print(text: str, device: int | None = None) -> None:
    """Deliver one printed line; pmap's parent calls this for lines its device workers printed."""
    if _sinks:
        _sinks[-1](text, device)
    else:
        sys.stdout.write(text + "\n")


# --- the primitive -----------------------------------------------------------------------------


@debug_callback_p.def_impl
def _debug_callback_impl(*args, callback: Callable, **_):
    callback(*[Array(a) if isinstance(a, np.ndarray) else a for a in args])
    return []


debug_callback_p.def_abstract_eval(lambda *avals, **_: [])
lowerings[debug_callback_p] = Special("callback")  # a call back into Python from the host code


def _debug_callback_jvp(primals, tangents, **params):
    debug_callback_p.bind(*primals, **params)
    return [], []


ad.jvp_rules[debug_callback_p] = _debug_callback_jvp
ad.transpose_rules[debug_callback_p] = lambda cts, *args, **params: [None] * len(args)


def _debug_callback_batch(axis_size, vals, dims, *, callback: Callable, **params):
    """Like JAX: under vmap the callback runs once per batch element, in order."""

    def per_element(*arrays):
        for i in range(axis_size):
            callback(
                *[
                    a if d is batching.not_mapped else Array(np.take(np.asarray(a), i, axis=d))
                    for a, d in zip(arrays, dims)
                ]
            )

    debug_callback_p.bind(*vals, callback=per_element, **params)
    return [], []


batching.batch_rules[debug_callback_p] = _debug_callback_batch


def callback(fun: Callable[..., Any], *args, ordered: bool = False, **kwargs) -> None:
    """Call ``fun(*args, **kwargs)`` with concrete values when the (possibly compiled) code runs.

    >>> jax.debug.callback(lambda x: print(float(x)), 1.5)
    1.5
    """
    leaves, tree = tree_flatten((args, kwargs))
    is_array = [core.is_array_like(x) and not isinstance(x, str) for x in leaves]
    arrays = [x for x, a in zip(leaves, is_array) if a]

    def run(*vals):
        it = iter(vals)
        full = [next(it) if a else x for x, a in zip(leaves, is_array)]
        a, kw = tree_unflatten(tree, full)
        fun(*a, **kw)

    run.__name__ = getattr(fun, "__name__", "callback")
    debug_callback_p.bind(*arrays, callback=run, ordered=bool(ordered))


def print(fmt: str, *args, ordered: bool = False, **kwargs) -> None:  # noqa: A001 - JAX's name
    """Format ``fmt`` with the runtime values of ``args``/``kwargs`` and print it.

    >>> jax.debug.print("{x} and {}", 1.0, x=2)
    2 and 1.0
    """

    def formatted(*a, **kw):
        emit_print(fmt.format(*a, **kw), current_device())

    formatted.__name__ = "print"
    callback(formatted, *args, ordered=ordered, **kwargs)


def breakpoint(*_, **__):  # noqa: A001
    raise NotImplementedError(
        "jax.debug.breakpoint is not available in the playground; "
        "use jax.debug.print, or the debugger pane's per-equation values."
    )


def visualize_array_sharding(arr, **kwargs) -> None:
    """Print which device holds which block of ``arr`` (a 1-D or 2-D array)."""
    from .parallel.visualize import visualize_array_sharding as draw

    draw(arr, **kwargs)


def visualize_sharding(shape, sharding, **kwargs) -> None:
    """Print which device holds which block of an array of ``shape`` laid out by ``sharding``
    (1-D or 2-D), as :func:`visualize_array_sharding` does for an array."""
    import sys

    from .parallel.visualize import sharding_diagram

    sys.stdout.write(sharding_diagram(tuple(shape), sharding) + "\n")
