"""``jax.profiler``: traces of what the engine ran, and its memory, in the files JAX writes.

JAX's profiler records XLA's host and device activity. The engine records what it does itself:
tracing, compiling and running jitted programs (``engine.monitoring``'s events) and the spans of
``TraceAnnotation``/``annotate_function``, written by ``stop_trace`` as a Chrome trace
(``<log_dir>/plugins/profile/<run>/<host>.trace.json.gz``, the layout JAX's profiler writes, which
TensorBoard's profile plugin and https://ui.perfetto.dev open). ``device_memory_profile`` is a
gzipped pprof profile of the arrays alive, one sample per array (by type: the engine keeps no
allocation stacks).

    >>> import engine as jax, engine.numpy as jnp, tempfile
    >>> with jax.profiler.trace(tempfile.mkdtemp()):
    ...     y = jax.jit(jnp.sin)(1.0).block_until_ready()
"""

from __future__ import annotations

import contextlib
import functools
import gc
import gzip
import json
import os
import pathlib
import socket
import threading
import time
from typing import Any, Callable, Iterator

from . import core, monitoring


class ProfileOptions:
    """Options of a trace (JAX's tracer levels and backend settings); the engine's trace records
    the same events whatever they say."""

    def __init__(self) -> None:
        self.host_tracer_level = 2
        self.python_tracer_level = 0
        self.device_tracer_level = 1
        self.enable_hlo_proto = True
        self.include_dataset_ops = True
        self.start_timestamp_ns = 0
        self.duration_ms = 0
        self.repository_path = ""
        self.raise_error_on_start_failure = False
        self.advanced_configuration: dict[str, Any] = {}


class _Session:
    def __init__(self, log_dir: str, perfetto_trace: bool) -> None:
        self.log_dir, self.perfetto_trace = log_dir, perfetto_trace
        self.events: list[dict] = []
        self.exits = contextlib.ExitStack()

    def record(self, name: str, start: float, seconds: float, **args: Any) -> None:
        self.events.append(
            {
                "ph": "X",
                "name": name,
                "pid": os.getpid(),
                "tid": threading.get_ident(),
                "ts": start * 1e6,
                "dur": seconds * 1e6,
                "args": args,
            }
        )

    def on_event(self, kind: str, data: dict) -> None:
        seconds = data.get("seconds")
        if isinstance(seconds, (int, float)):
            self.record(f"{kind} {data.get('name', '')}".strip(), time.perf_counter() - seconds, seconds)

    def write(self) -> pathlib.Path:
        run = pathlib.Path(self.log_dir, "plugins", "profile", time.strftime("%Y_%m_%d_%H_%M_%S"))
        run.mkdir(parents=True, exist_ok=True)
        trace = {"displayTimeUnit": "ns", "metadata": {"highres-ticks": True}, "traceEvents": self.events}
        path = run / f"{socket.gethostname()}.trace.json.gz"
        path.write_bytes(gzip.compress(json.dumps(trace).encode()))
        if self.perfetto_trace:  # Perfetto refuses the metadata field, as JAX notes
            del trace["metadata"]
            (run / "perfetto_trace.json.gz").write_bytes(gzip.compress(json.dumps(trace).encode()))
        return path


_lock = threading.Lock()
_session: list[_Session | None] = [None]


def start_trace(
    log_dir: os.PathLike | str,
    create_perfetto_link: bool = False,
    create_perfetto_trace: bool = False,
    profiler_options: ProfileOptions | None = None,
) -> None:
    """Start recording a trace, written to ``log_dir`` by :func:`stop_trace`. One at a time.

    ``create_perfetto_link`` is refused: JAX's blocks until a browser opens the link it serves.
    """
    if create_perfetto_link:
        raise NotImplementedError(
            "create_perfetto_link serves the trace and waits for a browser; open the "
            "perfetto_trace.json.gz that create_perfetto_trace=True writes instead"
        )
    with _lock:
        if _session[0] is not None:
            raise RuntimeError("Profile has already been started. Only one profile may be run at a time.")
        session = _Session(str(log_dir), create_perfetto_trace)
        session.exits.enter_context(monitoring.listen(session.on_event))
        _session[0] = session


def stop_trace() -> None:
    """Stop the running trace and write it under the ``log_dir`` given to :func:`start_trace`."""
    with _lock:
        session = _session[0]
        if session is None:
            raise RuntimeError("No profile started")
        _session[0] = None
        session.exits.close()
    session.write()


@contextlib.contextmanager
def trace(
    log_dir: os.PathLike | str,
    create_perfetto_link: bool = False,
    create_perfetto_trace: bool = False,
    profiler_options: ProfileOptions | None = None,
) -> Iterator[None]:
    """Record a trace of the block into ``log_dir`` (see :func:`start_trace`)."""
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
    try:
        yield
    finally:
        stop_trace()


class TraceAnnotation:
    """A span named ``name`` on the trace's timeline while the block runs (when a trace is on)."""

    def __init__(self, name: str, **kwargs: Any) -> None:
        self.name, self.kwargs = name, kwargs

    def __enter__(self) -> "TraceAnnotation":
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        session = _session[0]
        if session is not None:
            session.record(self.name, self._start, time.perf_counter() - self._start, **self.kwargs)


class StepTraceAnnotation(TraceAnnotation):
    """A training step's span (``step_num=`` names the step)."""


def annotate_function(func: Callable, name: str | None = None, **decorator_kwargs: Any) -> Callable:
    """``func`` with each call a :class:`TraceAnnotation` named after it (or ``name``)."""
    label = name or getattr(func, "__qualname__", None) or func.__name__

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with TraceAnnotation(label, **decorator_kwargs):
            return func(*args, **kwargs)

    return wrapper


# --- the device memory profile: pprof's protocol buffer, encoded by hand (a dozen fields) ------


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, value: int | bytes) -> bytes:
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def device_memory_profile(backend: str | None = None) -> bytes:
    """The arrays alive now as a gzipped ``pprof`` profile: per array, one allocation of its size
    in bytes, at a location named by its type (``f32[1000,1000]``)."""
    strings: dict[str, int] = {"": 0}

    def s(text: str) -> int:
        return strings.setdefault(text, len(strings))

    body = b"".join(
        _field(1, _field(1, s(kind)) + _field(2, s(unit)))
        for kind, unit in (("allocations", "count"), ("space", "bytes"))
    )
    functions: dict[str, int] = {}
    for x in gc.get_objects():
        if type(x) is not core.Array:
            continue
        where = x.aval.str_short()
        fid = functions.setdefault(where, len(functions) + 1)
        sample = _field(1, fid) + _field(2, 1) + _field(2, int(x._value.nbytes))
        body += _field(2, sample + _field(3, _field(1, s("kind")) + _field(2, s("buffer"))))
    for where, fid in functions.items():
        body += _field(4, _field(1, fid) + _field(4, _field(1, fid)))  # location fid -> function fid
        body += _field(5, _field(1, fid) + _field(2, s(where)) + _field(3, s(where)))
    body += b"".join(_field(6, text.encode()) for text in strings)
    return gzip.compress(body)


def save_device_memory_profile(filename: os.PathLike | str, backend: str | None = None) -> None:
    """Write :func:`device_memory_profile` to ``filename``."""
    pathlib.Path(filename).write_bytes(device_memory_profile(backend))
