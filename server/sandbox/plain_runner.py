"""A minimal runner that needs nothing from the engine but its report schema.

It executes the code as a script (or calls the target function with the argument expressions,
without transformations) and summarizes the result with numpy. The sandbox tests use it, so the
isolation can be exercised on its own; ``JAXPLAY_RUNNER=server.sandbox.plain_runner:run_request``
also makes it a diagnostic fallback. Output goes straight to the process's stdout, which the
supervisor captures under its cap.
"""

from __future__ import annotations

import sys
import time
import traceback
from typing import Any, Optional

import numpy as np

from engine.inspect.schema import ArraySummary, Frame, RunError, RunReport, RunRequest, TreeNode
from engine.inspect.values import number

USER_FILE = "<user>"
DATA_CAP = 10_000


def summarize(value: object) -> TreeNode | ArraySummary:
    if isinstance(value, (tuple, list)):
        return TreeNode(
            kind="tuple" if isinstance(value, tuple) else "list", children=[summarize(v) for v in value]
        )
    if isinstance(value, dict):
        return TreeNode(
            kind="dict", keys=[str(k) for k in value], children=[summarize(v) for v in value.values()]
        )
    if value is None:
        return TreeNode(kind="none")
    try:
        a = np.asarray(value)
    except Exception:  # noqa: BLE001
        return TreeNode(kind="object", type_name=type(value).__name__, repr=repr(value)[:1000])
    if a.dtype == object:
        return TreeNode(kind="object", type_name=type(value).__name__, repr=repr(value)[:1000])
    lo = hi = mean = None
    nan_count = inf_count = 0
    if a.size and np.issubdtype(a.dtype, np.number):
        f = a.astype(np.float64)
        finite = f[np.isfinite(f)]
        if finite.size:
            lo, hi, mean = number(finite.min()), number(finite.max()), number(finite.mean())
        nan_count, inf_count = int(np.isnan(f).sum()), int(np.isinf(f).sum())
    return ArraySummary(
        shape=list(a.shape),
        dtype=str(a.dtype),
        min=lo,
        max=hi,
        mean=mean,
        nan_count=nan_count,
        inf_count=inf_count,
        data=a.tolist() if a.size <= DATA_CAP else None,
        truncated=a.size > DATA_CAP,
    )


def _error(exc: BaseException) -> RunError:
    frames = [
        Frame(
            file=fs.filename,
            line=fs.lineno or 0,
            function=fs.name,
            text=fs.line,
            user=fs.filename == USER_FILE,
        )
        for fs in traceback.extract_tb(exc.__traceback__)
    ]
    user = [fr for fr in frames if fr.user]
    line = user[-1].line if user else getattr(exc, "lineno", None)
    return RunError(
        type=type(exc).__name__,
        mro=[c.__name__ for c in type(exc).__mro__],
        message=str(exc),
        line=line,
        traceback=frames,
    )


def run_request(req: RunRequest) -> RunReport:
    start = time.perf_counter()
    mode = "stack" if req.function else "script"
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": __builtins__}
    result: Optional[TreeNode | ArraySummary] = None
    error: Optional[RunError] = None
    try:
        exec(compile(req.code, USER_FILE, "exec"), namespace)
        if req.function:
            if req.stack:
                raise NotImplementedError("the plain runner applies no transformations")
            args = [eval(compile(a, "<args>", "eval"), namespace) for a in req.args]
            result = summarize(namespace[req.function](*args))
    except BaseException as e:  # noqa: BLE001 - SystemExit from user code is a result too
        error = _error(e)
    finally:
        sys.stdout.flush()
    return RunReport(
        engine_version="plain",
        mode=mode,
        ok=error is None,
        result=result,
        error=error,
        duration_ms=(time.perf_counter() - start) * 1000,
    )
