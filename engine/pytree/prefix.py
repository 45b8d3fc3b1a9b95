"""Matching a tree against a treedef prefix (``flatten_up_to``, ``broadcast_prefix``), with errors
that name the key path of the first difference."""

from __future__ import annotations

import collections
import dataclasses
from typing import Any, Callable

from .flatten import tree_flatten, tree_leaves, tree_structure
from .keys import DictKey, FlattenedIndexKey, GetAttrKey, SequenceKey, keystr
from .treedef import (
    _CUSTOM,
    _DEFAULTDICT,
    _DICT,
    _LEAF,
    _LIST,
    _NAMEDTUPLE,
    _NONE,
    _ORDEREDDICT,
    _TUPLE,
    PyTreeDef,
    _classify,
    _kind_cache,
    _registry,
    _sorted_keys,
)


class _Mismatch(Exception):
    """Where a tree parts from a structure: ``jax``, JAX's words for it (its C++ flatten-up-to's);
    ``msg``, the engine's, which ``path`` (reversed keys) locates."""

    def __init__(self, msg, jax):
        super().__init__(msg)
        self.msg, self.jax = msg, jax
        self.path: list = []


_NONE_PREFIX_NOTE = (
    "\n\nIn previous releases of JAX, flatten-up-to used to consider None to be a tree-prefix of "
    "non-None values. To obtain the previous behavior, you can usually write:\n"
    "  jax.tree.map(lambda x, y: None if x is None else f(x, y), a, b, is_leaf=lambda x: x is None)"
)


def _registry_type(td: PyTreeDef) -> type:
    """The node type of a custom node, as JAX sees them (OrderedDict and defaultdict are custom)."""
    if td._kind == _ORDEREDDICT:
        return collections.OrderedDict
    if td._kind == _DEFAULTDICT:
        return collections.defaultdict
    return td._type.type


def _is_dataclass_node(td: PyTreeDef) -> bool:
    return td._kind == _CUSTOM and dataclasses.is_dataclass(td._type.type)


def _node_data(x: Any, k: int) -> Any:
    """The node data JAX keeps for an OrderedDict (its keys) or a defaultdict (factory, keys)."""
    return tuple(x) if k == _ORDEREDDICT else (x.default_factory, _sorted_keys(x))


def _jax_kind_mismatch(td: PyTreeDef, x: Any) -> str:
    k = td._kind
    if k == _TUPLE or k == _LIST or k == _DICT:
        return f"Expected {_KIND_NAMES[k]}, got {x!r}."
    if k == _NAMEDTUPLE:
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            return f"Named tuple type mismatch: expected type: {td._type!r}, tuple: {x!r}."
        return f"Expected named tuple, got {x!r}."
    t = _registry_type(td)
    what = "Custom dataclass node" if _is_dataclass_node(td) else "Custom node"
    return f"{what} type mismatch: expected type: {t!r}, value: {x!r}."


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
            raise _Mismatch(
                f"expected None, got {type(x).__name__} {_short(x)}",
                f"Expected None, got {x!r}.{_NONE_PREFIX_NOTE}",
            )
        return
    if xk != k or (k == _NAMEDTUPLE and t is not td._type) or (k == _CUSTOM and _registry[t] is not td._type):
        raise _Mismatch(
            f"expected {_node_desc(td)}, got {type(x).__name__} {_short(x)}", _jax_kind_mismatch(td, x)
        )
    if k == _TUPLE or k == _LIST or k == _NAMEDTUPLE:
        children = x
        if len(x) != len(td._children):
            what = "Named tuple" if k == _NAMEDTUPLE else _KIND_NAMES[k].capitalize()
            raise _Mismatch(
                f"expected {_node_desc(td)}, got a {type(x).__name__} of length {len(x)}: {_short(x)}",
                f"{what} arity mismatch: {len(x)} != {len(td._children)}; "
                f"{'list' if k == _LIST else 'tuple'}: {x!r}.",
            )
    elif k == _DICT or k == _ORDEREDDICT or k == _DEFAULTDICT:
        keys = td._data[1] if k == _DEFAULTDICT else td._data
        xkeys = _sorted_keys(x) if k != _ORDEREDDICT else tuple(x)
        if xkeys != keys:
            # (JAX's OrderedDict and defaultdict are custom nodes: their keys are node data)
            jax = (
                f"Dict key mismatch; expected keys: {list(keys)!r}; present keys: {list(xkeys)!r}."
                if k == _DICT
                else f"Mismatch custom node data: {td._data!r} != {_node_data(x, k)!r}; value: {x!r}."
            )
            if set(xkeys) == set(keys) and k == _ORDEREDDICT:
                raise _Mismatch(
                    f"OrderedDict key order differs: expected {list(keys)!r}, got {list(xkeys)!r}", jax
                )
            raise _Mismatch(f"dict key mismatch: expected keys {list(keys)!r}, got {list(xkeys)!r}", jax)
        if k == _DEFAULTDICT and x.default_factory != td._data[0]:
            raise _Mismatch(
                f"defaultdict default_factory mismatch: expected {td._data[0]!r}, got {x.default_factory!r}",
                f"Mismatch custom node data: {td._data!r} != {_node_data(x, k)!r}; value: {x!r}.",
            )
        children = [x[key] for key in keys]
    else:
        children, aux = td._type.flatten(x)
        children = list(children)
        if aux != td._data:
            what = "custom dataclass node" if _is_dataclass_node(td) else "custom node"
            raise _Mismatch(
                f"{t.__name__} node data mismatch: expected {_short(td._data)}, got {_short(aux)}",
                f"Mismatch {what} data: {td._data!r} != {aux!r}; value: {x!r}.",
            )
        if len(children) != len(td._children):
            raise _Mismatch(
                f"{t.__name__} node arity mismatch: expected {len(td._children)} "
                f"children, got {len(children)}",
                f"Custom type arity mismatch: {len(children)} != {len(td._children)}; value: {x!r}.",
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
      ValueError: if ``prefix_tree`` is not a prefix of ``full_tree``: JAX's, at the key path
        of the first difference.

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
        error = prefix_error("broadcast_prefix prefix_tree", prefix_tree, full_tree, _none_or(is_leaf))
        raise error or ValueError(f"Tree prefix mismatch at {_path_str(e.path)}: {e.msg}.") from None
    result: list[Any] = []
    for p, sub in zip(prefix_leaves, subtrees):
        n = len(tree_leaves(sub))
        if n == 1:
            result.append(p)
        elif n:
            result.extend([p] * n)
    return result


def prefix_error(name: str, prefix_tree: Any, full_tree: Any, is_leaf=None) -> ValueError | None:
    """JAX's ValueError for the first place ``full_tree`` does not match ``prefix_tree`` (a leaf
    of the prefix matches any subtree), its key path written after ``name``; None if they match.

    >>> print(prefix_error("tree_map tree", (1, 2, 3), (1, 2)))  # doctest: +ELLIPSIS
    pytree structure error: different lengths of tuple at key path
        tree_map tree
    At that key path, the prefix pytree tree_map tree has a subtree of type tuple of length 3, ...
    """
    errors = prefix_errors(name, prefix_tree, full_tree, is_leaf)
    return errors[0] if errors else None


def axes_prefix_error(name: str, prefix_tree: Any, full_tree: Any, is_leaf=None) -> ValueError:
    """What JAX raises when an axis specification (``vmap in_axes``, ...) is not a prefix of the
    value it describes: every mismatch, each at its key path."""
    details = "\n  ".join(e.args[0] for e in prefix_errors(name, prefix_tree, full_tree, is_leaf))
    errors = details.count("pytree structure error")
    return ValueError(
        f"{name} specification must be a tree prefix of the corresponding value; "
        f"\n  Mismatch details ({errors} found):\n  {details}"
    )


def prefix_errors(name: str, prefix_tree: Any, full_tree: Any, is_leaf=None) -> list[ValueError]:
    """JAX's ValueError for each place ``full_tree`` does not match ``prefix_tree`` (none below a
    mismatch), in key-path order."""
    from .one_level import flatten_one_level, flatten_one_level_with_keys

    found: list[Callable[[], str]] = []

    def first(path: tuple, prefix: Any, full: Any) -> Callable[[], str] | None:
        """The mismatch at this node, else None after collecting its children's."""
        if tree_structure(prefix, is_leaf=is_leaf)._kind == _LEAF:
            return None
        at = f"    {name}{keystr(path)}\nAt that key path, the prefix pytree {name} has a subtree of type"
        if type(prefix) is not type(full):
            return lambda: (
                f"pytree structure error: different types at key path\n{at}\n    {type(prefix)}\n"
                f"but at the same key path the full pytree has a subtree of different type\n    {type(full)}."
            )
        children, meta = flatten_one_level(prefix)
        full_children, full_meta = flatten_one_level(full)
        children, full_children = tuple(children), tuple(full_children)
        keys = [k for k, _ in flatten_one_level_with_keys(prefix)[0]]
        full_keys = [k for k, _ in flatten_one_level_with_keys(full)[0]]
        if isinstance(prefix, (list, tuple)):
            if len(prefix) != len(full):
                kind = type(prefix).__name__
                return lambda: (
                    f"pytree structure error: different lengths of {kind} at key path\n{at} {kind} of "
                    f"length {len(prefix)}, but the full pytree has a subtree of the same type but of "
                    f"length {len(full)}."
                )
        elif len(children) != len(full_children):

            def names(ks):
                return " ".join(str(getattr(k, "key", k)) for k in ks)

            try:
                diff: str | None = names(set(keys) ^ set(full_keys))
            except TypeError:
                diff = None
            return lambda: (
                f"pytree structure error: different numbers of pytree children at key path\n{at}\n"
                f"    {type(prefix)}\nwith {len(children)} child keys\n    {names(keys)}\n"
                f"but at the same key path the full pytree has a subtree of the same type but with "
                f"{len(full_children)} child keys\n    {names(full_keys)}\n"
                + ("" if diff is None else f"so the symmetric difference on key sets is\n    {diff}")
            )
        if meta != full_meta:
            import difflib
            import textwrap

            a, b = str(meta), str(full_meta)
            diff_lines = textwrap.indent("\n".join(difflib.ndiff(a.splitlines(), b.splitlines())), "    ")
            return lambda: (
                f"pytree structure error: different pytree metadata at key path\n{at}\n    {type(prefix)}\n"
                f"with metadata\n    {a}\nbut at the same key path the full pytree has a subtree of the "
                f"same type but with metadata\n    {b}\nso the diff in the metadata at these pytree "
                f"nodes is\n{diff_lines}"
            )
        for k, c, fc in zip(keys, children, full_children):
            here = first((*path, k), c, fc)
            if here is not None:
                found.append(here)
        return None

    top = first((), prefix_tree, full_tree)
    return [ValueError(message()) for message in ([top] if top is not None else found)]
