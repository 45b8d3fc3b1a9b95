"""The kernel compile service: kernels compiled for one run, reused by later runs, without any run
writing what another loads.

Each zygote forks one service before it forks any run. The service runs under the server's uid
(never a run's) and owns the kernel store (``<kernel cache>/shared``), which no run can write.
For each run the zygote makes a socket pair and hands one end to the service (``SCM_RIGHTS``)
and the other to the run (``child.SERVICE_FD``). A run sends, per program it is about to compile,
``{"op": "kernel", "key": <hash of the module source it generated>, "request": <jaxpr_wire
data>}`` and gets numba's cache files for that module, or a refusal. A jitted function's first
call first sends ``{"op": "lookup", "request": ...}``: the store's index of programs the service
compiled before (by the hash of the request as the service re-serializes it) answers at once,
without compiling, so the call loads the kernels instead of running interpreted.

What a run sends is data, and it is treated as hostile:

* frames over ``MAX_REQUEST`` bytes are refused unread; each connection may ask ``MAX_COMPILES``
  compiles costing at most ``COMPILE_BUDGET`` seconds and send ``MAX_REQUESTS`` requests; compiles
  run one at a time from a bounded queue (lookups are answered meanwhile);
* the program is decoded and validated (``jaxpr_wire``: primitives from the registry, plain
  parameters, size limits) and type-checked with the primitives' own rules in a *forked* child
  with CPU, memory and file limits and the sandbox's seccomp filter, killed after
  ``COMPILE_SECONDS``: a program that crashes, loops or exhausts memory takes that child down,
  never the service;
* the child generates the module source itself (the run's source text is never accepted), checks
  its top level is only imports, a name and kernel definitions (``_check_module``), and compiles
  it with numba into the store; the store keys it by the hash of that source. A run asking for key
  K gets files only if the service itself compiled a module whose source hashes to K; the run
  loads them only beside its own identical source. So no request can change what another run's
  key holds.
"""

from __future__ import annotations

import ast
import base64
import collections
import hashlib
import json
import logging
import os
import re
import resource
import select
import signal
import socket
import time
from typing import Any, NamedTuple, Optional

from . import isolation, seccomp

log = logging.getLogger("jaxplay.kernel_service")

MAX_REQUEST = 4 << 20  # bytes of one request frame
MAX_COMPILES = 64  # compiles one run may ask for
COMPILE_BUDGET = 60.0  # seconds of compiling one run may cost the service
COMPILE_SECONDS = 30.0  # one compile (its child is killed after this, CPU or wall)
COMPILE_MEMORY = 1 << 30  # address space the compile child may add to what the fork inherits
MAX_MODULES = 2000  # modules kept in the store; the least recently used go first
MAX_REQUESTS = 2000  # requests one run may send (then it is refused and its connection closed)
OUTBOX_LIMIT = 16 << 20  # bytes of answers a run has not read; past it, its requests wait unread
HEADER = 4
QUEUE = 8  # compiles waiting, over all runs (more: "busy", the run compiles alone)
PER_RUN_QUEUE = 2
RESTART_AFTER = 30.0  # seconds between restarts of a service that died (runs compile alone meanwhile)
_KEY = re.compile(r"[0-9a-f]{32}")
READY = ".ready"


# --- the store ----------------------------------------------------------------------------------


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _marker(store: str, key: str) -> str:
    return os.path.join(store, f"engine_{key}{READY}")


def _cache_dir_of(store: str, key: str) -> Optional[str]:
    from engine.backends.numba_cache import numba_cache_dir

    module = os.path.join(store, f"engine_{key}.py")
    return numba_cache_dir(module) if os.path.exists(module) else None


_CACHE_FILE = re.compile(r"engine_[0-9a-f]{32}\.[A-Za-z0-9_.\-]+\.nb[ic]")


def stored_files(store: str, key: str) -> Optional[dict[str, bytes]]:
    """numba's cache files of module ``key`` as the service recorded them (hashes checked), or None."""
    try:
        with open(_marker(store, key)) as f:
            recorded = json.load(f)["files"]
        cache = _cache_dir_of(store, key)
        if cache is None or type(recorded) is not dict:
            return None
        out: dict[str, bytes] = {}
        for name, digest in recorded.items():
            if not (_CACHE_FILE.fullmatch(name) and name.startswith(f"engine_{key}.")):
                return None
            with open(os.path.join(cache, name), "rb") as f:
                data = f.read()
            if _digest(data) != digest:
                return None
            out[name] = data
        os.utime(_marker(store, key))  # (recently used: kept longest)
        return out  # (empty for a module without kernels: nothing to compile)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _record(store: str, key: str) -> None:
    """Write the ready marker of a module the service has compiled (numba's files beside it)."""
    cache = _cache_dir_of(store, key)
    if cache is None:
        return
    files = {}
    for name in os.listdir(cache):
        if name.startswith(f"engine_{key}.") and _CACHE_FILE.fullmatch(name):
            with open(os.path.join(cache, name), "rb") as f:
                files[name] = _digest(f.read())
    tmp = _marker(store, key) + f".tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump({"files": files}, f)
    os.replace(tmp, _marker(store, key))


def _evict(store: str) -> None:
    try:
        markers = [e for e in os.scandir(store) if e.name.endswith(READY)]
    except OSError:
        return
    if len(markers) <= MAX_MODULES:
        return
    markers.sort(key=lambda e: e.stat().st_mtime)
    for entry in markers[: len(markers) - MAX_MODULES * 9 // 10]:
        key = entry.name[len("engine_") : -len(READY)]
        try:
            cache = _cache_dir_of(store, key) or store
            os.unlink(entry.path)
            for name in os.listdir(cache):
                if name.startswith(f"engine_{key}.") and _CACHE_FILE.fullmatch(name):
                    os.unlink(os.path.join(cache, name))
            os.unlink(os.path.join(store, f"engine_{key}.py"))
        except OSError:
            pass


# --- compiling (in a forked child) ----------------------------------------------------------------

_IMPORTS = {"numpy", "numba", "engine.backends", "engine.backends.numba_runtime"}


def _check_module(source: str) -> None:
    """Raise unless the module's top level (what importing it runs) is only the generator's own
    imports, ``NAME = "..."``, kernels decorated with ``nb.njit(<types>)`` and ``build``."""
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.Import):
            ok = all(a.name in _IMPORTS for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            ok = node.module in _IMPORTS and node.level == 0
        elif isinstance(node, ast.Assign):
            ok = (
                len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "NAME"
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            )
        elif isinstance(node, ast.FunctionDef):
            a = node.args
            ok = not (a.defaults or a.kw_defaults or node.returns) and all(
                _plain_decorator(d) for d in node.decorator_list
            )
            ok = ok and (node.name == "build") == (not node.decorator_list)
        else:
            ok = False
        if not ok:
            raise ValueError(
                f"unexpected statement at line {getattr(node, 'lineno', '?')} of a generated module"
            )


def _plain_decorator(d: ast.expr) -> bool:
    """``nb.njit(<type>, **_KW)``: types are ``nb.<name>`` or calls of ``nb.<name>``, ``A``, ``R``,
    ``RA`` on types and int constants (no deeper attribute chains: those could reach any module)."""

    def plain_type(n: ast.expr) -> bool:
        if isinstance(n, ast.Constant):
            return type(n.value) is int
        if isinstance(n, ast.Attribute):
            return isinstance(n.value, ast.Name) and n.value.id == "nb" and not n.attr.startswith("_")
        if isinstance(n, ast.Call):
            callee_ok = (isinstance(n.func, ast.Name) and n.func.id in ("A", "R", "RA")) or plain_type(n.func)
            return callee_ok and not n.keywords and all(plain_type(a) for a in n.args)
        return False

    if not (isinstance(d, ast.Call) and ast.unparse(d.func) == "nb.njit"):
        return False
    kw_ok = all(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == "_KW" for k in d.keywords)
    return kw_ok and all(plain_type(a) for a in d.args)


def _limit_child(protected: tuple[int, ...]) -> None:
    os.setsid()
    isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)
    cpu = int(COMPILE_SECONDS)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    with open("/proc/self/statm") as f:
        vm = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (vm + COMPILE_MEMORY, vm + COMPILE_MEMORY))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.nice(5)
    if seccomp.supported():
        seccomp.install(seccomp.build_filter(os.getpgid(0), protected))


def compile_request(request: Any, store: str) -> list[str]:
    """Validate ``request`` (``jaxpr_wire`` data), generate and compile its modules into ``store``;
    returns the keys of the modules now there. Raises on anything invalid."""
    from engine.backends import jaxpr_wire
    from engine.backends.numba_jit import NumbaBackend, module_key

    program = jaxpr_wire.decode(request)
    _typecheck(program.closed.jaxpr)
    os.environ["ENGINE_CACHE_DIR"] = store
    keys: list[str] = []

    class Checked(NumbaBackend):
        def _load(self, source: str, program: Any = None) -> Any:
            _check_module(source)
            out = super()._load(source)
            keys.append(module_key(source))
            _record(store, keys[-1])
            return out

    Checked().compile(program.closed, program.name, program.layouts)
    return keys


def _typecheck(jaxpr: Any) -> None:
    from engine import ir

    ir.typecheck_jaxpr(jaxpr)
    for eqn in jaxpr.eqns:
        for sub in ir.subjaxprs(eqn):
            _typecheck(sub)


def _start_compile(request: Any, store: str, protected: tuple[int, ...]) -> tuple[int, int]:
    """Fork a child that runs ``compile_request`` under limits; (its pid, the pipe its answer
    comes on)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(r)
            # Nothing of the service's (runs' connections, its control socket) stays open here.
            os.closerange(3, w)
            os.closerange(w + 1, os.sysconf("SC_OPEN_MAX"))
            _limit_child(protected)
            answer: dict[str, object]
            try:
                answer = {"keys": compile_request(request, store)}
                code = 0
            except Exception as e:  # noqa: BLE001 - a refusal, reported to the run
                answer = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
            os.write(w, json.dumps(answer).encode()[:65536])
        finally:
            os._exit(code)
    os.close(w)
    return pid, r


def _end_compile(pid: int, data: bytes) -> dict[str, Any]:
    """Kill and reap a compile child; its answer, or why there is none."""
    for kill in (os.killpg, os.kill):  # (its group, once it has made one; else itself)
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass
    _, status = os.waitpid(pid, 0)
    try:
        answer = json.loads(data)
    except ValueError:
        answer = {}
    if type(answer) is not dict or ("keys" not in answer and "error" not in answer):
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        answer = {"error": f"the compile stopped ({signal.Signals(sig).name if sig else 'no answer'})"}
    return answer


# --- serving --------------------------------------------------------------------------------------


def program_hash(request: Any) -> str:
    """The store's index of a program: the hash of its data as the service re-serializes it."""
    return _digest(json.dumps(request, sort_keys=True, separators=(",", ":")).encode())[:32]


def _program_marker(store: str, phash: str) -> str:
    return os.path.join(store, f"program_{phash}.json")


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


def _ready(store: str, key: str) -> Optional[dict[str, Any]]:
    files = stored_files(store, key)
    if files is None:
        return None
    return {
        "status": "ready",
        "key": key,
        "files": {n: base64.b64encode(d).decode() for n, d in files.items()},
    }


class _Compile(NamedTuple):
    conn: _Connection
    rid: Optional[int]
    key: str
    request: object
    answered: bool = False  # (told "busy" already: no second answer)


class Server:
    """The service's state: runs' connections, the compile queue and the compile running."""

    def __init__(self, store: str, protected: tuple[int, ...]):
        self.store, self.protected = store, protected
        self.conns: dict[int, _Connection] = {}
        self.queue: collections.deque[_Compile] = collections.deque()
        self.running: Optional[tuple[_Compile, int, int, float, bytearray]] = None

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
        if op == "lookup":
            # (only an index: the run still checks the module key against its own source)
            try:
                with open(_program_marker(self.store, program_hash(message.get("request")))) as f:
                    key = json.load(f)["key"]
                answer = _ready(self.store, key) if type(key) is str and _KEY.fullmatch(key) else None
            except (OSError, ValueError, KeyError, TypeError):
                answer = None
            return conn.reply(rid, answer or {"status": "absent"})
        if op != "kernel":
            return conn.reply(rid, {"status": "refused", "reason": "unknown request"})
        key = message.get("key")
        if type(key) is not str or not _KEY.fullmatch(key):
            return conn.reply(rid, {"status": "refused", "reason": "malformed key"})
        answer = _ready(self.store, key)
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
            self.running is not None and self.running[0].conn is not conn
        )
        if behind_others:
            conn.reply(rid, {"status": "busy"})
        self.queue.append(_Compile(conn, rid, key, message.get("request"), behind_others))

    def start_next(self) -> None:
        if self.running is None and self.queue:
            # (also when its run is gone: the next run of the same code finds the kernels)
            job = self.queue.popleft()
            pid, r = _start_compile(job.request, self.store, self.protected)
            self.running = (job, pid, r, time.monotonic(), bytearray())

    def compile_output(self, timed_out: bool = False) -> None:
        assert self.running is not None
        job, pid, r, started, data = self.running
        if not timed_out:
            chunk = os.read(r, 65536)
            if chunk:
                data += chunk
                return
        os.close(r)
        self.running = None
        answer = _end_compile(pid, bytes(data))
        job.conn.pending -= 1
        job.conn.seconds += time.monotonic() - started
        if timed_out:
            answer = {"error": f"the compile took over {COMPILE_SECONDS:.0f} s"}
        keys = answer.get("keys")
        if type(keys) is list and keys and type(keys[-1]) is str and _KEY.fullmatch(keys[-1]):
            tmp = _program_marker(self.store, "tmp-" + str(os.getpid()))
            with open(tmp, "w") as f:
                json.dump({"key": keys[-1]}, f)
            os.replace(tmp, _program_marker(self.store, program_hash(job.request)))
        _evict(self.store)
        if job.answered:
            return
        reply: dict[str, Any]
        if "error" in answer:
            reply = {"status": "refused", "reason": str(answer["error"])}
        else:
            # None: the module the service generated is not the one the run generated.
            ready = _ready(self.store, job.key)
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
                readers.append(self.running[2])
                timeout = max(0.0, self.running[3] + COMPILE_SECONDS - time.monotonic())
            writers = [fd for fd, c in conns.items() if c.outbox]
            ready_r, ready_w, _ = select.select(readers, writers, [], timeout)
            if self.running is not None and time.monotonic() > self.running[3] + COMPILE_SECONDS:
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
                if self.running is not None and fd == self.running[2]:
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


def _prepare_compiler() -> None:
    """Import the code generator and have numba compile once here (the zygote may not have), so
    that every compile's fork starts with both ready (numba's first compile in a process costs
    about a second)."""
    import numba

    import engine.backends.jaxpr_wire  # noqa: F401
    import engine.backends.numba_jit  # noqa: F401

    numba.njit("float32(float32)", cache=False)(lambda x: x + 1.0)


class Service:
    """The zygote's handle on its compile service process."""

    def __init__(self, store: str, protected: tuple[int, ...]):
        self.store = store
        self.protected = protected
        self.pid: Optional[int] = None
        self.control: Optional[socket.socket] = None
        self.started = 0.0

    def start(self) -> None:
        self.started = time.monotonic()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                ours.close()
                isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)
                isolation.prctl(isolation.PR_SET_DUMPABLE, 0)
                os.nice(5)
                low = 3
                keep = theirs.fileno()
                os.closerange(low, keep)
                os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
                _prepare_compiler()

                Server(self.store, self.protected).serve(theirs)
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
