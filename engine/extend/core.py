"""``jax.extend.core``: jaxpr types and primitives, as custom interpreters import them.

>>> from engine.extend import core
>>> closed = jax.make_jaxpr(lambda x: x + 1)(1.0)
>>> [type(a) is core.Literal for a in closed.jaxpr.eqns[0].invars]
[False, True]
"""

from .. import core as _core
from .. import linearize_user_rule
from ..ir import ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal, Var, jaxpr_as_fun  # noqa: F401


class Primitive(_core.Primitive):
    """A primitive defined outside the engine, as in JAX: ``def_impl`` and ``def_abstract_eval``
    give its eager and abstract rules; running it under ``jit`` needs a lowering rule
    (``jax.interpreters.mlir.register_lowering``), else NotImplementedError, as in JAX.

    >>> p = Primitive("twice")
    >>> _ = p.def_impl(lambda x: 2 * x)
    >>> p.bind(3.0)
    Array(6., dtype=float32)
    """

    defined_outside_engine = True

    def __init__(self, name: str, multiple_results: bool = False):
        super().__init__(name, multiple_results)
        from .mlir import lowering

        lowering.extension_primitives.add(self)

    def abstract_eval(self, *avals, **params):
        if linearize_user_rule.replaying[0]:  # (linearize's tangent trace: cached, as in JAX)
            return linearize_user_rule.cached_abstract_eval(self, super().abstract_eval, avals, params)
        return super().abstract_eval(*avals, **params)


def check_jaxpr(jaxpr: Jaxpr) -> None:
    """Type-check ``jaxpr``: every variable bound once before use, every binder of the type its
    primitive's rule gives; else ``jax.errors.JaxprTypeError``.

    >>> check_jaxpr(jax.make_jaxpr(lambda x: x * 2.0)(1.0).jaxpr)
    """
    from ..ir import typecheck_jaxpr

    typecheck_jaxpr(jaxpr)
