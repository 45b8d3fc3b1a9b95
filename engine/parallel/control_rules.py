"""Partitioning rules for control flow: ``scan``, ``while`` and ``cond`` run on each device on its
blocks when their bodies keep the carries' layouts (and every branch gives one layout); their
bodies are partitioned like a whole program, collectives included. Otherwise the operands are
gathered and every device runs the whole loop (``_fallback``), as before.

A loop's predicate and a cond's index are scalars: replicated, every device takes the same path.
"""

from __future__ import annotations

from ..core import ShapedArray
from ..sharding import PartitionSpec
from ..staging import trace_to_jaxpr
from .partial_types import reduced_of, unreduced_of, with_partial
from .partition import MeshContext, Sharded, _entry, _fallback, _interpret, _to_spec, partition


def _partitioned(ctx: MeshContext, closed, in_specs: list):
    """``closed`` partitioned for ``in_specs``; its values typed too when the printed program is
    being typed (``ctx.record``)."""
    part = partition(closed, ctx, in_specs)
    if ctx.record is not None:
        local_avals = [
            ShapedArray(ctx.local_shape(a.shape, s), a.dtype, a.weak_type)
            for a, s in zip(closed.in_avals, in_specs)
        ]

        def typed(*local):
            args = [Sharded(v, s) for v, s in zip(local, in_specs)]
            return [o.val for o in _interpret(ctx, closed.jaxpr, closed.consts, args, ctx.record)]

        with ctx.axis_env():
            trace_to_jaxpr(typed, local_avals)
    return part


def _keeps(part, specs: list) -> bool:
    return list(part.out_specs[: len(specs)]) == specs and all(v is None for v in part.out_views)


def _sliced(spec):
    """The spec of a scanned slice (unreduced or reduced as the whole)."""
    return with_partial(spec[1:], unreduced_of(spec), reduced_of(spec))


def _stacked(spec):
    return with_partial(((), *spec), unreduced_of(spec), reduced_of(spec))


def _scan(ctx, prim, vals, params):
    """Scanned slices are whole (xs split only past the scanned dimension); results are split as
    the body's."""
    nc, nk, body = params["num_consts"], params["num_carry"], params["jaxpr"]
    xs = vals[nc + nk :]
    for x in xs:
        if x.spec and set(x.spec[0]) & ctx.typed:  # (JAX's type rule: scanned slices are whole)
            typed = PartitionSpec(*[_entry(tuple(a for a in s if a in ctx.typed)) for s in x.spec])
            raise ValueError(f"0th dimension of all xs should be replicated. Got {typed}")
    if any(x.spec and x.spec[0] for x in xs):
        return _fallback(ctx, prim, vals, params)
    consts, carry_specs = [x.spec for x in vals[:nc]], [x.spec for x in vals[nc : nc + nk]]
    x_specs = [_sliced(x.spec) for x in xs]
    carry_specs = _fixed_carries(ctx, body, consts, carry_specs, x_specs)
    if carry_specs is None:
        return _fallback(ctx, prim, vals, params)
    in_specs = consts + carry_specs + x_specs
    part = _partitioned(ctx, body, in_specs)
    ins = [_laid(ctx, x, s) for x, s in zip(vals, in_specs[: nc + nk])] + [x.val for x in xs]
    outs = prim.bind(*ins, **dict(params, jaxpr=part.local))
    specs = carry_specs + [_stacked(s) for s in part.out_specs[nk:]]
    return [Sharded(o, s) for o, s in zip(outs, specs)]


def _fixed_carries(ctx, body, before: list, carry_specs: list, after: list) -> list | None:
    """Carry specs the loop ``body`` keeps (its inputs ``before + carries + after``, the carries'
    results first among its outputs): the carries' own, else the layouts the body gives them (a
    zero carry a backward pass starts replicated, which the body splits as its residuals are), so
    the loop runs on blocks; None when no such layout settles in a few rounds."""
    for _ in range(3):
        part = partition(body, ctx, before + carry_specs + after)
        if _keeps(part, carry_specs):
            return carry_specs
        if any(v is not None for v in part.out_views):
            return None
        carry_specs = list(part.out_specs[: len(carry_specs)])
    return None


def _laid(ctx, x, spec):
    """The local piece of ``x`` laid out as ``spec`` (a carry made to start as the body keeps it)."""
    return x.val if tuple(x.spec) == tuple(spec) else _to_spec(ctx, x, spec)


def _while(ctx, prim, vals, params):
    nc, nb = params["cond_nconsts"], params["body_nconsts"]
    cc, bc, carry = vals[:nc], vals[nc : nc + nb], vals[nc + nb :]
    carry_specs = _fixed_carries(ctx, params["body_jaxpr"], [x.spec for x in bc], [x.spec for x in carry], [])
    if carry_specs is None:
        return _fallback(ctx, prim, vals, params)  # (a carry that moves)
    body_specs = [x.spec for x in bc] + carry_specs
    cond_specs = [x.spec for x in cc] + carry_specs
    cond = partition(params["cond_jaxpr"], ctx, cond_specs)
    if any(cond.out_specs[0]) or cond.out_views[0] is not None:
        return _fallback(ctx, prim, vals, params)  # (a batched predicate)
    body = _partitioned(ctx, params["body_jaxpr"], body_specs)
    cond = _partitioned(ctx, params["cond_jaxpr"], cond_specs)
    ins = [x.val for x in vals[: nc + nb]] + [_laid(ctx, x, s) for x, s in zip(carry, carry_specs)]
    outs = prim.bind(*ins, **dict(params, cond_jaxpr=cond.local, body_jaxpr=body.local))
    return [Sharded(o, s) for o, s in zip(outs, carry_specs)]


def _cond(ctx, prim, vals, params):
    index, ops = vals[0], vals[1:]
    in_specs = [x.spec for x in ops]
    branches = list(params["branches"])
    parts = [partition(b, ctx, in_specs) for b in branches]
    if not all(_keeps(p, list(parts[0].out_specs)) for p in parts):
        branches = _fills_laid_out(ctx, branches, parts)
        parts = [partition(b, ctx, in_specs) for b in branches]
    specs = list(parts[0].out_specs)
    if any(index.spec) or not all(_keeps(p, specs) for p in parts):
        return _fallback(ctx, prim, vals, params)
    parts = [_partitioned(ctx, b, in_specs) for b in branches]
    outs = prim.bind(index.val, *[x.val for x in ops], **dict(params, branches=tuple(p.local for p in parts)))
    return [Sharded(o, s) for o, s in zip(outs, specs)]


def _producers(jaxpr) -> dict:
    return {v: e for e in jaxpr.eqns for v in e.out_binders}


def _fill(made: dict, x):
    """The ``broadcast_in_dim`` equation of ``empty2`` making ``x`` (a branch's filler of a residual
    slot another branch uses; ``made`` maps the branch's variables to their equations), or None."""
    from ..lax.structural import broadcast_in_dim_p, empty2_p

    e = made.get(x)
    if e is None or e.primitive is not broadcast_in_dim_p:
        return None
    src = made.get(e.inputs[0])
    return e if src is not None and src.primitive is empty2_p else None


def _fills_laid_out(ctx, branches: list, parts: list) -> list:
    """Branches whose results disagree in layout only where a branch fills a residual slot it does
    not use (unread values): those fillers laid out as the branch making the residual lays it out,
    as JAX's typed fillers are."""
    from ..ir import ClosedJaxpr, Jaxpr, JaxprEqn
    from ..sharding import NamedSharding

    n = len(parts[0].out_specs)
    made = [_producers(b.jaxpr) for b in branches]
    targets: dict[int, list] = {}
    for k in range(n):
        found = {
            tuple(p.out_specs[k])
            for p, b, m in zip(parts, branches, made)
            if _fill(m, b.jaxpr.outs[k]) is None
        }
        if len(found) == 1:
            targets[k] = list(found.pop())
    out = []
    for b, p, m in zip(branches, parts, made):
        swap = {}
        for k, spec in targets.items():
            e = _fill(m, b.jaxpr.outs[k])
            if e is not None and list(p.out_specs[k]) != spec:
                sharding = NamedSharding(ctx.mesh, PartitionSpec(*[_entry(a) for a in spec]))
                swap[id(e)] = JaxprEqn(
                    e.primitive, e.inputs, dict(e.params, sharding=sharding), e.out_binders, e.source_info
                )
        if swap:
            j = b.jaxpr
            eqns = [swap.get(id(e), e) for e in j.eqns]
            b = ClosedJaxpr(Jaxpr(j.constvars, j.in_binders, eqns, j.outs), b.consts)
        out.append(b)
    return out


def install(rules: dict) -> None:
    from ..lax.cond import cond_p
    from ..lax.loops import while_p
    from ..lax.scan import scan_p

    rules[scan_p] = _scan
    rules[while_p] = _while
    rules[cond_p] = _cond
