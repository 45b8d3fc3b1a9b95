"""XLA's HLO text for SPMD programs (``shard_map``, pmap, collectives, sharding constraints), as
JAX 0.10.2 prints it with Shardy (recorded in tests/hlo_text):

1. ``sdy.manual_computation`` becomes a ``xla.sdy.GlobalToLocalShape`` custom call of its operands
   (several: a tuple, read by a get-tuple-element each), a call (``inlineable="false"``) of the
   body's computation ``xla.sdy.manual_computation_body`` (its parameters named after the
   shard_map), and a ``xla.sdy.LocalToGlobalShape`` custom call of the call's results (several:
   tuples again), all named after the shard_map; the shardings and manual axes are frontend
   attributes in Shardy's text.
2. Collectives keep ``channel_id=1`` and the replica groups of mesh positions; an all-reduce's
   region takes parameters named after it and its root after the reducer (``add``, ``max``).
3. ``sdy.sharding_constraint`` is a ``Sharding`` custom call carrying the ``HloSharding``
   (``hlo_sharding``) and Shardy's text.
"""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

import numpy as np

from . import xla_hlo as hlo
from .syntax import Op, Value
from .xla_canonical import _Canonical, _parse_type, _refuse


def escaped(text: str) -> str:
    """A frontend attribute's value as XLA prints it (``"`` escaped)."""
    return text.replace('"', '\\"')


def manual_axes(names: Sequence[str]) -> str:
    return escaped("#sdy<manual_axes{" + ", ".join(f'"{n}"' for n in names) + "}>")


def per_value(shardings: Sequence[str]) -> str:
    """``#sdy.sharding_per_value<[<@mesh, [...]>, ...]>`` of shardings ``<@mesh, [...]>``."""
    return escaped("#sdy.sharding_per_value<[" + ", ".join(shardings) + "]>")


def hlo_sharding(sharding: str, mesh: tuple[Sequence[str], Sequence[int]] | None) -> str:
    """XLA's ``HloSharding`` text of Shardy's ``<@mesh, [{"i"}, {}, {?}]>`` (or ``#sdy.sharding<...>``):
    ``{replicated}``, or the tile per dimension (its axes' sizes; an open dimension is not split),
    the axes left over as a last replicated tile, over the mesh's devices in the order the
    dimensions name axes (``<=[8]``, ``<=[4,2]T(1,0)``: an iota, reshaped and transposed)."""
    m = re.fullmatch(r"(?:#sdy\.sharding)?<@(\w+), \[(.*)\]>", sharding)
    if m is None:
        raise _refuse(f"a sharding {sharding!r}")
    if m.group(1) == "empty_mesh":
        return "{replicated}"
    if m.group(1) != "mesh" or mesh is None:
        raise _refuse(f"a sharding over {m.group(1)!r}")
    names, sizes = list(mesh[0]), [int(s) for s in mesh[1]]
    dims = re.findall(r"\{([^}]*)\}", m.group(2))
    tile, used = [], []
    for d in dims:
        d = d.strip()
        if d in ("", "?"):
            tile.append(1)
            continue
        axes = [a.strip() for a in d.split(",")]
        if any(not (a.startswith('"') and a.endswith('"')) or a[1:-1] not in names for a in axes):
            raise _refuse(f"a sharding {sharding!r}")
        idx = [names.index(a[1:-1]) for a in axes]
        used += idx
        tile.append(math.prod(sizes[i] for i in idx))
    if math.prod(tile) == 1:
        return "{replicated}"
    rest = [i for i in range(len(names)) if i not in used and sizes[i] > 1]
    replicate = math.prod(sizes[i] for i in rest)
    order = [i for i in used if sizes[i] > 1] + rest
    # (XLA's canonical iota: size-1 axes dropped, axes adjacent in both orders merged)
    groups: list[list[int]] = []
    for i in order:
        if groups and groups[-1][-1] + 1 == i:
            groups[-1].append(i)
        else:
            groups.append([i])
    by_mesh = sorted(range(len(groups)), key=lambda g: groups[g][0])
    reshape = [math.prod(sizes[i] for i in groups[g]) for g in by_mesh]
    perm = [by_mesh.index(g) for g in range(len(groups))]
    dev = f"<=[{math.prod(reshape)}]"
    if perm != sorted(perm):
        dev = f"<=[{','.join(map(str, reshape))}]T({','.join(map(str, perm))})"
    tiles = tile + ([replicate] if replicate > 1 else [])
    text = f"devices=[{','.join(map(str, tiles))}]{dev}"
    return "{" + text + (" last_tile_dim_replicate" if replicate > 1 else "") + "}"


def convert_manual(op: Op, canon: _Canonical, of: dict[Value, Any], module: Any, made: list) -> None:
    """``op`` (an ``sdy.manual_computation``) converted into ``made``: see the module's 1."""
    assert op.spec is not None
    a = op.spec.attrs
    root = hlo._sanitize(op.source or "shard_map")
    ins = [of[v] for v in canon.operands(op)]
    (body,) = op.regions
    if not ins or not op.results:
        raise _refuse("a shard_map without operands or results")
    axes = manual_axes(a["manual"])

    def custom_call(target: str, operands: list, types: Sequence[str], frontend: dict) -> list:
        shapes = [hlo.shape_text(t) for t in types]
        attrs = f', custom_call_target="{target}", custom_call_has_side_effect=true'
        aval = shapes[0] if len(shapes) == 1 else hlo._tuple_text(shapes)
        out = module.instr(made, hlo._Instr(root, aval, "custom-call", operands, attrs))
        out.frontend = frontend
        if len(shapes) == 1:
            return [out]
        return [
            module.instr(made, hlo._Instr(root, s, "get-tuple-element", [out], f", index={i}"))
            for i, s in enumerate(shapes)
        ]

    local = custom_call(
        "xla.sdy.GlobalToLocalShape",
        ins,
        [v.type for v in body.args],
        {"xla.sdy.in_shardings": per_value(a["in"]), "xla.sdy.manual_axes": axes},
    )
    # (each body a function of the module first: MLIR's symbol table makes a later one's name unique)
    k = module.manual_bodies
    module.manual_bodies += 1
    title = "xla.sdy.manual_computation_body" + (f"_{k - 1}" if k else "")
    hlo._computation(module, title, body.args, body.ops[:-1], a["returned"], [root] * len(ins))
    title = module.last_title
    aval = module.roots[title]
    call = module.instr(made, hlo._Instr(root, aval, "call", local, f", to_apply={title}"))
    call.frontend = {"inlineable": "false"}
    results = [call]
    if len(op.results) > 1:
        shapes = [hlo.shape_text(v.type) for v in a["returned"]]
        results = []
        for i, s in enumerate(shapes):
            g = module.instr(made, hlo._Instr(root, s, "get-tuple-element", [call], f", index={i}"))
            g.frontend = {"inlineable": "false"}
            results.append(g)
    outs = custom_call(
        "xla.sdy.LocalToGlobalShape",
        results,
        [v.type for v in op.results],
        {"xla.sdy.manual_axes": axes, "xla.sdy.out_shardings": per_value(a["out"])},
    )
    for r, ins_ in zip(op.results, outs):
        of[r] = ins_


def _groups(groups: np.ndarray) -> str:
    return "{" + ",".join("{" + ",".join(str(int(d)) for d in row) + "}" for row in groups) + "}"


# (the reducer's primitive, which names the region's root)
_REDUCER = {"stablehlo.add": "add", "stablehlo.maximum": "max", "stablehlo.minimum": "min"}


def _region(op: Op, name: str, ty: str, module: Any) -> str:
    """The scalar computation an all-reduce or reduce-scatter applies."""
    assert op.spec is not None
    reducer = op.spec.attrs["op"]
    if reducer not in _REDUCER:
        raise _refuse(f"a collective reducing with '{reducer}'")
    scalar = hlo.shape_text(f"tensor<{_parse_type(op.spec.operands[0].type)[1]}>")
    k = module.regions
    module.regions += 1
    made: list = []
    p0 = module.instr(made, hlo._Instr(name, scalar, "parameter", [], "(0)"))
    p1 = module.instr(made, hlo._Instr(name, scalar, "parameter", [], "(1)"))
    root = module.instr(made, hlo._Instr(_REDUCER[reducer], scalar, hlo._PLAIN[reducer], [p0, p1]))
    return module.finish(f"region_{k}", made, root)


def _all_reduce(op: Op, name: str, ins: list, ty: str, canon: Any, module: Any) -> list:
    assert op.spec is not None
    region = _region(op, name, ty, module)
    groups = _groups(op.spec.attrs["groups"])
    attrs = f", channel_id=1, replica_groups={groups}, use_global_device_ids=true, to_apply={region}"
    return [hlo._Instr(name, ty, "all-reduce", ins, attrs)]


def _reduce_scatter(op: Op, name: str, ins: list, ty: str, canon: Any, module: Any) -> list:
    assert op.spec is not None
    a = op.spec.attrs
    region = _region(op, name, ty, module)
    attrs = (
        f", channel_id=1, replica_groups={_groups(a['groups'])}, use_global_device_ids=true, "
        f"dimensions={{{a['dim']}}}, to_apply={region}"
    )
    return [hlo._Instr(name, ty, "reduce-scatter", ins, attrs)]


def _all_gather(op: Op, name: str, ins: list, ty: str, canon: Any, module: Any) -> list:
    assert op.spec is not None
    a = op.spec.attrs
    attrs = f", channel_id=1, replica_groups={_groups(a['groups'])}, dimensions={{{a['dim']}}}, use_global_device_ids=true"
    return [hlo._Instr(name, ty, "all-gather", ins, attrs)]


def _collective_permute(op: Op, name: str, ins: list, ty: str, canon: Any, module: Any) -> list:
    assert op.spec is not None
    attrs = f", channel_id=1, source_target_pairs={_groups(op.spec.attrs['pairs'])}"
    return [hlo._Instr(name, ty, "collective-permute", ins, attrs)]


def _all_to_all(op: Op, name: str, ins: list, ty: str, canon: Any, module: Any) -> list:
    assert op.spec is not None
    a = op.spec.attrs
    if a["split"] != a["concat"]:  # (XLA's conversion of one splitting another dimension: not recorded)
        raise _refuse("an all_to_all concatenating along another dimension than it splits")
    attrs = f", channel_id=1, replica_groups={_groups(a['groups'])}, dimensions={{{a['split']}}}"
    return [hlo._Instr(name, ty, "all-to-all", ins, attrs)]


def _partition_id(op: Op, name: str, ins: list, ty: str, canon: Any, module: Any) -> list:
    return [hlo._Instr(name, ty, "partition-id", [])]


def _sharding_constraint(op: Op, name: str, ins: list, ty: str, canon: Any, module: Any) -> list:
    assert op.spec is not None
    sharding = op.spec.attrs["sharding"]
    out = hlo._Instr(name, ty, "custom-call", ins, ', custom_call_target="Sharding"')
    out.sharding = hlo_sharding(sharding, module.mesh)
    out.frontend = {"xla.sdy.sharding": per_value([sharding])}
    return [out]


hlo.RULES.update(
    {
        "stablehlo.all_reduce": _all_reduce,
        "stablehlo.reduce_scatter": _reduce_scatter,
        "stablehlo.all_gather": _all_gather,
        "stablehlo.collective_permute": _collective_permute,
        "stablehlo.all_to_all": _all_to_all,
        "stablehlo.partition_id": _partition_id,
        "sdy.sharding_constraint": _sharding_constraint,
    }
)
