"""Snippet storage: one small interface, with SQLite (one host) and PostgreSQL (replicas) behind it.

Records are immutable and content-addressed: the id is a base62 prefix of the SHA-256 of the
canonical JSON of everything the record pins (request, title, engine version, device count), so
the same snippet shared twice gets the same id, an id can never point at different content, and
the same content gets the same id in either backend.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Protocol

from engine.inspect.schema import RunRequest

from .models import Snippet

if TYPE_CHECKING:
    from .settings import Settings

ID_LENGTH = 10  # 62**10 ~ 8e17: collisions need ~1e9 snippets; a clash just lengthens the id
BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

# (id, digest, body, created_at): one stored row, the same in every backend.
Row = tuple[str, str, str, str]


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
    def open(self) -> None: ...
    def put(
        self, request: RunRequest, title: Optional[str], engine_version: str, device_count: int
    ) -> Snippet: ...
    def get(self, snippet_id: str) -> Optional[Snippet]: ...
    def ping(self) -> bool: ...
    def rows(self) -> Iterator[Row]: ...
    def insert_row(self, row: Row) -> bool: ...
    def close(self) -> None: ...


def put_content_addressed(
    request: RunRequest,
    title: Optional[str],
    engine_version: str,
    device_count: int,
    insert: Callable[[Row], bool],
    body_by_digest: Callable[[str], Optional[str]],
) -> Snippet:
    """Store a snippet under the shortest free prefix of its digest; the same content, the same id.

    ``insert`` adds a row unless its id or digest exists (returns whether it did). Losing a race
    with another replica storing the same content is fine: that replica's row is the answer.
    """
    digest = content_digest(request, title, engine_version, device_count)
    created_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    for length in range(ID_LENGTH, len(digest) + 1):
        existing = body_by_digest(digest)
        if existing is not None:
            return Snippet.model_validate_json(existing)
        snippet = Snippet(
            id=digest[:length],
            title=title,
            request=request,
            engine_version=engine_version,
            device_count=device_count,
            created_at=created_at,
        )
        if insert((snippet.id, digest, snippet.model_dump_json(), created_at)):
            return snippet
        # Either the same content landed meanwhile (found above next time round) or a different
        # digest holds this prefix: take one more character.
    raise RuntimeError(f"no free id for digest {digest}")


class SQLiteSnippetStore:
    """One connection shared under a lock: writes are tiny and rare, so this beats a pool."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._conn: Optional[sqlite3.Connection] = None
        self._lock = threading.Lock()

    def open(self) -> None:
        """Nothing to do: the file is created on first use, so starting never writes to disk."""

    def _db(self) -> sqlite3.Connection:
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

    def insert_row(self, row: Row) -> bool:
        return self._db().execute("INSERT OR IGNORE INTO snippets VALUES (?, ?, ?, ?)", row).rowcount == 1

    def _body_by_digest(self, digest: str) -> Optional[str]:
        row = self._db().execute("SELECT body FROM snippets WHERE digest = ?", (digest,)).fetchone()
        return row[0] if row else None

    def put(
        self, request: RunRequest, title: Optional[str], engine_version: str, device_count: int
    ) -> Snippet:
        with self._lock:
            return put_content_addressed(
                request, title, engine_version, device_count, self.insert_row, self._body_by_digest
            )

    def get(self, snippet_id: str) -> Optional[Snippet]:
        with self._lock:
            row = self._db().execute("SELECT body FROM snippets WHERE id = ?", (snippet_id,)).fetchone()
        return Snippet.model_validate_json(row[0]) if row else None

    def ping(self) -> bool:
        return True

    def rows(self) -> Iterator[Row]:
        with self._lock:
            found = (
                self._db().execute("SELECT id, digest, body, created_at FROM snippets ORDER BY id").fetchall()
            )
        yield from found

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def open_store(settings: "Settings") -> SnippetStore:
    """The store the settings name: PostgreSQL when ``database_url`` is set, else the SQLite file."""
    if settings.database_url:
        from .postgres_store import PostgresSnippetStore  # psycopg is only needed when configured

        return PostgresSnippetStore(
            settings.database_url,
            pool_size=settings.database_pool_size,
            connect_timeout=settings.database_connect_timeout,
        )
    return SQLiteSnippetStore(settings.database_path)
