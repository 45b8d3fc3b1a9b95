"""``jnp.vectorize``: a function broadcast over arrays by ``vmap`` (generalized ufunc signatures)."""

from __future__ import annotations

import functools

import numpy as np

from ._creation import asarray


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """Broadcast a function over arrays with ``vmap``: over all axes of scalar functions, or over the
    loop axes of a generalized ufunc ``signature`` such as ``'(n,m),(m)->(n)'``.

    As JAX's: operands are not broadcast against each other; each loop axis is one ``vmap`` whose
    ``in_axes`` leave out the operands of size 1 there (squeezed first), and axes no operand maps
    are added to the result at the end.

    >>> jnp.vectorize(lambda a, b: a * b + 1)(jnp.arange(3.0), 2.0)
    Array([1., 3., 5.], dtype=float32)
    >>> jnp.vectorize(jnp.dot, signature='(k),(k)->()')(jnp.ones((2, 3)), jnp.ones(3))
    Array([3., 3.], dtype=float32)
    """
    from .. import api
    from ._shape import expand_dims, squeeze

    core_dims = None if signature is None else _parse_gufunc_signature(signature)

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        static = {i: args[i] for i in sorted(e for e in excluded if isinstance(e, int)) if i < len(args)}
        static.update((i, None) for i, a in enumerate(args) if a is None and i not in static)
        dynamic = [asarray(a) for i, a in enumerate(args) if i not in static]
        static_kwargs = {k: v for k, v in kwargs.items() if k in excluded}
        dynamic_kwargs = {k: v for k, v in kwargs.items() if k not in excluded}
        arg_core_dims = [()] * len(dynamic) if core_dims is None else core_dims
        loop_shape = _loop_shape(dynamic, arg_core_dims, (excluded, signature))

        def func(*arrs):
            it = iter(arrs)
            full = [static[i] if i in static else next(it) for i in range(len(args))]
            return pyfunc(*full, **dynamic_kwargs, **static_kwargs)

        squeezed, rev_filled = [], []
        for x, names in zip(dynamic, arg_core_dims):
            noncore = x.shape[: x.ndim - len(names)]
            rev_filled.append(((1,) * (len(loop_shape) - len(noncore)) + noncore)[::-1])
            ones = tuple(i for i, n in enumerate(noncore) if n == 1)
            squeezed.append(squeeze(x, axis=ones) if ones else x)
        f, dims_to_expand = func, []
        for negdim, sizes in enumerate(zip(*rev_filled)):
            in_axes = tuple(None if n == 1 else 0 for n in sizes)
            if all(a is None for a in in_axes):
                dims_to_expand.append(len(loop_shape) - 1 - negdim)
            else:
                f = api.vmap(f, in_axes)
        result = f(*squeezed)
        if not dims_to_expand:
            return result
        if isinstance(result, tuple):
            return tuple(expand_dims(r, axis=dims_to_expand) for r in result)
        return expand_dims(result, axis=dims_to_expand)

    return wrapped


def _parse_gufunc_signature(signature: str) -> list:
    """``'(n,m),(m)->(n)'`` -> the core dimension names of each input: ``[('n', 'm'), ('m',)]``."""
    import re

    m = re.fullmatch(r"\s*((?:\([\w,\s]*\)\s*,?\s*)*)->\s*((?:\([\w,\s]*\)\s*,?\s*)*)", signature)
    if m is None:
        raise ValueError(f"not a valid gufunc signature: {signature}")
    return [
        tuple(d for d in (x.strip() for x in g.split(",")) if d)
        for g in re.findall(r"\(([^)]*)\)", m.group(1))
    ]


def _loop_shape(arrays, core_dims, called: tuple):
    """The broadcast shape of the operands' loop axes (those before the core ones), with the core
    dimension sizes checked against each other (``called``: the excluded set and signature JAX's
    error names)."""
    if len(arrays) != len(core_dims):
        raise TypeError(f"wrong number of positional arguments: expected {len(core_dims)}, got {len(arrays)}")
    sizes: dict = {}
    loops = []
    for x, names in zip(arrays, core_dims):
        if x.ndim < len(names):
            raise ValueError(
                f"input with shape {x.shape!r} does not have enough dimensions for all core dimensions {names!r}"
            )
        core_shape = x.shape[x.ndim - len(names) :]
        for name, n in zip(names, core_shape):
            if sizes.setdefault(name, n) != n:
                raise ValueError(
                    f"inconsistent size for core dimension {name!r}: {n!r} vs {sizes[name]!r} on "
                    f"vectorized function with excluded={called[0]!r} and signature={called[1]!r}"
                )
        loops.append(x.shape[: x.ndim - len(names)])
    return tuple(np.broadcast_shapes(*loops)) if loops else ()
