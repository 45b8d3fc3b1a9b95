"""Key-path entries (``SequenceKey``, ``DictKey``, ...) and ``keystr``, as in ``jax.tree_util``."""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """Path entry for an element of a tuple or list: ``[idx]``."""

    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True)
class DictKey:
    """Path entry for a dict value: ``[key]``."""

    key: Any

    def __str__(self):
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """Path entry for an attribute (namedtuple field, dataclass field): ``.name``."""

    name: str

    def __str__(self):
        return f".{self.name}"


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey:
    """Path entry for the i-th child of a custom node without keys."""

    key: int

    def __str__(self):
        return f"[<flat index {self.key}>]"


def keystr(keys: tuple, *, simple: bool = False, separator: str = "") -> str:
    """Renders a key path as a string.

    Example:

      >>> keystr((DictKey('a'), SequenceKey(0), GetAttrKey('x')))
      "['a'][0].x"
    """
    if not simple:
        return separator.join(str(k) for k in keys)

    def one(k):
        if isinstance(k, SequenceKey):
            return str(k.idx)
        if isinstance(k, DictKey):
            return str(k.key)
        if isinstance(k, GetAttrKey):
            return k.name
        if isinstance(k, FlattenedIndexKey):
            return str(k.key)
        return str(k)

    return (separator or "/").join(one(k) for k in keys) if separator else "".join(one(k) for k in keys)
