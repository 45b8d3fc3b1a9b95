"""``jax.vjp``'s pullback as a pytree (``VJP``), and ``jax.fwd_and_bwd`` built on it.

The pullback's leaves are its residuals, the values the forward pass computed for the backward
one; the rest (the linear program to transpose, the trees and types to check cotangents against)
is node data, compared by identity. So a jitted function can return a pullback (its residuals
become outputs) and take one as an argument, and a jitted ``fwd`` hands each call's pullback the
same node data, so that the jitted ``bwd`` taking it compiles once, as in JAX.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from . import ad, core
from .core import Array
from .pytree.flatten import unflatten_args
from .tree_util import register_pytree_node_class, tree_flatten


class Backward:
    """A pullback's static part: ``transpose(residuals, cotangents)`` (flat) and the trees and types
    of the function's inputs and outputs."""

    __slots__ = ("transpose", "in_tree", "out_tree", "out_avals", "aux_avals", "in_avals")

    def __init__(self, transpose, in_tree, out_tree, out_avals, aux_avals, in_avals):
        self.transpose = transpose
        self.in_tree, self.out_tree = in_tree, out_tree
        self.out_avals, self.aux_avals, self.in_avals = out_avals, aux_avals, in_avals


@register_pytree_node_class
class VJP:
    """``f_vjp`` of ``y, f_vjp = jax.vjp(f, *xs)``: ``f_vjp(ct)`` pulls the cotangent ``ct`` of
    ``y`` back to a tuple of cotangents of ``xs``.

    >>> y, f_vjp = jax.jit(lambda x: jax.vjp(jnp.sin, x))(0.5)
    >>> f_vjp(1.0)
    (Array(0.87758255, dtype=float32, weak_type=True),)
    """

    __slots__ = ("backward", "residuals")

    def __init__(self, backward: Backward, residuals: Sequence[Any]):
        self.backward, self.residuals = backward, list(residuals)

    def __call__(self, *cts):
        b = self.backward
        ct = cts[0] if len(cts) == 1 else cts
        ct_flat, ct_tree = tree_flatten(ct)
        if ct_tree is not b.out_tree and ct_tree != b.out_tree:
            raise ValueError(
                "unexpected tree structure.\n\nThe argument to a VJP function returned by `jax.vjp` must "
                f"match the pytree structure of the differentiated function's output, {b.out_tree}; "
                f"got {ct_tree}."
            )
        for c, a in zip(ct_flat, b.out_avals):
            got, want = core.get_aval(c), ad.tangent_aval(a)
            if (
                got.shape != want.shape
                or (got.dtype != want.dtype and want.dtype != core.float0)
                or got.memory_space is not want.memory_space  # (grad's seed is in device memory)
            ):
                raise ValueError(  # (JAX's types here: full dtype names, float32<host>[3])
                    "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                    f"{got.strip_weak_type()}, but expected {want.strip_weak_type()} because the "
                    f"corresponding output of the differentiated function had JAX type {a.strip_weak_type()}"
                )
        if b.aux_avals:  # (aux outputs: no cotangent)
            ct_flat = [*ct_flat, *[ad.Zero(ad.tangent_aval(a)) for a in b.aux_avals]]
        cts_in = []
        for c, a in zip(b.transpose(self.residuals, ct_flat), b.in_avals):
            if type(c) is ad.Zero:
                c = ad.instantiate_zeros(c)
            cts_in.append(c if type(c) is Array and c._value.dtype == a.dtype else match_dtype(c, a))
        args_ct, _ = unflatten_args(b.in_tree, cts_in)
        return tuple(args_ct)

    def tree_flatten(self):
        return self.residuals, self.backward

    @classmethod
    def tree_unflatten(cls, backward, residuals):
        return cls(backward, residuals)


def match_dtype(ct, aval):
    """The cotangent ``ct`` in its primal's dtype (only the dtype: as in JAX, a cotangent's weak type
    is what the backward pass made it)."""
    if isinstance(ct, np.ndarray) and ct.dtype == core.float0:
        return ct
    ca = core.get_aval(ct)
    if ca.dtype != aval.dtype:
        from . import lax

        return lax.convert_element_type(ct, aval.dtype, aval.weak_type)
    return ct


def fwd_and_bwd(
    fun: Callable, argnums: int | Sequence[int], has_aux: bool = False, jitted: bool = True
) -> tuple[Callable, Callable]:
    """The forward and backward passes of ``fun`` as two functions: ``fwd(*args)`` is
    ``jax.vjp`` of ``fun`` in the arguments ``argnums`` (``(y, f_vjp)``, ``(y, f_vjp, aux)`` with
    ``has_aux``) and ``bwd(f_vjp, ct)`` the cotangents of those arguments (one, for an int
    ``argnums``). Both are jitted unless ``jitted=False``; the pullback passes between them as a
    pytree of residuals, so ``bwd`` compiles once however often it runs.

    >>> fwd, bwd = jax.fwd_and_bwd(lambda x, w: x * w, argnums=1)
    >>> y, res = fwd(2.0, 3.0)
    >>> bwd(res, 1.0)
    Array(2., dtype=float32, weak_type=True)
    """
    from .api import _argnums_tuple, _partial_args, vjp

    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    nums = _argnums_tuple(argnums)

    def fwd(*args):
        f_partial, dyn = _partial_args(fun, nums, args, {})
        return vjp(f_partial, *dyn, has_aux=has_aux)

    def bwd(f_vjp, outgrad):
        g = f_vjp(outgrad)
        return g[0] if isinstance(argnums, int) else g

    if jitted:
        from .jit import jit

        return jit(fwd), jit(bwd)
    return fwd, bwd
