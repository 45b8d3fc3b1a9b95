"""Container entrypoint: drop from root to the server's uid keeping only what the sandbox needs,
check the data volume, complete the zygotes' environment, exec the server.

Started as root (the image's default), it becomes uid 10001 holding CAP_SETUID, CAP_SETGID,
CAP_KILL and CAP_CHOWN (ambient, so the server's zygotes inherit them; nothing else is left in
the bounding set). The zygotes then run each run under a uid of its own ("uid" isolation), which
works with Docker's default flags. Started as another uid (``--user``), the server has no such
capabilities and refuses to start unless JAXPLAY_ISOLATION=unsafe-single-user says otherwise.
With JAXPLAY_ISOLATION=root (and --cap-add SYS_ADMIN) the server stays root for "root" isolation.

Configuration is the server's own: every JAXPLAY_* variable (server/settings.py). The image sets
JAXPLAY_HOST=0.0.0.0 and JAXPLAY_DATABASE_PATH=/data/snippets.sqlite. Arguments, if any, are
run instead of the server (e.g. `docker run IMAGE python -c ...`), as uid 10001 without capabilities.
This script is pid 1 until it execs tini, which then runs the server (or the arguments).
"""

from __future__ import annotations

import json
import os
import sys

from server.sandbox.isolation import SLOT_CAPS, become_keeping, drop_capabilities

SERVER_UID = SERVER_GID = 10001
TINI = "/usr/bin/tini"
# numba's cache for the zygotes (the venv is read-only to uid 10001 and HOME is /nonexistent, so
# numba would find no writable cache directory for the engine's own cache=True functions); the
# image compiled the gallery into it at build time. Runs still get a private one of their own.
SANDBOX_ENV = {"NUMBA_CACHE_DIR": "/var/cache/jaxplay/numba"}


def main() -> None:
    if os.getuid() == 0 and os.environ.get("JAXPLAY_ISOLATION") != "root":
        become_keeping(SERVER_UID, SERVER_GID, SLOT_CAPS if len(sys.argv) == 1 else ())
    if len(sys.argv) > 1:
        drop_capabilities()
        os.execv(TINI, [TINI, "--", *sys.argv[1:]])
    db = os.environ.get("JAXPLAY_DATABASE_PATH", "/data/snippets.sqlite")
    folder = os.path.dirname(os.path.abspath(db))
    try:
        os.makedirs(folder, exist_ok=True)
        probe = os.path.join(folder, ".jaxplay-write-test")
        with open(probe, "w"):
            pass
        os.unlink(probe)
    except OSError as e:
        sys.exit(
            f"jaxplay: the data directory {folder} is not writable by uid {os.getuid()} ({e.strerror}). "
            f"Use a named volume (-v jaxplay-data:/data) or chown the bind-mounted directory to "
            f"{os.getuid()}:{os.getgid()}."
        )
    try:
        extra = json.loads(os.environ.get("JAXPLAY_SANDBOX_ENV") or "{}")
    except ValueError:
        sys.exit("jaxplay: JAXPLAY_SANDBOX_ENV must be a JSON object of strings")
    os.environ["JAXPLAY_SANDBOX_ENV"] = json.dumps({**SANDBOX_ENV, **extra})
    # tini (pid 1) reaps and forwards signals; it runs as uid 10001 too, so nothing stays root.
    os.execv(TINI, [TINI, "--", sys.executable, "-m", "server"])


if __name__ == "__main__":
    main()
