"""The forked child of a run: wire descriptors, isolate, call the runner, send the report.

Runs in a copy of the zygote, so the runner and the engine are already imported. Never returns:
it ends with ``os._exit`` so no zygote state (atexit hooks, buffered pipes) runs twice.
"""

from __future__ import annotations

import faulthandler
import fcntl
import io
import logging
import os
import signal
import sys
import traceback
from types import FrameType
from typing import TYPE_CHECKING, Callable, Optional

from . import isolation
from .result_frames import HEADER, REPORT

if TYPE_CHECKING:
    from engine.inspect.schema import RunReport, RunRequest

# ``module:function`` of the settings' ``runner``: a report, or one already serialized to JSON.
Runner = Callable[["RunRequest"], "RunReport | str | bytes"]

RESULT_FD = 3
SERVICE_FD = 4  # the run's connection to the kernel compile service, when there is one
EXIT_OK, EXIT_NO_REPORT, EXIT_SETUP_FAILED = 0, 70, 71
# The supervisor interrupts a run at its wall-clock limit with SIGINT, and past its output limit
# with SIGUSR1, and the kernel at its CPU soft limit with SIGXCPU, before killing it: the run stops
# where it is, and its report's traceback says which line that was.
INTERRUPTS = {signal.SIGINT: "timeout", signal.SIGXCPU: "cpu", signal.SIGUSR1: "output"}
# Asks a run the supervisor is about to kill (past its memory limit, or still running after the
# interrupt's grace period) where it is: the run's stack, on stderr.
WHERE_SIGNAL = signal.SIGUSR2
# The engine's runner stops a run itself at the print that crosses the output limit (it captures
# prints, so they never reach the pipes the supervisor counts): it reads the limit from here.
OUTPUT_LIMIT_ENV = "ENGINE_OUTPUT_BYTES"
# Where the engine's runner streams its progress frames (``engine.inspect.progress``): the result
# pipe, read by ``result_frames``; with the run's pid, so no process it starts takes it for its own.
PROGRESS_FD_ENV = "ENGINE_PROGRESS_FD"
# A spare's name while it waits for its request (``/proc/<pid>/comm``), so that it can be told
# from the zygote's compile service, also a child under the zygote's uid.
SPARE_NAME = b"jaxplay-spare"


class LimitInterrupt(BaseException):
    """Raised in the run where a limit interrupted it; its message is the limit's name."""


_run_pid = 0


def _interrupt(signum: int, _frame: Optional[FrameType]) -> None:
    if os.getpid() != _run_pid:  # a process the run forked: the signal's default action, as before
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    raise LimitInterrupt(INTERRUPTS[signal.Signals(signum)])


def _wire_descriptors(
    result_w: int,
    out_w: int,
    err_w: int,
    keep: tuple[int, ...] = (),
    service: int | None = None,
    request: int | None = None,
) -> int | None:
    """Put the run's pipes (and service connection) at their numbers and close everything else
    but ``keep`` and ``request``; returns the request's new descriptor."""
    if service is not None:  # out of the way of the dup2s below, whatever number it has now
        service = fcntl.fcntl(service, fcntl.F_DUPFD, 64)
    if request is not None:
        request = fcntl.fcntl(request, fcntl.F_DUPFD_CLOEXEC, 64)
        keep = (*keep, request)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    os.dup2(result_w, RESULT_FD)
    low = RESULT_FD + 1
    if service is not None:
        os.dup2(service, SERVICE_FD)
        low = SERVICE_FD + 1
    # Everything else the zygote held (its control pipes, other runs' leftovers) is closed; the
    # namespace descriptors in ``keep`` are closed by ``isolate`` once it has entered them.
    for fd in sorted(k for k in keep if k >= low):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX"))
    for fd in (0, 1, 2, RESULT_FD):
        os.set_inheritable(fd, fd != RESULT_FD)  # device processes may print, but not forge reports
    if service is not None:
        os.set_inheritable(SERVICE_FD, False)
    sys.stdin = open(0, "r", closefd=False)
    # Line-buffered, so output reaches the supervisor (and its cap) while the run goes on.
    sys.stdout = io.TextIOWrapper(
        io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True
    )
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True
    )
    return request


def name(new: bytes | None = None) -> bytes:
    """This process's name; with ``new``, set it (returns the one it had)."""
    with open("/proc/self/comm", "rb") as f:
        old = f.read().rstrip(b"\n")
    if new is not None:
        with open("/proc/self/comm", "wb") as f:
            f.write(new)
    return old


def _read_request(fd: int, run_name: bytes) -> tuple[bytes, str | None]:
    """A spare's request and work directory: all the zygote writes before it closes the pipe
    (nothing: discarded). The spare was born with ``SPARE_NAME``; it takes ``run_name`` once it
    has its request."""
    parts = []
    while chunk := os.read(fd, 1 << 16):
        parts.append(chunk)
    os.close(fd)
    name(run_name)
    workdir, _, request = b"".join(parts).partition(b"\0")
    return request, workdir.decode() or None


def _numba_saves_nothing() -> None:
    """A run reads the kernel cache but may not write it (its view of it is read-only, or it is
    another uid's): what the cache lacks, a signature of an engine helper no warm-up compiled, is
    compiled in memory for this run instead of failing it on the write."""
    caching = sys.modules.get("numba.core.caching")  # (loaded with the engine's helpers; importing
    if caching is not None:  # numba here would cost every run a second: a plain runner's have none)
        caching.Cache.save_overload = _not_saved


def _not_saved(self: object, sig: object, data: object) -> None:
    pass


def _clean_import_path() -> None:
    # The run's directory must never shadow a module (a planted numpy.py, a .pth, a cache file).
    cwd = os.getcwd()
    sys.path[:] = [p for p in sys.path if p not in ("", ".", cwd) and not p.startswith(cwd + os.sep)]
    sys.dont_write_bytecode = True
    sys.pycache_prefix = None


def _fresh_logging() -> None:
    # The zygote's logging (INFO, timestamped, for the server's log) is not the program's: it starts
    # as in a new interpreter, with no handler on the root logger at WARNING, so a warning that a
    # library logs (jax_explain_cache_misses, jax_log_compiles) prints bare, as under JAX.
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.setLevel(logging.WARNING)


def _send(data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(RESULT_FD, view)
        view = view[n:]


def run_child(
    plan: isolation.Plan,
    runner: Runner,
    request_json: bytes | None,
    fds: tuple[int, int, int],
    workdir: str | None,
    service_fd: int | None = None,
    output_bytes: int | None = None,
    request_fd: int | None = None,
    run_name: bytes = b"python",
) -> None:
    """Entry point right after ``fork()`` in the child. Never returns. Without ``request_json``
    the child is a spare: it wires its descriptors, then waits for the request on ``request_fd``
    and is isolated only once it has it (a waiting spare is not a run: it holds no slot uid)."""
    global _run_pid
    code = EXIT_SETUP_FAILED
    try:
        os.setsid()
        isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        request_fd = _wire_descriptors(*fds, keep=plan.keep_fds, service=service_fd, request=request_fd)
        if request_json is None:
            assert request_fd is not None
            request_json, workdir = _read_request(request_fd, run_name)
            if not request_json:
                code = EXIT_OK
                return  # (the finally exits)
        isolation.isolate(plan, workdir)  # its notes (host paths) went to the server log at probe time
        if plan.uid is not None:  # (root and uid modes; an unsafe single-user run may write it)
            _numba_saves_nothing()
        if output_bytes is not None:
            os.environ[OUTPUT_LIMIT_ENV] = str(output_bytes)
        if service_fd is not None:
            os.environ["ENGINE_KERNEL_SERVICE_FD"] = f"{SERVICE_FD}:{os.getpid()}"
        # The runner streams what the run finishes on the result pipe, ahead of its report: a run
        # killed at a limit (or crashing) still shows it.
        os.environ[PROGRESS_FD_ENV] = f"{RESULT_FD}:{os.getpid()}"
        _clean_import_path()
        _fresh_logging()
        _run_pid = os.getpid()
        for sig in INTERRUPTS:
            signal.signal(sig, _interrupt)
        # Python's stack, written to stderr from the signal handler itself (so even while the run
        # is stuck in compiled code): on a crash, and when the supervisor is about to kill the run
        # (``WHERE_SIGNAL``). The zygote takes the user's line from it (``reports.stopped_where``).
        faulthandler.enable(file=2, all_threads=False)
        faulthandler.register(WHERE_SIGNAL, file=2, all_threads=False)
        code = EXIT_NO_REPORT
        from engine.inspect.schema import RunRequest

        report = runner(RunRequest.model_validate_json(request_json))
        if os.getpid() != _run_pid:
            # A process the program forked (os.fork) finished the program too: only the run
            # reports. A second report on the pipe made the whole run "an invalid report".
            code = EXIT_OK
            return  # (the finally exits)
        for sig in INTERRUPTS:  # the run is over: a late limit signal must not cut its report short
            signal.signal(sig, signal.SIG_IGN)
        payload = report if isinstance(report, (str, bytes)) else report.model_dump_json()
        sys.stdout.flush()
        sys.stderr.flush()
        data = payload.encode() if isinstance(payload, str) else payload
        _send(HEADER.pack(REPORT, len(data)))
        _send(data)
        code = EXIT_OK
        # Closing the pipes now tells the supervisor the result is complete, so it need not wait
        # for this process to finish exiting (unmapping memory, dropping namespaces).
        for fd in (1, 2, RESULT_FD):
            try:
                os.close(fd)
            except OSError:
                pass
    except BaseException:  # noqa: BLE001 - anything here must still end the process cleanly
        try:
            sys.stderr.write("[sandbox] " + traceback.format_exc(limit=-3))
            sys.stderr.flush()
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code)
