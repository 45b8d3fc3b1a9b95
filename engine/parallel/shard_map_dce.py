"""shard_map's row in the DCE table (JAX's ``_shard_map_dce``): results nothing reads leave the
equation with their specs, the body keeps only the code the other results need, and the arguments
the body no longer reads leave too (a residual the transpose does not use is then not passed)."""

from __future__ import annotations

from .. import ir
from ..ir import ClosedJaxpr, JaxprEqn
from .spmd import shard_map_p


def _shard_map_dce(eqn: JaxprEqn, used_outputs: list[bool]) -> JaxprEqn:
    p = eqn.params
    body = p["jaxpr"].jaxpr
    new_body, used_in = ir.prune_jaxpr(body, used_outputs)
    return eqn._replace(
        inputs=[x for x, u in zip(eqn.inputs, used_in) if u],
        out_binders=[v for v, u in zip(eqn.out_binders, used_outputs) if u],
        params=dict(
            p,
            jaxpr=ClosedJaxpr(new_body, p["jaxpr"].consts),
            in_specs=tuple(s for s, u in zip(p["in_specs"], used_in) if u),
            out_specs=tuple(s for s, u in zip(p["out_specs"], used_outputs) if u),
        ),
    )


ir.dce_rules[shard_map_p] = _shard_map_dce
