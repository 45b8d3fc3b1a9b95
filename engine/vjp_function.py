"""``jax.vjp``'s pullback as a pytree (``VJP``), and ``jax.fwd_and_bwd`` built on it.

The pullback's leaves are its residuals, the values the forward pass computed for the backward
one, laid out as JAX 0.10.2 lays them out: first the primal inputs the backward pass reads (the
inputs' tree, each unread input a leafless ``NotNeeded()``), then the other residuals in the
order linearization made them. The rest (the linear program to transpose, where each residual it
reads sits, the trees and types to check cotangents against) is node data, compared by identity.
So a jitted function can return a pullback (its residuals become outputs) and take one as an
argument, and a jitted ``fwd`` hands each call's pullback the same node data, so that the jitted
``bwd`` taking it compiles once, as in JAX.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, Sequence

import numpy as np

from . import ad, core
from .core import Array
from .pytree.flatten import unflatten_args
from .source_info import in_backward
from .tree_util import register_dataclass, register_pytree_node_class, tree_flatten, tree_leaves


@register_dataclass  # (no fields: a node without leaves)
@dataclasses.dataclass(frozen=True, slots=True)
class NotNeeded:
    """Where the pullback's tree has a primal input the backward pass does not read."""


def _not_needed(x) -> bool:
    return type(x) is NotNeeded


class Backward:
    """A pullback's static part: ``transpose(residuals, cotangents)`` (flat), where each residual
    comes from (``spec``: ``i >= 0`` the primal input leaf ``i``, ``~k`` the other residual ``k``;
    None: the eager tape's pullback, which holds its own) and the trees and types of the
    function's inputs and outputs. ``layouts``: the shardings of inputs on a mesh with explicit
    axes (else None), which their cotangents take, as JAX types a cotangent as its primal."""

    __slots__ = (
        "transpose", "spec", "in_tree", "out_tree", "out_avals", "aux_avals", "in_avals", "fun_name", "layouts"
    )  # fmt: skip

    def __init__(
        self, transpose, spec, in_tree, out_tree, out_avals, aux_avals, in_avals, fun_name="fun", layouts=None
    ):
        self.transpose, self.spec, self.fun_name, self.layouts = transpose, spec, fun_name, layouts
        self.in_tree, self.out_tree = in_tree, out_tree
        self.out_avals, self.aux_avals, self.in_avals = out_avals, aux_avals, in_avals


def _too_many_cotangents(fun_name: str, n: int) -> str:
    # (JAX's TypeError: its message opens with an empty line, as here)
    return (
        f"\nThe function returned by `jax.vjp` applied to {fun_name} was called with {n} arguments,\n"
        "but functions returned by `jax.vjp` must be called with a single argument\n"
        "corresponding to the single value returned by the function being differentiated\n"
        "(even if that returned value is a tuple or other container): for `f` returning `(x, x)`,\n"
        "call `f_vjp((2.0, 2.0))`, not `f_vjp(2.0, 2.0)`.\n"
    )


def fun_name(fun) -> str:
    """The name JAX gives ``fun`` in errors and debug info (a ``functools.partial``'s function's)."""
    while isinstance(fun, functools.partial):
        fun = fun.func
    return getattr(fun, "__name__", type(fun).__name__)


def split_residuals(residuals: Sequence[Any], primals: Sequence[Any], args_tree) -> tuple[list, list, tuple]:
    """``(args_res, opaque, spec)``: the residuals that are primal inputs (by identity, as JAX
    tells them) kept in ``args_tree``'s shape, each node a tuple and the top level a list (JAX's
    ``tuptree_map``), the unread inputs ``NotNeeded()``; the others in their order; and where
    each residual went."""
    where = {id(x): i for i, x in enumerate(primals)}
    used: set[int] = set()
    opaque: list = []
    spec = []
    for r in residuals:
        i = where.get(id(r))
        if i is None:
            opaque.append(r)
            spec.append(~(len(opaque) - 1))
        else:
            used.add(id(r))
            spec.append(i)
    kept = [x if id(x) in used else NotNeeded() for x in primals]
    args_res = list(args_tree.walk(lambda xs, _: tuple(xs), None, kept))
    return args_res, opaque, tuple(spec)


# What ``VJP.with_refs`` is told per input, and what it answers (``jax.ad``'s).
@dataclasses.dataclass(frozen=True)
class GradValue:
    """Return this input's cotangent as a value."""


@dataclasses.dataclass(frozen=True)
class DontWant:
    """This input's cotangent is not wanted."""


@register_dataclass
@dataclasses.dataclass(frozen=True)
class GradRef:
    """The cotangent went into the ref given for it."""


@register_dataclass
@dataclasses.dataclass(frozen=True)
class DidntWant:
    """The cotangent was not wanted."""


@register_pytree_node_class
class VJP:
    """``f_vjp`` of ``y, f_vjp = jax.vjp(f, *xs)``: ``f_vjp(ct)`` pulls the cotangent ``ct`` of
    ``y`` back to a tuple of cotangents of ``xs``.

    >>> y, f_vjp = jax.jit(lambda x: jax.vjp(jnp.sin, x))(0.5)
    >>> f_vjp(1.0)
    (Array(0.87758255, dtype=float32, weak_type=True),)
    """

    __slots__ = ("backward", "args_res", "opaque_residuals")

    def __init__(self, backward: Backward, args_res: list, opaque_residuals: Sequence[Any]):
        self.backward, self.args_res, self.opaque_residuals = backward, args_res, list(opaque_residuals)

    @property
    def residuals(self) -> list:
        """The residuals in the order the backward pass reads them."""
        spec = self.backward.spec
        if spec is None:
            return []
        args, opaque = tree_leaves(self.args_res, is_leaf=_not_needed), self.opaque_residuals
        return [args[i] if i >= 0 else opaque[~i] for i in spec]

    def __call__(self, ct, *extra):
        return self._pull(ct, extra, None)

    def _pull(self, ct, extra, wanted, into=None):
        """``self(ct)``; ``wanted`` (one flag per input, or None: all): the backward pass skips the
        work that only leads to the unwanted inputs' cotangents (JAX's ``DontWant``); ``into`` (a
        ref or None per input): cotangents added into those refs where they arise (None back)."""
        b = self.backward
        if extra:
            raise TypeError(_too_many_cotangents(b.fun_name, 1 + len(extra)))
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
                or got.vma != want.vma  # (in a checked shard_map body: the axes it varies over too)
            ):
                raise ValueError(  # (JAX's types here: full dtype names, float32<host>[3])
                    "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                    f"{got.strip_weak_type()}, but expected {want.strip_weak_type()} because the "
                    f"corresponding output of the differentiated function had JAX type {a.strip_weak_type()}"
                )
        for a in b.in_avals:  # (JAX 0.10.2 takes no ref's cotangent as a value, with_refs or not)
            inner = getattr(a, "inner_aval", None)
            if inner is not None:
                raise ValueError(f"Expected cotangent type {a} but got {inner.strip_weak_type()}")
        if b.aux_avals:  # (aux outputs: no cotangent)
            ct_flat = [*ct_flat, *[ad.Zero(ad.tangent_aval(a)) for a in b.aux_avals]]
        in_backward[0] += 1
        try:
            if into is None:
                cts_flat = b.transpose(self.residuals, ct_flat, wanted=wanted)
            else:
                cts_flat = b.transpose(self.residuals, ct_flat, wanted=wanted, into=into)
        finally:
            in_backward[0] -= 1
        cts_in = []
        for c, a in zip(cts_flat, b.in_avals):
            if c is None:  # (added into its ref)
                cts_in.append(None)
                continue
            if type(c) is ad.Zero:
                c = ad.instantiate_zeros(c)
            cts_in.append(c if type(c) is Array and c._value.dtype == a.dtype else match_dtype(c, a))
        if b.layouts is not None:
            cts_in = [
                c if s is None or c is None else _typed_as_primal(c, s) for c, s in zip(cts_in, b.layouts)
            ]
        args_ct, _ = unflatten_args(b.in_tree, cts_in)
        return tuple(args_ct)

    def with_refs(self, *wanted):
        """``f_vjp`` that delivers each input's cotangent as ``wanted`` says, one entry per input:
        a ``Ref`` accumulates it (the result says ``GradRef()``), ``jax.ad.GradValue()`` returns
        it, ``jax.ad.DontWant()`` drops it (``DidntWant()``)."""
        flat, tree = tree_flatten(wanted, is_leaf=lambda x: isinstance(x, (GradValue, DontWant)))
        if tree != self.backward.in_tree.children()[0]:
            raise ValueError(f"with_refs takes one entry per input of the function: {self.backward.in_tree}")

        def pull(ct, *extra):
            wanted = [not isinstance(w, DontWant) for w in flat]
            into = [None if isinstance(w, (GradValue, DontWant)) else w for w in flat]
            cts = self._pull(ct, extra, wanted, into)
            cts, _ = tree_flatten(cts, is_leaf=lambda x: x is None)
            out = []
            for want, c in zip(flat, cts):
                if isinstance(want, DontWant):
                    out.append(DidntWant())
                elif isinstance(want, GradValue):
                    out.append(c)
                else:  # a ref: added into where the cotangent arose (JAX's RefAccum), or here
                    if c is not None:
                        from .state.primitives import ref_addupdate

                        ref_addupdate(want, None, c)
                    out.append(GradRef())
            return tree.unflatten(out)

        return pull

    def tree_flatten(self):
        return (self.args_res, self.opaque_residuals), self.backward

    @classmethod
    def tree_unflatten(cls, backward, children):
        return cls(backward, *children)


def explicit_layout(x):
    """The sharding of ``x`` (an array or a ``jit`` tracer) on a mesh with explicit axes, which its
    cotangent takes (JAX types a cotangent as its primal); else None."""
    if isinstance(x, core.Tracer):
        from .parallel.reshard import traced_sharding
        from .sharding import get_abstract_mesh
        from .staging import staged_var

        staged = staged_var(x)
        # (no mesh named by the jit's arguments or the context: nothing is laid out, and finding
        # that out from the program traced so far costs a walk of it per input)
        if staged is None or not (staged[0].in_shardings or get_abstract_mesh().axis_names):
            return None
        s = traced_sharding(x)
    else:
        s = x.sharding if getattr(x, "on_mesh", False) else None
    return s if getattr(getattr(s, "mesh", None), "explicit_axes", ()) else None


def _typed_as_primal(ct, sharding):
    """``ct`` laid out by its primal's ``sharding`` (unreduced where the primal is reduced, and
    the other way round): moved there (a ``reshard``, staged under ``jit``) only where the backward
    pass left it elsewhere (a cotangent made of constants)."""
    from .sharding import reshard

    spec = sharding.spec
    if spec.unreduced or spec.reduced:
        sharding = sharding.with_spec(spec.to_ct_spec())

    have = _layout_of(ct)
    return ct if have == sharding else reshard(ct, sharding)


def _layout_of(ct):
    """The sharding of ``ct`` (a value, or one being staged: under ``vmap``, one example's), or
    None when the trace cannot tell."""
    from .batching import BatchTracer, not_mapped
    from .parallel.reshard import traced_sharding

    if isinstance(ct, BatchTracer):
        dim = ct.batch_dim
        whole = _layout_of(ct.val)
        if whole is None or not isinstance(dim, int):
            return None if whole is None or dim is not not_mapped else whole
        spec = whole.spec.example_spec(core.get_aval(ct.val).ndim, dim)
        return None if spec is None else whole.with_spec(spec)
    if isinstance(ct, core.Tracer):
        return traced_sharding(ct)
    return getattr(ct, "sharding", None)


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
