"""Shardy's marks in XLA's HLO text (JAX 0.10.2 lowers with Shardy): a module over a mesh, or whose
``@main`` pins arguments or results to one (``sdy.sharding``: a ref's, on the empty mesh; a
pmap's) declares its meshes in ``frontend_attributes``; a pinned argument carries its
``HloSharding`` and its Shardy text, and a pinned result goes through a
``xla.sdy.FuncResultSharding`` custom call; the root is then a tuple carrying the results'
shardings (recorded in tests/hlo_text from JAX 0.10.2).
An argument aliased to a result (``tf.aliasing_output``) is declared in ``input_output_alias``."""

from __future__ import annotations

import re
from typing import Any, NamedTuple, Sequence

from .xla_canonical import _refuse

_EMPTY_MESH = "empty_mesh = #sdy.mesh<[]>"
Mesh = tuple  # (axis names, sizes)


class Pinned(NamedTuple):
    """``@main``'s Shardy marks: per argument and per result its ``#sdy.sharding<...>`` (or None),
    per argument the result it aliases (or None)."""

    args: list[str | None]
    aliases: list[int | None]
    results: list[str | None]


def pinned(arg_attrs: Sequence[str], result_attrs: Sequence[str]) -> Pinned:
    """The marks read from ``@main``'s attribute texts."""

    def sharding(text: str) -> str | None:
        m = re.search(r"sdy\.sharding = (#sdy\.sharding<[^>]*>)", text)
        return m.group(1) if m is not None else None

    def alias(text: str) -> int | None:
        m = re.search(r"tf\.aliasing_output = (\d+)", text)
        return int(m.group(1)) if m else None

    return Pinned(
        [sharding(a) for a in arg_attrs], [alias(a) for a in arg_attrs], [sharding(r) for r in result_attrs]
    )


def header(marks: Pinned | None, n_results: int, mesh: Mesh | None) -> tuple[str, str]:
    """The module's ``input_output_alias={...}, `` and ``, frontend_attributes={...}`` (or "")."""
    if mesh is not None:
        if marks is not None and any("@empty_mesh" in (s or "") for s in [*marks.args, *marks.results]):
            raise _refuse("a program over a mesh that pins values to the empty mesh")
        axes = ", ".join(f'"{n}"={int(k)}' for n, k in zip(*mesh))
        meshes = f"mesh = #sdy.mesh<[{axes}]>"
    else:
        meshes = _EMPTY_MESH
    if marks is None:
        return "", (f", frontend_attributes={{xla.sdy.meshes={{{meshes}}}}}" if mesh is not None else "")
    pairs = [(o, i) for i, o in enumerate(marks.aliases) if o is not None]
    if len(pairs) > 1:  # (XLA's order and separator for several: not recorded)
        raise _refuse("several arguments aliased to results")
    alias = ""
    if pairs:
        ((o, i),) = pairs
        index = f"{{{o}}}" if n_results > 1 else "{}"
        alias = f"input_output_alias={{ {index}: ({i}, {{}}, may-alias) }}, "
    return alias, f", frontend_attributes={{xla.sdy.meshes={{{meshes}}}}}"


def parameter(ins: Any, sharding: str | None, mesh: Mesh | None) -> None:
    """A pinned argument: its HloSharding, and Shardy's text of it."""
    from .xla_hlo_spmd import escaped, hlo_sharding

    if sharding is not None:
        ins.sharding = hlo_sharding(sharding, mesh)
        ins.frontend = {"xla.sdy.sharding": escaped(sharding)}


def results(module: Any, made: list, outs: list, marks: Pinned, instr: Any) -> Any:
    """The entry's root for results ``outs`` (instructions) pinned by ``marks``: each pinned one
    through a FuncResultSharding custom call (named after its operand's root, ``custom-call`` for
    a parameter's); one result: a tuple of it read back by a get-tuple-element; several: a dead
    reshape of each (replicated when pinned), then the tuple."""
    from .xla_hlo_spmd import hlo_sharding, per_value

    if module.mesh is not None and None in marks.results:  # (its HloSharding: not recorded)
        raise _refuse("a result left unpinned in a program over a mesh")
    shardings = [hlo_sharding(s, module.mesh) if s is not None else "{replicated}" for s in marks.results]
    vals = []
    for v, s in zip(outs, marks.results):
        if s is not None:
            root = "custom-call" if v.opcode == "parameter" else v.root
            attrs = ', custom_call_target="xla.sdy.FuncResultSharding", custom_call_has_side_effect=true'
            cc = instr(root, v.aval, "custom-call", [v], attrs)
            cc.frontend = {"xla.sdy.sharding": per_value([s[len("#sdy.sharding") :]])}
            module.instr(made, cc)
            v = cc
        vals.append(v)
    shapes = [v.aval for v in vals]
    if len(vals) == 1:
        t = module.instr(made, instr("tuple", f"({shapes[0]})", "tuple", vals))
        root = module.instr(
            made, instr("get-tuple-element", shapes[0], "get-tuple-element", [t], ", index=0")
        )
        root.sharding = shardings[0]
        return root
    for v, s, h in zip(vals, marks.results, shardings):
        r = module.instr(made, instr("reshape", v.aval, "reshape", [v]))
        if s is not None:
            r.sharding = h
    from .xla_hlo import _tuple_text

    root = module.instr(made, instr("tuple", _tuple_text(shapes), "tuple", vals))
    root.sharding = "{" + ", ".join(shardings) + "}"
    return root
