import math

from ..models import Example
from ._reference import leaf, t

CODE = """\
import jax
import jax.numpy as jnp

def tanh(x):
    y = jnp.exp(-2.0 * x)
    return (1.0 - y) / (1.0 + y)

# grad returns a new function: the derivative. At 1.0 it is 1 - tanh(1)^2.
print("grad:", jax.grad(tanh)(1.0))

# Transformations compose, so derivatives of any order are grads of grads.
print("second:", jax.grad(jax.grad(tanh))(1.0))
print("third: ", jax.grad(jax.grad(jax.grad(tanh)))(1.0))
"""


def _third_derivative(x: float) -> float:
    s = math.tanh(x)
    return -2 * (1 - s**2) * (1 - 3 * s**2)  # d3/dx3 tanh


EXAMPLE = Example(
    id="grad-higher-order",
    title="grad, and grad of grad",
    topic="grad",
    description="Reverse-mode derivatives of a hand-written tanh, then derivatives of derivatives: "
    "the stack applies grad three times.",
    code=CODE,
    function="tanh",
    stack=[t("grad"), t("grad"), t("grad")],
    args=["1.0"],
    expected=[leaf(_third_derivative(1.0))],
)
