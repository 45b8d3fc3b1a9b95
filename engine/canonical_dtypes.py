"""Dtype canonicalization under ``jax_enable_x64``: the one place that decides what 64-bit types
and Python scalars become. With x64 off (JAX's default) 64-bit types canonicalize to 32-bit ones
and Python scalars are 32-bit; ``set_x64`` switches both tables in place, so every reader (also
through ``engine.core``, which re-exports these names) sees the flag as it is at trace time.

>>> canonical_dtype(np.float64)
dtype('float32')
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Callable

import numpy as np
import numpy.typing as npt

from .narrow_dtypes import to_dtype

_CANONICAL_32: dict[np.dtype, np.dtype] = {
    np.dtype("float64"): np.dtype("float32"),
    np.dtype("int64"): np.dtype("int32"),
    np.dtype("uint64"): np.dtype("uint32"),
    np.dtype("complex128"): np.dtype("complex64"),
}
_CANONICAL: dict[np.dtype, np.dtype] = dict(_CANONICAL_32)
# The dtypes of Python's int, float and complex (and so the defaults of jnp's creation functions).
_PY_32 = {int: np.dtype("int32"), float: np.dtype("float32"), complex: np.dtype("complex64")}
_PY_64 = {int: np.dtype("int64"), float: np.dtype("float64"), complex: np.dtype("complex128")}
_PYTHON_DTYPE: dict[type, np.dtype] = dict(_PY_32)
x64_enabled = [False]
# Called with the new flag after it changes: caches keyed by dtypes that the flag decides drop.
x64_listeners: list[Callable[[bool], None]] = []


def set_x64(on: bool) -> None:
    """``jax_enable_x64``: from now on, 64-bit types stay 64-bit and Python scalars are 64-bit."""
    on = bool(on)
    if on == x64_enabled[0]:
        return
    x64_enabled[0] = on
    _CANONICAL.clear()
    _PYTHON_DTYPE.update(_PY_64 if on else _PY_32)
    if not on:
        _CANONICAL.update(_CANONICAL_32)
    for listener in x64_listeners:
        listener(on)


def default_dtype(kind: type) -> np.dtype:
    """The dtype of Python's ``int``, ``float`` or ``complex`` under the current x64 setting."""
    return _PYTHON_DTYPE[kind]


def canonical_dtype(dtype: npt.DTypeLike) -> np.dtype:
    dtype = to_dtype(dtype)
    return _CANONICAL.get(dtype, dtype)


def user_dtype(requested: np.dtype, fun_name: str = "") -> np.dtype:
    """``canonical_dtype`` of a dtype the caller of ``fun_name`` asked for explicitly: as in JAX, a
    64-bit one asked for while x64 is off is truncated with a UserWarning that says so (its
    default types, Python's ``int``/``float``, are not 64-bit then, so they never warn)."""
    if not _jax_dtype(requested):  # (float128, strings, objects: numpy has them, JAX does not)
        raise TypeError(
            f"JAX only supports number, bool, and string dtypes, got dtype {requested}"
            + (f" in {fun_name}" if fun_name else "")
        )
    canonical = _CANONICAL.get(requested, requested)
    if canonical != requested:
        where = f" requested in {fun_name}" if fun_name else ""
        warnings.warn(
            f"Explicitly requested dtype {requested}{where} is not available, and will be truncated to "
            f"dtype {canonical.name}. To enable more dtypes, set the jax_enable_x64 configuration option "
            "or the JAX_ENABLE_X64 shell environment variable. See "
            "https://github.com/jax-ml/jax#current-gotchas for more.",
            stacklevel=_outside_engine(),
        )
    return canonical


_JAX_DTYPES: dict[np.dtype, bool] = {}  # (dtype -> whether JAX has it: asked on every astype)


def _jax_dtype(dtype: np.dtype) -> bool:
    known = _JAX_DTYPES.get(dtype)
    if known is None:
        from .avals import float0  # (integers' tangent dtype)
        from .narrow_dtypes import kind

        k = kind(dtype)
        known = _JAX_DTYPES[dtype] = (
            dtype == float0
            or (k in "biu" and dtype.itemsize <= 8)
            or (k == "f" and dtype.itemsize <= 8)
            or (k == "c" and dtype.itemsize <= 16)
            or str(dtype).startswith("key")
        )
    return known


_ENGINE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _outside_engine() -> int:
    """The stack level of the innermost caller outside the engine (where the warning points)."""
    frame, level = sys._getframe(2), 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_ENGINE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def python_scalar_dtype(x: object) -> np.dtype:
    """The dtype a Python (or numpy) scalar has as an operand: Python's are weak 32/64-bit ones."""
    t = type(x)
    if t is bool or t is np.bool_:
        return np.dtype("bool")
    d = _PYTHON_DTYPE.get(t)
    return canonical_dtype(np.asarray(x).dtype) if d is None else d
