"""``jax.eval_shape``: a function's output shapes and dtypes, found by tracing it (nothing is
computed). JAX traces it as ``jit`` does, so an error about a traced value names the function and
says ``for jit``."""

from __future__ import annotations

from typing import Callable

from .core import is_array_like
from .jit import ShapeDtypeStruct, abstractify
from .state.checks import check_valid_outputs
from .staging import trace_to_jaxpr
from .tracer_origins import debug_info
from .tree_util import tree_flatten, tree_unflatten


def eval_shape(fun: Callable, *args, **kwargs):
    """The output shapes and dtypes of ``fun`` without computing it (a pytree of ShapeDtypeStruct).

    >>> import engine as jax
    >>> jax.eval_shape(lambda x: x.sum(0), jax.numpy.ones((2, 3)))
    ShapeDtypeStruct(shape=(3,), dtype=float32)
    """
    from .api import _flatten_fun

    leaves, in_tree = tree_flatten((args, kwargs))
    out_store: list = []
    inner = _flatten_fun(fun, in_tree, out_store)

    def flat(*xs):
        out_leaves = inner(*xs)
        if not all(map(is_array_like, out_leaves)):
            check_valid_outputs(fun, "jit", tree_unflatten(out_store[0], out_leaves))
        return out_leaves

    closed = trace_to_jaxpr(
        flat, [abstractify(x) for x in leaves], None, debug_info("jit", fun, args, kwargs)
    )
    return tree_unflatten(
        out_store[0], [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type) for a in closed.out_avals]
    )
