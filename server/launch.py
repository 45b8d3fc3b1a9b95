"""Start and stop a real server process on a free loopback port (tests and benchmarks)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from typing import BinaryIO, Optional

import httpx

from .settings import PROJECT_ROOT


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def stop_process(proc: Optional[subprocess.Popen[bytes]], sig: int, timeout: float) -> None:
    """Ask ``proc`` (started in a session of its own) to stop with ``sig``; kill its group after ``timeout``."""
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)


class ServerProcess:
    """``python -m server`` with ``JAXPLAY_*`` settings from ``settings``; a context manager.

    ``prefix`` runs the server through another command, e.g. ``setpriv`` to start it as an
    unprivileged uid with only the capabilities the Docker image's entrypoint gives it."""

    def __init__(
        self,
        settings: Optional[dict[str, object]] = None,
        extra_env: Optional[dict[str, str]] = None,
        startup_timeout: float = 120.0,
        log_path: Optional[str] = None,
        prefix: tuple[str, ...] = (),
    ):
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        # Tests and benchmarks fire runs from one address faster than any person: per-client fair
        # share is off unless they set it (tests/test_scale_out.py does).
        unlimited = {
            "client_runs": 10_000,
            "client_rate": 1e6,
            "client_burst": 10_000,
            "client_share_rate": 1e6,
            "client_share_burst": 10_000,
        }
        # Slot uids must not be shared by two servers on one host (the second refuses to start):
        # tests and benchmarks that run at once get different ones unless they choose.
        slots = {"slot_uid_base": 62000 + 16 * (self.port % 2000)}
        self.settings = {
            "host": "127.0.0.1",
            "port": str(self.port),
            **unlimited,
            **slots,
            **(settings or {}),
        }
        self.extra_env = extra_env or {}
        self.startup_timeout = startup_timeout
        self.log_path = log_path
        self.python = sys.executable
        self.prefix = tuple(prefix)  # e.g. a setpriv command line that drops uid and capabilities
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self._log: BinaryIO | int | None = None

    def start(self) -> "ServerProcess":
        env = dict(os.environ)
        env.update({f"JAXPLAY_{k.upper()}": str(v) for k, v in self.settings.items()})
        env.update(self.extra_env)
        if "JAXPLAY_ISOLATION" not in env and not self.prefix and os.geteuid() != 0:
            # As `make run` for a normal user: no run can get a uid of its own, and a server on
            # loopback started by that user opts in to sharing it (tests asserting a mode set one).
            env["JAXPLAY_ISOLATION"] = "unsafe-single-user"
        self._log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            [*self.prefix, self.python, "-m", "server"],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode} (log: {self.log_path})")
            try:
                if httpx.get(self.base_url + "/api/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not become healthy in {self.startup_timeout} s")

    def stop(self) -> None:
        stop_process(self.proc, signal.SIGTERM, 15)
        if self._log is not None and not isinstance(self._log, int):  # not DEVNULL
            self._log.close()
            self._log = None

    def __enter__(self) -> "ServerProcess":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
