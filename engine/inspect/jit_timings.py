"""The timeline's events for jit's steps (trace, lower, compile or load, execute) and the call facts
they decide.

jit's compile step is named by where its kernels came from (``NumbaBackend._load``'s cache status):
compiled, loaded from the kernel cache on disk, or found in memory. A load from disk is not a
compile: it imports the generated module and has numba read each kernel's cached machine code and
link it (no type inference, no LLVM optimisation) -- tens of milliseconds where a compile takes
hundreds; in the playground's runs it also fetches those cache files from the compile service. It
was shown as "compile jit(f)" beside a table saying the call compiled nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .schema import TransformedCall

if TYPE_CHECKING:
    from .record import Recorder

# cache status -> (label, category) of the step
KERNEL_STEPS = {
    "miss": ("compile jit({})", "compile"),
    "disk": ("load kernels jit({}) (disk cache)", "load"),
    "hit": ("kernels in memory jit({})", "load"),
}


def kernels_step(name: str, cache: str | None) -> tuple[str, str]:
    """The label and category of a jit compile step with this cache status.

    >>> kernels_step("loss", "disk")
    ('load kernels jit(loss) (disk cache)', 'load')
    >>> kernels_step("loss", "miss")
    ('compile jit(loss)', 'compile')
    """
    label, category = KERNEL_STEPS.get(cache or "miss", KERNEL_STEPS["miss"])
    return label.format(name), category


def kernels_cache(record: TransformedCall) -> None:
    """A traced call's ``jit.cache`` as its steps on the timeline say: "disk" when it loaded kernels
    from the kernel cache and compiled none, else "miss" (a first call's background compile can
    settle after its other steps, so this is decided again then)."""
    if record.jit is None or record.jit.cache == "hit":
        return
    steps = [e for e in record.timings if e.category in ("compile", "load")]
    loaded = any(e.cache == "disk" for e in steps)
    record.jit.cache = "disk" if loaded and not any(e.category == "compile" for e in steps) else "miss"


def jit_event(rec: Recorder, into: list, kind: str, data: dict, t_end: float, call: int | None) -> None:
    """A timing event for one of jit's steps. Compiling happens inside the first execution, so
    the execute event starts where the last compile inside it ended: phases never overlap."""
    seconds = data.get("seconds") or 0.0
    name = data.get("name", "?")
    if kind == "jit_trace":
        hit = data.get("cache") == "hit"
        label = f"{'cache hit' if hit else 'trace'} jit({name})"
        rec.event(into, label, "trace", t_end - seconds, seconds, call=call, cache="hit" if hit else "miss")
    elif kind == "jit_lower":
        rec.event(into, f"lower jit({name})", "lower", t_end - seconds, seconds, call=call)
        rec._compiled_until = t_end
    elif kind == "jit_compile":
        cache = data.get("cache")
        label, category = kernels_step(name, cache)
        rec.event(into, label, category, t_end - seconds, seconds, call=call, cache=cache)
        rec._compiled_until = t_end
    elif kind == "jit_execute":
        start = max(t_end - seconds, rec._compiled_until)
        tier = data.get("tier")
        label = f"execute jit({name})" + (" (interpreted while compiling)" if tier == "interpreter" else "")
        rec.event(into, label, "execute", start, t_end - start, call=call, tier=tier)


def settle_compile_jobs(rec: Recorder) -> None:
    """Background compiles that finished since: a ``compile`` (or ``load``) event each, and the time
    their kernels became ready in the call's jit facts (jobs still compiling stay pending)."""
    pending = []
    for record, job, call_id in rec.compile_jobs:
        if not job.done.is_set():
            pending.append((record, job, call_id))
            continue
        if job.exe is not None:
            cache = getattr(job.exe, "cache", None)  # (the numba backend's: how it got the kernels)
            label, category = kernels_step(job.name, cache)
            rec.event(
                record.timings,
                f"{label} in the background",
                category,
                job.started,
                job.ready - job.started,
                call=call_id,
                cache=cache,
                tier="compiled",
                background=True,
            )
            if record.jit is not None and record.jit.compiled_ready_ms is None:
                record.jit.compiled_ready_ms = round(rec.ms(job.ready), 4)
            kernels_cache(record)
    rec.compile_jobs = pending
