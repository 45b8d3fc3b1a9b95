"""``Partial``: a functools.partial that is a pytree."""

from __future__ import annotations

import functools

from .registration import register_pytree_node


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
        # Like JAX: a plain functools.partial is kept whole as the static function
        # (its own args are not leaves); a Partial's args are merged in.
        if isinstance(func, Partial):
            args = func.args + args
            kw = {**func.keywords, **kw}
            func = func.func
        return super().__new__(klass, func, *args, **kw)


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, xs: Partial(func, *xs[0], **xs[1]),
)
