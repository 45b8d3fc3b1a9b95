"""``lax.empty`` (an array whose values nobody should read: the engine fills it with zeros, as
JAX's CPU lowering does), ``lax.shape_as_value`` (a shape as an int32 vector) and ``lax.dtype`` (the
dtype JAX gives a value or type, canonicalized)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import batching, core, dims
from ..canonical_dtypes import canonical_dtype, python_scalar_dtype
from ..core import Array, Primitive, ShapedArray, Tracer
from ..ir import pp_params_rules
from ..narrow_dtypes import to_dtype

__all__ = ["dtype", "empty", "empty_p", "shape_as_value"]

empty_p = Primitive("empty")


def _shape_tuple(shape) -> tuple:
    return (shape,) if isinstance(shape, (int, np.integer)) or not np.iterable(shape) else tuple(shape)


def _as_numpy_dtype(dtype) -> np.dtype:
    # (JAX's aval takes the dtype as given, float64 without x64 too, though its arrays cannot be:
    # the engine's type says what its arrays are)
    return canonical_dtype(to_dtype(dtype))


@empty_p.def_impl
def _empty_impl(*, shape, dtype, out_sharding):
    return np.zeros(_shape_tuple(shape), _as_numpy_dtype(dtype))  # zeros: runs stay reproducible


@empty_p.def_abstract_eval
def _empty_abstract(*, shape, dtype, out_sharding):
    return ShapedArray(_shape_tuple(shape), _as_numpy_dtype(dtype), False)


def _empty_batch(axis_size, vals, dims_in, *, shape, dtype, out_sharding):
    return empty_p.bind(shape=(axis_size, *_shape_tuple(shape)), dtype=dtype, out_sharding=out_sharding), 0


batching.batch_rules[empty_p] = _empty_batch


class _AsJaxPrintsIt:
    """A parameter printed as JAX prints the object the user gave: a scalar type by its class
    (``<class 'jax.numpy.float32'>``, ``<class 'numpy.int32'>``), a string or dtype by its name."""

    def __init__(self, value: Any):
        self.value = value

    def __str__(self):
        v = self.value
        if isinstance(v, type):
            module = "jax.numpy" if v.__module__.startswith("engine.numpy") else v.__module__
            return f"<class '{module}.{v.__qualname__}'>"
        return v.name if isinstance(v, np.dtype) else str(v)


pp_params_rules[empty_p] = lambda eqn: [
    ("dtype", _AsJaxPrintsIt(eqn.params["dtype"])),
    ("out_sharding", eqn.params["out_sharding"]),
    ("shape", eqn.params["shape"]),
]


def empty(shape, dtype, *, out_sharding=None):
    """An array of ``shape`` and ``dtype`` whose values are unspecified (zeros in the engine).

    >>> empty((2,), np.int32)
    Array([0, 0], dtype=int32)
    """
    if out_sharding is not None:
        raise NotImplementedError("lax.empty(out_sharding=...) is not supported by the engine")
    try:
        hash(shape)
    except TypeError:
        if not core.find_top_trace(()).main.level:
            raise  # (eagerly JAX's dispatch cache says it first: "unhashable type")
        raise TypeError(
            "As of JAX v0.7, parameters to jaxpr equations must have __hash__ and __eq__ methods. In a "
            f"call to primitive empty, the value of parameter shape was not hashable: {shape}"
        ) from None
    return empty_p.bind(shape=shape, dtype=dtype, out_sharding=None)


def shape_as_value(shape):
    """``shape`` as an int32 vector: a numpy array when every dimension is known, else staged
    from the symbolic dimensions' values.

    >>> shape_as_value((2, 3))
    array([2, 3], dtype=int32)
    """
    from . import api as lax

    shape = tuple(shape)
    if not shape:
        return lax.full((0,), np.array(0, np.int32))
    if all(dims.is_constant_dim(d) for d in shape):
        return np.asarray(shape, dtype=np.int32)
    parts = [
        lax.expand_dims(lax.convert_element_type(dims.dimension_as_value(d), np.int32), (0,)) for d in shape
    ]
    return lax.concatenate(parts, dimension=0)


_PYTHON_SCALARS = (bool, int, float, complex)


def _checked(dt: np.dtype, x) -> np.dtype:
    if dt.kind in "OSUVMm" and not _is_jax_dtype(dt):
        raise TypeError(
            f"Value '{x}' with dtype {dt} is not a valid JAX array type. Only arrays of numeric types are "
            "supported by JAX."
        )
    return canonical_dtype(dt)


def _is_jax_dtype(dt: np.dtype) -> bool:
    from ..narrow_dtypes import kind

    return kind(dt) in "biufc" or str(dt).startswith("key")


def dtype(x) -> np.dtype:
    """The dtype of a value or type, as JAX gives it: Python scalars and types, numpy types and
    dtypes and non-JAX arrays canonicalized (float64 is float32 without x64); JAX arrays' as they are.

    >>> dtype(1.0), dtype(np.int8(1)), dtype('float64'), dtype(True)
    (dtype('float32'), dtype('int8'), dtype('float32'), dtype('bool'))
    """
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    if isinstance(x, type):
        if x in _PYTHON_SCALARS:
            return python_scalar_dtype(x(0))
        if issubclass(x, np.generic):
            return canonical_dtype(np.dtype(x))
    elif type(x) in _PYTHON_SCALARS:
        return python_scalar_dtype(x)
    elif isinstance(x, (Array, Tracer)):
        return core.get_aval(x).dtype
    if isinstance(x, (str, np.dtype)):
        return _checked(to_dtype(x), x)
    dt = getattr(x, "dtype", None)
    if not isinstance(dt, np.dtype):
        try:
            dt = np.result_type(x)
        except TypeError as err:
            raise TypeError(f"Cannot determine dtype of {x}") from err
    return _checked(dt, x)
