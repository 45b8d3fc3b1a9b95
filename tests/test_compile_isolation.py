"""A compile child taken over by its program, in each isolation mode the server agrees to run in:
what it may reach (``compile_attacks.py`` runs the real compile service with the uid and
capabilities of a server in that mode, and compile children that attack instead of compiling).

In "root" and "uid" modes the compile children run under their own uid: they cannot write the
kernel store or any file of the server's, read its database or a run's files, signal the server
or the service, or leave anything a later compile sees; and whatever they answer is stored only
under the program they were given, never under another program's entry. In
"unsafe-single-user" they share the server's uid: the seccomp filter still keeps the server and
the service out of their reach and the store still binds answers to their program, but without
a user namespace they can write whatever the server can."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

from conftest import ROOT, numba_backend
from sandbox_hosts import SERVER_UID, owned_dir, readable_python, uid_mode_prefix
from server.sandbox import slot

numba_backend()

UID_BASE = 61600
COMPILE_UID = UID_BASE + 1000
SECRET = "jaxplay-compile-secret-51c2"

as_root = os.geteuid() == 0
can_switch = as_root and shutil.which("setpriv") is not None and os.path.exists("/usr/bin/python3.11")
MODES = [
    pytest.param("root", marks=pytest.mark.skipif(not as_root, reason="needs root")),
    pytest.param("uid", marks=pytest.mark.skipif(not can_switch, reason="starts a uid-mode server")),
    pytest.param("unsafe-single-user", marks=pytest.mark.skipif(not can_switch, reason="as uid 10001")),
    pytest.param(
        "unsafe-without-namespaces", marks=pytest.mark.skipif(not can_switch, reason="as uid 10001")
    ),
]


def attack(mode: str) -> dict:
    # Outside /tmp: in root mode a compile's /tmp is its own, which would hide everything there.
    base = pathlib.Path(tempfile.mkdtemp(prefix="jaxplay-compile-attacks-", dir="/var/cache"))
    try:
        os.chmod(base, 0o755)
        owner = 0 if mode == "root" else SERVER_UID
        # (where compiles share the server's uid and /tmp, the files they leave there stay)
        leaves = [pathlib.Path(d) / "left-by-compile" for d in ("/tmp", "/dev/shm")]
        db = owned_dir(base / "db", owner, 0o700)
        (db / "snippets.sqlite").write_text(SECRET)
        (base / "server-file.txt").write_text("the server's\n")
        os.chown(base / "server-file.txt", owner, owner)
        owned_dir(base / "sandbox", owner, 0o711)
        owned_dir(base / "kernels", owner)
        run_dir = owned_dir(base / "sandbox" / "run-victim", UID_BASE, 0o700)
        (run_dir / "secret.txt").write_text(SECRET)
        python, prefix = sys.executable, ()
        if mode != "root":
            python = readable_python(base / "py")
            prefix = uid_mode_prefix() if mode == "uid" else uid_mode_prefix("")
        done = subprocess.run(
            [*prefix, python, str(ROOT / "tests" / "compile_attacks.py"), str(base), mode, str(UID_BASE)],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT,
            # (as the abuse tests' servers: where numba keeps the zygote's own cache)
            env=dict(os.environ, NUMBA_CACHE_DIR=str(base / "kernels" / "numba")),
        )
        assert done.returncode == 0, (done.stdout[-1000:], done.stderr[-3000:])
        out = json.loads(done.stdout.strip().splitlines()[-1])
        shutil.rmtree(run_dir)
        # the compile uid's files anywhere the children could write
        out["left"] = [p for top in slot.SCRATCH_DIRS for p, _ in slot.owned_entries(COMPILE_UID, top)] + [
            os.path.join(d, n)
            for d, dirs, files in os.walk(base)
            for n in dirs + files
            if _owner(os.path.join(d, n)) == COMPILE_UID
        ]
        return out
    finally:
        shutil.rmtree(base, ignore_errors=True)
        for p in leaves if mode == "unsafe-without-namespaces" else ():
            p.unlink(missing_ok=True)


def _owner(path: str) -> int:
    try:
        return os.lstat(path).st_uid
    except OSError:
        return -1


@pytest.mark.parametrize("mode", MODES)
def test_a_compile_child_taken_over_reaches_nothing(mode):
    out = attack(mode)
    escape = out["escape"]
    assert out["mode"] == mode.replace("-without-namespaces", "-single-user")
    assert out["user_namespace"] == (mode == "unsafe-single-user")
    assert out["service alive"] and out["service state"] != "T"
    assert escape["do"] == "escape"
    # signals: the server and the service are out of reach in every mode
    assert escape["signal server"] != "done" and escape["signal service"] != "done", escape
    # whatever it answered for another program's key is filed under its own program only
    assert out["plant"] == "ready" and out["victim lookup"] == "absent"
    assert out["victim kernel"]["do"] == "honest"
    server_uid = 0 if mode == "root" else SERVER_UID
    isolated = mode != "unsafe-without-namespaces"
    if mode in ("root", "uid"):
        assert escape["uid"] == escape["euid"] == COMPILE_UID
        assert out["left"] == [], out["left"]  # (what it left was removed by the next compile)
        assert out["look"]["sees"] == [], out["look"]  # and never reached it
    else:
        assert escape["uid"] == SERVER_UID
    if isolated:
        for what in ("store", "store_entry", "server_file", "db_dir", "run_dir_file"):
            assert escape["write " + what] != "done", (what, escape)
        assert escape["read db"] != "secret read" and escape["read run_dir_file"] != "secret read", escape
        assert out["server file"] == "the server's\n" and out["db dir"] == ["snippets.sqlite"]
        assert out["store owners"] == [server_uid]
    else:
        # Without a user namespace, "unsafe-single-user" keeps none of the server's files from it.
        assert escape["write server_file"] == escape["write store_entry"] == "done"
        assert escape["read db"] == "secret read"
