"""How jnp's elementwise functions dispatch: a numpy fast path for concrete eager operands, else
dtype promotion and lax.

Binary functions keep a fast path for the common eager case (two concrete arrays of one dtype, or
an array and a Python scalar, with nothing being traced): numpy computes the result directly, which
gives the same answer as the lax route at a fraction of the dispatch cost.
"""

from __future__ import annotations

import inspect

import numpy as np

from .. import core
from ..core import Array, Tracer
from ._promote import promote_args_inexact
from ._staged import check_int_argument
from ..fused_rules import call as jitted_body
from ..jitted_tangents import typed_as_primals
from ..lax.accuracy import OPS as ACCURACY_OPS
from ..narrow_dtypes import kind as dtype_kind


_state = core._state
_staging = core.staging_anywhere


_FAST_KINDS = frozenset("fiu")


_new = object.__new__


def fresh_array(value, weak_type: bool) -> Array:
    """Wrap a numpy result that nothing else references (skips ``Array.__init__``'s checks: the
    dtype is already canonical, and ``Array.__array__`` marks the buffer read-only when it is
    handed out)."""
    if type(value) is not np.ndarray:
        value = np.asarray(value)
    out = _new(Array)
    out._value = value
    out.weak_type = weak_type
    out._aval = None
    out.held = core.made_held()
    return out


def _no_fast_path(x, y):
    return None


def _fast_binary(np_fn, kinds=_FAST_KINDS, bool_out=False, otherwise=_no_fast_path):
    """Concrete same-dtype operands (or an array and a Python scalar of a compatible kind) -> numpy;
    other operands -> ``otherwise(x, y)`` (by default None: the fast path does not apply).
    """

    def fast(x, y, /):
        if _staging[0]:  # staging (in any thread), or a config that checks every op on the general path
            return otherwise(x, y)
        tx, ty = type(x), type(y)
        if tx is Array:
            xv = x._value
            d = xv.dtype
            # (numpy's kind: bfloat16, int4 and most ml_dtypes types ('V') take the general path)
            if d.kind not in kinds:
                return otherwise(x, y)
            if ty is Array:
                yv = y._value
                if yv.dtype != d:
                    return otherwise(x, y)
                weak = x.weak_type and y.weak_type and d.kind != "b"  # (no weak bools after promotion)
            elif (ty is float and d.kind == "f") or (ty is int and d.kind in "fi" and -(2**31) <= y < 2**31):
                try:
                    yv = d.type(y)
                except OverflowError:  # (an int beyond int8's range: wrapped on the general path)
                    return otherwise(x, y)
                weak = x.weak_type
            else:
                return otherwise(x, y)
        elif ty is Array and (tx is float or tx is int):
            yv = y._value
            d = yv.dtype
            if d.kind not in kinds or not (
                d.kind == "f" or (tx is int and d.kind == "i" and -(2**31) <= x < 2**31)
            ):
                return otherwise(x, y)
            try:
                xv = d.type(x)
            except OverflowError:
                return otherwise(x, y)
            weak = y.weak_type
        else:
            return otherwise(x, y)
        try:
            out = np_fn(xv, yv)
        except ValueError:  # shapes that do not broadcast: the general path explains it
            return otherwise(x, y)
        # (fresh_array, inlined: this is the hottest eager call; a comparison of weak operands is
        # weak too, as in JAX)
        if type(out) is not np.ndarray:
            out = np.asarray(out)
        res = _new(Array)
        res._value = out
        res.weak_type = weak
        res._aval = None
        res.held = True  # (made while nothing stages: a trace closing over it holds a constvar)
        return res

    return fast


_X1_X2, _X_Y = (
    inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_ONLY) for n in names])
    for names in (("x1", "x2"), ("x", "y"))
)


# JAX's binary functions whose parameters are x, y (the others': x1, x2), and the jitted function
# a jnp function calls under another name (jnp.divide is true_divide's alias).
_NAMED_X_Y = frozenset({"add", "subtract", "multiply", "maximum", "minimum"})
_JITTED_AS = {"divide": "true_divide", "power": "_power", "mod": "remainder"}


def check_devices(name: str, x1, x2) -> None:
    """JAX jits each jnp function: operands committed to different devices are refused in its
    terms (the jitted function's name, its parameters' names, the operands' shapes as given), and
    a Python int its default int type cannot hold is refused as jit parses it."""
    names = ("x", "y") if name in _NAMED_X_Y or name in _COMPARISONS else ("x1", "x2")
    check_committed(_JITTED_AS.get(name, name), names, x1, x2)
    for n, v in zip(names, (x1, x2)):
        check_int_argument(n, v)


def check_committed(jitted: str, names: tuple[str, ...], *args) -> None:
    """``check_devices`` for any jitted jnp function ``jitted`` of parameters ``names``."""
    if any(type(a) is not Array and isinstance(a, Array) for a in args):
        from ..parallel.result_shardings import check_one_device

        check_one_device(args, names, jitted)


_COMPARISONS = frozenset({"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"})


def _binary(name, general, np_fn=None, kinds=_FAST_KINDS, bool_out=False, doc=None):
    """The jnp function ``name``: numpy's ``np_fn`` on concrete eager operands, else ``general``
    (dtype promotion and lax). One Python call deep on the fast path."""
    unchecked = general

    def general(x1, x2, /):  # (committed operands never take the fast path: they come here)
        check_devices(name, x1, x2)
        if isinstance(x1, Tracer) or isinstance(x2, Tracer):
            return jitted_body(unchecked, x1, x2)
        return unchecked(x1, x2)

    if np_fn is None:

        def f(x1, x2, /):
            return general(x1, x2)

        fast = None
    else:
        f = _fast_binary(np_fn, kinds, bool_out, otherwise=general)
        fast = _fast_binary(np_fn, kinds, bool_out)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc or f"Elementwise ``{name}`` with numpy broadcasting and JAX dtype promotion."
    # JAX's parameter names (jit's debug info names the arguments by them): comparisons take x, y
    f.__signature__ = _X_Y if bool_out or name in _NAMED_X_Y else _X1_X2
    f._fast = fast
    f._general = general
    f._np_fn, f._kinds, f._bool_out = np_fn, kinds, bool_out
    return f


def _unary_inexact(name, lax_fn, doc=None):
    primitive = getattr(lax_fn, "primitive", None)
    params = {"accuracy": None} if primitive is not None and primitive.name in ACCURACY_OPS else {}
    if primitive is not None and (primitive.multiple_results or primitive.weak_from_abstract_eval):
        primitive = None

    def f(x, /):
        # A concrete float32/float64 array, nothing staging and no checking config: the primitive's
        # impl on its value, as EvalTrace.process_primitive runs it (the weak type by its rule)
        if not _staging[0] and type(x) is Array and primitive is not None and x._value.dtype.char in "fd":
            v = x._value
            out = core.impl_rules[primitive](v, **params)
            if isinstance(out, Array):
                return out
            out = np.asarray(out)
            weak = x.weak_type and (primitive.keeps_weak_type or core._keeps_dtype(out, (v,)))
            return Array(out, weak)
        if not (isinstance(x, (Array, Tracer)) and dtype_kind(x.dtype) == "f"):
            (x,) = promote_args_inexact(name, x)
        elif isinstance(x, Tracer):
            (x,) = typed_as_primals((x,))
            return jitted_body(lax_fn, x)
        return lax_fn(x)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc or f"Elementwise ``{name}``; integer inputs are promoted to float32."
    return f


def _is_bool(x):
    return x.dtype == np.bool_


def _is_int(x):
    return dtype_kind(x.dtype) in "iu"


def _quiet(f):
    def g(*a):
        with np.errstate(all="ignore"):
            return f(*a)

    return g
