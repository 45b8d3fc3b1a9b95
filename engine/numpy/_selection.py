"""Choosing between values elementwise: maximum/minimum (and the NaN-ignoring fmax/fmin), clip,
where, select, piecewise, nan_to_num."""

from __future__ import annotations

import numpy as np

from .. import core, lax
from ..core import Array
from ..lax.structural import convert_values
from ._complex_parts import iscomplexobj
from ._logic import isnan, isneginf, isposinf
from ._promote import (
    _FLOAT_MAX,
    as_operand,
    check_arraylike,
    promote_dtypes,
    promote_elementwise,
    promote_shapes,
)
from ._staged import staged_as_jit
from ..lax.elementwise_numerics import xla_float_minmax
from ._ufunc_dispatch import _binary, fresh_array
from ..narrow_dtypes import kind as dtype_kind


def _maximum(x1, x2):
    x1, x2 = promote_elementwise("maximum", x1, x2)
    return lax.max(x1, x2)


def _minimum(x1, x2):
    x1, x2 = promote_elementwise("minimum", x1, x2)
    return lax.min(x1, x2)


def _numpy_minmax(np_fn, greater):
    """numpy's maximum/minimum for the eager fast path, as lax.max/min's rule (XLA's NaNs and zeros)."""

    def f(x, y):
        out = np_fn(x, y)
        return xla_float_minmax(out, x, y, greater) if out.dtype.kind == "f" else out

    return f


maximum = _binary("maximum", _maximum, _numpy_minmax(np.maximum, True), "fiub")


minimum = _binary("minimum", _minimum, _numpy_minmax(np.minimum, False), "fiub")


@staged_as_jit
def fmax(x1, x2):
    """Elementwise maximum that ignores NaNs.

    >>> jnp.fmax(jnp.array([1.0, jnp.nan]), 0.5)
    Array([1. , 0.5], dtype=float32)
    """
    from ._logic import bitwise_or, greater

    return where(bitwise_or(greater(x1, x2), isnan(x2)), x1, x2)


@staged_as_jit
def fmin(x1, x2):
    """Elementwise minimum that ignores NaNs.

    >>> jnp.fmin(jnp.array([1.0, jnp.nan]), 0.5)
    Array([0.5, 0.5], dtype=float32)
    """
    from ._logic import bitwise_or, less

    return where(bitwise_or(less(x1, x2), isnan(x2)), x1, x2)


def _eager_clip(*args, **kwargs):
    """``clip(arr, min, max)`` for the common eager case, or None: a concrete float32/float64
    array and Python float bounds (one may be None), passed by position. The body's own steps on
    them (``maximum(min, arr)``, then ``minimum(max, ...)``: their numpy fast paths), without the
    jit wrapper's bookkeeping and the checks these operands pass (~40% of an eager call's time)."""
    if kwargs or not 2 <= len(args) <= 3:
        return None
    arr, lo, hi = args[0], args[1], args[2] if len(args) == 3 else None
    if type(arr) is not Array or arr._value.dtype.char not in "fd" or (lo is None and hi is None):
        return None
    if (lo is not None and type(lo) is not float) or (hi is not None and type(hi) is not float):
        return None
    v = arr._value
    try:
        bounds = [None if b is None else v.dtype.type(b) for b in (lo, hi)]
    except OverflowError:
        return None
    if all(b is None or (b != 0 and b == b) for b in bounds) and v.all() and not np.isnan(v).any():
        # (no zero and no NaN among the operands: numpy's maximum and minimum are XLA's, as
        # ``xla_float_minmax`` would find after each of the two)
        out = v if bounds[0] is None else np.maximum(bounds[0], v)
        out = out if bounds[1] is None else np.minimum(bounds[1], out)
        return fresh_array(out, arr.weak_type)
    if lo is not None:
        arr = maximum._fast(lo, arr)
    if hi is not None and arr is not None:
        arr = minimum._fast(hi, arr)
    return arr


# (the whole function, as JAX's: min/max passed by keyword stage sorted)
@staged_as_jit(name="clip", eager=_eager_clip)
def clip(arr=None, /, min=None, max=None):
    """Clamp values to ``[min, max]`` (either bound may be None).

    >>> jnp.clip(jnp.arange(5), 1, 3)
    Array([1, 1, 2, 3, 3], dtype=int32)
    """
    check_arraylike("clip", arr)
    if any(iscomplexobj(v) for v in (arr, min, max) if v is not None):
        raise ValueError(
            "Clip received a complex value either through the input or the min/max keywords. "
            "Complex values have no ordering and cannot be clipped. Please convert to a real value "
            "or array by taking the real or imaginary components via jax.numpy.real/imag respectively."
        )
    return _clip(arr, min, max)


def _clip(arr, min, max):
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return as_operand(arr)


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """``x`` where ``condition`` else ``y``, broadcasting all three; one argument means ``nonzero``.

    >>> jnp.where(jnp.arange(4) > 1, 1.0, 0.0)
    Array([0., 0., 1., 1.], dtype=float32, weak_type=True)
    """
    if x is None and y is None:
        from ._searching import nonzero

        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:  # (JAX's check of its operands: None is no array)
        raise TypeError(
            f"where requires ndarray or scalar arguments, got {type(None)} at position {1 if x is None else 2}."
        )
    fast = _eager_where(condition, x, y)
    if fast is not None:
        return fast
    check_arraylike("where", condition, x, y)
    return _where(condition, x, y)


def _eager_where(condition, x, y):
    """``_where``'s result for the common eager case, or None: a concrete bool condition, cases
    that are concrete float32/float64 arrays of one dtype or Python floats, nothing staging and no
    checking config. Its select_n's impl (``np.where``) on the operands as promotion makes them, a
    Python float converted as ``convert`` does; broadcast by numpy, which puts the same values
    where promote_shapes' broadcast_in_dim would; weak where both cases are (select_n's rule).
    (select_n's impl is ``np.where`` on a bool predicate: kept in step by tests/test_eager_fast_paths.py)"""
    if core.staging_anywhere[0] or type(condition) is not Array or condition._value.dtype != np.bool_:
        return None
    dtype = None
    for case in (x, y):
        if type(case) is Array:
            d = case._value.dtype
            if d.char not in "fd" or (dtype is not None and d != dtype):
                return None
            dtype = d
        elif type(case) is not float:
            return None
    if dtype is None:
        return None
    values = [c._value if type(c) is Array else _converted(c, dtype) for c in (x, y)]
    try:
        shape = np.broadcast_shapes(condition._value.shape, values[0].shape, values[1].shape)
    except ValueError:  # (the general path raises JAX's error)
        return None
    if 0 in shape:  # (the general path returns x as it is)
        return None
    weak = all(c.weak_type if type(c) is Array else True for c in (x, y))
    # (select_n's impl on a bool predicate, without its shape checks: numpy broadcasts)
    return Array(np.where(condition._value, values[0], values[1]), weak)


@staged_as_jit
def _where(condition, x, y):
    condition = as_operand(condition)
    if condition.dtype != np.bool_:
        condition = lax.ne(condition, np.zeros((), condition.dtype))
    x, y = promote_dtypes(x, y)
    if condition.ndim == 0:  # select takes a scalar predicate as it is (as in JAX)
        x, y = promote_shapes(x, y)
    else:
        condition, x, y = promote_shapes(condition, x, y)
    try:  # a zero-size result is x as it is: JAX stages no select_n there
        if any(d == 0 for d in np.shape(x)):
            return x
    except TypeError:  # (a symbolic dimension that cannot say)
        pass
    return lax.select(condition, x, y)


def _converted(value: float, dtype):
    """A Python float as ``convert`` makes it (quietly where it overflows, as there)."""
    if abs(value) <= _FLOAT_MAX[dtype]:
        return convert_values(np.asarray(value), new_dtype=dtype)
    with np.errstate(all="ignore"):
        return convert_values(np.asarray(value), new_dtype=dtype)


def _dtype_of(x):
    if type(x) is bool:
        return np.dtype(np.bool_)
    return (
        getattr(x, "dtype", None) if not isinstance(x, (int, float, complex)) else core.default_dtype(float)
    )


def select(condlist, choicelist, default=0):
    """The first choice whose condition holds, else ``default``."""
    if len(condlist) != len(choicelist):
        raise ValueError(
            f"condlist must have length equal to choicelist ({len(condlist)} vs {len(choicelist)})"
        )
    if not condlist:
        raise ValueError("condlist must be non-empty")
    from ._creation import asarray
    from ._reductions import argmax
    from ._shape import broadcast_arrays, stack

    check_arraylike("select", *condlist, *choicelist, default)
    # One select_n indexed by the first true condition: the default sits at index 0 behind a
    # False condition, which argmax picks when no condition holds (as JAX stages it).
    choices = promote_dtypes(asarray(default), *[asarray(c) for c in choicelist])
    conditions = stack(broadcast_arrays(False, *[asarray(c) for c in condlist]))
    idx = argmax(conditions.astype(bool), axis=0)
    return lax.select_n(*broadcast_arrays(idx, *choices))


def piecewise(x, condlist, funclist, *args, **kw):
    """``funclist[i](x)`` where ``condlist[i]``; one extra function covers the remaining places.

    As JAX's: a ``switch`` on the index of the last true condition (0, the default, when none
    holds), vectorized over ``x`` (so under a trace every piece runs on every element and a
    select_n picks), inside a jit named ``_piecewise``.

    >>> jnp.piecewise(jnp.array([-2.0, 3.0]), [jnp.array([True, False])], [0.0, lambda x: 2 * x])
    Array([0., 6.], dtype=float32)
    """
    from ._creation import asarray

    check_arraylike("piecewise", x)
    x = as_operand(x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funclist = [funclist[-1], *funclist[:-1]]
    elif nf == nc:
        funclist = [0, *funclist]
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are expected; got {nf}")
    consts = {i: c for i, c in enumerate(funclist) if not callable(c)}
    funcs = frozenset((i, f) for i, f in enumerate(funclist) if callable(f))
    return _piecewise(x, asarray(condlist, dtype=bool), consts, funcs, *args, **kw)


@staged_as_jit(static_argnames=("funcs",))
def _piecewise(x, condlist, consts, funcs, *args, **kw):
    from ._creation import array, vectorize, zeros_like
    from ._shape import concatenate
    from ._reductions import argmax, cumsum

    funcdict = dict(funcs)
    pieces = [consts.get(i, funcdict.get(i)) for i in range(len(condlist) + 1)]
    # The index of the last true condition, 1-based; 0 where none holds.
    indices = argmax(cumsum(concatenate([zeros_like(condlist[:1]), condlist], 0), 0), 0)
    dtype = x.dtype

    def branch(piece):
        if callable(piece):
            return lambda x: piece(x, *args, **kw).astype(dtype)
        return lambda x: array(piece, dtype=dtype)

    return vectorize(lax.switch, excluded=(1,))(indices, [branch(p) for p in pieces], x)


@staged_as_jit
def nan_to_num(x, copy: bool = True, nan=0.0, posinf=None, neginf=None):
    """Replace NaN with ``nan`` and infinities with the largest finite values (or those given).

    >>> jnp.nan_to_num(jnp.array([jnp.nan, -jnp.inf, 1.0]))
    Array([ 0.0000000e+00, -3.4028235e+38,  1.0000000e+00], dtype=float32)
    """
    check_arraylike("nan_to_num", x)
    x = as_operand(x)
    if dtype_kind(x.dtype) not in "fc":
        return x
    if dtype_kind(x.dtype) == "c":
        parts = (lax.real(x), lax.imag(x))
        return lax.complex(*(nan_to_num(p, nan=nan, posinf=posinf, neginf=neginf) for p in parts))
    info = np.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    from ._creation import asarray  # (the replacements are the jit's arguments, perhaps traced)

    out = where(isnan(x), asarray(nan, dtype=x.dtype), x)
    out = where(isposinf(out), asarray(posinf, dtype=x.dtype), out)
    return where(isneginf(out), asarray(neginf, dtype=x.dtype), out)
