"""Pytrees: nested containers of leaves, flattened to a list plus a structure.

A *pytree* is a nested structure of Python containers (tuples, lists, dicts,
namedtuples, OrderedDicts, ``None`` and any type registered with
:func:`register_pytree_node`) whose non-container elements are *leaves*.
Every transformation flattens its arguments into leaves and a
:class:`PyTreeDef`, works on the leaves, then unflattens the results.

This module has no engine imports: it is pure Python, and its hot path
(flattening and unflattening small tuples of arrays) is kept short.

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

import collections
import dataclasses
import functools
from typing import Any, Callable, Hashable, Iterable, NamedTuple

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
]

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

          >>> tree_structure([1, (2, 3)]).unflatten('abc')
          ['a', ('b', 'c')]
        """
        if type(leaves) is not list and type(leaves) is not tuple:
            leaves = list(leaves)
        n = len(leaves)
        if n != self.num_leaves:
            raise ValueError(
                f"Too {'few' if n < self.num_leaves else 'many'} leaves for PyTreeDef; "
                f"expected {self.num_leaves}, got {n}. Structure: {self!r}"
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

          >>> tree_structure((1, 2)).flatten_up_to(([1, 2], {'a': 3}))
          [[1, 2], {'a': 3}]
        """
        out: list[Any] = []
        try:
            _flatten_up_to(self, tree, out)
        except _Mismatch as e:
            raise ValueError(
                f"Tree structure mismatch at {_path_str(e.path)}: {e.msg}.\n"
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
    return f"CustomNode({td._type.type.__name__}[{td._data!r}], [" + ", ".join(kids) + "])"


# ---------------------------------------------------------------------------
# Flattening
# ---------------------------------------------------------------------------


def _sorted_keys(d: dict) -> tuple:
    keys = tuple(d)
    try:
        return tuple(sorted(keys))
    except TypeError as e:
        # JAX sorts dict keys too, and refuses keys that do not compare (e.g. 1 and 'a').
        raise ValueError(
            f"Comparator raised exception while sorting pytree dictionary keys: {e}. Use keys of "
            f"one orderable type (e.g. all str) in a dict that is a pytree."
        ) from None


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


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Builds a pytree from a treedef and leaves; the inverse of tree_flatten.

    Example:

      >>> _, treedef = tree_flatten({'a': 1, 'b': [2]})
      >>> tree_unflatten(treedef, [7, 8])
      {'a': 7, 'b': [8]}
    """
    return treedef.unflatten(leaves)


# ---------------------------------------------------------------------------
# Prefix matching (flatten_up_to) with key paths in errors
# ---------------------------------------------------------------------------


class _Mismatch(Exception):
    def __init__(self, msg):
        super().__init__(msg)
        self.msg = msg
        self.path: list = []


_KIND_NAMES = {
    _NONE: "None",
    _TUPLE: "tuple",
    _LIST: "list",
    _DICT: "dict",
    _NAMEDTUPLE: "namedtuple",
    _ORDEREDDICT: "OrderedDict",
    _DEFAULTDICT: "defaultdict",
}


def _short(x: Any, limit: int = 60) -> str:
    try:
        r = repr(x)
    except Exception:
        r = f"<{type(x).__name__}>"
    r = " ".join(r.split())
    return r if len(r) <= limit else r[: limit - 3] + "..."


def _node_desc(td: PyTreeDef) -> str:
    k = td._kind
    if k == _NONE:
        return "None"
    if k == _DICT or k == _ORDEREDDICT:
        return f"a {_KIND_NAMES[k]} with keys {list(td._data)!r}"
    if k == _DEFAULTDICT:
        return f"a defaultdict with keys {list(td._data[1])!r}"
    if k == _NAMEDTUPLE:
        return f"a {td._type.__name__} namedtuple"
    if k == _CUSTOM:
        return f"a {td._type.type.__name__} node"
    return f"a {_KIND_NAMES[k]} of length {len(td._children)}"


def _child_keys(td: PyTreeDef) -> list:
    k = td._kind
    if k == _TUPLE or k == _LIST:
        return [SequenceKey(i) for i in range(len(td._children))]
    if k == _DICT or k == _ORDEREDDICT:
        return [DictKey(key) for key in td._data]
    if k == _DEFAULTDICT:
        return [DictKey(key) for key in td._data[1]]
    if k == _NAMEDTUPLE:
        return [GetAttrKey(f) for f in td._type._fields]
    return [FlattenedIndexKey(i) for i in range(len(td._children))]


def _flatten_up_to(td: PyTreeDef, x: Any, out: list) -> None:
    k = td._kind
    if k == _LEAF:
        out.append(x)
        return
    t = type(x)
    xk = _kind_cache.get(t)
    if xk is None:
        xk = _classify(t)
    if k == _NONE:
        if x is not None:
            raise _Mismatch(f"expected None, got {type(x).__name__} {_short(x)}")
        return
    if xk != k or (k == _NAMEDTUPLE and t is not td._type) or (k == _CUSTOM and _registry[t] is not td._type):
        raise _Mismatch(f"expected {_node_desc(td)}, got {type(x).__name__} {_short(x)}")
    if k == _TUPLE or k == _LIST or k == _NAMEDTUPLE:
        children = x
        if len(x) != len(td._children):
            raise _Mismatch(
                f"expected {_node_desc(td)}, got a {type(x).__name__} of length {len(x)}: {_short(x)}"
            )
    elif k == _DICT or k == _ORDEREDDICT or k == _DEFAULTDICT:
        keys = td._data[1] if k == _DEFAULTDICT else td._data
        xkeys = _sorted_keys(x) if k != _ORDEREDDICT else tuple(x)
        if xkeys != keys:
            if set(xkeys) == set(keys) and k == _ORDEREDDICT:
                raise _Mismatch(
                    f"OrderedDict key order differs: expected {list(keys)!r}, got {list(xkeys)!r}"
                )
            raise _Mismatch(f"dict key mismatch: expected keys {list(keys)!r}, got {list(xkeys)!r}")
        children = [x[key] for key in keys]
    else:
        children, aux = td._type.flatten(x)
        children = list(children)
        if aux != td._data:
            raise _Mismatch(
                f"{t.__name__} node data mismatch: expected {_short(td._data)}, got {_short(aux)}"
            )
        if len(children) != len(td._children):
            raise _Mismatch(
                f"{t.__name__} node arity mismatch: expected {len(td._children)} "
                f"children, got {len(children)}"
            )
    for i, (c, ctd) in enumerate(zip(children, td._children)):
        try:
            _flatten_up_to(ctd, c, out)
        except _Mismatch as e:
            e.path.append(_child_keys(td)[i])
            raise


def _path_str(rev_path: list) -> str:
    if not rev_path:
        return "the root"
    return "tree" + keystr(tuple(reversed(rev_path)))


# ---------------------------------------------------------------------------
# Mapping and reductions
# ---------------------------------------------------------------------------


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
            raise ValueError(
                f"tree_map: argument {i + 1} does not match the structure of the first tree, "
                f"at {_path_str(e.path)}: {e.msg}.\n"
                f"  first tree structure:  {treedef!r}\n"
                f"  argument {i + 1} structure: {tree_structure(r)!r}"
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


def _compose(outer: PyTreeDef, inner: PyTreeDef) -> PyTreeDef:
    if outer._kind == _LEAF:
        return inner
    return _make(outer._kind, outer._type, outer._data, tuple(_compose(c, inner) for c in outer._children))


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


# ---------------------------------------------------------------------------
# Prefix broadcasting (vmap in_axes, etc.)
# ---------------------------------------------------------------------------


def _none_or(is_leaf):
    if is_leaf is None:
        return lambda x: x is None
    return lambda x: x is None or is_leaf(x)


def broadcast_prefix(
    prefix_tree: Any, full_tree: Any, is_leaf: Callable[[Any], bool] | None = None
) -> list[Any]:
    """Broadcasts a tree prefix to one entry per leaf of ``full_tree``.

    Each leaf of ``prefix_tree`` is repeated once for every leaf of the subtree
    of ``full_tree`` found at its position. Unlike most functions here, ``None``
    in ``prefix_tree`` is a leaf (so ``in_axes=(0, None)`` works). ``is_leaf``
    marks further leaves in ``prefix_tree``.

    Raises:
      ValueError: if ``prefix_tree`` is not a prefix of ``full_tree``; the
        message gives the position of the first difference and both structures.

    Example:

      >>> broadcast_prefix((0, None), ([1, 2], {'a': 3}))
      [0, 0, None]
    """
    prefix_leaves, prefix_def = tree_flatten(prefix_tree, _none_or(is_leaf))
    if prefix_def._kind == _LEAF:  # fast path: one value for everything
        return prefix_leaves * len(tree_leaves(full_tree))
    subtrees: list[Any] = []
    try:
        _flatten_up_to(prefix_def, full_tree, subtrees)
    except _Mismatch as e:
        raise ValueError(
            f"Tree prefix mismatch at {_path_str(e.path)}: {e.msg}.\n"
            f"  prefix structure: {prefix_def!r}\n"
            f"  full structure:   {tree_structure(full_tree)!r}\n"
            f"The prefix must have the same containers as the full tree down to its leaves."
        ) from None
    result: list[Any] = []
    for p, sub in zip(prefix_leaves, subtrees):
        n = len(tree_leaves(sub))
        if n == 1:
            result.append(p)
        elif n:
            result.extend([p] * n)
    return result


# ---------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------


def _check_registrable(nodetype: type) -> None:
    if not isinstance(nodetype, type):
        raise TypeError(f"register_pytree_node expects a type, got {nodetype!r}")
    if nodetype in _registry or nodetype in (
        tuple,
        list,
        dict,
        type(None),
        collections.OrderedDict,
        collections.defaultdict,
    ):
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.")


def register_pytree_node(
    nodetype: type,
    flatten_func: Callable[[Any], tuple[Iterable[Any], Hashable]],
    unflatten_func: Callable[[Hashable, Iterable[Any]], Any],
    flatten_with_keys_func=None,
) -> None:
    """Registers a type as a pytree node.

    Args:
      nodetype: the Python type.
      flatten_func: ``x -> (children, aux_data)``; ``aux_data`` must be hashable
        and comparable (it becomes part of the treedef).
      unflatten_func: ``(aux_data, children) -> x``.
      flatten_with_keys_func: optional ``x -> (((key, child), ...), aux_data)``
        giving key-path entries for the children.

    Example:

      >>> class Box:
      ...   def __init__(self, v): self.v = v
      >>> register_pytree_node(Box, lambda b: ((b.v,), None), lambda _, c: Box(*c))
      >>> tree_leaves([Box(1), Box((2, 3))])
      [1, 2, 3]
    """
    _check_registrable(nodetype)
    _registry[nodetype] = _Registration(nodetype, flatten_func, unflatten_func, flatten_with_keys_func)
    _kind_cache.clear()
    _kind_cache.update(
        {
            tuple: _TUPLE,
            list: _LIST,
            dict: _DICT,
            type(None): _NONE,
            collections.OrderedDict: _ORDEREDDICT,
            collections.defaultdict: _DEFAULTDICT,
        }
    )


def register_pytree_with_keys(nodetype: type, flatten_with_keys, unflatten_func, flatten_func=None) -> None:
    """Registers a node type whose flattening also gives key-path entries.

    ``flatten_with_keys`` returns ``(((key, child), ...), aux_data)``.

    Example:

      >>> class Pair:
      ...   def __init__(self, a, b): self.a, self.b = a, b
      >>> register_pytree_with_keys(
      ...     Pair, lambda p: (((GetAttrKey('a'), p.a), (GetAttrKey('b'), p.b)), None),
      ...     lambda _, c: Pair(*c))
      >>> [keystr(p) for p, _ in tree_flatten_with_path(Pair(1, 2))[0]]
      ['.a', '.b']
    """
    if flatten_func is None:

        def flatten_func(x):
            kvs, aux = flatten_with_keys(x)
            return [v for _, v in kvs], aux

    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_node_class(cls: type) -> type:
    """Class decorator: registers ``cls`` using its ``tree_flatten`` method and
    ``tree_unflatten`` classmethod.

    Example:

      >>> @register_pytree_node_class
      ... class Pt:
      ...   def __init__(self, x, y): self.x, self.y = x, y
      ...   def tree_flatten(self): return (self.x, self.y), None
      ...   @classmethod
      ...   def tree_unflatten(cls, aux, children): return cls(*children)
      >>> tree_leaves(Pt(1, [2]))
      [1, 2]
    """
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls: type) -> type:
    """Class decorator: like register_pytree_node_class, using
    ``tree_flatten_with_keys`` too (and ``tree_flatten`` if defined)."""
    flat = getattr(cls, "tree_flatten", None)
    register_pytree_with_keys(
        cls,
        lambda x: x.tree_flatten_with_keys(),
        cls.tree_unflatten,
        (lambda x: x.tree_flatten()) if flat is not None else None,
    )
    return cls


def register_dataclass(
    nodetype: type,
    data_fields: Iterable[str] | None = None,
    meta_fields: Iterable[str] | None = None,
    drop_fields=(),
) -> type:
    """Registers a dataclass: ``data_fields`` are children, ``meta_fields`` go
    into the treedef (they must be hashable). With no field lists, fields marked
    ``field(metadata=dict(static=True))`` are meta and all others data.

    Example:

      >>> @dataclasses.dataclass
      ... class P:
      ...   x: int
      ...   name: str = dataclasses.field(default='p', metadata=dict(static=True))
      >>> _ = register_dataclass(P)
      >>> tree_flatten(P(1, 'q'))[0]
      [1]
    """
    if data_fields is None and meta_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError("register_dataclass without field lists needs a dataclass")
        data_fields, meta_fields = [], []
        for f in dataclasses.fields(nodetype):
            if f.name in drop_fields:
                continue
            (meta_fields if f.metadata.get("static", False) else data_fields).append(f.name)
    elif data_fields is None or meta_fields is None:
        raise TypeError("register_dataclass: give both data_fields and meta_fields, or neither")
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)

    def flatten(x):
        return [getattr(x, n) for n in data_fields], tuple(getattr(x, n) for n in meta_fields)

    def flatten_with_keys(x):
        return (
            [(GetAttrKey(n), getattr(x, n)) for n in data_fields],
            tuple(getattr(x, n) for n in meta_fields),
        )

    def unflatten(meta, data):
        kw = dict(zip(meta_fields, meta))
        kw.update(zip(data_fields, data))
        return nodetype(**kw)

    register_pytree_node(nodetype, flatten, unflatten, flatten_with_keys)
    return nodetype


def register_static(cls: type) -> type:
    """Registers ``cls`` as a node with no children: its instances are stored
    whole in the treedef (so they must be hashable).

    Example:

      >>> @register_static
      ... class Cfg:
      ...   def __hash__(self): return 0
      ...   def __eq__(self, o): return isinstance(o, Cfg)
      >>> tree_leaves([Cfg(), 1])
      [1]
    """
    register_pytree_node(cls, lambda x: ((), x), lambda x, _: x)
    return cls


# ---------------------------------------------------------------------------
# Key paths
# ---------------------------------------------------------------------------


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

      >>> [keystr(p) for p, _ in tree_leaves_with_path([1, {'b': 2}])]
      ['[0]', "[1]['b']"]
    """
    out: list[tuple[tuple, Any]] = []
    _flatten_with_path(tree, (), out, is_leaf)
    return out


def tree_map_with_path(
    f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None
) -> Any:
    """Like tree_map, but ``f`` also receives each leaf's key path first.

    Example:

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
            raise ValueError(
                f"tree_map_with_path: argument {i + 1} does not match the structure of the first "
                f"tree, at {_path_str(e.path)}: {e.msg}.\n"
                f"  first tree structure:  {treedef!r}\n"
                f"  argument {i + 1} structure: {tree_structure(r)!r}"
            ) from None
        all_leaves.append(out)
    return treedef.unflatten([f(p, *xs) for (p, _), xs in zip(pairs, zip(*all_leaves))])


# ---------------------------------------------------------------------------
# Partial
# ---------------------------------------------------------------------------


class Partial(functools.partial):
    """A functools.partial that is a pytree: its bound arguments are children,
    the wrapped function is static (part of the treedef).

    So a Partial can be passed through ``jit``/``vmap`` as an argument, with
    its bound arrays traced.

    Example:

      >>> import operator
      >>> p = Partial(operator.add, 1)
      >>> p(2)
      3
      >>> tree_leaves(p)
      [1]
    """

    def __new__(klass, func, *args, **kw):
        # Like JAX: a plain functools.partial is kept whole as the static function
        # (its own args are not leaves); a Partial's args are merged in.
        if isinstance(func, Partial):
            args = func.args + args
            kw = {**func.keywords, **kw}
            func = func.func
        return super().__new__(klass, func, *args, **kw)


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, xs: Partial(func, *xs[0], **xs[1]),
)
