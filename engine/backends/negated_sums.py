"""Negations as LLVM folds them: InstCombine turns ``(-a) + b`` into ``b - a``, ``a + (-b)`` into
``a - b`` and ``a - (-b)`` into ``a + b``, and a negated product into a product of a negated
factor. The values are the same but for a NaN's sign: x86's subtraction returns its NaN operand as
it is where the negation would have flipped its sign bit first, and a product that is an invalid
operation's default NaN stays that NaN. XLA's fusions (and the numba backend's kernels) hold the
negation and its reader in one LLVM function, so JAX's jitted programs fold them:
``jax.grad(jnp.hypot)`` of inf, NaN and the smallest normal numbers gives NaNs of the folded signs.
Written out in the flat program, the interpreter tier, which evaluates that program, gives the
compiled tier's bits (it gave them only once the background compile had landed, so the bits of a
call depended on what ran before it in the process: ``tests/test_order_independence.py``).

  >>> import numpy as np
  >>> from engine.core import ShapedArray
  >>> from engine.ir import JaxprEqn, Var
  >>> from engine.lax import elementwise as ew
  >>> f32 = ShapedArray((3,), np.dtype(np.float32))
  >>> a, b, nb, s = Var(f32), Var(f32), Var(f32), Var(f32)
  >>> eqns = [JaxprEqn(ew.neg_p, [b], {}, [nb], None), JaxprEqn(ew.add_p, [a, nb], {}, [s], None)]
  >>> [e.primitive.name for e in fold(eqns, [(0,), (1,)], [s])[0]]
  ['neg', 'sub']
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .. import ad
from ..ir import JaxprEqn, Literal, Var
from ..lax import elementwise as ew

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_ADDS = (ew.add_p, ad.add_jaxvals_p)


def fold(eqns: list[JaxprEqn], paths: list, outs: list) -> tuple[list[JaxprEqn], list]:
    """``eqns`` (and their ``paths``) with each float sum of a negated value rewritten as
    InstCombine rewrites it (the negation stays for its other readers; unused, no kernel computes
    it), then each negated product read nowhere else a product of a negated factor, as XLA's
    LLVM writes it: ``-(x * y) => x * (-y)``. A NaN of ``x`` keeps its sign, one of ``y`` has it
    flipped, and an invalid product is the default NaN itself (checked against JAX 0.10.2's jitted
    results; which NaN x86 returns when both factors are NaNs follows the registers LLVM picks,
    not followed). The same lists when nothing applies."""
    negated = {e.out_binders[0]: e.inputs[0] for e in eqns if e.primitive is ew.neg_p}
    if not negated:
        return eqns, paths
    out = list(eqns)
    for i, e in enumerate(eqns):
        if e.primitive not in (*_ADDS, ew.sub_p) or e.out_binders[0].aval.dtype not in _FLOATS:
            continue
        prim, (x, y) = e.primitive, e.inputs
        while True:  # (to a fixed point, as InstCombine revisits what it made)
            if prim in _ADDS and _neg(x, negated) is not None:  # (-X) + Y --> Y - X
                prim, x, y = ew.sub_p, y, _neg(x, negated)
            elif prim in _ADDS and _neg(y, negated) is not None:  # X + (-Y) --> X - Y
                prim, y = ew.sub_p, _neg(y, negated)
            elif prim is ew.sub_p and _neg(y, negated) is not None:  # X - (-Y) --> X + Y
                prim, y = ew.add_p, _neg(y, negated)
            else:
                break
        if prim is not e.primitive or x is not e.inputs[0] or y is not e.inputs[1]:
            out[i] = JaxprEqn(prim, [x, y], {}, e.out_binders, e.source_info)
    out, new_paths = _negated_factors(out, paths, outs)
    same = new_paths is paths and all(a is b for a, b in zip(out, eqns))
    return (eqns, paths) if same else (out, new_paths)


def _negated_factors(eqns: list[JaxprEqn], paths: list, outs: list) -> tuple[list[JaxprEqn], list]:
    uses = Counter(x for e in eqns for x in e.inputs if type(x) is Var)
    uses.update(x for x in outs if type(x) is Var)
    product = {e.out_binders[0]: e for e in eqns if e.primitive is ew.mul_p}
    new_eqns, new_paths, changed = [], [], False
    for e, path in zip(eqns, paths):
        m = product.get(e.inputs[0]) if e.primitive is ew.neg_p and uses[e.out_binders[0]] else None
        if m is None or uses[m.out_binders[0]] != 1 or e.out_binders[0].aval.dtype not in _FLOATS:
            new_eqns.append(e)
            new_paths.append(path)
            continue
        x, y = m.inputs
        if type(y) is Var:
            ny = Var(y.aval)
            new_eqns.append(JaxprEqn(ew.neg_p, [y], {}, [ny], e.source_info))
            new_paths.append(path)
        else:  # (a constant factor: negated as LLVM folds it)
            ny = Literal(-np.asarray(y.val), y.aval)
        new_eqns.append(JaxprEqn(ew.mul_p, [x, ny], {}, e.out_binders, e.source_info))
        new_paths.append(path)
        changed = True
    return (new_eqns, new_paths) if changed else (eqns, paths)


def _neg(x, negated: dict):
    """What ``x`` negates, when it is a negation of the same shape (a broadcast is not folded)."""
    if type(x) is not Var or x not in negated:
        return None
    inner = negated[x]
    return inner if inner.aval.shape == x.aval.shape else None
