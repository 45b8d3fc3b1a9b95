"""The narrow dtypes JAX takes from ``ml_dtypes``: bfloat16, the float8/float6/float4 types and
int4/int2/int1 (JAX's CPU backend cannot hold float6 or int1 arrays; the engine computes with them as
with the others).

numpy knows them only as opaque types (``np.dtype(bfloat16).kind`` is ``'V'``, ``np.finfo`` refuses
them), so the engine asks ``kind`` here instead of ``dtype.kind`` wherever a float must be told from
the rest. Their values are computed as XLA's CPU backend computes them: each operation widens its
narrow operands (floats to float32, integers to int8/uint8), computes, and rounds its result back to
its narrow dtype (round-to-nearest-even), so every primitive rounds once, and dots and reductions
accumulate in float32. ``run_impl`` does that around a primitive's numpy implementation. Primitives
in ``keeps_narrow`` see the narrow values themselves: bitcasts, data movement (numpy moves them as
they are), scatters (whose combiner rounds each update, as XLA's loop does), and primitives that
round several steps themselves as JAX's lowering to several operations does (integer_pow, logistic).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import numpy as np

FLOAT_NAMES = (
    "bfloat16",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float4_e2m1fn",
    "float6_e2m3fn",
    "float6_e3m2fn",
)
INT_NAMES = ("int1", "int2", "int4", "uint1", "uint2", "uint4")
NAMES = frozenset(FLOAT_NAMES + INT_NAMES)

# narrow dtype -> the numpy dtype its values are computed in. Importing ml_dtypes takes most of a
# second, so these tables stay empty until a narrow dtype is named (``load``): before that no array
# can have one, unless something else imported ml_dtypes, which ``_sync`` notices.
WIDE: dict[np.dtype, np.dtype] = {}
_KIND: dict[np.dtype, str] = {}
_loaded = [False]


def load() -> ModuleType:
    """``ml_dtypes``, imported on first use, with its types entered in the tables here."""
    import ml_dtypes

    if not _loaded[0]:
        # (float6 and int1/uint1 are ml_dtypes' newer types: an older one lacks them, as JAX then does)
        for n in filter(lambda n: hasattr(ml_dtypes, n), FLOAT_NAMES):
            WIDE[np.dtype(getattr(ml_dtypes, n))] = np.dtype(np.float32)
        for n in filter(lambda n: hasattr(ml_dtypes, n), INT_NAMES):
            WIDE[np.dtype(getattr(ml_dtypes, n))] = np.dtype(np.uint8 if n[0] == "u" else np.int8)
        _KIND.update({d: w.kind for d, w in WIDE.items()})
        _loaded[0] = True
    return ml_dtypes


def _sync() -> bool:
    """Enter ml_dtypes' types if something imported ml_dtypes meanwhile (True if it did)."""
    if _loaded[0] or "ml_dtypes" not in sys.modules:
        return False
    load()
    return True


def to_dtype(x: Any) -> np.dtype:
    """``np.dtype(x)``, also for the names of the narrow dtypes (``'bfloat16'``), which numpy knows
    only once ml_dtypes is imported."""
    try:
        return np.dtype(x)
    except TypeError:
        from .avals import ExtendedDType

        if isinstance(x, ExtendedDType):  # (typed keys' dtype: canonical as it is)
            return x  # type: ignore[return-value]
        if not (isinstance(x, str) and x in NAMES):
            raise
    load()
    return np.dtype(x)


def kind(dtype: Any) -> str:
    """numpy's ``dtype.kind``, but ``'f'`` for the narrow floats and ``'i'``/``'u'`` for int4 and
    the like (numpy says ``'V'`` for most of them).

    >>> kind(to_dtype("bfloat16")), kind(np.dtype(np.float32))
    ('f', 'f')
    """
    try:
        k: str | None = _KIND.get(dtype)
    except TypeError:  # (an unhashable stand-in for a dtype)
        return str(dtype.kind)
    if k is None:
        k = str(dtype.kind)
        # (every narrow dtype is numpy's kind 'V': other dtypes need no look for ml_dtypes)
        return kind(dtype) if k == "V" and _sync() else k
    return k


def is_narrow(dtype: Any) -> bool:
    if dtype in WIDE:
        return True
    return getattr(dtype, "kind", "V") == "V" and _sync() and dtype in WIDE


def finfo(dtype: Any) -> Any:
    """numpy's ``finfo``, also for bfloat16 and the float8 types (ml_dtypes')."""
    dtype = _unwrap(dtype)
    return load().finfo(dtype) if _names_narrow(dtype) else np.finfo(dtype)


class iinfo:
    """numpy's ``iinfo``, also for int4 and the like, printed as JAX's (ml_dtypes') prints it.

    >>> iinfo(np.int8)
    iinfo(min=-128, max=127, dtype=int8)
    """

    def __init__(self, int_type: Any):
        int_type = _unwrap(int_type)
        info = load().iinfo(int_type) if _names_narrow(int_type) else np.iinfo(int_type)
        self.dtype, self.kind, self.bits = info.dtype, info.kind, info.bits
        self.min, self.max = info.min, info.max

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"

    __str__ = __repr__


def _unwrap(x: Any) -> Any:
    d = getattr(x, "dtype", None)  # an array, or jnp.float32 and the like
    return d if isinstance(d, np.dtype) else x


def _names_narrow(x: Any) -> bool:
    if isinstance(x, str):
        return x in NAMES
    try:
        return is_narrow(np.dtype(x))
    except TypeError:
        return False


def has_narrow(values: Sequence[Any]) -> bool:
    for v in values:
        if getattr(v, "dtype", None) in WIDE:
            return True
    if _loaded[0] or "ml_dtypes" not in sys.modules:  # (``_sync`` inlined: this runs per eager op)
        return False
    return _sync() and has_narrow(values)


# Primitives that see narrow values as they are (rows added where each primitive is defined; see the
# module's docstring), and (found by ``widens``) those running a jaxpr or a Python function on them,
# whose equations or user code see the narrow values, as in JAX.
keeps_narrow: set[Any] = set()
_widens: dict[Any, bool] = {}


def _runs_code(v: Any) -> bool:
    if isinstance(v, (tuple, list)):
        return any(_runs_code(e) for e in v)
    return hasattr(v, "eqns") or hasattr(v, "jaxpr") or (callable(v) and not isinstance(v, type))


def widens(primitive: Any, params: dict[str, Any]) -> bool:
    """Whether ``primitive``'s impl computes on widened operands (see the module's docstring)."""
    out = _widens.get(primitive)
    if out is None:
        out = _widens[primitive] = primitive not in keeps_narrow and not any(
            _runs_code(v) for v in params.values()
        )
    return out


def run_impl(
    impl: Callable[..., Any],
    args: Sequence[Any],
    params: dict[str, Any],
    out_dtypes: Callable[[], Sequence[Any]],
    multiple_results: bool,
) -> Any:
    """``impl`` on ``args`` with narrow operands widened, its outputs rounded back to the narrow
    dtypes ``out_dtypes()`` gives (the primitive's abstract evaluation)."""
    dtypes = out_dtypes()  # (first: an operand of a kind the op refuses is named as given, narrow)
    wide = [a.astype(WIDE[a.dtype]) if getattr(a, "dtype", None) in WIDE else a for a in args]
    outs = impl(*wide, **params)
    rounded = [
        np.asarray(o).astype(d) if d in WIDE and getattr(o, "dtype", None) != d else o
        for o, d in zip(outs if multiple_results else [outs], dtypes)
    ]
    return rounded if multiple_results else rounded[0]


def impl_for(
    primitive: Any,
    impl: Callable[..., Any],
    in_dtypes: Sequence[Any],
    out_dtypes: Sequence[Any],
    params: dict[str, Any],
) -> Callable[..., Any]:
    """``impl`` for a program's equation whose dtypes are known ahead (a device program's step):
    itself, or with narrow operands the call of it that widens and rounds (``run_impl``)."""
    if not any(is_narrow(d) for d in in_dtypes) or not widens(primitive, params):
        return impl
    return functools.partial(_widened_call, impl, tuple(out_dtypes), primitive.multiple_results)


def _widened_call(
    impl: Callable[..., Any], out_dtypes: tuple[Any, ...], multiple: bool, *args: Any, **kw: Any
) -> Any:
    return run_impl(impl, args, kw, lambda: out_dtypes, multiple)  # (a function: device programs pickle it)
