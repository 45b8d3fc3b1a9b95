"""Array creation: ``array``/``asarray``, filled arrays, ranges, grids and triangles."""

from __future__ import annotations

import functools
import math
import operator

import builtins

import numpy as np

from .. import core, dims, lax, transfers
from ..core import Array, Tracer
from ..canonical_dtypes import user_dtype
from ..constant_staging import staged
from ._dtypes import dtype_and_weak, promote_types_weak, to_dtype
from ._promote import (
    as_operand,
    broadcast_to_shape,
    check_arraylike,
    concrete_int,
    concrete_shape,
    convert,
    shape_of,
    to_inexact_dtype,
)
from ..sharded_types import typed_layout
from ..sharding import reshard
from ..parallel.result_shardings import laid_out_like
from ._staged import staged_as_jit
from ..lax.structural import check_iota_dtype
from ._casting import warn_complex_to_real
from ._shape import stack
from ..narrow_dtypes import kind as dtype_kind


def _leaves(obj, out):
    if isinstance(obj, (list, tuple)):
        for o in obj:
            _leaves(o, out)
    else:
        out.append(obj)
    return out


def _not_numeric(x) -> TypeError:
    try:
        dt = np.asarray(x).dtype
    except Exception:
        dt = np.dtype(object)
    return TypeError(
        f"Value '{x}' with dtype {dt} is not a valid JAX array type. Only arrays of numeric types are supported by JAX."
    )


def _numeric(x) -> bool:
    try:
        dtype_and_weak(x)
    except TypeError:
        return False
    return True


def array(
    object, dtype=None, copy: bool = True, order=None, ndmin: int = 0, *, device=None, out_sharding=None
):
    """Create an array; Python scalars give weakly typed results, lists strong ones.

    Nested lists may contain arrays and traced values, which are stacked. Under ``jit`` the array is
    a tracer of the jit's trace (JAX stages it there), even one made from constants. ``device`` (a
    device or a sharding) commits the array there; ``out_sharding`` lays it out (one of the two).

    >>> jnp.array([1.0, 2.0])
    Array([1., 2.], dtype=float32)
    """
    _one_placement(device, out_sharding, "jnp.array")
    out = _array(object, dtype, copy, order, ndmin)
    # (jnp.asarray of a jax.Array is that array, in JAX too; one to lay out is staged, as a constant)
    out = out if out is object and out_sharding is None else staged(out)
    if out_sharding is not None and core._state.dynamic is not None:  # (JAX's: a convert typed with it)
        return _converted_onto(out, out_sharding)
    return _placed(out, device, out_sharding)


def _converted_onto(x, out_sharding):
    from ..sharding import Mesh, NamedSharding, as_sharding

    s = as_sharding(out_sharding, "jnp.array")
    if not (isinstance(s, NamedSharding) and isinstance(s.mesh, Mesh)):
        return reshard(x, s)
    aval = core.get_aval(x)
    return lax.convert_element_type_p.bind(x, new_dtype=aval.dtype, weak_type=aval.weak_type, sharding=s)


def _array(object, dtype, copy, order, ndmin):
    dtype = None if dtype is None else user_dtype(to_dtype(dtype), "array")
    if getattr(object, "on_one_device_mesh", False):
        from ..parallel.sharded import ShardedArray, device_put

        if type(object) is ShardedArray:  # (committed to a device: the new array is made there, as JAX's is)
            return device_put(
                array(object.__jax_array__(), dtype, copy, order, ndmin), object._buffers[0].device
            )
    if hasattr(object, "__jax_array__") and not getattr(object, "on_mesh", False):  # (kept on its mesh)
        object = object.__jax_array__()
    if dims.is_symbolic_dim(object) or (
        isinstance(object, (list, tuple)) and any(dims.is_symbolic_dim(d) for d in object)
    ):  # symbolic dimensions (jnp.array(x.shape)): their values
        object = (
            object.dimension_as_value() if dims.is_symbolic_dim(object) else [as_operand(d) for d in object]
        )
    if transfers.active[0] and core._state.dynamic is None:
        _array_transfer(object, dtype)
        with transfers.inside_program():
            return _array(object, dtype, copy, order, ndmin)
    if type(object) is np.ndarray and dtype is None and ndmin == 0 and object.shape and core._state.dynamic:
        return staged(object)  # (JAX's lax.stage: the trace's constant for this numpy array, no copy)
    if isinstance(object, (list, tuple)):
        leaves = _leaves(object, [])
        if any(x is None for x in leaves):
            raise ValueError("None is not a valid value for jnp.array")
        for x in leaves:
            if isinstance(x, (str, bytes)):
                raise _not_numeric(x)
        if dtype is None:
            try:
                dtype = (
                    promote_types_weak(dtype_and_weak(x) for x in leaves)[0]
                    if leaves
                    else core.default_dtype(float)
                )
            except TypeError:  # (a leaf of no numeric type: an object)
                raise _not_numeric(next(x for x in leaves if not _numeric(x))) from None
        if any(isinstance(x, Tracer) for x in leaves):
            out = _concatenate_rows(object, dtype) if object else None
        else:
            try:
                out = Array(np.array([_host(x) for x in object] if leaves else object, dtype=dtype))
            except ValueError:  # (ragged: JAX stacks rows holding arrays, and lax.concatenate refuses)
                if not any(isinstance(x, Array) for x in leaves):
                    raise
                out = _concatenate_rows(object, dtype)
    elif isinstance(object, (Tracer, Array)):
        warn_complex_to_real(object.dtype, dtype)
        weak = dtype is None and object.weak_type
        if copy and (isinstance(object, Tracer) or core._state.dynamic is not None):
            object = lax.copy_p.bind(object)  # (JAX copies in the trace first: a copy equation)
        out = convert(object, dtype or object.dtype, weak)
        if copy and out is object and getattr(object, "on_mesh", False):
            out = lax.copy_p.bind(object)  # (a copy on the mesh's devices)
        elif copy and out is object and isinstance(object, Array):
            out = object.copy()
    elif type(object) in (bool, int, float, complex):
        if dtype is None:
            d, weak = dtype_and_weak(object)
            if type(object) is int and not np.iinfo(d).min <= object <= np.iinfo(d).max:
                raise OverflowError(f"Python int {object} too large to convert to {np.dtype(d).name}")
            out = convert(object, d, weak)
        else:
            if type(object) is int:  # (numpy's OverflowError for an int out of dtype's range, as JAX's)
                np.asarray(object, dtype)
            out = convert(object, dtype, False)
    elif isinstance(object, (np.ndarray, np.generic)):
        if dtype_kind(object.dtype) not in "biufc":  # (strings, objects: JAX's staging refuses them)
            raise TypeError(
                f"Error interpreting argument to stage as a JAX value. The problematic value is of type "
                f"{type(object)} and was passed to stage at position 0.\n"
            )
        out = Array(np.array(object, dtype=dtype or core.canonical_dtype(object.dtype), copy=True))
    elif isinstance(object, (range, memoryview)) or hasattr(object, "__array__"):
        out = array(np.asarray(object), dtype)
    elif object is None:
        raise ValueError("None is not a valid value for jnp.array")
    elif not isinstance(object, (str, bytes)) and _exports_buffer(object):  # (array.array and the like)
        out = array(np.asarray(memoryview(object)), dtype)
    else:
        raise _not_numeric(object)
    if ndmin > len(shape_of(out)):
        out = lax.expand_dims(out, range(ndmin - len(shape_of(out))))  # (as JAX: a broadcast_in_dim)
    return out


def _exports_buffer(object) -> bool:
    try:
        memoryview(object)
    except TypeError:
        return False
    return True


def _array_transfer(object, dtype):
    """What ``jnp.array`` transfers of a host value: NumPy's array of it, a scalar converted to
    ``dtype`` first (a list holding arrays is stacked on the device: nothing is)."""
    if isinstance(object, (list, tuple)):
        leaves = _leaves(object, [])
        if leaves and all(isinstance(v, transfers.HOST_TYPES) for v in leaves):
            transfers.entering(np.asarray(object, dtype))
    elif dtype is not None and isinstance(object, (bool, int, float, complex, np.generic)):
        transfers.entering(object, dtype, False)
    else:
        transfers.entering(object)


def _host(x):
    """A list element as numpy (keeping nesting), so numpy builds the whole array at once."""
    if isinstance(x, (list, tuple)):
        return [_host(o) for o in x]
    if isinstance(x, Array):
        return core.to_numpy(x)
    return x


def asarray(a, dtype=None, order=None, *, copy=None, device=None, out_sharding=None):
    """``array`` without a copy of values that are already arrays of the right dtype."""
    dtype = None if dtype is None else user_dtype(to_dtype(dtype), "asarray")
    return array(a, dtype=dtype, copy=bool(copy), order=order, device=device, out_sharding=out_sharding)


def _default_dtype(dtype, fun_name: str, default: type = float):
    """``dtype`` canonicalized, or the default dtype of Python's ``default`` type (x64 decides)."""
    return user_dtype(to_dtype(dtype), fun_name) if dtype is not None else core.default_dtype(default)


def _one_placement(device, out_sharding, name: str) -> None:
    """JAX's refusal of both ``device=`` and ``out_sharding=`` (``name`` is the function's)."""
    if device is not None and out_sharding is not None:
        raise ValueError(
            f"Only one of `device` or `out_sharding` can be set. Got {device=} and {out_sharding=}"
        )


def _placed(x, device, out_sharding=None):
    """``x`` put on ``device`` (a device or a sharding) when one is given, as JAX's ``device=``;
    or laid out by ``out_sharding`` (``reshard``) when that is given."""
    if out_sharding is not None:
        return reshard(x, out_sharding)
    if device is None:
        return x
    from ..parallel.sharded import device_put

    return device_put(x, device)


def zeros(shape, dtype=None, *, device=None, out_sharding=None):
    """An array of zeros (float32, or float64 with x64, unless ``dtype`` says otherwise), laid out
    by ``out_sharding`` when given (staged: a broadcast typed with it, as JAX's).

    >>> jnp.zeros((2, 3)).shape
    (2, 3)
    """
    _one_placement(device, out_sharding, "jnp.zeros")
    return _placed(
        lax.full(concrete_shape(shape), 0, _default_dtype(dtype, "zeros"), sharding=out_sharding), device
    )


def ones(shape, dtype=None, *, device=None, out_sharding=None):
    """An array of ones (float32, or float64 with x64, unless ``dtype`` says otherwise)."""
    _one_placement(device, out_sharding, "jnp.ones")
    return _placed(
        lax.full(concrete_shape(shape), 1, _default_dtype(dtype, "ones"), sharding=out_sharding), device
    )


def empty(shape, dtype=None, *, device=None, out_sharding=None):
    """Like ``zeros``: arrays are immutable, so "uninitialized" has no use."""
    return zeros(shape, _default_dtype(dtype, "empty"), device=device, out_sharding=out_sharding)


def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
    """An array of ``shape`` filled with ``fill_value`` (which may itself be an array that broadcasts).

    >>> jnp.full((2,), 7)
    Array([7, 7], dtype=int32, weak_type=True)
    """
    _one_placement(device, out_sharding, "full")
    shape = concrete_shape(shape)
    if shape_of(fill_value) == ():
        if dtype is None:
            d, weak = dtype_and_weak(fill_value)
            out = lax.full(shape, convert(fill_value, d, weak), d, weak, sharding=out_sharding)
        else:
            d = user_dtype(to_dtype(dtype), "full")
            out = lax.full(shape, convert(fill_value, d), d, sharding=out_sharding)
        return _placed(out, device)
    out = broadcast_to_shape(
        asarray(fill_value, None if dtype is None else _default_dtype(dtype, "full")), shape
    )
    return _placed(out if out_sharding is None else reshard(out, out_sharding), device)


def _like_dtype_shape(a, dtype, shape, fun_name):
    d, weak = dtype_and_weak(a)
    if dtype is not None:
        d, weak = user_dtype(to_dtype(dtype), fun_name), False
    return d, weak, shape_of(a) if shape is None else concrete_shape(shape)


def _filled_like(a, fill, d, weak, s, device, out_sharding, shape):
    """A scalar ``fill`` in the shape ``s``: laid out like ``a``, by ``out_sharding`` (a broadcast
    typed with it, as JAX's ``lax.full_like``; ``a``'s type's sharding for a traced ``a`` of the
    same ``shape``), or put on ``device``."""
    if out_sharding is None and shape is None and device is None and isinstance(a, Tracer):
        out_sharding = typed_layout(a)
    if out_sharding is not None:
        return lax.full(s, fill, d, weak, sharding=out_sharding)
    return _placed(laid_out_like(a, lax.full(s, fill, d, weak), weak), device)


def zeros_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    """Zeros with the shape and dtype (and weak type) of ``a``; ``device`` commits them there,
    ``out_sharding`` lays them out (one of the two)."""
    _one_placement(device, out_sharding, "jnp.zeros_like")
    d, weak, s = _like_dtype_shape(a, dtype, shape, "zeros_like")
    return _filled_like(a, 0, d, weak, s, device, out_sharding, shape)


def ones_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    """Ones with the shape and dtype (and weak type) of ``a``; ``device`` commits them there,
    ``out_sharding`` lays them out (one of the two)."""
    _one_placement(device, out_sharding, "jnp.ones_like")
    d, weak, s = _like_dtype_shape(a, dtype, shape, "ones_like")
    return _filled_like(a, 1, d, weak, s, device, out_sharding, shape)


def empty_like(prototype, dtype=None, shape=None, *, device=None):
    """Like ``zeros_like`` (arrays are immutable: "uninitialized" has no use)."""
    # (JAX's empty_like names ones_like in its warning)
    dtype = None if dtype is None else _default_dtype(dtype, "ones_like")
    return zeros_like(prototype, dtype, shape, device=device)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None, out_sharding=None):
    """``fill_value`` broadcast to the shape of ``a``, with ``a``'s dtype unless ``dtype`` is given;
    ``device`` commits it there, ``out_sharding`` lays it out (one of the two)."""
    _one_placement(device, out_sharding, "full_like")
    d, weak, s = _like_dtype_shape(a, dtype, shape, "full_like")
    if transfers.active[0] and core._state.dynamic is None:  # (JAX converts a host fill value first)
        scalar = shape_of(fill_value) == ()
        transfers.entering(fill_value, d if scalar else None, weak)
        with transfers.inside_program():
            return full_like(a, fill_value, dtype, shape, device=device, out_sharding=out_sharding)
    if isinstance(d, core.ExtendedDType):  # (typed keys: lax.full fills their words)
        return _filled_like(a, fill_value, d, weak, s, device, out_sharding, shape)
    if shape_of(fill_value) == ():
        return _filled_like(a, convert(fill_value, d, weak), d, weak, s, device, out_sharding, shape)
    out = broadcast_to_shape(asarray(fill_value, d), s)
    return _placed(out if out_sharding is not None else laid_out_like(a, out, weak), device, out_sharding)


def _static_number(x, what):
    if isinstance(x, Tracer):
        return core.concrete_or_error(x, what).item()
    return x.item() if isinstance(x, (np.ndarray, np.generic, Array)) else x


def _concatenate_rows(rows, dtype):
    """JAX's array() of a list holding tracers: each row converted and expanded in turn, then
    concatenated (in trees of 16, as JAX does for wide lists)."""
    out = [lax.expand_dims(array(r, dtype, copy=False), (0,)) for r in rows]
    while len(out) > 16:
        out = [lax.concatenate(out[i : i + 16], 0) for i in range(0, len(out), 16)]
    return lax.concatenate(out, 0)


def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
    """Evenly spaced values in ``[start, stop)``; the bounds must be concrete. ``device`` commits
    the result there, ``out_sharding`` lays it out (one of the two).

    >>> jnp.arange(3)
    Array([0, 1, 2], dtype=int32)
    """
    _one_placement(device, out_sharding, "jnp.arange")
    return _placed(_arange(start, stop, step, dtype, out_sharding), device)


def _arange(start, stop, step, dtype, out_sharding=None):
    # (out_sharding: the iota's, as JAX's: the equations after it keep its layout)
    def iota(dtype, size):
        return lax.broadcasted_iota(dtype, (size,), 0, out_sharding=out_sharding)

    start_name = "stop" if stop is None and step is None else "start"  # (JAX's name for a lone bound)
    bounds = [b for b in (start, stop, step) if b is not None]
    if dtype is None:
        dtype = core.canonical_dtype(promote_types_weak(dtype_and_weak(b) for b in bounds)[0])
    else:
        dtype = user_dtype(to_dtype(dtype), "arange")
    if any(dims.is_symbolic_dim(b) for b in bounds):  # a symbolic length: an iota, shifted
        if step not in (None, 1):
            raise NotImplementedError("jnp.arange with symbolic bounds supports only step=1")
        lo, hi = (0, start) if stop is None else (start, stop)
        out = lax.mul(np.asarray(1, dtype), lax.iota(dtype, dims.max_dim(0, hi - lo)))  # (as JAX stages it)
        return lax.add(np.asarray(lo, dtype) if dims.is_constant_dim(lo) else convert(lo, dtype), out)
    vals = [
        _static_number(b, f"It arose in the jnp.arange argument '{name}'") if b is not None else None
        for b, name in ((start, start_name), (stop, "stop"), (step, "step"))
    ]
    if dtype_kind(dtype) in "iuf":  # JAX's formulas on an iota (its values, and what a traced program shows)
        lo, hi, by = (0, vals[0], vals[2]) if stop is None else vals
        if by is not None:
            working = np.dtype(np.float32) if dtype_kind(dtype) == "f" and dtype.itemsize < 4 else dtype
            size = builtins.max(0, int(np.ceil((hi - lo) / by)))
            ramp = lax.mul(_as_dtype(by, working), iota(working, size))
            return lax.convert_element_type(lax.add(_as_dtype(lo, working), ramp), dtype)
        size = builtins.max(0, int(np.ceil(hi - lo)))
        if lo == 0:
            return iota(dtype, size)
        return lax.add(_as_dtype(lo, dtype), iota(dtype, size))
    check_iota_dtype(dtype)  # (JAX's arange is an iota: bools are refused)
    out = Array(
        np.arange(
            *[v for v in vals if v is not None] if stop is not None or step is not None else [vals[0]]
        ).astype(dtype)
    )
    return out if out_sharding is None else reshard(out, out_sharding)


def _as_dtype(v, dtype) -> np.ndarray:
    """A bound as ``dtype``, as JAX's ``convert_element_type`` makes it: an int beyond its range
    wraps (``jnp.arange(2**31, 2**31 + 2)`` counts from -2**31 there too)."""
    return np.asarray(v).astype(dtype)


def linspace(
    start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False, dtype=None, axis: int = 0,
    *, device=None,
):  # fmt: skip
    """``num`` evenly spaced samples from ``start`` to ``stop`` (inclusive when ``endpoint``);
    ``device`` commits them there (not the step).

    >>> jnp.linspace(0, 1, 3)
    Array([0. , 0.5, 1. ], dtype=float32)
    """
    out = _linspace_values(start, stop, num, endpoint, retstep, dtype, axis)
    return (_placed(out[0], device), out[1]) if retstep else _placed(out, device)


def _linspace_values(start, stop, num, endpoint, retstep, dtype, axis):
    num = concrete_int(num, "'num' argument of jnp.linspace")
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dtype_in = promote_types_weak(dtype_and_weak(x) for x in (start, stop, 1.0))[0]
    out_dtype = user_dtype(to_dtype(dtype), "linspace") if dtype is not None else dtype_in
    div = (num - 1) if endpoint else num
    if transfers.active[0]:  # (JAX's linspace is a jit call of start and stop)
        for v in (start, stop):
            transfers.entering(v)
    staging = core.staging_anywhere[0] and core._state.dynamic is not None  # (shows _linspace)
    if (
        not staging
        and not isinstance(start, Tracer)
        and not isinstance(stop, Tracer)
        and dtype_kind(dtype_in) != "c"
    ):
        cs, ce = core.to_numpy(start), core.to_numpy(stop)
        if (
            out_dtype == dtype_in == np.float32
            and np.ndim(cs) == np.ndim(ce) == 0
            and axis in (0, -1)
            and num > 1
        ):
            out, step = _linspace_kernel_f32(np.float32(cs), np.float32(ce), num, div, endpoint)
            return (Array(out), Array(step)) if retstep else Array(out)
        with np.errstate(all="ignore"):
            out = np.linspace(
                np.asarray(cs, np.float64), np.asarray(ce, np.float64), num, endpoint=endpoint, axis=axis
            )
        if dtype_kind(out_dtype) in "iu":
            out = np.floor(out)
        res = Array(out.astype(out_dtype))
        step = (np.asarray(ce, np.float64) - cs) / div if div > 0 else np.nan
        return (res, Array(np.asarray(step).astype(dtype_in))) if retstep else res
    return _linspace(start, stop, num, endpoint, retstep, None if dtype is None else out_dtype, axis)


def _linspace_kernel_f32(start, stop, num: int, div: int, endpoint: bool):
    """``jnp.linspace`` of float32 scalars as XLA's CPU kernel for JAX's ``_linspace`` computes it,
    to the bit (``linspace(-3, 3, 13)[4]`` is -0.9999999 in JAX). XLA turns ``i / div`` into
    ``i * fl(1/div)`` and ``stop * step`` into ``i * fl(stop/div)``, and LLVM contracts the sum
    ``start * (1 - step) + i * s`` into a multiply-add. Up to 351 steps LLVM unrolls the loop and
    folds ``1 - i * c`` per element (rounded twice; and ``s * 1`` to ``s``, making element 1
    ``start * k + s`` below 34 steps); longer loops contract ``1 - i * c`` too, except in the tail
    past the last multiple of 32. (From ~5000 steps XLA splits the loop over threads, and odd
    sizes then round some elements differently: the last bit can differ there.)"""
    f32, f64 = np.float32, np.float64
    with np.errstate(all="ignore"):
        c = f32(1) / f32(div)
        s = f32(stop * c)
        i = np.arange(div, dtype=f32)
        k = (f32(1) - i * c).astype(f32)
        if div > 351:  # (1 - i*c rounded once: the product is exact in float64)
            body = div // 32 * 32
            k[:body] = (1.0 - i[:body].astype(f64) * f64(c)).astype(f32)
        # (a*b + c rounded once; in float64 the product is exact and the sum rounds twice, which
        # differs from one rounding for ~1 input in 2**29)
        out = (f64(s) * i + (start * k).astype(f64)).astype(f32)
        if 1 < div <= 33:
            out[1] = f32(f64(start) * f64(k[1]) + f64(s))
        step = f32(f32(stop - start) * c)
    if endpoint:
        out = np.append(out, stop)
    return out, step


@staged_as_jit(static_argnames=("num", "endpoint", "retstep", "dtype", "axis"))
def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    # JAX's formulation, ``start * (1 - step) + stop * step`` in the computation dtype, which
    # recovers both endpoints; staged (under jit or make_jaxpr) it prints as JAX's _linspace.
    from ._shape import concatenate, expand_dims
    from ._ufuncs import floor

    dtype, start, stop = _spacing_dtype(start, stop, dtype, "linspace")
    computation_dtype = to_inexact_dtype(dtype)
    bounds_shape = list(np.broadcast_shapes(start.shape, stop.shape))
    broadcast_start = broadcast_to_shape(start, bounds_shape)
    broadcast_stop = broadcast_to_shape(stop, bounds_shape)
    axis = len(bounds_shape) + axis + 1 if axis < 0 else axis
    bounds_shape.insert(axis, 1)
    div = (num - 1) if endpoint else num
    if num > 1:
        delta = convert(stop - start, computation_dtype, False) / asarray(div, dtype=computation_dtype)
        iota_shape = [1] * len(bounds_shape)
        iota_shape[axis] = div
        real_dtype = np.finfo(computation_dtype).dtype
        step = lax.iota(real_dtype, div).reshape(iota_shape) / asarray(div, real_dtype)
        step = step.astype(computation_dtype)
        out = broadcast_start.reshape(bounds_shape) * (1 - step) + broadcast_stop.reshape(bounds_shape) * step
        if endpoint:
            out = concatenate([out, expand_dims(broadcast_stop, axis)], axis)
    elif num == 1:
        delta = asarray(np.nan if endpoint else stop - start, dtype=computation_dtype)
        out = broadcast_start.reshape(bounds_shape)
    else:  # num == 0, as numpy
        empty_shape = list(np.broadcast_shapes(start.shape, stop.shape))
        empty_shape.insert(axis, 0)
        delta = lax.full((), np.nan, computation_dtype)
        out = lax.full(empty_shape, 0, dtype)
    if dtype_kind(dtype) in "iu" and dtype_kind(out.dtype) not in "iu":
        out = floor(out)
    result = convert(out, dtype, False)
    return (result, delta) if retstep else result


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None, axis: int = 0):
    """``base`` to the powers ``linspace(start, stop, num)``.

    >>> jnp.logspace(0.0, 2.0, 3)
    Array([  1.,  10., 100.], dtype=float32)
    """
    dtype = None if dtype is None else user_dtype(to_dtype(dtype), "logspace")
    return _logspace(start, stop, operator.index(num), endpoint, base, dtype, operator.index(axis))


@staged_as_jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def _logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    # JAX's: start and stop in the inexact computation dtype, then power(base, linspace(...))
    from ._ufuncs import power

    dtype, start, stop = _spacing_dtype(start, stop, dtype, "logspace")
    lin = linspace(start, stop, num, endpoint=endpoint, retstep=False, dtype=None, axis=axis)
    return convert(power(base, lin), dtype, False)


def _spacing_dtype(start, stop, dtype, fun_name):
    """The result dtype of lin/log/geomspace and start, stop converted to its inexact kind."""
    start, stop = as_operand(start), as_operand(stop)
    if dtype is None:
        dtype = to_inexact_dtype(promote_types_weak(dtype_and_weak(x) for x in (start, stop))[0])
    else:
        dtype = user_dtype(to_dtype(dtype), fun_name)
    computation_dtype = to_inexact_dtype(dtype)
    return dtype, convert(start, computation_dtype, False), convert(stop, computation_dtype, False)


def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
    """``num`` samples spaced evenly on a log scale from ``start`` to ``stop``.

    >>> jnp.geomspace(1.0, 100.0, 3)
    Array([  1.,  10., 100.], dtype=float32)
    """
    dtype = None if dtype is None else user_dtype(to_dtype(dtype), "geomspace")
    return _geomspace(start, stop, operator.index(num), endpoint, dtype, operator.index(axis))


@staged_as_jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def _geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    # JAX's: the sign of start times logspace of the log10 magnitudes, moved to ``axis``
    from ._promote import canonicalize_axis
    from ._ufuncs import log10, sign

    dtype, start, stop = _spacing_dtype(start, stop, dtype, "geomspace")
    s = sign(start)
    res = s * logspace(
        log10(start / s), log10(stop / s), num, endpoint=endpoint, base=10.0, dtype=start.dtype
    )
    axis = canonicalize_axis(axis, res.ndim)
    if axis != 0:
        res = lax.transpose(res, (*range(1, axis + 1), 0, *range(axis + 1, res.ndim)))
    return convert(res, dtype, False)


def eye(N: int, M: int | None = None, k: int = 0, dtype=None, *, device=None):
    """A 2-D array with ones on the ``k``-th diagonal, committed to ``device`` when given.

    >>> jnp.eye(2)
    Array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    # JAX's lax._eye: iotas compared, then converted (a traced program shows the equations).
    n = concrete_shape((N,), context="argument of 'N' jnp.eye()")[0]  # (JAX's words, sic)
    shape = (n, n if M is None else concrete_shape((M,), context="argument 'M' of jnp.eye()")[0])
    if any(d < 0 for d in shape):
        raise ValueError(f"negative dimensions are not allowed, got {N} and {M}")
    # The iotas have the offset's dtype, a Python int's (JAX's jnp._eye): int64 under x64.
    index = core.default_dtype(int)
    rows, cols = lax.broadcasted_iota(index, shape, 0), lax.broadcasted_iota(index, shape, 1)
    # A traced offset (jnp.trace's, under jit) is converted as JAX's _eye does; else a literal.
    offset = lax.convert_element_type(k, index, False) if isinstance(k, Tracer) else index.type(int(k))
    diagonal = lax.eq(lax.add(rows, offset), cols)
    return _placed(lax.convert_element_type(diagonal, _default_dtype(dtype, "eye")), device)


def identity(n: int, dtype=None):
    return eye(n, dtype=None if dtype is None else _default_dtype(dtype, "identity"))


def tri(N: int, M: int | None = None, k: int = 0, dtype=None):
    # float32 unless asked (even with x64), as JAX's tri
    if transfers.active[0]:  # (JAX's tri compares iotas beside the offset, an array transferred: a
        # bool or numpy int32 one in its dtype, any other the default int, int64 under x64)
        is_kept = isinstance(k, (bool, np.bool_, np.int32))
        transfers.entering(k, np.asarray(k).dtype if is_kept else core.default_dtype(int), False)
    if isinstance(k, (bool, np.bool_)) or (isinstance(k, Array) and k.dtype == np.bool_):
        raise TypeError(f"offset must be an integer, got {Array(np.bool_(k))!r}")
    dtype = _default_dtype(dtype or np.float32, "tri")
    shape = concrete_shape((N, N if M is None else M))
    if core.staging_anywhere[0] and core._state.dynamic is not None:  # staged: JAX's equations
        return lax.convert_element_type(_triangle_mask(shape, int(k)), dtype)
    return Array(np.tri(*shape, int(k), dtype=dtype))


def _triangle_mask(shape, k):
    """JAX's ``tri(N, M, k)`` as staged: the row iota plus ``k`` compared with the column iota
    (symbolic sizes work the same way)."""
    index = core.default_dtype(int)  # (JAX's _tri: the Python int offset's dtype, int64 under x64)
    rows = lax.add(lax.broadcasted_iota(index, shape, 0), index.type(k))
    return lax.ge(rows, lax.broadcasted_iota(index, shape, 1))


def _select_triangle(m, k, lower):
    mask = _triangle_mask(m.shape[-2:], k if lower else k - 1)
    if m.ndim > 2:
        mask = lax.broadcast(mask, m.shape[:-2])
    zero = zeros_like(m)
    return lax.select(mask, m, zero) if lower else lax.select(mask, zero, m)


@staged_as_jit(name="tril", static_argnames=("k",))
def _tril(m, k):
    return _select_triangle(m, k, True)


@staged_as_jit(name="triu", static_argnames=("k",))
def _triu(m, k):
    return _select_triangle(m, k, False)


def _triangle(m, k, lower):
    m = as_operand(m)
    if m.ndim < 2:
        raise ValueError(f"{'tril' if lower else 'triu'} requires an array of at least 2 dimensions")
    return (_tril if lower else _triu)(m, k=int(k))


def tril(m, k: int = 0):
    """Lower triangle of the last two axes (entries above the ``k``-th diagonal zeroed); a ``jit``
    named ``tril`` selecting by an iota mask, as JAX's."""
    return _triangle(m, k, True)


def triu(m, k: int = 0):
    """Upper triangle of the last two axes (entries below the ``k``-th diagonal zeroed); a ``jit``
    named ``triu``, as JAX's."""
    return _triangle(m, k, False)


def meshgrid(*xi, copy: bool = True, sparse: bool = False, indexing: str = "xy"):
    """Coordinate grids from 1-D arrays; ``indexing='xy'`` swaps the first two axes (numpy's rule).

    >>> X, Y = jnp.meshgrid(jnp.arange(3), jnp.arange(2))
    >>> X.shape
    (2, 3)
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing!r}")
    check_arraylike("meshgrid", *xi)
    if not copy:
        raise ValueError("jax.numpy.meshgrid only supports copy=True")
    xs = [as_operand(x) for x in xi]
    if any(x.ndim != 1 for x in xs):
        raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shapes {[x.shape for x in xs]}")
    swap = indexing == "xy" and len(xs) >= 2  # (the first two grids built in swapped order, as JAX)
    if swap:
        xs[0], xs[1] = xs[1], xs[0]
    shape = [1 if sparse else x.shape[0] for x in xs]
    out = []
    for i, x in enumerate(xs):  # (broadcasts, not reshapes, as JAX's)
        out.append(
            lax.broadcast_in_dim(x, shape[:i] + [x.shape[0]] + shape[i + 1 :] if sparse else shape, (i,))
        )
    if swap:
        out[0], out[1] = out[1], out[0]
    return out


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """``function`` called on each index of ``shape``: vmapped over one axis per argument, so it sees
    scalars (as JAX's, unlike numpy's, which passes whole index grids).

    >>> jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=int)
    Array([[ 0,  1,  2],
           [10, 11, 12]], dtype=int32)
    """
    from ..api import vmap

    shape = concrete_shape(shape)
    d = _default_dtype(dtype, "arange")  # (JAX's fromfunction calls arange with it)
    fn = functools.partial(function, **kwargs) if kwargs else function
    for i in range(len(shape)):  # the innermost vmap maps the last argument
        fn = vmap(fn, in_axes=tuple(0 if j == len(shape) - 1 - i else None for j in range(len(shape))))
    return fn(*(arange(s, dtype=d) for s in shape))  # (iotas, staged while tracing)


def copy(a, order=None):
    return array(a, copy=True)


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    return asarray(np.frombuffer(buffer, dtype=to_dtype(dtype), count=count, offset=offset))


def diag_indices(n: int, ndim: int = 2):
    """``ndim`` copies of ``arange(n)``: an iota (staged, as JAX's, while tracing)."""
    n, ndim = operator.index(n), operator.index(ndim)
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (lax.iota(core.default_dtype(int), n),) * ndim


def _tri_indices(triangle, numpy_indices, n, k, m):
    """The coordinates of the ``triangle`` (``tril``/``triu``) of an ``(n, m)`` matrix of ones, by
    ``nonzero`` with their count as its size, as JAX computes them (staged while tracing)."""
    from ._searching import nonzero

    n, k = operator.index(n), operator.index(k)
    m = n if m is None else operator.index(m)
    size = len(numpy_indices(n, k, m)[0])
    return nonzero(triangle(ones((n, m)), k=k), size=size)


def tril_indices(n: int, k: int = 0, m: int | None = None):
    return _tri_indices(tril, np.tril_indices, n, k, m)


def triu_indices(n: int, k: int = 0, m: int | None = None):
    return _tri_indices(triu, np.triu_indices, n, k, m)


def indices(dimensions, dtype=None, sparse: bool = False):
    """A grid of the index along each of ``dimensions`` (``sparse``: one broadcastable axis each).

    >>> jnp.indices((2, 3), sparse=True)[1]
    Array([[0, 1, 2]], dtype=int32)
    """
    d = _default_dtype(dtype, "indices", int)
    check_iota_dtype(d)
    dimensions = tuple(int(x) for x in dimensions)
    if core.staging_anywhere[0] and core._state.dynamic is not None:  # staged: JAX's iotas
        grids = []
        for i, n in enumerate(dimensions):
            shape = (1,) * i + (n,) + (1,) * (len(dimensions) - i - 1) if sparse else dimensions
            grids.append(lax.broadcast_in_dim(lax.iota(d, n), shape, (i,)))
        if sparse:
            return tuple(grids)
        return stack(grids, 0) if grids else Array(np.zeros((0,), d))
    res = np.indices(dimensions, dtype=d, sparse=sparse)
    return tuple(Array(r) for r in res) if sparse else Array(res)


del math


from ._vectorize import vectorize  # noqa: E402,F401  (jnp.vectorize, defined there)
