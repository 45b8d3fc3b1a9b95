"""Functions over whole trees: ``tree_map``, reductions, ``treedef_*``, ``tree_transpose``."""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterable

from .flatten import (
    _flatten,
    _flatten_is_leaf,
    tree_flatten,
    tree_flatten_with_path,
    tree_leaves,
    tree_structure,
)
from .prefix import _flatten_up_to, _Mismatch, _path_str, prefix_error
from .treedef import _LEAF_DEF, _TUPLE, PyTreeDef, _compose, _make


def tree_map(
    f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None
) -> Any:
    """Maps a function over the leaves of one or more pytrees.

    Args:
      f: called with one leaf from ``tree`` and the corresponding subtrees of
        each of ``rest``.
      tree: the pytree whose structure the result has.
      *rest: pytrees that have ``tree``'s structure (or have it as a prefix).
      is_leaf: optional predicate marking extra leaves in ``tree``.

    Example:

      >>> tree_map(lambda x, y: x + y, {'a': 1, 'b': (2, 3)}, {'a': 10, 'b': (20, 30)})
      {'a': 11, 'b': (22, 33)}
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten([f(x) for x in leaves])
    all_leaves = [leaves]
    for i, r in enumerate(rest):
        out: list[Any] = []
        try:
            _flatten_up_to(treedef, r, out)
        except _Mismatch as e:
            # (JAX's words for where the trees part; the engine's own if JAX's finds nothing)
            raise prefix_error("tree_map tree", tree, r, is_leaf) or ValueError(
                f"{e.jax}\n  tree_map: argument {i + 1} does not match the structure of the first tree, "
                f"at {_path_str(e.path)}: {e.msg}."
            ) from None
        all_leaves.append(out)
    return treedef.unflatten([f(*xs) for xs in zip(*all_leaves)])


_NO_INITIALIZER = object()


def tree_reduce(
    function: Callable[[Any, Any], Any],
    tree: Any,
    initializer: Any = _NO_INITIALIZER,
    is_leaf: Callable[[Any], bool] | None = None,
) -> Any:
    """Reduces the leaves of a pytree with a binary function (like functools.reduce).

    Example:

      >>> import operator
      >>> tree_reduce(operator.add, [1, (2, 3)])
      6
    """
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INITIALIZER:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every leaf of the tree is truthy.

    Example:

      >>> tree_all([True, {'a': True}]), tree_all([True, (False,)])
      (True, False)
    """
    return all(tree_leaves(tree, is_leaf))


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every element of ``iterable`` is a leaf.

    Example:

      >>> all_leaves([1, 2.0]), all_leaves([1, (2,)])
      (True, False)
    """
    if is_leaf is None:
        return all(_flatten(x, []) is _LEAF_DEF for x in iterable)
    return all(_flatten_is_leaf(x, [], is_leaf) is _LEAF_DEF for x in iterable)


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True if the treedef is a single node (a leaf, or None).

    Example:

      >>> treedef_is_leaf(tree_structure(1)), treedef_is_leaf(tree_structure((1,)))
      (True, False)
    """
    return treedef.num_nodes == 1


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """The treedefs of the root node's children.

    Example:

      >>> treedef_children(tree_structure((1, [2, 3])))
      [PyTreeDef(*), PyTreeDef([*, *])]
    """
    return treedef.children()


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The treedef of a tuple whose children have the given treedefs.

    Example:

      >>> treedef_tuple([tree_structure(1), tree_structure([1, 2])])
      PyTreeDef((*, [*, *]))
    """
    return _make(_TUPLE, tuple, None, tuple(treedefs))


def tree_transpose(
    outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree_to_transpose: Any
) -> Any:
    """Turns a tree of trees (outer of inner) into a tree of trees (inner of outer).

    Example:

      >>> tree_transpose(tree_structure([0, 0]), tree_structure((0, 0)), [(1, 2), (3, 4)])
      ([1, 3], [2, 4])
    """
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    flat = _compose(outer_treedef, inner_treedef).flatten_up_to(pytree_to_transpose)
    n_in, n_out = inner_treedef.num_leaves, outer_treedef.num_leaves
    if len(flat) != n_in * n_out:
        raise ValueError("tree_transpose: mismatch between the given treedefs and the tree")
    groups = [flat[i * n_in : (i + 1) * n_in] for i in range(n_out)]
    transposed = [outer_treedef.unflatten([g[j] for g in groups]) for j in range(n_in)]
    return inner_treedef.unflatten(transposed)


def tree_map_with_path(
    f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None
) -> Any:
    """Like tree_map, but ``f`` also receives each leaf's key path first.

    Example:

      >>> from engine.tree_util import keystr
      >>> tree_map_with_path(lambda p, x: keystr(p), {'a': 1, 'b': [2]})
      {'a': "['a']", 'b': ["['b'][0]"]}
    """
    pairs, treedef = tree_flatten_with_path(tree, is_leaf)
    all_leaves = [[x for _, x in pairs]]
    for i, r in enumerate(rest):
        out: list[Any] = []
        try:
            _flatten_up_to(treedef, r, out)
        except _Mismatch as e:
            raise prefix_error("tree_map_with_path tree", tree, r, is_leaf) or ValueError(
                f"{e.jax}\n  tree_map_with_path: argument {i + 1} does not match the structure of the "
                f"first tree, at {_path_str(e.path)}: {e.msg}."
            ) from None
        all_leaves.append(out)
    return treedef.unflatten([f(p, *xs) for (p, _), xs in zip(pairs, zip(*all_leaves))])
