"""The multiply-adds XLA's CPU compiler fuses: ``a * b + c`` rounded once.

XLA's CPU backend lets LLVM contract a multiplication whose only use is an addition (or a
subtraction) in the same kernel into one fused multiply-add, which rounds once where the two
operations round twice: under ``jit`` JAX's ``p - 0.1 * g`` differs from the eager value in the last
bit on ~9% of elements, ``a * b + c`` on ~23% (float32, measured with JAX 0.10.2). Compiled kernels
here contract the same pairs (``contract``, on the flattened program every kernel is generated
from): a product of the sum's dtype (float32, float64) and shape whose only use is the sum, the
first operand's when both are products (LLVM's order). A product read more than once is copied by
XLA's fusion into every kernel that reads it (``_kernels``), so it fuses into a sum wherever it is
that kernel's one use of it (``s = a * p`` in a BFGS step, read by ``x + s`` and by the matrix
update). A loop's or a branch's body is a computation of its own: contracted on its own, and
around it the program is contracted as if the loop were an opaque reader. Eager evaluation
rounds twice, as JAX's eager operations do (each its own kernel), except in the jnp functions JAX
jits, which eagerly run as that jit where their program contracts (``numpy/_staged._as_compiled``).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .. import ad, batching, core
from ..ir import JaxprEqn, Var, effectful, subjaxprs
from ..lax import elementwise as ew
from ..lax import sum_order
from ..lax.reductions import reduce_sum_p
from ..lax import structural as st
from ..lax.structural import convert_element_type_p
from . import operand_ranks

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
def _fma_sum_impl(a, b, *, axes, square=False, body="loads", negated=False):
    # (square: the product is a value times itself, never -0; body: what the kernel computes
    # before the product, which decides the rows LLVM vectorizes: engine/lax/sum_order.py;
    # negated: the sum of -(a * b), each step fma(a, -b, acc): negating a factor is exact)
    shape = np.broadcast_shapes(np.shape(a), np.shape(b))
    a, b = np.broadcast_to(a, shape), np.broadcast_to(np.negative(b) if negated else b, shape)
    return sum_order.sum_f32(a, axes, b, square=square, body=body)


@fma_sum_p.def_abstract_eval
def _fma_sum_abstract(a, b, *, axes, **_):
    shape = np.broadcast_shapes(a.shape, b.shape)
    return core.ShapedArray(tuple(n for d, n in enumerate(shape) if d not in axes), a.dtype)


# reduce_sum of fma(a, b, fma(c, d, ... e * f)): a chain of fused multiply-adds ending in a product,
# which LLVM threads the reduction's accumulator through (engine/lax/sum_order.fma_chain_sum_f32)
fma_chain_sum_p = core.Primitive("fused_multiply_add_chain_sum")


@fma_chain_sum_p.def_impl
def _fma_chain_sum_impl(*factors, axes):
    pairs = [factors[k : k + 2] for k in range(0, len(factors), 2)]
    return sum_order.fma_chain_sum_f32(pairs, axes)


@fma_chain_sum_p.def_abstract_eval
def _fma_chain_sum_abstract(*factors, axes):
    shape = np.broadcast_shapes(*(f.shape for f in factors))
    return core.ShapedArray(tuple(n for d, n in enumerate(shape) if d not in axes), factors[0].dtype)


_SUMS = (ew.add_p, ew.sub_p, ad.add_jaxvals_p)


def _merge_equal_products(eqns: list[JaxprEqn], uses: Counter, producer: dict) -> tuple[dict, dict]:
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
    # A product's users that CSE makes one equation are one use (``fb - fa - c*db`` written twice
    # is one subtraction of one product, which LLVM fuses in every kernel XLA copies it into).
    products = {v for group in groups.values() for v in group}
    by_user: dict = {}  # product -> {its user's value: how often that user reads it}
    read = Counter()  # product -> reads by equations (the rest of its uses are program outputs)
    for e in eqns:
        user = _reader_key(e, canon, id(e))
        for x in e.inputs:
            if type(x) is Var and x in products:
                by_user.setdefault(x, {})[user] = sum(y is x for y in e.inputs)
                read[x] += 1
    for group in groups.values():
        merged: dict = {}
        for v in group:
            merged.update(by_user.get(v, {}))
        total = sum(uses[v] - read[v] for v in group) + sum(merged.values())
        for v in group:
            uses[v] = total
    return canon, {v: group for group in groups.values() for v in group}


_MOVES = frozenset({"broadcast_in_dim", "reshape", "transpose", "squeeze", "expand_dims"})


def _reader_key(e: JaxprEqn, canon: dict, fallback) -> tuple:
    """Who reads a product, as LLVM sees it: sums CSE makes one (equal values) are one reader. Not
    other readers: two equal negations of a product are one negation read by two sums, which
    LLVM folds into each sum, so the product has two uses there (a jitted third derivative)."""
    out = e.out_binders[0] if len(e.out_binders) == 1 else None
    if e.primitive in _SUMS and out in canon:
        return ("value", canon[out])
    return ("eqn", fallback)


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


def _unit_sign(x, producer: dict) -> int:
    """1 or -1 when ``x`` is the constant 1 or -1 (a literal, or a negated or broadcast one XLA
    folds into a constant: the ``ct * broadcast(-1.)`` of a gradient of ``-sum(t * y)``), else 0."""
    sign = 1
    while type(x) is Var:
        e = producer.get(x, (None, None))[1]
        if e is not None and e.primitive is ew.neg_p:
            x, sign = e.inputs[0], -sign
        elif e is not None and e.primitive is st.broadcast_in_dim_p:  # (of a scalar, checked below)
            x = e.inputs[0]
        else:
            return 0
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


# What XLA's CPU fusion treats as cheap to recompute (``InstructionFusion::IsExpensive`` aside):
# such operations are copied into every kernel that reads them; a costlier one read twice is
# computed once, in a kernel of its own.
_CHEAP = frozenset(
    {
        "add", "add_any", "sub", "mul", "neg", "abs", "max", "min", "and", "or", "not", "xor", "eq",
        "ne", "lt", "le", "gt", "ge", "select_n", "convert_element_type", "sign", "floor", "ceil",
        "round", "is_finite", "clamp", "square", "integer_pow", "copy", "real", "imag", "complex",
        "conj", "broadcast_in_dim", "reshape", "squeeze", "expand_dims", "slice", "concatenate",
        "transpose", "pad", "iota", "rev", "stop_gradient", "stack",
    }
)  # fmt: skip
# Cheap for real numbers only (XLA's ``IsExpensive``: a complex one is a costlier expansion).
_CHEAP_REAL = frozenset({"sin", "cos"})


def _cheap(e: JaxprEqn) -> bool:
    name = e.primitive.name
    if name in _CHEAP_REAL:
        return not np.issubdtype(e.out_binders[0].aval.dtype, np.complexfloating)
    return name in _CHEAP


# Fused with what they read, but always the last operation of their kernel.
_REDUCTIONS = frozenset({"reduce_sum", "reduce_max", "reduce_min", "reduce_prod"})


def _fusible(e: JaxprEqn) -> bool:
    if len(e.out_binders) != 1 or next(subjaxprs(e), None) is not None:
        return False
    name = e.primitive.name
    if name == "dot_general":  # (a vector . vector dot: XLA's CPU compiler makes it a multiply-reduce)
        return all(x.aval.ndim == 1 for x in e.inputs)
    return name in _CHEAP or name in _REDUCTIONS or batching.is_elementwise(e.primitive)


def _kernels(eqns: list[JaxprEqn], outs: list) -> tuple[list[frozenset], dict]:
    """The kernels XLA's fusion puts each equation in (by the index of the equation each kernel
    ends with), and each variable's readers. A value is the end of a kernel, computed once, when
    it is an output, a reduction, read by something XLA does not fuse (a matrix product, a loop)
    or costly and read twice; otherwise it is recomputed in every kernel that reads it."""
    readers: dict = {}
    for c, e in enumerate(eqns):
        for y in {y for y in e.inputs if type(y) is Var}:
            readers.setdefault(y, []).append(c)
    returned = {x for x in outs if type(x) is Var}
    kernels: list[frozenset] = [frozenset()] * len(eqns)
    for i in reversed(range(len(eqns))):
        e = eqns[i]
        users = [c for v in e.out_binders for c in readers.get(v, ())]
        if (
            not users
            or not _fusible(e)
            or e.primitive.name in _REDUCTIONS
            or e.primitive.name == "dot_general"
            or any(v in returned for v in e.out_binders)
            or not all(_fusible(eqns[c]) for c in users)
            or (len(users) > 1 and not _cheap(e))
        ):
            kernels[i] = frozenset([i])
        else:
            kernels[i] = frozenset().union(*(kernels[c] for c in users))
    return kernels, readers


def _true_rank(aval) -> int:
    return sum(n != 1 for n in aval.shape)


def _effectively_unary(e: JaxprEqn, producer: dict) -> bool:
    """Whether XLA may copy the product ``e`` into every kernel reading it whatever its readers
    (``InstructionFusion::EffectivelyAtMostUnary``): at most one of its operands is read whole,
    the others being broadcasts (a scalar, a row ``w`` of ``x * w``), iotas, scalar constants or of
    a lower rank (dimensions of 1 not counted); copying it then reads no more input than once."""
    rank = _true_rank(e.out_binders[0].aval)
    whole = 0
    distinct = [x for k, x in enumerate(e.inputs) if all(x is not y for y in e.inputs[:k])]
    for x in distinct:  # (a square, x * x, reads x once: unary)
        made = producer.get(x, (None, None))[1] if type(x) is Var else None
        if made is not None and made.primitive.name in ("broadcast_in_dim", "iota"):
            continue
        if type(x) is not Var and x.aval.size == 1:
            continue
        whole += _true_rank(x.aval) >= rank
    return whole <= 1


def _alone_in_kernels(
    x, i: int, group: list, kernels: tuple, canon: dict, eqns: list, producer: dict, outs
) -> bool:
    """Whether the product ``x``, read more than once, is read once in the kernels of the sum
    ``i``: XLA copies a product into each kernel reading it, and LLVM fuses each copy whose one use
    is a sum. XLA copies a product of two whole arrays only when it can fuse it into every reader
    on every path (``ComputeGloballyUnfusible``): not when it is also an output or reduced (the
    reduction's result reaches the other readers through a kernel of its own), then it is computed
    once, in a kernel of its own; an effectively unary product (an array scaled by a scalar or by a
    broadcast row, ``x * w`` in ``softmax(x * w)``) is copied even then, into the reduction's kernel
    and each other reader's (measured with JAX 0.10.2's dumps: ``exp(fma(x, w, -max))``). Readers
    CSE makes one (equal values) are one reader."""
    ends, readers = kernels
    members = set(group)
    returned = {v for v in outs if type(v) is Var}
    for v in group:
        if not _effectively_unary(producer[v][1], producer) and (
            v in returned or any(eqns[c].primitive.name in _REDUCTIONS for c in readers.get(v, ()))
        ):
            return False
    by_value: dict = {}  # reader's value -> (its kernels, how often it reads the product)
    for v in group:
        for c in readers.get(v, ()):
            e = eqns[c]
            key = _reader_key(e, canon, c)
            ks, _ = by_value.get(key, (frozenset(), 0))
            by_value[key] = (ks | ends[c], sum(y in members for y in e.inputs if type(y) is Var))
    return all(sum(n for ks, n in by_value.values() if end in ks) == 1 for end in ends[i])


def _scaled_again(terms, signs, producer: dict) -> bool:
    """Whether a sum of one element (scalar code: no vector loop) is ``a * b + a * c``, ``c`` a
    constant, ``b`` neither a constant nor ``a``: then the second product is the one fused (measured
    with JAX 0.10.2 in loop bodies and jitted scalars: the backward step of ``t * 0.9 + sin(t)``),
    where a vector's sum, or ``b * a + a * c``, fuses the first."""
    if any(s < 0 for s in signs):
        return False
    factors = []
    for x, _ in terms:
        made = producer.get(x) if type(x) is Var else None
        f = _factors(made[1], producer) if made is not None else None
        if f is None:
            return False
        factors.append(sorted(f, key=lambda v: type(v) is not Var))  # (XLA puts constants second)
    (a, b), (c, d) = factors
    return type(a) is Var and a is c and type(b) is Var and b is not a and type(d) is not Var


def _both_products(terms, producer: dict) -> bool:
    made = [producer.get(x, (None, None))[1] if type(x) is Var else None for x, _ in terms]
    return all(m is not None and _factors(m, producer) is not None for m in made)


def _copied_into(x, i: int, eqns: list[JaxprEqn], outs: list) -> bool:
    """Whether XLA computes ``x`` (cheap elementwise work) inside the kernel of its reader ``i``,
    where that reader is its one use: ``x`` has no other reader, or every other one fuses it too
    (elementwise work, or a dot whose operand DotDecomposer first reshapes: of more dimensions
    than its batch, one free and one contracted), so XLA copies it into each
    (``InstructionFusion::ComputeGloballyUnfusible`` allows it); not an output, computed once."""
    if any(v is x for v in outs):
        return False
    for c, e in enumerate(eqns):
        if c == i or not any(y is x for y in e.inputs):
            continue
        if e.primitive.name == "dot_general":
            (lc, rc), (lb, rb) = e.params["dimension_numbers"]
            k = next(k for k, y in enumerate(e.inputs) if y is x)
            if x.aval.ndim > len((lb, rb)[k]) + 2:
                continue
            return False
        if not _fusible(e) or e.primitive.name in _REDUCTIONS:
            return False
    return True


def _fma_chain(m: JaxprEqn, uses: Counter, current, producer: dict) -> list | None:
    """The factors of a reduction's summand ``fma(a, b, fma(c, d, ... e * f))``, outermost first,
    when every link and the last product have no other use (and no negation): LLVM then fuses the
    reduction's reassociable addition into the chain (``sum_order.fma_chain_sum_f32``)."""
    factors: list = []
    while m.primitive is fma_p:
        if m.params["neg_product"] or m.params["neg_addend"]:
            return None
        factors += m.inputs[:2]
        c = m.inputs[2]
        m = current(c) if type(c) is Var and uses[c] == 1 else None
        if m is None:
            return None
    last = _factors(m, producer)
    if last is None or any(f.aval.dtype != np.float32 for f in (*factors, *last)):
        return None
    return [*factors, *last]


def contract(
    eqns: list[JaxprEqn],
    paths: list,
    outs: list,
    sums: bool = True,
    ynn: set[int] = frozenset(),
    body: bool = False,
) -> tuple[list[JaxprEqn], list]:
    """``eqns`` (and their ``paths``) with each sum of a product XLA would fuse made one ``fma_p``
    (and, with ``sums``, each float32 reduce_sum of a product one ``fma_sum_p``). Not the sums
    in ``ynn``, equations YNNPACK computes (``ynn_fusion.fused``): it rounds the product.
    ``body``: a loop's or branch's body (``operand_ranks.second_first``)."""
    uses = Counter(x for e in eqns for x in e.inputs if type(x) is Var)
    uses.update(x for x in outs if type(x) is Var)
    producer = {v: (i, e) for i, e in enumerate(eqns) for v in e.out_binders}
    canon, same_product = _merge_equal_products(eqns, uses, producer)
    original, kernels = eqns, None  # (the kernels, found when a product read twice meets a sum)
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
        if out.size == 1 and e.primitive is not ew.sub_p and _scaled_again(terms, signs, producer):
            order = (1, 0)
        elif e.primitive is not ew.sub_p and min(seen) > 0 and _both_products(terms, producer):
            kernels = kernels or _kernels(original, outs)  # (Reassociate may put the second first)
            if operand_ranks.second_first(terms[0][0], terms[1][0], i, original, kernels, producer, body):
                order = (1, 0)
        for k in order:
            x = terms[k][0]
            j, m = producer.get(x, (None, None)) if type(x) is Var else (None, None)
            factors = _factors(m, producer) if m is not None else None
            if factors is None or x.aval.shape != out.shape or x.aval.dtype != out.dtype:
                continue
            if j in fused or uses[x] != 1:
                kernels = kernels or _kernels(original, outs)
                if not _alone_in_kernels(
                    x, i, same_product.get(x, [x]), kernels, canon, original, producer, outs
                ):
                    continue
            addend_negated = e.primitive is ew.sub_p and k == 0  # (the addend is the other input)
            params = dict(neg_product=signs[k] < 0, neg_addend=addend_negated)
            eqns[i] = JaxprEqn(fma_p, [*factors, e.inputs[1 - k]], params, e.out_binders, e.source_info)
            fused.add(j)
            break
    for i, e in enumerate(eqns if sums else ()):  # a float32 sum of products under XLA's YNNPACK limit
        if e.primitive is not reduce_sum_p or type(e.inputs[0]) is not Var:
            continue
        if e.inputs[0].aval.size == e.out_binders[0].aval.size:
            continue  # (no sum at all in XLA, which reshapes: fma(a, b, 0) would make -0. +0.)
        # (a sum of negated products: LLVM folds the negation into a factor, and XLA's simplifier
        # moves it onto the smaller operand, so the sum's kernel fuses the product all the same)
        x, sign = _through_negations(e.inputs[0], uses, producer)
        if type(x) is not Var or x.aval.shape != e.inputs[0].aval.shape:
            continue
        j, m = producer.get(x, (None, None))
        factors = _factors(m, producer) if m is not None else None
        small = x.aval.dtype == np.float32 and 0 < x.aval.size < sum_order.TREE_LIMIT
        # (a product read elsewhere too: an effectively unary one is copied into the sum's kernel,
        # where the sum is its one use, when the sum is one loop nest: no reduced dimension longer
        # than a window, which XLA's tree rewriter would sum from the product's own kernel)
        copied = (
            m is not None
            and _effectively_unary(m, producer)
            and all(x.aval.shape[d] <= sum_order.WINDOW for d in e.params["axes"])
        )
        current = eqns[j] if m is not None else None  # (its rewrite by the loop above, if any)
        if (
            current is not None
            and current.primitive is fma_p
            and small
            and sign > 0
            and _copied_into(x, i, original, outs)
        ):
            chain = _fma_chain(
                current, uses, lambda v: eqns[producer[v][0]] if v in producer else None, producer
            )
            if chain is not None:
                params = dict(axes=tuple(e.params["axes"]))
                eqns[i] = JaxprEqn(fma_chain_sum_p, chain, params, e.out_binders, e.source_info)
                continue
        if factors is None or not small or ((j in fused or uses[x] != 1) and not copied):
            continue
        square = type(factors[0]) is Var and factors[0] is factors[1] and sign > 0
        params = dict(axes=tuple(e.params["axes"]), square=square, body=_body(factors, producer))
        if sign < 0:
            params["negated"] = True
        eqns[i] = JaxprEqn(fma_sum_p, factors, params, e.out_binders, e.source_info)
        fused.add(j)
    # (the product's equation stays, unused: no kernel computes it, and the kernel of its sum
    # still shows it among the equations it covers)
    return eqns, paths
