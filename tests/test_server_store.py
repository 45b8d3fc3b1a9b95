"""The snippet store and the sandbox's plain pieces (framing, the BPF assembler), without a server."""

from __future__ import annotations

import os
import struct

import pytest

from engine.inspect.schema import RunRequest, TransformSpec
from server.sandbox import protocol, seccomp
from server.store import SQLiteSnippetStore, base62


def test_store_created_on_first_use_and_content_addressed(tmp_path):
    path = tmp_path / "nested" / "db.sqlite"
    store = SQLiteSnippetStore(path)
    assert not path.exists()  # opening is free
    req = RunRequest(code="x = 1", function="f", stack=[TransformSpec(name="grad")], args=["1.0"])
    a = store.put(req, "t", "0.1.0", 8)
    assert path.exists() and (path.parent.stat().st_mode & 0o777) == 0o700
    assert store.put(req, "t", "0.1.0", 8).id == a.id
    assert store.put(req, "t", "0.2.0", 8).id != a.id  # the engine version is pinned
    assert store.put(req, "t", "0.1.0", 4).id != a.id  # so is the device count
    got = store.get(a.id)
    assert got == a and got.request.stack[0].name == "grad"
    assert store.get("nope") is None
    mode = store._db().execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    store.close()
    assert SQLiteSnippetStore(path).get(a.id) == a


def test_base62():
    assert base62(b"\x00") == "0" and base62(b"\x3d") == "z" and base62(b"\x3e") == "10"


def test_framing_round_trip():
    r, w = os.pipe()
    protocol.write_message(w, b"hello")
    protocol.write_message(w, b"")
    os.close(w)
    assert protocol.read_message(r) == b"hello" and protocol.read_message(r) == b""
    assert protocol.read_message(r) is None
    os.close(r)


@pytest.mark.skipif(not seccomp.supported(), reason="seccomp filter is x86_64 only")
def test_filter_shape():
    program = seccomp.build_filter(pgid=1234, protected_pids=(10, 20))
    assert len(program) % 8 == 0 and len(program) // 8 < 255
    first = struct.unpack("=HBBI", program[:8])
    assert first == (seccomp.LD_W_ABS, 0, 0, seccomp.OFF_ARCH)
    # The last four instructions are the shared returns: allow, EPERM, ENOSYS, kill.
    tail = [struct.unpack("=HBBI", program[i : i + 8])[3] for i in range(len(program) - 32, len(program), 8)]
    assert tail == [
        seccomp.RET_ALLOW,
        seccomp.RET_ERRNO | 1,
        seccomp.RET_ERRNO | 38,
        seccomp.RET_KILL_PROCESS,
    ]


@pytest.mark.skipif(not seccomp.supported(), reason="seccomp filter is x86_64 only")
def test_filter_in_a_child():
    """Install the filter in a forked child and check what it allows and refuses."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            import signal
            import socket

            os.setpgid(0, 0)
            seccomp.install(seccomp.build_filter(os.getpgid(0), (os.getppid(),)))
            results = []
            for attempt in (
                lambda: socket.socket(),
                lambda: os.kill(os.getppid(), 0),
                lambda: os.kill(-1, 0),
                lambda: os.kill(1, 0),
                lambda: os.setsid(),
                lambda: (
                    os.unshare(0x40000000)
                    if hasattr(os, "unshare")
                    else (_ for _ in ()).throw(PermissionError())
                ),
            ):
                try:
                    attempt()
                    results.append("allowed")
                except PermissionError:
                    results.append("denied")
            a, b = socket.socketpair()
            os.kill(os.getpid(), 0)
            os.killpg(0, 0)
            signal.pthread_kill(__import__("threading").get_ident(), 0)
            results.append("ok")
            os.write(w, ",".join(results).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    out = os.read(r, 1000).decode()
    os.close(r)
    _, status = os.waitpid(pid, 0)
    assert status == 0, out
    assert out == "denied,denied,denied,denied,denied,denied,ok"
