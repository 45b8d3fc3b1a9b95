"""``python -m server.copy_store SOURCE TARGET``: copy every shared snippet from one store to another.

SOURCE and TARGET are a SQLite file path or a ``postgresql://`` URL. Rows are copied as they
are (id, digest, body, time), so every existing link keeps working after the move; rows the
target already has are left alone, so the copy can be repeated (e.g. once more after a cut-over).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .store import SnippetStore, SQLiteSnippetStore, content_digest
from .models import Snippet


def store_at(where: str, must_exist: bool) -> SnippetStore:
    if where.startswith(("postgresql://", "postgres://")):
        from .postgres_store import PostgresSnippetStore

        return PostgresSnippetStore(where)
    path = Path(where)
    if must_exist and not path.is_file():
        raise SystemExit(f"{where}: no such SQLite file")
    return SQLiteSnippetStore(path)


def copy(source: SnippetStore, target: SnippetStore) -> tuple[int, int]:
    """Returns (copied, already there). Each row's digest is checked against its body first."""
    copied = present = 0
    for row in source.rows():
        snippet = Snippet.model_validate_json(row[2])
        digest = content_digest(snippet.request, snippet.title, snippet.engine_version, snippet.device_count)
        if digest != row[1] or not digest.startswith(row[0]):
            raise SystemExit(f"snippet {row[0]}: body does not match its digest; not copying a corrupt store")
        if target.insert_row(row):
            copied += 1
        else:
            present += 1
    return copied, present


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.copy_store", description=__doc__.split("\n")[0])
    parser.add_argument("source", help="SQLite file or postgresql:// URL to read")
    parser.add_argument("target", help="SQLite file or postgresql:// URL to write (created/migrated)")
    args = parser.parse_args(argv)
    source = store_at(args.source, must_exist=True)
    target = store_at(args.target, must_exist=False)
    source.open()
    target.open()
    try:
        copied, present = copy(source, target)
    finally:
        source.close()
        target.close()
    print(f"copied {copied} snippets, {present} already present", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
