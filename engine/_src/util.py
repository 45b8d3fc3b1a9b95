"""``jax._src.util``: ``safe_map``/``safe_zip``, which JAX's tutorials on interpreters import.

>>> from engine._src.util import safe_map
>>> safe_map(lambda a, b: a + b, [1, 2], [3, 4])
[4, 6]
"""

from __future__ import annotations


def _same_lengths(args) -> list[list]:
    lists = [list(a) for a in args]
    if len({len(a) for a in lists}) > 1:
        raise ValueError(f"length mismatch: {[len(a) for a in lists]}")
    return lists


def safe_map(f, *args) -> list:
    """``list(map(f, *args))`` that raises when the arguments' lengths differ."""
    return list(map(f, *_same_lengths(args)))


def safe_zip(*args) -> list:
    """``list(zip(*args))`` that raises when the arguments' lengths differ."""
    return list(zip(*_same_lengths(args)))
