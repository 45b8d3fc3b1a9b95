"""One node at a time: ``flatten_one_level`` (a node's children and its data), ``is_tree_node``, and
the balanced reduction ``tree_reduce_associative``."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Hashable, Iterable, TypeVar

from .flatten import tree_leaves
from .keys import DictKey, FlattenedIndexKey, GetAttrKey, SequenceKey
from .treedef import (
    _CUSTOM,
    _DEFAULTDICT,
    _DICT,
    _LEAF,
    _NAMEDTUPLE,
    _NONE,
    _ORDEREDDICT,
    _classify,
    _registry,
    _sorted_keys,
)

KeyEntry = TypeVar("KeyEntry", bound=Any)
KeyPath = tuple[KeyEntry, ...]


class _Unspecified:
    pass


def is_tree_node(typ: type) -> bool:
    """Whether values of type ``typ`` are pytree nodes (containers), not leaves.

    >>> is_tree_node(tuple), is_tree_node(int)
    (True, False)
    """
    return _classify(typ) != _LEAF


def flatten_one_level(tree: Any) -> tuple[Iterable[Any], Hashable]:
    """A node's immediate children and its node data (dict keys, a custom node's aux data).

    >>> flatten_one_level({'b': 1, 'a': (2, 3)})
    (((2, 3), 1), ('a', 'b'))
    """
    pairs, data = _one_level(tree, keys=False)
    return pairs, data


def flatten_one_level_with_keys(tree: Any) -> tuple[Iterable[tuple[Any, Any]], Hashable]:
    """As :func:`flatten_one_level`, each child paired with its key (``SequenceKey``, ``DictKey``...)."""
    return _one_level(tree, keys=True)


def _one_level(tree, keys: bool):
    t = type(tree)
    kind = _classify(t)
    if kind == _LEAF:
        raise ValueError(f"can't tree-flatten type: {t}")
    if kind == _NONE:
        return (), None
    if kind == _CUSTOM:
        reg = _registry[t]
        if not keys:
            return reg.flatten(tree)
        if reg.flatten_with_keys is not None:
            return reg.flatten_with_keys(tree)
        children, data = reg.flatten(tree)
        return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)], data
    if kind in (_DICT, _DEFAULTDICT):
        order = _sorted_keys(tree)
        children = tuple(tree[k] for k in order)
        if keys:
            children = tuple((DictKey(k), c) for k, c in zip(order, children))
        return children, order if kind == _DICT else (tree.default_factory, order)
    if kind == _ORDEREDDICT:
        order = tuple(tree)
        children = [(DictKey(k), tree[k]) for k in order] if keys else [tree[k] for k in order]
        return children, order
    if kind == _NAMEDTUPLE:
        children = tuple(tree)
        if keys:
            children = tuple((GetAttrKey(name), c) for name, c in zip(t._fields, children))
        return children, t
    if keys:
        return tuple((SequenceKey(i), c) for i, c in enumerate(tree)), None
    return tree, None


def tree_reduce_associative(
    operation: Callable[[Any, Any], Any],
    tree: Any,
    *,
    identity: Any = _Unspecified,
    is_leaf: Callable[[Any], bool] | None = None,
) -> Any:
    """Reduce the leaves with an associative ``operation`` as a balanced tree (logarithmic depth);
    ``identity`` is returned for a tree without leaves.

    >>> tree_reduce_associative(lambda a, b: a + b, [1, 2, (3, 4)])
    10
    """
    return _halves(tree_leaves(tree, is_leaf=is_leaf), operation, identity)


def _halves(leaves, operation, identity):
    if not leaves:
        if identity is _Unspecified:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    if len(leaves) == 1:
        return leaves[0]
    half = len(leaves) // 2
    return operation(_halves(leaves[:half], operation, identity), _halves(leaves[half:], operation, identity))


def static(**kwargs):
    """A ``dataclasses.field`` marked static for :func:`register_dataclass` (``jax.tree.static``)."""
    metadata = {**kwargs.pop("metadata", {}), "static": True}
    return dataclasses.field(metadata=metadata, **kwargs)
