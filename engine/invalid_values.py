"""``jax_debug_nans`` / ``jax_debug_infs``: stop at the operation that made an invalid value.

Eagerly, a primitive whose floating-point output holds a NaN (or an inf, with ``jax_debug_infs``)
raises ``FloatingPointError`` naming it (printing first, as JAX does, that it re-ran it). A ``jit`` program is not stopped midway (compiled code
runs to the end, as XLA's does): when its output holds one, the function is run again
de-optimized, op by op, so that the eager check names the operation, as JAX does.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import numpy as np
from .narrow_dtypes import kind as dtype_kind

active = [False]  # either flag on (read by EvalTrace and jit's fast path: a plain list cell)
_flags = {"nan": False, "inf": False}
_staged = threading.local()
# JAX raises these from inside a jit (eager primitives run as one), whose boundary notes that it
# removed its own frames from the traceback
_FILTERED_NOTE = (
    "--------------------\nFor simplicity, JAX has removed its internal frames from the traceback of the "
    "following exception. Set JAX_TRACEBACK_FILTERING=off to include these."
)
_RERUN = (
    "Invalid nan value encountered in the output of a jax.jit function. Calling the de-optimized version."
)


def set_flag(kind: str, on: bool) -> None:
    _flags[kind] = bool(on)
    active[0] = _flags["nan"] or _flags["inf"]


def invalid_kind(values: Sequence[Any]) -> str | None:
    """ "nan" or "inf" if a checked kind of invalid value is among ``values``' floats, else None."""
    for v in values:
        a = getattr(v, "_value", v)
        if not isinstance(a, (np.ndarray, np.generic)) or dtype_kind(a.dtype) not in "fc":
            continue
        if _flags["nan"] and np.isnan(a).any():
            return "nan"
        if _flags["inf"] and np.isinf(a).any():
            return "inf"
    return None


def check_primitive(name: str, outs: Any, multiple_results: bool) -> None:
    """Raise if an eagerly run primitive made an invalid value (not inside a running program)."""
    if getattr(_staged, "depth", 0):
        return
    kind = invalid_kind(outs if multiple_results else [outs])
    if kind is not None:
        # JAX runs an eager primitive as a compiled program, then again de-optimized: it says so
        print(_RERUN)
        raise _noted(FloatingPointError(f"invalid value ({kind}) encountered in {name}"))


@contextmanager
def running_program() -> Iterator[None]:
    """While a staged program runs, its equations are not checked one by one."""
    _staged.depth = getattr(_staged, "depth", 0) + 1
    try:
        yield
    finally:
        _staged.depth -= 1


def check_jit_outputs(name: str, outs: Sequence[Any], rerun_deoptimized: Callable[[], Any]) -> None:
    kind = invalid_kind(outs)
    if kind is None or getattr(_staged, "depth", 0):
        return
    print(_RERUN)
    rerun_deoptimized()  # raises where the eager check (or Python) finds the invalid value
    raise _noted(
        FloatingPointError(
            f"('jit({name})', '{kind}'). Because jax_config.debug_nans.value and/or config.jax_debug_infs is "
            "set, the de-optimized function (i.e., the function as if the `jit` decorator were removed) was "
            "called in an attempt to get a more precise error message. However, the de-optimized function did "
            "not produce invalid values during its execution. This behavior can result from `jit` optimizations "
            "causing the invalid value to be produced. It may also arise from having nan/inf literals as inputs "
            "or outputs, like `jax.jit(lambda ...: jax.numpy.nan)(...)`. \n\nIt may be possible to avoid the "
            "invalid value by removing the `jit` decorator, at the cost of losing optimizations. \n\nIf you see "
            "this error, consider opening a bug report at https://github.com/jax-ml/jax."
        )
    )


def _noted(e: BaseException) -> BaseException:
    e.add_note(_FILTERED_NOTE)
    return e
