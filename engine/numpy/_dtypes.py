"""JAX's type-promotion lattice with weak types, and the dtype objects of ``jnp``.

Python scalars are *weakly typed*: they take the dtype of whatever they meet, so ``x * 2.0`` keeps
``x``'s float32 and an int32 array times ``2.0`` becomes float32. The promotion of several values is
the least upper bound of their types in a small lattice (JAX's, not numpy's value-based rules).
"""

from __future__ import annotations

import numpy as np

from .. import core, narrow_dtypes
from ..core import Array, Tracer

# --- the lattice ------------------------------------------------------------------------------
# Nodes are dtype names, plus 'i*', 'f*', 'c*' for weakly typed (Python) ints, floats, complexes.
_EDGES = {
    "bool": ["i*"],
    "i*": ["uint8", "int8", *narrow_dtypes.INT_NAMES],
    "f*": ["bfloat16", "float16", "c*", *narrow_dtypes.FLOAT_NAMES[1:]],
    # The 8-, 4- and 2-bit types promote with nothing but Python scalars, as in JAX.
    **{n: [] for n in narrow_dtypes.INT_NAMES + narrow_dtypes.FLOAT_NAMES[1:]},
    "bfloat16": ["float32"],
    "c*": ["complex64"],
    "uint8": ["int16", "uint16"],
    "uint16": ["int32", "uint32"],
    "uint32": ["int64", "uint64"],
    "uint64": ["f*"],
    "int8": ["int16"],
    "int16": ["int32"],
    "int32": ["int64"],
    "int64": ["f*"],
    "float16": ["float32"],
    "float32": ["float64", "complex64"],
    "float64": ["complex128"],
    "complex64": ["complex128"],
    "complex128": [],
}


def _upper_sets():
    ups = {}

    def up(n):
        if n not in ups:
            s = {n}
            for m in _EDGES[n]:
                s |= up(m)
            ups[n] = frozenset(s)
        return ups[n]

    for n in _EDGES:
        up(n)
    return ups


_UP = _upper_sets()
_WEAK_NODE = {"i": "i*", "u": "i*", "f": "f*", "c": "c*"}
# The dtype a weakly typed value takes when nothing stronger joins it (Python's, under the x64 flag).
_WEAK_DEFAULT = {
    "i*": core.default_dtype(int),
    "f*": core.default_dtype(float),
    "c*": core.default_dtype(complex),
}
_lub_cache: dict = {}


def _lub(nodes: frozenset) -> str:
    out = _lub_cache.get(nodes)
    if out is None:
        common = frozenset.intersection(*(_UP[n] for n in nodes))
        if not common:
            raise _NoPromotionPath
        # The least element of the common upper bounds is the one all others are above.
        out = next(c for c in common if _UP[c] >= common)
        _lub_cache[nodes] = out
    return out


class _NoPromotionPath(Exception):
    pass


def _refuse_narrow_promotion(pairs) -> None:
    """JAX's error for joining an 8/4/2-bit type with another type (they have no upper bound)."""
    from ..errors import TypePromotionError

    names = list(dict.fromkeys(d.name for d, w in pairs if not w))
    bits = next((b for b in ("8", "6", "4") if any(n.startswith(f"float{b}_") for n in names)), None)
    # (JAX names the floats first, the widest kind of them: 8-bit, then 6-bit, then 4-bit)
    what, example = (
        (f"{bits}-bit floats", "float32") if bits else ("1-bit, 2-bit and 4-bit integers", "int32")
    )
    raise TypePromotionError(
        f"Input dtypes {tuple(names)} have no available implicit dtype promotion path. To avoid "
        f"unintended promotion, {what} do not support implicit promotion. If you'd like your inputs to be "
        f"promoted to another type, you can do so explicitly using e.g. x.astype('{example}')"
    )


def dtype_and_weak(x) -> tuple[np.dtype, bool]:
    """The (dtype, weak_type) pair that promotion sees for a value or a dtype-like."""
    t = type(x)
    if t is Array:
        return x._value.dtype, x.weak_type
    if isinstance(x, Tracer):
        a = x.aval
        return a.dtype, a.weak_type
    if isinstance(x, Array):
        return x.dtype, x.weak_type
    if t is bool:
        return np.dtype("bool"), False
    if t is int or t is float or t is complex:
        return core._PYTHON_DTYPE[t], True
    if isinstance(x, (np.ndarray, np.generic)):
        return core.canonical_dtype(x.dtype), False
    if hasattr(x, "__jax_array__"):
        core.refuse_jax_array_protocol()
    if x is int or x is float or x is complex:  # the Python types as dtypes are weak, as in JAX
        return dtype_and_weak(x(0))
    if getattr(x, "_is_dim_expr", False):  # a symbolic dimension is a weakly typed int, as in JAX
        return core.python_scalar_dtype(0), True
    return core.canonical_dtype(to_dtype(x)), False


def _node(dtype: np.dtype, weak: bool) -> str:
    if weak and dtype.kind != "b":
        return _WEAK_NODE[narrow_dtypes.kind(dtype)]
    return dtype.name


# ``jax_numpy_dtype_promotion``: "standard" (JAX's lattice) or "strict" (no implicit promotion but of
# Python scalars into an array's dtype of their kind or above).
promotion_mode = ["standard"]
_STRICT_WEAK_INTO = {"i": "iufc", "f": "fc", "c": "c"}  # weak kind -> strong kinds it may join


def _check_strict(pairs) -> None:
    strong = {d for d, w in pairs if not w}
    ok = len(strong) <= 1
    if ok and strong:
        kind = narrow_dtypes.kind(next(iter(strong)))
        ok = all(kind in _STRICT_WEAK_INTO.get(narrow_dtypes.kind(d), "") for d, w in pairs if w)
    if not ok:
        from ..errors import TypePromotionError

        names = tuple(
            f"<class '{ {'i': 'int', 'f': 'float', 'c': 'complex'}[narrow_dtypes.kind(d)] }'>"
            if w
            else d.name
            for d, w in pairs
        )
        raise TypePromotionError(
            f"Input dtypes {names} have no available implicit dtype promotion path when "
            "jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired output type, "
            "or set jax_numpy_dtype_promotion=standard."
        )


def promote_types_weak(pairs) -> tuple[np.dtype, bool]:
    """Join of (dtype, weak) pairs: the result dtype (canonical) and whether it is weak."""
    pairs = tuple(pairs)
    if promotion_mode[0] == "strict":
        _check_strict(pairs)
    out = _promotions.get(pairs)
    if out is None:
        out = _promotions[pairs] = _promote_types_weak(pairs)
    return out


_promotions: dict = {}  # the lattice join is pure and its inputs few: memoize (it is on every op)


def _on_x64(on: bool) -> None:
    _promotions.clear()
    _WEAK_DEFAULT.update({"i*": core.default_dtype(int), "f*": core.default_dtype(float)})
    _WEAK_DEFAULT["c*"] = core.default_dtype(complex)


core.x64_listeners.append(_on_x64)


def _promote_types_weak(pairs) -> tuple[np.dtype, bool]:
    if len(pairs) == 1:
        d, w = pairs[0]
        return core.canonical_dtype(d), w and d.kind != "b"
    dtypes = {d for d, _ in pairs}
    weaks = [w for _, w in pairs]
    if len(dtypes) == 1 and not all(weaks):
        return core.canonical_dtype(next(iter(dtypes))), False
    for d in dtypes:
        if isinstance(d, core.ExtendedDType):  # (typed keys beside numbers)
            raise ValueError(f"dtype={d} is not a valid dtype for JAX type promotion.")
    if all(weaks):
        # Bound of the strong counterparts, weak at the end (no weak int16 and the like).
        node = _lub(frozenset(d.name for d in dtypes))
        dtype = np.dtype(node) if node not in _WEAK_DEFAULT else _WEAK_DEFAULT[node]
        return core.canonical_dtype(dtype), dtype.kind != "b"
    try:
        node = _lub(frozenset(_node(d, w) for d, w in pairs))
    except _NoPromotionPath:
        _refuse_narrow_promotion(pairs)
    if node in _WEAK_DEFAULT:
        return _WEAK_DEFAULT[node], True
    return core.canonical_dtype(np.dtype(node)), False


def result_type(*args, return_weak_type_flag: bool = False):
    """The dtype JAX's promotion gives ``args`` (arrays, scalars or dtypes).

    >>> result_type(jnp.int32, 2.0)
    dtype('float32')
    """
    if not args:
        raise ValueError("at least one array or dtype is required")
    dtype, weak = promote_types_weak(dtype_and_weak(a) for a in args)
    return (dtype, weak) if return_weak_type_flag else dtype


def promote_types(a, b) -> np.dtype:
    """The promoted dtype of two dtypes; the Python types ``int``, ``float`` and ``complex`` are weak
    and stand for their 64-bit dtypes, as in JAX.

    >>> promote_types('uint8', int), promote_types(int, float)
    (dtype('uint8'), dtype('float64'))
    """
    pairs = [
        dtype_and_weak(x) if x is int or x is float or x is complex else (to_dtype(x), False) for x in (a, b)
    ]
    dtype, weak = promote_types_weak(pairs)
    return np.dtype({"i": "int64", "f": "float64", "c": "complex128"}[dtype.kind]) if weak else dtype


# --- jnp's dtype objects -----------------------------------------------------------------------


@core.jax_class_path("jax._src.numpy.scalar_types._ScalarMeta")
class _ScalarMeta(type):
    """``jnp.float32`` and friends: usable as dtypes, and callable to make (0-d) arrays."""

    def __call__(cls, x=0):
        from ._creation import asarray

        return asarray(x, dtype=cls.dtype)

    def __eq__(cls, other):
        return cls is other or cls.dtype.type is other or (isinstance(other, np.dtype) and other == cls.dtype)

    def __ne__(cls, other):
        return not cls == other

    def __hash__(cls):
        return hash(cls.dtype.type)

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls.dtype.type)

    def __repr__(cls):  # (JAX's name for it, as the engine's classes print theirs)
        return f"<class 'jax.numpy.{cls.__name__}'>"


def _scalar_type(name, np_type) -> _ScalarMeta:
    return _ScalarMeta(name, (), {"dtype": np.dtype(np_type)})


bool_ = _scalar_type("bool_", np.bool_)
int8, int16, int32, int64 = (_scalar_type(n, getattr(np, n)) for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (
    _scalar_type(n, getattr(np, n)) for n in ("uint8", "uint16", "uint32", "uint64")
)
float16, float32, float64 = (_scalar_type(n, getattr(np, n)) for n in ("float16", "float32", "float64"))
complex64, complex128 = (_scalar_type(n, getattr(np, n)) for n in ("complex64", "complex128"))
# As in JAX the "default" types are the 64-bit ones, which canonicalize to 32 bits while x64 is off.
int_, uint, float_, complex_ = int64, uint64, float64, complex128
single, double = float32, float64

generic, number, inexact, floating, complexfloating = (
    np.generic,
    np.number,
    np.inexact,
    np.floating,
    np.complexfloating,
)
integer, signedinteger, unsignedinteger = np.integer, np.signedinteger, np.unsignedinteger


class _DTypeMeta(type):
    """``jnp.dtype`` is numpy's ``np.dtype`` (instances, subclass checks, ``jnp.dtype[...]``), and
    also reads the narrow dtypes' names, which numpy knows only once ml_dtypes is imported."""

    def __call__(cls, obj, *args, **kwargs):
        return narrow_dtypes.to_dtype(obj) if not args and not kwargs else np.dtype(obj, *args, **kwargs)

    def __instancecheck__(cls, instance):
        return isinstance(instance, np.dtype)

    def __subclasscheck__(cls, subclass):
        return issubclass(subclass, np.dtype)

    def __getitem__(cls, item):
        return np.dtype[item]

    def __repr__(cls):
        return repr(np.dtype)


class dtype(metaclass=_DTypeMeta):
    """Create a data type object (``np.dtype``).

    >>> jnp.dtype("bfloat16")
    dtype(bfloat16)
    """


finfo, iinfo = narrow_dtypes.finfo, narrow_dtypes.iinfo  # numpy's, knowing bfloat16 and the like too
_narrow_types: dict[str, _ScalarMeta] = {}


def narrow_scalar_type(name: str) -> _ScalarMeta:
    """``jnp.bfloat16`` and the other narrow types, made when first named (importing ml_dtypes)."""
    t = _narrow_types.get(name)
    if t is None:
        t = _narrow_types[name] = _scalar_type(name, getattr(narrow_dtypes.load(), name))
    return t


def to_dtype(x) -> np.dtype:
    """np.dtype of a dtype-like, including ``jnp.float32``-style scalar types and Python types."""
    if isinstance(x, _ScalarMeta):
        return x.dtype
    if x is int or x is float or x is complex:  # Python types mean their default dtypes
        return core.python_scalar_dtype(x(0))
    if isinstance(x, (Array, Tracer)):
        return x.dtype
    return narrow_dtypes.to_dtype(x)


def canonicalize_dtype(x) -> np.dtype:
    return core.canonical_dtype(to_dtype(x))


def issubdtype(arg1, arg2) -> bool:
    """numpy's ``issubdtype``, understanding ``jnp`` scalar types.

    >>> issubdtype(jnp.float32, jnp.floating)
    True
    """
    a = arg1.dtype if isinstance(arg1, _ScalarMeta) else arg1
    b = arg2.dtype if isinstance(arg2, _ScalarMeta) else arg2
    from ..random_keys import key_issubdtype

    keys = key_issubdtype(a, b)
    if keys is not None:
        return keys
    narrow = (
        _NARROW_SUPERTYPES.get(narrow_dtypes.kind(narrow_dtypes.to_dtype(a))) if _is_narrow_like(a) else None
    )
    if narrow is not None and isinstance(b, type) and not isinstance(b, _ScalarMeta):
        return b in narrow  # numpy places ml_dtypes' types under np.generic only
    return bool(np.issubdtype(a, b))


_NARROW_SUPERTYPES = {
    "f": (np.floating, np.inexact, np.number, np.generic),
    "i": (np.signedinteger, np.integer, np.number, np.generic),
    "u": (np.unsignedinteger, np.integer, np.number, np.generic),
}


def _is_narrow_like(x) -> bool:
    try:
        return narrow_dtypes.is_narrow(narrow_dtypes.to_dtype(x))
    except TypeError:
        return False


def isdtype(dtype, kind) -> bool:
    d = to_dtype(dtype)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {
        "bool": "b",
        "signed integer": "i",
        "unsigned integer": "u",
        "integral": "iu",
        "real floating": "f",
        "complex floating": "c",
        "numeric": "iufc",
    }
    for k in kinds:
        if isinstance(k, str):
            if narrow_dtypes.kind(d) in names[k]:
                return True
        elif d == to_dtype(k):
            return True
    return False


def can_cast(from_, to, casting="safe") -> bool:
    return bool(
        np.can_cast(
            to_dtype(from_) if not isinstance(from_, (Array, Tracer)) else from_.dtype, to_dtype(to), casting
        )
    )


def is_float(dt) -> bool:
    return narrow_dtypes.kind(narrow_dtypes.to_dtype(dt)) in "fc"


def default_float_dtype():
    return core.default_dtype(float)
