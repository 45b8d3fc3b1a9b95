from ..models import Example
from ._reference import leaf, t

CODE = """\
import jax
import jax.numpy as jnp

def func(x, y):
    return x + y

# The batch axis of each argument: axis 1 of x, axis 0 of y; put it at axis 1 of the output.
x_batched = jnp.array([[1.0, 2.0, 3.0]])        # shape (1, 3)
y_batched = jnp.array([[4.0], [5.0], [6.0]])    # shape (3, 1)
out1 = jax.vmap(func, in_axes=(1, 0), out_axes=1)(x_batched, y_batched)
print(out1, out1.shape)                         # [[5. 7. 9.]] (1, 3)
out0 = jax.vmap(func, in_axes=(1, 0), out_axes=0)(x_batched, y_batched)
print(out0.shape)                               # (3, 1)

# None: an argument that is not batched rides along unchanged.
def scale(a, b):
    return a * b
print(jax.vmap(scale, in_axes=(None, 0))(3.0, jnp.array([3.0, 4.0, 5.0])))  # [ 9. 12. 15.]
"""

EXAMPLE = Example(
    id="vmap-axes",
    title="vmap with in_axes, out_axes and None",
    topic="vmap",
    description="vmap maps over a chosen axis of each argument (None for unbatched ones) and puts "
    "the mapped axis where out_axes says.",
    code=CODE,
    function="func",
    stack=[t("vmap", in_axes="(1, 0)", out_axes="1")],
    args=["jnp.array([[1.0, 2.0, 3.0]])", "jnp.array([[4.0], [5.0], [6.0]])"],
    expected=[leaf([[5.0, 7.0, 9.0]])],
)
