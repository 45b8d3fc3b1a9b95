"""Run reports the sandbox writes itself, for runs that never produced one of their own."""

from __future__ import annotations

import re
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


# faulthandler's stack (``child.WHERE_SIGNAL``, or a crash): a header, then the frames innermost first.
_STACK = re.compile(
    r"^(?:Current thread 0x[0-9a-f]+|Stack) \(most recent call first\):\n((?:  File .*\n?)*)", re.M
)
_USER_FRAME = re.compile(r'^  File "<user>", line (\d+) in ', re.M)


def stopped_where(stderr: str, crashed: bool) -> tuple[str, Optional[int]]:
    """The innermost user line of the last stack faulthandler wrote on the run's stderr (None if
    there is none), and the stderr to show: without that stack when the supervisor asked for it
    (it says nothing to the user), with it when the run crashed (it is part of the crash)."""
    stacks = list(_STACK.finditer(stderr))
    if not stacks:
        return stderr, None
    last = stacks[-1]
    user = _USER_FRAME.search(last.group(1))
    if not crashed:
        stderr = stderr[: last.start()] + stderr[last.end() :]
    return stderr, int(user.group(1)) if user else None


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
    source = running.source if running is not None else None
    call_line = source.line if source is not None and source.file == "<user>" else None
    if stopped_line:
        err.message += f" It was running line {stopped_line}" + (
            f", in {running.label} called on line {call_line}."
            if running is not None and call_line and call_line != stopped_line
            else "."
        )
    elif running is not None:
        err.message += f" It was running {running.label}" + (
            f", called on line {call_line}." if call_line else "."
        )
        if call_line:
            err.line = call_line
    finished = len(report.calls) - (running is not None)
    if finished:
        err.message += (
            " What it finished before is shown: "
            + (f"{finished} transformed calls with their" if finished > 1 else "1 transformed call with its")
            + " IR and timings, and its output."
        )
    elif report.stdout or report.prints:
        err.message += " Its output until then is shown."
