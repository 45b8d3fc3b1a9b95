"""``jax._src.test_util``: what JAX's documentation imports from JAX's own test helpers,
``create_mesh`` and the gradient checks of ``jax.test_util``.

>>> from engine._src import test_util as jtu
>>> mesh = jtu.create_mesh((1,), ("x",))
>>> mesh, [d.id for d in mesh.devices.flat]
(Mesh(axis_sizes=(1,), axis_names=('x',), axis_types=(Auto,)), [0])
"""

from __future__ import annotations

import math
import unittest

import numpy as np

from ..sharding import AxisType, Mesh, make_mesh
from ..parallel import devices
from ..test_util import check_grads, check_jvp, check_vjp  # noqa: F401


def create_mesh(mesh_shape, axis_names, iota_order: bool = False, axis_types=None) -> Mesh:
    """A mesh of the first ``prod(mesh_shape)`` devices with ``Auto`` axes unless told (``iota_order``:
    the devices sorted by id). Too few devices skip the test calling it (``unittest.SkipTest``), as
    JAX's does."""
    size = math.prod(mesh_shape)
    available = devices()  # (jax.devices(): xla_bridge's StableHLO client has one device)
    if len(available) < size:
        raise unittest.SkipTest(f"Test requires {size} global devices and found {len(available)}.")
    if iota_order:
        grid = np.empty(size, dtype=object)
        grid[:] = sorted(available, key=lambda d: d.id)[:size]
        return Mesh(grid.reshape(mesh_shape), axis_names, axis_types=axis_types)
    if axis_types is None:
        axis_types = (AxisType.Auto,) * len(mesh_shape)
    return make_mesh(mesh_shape, axis_names, axis_types)
