import numpy as np

from ..models import Example
from ._reference import leaf, t

CODE = """\
import jax
import jax.numpy as jnp
from jax import lax

def normalize(x):
    # Each device holds one element; psum adds them across the devices named 'i'.
    return x / lax.psum(x, 'i')

print(jax.pmap(normalize, axis_name='i')(jnp.arange(4.0)))   # [0. 0.1667 0.3333 0.5]
"""

EXAMPLE = Example(
    id="pmap-psum",
    title="pmap with psum",
    topic="pmap",
    description="pmap runs one copy of the function per (simulated) device; lax.psum is a "
    "collective that sums a value over all of them.",
    code=CODE,
    function="normalize",
    stack=[t("pmap", axis_name="'i'")],
    args=["jnp.arange(4.0)"],
    expected=[leaf(np.arange(4.0) / 6.0)],
    devices=4,
)
