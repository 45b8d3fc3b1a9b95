"""Which mesh axes each value of a checked shard_map body varies over (JAX's varying manual axes):
the body typed as JAX stages it (``f32[3]{V:i}``, ``pvary`` where operands disagree), for
``jax.typeof``, printed jaxprs and the check that results declared replicated are."""

from __future__ import annotations

import functools

from .. import ir
from ..avals import merged_axes, vma_str
from ..core import ShapedArray
from ..ir import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from ..lax import parallel as lax_parallel
from ..lax.all_gather_typed import TYPED_GATHERS
from ..lax.varying import vma_rule
from ..sharding import Mesh


def _in_mesh_order(mesh: Mesh, axes) -> tuple:
    named = merged_axes(axes)  # (an axis's partial state kept)
    return tuple(named[a] for a in mesh.axis_names if a in named)


@functools.cache
def _typed_primitives() -> tuple[tuple, frozenset]:
    """(jit, then the primitives whose bodies ``_typed_bodies`` types), and the collectives whose
    operand is made to vary over their axes. (Imported late: these modules import this package.)"""
    from ..ad_checkpoint import checkpoint_p
    from ..closed_call import closed_call_p
    from ..custom_derivatives import custom_jvp_call_p, custom_vjp_call_p
    from ..jit_primitive import jit_p
    from ..lax.cond import cond_p
    from ..lax.loops import while_p
    from ..lax.scan import scan_p

    lp = lax_parallel
    bodies = (
        jit_p,
        checkpoint_p,
        scan_p,
        cond_p,
        while_p,
        closed_call_p,
        custom_jvp_call_p,
        custom_vjp_call_p,
    )
    return bodies, frozenset(
        (
            lp.pmax_p,
            lp.pmin_p,
            lp.all_gather_p,
            lp.psum_scatter_p,
            lp.ppermute_p,
            lp.all_to_all_p,
            *TYPED_GATHERS,
        )
    )


def type_varying(jaxpr: Jaxpr, in_vmas, mesh: Mesh, out_want=None) -> tuple[Jaxpr, list[tuple]]:
    """``jaxpr`` as JAX stages a body whose varying axes are checked: where an operation's
    operands vary over different mesh axes, the less varying ones are ``pvary``'d to match first
    (a collective's operand to vary over its axes), ``psum`` is one ``psum_invariant`` per operand,
    and every value's type shows the axes it varies over (``f32[3]{V:i}``). Results are
    ``pvary``'d to the axes ``out_want`` names. Also the results' varying axes."""
    body_prims, collectives = _typed_primitives()
    env: dict = {}
    types: dict = {}
    eqns: list = []

    def vma(x) -> tuple:
        return env.get(x, ()) if type(x) is Var else ()

    def note(v, axes):
        env[v] = axes = _in_mesh_order(mesh, axes)
        if axes:
            types[v] = v.aval.str_short() + vma_str(axes)

    def cast(x, want, src):
        missing = _in_mesh_order(mesh, set(want) - set(vma(x)))
        if not missing:
            return x
        vary = _in_mesh_order(mesh, set(vma(x)) | set(missing))
        out = Var(x.aval.update(vma=vary) if type(x.aval) is ShapedArray else x.aval)
        eqns.append(JaxprEqn(lax_parallel.pvary_p, [x], {"axes": missing}, [out], src))
        note(out, set(vma(x)) | set(missing))
        return out

    for v in jaxpr.constvars:
        note(v, ())
    for v, a in zip(jaxpr.in_binders, in_vmas):
        note(v, a)
    for eqn in jaxpr.eqns:
        prim, ins, src, params = eqn.primitive, list(eqn.inputs), eqn.source_info, eqn.params
        if prim is lax_parallel.psum_p:
            for x, o in zip(ins, eqn.out_binders):
                x = cast(x, params["axes"], src)
                eqns.append(JaxprEqn(lax_parallel.psum_invariant_p, [x], {"axes": params["axes"]}, [o], src))
                note(o, set(vma(x)) - set(params["axes"]))
            continue
        if prim in collectives:
            axes = (
                params["axes"] if prim in (lax_parallel.pmax_p, lax_parallel.pmin_p) else params["axis_name"]
            )
            ins = [cast(ins[0], axes, src)]
            outs = vma_rule(prim, params, [vma(ins[0])])
        elif prim is body_prims[0]:  # jit
            from ..jit_primitive import staged_like

            sub, outs_v = type_varying(params["jaxpr"].jaxpr, [vma(x) for x in ins], mesh)
            params = dict(params, jaxpr=ClosedJaxpr(sub, params["jaxpr"].consts))
            staged_like(params["jaxpr"], eqn.params["jaxpr"])  # (the same call: JAX names it alike)
            eqns.append(eqn._replace(inputs=ins, params=params))
            for o, a in zip(eqn.out_binders, outs_v):
                note(o, a)
            continue
        elif prim in body_prims[1:]:
            params, outs_v = _typed_bodies(prim, params, [vma(x) for x in ins], mesh)
            eqns.append(eqn._replace(inputs=ins, params=params))
            for o, a in zip(eqn.out_binders, outs_v):
                note(o, a)
            continue
        elif ir.holds_jaxprs(params):
            outs = vma_rule(prim, params, [vma(x) for x in ins])
        elif prim.results_vary_as_operands:
            eqns.append(eqn)
            for o, x in zip(eqn.out_binders, ins):
                note(o, vma(x))
            continue
        else:
            outs = vma_rule(prim, params, [vma(x) for x in ins])
            if len(ins) > 1 and prim is not lax_parallel.pvary_p:
                ins = [cast(x, outs, src) for x in ins]
        eqns.append(eqn._replace(inputs=ins, params=params))
        for o in eqn.out_binders:
            note(o, outs)
    outs_atoms = list(jaxpr.outs)
    if out_want is not None:
        outs_atoms = [cast(x, w, None) for x, w in zip(outs_atoms, out_want)]
    typed = Jaxpr(jaxpr.constvars, jaxpr.in_binders, eqns, outs_atoms)
    if types:
        ir.sharded_types[typed] = types
    return typed, [vma(x) for x in outs_atoms]


def _typed_bodies(prim, params, in_vmas, mesh) -> tuple[dict, list]:
    """A remat's, scan's, cond's, while's or call's (closed_call, custom_jvp/vjp_call) bodies typed with the axes their values vary over,
    given its operands' (``type_varying``), and the axes its results vary over."""
    from ..ad_checkpoint import checkpoint_p, same_staged_marks
    from ..lax.cond import cond_p
    from ..lax.loops import while_p
    from ..lax.scan import scan_p

    def typed(body, vmas):
        closed = isinstance(body, ClosedJaxpr)
        sub, outs = type_varying(body.jaxpr if closed else body, vmas, mesh)
        return (ClosedJaxpr(sub, body.consts) if closed else sub), outs

    if prim is cond_p:  # (the branches take the operands after the index)
        pairs = [typed(b, in_vmas[1:]) for b in params["branches"]]
        outs = [_in_mesh_order(mesh, set().union(*o)) for o in zip(*[p[1] for p in pairs])]
        return dict(params, branches=tuple(p[0] for p in pairs)), outs
    if "call_jaxpr" in params:  # (closed_call, custom_jvp_call, custom_vjp_call: the body takes the operands)
        body, outs = typed(params["call_jaxpr"], in_vmas)
        return dict(params, call_jaxpr=body), outs
    if prim is while_p:  # (operands: the cond's consts, the body's, then the carry)
        nc, nb = params["cond_nconsts"], params["body_nconsts"]
        carry = in_vmas[nc + nb :]
        cond, _ = typed(params["cond_jaxpr"], in_vmas[:nc] + carry)
        body, outs = typed(params["body_jaxpr"], in_vmas[nc : nc + nb] + carry)
        return dict(params, cond_jaxpr=cond, body_jaxpr=body), outs
    body, outs = typed(params["jaxpr"], in_vmas)  # (remat, scan: the body takes the operands)
    if prim is checkpoint_p:
        same_staged_marks(body, params["jaxpr"])
    if prim is scan_p:  # (a carry varies as its initial value does too: JAX checks they agree)
        n = params["num_carry"]
        init = in_vmas[params["num_consts"] : params["num_consts"] + n]
        outs = [_in_mesh_order(mesh, set(a) | set(b)) for a, b in zip(outs[:n], init)] + list(outs[n:])
    return dict(params, jaxpr=body), outs
