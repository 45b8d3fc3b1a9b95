"""Global arrays assembled from per-device pieces: ``jax.make_array_from_callback`` (a callback
gives each device's block) and ``jax.make_array_from_single_device_arrays`` (the blocks given).

>>> import numpy as np, engine as jax
>>> from engine.sharding import SingleDeviceSharding
>>> data = np.arange(6.0).reshape(3, 2)
>>> jax.make_array_from_callback((3, 2), SingleDeviceSharding(jax.devices()[0]), lambda idx: data[idx])
Array([[0., 1.],
       [2., 3.],
       [4., 5.]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from . import core

__all__ = ["make_array_from_callback", "make_array_from_single_device_arrays"]


def _assemble(shape, sharding, blocks, dtype):
    from .parallel import device_put

    shape = tuple(int(s) for s in shape)
    imap = sharding.devices_indices_map(shape)
    out = np.empty(shape, dtype)
    for (device, index), block in zip(imap.items(), blocks):
        target = out[index]
        if np.shape(block) != target.shape:
            raise ValueError(
                f"the block for {device} has shape {np.shape(block)}, but the sharding's index {index} "
                f"of the global shape {shape} has shape {target.shape}"
            )
        out[index] = block
    return device_put(core.Array(out), sharding)


def make_array_from_callback(shape, sharding, data_callback, dtype=None):
    """The array of global ``shape`` laid out by ``sharding``, whose block on each device is
    ``data_callback(index)`` (``index``: that device's tuple of slices into the global array)."""
    imap = sharding.devices_indices_map(tuple(shape))
    blocks = [np.asarray(data_callback(index)) for index in imap.values()]
    if dtype is None:
        dtype = blocks[0].dtype if blocks else core.default_dtype(float)
    return _assemble(shape, sharding, blocks, np.dtype(dtype))


def make_array_from_single_device_arrays(shape, sharding, arrays, *, dtype=None):
    """The array of global ``shape`` laid out by ``sharding`` from one array per device, in the
    order of ``sharding.devices_indices_map(shape)``'s devices."""
    blocks = [np.asarray(a) for a in arrays]
    n = len(sharding.devices_indices_map(tuple(shape)))
    if len(blocks) != n:
        raise ValueError(
            f"expected {n} single-device arrays, one per device of the sharding; got {len(blocks)}"
        )
    if dtype is None:
        dtype = blocks[0].dtype if blocks else core.default_dtype(float)
    return _assemble(shape, sharding, blocks, np.dtype(dtype))
