"""Flattening a pytree into leaves and a PyTreeDef (with or without key paths), and back."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .keys import DictKey, FlattenedIndexKey, GetAttrKey, SequenceKey
from .treedef import (
    _CUSTOM,
    _DEFAULTDICT,
    _DICT,
    _FLAT_LIST_DEFS,
    _FLAT_TUPLE_DEFS,
    _LEAF,
    _LEAF_DEF,
    _LIST,
    _NAMEDTUPLE,
    _NONE,
    _NONE_DEF,
    _ORDEREDDICT,
    _TUPLE,
    PyTreeDef,
    _classify,
    _kind_cache,
    _make,
    _registry,
    _sorted_keys,
)


def _flatten(x: Any, leaves: list) -> PyTreeDef:
    """Flattens ``x`` appending its leaves to ``leaves``; returns its treedef."""
    t = type(x)
    k = _kind_cache.get(t)
    if k is None:
        k = _classify(t)
    if k == _LEAF:
        leaves.append(x)
        return _LEAF_DEF
    if k == _TUPLE or k == _LIST:
        kc = _kind_cache
        flat = True
        for c in x:
            if kc.get(type(c)) != _LEAF:
                flat = False
                break
        if flat:
            n = len(x)
            leaves.extend(x)
            if n < 17:
                return _FLAT_TUPLE_DEFS[n] if k == _TUPLE else _FLAT_LIST_DEFS[n]
            return _make(k, t, None, (_LEAF_DEF,) * n)
        return _make(k, t, None, tuple([_flatten(c, leaves) for c in x]))
    if k == _NONE:
        return _NONE_DEF
    if k == _DICT:
        keys = _sorted_keys(x)
        return _make(_DICT, dict, keys, tuple([_flatten(x[key], leaves) for key in keys]))
    if k == _NAMEDTUPLE:
        return _make(_NAMEDTUPLE, t, None, tuple([_flatten(c, leaves) for c in x]))
    if k == _ORDEREDDICT:
        keys = tuple(x)
        return _make(_ORDEREDDICT, t, keys, tuple([_flatten(x[key], leaves) for key in keys]))
    if k == _DEFAULTDICT:
        keys = _sorted_keys(x)
        return _make(
            _DEFAULTDICT, t, (x.default_factory, keys), tuple([_flatten(x[key], leaves) for key in keys])
        )
    reg = _registry[t]
    children, aux = reg.flatten(x)
    return _make(_CUSTOM, reg, aux, tuple([_flatten(c, leaves) for c in children]))


def _flatten_is_leaf(x: Any, leaves: list, is_leaf: Callable[[Any], bool]) -> PyTreeDef:
    """As _flatten, but ``is_leaf(subtree)`` True stops the descent there."""
    if is_leaf(x):
        leaves.append(x)
        return _LEAF_DEF
    t = type(x)
    k = _kind_cache.get(t)
    if k is None:
        k = _classify(t)
    if k == _LEAF:
        leaves.append(x)
        return _LEAF_DEF
    if k == _NONE:
        return _NONE_DEF
    if k == _TUPLE or k == _LIST or k == _NAMEDTUPLE:
        return _make(k, t, None, tuple([_flatten_is_leaf(c, leaves, is_leaf) for c in x]))
    if k == _DICT:
        keys = _sorted_keys(x)
        return _make(_DICT, dict, keys, tuple([_flatten_is_leaf(x[key], leaves, is_leaf) for key in keys]))
    if k == _ORDEREDDICT:
        keys = tuple(x)
        return _make(
            _ORDEREDDICT, t, keys, tuple([_flatten_is_leaf(x[key], leaves, is_leaf) for key in keys])
        )
    if k == _DEFAULTDICT:
        keys = _sorted_keys(x)
        return _make(
            _DEFAULTDICT,
            t,
            (x.default_factory, keys),
            tuple([_flatten_is_leaf(x[key], leaves, is_leaf) for key in keys]),
        )
    reg = _registry[t]
    children, aux = reg.flatten(x)
    return _make(_CUSTOM, reg, aux, tuple([_flatten_is_leaf(c, leaves, is_leaf) for c in children]))


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], PyTreeDef]:
    """Flattens a pytree into a list of leaves and a treedef.

    Args:
      tree: a pytree.
      is_leaf: optional predicate; a subtree for which it returns True is taken
        as a leaf and not descended into.

    Returns:
      ``(leaves, treedef)``. ``None`` is a node with no leaves.

    Example:

      >>> tree_flatten([1, (2, None), {'b': 4, 'a': 3}])
      ([1, 2, 3, 4], PyTreeDef([*, (*, None), {'a': *, 'b': *}]))
    """
    if is_leaf is None:
        if type(tree) is tuple:  # fast path: a flat tuple of known leaf types
            kc = _kind_cache
            for c in tree:
                if kc.get(type(c)) != _LEAF:
                    break
            else:
                n = len(tree)
                if n < 17:
                    return list(tree), _FLAT_TUPLE_DEFS[n]
        leaves: list[Any] = []
        return leaves, _flatten(tree, leaves)
    leaves = []
    return leaves, _flatten_is_leaf(tree, leaves, is_leaf)


_ARGS_DEFS: dict[int, PyTreeDef] = {}  # n -> the treedef of ``((n leaves), {})``, made on first use


def flatten_args(args: tuple) -> tuple[list[Any], PyTreeDef]:
    """``tree_flatten((args, {}))``: positional arguments with no keyword ones, as the
    transformations flatten them. Its treedef is one object per count of leaves when ``args`` is a
    flat tuple of leaves (the common case), which ``unflatten_args`` knows without a look inside.

    >>> flatten_args((1, 2.0))
    ([1, 2.0], PyTreeDef(((*, *), {})))
    """
    leaves, tree = tree_flatten(args)
    n = len(leaves)
    if n < 17 and tree is _FLAT_TUPLE_DEFS[n]:
        args_def = _ARGS_DEFS.get(n)
        if args_def is None:
            args_def = _ARGS_DEFS[n] = _flatten((args, {}), [])
        return leaves, args_def
    leaves = []
    return leaves, _flatten((args, {}), leaves)


def unflatten_args(treedef: PyTreeDef, leaves: list) -> Any:
    """``tree_unflatten(treedef, leaves)``; ``(tuple(leaves), {})`` for ``flatten_args``' own treedefs."""
    if _ARGS_DEFS.get(len(leaves)) is treedef:
        return tuple(leaves), {}
    return treedef.unflatten(leaves)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """The leaves of a pytree, in flattening order.

    Example:

      >>> tree_leaves({'x': 1, 'y': (2, [3])})
      [1, 2, 3]
    """
    leaves: list[Any] = []
    if is_leaf is None:
        _flatten(tree, leaves)
    else:
        _flatten_is_leaf(tree, leaves, is_leaf)
    return leaves


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The treedef of a pytree.

    Example:

      >>> tree_structure([1, (2, 3), [4, 5]])
      PyTreeDef([*, (*, *), [*, *]])
    """
    return tree_flatten(tree, is_leaf)[1]


# ---------------------------------------------------------------------------
# Unflattening
# ---------------------------------------------------------------------------


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Builds a pytree from a treedef and leaves; the inverse of tree_flatten.

    Example:

      >>> _, treedef = tree_flatten({'a': 1, 'b': [2]})
      >>> tree_unflatten(treedef, [7, 8])
      {'a': 7, 'b': [8]}
    """
    return treedef.unflatten(leaves)


def _flatten_with_path(x, path, out, is_leaf):
    if is_leaf is not None and is_leaf(x):
        out.append((path, x))
        return
    t = type(x)
    k = _kind_cache.get(t)
    if k is None:
        k = _classify(t)
    if k == _LEAF:
        out.append((path, x))
    elif k == _NONE:
        pass
    elif k == _TUPLE or k == _LIST:
        for i, c in enumerate(x):
            _flatten_with_path(c, path + (SequenceKey(i),), out, is_leaf)
    elif k == _DICT or k == _DEFAULTDICT:
        for key in _sorted_keys(x):
            _flatten_with_path(x[key], path + (DictKey(key),), out, is_leaf)
    elif k == _ORDEREDDICT:
        for key in x:
            _flatten_with_path(x[key], path + (DictKey(key),), out, is_leaf)
    elif k == _NAMEDTUPLE:
        for f, c in zip(t._fields, x):
            _flatten_with_path(c, path + (GetAttrKey(f),), out, is_leaf)
    else:
        reg = _registry[t]
        if reg.flatten_with_keys is not None:
            kvs, _ = reg.flatten_with_keys(x)
            for key, c in kvs:
                _flatten_with_path(c, path + (key,), out, is_leaf)
        else:
            children, _ = reg.flatten(x)
            for i, c in enumerate(children):
                _flatten_with_path(c, path + (FlattenedIndexKey(i),), out, is_leaf)


def tree_flatten_with_path(
    tree: Any, is_leaf: Callable[[Any], bool] | None = None
) -> tuple[list[tuple[tuple, Any]], PyTreeDef]:
    """Like tree_flatten, but each leaf comes with its key path.

    Example:

      >>> from engine.tree_util import keystr
      >>> pairs, _ = tree_flatten_with_path({'a': (1, 2)})
      >>> [(keystr(p), v) for p, v in pairs]
      [("['a'][0]", 1), ("['a'][1]", 2)]
    """
    out: list[tuple[tuple, Any]] = []
    _flatten_with_path(tree, (), out, is_leaf)
    return out, tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[tuple[tuple, Any]]:
    """The ``(key path, leaf)`` pairs of a pytree.

    Example:

      >>> from engine.tree_util import keystr
      >>> [keystr(p) for p, _ in tree_leaves_with_path([1, {'b': 2}])]
      ['[0]', "[1]['b']"]
    """
    out: list[tuple[tuple, Any]] = []
    _flatten_with_path(tree, (), out, is_leaf)
    return out
