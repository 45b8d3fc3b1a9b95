"""``jax.debug``: print and call back from inside transformed code.

``debug_print`` and ``debug_callback`` are primitives with no outputs that dead-code elimination
keeps (``ir.effectful``), so a ``jax.debug.print`` inside ``jit`` still prints every time the
compiled function runs, with the runtime values, not the tracers.

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
import io
import logging
import string
import sys
import threading
from contextlib import contextmanager, redirect_stdout
from typing import Any, Callable

import numpy as np

from . import ad, batching, core, ir
from .backends.rows import Special, lowerings
from .core import Array, Primitive
from .parallel import host_calls
from .tree_util import tree_flatten, tree_unflatten

_logger = logging.getLogger("jax._src.debugging")  # (JAX's logger: users' logging configs name it)
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
    printed = _Lines(lines)  # (what a callback prints itself: its stdout is /dev/null here)
    with device_context(device), capture(lambda text, _device: lines.append(text)):
        with redirect_stdout(printed):
            yield lines
    printed.close()


class _Lines(io.TextIOBase):
    """A stdout whose complete lines join ``lines`` in order (a last partial one when closed)."""

    def __init__(self, lines: list[str]):
        self.lines, self.partial = lines, ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        *done, self.partial = (self.partial + text).split("\n")
        self.lines.extend(done)
        return len(text)

    def close(self) -> None:
        if self.partial:
            self.lines.append(self.partial)
            self.partial = ""
        super().close()


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


# --- the effects -------------------------------------------------------------------------------


class DebugEffect:
    """The effect of a ``jax.debug`` callback: it must run although nothing uses its result."""

    def __str__(self):
        return "Debug"


@core.jax_class_path("jax._src.debugging.OrderedDebugEffect")
class OrderedDebugEffect:
    """The effect of an ``ordered=True`` callback: it also runs in program order."""

    def __str__(self):
        return "OrderedDebug"


debug_effect, ordered_debug_effect = DebugEffect(), OrderedDebugEffect()


def refuse_ordered_effects(jaxpr: ir.Jaxpr, devices: int) -> None:
    """JAX compiles no program with ordered debug callbacks (``debug.print(ordered=True)``) for more
    than one device (pmap, or jit over a mesh); ordered io_callbacks it allows."""
    if devices > 1 and _orders_debug_calls(jaxpr):
        raise ValueError(
            f"The following ordered effects are not supported for more than 1 device: [{ordered_debug_effect!r}]"
        )


def _orders_debug_calls(jaxpr: ir.Jaxpr) -> bool:
    for eqn in jaxpr.eqns:
        if eqn.primitive is debug_print_p and eqn.params["ordered"]:
            return True
        if eqn.primitive is debug_callback_p and isinstance(eqn.params["effect"], OrderedDebugEffect):
            return True
        if any(_orders_debug_calls(sub) for sub in ir.subjaxprs(eqn)):
            return True
    return False


# --- the primitives ----------------------------------------------------------------------------
# ``debug_callback`` calls a Python function; ``debug_print`` carries jax.debug.print's format and
# options as parameters (JAX's two primitives, printed with JAX's parameters). Neither has outputs:
# dead-code elimination keeps them (``ir.effectful``), differentiation binds them on the primals
# and transposes them to nothing, vmap unrolls them over the batch, one bind per element (JAX's
# rule, so vmap prints each element in order), and compiled code calls their impl from the host.

debug_callback_p = Primitive("debug_callback", multiple_results=True)
debug_print_p = Primitive("debug_print", multiple_results=True)
# (eagerly, the callback gets the Arrays themselves: a weakly typed one stays weak, as in JAX)
debug_callback_p.takes_arrays = debug_print_p.takes_arrays = True


def _as_arrays(args) -> list:
    """The values a callback gets: Arrays, a Python number weakly typed (as JAX's device_put makes it)."""
    return [a if isinstance(a, Array) else _weak_if_python_number(a) for a in args]


def _eager_operands(vals) -> list:
    """Run eagerly (also inside vmap, grad or jvp), as JAX's device_put makes it, a Python number
    reaches the callback weakly typed; staged (under jit) it is a literal, strong when run."""
    if core._state.dynamic is not None:
        return list(vals)
    return [_weak_if_python_number(x) if type(x) in (int, float, complex) else x for x in vals]


def _weak_if_python_number(x):
    if type(x) in (int, float, complex):
        return Array(np.asarray(x, core.python_scalar_dtype(x)), weak_type=True)
    return x if isinstance(x, Array) else Array(x)


def _call_back(callback: Callable, args) -> None:
    try:
        callback(*_as_arrays(args))
    except BaseException as e:
        _logger.exception("jax.debug.callback failed")  # (JAX logs it, then lets it propagate)
        failed = e
    else:
        return
    # eagerly as raised; from a compiled program (a jit call) as the runtime's error, as in JAX
    if not _in_compiled_program():
        raise failed
    from .callbacks import runtime_error

    raise runtime_error(failed)


def _in_compiled_program() -> bool:
    from .jit import JitFunction
    from .jit_primitive import _jit_impl

    runners = (_jit_impl.__code__, JitFunction.__call__.__code__)  # (the second: its warm-call path)
    frame = sys._getframe(1)
    while frame is not None and frame.f_code not in runners:
        frame = frame.f_back
    return frame is not None


@debug_callback_p.def_impl
def _debug_callback_impl(*args, callback: Callable, effect, partitioned: bool):
    if host_calls.runs_on_host(callback):  # (the host runs it: engine.parallel.host_calls)
        host_calls.call(callback.host_number, "debug_callback", args)
    else:
        _call_back(callback, args)
    return []


@debug_print_p.def_impl
def _debug_print_impl(
    *args, fmt, ordered, partitioned, in_tree, static_args, np_printoptions, has_placeholders, logging_record
):
    def formatted(*vals):
        a, kw = merge_callback_args(in_tree, vals, static_args)
        _format_print(fmt, dict(np_printoptions), has_placeholders, logging_record, a, kw)

    _call_back(formatted, args)
    return []


def _unrolled_batch(primitive: Primitive):
    """JAX's vmap rule for a debug primitive: one bind per batch element, on that element."""
    from .lax import index_in_dim

    def rule(axis_size, vals, dims, **params):
        for i in range(axis_size):
            primitive.bind(
                *[
                    v if d is batching.not_mapped else index_in_dim(v, i, d, keepdims=False)
                    for v, d in zip(vals, dims)
                ],
                **params,
            )
        return [], []

    return rule


for _p in (debug_callback_p, debug_print_p):
    ir.effectful.add(_p)
    _p.def_abstract_eval(lambda *avals, **_: [])
    lowerings[_p] = Special("callback")  # a call back into Python from the host code
    ad.jvp_rules[_p] = lambda primals, tangents, _p=_p, **params: (
        _p.bind(*_eager_operands(primals), **params),
        [],
    )
    ad.transpose_rules[_p] = lambda cts, *args, **params: [None] * len(args)
    batching.batch_rules[_p] = _unrolled_batch(_p)

ir.pp_params_rules[debug_callback_p] = lambda eqn: [
    ("callback", ir.AsJaxPrintsIt(eqn.params["callback"])),
    ("effect", eqn.params["effect"]),
    ("partitioned", eqn.params["partitioned"]),
]


# --- jax.debug.callback ------------------------------------------------------------------------


def _split_callback_args(args, kwargs):
    """The flattened (args, kwargs) tree, the array leaves (operands) and the other leaves by their
    position (baked into the equation, as JAX's static_args)."""
    leaves, in_tree = tree_flatten((args, kwargs))
    static_args, dyn_args = {}, []
    for i, x in enumerate(leaves):
        if core.is_array_like(x) and not isinstance(x, str):
            dyn_args.append(x)
        else:
            static_args[i] = x
    return in_tree, dyn_args, static_args


def merge_callback_args(in_tree, dyn_args, static_args):
    """The (args, kwargs) a callback gets: operands' values with the static leaves put back."""
    static = dict(static_args)
    dyn = iter(dyn_args)
    leaves = [static[i] if i in static else next(dyn) for i in range(len(static) + len(dyn_args))]
    return tree_unflatten(in_tree, leaves)


def debug_callback(
    callback: Callable[..., Any] | None = None,
    *args,
    ordered: bool = False,
    partitioned: bool = False,
    **kwargs,
):
    """Call ``callback(*args, **kwargs)`` with concrete values when the (possibly compiled) code
    runs (or, called with options only, return the function that does:
    ``jax.debug.callback(ordered=True)(fun, x)``).

    >>> jax.debug.callback(lambda x: print(float(x)), 1.5)
    1.5
    """

    def _debug_callback(callback, *c_args, **c_kwargs):
        if not callable(callback):
            raise TypeError(
                "first argument to jax.debug.callback must be callable, "
                f"but got an object of type {type(callback)}"
            )
        in_tree, dyn_args, static_args = _split_callback_args(c_args, c_kwargs)

        def _flat_callback(*dyn_vals):  # (JAX's name: its equations print this function)
            a, kw = merge_callback_args(in_tree, dyn_vals, static_args)
            callback(*a, **kw)
            return ()

        _flat_callback.host_number = host_calls.register(_flat_callback)  # type: ignore[attr-defined]
        effect = ordered_debug_effect if ordered else debug_effect
        dyn_args = _eager_operands(dyn_args)
        debug_callback_p.bind(
            *_eager_operands(dyn_args), callback=_flat_callback, effect=effect, partitioned=partitioned
        )

    if callback is not None:
        _debug_callback(callback, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError(
            f"debug_callback received unexpected arguments in the two-call form: {args=} {kwargs=}"
        )
    return _debug_callback


callback = debug_callback


# --- jax.debug.print and jax.debug.log ---------------------------------------------------------


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


def _log_record() -> logging.LogRecord:
    """An INFO record from the user's line that called ``jax.debug.log`` (made when it is traced)."""
    from .source_info import current_source_info

    where = current_source_info()
    file, line = (where.file, where.line) if where is not None else ("(unknown file)", 0)
    return _logger.makeRecord(_logger.name, logging.INFO, file, line, "", (), None)


def _format_print(fmt: str, np_printoptions: dict, has_placeholders: bool, logging_record, args, kwargs):
    """The text of one print, made with the numpy print options in force where it was traced, then
    printed (tagged with the device running it) or handed to the logger as a copy of the record."""
    if has_placeholders:
        with np.printoptions(**np_printoptions):
            text = fmt.format(*args, **kwargs)
    else:
        text = " ".join((fmt, *(str(x) for x in args)))
    if logging_record is None:
        emit_print(text, current_device())
    else:  # (handled whatever the logger's level, as JAX hands it over)
        sent = copy.copy(logging_record)
        sent.msg = text
        _logger.handle(sent)


def _print(
    fmt: str, args, kwargs, ordered: bool, partitioned: bool, skip_format_check: bool, use_logging: bool
) -> None:
    if not skip_format_check:
        _FormatChecker().format(fmt, *args, **kwargs)
    has_placeholders = bool(fmt) and next(iter(string.Formatter().parse(fmt)))[1] is not None
    in_tree, dyn_args, static_args = _split_callback_args(args, kwargs)
    debug_print_p.bind(
        *_eager_operands(dyn_args),
        fmt=fmt,
        ordered=ordered,
        partitioned=partitioned,
        in_tree=in_tree,
        static_args=tuple(static_args.items()),
        np_printoptions=tuple(np.get_printoptions().items()),
        has_placeholders=has_placeholders,
        logging_record=_log_record() if use_logging else None,
    )


def _print_or_printer(fmt, args, kwargs, ordered, partitioned, skip_format_check, use_logging):
    if fmt is not None:
        _print(fmt, args, kwargs, ordered, partitioned, skip_format_check, use_logging)
        return None
    if args or kwargs:
        raise TypeError(f"debug_print received unexpected arguments in the two-call form: {args=} {kwargs=}")
    return lambda fmt, *a, **kw: _print(fmt, a, kw, ordered, partitioned, skip_format_check, use_logging)


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
    return _print_or_printer(fmt, args, kwargs, ordered, partitioned, skip_format_check, False)


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
    return _print_or_printer(fmt, args, kwargs, ordered, partitioned, skip_format_check, True)


def breakpoint(**kwargs):  # noqa: A001 - JAX's name
    """Enter the debugger when the program reaches this line (``engine.debugger``)."""
    from .debugger import breakpoint as enter

    return enter(**kwargs)


def visualize_array_sharding(arr, **kwargs) -> None:
    """Print which device holds which block of ``arr`` (a 1-D or 2-D array; needs rich, as JAX's)."""
    from .parallel.visualize import visualize_array_sharding as draw

    draw(arr, **kwargs)


def visualize_sharding(shape, sharding, **kwargs) -> None:
    """Print which device holds which block of an array of ``shape`` laid out by ``sharding``
    (1-D or 2-D), as :func:`visualize_array_sharding` does for an array."""
    from .parallel.visualize import visualize_sharding as draw

    draw(shape, sharding, **kwargs)


def inspect_array_sharding(value, *, callback: Callable) -> None:
    """Call ``callback`` with the sharding of each array in the pytree ``value``: now for arrays,
    when a ``jit`` is compiled for values inside it (``engine.inspect_sharding``).

    >>> jax.debug.inspect_array_sharding(jnp.ones(2), callback=print)
    SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
    """
    from .inspect_sharding import inspect_array_sharding as inspect  # (it needs engine.parallel)

    inspect(value, callback=callback)
