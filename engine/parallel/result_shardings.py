"""The shardings JAX 0.10.2 gives the results of a program that runs on one device, when an
argument is laid out by a ``NamedSharding`` over a one-device mesh.

XLA does not partition a one-device program: it reports every result replicated. JAX then says it
again in the user's terms (``pxla.maybe_recover_user_shardings``), from the arguments the program
uses (unused ones are pruned before compiling):

- the first committed argument names the kind of sharding: a ``SingleDeviceSharding`` leaves the
  results single-device (the engine's default), a ``NamedSharding`` gives them its mesh;
- uncommitted arguments (a plain array, a Python number) take that mesh with the spec ``P()``, so
  the program's first used argument is the pattern;
- a result of the pattern's rank, typed over its mesh (computed from a committed ``NamedSharding``
  argument; a constant is not) and in the same memory gets the pattern's sharding as it is; any
  other result gets the mesh, spec ``P()`` and its own memory kind.

An eager operation is such a program of one equation (every operand used).
"""

from __future__ import annotations

import weakref
from typing import Sequence

import numpy as np

from .. import core
from ..ir import ClosedJaxpr, Var, dce_jaxpr
from ..sharding import NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding


def _committed(x) -> Sharding | None:
    """The sharding of a committed argument (put on a device or a mesh), None for an uncommitted
    one (a computed array on the default device, a number)."""
    if type(x) is core.Array or not isinstance(x, core.Array):
        return None
    if x.on_mesh or x.on_one_device_mesh:
        return x.sharding  # type: ignore[attr-defined]  # (engine.parallel.named's property)
    buffers = getattr(x, "_buffers", None)
    if not buffers:  # (a donated, deleted array: the call refuses it later)
        return None
    return x.sharding  # type: ignore[attr-defined]


def _device_ids(x) -> list[int] | None:
    """The devices a committed array is on (None for an uncommitted one)."""
    if not isinstance(x, core.Array) or not x.committed or getattr(x, "_buffers", None) == []:
        return None
    return sorted(d.id for d in x.sharding.device_set)


def _typed(x) -> str:
    aval = core.get_aval(x)
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def check_one_device(args: Sequence, names: Sequence[str], fun_name: str) -> None:
    """JAX's refusal of a computation whose committed arguments are on different devices: it
    names the first committed argument and the first committed on other devices than it."""
    first = None
    for a, name in zip(args, names):
        ids = _device_ids(a)
        if ids is None:
            continue
        if first is None:
            first = (a, name, ids)
        elif ids != first[2]:
            (a0, name0, ids0) = first
            raise ValueError(
                "Received incompatible devices for jitted computation. Got argument "
                f"{name0} of {fun_name} with shape {_typed(a0)} and with device ids {ids0} on platform CPU "
                f"and argument {name} of {fun_name} with shape {_typed(a)} and with device ids {ids} on "
                "platform CPU"
            )


def _equivalent(a: Sharding, b: Sharding, shape: tuple[int, ...]) -> bool:
    """The same layout of an array of ``shape`` in the same memory (JAX's ``is_equivalent_to``)."""
    if a.memory_kind != b.memory_kind or a.device_set != b.device_set:
        return False
    if len(a.device_set) == 1:
        return True
    try:
        return a.devices_indices_map(shape) == b.devices_indices_map(shape)  # type: ignore[attr-defined]
    except ValueError:  # (a spec that does not divide the shape lays out no array of it)
        return False


def recover_shardings(
    args: Sequence, out_avals: Sequence, carry_mesh: Sequence[bool], computed: Sequence[Sharding]
) -> list[Sharding]:
    """Each result's sharding by JAX's rule, from the sharding the program computed it in
    (``computed``). ``args`` are the arguments the program uses; ``carry_mesh[k]`` says whether
    result ``k``'s type is over the committed arguments' mesh."""
    committed = [_committed(a) for a in args]
    first = next((s for s in committed if isinstance(s, (NamedSharding, SingleDeviceSharding))), None)
    if isinstance(first, SingleDeviceSharding) and first.memory_kind == "device":
        # (computed on the committed argument's device: results in device memory are there)
        return [
            first if isinstance(s, SingleDeviceSharding) and s.memory_kind == "device" else s
            for s in computed
        ]
    if not isinstance(first, NamedSharding):
        return list(computed)
    pattern = committed[0]
    if not isinstance(pattern, NamedSharding):  # (an uncommitted argument: replicated on the mesh)
        pattern = NamedSharding(first.mesh, PartitionSpec())
    rank = np.ndim(args[0])
    out: list[Sharding] = []
    for aval, carries, s in zip(out_avals, carry_mesh, computed):
        if not isinstance(aval, core.ShapedArray) or isinstance(aval.dtype, core.ExtendedDType):
            out.append(s)  # (tokens, typed keys: left as they are)
        elif isinstance(s, NamedSharding) and s.mesh.explicit_axes:
            out.append(s)  # (over Explicit axes the sharding is the result's type, spelled in full)
        elif aval.ndim == rank and carries and _equivalent(s, pattern, aval.shape):
            out.append(pattern)
        elif isinstance(s, NamedSharding) and s.mesh == pattern.mesh:
            out.append(s)
        elif len(s.device_set) == 1:  # (one device: replicated over the pattern's mesh)
            out.append(NamedSharding(pattern.mesh, PartitionSpec(), memory_kind=s.memory_kind))
        else:
            out.append(s)
    return out


def mesh_result_shardings(
    kept: Sequence, out_avals: Sequence, carry_mesh: Sequence[bool], computed: Sequence[NamedSharding]
) -> list[NamedSharding]:
    """``recover_shardings`` for a program run on a mesh, keeping a result's buffers in their
    order: a recovered sharding over other devices (or an order of them) is not taken."""
    recovered = recover_shardings(kept, out_avals, carry_mesh, computed) if kept else computed
    return [
        s if isinstance(s, NamedSharding) and list(s.mesh.devices.flat) == list(c.mesh.devices.flat) else c
        for s, c in zip(recovered, computed)
    ]


_program_facts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _used_and_carried(closed: ClosedJaxpr, on_mesh: tuple[bool, ...]) -> tuple[list[bool], list[bool]]:
    """Which inputs the program uses once dead code is dropped, and which results are computed
    from an input typed over a mesh (``on_mesh``)."""
    per = _program_facts.setdefault(closed, {})
    hit = per.get(on_mesh)
    if hit is None:
        jaxpr = dce_jaxpr(closed.jaxpr)
        live = {v for e in jaxpr.eqns for v in e.inputs if type(v) is Var}
        live.update(v for v in jaxpr.outs if type(v) is Var)
        carried = {v for v, m in zip(jaxpr.in_binders, on_mesh) if m}
        for eqn in jaxpr.eqns:
            if any(type(v) is Var and v in carried for v in eqn.inputs):
                carried.update(eqn.out_binders)
        hit = per[on_mesh] = (
            [v in live for v in jaxpr.in_binders],
            [type(v) is Var and v in carried for v in jaxpr.outs],
        )
    return hit


def used_arguments(closed: ClosedJaxpr, args: Sequence) -> tuple[list, list[bool]]:
    """The arguments ``closed`` uses, and for each result whether it is over their mesh."""
    on_mesh = tuple(
        bool(getattr(a, "on_mesh", False) or getattr(a, "on_one_device_mesh", False)) for a in args
    )
    used, carried = _used_and_carried(closed, on_mesh)
    return [a for a, u in zip(args, used) if u], carried


def place_jit_results(closed: ClosedJaxpr, args: Sequence, results: list) -> list:
    """A one-device jit's results, laid out as JAX reports them (see the module docstring)."""
    from .named import put_sharded

    if not any(getattr(a, "on_one_device_mesh", False) for a in args):
        return results
    check_one_device(args, [f"args[{i}]" for i in range(len(args))], "jit")  # (a bind with no names)
    kept, carried = used_arguments(closed, args)
    if not kept:
        return results
    computed = [r.sharding if isinstance(r, core.Array) else None for r in results]
    typed = _explicit_types(closed, args, computed)
    shardings = recover_shardings(kept, closed.out_avals, carried, typed)  # type: ignore[arg-type]
    return [r if s is c else put_sharded(r, s) for r, s, c in zip(results, shardings, computed)]


def _explicit_types(closed: ClosedJaxpr, args: Sequence, computed: list) -> list:
    """``computed``, with each array result over a one-device mesh of Explicit axes given the
    sharding its type says (JAX's result is laid out as typed: ``x.T`` of ``f32[8,4@x]`` is
    ``P('x', None)``), in the memory it was computed in."""
    from .partition import one_device_types

    types = one_device_types(closed, args)
    if types is None:
        return computed
    return [
        c
        if t is None or not isinstance(c, Sharding) or isinstance(aval.dtype, core.ExtendedDType)
        else t.with_memory_kind(c.memory_kind)
        for aval, t, c in zip(closed.out_avals, types, computed)
    ]


def laid_out_like(a, out, weak: bool):
    """JAX's ``lax.full_like``: an array of ``a``'s shape (or any shape, if ``a`` is replicated)
    made from an array laid out on a mesh is laid out as ``a`` (not for a weak ``a``); inside a
    checked shard_map it varies over the mesh axes ``a`` varies over."""
    vma = getattr(core.get_aval(a), "vma", ()) if core.vma_checking[0] else ()
    if vma:
        from ..lax.varying import pvary_to

        return pvary_to(out, vma)
    if weak or not (getattr(a, "on_mesh", False) or getattr(a, "on_one_device_mesh", False)):
        return out
    if not isinstance(out, core.Array) or (out.shape != a.shape and not a.sharding.is_fully_replicated):
        return out
    from .named import put_sharded

    return put_sharded(out, a.sharding)
