import numpy as np
import numpy.typing as npt

from ..models import Example
from ._reference import leaf, t

CODE = """\
import jax
import jax.numpy as jnp
from jax import grad, pmap

@pmap
def f(x):
    y = jnp.sin(x)
    @pmap
    def g(z):
        return jnp.cos(z) * jnp.tan(y.sum()) * jnp.tanh(x).sum()
    return grad(lambda w: jnp.sum(g(w)))(x)

def total(x):
    return f(x).sum()

x = jnp.arange(8.0).reshape(2, 4)   # 2 outer devices x 4 inner devices
print(f(x))
print(grad(total)(x))   # the backward pass is parallel too
"""


def _grad_total(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    # f[r, j] = -sin(x[r, j]) * T_r * S_r with T_r = tan(sum_j sin x[r]), S_r = sum_j tanh x[r]
    s = np.sin(x).sum(axis=1, keepdims=True)
    T, S = np.tan(s), np.tanh(x).sum(axis=1, keepdims=True)
    grad: npt.NDArray[np.float64] = -np.cos(x) * T * S - s * (
        (1 + T**2) * np.cos(x) * S + T * (1 - np.tanh(x) ** 2)
    )
    return grad


EXAMPLE = Example(
    id="nested-pmap-grad",
    title="Nested pmap, differentiated",
    topic="pmap",
    description="A pmap inside a pmap lays devices out as a 2 x 4 mesh; grad differentiates "
    "through both, and the backward pass runs on the devices too.",
    code=CODE,
    function="total",
    stack=[t("grad")],
    args=["jnp.arange(8.0).reshape(2, 4)"],
    expected=[leaf(_grad_total(np.arange(8.0).reshape(2, 4)), rtol=1e-3, atol=1e-3)],
    devices=8,
)
