"""``jit(f, in_shardings=..., out_shardings=...)``: arguments laid out before the call, results moved
after it."""

from __future__ import annotations

import numpy as np

from .. import core
from ..tree_util import tree_leaves
from ..sharding import PartitionSpec
from . import partition  # noqa: F401  (its eager dispatch runs the calls on placed arguments)


def _place(tree, shardings, what):
    from ..sharding import as_sharding
    from .sharded import device_put

    if shardings is None:
        return tree
    if isinstance(shardings, (list, tuple)) and not isinstance(shardings, PartitionSpec):
        if not isinstance(tree, (list, tuple)) or len(tree) != len(shardings):
            raise ValueError(
                f"jit {what}: {len(shardings)} shardings for "
                f"{len(tree) if isinstance(tree, (list, tuple)) else 'a non-sequence of'} values"
            )
        return type(tree)(_place(t, s, what) for t, s in zip(tree, shardings))
    sharding = as_sharding(shardings, f"jit {what}")
    for leaf in tree_leaves(tree):  # (jit checks the blocks divide first: JAX's IndivisibleError)
        sharding.shard_shape(np.shape(leaf))
    return device_put(tree, sharding)


class ShardedJit:
    """``jit(f, in_shardings=..., out_shardings=...)``: arguments are laid out by ``in_shardings``
    before the call (so the program runs per device), results are moved to ``out_shardings``."""

    def __init__(self, jitted, in_shardings, out_shardings):
        self._jitted, self.in_shardings, self.out_shardings = jitted, in_shardings, out_shardings
        self.__wrapped__ = jitted.fun
        self.__name__ = getattr(jitted, "__name__", "fun")
        self.__doc__ = jitted.__doc__

    def __call__(self, *args, **kwargs):
        if core.tracing_active():  # inside another transformation: placement is the outer call's
            raise NotImplementedError(
                "jit with in_shardings/out_shardings inside a traced function (jit, grad, vmap) is not "
                "supported by the engine yet; apply the shardings to the outermost jit"
            )
        if self.in_shardings is not None:
            shardings = self.in_shardings
            if not isinstance(shardings, (list, tuple)) or isinstance(shardings, PartitionSpec):
                shardings = (shardings,) * len(args)
            args = _place(tuple(args), tuple(shardings), "in_shardings")
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
