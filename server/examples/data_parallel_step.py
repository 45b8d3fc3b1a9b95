import numpy as np
import numpy.typing as npt

from ..models import Example
from ._reference import leaf

CODE = """\
import jax
import jax.numpy as jnp
from jax import lax

def predict(params, x):
    for w, b in params:
        x = jnp.tanh(jnp.dot(x, w) + b)
    return x

def loss_fn(params, x, y):
    return jnp.mean((predict(params, x) - y) ** 2)

def update(params, x, y, learning_rate):
    grads = jax.grad(loss_fn)(params, x, y)
    # Every device saw a different slice of the batch: average their gradients.
    grads = lax.pmean(grads, axis_name='batch')
    return jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, grads)

# Parameters and learning rate are shared (None); data and targets are split over devices (0).
train_step = jax.pmap(update, axis_name='batch', in_axes=(None, 0, 0, None))

n_dev = 4
params = [(jnp.linspace(-1.0, 1.0, 12).reshape(3, 4), jnp.zeros(4)),
          (jnp.linspace(0.5, -0.5, 8).reshape(4, 2), jnp.array([0.1, -0.1]))]
x = jnp.linspace(-1.0, 1.0, n_dev * 2 * 3).reshape(n_dev, 2, 3)   # 2 examples per device
y = jnp.linspace(0.0, 1.0, n_dev * 2 * 2).reshape(n_dev, 2, 2)

new_params = train_step(params, x, y, 0.1)
print(new_params[0][0].shape)   # (4, 3, 4): one (identical) copy per device
"""

N_DEV = 4


def _reference_step() -> list[npt.NDArray[np.float64]]:
    w1, b1 = np.linspace(-1.0, 1.0, 12).reshape(3, 4), np.zeros(4)
    w2, b2 = np.linspace(0.5, -0.5, 8).reshape(4, 2), np.array([0.1, -0.1])
    xs = np.linspace(-1.0, 1.0, N_DEV * 6).reshape(N_DEV, 2, 3)
    ys = np.linspace(0.0, 1.0, N_DEV * 4).reshape(N_DEV, 2, 2)
    grads = []
    for x, y in zip(xs, ys):  # backprop by hand, one device at a time
        h = np.tanh(x @ w1 + b1)
        out = np.tanh(h @ w2 + b2)
        dz2 = 2 * (out - y) / out.size * (1 - out**2)
        dz1 = dz2 @ w2.T * (1 - h**2)
        grads.append((x.T @ dz1, dz1.sum(0), h.T @ dz2, dz2.sum(0)))
    mean = [np.mean(g, axis=0) for g in zip(*grads)]
    new = [p - 0.1 * g for p, g in zip((w1, b1, w2, b2), mean)]
    return [np.broadcast_to(p, (N_DEV, *p.shape)) for p in new]


EXAMPLE = Example(
    id="data-parallel-step",
    title="Data-parallel training step",
    topic="pmap",
    description="One SGD step of a small tanh network, with the batch split over 4 devices, "
    "gradients averaged by lax.pmean and the updated parameters replicated.",
    code=CODE,
    function="train_step",
    stack=[],
    args=["params", "x", "y", "0.1"],
    expected=[leaf(p) for p in _reference_step()],
    devices=N_DEV,
)
