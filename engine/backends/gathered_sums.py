"""Sums of gathered values: XLA fuses a gather into the reduction that reads it, and LLVM leaves
that loop scalar (its loads are indirect), so each sum adds its terms one after another where a
loop of plain loads adds them in vector lanes (``sum_order._lanes``). ``jnp.mean`` of
``take_along_axis``'s picks, a language model's loss, rounds so (JAX 0.10.2: a sum of 2 x 8 picked
log-probabilities matched in-order addition on 100 of 100 draws, the lanes' order on 46).

  >>> import numpy as np
  >>> x = np.float32([[1e8, 1, 1, 1, 1, 1, 1, 1], [-1e8, 1, 1, 1, 1, 1, 1, 1]])
  >>> float(gathered_sum_p.bind(x, axes=(0, 1)))
  7.0
"""

from __future__ import annotations

import numpy as np

from .. import core
from ..ir import JaxprEqn, Var
from ..lax import sum_order
from ..lax.gather_scatter import gather_p
from ..lax.reductions import _reduce_abstract, reduce_sum_p
from . import multiply_add

gathered_sum_p = core.Primitive("reduce_sum_gathered")


@gathered_sum_p.def_impl
def _gathered_sum_impl(x, *, axes):
    return sum_order.sum_f32(np.asarray(x), tuple(axes), body="scalar")


gathered_sum_p.def_abstract_eval(_reduce_abstract)

# What XLA fuses between a gather and the sum: elementwise work and moves of the gathered values.
_THROUGH = frozenset({"broadcast_in_dim", "reshape", "squeeze", "expand_dims", "convert_element_type"})


def rewrite(eqns: list[JaxprEqn], outs: list) -> list[JaxprEqn]:
    """``eqns`` with each float32 sum (under XLA's YNNPACK limit) of a gather's values, read
    through the elementwise work of the sum's kernel (``multiply_add._kernels``), a
    ``gathered_sum_p``; the same list when none is."""
    sums = [
        i
        for i, e in enumerate(eqns)
        if e.primitive is reduce_sum_p
        and type(e.inputs[0]) is Var
        and e.inputs[0].aval.dtype == np.float32
        and 0 < e.inputs[0].aval.size < sum_order.TREE_LIMIT
    ]
    if not sums or not any(e.primitive is gather_p for e in eqns):
        return eqns
    ends, readers = multiply_add._kernels(eqns, outs)
    producer = {v: (j, e) for j, e in enumerate(eqns) for v in e.out_binders}
    out = list(eqns)
    for i in sums:
        todo, seen, gathered = [eqns[i].inputs[0]], set(), False
        while todo and not gathered:
            v = todo.pop()
            if type(v) is not Var or v in seen or v not in producer:
                continue
            seen.add(v)
            j, e = producer[v]
            if e.primitive is gather_p:  # (fused into the sum's loop when the sum is its one reader)
                gathered = len(readers.get(v, ())) == 1
            elif i in ends[j] and (e.primitive.name in _THROUGH or multiply_add._fusible(e)):
                todo.extend(e.inputs)
        if gathered:
            e = eqns[i]
            out[i] = JaxprEqn(
                gathered_sum_p, e.inputs, {"axes": tuple(e.params["axes"])}, e.out_binders, e.source_info
            )
    return out
