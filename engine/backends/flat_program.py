"""A jaxpr flattened as XLA compiles it: nested ``jit`` calls (and the calls whose evaluation is
their body) inlined, every variable renamed apart, unused work dropped, and the multiply-adds XLA's
CPU compiler fuses made one equation (``multiply_add``), and the functions it hands to
YNNPACK with a large sum made YNNPACK's (``ynn_fusion``). ``body``: a loop's or a branch's body
(``multiply_add.contract``). The numba backend generates its kernels
from it; the interpreter tier evaluates it, so both round alike."""

from __future__ import annotations

from ..core import ShapedArray
from ..ir import ClosedJaxpr, Jaxpr, JaxprEqn, Var, dce_jaxpr
from ..lax.elementwise import implicitly_broadcasting
from ..lax.structural import broadcast_in_dim_p, convert_element_type_p
from . import gathered_sums, multiply_add, negated_sums, ynn_fusion


class FlatProgram:
    """A jaxpr with nested ``jit`` calls inlined, every variable renamed apart, and the
    multiply-adds XLA's compiler would fuse made one equation (``multiply_add``)."""

    def __init__(self, closed: ClosedJaxpr, contract: bool = True, sums: bool = True, body: bool = False):
        self.eqns: list[JaxprEqn] = []
        self.consts: dict[Var, object] = {}
        j = dce_jaxpr(closed.jaxpr)  # unused pure work is not run, as XLA drops it
        cvars = [self._const(c, v.aval) for v, c in zip(j.constvars, closed.consts)]
        self.inputs = [Var(v.aval) for v in j.in_binders]
        # per flat equation: where it sits in the staged jaxpr (equation indices, outermost first,
        # through the calls inlined here), so what a kernel computes can be shown on the IR graph
        self.paths: list[tuple[int, ...]] = []
        self.outs = self._inline(j, cvars, self.inputs, ())
        # the multiply-adds XLA's CPU compiler fuses, fused (one rounding); not in a loop's body
        if contract:
            # (what XLA hands to YNNPACK with a large sum: YNNPACK's functions, no multiply-adds)
            ynn = ynn_fusion.fused(self.eqns, self.outs) if sums else set()
            self.eqns, self.paths = multiply_add.contract(self.eqns, self.paths, self.outs, sums, ynn, body)
            self.eqns = ynn_fusion.rewrite(self.eqns, ynn)
            if sums:  # (the sums whose terms a gather picks: XLA's loop adds them in order)
                self.eqns = gathered_sums.rewrite(self.eqns, self.outs)
        # sums of negations as LLVM folds them (in loop bodies too: a body is compiled by LLVM)
        folded, self.paths = negated_sums.fold(self.eqns, self.paths, self.outs)
        self.folded = folded is not self.eqns  # (the program computes otherwise than the jaxpr)
        self.eqns = folded

    def _const(self, val, aval):
        v = Var(aval)
        self.consts[v] = val
        return v

    def _inline(self, jaxpr: Jaxpr, const_atoms, in_atoms, path: tuple[int, ...]):
        from ..jit import jit_p

        inline = (jit_p, *call_primitives())
        sub = dict(zip(jaxpr.constvars, const_atoms))
        sub.update(zip(jaxpr.in_binders, in_atoms))
        read = lambda x: sub.get(x, x) if type(x) is Var else x
        for k, eqn in enumerate(jaxpr.eqns):
            ins = [read(x) for x in eqn.inputs]
            if eqn.primitive in inline:
                inner, ins = inlined_body(eqn, ins)
                cs = [self._const(c, v.aval) for v, c in zip(inner.jaxpr.constvars, inner.consts)]
                outs = self._inline(inner.jaxpr, cs, ins, (*path, k))
            elif _no_op_convert(eqn):
                outs = ins  # (XLA has no weak types: JAX lowers this convert to nothing)
            else:
                if eqn.primitive in implicitly_broadcasting:
                    ins = self._explicit_broadcasts(eqn, ins, (*path, k))
                outs = [Var(v.aval) for v in eqn.out_binders]
                self.eqns.append(JaxprEqn(eqn.primitive, ins, eqn.params, outs, eqn.source_info))
                self.paths.append((*path, k))
            sub.update(zip(eqn.out_binders, outs))
        return [read(x) for x in jaxpr.outs]

    def _explicit_broadcasts(self, eqn, ins, path):
        """Size-1 axes a binary op broadcasts implicitly become a broadcast_in_dim (fused as a load)."""
        shape = eqn.out_binders[0].aval.shape
        out = []
        for x in ins:
            s = x.aval.shape
            if s and s != shape:
                v = Var(ShapedArray(shape, x.aval.dtype, x.aval.weak_type))
                params = dict(shape=shape, broadcast_dimensions=tuple(range(len(s))), sharding=None)
                self.eqns.append(JaxprEqn(broadcast_in_dim_p, [x], params, [v], eqn.source_info))
                self.paths.append(path)
                x = v
            out.append(x)
        return out


def _no_op_convert(eqn: JaxprEqn) -> bool:
    """A convert_element_type that only makes a weak-typed value strong (a loop's carry ``0.9405 *
    k`` when k started as a Python float): no operation in XLA, so a product it reads still fuses
    into the sum reading the convert."""
    return (
        eqn.primitive is convert_element_type_p
        and eqn.inputs[0].aval.dtype == eqn.out_binders[0].aval.dtype
        and eqn.params.get("sharding") is None
    )


def call_primitives():
    """custom_jvp/custom_vjp, checkpoint, closed_call and composite calls: evaluation is their body
    (the rules are for AD, the composite's name for a compiler that knows it); custom_linear_solve's
    is its solve."""
    from .. import custom_derivatives as cd
    from ..ad_checkpoint import checkpoint_p
    from ..closed_call import closed_call_p
    from ..custom_batching import custom_vmap_p
    from ..experimental.hijax import call_hi_primitive_p
    from ..lax.composite_call import composite_p
    from ..lax.solves import linear_solve_p
    from ..linear_call import linear_call_p

    return (
        cd.custom_jvp_call_p,
        cd.custom_vjp_call_p,
        checkpoint_p,
        closed_call_p,
        custom_vmap_p,
        linear_call_p,
        composite_p,
        linear_solve_p,
        call_hi_primitive_p,
    )


def inlined_body(eqn: JaxprEqn, ins: list) -> tuple[ClosedJaxpr, list]:
    """The jaxpr an inlined call runs, and its operands: a call's own jaxpr on all of the call's;
    a custom_linear_solve's solve jaxpr on the solve's constants and the right-hand side (as its
    impl evaluates it)."""
    from ..lax.solves import _split, linear_solve_p

    p = eqn.params
    if eqn.primitive is linear_solve_p:
        groups, b = _split(ins, p["const_lengths"])
        return p["jaxprs"].solve, [*groups.solve, *b]
    if "_prim" in p:  # (a hijax primitive: its expansion)
        from ..experimental.hijax import expansion

        return expansion(p["_prim"]), ins
    inner = p[next(k for k in ("call_jaxpr", "call", "callee", "jaxpr") if k in p)]
    if type(inner) is Jaxpr:  # (remat2's param: an open jaxpr, its consts are inputs)
        inner = ClosedJaxpr(inner, [])
    return inner, ins
