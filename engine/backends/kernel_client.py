"""A sandboxed run's side of the server's kernel compile service.

Inside the playground server a run may not write any cache another run loads, so what it
compiles would die with it. Instead it sends the program it is about to compile (as data:
``jaxpr_wire``) to the compile service, which validates it, generates the kernel module itself,
compiles it into the server's kernel store and answers with numba's cache files for it. The run
writes them next to its own copy of the module in its private cache directory, and numba loads
instead of compiling. The service answers by the key of the module source *the run* generated:
it only ever returns what it compiled from that exact source itself.

The server passes the connection as a descriptor named by ``ENGINE_KERNEL_SERVICE_FD``
("fd:pid": only that process uses it, not the pmap device processes it forks). Without it (plain
``python``, tests) ``connected()`` is False and nothing here runs.
"""

from __future__ import annotations

import base64
import json
import os
import re
import select
import struct
import threading
import time
from typing import Callable, Optional

ENV = "ENGINE_KERNEL_SERVICE_FD"
HEADER = struct.Struct(">I")
MAX_REPLY = 256 << 20
WAIT_SECONDS = 20.0  # for the service to compile a program (else the run compiles it itself)
LOOKUP_SECONDS = 1.0
FRAME_SECONDS = 10.0
_compiling = [0]  # kernel requests in flight
_broken = [False]  # the connection failed once: compile alone from then on
last_status: dict[str, str] = {}  # key -> what the service said (for tests and the report)


def _fd() -> Optional[int]:
    spec = os.environ.get(ENV, "")
    fd, _, pid = spec.partition(":")
    if not fd.isdigit() or not pid.isdigit() or int(pid) != os.getpid() or _broken[0]:
        return None
    return int(fd)


def connected() -> bool:
    return _fd() is not None


def _send(fd: int, payload: bytes, deadline: float) -> None:
    data = memoryview(HEADER.pack(len(payload)) + payload)
    while data:
        if not select.select([], [fd], [], max(0.0, deadline - time.monotonic()))[1]:
            raise TimeoutError("the kernel service does not read")
        data = data[os.write(fd, data) :]


def _recv_exactly(fd: int, n: int, deadline: float) -> bytes:
    chunks, need = [], n
    while need:
        if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
            raise TimeoutError("the kernel service did not answer in time")
        chunk = os.read(fd, min(need, 1 << 20))
        if not chunk:
            raise ConnectionError("the kernel service closed the connection")
        chunks.append(chunk)
        need -= len(chunk)
    return b"".join(chunks)


_ids = [0]
# Questions are asked concurrently (a call's lookup while a background compile waits for its
# kernels): each is sent whole under ``_send_lock``; one waiting thread at a time reads the
# connection and files every answer it reads under its question's id for the thread asking it.
_send_lock = threading.Lock()
_answers = threading.Condition()
_waiting: dict[int, Optional[dict]] = {}  # id -> its answer once read (None until then)
_reader = [False]  # a thread is reading the connection


def _read_answer(fd: int, seconds: float) -> None:
    """Read one answer (waiting up to ``seconds`` for it to begin) and file it; an answer to a
    question no one waits for any more (it timed out) is dropped."""
    if not select.select([fd], [], [], max(0.0, seconds))[0]:
        return
    # A frame once begun comes whole (the service sends each at once).
    (n,) = HEADER.unpack(_recv_exactly(fd, HEADER.size, time.monotonic() + FRAME_SECONDS))
    if n > MAX_REPLY:
        raise ValueError(f"reply of {n} bytes")
    reply = json.loads(_recv_exactly(fd, n, time.monotonic() + FRAME_SECONDS))
    if type(reply) is not dict or type(reply.get("id")) is not int:
        raise ValueError("a reply without its request's id")
    with _answers:
        if reply["id"] in _waiting:
            _waiting[reply["id"]] = reply


def _ask(request: dict, timeout: float) -> dict:
    """The service's answer to ``request``, or {"status": "timeout"} after ``timeout`` seconds."""
    fd = _fd()
    if fd is None:
        return {"status": "unavailable"}
    deadline = time.monotonic() + timeout
    with _answers:
        _ids[0] += 1
        rid = _ids[0]
        _waiting[rid] = None
    try:
        with _send_lock:
            _send(fd, json.dumps(dict(request, id=rid)).encode(), deadline)
        while True:
            with _answers:
                while _reader[0] and _waiting[rid] is None and time.monotonic() < deadline:
                    _answers.wait(deadline - time.monotonic())
                if _waiting[rid] is not None:
                    return _waiting[rid]  # type: ignore[return-value]
                if time.monotonic() >= deadline:
                    return {"status": "timeout"}  # (its answer will come later, and be dropped)
                _reader[0] = True
            try:
                _read_answer(fd, min(deadline - time.monotonic(), 0.05))
            finally:
                with _answers:
                    _reader[0] = False
                    _answers.notify_all()
    except (OSError, ValueError) as e:
        _broken[0] = True  # (out of step with the service: stop asking)
        return {"status": "unavailable", "reason": f"{type(e).__name__}: {e}"}
    finally:
        with _answers:
            _waiting.pop(rid, None)


_CACHE_FILE = re.compile(r"engine_[0-9a-f]{32}\.[A-Za-z0-9_.\-]+\.nb[ic]")
_KEY = re.compile(r"[0-9a-f]{32}")
_prefetched: dict[str, dict] = {}  # module key -> numba's files for it, from a lookup


def lookup(program: Callable[[], dict]) -> bool:
    """Whether the service holds compiled kernels for ``program()`` (``jaxpr_wire`` data): a quick
    question that never makes it compile. If it does, its files are kept for ``fetch``."""
    try:
        request = {"op": "lookup", "request": program()}
    except Exception:  # noqa: BLE001 - WireError, or any other: this program is not shared
        return False
    reply = _ask(request, LOOKUP_SECONDS)  # (answered at once, while compiles are in flight too)
    key, files = reply.get("key"), reply.get("files")
    if reply.get("status") != "ready" or type(key) is not str or not _KEY.fullmatch(key):
        return False
    if type(files) is not dict:
        return False
    _prefetched[key] = files
    return True


def fetch(key: str, module_path: str, program: Callable[[], dict]) -> str | None:
    """Ask the service for the compiled kernels of the module at ``module_path`` (whose source
    hashes to ``key``); ``program()`` is its jaxpr as ``jaxpr_wire`` data. Once numba's cache files
    for it are in place beside the module (numba will load instead of compiling): "stored" (an
    earlier run's) or "compiled" (the service compiled them for this request); else None."""
    from .numba_cache import numba_cache_dir

    files = _prefetched.pop(key, None)
    if files is None:
        try:
            request = {"op": "kernel", "key": key, "request": program()}
        except Exception as e:  # noqa: BLE001 - WireError, or any other: this program is not shared
            last_status[key] = f"not sent: {type(e).__name__}: {e}"
            return None
        # A call's own compile does not queue behind a background compile (the service compiles
        # one at a time, each up to WAIT_SECONDS): it compiles here instead, on the other core.
        call = threading.current_thread() is threading.main_thread()
        with _answers:
            busy = call and _compiling[0] > 0
            _compiling[0] += not busy
        if busy:
            last_status[key] = "busy"
            return None
        try:
            reply = _ask(request, WAIT_SECONDS)
        finally:
            with _answers:
                _compiling[0] -= 1
        last_status[key] = str(reply.get("status"))
        files = reply.get("files")
        if reply.get("status") != "ready" or type(files) is not dict:
            return None
    else:
        last_status[key] = "ready"
        reply = {}
    found = "compiled" if reply.get("compiled") is True else "stored"
    if not files:
        return found  # a module without kernels: nothing to compile
    if not all(type(n) is str and _CACHE_FILE.fullmatch(n) and n.startswith(f"engine_{key}.") for n in files):
        return None
    try:
        target = numba_cache_dir(module_path)
        if target is None:
            return None
        os.makedirs(target, exist_ok=True)
        # Data files first, each index last: numba never finds an index without its data.
        for name, data in sorted(files.items(), key=lambda item: item[0].endswith(".nbi")):
            tmp = os.path.join(target, f".tmp-{os.getpid()}-{name}")
            with open(tmp, "wb") as f:
                f.write(base64.b64decode(data))
            os.replace(tmp, os.path.join(target, name))
    except (OSError, ValueError, TypeError):  # (a full scratch disk: the run compiles itself)
        return None
    return found
