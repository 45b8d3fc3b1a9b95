"""``jit(f).lower(*args).compile().as_text()`` for sharded arguments: the engine's partitioned
program (what each device runs), headed by its collectives under XLA's names."""

from __future__ import annotations

from ..ir import ClosedJaxpr, subjaxprs
from .partition import MeshContext, _arg_mesh, _spec_of, partition, sharding_of


# XLA's names for the collectives (what JAX's compiled text shows).
_XLA_NAMES = {
    "psum": "all-reduce",
    "pmax": "all-reduce",
    "pmin": "all-reduce",
    "all_gather": "all-gather",
    "reduce_scatter": "reduce-scatter",
    "ppermute": "collective-permute",
    "all_to_all": "all-to-all",
}


def partitioned_text(closed: ClosedJaxpr, name: str, args) -> str:
    """``jit(f).lower(*args).compile().as_text()`` for sharded arguments: the program each device
    runs, after a list of its collectives under XLA's names."""
    mesh = _arg_mesh(args)
    assert mesh is not None
    ctx = MeshContext(mesh)
    part = partition(closed, ctx, [_spec_of(a, ctx, aval.ndim) for a, aval in zip(args, closed.in_avals)])
    lines = [
        f"# jaxplay engine: jit({name}) partitioned over {mesh}: every device runs the program below "
        "on its blocks (not XLA HLO)."
    ]

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            xla = _XLA_NAMES.get(eqn.primitive.name)
            if xla is not None:
                operands = ", ".join(v.aval.str_short() for v in eqn.inputs)
                axes = eqn.params.get("axes", eqn.params.get("axis_name"))  # (psum's, all_gather's)
                lines.append(f"#   {xla}({operands}) over mesh axes {axes} ({eqn.primitive.name})")
            for sub in subjaxprs(eqn):
                walk(sub)

    walk(part.local.jaxpr)
    lines.append(f"# results' shardings: {', '.join(str(sharding_of(mesh, s).spec) for s in part.out_specs)}")
    return "\n".join(lines) + "\n" + str(part.local)
