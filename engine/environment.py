"""What the process holds and runs on: ``jax.live_arrays``, ``jax.print_environment_info``,
``jax.clear_caches`` and the device type, ``jax.Device``.

>>> import engine as jax
>>> jax.clear_caches()
"""

from __future__ import annotations

import gc
import platform
import sys

import numpy as np

from .core import Array
from .jit import clear_caches
from .parallel.topology import Device

__all__ = ["Device", "clear_caches", "live_arrays", "print_environment_info"]


def live_arrays(platform: str | None = None) -> list[Array]:
    """Every array alive in this process (found by walking the garbage collector's objects, so it
    is slow: a debugging aid, as in JAX).

    >>> x = jnp.ones(3)
    >>> any(a is x for a in live_arrays())
    True
    """
    if platform not in (None, "cpu"):
        raise RuntimeError(f"Unknown backend {platform}: the engine has only 'cpu' devices")
    return [o for o in gc.get_objects() if _is_array(o)]


def _is_array(o: object) -> bool:
    try:
        return isinstance(o, Array)
    except ReferenceError:  # a weakref.proxy whose object is gone (isinstance asks it its class)
        return False


def print_environment_info(return_string: bool = False) -> str | None:
    """Print (or return) the versions and devices this process runs with, as JAX's function does."""
    from . import __version__
    from .parallel.topology import device_count

    try:
        import numba

        numba_version = numba.__version__
    except ImportError:
        numba_version = "not installed (jit interprets)"
    text = (
        f"jax (the jaxplay engine): {__version__}\n"
        f"numpy:   {np.__version__}\n"
        f"numba:   {numba_version}\n"
        f"python:  {sys.version}\n"
        f"device info: cpu-{device_count()}, {device_count()} local devices (simulated)\n"
        f"process_count: 1\n"
        f"platform: {platform.uname()}\n"
    )
    if return_string:
        return text
    print(text)
    return None
