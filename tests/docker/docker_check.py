"""`make docker-test`: build the image, run it, and check it as a self-hoster would use it.

Steps: start Docker if needed (../shared/tools/docker-base-image.sh, as root) or skip with exit 0
when no daemon can be had; build with --network host; start a container (loopback only, a fresh
named volume); wait for /api/health and for Docker's HEALTHCHECK; run a gallery example through
the API and compare its values; check that its kernels came from the build-time cache; create a
shared link and read it back; restart the container and read it again; check that no process
in the container runs as root; remove the container and the volume. Exits non-zero on failure.

Stdlib only (runs with the system python3). Traffic goes to 127.0.0.1 only.
Environment: DOCKER_TEST_IMAGE (tag, default jaxplay:docker-test), DOCKER_TEST_KEEP_IMAGE=0 to
remove the image too (kept by default, so the next build reuses its layers).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGE = os.environ.get("DOCKER_TEST_IMAGE", "jaxplay:docker-test")
BASE = "debian:bookworm-slim"
EXAMPLE = "hessian"
SUFFIX = f"{os.getpid()}-{int(time.time())}"
CONTAINER = f"jaxplay-docker-test-{SUFFIX}"
VOLUME = f"jaxplay-docker-test-{SUFFIX}"

started: list[tuple[str, str]] = []  # ("container"|"volume", name), removed at the end


def log(msg: str) -> None:
    print(f"[docker-test] {msg}", flush=True)


def docker(*args: str, check: bool = True, capture: bool = True, timeout: float = 300) -> str:
    proc = subprocess.run(["docker", *args], capture_output=capture, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise Failure(
            f"docker {' '.join(args[:3])} ... failed ({proc.returncode}): "
            f"{(proc.stderr or '')[-2000:] if capture else ''}"
        )
    return (proc.stdout or "").strip() if capture else ""


class Failure(Exception):
    pass


def daemon_up() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def base_image_present() -> bool:
    return subprocess.run(["docker", "image", "inspect", BASE], capture_output=True).returncode == 0


def prepare_docker() -> bool:
    """True when a daemon and the base image are ready; False when no daemon can be started."""
    if daemon_up() and base_image_present():
        return True
    script = os.path.join(ROOT, "..", "shared", "tools", "docker-base-image.sh")
    if os.path.isfile(script) and os.geteuid() == 0:
        log(f"preparing Docker and {BASE} with {os.path.normpath(script)} (a few minutes the first time)")
        proc = subprocess.run(["sh", script], capture_output=True, text=True, timeout=1200)
        if proc.returncode != 0:
            log(f"docker-base-image.sh failed: {(proc.stderr or proc.stdout)[-1500:]}")
    if not daemon_up():
        return False
    if not base_image_present():
        raise Failure(f"the Docker daemon runs but the base image {BASE} is missing and could not be built")
    return True


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Api:
    def __init__(self, port: int, container: str):
        self.base = f"http://127.0.0.1:{port}"
        self.container = container

    def request(self, method: str, path: str, body=None, timeout: float = 120) -> tuple[int, bytes]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.base + path,
            data=data,
            method=method,
            headers={"content-type": "application/json"} if data else {},
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def json(self, method: str, path: str, body=None, expect: int = 200, timeout: float = 120):
        status, data = self.request(method, path, body, timeout)
        if status != expect:
            raise Failure(f"{method} {path}: HTTP {status} (wanted {expect}): {data[:500]!r}")
        return json.loads(data)

    def wait_healthy(self, timeout: float = 180) -> dict:
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            state = docker("inspect", "-f", "{{.State.Status}}", self.container, check=False)
            if state in ("exited", "dead"):
                raise Failure(f"container {state}; logs:\n{self.logs()}")
            try:
                status, data = self.request("GET", "/api/health", timeout=3)
                if status == 200 and json.loads(data).get("status") == "ok":
                    return json.loads(data)
                last = f"HTTP {status}"
            except (OSError, ValueError) as e:
                last = str(e)
            time.sleep(0.5)
        raise Failure(f"no healthy /api/health in {timeout:.0f} s ({last}); logs:\n{self.logs()}")

    def logs(self) -> str:
        proc = subprocess.run(
            ["docker", "logs", "--tail", "60", self.container], capture_output=True, text=True
        )
        return (proc.stdout + proc.stderr)[-6000:]


def wait_docker_health(timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    status = ""
    while time.monotonic() < deadline:
        status = docker("inspect", "-f", "{{if .State.Health}}{{.State.Health.Status}}{{end}}", CONTAINER)
        if status == "healthy":
            return
        if not status:
            raise Failure("the image has no HEALTHCHECK")
        time.sleep(1)
    raise Failure(f"Docker's HEALTHCHECK says {status!r} after {timeout:.0f} s")


def leaves(value):
    if value is None:
        return []
    if value.get("kind") == "array":
        return [value]
    return [leaf for child in value.get("children", []) for leaf in leaves(child)]


def flat(data):
    return [x for item in data for x in flat(item)] if isinstance(data, list) else [data]


def close(actual, expected, rtol, atol) -> bool:
    if isinstance(actual, str):
        actual = float(actual.replace("Infinity", "inf"))
    return abs(actual - expected) <= atol + rtol * abs(expected) or (
        math.isnan(actual) and math.isnan(expected)
    )


# Script-mode code run in the sandbox after the example's own code: counts the engine's kernels
# that numba loaded from its disk cache vs compiled (in this run or in the zygote it was forked
# from, which loads the gallery's kernels at start), and reports the run's uid.
PROBE = """
import os as _os, sys as _sys
import numba as _nb
_loaded = _compiled = 0
for _name, _mod in list(_sys.modules.items()):
    if _name.startswith("engine_kernels_"):
        for _obj in vars(_mod).values():
            if isinstance(_obj, _nb.core.registry.CPUDispatcher):
                _loaded += sum(_obj.stats.cache_hits.values())
                _compiled += sum(_obj.stats.cache_misses.values())
print("PROBE", _loaded, _compiled, _os.getuid())
"""


def check_example(api: Api) -> None:
    example = api.json("GET", f"/api/examples/{EXAMPLE}")
    request = {k: example[k] for k in ("code", "function", "stack", "args")}
    t0 = time.monotonic()
    report = api.json("POST", "/api/run", request)
    seconds = time.monotonic() - t0
    if not report["ok"]:
        raise Failure(f"example {EXAMPLE} failed: {report['error']} {report['stderr'][-1500:]}")
    got = leaves(report["result"])
    if len(got) != len(example["expected"]):
        raise Failure(f"example {EXAMPLE}: {len(got)} result leaves, wanted {len(example['expected'])}")
    for leaf, want in zip(got, example["expected"]):
        values = flat(leaf["data"])
        if (
            leaf["shape"] != want["shape"]
            or len(values) != len(want["data"])
            or not all(close(a, e, want["rtol"], want["atol"]) for a, e in zip(values, want["data"]))
        ):
            raise Failure(
                f"example {EXAMPLE}: got {leaf['shape']} {values[:8]}, wanted {want['shape']} {want['data'][:8]}"
            )
    log(
        f"gallery example {EXAMPLE!r}: values match ({seconds:.2f} s for the first run, "
        f"engine {report['duration_ms']:.0f} ms)"
    )

    # The same program in script mode, plus the probe: its kernels must come from the build-time seed.
    code = example["code"] + PROBE
    report = api.json("POST", "/api/run", {"code": code})
    if not report["ok"]:
        raise Failure(f"probe run failed: {report['error']} {report['stderr'][-1500:]}")
    line = next((ln for ln in report["stdout"].splitlines() if ln.startswith("PROBE ")), None)
    if line is None:
        raise Failure(f"probe printed nothing: {report['stdout'][-500:]}")
    loaded, compiled, uid = map(int, line.split()[1:])
    log(f"sandboxed run: uid {uid}, kernels loaded from the build-time cache {loaded}, compiled {compiled}")
    if uid == 0:
        raise Failure("the sandboxed run ran as root")
    if loaded == 0 or compiled != 0:
        raise Failure(f"the warmed numba cache was not used (loaded {loaded}, compiled {compiled})")


# What a run can reach of the server's data (the volume) and sources.
DATA_PROBE = """
import os
seen = {}
for path in ("/data/snippets.sqlite", "/data"):
    try:
        if os.path.isdir(path):
            open(os.path.join(path, ".probe"), "w").close()
            seen[path] = "written"
            os.unlink(os.path.join(path, ".probe"))
        else:
            open(path, "rb").read(16)
            seen[path] = "readable"
    except OSError as e:
        seen[path] = type(e).__name__
print("DATA", seen)
"""


def data_probe(api: Api) -> dict:
    report = api.json("POST", "/api/run", {"code": DATA_PROBE})
    line = next((ln for ln in report["stdout"].splitlines() if ln.startswith("DATA ")), None)
    if not report["ok"] or line is None:
        raise Failure(
            f"data probe failed: {report['error']} {report['stdout'][-300:]} {report['stderr'][-800:]}"
        )
    import ast

    return ast.literal_eval(line[5:])


def check_stronger_isolation() -> None:
    """Non-root with the documented extra flags: runs get user+mount+network namespaces."""
    name = CONTAINER + "-userns"
    port = free_port()
    docker(
        "run",
        "-d",
        "--name",
        name,
        "--network",
        "host",
        "--restart",
        "no",
        "--cap-add",
        "SYS_ADMIN",
        "--security-opt",
        "no-new-privileges",
        "-e",
        "JAXPLAY_HOST=127.0.0.1",
        "-e",
        f"JAXPLAY_PORT={port}",
        "-v",
        f"{VOLUME}:/data",
        IMAGE,
    )
    started.append(("container", name))
    api = Api(port, name)
    health = api.wait_healthy()
    mode = health["isolation"].get("mode")
    seen = data_probe(api)
    log(f"with --cap-add SYS_ADMIN --security-opt no-new-privileges: isolation {mode!r}; a run sees {seen}")
    if health["isolation"].get("mount_namespace") and (
        seen.get("/data/snippets.sqlite") == "readable" or seen.get("/data") == "written"
    ):
        raise Failure("mount namespaces are on but a run can reach the database")
    docker("rm", "-f", name)


def check_non_root() -> None:
    user = docker("inspect", "-f", "{{.Config.User}}", IMAGE)
    # Every process in the container, by its real/effective uid from /proc.
    out = docker(
        "exec",
        CONTAINER,
        "python",
        "-c",
        "import os\n"
        "for p in filter(str.isdigit, os.listdir('/proc')):\n"
        "    try:\n"
        "        s = open(f'/proc/{p}/status').read().split('\\n')\n"
        "        c = open(f'/proc/{p}/cmdline', 'rb').read().replace(b'\\0', b' ').decode()[:60]\n"
        "    except OSError:\n"
        "        continue\n"
        "    uid = next(l for l in s if l.startswith('Uid:')).split()[1:3]\n"
        "    print(p, *uid, c)\n",
    )
    procs = [line.split(None, 3) for line in out.splitlines()]
    rooted = [p for p in procs if p[1] == "0" or p[2] == "0"]
    servers = [p for p in procs if len(p) > 3 and "entrypoint" not in p[3] and "-m server" in p[3]]
    if rooted:
        raise Failure(f"processes running as root in the container: {rooted}")
    if not servers:
        raise Failure(f"no server process found among {procs}")
    tools = docker(
        "exec", CONTAINER, "sh", "-c", "for t in node npm gcc cc g++ make; do command -v $t; done; true"
    )
    if tools:
        raise Failure(f"build tools in the runtime image: {tools.split()}")
    log(
        f"non-root: image USER {user!r}; {len(procs)} processes, none as root "
        f"(server pid {servers[0][0]} uid {servers[0][1]})"
    )


def main() -> int:
    if not prepare_docker():
        log(
            "SKIP: no Docker daemon can be started here (docker missing, not root, or dockerd failed); "
            "nothing was tested."
        )
        return 0
    t0 = time.monotonic()
    log(f"building {IMAGE} (docker build --network host) ...")
    build = subprocess.run(
        ["docker", "build", "--network", "host", "-t", IMAGE, ROOT],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if build.returncode != 0:
        raise Failure(f"docker build failed:\n{(build.stdout + build.stderr)[-4000:]}")
    warm = [ln for ln in build.stdout.splitlines() if ln.startswith("warm-up ")]
    size = int(docker("image", "inspect", "-f", "{{.Size}}", IMAGE))
    base = int(docker("image", "inspect", "-f", "{{.Size}}", BASE))
    log(
        f"built in {time.monotonic() - t0:.0f} s: {size / 1e6:.0f} MB "
        f"({(size - base) / 1e6:.0f} MB above the {base / 1e6:.0f} MB base image)"
    )
    for line in warm:
        log("  " + line)

    port = free_port()
    docker("volume", "create", VOLUME)
    started.append(("volume", VOLUME))
    docker(
        "run",
        "-d",
        "--name",
        CONTAINER,
        "--network",
        "host",
        "--restart",
        "no",
        "-e",
        "JAXPLAY_HOST=127.0.0.1",
        "-e",
        f"JAXPLAY_PORT={port}",
        "--health-interval",
        "2s",
        "--health-start-period",
        "120s",
        "-v",
        f"{VOLUME}:/data",
        "--memory",
        "3g",
        "--pids-limit",
        "512",
        IMAGE,
    )
    started.append(("container", CONTAINER))
    api = Api(port, CONTAINER)
    t1 = time.monotonic()
    health = api.wait_healthy()
    log(
        f"healthy after {time.monotonic() - t1:.1f} s on 127.0.0.1:{port}: isolation "
        f"{health['isolation'].get('mode')!r}, workers {health['workers']}, engine {health['engine_version']}"
    )
    wait_docker_health()
    log("Docker HEALTHCHECK: healthy")

    status, page = api.request("GET", "/")
    if status != 200 or b"<html" not in page.lower():
        raise Failure(f"GET / gave HTTP {status}, not the web page")

    check_example(api)

    example = api.json("GET", f"/api/examples/{EXAMPLE}")
    request = {k: example[k] for k in ("code", "function", "stack", "args")}
    ref = api.json("POST", "/api/snippets", {"request": request, "title": "docker-test"}, expect=201)
    snippet = api.json("GET", f"/api/snippets/{ref['id']}")
    if snippet["request"]["code"] != request["code"] or snippet["title"] != "docker-test":
        raise Failure(f"snippet {ref['id']} read back differently: {snippet}")
    status, _ = api.request("GET", ref["url"])
    if status != 200:
        raise Failure(f"GET {ref['url']}: HTTP {status}")
    log(f"shared link {ref['url']} created and read back")

    check_non_root()
    log(f"default flags: a run sees {data_probe(api)} (minimal isolation: same uid as the server)")

    docker("restart", "-t", "20", CONTAINER, timeout=120)
    api.wait_healthy()
    again = api.json("GET", f"/api/snippets/{ref['id']}")
    if again != snippet:
        raise Failure(f"after a restart the snippet differs: {again} vs {snippet}")
    status, _ = api.request("GET", ref["url"])
    if status != 200:
        raise Failure(f"after a restart GET {ref['url']}: HTTP {status}")
    log("after a container restart the shared link still reads back (data is on the volume)")

    stats = docker("stats", "--no-stream", "--format", "{{.MemUsage}} {{.PIDs}}", CONTAINER)
    log(f"idle container: memory / pids: {stats}")
    docker("stop", "-t", "20", CONTAINER, timeout=120)
    check_stronger_isolation()
    log(f"docker-test passed in {time.monotonic() - t0:.0f} s")
    return 0


def cleanup() -> None:
    for kind, name in reversed(started):
        if kind == "container":
            subprocess.run(["docker", "rm", "-f", "-v", name], capture_output=True, timeout=120)
        else:
            subprocess.run(["docker", "volume", "rm", "-f", name], capture_output=True, timeout=120)
    if started and os.environ.get("DOCKER_TEST_KEEP_IMAGE", "1") == "0":
        subprocess.run(["docker", "rmi", IMAGE], capture_output=True, timeout=300)


if __name__ == "__main__":
    code = 1
    try:
        code = main()
    except Failure as e:
        log(f"FAILED: {e}")
    except subprocess.TimeoutExpired as e:
        log(f"FAILED: timed out: {e}")
    finally:
        cleanup()
    if code or started:  # a skip prints no count: it tested nothing
        print(f"docker-test: {'0 passed, 1 failed' if code else '1 passed, 0 failed'}")
    sys.exit(code)
