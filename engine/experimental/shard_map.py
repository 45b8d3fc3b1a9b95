"""``jax.experimental.shard_map``: the older spelling of :func:`jax.shard_map` (positional mesh and
specs, ``check_rep`` for ``check_vma``), deprecated in JAX as here: naming it warns, as JAX's
module attribute does."""

from __future__ import annotations

import warnings
from typing import Any, Callable

from ..parallel.spmd import shard_map as _shard_map


def _experimental_shard_map(
    f: Callable[..., Any], mesh: Any, in_specs: Any, out_specs: Any, check_rep: bool = True
) -> Any:
    """``jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_rep)``."""
    return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_rep)


_experimental_shard_map.__name__ = _experimental_shard_map.__qualname__ = "shard_map"


def __getattr__(name: str) -> Any:
    if name == "shard_map":
        warnings.warn(
            "jax.experimental.shard_map is deprecated in v0.8.0. Used jax.shard_map instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        return _experimental_shard_map
    raise AttributeError(f"module 'jax.experimental.shard_map' has no attribute {name!r}")
