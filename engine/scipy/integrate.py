"""``jax.scipy.integrate``: ``trapezoid`` (the trapezoidal rule: JAX's jit around ``jnp.trapezoid``,
which it calls with every argument positional).

>>> from engine.scipy.integrate import trapezoid
>>> trapezoid(jnp.array([1.0, 2.0, 3.0]))
Array(4., dtype=float32)
"""

from ..numpy._staged import staged_as_jit
from ..numpy._statistics import trapezoid as _jnp_trapezoid

__all__ = ["trapezoid"]


@staged_as_jit(static_argnames=("axis",))
def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """Integrate ``y`` along ``axis`` by the composite trapezoidal rule."""
    return _jnp_trapezoid(y, x, dx, axis)
