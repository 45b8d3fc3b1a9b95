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

import copy
import logging
import string
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


class _FormatChecker(string.Formatter):
    """Formats nothing; says which arguments the format string leaves unused (JAX's check)."""

    def format_field(self, value, format_spec):
        return ""

    def check_unused_args(self, used_args, args, kwargs):
        unused_args = [arg for i, arg in enumerate(args) if i not in used_args]
        unused_kwargs = [k for k in kwargs if k not in used_args]
        if unused_args:
            raise ValueError(f"Unused positional arguments to `jax.debug.print`: {unused_args}")
        if unused_kwargs:
            raise ValueError(
                f"Unused keyword arguments to `jax.debug.print`: {unused_kwargs}. "
                'You may be passing an f-string (i.e, `f"{x}"`) into '
                "`jax.debug.print` and instead should pass in a regular string."
            )


_logger = logging.getLogger("jax._src.debugging")  # (JAX's logger: users' logging configs name it)


def _log_record() -> logging.LogRecord:
    """An INFO record from the user's line that called ``jax.debug.log`` (made when it is traced)."""
    from .source_info import current_source_info

    where = current_source_info()
    file, line = (where.file, where.line) if where is not None else ("(unknown file)", 0)
    return _logger.makeRecord(_logger.name, logging.INFO, file, line, "", (), None)


def _print(fmt: str, args, kwargs, ordered: bool, skip_format_check: bool, use_logging: bool) -> None:
    if not skip_format_check:
        _FormatChecker().format(fmt, *args, **kwargs)
    has_placeholders = bool(fmt) and next(iter(string.Formatter().parse(fmt)))[1] is not None
    record = _log_record() if use_logging else None

    def formatted(*a, **kw):
        text = fmt.format(*a, **kw) if has_placeholders else " ".join((fmt, *(str(x) for x in a)))
        if record is None:
            emit_print(text, current_device())
        else:  # (handled whatever the logger's level, as JAX hands it over)
            sent = copy.copy(record)
            sent.msg = text
            _logger.handle(sent)

    formatted.__name__ = "log" if use_logging else "print"
    callback(formatted, *args, ordered=ordered, **kwargs)


def _print_or_printer(fmt, args, kwargs, ordered, skip_format_check, use_logging):
    if fmt is not None:
        _print(fmt, args, kwargs, ordered, skip_format_check, use_logging)
        return None
    if args or kwargs:
        what = "debug_print"
        raise TypeError(f"{what} received unexpected arguments in the two-call form: {args=} {kwargs=}")
    return lambda fmt, *a, **kw: _print(fmt, a, kw, ordered, skip_format_check, use_logging)


def print(  # noqa: A001 - JAX's name
    fmt: str | None = None,
    *args,
    ordered: bool = False,
    partitioned: bool = False,
    skip_format_check: bool = False,
    **kwargs,
):
    """Format ``fmt`` with the runtime values of ``args``/``kwargs`` and print it (or, called with
    options only, return the printing function: ``jax.debug.print(ordered=True)("{x}", x=x)``).

    >>> jax.debug.print("{x} and {}", 1.0, x=2)
    2 and 1.0
    """
    return _print_or_printer(fmt, args, kwargs, ordered, skip_format_check, False)


def log(
    fmt: str | None = None,
    *args,
    ordered: bool = False,
    partitioned: bool = False,
    skip_format_check: bool = False,
    **kwargs,
):
    """``jax.debug.print``, but the text goes to the ``jax._src.debugging`` logger as an INFO
    record from the line that called it (``logging`` decides where it shows).

    >>> import logging, sys
    >>> handler = logging.StreamHandler(sys.stdout)
    >>> logging.getLogger("jax._src.debugging").addHandler(handler)
    >>> jax.debug.log("x = {}", 1.5)
    x = 1.5
    >>> logging.getLogger("jax._src.debugging").removeHandler(handler)
    """
    return _print_or_printer(fmt, args, kwargs, ordered, skip_format_check, True)


class DebugEffect:
    """The effect of a ``jax.debug`` callback: it must run although nothing uses its result."""

    def __str__(self):
        return "Debug"


class OrderedDebugEffect:
    """The effect of an ``ordered=True`` callback: it also runs in program order."""

    def __str__(self):
        return "OrderedDebug"


debug_effect, ordered_debug_effect = DebugEffect(), OrderedDebugEffect()


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


def inspect_array_sharding(value, *, callback: Callable) -> None:
    """Call ``callback`` with the sharding of each array in the pytree ``value``: now for arrays,
    when a ``jit`` is compiled for values inside it (``engine.inspect_sharding``).

    >>> jax.debug.inspect_array_sharding(jnp.ones(2), callback=print)
    SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
    """
    from .inspect_sharding import inspect_array_sharding as inspect  # (it needs engine.parallel)

    inspect(value, callback=callback)
