"""The server's side of the sandbox: a fixed set of zygote workers behind a bounded queue.

A run takes an idle worker, sends it the request and awaits the report. At most ``queue_size``
runs may wait for a worker (more get ``QueueFull`` -> 429) and none waits longer than
``queue_timeout`` (``PoolBusy`` -> 503). A worker that stops answering is killed and replaced.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import logging
import os
import signal
import sys
from dataclasses import dataclass, field
from typing import Any, Optional

from engine.inspect.schema import RunReport, RunRequest

from ..settings import PROJECT_ROOT, Settings
from .protocol import ZygoteConfig, frame, read_message_async
from .reports import limit_report

log = logging.getLogger("jaxplay.sandbox")

HELLO_TIMEOUT = 120.0  # preloading numba and the engine can take a while on a cold disk
REPLY_GRACE = 10.0  # beyond the wall limit: killing, reaping, cleaning up
PR_SET_DUMPABLE = 4


class QueueFull(Exception):
    pass


class PoolBusy(Exception):
    pass


@dataclass
class Runtime:
    engine_version: str = "unknown"
    device_count: int = 1
    isolation: dict[str, Any] = field(default_factory=dict)


@dataclass
class Stats:
    workers: int
    idle: int
    queued: int
    alive: bool


def zygote_env(settings: Settings) -> dict[str, str]:
    """The whole environment of a zygote (and so of every run): nothing of the server's leaks."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": "/nonexistent",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        # The zygote must stay single-threaded to fork safely: no BLAS/OpenMP thread pools.
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMBA_NUM_THREADS": "1",
        "NUMBA_THREADING_LAYER": "workqueue",
        "JAXPLAY_DEVICE_COUNT": str(settings.device_count),
    }
    env.update(settings.sandbox_env)
    return env


def zygote_config(settings: Settings, slot: int) -> ZygoteConfig:
    db_dir = settings.database_path.resolve().parent
    hidden = [str(PROJECT_ROOT / "server"), str(PROJECT_ROOT / ".git"), *map(str, settings.hidden_paths)]
    # Hide the database directory unless that would hide the engine too; then hide the files.
    if PROJECT_ROOT == db_dir or PROJECT_ROOT.is_relative_to(db_dir):
        db = settings.database_path.resolve()
        hidden += [str(db), f"{db}-wal", f"{db}-shm"]
    else:
        hidden.append(str(db_dir))
    return {
        "slot": slot,
        "server_pid": os.getpid(),
        "project_root": str(PROJECT_ROOT),
        "isolation": settings.isolation,
        "slot_uid_base": settings.slot_uid_base,
        "runner": settings.runner,
        "preload": settings.preload,
        "hidden_paths": hidden,
        "sandbox_tmp": str(settings.sandbox_tmp),
        "wall_seconds": settings.wall_seconds,
        "cpu_seconds": settings.cpu_seconds,
        "memory_bytes": settings.memory_bytes,
        "output_bytes": settings.output_bytes,
        "report_bytes": settings.report_bytes,
        "file_bytes": settings.file_bytes,
        "open_files": settings.open_files,
        "process_limit": settings.process_limit,
        "tmp_bytes": settings.tmp_bytes,
        "nice": settings.nice,
        "env": zygote_env(settings),
        "device_count": settings.device_count,
        "warm_examples": settings.warm_examples,
        "kernel_cache_dir": str(settings.kernel_cache_dir),
        "kernel_service": settings.kernel_service,
    }


class Worker:
    def __init__(self, settings: Settings, slot: int):
        self.settings = settings
        self.slot = slot
        self.proc: Optional[asyncio.subprocess.Process] = None
        self.hello: dict[str, Any] = {}  # the zygote's first answer: versions and isolation facts

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-I",
            "-B",
            "-c",
            # The zygote runs the server's own tree (-I alone could find another copy of the package).
            f"import sys; sys.path.insert(0, {str(PROJECT_ROOT)!r}); from server.sandbox.zygote import main; main()",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=None,
            env=zygote_env(self.settings),
            cwd="/",
            start_new_session=True,
            close_fds=True,
            limit=self.settings.report_bytes + (1 << 20),
        )
        stdin, stdout = self._pipes()
        stdin.write(frame(json.dumps(zygote_config(self.settings, self.slot)).encode()))
        await stdin.drain()
        hello = json.loads(await asyncio.wait_for(read_message_async(stdout), HELLO_TIMEOUT))
        if "fatal" in hello:
            raise RuntimeError(f"sandbox worker {self.slot} failed to start: {hello['fatal']}")
        self.hello = hello

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    def _pipes(self) -> tuple[asyncio.StreamWriter, asyncio.StreamReader]:
        """The zygote's control pipes (``start`` opens both)."""
        if self.proc is None or self.proc.stdin is None or self.proc.stdout is None:
            raise RuntimeError(f"sandbox worker {self.slot} was not started")
        return self.proc.stdin, self.proc.stdout

    async def run(self, payload: bytes) -> bytes:
        stdin, stdout = self._pipes()
        stdin.write(frame(payload))
        await stdin.drain()
        return await asyncio.wait_for(read_message_async(stdout), self.settings.wall_seconds + REPLY_GRACE)

    async def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)  # its runs die with it (PR_SET_PDEATHSIG)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.proc.wait(), 5)


class SandboxPool:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.runtime = Runtime(device_count=settings.device_count)
        self.workers: list[Worker] = []
        self._idle: asyncio.Queue[Worker] = asyncio.Queue()  # a fresh one in each ``start``
        self._waiting = 0
        self._closing = False

    async def start(self) -> None:
        # Runs share our uid in some modes: make /proc/<server>/environ and friends unreadable.
        with contextlib.suppress(Exception):
            ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        self._idle = asyncio.Queue()
        self.workers = [Worker(self.settings, slot) for slot in range(self.settings.workers)]
        await asyncio.gather(*(w.start() for w in self.workers))
        first = self.workers[0].hello
        self.runtime = Runtime(
            engine_version=first["engine_version"],
            device_count=first["device_count"],
            # Notes name host paths (mount points): they go to the log, not to /api/health.
            isolation={k: v for k, v in first["isolation"].items() if k != "notes"},
        )
        log.info("sandbox: %d workers, isolation %s", len(self.workers), json.dumps(first["isolation"]))
        for w in self.workers:
            self._idle.put_nowait(w)

    async def close(self) -> None:
        self._closing = True
        await asyncio.gather(*(w.stop() for w in self.workers))

    def stats(self) -> Stats:
        return Stats(
            workers=len(self.workers),
            idle=self._idle.qsize(),
            queued=self._waiting,
            alive=all(w.alive for w in self.workers) if self.workers else False,
        )

    async def _acquire(self) -> Worker:
        if self._idle.empty() and self._waiting >= self.settings.queue_size:
            raise QueueFull()
        self._waiting += 1
        try:
            return await asyncio.wait_for(self._idle.get(), self.settings.queue_timeout)
        except asyncio.TimeoutError:
            raise PoolBusy() from None
        finally:
            self._waiting -= 1

    async def run_json(self, request: RunRequest) -> bytes:
        """The report for ``request`` as JSON bytes (already validated by the zygote).

        Raises ValueError, before taking a worker, for a request that has no JSON form (a lone
        surrogate in a string): the client's fault, which must not cost a worker its life."""
        body = request.model_dump_json().encode()
        worker = await self._acquire()
        healthy = False
        try:
            reply = await worker.run(body)
            if reply.startswith(b'{"internal_error"'):
                log.error("sandbox worker %d: %s", worker.slot, reply[:500])
                reply = self._failure(request, "the sandbox failed internally")
            healthy = True
            return reply
        except asyncio.CancelledError:
            # The client went away mid-run: the worker's pipe holds a reply nobody will read,
            # so the worker cannot be reused as is.
            raise
        except (asyncio.TimeoutError, asyncio.IncompleteReadError, ConnectionError, OSError, ValueError) as e:
            log.error("sandbox worker %d stopped answering (%s); replacing it", worker.slot, type(e).__name__)
            return self._failure(request, "the sandbox worker stopped answering")
        finally:
            if healthy:
                self._idle.put_nowait(worker)
            elif not self._closing:
                asyncio.get_running_loop().create_task(self._replace(worker))

    async def run(self, request: RunRequest) -> RunReport:
        return RunReport.model_validate_json(await self.run_json(request))

    def _failure(self, request: RunRequest, message: str) -> bytes:
        return (
            limit_report(
                request,
                "killed",
                self.runtime.engine_version,
                message=message,
                device_count=self.runtime.device_count,
            )
            .model_dump_json()
            .encode()
        )

    async def _replace(self, worker: Worker) -> None:
        await worker.stop()
        fresh = Worker(self.settings, worker.slot)
        for attempt in range(5):
            try:
                await fresh.start()
                break
            except Exception:  # noqa: BLE001
                log.exception("restarting sandbox worker %d failed", worker.slot)
                await fresh.stop()
                await asyncio.sleep(1 + attempt)
                fresh = Worker(self.settings, worker.slot)
        else:
            return
        self.workers[self.workers.index(worker)] = fresh
        self._idle.put_nowait(fresh)
