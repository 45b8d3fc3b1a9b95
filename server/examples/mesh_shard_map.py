import numpy as np

from ..models import Example
from ._reference import leaf

CODE = """\
from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P, AxisType

# The 8 devices as a 4 x 2 mesh: rows are split over 'x', columns over 'y'.
mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)

@partial(jax.shard_map, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', None))
def row_norms(block):
    # Each device holds a (2, 2) block; psum over 'y' adds the two halves of each row,
    # so only the two devices of a mesh row exchange (see the Devices tab).
    partial_sums = jnp.sum(block ** 2, axis=1, keepdims=True)
    return jnp.sqrt(jax.lax.psum(partial_sums, 'y'))
"""

_X = np.arange(32.0).reshape(8, 4)

EXAMPLE = Example(
    id="mesh-shard-map",
    title="shard_map on a 2-D mesh",
    topic="sharding",
    description="shard_map runs the function once per device of a (4, 2) mesh on that device's block; "
    "a psum over one mesh axis only combines the devices along it.",
    code=CODE,
    function="row_norms",
    args=["jnp.arange(32.0).reshape(8, 4)"],
    expected=[leaf(np.sqrt((_X**2).sum(axis=1, keepdims=True)))],
    devices=8,
)
