"""``Partial``: a functools.partial that is a pytree."""

from __future__ import annotations

import functools

from ..class_paths import jax_class_path
from .registration import register_pytree_node


@jax_class_path("jax.tree_util.Partial")
class Partial(functools.partial):
    """A functools.partial that is a pytree: its bound arguments are children,
    the wrapped function is static (part of the treedef).

    So a Partial can be passed through ``jit``/``vmap`` as an argument, with
    its bound arrays traced.

    Example:

      >>> import operator
      >>> from engine.tree_util import tree_leaves
      >>> p = Partial(operator.add, 1)
      >>> p(2)
      3
      >>> tree_leaves(p)
      [1]
    """

    def __new__(klass, func, *args, **kw):
        # Like JAX: a plain functools.partial is kept whole as the static function (its own args
        # are not leaves; boxed, or functools.partial would merge them in); a Partial's args are.
        if isinstance(func, Partial):
            args = func.args + args
            kw = {**func.keywords, **kw}
            func = func.func
        elif isinstance(func, functools.partial):
            func = _Boxed(func)
        return super().__new__(klass, func, *args, **kw)


class _Boxed:
    """A functools.partial as an opaque callable, equal and hashed as the partial itself."""

    __slots__ = ("fun",)

    def __init__(self, fun):
        self.fun = fun

    def __call__(self, *args, **kw):
        return self.fun(*args, **kw)

    def __eq__(self, other):
        return self.fun == (other.fun if isinstance(other, _Boxed) else other)

    def __hash__(self):
        return hash(self.fun)

    def __repr__(self):
        return f"_HashableCallableShim({self.fun!r})"  # (JAX's name for its box)


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, xs: Partial(func, *xs[0], **xs[1]),
)
