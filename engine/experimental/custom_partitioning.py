"""``jax.experimental.custom_partitioning``: a function with its own rules for how XLA's SPMD
partitioner splits it over a mesh.

The rules only decide how the computation is divided between devices; the value is the
function's, which is what the engine computes (its partitioner lays the function's own operations
out by the shardings of their operands).

    >>> import engine as jax
    >>> f = custom_partitioning(lambda x: x * 2)
    >>> f.def_partition(partition=lambda mesh, args, result: None, infer_sharding_from_operands=None)
    >>> f(jax.numpy.ones(2))
    Array([2., 2.], dtype=float32)
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence


class custom_partitioning:  # noqa: N801  (JAX's name)
    """Wraps ``fun``; ``def_partition`` records the partitioning rules."""

    def __init__(self, fun: Callable[..., Any], static_argnums: Sequence[int] = ()):
        self.fun = fun
        self.static_argnums = tuple(static_argnums)
        self.partition = self.infer_sharding_from_operands = self.propagate_user_sharding = None
        self.sharding_rule: Any = None
        functools.update_wrapper(self, fun)

    def def_partition(
        self,
        partition: Callable[..., Any],
        infer_sharding_from_operands: Callable[..., Any] | None = None,
        propagate_user_sharding: Callable[..., Any] | None = None,
        decode_shardings: bool = True,
        sharding_rule: Any = None,
        **_: Any,
    ) -> None:
        self.partition = partition
        self.infer_sharding_from_operands = infer_sharding_from_operands
        self.propagate_user_sharding = propagate_user_sharding
        self.sharding_rule = sharding_rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fun(*args, **kwargs)
