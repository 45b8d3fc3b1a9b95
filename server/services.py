"""Real PostgreSQL clusters and nginx balancers, started in a temporary directory (tests, benchmarks).

Both come from Debian's packages (``postgresql``, ``nginx-light``); ``make install-test`` installs
them where apt-get works. Nothing here touches the host's own clusters or nginx: each instance
has its own data directory, socket directory, port, pid file and logs, and is stopped on exit.
"""

from __future__ import annotations

import glob
import grp
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from string import Template
from typing import Callable, Optional

from .launch import free_port, stop_process
from .settings import PROJECT_ROOT

NGINX_TEMPLATE = PROJECT_ROOT / "docker" / "nginx" / "jaxplay.conf.template"
UNPRIVILEGED = "nobody"  # PostgreSQL refuses to run as root


def _postgres_bin(name: str) -> str:
    on_path = shutil.which(name)
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}")) or ([on_path] if on_path else [])
    if not found:
        raise RuntimeError(
            f"PostgreSQL's {name} not found: install Debian's postgresql package (make install-test does)"
        )
    return found[-1]


def _as_unprivileged() -> Optional[Callable[[], None]]:
    """What a child must run before exec to become ``UNPRIVILEGED`` (None unless we are root)."""
    if os.getuid() != 0:
        return None
    user = pwd.getpwnam(UNPRIVILEGED)

    def drop() -> None:
        os.setgid(user.pw_gid)
        os.setgroups([])
        os.setuid(user.pw_uid)

    return drop


class PostgresCluster:
    """A throwaway cluster on 127.0.0.1:<free port>, trust auth, database ``jaxplay``."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="jaxplay-pg-"))
        self.port = free_port()
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self.url = f"postgresql://jaxplay@127.0.0.1:{self.port}/jaxplay"

    def start(self) -> "PostgresCluster":
        drop = _as_unprivileged()
        if drop is not None:
            user = pwd.getpwnam(UNPRIVILEGED)
            os.chown(self.dir, user.pw_uid, user.pw_gid)
        os.chmod(self.dir, 0o700)
        data = self.dir / "data"
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        subprocess.run(
            [_postgres_bin("initdb"), "-D", str(data), "-U", "jaxplay", "--auth=trust", "-E", "UTF8"],
            preexec_fn=drop,
            env=env,
            check=True,
            capture_output=True,
            cwd=self.dir,
        )
        log = open(self.dir / "postgres.log", "ab")
        self.proc = subprocess.Popen(
            [
                _postgres_bin("postgres"),
                "-D",
                str(data),
                "-p",
                str(self.port),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                f"unix_socket_directories={self.dir}",
                "-c",
                "fsync=off",
                "-c",
                "max_connections=100",
            ],
            preexec_fn=drop,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=self.dir,
            start_new_session=True,
        )
        log.close()
        self._wait_ready()
        subprocess.run(
            [_postgres_bin("createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "jaxplay", "jaxplay"],
            preexec_fn=drop,
            env=env,
            check=True,
            capture_output=True,
            cwd=self.dir,
        )
        return self

    def _wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        assert self.proc is not None, "start() first"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"postgres exited: {(self.dir / 'postgres.log').read_text()[-2000:]}")
            probe = subprocess.run(
                [_postgres_bin("pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)], capture_output=True
            )
            if probe.returncode == 0:
                return
            time.sleep(0.2)
        raise RuntimeError("postgres did not become ready")

    def stop(self) -> None:
        stop_process(self.proc, signal.SIGINT, 20)  # PostgreSQL's fast shutdown
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> "PostgresCluster":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def render_nginx(upstreams: list[str], listen: str) -> str:
    """The repository's balancer config with these replicas, as nginx's envsubst would render it."""
    servers = " ".join(f"server {u} max_fails=1 fail_timeout=5s;" for u in upstreams)
    return Template(NGINX_TEMPLATE.read_text()).safe_substitute(
        JAXPLAY_UPSTREAM_SERVERS=servers, JAXPLAY_LISTEN=listen
    )


class Nginx:
    """nginx balancing over ``upstreams`` (host:port), listening on 127.0.0.1:<free port>."""

    def __init__(self, upstreams: list[str]):
        self.dir = Path(tempfile.mkdtemp(prefix="jaxplay-nginx-"))
        # Its workers (``UNPRIVILEGED`` under root) buffer large responses in temp directories here.
        os.chmod(self.dir, 0o711)
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.upstreams = upstreams
        self.proc: Optional[subprocess.Popen[bytes]] = None

    def start(self) -> "Nginx":
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.path.exists(binary):
            raise RuntimeError(
                "nginx not found: install Debian's nginx-light package (make install-test does)"
            )
        user = (
            f"user {UNPRIVILEGED} {grp.getgrgid(pwd.getpwnam(UNPRIVILEGED).pw_gid).gr_name};"
            if os.getuid() == 0
            else ""
        )
        (self.dir / "nginx.conf").write_text(
            f"{user}\nworker_processes 1;\npid {self.dir}/nginx.pid;\nerror_log {self.dir}/error.log;\n"
            "daemon off;\nevents { worker_connections 1024; }\n"
            f"http {{\naccess_log {self.dir}/access.log;\n"
            + "".join(
                f"{k}_temp_path {self.dir}/{k};\n"
                for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
            )
            + render_nginx(self.upstreams, f"127.0.0.1:{self.port}")
            + "\n}\n"
        )
        self.proc = subprocess.Popen(
            [binary, "-p", str(self.dir), "-c", str(self.dir / "nginx.conf")],
            stdout=subprocess.DEVNULL,
            stderr=open(self.dir / "stderr.log", "ab"),
            start_new_session=True,
        )
        import socket

        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited: {(self.dir / 'stderr.log').read_text()[-2000:]}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            time.sleep(0.05)
        raise RuntimeError("nginx did not start listening")

    def stop(self) -> None:
        stop_process(self.proc, signal.SIGQUIT, 10)  # graceful: finish the requests in flight
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> "Nginx":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
