"""The zygotes' kernel cache: compiled gallery kernels kept on disk between server starts.

numba's index files (``.nbi``) are pickles and the engine's kernel modules are Python: whatever is
in this directory runs in every zygote that loads it. So a zygote loads it only if no run could
have written it, and only what the trusted side recorded:

* ``untrusted_reason`` refuses a directory (or anything in it, or a parent) that a uid other than
  root and the zygote's own may write: the zygote then works from a fresh private directory.
* ``seal`` (zygote after warm-up, ``python -m server.warmup`` at image build) writes a manifest
  of every file's SHA-256; ``verify`` (zygote start, before anything is imported from the cache)
  removes every file the manifest does not list with that exact hash.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import tempfile
from typing import Iterator, Optional

log = logging.getLogger("jaxplay.kernel_cache")

MANIFEST = ".jaxplay-manifest.json"
MANIFEST_TMP = ".manifest-"  # a manifest being written (zygotes seal at the same time)
SHARED = "shared"  # the compile service's store (``kernel_store``): only the service writes it


def _writable_by_others(st: os.stat_result, trusted: set[int]) -> bool:
    if st.st_uid not in trusted:
        return True
    return bool(st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)) and not stat.S_ISLNK(st.st_mode)


def untrusted_reason(path: str) -> Optional[str]:
    """Why ``path`` may hold files a run wrote, or None if only root and this uid can write it."""
    trusted = {0, os.getuid()}
    real = os.path.realpath(path)
    parent = os.path.dirname(real)
    while True:  # a parent writable by others could swap the whole directory (sticky ones cannot)
        try:
            st = os.stat(parent)
        except FileNotFoundError:
            st = None  # (``prepare`` creates it, as this uid: a fresh XDG_CACHE_HOME)
        if st is not None and _writable_by_others(st, trusted) and not st.st_mode & stat.S_ISVTX:
            return f"its parent {parent} is writable by others"
        if parent == "/":
            break
        parent = os.path.dirname(parent)
    if not os.path.exists(real):
        return None
    for root, dirs, files in os.walk(real):
        for name in [None, *dirs, *files]:
            p = root if name is None else os.path.join(root, name)
            if _writable_by_others(os.lstat(p), trusted):
                return f"{p} is owned or writable by another uid"
    return None


def _walk(path: str) -> Iterator[tuple[str, list[str], list[str]]]:
    for root, dirs, files in os.walk(path):
        if root == path and SHARED in dirs:
            dirs.remove(SHARED)
        yield root, dirs, files


def _files(path: str) -> dict[str, str]:
    digests = {}
    for root, _, files in _walk(path):
        for name in files:
            p = os.path.join(root, name)
            rel = os.path.relpath(p, path)
            if rel == MANIFEST or name.startswith(MANIFEST_TMP) or os.path.islink(p):
                continue
            try:
                digests[rel] = _digest(p)
            except FileNotFoundError:
                pass  # replaced meanwhile (the other zygote's or numba's temporary file)
    return digests


def seal(path: str) -> int:
    """Record every file now in ``path`` as trusted; returns how many."""
    digests = _files(path)
    fd, tmp = tempfile.mkstemp(dir=path, prefix=MANIFEST_TMP)
    with os.fdopen(fd, "w") as f:
        json.dump(digests, f)
    os.replace(tmp, os.path.join(path, MANIFEST))
    return len(digests)


def verify(path: str) -> list[str]:
    """Remove every file of ``path`` the manifest does not vouch for; returns what was removed."""
    try:
        with open(os.path.join(path, MANIFEST)) as f:
            trusted = json.load(f)
    except (OSError, ValueError):
        trusted = {}
    removed = []
    for root, _, files in _walk(path):
        for name in files:
            p = os.path.join(root, name)
            rel = os.path.relpath(p, path)
            if rel == MANIFEST or name.startswith(MANIFEST_TMP):
                continue
            try:
                if os.path.islink(p) or rel not in trusted or _digest(p) != trusted[rel]:
                    os.unlink(p)
                    removed.append(rel)
            except FileNotFoundError:
                pass
    return removed


def _digest(p: str) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def prepare(path: str) -> str:
    """The directory the zygote should use as its kernel cache: ``path``, verified, or a fresh
    private one when ``path`` cannot be trusted."""
    try:
        reason = untrusted_reason(path)
    except OSError as e:
        reason = f"cannot be checked ({e.strerror})"
    if reason is None:
        try:
            os.makedirs(path, mode=0o755, exist_ok=True)
            reason = untrusted_reason(path)  # (again: another uid may have made a missing parent)
        except OSError as e:
            reason = f"cannot be created ({e.strerror})"
    if reason is None:
        try:
            removed = verify(path)
            if removed:
                log.warning("kernel cache %s: removed %d unvouched files", path, len(removed))
            return path
        except OSError as e:
            reason = f"cannot be verified ({e.strerror})"
    private = tempfile.mkdtemp(prefix="jaxplay-kernels-")
    log.warning("kernel cache %s not used: %s; compiling into %s instead", path, reason, private)
    return private
