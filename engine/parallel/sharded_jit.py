"""``jit(f, in_shardings=..., out_shardings=...)``: arguments laid out before the call, results moved
after it."""

from __future__ import annotations

import functools

import numpy as np

from .. import core
from ..tree_util import tree_leaves
from ..sharding import Mesh, NamedSharding
from . import partition  # noqa: F401  (its eager dispatch runs the calls on placed arguments)


def _place(tree, shardings, what: str, tupled_args: bool = False):
    """``tree`` laid out by ``shardings`` (a tree prefix of it; None leaves: as they are)."""
    from ..resharding import flatten_shardings
    from ..sharding import as_sharding
    from ..tree_util import tree_flatten, tree_unflatten
    from .sharded import device_put

    if shardings is None:
        return tree
    leaves, treedef = tree_flatten(tree)
    placed = []
    for leaf, s in zip(leaves, flatten_shardings(f"pjit {what}", tree, shardings, tupled_args)):
        if s is None or type(s).__name__ == "UnspecifiedValue":
            placed.append(leaf)
            continue
        sharding = as_sharding(s, "jit", what)
        sharding.shard_shape(np.shape(leaf))  # (jit checks the blocks divide first: JAX's IndivisibleError)
        if what == "in_shardings" and getattr(leaf, "committed", False) and leaf.sharding != sharding:
            from ..sharded_types import typeof

            raise ValueError(  # (a committed argument is not moved: JAX's words)
                "Sharding passed to jit does not match the sharding on the respective arg. Got jit "
                f"sharding: {sharding!r},\narg sharding: {leaf.sharding!r} for arg type: {typeof(leaf)}"
            )
        placed.append(device_put(leaf, sharding))
    return tree_unflatten(treedef, placed)


class ShardedJit:
    """``jit(f, in_shardings=..., out_shardings=...)``: arguments are laid out by ``in_shardings``
    before the call (so the program runs per device), results are moved to ``out_shardings``."""

    def __init__(self, jitted, in_shardings, out_shardings):
        self._jitted, self.in_shardings, self.out_shardings = jitted, in_shardings, out_shardings
        self.__wrapped__ = jitted.fun
        self.__name__ = getattr(jitted, "__name__", "fun")
        self.__doc__ = jitted.__doc__

    def __call__(self, *args, **kwargs):
        if core.tracing_active():  # staged with its shardings as params (JAX's jit equation's)
            shardings = functools.partial(flat_shardings, (self.in_shardings, self.out_shardings))
            return self._jitted._call_slow(args, kwargs, shardings)
        if self.in_shardings is not None:
            shardings = self.in_shardings
            shardings = tuple(shardings) if type(shardings) is list else shardings  # (as JAX's jit)
            args = _place(tuple(args), shardings, "in_shardings", tupled_args=True)
        out = self._jitted(*args, **kwargs)
        return _place(out, self.out_shardings, "out_shardings")

    def lower(self, *args, **kwargs):
        lowered = self._jitted.lower(*args, **kwargs)
        lowered.jit_shardings = (self.in_shardings, self.out_shardings)  # (its text's: engine.stablehlo)
        return lowered

    def __getattr__(self, name):
        return getattr(self._jitted, name)


def with_shardings(jitted, in_shardings, out_shardings) -> ShardedJit:
    return ShardedJit(jitted, in_shardings, out_shardings)


def _per_leaf(shardings, tree, what: str) -> list:
    """``shardings`` (a tree prefix of ``tree``, or one for all) per leaf of ``tree``: None (and
    JAX's UnspecifiedValue) left to the compiler, the others checked to divide their leaf."""
    from ..jit_params import UNSPECIFIED
    from ..resharding import flatten_shardings
    from ..sharding import as_sharding

    if type(shardings) is list and what == "in_shardings":
        shardings = tuple(shardings)
    per_leaf = flatten_shardings(f"pjit {what}", tree, shardings, what == "in_shardings")
    out = []
    for s, leaf in zip(per_leaf, tree_leaves(tree)):
        if s is None or type(s).__name__ == "UnspecifiedValue":
            out.append(UNSPECIFIED)
            continue
        s = as_sharding(s, "jit", what)
        shape = leaf.shape if isinstance(leaf, core.ShapedArray) else core.get_aval(leaf).shape
        s.shard_shape(tuple(shape))  # (JAX's IndivisibleError, when the call is traced)
        out.append(s)
    return out


def flat_shardings(shardings, dyn_args, leaves, out_tree, out_avals, n_hoisted: int) -> tuple[tuple, tuple]:
    """A traced call's shardings (``(in_shardings, out_shardings)`` as the user gave them) per
    argument leaf (the call's hoisted constants and keyword arguments unspecified) and per result
    leaf, as its ``jit`` equation carries them (``JitFunction._call_staged`` calls this)."""
    from ..jit_params import unspecified_n
    from ..tree_util import tree_unflatten

    in_shardings, out_shardings = shardings
    args = tuple(dyn_args)
    if in_shardings is None:
        ins = list(unspecified_n(len(tree_leaves(args))))
    else:
        ins = _per_leaf(in_shardings, args, "in_shardings")
    ins += list(unspecified_n(len(leaves) - len(ins)))  # (keyword arguments)
    outs_tree = tree_unflatten(out_tree, list(out_avals))
    outs = (
        list(unspecified_n(out_tree.num_leaves))
        if out_shardings is None
        else _per_leaf(out_shardings, outs_tree, "out_shardings")
    )
    return (*unspecified_n(n_hoisted), *ins), tuple(outs)


def place_flat(values, shardings) -> list:
    """Values laid out by their shardings (a staged call's, run): unspecified ones as they are."""
    from .sharded import device_put

    return [
        v if type(s).__name__ == "UnspecifiedValue" else device_put(v, s) for v, s in zip(values, shardings)
    ]


def _laid_out(ctx, xs, shardings) -> list:
    """Values of a partitioned program moved to the layouts a nested jit's shardings name (those
    over the program's mesh; a sharding over another mesh is left to the caller's layout)."""
    from .partition import Sharded, _to_spec, spec_of

    out = []
    for x, s in zip(xs, shardings):
        if isinstance(s, NamedSharding) and s.mesh == ctx.mesh:
            spec = spec_of(s, len(x.spec))
            if x.spec != spec:
                x = Sharded(_to_spec(ctx, x, spec), spec)
        out.append(x)
    return out


def spmd_call(ctx, prim, vals, params):
    """A nested jit in a partitioned program: its body in line, between the layouts its
    in_shardings and out_shardings name (XLA's sharding constraints at the call's boundary)."""
    from .partition import _interpret

    closed = params["jaxpr"]
    vals = _laid_out(ctx, vals, params.get("in_shardings", ()))
    outs = _interpret(ctx, closed.jaxpr, closed.consts, vals, ctx.record)
    return _laid_out(ctx, outs, params.get("out_shardings", ()))


def call_mesh(eqn):
    """The mesh a nested jit's shardings name (its program runs over it), or None."""
    for s in (*eqn.params.get("in_shardings", ()), *eqn.params.get("out_shardings", ())):
        if isinstance(s, NamedSharding) and isinstance(s.mesh, Mesh):
            return s.mesh
    return None
