"""``jax.extend.core``: jaxpr types and primitives, as custom interpreters import them.

>>> from engine.extend import core
>>> closed = jax.make_jaxpr(lambda x: x + 1)(1.0)
>>> [type(a) is core.Literal for a in closed.jaxpr.eqns[0].invars]
[False, True]
"""

from ..core import Primitive  # noqa: F401
from ..ir import ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal, Var, jaxpr_as_fun  # noqa: F401
