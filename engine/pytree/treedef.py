"""PyTreeDef: a pytree's structure, its node kinds and the registry of custom node types.

Pure Python, no engine imports: the hot path (flattening and unflattening small tuples of arrays)
dispatches on small-int node kinds cached per type.
"""

from __future__ import annotations

import collections
from typing import Any, Callable, Hashable, Iterable, NamedTuple

# Node kinds. Small ints so that dispatch on them is cheap.
_LEAF, _NONE, _TUPLE, _LIST, _DICT, _NAMEDTUPLE, _ORDEREDDICT, _DEFAULTDICT, _CUSTOM = range(9)


class _Registration(NamedTuple):
    type: type
    flatten: Callable[[Any], tuple[Iterable[Any], Hashable]]
    unflatten: Callable[[Hashable, Iterable[Any]], Any]
    flatten_with_keys: Callable[[Any], tuple[Iterable[tuple[Any, Any]], Hashable]] | None


# type -> _Registration, for user-registered (custom) node types.
_registry: dict[type, _Registration] = {}


# ---------------------------------------------------------------------------
# PyTreeDef
# ---------------------------------------------------------------------------


class PyTreeDef:
    """The structure of a pytree: its containers with the leaves left out.

    Treedefs are immutable, hashable and compare structurally, so they can be
    used in cache keys. Get one with :func:`tree_structure` or
    :func:`tree_flatten`.

    Example:

      >>> from engine.tree_util import tree_structure
      >>> treedef = tree_structure((1, {'a': 2}))
      >>> treedef
      PyTreeDef((*, {'a': *}))
      >>> treedef.num_leaves
      2
      >>> treedef.unflatten(['x', 'y'])
      ('x', {'a': 'y'})
    """

    __slots__ = ("_kind", "_type", "_data", "_children", "num_leaves", "num_nodes", "_hash", "__weakref__")

    # _kind: one of the node kinds above.
    # _type: the container type (tuple, list, dict, the namedtuple class,
    #   OrderedDict, defaultdict) or the _Registration for custom nodes; None for
    #   leaves and None nodes.
    # _data: node data: dict/OrderedDict keys (a tuple), (default_factory, keys)
    #   for defaultdict, the aux data of a custom node; None otherwise.
    # _children: tuple of child PyTreeDefs.

    def __init__(self, *args, **kwargs):
        raise TypeError("PyTreeDef cannot be constructed directly; use tree_structure(tree).")

    # -- basic properties ------------------------------------------------------

    def children(self) -> list[PyTreeDef]:
        """The treedefs of this node's immediate children."""
        return list(self._children)

    def node_data(self):
        """``(node type, node data)`` of the root node, or None for a leaf."""
        if self._kind == _LEAF:
            return None
        if self._kind == _DICT:  # (JAX gives a dict's sorted keys as a list)
            return (self.node_type, list(self._data))
        return (self.node_type, self._data)

    @property
    def node_type(self):
        k = self._kind
        if k == _LEAF:
            return None
        if k == _NONE:
            return type(None)
        if k == _CUSTOM:
            return self._type.type
        return self._type

    def is_leaf(self) -> bool:
        return self._kind == _LEAF

    # -- unflatten ---------------------------------------------------------------

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        """Builds a pytree of this structure from an iterable of leaves.

        Example:

          >>> from engine.tree_util import tree_structure
          >>> tree_structure([1, (2, 3)]).unflatten('abc')
          ['a', ('b', 'c')]
        """
        if type(leaves) is not list and type(leaves) is not tuple:
            leaves = list(leaves)
        n = len(leaves)
        if n != self.num_leaves:
            raise ValueError(  # (JAX's words: a count for too few, none for too many)
                f"Too few leaves for PyTreeDef; expected {self.num_leaves}, got {n}"
                if n < self.num_leaves
                else f"Too many leaves for PyTreeDef; expected {self.num_leaves}."
            )
        k = self._kind
        if k == _TUPLE and self.num_nodes == n + 1:
            return tuple(leaves)
        if k == _LEAF:
            return leaves[0]
        if k == _LIST and self.num_nodes == n + 1:
            return list(leaves)
        return _unflatten(self, iter(leaves))

    # -- flatten_up_to -----------------------------------------------------------

    def flatten_up_to(self, tree: Any) -> list[Any]:
        """Flattens ``tree`` down to this structure's leaves.

        ``tree`` must have this treedef as a prefix: each leaf position of the
        treedef yields the whole subtree found there in ``tree``.

        Example:

          >>> from engine.tree_util import tree_structure
          >>> tree_structure((1, 2)).flatten_up_to(([1, 2], {'a': 3}))
          [[1, 2], {'a': 3}]
        """
        from .flatten import tree_structure  # (the matcher and flattener build on this module)
        from .prefix import _flatten_up_to, _Mismatch, _path_str

        out: list[Any] = []
        try:
            _flatten_up_to(self, tree, out)
        except _Mismatch as e:
            # (JAX's words first; then where, and the two structures)
            raise ValueError(
                f"{e.jax}\n  Tree structure mismatch at {_path_str(e.path)}: {e.msg}.\n"
                f"  expected structure: {self!r}\n"
                f"  got a value of structure: {tree_structure(tree)!r}"
            ) from None
        return out

    def compose(self, inner: PyTreeDef) -> PyTreeDef:
        """The treedef obtained by replacing each leaf of this one by ``inner``."""
        return _compose(self, inner)

    def walk(self, f_node, f_leaf, leaves):
        """Bottom-up fold (rarely needed; kept for JAX API compatibility)."""
        it = iter(leaves)

        def rec(td):
            if td._kind == _LEAF:
                x = next(it)
                return f_leaf(x) if f_leaf is not None else x
            vals = tuple(rec(c) for c in td._children)
            return f_node(vals, td.node_data())

        return rec(self)

    # -- equality, hashing -------------------------------------------------------

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, PyTreeDef):
            return NotImplemented
        if (
            self._kind != other._kind
            or self.num_leaves != other.num_leaves
            or self.num_nodes != other.num_nodes
            or self._type is not other._type
        ):
            return False
        if self._data is not other._data:
            try:
                eq = self._data == other._data
                if not isinstance(eq, bool):
                    eq = bool(eq)
            except Exception:
                return False
            if not eq:
                return False
        return self._children == other._children

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        h = self._hash
        if h is None:
            try:
                dh = hash(self._data)
            except TypeError:
                dh = 0
            h = hash(
                (self._kind, id(self._type) if self._kind == _CUSTOM else self._type, dh, self._children)
            )
            self._hash = h
        return h

    # -- printing ----------------------------------------------------------------

    def __repr__(self):
        return f"PyTreeDef({_repr(self)})"

    __str__ = __repr__

    # -- pickling (treedefs cross process boundaries in pmap) ------------------

    def __reduce__(self):
        t = self._type.type if self._kind == _CUSTOM else self._type
        return (_rebuild, (self._kind, t, self._data, self._children))


def _rebuild(kind, t, data, children):
    if kind == _LEAF:
        return _LEAF_DEF
    if kind == _NONE:
        return _NONE_DEF
    if kind == _CUSTOM:
        reg = _registry.get(t)
        if reg is None:
            raise ValueError(f"Cannot unpickle a PyTreeDef: type {t} is not registered as a pytree node.")
        t = reg
    return _make(kind, t, data, children)


def _make(kind, t, data, children):
    td = object.__new__(PyTreeDef)
    td._kind = kind
    td._type = t
    td._data = data
    td._children = children
    nl = 0
    nn = 1
    for c in children:
        nl += c.num_leaves
        nn += c.num_nodes
    td.num_leaves = nl
    td.num_nodes = nn
    td._hash = None
    return td


def _make_leaf():
    td = object.__new__(PyTreeDef)
    td._kind = _LEAF
    td._type = None
    td._data = None
    td._children = ()
    td.num_leaves = 1
    td.num_nodes = 1
    td._hash = None
    return td


_LEAF_DEF = _make_leaf()
_NONE_DEF = _make(_NONE, None, None, ())
_EMPTY_TUPLE_DEF = _make(_TUPLE, tuple, None, ())
# Interned treedefs for flat tuples/lists of n leaves: the most common case.
_FLAT_TUPLE_DEFS: list[PyTreeDef] = [_make(_TUPLE, tuple, None, (_LEAF_DEF,) * n) for n in range(17)]
_FLAT_LIST_DEFS: list[PyTreeDef] = [_make(_LIST, list, None, (_LEAF_DEF,) * n) for n in range(17)]


def _repr(td: PyTreeDef) -> str:
    k = td._kind
    if k == _LEAF:
        return "*"
    if k == _NONE:
        return "None"
    kids = [_repr(c) for c in td._children]
    if k == _TUPLE:
        if len(kids) == 1:
            return f"({kids[0]},)"
        return "(" + ", ".join(kids) + ")"
    if k == _LIST:
        return "[" + ", ".join(kids) + "]"
    if k == _DICT:
        return "{" + ", ".join(f"{key!r}: {v}" for key, v in zip(td._data, kids)) + "}"
    if k == _NAMEDTUPLE:
        return f"CustomNode(namedtuple[{td._type.__name__}], [" + ", ".join(kids) + "])"
    if k == _ORDEREDDICT:
        return f"CustomNode(OrderedDict[{td._data!r}], [" + ", ".join(kids) + "])"
    if k == _DEFAULTDICT:
        return f"CustomNode(defaultdict[{td._data!r}], [" + ", ".join(kids) + "])"
    return f"CustomNode({td._type.type.__name__}[{td._data}], [" + ", ".join(kids) + "])"


def _sorted_keys(d: dict) -> tuple:
    keys = tuple(d)
    try:
        return tuple(sorted(keys))
    except TypeError as e:
        # JAX sorts dict keys too, and refuses keys that do not compare (e.g. 1 and 'a').
        # (JAX's words; the TypeError saying which keys is the cause, as in JAX)
        raise ValueError("Comparator raised exception while sorting pytree dictionary keys.") from e


def _is_namedtuple_type(t: type) -> bool:
    return issubclass(t, tuple) and hasattr(t, "_fields") and t is not tuple


# Per-type classification cache: type -> kind. Cleared on registration.
_kind_cache: dict[type, int] = {
    tuple: _TUPLE,
    list: _LIST,
    dict: _DICT,
    type(None): _NONE,
    collections.OrderedDict: _ORDEREDDICT,
    collections.defaultdict: _DEFAULTDICT,
}


def _classify(t: type) -> int:
    k = _kind_cache.get(t)
    if k is None:
        if t in _registry:
            k = _CUSTOM
        elif _is_namedtuple_type(t):
            k = _NAMEDTUPLE
        else:
            k = _LEAF
        _kind_cache[t] = k
    return k


def _unflatten(td: PyTreeDef, it) -> Any:
    k = td._kind
    if k == _LEAF:
        return next(it)
    if k == _TUPLE:
        return tuple([_unflatten(c, it) for c in td._children])
    if k == _LIST:
        return [_unflatten(c, it) for c in td._children]
    if k == _NONE:
        return None
    if k == _DICT:
        return dict(zip(td._data, [_unflatten(c, it) for c in td._children]))
    if k == _NAMEDTUPLE:
        return td._type(*[_unflatten(c, it) for c in td._children])
    if k == _ORDEREDDICT:
        return td._type(zip(td._data, [_unflatten(c, it) for c in td._children]))
    if k == _DEFAULTDICT:
        factory, keys = td._data
        return td._type(factory, zip(keys, [_unflatten(c, it) for c in td._children]))
    return td._type.unflatten(td._data, [_unflatten(c, it) for c in td._children])


def _compose(outer: PyTreeDef, inner: PyTreeDef) -> PyTreeDef:
    if outer._kind == _LEAF:
        return inner
    return _make(outer._kind, outer._type, outer._data, tuple(_compose(c, inner) for c in outer._children))
