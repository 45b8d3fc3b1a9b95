"""The elementwise functions XLA hands to YNNPACK with a large sum, computed as YNNPACK does.

XLA:CPU gives a float32 ``reduce`` of >= 4096 elements to YNNPACK together with the elementwise
ops that feed only it (one ``__ynn_fusion``; ``lax/sum_order_ynn``), and YNNPACK evaluates exp,
expm1, tanh, log, log1p (and logistic, which XLA expands to ``1 / (1 + exp(-x))`` first) with
its own polynomials (``lax/ynn_unary``), not XLA's: jit(sum(tanh(x), axis=1)) differed from
jit(tanh) then jit(sum) in 78% of its outputs. ``rewrite`` makes each such equation of a flat
program one ``ynn_unary_p`` (``fn``: the function's name), so compiled kernels (``rt.ynn_<fn>_f32``)
and the interpreter tier round alike. Which equations: walking back from each such sum through
the elementwise and broadcast-like equations whose value nothing else uses (measured with JAX
0.10.2: ``t = tanh(x); return t.sum(1), t`` takes XLA's tanh; ``log(1 + tanh(x)**2)``,
``exp(x) * tanh(x)``, ``1 / (1 + exp(-x))`` summed take YNNPACK's functions throughout).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .. import core
from ..ir import JaxprEqn, Var
from ..lax import elementwise as ew
from ..lax import structural as st
from ..lax import sum_order, ynn_unary
from ..lax.reductions import reduce_sum_p

ynn_unary_p = core.Primitive("ynn_unary")


def _logistic(x):
    return ynn_unary.ftz(np.float32(1) / (np.float32(1) + ynn_unary.exp(-x)))


# rule table: the primitive XLA hands over -> (name, YNNPACK's float32 function)
functions = {
    ew.exp_p: ("exp", ynn_unary.exp),
    ew.expm1_p: ("expm1", ynn_unary.expm1),
    ew.tanh_p: ("tanh", ynn_unary.tanh),
    ew.log_p: ("log", ynn_unary.log),
    ew.log1p_p: ("log1p", ynn_unary.log1p),
    ew.logistic_p: ("logistic", _logistic),
}
_BY_NAME = {n: f for n, f in functions.values()}


@ynn_unary_p.def_impl
def _ynn_unary_impl(x, *, fn):
    return np.asarray(_BY_NAME[fn](np.asarray(x, np.float32)), np.float32)


@ynn_unary_p.def_abstract_eval
def _ynn_unary_abstract(x, *, fn):
    return core.ShapedArray(x.shape, x.dtype)


def _walked() -> frozenset:
    """What XLA fuses between a sum and the functions above (elementwise arithmetic, broadcasts,
    reshapes, conversions): the walk back from a sum goes on through these."""
    from .multiply_add import fma_p

    return frozenset(
        {
            *functions, ew.neg_p, ew.abs_p, ew.add_p, ew.sub_p, ew.mul_p, ew.div_p, ew.max_p,
            ew.min_p, ew.integer_pow_p, ew.square_p, ew.sqrt_p, fma_p, st.convert_element_type_p,
            st.broadcast_in_dim_p, st.reshape_p, st.transpose_p,
        }
    )  # fmt: skip


def fused(eqns: list[JaxprEqn], outs: list) -> set[int]:
    """The equations of ``eqns`` (a flat program, before ``multiply_add.contract``) XLA hands to
    YNNPACK with a float32 sum of >= 4096 elements: there YNNPACK computes the functions above,
    and a multiply and an add stay two roundings (no fused multiply-add: measured,
    ``sum(log(1 + tanh(x)**2))`` rounds ``tanh(x)**2`` before adding 1)."""
    # (a loop or branch is its own computation: what reaches it is no sum's, as XLA does not fuse
    # across it)
    uses = Counter(x for e in eqns for x in {y for y in e.inputs if type(y) is Var})  # (x * x: once)
    uses.update(x for x in outs if type(x) is Var)
    made = {v: i for i, e in enumerate(eqns) for v in e.out_binders}
    walked, found = _walked(), set()
    for e in eqns:
        x = e.inputs[0] if e.primitive is reduce_sum_p else None
        if type(x) is not Var or x.aval.dtype != np.float32 or x.aval.size < sum_order.TREE_LIMIT:
            continue
        todo = [x]
        while todo:
            v = todo.pop()
            j = made.get(v)
            if j is None or j in found or uses[v] != 1 or eqns[j].primitive not in walked:
                continue
            found.add(j)
            todo += [y for y in eqns[j].inputs if type(y) is Var]
    return found


def rewrite(eqns: list[JaxprEqn], found: set[int]) -> list[JaxprEqn]:
    """``eqns`` with each float32 function of ``functions`` among the equations ``found`` (by
    ``fused``) made one ``ynn_unary_p``."""
    out = list(eqns)
    for j in found:
        e = eqns[j]
        if e.primitive in functions and e.inputs[0].aval.dtype == np.float32:
            params = {"fn": functions[e.primitive][0]}
            out[j] = JaxprEqn(ynn_unary_p, e.inputs, params, e.out_binders, e.source_info)
    return out
