"""Running user code for a report: script mode and stack mode.

Script mode executes the code as ``__main__`` (file name ``<user>``, so equation source lines and
traceback lines are the editor's lines) with ``jax`` resolving to the engine and the public
transformations instrumented; every outermost transformed call is recorded. Stack mode also runs the
code (for its definitions), then applies the requested stack of transformations to the target
function and calls it with the argument expressions.
"""

from __future__ import annotations

import builtins
import inspect
import io
import linecache
import os
import sys
import time

import engine
from engine import compat, core, debug, jit_cache_miss, monitoring

from . import errors as report_errors
from . import progress, record
from .errors import OutputLimitExceeded, run_error
from .schema import RunError, RunReport, RunRequest, TransformSpec
from .values import summarize

OUTPUT_CAP = 1 << 20  # characters of stdout and of stderr kept in the report
# Set by the playground's sandbox to its output limit (bytes of stdout + stderr): a run that prints
# past it is stopped by the write that crosses it, so the report names the user's line.
OUTPUT_LIMIT_ENV = "ENGINE_OUTPUT_BYTES"


class _Budget:
    """Bytes of output left to the run, shared by its stdout and stderr captures."""

    def __init__(self, limit: int | None):
        self.limit = limit
        self.used = 0

    def spend(self, s: str) -> None:
        if self.limit is None:
            return
        self.used += len(s.encode("utf-8", "replace"))
        if self.used > self.limit:
            raise OutputLimitExceeded(f"the run printed more than the output limit of {self.limit >> 10} KiB")


def output_limit() -> int | None:
    value = os.environ.get(OUTPUT_LIMIT_ENV, "")
    return int(value) if value.isdigit() else None


class _Capture(io.TextIOBase):
    """A bounded text sink standing in for sys.stdout/sys.stderr; optionally tees to the real one."""

    def __init__(self, tee=None, cap: int = OUTPUT_CAP, budget: _Budget | None = None):
        self.parts: list[str] = []
        self.size = 0
        self.cap = cap
        self.tee = tee
        self.truncated = False
        self.budget = budget or _Budget(None)
        self.on_line = None  # called after a write that ends a line (the sandbox streams output)

    def writable(self):
        return True

    def write(self, s) -> int:
        s = str(s)
        if self.tee is not None:
            self.tee.write(s)
        room = self.cap - self.size
        if room > 0:
            part = s[:room]
            self.parts.append(part)
            self.size += len(part)
        if len(s) > max(room, 0):
            self.truncated = True
        self.budget.spend(s)
        if self.on_line is not None and "\n" in s:
            self.on_line()
        return len(s)

    def flush(self):
        if self.tee is not None:
            self.tee.flush()

    def getvalue(self) -> str:
        text = "".join(self.parts)
        return text + ("\n… (output truncated)\n" if self.truncated else "")


def _register_source(filename: str, code: str) -> list[str]:
    lines = code.splitlines(keepends=True)
    linecache.cache[filename] = (len(code), None, lines, filename)
    return lines


def _evaluate(text: str, filename: str, namespace: dict, where: str, example: str):
    """An argument or option expression's value; its errors say which input raised them."""
    try:
        return eval(compile(text, filename, "eval"), namespace)
    except Exception as e:
        report_errors.tag_input(e, where, example)
        raise


def _parameter_names(fun) -> list[str]:
    try:
        return list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        return []


def _stack_transform(spec: TransformSpec, inner, namespace: dict, layer: int) -> record.Transformed:
    options = {
        k: _evaluate(v, "<options>", namespace, f"option {k} of {spec.name} (layer {layer})", "(None, 0)")
        for k, v in spec.options.items()
    }
    text = ", ".join(f"{k}={v}" for k, v in spec.options.items())
    return record.Transformed(spec.name, inner, (), options, options=text)


def _execute(
    req: RunRequest, filename: str, report: RunReport, rec: record.Recorder, argv: list[str] | None
) -> None:
    """Run the code (and the stack call); errors propagate to the caller."""
    namespace = {"__name__": "__main__", "__file__": filename, "__builtins__": builtins}
    code = compile(req.code, filename, "exec")
    saved_argv = sys.argv
    sys.argv = list(argv) if argv is not None else [filename]
    start = time.perf_counter()
    try:
        try:
            exec(code, namespace)
        except SystemExit as e:
            if e.code not in (None, 0):
                raise
        finally:
            rec.event(rec.timings, "run script", "run", start, time.perf_counter() - start)
        if req.function is None:
            return
        fun = namespace.get(req.function)
        if fun is None:
            raise NameError(
                f"name {req.function!r} is not defined by the code (the target function "
                f"must be defined at the top level)"
            )
        if not callable(fun):
            raise TypeError(f"{req.function!r} is a {type(fun).__name__}, not a function")
        names = _parameter_names(fun)
        args = [
            _evaluate(
                a,
                f"<argument {i + 1}>",
                namespace,
                f"argument {i + 1}" + (f" ({names[i]})" if i < len(names) else ""),
                "jnp.ones(3)",
            )
            for i, a in enumerate(req.args)
        ]
        if not req.stack:
            report.label = req.function
            if isinstance(fun, record.Transformed):
                # A target the code already transformed (``f = jax.pmap(g)``): show it in full.
                report.label = fun.label
                report.result = summarize(rec.record_call(fun, args, {}, force_detail=True))
            else:
                report.result = summarize(fun(*args))
            return
        t = fun
        for layer, spec in enumerate(req.stack, 1):
            t = _stack_transform(spec, t, namespace, layer)
        report.label = t.label
        out = rec.record_call(t, args, {}, force_detail=True)
        report.result = summarize(out)
    finally:
        sys.argv = saved_argv


def _target_line(req: RunRequest, filename: str) -> int | None:
    """The line defining the stack mode's target function, if the code defines it plainly."""
    if not req.function:
        return None
    for i, line in enumerate(req.code.splitlines(), 1):
        if line.startswith((f"def {req.function}(", f"async def {req.function}(", f"{req.function} =")):
            return i
    return None


def run_code(
    req: RunRequest, filename: str = report_errors.USER_FILE, tee: bool = False, argv: list[str] | None = None
) -> tuple[RunReport, BaseException | None]:
    """Run ``req`` and build its report; also returns the exception the user code raised, if any."""
    start = time.perf_counter()
    mode = "stack" if req.function else "script"
    report = RunReport(
        engine_version=engine.__version__, mode=mode, ok=False, device_count=compat.requested_device_count()
    )
    x64 = core.x64_enabled[0]  # a program may turn x64 on: it stays its own (reset after the report)
    jit_cache_miss.forget_call_sites()  # (an earlier run's line is not this program's)
    rec = record.Recorder(filename)
    rec.detail_calls = mode == "script"  # in stack mode the stack's call is the one to show in full
    budget = _Budget(output_limit())
    out = _Capture(sys.stdout if tee else None, budget=budget)
    err = _Capture(sys.stderr if tee else None, budget=budget)
    rec.write_stdout = out.write
    fd = progress.progress_fd()
    if fd is not None:
        stream = progress.ProgressStream(fd, rec, out, err)
        rec.on_progress = stream.send
        out.on_line = err.on_line = stream.printed
    source_lines = _register_source(filename, req.code)
    compat.install()
    undo = compat.set_overrides(record.instrumented_transforms())
    saved = sys.stdout, sys.stderr
    previous, record._recorder = record._recorder, rec
    exc = None
    try:
        sys.stdout, sys.stderr = out, err
        with monitoring.listen(rec.on_event), debug.capture(rec.on_print), monitoring.profile_kernels():
            _execute(req, filename, report, rec, argv)
    except BaseException as e:  # noqa: BLE001 - every failure of user code is part of the report
        exc = e
        report.error = run_error(e, filename, source_lines, _target_line(req, filename))
    finally:
        sys.stdout, sys.stderr = saved
        record._recorder = previous
        undo()
    rec.settle_compile_jobs()
    rec.measure_kernels()
    if core.x64_enabled[0] != x64:
        engine.config.update("jax_enable_x64", x64)
    report.ok = exc is None
    report.stdout, report.stderr = out.getvalue(), err.getvalue()
    report.calls, report.timings, report.prints = rec.calls, rec.timings, rec.prints
    report.device_count = compat.requested_device_count()
    report.duration_ms = (time.perf_counter() - start) * 1000.0
    return report, exc


def run_request(req: RunRequest) -> RunReport:
    """The run report for ``req``; never raises (failures, even the report's own, become ``error``).

    >>> r = run_request(RunRequest(code="def f(x): return x * 2.0", function="f",
    ...                            stack=[{"name": "grad"}], args=["3.0"]))
    >>> r.label, r.result.data
    ('grad(f)', 2.0)
    """
    try:
        return run_code(req)[0]
    except BaseException as e:  # noqa: BLE001
        return RunReport(
            engine_version=engine.__version__,
            mode="stack" if req.function else "script",
            ok=False,
            error=RunError(
                type=type(e).__name__,
                mro=[c.__name__ for c in type(e).__mro__],
                message=f"internal error while building the report: {e}",
            ),
        )
