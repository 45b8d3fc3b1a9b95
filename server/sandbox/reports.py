"""Run reports the sandbox writes itself, for runs that never produced one of their own."""

from __future__ import annotations

from typing import Optional

from engine.inspect.errors import PRINT_LESS
from engine.inspect.schema import RunError, RunReport, RunRequest

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
