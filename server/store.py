"""Snippet storage: a small interface and its SQLite implementation.

Records are immutable and content-addressed: the id is a base62 prefix of the SHA-256 of the
canonical JSON of everything the record pins (request, title, engine version, device count), so
the same snippet shared twice gets the same id and an id can never point at different content.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional, Protocol

from engine.inspect.schema import RunRequest

from .models import Snippet

ID_LENGTH = 10  # 62**10 ~ 8e17: collisions need ~1e9 snippets; a clash just lengthens the id
BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def base62(data: bytes) -> str:
    n = int.from_bytes(data, "big")
    out = []
    while n:
        n, r = divmod(n, 62)
        out.append(BASE62[r])
    return "".join(reversed(out)) or "0"


def content_digest(request: RunRequest, title: Optional[str], engine_version: str, device_count: int) -> str:
    canonical = json.dumps(
        {
            "request": request.model_dump(mode="json"),
            "title": title,
            "engine_version": engine_version,
            "device_count": device_count,
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return base62(hashlib.sha256(canonical.encode()).digest())


class SnippetStore(Protocol):
    def put(
        self, request: RunRequest, title: Optional[str], engine_version: str, device_count: int
    ) -> Snippet: ...
    def get(self, snippet_id: str) -> Optional[Snippet]: ...
    def close(self) -> None: ...


class SQLiteSnippetStore:
    """One connection shared under a lock: writes are tiny and rare, so this beats a pool."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._conn: Optional[sqlite3.Connection] = None
        self._lock = threading.Lock()

    def _db(self) -> sqlite3.Connection:
        # Created on first use, so merely starting the server never writes to disk.
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("""CREATE TABLE IF NOT EXISTS snippets (
                                id TEXT PRIMARY KEY,
                                digest TEXT NOT NULL UNIQUE,
                                body TEXT NOT NULL,
                                created_at TEXT NOT NULL)""")
            self._conn = conn
        return self._conn

    def put(
        self, request: RunRequest, title: Optional[str], engine_version: str, device_count: int
    ) -> Snippet:
        digest = content_digest(request, title, engine_version, device_count)
        with self._lock:
            db = self._db()
            row = db.execute("SELECT body FROM snippets WHERE digest = ?", (digest,)).fetchone()
            if row:
                return Snippet.model_validate_json(row[0])
            length = ID_LENGTH
            while db.execute("SELECT 1 FROM snippets WHERE id = ?", (digest[:length],)).fetchone():
                length += 1  # a prefix clash with different content: take one more character
            snippet = Snippet(
                id=digest[:length],
                title=title,
                request=request,
                engine_version=engine_version,
                device_count=device_count,
                created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            )
            db.execute(
                "INSERT INTO snippets (id, digest, body, created_at) VALUES (?, ?, ?, ?)",
                (snippet.id, digest, snippet.model_dump_json(), snippet.created_at),
            )
            return snippet

    def get(self, snippet_id: str) -> Optional[Snippet]:
        with self._lock:
            row = self._db().execute("SELECT body FROM snippets WHERE id = ?", (snippet_id,)).fetchone()
        return Snippet.model_validate_json(row[0]) if row else None

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def open_store(path: Path) -> SnippetStore:
    return SQLiteSnippetStore(path)
