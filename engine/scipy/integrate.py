"""``jax.scipy.integrate``: ``trapezoid`` (the trapezoidal rule, as ``jnp.trapezoid``).

>>> from engine.scipy.integrate import trapezoid
>>> trapezoid(jnp.array([1.0, 2.0, 3.0]))
Array(4., dtype=float32)
"""

from ..numpy._statistics import trapezoid

__all__ = ["trapezoid"]
