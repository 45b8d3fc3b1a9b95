"""The disk cache of generated kernel modules: where it lives and how a module is written there
(atomically, so concurrent processes see the old file, none, or the whole new one)."""

from __future__ import annotations

import os
import tempfile


def cache_dir() -> str:
    d = os.environ.get("ENGINE_CACHE_DIR")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "jaxplay-engine")
    return d


def _write_atomic(path: str, text: str):
    d = os.path.dirname(path)
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".py")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)  # atomic: readers see the old file, none, or the whole new one
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
