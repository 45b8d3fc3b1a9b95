"""The examples gallery: one module per topic, each defining ``EXAMPLE``, listed in gallery order."""

from __future__ import annotations

import importlib
from typing import Optional

from ..models import Example

TOPICS = [
    "grad_higher_order",
    "hessian",
    "control_flow_grad",
    "jit_fusion",
    "vmap_axes",
    "vmap_grid",
    "per_example_grads",
    "pmap_psum",
    "nested_pmap_grad",
    "data_parallel_step",
    "mesh_shard_map",
]


def _load() -> list[Example]:
    examples = []
    for name in TOPICS:
        try:
            examples.append(importlib.import_module(f"{__name__}.{name}").EXAMPLE)
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
    return examples


EXAMPLES: list[Example] = _load()


def by_id(example_id: str) -> Optional[Example]:
    return next((e for e in EXAMPLES if e.id == example_id), None)
