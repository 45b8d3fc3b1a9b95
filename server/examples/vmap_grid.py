import numpy as np

from ..models import Example
from ._reference import leaf, t

CODE = """\
import jax
import jax.numpy as jnp

def func(x, y):
    return jnp.sin(x) * y

x_range = jnp.linspace(-2.0, 2.0, 5)
y_range = jnp.linspace(-1.0, 1.0, 3)

# Inner vmap walks y with x fixed; the outer one walks x: out[i, j] = sin(x[i]) * y[j].
grid = jax.vmap(jax.vmap(func, in_axes=(None, 0)), in_axes=(0, None))(x_range, y_range)
print(grid.shape)   # (5, 3)
print(grid)
"""

_x, _y = np.linspace(-2.0, 2.0, 5), np.linspace(-1.0, 1.0, 3)

EXAMPLE = Example(
    id="vmap-grid",
    title="Nested vmap: a function on a grid",
    topic="vmap",
    description="Two vmaps with complementary in_axes evaluate f(x, y) = sin(x) * y on the "
    "Cartesian product of two ranges, without meshgrid or loops.",
    code=CODE,
    function="func",
    stack=[t("vmap", in_axes="(None, 0)"), t("vmap", in_axes="(0, None)")],
    args=["x_range", "y_range"],
    expected=[leaf(np.sin(_x)[:, None] * _y[None, :])],
)
