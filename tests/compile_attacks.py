"""A compile service taken over: run as ``python compile_attacks.py BASE MODE UID_BASE`` (by
test_compile_isolation.py, as the uid and with the capabilities of a server in MODE). This process
plays the server and the zygote: it chooses the isolation plan as a zygote does and starts the real
compile service, whose compile children run ``hostile_compile`` instead of the compiler, as if a
program had taken one over. Each "compile" tries what ``request["do"]`` names and smuggles what
it managed back as the data of a numba cache file; this prints one JSON object: what each attack
achieved and what the service then answered."""

from __future__ import annotations

import base64
import json
import os
import signal
import struct
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from server.sandbox import compile_child, kernel_store, zygote  # noqa: E402
from server.sandbox.pool import zygote_config  # noqa: E402
from server.settings import Settings  # noqa: E402

SECRET = "jaxplay-compile-secret-51c2"


def _try(what, *args) -> str:
    try:
        out = what(*args)
        return "done" if out is None else str(out)
    except OSError as e:
        return type(e).__name__


def _write(path: str) -> None:
    with open(path, "a") as f:
        f.write("planted")


def _read(path: str) -> str:
    with open(path, "rb") as f:
        return "secret read" if SECRET.encode() in f.read() else "read, no secret"


def hostile_compile(request, cache):
    """What a compile child taken over by its program could try."""
    do, targets = request["do"], request["targets"]
    found: dict[str, object] = {"do": do, "uid": os.getuid(), "euid": os.geteuid()}
    if do == "escape":
        for name in ("store", "store_entry", "server_file", "db_dir", "run_dir_file"):
            found["write " + name] = _try(_write, targets[name])
        for name in ("db", "run_dir_file"):
            found["read " + name] = _try(_read, targets[name])
        for name in ("server", "service"):
            pid = targets["server_pid"] if name == "server" else os.getppid()
            found["signal " + name] = _try(os.kill, pid, signal.SIGSTOP)
        found["leave"] = [_try(_write, os.path.join(d, "left-by-compile")) for d in ("/tmp", "/dev/shm", ".")]
        found["chmod scratch"] = _try(os.chmod, ".", 0o777)
    elif do == "look":  # a later compile: nothing of the earlier one may reach it
        found["sees"] = sorted(
            p
            for d in ("/tmp", "/dev/shm", ".")
            for p in (os.path.join(d, "left-by-compile"),)
            if os.path.exists(p)
        ) + sorted(set(os.listdir(".")) - {".numba_cache"})
    key = request["key"]  # (answer for whatever key the attacker likes)
    data = base64.b64encode(json.dumps(found).encode()).decode()
    return {"keys": [key], "modules": {key: {f"engine_{key}.report-1.py311.nbi": data}}}


def ask(fd: int, message: dict, wait: float = 30.0) -> dict:
    data = json.dumps(message).encode()
    os.write(fd, struct.pack(">I", len(data)) + data)
    got = b""
    deadline = time.monotonic() + wait
    while len(got) < 4 or len(got) < 4 + struct.unpack(">I", got[:4])[0]:
        import select

        if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
            return {"status": "no answer"}
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return {"status": "closed"}
        got += chunk
    return json.loads(got[4 : 4 + struct.unpack(">I", got[:4])[0]])


def said(reply: dict) -> str:
    return f"{reply.get('status')}: {reply.get('reason', '')}".rstrip(": ")


def report_of(reply: dict) -> object:
    files = reply.get("files") or {}
    return json.loads(base64.b64decode(next(iter(files.values())))) if files else said(reply)


def main() -> None:
    base, mode, uid_base = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "unsafe-without-namespaces":  # a host that refuses user namespaces (Docker's default)
        from server.sandbox import isolation

        def refused(flags: int) -> None:
            raise PermissionError(1, "unshare refused here")

        isolation.unshare = refused
        mode = "unsafe-single-user"
    settings = Settings(
        isolation=mode,
        slot_uid_base=uid_base,
        workers=1,
        database_path=os.path.join(base, "db", "snippets.sqlite"),
        sandbox_tmp=os.path.join(base, "sandbox"),
        kernel_cache_dir=os.path.join(base, "kernels"),
        warm_examples=False,
    )
    config = zygote_config(settings, 0)
    plan, info = zygote.choose_plan(config)
    store = os.path.join(base, "kernels", "shared")
    os.makedirs(store, mode=0o755, exist_ok=True)
    compile_child.compile_request = hostile_compile  # (inherited by the service's forks)
    service = zygote.start_service(config, plan, store)
    fd = service.connect()
    assert fd is not None
    victim = {"do": "honest", "key": "b" * 32, "targets": {}}
    victim_hash = kernel_store.program_hash(victim)
    targets = {
        "store": os.path.join(store, "program_" + "c" * 32 + ".json"),
        "store_entry": os.path.join(store, f"program_{victim_hash}.json"),
        "server_file": os.path.join(base, "server-file.txt"),
        "db": str(settings.database_path),
        "db_dir": os.path.join(base, "db", "planted"),
        "run_dir_file": os.path.join(base, "sandbox", "run-victim", "secret.txt"),
        "server_pid": os.getpid(),
    }
    out: dict[str, object] = {"mode": info["mode"], "user_namespace": info["user_namespace"]}
    attack = ask(
        fd,
        {
            "op": "kernel",
            "key": "a" * 32,
            "request": {"do": "escape", "key": "a" * 32, "targets": targets},
            "id": 1,
        },
    )
    out["escape"] = report_of(attack)
    # The attacker's compile answers with kernels for the victim's key: they may only ever be
    # found under the attacker's own program.
    plant = {"do": "plant", "key": "b" * 32, "targets": {}}
    out["plant"] = ask(fd, {"op": "kernel", "key": "b" * 32, "request": plant, "id": 2}).get("status")
    out["victim lookup"] = ask(fd, {"op": "lookup", "request": victim, "id": 3}).get("status")
    out["victim kernel"] = report_of(ask(fd, {"op": "kernel", "key": "b" * 32, "request": victim, "id": 4}))
    out["look"] = report_of(
        ask(
            fd,
            {
                "op": "kernel",
                "key": "d" * 32,
                "request": {"do": "look", "key": "d" * 32, "targets": {}},
                "id": 5,
            },
        )
    )
    out["service alive"] = service.alive()
    with open(f"/proc/{service.pid}/status") as f:
        out["service state"] = next(line for line in f if line.startswith("State:")).split()[1]
    out["store owners"] = sorted({os.lstat(os.path.join(store, n)).st_uid for n in os.listdir(store)})
    out["server file"] = open(targets["server_file"]).read()
    out["db dir"] = sorted(os.listdir(os.path.join(base, "db")))
    print(json.dumps(out))
    service.stop()


if __name__ == "__main__":
    main()
