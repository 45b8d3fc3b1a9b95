"""``lax.custom_root``: a root of ``f`` found by any ``solve``, differentiated implicitly.

The derivative of the root ``x*`` of ``f(x*, params) = 0`` with respect to the values ``f``
closes over is ``-(df/dx)^-1 (df/dparams . dparams)``, computed with the user's
``tangent_solve``; ``solve`` itself is never differentiated. Values ``f`` closes over are hoisted
out (``closure_convert``) so the rule can see them, as JAX does with its jaxprs.
"""

from __future__ import annotations

from .. import lax
from ..tree_util import tree_map

__all__ = ["custom_root"]


def custom_root(f, initial_guess, solve, tangent_solve, has_aux: bool = False):
    """The root of ``f`` that ``solve(f, initial_guess)`` finds, with implicit derivatives.

    Args:
      f: a function of a pytree like ``initial_guess``, returning one of the same structure.
      initial_guess: where ``solve`` starts.
      solve: ``solve(f, initial_guess) -> root`` (``(root, aux)`` with ``has_aux``); any method.
      tangent_solve: ``tangent_solve(g, y) -> x`` solving the linear ``g(x) = y`` (``g`` is
        ``f`` linearized at the root), e.g. ``lambda g, y: y / g(1.0)`` for scalars.
      has_aux: whether ``solve`` also returns auxiliary data (not differentiated).

    >>> def newton(f, x0):
    ...     return lax.fori_loop(0, 20, lambda i, x: x - f(x) / jax.grad(f)(x), x0)
    >>> sqrt = lambda a: custom_root(lambda x: x * x - a, 1.0, newton, lambda g, y: y / g(1.0))
    >>> jax.grad(sqrt)(4.0)
    Array(0.25, dtype=float32, weak_type=True)
    """
    from ..api import jvp, linearize
    from ..closure_conversion import closure_convert
    from ..custom_derivatives import custom_jvp

    f_conv, f_consts = closure_convert(f, initial_guess)
    solve_conv, solve_consts = closure_convert(lambda x0: solve(f, x0), initial_guess)

    def linearize_and_solve(x, b):
        _, f_lin = linearize(f, x)
        return tangent_solve(f_lin, b)

    ls_conv, ls_consts = closure_convert(linearize_and_solve, initial_guess, initial_guess)

    # (named as JAX's: the names show in custom_jvp_call's params)
    @custom_jvp
    def _custom_root(fc, sc, lc, x0):
        return solve_conv(x0, *sc)

    @_custom_root.defjvp
    def _root_jvp(primals, tangents):
        fc, sc, lc, x0 = primals
        dfc = tangents[0]
        out = _custom_root(fc, sc, lc, x0)
        solution, aux = out if has_aux else (out, None)
        _, rhs = jvp(lambda *p: f_conv(solution, *p), tuple(fc), tuple(dfc))
        dsol = tree_map(lax.neg, ls_conv(solution, rhs, *lc))
        if has_aux:
            return out, (dsol, tree_map(lambda a: lax.full_like(a, 0), aux))
        return out, dsol

    return _custom_root(list(f_consts), list(solve_consts), list(ls_consts), initial_guess)
