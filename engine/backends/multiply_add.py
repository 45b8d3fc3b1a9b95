"""The multiply-adds XLA's CPU compiler fuses: ``a * b + c`` rounded once.

XLA's CPU backend lets LLVM contract a multiplication whose only use is an addition (or a
subtraction) in the same kernel into one fused multiply-add, which rounds once where the two
operations round twice: under ``jit`` JAX's ``p - 0.1 * g`` differs from the eager value in the last
bit on ~9% of elements, ``a * b + c`` on ~23% (float32, measured with JAX 0.10.2). Compiled kernels
here contract the same pairs (``contract``, on the flattened program every kernel is generated
from): a product of the sum's dtype (float32, float64) and shape whose only use is the sum, the
first operand's when both are products (LLVM's order). Eager evaluation and the interpreter tier
round twice, as JAX's eager operations do (each its own kernel).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .. import ad, batching, core
from ..ir import JaxprEqn, Var, effectful, subjaxprs
from ..lax import elementwise as ew
from ..lax import sum_order
from ..lax.reductions import reduce_sum_p
from ..lax.structural import convert_element_type_p

# neg_product: c - a*b; neg_addend: a*b - c (fma(-a, b, c) and fma(a, b, -c): negation is exact)
fma_p = core.Primitive("fused_multiply_add")


@fma_p.def_impl
def _fma_impl(a, b, c, *, neg_product, neg_addend):
    # (only the host fallback of a kernel runs this. float32: the product is exact in float64 and
    # the sum rounds once more, as a fused multiply-add but for double rounding, ~1 input in 2**29;
    # float64: rounded twice)
    dtype = np.result_type(a, b, c)
    wide = np.float64 if dtype == np.float32 else dtype
    a, b, c = (np.asarray(v, wide) for v in (a, b, c))
    product = -(a * b) if neg_product else a * b
    return np.asarray(product + (-c if neg_addend else c)).astype(dtype)


@fma_p.def_abstract_eval
def _fma_abstract(a, b, c, **_):
    return core.ShapedArray(np.broadcast_shapes(a.shape, b.shape, c.shape), c.dtype)


def _fma_jvp(primals, tangents, *, neg_product, neg_addend):
    # (met eagerly: a compiled rule, engine/fused_rules.py, under another transformation)
    a, b, c = primals
    ta, tb, tc = tangents
    out = fma_p.bind(a, b, c, neg_product=neg_product, neg_addend=neg_addend)
    t: ad.Tangent = ad.Zero(ad.tangent_aval(core.get_aval(out)))
    for term in (
        ew.mul(ta, b) if type(ta) is not ad.Zero else None,
        ew.mul(a, tb) if type(tb) is not ad.Zero else None,
    ):
        if term is not None:
            t = ad.add_tangents(t, ew.neg(term) if neg_product else term)
    if type(tc) is not ad.Zero:
        t = ad.add_tangents(t, ew.neg(tc) if neg_addend else tc)
    return out, t


def _fma_transpose(ct, a, b, c, *, neg_product, neg_addend):
    # (a compiled rule met by a linearization: linear in c and in one factor)
    if ad.is_undefined(a) and ad.is_undefined(b):
        raise NotImplementedError("fused_multiply_add is not linear in both factors")
    ct_product = ew.neg(ct) if neg_product else ct
    return [
        ew._unbroadcast(ew.mul(ct_product, b), a) if ad.is_undefined(a) else None,
        ew._unbroadcast(ew.mul(a, ct_product), b) if ad.is_undefined(b) else None,
        ew._unbroadcast(ew.neg(ct) if neg_addend else ct, c) if ad.is_undefined(c) else None,
    ]


ad.jvp_rules[fma_p] = _fma_jvp
ad.transpose_rules[fma_p] = _fma_transpose
batching.broadcast_batcher(fma_p)


# reduce_sum of a * b whose products XLA fuses into the additions (engine/lax/sum_order.py)
fma_sum_p = core.Primitive("fused_multiply_add_sum")


@fma_sum_p.def_impl
def _fma_sum_impl(a, b, *, axes, square=False, body="loads"):
    # (square: the product is a value times itself, never -0; body: what the kernel computes
    # before the product, which decides the rows LLVM vectorizes: engine/lax/sum_order.py)
    shape = np.broadcast_shapes(np.shape(a), np.shape(b))
    a, b = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
    return sum_order.sum_f32(a, axes, b, square=square, body=body)


@fma_sum_p.def_abstract_eval
def _fma_sum_abstract(a, b, *, axes, **_):
    shape = np.broadcast_shapes(a.shape, b.shape)
    return core.ShapedArray(tuple(n for d, n in enumerate(shape) if d not in axes), a.dtype)


_SUMS = (ew.add_p, ew.sub_p, ad.add_jaxvals_p)


def _merge_equal_products(eqns: list[JaxprEqn], uses: Counter, producer: dict) -> dict:
    """Count the uses of each product as LLVM sees them: XLA's CSE first makes equal equations one
    (``(a*b + c, a*b)`` has one product of two uses, and so does ``x**-3`` computed twice), and
    LLVM folds negations out of products (a negated factor, a factor of -1 or of a negative
    constant) before it fuses, so products equal up to their sign are one product too: a product
    used twice that way fuses into neither sum (a jitted third derivative)."""
    canon: dict = {}  # var -> (key of its value up to sign, sign)
    seen: dict = {}  # key of an equation -> its output's canonical form
    groups: dict = {}  # key of a product -> the variables holding it (up to sign)
    folded: set = set()  # values computed from constants only

    def of(x) -> tuple:
        if type(x) is Var:
            return canon.get(x, (("v", id(x)), 1))
        v = np.asarray(x.val)
        if v.ndim == 0 and v.dtype in _FLOATS:  # (a scalar: its magnitude, and its sign apart)
            return (("c", abs(v).tobytes(), v.dtype.name), -1 if v < 0 else 1)
        return (("c", v.tobytes(), str(x.aval)), 1)

    for e in eqns:
        if len(e.out_binders) != 1 or e.primitive in effectful or next(subjaxprs(e), None) is not None:
            continue
        out = e.out_binders[0]
        ins = [of(x) for x in e.inputs]
        if all(type(x) is not Var or x in folded for x in e.inputs):  # (XLA folds it to a constant,
            folded.add(out)  # whose elements' signs LLVM does not see: opaque, but for a scalar's)
            if e.primitive is ew.neg_p and type(e.inputs[0]) is not Var and ins[0][0][0] == "c":
                canon[out] = (ins[0][0], -ins[0][1])
            continue
        if e.primitive is ew.neg_p:
            canon[out] = (ins[0][0], -ins[0][1])
            continue
        if e.primitive.name in _MOVES:  # (a broadcast or a reshape only moves a value's sign)
            try:
                canon[out] = ((e.primitive.name, tuple(sorted(e.params.items())), ins[0][0]), ins[0][1])
                hash(canon[out])
            except TypeError:
                canon.pop(out, None)
            continue
        factors = _factors(e, producer)
        if factors is not None or (e.primitive is ew.mul_p):
            pair = [of(x) for x in (factors or e.inputs)]
            units = [(k, u) for k, x in enumerate(e.inputs) if (u := _unit_sign(x, producer))]
            if e.primitive is ew.mul_p and units:  # x * 1, x * -1: x, up to its sign
                k, u = units[0]
                other = of(e.inputs[1 - k])
                canon[out] = (other[0], other[1] * u)
                continue
            key = ("mul", *sorted((b for b, _ in pair), key=repr))
            canon[out] = (key, pair[0][1] * pair[1][1])
            if factors is not None:
                groups.setdefault(key, []).append(out)
            continue
        try:
            key = (e.primitive, tuple(sorted(e.params.items())), tuple(ins))
            hash(key)
        except TypeError:  # (unhashable params: no CSE)
            continue
        canon[out] = seen.setdefault(key, (("e", id(out)), 1))
    for group in groups.values():
        if len(group) > 1:
            total = sum(uses[v] for v in group)
            for v in group:
                uses[v] = total
    return canon


_MOVES = frozenset({"broadcast_in_dim", "reshape", "transpose", "squeeze", "expand_dims"})


def _through_negations(x, uses: Counter, producer: dict) -> tuple:
    """``x`` as LLVM sees it in a sum: a value negated (``neg``, a factor of 1 or -1) is the value
    with a sign, when each step has no other use (InstCombine folds the negation into the sum)."""
    sign = 1
    while type(x) is Var and uses[x] == 1:
        e = producer.get(x, (None, None))[1]
        if e is None:
            break
        if e.primitive is ew.neg_p:
            x, sign = e.inputs[0], -sign
            continue
        if e.primitive is ew.mul_p:
            units = [(k, u) for k, f in enumerate(e.inputs) if (u := _unit_sign(f, producer))]
            if units:
                k, u = units[0]
                x, sign = e.inputs[1 - k], sign * u
                continue
        break
    return x, sign


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _has_control_flow(e: JaxprEqn) -> bool:
    """A loop or branch (also inside a nested ``jit``): XLA splits such programs into several
    kernels, whose boundaries decide which products it fuses; only straight-line programs are
    contracted (in a BFGS loop contracting every product-sum pair changed the steps JAX takes)."""
    inner = list(subjaxprs(e))
    if not inner:
        return False
    if e.primitive.name != "jit":
        return True
    return any(_has_control_flow(f) for j in inner for f in j.eqns)


def _unit_sign(x, producer: dict) -> int:
    """1 or -1 when ``x`` is the constant 1 or -1 (a literal, or a negated one XLA folds into a
    constant), else 0."""
    sign = 1
    if type(x) is Var:
        e = producer.get(x, (None, None))[1]
        if e is None or e.primitive is not ew.neg_p:
            return 0
        x, sign = e.inputs[0], -1
    if type(x) is Var or np.ndim(x.val) != 0:
        return 0
    v = complex(x.val)
    return 0 if v.imag != 0 or abs(v.real) != 1.0 else sign * (1 if v.real > 0 else -1)


def _factors(e: JaxprEqn, producer: dict) -> list | None:
    """The two factors of a product as XLA sees it (a square is ``x * x`` there), else None. A
    product by 1 or -1 is none: LLVM folds it into a copy or a negation before it fuses."""
    if e.primitive is ew.mul_p:
        return None if any(_unit_sign(x, producer) for x in e.inputs) else list(e.inputs)
    if e.primitive is ew.square_p or (e.primitive is ew.integer_pow_p and e.params["y"] == 2):
        return [e.inputs[0], e.inputs[0]]
    return None


_LIGHT = (ew.add_p, ew.sub_p, ew.mul_p, ew.neg_p, ew.square_p)
_CONVERTS = (convert_element_type_p,)


def _body(factors: list, producer: dict) -> str:
    """What XLA's loop computes for a product it sums (``sum_order.sum_f32``'s ``body``): the
    square of a loaded array, a product of loaded arrays, of values made from loads by additions
    and multiplications only, or with anything costlier (an exp, a division) on the way."""
    if all(type(f) is Var and f not in producer for f in factors):
        return "load_square" if factors[0] is factors[1] else "loads"
    todo, seen = list(factors), set()
    while todo:
        v = todo.pop()
        if type(v) is not Var or v in seen or v not in producer:
            continue
        seen.add(v)
        e = producer[v][1]
        if e.primitive in _LIGHT or (e.primitive is ew.integer_pow_p and e.params["y"] == 2):
            todo.extend(e.inputs)
        elif batching.is_elementwise(e.primitive) and e.primitive not in _CONVERTS:
            return "heavy"
    return "light"


def contract(
    eqns: list[JaxprEqn], paths: list, outs: list, sums: bool = True, ynn: set[int] = frozenset()
) -> tuple[list[JaxprEqn], list]:
    """``eqns`` (and their ``paths``) with each sum of a product XLA would fuse made one ``fma_p``
    (and, with ``sums``, each float32 reduce_sum of a product one ``fma_sum_p``). Not the sums
    in ``ynn``, equations YNNPACK computes (``ynn_fusion.fused``): it rounds the product."""
    if any(_has_control_flow(e) for e in eqns):
        return eqns, paths
    uses = Counter(x for e in eqns for x in e.inputs if type(x) is Var)
    uses.update(x for x in outs if type(x) is Var)
    producer = {v: (i, e) for i, e in enumerate(eqns) for v in e.out_binders}
    canon = _merge_equal_products(eqns, uses, producer)
    fused: set[int] = set()
    eqns = list(eqns)
    for i, e in enumerate(eqns):
        if e.primitive not in _SUMS or e.out_binders[0].aval.dtype not in _FLOATS or i in ynn:
            continue
        out = e.out_binders[0].aval
        terms = [_through_negations(x, uses, producer) for x in e.inputs]  # (atom, sign) each
        signs = [s * (-1 if e.primitive is ew.sub_p and k == 1 else 1) for k, (_, s) in enumerate(terms)]
        # (InstCombine takes negations out of products and writes -a + b as b - a: then b is the
        # first operand, whose product LLVM fuses when both are products)
        seen = [s * (canon.get(x, (None, 1))[1] if type(x) is Var else 1) for (x, _), s in zip(terms, signs)]
        order = (1, 0) if seen[0] < 0 < seen[1] else (0, 1)
        for k in order:
            x = terms[k][0]
            j, m = producer.get(x, (None, None)) if type(x) is Var else (None, None)
            factors = _factors(m, producer) if m is not None else None
            if factors is None or j in fused or uses[x] != 1:
                continue
            if x.aval.shape != out.shape or x.aval.dtype != out.dtype:
                continue
            addend_negated = e.primitive is ew.sub_p and k == 0  # (the addend is the other input)
            params = dict(neg_product=signs[k] < 0, neg_addend=addend_negated)
            eqns[i] = JaxprEqn(fma_p, [*factors, e.inputs[1 - k]], params, e.out_binders, e.source_info)
            fused.add(j)
            break
    for i, e in enumerate(eqns if sums else ()):  # a float32 sum of products under XLA's YNNPACK limit
        if e.primitive is not reduce_sum_p or type(e.inputs[0]) is not Var:
            continue
        x = e.inputs[0]
        j, m = producer.get(x, (None, None))
        factors = _factors(m, producer) if m is not None else None
        small = x.aval.dtype == np.float32 and 0 < x.aval.size < sum_order.TREE_LIMIT
        if factors is None or not small or j in fused or uses[x] != 1:
            continue
        square = type(factors[0]) is Var and factors[0] is factors[1]
        params = dict(axes=tuple(e.params["axes"]), square=square, body=_body(factors, producer))
        eqns[i] = JaxprEqn(fma_sum_p, factors, params, e.out_binders, e.source_info)
        fused.add(j)
    # (the product's equation stays, unused: no kernel computes it, and the kernel of its sum
    # still shows it among the equations it covers)
    return eqns, paths
