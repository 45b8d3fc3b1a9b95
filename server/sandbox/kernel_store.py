"""The compile service's kernel store (``<kernel cache>/shared``): numba's cache files of the
modules the service compiled, one entry per program.

Only the service process writes here (its storing step, after a compile child answered); the
compile children and runs cannot (other uids, or a read-only view). An entry is keyed by the
hash of the request *as the service re-serializes it* (``program_hash``) and holds the modules
compiled from that request and nothing else: whatever a compile child answers, it can only fill
the entry of the program it was given. A run gets a module's files only by sending the same
program and naming the module's key (the hash of the source it generated itself), and numba
loads them only beside that identical source.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
from typing import Any, Optional

MAX_PROGRAMS = 2000  # entries kept; the least recently used go first
KEY = re.compile(r"[0-9a-f]{32}")
CACHE_FILE = re.compile(r"engine_[0-9a-f]{32}\.[A-Za-z0-9_.\-]+\.nb[ic]")
PREFIX, SUFFIX = "program_", ".json"


def program_hash(request: Any) -> str:
    """The store's key of a program: the hash of its data as the service re-serializes it."""
    return hashlib.sha256(json.dumps(request, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[
        :32
    ]


def _path(store: str, phash: str) -> str:
    return os.path.join(store, f"{PREFIX}{phash}{SUFFIX}")


def checked_entry(answer: dict[str, Any]) -> dict[str, Any]:
    """A compile child's answer as a store entry ``{"key": main module, "modules": {key: {file:
    base64}}}``; raises ValueError unless every name, key and datum is well formed."""
    keys, modules = answer.get("keys"), answer.get("modules")
    if type(keys) is not list or not keys or type(modules) is not dict:
        raise ValueError("an answer without modules")
    for key in keys:
        if type(key) is not str or not KEY.fullmatch(key) or type(modules.get(key)) is not dict:
            raise ValueError("a malformed module key")
    for key, files in modules.items():
        if key not in keys:
            raise ValueError("a module the compile did not name")
        for name, data in files.items():
            if not (type(name) is str and CACHE_FILE.fullmatch(name) and name.startswith(f"engine_{key}.")):
                raise ValueError("a malformed file name")
            if type(data) is not str:
                raise ValueError("malformed file data")
            try:
                base64.b64decode(data, validate=True)
            except binascii.Error:
                raise ValueError("malformed file data") from None
    return {"key": keys[-1], "modules": modules}


def save(store: str, phash: str, entry: dict[str, Any]) -> None:
    tmp = _path(store, f"tmp-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    with os.fdopen(fd, "w") as f:
        json.dump(entry, f)
    os.replace(tmp, _path(store, phash))
    _evict(store)


def load(store: str, phash: str) -> Optional[dict[str, Any]]:
    """The entry of program ``phash``, or None."""
    try:
        with open(_path(store, phash)) as f:
            entry = json.load(f)
        os.utime(_path(store, phash))  # (recently used: kept longest)
    except (OSError, ValueError):
        return None
    return entry if type(entry) is dict and type(entry.get("modules")) is dict else None


def _evict(store: str) -> None:
    try:
        entries = [e for e in os.scandir(store) if e.name.startswith(PREFIX) and e.name.endswith(SUFFIX)]
    except OSError:
        return
    if len(entries) <= MAX_PROGRAMS:
        return
    entries.sort(key=lambda e: e.stat().st_mtime)
    for entry in entries[: len(entries) - MAX_PROGRAMS * 9 // 10]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass
