"""``jax.Array`` (and ``jax.numpy.ndarray``, the same class): the type user code names arrays by.

As in JAX it is an interface rather than the class of any value: a concrete array is a
``jaxlib._jax.ArrayImpl`` (``engine.core.Array``), and a traced value is an ``Array`` too when what
it traces is an array (its type a ``ShapedArray``; a traced ``Ref`` is not).

    >>> import engine as jax, engine.numpy as jnp
    >>> isinstance(jnp.ones(2), jax.Array), jax.Array, jax.Array is jnp.ndarray
    (True, <class 'jax.jaxlib._jax.Array'>, True)
    >>> seen = []
    >>> _ = jax.jit(lambda x: seen.append(isinstance(x, jax.Array)) or x)(1.0)
    >>> seen
    [True]

Its attributes (the documented methods, ``jax.Array.at``, ...) are the concrete array's.
"""

from __future__ import annotations

from typing import Any

from . import core


class _ArrayType(type):
    def __instancecheck__(cls, x: Any) -> bool:
        if isinstance(x, core.Array):
            return True
        return isinstance(x, core.Tracer) and type(x.aval) is core.ShapedArray

    def __subclasscheck__(cls, sub: type) -> bool:
        return sub is cls or issubclass(sub, core.Array)

    def __getattr__(cls, name: str) -> Any:
        return getattr(core.Array, name)


class Array(metaclass=_ArrayType):
    __doc__ = core.Array.__doc__


# (JAX's C++ class reports its module as jax and its name as jaxlib._jax.Array)
Array.__module__ = "jax"
Array.__qualname__ = Array.__name__ = "jaxlib._jax.Array"
