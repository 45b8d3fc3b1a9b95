import numpy as np
import numpy.typing as npt

from ..models import Example
from ._reference import leaf, t

CODE = """\
import jax
import jax.numpy as jnp

def loss(w, x, y):
    pred = jnp.tanh(jnp.dot(x, w))
    return (pred - y) ** 2

w = jnp.array([0.5, -0.25])
xs = jnp.array([[1.0, 2.0], [3.0, 4.0], [0.5, -0.5]])
ys = jnp.array([0.0, 1.0, -1.0])

# grad gives d loss / d w for one example; vmap maps it over the batch, sharing w (None).
per_example = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(w, xs, ys)
print(per_example.shape)   # (3, 2): one gradient per example
"""

_w = np.array([0.5, -0.25])
_xs = np.array([[1.0, 2.0], [3.0, 4.0], [0.5, -0.5]])
_ys = np.array([0.0, 1.0, -1.0])


def _per_example_grads() -> npt.NDArray[np.float64]:
    p = np.tanh(_xs @ _w)
    grads: npt.NDArray[np.float64] = (2 * (p - _ys) * (1 - p**2))[:, None] * _xs
    return grads


EXAMPLE = Example(
    id="per-example-grads",
    title="Per-example gradients",
    topic="vmap",
    description="vmap(grad(loss)) computes a separate gradient for every example of a batch in "
    "one vectorized call.",
    code=CODE,
    function="loss",
    stack=[t("grad"), t("vmap", in_axes="(None, 0, 0)")],
    args=["w", "xs", "ys"],
    expected=[leaf(_per_example_grads())],
)
