"""The ``jax.tree`` namespace: short names for the pytree utilities.

Example:

  >>> from engine import tree
  >>> tree.map(lambda x: x * 2, {'a': 1, 'b': (2, 3)})
  {'a': 2, 'b': (4, 6)}
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from engine import tree_util as _tu
from engine.tree_util import PyTreeDef

__all__ = [
    "all",
    "flatten",
    "flatten_with_path",
    "leaves",
    "leaves_with_path",
    "map",
    "map_with_path",
    "reduce",
    "structure",
    "transpose",
    "unflatten",
    "broadcast",
    "reduce_associative",
    "static",
]

_NO_INIT = _tu._NO_INITIALIZER


def all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:  # noqa: A001
    """True if all leaves of ``tree`` are truthy.

    Example:

      >>> all([True, {'a': True, 'b': (True,)}])
      True
    """
    return _tu.tree_all(tree, is_leaf=is_leaf)


def flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], PyTreeDef]:
    """Flattens a pytree into ``(leaves, treedef)``.

    Example:

      >>> flatten([1, (2, 3)])
      ([1, 2, 3], PyTreeDef([*, (*, *)]))
    """
    return _tu.tree_flatten(tree, is_leaf)


def flatten_with_path(tree: Any, is_leaf: Callable[[Any], bool] | None = None):
    """Flattens a pytree into ``([(key_path, leaf), ...], treedef)``.

    Example:

      >>> pairs, _ = flatten_with_path({'a': [1]})
      >>> pairs
      [((DictKey(key='a'), SequenceKey(idx=0)), 1)]
    """
    return _tu.tree_flatten_with_path(tree, is_leaf)


def leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """The leaves of a pytree.

    Example:

      >>> leaves({'b': 2, 'a': [1, None]})
      [1, 2]
    """
    return _tu.tree_leaves(tree, is_leaf)


def leaves_with_path(tree: Any, is_leaf: Callable[[Any], bool] | None = None):
    """The ``(key_path, leaf)`` pairs of a pytree.

    Example:

      >>> leaves_with_path((5,))
      [((SequenceKey(idx=0),), 5)]
    """
    return _tu.tree_leaves_with_path(tree, is_leaf)


def map(
    f: Callable[..., Any],
    tree: Any,
    *rest: Any,  # noqa: A001
    is_leaf: Callable[[Any], bool] | None = None,
) -> Any:
    """Maps ``f`` over the leaves of ``tree`` (and the matching parts of ``rest``).

    Example:

      >>> map(lambda x, y: x + y, (1, [2]), (10, [20]))
      (11, [22])
    """
    return _tu.tree_map(f, tree, *rest, is_leaf=is_leaf)


def map_with_path(
    f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None
) -> Any:
    """Like :func:`map`, with each leaf's key path passed to ``f`` first.

    Example:

      >>> map_with_path(lambda p, x: len(p), [1, (2,)])
      [1, (2,)]
    """
    return _tu.tree_map_with_path(f, tree, *rest, is_leaf=is_leaf)


def reduce(
    function: Callable[[Any, Any], Any],
    tree: Any,
    initializer: Any = _NO_INIT,
    is_leaf: Callable[[Any], bool] | None = None,
) -> Any:
    """Reduces the leaves of ``tree`` with ``function``.

    Example:

      >>> reduce(max, [3, (7, 5)])
      7
    """
    return _tu.tree_reduce(function, tree, initializer, is_leaf)


def structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The treedef of a pytree.

    Example:

      >>> structure([1, (2, 3), [4, 5]])
      PyTreeDef([*, (*, *), [*, *]])
    """
    return _tu.tree_structure(tree, is_leaf)


def transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree_to_transpose: Any) -> Any:
    """Swaps the outer and inner levels of a tree of trees.

    Example:

      >>> transpose(structure([0, 0]), structure((0, 0)), [(1, 2), (3, 4)])
      ([1, 3], [2, 4])
    """
    return _tu.tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose)


def unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:  # noqa: F811
    """Builds a pytree from a treedef and its leaves.

    Example:

      >>> unflatten(structure((0, {'a': 0})), [1, 2])
      (1, {'a': 2})
    """
    return _tu.tree_unflatten(treedef, leaves)


def broadcast(prefix_tree: Any, full_tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Broadcasts ``prefix_tree`` to the structure of ``full_tree``.

    Each leaf of the prefix is repeated over the subtree of ``full_tree`` at its
    position; ``None`` in the prefix is a leaf.

    Example:

      >>> broadcast((1, 2), ((0, 0), [0]))
      ((1, 1), [2])
    """
    entries = _tu.broadcast_prefix(prefix_tree, full_tree, is_leaf)
    return _tu.tree_structure(full_tree).unflatten(entries)


reduce_associative = _tu.tree_reduce_associative
from engine.pytree.one_level import static  # noqa: E402
