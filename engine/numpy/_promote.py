"""Turning ``jnp`` arguments into lax operands: checking, dtype promotion and numpy broadcasting."""

from __future__ import annotations

import operator

import numpy as np

from .. import core, dims, held_arrays, lax, narrow_dtypes, transfers
from ..lax.structural import convert_values
from ..core import Array, Tracer
from ..errors import ConcretizationTypeError, invalid_shape_error, traced_shape_error
from ..state.types import is_ref
from ..jitted_tangents import typed_as_primals
from ..lax.api import _concrete_jvp, _check_extended_conversion
from ..staging import host_constant
from ..sharding import get_abstract_mesh
from ._dtypes import dtype_and_weak, promote_types_weak
from ..narrow_dtypes import kind as dtype_kind

_SCALARS = (bool, int, float, complex)


def is_arraylike(x) -> bool:
    return (
        isinstance(x, (Array, Tracer, np.ndarray, np.generic) + _SCALARS)
        or hasattr(x, "__jax_array__")
        or dims.is_symbolic_dim(x)
    )


# What JAX's message names as the type of a ref given to a jnp function: JAX's jnp functions are
# jitted, so the ref reaches the check as jit's tracer of it.
_REF_AS_JAX_SEES_IT = "<class 'jax._src.interpreters.partial_eval.DynamicJaxprTracer'>"


def check_arraylike(name: str, *args):
    for i, a in enumerate(args):
        if is_ref(a):
            raise TypeError(
                f"{name} requires ndarray or scalar arguments, got {_REF_AS_JAX_SEES_IT} at position {i}."
            )
        if not is_arraylike(a):
            raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(a)} at position {i}.")


def shape_of(x) -> tuple:
    if type(x) is Array:
        return x._value.shape
    if isinstance(x, Array):
        return x.shape
    if isinstance(x, Tracer):
        return x.aval.shape
    return np.shape(x)


def ndim_of(x) -> int:
    return len(shape_of(x))


def as_operand(x):
    """An Array or Tracer for ``x`` (Python scalars stay weakly typed)."""
    if isinstance(x, (Array, Tracer)):
        return x
    if dims.is_symbolic_dim(x):
        return x.dimension_as_value()
    if hasattr(x, "__jax_array__"):
        core.refuse_jax_array_protocol()
    if transfers.active[0]:
        transfers.entering(x)
    if type(x) in _SCALARS:
        return Array(np.asarray(x, core.python_scalar_dtype(x)), type(x) is not bool)
    check_arraylike("jnp function", x)
    if type(x) is np.ndarray:
        return held_arrays.trace_copy(x, host_constant)
    return Array(np.asarray(x))


def convert(x, dtype: np.dtype, weak: bool = False):
    """``x`` as ``dtype``: host values convert in numpy, arrays with convert_element_type where a
    trace stages it (JAX's conversion of a constant array is an equation too)."""
    _check_extended_conversion(getattr(x, "dtype", None), dtype)
    if isinstance(x, Tracer) or getattr(x, "on_mesh", False) or getattr(x, "on_one_device_mesh", False):
        # (sharded, or committed to a device: converted on its devices)
        a = core.get_aval(x)
        if a.dtype == dtype and a.weak_type == weak and not _concrete_jvp(x):
            return x
        return lax.convert_element_type(x, dtype, weak)
    if isinstance(x, Array) and x.dtype == dtype and x.weak_type == weak:
        return x
    if isinstance(x, Array) and core._state.dynamic is not None:
        return lax.convert_element_type(x, dtype, weak)  # (staged, as JAX's: the constant is read)
    if dims.is_symbolic_dim(x):
        return lax.convert_element_type(x.dimension_as_value(), dtype, weak)
    if hasattr(x, "__jax_array__"):
        core.refuse_jax_array_protocol()
    if transfers.active[0]:
        transfers.entering(x)
    v = core.to_numpy(x) if isinstance(x, Array) else x
    if type(v) is np.ndarray and v.dtype == dtype and v.shape:
        if v is x and not weak:
            return held_arrays.trace_copy(x, host_constant)
        return Array(core.host_copy(v) if v is x else v, weak)
    if type(v) is int and dtype_kind(np.dtype(dtype)) in "iu":
        info = narrow_dtypes.iinfo(dtype)
        if not info.min <= v <= info.max:  # wraps, as JAX's np.asarray(v).astype(dtype) does
            if not -(2**63) <= v < 2**64:
                raise OverflowError(f"Python int {v} too large to convert to {np.dtype(dtype).name}")
            return Array(np.asarray(v).astype(dtype), weak)
    if type(v) is float and abs(v) <= _FLOAT_MAX.get(dtype, -1.0):  # a cast that cannot overflow
        return Array(convert_values(np.asarray(v), new_dtype=dtype), weak)
    with np.errstate(all="ignore"):  # (2 us: eager grads convert several Python scalars each)
        return Array(convert_values(np.asarray(v), new_dtype=dtype), weak)


# Python floats that convert to these dtypes without numpy's overflow warning.
_FLOAT_MAX = {np.dtype(t): float(np.finfo(t).max) for t in (np.float32, np.float64)}


def _promoted(x, dtype, weak):
    """``x`` converted for a lax op; a weak Python float or complex of its own default dtype stays
    that Python scalar, as in JAX (a jaxpr prints it as written)."""
    if type(x) is int:  # (an argument of JAX's jitted jnp function: a weak int32/int64 first)
        info = np.iinfo(core.python_scalar_dtype(x))
        if not info.min <= x <= info.max:
            raise OverflowError(f"Python int {x} too large to convert to {info.dtype.name}")
    out = convert(x, dtype, weak)
    if weak and type(x) in (float, complex) and np.dtype(dtype) == core.python_scalar_dtype(x):
        out.python_value = x
    return out


def _python_literal(x):
    out = as_operand(x)
    if type(x) in (float, complex):
        out.python_value = x
    return out


def promote_dtypes(*args):
    """Convert all args to their joint dtype (JAX lattice); weak only if the join is weak."""
    if len(args) < 2:  # (JAX's lax.asarray: a Python float stays the literal as written)
        return [_python_literal(a) for a in args]
    extended = {d for a in args if isinstance(d := getattr(a, "dtype", None), core.ExtendedDType)}
    if extended:  # typed PRNG keys: joined with keys of their own dtype only
        if len(extended) != 1 or any(
            not isinstance(getattr(a, "dtype", None), core.ExtendedDType) for a in args
        ):
            dtypes = ", ".join(str(core.get_aval(a).dtype) for a in args)
            raise TypeError(f"Cannot promote dtypes {dtypes}: keys mix with no other dtype.")
        return list(args)
    dtype, weak = promote_types_weak(dtype_and_weak(a) for a in args)
    return _convert_beside_tracers(args, dtype, weak)


def _convert_beside_tracers(args, dtype, weak):
    """Each arg as ``dtype``. Beside a traced operand, a concrete array is converted in the trace
    (JAX stages convert_element_type there: it folds only scalar constants, Python and numpy ones
    and the literals the trace made of them, so ``x * jnp.int32(3)`` multiplies by ``3.0``)."""
    if not any(isinstance(a, Tracer) for a in args):
        return [_promoted(a, dtype, weak) for a in args]
    out = []
    for a in args:
        staged = (isinstance(a, Array) and not (a.ndim == 0 and not held_arrays.held(a))) or (
            isinstance(a, np.ndarray) and a.ndim > 0
        )
        if staged and (a.dtype != dtype or (isinstance(a, Array) and a.weak_type != weak)):
            out.append(lax.convert_element_type(as_operand(a), dtype, weak))
        else:
            out.append(_promoted(a, dtype, weak))
    return out


def to_inexact_dtype(dtype: np.dtype) -> np.dtype:
    # As JAX's table: 64-bit integers become float64 (float32 while x64 is off), the rest float32.
    if dtype_kind(dtype) in "fc":
        return dtype
    return core.canonical_dtype(np.float64) if dtype.itemsize == 8 else np.dtype(np.float32)


def promote_dtypes_inexact(*args):
    """Promote, then move integers and bools to floats (keeping weakness)."""
    dtype, weak = promote_types_weak(dtype_and_weak(a) for a in args)
    dtype = to_inexact_dtype(dtype)
    return _convert_beside_tracers(args, dtype, weak)


def broadcast_shapes(*shapes) -> tuple:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(map(tuple, shapes))}") from None
    except TypeError:  # symbolic dimensions
        return dims.broadcast_shapes(*shapes)


def broadcast_to_shape(x, shape, out_sharding=None):
    """numpy-style broadcast of an operand to ``shape`` (trailing alignment, size-1 stretching),
    laid out by ``out_sharding`` when given (the broadcast's, as JAX's)."""
    xs = shape_of(x)
    shape = tuple(shape)
    if xs == shape:
        if out_sharding is not None and not _laid_out_as(x, out_sharding):
            from ..sharding import reshard

            return reshard(as_operand(x), out_sharding)
        return as_operand(x)
    if len(xs) > len(shape):
        raise ValueError(
            f"Cannot broadcast to shape with fewer dimensions: arr_shape={tuple(xs)} shape={shape}"
        )
    if any(a not in (1, b) for a, b in zip(xs[::-1], shape[::-1])):
        dtype = np.dtype(dtype_and_weak(x)[0]).name
        raise ValueError(
            f"Incompatible types for broadcasting: input type={dtype}[{','.join(map(str, xs))}] and "
            f"requested type={dtype}[{','.join(map(str, shape))}]"
        )
    lead = len(shape) - len(xs)
    # (size-1 axes stretch in broadcast_in_dim itself, as JAX's lax.broadcast_to)
    return lax.broadcast_in_dim(as_operand(x), shape, tuple(range(lead, len(shape))), out_sharding)


def promote_shapes(*args):
    """The operands broadcast to their common shape (JAX's ``_broadcast_arrays``), laid out alike
    on an explicit mesh (by ``lax.broadcast_shardings``)."""
    shapes = [shape_of(a) for a in args]
    if all(s == shapes[0] for s in shapes):
        return [as_operand(a) for a in args]
    shape = broadcast_shapes(*shapes)
    layout = _broadcast_layout(args, shapes)
    return [broadcast_to_shape(a, shape, layout) for a in args]


def _laid_out_as(x, sharding) -> bool:
    """Whether the type of ``x`` names ``sharding`` already (JAX's broadcast_to keeps it as it is).
    A value whose layout the trace cannot tell (one a JVP or vmap wraps) is taken as laid out so:
    the partitioner lays an operand split over no axis out as its operation needs."""
    from ..sharded_types import staged_layout

    s = staged_layout(x) if isinstance(x, Tracer) else None
    return s is None or s._normalized(8) == sharding._normalized(8)


def _broadcast_layout(args, shapes):
    if not get_abstract_mesh().explicit_axes:
        return None
    from ..parallel.type_rules import broadcast_sharding
    from ..sharded_types import typed_layout

    return broadcast_sharding(shapes, [typed_layout(a) if isinstance(a, Tracer) else None for a in args])


def refuse_keys(*args) -> None:
    """The refusal of typed PRNG keys JAX's reductions (and ``unique``) give: their dtype
    canonicalization refuses a key's dtype."""
    for a in args:
        if isinstance(getattr(a, "dtype", None), core.ExtendedDType):
            raise TypeError(f"Cannot interpret '{a.dtype}' as a data type")


def check_numeric(name: str, *args):
    """Arithmetic takes no typed PRNG keys (extended dtypes) beside other dtypes and no float0
    arrays (the tangents of integer values), with JAX's errors (keys alone are for lax to refuse:
    ``eq``/``ne`` take them)."""
    if any(isinstance(getattr(a, "dtype", None), core.ExtendedDType) for a in args) and (
        len({core.get_aval(a).dtype for a in args}) > 1
    ):
        dtypes = ", ".join(str(core.get_aval(a).dtype) for a in args)
        raise TypeError(f"{name} does not accept dtypes {dtypes}.")
    if any(getattr(a, "dtype", None) == core.float0 for a in args):
        raise TypeError(
            f"Called {name} with a float0 array: float0 values (the tangents of integer inputs) "
            "take part in no arithmetic; cast with np.zeros_like(arr, dtype=float) if zeros are "
            "meant. A float0 usually means a gradient was taken with respect to an integer."
        )


# ``jax_numpy_rank_promotion``: "allow", "warn" or "raise" when operands of different ranks broadcast.
rank_promotion = ["allow"]


def check_rank_promotion(name: str, args) -> None:
    """JAX's check of implicit rank promotion (scalars aside) for the jnp function ``name``."""
    if rank_promotion[0] == "allow":
        return
    shapes = [shape_of(a) for a in args]
    if len({len(s) for s in shapes if s}) < 2:
        return
    shown = " ".join(map(str, shapes))
    if rank_promotion[0] == "warn":
        import warnings

        warnings.warn(
            f"Following NumPy automatic rank promotion for {name} on shapes {shown}. Set the "
            "jax_numpy_rank_promotion config option to 'allow' to disable this warning; for more "
            "information, see https://docs.jax.dev/en/latest/rank_promotion_warning.html.",
            stacklevel=4,
        )
    else:
        raise ValueError(
            f"Operands could not be broadcast together for {name} on shapes {shown} and with the config "
            "option jax_numpy_rank_promotion='raise'. For more information, see "
            "https://docs.jax.dev/en/latest/rank_promotion_warning.html."
        )


def promote_args(name: str, *args):
    args = typed_as_primals(args)  # (as inside JAX's jit of the jnp function)
    check_arraylike(name, *args)
    check_rank_promotion(name, args)
    return promote_shapes_keep_scalars(*promote_dtypes(*args))


def promote_shapes_keep_scalars(*args):
    """Operands of a binary lax op that broadcasts itself (as JAX's ``_promote_shapes``): 0-d
    operands stay 0-d and size-1 axes stay size 1; only ranks are equalized, by leading size-1
    axes. So jaxprs read ``mul a 2.0:f32[]`` and ``add x:f32[4,2] b:f32[1,2]``."""
    shapes = [shape_of(a) for a in args]
    ranks = {len(s) for s in shapes if s}
    if len(ranks) < 2:  # (sizes that do not broadcast: the lax op raises its TypeError, as in JAX)
        return [as_operand(a) for a in args]
    rank = len(broadcast_shapes(*shapes))
    return [
        lax.expand_dims(as_operand(a), tuple(range(rank - len(s)))) if s and len(s) < rank else as_operand(a)
        for a, s in zip(args, shapes)
    ]


# The dtypes a traced operand may have for _traced_pair (no narrow, extended or float0 ones).
_PLAIN_DTYPES = frozenset(
    np.dtype(t)
    for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
    + (np.float16, np.float32, np.float64, np.complex64, np.complex128)
)


def _traced_pair(x, y, inexact: bool):
    """The common case of a binary jnp op under a transformation, decided without the general
    path's steps: two tracers of one rank (or a scalar), or a tracer and a Python float, already
    of the joined dtype. Returns what the general path returns for them, or None for any other
    case (conversions, broadcasting, config checks, transfer logging)."""
    if rank_promotion[0] != "allow" or transfers.active[0]:
        return None
    pairs = []
    rank = None
    for a in (x, y):
        if type(a) is float:
            pairs.append((core._PYTHON_DTYPE[float], True))
        elif isinstance(a, Tracer):
            aval = a.aval
            if type(aval) is not core.ShapedArray or aval.dtype not in _PLAIN_DTYPES:
                return None
            n = len(aval.shape)
            if n:
                if rank is not None and rank != n:
                    return None
                rank = n
            pairs.append((aval.dtype, aval.weak_type))
        else:
            return None
    dtype, weak = promote_types_weak(pairs)
    if inexact:
        dtype = to_inexact_dtype(dtype)
    out = []
    for a, (d, w) in zip((x, y), pairs):
        if type(a) is float:
            if abs(a) > _FLOAT_MAX.get(dtype, -1.0):  # (float16, complex, or an overflow: general)
                return None
            c = Array(convert_values(np.asarray(a), new_dtype=dtype), weak)
            if weak and dtype == d:  # (d: the Python float's own dtype)
                c.python_value = a
            out.append(c)
        elif d == dtype and w == weak:
            out.append(a)
        else:
            return None
    return out


def promote_elementwise(name: str, *args):
    """Operands of one elementwise lax op: dtypes joined, shapes broadcast except scalars."""
    args = typed_as_primals(args)  # (as inside JAX's jit of the jnp function)
    if len(args) == 2:
        out = _traced_pair(args[0], args[1], False)
        if out is not None:
            return out
    check_arraylike(name, *args)
    check_numeric(name, *args)
    check_rank_promotion(name, args)
    return promote_shapes_keep_scalars(*promote_dtypes(*args))


def promote_elementwise_inexact(name: str, *args):
    args = typed_as_primals(args)  # (as inside JAX's jit of the jnp function)
    if len(args) == 2:
        out = _traced_pair(args[0], args[1], True)
        if out is not None:
            return out
    check_arraylike(name, *args)
    check_rank_promotion(name, args)
    return promote_shapes_keep_scalars(*promote_dtypes_inexact(*args))


def promote_dtypes_numeric(*args):
    """Promote, then move bools to int32, x64 or not, as JAX's ``to_numeric_dtype`` (keeping
    weakness)."""
    dtype, weak = promote_types_weak(dtype_and_weak(a) for a in args)
    if dtype == np.bool_:
        dtype = np.dtype(np.int32)
    return _convert_beside_tracers(args, dtype, weak)


def promote_args_numeric(name: str, *args):
    args = typed_as_primals(args)  # (as inside JAX's jit of the jnp function)
    check_arraylike(name, *args)
    check_numeric(name, *args)
    check_rank_promotion(name, args)
    return promote_shapes_keep_scalars(*promote_dtypes_numeric(*args))


def promote_args_inexact(name: str, *args):
    if len(args) == 1 and not core.staging_anywhere[0] and type(args[0]) is Array:
        if args[0]._value.dtype.char in "fd":  # (a concrete float array: the general path returns it)
            return [args[0]]
    args = typed_as_primals(args)  # (as inside JAX's jit of the jnp function)
    check_arraylike(name, *args)
    check_rank_promotion(name, args)
    return promote_shapes_keep_scalars(*promote_dtypes_inexact(*args))


def promote_args_complex(name: str, *args):
    """Promote to one complex dtype (float32 -> complex64, ...), keeping weakness, and broadcast."""
    args = typed_as_primals(args)  # (as inside JAX's jit of the jnp function)
    check_arraylike(name, *args)
    check_rank_promotion(name, args)
    dtype, weak = promote_types_weak(dtype_and_weak(a) for a in args)
    dtype = to_inexact_dtype(dtype)
    if dtype_kind(dtype) != "c":
        dtype = np.dtype(np.complex128 if dtype.itemsize == 8 else np.complex64)
    return promote_shapes(*_convert_beside_tracers(args, dtype, weak))


def canonicalize_axis(axis, ndim: int) -> int:
    if isinstance(axis, Tracer):
        axis = core.concrete_or_error(axis, "axis")
    # (a float axis is a TypeError, as JAX's operator.index makes it; a scalar's axis 0 or -1 is
    # allowed, as numpy allows it)
    return 0 if ndim == 0 and operator.index(axis) in (0, -1) else dims.canonicalize_axis(axis, ndim)


def check_axes_index(shape, axis) -> None:
    """JAX's mean / var / argmax / split read ``shape[axis]`` before they check ``axis``: an axis out
    of range is Python's IndexError there (ValueError in the functions that canonicalize first)."""
    if axis is not None:
        for a in axis if isinstance(axis, (tuple, list)) else (axis,):
            shape[operator.index(a)]


def canonicalize_axes(axis, ndim: int) -> tuple:
    """None -> all axes; int or sequence -> non-negative axes in the order given (duplicates
    rejected): JAX's reductions bind them so, and print reduce_sum[axes=(1, 0)] for axis=(-1, 0)."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(canonicalize_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"duplicate value in 'axis': {axis}")
        return axes
    if isinstance(axis, Tracer):
        return (canonicalize_axis(axis, ndim),)
    return canonicalize_axes(list(index_tuple(axis)), ndim)


def index_tuple(x) -> tuple:
    """JAX's ``_ensure_index_tuple``: an index, or a sequence of them, as a tuple of ints. A float
    is neither, and raises what iterating it raises ('float' object is not iterable), as in JAX.

    >>> index_tuple(1), index_tuple((0, 2))
    ((1,), (0, 2))
    """
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(map(operator.index, x))


def concrete_int(x, what: str) -> int:
    """A Python int from a static value (or a symbolic dimension, as it is); traced values raise
    JAX's concretization error."""
    if type(x) is int or getattr(x, "_is_dim_expr", False):
        return x
    if isinstance(x, Tracer):
        return operator.index(core.concrete_or_error(x, what))
    return operator.index(x)  # (2.0 is no count: Python's TypeError, as JAX's operator.index)


def concrete_shape(shape, what="shape", context: str | None = None) -> tuple:
    """A shape of Python ints. A traced dimension is JAX's TypeError, naming the shape given (and
    ``context``, the argument, where JAX names it)."""
    if (
        isinstance(shape, (int, np.integer))
        or dims.is_symbolic_dim(shape)
        or (isinstance(shape, Array) and shape.ndim == 0)
        or (isinstance(shape, Tracer) and shape.ndim == 0)
        or not np.iterable(shape)
    ):
        shape = (shape,)
    try:
        return tuple(
            concrete_int(d, what) if isinstance(d, Tracer) or type(d) is int else dims.as_dim(d)
            for d in shape
        )
    except ConcretizationTypeError:
        if what != "shape":
            raise
        raise traced_shape_error(shape) from None
    except TypeError:  # (a dimension that is no integer: 2.0)
        raise invalid_shape_error(tuple(shape), context) from None
