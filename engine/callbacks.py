"""Host callbacks with results: ``jax.pure_callback`` and ``jax.experimental.io_callback``.

Each is one primitive whose impl calls the user's Python function with the runtime values (engine
Arrays, as JAX hands its callbacks ``jax.Array``s) and checks what it returns against the declared
result shapes and dtypes. A pure callback has no effects, so dead-code elimination drops it when
its results are unused; an IO callback is kept (``ir.effectful``), like ``jax.debug.callback``.
Neither is differentiable (JAX's errors); under ``vmap`` a pure callback follows its
``vmap_method`` and an unordered IO callback runs once per batch element.

  >>> import engine as jax, numpy as np
  >>> def host_sin(x):
  ...     return np.sin(x).astype(x.dtype)
  >>> f = lambda x: jax.pure_callback(host_sin, jax.ShapeDtypeStruct.like(x), x)
  >>> jax.jit(f)(jax.numpy.float32(0.5))
  Array(0.47942555, dtype=float32)
"""

from __future__ import annotations

import dataclasses
import logging
import os
import traceback
import types
from functools import partial
from typing import Any, Callable

import numpy as np

from . import ad, batching, core, ir
from .backends.rows import INTERPRETER_ONLY
from .core import Array, Primitive, ShapedArray
from .errors import JaxRuntimeError
from .parallel import host_calls
from .tree_util import tree_flatten, tree_unflatten

pure_callback_p = Primitive("pure_callback", multiple_results=True)
io_callback_p = Primitive("io_callback", multiple_results=True)
ir.effectful.add(io_callback_p)
for _p in (pure_callback_p, io_callback_p):
    INTERPRETER_ONLY[_p.name] = "a call into the user's Python function: the interpreter's rule"

VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all", "legacy_vectorized")


def _result_avals(result_shape_dtypes) -> tuple[list[ShapedArray], Any]:
    leaves, tree = tree_flatten(result_shape_dtypes)
    return [ShapedArray(tuple(np.shape(x)), core.canonical_dtype(np.dtype(x.dtype))) for x in leaves], tree


@dataclasses.dataclass(frozen=True)
class _FlatCallback:
    """The user's callback on flat arguments, returning its results flat: the ``callback``
    parameter, printed as JAX prints its own (``_FlatCallback(callback_func=..., in_tree=...)``)."""

    callback_func: Callable[..., Any]
    in_tree: Any  # the (args, kwargs) tree of callback_func's arguments
    result_tree: Any = dataclasses.field(default=None, repr=False, compare=False)
    # (its number for the simulated devices, which call it on the host: engine.parallel.host_calls)
    host_number: int = dataclasses.field(default=-1, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "host_number", host_calls.register(self))

    def __call__(self, *vals) -> list:
        args, kwargs = tree_unflatten(self.in_tree, list(vals))
        leaves, tree = tree_flatten(self.callback_func(*args, **kwargs))
        if self.result_tree is not None and tree != self.result_tree:
            raise JaxRuntimeError(
                f"Callback {getattr(self.callback_func, '__name__', self.callback_func)!r} returned a value "
                f"of structure {tree}, but its result_shape_dtypes have structure {self.result_tree}."
            )
        return leaves


def _checked(outs, result_avals) -> list:
    """The callback's results as arrays of the declared shapes and dtypes (JAX reports a mismatch
    when the callback runs, as a JaxRuntimeError)."""
    results = []
    for i, (x, aval) in enumerate(zip(outs, result_avals)):
        a = np.asarray(x)
        if a.shape != aval.shape:
            raise JaxRuntimeError(
                f"Incorrect output shape for return value #{i}: Expected: {aval.shape}, Actual: {a.shape}"
            )
        if core.canonical_dtype(a.dtype) != aval.dtype:
            raise JaxRuntimeError(
                f"Incorrect output dtype for return value #{i}: Expected: {aval.dtype}, Actual: {a.dtype}"
            )
        results.append(Array(a.astype(aval.dtype, copy=False)))
    return results


def _bind_callback(p, callback, result_shape_dtypes, args, kwargs, **params):
    from . import numpy as jnp

    leaves, in_tree = tree_flatten((args, kwargs))
    leaves = [x if isinstance(x, core.Tracer) else jnp.asarray(x) for x in leaves]
    avals, result_tree = _result_avals(result_shape_dtypes)
    flat = _FlatCallback(callback, in_tree, result_tree)
    outs = p.bind(*leaves, callback=flat, result_avals=tuple(avals), **params)
    return tree_unflatten(result_tree, list(outs))


def pure_callback(
    callback: Callable, result_shape_dtypes, *args, sharding=None, vmap_method: str | None = None, **kwargs
):
    """Call a side-effect-free Python ``callback`` on runtime values inside traced code.

    ``result_shape_dtypes`` is a pytree of ``jax.ShapeDtypeStruct`` (or arrays) describing what
    ``callback`` returns. ``vmap_method`` says how ``vmap`` calls it: ``'sequential'`` once per
    element, ``'expand_dims'`` once with a leading batch axis (size 1 on unbatched arguments),
    ``'broadcast_all'`` once with every argument broadcast to the batch.

    >>> jax.pure_callback(lambda x: x * 2, jax.ShapeDtypeStruct((), jnp.float32), 1.5)
    Array(3., dtype=float32)
    """
    if vmap_method is not None and vmap_method not in VMAP_METHODS:
        raise ValueError(f"vmap_method must be one of {VMAP_METHODS} or None, got {vmap_method!r}")
    return _bind_callback(
        pure_callback_p,
        callback,
        result_shape_dtypes,
        args,
        kwargs,
        sharding=sharding,
        vmap_method=vmap_method,
    )


def io_callback(
    callback: Callable, result_shape_dtypes, *args, sharding=None, ordered: bool = False, **kwargs
):
    """Call a Python ``callback`` with side effects (printing, a host RNG, I/O) inside traced code.

    Unlike :func:`pure_callback` it is never dropped when its results are unused; ``ordered=True``
    keeps calls in program order (and cannot be vmapped).

    >>> from engine.experimental import io_callback  # jax.experimental under compat
    >>> io_callback(lambda: print("hi"), None)
    hi
    """
    return _bind_callback(
        io_callback_p, callback, result_shape_dtypes, args, kwargs, sharding=sharding, ordered=bool(ordered)
    )


def _raised_in(tb: types.TracebackType, directory: str) -> bool:
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename.startswith(directory)


_ENGINE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_logger = logging.getLogger("jax._src.callback")  # (JAX's logger, which reports failed callbacks)


def _impl(p, *args, callback, result_avals, **_):
    if host_calls.runs_on_host(callback):  # (a simulated device: the host runs it, as JAX's host does)
        return _checked(host_calls.call(callback.host_number, p.name, args), result_avals)
    return _checked(host_run(callback, p.name, args), result_avals)


def host_run(callback, name: str, args) -> list:
    """The callback's flat results; what it raised, as XLA's runtime reports it."""
    try:
        return callback(*[a if isinstance(a, Array) else Array(np.asarray(a)) for a in args])
    except BaseException as e:
        _logger.exception(f"jax.{name} failed")  # (JAX logs it, then lets it propagate)
        failed = e
    raise runtime_error(failed)  # (JAX runs these callbacks in compiled code even eagerly)


def runtime_error(e: BaseException) -> BaseException:
    """What XLA's CPU runtime raises when a host callback raised ``e``: JAX's runtime error, whose
    message is the Python traceback (frames without their source lines) from the outermost caller.
    ``e`` itself when it is no Exception (KeyboardInterrupt) or the engine's refusal (breakpoint)."""
    if not isinstance(e, Exception) or e.__traceback__ is None:
        return e
    if isinstance(e, NotImplementedError) and _raised_in(e.__traceback__, _ENGINE_DIR):
        return e
    frames = traceback.extract_stack(e.__traceback__.tb_frame.f_back) + traceback.extract_tb(e.__traceback__)
    where = "".join(f'  File "{f.filename}", line {f.lineno}, in {f.name}\n' for f in frames)
    what = "".join(traceback.format_exception_only(e)).rstrip("\n")
    return JaxRuntimeError(
        f"INTERNAL: CpuCallback error calling callback: Traceback (most recent call last):\n{where}{what}"
    )


for _p in (pure_callback_p, io_callback_p):
    _p.def_impl(partial(_impl, _p))
    _p.def_abstract_eval(lambda *avals, result_avals, **_: list(result_avals))


def _no_jvp(message):
    def rule(primals, tangents, **params):
        raise ValueError(message)

    return rule


ad.jvp_rules[pure_callback_p] = _no_jvp(
    "Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while taking gradients."
)
ad.jvp_rules[io_callback_p] = _no_jvp("IO callbacks do not support JVP.")


def _batched_avals(axis_size, result_avals):
    return tuple(ShapedArray((axis_size, *a.shape), a.dtype) for a in result_avals)


def _sequential(p, vals, dims, params, unroll: int | bool = 1):
    """JAX's sequential rule: a scan over the batched operands (moved to the front), one call per
    element, results stacked along a new leading axis."""
    from . import lax

    which = [d is not batching.not_mapped for d in dims]
    batched = [batching.moveaxis(v, d, 0) for v, d, b in zip(vals, dims, which) if b]

    def one(_, xs):
        it = iter(xs)
        return (), p.bind(*[next(it) if b else v for v, b in zip(vals, which)], **params)

    _, outs = lax.scan(one, (), batched, unroll=unroll)
    return list(outs), [0] * len(params["result_avals"])


def _pure_callback_batch(axis_size, vals, dims, *, vmap_method, result_avals, **params):
    params = {**params, "result_avals": result_avals, "vmap_method": vmap_method}
    if vmap_method in ("sequential", "sequential_unrolled"):
        return _sequential(pure_callback_p, vals, dims, params, unroll=vmap_method == "sequential_unrolled")
    if vmap_method not in ("expand_dims", "broadcast_all", "legacy_vectorized"):
        raise NotImplementedError(
            "vmap is only supported for the pure_callback primitive when vmap_method is one of "
            "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            f"'legacy_vectorized'. Got vmap_method={vmap_method!r}."
        )
    from . import lax

    moved = []
    for v, d in zip(vals, dims):
        if d is not batching.not_mapped:
            moved.append(batching.moveaxis(v, d, 0))
        elif vmap_method == "legacy_vectorized":
            moved.append(v)
        else:  # (JAX's lax.broadcast: a size-1 or full batch axis in front)
            moved.append(lax.broadcast(v, (axis_size if vmap_method == "broadcast_all" else 1,)))
    params["result_avals"] = _batched_avals(axis_size, result_avals)
    outs = pure_callback_p.bind(*moved, **params)
    return list(outs), [0] * len(result_avals)


def _io_callback_batch(axis_size, vals, dims, *, ordered, **params):
    """JAX's rule: an unordered IO callback is mapped over the batch (``lax.map``, a scan)."""
    if ordered:
        raise ValueError("Cannot `vmap` ordered IO callback.")
    return _sequential(io_callback_p, vals, dims, {**params, "ordered": False})


batching.batch_rules[pure_callback_p] = _pure_callback_batch
batching.batch_rules[io_callback_p] = _io_callback_batch
