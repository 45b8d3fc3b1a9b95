"""XLA's CPU backend keeps excess precision in a compiled program: a bfloat16 operation computes in
float32, and where a value it makes is converted back to float32, the rounding to bfloat16 and the
conversion cancel (XLA's SimplifyFPConversions, on by default). So under ``jit``,
``(x * y).astype(jnp.float32)`` of bfloat16 ``x, y`` is the float32 product, unrounded, while
``x * y`` itself, and every other reader of it, sees it rounded. (Reductions accumulate in their
own dtype and are rounded; a conversion from float32 to bfloat16 and back rounds; float16 keeps no
excess precision.) The interpreter that runs narrow programs rounds each operation, so
``keep_excess_precision`` rewrites such a program first: the conversion becomes the operation
again, on its operands converted to float32 (exactly: they are bfloat16)."""

from __future__ import annotations

import numpy as np

from . import batching, core, narrow_dtypes
from .ir import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var


def keep_excess_precision(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` with each float32 conversion of a bfloat16 operation's result recomputed in
    float32 (see the module's docstring); ``closed`` itself where there is none."""
    jaxpr = closed.jaxpr
    made = {v: e for e in jaxpr.eqns for v in e.out_binders}
    eqns: list[JaxprEqn] = []
    rewrote = False
    for e in jaxpr.eqns:
        src = made.get(e.inputs[0]) if _widens_bfloat16(e) and type(e.inputs[0]) is not Literal else None
        if src is not None and _computes_in_float32(src):
            eqns.extend(_in_float32(src, e.out_binders[0]))
            rewrote = True
        else:
            eqns.append(e)
    if not rewrote:
        return closed
    return ClosedJaxpr(Jaxpr(jaxpr.constvars, jaxpr.in_binders, eqns, jaxpr.outs), closed.consts)


def _widens_bfloat16(e: JaxprEqn) -> bool:
    from .lax.structural import convert_element_type_p

    return (
        e.primitive is convert_element_type_p
        and e.out_binders[0].aval.dtype == np.float32
        and _is_bfloat16(e.inputs[0].aval.dtype)
    )


def _is_bfloat16(dtype) -> bool:
    return narrow_dtypes.is_narrow(dtype) and np.dtype(dtype).name == "bfloat16"


def _computes_in_float32(e: JaxprEqn) -> bool:
    from .lax.dot_general import dot_general_p
    from .lax.elementwise import reduce_precision_p
    from .lax.structural import convert_element_type_p

    if len(e.out_binders) != 1 or e.primitive in (convert_element_type_p, reduce_precision_p):
        return False
    return e.primitive is dot_general_p or batching.is_elementwise(e.primitive)


def _in_float32(src: JaxprEqn, out: Var) -> list[JaxprEqn]:
    """``src`` again, writing ``out`` (float32) from its bfloat16 operands converted to float32,
    or XLA's own expansion of it (logistic's), whose last step is the one kept in float32."""
    from .lax import elementwise as ew

    if src.primitive is ew.logistic_p:
        return _logistic(src, out)
    eqns: list[JaxprEqn] = []
    inputs = [_widened(x, eqns, src) for x in src.inputs]
    params = dict(src.params)
    if params.get("preferred_element_type") is not None:
        params["preferred_element_type"] = np.dtype(np.float32)
    eqns.append(JaxprEqn(src.primitive, inputs, params, [out], src.source_info))
    return eqns


def _widened(x, eqns: list[JaxprEqn], src: JaxprEqn):
    from .lax.structural import convert_element_type_p

    if not _is_bfloat16(x.aval.dtype):
        return x
    wide = Var(core.ShapedArray(x.aval.shape, np.dtype(np.float32)))
    params = dict(new_dtype=np.dtype(np.float32), weak_type=False, sharding=None)
    eqns.append(JaxprEqn(convert_element_type_p, [x], params, [wide], src.source_info))
    return wide


def _logistic(src: JaxprEqn, out: Var) -> list[JaxprEqn]:
    """XLA's logistic expander, ``1 / (1 + exp(-x))``, in bfloat16 but for the division."""
    from .lax import elementwise as ew

    (x,) = src.inputs
    eqns: list[JaxprEqn] = []

    def step(prim, *inputs):
        v = Var(x.aval.update(weak_type=False))
        eqns.append(JaxprEqn(prim, list(inputs), {}, [v], src.source_info))
        return v

    one = Literal(np.array(1, x.aval.dtype), core.ShapedArray((), x.aval.dtype))
    d = _widened(step(ew.add_p, one, step(ew.exp_p, step(ew.neg_p, x))), eqns, src)
    one32 = Literal(np.float32(1), core.ShapedArray((), np.dtype(np.float32)))
    eqns.append(JaxprEqn(ew.div_p, [one32, d], {}, [out], src.source_info))
    return eqns
