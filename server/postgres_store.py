"""The snippet store on PostgreSQL (psycopg 3 with a connection pool), for several replicas.

Schema changes are numbered migrations applied on start inside one transaction holding an
advisory lock, so replicas starting together apply each migration exactly once and none serves
before the schema is complete. Rows are the same as SQLite's, so ids survive a copy between them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Optional

import psycopg
from psycopg_pool import ConnectionPool

from engine.inspect.schema import RunRequest

from .models import Snippet
from .store import Row, put_content_addressed

log = logging.getLogger("jaxplay.store")

MIGRATION_LOCK = 0x6A61_7870_6C61_79  # "jaxplay": one advisory lock id shared by every replica

MIGRATIONS: list[str] = [
    """CREATE TABLE snippets (
           id TEXT PRIMARY KEY,
           digest TEXT NOT NULL UNIQUE,
           body TEXT NOT NULL,
           created_at TEXT NOT NULL)""",
]


def migrate(conn: psycopg.Connection) -> list[int]:
    """Apply the migrations this database lacks; returns the versions applied here."""
    applied = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            "version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        done = {v for (v,) in conn.execute("SELECT version FROM schema_migrations")}
        for version, sql in enumerate(MIGRATIONS, start=1):
            if version not in done:
                conn.execute(sql)
                conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
                applied.append(version)
    return applied


class PostgresSnippetStore:
    def __init__(self, url: str, pool_size: int = 4, connect_timeout: float = 30.0):
        self.url = url
        self.connect_timeout = connect_timeout
        self.pool = ConnectionPool(
            url, min_size=1, max_size=pool_size, open=False, kwargs={"autocommit": True}, name="jaxplay"
        )
        self._opened = False

    def open(self) -> None:
        """Connect (waiting up to ``connect_timeout`` for the database to come up) and migrate."""
        if self._opened:
            return
        deadline = time.monotonic() + self.connect_timeout
        while True:
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=5) as conn:
                    applied = migrate(conn)
                break
            except psycopg.OperationalError as e:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"PostgreSQL not reachable: {e}") from e
                log.warning("waiting for PostgreSQL: %s", str(e).strip().splitlines()[0])
                time.sleep(1)
        if applied:
            log.info("applied schema migrations %s", applied)
        self.pool.open(wait=True, timeout=self.connect_timeout)
        self._opened = True

    def insert_row(self, row: Row) -> bool:
        with self.pool.connection() as conn:
            cur = conn.execute(
                "INSERT INTO snippets (id, digest, body, created_at) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                row,
            )
            return cur.rowcount == 1

    def _body_by_digest(self, digest: str) -> Optional[str]:
        with self.pool.connection() as conn:
            row = conn.execute("SELECT body FROM snippets WHERE digest = %s", (digest,)).fetchone()
        return row[0] if row else None

    def put(
        self, request: RunRequest, title: Optional[str], engine_version: str, device_count: int
    ) -> Snippet:
        self.open()
        return put_content_addressed(
            request, title, engine_version, device_count, self.insert_row, self._body_by_digest
        )

    def get(self, snippet_id: str) -> Optional[Snippet]:
        self.open()
        with self.pool.connection() as conn:
            row = conn.execute("SELECT body FROM snippets WHERE id = %s", (snippet_id,)).fetchone()
        return Snippet.model_validate_json(row[0]) if row else None

    def ping(self) -> bool:
        try:
            with self.pool.connection(timeout=2) as conn:
                conn.execute("SELECT 1")
            return True
        except Exception:  # noqa: BLE001 - any failure means "not ready", which is the answer
            return False

    def rows(self) -> Iterator[Row]:
        self.open()
        with self.pool.connection() as conn:
            yield from conn.execute("SELECT id, digest, body, created_at FROM snippets ORDER BY id")

    def close(self) -> None:
        self.pool.close()
