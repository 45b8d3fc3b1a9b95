"""Registering custom pytree node types (``register_pytree_node`` and its class/dataclass forms)."""

from __future__ import annotations

import collections
import dataclasses
from typing import Any, Callable, Hashable, Iterable

from .keys import GetAttrKey
from .treedef import (
    _DEFAULTDICT,
    _DICT,
    _LIST,
    _NONE,
    _ORDEREDDICT,
    _TUPLE,
    _kind_cache,
    _Registration,
    _registry,
)


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

      >>> from engine.tree_util import tree_leaves
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

      >>> from engine.tree_util import keystr, tree_flatten_with_path
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

      >>> from engine.tree_util import tree_leaves
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

      >>> from engine.tree_util import tree_flatten
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

      >>> from engine.tree_util import tree_leaves
      >>> @register_static
      ... class Cfg:
      ...   def __hash__(self): return 0
      ...   def __eq__(self, o): return isinstance(o, Cfg)
      >>> tree_leaves([Cfg(), 1])
      [1]
    """
    register_pytree_node(cls, lambda x: ((), x), lambda x, _: x)
    return cls
