"""The mesh a traced value's type carries in JAX (its ``aval.sharding.mesh``) when the value names
no axis of it: a ``shard_map``'s results are typed on its mesh (a pmap, staged as JAX's
``jit(shard_map)``, too), and every operation types its result on its operands' mesh. So
``grad`` of a function of a pmap's result seeds its cotangent on that mesh: JAX makes the seed
``1.0`` with that type, which outside the mesh's context is a ``reshard`` of the literal.

The engine's types do not carry meshes; the staged program does: the equations making a value
are walked back to a ``shard_map`` (into the bodies of the calls they pass through)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import core

from ..sharding import AbstractMesh, NamedSharding, PartitionSpec, get_abstract_mesh


def _producers(eqns) -> dict:
    return {v: (e, k) for e in eqns for k, v in enumerate(e.out_binders)}


def _source_mesh(eqn) -> AbstractMesh | None:
    from .spmd import shard_map_p

    if eqn.primitive is shard_map_p:
        mesh = eqn.params["mesh"]
        return mesh if isinstance(mesh, AbstractMesh) else mesh.abstract_mesh
    return None


def _mesh_of(x, producers: dict, memo: dict, outer: Any = None) -> AbstractMesh | None:
    """The mesh of atom ``x`` of a jaxpr whose equations are ``producers``; ``outer``: for a call
    body, how its inputs' meshes are found (the call's operands, in the caller)."""
    from ..ir import Var

    if type(x) is not Var:
        return None
    if x in memo:
        return memo[x]
    memo[x] = None  # (no cycles in a jaxpr; this only guards the walk)
    made = producers.get(x)
    if made is None:
        found = outer(x) if outer is not None else None
    else:
        eqn, k = made
        found = _source_mesh(eqn)
        body = eqn.params.get("jaxpr") if found is None and eqn.primitive.name == "jit" else None
        if body is not None:  # (a call: what its body's result is typed on)
            position = {v: i for i, v in enumerate(body.jaxpr.in_binders)}

            def from_caller(v, eqn=eqn, position=position):
                i = position.get(v)
                return None if i is None else _mesh_of(eqn.inputs[i], producers, memo, outer)

            found = _mesh_of(body.jaxpr.outs[k], _producers(body.jaxpr.eqns), {}, from_caller)
        elif found is None:
            for operand in eqn.inputs:
                found = _mesh_of(operand, producers, memo, outer)
                if found is not None:
                    break
    memo[x] = found
    return found


def _staged(tracer):
    """``staging.staged_var`` of the staged value ``tracer`` carries (a grad or vmap of it carries
    the same type)."""
    from .. import ad, batching
    from ..staging import staged_var

    while True:
        if isinstance(tracer, ad.PrimalTracer):
            tracer = tracer.primal
        elif isinstance(tracer, batching.BatchTracer):
            tracer = tracer.val
        elif isinstance(tracer, ad.PartialEvalTracer) and tracer.pval.is_known:
            tracer = tracer.pval.const
        else:
            return staged_var(tracer)


def _typed_mesh(tracer) -> AbstractMesh | None:
    """The mesh JAX types ``tracer``'s value on when the program being staged says it: a
    ``shard_map`` made it, or it is computed from an argument laid out on a mesh with an
    ``Explicit`` axis; None otherwise."""
    staged = _staged(tracer)
    if staged is None:
        return None
    builder, var = staged

    def argument_mesh(v) -> AbstractMesh | None:
        s = builder.in_shardings.get(v)
        mesh = getattr(s, "mesh", None)
        if mesh is None or not mesh.explicit_axes:
            return None
        return mesh if isinstance(mesh, AbstractMesh) else mesh.abstract_mesh

    return _mesh_of(var, _producers(builder.eqns), {}, argument_mesh)


def traced_mesh(tracer) -> AbstractMesh | None:
    """The mesh JAX types ``tracer``'s value on (``_typed_mesh``), None when that is the
    context's (then a value typed without naming it agrees)."""
    mesh = _typed_mesh(tracer)
    return None if mesh is None or mesh == get_abstract_mesh() else mesh


def seed_on_mesh(ans, seed):
    """``grad``'s cotangent seed ``seed`` for the result ``ans``: resharded onto the mesh ``ans``
    is typed on, replicated (JAX's ``_one_vjp``), when that is not the context's mesh or has an
    ``Explicit`` axis (JAX then types the seed's ``1.0`` on it with a ``reshard``)."""
    context = get_abstract_mesh()
    mesh = _typed_mesh(ans) or (context if context.explicit_axes else None)
    if mesh is None or (mesh == context and not mesh.explicit_axes):
        return seed
    from .reshard import reshard_p

    # (over the abstract mesh: no devices named, as JAX's reshard to an abstract sharding)
    return reshard_p.bind(seed, dst_sharding=NamedSharding(mesh, PartitionSpec()), concrete_mesh=None)


def scalar_on_mesh(x, value):
    """JAX's ``_one(x)``/``_zero(x)`` in a JVP rule under ``jit``: ``value`` as a scalar of ``x``'s
    dtype, resharded onto the mesh ``x`` is typed on (as ``seed_on_mesh``), which the jaxpr shows;
    None where JAX's is the literal (no mesh: the rule keeps its Python scalar)."""
    staged = _staged(x)
    if staged is None or not (staged[0].in_shardings or get_abstract_mesh().explicit_axes):
        return None  # (nothing laid out: no walk of the program traced so far)
    aval = core.get_aval(x)
    scalar = core.Array(np.array(value, aval.dtype), aval.weak_type)
    out = seed_on_mesh(x, scalar)
    return None if out is scalar else out
