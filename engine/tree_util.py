"""Pytrees: nested containers of leaves, flattened to a list plus a structure.

A *pytree* is a nested structure of Python containers (tuples, lists, dicts,
namedtuples, OrderedDicts, ``None`` and any type registered with
:func:`register_pytree_node`) whose non-container elements are *leaves*.
Every transformation flattens its arguments into leaves and a
:class:`PyTreeDef`, works on the leaves, then unflattens the results.

This is the public module; its parts live in ``engine/pytree/`` (the treedef and
registry, flattening, key paths, prefix matching, tree functions, registration).
They are pure Python with no engine imports, and the hot path (flattening and
unflattening small tuples of arrays) is kept short.

Example:

  >>> leaves, treedef = tree_flatten({'a': 1, 'b': (2, 3)})
  >>> leaves
  [1, 2, 3]
  >>> treedef
  PyTreeDef({'a': *, 'b': (*, *)})
  >>> tree_unflatten(treedef, [10, 20, 30])
  {'a': 10, 'b': (20, 30)}
"""

from __future__ import annotations

from .pytree.flatten import (
    tree_flatten,
    tree_flatten_with_path,
    tree_leaves,
    tree_leaves_with_path,
    tree_structure,
    tree_unflatten,
)
from .pytree.keys import DictKey, FlattenedIndexKey, GetAttrKey, SequenceKey, keystr
from .pytree.partial import Partial
from .pytree.prefix import broadcast_prefix
from .pytree.registration import (
    register_dataclass,
    register_pytree_node,
    register_pytree_node_class,
    register_pytree_with_keys,
    register_pytree_with_keys_class,
    register_static,
)
from .pytree.tree_functions import _NO_INITIALIZER as _NO_INITIALIZER
from .pytree.tree_functions import (
    all_leaves,
    tree_all,
    tree_map,
    tree_map_with_path,
    tree_reduce,
    tree_transpose,
    treedef_children,
    treedef_is_leaf,
    treedef_tuple,
)
from .class_paths import jax_class_path
from .pytree.treedef import PyTreeDef
from .pytree.one_level import (  # noqa: F401
    KeyEntry,
    KeyPath,
    flatten_one_level,
    flatten_one_level_with_keys,
    is_tree_node,
    tree_reduce_associative,
)

# type(treedef) names JAX's C++ class, as JAX's does (the treedef module itself stays engine-free)
jax_class_path("jaxlib._jax.pytree.PyTreeDef")(PyTreeDef)


def tree_broadcast(prefix_tree, full_tree, is_leaf=None):
    """Alias of :func:`jax.tree.broadcast`: ``prefix_tree``'s leaves repeated over ``full_tree``.

    >>> tree_broadcast((1, 2), ((1, 2), [3, 4, 5]))
    ((1, 1), [2, 2, 2])
    """
    from .tree import broadcast

    return broadcast(prefix_tree, full_tree, is_leaf=is_leaf)


__all__ = [
    "PyTreeDef",
    "Partial",
    "register_pytree_node",
    "register_pytree_node_class",
    "register_pytree_with_keys",
    "register_pytree_with_keys_class",
    "register_dataclass",
    "register_static",
    "tree_flatten",
    "tree_unflatten",
    "tree_leaves",
    "tree_structure",
    "tree_map",
    "tree_reduce",
    "tree_all",
    "tree_transpose",
    "tree_flatten_with_path",
    "tree_leaves_with_path",
    "tree_map_with_path",
    "treedef_is_leaf",
    "treedef_children",
    "treedef_tuple",
    "all_leaves",
    "broadcast_prefix",
    "keystr",
    "SequenceKey",
    "DictKey",
    "GetAttrKey",
    "FlattenedIndexKey",
    "flatten_one_level",
    "flatten_one_level_with_keys",
    "is_tree_node",
    "tree_broadcast",
    "tree_reduce_associative",
]
