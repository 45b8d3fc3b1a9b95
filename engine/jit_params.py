"""A ``jit`` equation's params besides its body: the per-argument and per-result shardings,
layouts and donation, the context mesh and the call's options, as JAX's jit binds them; and how a
transformation of the call carries the shardings over to the call it makes (JAX keeps a
``jit(f, in_shardings=..., out_shardings=...)``'s shardings on the jvp, the two halves of its
linearization, its transpose and its batched form)."""

from __future__ import annotations

import functools
from typing import Any, Sequence

import numpy as np

from .ir import ClosedJaxpr, JaxprEqn


class UnspecifiedValue:
    """JAX's sharding left to the compiler: each of a jit's in_shardings and out_shardings."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UnspecifiedValue"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnspecifiedValue)

    def __hash__(self) -> int:
        return hash(UnspecifiedValue)


UNSPECIFIED = UnspecifiedValue()


@functools.lru_cache(maxsize=None)
def _empty_mesh() -> Any:
    from .sharding import Mesh

    return Mesh(np.empty((), dtype=object), ())  # type: ignore[no-untyped-call]


def context_mesh() -> Any:
    """The mesh a jit traced now records (JAX's ``ctx_mesh``): the one ``jax.set_mesh`` set, else
    an abstract mesh in use with an ``Explicit`` axis, else the empty mesh."""
    from .sharding import get_abstract_mesh, get_mesh

    mesh = get_mesh()
    if mesh is not None:
        return mesh
    abstract = get_abstract_mesh()
    return abstract if not abstract.empty and abstract.explicit_axes else _empty_mesh()


@functools.lru_cache(maxsize=4096)
def call_params(
    n_in: int,
    n_out: int,
    donated: tuple[bool, ...] | None = None,
    keep_unused: bool = False,
    inline: bool = False,
    ctx_mesh: Any = None,
) -> dict[str, Any]:
    """A call's params besides ``jaxpr`` and ``name``, as JAX's jit binds them: its shardings and
    layouts unspecified, the arguments donated, the context's mesh (default none) and its options.
    One dict per arity and options (callers unpack it, never change it), so a call builds nothing."""
    return {
        "in_shardings": (UNSPECIFIED,) * n_in,
        "out_shardings": (UNSPECIFIED,) * n_out,
        "in_layouts": (None,) * n_in,
        "out_layouts": (None,) * n_out,
        "donated_invars": donated if donated is not None else (False,) * n_in,
        "ctx_mesh": _empty_mesh() if ctx_mesh is None else ctx_mesh,
        "keep_unused": keep_unused,
        "inline": inline,
        "compiler_options_kvs": (),
    }


def with_body(
    params: dict[str, Any],
    closed: ClosedJaxpr,
    donated: Sequence[bool] | None = None,
    shardings: tuple[Sequence[Any], Sequence[Any]] | None = None,
) -> dict[str, Any]:
    """A call's params for the body ``closed`` a transformation made of a call with ``params``:
    its options kept, the per-argument ones for the new arity (``donated``: of its arguments,
    where the transformation keeps track of them; none otherwise; ``shardings``: the new
    arguments' and results' shardings, from ``specified_shardings``)."""
    n_in, n_out = len(closed.in_avals), len(closed.out_avals)
    donated = tuple(donated) if donated is not None and any(donated) else None
    extra = call_params(
        n_in,
        n_out,
        donated,
        params.get("keep_unused", False),
        params.get("inline", False),
        params.get("ctx_mesh"),
    )
    if shardings is not None:
        ins, outs = tuple(shardings[0]), tuple(shardings[1])
        assert len(ins) == n_in and len(outs) == n_out, (len(ins), n_in, len(outs), n_out)
        extra = {**extra, "in_shardings": ins, "out_shardings": outs}
    return {"jaxpr": closed, "name": params["name"], **extra}


def unspecified(s: Any) -> bool:
    return isinstance(s, UnspecifiedValue)


def specified_shardings(params: dict[str, Any]) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
    """The call's (in_shardings, out_shardings) when it names any (a rule then works out the new
    call's), else None: a plain jit's transformations keep the shared unspecified params."""
    ins, outs = params.get("in_shardings", ()), params.get("out_shardings", ())
    if all(map(unspecified, ins)) and all(map(unspecified, outs)):
        return None
    return tuple(ins), tuple(outs)


def keep_where(xs: Sequence[Any], keep: Sequence[bool]) -> tuple[Any, ...]:
    return tuple(x for x, k in zip(xs, keep) if k)


def unspecified_n(n: int) -> tuple[Any, ...]:
    """The shardings of arguments or results a transformation adds (residuals, hoisted constants)."""
    return (UNSPECIFIED,) * n


def carried(sh: tuple[Sequence[Any], Sequence[Any]] | None, ins: Sequence[Any], outs: Sequence[Any]) -> Any:
    """The shardings of a call a rule makes from one with shardings ``sh`` (None when it names
    none: then none are carried). ``ins`` and ``outs`` list the new call's arguments and results
    in runs: an int ``n`` for ``n`` new ones (residuals, hoisted constants: unspecified), a pair
    ``(0, keep)`` for the old call's arguments (``(1, keep)``: its results) where ``keep`` holds,
    in their order (``keep`` None: all of them)."""
    if sh is None:
        return None

    def runs(parts: Sequence[Any]) -> tuple[Any, ...]:
        out: list[Any] = []
        for part in parts:
            if isinstance(part, int):
                out += unspecified_n(part)
            else:
                old = sh[part[0]]
                out += old if part[1] is None else keep_where(old, part[1])
        return tuple(out)

    return runs(ins), runs(outs)


def batched_sharding(s: Any, dim: Any, ndim: int) -> Any:
    """A sharding of a value vmap gave a batch axis at ``dim`` (``ndim``: the batched rank): that
    axis is not split. JAX goes through the HLO sharding, whose spec comes back without trailing
    unsplit dimensions; a sharding splitting nothing is kept as it is."""
    from .sharding import NamedSharding, PartitionSpec

    if (
        not isinstance(dim, int)
        or not isinstance(s, NamedSharding)
        or all(e is None for e in s.spec.partitions)
    ):
        return s
    entries = [*s.spec.partitions, *[None] * (ndim - 1 - len(s.spec))]
    entries.insert(dim, None)
    while entries and entries[-1] is None:
        entries.pop()
    return NamedSharding(s.mesh, PartitionSpec(*entries), memory_kind=s.memory_kind)


def pp_jit_params(eqn: JaxprEqn) -> list[tuple[str, Any]]:
    # JAX's: name= first (easier to scan), then the rest by name, defaults hidden
    p = eqn.params
    hidden = {"name", "inline"}
    for k, default in (("in_shardings", UNSPECIFIED), ("out_shardings", UNSPECIFIED), ("in_layouts", None)):
        if all(s == default for s in p.get(k, ())):
            hidden.add(k)
    if all(s is None for s in p.get("out_layouts", ())):
        hidden.add("out_layouts")
    for k in ("donated_invars", "keep_unused", "compiler_options_kvs"):
        if not any(p.get(k, ())) if k == "donated_invars" else not p.get(k):
            hidden.add(k)
    if "ctx_mesh" not in p or p["ctx_mesh"].empty:
        hidden.add("ctx_mesh")
    return [("name", p["name"]), *sorted((k, v) for k, v in p.items() if k not in hidden)]
