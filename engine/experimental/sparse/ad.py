"""Sparse-aware ``grad``, ``value_and_grad``, ``jacfwd`` and ``jacrev``: a sparse argument is
differentiated through its data only, and its gradient is a sparse array of the same sparsity."""

from __future__ import annotations

import functools
import operator
from typing import Callable

from ... import api
from ...tree_util import tree_flatten, tree_unflatten
from ._base import JAXSparse


def is_sparse(x) -> bool:
    return isinstance(x, JAXSparse)


def _sparse_ad(transform: Callable, fun: Callable, argnums, has_aux: bool, kwargs, *, with_value: bool):
    def wrapped(*args, **call_kwargs):
        nums = (operator.index(argnums),) if not isinstance(argnums, (tuple, list)) else tuple(argnums)
        per_arg = [tree_flatten(a, is_leaf=is_sparse) for a in args]
        # Each differentiated leaf: a dense array, or a sparse array's data (its other buffers fixed).
        leaves = [(i, j) for i in nums for j in range(len(per_arg[i][0]))]
        inputs = [per_arg[i][0][j] for i, j in leaves]
        primal = [x.data if is_sparse(x) else x for x in inputs]

        def fun_flat(*vals):
            arg_leaves = [list(ls) for ls, _ in per_arg]
            for (i, j), x, v in zip(leaves, inputs, vals):
                arg_leaves[i][j] = _with_first_buffer(x, v) if is_sparse(x) else v
            rebuilt = [tree_unflatten(t, ls) for ls, (_, t) in zip(arg_leaves, per_arg)]
            return fun(*rebuilt, **call_kwargs)

        out = transform(fun_flat, argnums=tuple(range(len(primal))), has_aux=has_aux, **kwargs)(*primal)
        if with_value:
            value, grads = out
        elif has_aux:
            grads, aux = out
        else:
            grads = out
        rebuilt = [_rebuild(x, g) for x, g in zip(inputs, grads)]
        per_num, k = [], 0
        for i in nums:
            n = len(per_arg[i][0])
            per_num.append(tree_unflatten(per_arg[i][1], rebuilt[k : k + n]))
            k += n
        result = tuple(per_num) if isinstance(argnums, (tuple, list)) else per_num[0]
        if with_value:
            return value, result
        return (result, aux) if has_aux else result

    functools.update_wrapper(wrapped, fun)
    return wrapped


def _with_first_buffer(x, data):
    bufs, tree = tree_flatten(x)
    return tree_unflatten(tree, [data, *bufs[1:]])


def _rebuild(x, g):
    if not is_sparse(x):
        return g
    f = functools.partial(_with_first_buffer, x)
    for _ in range(g.ndim - x.data.ndim):  # a Jacobian's leading output axes become batch axes
        f = api.vmap(f)
    return f(g)


def grad(fun: Callable, argnums=0, has_aux: bool = False, **kwargs) -> Callable:
    """``jax.grad`` where the gradient for a sparse argument is sparse, of its sparsity.

    >>> from engine.experimental import sparse
    >>> X = sparse.BCOO.fromdense(jnp.arange(6.))
    >>> sparse.grad(lambda X, y: X @ y)(X, jnp.ones(6))
    BCOO(float32[6], nse=5)
    """
    return _sparse_ad(api.grad, fun, argnums, has_aux, kwargs, with_value=False)


def value_and_grad(fun: Callable, argnums=0, has_aux: bool = False, **kwargs) -> Callable:
    """``jax.value_and_grad`` where the gradient for a sparse argument is sparse."""
    return _sparse_ad(api.value_and_grad, fun, argnums, has_aux, kwargs, with_value=True)


def jacfwd(fun: Callable, argnums=0, has_aux: bool = False, **kwargs) -> Callable:
    """``jax.jacfwd`` with respect to sparse arguments' data (dense outputs only)."""
    return _sparse_ad(api.jacfwd, fun, argnums, has_aux, kwargs, with_value=False)


def jacrev(fun: Callable, argnums=0, has_aux: bool = False, **kwargs) -> Callable:
    """``jax.jacrev`` with respect to sparse arguments' data (dense outputs only)."""
    return _sparse_ad(api.jacrev, fun, argnums, has_aux, kwargs, with_value=False)


jacobian = jacrev
