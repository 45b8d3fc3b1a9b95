"""``ast.parse`` for the engine's generated modules, safe across its compile threads.

CPython 3.11 keeps ``ast.parse``'s recursion-depth count for converting the tree to Python objects
in one per-interpreter record, not per thread: when two threads parse at once and the converter
lets the other run (a garbage collection in the middle runs Python finalizers), one overwrites the
other's count and the parse fails with ``SystemError: AST constructor recursion depth mismatch``.
So the engine parses under one lock, and never on its background compile thread, whose parse could
collide with one of the caller's thread outside the engine (a traceback's carets, pytest's
assertion rewriting): there it reads code objects (numba_shared) or waits for the first call
(host_lines). CPython 3.12 keeps the count per thread.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse(text: str) -> ast.Module:
    """``ast.parse(text)``, one engine thread at a time.

    >>> parse("x = 1").body[0].targets[0].id
    'x'
    """
    with _LOCK:
        return ast.parse(text)
