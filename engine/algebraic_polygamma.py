"""XLA's constant folding of a float32 ``polygamma`` whose order is a constant (``algebraic_simplifier``'s
table): the JVP of ``digamma`` is ``polygamma(1.0, x)``, and under jit XLA folds CHLO's
decomposition around that constant before LLVM compiles the kernel, which then rounds otherwise
than the kernel of an order it reads at run time (``lax/xla_zeta.py``). The rewrite marks the
equation ``folded`` for the numpy rule."""

from __future__ import annotations

import numpy as np

from .algebraic_simplifier import _constant, _eqn, rules
from .lax import special


def _constant_order(eqn, inputs, producer):
    n, x = inputs
    if eqn.params.get("folded") or x.aval.dtype != np.float32 or n.aval.shape:
        return None
    if _constant(n, producer) is None:
        return None
    new, out = _eqn(special.polygamma_p, inputs, eqn.out_binders[0].aval, {**eqn.params, "folded": True})
    return [new], out


rules[special.polygamma_p] = _constant_order
