"""Starting a test server the way the Docker image does, on a host where the tests run as root."""

from __future__ import annotations

import os
import sysconfig

SERVER_UID = 10001
SLOT_CAPS = "+chown,+kill,+setgid,+setuid"


def uid_mode_prefix(caps: str = SLOT_CAPS) -> tuple[str, ...]:
    """``setpriv`` arguments that start a command as uid 10001 holding only ``caps`` (also across
    exec), what docker/entrypoint.py leaves the server with under Docker's default flags."""
    return (
        "setpriv",
        f"--reuid={SERVER_UID}",
        f"--regid={SERVER_UID}",
        "--clear-groups",
        f"--inh-caps=-all{',' + caps if caps else ''}",
        f"--ambient-caps=-all{',' + caps if caps else ''}",
        f"--bounding-set=-all{',' + caps if caps else ''}",
    )


def readable_python(where) -> str:
    """A Python that uid 10001 and the slot uids can execute and import from: the venv's own lives
    under /root (mode 0700) here, so use Debian's python3 of the same minor version with the
    venv's packages added to its path."""
    venv = where / "py"
    (venv / "bin").mkdir(parents=True)
    site = venv / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    os.symlink("/usr/bin/python3.11", venv / "bin" / "python")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\ninclude-system-site-packages = false\n")
    (site / "jaxplay.pth").write_text(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    return str(venv / "bin" / "python")


def owned_dir(path, uid: int = SERVER_UID, mode: int = 0o755):
    """``path``, created, owned by ``uid`` and with ``mode``."""
    path.mkdir(parents=True, exist_ok=True)
    os.chown(path, uid, uid)
    os.chmod(path, mode)
    return path
