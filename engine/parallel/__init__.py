"""Simulated devices as worker processes, ``pmap`` over them, and device placement.

>>> import engine as jax
>>> jax.device_count()
8
>>> jax.pmap(lambda x: x * 2)(jax.numpy.arange(4.))
Array([0., 2., 4., 6.], dtype=float32)
"""

from .topology import (
    Device,
    device_count,
    devices,
    get_device,
    local_device_count,  # noqa: F401
    local_devices,
    process_count,
    process_index,
    set_device_count,
)
from .runtime import DeviceError, get_runtime, shutdown  # noqa: F401
from .sharded import ShardedArray, device_put, device_put_replicated, device_put_sharded  # noqa: F401
from .pmap import pmap, pmap_p  # noqa: F401
