"""``jax.experimental.shard_map``: the older spelling of :func:`jax.shard_map` (positional mesh and
specs, ``check_rep`` for ``check_vma``), deprecated in JAX as here."""

from __future__ import annotations

import warnings
from typing import Any, Callable

from ..parallel.spmd import shard_map as _shard_map


def shard_map(f: Callable[..., Any], mesh: Any, in_specs: Any, out_specs: Any, check_rep: bool = True) -> Any:
    """``jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_rep)``."""
    warnings.warn(
        "jax.experimental.shard_map is deprecated in v0.8.0. Used jax.shard_map instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_rep)
