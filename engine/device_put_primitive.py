"""The ``device_put`` primitive: what ``jax.device_put`` stages when it is given traced values (in
``make_jaxpr``, ``jit``, ``grad``...). JAX's jaxprs show it, e.g. in ``scipy.sparse.linalg.cg``, which
device_puts its ``(b, x0)``:

    v3:f32[3] v4:f32[3] = device_put[
      copy_semantics=(ArrayCopySemantics.REUSE_INPUT, ArrayCopySemantics.REUSE_INPUT)
      devices=(None, None)
      srcs=(None, None)
    ] v0 v1

Its results are typed in the memory space their target names (a sharding's ``pinned_host`` kind,
or a ``MemorySpace``: ``f32<host>[3]``). On the engine's one memory it is an identity on the values
(a placement onto a device or a sharding happens on concrete arrays, in
``engine.parallel.sharded.device_put``; eagerly, a put into host memory labels its result so). It is
linear: its JVP puts the tangents, its transpose puts the cotangents back from ``devices`` to
``srcs`` (to ``MemorySpace.Host`` when the primal came from there), with ``ALWAYS_COPY`` as JAX's
transpose asks.
"""

from __future__ import annotations

import enum
from typing import Any

from . import ad, batching
from .core import (
    Array,
    MemorySpace,
    Primitive,
    ShapedArray,
    mem_kind_to_space,
    mem_space_to_kind,
)
from .memory_spaces import memory_space_rules

__all__ = ["ArrayCopySemantics", "device_put_p", "stage_device_put"]


class ArrayCopySemantics(enum.Enum):
    """Whether a put may hand back its input buffer (``REUSE_INPUT``), must copy (``ALWAYS_COPY``) or
    may take the input over (``DONATE_INPUT``); printed as JAX prints xla_client's enum."""

    ALWAYS_COPY = 0
    REUSE_INPUT = 1
    DONATE_INPUT = 2

    def __repr__(self) -> str:
        return f"ArrayCopySemantics.{self.name}"

    __str__ = __repr__


device_put_p = Primitive("device_put", multiple_results=True)
device_put_p.weak_from_abstract_eval = True  # each output as weak as its own input
device_put_p.def_impl(lambda *xs, devices, srcs, copy_semantics: [_placed(x, d) for x, d in zip(xs, devices)])
device_put_p.takes_arrays = True  # (eagerly it places arrays: see _placed)


def _placed(x: Any, device: Any) -> Any:
    """An eager operand (a grad's primal, say) where a put to ``device`` leaves it: in host memory
    when that is the result's memory space, as its type says, else in device memory. (Compiled
    programs' values are numpy arrays, all in the one memory: they pass as they are.)"""
    if not isinstance(x, Array):
        return x
    space = (
        device if isinstance(device, MemorySpace) else mem_kind_to_space(getattr(device, "memory_kind", None))
    )
    if space is MemorySpace.Host:
        from .parallel.named import put_in_memory, put_sharded
        from .sharding import Mesh, NamedSharding

        if isinstance(device, NamedSharding) and isinstance(device.mesh, Mesh):
            return put_sharded(x, device)
        return put_in_memory(x, mem_space_to_kind(space))
    if x.aval.memory_space is not MemorySpace.Device:
        return Array(x._value, x.weak_type)
    return x


def _put_aval(aval: Any, device: Any) -> Any:
    """The type of a value put on ``device``: in the memory space a sharding's memory kind names, or
    that a transpose's ``MemorySpace`` names (JAX's ``update_dp_aval``)."""
    if not isinstance(aval, ShapedArray):
        return aval
    if isinstance(device, MemorySpace):
        return aval.update(memory_space=device)
    kind = getattr(device, "memory_kind", None)  # (a sharding; a Device or None keeps the space)
    return aval if kind is None else aval.update(memory_space=mem_kind_to_space(kind))


device_put_p.def_abstract_eval(
    lambda *avals, devices, srcs, copy_semantics: [_put_aval(a, d) for a, d in zip(avals, devices)]
)
memory_space_rules[device_put_p] = None  # (its abstract rule places its results itself)


def _device_put_transpose(cts: list[Any], *args: Any, devices: tuple, srcs: tuple, copy_semantics: tuple):
    out: list[Any] = [None] * len(cts)
    put = [i for i, (ct, a) in enumerate(zip(cts, args)) if ad.is_undefined(a) and type(ct) is not ad.Zero]
    for i, (ct, a) in enumerate(zip(cts, args)):
        if ad.is_undefined(a) and type(ct) is ad.Zero:
            out[i] = ct
    if put:
        if any(copy_semantics[i] is ArrayCopySemantics.DONATE_INPUT for i in put):
            raise ValueError(
                "donate=True is not allowed during tranposition of device_put. Please file an issue "
                "if you want this to be supported."
            )
        # (as JAX's: a cotangent goes back to host memory when its primal came from there)
        back = [
            MemorySpace.Host if srcs[i] is None and args[i].aval.memory_space is MemorySpace.Host else srcs[i]
            for i in put
        ]
        ys = device_put_p.bind(
            *[cts[i] for i in put],
            devices=tuple(back),
            srcs=tuple(devices[i] for i in put),
            copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,) * len(put),
        )
        for i, y in zip(put, ys):
            out[i] = y
    return out


ad.deflinear(device_put_p, _device_put_transpose)
batching.batch_rules[device_put_p] = lambda size, vals, dims, **params: (
    device_put_p.bind(*vals, **params),
    list(dims),
)


def stage_device_put(leaves: list[Any], may_alias: bool | None, donate: bool, device=None) -> list[Any]:
    """``jax.device_put`` of traced ``leaves`` to ``device`` (a sharding; None: the default device): one
    ``device_put`` equation."""
    if may_alias and donate:
        raise ValueError("may_alias and donate cannot be True at the same time.")
    alias = not donate if may_alias is None else may_alias
    if alias and not donate:
        semantics = ArrayCopySemantics.REUSE_INPUT
    elif donate:
        semantics = ArrayCopySemantics.DONATE_INPUT
    else:
        semantics = ArrayCopySemantics.ALWAYS_COPY
    n = len(leaves)
    return device_put_p.bind(
        *leaves, devices=(device,) * n, srcs=(None,) * n, copy_semantics=(semantics,) * n
    )
