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


def numba_cache_dir(py_file: str) -> str | None:
    """Where numba keeps (and looks for) the cache files of the functions of ``py_file``: the
    directory its first applicable cache locator picks, as numba's own ``CacheImpl`` chooses."""
    from numba.core import caching, config

    config.reload_config()  # (numba's compiler does so too: NUMBA_CACHE_DIR may have been set since)
    if config.CACHE_LOCATOR_CLASSES:
        return None
    for cls in caching.CacheImpl._locator_classes:
        locator = cls.from_function(numba_cache_dir, py_file)
        if locator is not None:
            return locator.get_cache_path()
    return None
