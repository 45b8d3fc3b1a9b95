"""Where two pytree structures differ, in the words of JAX's ``tree_util.equality_errors``: for
``jit``'s cache-miss explanations and for calling an exported function with another structure.

>>> from engine.pytree.flatten import tree_structure
>>> for path, now, before, why in equality_errors(tree_structure({"a": 1}), tree_structure({"a": 1, "b": 2})):
...     print(path, "|", now, "|", before, "|", why)
() | <class 'dict'> with 1 child | <class 'dict'> with 2 children | the numbers of children do not match, with the symmetric difference of key sets: {'b'}
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import Any, Iterator

from .keys import DictKey, FlattenedIndexKey, GetAttrKey, SequenceKey

__all__ = ["Node", "equality_errors", "node", "structure_errors"]


class _LeafType(type):
    def __repr__(cls) -> str:
        return "pytree leaf"


class _Leaf(metaclass=_LeafType):
    """The type of an argument leaf (an array) in an input tree."""


@dataclass(frozen=True)
class Node:
    """One node of an input tree: its Python type (or a stand-in whose name is JAX's), its children
    with their keys, and its node data (dict keys, a custom node's aux data, a static value)."""

    type: Any
    children: tuple[tuple[Any, Node], ...] = ()
    data: Any = None

    @property
    def leaf(self) -> bool:
        return self.type is _Leaf


def node(td: Any) -> Node:
    found = td.node_data()
    if found is None:
        return Node(_Leaf)
    typ, data = found
    if typ is dict:  # (the metadata JAX's flatten_one_level gives: the keys as a tuple)
        data = tuple(data)
    kids = [node(c) for c in td.children()]
    if issubclass(typ, dict):
        keys: list[Any] = [DictKey(k) for k in (data[1] if typ is collections.defaultdict else data)]
    elif issubclass(typ, tuple) and hasattr(typ, "_fields"):
        keys = [GetAttrKey(f) for f in typ._fields]
    elif issubclass(typ, (list, tuple)):
        keys = [SequenceKey(i) for i in range(len(kids))]
    else:
        keys = [FlattenedIndexKey(i) for i in range(len(kids))]
    return Node(typ, tuple(zip(keys, kids)), data)


def equality_errors(tree1: Any, tree2: Any) -> Iterator[tuple[tuple, str, str, str]]:
    """(key path, what ``tree1`` has there, what ``tree2`` has, why they differ) for each place two
    tree structures (treedefs) differ, in JAX's words."""
    yield from structure_errors((), node(tree1), node(tree2))


def _count(n: int) -> str:
    return f"{n} child{'ren' if n > 1 else ''}"


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - aux data that does not compare to a bool (arrays)
        return a is b


def structure_errors(path: tuple, t1: Node, t2: Node) -> Iterator[tuple[tuple, str, str, str]]:
    """(path, what the new tree has there, what the old one had, why they differ), JAX's words."""
    if t1.leaf and t2.leaf:
        return
    if t1.type is not t2.type:
        yield path, str(t1.type), str(t2.type), "their Python types differ"
        return
    n1, n2 = len(t1.children), len(t2.children)
    if issubclass(t1.type, (list, tuple)) and n1 != n2:
        name = t1.type.__name__
        yield path, f"{name} of length {n1}", f"{name} of length {n2}", "the lengths do not match"
        return
    if n1 != n2:
        keys1, keys2 = {k for k, _ in t1.children}, {k for k, _ in t2.children}
        diff = " ".join(sorted(repr(k.key) for k in keys1 ^ keys2 if isinstance(k, DictKey)))
        why = "the numbers of children do not match" + (
            f", with the symmetric difference of key sets: {{{diff}}}" if diff else ""
        )
        yield path, f"{t1.type} with {_count(n1)}", f"{t2.type} with {_count(n2)}", why
        return
    if not _same(t1.data, t2.data):
        yield (
            path,
            f"{t1.type} with pytree metadata {t1.data}",
            f"{t2.type} with pytree metadata {t2.data}",
            "the pytree node metadata does not match",
        )
        return
    for (k, c1), (_, c2) in zip(t1.children, t2.children):
        yield from structure_errors((*path, k), c1, c2)
