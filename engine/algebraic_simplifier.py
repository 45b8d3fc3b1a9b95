"""XLA's algebraic simplifications that change what a jitted program returns.

JAX compiles a jitted function with XLA, whose algebraic simplifier rewrites expressions before
they run: ``log(exp(x))`` becomes ``x``, so ``jit(lambda x: jnp.log(jnp.exp(x)))(100.)`` is
``100.`` where the eager ``exp`` overflows to ``inf`` (the FAQ's example). The engine's jit applies
the same rewrites to the program its backend runs (``make_jaxpr`` and ``Lowered.as_text`` still
show the program as traced, as JAX's do). Only the rewrites whose effect shows in values are here,
each checked against JAX 0.10.2 on a CPU; the rest of XLA's simplifier reorders arithmetic within
rounding. All apply to real floating-point values only (XLA keeps ``log(exp(z))`` for complex z).

``rules[p](eqn, inputs, producer)`` returns ``(new equations, the atom that replaces the equation's
output)`` or None; ``inputs`` are the equation's inputs after earlier rewrites and ``producer(x)``
the equation (rewritten) that defines ``x``, if any.
"""

from __future__ import annotations

import weakref
from typing import Callable

import numpy as np

from . import ad, call_inlining, constant_folding, core
from .ir import Atom, ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, dce_jaxpr, effectful, subjaxprs
from .lax import complex_numbers as cn
from .lax import elementwise as ew
from .lax import parallel as lax_parallel
from .lax import reductions as red
from .lax import structural as st

Producer = Callable[[Atom], JaxprEqn | None]
Rewrite = tuple[list[JaxprEqn], Atom]
rules: dict[core.Primitive, Callable[[JaxprEqn, list[Atom], Producer], Rewrite | None]] = {}


def _real_float(x: Atom) -> bool:
    return np.issubdtype(x.aval.dtype, np.floating)


def _same_type(a: Atom, b: Atom) -> bool:
    return a.aval.shape == b.aval.shape and a.aval.dtype == b.aval.dtype


def _constant(x: Atom, producer: Producer, depth: int = 0) -> np.ndarray | None:
    """The value of a literal (or of a broadcast literal, unbroadcast), or of arithmetic on
    scalar literals (``var``'s count minus ``ddof``), as XLA sees constants once it has folded them."""
    if type(x) is not Literal:
        eqn = producer(x)
        if eqn is None:
            return None
        if eqn.primitive is st.broadcast_in_dim_p and type(eqn.inputs[0]) is Literal:
            x = eqn.inputs[0]
        elif eqn.primitive in _FOLDED and depth < 4 and not eqn.out_binders[0].aval.shape:
            values = [_constant(v, producer, depth + 1) for v in eqn.inputs]
            if any(v is None for v in values):
                return None
            with np.errstate(all="ignore"):
                return np.asarray(core.impl_rules[eqn.primitive](*values, **eqn.params))
        else:
            return None
    return np.asarray(getattr(x.val, "_value", x.val))


_FOLDED = {ew.add_p, ew.sub_p, ew.mul_p, ew.neg_p, st.convert_element_type_p}


def _operand_of(x: Atom, p: core.Primitive, producer: Producer) -> JaxprEqn | None:
    eqn = producer(x)
    return eqn if eqn is not None and eqn.primitive is p else None


def _literal(value: object, dtype: np.dtype, weak: bool) -> Literal:
    """A constant the rewrite makes, typed as the one it stands for (weak or not: an eager
    evaluation of the rewritten program, as the tape's, keeps the traced program's weak types)."""
    val = np.asarray(value, dtype)
    return Literal(core.Array(val, weak), core.ShapedArray(val.shape, val.dtype, weak))


def _eqn(p: core.Primitive, inputs: list[Atom], aval: core.ShapedArray, params=None) -> tuple[JaxprEqn, Var]:
    out = Var(aval)
    return JaxprEqn(p, inputs, dict(params or {}), [out]), out


def _log(eqn, inputs, producer):
    (x,) = inputs
    if not _real_float(x):
        return None
    exp = _operand_of(x, ew.exp_p, producer)
    if exp is not None:  # ln(exp(A)) => A
        return [], exp.inputs[0]
    for root, half in ((ew.sqrt_p, 0.5), (ew.rsqrt_p, -0.5)):
        r = _operand_of(x, root, producer)
        if r is not None:  # ln(sqrt(A)) => 0.5 * ln(A), ln(rsqrt(A)) => -0.5 * ln(A)
            a = r.inputs[0]
            log_eqn, log_a = _eqn(ew.log_p, [a], a.aval)
            c = _literal(half, a.aval.dtype, eqn.out_binders[0].aval.weak_type)
            mul_eqn, out = _eqn(ew.mul_p, [log_a, c], eqn.out_binders[0].aval)
            return [log_eqn, mul_eqn], out
    power = _operand_of(x, ew.pow_p, producer)
    if power is not None and all(_real_float(v) for v in power.inputs):
        base, exponent = power.inputs
        c = _constant(exponent, producer)
        # XLA first turns pow(A, c) for these c into 1, A, A*A, A*A*A and 1/A: no log of a pow left.
        if c is not None and c.size and np.all(c == c.flat[0]) and c.flat[0] in (0, 1, 2, 3, -1):
            return None
        # ln(pow(A, B)) => B * ln(|A|), also for a negative A (a real result where pow is nan)
        a = core.ShapedArray(base.aval.shape, base.aval.dtype, base.aval.weak_type)
        abs_eqn, abs_a = _eqn(ew.abs_p, [base], a)
        log_eqn, log_a = _eqn(ew.log_p, [abs_a], a)
        mul_eqn, out = _eqn(ew.mul_p, [exponent, log_a], eqn.out_binders[0].aval)
        return [abs_eqn, log_eqn, mul_eqn], out
    return None


def _mul(eqn, inputs, producer):
    """exp(A) * exp(B) => exp(A + B); A * 1 => A (which lets the first apply to 1 / exp(B) * exp(B));
    A * convert(P) => select(P, A, 0) for a boolean P (an inf or NaN A times False is 0, not NaN: the
    gradient of ``max`` over an array with NaNs is 0 under jit)."""
    if all(x.aval.dtype == np.complex64 for x in inputs):
        return _times_conjugate(inputs, eqn.out_binders[0].aval, producer)
    if not all(_real_float(x) for x in inputs):
        return None
    out = eqn.out_binders[0]
    for a, mask in (inputs, inputs[::-1]):
        conv = _operand_of(mask, st.convert_element_type_p, producer)
        if conv is not None and conv.inputs[0].aval.dtype == np.bool_ and a.aval.dtype == out.aval.dtype:
            return _select_or_zero(conv.inputs[0], a, out.aval)
    exps = [_operand_of(x, ew.exp_p, producer) for x in inputs]
    if exps[0] is not None and exps[1] is not None and _same_type(exps[0].inputs[0], exps[1].inputs[0]):
        return _exp_of(ew.add_p, exps[0].inputs[0], exps[1].inputs[0], eqn.out_binders[0].aval)
    for one, other in (inputs, inputs[::-1]):
        c = _constant(one, producer)
        if c is not None and np.all(c == 1) and type(other) is Var and _same_type(other, out):
            return [], other
    return _reassociate(inputs, out.aval, producer)


def _times_conjugate(inputs, aval, producer):
    """z * conj(z) => complex(a*a + b*b, a*b - a*b): XLA fuses the conjugate into the complex
    multiply and LLVM folds its negations, so the real part is a fused multiply-add (made by the
    kernels' contraction) and the imaginary part the product minus itself (0, nan for inf)."""
    for z, other in (inputs, inputs[::-1]):
        conj = _operand_of(other, cn.conj_p, producer)
        if conj is not None and conj.inputs[0] is z and type(z) is Var:
            break
    else:
        return None
    part = core.ShapedArray(aval.shape, np.dtype(np.float32), aval.weak_type)
    re, a = _eqn(cn.real_p, [z], part)
    im, b = _eqn(cn.imag_p, [z], part)
    aa, a2 = _eqn(ew.mul_p, [a, a], part)
    bb, b2 = _eqn(ew.mul_p, [b, b], part)
    add, r = _eqn(ew.add_p, [a2, b2], part)
    ab, p = _eqn(ew.mul_p, [a, b], part)
    sub, i = _eqn(ew.sub_p, [p, p], part)
    cplx, out = _eqn(cn.complex_p, [r, i], aval)
    return [re, im, aa, bb, add, ab, sub, cplx], out


def _scalar_constant(x: Atom, producer: Producer) -> np.ndarray | None:
    c = _constant(x, producer)
    return c.flat[0] if c is not None and c.size and np.all(c == c.flat[0]) else None


def _reassociate(inputs: list[Atom], aval: core.ShapedArray, producer: Producer) -> Rewrite | None:
    """(A * C1) * C2 => A * fl(C1 * C2), and (A * C) * broadcast(B) => A * broadcast(B * C) for
    scalar constants C1, C2, C and a B broadcast explicitly or by the product itself (a scalar, a
    row, a column; also when ``A * C`` has other uses): XLA folds the constants and moves them onto
    the smaller operand, so ``(x * 5.) * 3.`` rounds as ``x * 15.`` and ``s * (x * 3.)`` as
    ``x * (s * 3.)`` (float32, JAX 0.10.2). ``(A * B) * C`` with B of A's shape stays. Scalars
    also fold two products' constants, (A * C1) * (B * C2) => (A * B) * fl(C1 * C2): XLA's rule
    matches constants, which an array's are not (they are broadcasts there)."""
    if not aval.shape:
        both = _scalar_products(inputs, aval, producer)
        if both is not None:
            return both
    for inner_v, other in (inputs, inputs[::-1]):
        inner = _operand_of(inner_v, ew.mul_p, producer)
        if inner is None:
            continue
        for a, c_atom in (inner.inputs, inner.inputs[::-1]):
            c1 = _scalar_constant(c_atom, producer)
            if c1 is None or type(a) is not Var or a.aval.shape != aval.shape or a.aval.dtype != aval.dtype:
                continue
            c2 = _scalar_constant(other, producer)
            if c2 is not None:
                with np.errstate(all="ignore"):
                    folded = np.asarray(np.asarray(c1, aval.dtype) * np.asarray(c2, aval.dtype), aval.dtype)
                mul, out = _eqn(ew.mul_p, [a, _literal(folded, aval.dtype, aval.weak_type)], aval)
                return [mul], out
            c = _literal(c1, aval.dtype, aval.weak_type)
            if type(other) is Var and other.aval.size < aval.size:
                scale, s_c = _eqn(ew.mul_p, [other, c], other.aval)  # (broadcast by the product)
                mul, out = _eqn(ew.mul_p, [a, s_c], aval)
                return [scale, mul], out
            bcast = _operand_of(other, st.broadcast_in_dim_p, producer)
            if (
                bcast is None
                or type(bcast.inputs[0]) is not Var
                or bcast.inputs[0].aval.size == other.aval.size
            ):
                continue
            s = bcast.inputs[0]
            scale, s_c = _eqn(ew.mul_p, [s, c], core.ShapedArray(s.aval.shape, aval.dtype))
            widen, wide = _eqn(st.broadcast_in_dim_p, [s_c], other.aval, bcast.params)
            mul, out = _eqn(ew.mul_p, [a, wide], aval)
            return [scale, widen, mul], out
    return None


def _scalar_products(inputs: list[Atom], aval: core.ShapedArray, producer: Producer) -> Rewrite | None:
    factors = []
    for x in inputs:
        inner = _operand_of(x, ew.mul_p, producer)
        if inner is None:
            return None
        for a, c_atom in (inner.inputs, inner.inputs[::-1]):
            c = _scalar_constant(c_atom, producer)
            if c is not None and type(a) is Var and a.aval.dtype == aval.dtype:
                factors.append((a, c))
                break
        else:
            return None
    (a, c1), (b, c2) = factors
    with np.errstate(all="ignore"):
        folded = np.asarray(np.asarray(c1, aval.dtype) * np.asarray(c2, aval.dtype), aval.dtype)
    ab, p = _eqn(ew.mul_p, [a, b], aval)
    mul, out = _eqn(ew.mul_p, [p, _literal(folded, aval.dtype, aval.weak_type)], aval)
    return [ab, mul], out


def _select_or_zero(pred: Atom, a: Atom, aval: core.ShapedArray) -> Rewrite:
    """select(pred, a, 0) of ``aval``'s shape (a scalar or size-1 ``pred`` / ``a`` broadcast to it)."""
    eqns = []

    def full(x: Atom) -> Atom:
        if x.aval.shape == aval.shape:
            return x
        dims = tuple(range(x.aval.ndim))  # (a mul's operands: a scalar, or of its rank with 1s)
        shaped = core.ShapedArray(aval.shape, x.aval.dtype)
        eqn, out = _eqn(
            st.broadcast_in_dim_p,
            [x],
            shaped,
            dict(shape=aval.shape, broadcast_dimensions=dims, sharding=None),
        )
        eqns.append(eqn)
        return out

    zero = _literal(0, aval.dtype, False)
    select, out = _eqn(st.select_n_p, [full(pred), full(zero), full(a)], aval)
    return [*eqns, select], out


def _div(eqn, inputs, producer):
    """exp(A) / exp(B) => exp(A - B); A / exp(B) => A * exp(-B) (a mixture density's
    ``(y - mu) / jnp.exp(log_sigma)``: an ulp off JAX on a third of its elements when divided); else
    ``_reciprocal``'s. (Subnormal products flush to zero as XLA's do: ``denormal_flags``.)"""
    if all(x.aval.dtype == np.complex64 for x in inputs):
        return _complex_reciprocal(eqn, inputs, producer)
    if not all(_real_float(x) for x in inputs):
        return None
    num, den = (_operand_of(x, ew.exp_p, producer) for x in inputs)
    if den is None or not _same_type(den.inputs[0], eqn.out_binders[0]):
        return (
            _root_divisor(eqn, inputs, producer)
            or _reciprocal(eqn, inputs, producer)
            or _quotients(inputs, eqn.out_binders[0].aval, producer)
        )
    aval = eqn.out_binders[0].aval
    if num is not None and _same_type(num.inputs[0], den.inputs[0]):
        return _exp_of(ew.sub_p, num.inputs[0], den.inputs[0], aval)
    neg, minus_b = _eqn(ew.neg_p, [den.inputs[0]], den.inputs[0].aval)
    exp, exp_minus_b = _eqn(ew.exp_p, [minus_b], den.out_binders[0].aval)
    mul, out = _eqn(ew.mul_p, [inputs[0], exp_minus_b], aval)
    return [neg, exp, mul], out


def _root_divisor(eqn, inputs, producer):
    """A / sqrt(B) => A * rsqrt(B) and A / rsqrt(B) => A * sqrt(B), also of a broadcast root, as
    XLA rewrites them (float32 and float64) where the root (and the broadcast) has no other user:
    XLA's rsqrt is not ``1 / sqrt`` (lax/xla_rsqrt.py), so layer norms and ``x / jnp.sqrt(v)``
    differ in last bits. (A root the program computes once and uses again, as a gradient's
    ``sqrt`` is, stays a division: ``grad`` of ``x / sqrt(x*x + c)`` divides, as JAX's does.)"""
    a, b = inputs
    out = eqn.out_binders[0].aval
    if out.dtype not in (np.float32, np.float64) or _USES[-1].get(b, 0) != 1:
        return None
    bcast = _operand_of(b, st.broadcast_in_dim_p, producer)
    for root, inverse in ((ew.sqrt_p, ew.rsqrt_p), (ew.rsqrt_p, ew.sqrt_p)):
        r = _operand_of(bcast.inputs[0] if bcast is not None else b, root, producer)
        if r is None or (bcast is not None and _USES[-1].get(bcast.inputs[0], 0) != 1):
            continue
        eqns = [_eqn(inverse, [r.inputs[0]], r.out_binders[0].aval, r.params)]
        if bcast is not None:
            eqns.append(_eqn(st.broadcast_in_dim_p, [eqns[-1][1]], b.aval, bcast.params))
        eqns.append(_eqn(ew.mul_p, [a, eqns[-1][1]], out))
        return [e for e, _ in eqns], eqns[-1][1]
    return None


def _complex_reciprocal(eqn, inputs, producer):
    """A / C => A * (1/C) for a complex constant C, as XLA folds it (``z / (1+2j)`` multiplies by
    0.2-0.4j); a complex divisor computed in the program stays a division (Smith's algorithm)."""
    a, b = inputs
    c = _constant(b, producer)
    if c is None or _constant(a, producer) is not None or (c.ndim and type(b) is not Literal):
        return None
    with np.errstate(all="ignore"):
        inverse = np.asarray(np.complex64(1) / c, np.complex64)
    one_over = _literal(inverse, inverse.dtype, b.aval.weak_type)
    mul, product = _eqn(ew.mul_p, [a, one_over], eqn.out_binders[0].aval)
    return [mul], product


def _reciprocal(eqn, inputs, producer):
    """A / C => A * (1/C) for a constant C, and A / broadcast(B) => A * broadcast(1/B): XLA divides
    once and multiplies, so ``x / 3.0``, ``jnp.mean`` and the normalisation in ``softmax`` round as
    a multiplication by the rounded reciprocal (a different last bit for about a third of
    elements). Not for a divisor of the result's shape computed in the program (``x / y``)."""
    a, b = inputs
    out = eqn.out_binders[0].aval
    if out.dtype not in ew.RECIPROCAL_DTYPES:  # (bfloat16: XLA widens it first)
        return None
    c = _constant(b, producer)
    if c is not None:
        if _constant(a, producer) is not None:  # (XLA folds constant / constant)
            return None
        if _folded_first(a, b, out, producer):
            return None
        inverse = np.asarray(np.ones((), c.dtype) / c, c.dtype)
        if inverse.ndim and type(b) is not Literal:
            return None
        one_over = _literal(inverse, c.dtype, b.aval.weak_type)
        mul, product = _eqn(ew.mul_p, [a, one_over], out)
        return [mul], product
    if type(b) is not Var or (b in _CONSTANTS[-1] and _folded_first(a, b, out, producer)):
        return None
    one = _literal(1, b.aval.dtype, True)
    if b.aval.shape != out.shape:  # (a scalar or size-1 axes, broadcast by the division itself)
        if not _broadcast_of_one_use(b):  # (divided: widened first, which the division's own
            # broadcasting, a multiplication by the reciprocal as an eager division, would not be)
            shape = tuple(out.shape)
            params = {"shape": shape, "broadcast_dimensions": (), "sharding": None}
            wide = core.ShapedArray(shape, b.aval.dtype, b.aval.weak_type)
            widen, wide_b = _eqn(st.broadcast_in_dim_p, [b], wide, params)
            div, quotient = _eqn(ew.div_p, [a, wide_b], out)
            return [widen, div], quotient
        div, inverse_b = _eqn(ew.div_p, [one, b], b.aval)
        mul, product = _eqn(ew.mul_p, [a, inverse_b], out)
        return [div, mul], product
    bcast = _operand_of(b, st.broadcast_in_dim_p, producer)
    if bcast is None or bcast.inputs[0].aval.size == b.aval.size or type(bcast.inputs[0]) is not Var:
        return None
    small = bcast.inputs[0]
    if not _broadcast_of_one_use(small):
        return None
    div, inverse_small = _eqn(ew.div_p, [one, small], small.aval)
    widen, inverse_b = _eqn(st.broadcast_in_dim_p, [inverse_small], b.aval, bcast.params)
    mul, product = _eqn(ew.mul_p, [a, inverse_b], out)
    return [div, widen, mul], product


def _broadcast_of_one_use(small: Var) -> bool:
    """Whether XLA's broadcast widening ``small`` to the division's shape reads a value nothing else
    reads, as its rewrite asks: JAX lowers each implicit or explicit broadcast of a scalar (or of
    an array without size-1 axes) to a broadcast of that very value, so a value two operations
    read stays divided (``s = jnp.sum(x); x / s + jnp.cos(x) / s``, or ``x / s + s``); one with
    size-1 axes (``jnp.sum(x, 1, keepdims=True)``) is widened through a reshape of its own for
    each use, which has one use, so every division by it multiplies by the reciprocal."""
    if (small.aval.ndim and 1 in small.aval.shape) or small in _CONSTANTS[-1]:
        return True  # (or a constant once XLA has folded it: A / broadcast(C) has no such condition)
    return _USES[-1].get(small, 1) <= 1


def _folded_first(a: Atom, b: Atom, out: core.ShapedArray, producer: Producer) -> bool:
    """Whether XLA divides ``a / b`` exactly while folding constants: for a dividend computed
    from constants only (``engine.constant_folding`` folds it) and a divisor that is arithmetic on
    literals (``var``'s ``n - ddof``), which is no constant to XLA's first simplifier pass, nor a
    broadcast where the division does not widen it (JAX emits a reshape): the folding in the same
    pass divides before a later simplifier pass would take the reciprocal."""
    if type(b) is Literal or a not in _CONSTANTS[-1] or b.aval.size != out.size:
        return False
    eqn = producer(b)
    return eqn is None or eqn.primitive is not st.broadcast_in_dim_p or type(eqn.inputs[0]) is not Literal


def _quotients(inputs: list[Atom], aval: core.ShapedArray, producer: Producer) -> Rewrite | None:
    """(A / B) / (C / D) => (A * D) / (B * C), (A / B) / C => A / (B * C), A / (B / C) => (A * C) / B,
    XLA's rules for a divisor computed in the program (a constant or broadcast one is a reciprocal
    first): ``jit(grad(jnp.arctanh))`` divides once, by (1 + x) * (1 - x) (float32, JAX 0.10.2)."""
    quotients = [_operand_of(x, ew.div_p, producer) for x in inputs]
    if quotients == [None, None]:
        return None
    parts = [q.inputs if q is not None else [x] for x, q in zip(inputs, quotients)]
    if not all(
        x.aval.shape == aval.shape or (type(x) is Literal and not x.aval.shape) for p in parts for x in p
    ):
        return None
    (a, *b), (c, *d) = parts  # a / b[0] / (c / d[0]): numerators a, d; denominators b, c
    num, den = [a, *d], [*b, c]
    eqns = []
    for factors in (num, den):
        if len(factors) == 2:
            mul, product = _eqn(ew.mul_p, list(factors), aval)
            eqns.append(mul)
            factors[:] = [product]
    div, out = _eqn(ew.div_p, [num[0], den[0]], aval)
    return [*eqns, div], out


def _exp_of(p_combine, a, b, aval) -> Rewrite:
    combine, arg = _eqn(p_combine, [a, b], aval)
    exp, out = _eqn(ew.exp_p, [arg], aval)
    return [combine, exp], out


def _sqrt(eqn, inputs, producer):
    """sqrt(A * A) => |A| (a square lowers to A * A in XLA, whichever way it was written)."""
    (x,) = inputs
    sq = producer(x)
    if sq is None or not _real_float(x):
        return None
    squared = (
        (sq.primitive is ew.mul_p and sq.inputs[0] is sq.inputs[1] and type(sq.inputs[0]) is Var)
        or sq.primitive is ew.square_p
        or (sq.primitive is ew.integer_pow_p and sq.params["y"] == 2)
    )
    if not squared:
        return None
    abs_eqn, out = _eqn(ew.abs_p, [sq.inputs[0]], eqn.out_binders[0].aval)
    return [abs_eqn], out


def _add(eqn, inputs, producer):
    """A + 0 => A: the sign of -0. + 0. stays negative. Then ``_add_into_scatter``'s."""
    out = eqn.out_binders[0]
    if not _real_float(out):
        return None
    for zero, other in (inputs, inputs[::-1]):
        c = _constant(zero, producer)
        if c is not None and not np.any(c) and type(other) is Var and _same_type(other, out):
            return [], other
    return _add_into_scatter(eqn, inputs, producer)


def _add_into_scatter(eqn, inputs, producer):
    """A + scatter_add(0, indices, B) => scatter_add(A, indices, B), the scatter's one use (XLA's
    simplifier): the updates are added one by one onto A, so an embedding row gathered twice gets
    ``(A + b1) + b2`` where the sum of the gradients would round ``A + (b1 + b2)`` (the embedding
    of a transformer whose output projection is its transpose: JAX 0.10.2's jitted gradient)."""
    from .lax.gather_scatter import scatter_add_p

    out = eqn.out_binders[0]
    for other, x in (inputs, inputs[::-1]):
        s = _operand_of(x, scatter_add_p, producer)
        if s is None or _USES[-1].get(x, 0) != 1 or not _same_type(other, out) or not _same_type(x, out):
            continue
        base = _constant(s.inputs[0], producer)
        if base is None or np.any(base):
            continue
        scatter, result = _eqn(scatter_add_p, [other, *s.inputs[1:]], out.aval, s.params)
        return [scatter], result
    return None


def _reduce_of_reduce(eqn, inputs, producer):
    """sum(sum(A, dims0), dims1) => sum(A, dims0 and dims1 as A's): one loop adds all of them (a
    mean of row sums adds in the order of a whole sum), whether or not the row sums have other
    uses."""
    negated = _operand_of(inputs[0], ew.neg_p, producer)
    if negated is not None and _USES[-1].get(inputs[0], 0) == 1 and _real_float(inputs[0]):
        # sum(-A) => -sum(A), as XLA's compiled sum of a negation is (the same values, but a sum of
        # zeros is -0: the transposed mean of a zero cotangent, so jnp.std's pullback keeps signs)
        total, summed = _eqn(red.reduce_sum_p, [negated.inputs[0]], eqn.out_binders[0].aval, eqn.params)
        neg, out = _eqn(ew.neg_p, [summed], eqn.out_binders[0].aval)
        return [total, neg], out
    inner = _operand_of(inputs[0], red.reduce_sum_p, producer)
    if inner is None or not _real_float(inputs[0]):
        return None
    first = sorted(int(a) for a in inner.params["axes"])
    kept = [d for d in range(len(inner.inputs[0].aval.shape)) if d not in first]
    axes = tuple(sorted(first + [kept[int(a)] for a in eqn.params["axes"]]))
    params = dict(eqn.params, axes=axes)
    merged, out = _eqn(red.reduce_sum_p, [inner.inputs[0]], eqn.out_binders[0].aval, params)
    return [merged], out


def _pvary(eqn, inputs, producer):
    """pvary(x) => x: it only types a value as varying over mesh axes, and lowers to nothing (so
    XLA sees through it: a scan's zero carry ``pvary``'d in a shard_map body is still ``0 + x``)."""
    return ([], inputs[0]) if len(inputs) == 1 else None


rules[red.reduce_sum_p] = _reduce_of_reduce
rules[lax_parallel.pvary_p] = _pvary
rules[ew.log_p] = _log
rules[ew.mul_p] = _mul
rules[ew.div_p] = _div
rules[ew.sqrt_p] = _sqrt
rules[ew.add_p] = _add
rules[ad.add_jaxvals_p] = _add  # (a sum of tangents is XLA's add too: jvp(jvp(jnp.minimum))'s zero)
from . import algebraic_class_tests, algebraic_polygamma, algebraic_powers  # noqa: E402, F401  (their rules)


def simplify_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
    """``jaxpr`` with the rewrites applied, in sub-jaxprs too (the same object when none applies)."""
    return _simplify(jaxpr)[0]


# Values computed from constants only (a program's constvars, literals; a nested jit's inputs
# where its operands are such), which XLA folds before later simplifier passes see them
# (``_folded_first``); one set per jaxpr being simplified.
_CONSTANTS: list[set[Atom]] = [set()]
# How many equations (and the outputs) read each variable of the jaxpr being simplified, as traced:
# XLA's rules that want an operand with one user see the program before its CSE merges anything.
_USES: list[dict[Atom, int]] = [{}]
# Values whose one reader is a transpose (``simplifier_dots._transpose_of_transpose`` folds that
# pair first).
_TRANSPOSED: list[set[Atom]] = [set()]
_CALLS = frozenset({"jit", "pjit", "closed_call", "core_call"})


def _simplify(
    jaxpr: Jaxpr, constant_inputs: bool = False, bound: dict[Var, Literal] | None = None
) -> tuple[Jaxpr, list[int] | None]:
    """The simplified jaxpr, and for each of its equations the index of the traced equation it
    computes (or replaces), so what ran can be shown on the traced program's graph. ``bound``:
    inputs whose value a caller passes as a literal (read as that literal)."""
    constants: set[Atom] = set(jaxpr.constvars) | (set(jaxpr.in_binders) if constant_inputs else set())
    flat = call_inlining.inlined(jaxpr, constants)  # (XLA inlines calls before it simplifies)
    if flat is not None:
        jaxpr, top = flat
    _CONSTANTS.append(constants)
    _USES.append(_use_counts(jaxpr))
    _TRANSPOSED.append(
        {e.inputs[0] for e in jaxpr.eqns if e.primitive is st.transpose_p and _USES[-1].get(e.inputs[0]) == 1}
    )
    try:
        out, positions = _simplify_in(jaxpr, constants, set(jaxpr.constvars), dict(bound or {}))
    finally:
        _CONSTANTS.pop()
        _USES.pop()
        _TRANSPOSED.pop()
    if flat is None:
        return out, positions
    if out is jaxpr:
        return out, top
    return out, None if positions is None else [top[i] for i in positions]


def _use_counts(jaxpr: Jaxpr) -> dict[Atom, int]:
    """Reads by live equations and the outputs (XLA removes dead code before it simplifies, so a
    primal output a gradient drops is no use of the value it returned)."""
    live = {x for x in jaxpr.outs if type(x) is Var}
    uses: dict[Atom, int] = {}
    for x in live:
        uses[x] = 1
    for e in reversed(jaxpr.eqns):
        if e.primitive not in effectful and not any(v in live for v in e.out_binders):
            continue
        for x in set(e.inputs):
            if type(x) is Var:
                live.add(x)
                uses[x] = uses.get(x, 0) + 1
    return uses


def _constant_inputs(eqn: JaxprEqn, constants: set[Atom]) -> bool:
    return bool(eqn.inputs) and all(type(x) is Literal or x in constants for x in eqn.inputs)


def _simplify_in(
    jaxpr: Jaxpr, constants: set[Atom], early: set[Atom], env: dict[Var, Atom]
) -> tuple[Jaxpr, list[int] | None]:
    origin: dict[Var, int] = {}  # an emitted equation's output -> the traced equation's index
    current = 0
    producers: dict[Var, JaxprEqn] = {}
    eqns: list[JaxprEqn] = []
    changed = False

    def read(x: Atom) -> Atom:
        return env.get(x, x) if type(x) is Var else x

    def producer(x: Atom) -> JaxprEqn | None:
        return producers.get(x) if type(x) is Var else None

    def emit(eqn: JaxprEqn) -> bool:
        """Add ``eqn``, or its rewrite (whose equations may rewrite further); True if rewritten."""
        inputs = [read(x) for x in eqn.inputs]
        if any(a is not b for a, b in zip(inputs, eqn.inputs)):
            eqn = eqn._replace(inputs=inputs)
        rule = rules.get(eqn.primitive)
        if rule is not None and constant_folding.canonicalized(eqn, inputs, early):
            rule = None  # (XLA's canonicalizer folds it before its simplifier sees it)
            early.update(eqn.out_binders)
        rewrite = rule(eqn, inputs, producer) if rule is not None else None
        if rewrite is None:
            eqns.append(eqn)
            if constant_folding.canonicalized(eqn, inputs, early):
                early.update(eqn.out_binders)
            if _constant_inputs(eqn, constants) and (
                eqn.primitive.name in _CALLS
                or (eqn.primitive.name in constant_folding.rules and not any(subjaxprs(eqn)))
            ):
                constants.update(eqn.out_binders)  # (what the folding has a row for)
            producers.update((v, eqn) for v in eqn.out_binders)
            origin.update((v, current) for v in eqn.out_binders)
            return False
        new_eqns, atom = rewrite
        for new in new_eqns:
            emit(new._replace(source_info=eqn.source_info))
        env[eqn.out_binders[0]] = read(atom)
        return True

    for index, eqn in enumerate(jaxpr.eqns):
        current = index  # (emit records it as the origin of what it adds)
        inputs = [read(x) for x in eqn.inputs]
        if eqn.primitive.name in _CALLS and _constant_inputs(eqn._replace(inputs=inputs), constants):
            params = {
                k: _constant_call(v) if k == "jaxpr" else _simplified_param(v) for k, v in eqn.params.items()
            }
        elif eqn.primitive.name in _CALLS and any(type(x) is Literal for x in inputs):
            params = {
                k: _literal_call(v, inputs) if k == "jaxpr" else _simplified_param(v)
                for k, v in eqn.params.items()
            }
        else:
            params = {k: _simplified_param(v) for k, v in eqn.params.items()}
        if any(inputs[i] is not x for i, x in enumerate(eqn.inputs)) or any(
            params[k] is not v for k, v in eqn.params.items()
        ):
            eqn = eqn._replace(inputs=inputs, params=params)
            changed = True
        changed |= emit(eqn)
    if not changed:
        return jaxpr, None
    out = dce_jaxpr(Jaxpr(jaxpr.constvars, jaxpr.in_binders, eqns, [read(x) for x in jaxpr.outs]))
    found = [next((origin[v] for v in e.out_binders if v in origin), None) for e in out.eqns]
    return out, None if None in found else [i for i in found if i is not None]


def _simplified_param(v: object) -> object:
    if isinstance(v, ClosedJaxpr):
        return simplify(v)
    if isinstance(v, Jaxpr):
        return simplify_jaxpr(v)
    if isinstance(v, tuple) and any(isinstance(w, (Jaxpr, ClosedJaxpr)) for w in v):
        new = tuple(_simplified_param(w) for w in v)
        if all(a is b for a, b in zip(new, v)):
            return v
        return type(v)(*new) if hasattr(v, "_fields") else new  # (a NamedTuple keeps its field names)
    return v


_constant_calls: "weakref.WeakKeyDictionary[ClosedJaxpr, ClosedJaxpr]" = weakref.WeakKeyDictionary()


def _constant_call(v: object) -> object:
    """A nested jit's body simplified for operands that are all constants (XLA inlines it first)."""
    if not isinstance(v, ClosedJaxpr):
        return _simplified_param(v)
    found = _constant_calls.get(v)
    if found is None:
        jaxpr = _simplify(v.jaxpr, constant_inputs=True)[0]
        found = _constant_calls[v] = v if jaxpr is v.jaxpr else ClosedJaxpr(jaxpr, v.consts)
    return found


_literal_calls: "weakref.WeakKeyDictionary[ClosedJaxpr, dict]" = weakref.WeakKeyDictionary()


def _literal_call(v: object, inputs: list[Atom]) -> object:
    """A nested jit's body simplified with the literals its caller passes in place of those inputs:
    XLA inlines it first, so ``jnp.var``'s ``n - ddof`` is a constant (and its division a
    multiplication by the reciprocal) when ``ddof`` is the literal the caller passes."""
    if not isinstance(v, ClosedJaxpr) or len(inputs) != len(v.jaxpr.in_binders):
        return _simplified_param(v)
    literals = {i: x for i, x in enumerate(inputs) if type(x) is Literal and not np.shape(x.val)}
    key = tuple(
        (i, x.aval.dtype.str, x.aval.weak_type, np.asarray(x.val).tobytes()) for i, x in literals.items()
    )
    cache = _literal_calls.setdefault(v, {})
    found = cache.get(key)
    if found is None:
        bound = {v.jaxpr.in_binders[i]: x for i, x in literals.items()}
        jaxpr = _simplify(v.jaxpr, bound=bound)[0]
        found = cache[key] = v if jaxpr is v.jaxpr else ClosedJaxpr(jaxpr, v.consts)
    return found


_simplified: "weakref.WeakKeyDictionary[ClosedJaxpr, ClosedJaxpr]" = weakref.WeakKeyDictionary()
_final: "weakref.WeakSet[ClosedJaxpr]" = weakref.WeakSet()  # programs no rewrite applies to
_positions: "weakref.WeakKeyDictionary[ClosedJaxpr, list[int]]" = weakref.WeakKeyDictionary()


def simplify(closed: ClosedJaxpr) -> ClosedJaxpr:
    """The program XLA would run for ``closed``; the same object when no rewrite applies, and the
    same simplified object each time (compiled executables are cached by program)."""
    if closed in _final:
        return closed
    found = _simplified.get(closed)
    if found is None:
        jaxpr, positions = _simplify(closed.jaxpr)
        found = closed if jaxpr is closed.jaxpr else ClosedJaxpr(jaxpr, closed.consts)
        _final.add(found)
        if found is not closed:
            _simplified[closed] = found
            if positions is not None:
                _positions[found] = positions
    return found


def traced_positions(closed: ClosedJaxpr) -> list[int] | None:
    """For the program jit runs in place of ``closed``: the index in ``closed`` of each of its
    equations; None when no rewrite applied (the same equations) or when one cannot be placed."""
    found = _simplified.get(closed)
    return None if found is None else _positions.get(found)


from . import simplifier_dots  # noqa: E402, F401  (its rules for dot_general and transpose)
