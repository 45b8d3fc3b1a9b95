"""The kernel compile service: kernels compiled for one run, reused by later runs, without any run
writing what another loads.

Each zygote forks one service before it forks any run. The service runs under the server's uid
(never a run's) and alone writes the kernel store (``kernel_store``: ``<kernel cache>/shared``),
which no run can write. For each run the zygote makes a socket pair and hands one end to the
service (``SCM_RIGHTS``) and the other to the run (``child.SERVICE_FD``). A run sends, per program
it is about to compile, ``{"op": "kernel", "key": <hash of the module source it generated>,
"request": <jaxpr_wire data>}`` and gets numba's cache files for that module, or a refusal. A
jitted function's first call first sends ``{"op": "lookup", "request": ...}``: the store's entry
for that program, if the service compiled it before, answers at once, without compiling, so the
call loads the kernels instead of running interpreted.

What a run sends is data, and it is treated as hostile:

* frames over ``MAX_REQUEST`` bytes are refused unread; each connection may ask ``MAX_COMPILES``
  compiles costing at most ``COMPILE_BUDGET`` seconds and send ``MAX_REQUESTS`` requests; compiles
  run one at a time from a bounded queue (lookups are answered meanwhile);
* the program is decoded, validated, type-checked, turned into a module and compiled in a forked
  child (``compile_child``) isolated like a run, under a uid of its own in "root" and "uid"
  modes, and killed after ``COMPILE_SECONDS``: a program that crashes, loops, exhausts memory or
  even takes the child over reaches neither the service, the server, the store nor any run;
* the child answers with numba's files; the service checks their form and stores them under the
  hash of the request it handed the child. A run asking for key K of program P gets files only if
  a compile of P produced a module whose source hashes to K; the run loads them only beside its
  own identical source. So no request can change what another program's entry holds.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import select
import shutil
import signal
import socket
import tempfile
import time
from typing import Any, NamedTuple, Optional

from . import compile_child, isolation, kernel_store
from .compile_child import COMPILE_SECONDS

log = logging.getLogger("jaxplay.kernel_service")

MAX_REQUEST = 4 << 20  # bytes of one request frame
MAX_COMPILES = 64  # compiles one run may ask for
COMPILE_BUDGET = 60.0  # seconds of compiling one run may cost the service
MAX_REQUESTS = 2000  # requests one run may send (then it is refused and its connection closed)
OUTBOX_LIMIT = 16 << 20  # bytes of answers a run has not read; past it, its requests wait unread
HEADER = 4
QUEUE = 8  # compiles waiting, over all runs (more: "busy", the run compiles alone)
PER_RUN_QUEUE = 2
RESTART_AFTER = 30.0  # seconds between restarts of a service that died (runs compile alone meanwhile)


class _Connection:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.inbox = bytearray()
        self.outbox = bytearray()
        self.compiles = 0
        self.requests = 0
        self.seconds = 0.0
        self.pending = 0  # its compiles queued or running
        self.closing = False

    def frame(self) -> Optional[bytes]:
        """The next complete request, if one is in; raises ValueError on an oversized one."""
        if len(self.inbox) < HEADER:
            return None
        n = int.from_bytes(self.inbox[:HEADER], "big")
        if n > MAX_REQUEST:
            raise ValueError(f"a request of {n} bytes is over the {MAX_REQUEST} byte limit")
        if len(self.inbox) < HEADER + n:
            return None
        data = bytes(self.inbox[HEADER : HEADER + n])
        del self.inbox[: HEADER + n]
        return data

    def reply(self, rid: Optional[int], answer: dict[str, Any]) -> None:
        if self.closing:
            return
        payload = json.dumps(dict(answer, id=rid)).encode()
        self.outbox += len(payload).to_bytes(HEADER, "big") + payload


def _ready(entry: Optional[dict[str, Any]], key: Any) -> Optional[dict[str, Any]]:
    """The answer giving module ``key`` of a store entry, if the entry has it."""
    files = entry["modules"].get(key) if entry is not None and type(key) is str else None
    return {"status": "ready", "key": key, "files": files} if type(files) is dict else None


class _Compile(NamedTuple):
    conn: _Connection
    rid: Optional[int]
    key: str
    request: object
    answered: bool = False  # (told "busy" already: no second answer)


class _Running(NamedTuple):
    job: _Compile
    pid: int
    answer_fd: int
    started: float
    data: bytearray
    workdir: Optional[str]


class Server:
    """The service's state: runs' connections, the compile queue and the compile running.

    ``plan`` is the compile children's (``compile_child.compile_plan``); ``scratch`` the directory
    in which each compile gets a fresh working directory where the plan gives it no private /tmp.
    """

    def __init__(self, store: str, plan: isolation.Plan, scratch: Optional[str] = None):
        self.store, self.plan, self.scratch = store, plan, scratch
        self.conns: dict[int, _Connection] = {}
        self.queue: collections.deque[_Compile] = collections.deque()
        self.running: Optional[_Running] = None

    def request(self, conn: _Connection, data: bytes) -> None:
        """Answer one request now, or queue its compile."""
        conn.requests += 1
        if conn.requests > MAX_REQUESTS:
            conn.reply(None, {"status": "refused", "reason": "too many requests"})
            conn.closing = True
            return
        try:
            message = json.loads(data)
        except ValueError:
            return conn.reply(None, {"status": "refused", "reason": "not JSON"})
        if type(message) is not dict:
            return conn.reply(None, {"status": "refused", "reason": "not a request"})
        rid = message.get("id")
        rid = rid if type(rid) is int else None
        op = message.get("op")
        if op not in ("lookup", "kernel"):
            return conn.reply(rid, {"status": "refused", "reason": "unknown request"})
        entry = kernel_store.load(self.store, kernel_store.program_hash(message.get("request")))
        if op == "lookup":
            # (the run still checks the module key against its own source)
            return conn.reply(rid, _ready(entry, entry and entry.get("key")) or {"status": "absent"})
        key = message.get("key")
        if type(key) is not str or not kernel_store.KEY.fullmatch(key):
            return conn.reply(rid, {"status": "refused", "reason": "malformed key"})
        answer = _ready(entry, key)
        if answer is not None:
            return conn.reply(rid, answer)
        if conn.compiles >= MAX_COMPILES or conn.seconds >= COMPILE_BUDGET:
            return conn.reply(rid, {"status": "refused", "reason": "this run's compile budget is spent"})
        if conn.pending >= PER_RUN_QUEUE or len(self.queue) >= QUEUE:
            return conn.reply(rid, {"status": "busy"})
        conn.compiles += 1
        conn.pending += 1
        # Behind other runs' compiles the run would wait for them: it hears "busy" now and
        # compiles alone; the service still compiles the program, for the next run of it.
        behind_others = any(job.conn is not conn for job in self.queue) or (
            self.running is not None and self.running.job.conn is not conn
        )
        if behind_others:
            conn.reply(rid, {"status": "busy"})
        self.queue.append(_Compile(conn, rid, key, message.get("request"), behind_others))

    def _workdir(self) -> Optional[str]:
        """A fresh working directory for the next compile (None where it gets a private /tmp)."""
        if self.plan.private_tmp:
            return None
        assert self.scratch is not None
        for name in os.listdir(self.scratch):  # earlier compiles' (emptied by their successors)
            path = os.path.join(self.scratch, name)
            if self.plan.slot_ids is None:
                shutil.rmtree(path, ignore_errors=True)
            else:
                try:
                    os.rmdir(path)
                except OSError:
                    pass
        workdir = tempfile.mkdtemp(prefix="compile-", dir=self.scratch)
        if (ids := self.plan.slot_ids) is not None:
            os.chown(workdir, *ids)
        return workdir

    def start_next(self) -> None:
        if self.running is None and self.queue:
            # (also when its run is gone: the next run of the same code finds the kernels)
            job = self.queue.popleft()
            workdir = self._workdir()
            pid, r = compile_child.start(job.request, self.plan, workdir, self.scratch)
            self.running = _Running(job, pid, r, time.monotonic(), bytearray(), workdir)

    def compile_output(self, timed_out: bool = False) -> None:
        assert self.running is not None
        job, pid, r, started, data, workdir = self.running
        if not timed_out:
            chunk = os.read(r, 1 << 20)
            if chunk and len(data) <= compile_child.MAX_ANSWER:
                data += chunk
                return
        os.close(r)
        self.running = None
        answer = compile_child.end(pid, bytes(data))
        if workdir is not None and self.plan.slot_ids is None:
            shutil.rmtree(workdir, ignore_errors=True)
        elif workdir is not None:
            try:
                os.rmdir(workdir)  # (emptied by the child; else by the next compile's child)
            except OSError:
                pass
        job.conn.pending -= 1
        job.conn.seconds += time.monotonic() - started
        if timed_out:
            answer = {"error": f"the compile took over {COMPILE_SECONDS:.0f} s"}
        entry = None
        if "error" not in answer:
            # The storing step: only data of a checked form, only under the program compiled.
            try:
                entry = kernel_store.checked_entry(answer)
                kernel_store.save(self.store, kernel_store.program_hash(job.request), entry)
            except ValueError as e:
                answer = {"error": f"the compile's answer was refused: {e}"}
            except OSError as e:
                log.warning("kernel store %s: %s", self.store, e)
        elif str(answer["error"]).startswith("the compile sandbox"):
            log.warning("kernel service: %s", answer["error"])
        if job.answered:
            return
        reply: dict[str, Any]
        if "error" in answer:
            reply = {"status": "refused", "reason": str(answer["error"])}
        else:
            # None: the module the service generated is not the one the run generated.
            ready = _ready(entry, job.key)
            reply = {**ready, "compiled": True} if ready else {"status": "mismatch"}
        job.conn.reply(job.rid, reply)

    def serve(self, control: socket.socket) -> None:
        """Serve runs' connections (handed over ``control``) until ``control`` closes."""
        os.makedirs(self.store, mode=0o755, exist_ok=True)
        control.setblocking(False)
        conns = self.conns
        while True:
            self.start_next()
            readers = [
                control.fileno(),
                *(fd for fd, c in conns.items() if not c.closing and len(c.outbox) < OUTBOX_LIMIT),
            ]
            timeout = 5.0
            if self.running is not None:
                readers.append(self.running.answer_fd)
                timeout = max(0.0, self.running.started + COMPILE_SECONDS - time.monotonic())
            writers = [fd for fd, c in conns.items() if c.outbox]
            ready_r, ready_w, _ = select.select(readers, writers, [], timeout)
            if self.running is not None and time.monotonic() > self.running.started + COMPILE_SECONDS:
                self.compile_output(timed_out=True)
            for fd in ready_w:
                c = conns[fd]
                try:
                    del c.outbox[: c.sock.send(c.outbox)]
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    c.outbox.clear()
                    c.closing = True
                self.process(c)  # (requests held back while its answers went unread)
            for fd in ready_r:
                if self.running is not None and fd == self.running.answer_fd:
                    self.compile_output()
                elif fd == control.fileno():
                    try:
                        msg, fds, _, _ = socket.recv_fds(control, 16, 4)
                    except (BlockingIOError, InterruptedError):
                        continue
                    if not msg:
                        return  # the zygote is gone
                    for new in fds:
                        s = socket.socket(fileno=new)
                        s.setblocking(False)
                        conns[new] = _Connection(s)
                elif fd in conns:
                    self.receive(conns[fd])
            for fd, c in list(conns.items()):
                if c.closing and not c.outbox:
                    c.sock.close()
                    del conns[fd]

    def receive(self, c: _Connection) -> None:
        try:
            chunk = c.sock.recv(1 << 16)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:
            c.closing = True
            c.outbox.clear()
            return
        c.inbox += chunk
        self.process(c)

    def process(self, c: _Connection) -> None:
        """Answer the complete requests in ``c``'s inbox while its unread answers are few."""
        while not c.closing and len(c.outbox) < OUTBOX_LIMIT:
            try:
                data = c.frame()
            except ValueError as e:
                c.reply(None, {"status": "refused", "reason": str(e)})
                c.inbox.clear()
                c.closing = True  # (after the refusal is sent)
                return
            if data is None:
                return
            try:
                self.request(c, data)
            except Exception as e:  # noqa: BLE001 - never let one request end the service
                log.exception("kernel service: request failed")
                c.reply(None, {"status": "refused", "reason": type(e).__name__})


# The engine's float32 scalar helpers that kernels call (``rt.<name>``) and their arities,
# compiled (or loaded from numba's cache) once by the service: compile children inherit them, and
# cannot save the ones they compile for the next compile (no compile writes what another loads).
WARM_HELPERS = {
    "numba_math": {n: 1 for n in ("exp_f32", "log_f32", "tanh_f32", "expm1_f32", "log1p_f32")},
    "numba_libm": {"sin_f32": 1, "cos_f32": 1, "trig_huge": 1},
    "numba_rt": {
        "fsign": 1,
        "round_away": 1,
        "logistic": 1,
        "erf": 1,
        "erf_inv_f32": 1,
        "fmax": 2,
        "fmin": 2,
    },
}


def _prepare_compiler() -> None:
    """Import the code generator and have numba compile once here, and the helpers above (the
    zygote may not have), so that every compile's fork starts with them ready (numba's first
    compile in a process costs about a second, the helpers about 3 s more when not cached)."""
    import importlib

    import numba

    import engine.backends.jaxpr_wire  # noqa: F401
    import engine.backends.numba_jit  # noqa: F401

    numba.njit("float32(float32)", cache=False)(lambda x: x + 1.0)
    for module, arities in WARM_HELPERS.items():
        helpers = importlib.import_module(f"engine.backends.{module}")
        for name, arity in arities.items():
            try:
                getattr(helpers, name).compile((numba.float32,) * arity)
            except Exception as e:  # noqa: BLE001 - it compiles with its first kernel instead
                log.warning("kernel service: helper %s not compiled: %s", name, e)


class Service:
    """The zygote's handle on its compile service process. ``plan`` is the zygote's runs' plan;
    the compile children get it under ``compile_ids`` (None: the server's uid, in
    "unsafe-single-user"); ``scratch`` holds their working directories where they have no private
    /tmp."""

    def __init__(
        self, store: str, plan: isolation.Plan, compile_ids: Optional[tuple[int, int]], scratch: Optional[str]
    ):
        self.store, self.plan, self.compile_ids, self.scratch = store, plan, compile_ids, scratch
        self.pid: Optional[int] = None
        self.control: Optional[socket.socket] = None
        self.started = 0.0

    def start(self) -> None:
        self.started = time.monotonic()
        os.makedirs(self.store, mode=0o755, exist_ok=True)
        if self.scratch is not None and not os.path.isdir(self.scratch):
            os.makedirs(os.path.dirname(self.scratch), mode=0o711, exist_ok=True)
            os.mkdir(self.scratch, 0o755)  # (the compile uid lists it for its predecessors' leftovers)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                ours.close()
                isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)
                isolation.prctl(isolation.PR_SET_DUMPABLE, 0)
                os.nice(5)
                # Only the connection to the zygote and the namespaces compiles enter stay open.
                low = 3
                for fd in sorted({theirs.fileno(), *self.plan.keep_fds}):
                    os.closerange(low, fd)
                    low = fd + 1
                os.closerange(low, os.sysconf("SC_OPEN_MAX"))
                _prepare_compiler()
                plan = compile_child.compile_plan(self.plan, self.compile_ids, (os.getpid(),))
                log.info("kernel service %d ready in %.2f s", os.getpid(), time.monotonic() - self.started)
                Server(self.store, plan, self.scratch).serve(theirs)
                code = 0
            except BaseException:  # noqa: BLE001
                log.exception("kernel service failed")
            finally:
                os._exit(code)
        theirs.close()
        self.pid, self.control = pid, ours

    def connect(self) -> Optional[int]:
        """A new connection for a run: the run's end (the caller closes it after the fork), or
        None if the service is gone (the run then compiles alone)."""
        if not self.alive():
            if time.monotonic() - self.started < RESTART_AFTER:
                return None
            log.warning("kernel service %s is gone; starting another", self.pid)
            self.stop()
            self.start()
        assert self.control is not None
        run_end, service_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            socket.send_fds(self.control, [b"c"], [service_end.fileno()])
        except OSError:
            run_end.close()
            return None
        finally:
            service_end.close()
        return run_end.detach()

    def alive(self) -> bool:
        if self.pid is None:
            return False
        try:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            return False
        return pid == 0

    def stop(self) -> None:
        """(The zygote's exit ends the service too: PR_SET_PDEATHSIG.)"""
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            self.pid = None
