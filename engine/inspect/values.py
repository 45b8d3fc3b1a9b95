"""Values as the report shows them: pytrees of bounded array summaries.

>>> summarize(np.array([1.0, np.nan])).model_dump()['data']
[1.0, 'NaN']
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine import checkify

from .schema import ArraySummary, CheckifyError, SourceInfo, TreeNode, Value
from ..narrow_dtypes import kind as dtype_kind

DATA_CAP = 4096  # elements of data sent per array
TREE_CAP = 256  # nodes per summarized pytree
REPR_CAP = 1000  # characters of repr for non-array leaves


def number(x) -> float | str | None:
    """A JSON-safe float: NaN/Inf become the strings JavaScript's Number() understands."""
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def _as_numpy(x) -> np.ndarray | None:
    from engine.core import Array, Tracer

    if isinstance(x, Tracer):
        return None
    if isinstance(x, Array):
        return x._value
    if isinstance(x, (np.ndarray, np.generic, bool, int, float, complex)):
        return np.asarray(x)
    if hasattr(x, "__jax_array__"):
        return _as_numpy(x.__jax_array__())
    return None


_DTYPE_NAMES: dict = {}


def _data(a: np.ndarray, finite: bool = False):
    if dtype_kind(a.dtype) in "fc":
        if finite:  # no NaN/Inf to spell out
            return a.real.tolist()
        flat = [number(v) for v in a.real.ravel().tolist()]
        return np.array(flat, dtype=object).reshape(a.shape).tolist() if a.ndim else flat[0]
    if dtype_kind(a.dtype) in "biu":
        return a.tolist()
    return None


def summarize_array(x, cap: int = DATA_CAP, devices: list[int] | None = None) -> ArraySummary | None:
    """Shape, dtype, finite min/max/mean, NaN/Inf counts and the data up to ``cap`` elements."""
    a = _as_numpy(x)
    if a is None:
        return None
    weak = (
        bool(getattr(x, "weak_type", False))
        or isinstance(x, (int, float, complex))
        and not isinstance(x, bool)
    )
    if devices is None and getattr(x, "device_ids", None) is not None:  # sharded over pmap devices
        try:
            devices = [int(d) for d in x.device_ids]
        except (TypeError, ValueError):
            devices = None
    if dtype_kind(a.dtype) == "V":  # typed PRNG keys: opaque, shown by their dtype (key<fry>) and shape
        from engine import core

        ext = core.extended_dtypes.get(a.dtype)
        if ext is not None:
            return ArraySummary(shape=list(a.shape), dtype=ext.name, devices=devices)
    name = _DTYPE_NAMES.get(a.dtype)
    if name is None:
        name = _DTYPE_NAMES[a.dtype] = str(a.dtype)  # (str() of a dtype takes microseconds)
    fields = dict(shape=list(a.shape), dtype=name, weak_type=weak, devices=devices)
    finite_only = dtype_kind(a.dtype) in "biu"
    if dtype_kind(a.dtype) in "biufc" and a.size:
        f = a.real.astype(np.float64) if dtype_kind(a.dtype) != "b" else a.astype(np.float64)
        lo, hi = f.min(), f.max()
        if math.isfinite(lo) and math.isfinite(hi):  # (NaN propagates, Inf would be lo or hi)
            finite_only = True  # the common case: three reductions, not seven
            fields.update(min=number(lo), max=number(hi), mean=number(f.sum() / f.size))  # = mean()
        else:
            finite_mask = np.isfinite(f)
            nan_count = int(np.isnan(f).sum())
            fields.update(nan_count=nan_count, inf_count=int(f.size - finite_mask.sum() - nan_count))
            finite = f[finite_mask]
            if finite.size:
                fields.update(min=number(finite.min()), max=number(finite.max()), mean=number(finite.mean()))
    if a.size <= cap:
        fields["data"] = _data(a, finite_only)
    else:
        fields["truncated"] = True
    return ArraySummary(**fields)


def summarize(value: Any, cap: int = DATA_CAP) -> Value:
    """A pytree of arrays as nested ``TreeNode``s with ``ArraySummary`` leaves (bounded in size)."""
    budget = [TREE_CAP]
    return _summarize(value, cap, budget)


def _summarize(value, cap, budget) -> Value:
    budget[0] -= 1
    if budget[0] < 0:
        return TreeNode(kind="object", type_name=type(value).__name__, repr="… (more values not shown)")
    if value is None:
        return TreeNode(kind="none")
    summary = summarize_array(value, cap)
    if summary is not None:
        return summary
    if isinstance(value, checkify.Error):
        return _checkify_error(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return TreeNode(
            kind="namedtuple",
            type_name=type(value).__name__,
            keys=list(value._fields),
            children=[_summarize(v, cap, budget) for v in value],
        )
    if isinstance(value, (tuple, list)):
        return TreeNode(
            kind="tuple" if isinstance(value, tuple) else "list",
            children=[_summarize(v, cap, budget) for v in value],
        )
    if isinstance(value, dict):
        keys = sorted(value, key=repr) if not all(isinstance(k, str) for k in value) else sorted(value)
        return TreeNode(
            kind="dict",
            keys=[str(k) for k in keys],
            children=[_summarize(value[k], cap, budget) for k in keys],
        )
    try:
        text = repr(value)
    except Exception as e:  # noqa: BLE001 - a broken __repr__ must not break the report
        text = f"<repr failed: {type(e).__name__}>"
    return TreeNode(kind="object", type_name=type(value).__name__, repr=text[:REPR_CAP])


def _checkify_error(err: checkify.Error) -> CheckifyError:
    try:
        exc = err.get_exception()
    except Exception as e:  # noqa: BLE001 - a traced error cannot be read (as in JAX)
        return CheckifyError(message=f"<unreadable: {type(e).__name__}>")
    if exc is None:
        return CheckifyError()
    first = next(iter(exc.error_mapping.values())) if isinstance(exc, checkify.BatchedError) else exc
    src = getattr(first, "source_info", None)
    source = None
    if src is not None and getattr(src, "line", None):
        source = SourceInfo(file=src.file, line=src.line, function=src.function)
    return CheckifyError(message=str(exc)[:REPR_CAP], error_type=type(first).__name__, source=source)


def nbytes(x) -> int:
    a = _as_numpy(x)
    return 0 if a is None else int(a.nbytes)
