"""``jax.experimental.compute_on``: where a computation should run (``"device_host"``: on the host
CPU beside the device). JAX 0.10.2 records the choice in its trace context, not in the jaxpr, so
programs print and compute the same with or without it; the engine has one processor and keeps the
choice only while the ``with`` block runs (``current_compute_type``).

>>> with compute_on("device_host"):
...     y = jnp.sin(jnp.ones(3)) * 2
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

__all__ = ["compute_on"]

_VALID = ("device_host", "device", "tpu_sparsecore")
_local = threading.local()


def current_compute_type() -> str | None:
    """The innermost ``compute_on`` type in effect, or None."""
    return getattr(_local, "compute_type", None)


@contextmanager
def compute_on(compute_type: str) -> Iterator[None]:
    """Run what is traced inside (and what a decorated function traces) on ``compute_type``; JAX's
    checks of the type, its errors word for word."""
    if not isinstance(compute_type, str):
        raise TypeError("`compute_on`'s compute_type argument must be a string.")
    if compute_type not in _VALID and not compute_type.startswith("gpu_stream:"):
        raise ValueError(
            f"Invalid compute type {compute_type}. Current supported values are `device_host`, `device`, "
            "`tpu_sparsecore`, and `gpu_stream:#`."
        )
    prev = current_compute_type()
    _local.compute_type = compute_type
    try:
        yield
    finally:
        _local.compute_type = prev
