"""XLA's algebraic simplifications of integer powers (``algebraic_simplifier``'s table): JAX lowers
``x ** 2`` to ``x * x`` and ``x ** -n`` to ``1 / x ** n``, which XLA's product and quotient rules
then see."""

from __future__ import annotations

from .algebraic_simplifier import _eqn, _exp_of, _literal, _operand_of, _real_float, rules
from .lax import elementwise as ew


def _power(eqn, inputs, producer):
    """exp(A) ** 2 => exp(A + A) (XLA's exp(A) * exp(B) => exp(A + B): ``jnp.exp(x) ** 2`` is
    ``exp(2x)`` under jit); x ** -n => 1 / x ** n (``_quotients`` then sees the division)."""
    (x,) = inputs
    y = eqn.params.get("y", 2)  # (square: x ** 2)
    if not _real_float(x):
        return None
    aval = eqn.out_binders[0].aval
    exp = _operand_of(x, ew.exp_p, producer)
    if y == 2 and exp is not None:
        return _exp_of(ew.add_p, exp.inputs[0], exp.inputs[0], aval)
    if y >= 0:
        return None
    eqns = []
    if y != -1:
        power, x = _eqn(ew.integer_pow_p, [x], aval, {"y": -y})
        eqns.append(power)
    one = _literal(1, aval.dtype, True)
    div, out = _eqn(ew.div_p, [one, x], aval)
    return [*eqns, div], out


rules[ew.integer_pow_p] = _power
rules[ew.square_p] = _power
