"""Container entrypoint: check the data volume, complete the zygotes' environment, refuse unsafe root,
exec the server.

Configuration is the server's own: every JAXPLAY_* variable (server/settings.py). The image sets
JAXPLAY_HOST=0.0.0.0 and JAXPLAY_DATABASE_PATH=/data/snippets.sqlite. Arguments, if any, are
run instead of the server (e.g. `docker run IMAGE python -c ...`).
"""

from __future__ import annotations

import json
import os
import sys

# numba's cache for the zygotes (the venv is read-only to uid 10001 and HOME is /nonexistent, so
# numba would find no writable cache directory for the engine's own cache=True functions); the
# image compiled the gallery into it at build time. Runs still get a private one of their own.
SANDBOX_ENV = {"NUMBA_CACHE_DIR": "/var/cache/jaxplay/numba"}


def main() -> None:
    if len(sys.argv) > 1:
        os.execvp(sys.argv[1], sys.argv[1:])
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
    if os.getuid() == 0 and "JAXPLAY_ISOLATION" not in os.environ:
        # As root, "auto" would fall back to running user code as root when namespaces are not
        # allowed (no --cap-add SYS_ADMIN): refuse to start instead.
        os.environ["JAXPLAY_ISOLATION"] = "root"
    os.execv(sys.executable, [sys.executable, "-m", "server"])


if __name__ == "__main__":
    main()
