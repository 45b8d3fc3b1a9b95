"""The kernel compile service through the API: a second Run of the same jitted code loads the
kernels the service compiled for the first (a kernel cache hit, no compile), with the same
values; other code is not mistaken for it; a compile that crashes or hangs is refused and the
service goes on. Attacks through a run are in test_sandbox_abuse.py."""

import json
import os
import select
import signal
import socket
import time

import httpx
import pytest

from conftest import numba_backend
from server.launch import ServerProcess

numba_backend()

LOSS = "import jax, jax.numpy as jnp\ndef loss(w, x, y):\n    return jnp.sum((jnp.tanh(x @ w) - y) ** {p})\n"


def page_request(p=2):
    return {
        "code": LOSS.format(p=p),
        "function": "loss",
        "stack": [
            {"name": "grad"},
            {"name": "vmap", "options": {"in_axes": "(None, 0, 0)"}},
            {"name": "jit"},
        ],
        "args": ["jnp.ones((3, 2)) * 0.1", "jnp.ones((4, 3))", "jnp.zeros((4, 2))"],
    }


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("kernel-service")
    with ServerProcess(
        {
            "database_path": base / "snippets.sqlite",
            "kernel_cache_dir": base / "kernels",
            "workers": 2,
            "slot_uid_base": 61400,
        },
        log_path=str(base / "server.log"),
    ) as s:
        s.store = base / "kernels" / "shared"
        yield s


def facts(report):
    call = report["calls"][-1]
    # (jit's compile steps: "compile", or "load" where the kernels came from the kernel cache)
    compiles = [e for c in report["calls"] for e in c["timings"] if e["category"] in ("compile", "load")]
    return call["jit"], compiles, report["result"]


def run_until_loaded(client, request, seconds=90):
    """Runs of ``request`` until one loads its kernels from the cache (the first run's compile
    finishes in the service after that run has answered)."""
    reports = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        report = client.post("/api/run", json=request).json()
        assert report["ok"], report.get("error")
        reports.append(report)
        if facts(report)[0]["cache"] == "disk":
            return reports
        time.sleep(0.5)
    pytest.fail(
        f"no run loaded its kernels: {[(facts(r)[0]['cache'], facts(r)[0]['tier']) for r in reports]}"
    )


def test_second_run_is_a_kernel_cache_hit(server):
    with httpx.Client(base_url=server.base_url, timeout=60) as client:
        first, *_, loaded = run_until_loaded(client, page_request())
    jit, _, _ = facts(first)
    assert jit["cache"] == "miss"
    jit, compiles, result = facts(loaded)
    assert jit["tier"] == "compiled"  # the kernels ran at once: no interpreted first call
    # loaded, not compiled
    assert compiles and all(e["cache"] == "disk" and e["category"] == "load" for e in compiles)
    assert result == facts(first)[2]
    assert any(name.startswith("program_") for name in os.listdir(server.store))


def test_other_code_is_not_taken_for_it(server):
    with httpx.Client(base_url=server.base_url, timeout=60) as client:
        loaded = run_until_loaded(client, page_request(2))[-1]
        other = client.post("/api/run", json=page_request(4)).json()
    assert other["ok"]
    jit, compiles, result = facts(other)
    assert jit["cache"] == "miss" and not any(e["cache"] == "disk" for e in compiles)
    assert result["data"] != facts(loaded)[2]["data"]


def _drive(service, limit=20.0):
    """What ``Server.serve`` does about a running compile: read its answer, or time it out."""
    from server.sandbox import kernel_service as ks

    deadline = time.monotonic() + limit
    service.start_next()
    while service.running is not None and time.monotonic() < deadline:
        if select.select([service.running.answer_fd], [], [], 0.05)[0]:
            service.compile_output()
        elif time.monotonic() > service.running.started + ks.COMPILE_SECONDS:
            service.compile_output(timed_out=True)
    assert service.running is None


def _replies(conn):
    out, data = [], bytes(conn.outbox)
    while data:
        n = int.from_bytes(data[:4], "big")
        out.append(json.loads(data[4 : 4 + n]))
        data = data[4 + n :]
    return out


def unisolated_server(tmp_path):
    """A service's state whose compiles run as this process's uid, with the seccomp filter and
    rlimits ("unsafe-single-user" without namespaces)."""
    from server.sandbox import compile_child, isolation, kernel_service, seccomp

    plan = isolation.Plan(mode="unsafe-single-user", use_seccomp=seccomp.supported())
    (tmp_path / "scratch").mkdir()
    (tmp_path / "store").mkdir()
    return kernel_service.Server(
        str(tmp_path / "store"), compile_child.compile_plan(plan, None, ()), str(tmp_path / "scratch")
    )


@pytest.mark.parametrize("how", ["crash", "hang"])
def test_a_compile_that_crashes_or_hangs_is_refused_and_the_service_goes_on(tmp_path, monkeypatch, how):
    from server.sandbox import compile_child
    from server.sandbox import kernel_service as ks

    if how == "crash":
        monkeypatch.setattr(
            compile_child, "compile_request", lambda request, cache: os.kill(os.getpid(), signal.SIGSEGV)
        )
    else:
        monkeypatch.setattr(ks, "COMPILE_SECONDS", 1.0)
        monkeypatch.setattr(compile_child, "compile_request", lambda request, cache: time.sleep(60))
    service = unisolated_server(tmp_path)
    ours, theirs = socket.socketpair()
    conn = ks._Connection(ours)
    request = {"op": "kernel", "key": "0" * 32, "request": {"v": 1}, "id": 7}
    service.request(conn, json.dumps(request).encode())
    _drive(service)
    (reply,) = _replies(conn)
    assert reply["id"] == 7 and reply["status"] == "refused"
    assert ("SIGSEGV" if how == "crash" else "took over") in reply["reason"]
    assert os.listdir(tmp_path / "store") == [] and os.listdir(tmp_path / "scratch") == []
    # and it still answers
    conn.outbox.clear()
    service.request(conn, json.dumps({"op": "kernel", "key": "x", "id": 8}).encode())
    assert _replies(conn) == [{"status": "refused", "reason": "malformed key", "id": 8}]
    theirs.close()


def test_outside_the_server_the_engine_does_not_use_a_service(monkeypatch):
    from engine.backends import kernel_client

    monkeypatch.delenv(kernel_client.ENV, raising=False)
    assert not kernel_client.connected()
    monkeypatch.setenv(kernel_client.ENV, f"4:{os.getpid() + 1}")  # another process's (a pmap device)
    assert not kernel_client.connected()


def test_a_run_that_does_not_read_its_answers_is_held_back_and_one_that_floods_is_cut_off(
    tmp_path, monkeypatch
):
    from server.sandbox import kernel_service as ks

    service = unisolated_server(tmp_path)
    ours, theirs = socket.socketpair()
    conn = ks._Connection(ours)
    frame = lambda i: (lambda d: len(d).to_bytes(4, "big") + d)(json.dumps({"op": "x", "id": i}).encode())  # noqa: E731
    monkeypatch.setattr(ks, "OUTBOX_LIMIT", 10)
    conn.inbox += frame(1) + frame(2) + frame(3)
    service.process(conn)
    assert [r["id"] for r in _replies(conn)] == [1]  # the rest wait until the answer is read
    conn.outbox.clear()
    service.process(conn)
    assert [r["id"] for r in _replies(conn)] == [2]
    monkeypatch.setattr(ks, "OUTBOX_LIMIT", 1 << 20)
    monkeypatch.setattr(ks, "MAX_REQUESTS", 4)
    conn.outbox.clear()
    conn.inbox += frame(4) + frame(5)
    service.process(conn)
    assert [(r["id"], r["reason"]) for r in _replies(conn)] == [
        (3, "unknown request"),
        (4, "unknown request"),
        (None, "too many requests"),
    ]
    assert conn.closing
    theirs.close()


def test_generated_module_check_refuses_anything_but_imports_a_name_and_kernels():
    from server.sandbox.compile_child import check_module as _check_module

    numba_jit = numba_backend()
    import engine as jax
    import engine.numpy as jnp

    closed = jax.make_jaxpr(lambda x, y: jnp.sum(jnp.tanh(x @ y) ** 2, axis=0))(
        jnp.ones((3, 2)), jnp.ones((2, 4))
    )
    _check_module(numba_jit.NumbaBackend().lower_source(closed, "f"))  # what the generator writes passes
    kernel = "@nb.njit(nb.void(nb.int64, R(nb.float32, 2)), **_KW)\ndef k1(lo, hi, p0):\n    pass\n"
    _check_module(kernel)
    for hostile in [
        "import os\n",
        "from engine.backends import numba_rt as rt\nrt.__builtins__['exec']('1')\n",
        "NAME = __import__('os').system('id')\n",
        "@nb.njit(nb.core.caching.os.system(nb.core.caching.builtins.chr(105)))\ndef k1(lo, hi):\n    pass\n",
        "@nb.njit(nb.void(nb.int64), boundscheck=print(1))\ndef k1(lo, hi):\n    pass\n",
        "@nb.njit(nb.void(nb.int64, 'x'))\ndef k1(lo, hi):\n    pass\n",
        "@nb.njit(nb.void(nb.int64))\ndef k1(lo, hi=print(1)):\n    pass\n",
        "def build(env=print(1)):\n    pass\n",
        "@print\ndef build(env):\n    pass\n",
        "class K:\n    pass\n",
        "if 1:\n    pass\n",
    ]:
        with pytest.raises(ValueError):
            _check_module(hostile)


class _FakeService:
    """A service on a socketpair that answers lookups at once ("ready", no files) and never
    answers kernel requests (a compile that takes long)."""

    def __init__(self, monkeypatch):
        import threading

        from engine.backends import kernel_client

        self.ours, self.theirs = socket.socketpair()
        monkeypatch.setenv(kernel_client.ENV, f"{self.ours.fileno()}:{os.getpid()}")
        monkeypatch.setattr(kernel_client, "_broken", [False])
        self.kernel_requests = threading.Semaphore(0)
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        f = self.theirs.makefile("rb")
        while True:
            head = f.read(4)
            if len(head) < 4:
                return
            message = json.loads(f.read(int.from_bytes(head, "big")))
            if message["op"] == "lookup":
                data = json.dumps({"status": "ready", "key": "a" * 32, "files": {}, "id": message["id"]})
                self.theirs.sendall(len(data).to_bytes(4, "big") + data.encode())
            else:
                self.kernel_requests.release()

    def close(self):
        self.ours.close(), self.theirs.close()


def test_a_lookup_does_not_wait_behind_a_compile_in_flight(monkeypatch, tmp_path):
    """A first call asks the service whether it holds the program's kernels; while a background
    compile waits for the service (up to WAIT_SECONDS) the lookup is answered at once, and the call
    loads the kernels (a transformer step's first eager grad waited ~9 s behind such a compile; a
    lookup that skipped the question instead left 200 training steps interpreted)."""
    import threading

    from engine.backends import kernel_client

    service = _FakeService(monkeypatch)
    background = threading.Thread(
        target=lambda: kernel_client.fetch("b" * 32, str(tmp_path / "m.py"), lambda: {"v": 2}), daemon=True
    )
    background.start()
    assert service.kernel_requests.acquire(timeout=10)  # the compile is in flight
    asked = []
    looker = threading.Thread(target=lambda: asked.append(kernel_client.lookup(lambda: {"v": 1})))
    looker.start()
    looker.join(5)
    assert asked == [True], "the lookup waited for the compile in flight"
    service.close()


def test_a_call_compiles_itself_rather_than_wait_behind_a_background_compile(monkeypatch, tmp_path):
    """A background compile may wait WAIT_SECONDS for the service; a call's own compile neither
    queues behind its question (it compiles here) nor behind the backend's lock meanwhile (a
    first run's jit(grad) of an ODE solver waited there past the 10 s limit)."""
    import threading

    from engine.backends import kernel_client, numba_jit

    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path))
    asked, release = threading.Event(), threading.Event()

    def fetch(key, path, program):
        if threading.current_thread() is threading.main_thread():
            return None  # (what fetch answers a call while the connection is busy)
        asked.set()
        release.wait(30)
        return None

    monkeypatch.setattr(kernel_client, "connected", lambda: True)
    monkeypatch.setattr(kernel_client, "fetch", fetch)
    backend = numba_jit.NumbaBackend()
    background = threading.Thread(target=lambda: backend._load("A = 1\n", lambda: {}))
    background.start()
    assert asked.wait(10)
    timer = threading.Timer(10, release.set)  # (if the call waits, it waits this long)
    timer.start()
    module, _ = backend._load("B = 2\n", lambda: {})  # the call, on the main thread
    waited = release.is_set()
    release.set()
    timer.cancel()
    background.join(10)
    assert module.B == 2 and not waited, "the call's compile waited for the background compile"

    # and fetch itself answers a call at once while a background compile is in flight
    monkeypatch.undo()
    service = _FakeService(monkeypatch)
    threading.Thread(
        target=lambda: kernel_client.fetch("b" * 32, str(tmp_path / "m.py"), lambda: {"v": 2}), daemon=True
    ).start()
    assert service.kernel_requests.acquire(timeout=10)
    assert kernel_client.fetch("0" * 32, str(tmp_path / "n.py"), lambda: {"v": 1}) is None
    assert kernel_client.last_status["0" * 32] == "busy"
    service.close()
