"""Run reports the sandbox writes itself, for runs that never produced one of their own."""

from __future__ import annotations

from typing import Optional

from engine.inspect.errors import PRINT_LESS
from engine.inspect.schema import RunError, RunProgress, RunReport, RunRequest

LIMIT_MESSAGES = {
    "timeout": "The run took longer than the wall-clock limit of {wall:g} s and was stopped.",
    "cpu": "The run used more than the CPU-time limit of {cpu} s and was stopped.",
    "memory": "The run used more than the memory limit of {memory_mib} MiB and was stopped.",
    "output": "The run printed more than the output limit of {output_kib} KiB and was stopped.",
    "code_size": "The code is larger than the limit of {code_kib} KiB.",
    "killed": "The run ended without a report ({detail}).",
}

# What to do about each limit (the report's suggested fix).
STOP_SOONER = (
    "Look for a loop that never ends (a `while` whose condition stays true), or make the inputs or "
    "the number of steps smaller."
)
LIMIT_SUGGESTIONS = {
    "timeout": STOP_SOONER,
    "cpu": STOP_SOONER,
    "memory": "Make the arrays smaller (fewer elements, float32 rather than float64), and do not keep "
    "large intermediate arrays alive in lists or globals.",
    "output": PRINT_LESS,
    "code_size": "Shorten the code: drop unused parts, and build large data with jnp.arange, "
    "jnp.linspace or jax.random instead of writing it out.",
}


def mode_of(request: RunRequest) -> str:
    return "stack" if request.function else "script"


def limit_report(
    request: RunRequest,
    limit: str,
    engine_version: str,
    *,
    stdout: str = "",
    stderr: str = "",
    message: Optional[str] = None,
    duration_ms: float = 0.0,
    device_count: int = 1,
    **fmt: object,
) -> RunReport:
    text = message or LIMIT_MESSAGES[limit].format(**fmt)
    return RunReport(
        engine_version=engine_version,
        mode=mode_of(request),
        ok=False,
        stdout=stdout,
        stderr=stderr,
        error=RunError(
            type="SandboxLimit" if limit != "killed" else "SandboxError",
            message=text,
            limit=limit,
            suggestion=LIMIT_SUGGESTIONS.get(limit),
        ),
        duration_ms=duration_ms,
        device_count=device_count,
    )


def code_size_report(request: RunRequest, code_bytes: int, engine_version: str) -> Optional[RunReport]:
    if len(request.code.encode("utf-8", "surrogatepass")) <= code_bytes:
        return None
    return limit_report(request, "code_size", engine_version, code_kib=code_bytes // 1024)


def keep_finished(report: RunReport, done: RunReport | RunProgress, stopped_line: Optional[int]) -> None:
    """Give a limit's ``report`` what the run finished before it was stopped (its recorded calls,
    timings and debug prints: from its own interrupted report, or from the progress it streamed),
    and say where it was when the limit stopped it, as far as that is known."""
    report.calls, report.timings, report.prints = list(done.calls), list(done.timings), list(done.prints)
    err = report.error
    running = done.running if isinstance(done, RunProgress) else None
    if running is not None:
        report.calls.append(running)  # (as an interrupted report lists it: without its stages)
    if err is None:
        return
    if stopped_line:
        err.message += f" It was running line {stopped_line}."
    elif running is not None:
        line = running.source.line if running.source is not None and running.source.file == "<user>" else None
        err.message += f" It was running {running.label}" + (f", called on line {line}." if line else ".")
        if line:
            err.line = line
    finished = len(report.calls) - (running is not None)
    if finished:
        err.message += (
            " What it finished before is shown: "
            + (f"{finished} transformed calls with their" if finished > 1 else "1 transformed call with its")
            + " IR and timings, and its output."
        )
    elif report.stdout or report.prints:
        err.message += " Its output until then is shown."
