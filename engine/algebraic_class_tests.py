"""LLVM's fold of or'ed floating-point class tests (``algebraic_simplifier``'s table).

XLA's CPU kernels run with denormals read as zero, so a lone ``x == 0`` is true for a subnormal
``x``. But where LLVM's InstCombine meets class tests of one value joined by ``or`` (``x != x``,
``|x| == inf``, ``x == 0``) it merges them into one ``llvm.is.fpclass``, a test of the bits that
assumes IEEE denormals: there ``x == 0`` holds for the two zeros only. ``jnp.frexp`` tests
``isinf(x) | isnan(x) | (x == 0)``, so under jit JAX 0.10.2 gives a subnormal the mantissa of
its flushed scaling, +-0.5, and exponent -149 (read in its LLVM IR, ``--xla_dump_to``), not
``(x, 0)``. With a NaN test alone LLVM makes ``fcmp ueq x, 0``, still a comparison (measured: JAX
reads a subnormal as 0 there). The rule writes an or of class tests with a zero and an infinity
test as tests of ``bits(x) & ~sign``.
"""

from __future__ import annotations

import numpy as np

from .algebraic_simplifier import _constant, _eqn, _literal, _operand_of, _real_float, rules
from .core import ShapedArray
from .ir import Atom
from .lax import elementwise as ew
from .lax import structural as st


def _constant_is(x: Atom, value: float, producer) -> bool:
    c = _constant(x, producer)
    return c is not None and c.size > 0 and bool(np.all(c == value))


def _int_constant(x: Atom, producer) -> int | None:
    c = _constant(x, producer)
    return None if c is None or c.size == 0 or not np.all(c == c.flat[0]) else int(c.flat[0])


def _exponent_ones(dtype) -> int:
    """The bits of +inf: a float's exponent all ones."""
    return int(np.array(np.inf, dtype).view(f"int{8 * np.dtype(dtype).itemsize}"))


def _classes(x: Atom, producer) -> tuple[Atom, frozenset, bool] | None:
    """``(v, classes, float_zero)`` if ``x`` tests whether the float ``v`` is in ``classes`` (of
    "nan", "inf", "zero": ``v != v``, ``|v| == inf``, ``v == 0``, on its bits as this rule writes
    them, or an or of those); ``float_zero``: a zero test among them compares floats."""
    eqn = producer(x)
    if eqn is None:
        return None
    p, ins = eqn.primitive, eqn.inputs
    if p is ew.ne_p and ins[0] is ins[1] and _real_float(ins[0]):
        return ins[0], frozenset({"nan"}), False
    if p is ew.or_p:
        a, b = (_classes(v, producer) for v in ins)
        if a is None or b is None or a[0] is not b[0]:
            return None
        return a[0], a[1] | b[1], a[2] or b[2]
    if p not in (ew.eq_p, ew.gt_p):
        return None
    masked = _operand_of(ins[0], ew.and_p, producer)  # (a test this rule wrote)
    bits = None if masked is None else _operand_of(masked.inputs[0], st.bitcast_convert_type_p, producer)
    if bits is not None and _real_float(bits.inputs[0]):
        v, k = bits.inputs[0], _int_constant(ins[1], producer)
        ones = _exponent_ones(v.aval.dtype)
        name = {(ew.eq_p, 0): "zero", (ew.eq_p, ones): "inf", (ew.gt_p, ones): "nan"}.get((p, k))
        return None if name is None else (v, frozenset({name}), False)
    if p is not ew.eq_p:
        return None
    for v, c in ((ins[0], ins[1]), (ins[1], ins[0])):
        if _real_float(v) and _constant(v, producer) is None and _constant_is(c, 0.0, producer):
            return v, frozenset({"zero"}), True
        absolute = _operand_of(v, ew.abs_p, producer)
        if absolute is not None and _real_float(absolute.inputs[0]) and _constant_is(c, np.inf, producer):
            return absolute.inputs[0], frozenset({"inf"}), False
    return None


def _or(eqn, inputs, producer):
    """An or of class tests of one value, a zero and an infinity test among them (LLVM's
    ``fcmp ueq``, a NaN or zero test, stays a comparison) => the same tests on the value's bits."""
    a, b = (_classes(v, producer) for v in inputs)
    if a is None or b is None or a[0] is not b[0]:
        return None
    v, classes, float_zero = a[0], a[1] | b[1], a[2] or b[2]
    if not float_zero or not {"zero", "inf"} <= classes:
        return None
    ints = np.dtype(f"int{8 * np.dtype(v.aval.dtype).itemsize}")
    shape, ones = v.aval.shape, _exponent_ones(v.aval.dtype)
    bits_eqn, bits = _eqn(st.bitcast_convert_type_p, [v], ShapedArray(shape, ints), {"new_dtype": ints})
    and_eqn, masked = _eqn(
        ew.and_p, [bits, _literal(np.iinfo(ints).max, ints, False)], ShapedArray(shape, ints)
    )
    eqns, out = [bits_eqn, and_eqn], None
    aval = eqn.out_binders[0].aval
    for name, p, k in (("nan", ew.gt_p, ones), ("inf", ew.eq_p, ones), ("zero", ew.eq_p, 0)):
        if name in classes:
            test_eqn, test = _eqn(p, [masked, _literal(k, ints, False)], aval)
            eqns.append(test_eqn)
            if out is not None:
                or_eqn, test = _eqn(ew.or_p, [out, test], aval)
                eqns.append(or_eqn)
            out = test
    return eqns, out


rules[ew.or_p] = _or
