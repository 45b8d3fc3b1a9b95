"""jnp functions that JAX defines under ``jax.jit``: staged, each prints as a nested ``jit[name=...]``.

JAX users see ``jnp.where`` as ``jit[name=_where jaxpr={...}]`` in their jaxprs; so do ours. Only
while this thread stages (``make_jaxpr``, ``jit``), then even on constant arguments, as JAX's jit
stages them (``jnp.linspace(0.0, 1.0, 3)`` shows its ``_linspace``): eager calls run the function
directly, so eager speed is unchanged. Under ``jit`` the nested equation is inlined
by the backend, so compiled code is unchanged too. Eagerly differentiated (or batched), such a
function is called as the jit it is in JAX: JAX transforms the jit and XLA compiles its whole
JVP and transpose, fusing across its operations (``_transformed_as_one_program``).
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from .. import core, transfers
from ..fused_rules import call as jitted_body
from ..jitted_tangents import typed_as_primals


def staged_as_jit(fn=None, *, name=None, static_argnames=(), eager=None):
    """Decorate a jnp helper that JAX decorates with ``jax.jit``; the jit is named ``name`` (default:
    the function's name). ``eager(*args, **kwargs)``: the result of an eager call for the common
    case (concrete operands, nothing staging), or None (the paths below): the same operations the
    body runs there, without this wrapper's bookkeeping (tests/test_eager_fast_paths.py keeps each
    one to the general path's bits)."""
    if fn is None:
        return functools.partial(staged_as_jit, name=name, static_argnames=static_argnames, eager=eager)
    jitted = []
    if name is not None:
        fn.__name__ = name
    static_positions: list = []  # (name, position) of each static parameter, found on first call

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if eager is not None and not core.staging_anywhere[0] and not transfers.active[0]:
            out = eager(*args, **kwargs)
            if out is not None:
                return out
        if not core.staging_anywhere[0] and not kwargs and not static_argnames:
            for a in args:  # (concrete arrays, floats, Nones: what the checks below come to for them)
                if type(a) is not core.Array and type(a) is not float and a is not None:
                    break
            else:
                if _as_compiled(fn, jitted, static_argnames, args, kwargs):
                    return _jit_of(fn, jitted, static_argnames)(*args)
                return fn(*args)
        if not core.staging_anywhere[0] or core._state.dynamic is None:
            if static_argnames:  # (JAX's jit hashes them even on an eager call)
                _check_statics(fn, static_argnames, static_positions, args, kwargs)
            for a in args:  # (operands committed to different devices: refused as JAX's jit refuses them)
                if type(a) is not core.Array and isinstance(a, core.Array):
                    _check_devices(fn, args)
                    break
            for a in (*args, *kwargs.values()):
                if type(a) is int and not _INT_RANGE[0] <= a <= _INT_RANGE[1]:
                    _check_int_arguments(fn, static_argnames, args, kwargs)
            if transfers.active[0]:  # a jit call: its arguments are transferred, its constants not
                return transfers.call_jitted(fn, args, kwargs, static_argnames)
            args = typed_as_primals(args)
            if _transformed_as_one_program(args) and _fuses_across(fn, jitted, static_argnames, args, kwargs):
                return _jit_of(fn, jitted, static_argnames)(*args, **kwargs)
            if _as_compiled(fn, jitted, static_argnames, args, kwargs):
                return _jit_of(fn, jitted, static_argnames)(*args, **kwargs)
            return _body(fn, args, kwargs)
        _jit_of(fn, jitted, static_argnames)
        if static_argnames:  # static arguments by name, however they were passed
            sig = _signature(fn)
            bound = sig.bind(*args, **kwargs).arguments
            by_keyword = set(kwargs)  # (as JAX's jit: an argument passed by keyword stays a keyword)
            args, kwargs, positional = [], {}, True
            order = list(sig.parameters)
            for name, value in bound.items():
                kind = sig.parameters[name].kind
                # (positional up to the first static or left-out parameter: one after a gap would
                # land in the gap's place)
                positional = positional and name not in static_argnames and name not in by_keyword
                positional = positional and (
                    kind is inspect.Parameter.VAR_POSITIONAL
                    or (kind is not inspect.Parameter.KEYWORD_ONLY and order.index(name) == len(args))
                )
                if kind is inspect.Parameter.VAR_POSITIONAL:
                    args.extend(value)
                elif kind is inspect.Parameter.VAR_KEYWORD:
                    kwargs.update(value)
                elif positional:
                    args.append(value)
                else:
                    kwargs[name] = value
        return jitted[0](*args, **kwargs)

    return wrapper


EAGER_AS_COMPILED = [True]
_rounding: dict = {}  # (function, operand types, statics) -> whether its compiled form rounds otherwise


def _as_compiled(fn, jitted: list, static_argnames, args, kwargs) -> bool:
    """Whether an eager call on concrete operands runs as the jit it is in JAX: where XLA's
    compile contracts a multiply-add or a sum of products into one rounding
    (``random.uniform(key, minval=a, maxval=b)`` is ``fma(u, b - a, a)``, ``jnp.var`` sums its
    squares fused), else the body runs operation by operation (``jnp.clip``), which gives the
    same values sooner."""
    from ..batching import BatchTracer

    # (batched too: vmap of a jit is the jit batched, so a loop of eager calls and vmap agree)
    if not EAGER_AS_COMPILED[0] or any(
        isinstance(a, core.Tracer) and type(a) is not BatchTracer for a in args
    ):
        return False
    types = [_type_of(a) for a in args]
    try:  # (the program depends on operands' types, not on their values)
        key = (fn, *types, *sorted(kwargs.items()))
        found = _rounding.get(key)
    except TypeError:  # (an unhashable operand: decided each call)
        key, found = None, None
    if found is None:
        try:  # (a batched operand's stand-in: zeros of one example's type)
            stand_ins = [_stand_in(t) if isinstance(a, core.Tracer) else a for a, t in zip(args, types)]
        except TypeError:  # (an operand of another type batched: the body, as before)
            return False
        found = _rounds_when_compiled(fn, jitted, static_argnames, stand_ins, kwargs)
        if key is not None and len(_rounding) < 4096:
            _rounding[key] = found
    return found


def _type_of(a):
    """What of an operand the decision depends on: an array's (or tracer's) aval, a float's type,
    anything else itself (ints may be axes: by value)."""
    if type(a) is core.Array or isinstance(a, (core.Array, core.Tracer)):
        return a.aval
    if isinstance(a, (np.ndarray, np.generic)):
        return (a.shape, a.dtype)
    return type(a) if type(a) in (float, complex) else a


def _stand_in(aval):
    """A concrete operand of one example's type, to trace the program a batched call runs."""
    from .. import random_keys

    if random_keys.is_key_aval(aval):
        return random_keys.PRNGKeyArray(np.zeros(aval.shape, aval.dtype.numpy_dtype))
    return core.Array(np.zeros(aval.shape, aval.dtype), aval.weak_type)


def _rounds_when_compiled(fn, jitted: list, static_argnames, args, kwargs) -> bool:
    from ..backends.flat_program import FlatProgram
    from ..backends.multiply_add import fma_p, fma_sum_p
    from ..jit_runtime import compiled_form

    try:
        closed = _jit_of(fn, jitted, static_argnames).trace(*args, **kwargs).jaxpr
    except Exception:  # noqa: BLE001 - (then as before: the body)
        return False
    if _computing(closed.jaxpr) < 2:
        return False
    # (the simplifier's rewrites alone do not count: eager operations make those that change
    # values already, ``x / c`` as ``x * fl(1/c)``; multiply-adds they cannot make)
    return any(e.primitive in (fma_p, fma_sum_p) for e in FlatProgram(compiled_form(closed)).eqns)


def _body(fn, args, kwargs):
    """An eager call of a function JAX jits: on traced operands, its AD rules round as compiled."""
    for a in args:
        if isinstance(a, core.Tracer):
            return jitted_body(fn, *args, **kwargs)
    return fn(*args, **kwargs)


def _jit_of(fn, jitted: list, static_argnames):
    if not jitted:
        from ..jit import jit

        jitted.append(jit(fn, static_argnames=static_argnames))
    return jitted[0]


# Primitives that move or select values: a body of these and at most one operation that computes
# has nothing to fuse across operations (``jnp.where``), and is called directly, as before.
_MOVING = frozenset(
    {
        "broadcast_in_dim", "reshape", "select_n", "convert_element_type", "squeeze", "expand_dims",
        "transpose", "slice", "concatenate", "pad", "gather", "dynamic_slice", "dynamic_update_slice",
        "iota", "eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not", "copy", "stop_gradient", "rev",
    }
)  # fmt: skip
_fusing: dict = {}  # function -> whether its body computes with two operations or more


def _fuses_across(fn, jitted: list, static_argnames, args, kwargs) -> bool:
    found = _fusing.get(fn)
    if found is None:
        try:
            jaxpr = _jit_of(fn, jitted, static_argnames).trace(*args, **kwargs).jaxpr
        except Exception:  # noqa: BLE001 - (then as before: the body, its rules compiled one by one)
            return False
        found = _fusing[fn] = _computing(jaxpr.jaxpr) > 1
    return found


def _computing(jaxpr) -> int:
    """How many operations of ``jaxpr`` (nested calls' included) compute values."""
    from ..ir import subjaxprs

    count = 0
    for eqn in jaxpr.eqns:
        inner = list(subjaxprs(eqn))
        if inner:
            count += sum(_computing(j) for j in inner)
        elif eqn.primitive.name not in _MOVING:
            count += 1
    return count


def _transformed_as_one_program(args) -> bool:
    """Whether an eager call on differentiated operands runs as JAX's: its jit transformed and
    compiled whole, so XLA fuses across the function's operations (the eager
    gradient of ``jax.nn.log_softmax`` rounds as its jitted gradient). Only under the traces
    whose rules ``fused_rules`` would compile one by one; others see the body, as before."""
    from ..batching import BatchTracer

    for a in args:  # (batched alone, the body: an eager loop over examples must give vmap's bits)
        if isinstance(a, core.Tracer) and not isinstance(a, BatchTracer):
            from ..fused_rules import applies

            return applies(True) is not None
    return False


def _check_statics(fn, static_argnames, positions: list, args, kwargs) -> None:
    from ..errors import check_static_hashable

    if not positions:
        order = list(_signature(fn).parameters)
        positions.extend((n, order.index(n)) for n in static_argnames if n in order)
    for name, position in positions:
        if name in kwargs:
            check_static_hashable(kwargs[name])
        elif position < len(args):
            check_static_hashable(args[position])


_INT_RANGE = [-(2**31), 2**31 - 1]  # the default int's range (int64's under x64)


def _on_x64(on: bool) -> None:
    _INT_RANGE[:] = [-(2**63), 2**63 - 1] if on else [-(2**31), 2**31 - 1]


core.x64_listeners.append(_on_x64)


def _check_int_arguments(fn, static_argnames, args, kwargs) -> None:
    """JAX's jit parses a Python int argument as the default int type, so one outside its range
    raises OverflowError, even where the function would have converted it to a wider dtype
    (``random.randint(key, (4,), 0, 2**32 - 1, "uint32")``). Static arguments are not parsed."""
    for name, value in _signature(fn).bind(*args, **kwargs).arguments.items():
        if name not in static_argnames:
            check_int_argument(name, value)


def check_int_argument(path: str, value) -> None:
    """JAX's OverflowError for a Python int its jit parses (as the default int) that does not fit."""
    if type(value) is int and not _INT_RANGE[0] <= value <= _INT_RANGE[1]:
        raise OverflowError(
            "An overflow was encountered while parsing an argument to a jitted computation, whose "
            f"argument path is {path}. Got <class 'int'> with value {value}"
        )


def _check_devices(fn, args) -> None:
    from ._ufunc_dispatch import check_committed

    names = [
        p.name for p in _signature(fn).parameters.values() if p.kind is not inspect.Parameter.VAR_POSITIONAL
    ]
    positional = names[: len(args)] + [f"args[{i}]" for i in range(len(names), len(args))]
    check_committed(fn.__name__, tuple(positional), *args)


def jitted_inline(fn=None, *, static_argnames=(), eager=None):
    """Decorate a jnp function JAX defines under ``jax.jit(..., inline=True)``: no equation of its
    own in a jaxpr; eagerly under a transfer guard, its host arguments are transferred and its own
    constants are not (they are constants of JAX's compiled program). ``eager``: as
    ``staged_as_jit``'s, an eager call's result for the common case, or None."""
    if fn is None:
        return functools.partial(jitted_inline, static_argnames=static_argnames, eager=eager)

    jitted: list = []

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if eager is not None and not core.staging_anywhere[0] and not transfers.active[0]:
            out = eager(*args, **kwargs)
            if out is not None:
                return out
        if transfers.active[0]:
            return transfers.call_jitted(fn, args, kwargs, static_argnames)
        args = typed_as_primals(args)
        # (eagerly it is a compiled call in JAX too: inline only changes how it traces; and
        # differentiated, its jit transformed and compiled whole, as staged_as_jit's)
        if not core.staging_anywhere[0] and (
            _transformed_as_one_program(args)
            and _fuses_across(fn, jitted, static_argnames, args, kwargs)
            or _as_compiled(fn, jitted, static_argnames, args, kwargs)
        ):
            return _jit_of(fn, jitted, static_argnames)(*args, **kwargs)
        return _body(fn, args, kwargs)

    return wrapper


@functools.lru_cache(maxsize=None)
def _signature(fn):
    return inspect.signature(fn)
