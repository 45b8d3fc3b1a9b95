"""``engine.lax``: thin public wrappers that bind primitives (JAX's ``jax.lax`` signatures)."""

from __future__ import annotations

import builtins
import math
import enum
import sys
import warnings
from typing import Sequence, SupportsIndex

import numpy as np

from .. import ad, core, transfers
from .. import dims as _dims
from ..core import Array, Tracer, Value
from ..errors import ConcretizationTypeError, invalid_shape_error, traced_shape_error
from . import elementwise as ew
from .accuracy import OPS as ACCURACY_OPS
from . import structural as st
from .same_dtypes import check_same_dtypes
from .joining import concatenate, split, stack, unstack  # noqa: F401  (with their primitives)
from ..narrow_dtypes import kind as dtype_kind, to_dtype
from ..canonical_dtypes import _ENGINE_DIR, user_dtype
from .laid_out import _bind_laid_out, _layout_param, _relays


def _aval(x):
    return core.get_aval(x)


def _scalar_like(val, like_dtype, weak=True):
    out = Array(np.asarray(val, dtype=like_dtype), weak)
    if dtype_kind(out.dtype) == dtype_kind(core.python_scalar_dtype(val)):  # (JAX takes only these)
        out.python_value = val  # JAX's literal keeps the Python scalar: printed as written
    return out


# How far up int < float < complex a Python scalar's kind sits: where a scalar may take the other
# operand's dtype (the engine's own calls, pow's exponent), only if that loses nothing.
_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def _is_python_scalar(x):
    return isinstance(x, (int, float, complex, bool))


def _binary_args(x, y, name="binary op", strict=True):
    """The two operands of a lax binary op, Python scalars made arrays.

    ``strict`` is JAX's rule, lax never promotes: a Python scalar is a weak array of its own default
    dtype (int32, float32, complex64) and both operands must then have one dtype, so ``lax.mul(x, 3)``
    with a float ``x`` is a TypeError and ``lax.mul(x, 3.0)`` is fine. Otherwise (``lax.complex``) a
    scalar takes the other operand's dtype if that loses nothing."""
    px, py = _is_python_scalar(x), _is_python_scalar(y)
    if px and py:
        dx, dy = core.python_scalar_dtype(x), core.python_scalar_dtype(y)
        if dx != dy:
            _mismatch(name, dx, dy)
        return x, y
    if not strict or name == "pow":  # pow: an integer exponent takes the base's dtype, as in JAX
        if px and name == "pow" and dtype_kind(_aval(y).dtype) in "iu":  # (a scalar base keeps its own)
            return _scalar_like(x, core.python_scalar_dtype(x)), y
        if px:
            _check_scalar_fits(name, x, _aval(y).dtype, True)
            return _scalar_like(x, _aval(y).dtype), y
        if py:
            _check_scalar_fits(name, y, _aval(x).dtype, False)
            return x, _scalar_like(y, _aval(x).dtype)
        return x, y
    dx = core.python_scalar_dtype(x) if px else _aval(x).dtype
    dy = core.python_scalar_dtype(y) if py else _aval(y).dtype
    if dx != dy:
        _mismatch(name, dx, dy)
    if transfers.active[0]:  # (a public lax op's Python scalar operand; numpy ones: at evaluation)
        for v, scalar in ((x, px), (y, py)):
            if scalar:
                transfers.entering(v)
    return (_scalar_like(x, dx) if px else x), (_scalar_like(y, dy) if py else y)


def _const_like(x, c):
    """``c`` (a Python scalar) as a constant of ``x``'s dtype, for the engine's own lax calls.

    Public lax never promotes, whoever calls it, so internal code builds its constants explicitly
    (JAX's ``lax._const``): a weak array that keeps the Python scalar where its kind matches, so a
    jaxpr prints it as written. Next to another Python scalar ``c`` stays as it is."""
    if _is_python_scalar(x):
        return c
    dtype = _aval(x).dtype
    if _KIND_RANK[dtype_kind(core.python_scalar_dtype(c))] > _KIND_RANK.get(dtype_kind(dtype), 3):
        raise TypeError(f"the constant {c!r} does not fit an operand of dtype {dtype.name}")
    return _scalar_like(c, dtype)


def _check_scalar_fits(name, scalar, dtype, scalar_first):
    sd = core.python_scalar_dtype(scalar)
    if _KIND_RANK[dtype_kind(sd)] > _KIND_RANK.get(dtype_kind(dtype), 3):
        _mismatch(name, *((sd, dtype) if scalar_first else (dtype, sd)))


def _mismatch(name, dx, dy):
    ew.check_operand_kinds(name, dx, dy)
    check_same_dtypes(name, dx, dy)


def _binary(p):
    def f(x, y):
        x, y = _binary_args(x, y, p.name)
        return p.bind(x, y)

    def f_out_dtype(x, y, *, out_dtype=None):  # mul: JAX's out_dtype param
        # (both operands converted to it, then multiplied, as JAX computes it; staged as converts
        # and a mul, not JAX's mul[out_dtype=]: a gradient multiplies in out_dtype, then rounds)
        if out_dtype is not None:
            x, y = convert_element_type(x, out_dtype), convert_element_type(y, out_dtype)
        x, y = _binary_args(x, y, p.name)
        return p.bind(x, y, out_dtype=None)

    def f_x1_x2(x1, x2):  # (nextafter: JAX's parameter names)
        x1, x2 = _binary_args(x1, x2, p.name)
        return p.bind(x1, x2)

    f = f_out_dtype if p is ew.mul_p else f_x1_x2 if p is ew.nextafter_p else f

    f.__name__ = f.__qualname__ = p.name  # (repr shown as a jaxpr param: JAX's <function max at ..>)
    f.__doc__ = f"Elementwise ``{p.name}`` of two arrays of the same shape and dtype (scalars broadcast)."
    return f


def _unary(p):
    def f(x):
        return p.bind(x)

    def f_with_accuracy(x, *, accuracy=None):  # (printed only when given, as JAX's: ir.pp_params_rules)
        return p.bind(x, accuracy=accuracy)

    f = f_with_accuracy if p.name in ACCURACY_OPS else f
    f.primitive = p  # (jnp's eager fast path runs its impl: _ufunc_dispatch._unary_inexact)
    f.__name__ = p.name
    f.__doc__ = f"Elementwise ``{p.name}``."
    return f


add, sub, mul, div, rem, pow, max, min, atan2, nextafter = map(
    _binary,
    (
        ew.add_p,
        ew.sub_p,
        ew.mul_p,
        ew.div_p,
        ew.rem_p,
        ew.pow_p,
        ew.max_p,
        ew.min_p,
        ew.atan2_p,
        ew.nextafter_p,
    ),
)
bitwise_and, bitwise_or, bitwise_xor = map(_binary, (ew.and_p, ew.or_p, ew.xor_p))
shift_left, shift_right_logical, shift_right_arithmetic = map(
    _binary, (ew.shift_left_p, ew.shift_right_logical_p, ew.shift_right_arithmetic_p)
)
eq, ne, lt, le, gt, ge = map(_binary, (ew.eq_p, ew.ne_p, ew.lt_p, ew.le_p, ew.gt_p, ew.ge_p))
neg, sign, floor, ceil, is_finite, exp, exp2, log, log1p, expm1, tanh, logistic = map(
    _unary,
    (
        ew.neg_p,
        ew.sign_p,
        ew.floor_p,
        ew.ceil_p,
        ew.is_finite_p,
        ew.exp_p,
        ew.exp2_p,
        ew.log_p,
        ew.log1p_p,
        ew.expm1_p,
        ew.tanh_p,
        ew.logistic_p,
    ),
)
sin, cos, tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh = map(
    _unary,
    (
        ew.sin_p,
        ew.cos_p,
        ew.tan_p,
        ew.asin_p,
        ew.acos_p,
        ew.atan_p,
        ew.sinh_p,
        ew.cosh_p,
        ew.asinh_p,
        ew.acosh_p,
        ew.atanh_p,
    ),
)
sqrt, rsqrt, cbrt, abs, erf, erf_inv, bitwise_not, population_count = map(
    _unary,
    (ew.sqrt_p, ew.rsqrt_p, ew.cbrt_p, ew.abs_p, ew.erf_p, ew.erf_inv_p, ew.not_p, ew.population_count_p),
)
for _f, _name in ((bitwise_and, "bitwise_and"), (bitwise_or, "bitwise_or"), (bitwise_xor, "bitwise_xor"),
                  (bitwise_not, "bitwise_not")):  # fmt: skip
    _f.__name__ = _name  # (JAX's functions' names: jit(lax.bitwise_and) lowers as @jit_bitwise_and)
# JAX spells these with trailing underscores because of Python keywords.
bitwise_and_ = bitwise_and
and_, or_, xor, not_ = bitwise_and, bitwise_or, bitwise_xor, bitwise_not


class RoundingMethod(enum.IntEnum):
    """How ``round`` breaks ties: away from zero (0) or to the nearest even integer (1)."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x, rounding_method=0):
    """Elementwise round; ``rounding_method=0`` rounds half away from zero, ``1`` to even.

    >>> round(np.array([0.5, 1.5], np.float32), RoundingMethod.TO_NEAREST_EVEN)
    Array([0., 2.], dtype=float32)
    """
    return ew.round_p.bind(x, rounding_method=int(rounding_method))


def integer_pow(x, y: int):
    """``x ** y`` for a static integer ``y``.

    >>> lax.integer_pow(jnp.float32(2.0), -2)
    Array(0.25, dtype=float32)
    """
    if not isinstance(y, (int, np.integer)):  # (JAX's error: its rule takes y's bits, y & 1)
        raise TypeError(f"unsupported operand type(s) for &: '{type(y).__name__}' and 'int'")
    return ew.integer_pow_p.bind(x, y=int(y))


def square(x):
    """``x * x`` (its own primitive, as in JAX)."""
    return ew.square_p.bind(x)


def reciprocal(x):
    """``1 / x``, staged as JAX stages it: ``integer_pow[y=-1]``."""
    return integer_pow(x, -1)


def _from_engine() -> bool:
    """Whether the caller of the caller is the engine's own code (not the user's)."""
    return sys._getframe(2).f_code.co_filename.startswith(_ENGINE_DIR)


def _check_extended_conversion(old_dtype, new_dtype) -> None:
    """JAX's refusal to cast typed keys to numbers or numbers to keys (``key_data`` and
    ``wrap_key_data`` do that)."""
    if old_dtype != new_dtype and (
        isinstance(old_dtype, core.ExtendedDType) or isinstance(new_dtype, core.ExtendedDType)
    ):
        raise ValueError(f"Cannot convert_element_type from {old_dtype} to {new_dtype}")


def convert_element_type(operand, new_dtype, weak_type: bool = False):
    """Cast ``operand`` to ``new_dtype`` (canonicalized: no 64-bit types while x64 is off)."""
    x = operand
    requested = new_dtype
    new_dtype = core.canonical_dtype(new_dtype)
    _check_extended_conversion(getattr(x, "dtype", None), new_dtype)
    from_user = not _from_engine()
    if new_dtype is not requested and new_dtype != requested and from_user:
        user_dtype(to_dtype(requested), "convert_element_type")  # (JAX's warning: 64 bits without x64)
    if from_user and dtype_kind(_aval(x).dtype) == "c" and dtype_kind(new_dtype) != "c":
        warnings.warn(
            "Casting complex values to real discards the imaginary part",
            np.exceptions.ComplexWarning,
            stacklevel=2,
        )
    if transfers.active[0] and isinstance(x, transfers.HOST_TYPES):
        # JAX converts an int, or a scalar made strong, on the host: what is transferred is the result
        if type(x) is int or (not weak_type and isinstance(x, (bool, float, complex, np.generic))):
            if transfers.entering(x, new_dtype, weak_type):
                return Array(np.asarray(x, new_dtype), bool(weak_type))
        elif transfers.entering(x):
            x = Array(core.to_numpy(x), core.is_weak(x))
    if (type(x) in (bool, int, float, complex) or isinstance(x, np.generic)) and isinstance(
        new_dtype, np.dtype
    ):
        # As JAX 0.10.2: a scalar made strong is converted on the host (a literal, no equation),
        # unless it is a non-finite float going to an integer type or does not fit.
        to_int = np.issubdtype(new_dtype, np.integer)
        if (
            not weak_type
            and new_dtype != core.float0
            and not (to_int and isinstance(x, (float, complex, np.inexact)) and not np.isfinite(x))
        ):
            try:
                return Array(np.asarray(x).astype(new_dtype) if type(x) is int else np.asarray(x, new_dtype))
            except OverflowError:
                pass
    aval = _aval(x)
    if (
        aval.dtype == new_dtype
        and aval.weak_type == weak_type
        and not isinstance(x, (int, float, bool, complex))
        and not _concrete_jvp(x)
    ):
        if type(x) is np.ndarray and core._state.dynamic is None:  # (an array of the engine's, as JAX's)
            return Array(np.asarray(x, new_dtype), bool(weak_type))
        return x
    return st.convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=bool(weak_type), sharding=None)


def _concrete_jvp(x) -> bool:
    """An eager jvp's tracer (of a concrete primal): JAX converts it even to its own type, so its
    tangent takes that type (a Python float tangent becomes an array; a strong tangent of a weak
    primal becomes weak), as jnp's promotions do to the operands of concatenate or stack. (Only
    where that changes the tangent: otherwise the conversion is skipped, which computes the same.)"""
    if type(x) is not ad.JVPTracer:
        return False
    from ..jitted_tangents import mistyped

    return mistyped(x) and x.concrete_value() is not None


def _shape(sizes: Sequence) -> tuple:
    """Sizes as ints, or symbolic dimensions as they are (shape polymorphism)."""
    try:
        return tuple(d if type(d) is int else _dims.as_dim(d) for d in sizes)
    except ConcretizationTypeError:
        raise traced_shape_error(tuple(sizes)) from None
    except TypeError:  # (a dimension that is no integer: 2.0)
        raise invalid_shape_error(tuple(sizes)) from None


def broadcast_in_dim(
    operand: Value,
    shape: Sequence[SupportsIndex],
    broadcast_dimensions: Sequence[SupportsIndex],
    out_sharding=None,
) -> Value:
    """Broadcast ``x`` to ``shape``; operand axis ``i`` becomes output axis ``broadcast_dimensions[i]``.
    ``out_sharding`` (a sharding, or a ``PartitionSpec`` over the current mesh) lays the result out:
    staged, the equation carries it (its type shows it); eagerly the result is moved there."""
    x = operand
    for d in shape:  # (JAX checks the shape's elements first, and names their types)
        if not isinstance(d, Tracer) and not (_dims.is_constant_dim(d) or _dims.is_symbolic_dim(d)):
            raise TypeError(
                "broadcast_in_dim shape must have every element be an integer type, "
                f"got {tuple(map(type, shape))}."
            )
    shape = _shape(shape)
    broadcast_dimensions = tuple(int(d) for d in broadcast_dimensions)
    if out_sharding is not None:
        from ..sharding import as_sharding, reshard

        out_sharding = as_sharding(out_sharding, "broadcast_in_dim")
        if core._state.dynamic is None:  # (eagerly: broadcast, then laid out)
            return reshard(broadcast_in_dim(x, shape, broadcast_dimensions), out_sharding)
    aval = _aval(x)
    if (
        out_sharding is None
        and aval.ndim == len(shape)
        and not broadcast_dimensions
        and isinstance(x, (Array, Tracer))
    ):
        return x  # (JAX's shortcut, taken before any check: the operand as it is, whatever ``shape``)
    if (
        out_sharding is None
        and aval.shape == shape
        and broadcast_dimensions == tuple(range(len(shape)))
        and not isinstance(x, (int, float, bool, complex, Tracer))
    ):
        return x  # (traced, it is bound: the trace forwards it, see structural._forward_identity)
    return st.broadcast_in_dim_p.bind(
        x, shape=shape, broadcast_dimensions=broadcast_dimensions, sharding=out_sharding
    )


def broadcast(operand, sizes, *, out_sharding=None):
    """Add leading dimensions of ``sizes``; ``out_sharding`` lays the result out (the broadcast
    carries it, as ``broadcast_in_dim``'s)."""
    x = operand
    ndim = _aval(x).ndim
    return broadcast_in_dim(
        x, (*sizes, *_aval(x).shape), tuple(range(len(sizes), len(sizes) + ndim)), out_sharding
    )


def broadcast_to_rank(x, rank: int):
    """Add leading size-1 dimensions up to ``rank``.

    >>> broadcast_to_rank(jnp.ones(3), 2).shape
    (1, 3)
    """
    ndim = _aval(x).ndim
    if ndim == rank:
        return x
    return broadcast(x, (1,) * (rank - ndim))


def broadcast_like(arr, like_arr):
    """``arr`` broadcast to the shape of ``like_arr`` (trailing axes aligned, as numpy).

    >>> broadcast_like(jnp.array([1, 2]), jnp.zeros((2, 2)))
    Array([[1, 2],
           [1, 2]], dtype=int32)
    """
    shape, ndim = _aval(like_arr).shape, _aval(arr).ndim
    return broadcast_in_dim(arr, shape, tuple(range(len(shape) - ndim, len(shape))))


def full(shape, fill_value, dtype=None, weak_type: bool = False, sharding=None):
    """An array of ``shape`` filled with ``fill_value``; staged as a broadcast, so it costs no memory.
    ``sharding`` lays it out (``broadcast_in_dim``'s ``out_sharding``)."""
    shape = (
        _shape(np.atleast_1d(shape) if not _dims.is_symbolic_dim(shape) else (shape,))
        if not isinstance(shape, tuple)
        else _shape(shape)
    )
    if dtype is None:
        dtype = _aval(fill_value).dtype
        weak_type = weak_type or _aval(fill_value).weak_type
    dtype = core.canonical_dtype(dtype)
    if isinstance(dtype, core.ExtendedDType):
        return _full_keys(shape, fill_value, dtype)
    if _dims.is_symbolic_dim(fill_value):  # a symbolic dimension: its value
        fill_value = _dims.dimension_as_value(fill_value)
    if isinstance(fill_value, Tracer):
        val = convert_element_type(fill_value, dtype, weak_type)
    else:
        if transfers.active[0]:  # (JAX converts the fill value on the host, then transfers it)
            transfers.entering(fill_value, dtype, weak_type)
        val = Array(np.asarray(core.to_numpy(fill_value), dtype=dtype), weak_type)
        if (
            weak_type
            and type(fill_value) in (int, float, complex)
            and core.python_scalar_dtype(fill_value) == dtype
        ):
            val.python_value = fill_value  # (JAX stages the Python scalar itself: printed as written)
        if not shape:
            val.op_result = True  # (JAX's full binds convert_element_type: a traced value)
    if sharding is not None and shape:
        return broadcast_in_dim(val, shape, (), out_sharding=sharding)
    if sharding is not None:
        from ..sharding import reshard

        return reshard(val, sharding)
    return broadcast_in_dim(val, shape, ()) if shape else val


def _full_keys(shape, fill_value, dtype):
    """Typed keys filled as JAX fills them: a key broadcast, or a number in every word of each key
    (``random_wrap`` of a uint32 broadcast)."""
    from ..random_primitives import random_wrap

    if isinstance(getattr(fill_value, "dtype", None), core.ExtendedDType):
        rank = _aval(fill_value).ndim
        return broadcast_in_dim(fill_value, shape, tuple(range(len(shape) - rank, len(shape))))
    return random_wrap(full(shape + (dtype.words,), fill_value, np.uint32), dtype.impl)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """``fill_value`` in the shape and dtype of ``x`` (unless ``shape``/``dtype`` say otherwise),
    laid out like ``x``, or by ``sharding`` when given (``full``'s)."""
    aval = _aval(x)
    weak = dtype is None and aval.weak_type
    if sharding is None and shape is None and isinstance(x, Tracer):  # (JAX's: x.aval.sharding)
        from ..sharded_types import typed_layout

        sharding = typed_layout(x)
    out = full(aval.shape if shape is None else shape, fill_value, dtype or aval.dtype, weak, sharding)
    if sharding is None and (
        core.vma_checking[0] or getattr(x, "on_mesh", False) or getattr(x, "on_one_device_mesh", False)
    ):
        from ..parallel.result_shardings import laid_out_like

        return laid_out_like(x, out, weak)
    return out


def zeros_like_array(x):
    return full_like(x, 0)


def reshape(operand, new_sizes, dimensions=None, *, out_sharding=None):
    """Reshape ``operand`` (row-major); ``dimensions`` transposes first, as in JAX (one reshape
    equation that carries the permutation)."""
    x = operand
    new_sizes = _shape(new_sizes)
    dims = None if dimensions is None else tuple(int(d) for d in dimensions)
    if dims == tuple(range(len(_aval(x).shape))):
        dims = None
    # (as JAX: a reshape to the same shape is no equation, except of a scalar, or one that lays
    # the value out otherwise than its type says)
    if (
        new_sizes
        and dims is None
        and _aval(x).shape == new_sizes
        and not isinstance(x, (int, float, bool, complex))
        and (out_sharding is None or not _relays(x, _layout_param(out_sharding, len(new_sizes), "reshape")))
    ):
        return x
    layout = _layout_param(out_sharding, len(new_sizes), "reshape")
    return _bind_laid_out(st.reshape_p, "sharding", layout, x, new_sizes=new_sizes, dimensions=dims)


def transpose(operand: Value, permutation: Sequence[int]) -> Value:
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(_aval(operand).ndim)) and not isinstance(
        operand, (int, float, bool, complex)
    ):
        return operand
    return st.transpose_p.bind(operand, permutation=permutation)


def squeeze(array, dimensions):
    """Remove the size-1 ``dimensions`` of ``array`` (negative ones count from the end).

    >>> squeeze(jnp.ones((1, 3, 1)), (0, -1)).shape
    (3,)
    """
    ndim = _aval(array).ndim
    dims = tuple(sorted(_dims.canonicalize_axis(d, ndim) for d in dimensions))
    if not dims and not isinstance(array, (int, float, bool, complex)):
        return array
    return st.squeeze_p.bind(array, dimensions=dims)


def expand_dims(array: Value, dimensions: Sequence[int]) -> Value:
    """Insert size-1 dimensions at ``dimensions`` (positions in the result; negative allowed).

    >>> expand_dims(jnp.ones((2, 3)), (0, -1)).shape
    (1, 2, 3, 1)
    """
    x = array
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"repeated axis in lax.expand_dims: {dimensions}")
    shape = list(_aval(x).shape)
    ndim = len(shape) + len(dimensions)
    dims = [_dims.canonicalize_axis(d, ndim) for d in dimensions]
    if len(set(dims)) != len(dims):  # (again, counted from the start)
        raise ValueError(f"repeated axis in lax.expand_dims: {dims}")
    for d in sorted(dims):
        shape.insert(d, 1)
    kept = tuple(i for i in range(ndim) if i not in dims)
    return broadcast_in_dim(x, shape, kept)


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
    """Merge dimensions ``start_dimension:stop_dimension`` into one.

    >>> collapse(jnp.ones((2, 3, 4)), 0, 2).shape
    (6, 4)
    """
    shape = _aval(operand).shape
    lo, hi, _ = builtins.slice(start_dimension, stop_dimension).indices(len(shape))
    size = _dims.dim_product(shape[lo:hi])
    return reshape(operand, (*shape[:lo], size, *shape[hi:]))


def select_n(which, *cases):
    """``cases[which]`` elementwise; ``which`` is bool (two cases) or int32."""
    if not cases:
        raise ValueError("select_n() must have at least one case")
    return st.select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """``on_true`` where ``pred`` else ``on_false`` (JAX's argument order). The cases must have one
    shape, and ``pred`` theirs or none (JAX broadcasts nothing here: ``jnp.where`` does)."""
    return st.select_n_p.bind(pred, on_false, on_true)


def _axes(x, axes):
    from .reductions import _axes as checked_axes  # (reductions imports this module)

    return checked_axes(x, axes)


def reduce_sum(operand, axes, *, out_sharding=None):
    axes = _axes(operand, axes)
    layout = _layout_param(out_sharding, _aval(operand).ndim - len(axes), "reduce_sum")
    return _bind_laid_out(st.reduce_sum_p, "out_sharding", layout, operand, axes=axes)


def reduce_max(operand, axes):
    return st.reduce_max_p.bind(operand, axes=_axes(operand, axes))


def reduce_min(operand, axes):
    return st.reduce_min_p.bind(operand, axes=_axes(operand, axes))


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None, out_sharding=None):
    """General tensor contraction: ``dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``.

    >>> x, y = jnp.arange(6.0).reshape(2, 3), jnp.ones((3, 2))
    >>> dot_general(x, y, (((1,), (0,)), ((), ())))  # matrix product
    Array([[ 3.,  3.],
           [12., 12.]], dtype=float32)
    """
    (lc, rc), (lb, rb) = dimension_numbers
    dn = (
        (tuple(int(i) for i in lc), tuple(int(i) for i in rc)),
        (tuple(int(i) for i in lb), tuple(int(i) for i in rb)),
    )
    pet = None if preferred_element_type is None else core.canonical_dtype(preferred_element_type)
    from .dot_general import canonicalize_precision

    params = dict(
        dimension_numbers=dn,
        precision=canonicalize_precision(precision),
        preferred_element_type=pet,
        out_sharding=None,
    )
    if out_sharding is not None:  # how the result is laid out over the mesh (a sharded contraction)
        from ..sharding import as_sharding

        params["out_sharding"] = as_sharding(out_sharding, "dot_general")
        out = st.dot_general_p.bind(lhs, rhs, **params)
        from ..sharded_types import check_divides

        check_divides(core.get_aval(out).shape, params["out_sharding"])
        if not isinstance(out, core.Tracer) and getattr(out, "sharding", None) != params["out_sharding"]:
            from ..sharding import reshard  # computed on the host (no operand was on the mesh)

            out = reshard(out, params["out_sharding"])
        return out
    return st.dot_general_p.bind(lhs, rhs, **params)


def dot(lhs, rhs, precision=None, preferred_element_type=None, out_sharding=None, *, dimension_numbers=None):
    """Vector/matrix products of rank-1 and rank-2 arrays, or ``dot_general``'s ``dimension_numbers``."""
    if dimension_numbers is None:
        ls, rs = _aval(lhs).shape, _aval(rhs).shape
        if not (1 <= len(ls) <= 2 and 1 <= len(rs) <= 2 and ls[-1] == rs[0]):
            msg = "simple un-batched matrix-matrix, matrix-vector, or vector-vector products;"
            raise ValueError(
                f"jax.lax.dot: dimension_numbers must be specified when not performing {msg}"
                f" got lhs_shape={ls} rhs_shape={rs}"
            )
        dimension_numbers = (((len(ls) - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type, out_sharding)


def clamp(min, x, max):
    """``x`` limited to ``[min, max]`` elementwise; ``min``/``max`` may be scalars.

    >>> clamp(0., jnp.array([-1., .5, 2.]), 1.)
    Array([0. , 0.5, 1. ], dtype=float32)
    """
    like = _aval(x)
    if isinstance(min, (int, float, bool)):
        min = _scalar_like(min, like.dtype)
    if isinstance(max, (int, float, bool)):
        max = _scalar_like(max, like.dtype)
    return ew.clamp_p.bind(min, x, max)


def stop_gradient(x):
    """The identity on values, with zero derivative (applied to every leaf of a pytree).

    >>> jax.grad(lambda x: x * stop_gradient(x))(3.)
    Array(3., dtype=float32, weak_type=True)
    """
    if not core.staging_anywhere[0] and type(x) is Array and x._value.dtype.char in "fd":
        # (a concrete float array, the common eager case: its impl, as EvalTrace runs it; weak as
        # the operand, its dtype kept)
        out = core.impl_rules[ew.stop_gradient_p](x._value)
        return out if isinstance(out, Array) else Array(out, x.weak_type)
    from ..tree_util import tree_map

    def stop(leaf):
        # Bound on every dtype but the extended ones (PRNG keys), as JAX 0.10.2 does: an integer
        # operand's stop_gradient shows in its jaxprs too.
        if dtype_kind(_aval(leaf).dtype) in "fciub":
            return ew.stop_gradient_p.bind(leaf)
        return leaf

    return tree_map(stop, x)


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
    """Round floats to a format with the given exponent and mantissa widths (e.g. 8, 7 for bfloat16)."""
    return ew.reduce_precision_p.bind(
        operand, exponent_bits=int(exponent_bits), mantissa_bits=int(mantissa_bits)
    )


def iota(dtype, size: int):
    """``[0, 1, ..., size - 1]`` as ``dtype``.

    >>> iota(np.int32, 3)
    Array([0, 1, 2], dtype=int32)
    """
    return broadcasted_iota(dtype, _shape((size,)), 0)


def _iota_dimension(dimension, shape) -> int:
    if not 0 <= int(dimension) < len(shape):
        raise ValueError(
            f"iota dimension must be between 0 and len(shape), got dimension={dimension} for shape={shape}"
        )
    return int(dimension)


def broadcasted_iota(dtype, shape, dimension: int, *, out_sharding=None):
    """An array of ``shape`` whose values count along ``dimension``; ``out_sharding`` lays it out."""
    shape = _shape(shape)
    if not all(d >= 0 for d in shape):
        raise TypeError(f"iota shape must have every element be nonnegative, got {shape}.")
    return _bind_laid_out(
        st.iota_p,
        "sharding",
        _layout_param(out_sharding, len(shape), "broadcasted_iota"),
        dtype=core.canonical_dtype(dtype),
        shape=shape,
        dimension=_iota_dimension(dimension, shape),
    )


def rev(operand, dimensions):
    """Reverse ``operand`` along each of ``dimensions``."""
    ndim = _aval(operand).ndim
    dimensions = tuple(map(int, dimensions))
    # (JAX refuses a negative dimension; the engine's own calls count it from the end)
    if any(d < 0 for d in dimensions) and not _from_engine():
        raise TypeError(f"rev dimensions must have every element be nonnegative, got {dimensions}.")
    return st.rev_p.bind(operand, dimensions=tuple(d + ndim if -ndim <= d < 0 else d for d in dimensions))


def tile(operand, reps):
    """``operand`` repeated ``reps[i]`` times along each axis ``i`` (``len(reps) == operand.ndim``).

    >>> tile(jnp.array([1, 2]), (2,))
    Array([1, 2, 1, 2], dtype=int32)
    """
    return st.tile_p.bind(operand, reps=_shape(reps))


def pad(operand, padding_value, padding_config):
    """Pad with ``padding_value``: ``padding_config`` holds one ``(low, high, interior)`` per
    dimension; negative low/high crop.

    >>> pad(jnp.array([1., 2.]), 0., [(1, -1, 1)])
    Array([0., 1., 0.], dtype=float32)
    """
    if isinstance(padding_value, (int, float, bool, complex)):
        padding_value = _scalar_like(padding_value, _aval(operand).dtype)
    # (numpy integers stay as given: JAX's jaxprs print them so, as jnp.pad's np.int64(0))
    config = tuple(
        tuple(d if isinstance(d, np.integer) else _shape((d,))[0] for d in c) for c in padding_config
    )
    return st.pad_p.bind(operand, padding_value, padding_config=config)


def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits of ``operand`` as ``new_dtype`` (a size change adds/removes a last dim)."""
    return st.bitcast_convert_type_p.bind(operand, new_dtype=core.canonical_dtype(new_dtype))


copy_p = ew.copy_p


from .slicing import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,  # noqa: E402
    dynamic_index_in_dim,
    dynamic_slice,
    dynamic_slice_in_dim,
    dynamic_update_index_in_dim,
    dynamic_update_slice,
    dynamic_update_slice_in_dim,
    gather,
    index_in_dim,
    scatter,
    scatter_add,
    scatter_apply,
    scatter_max,
    scatter_min,
    scatter_mul,
    scatter_sub,
    slice,
    slice_in_dim,
)
from .reductions import (
    argmax,
    argmin,
    cumlogsumexp,
    cummax,
    cummin,
    cumprod,
    cumsum,
    reduce_and,  # noqa: E402
    reduce_or,
    reduce_prod,
    reduce_xor,
)
from .sorting import sort, sort_key_val, top_k  # noqa: E402
