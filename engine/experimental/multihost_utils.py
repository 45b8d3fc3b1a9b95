"""``jax.experimental.multihost_utils``: the engine is one process, so a barrier has nobody to wait
for and host-local arrays are the global ones."""

from __future__ import annotations

from typing import Any


def sync_global_devices(name: str) -> None:
    """A barrier across processes: with one process, it returns at once.

    >>> sync_global_devices("step 1")
    """
    if not isinstance(name, str):
        raise TypeError(f"sync_global_devices takes a barrier name (str), got {type(name).__name__}")


def process_allgather(in_tree: Any, tiled: bool = False) -> Any:
    """Every process's values of ``in_tree`` gathered on each, as numpy: with one process, its own
    (stacked on a new leading axis of size 1 unless ``tiled``)."""
    import numpy as np

    from ..tree_util import tree_map

    return tree_map(lambda x: np.asarray(x) if tiled else np.asarray(x)[None], in_tree)


def broadcast_one_to_all(in_tree: Any, is_source: bool | None = None) -> Any:
    """Process 0's values of ``in_tree`` on every process, as numpy: with one process, its own."""
    import numpy as np

    from ..tree_util import tree_map

    return tree_map(np.asarray, in_tree)
