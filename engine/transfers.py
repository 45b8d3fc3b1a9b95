"""``jax.transfer_guard``: log or refuse implicit host-to-device transfers, as JAX does on a CPU.

The engine's one platform is the CPU, where JAX always allows fetching a buffer (device-to-host)
and where device-to-device copies are never guarded; what a guard sees is a Python or NumPy value
becoming an array: a jit argument, a jnp function's operand, ``jnp.array``. ``jax.device_put`` is
an explicit transfer (refused only by ``"disallow_explicit"``).
"""

from __future__ import annotations

import logging

import numpy as np

from .config import _option, config

LEVELS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")
DIRECTIONS = ("host_to_device", "device_to_device", "device_to_host")
# True while any guard is not "allow": the hooks cost one list read otherwise.
active = [False]
_log = logging.getLogger("jax.transfer_guard")


def check_level(name: str, value) -> None:
    if value is not None and value not in LEVELS:
        raise ValueError(
            f"new enum value must be None or in {list(LEVELS)}, got {value} of type {type(value)}."
        )


def sync_active() -> None:
    names = ["jax_transfer_guard"] + [f"jax_transfer_guard_{d}" for d in DIRECTIONS]
    active[0] = any(config.values.get(n) not in (None, "allow") for n in names)


def host_to_device(x, explicit: bool = False) -> None:
    """Log or refuse turning the host value ``x`` into an array, as the guard's level says."""
    level = config.values.get("jax_transfer_guard_host_to_device") or config.values.get("jax_transfer_guard")
    if level in (None, "allow") or (explicit and level in ("log", "disallow")):
        return
    from . import core

    aval = core.get_aval(x)
    shape = ",".join(map(str, aval.shape))
    what = (
        f"host-to-device transfer: aval=ShapedArray({np.dtype(aval.dtype).name}[{shape}]"
        f"{', weak_type=True' if aval.weak_type else ''}), dst_sharding=SingleDeviceSharding("
        f"device=CpuDevice(id=0), memory_kind=device)"
    )
    if level.startswith("log"):
        _log.warning(what)
        return
    from .errors import JaxRuntimeError

    raise JaxRuntimeError(f"INVALID_ARGUMENT: Disallowed {what}")


def transfer_guard(new_val: str):
    """Within the block, transfers of every direction are guarded at ``new_val``'s level.

    >>> with jax.transfer_guard("disallow"):
    ...     y = jax.device_put(np.ones(2))  # explicit: allowed
    """
    return _option("jax_transfer_guard", new_val)


def transfer_guard_host_to_device(new_val: str):
    """Guard only host-to-device transfers (a Python or NumPy value becoming an array)."""
    return _option("jax_transfer_guard_host_to_device", new_val)


def transfer_guard_device_to_host(new_val: str):
    """Guard only device-to-host fetches (always allowed on the engine's CPU, as in JAX)."""
    return _option("jax_transfer_guard_device_to_host", new_val)


def transfer_guard_device_to_device(new_val: str):
    """Guard only device-to-device copies (none are guarded on a CPU, as in JAX)."""
    return _option("jax_transfer_guard_device_to_device", new_val)


def device_get(x):
    """Fetch ``x`` (a pytree) to the host: its arrays become NumPy arrays, other leaves stay.
    An explicit transfer, so no guard level short of refusing all transfers stops it.

    >>> jax.device_get({"a": jnp.arange(2)})
    {'a': array([0, 1], dtype=int32)}
    """
    from .core import Array
    from .tree_util import tree_map

    return tree_map(lambda v: np.asarray(v) if isinstance(v, Array) else v, x)
