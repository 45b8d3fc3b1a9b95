"""The engine's parses of generated modules from several threads at once (engine.backends.source_ast):
CPython 3.11 keeps ast.parse's depth count per interpreter, so two threads parsing together failed
with "AST constructor recursion depth mismatch" (a clean-clone CI run: a background compile and the
caller's link of another program)."""

import sys
import threading

from engine.backends import source_ast

TEXT = "\n".join(f"def f{i}(a, b):\n    return [a + b * {i} for _ in range(3)]" for i in range(300))


class _Cycle:
    """Garbage with a finalizer: a collection inside a parse runs Python code, so the other thread
    may run mid-parse (how the race shows)."""

    def __init__(self):
        self.me = self

    def __del__(self):
        sum(range(50))


def _parse_repeatedly(depth: int, errors: list) -> None:
    if depth:  # (the two threads parse at different stack depths, as the engine's do)
        return _parse_repeatedly(depth - 1, errors)
    for _ in range(30):
        [_Cycle() for _ in range(200)]
        try:
            source_ast.parse(TEXT)
        except SystemError as e:
            errors.append(str(e))


def test_two_threads_parse_at_once():
    # (a short switch interval makes the GIL change hands inside a parse's collections often)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    errors: list = []
    threads = [threading.Thread(target=_parse_repeatedly, args=(d, errors)) for d in (0, 60)]
    for t in threads:
        t.start()
    try:
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert errors == []
