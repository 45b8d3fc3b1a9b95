"""``jacfwd``, ``jacrev`` (``jacobian``) and ``hessian``: whole Jacobians from ``vmap`` of ``jvp``
over the input basis (forward) or of a VJP over the output basis (reverse), laid out as JAX does."""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from . import core
from .api import (
    _argnums_tuple,
    _check_input_dtypes,
    _check_output_dtype,
    _check_tree_as_jax_does,
    _partial_args,
    _vjp,
    jvp,
    vmap,
)
from .core import Array
from .narrow_dtypes import kind as dtype_kind
from .tree_util import tree_flatten, tree_unflatten


def _std_basis(leaves):
    """Rows of the identity over all leaves' elements, split back into each leaf's shape."""
    avals = [core.get_aval(x) for x in leaves]
    sizes = [a.size for a in avals]
    total = sum(sizes)
    dtype = np.result_type(*[a.dtype for a in avals]) if avals else np.float32
    dtype = core.canonical_dtype(dtype if dtype_kind(dtype) in "fc" else np.float32)
    from .numpy import eye as jnp_eye  # (as JAX's, whose offset a transfer guard sees)

    eye = np.asarray(jnp_eye(total, dtype=dtype))
    out, start = [], 0
    for a, s in zip(avals, sizes):
        # (each leaf's weak type, as JAX's basis: a weak primal's tangents are weak)
        piece = eye[:, start : start + s].reshape((total, *a.shape))
        if dtype_kind(a.dtype) in "fc":  # (each leaf's own dtype, as JAX's basis: x64 mixes widths)
            piece = piece.astype(core.canonical_dtype(a.dtype))
        out.append(Array(piece, a.weak_type))
        start += s
    return out, total


def _std_basis_staged(leaves):
    """The basis as JAX stages it: an iota identity, split into the leaves, each cast to the
    leaf's dtype (so jacfwd's jaxpr is JAX's)."""
    from . import lax
    from .lax.structural import convert_element_type_p

    avals = [core.get_aval(x) for x in leaves]
    sizes = [a.size for a in avals]
    total = sum(sizes)
    dtype = np.result_type(*[a.dtype for a in avals]) if avals else np.float32
    dtype = core.canonical_dtype(dtype if dtype_kind(dtype) in "fc" else np.float32)
    rows = lax.broadcasted_iota(np.int32, (total, total), 0)
    cols = lax.broadcasted_iota(np.int32, (total, total), 1)
    eye = lax.convert_element_type(lax.eq(lax.add(rows, np.int32(0)), cols), dtype)
    pieces = _split_np(eye, sizes, 1)
    out = []
    for p, a in zip(pieces, avals):
        p = _reshape_if(p, (total, *a.shape))
        out.append(
            convert_element_type_p.bind(
                p, new_dtype=core.canonical_dtype(a.dtype), weak_type=a.weak_type, sharding=None
            )
        )
    return out, total


def _as_output(block, y_aval):
    """A jacfwd block typed as its output (JAX's _possible_downcast: a real output's block is real,
    an integer output's float0 block is its dtype's zeros)."""
    from . import lax
    from .lax.structural import convert_element_type_p

    if dtype_kind(core.get_aval(block).dtype) == "c" and dtype_kind(y_aval.dtype) != "c":
        block = lax.real(block)
    a = core.get_aval(block)
    if a.dtype == y_aval.dtype and a.weak_type == y_aval.weak_type:
        return block
    return convert_element_type_p.bind(
        block, new_dtype=y_aval.dtype, weak_type=y_aval.weak_type, sharding=None
    )


def _split_np(x, sizes, axis):
    # Sizes as numpy integers, as JAX computes them (its jaxprs print them so).
    from .lax.structural import split_p

    return split_p.bind(x, sizes=tuple(np.int64(s) for s in sizes), axis=int(axis))


def _reshape_if(x, shape):
    from . import lax

    return x if core.get_aval(x).shape == tuple(shape) else lax.reshape(x, shape)


def _jac_tree(out_leaves_avals, out_tree, in_avals, in_tree, blocks, out_first: bool):
    """Arrange jacobian blocks as a tree of outputs of trees of inputs (JAX's layout)."""
    rows = []
    for i in range(len(out_leaves_avals)):
        row = [blocks[i][j] for j in range(len(in_avals))]
        rows.append(tree_unflatten(in_tree, row))
    return tree_unflatten(out_tree, rows)


def jacfwd(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False):
    """The Jacobian of ``fun`` by forward mode (a ``vmap`` of ``jvp`` over a basis)."""
    nums = _argnums_tuple(argnums)

    @functools.wraps(fun)  # (named after fun, as JAX's: jit(jacfwd(f)) lowers as @jit_f)
    def jacfun(*args, **kwargs):
        from . import lax

        f_partial, dyn = _partial_args(fun, nums, args, kwargs)
        dyn_arg = dyn[0] if isinstance(argnums, int) else tuple(dyn)
        dyn_flat, dyn_tree = tree_flatten(dyn_arg)
        _check_tree_as_jax_does(_check_input_dtypes, "jacfwd", tuple(dyn), holomorphic, True)

        def f_flat(*leaves):
            a = tree_unflatten(dyn_tree, leaves)
            return f_partial(a) if isinstance(argnums, int) else f_partial(*a)

        def pushfwd(*tangents):
            # (the aux as jvp returns it: its primal, unbatched, not a tracer of this jvp)
            return jvp(f_flat, tuple(dyn_flat), tuple(tangents), has_aux=has_aux)

        # (staged while this thread stages, even of constants: jnp.eye is then a tracer)
        staged = core.staging_anywhere[0] and (
            core._state.dynamic is not None or any(isinstance(x, core.Tracer) for x in dyn_flat)
        )
        basis, total = _std_basis_staged(dyn_flat) if staged else _std_basis(dyn_flat)
        if has_aux:
            y, jac, aux = vmap(pushfwd, out_axes=(None, -1, None))(*basis)
        else:
            y, jac = vmap(pushfwd, out_axes=(None, -1))(*basis)
        y_flat, y_tree = tree_flatten(y)
        if holomorphic:
            for yv in y_flat:
                _check_output_dtype("jacfwd", core.get_aval(yv).dtype, True)
        jac_flat = tree_flatten(jac)[0]
        in_avals = [core.get_aval(x) for x in dyn_flat]
        blocks = []
        for yv, jv in zip(y_flat, jac_flat):
            ya = core.get_aval(yv)
            if staged:  # JAX's unravel: one split along the basis axis
                pieces = _split_np(jv, [a.size for a in in_avals], core.get_aval(jv).ndim - 1)
                blocks.append(
                    [_as_output(_reshape_if(p, (*ya.shape, *a.shape)), ya) for p, a in zip(pieces, in_avals)]
                )
                continue
            row, start = [], 0
            for a in in_avals:
                piece = _slice_axis(jv, -1, start, start + a.size)
                row.append(_as_output(lax.reshape(piece, (*ya.shape, *a.shape)), ya))
                start += a.size
            blocks.append(row)
        out = _jac_tree(y_flat, y_tree, in_avals, dyn_tree, blocks, True)
        return (out, aux) if has_aux else out

    return jacfun


def _slice_axis(x, axis, start, stop):
    from . import lax

    shape = core.get_aval(x).shape
    axis %= len(shape)
    if start == 0 and stop == shape[axis]:
        return x
    starts = [0] * len(shape)
    limits = list(shape)
    starts[axis], limits[axis] = start, stop
    return lax.slice(x, starts, limits)


def jacrev(
    fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False, allow_int: bool = False
):
    """The Jacobian of ``fun`` by reverse mode (a ``vmap`` of ``vjp`` over a basis)."""
    nums = _argnums_tuple(argnums)

    @functools.wraps(fun)  # (named after fun, as JAX's: jit(jacfwd(f)) lowers as @jit_f)
    def jacfun(*args, **kwargs):
        from . import lax

        f_partial, dyn = _partial_args(fun, nums, args, kwargs)
        _check_tree_as_jax_does(_check_input_dtypes, "jacrev", tuple(dyn), holomorphic, allow_int)
        if has_aux:
            y, pullback, aux = _vjp(f_partial, tuple(dyn), True, False)
        else:
            y, pullback = _vjp(f_partial, tuple(dyn), False, False)
        y_flat, y_tree = tree_flatten(y)
        for yv in y_flat:
            _check_output_dtype("jacrev", core.get_aval(yv).dtype, holomorphic)
        staged = core.staging_anywhere[0] and any(isinstance(x, core.Tracer) for x in y_flat)
        basis, total = _std_basis_staged(y_flat) if staged else _std_basis(y_flat)
        if core.vma_checking[0]:  # (JAX's: each leaf's basis varies as the leaf does, in a checked body)
            from .lax.varying import pvary_to

            basis = [pvary_to(b, core.get_aval(yv).vma) for b, yv in zip(basis, y_flat)]

        def pull_flat(*cts):
            return pullback(tree_unflatten(y_tree, list(cts)))

        jac = vmap(pull_flat)(*basis)  # tuple over dyn args, each: tree of (total, *in_shape)
        jac = jac[0] if isinstance(argnums, int) else jac
        jac_flat, in_tree = tree_flatten(jac)
        in_avals = [core.get_aval(j) for j in jac_flat]
        # JAX's _possible_downcast: each block takes its input's dtype and weak type.
        examples = [
            core.get_aval(ex) for ex in tree_flatten(dyn[0] if isinstance(argnums, int) else tuple(dyn))[0]
        ]
        cast = lambda v, ea: lax.convert_element_type(v, ea.dtype, ea.weak_type)
        y_avals = [core.get_aval(yv) for yv in y_flat]
        blocks: list[list[Any]] = [[None] * len(jac_flat) for _ in y_avals]
        for k, j in enumerate(jac_flat):  # (JAX's unravel, input by input: split, then each block)
            ja = core.get_aval(j)
            if staged:
                parts = _split_np(j, [ya.size for ya in y_avals], 0)
            else:
                bounds = np.cumsum([0, *[ya.size for ya in y_avals]])
                parts = [_slice_axis(j, 0, int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
            for i, ya in enumerate(y_avals):
                shape = (*ya.shape, *ja.shape[1:])
                piece = _reshape_if(parts[i], shape) if staged else lax.reshape(parts[i], shape)
                blocks[i][k] = cast(piece, examples[k])
        out = _jac_tree(y_flat, y_tree, in_avals, in_tree, blocks, False)
        return (out, aux) if has_aux else out

    return jacfun


jacobian = jacrev


def hessian(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False):
    """The Hessian of a scalar function, as ``jacfwd(jacrev(fun))``."""
    return jacfwd(
        jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic),
        argnums,
        has_aux=has_aux,
        holomorphic=holomorphic,
    )
