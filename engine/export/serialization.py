"""``Exported.serialize`` and ``jax.export.deserialize``: an Exported as bytes, and back.

The bytes are a short magic line and JSON: the signature (pytree structures, avals, shardings,
platforms, checks, versions) and the program as ``jaxpr_wire`` data with its constants' values,
then the VJPs up to the requested order, each an Exported of the same form. Nothing in them is
code: primitives are looked up by name in the registry, pytree nodes are builtin containers or
types registered with ``register_pytree_node_serialization``, and ``deserialize`` checks every
field, raising ``ValueError`` for anything else. (JAX's format is a flatbuffer of StableHLO;
the engine's cannot be read by JAX, nor JAX's by the engine.)

>>> import engine as jax, numpy as np
>>> from engine import export
>>> blob = export.export(jax.jit(lambda x: x * 3.0))(np.float32(1)).serialize()
>>> export.deserialize(blob).call(np.float32(2))
Array(6., dtype=float32)
"""

from __future__ import annotations

import collections
import dataclasses
import json
from typing import Any, Callable, Sequence


from .. import narrow_dtypes
from ..backends import jaxpr_wire
from ..core import ShapedArray
from ..pytree.flatten import tree_structure
from ..pytree.treedef import PyTreeDef
from . import _export, shape_poly
from ._export import DisabledSafetyCheck, Exported

MAGIC = b"jaxplay-exported\n"
FORMAT = 1
# An Exported's program may be larger than a sandboxed run's kernel request.
LIMITS = jaxpr_wire.Limits(equations=200_000, values=2_000_000, const_bytes=1 << 30)


class DeserializationError(ValueError):
    """The bytes are not an Exported this engine serialized (or they were altered)."""


# ---------------------------------------------------------------------------------------------
# Pytree nodes of types other than the builtin containers.

# type -> (serialized name, serialize aux data)
serialization_registry: dict[type, tuple[str, Callable[[Any], bytes]]] = {}
# serialized name -> (type, deserialize aux data, build from (aux data, children))
deserialization_registry: dict[
    str, tuple[type, Callable[[bytes], Any], Callable[[Any, Sequence[Any]], Any]]
] = {}


def register_pytree_node_serialization(
    nodetype: type,
    *,
    serialized_name: str,
    serialize_auxdata: Callable[[Any], bytes],
    deserialize_auxdata: Callable[[bytes], Any],
    from_children: Callable[[Any, Sequence[Any]], Any] | None = None,
) -> type:
    """Let ``in_tree``/``out_tree`` pytrees with nodes of ``nodetype`` be serialized: its aux data
    travels as the bytes ``serialize_auxdata`` makes, under ``serialized_name``. Returns
    ``nodetype`` (usable as a class decorator)."""
    from ..pytree.treedef import _registry

    if nodetype in serialization_registry:
        raise ValueError(
            f"Duplicate serialization registration for type `{nodetype}`. Previous registration was with "
            f"serialized_name `{serialization_registry[nodetype][0]}`."
        )
    if serialized_name in deserialization_registry:
        raise ValueError(
            f"Duplicate serialization registration for serialized_name `{serialized_name}`. Previous "
            f"registration was for type `{deserialization_registry[serialized_name][0]}`."
        )
    if from_children is None:
        if nodetype not in _registry:
            raise ValueError(
                "If `from_children` is not present, you must call first"
                f"`jax.tree_util.register_pytree_node` for `{nodetype}`"
            )
        from_children = _registry[nodetype].unflatten
    serialization_registry[nodetype] = (serialized_name, serialize_auxdata)
    deserialization_registry[serialized_name] = (nodetype, deserialize_auxdata, from_children)
    return nodetype


def register_namedtuple_serialization(nodetype: type, *, serialized_name: str) -> type:
    """Let pytrees with ``nodetype`` (a ``collections.namedtuple``) nodes be serialized."""
    fields = getattr(nodetype, "_fields", None)
    if not (
        issubclass(nodetype, tuple) and isinstance(fields, tuple) and all(isinstance(f, str) for f in fields)
    ):
        raise ValueError(
            "Use `jax.export.register_pytree_node_serialization` for types other than `collections.namedtuple`."
        )
    return register_pytree_node_serialization(
        nodetype,
        serialized_name=serialized_name,
        serialize_auxdata=lambda _: json.dumps(list(fields)).encode("utf-8"),
        deserialize_auxdata=lambda b: json.loads(b.decode("utf-8")),
        from_children=lambda keys, children: nodetype(**dict(zip(keys, children))),
    )


register_pytree_node_serialization(
    collections.OrderedDict,
    serialized_name="collections.OrderedDict",
    serialize_auxdata=lambda keys: json.dumps(list(keys)).encode("utf-8"),
    deserialize_auxdata=lambda b: json.loads(b.decode("utf-8")),
    from_children=lambda keys, children: collections.OrderedDict(zip(keys, children)),
)


def _tree(t: PyTreeDef) -> Any:
    children = [_tree(c) for c in t.children()]
    if t.is_leaf():
        return "*"
    kind = t.node_type
    data = t.node_data()[1]  # type: ignore[index]
    if kind is type(None):
        return None
    if kind is tuple or kind is list:
        return {kind.__name__: children}
    if kind is dict:
        for k in data:
            if not isinstance(k, str):
                raise TypeError(
                    f"Serialization is supported only for dictionaries with string keys. Found key {k} of type {type(k)}."
                )
        return {"dict": children, "keys": list(data)}
    if kind in serialization_registry:
        name, ser = serialization_registry[kind]
        if kind is collections.OrderedDict and not all(isinstance(k, str) for k in data):
            raise NotImplementedError(
                "Serialization of collections.OrderedDict is supported only when the keys are strings. "
                f"Found keys: {data}."
            )
        aux = ser(data)
        if not isinstance(aux, (bytes, bytearray)):
            raise ValueError(
                f"The custom serialization function for `node_type` must return a `bytes` object. It returned a {type(aux)}."
            )
        return {"custom": name, "aux": bytes(aux).hex(), "children": children}
    raise ValueError(
        f"Cannot serialize PyTreeDef containing an unregistered type `{kind}`. "
        "Use `export.register_pytree_node_serialization` or `export.register_namedtuple_serialization`."
    )


def _untree(d: Any, depth: int = 0) -> Any:
    """The pytree (leaves 0.0) that ``_tree`` described; its structure is the treedef."""
    if depth > 100:
        raise DeserializationError("pytree nested too deep")
    if d == "*":
        return 0.0
    if d is None:
        return None
    if type(d) is not dict:
        raise DeserializationError("malformed pytree")
    if set(d) in ({"tuple"}, {"list"}, {"dict", "keys"}):
        kind = next(iter(d)) if "keys" not in d else "dict"
        children = _list(d[kind], "pytree")
        kids = [_untree(c, depth + 1) for c in children]
        if kind == "dict":
            keys = _list(d["keys"], "pytree keys")
            if len(keys) != len(kids) or not all(type(k) is str for k in keys):
                raise DeserializationError("malformed dict node")
            return dict(zip(keys, kids))
        return tuple(kids) if kind == "tuple" else kids
    if set(d) == {"custom", "aux", "children"}:
        name = d["custom"]
        if type(name) is not str or name not in deserialization_registry:
            raise ValueError(
                f"Cannot deserialize a PyTreeDef containing an unregistered type `{name}`. "
                "Use `export.register_pytree_node_serialization` or `export.register_namedtuple_serialization`."
            )
        _, de, build = deserialization_registry[name]
        try:
            aux = bytes.fromhex(d["aux"])
        except (TypeError, ValueError):
            raise DeserializationError("malformed aux data") from None
        return build(de(aux), [_untree(c, depth + 1) for c in _list(d["children"], "pytree")])
    raise DeserializationError("malformed pytree")


# ---------------------------------------------------------------------------------------------
# Avals and shardings.


def _aval(a: ShapedArray) -> list:
    # (weak types are not kept, as in JAX's format: a deserialized function's results are strong)
    shape = [{"dim": str(n)} if shape_poly.is_symbolic_dim(n) else n for n in a.shape]
    return [shape, jaxpr_wire._export_dtype(a.dtype) or a.dtype.name]


def _unaval(d: Any, scope: shape_poly.SymbolicScope) -> ShapedArray:
    ok = type(d) is list and len(d) == 2 and type(d[0]) is list and len(d[0]) <= 32
    if not ok or not all((type(n) is int and 0 <= n < 1 << 40) or _is_dim_text(n) for n in d[0]):
        raise DeserializationError("malformed aval")
    shape = tuple(n if type(n) is int else _parse_dim(n["dim"], scope) for n in d[0])
    if d[1] in jaxpr_wire._export_dtypes():  # (float0: integers' cotangents in VJPs; PRNG key types)
        return ShapedArray(shape, jaxpr_wire._export_dtypes()[d[1]])
    if type(d[1]) is not str or d[1] not in jaxpr_wire.DTYPES:
        raise DeserializationError(f"unknown dtype {str(d[1])[:20]!r}")
    return ShapedArray(shape, narrow_dtypes.to_dtype(d[1]))


def _is_dim_text(n: Any) -> bool:
    return type(n) is dict and set(n) == {"dim"} and type(n["dim"]) is str and len(n["dim"]) <= 200


def _parse_dim(text: str, scope: shape_poly.SymbolicScope) -> Any:
    try:
        (out,) = shape_poly.symbolic_shape(text, scope=scope)
    except (ValueError, TypeError, ArithmeticError):
        raise DeserializationError(f"malformed symbolic dimension {text[:40]!r}") from None
    return out


def _constraints(exp: Exported) -> list[str]:
    """The constraints of the symbolic scope of the exported shapes (JAX serializes them too)."""
    for a in exp.in_avals:
        for n in a.shape:
            if shape_poly.is_symbolic_dim(n):
                return [text for _, _, text in n.scope._constraints]
    return []


def _scope(constraints: Any) -> shape_poly.SymbolicScope:
    if type(constraints) is not list or len(constraints) > 64:
        raise DeserializationError("malformed symbolic constraints")
    if not all(type(c) is str and len(c) <= 200 for c in constraints):
        raise DeserializationError("malformed symbolic constraints")
    try:
        return shape_poly.SymbolicScope(tuple(constraints))
    except (ValueError, TypeError, ArithmeticError, NotImplementedError):
        raise DeserializationError("malformed symbolic constraints") from None


def _sharding(s) -> Any:
    if s is None:
        return None
    m = s.mesh
    spec = [list(e) if isinstance(e, tuple) else e for e in s.spec]
    return {
        "mesh": [list(m.axis_sizes), list(m.axis_names), [t.name for t in m.axis_types]],
        "device": None if m.abstract_device is None else m.abstract_device.platform,
        "spec": spec,
        "memory_kind": s.memory_kind,
    }


def _unsharding(d: Any):
    from ..sharding import CPU_DEVICE, AbstractMesh, AxisType, NamedSharding, PartitionSpec

    if d is None:
        return None
    if type(d) is not dict or set(d) != {"mesh", "device", "spec", "memory_kind"}:
        raise DeserializationError("malformed sharding")
    sizes, names, types = _list(d["mesh"], "mesh")
    if not (all(type(n) is int for n in sizes) and all(type(n) is str for n in names)):
        raise DeserializationError("malformed mesh")
    if not all(type(t) is str and t in AxisType.__members__ for t in types):
        raise DeserializationError("malformed mesh axis types")
    entries = []
    for e in _list(d["spec"], "spec"):
        if type(e) is list and all(type(a) is str for a in e):
            entries.append(tuple(e))
        elif e is None or type(e) is str:
            entries.append(e)
        else:
            raise DeserializationError("malformed partition spec")
    device = CPU_DEVICE if d["device"] == "cpu" else None
    mesh = AbstractMesh(tuple(sizes), tuple(names), tuple(AxisType[t] for t in types), abstract_device=device)
    return NamedSharding(mesh, PartitionSpec(*entries), memory_kind=d["memory_kind"])


def _list(x: Any, what: str) -> list:
    if type(x) is not list:
        raise DeserializationError(f"malformed {what}")
    return x


# ---------------------------------------------------------------------------------------------
# The Exported.


def _program(exp: Exported) -> dict:
    try:
        return jaxpr_wire.encode(exp._program, "main", for_export=True)
    except jaxpr_wire.WireError as e:
        raise NotImplementedError(
            f"The exported function {exp.fun_name!r} cannot be serialized: {e}"
        ) from None


def program_bytes(exp: Exported) -> bytes:
    return json.dumps(_program(exp), separators=(",", ":")).encode("utf-8")


def _exported(exp: Exported, vjp_order: int) -> dict:
    return {
        "fun_name": exp.fun_name,
        "in_tree": _tree(exp.in_tree),
        "in_avals": [_aval(a) for a in exp.in_avals],
        "out_tree": _tree(exp.out_tree),
        "out_avals": [_aval(a) for a in exp.out_avals],
        "in_shardings": [_sharding(s) for s in exp._in_named_shardings],
        "out_shardings": [_sharding(s) for s in exp._out_named_shardings],
        "nr_devices": exp.nr_devices,
        "platforms": list(exp.platforms),
        "disabled_checks": [str(c) for c in exp.disabled_safety_checks],
        "calling_convention_version": exp.calling_convention_version,
        "module_kept_var_idx": list(exp.module_kept_var_idx),
        "arg_names": list(exp._arg_names),
        "symbolic_constraints": _constraints(exp),
        "program": _program(exp),
        "vjp": _exported(exp.vjp(), vjp_order - 1) if vjp_order > 0 else None,
    }


def serialize(exp: Exported, vjp_order: int = 0) -> bytearray:
    if type(vjp_order) is not int or vjp_order < 0:
        raise ValueError(f"vjp_order must be a non-negative integer, got {vjp_order!r}")
    data = {"format": FORMAT, "exported": _exported(exp, vjp_order)}
    return bytearray(MAGIC + json.dumps(data, separators=(",", ":")).encode("utf-8"))


_FIELDS = {
    "fun_name",
    "in_tree",
    "in_avals",
    "out_tree",
    "out_avals",
    "in_shardings",
    "out_shardings",
    "nr_devices",
    "platforms",
    "disabled_checks",
    "calling_convention_version",
    "module_kept_var_idx",
    "arg_names",
    "symbolic_constraints",
    "program",
    "vjp",
}


def _unexported(d: Any, depth: int = 0) -> Exported:
    if type(d) is not dict or set(d) != _FIELDS or depth > 16:
        raise DeserializationError("malformed Exported")
    # (names reach generated code as jit names: the wire's safe alphabet only)
    if (
        type(d["fun_name"]) is not str
        or len(d["fun_name"]) > 200
        or not jaxpr_wire.SAFE_STRING.fullmatch(d["fun_name"])
    ):
        raise DeserializationError("malformed fun_name")
    in_tree, out_tree = tree_structure(_untree(d["in_tree"])), tree_structure(_untree(d["out_tree"]))
    scope = _scope(d["symbolic_constraints"])  # (one scope for the shapes of this Exported)
    in_avals = tuple(_unaval(a, scope) for a in _list(d["in_avals"], "in_avals"))
    out_avals = tuple(_unaval(a, scope) for a in _list(d["out_avals"], "out_avals"))
    in_shardings = tuple(_unsharding(s) for s in _list(d["in_shardings"], "in_shardings"))
    out_shardings = tuple(_unsharding(s) for s in _list(d["out_shardings"], "out_shardings"))
    platforms = tuple(_list(d["platforms"], "platforms"))
    checks = tuple(_list(d["disabled_checks"], "disabled_checks"))
    kept = tuple(_list(d["module_kept_var_idx"], "module_kept_var_idx"))
    arg_names = tuple(_list(d["arg_names"], "arg_names"))
    version = d["calling_convention_version"]
    ok = (
        in_tree.num_leaves == len(in_avals) == len(in_shardings)
        and out_tree.num_leaves == len(out_avals) == len(out_shardings)
        and type(d["nr_devices"]) is int
        and d["nr_devices"] >= 1
        and all(type(p) is str and len(p) < 100 for p in platforms)
        and all(type(c) is str and len(c) < 1000 for c in checks)
        and all(type(i) is int and 0 <= i < len(in_avals) for i in kept)
        and type(version) is int
        and len(arg_names) <= len(in_avals)
        and all(
            type(n) is str and n.isprintable() and not set(n) & set('"\\') and len(n) < 200 for n in arg_names
        )
    )
    if not ok:
        raise DeserializationError("malformed Exported")
    try:
        program = jaxpr_wire.decode(d["program"], LIMITS, for_export=True, scope=scope).closed
    except jaxpr_wire.WireError as e:
        raise DeserializationError(f"malformed program: {e}") from None
    if [(a.shape, a.dtype) for a in program.in_avals] != [(a.shape, a.dtype) for a in in_avals]:
        raise DeserializationError("the program's inputs do not match in_avals")
    if [(a.shape, a.dtype) for a in program.out_avals] != [(a.shape, a.dtype) for a in out_avals]:
        raise DeserializationError("the program's outputs do not match out_avals")
    vjp = None if d["vjp"] is None else _unexported(d["vjp"], depth + 1)
    exp = _export._make_exported(
        fun_name=d["fun_name"],
        in_tree=in_tree,
        in_avals=in_avals,
        out_tree=out_tree,
        out_avals=out_avals,
        in_shardings=in_shardings,
        out_shardings=out_shardings,
        nr_devices=d["nr_devices"],
        platforms=platforms,
        checks=tuple(DisabledSafetyCheck(c) for c in checks),
        version=version,
        kept=kept,
        arg_names=arg_names,
        program=program,
    )
    return dataclasses.replace(exp, _get_vjp=None if vjp is None else (lambda _: vjp))


def deserialize(blob: bytes | bytearray) -> Exported:
    """The Exported ``blob`` (from ``Exported.serialize``) describes; refuses anything else with
    a ``ValueError``.

    >>> import engine as jax
    >>> from engine import export
    >>> export.deserialize(export.export(jax.jit(jax.numpy.cos))(1.0).serialize()).fun_name
    'cos'
    """
    if not isinstance(blob, (bytes, bytearray, memoryview)):
        raise TypeError(
            f"deserialize expects the bytes Exported.serialize returned, got {type(blob).__name__}"
        )
    blob = bytes(blob)
    if not blob.startswith(MAGIC):
        raise DeserializationError(
            "not an Exported serialized by this engine (JAX's flatbuffers are not read)"
        )
    try:
        d = json.loads(blob[len(MAGIC) :].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise DeserializationError("malformed serialized Exported") from None
    if type(d) is not dict or d.get("format") != FORMAT or set(d) != {"format", "exported"}:
        raise DeserializationError("unknown serialization format")
    return _unexported(d["exported"])
