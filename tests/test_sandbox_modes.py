"""Which isolation modes the server agrees to run code in, the kernel cache's checks, and what a
run's report says about an output overrun."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import sys
import tempfile
import time

import httpx
import pytest

import syscall_probe
from sandbox_hosts import SERVER_UID, owned_dir, readable_python, uid_mode_prefix
from server.launch import ServerProcess
from server.sandbox import kernel_cache, supervise, zygote

PLAIN = "server.sandbox.plain_runner:run_request"
needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("setpriv") or not os.path.exists("/usr/bin/python3.11"),
    reason="starts the server as another uid through setpriv",
)


@pytest.fixture
def base():
    base = pathlib.Path(tempfile.mkdtemp(prefix="jaxplay-modes-"))
    os.chmod(base, 0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def unprivileged_server(base, isolation: str, caps: str = "") -> ServerProcess:
    """A server as uid 10001 holding ``caps`` (none: what ``docker run --user 10001`` gives)."""
    settings = {
        "runner": PLAIN,
        "database_path": owned_dir(base / "db", mode=0o700) / "snippets.sqlite",
        "sandbox_tmp": owned_dir(base / "sandbox", mode=0o711),
        "kernel_cache_dir": owned_dir(base / "kernels"),
        "workers": 1,
        "isolation": isolation,
        "warm_examples": "false",
        "slot_uid_base": 61200,
        "sandbox_env": json.dumps({"NUMBA_CACHE_DIR": str(base / "kernels" / "numba")}),
    }
    s = ServerProcess(
        settings, log_path=str(base / "server.log"), prefix=uid_mode_prefix(caps), startup_timeout=60
    )
    s.python = readable_python(base)
    return s


@needs_root
def test_fails_closed_without_a_safe_mode(base):
    # As a plain uid (no capabilities) neither root nor uid mode is possible: the server must not
    # fall back to running code under its own uid.
    with pytest.raises(RuntimeError, match="server exited"):
        unprivileged_server(base, "auto").start()
    log = (base / "server.log").read_text()
    assert "no isolation mode that keeps runs apart" in log and "JAXPLAY_ISOLATION=unsafe-single-user" in log


@needs_root
def test_unsafe_single_user_only_when_asked_and_flagged(base):
    with unprivileged_server(base, "unsafe-single-user") as s:
        health = httpx.get(s.base_url + "/api/health").json()
        assert health["isolation"]["mode"] == "unsafe-single-user" and health["isolation"]["safe"] is False
        assert "unsafe" in health["warning"] and "trusted user" in health["warning"]
        report = httpx.post(s.base_url + "/api/run", json={"code": "import os\nprint(os.getuid())"}).json()
        assert report["stdout"] == f"{SERVER_UID}\n"


def test_safe_modes_are_flagged_safe():
    info = zygote._describe(zygote.make_plan(_config(), "uid", True), {"seccomp_active": True}, [], True)
    assert info["safe"] is True and info["warning"] is None
    with pytest.raises(ValueError):
        zygote.make_plan(_config(), "minimal", True)


def _config() -> dict:
    return {
        "slot": 0,
        "slot_uid_base": 61200,
        "project_root": "/nonexistent",
        "hidden_paths": [],
        "server_pid": os.getppid(),
        "memory_bytes": 1 << 30,
        "cpu_seconds": 1,
        "file_bytes": 1 << 20,
        "open_files": 64,
        "process_limit": 8,
        "tmp_bytes": 1 << 20,
        "nice": 0,
        "env": {},
    }


# --- kernel cache --------------------------------------------------------------------------------


def test_kernel_cache_keeps_only_what_was_sealed(tmp_path):
    (tmp_path / "numba").mkdir()
    (tmp_path / "engine_abc.py").write_text("x = 1\n")
    (tmp_path / "numba" / "k.nbi").write_bytes(b"index")
    (tmp_path / "numba" / "k.nbc").write_bytes(b"code")
    assert kernel_cache.seal(str(tmp_path)) == 3
    # What a run in a shared-uid mode could do: change an index, add a pickle, add a module.
    (tmp_path / "numba" / "k.nbi").write_bytes(b"cos\nsystem\n(S'echo pwned'\ntR.")
    (tmp_path / "numba" / "planted.nbi").write_bytes(b"payload")
    (tmp_path / "engine_planted.py").write_text("import os\n")
    os.symlink("/etc/passwd", tmp_path / "numba" / "link.nbc")
    removed = kernel_cache.verify(str(tmp_path))
    assert sorted(removed) == ["engine_planted.py", "numba/k.nbi", "numba/link.nbc", "numba/planted.nbi"]
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [
        kernel_cache.MANIFEST,
        "engine_abc.py",
        "k.nbc",
    ]


def test_kernel_cache_without_manifest_loads_nothing(tmp_path):
    (tmp_path / "old.nbi").write_bytes(b"from an older, unsealed cache")
    assert kernel_cache.verify(str(tmp_path)) == ["old.nbi"]


def test_kernel_cache_under_missing_parents_is_created_and_used(tmp_path):
    # A fresh machine's XDG_CACHE_HOME may not exist yet: the cache must still persist there.
    cache = tmp_path / "xdg" / "cache" / "kernels"
    assert kernel_cache.untrusted_reason(str(cache)) is None
    assert kernel_cache.prepare(str(cache)) == str(cache) and cache.is_dir()
    os.chmod(tmp_path, 0o777)
    assert "writable" in kernel_cache.untrusted_reason(str(tmp_path / "other" / "kernels"))


def test_kernel_cache_writable_by_others_is_not_used(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    assert kernel_cache.untrusted_reason(str(cache)) is None
    (cache / "k.nbi").write_bytes(b"x")
    os.chmod(cache / "k.nbi", 0o666)
    assert "writable" in kernel_cache.untrusted_reason(str(cache))
    os.chmod(cache / "k.nbi", 0o644)
    os.chmod(cache, 0o777)
    assert "writable" in kernel_cache.untrusted_reason(str(cache))
    private = kernel_cache.prepare(str(cache))
    try:
        assert private != str(cache) and os.stat(private).st_mode & 0o777 == 0o700
    finally:
        shutil.rmtree(private)


@pytest.mark.skipif(os.geteuid() != 0, reason="root mode")
def test_zygote_removes_planted_cache_files_before_it_loads_anything(tmp_path):
    cache = tmp_path / "kernels"
    (cache / "numba").mkdir(parents=True)
    kernel_cache.seal(str(cache))
    planted = cache / "numba" / "planted.nbi"
    planted.write_bytes(b"payload")
    settings = {
        "runner": PLAIN,
        "database_path": tmp_path / "db" / "snippets.sqlite",
        "sandbox_tmp": tmp_path / "sandbox",
        "kernel_cache_dir": cache,
        "workers": 1,
        "warm_examples": "false",
        "slot_uid_base": 61210,
    }
    with ServerProcess(settings, log_path=str(tmp_path / "server.log")):
        assert not planted.exists()
    assert "removed 1 unvouched files" in (tmp_path / "server.log").read_text()


# --- output limit --------------------------------------------------------------------------------


def test_output_overrun_inside_the_report_is_reported_as_the_output_limit():
    from engine.inspect.schema import RunReport, RunRequest

    request = RunRequest(code="print('x' * 10**7)")
    captured = RunReport(engine_version="t", mode="script", ok=True, stdout="x" * (3 << 20), duration_ms=1.0)
    outcome = supervise.Outcome(report=captured.model_dump_json().encode(), stdout=b"", stderr=b"")
    config = {
        "output_bytes": 1 << 20,
        "device_count": 1,
        "wall_seconds": 1,
        "cpu_seconds": 1,
        "memory_bytes": 1 << 30,
    }
    report = RunReport.model_validate_json(zygote.finish(outcome, request, config, "t"))
    assert not report.ok and report.error.limit == "output"
    assert len(report.stdout) <= (1 << 20) + 200


@pytest.mark.skipif(os.geteuid() != 0, reason="root mode")
def test_two_instances_cannot_share_slot_uids(tmp_path):
    def settings(name):
        return {
            "runner": PLAIN,
            "database_path": tmp_path / name / "snippets.sqlite",
            "sandbox_tmp": tmp_path / name / "sandbox",
            "workers": 1,
            "warm_examples": "false",
            "slot_uid_base": 61220,
        }

    with ServerProcess(settings("a"), log_path=str(tmp_path / "a.log")) as first:
        with pytest.raises(RuntimeError, match="server exited"):
            ServerProcess(settings("b"), log_path=str(tmp_path / "b.log"), startup_timeout=60).start()
        assert (
            "uid 61220 (a slot's, or its compile service's) is in use by another jaxplay instance"
            in (tmp_path / "b.log").read_text()
        )
        r = httpx.post(first.base_url + "/api/run", json={"code": "print(1)"}).json()
        assert r["stdout"] == "1\n"


# --- unsafe-single-user: what the mode still promises, attacked -----------------------------------


@pytest.fixture(scope="module")
def unsafe_server():
    if os.geteuid() != 0 or not shutil.which("setpriv") or not os.path.exists("/usr/bin/python3.11"):
        pytest.skip("starts the server as another uid through setpriv")
    base = pathlib.Path(tempfile.mkdtemp(prefix="jaxplay-unsafe-"))
    os.chmod(base, 0o755)
    s = unprivileged_server(base, "unsafe-single-user")
    s.settings.update(wall_seconds=3, cpu_seconds=2, memory_bytes=512 << 20)
    try:
        with s:
            yield s
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _unsafe_run(server, code: str) -> dict:
    r = httpx.post(server.base_url + "/api/run", json={"code": code}, timeout=60)
    assert r.status_code == 200, r.text[:300]
    return r.json()


def _with_comm(name: bytes) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/comm", "rb") as f:
                if f.read().rstrip(b"\n") == name:
                    found.append(int(entry))
        except (OSError, ValueError):
            pass
    return found


@needs_root
def test_unsafe_single_user_still_limits_and_filters(unsafe_server):
    # Runs here share the server's uid and may read and change what it owns; the limits, the
    # seccomp filter and the teardown still hold (README, "The sandbox").
    s = unsafe_server
    assert _unsafe_run(s, "while True:\n    pass\n")["error"]["limit"] in ("cpu", "timeout")
    report = _unsafe_run(s, "x = bytearray(8 * 1024**3)\n")
    assert report["error"]["type"] == "MemoryError" and report["error"]["limit"] == "memory"
    assert (
        _unsafe_run(s, "import os\nwhile True:\n    os.write(1, b'y' * 65536)\n")["error"]["limit"]
        == "output"
    )
    code = f"""
import ctypes, os, signal, socket
refused = []
for target in (os.getppid(), {s.proc.pid}, 1, -1, -{os.getpgid(s.proc.pid)}):  # zygote, server, init, all, its group
    try:
        os.kill(target, signal.SIGSTOP)
    except OSError as e:
        refused.append(e.errno)
try:
    socket.create_connection(('127.0.0.1', {s.port}), timeout=1)
except OSError as e:
    refused.append(e.errno)
try:
    os.memfd_create('x')
except OSError as e:
    refused.append(e.errno)
libc = ctypes.CDLL(None, use_errno=True)
if libc.syscall(447, 0) < 0:  # memfd_secret
    refused.append(ctypes.get_errno())
a, b = socket.socketpair()
for option in (socket.SO_SNDBUF, socket.SO_RCVBUF):  # growing a buffer: memory in no PSS
    try:
        a.setsockopt(socket.SOL_SOCKET, option, 4 << 20)
    except OSError as e:
        refused.append(e.errno)
if os.fork() == 0:  # a grandchild that leaves the run and would sleep on
    if os.fork() == 0:
        ctypes.CDLL(None).prctl(15, b'jaxplay-escapee', 0, 0, 0)  # PR_SET_NAME
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        import time
        time.sleep(60)
    os._exit(0)
os.wait()
print(refused)
"""
    report = _unsafe_run(s, code)
    assert report["stdout"] == "[1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n", report
    deadline = time.monotonic() + 10
    while _with_comm(b"jaxplay-escapee") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _with_comm(b"jaxplay-escapee") == []
    with open(f"/proc/{s.proc.pid}/stat") as f:
        assert f.read().rsplit(")", 1)[1].split()[0] != "T"
    # Sharing the server's uid, a run that could trace a process or enter namespaces could take the
    # server over: the filter's other doors hold here too.
    report = _unsafe_run(s, syscall_probe.CODE)
    assert report["ok"] and syscall_probe.not_refused(report["stdout"]) == {}, report
    assert httpx.get(s.base_url + "/api/health").json()["status"] == "ok"
    assert _unsafe_run(s, "print(6 * 7)")["stdout"] == "42\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="root mode")
@pytest.mark.parametrize("planted", ["directory", "link"])
def test_refuses_a_sandbox_directory_another_uid_controls(tmp_path, planted):
    # The default parent of run directories lies in /tmp: another local user may make it first.
    # Inside it the server makes each run's directory and chowns it to the slot (as root, or with
    # CAP_CHOWN): its owner could swap a new one for a link to /etc/shadow in between.
    base = owned_dir(tmp_path / "base", 0, 0o755)
    other = 61998
    sandbox = base / "sandbox"
    if planted == "directory":
        owned_dir(sandbox, other, 0o777)
    else:
        owned_dir(base / "mine", 0, 0o711)
        os.symlink(base / "mine", sandbox)
        os.lchown(sandbox, other, other)
    settings = {
        "runner": PLAIN,
        "database_path": tmp_path / "db" / "snippets.sqlite",
        "sandbox_tmp": sandbox,
        "workers": 1,
        "warm_examples": "false",
        "isolation": "root",
        "slot_uid_base": 61230,
    }
    s = ServerProcess(settings, log_path=str(tmp_path / "server.log"), startup_timeout=60)
    try:
        with pytest.raises(RuntimeError, match="server exited"):
            s.start()
    finally:
        s.stop()  # (one that started anyway)
    assert f"the sandbox directory {sandbox}" in (tmp_path / "server.log").read_text()


@needs_root
def test_unsafe_single_user_counts_socket_buffers_as_memory(unsafe_server):
    # The memory watchdog holds in this mode too: filled socket pairs (kernel memory in no PSS)
    # count, as make docker-test and test_sandbox_abuse check in the other modes (the same attack).
    docker_dir = str(pathlib.Path(__file__).parent / "docker")
    sys.path.insert(0, docker_dir)
    try:
        import docker_check
    finally:
        sys.path.remove(docker_dir)
    for name, (code, limit) in docker_check.LIMIT_ATTACKS.items():
        report = _unsafe_run(unsafe_server, code)
        assert (report["error"] or {}).get("limit") == limit, (name, report["error"], report["stdout"])
