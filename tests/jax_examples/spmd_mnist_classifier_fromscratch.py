"""JAX's examples/spmd_mnist_classifier_fromscratch.py, shortened: the from-scratch MLP trained
data-parallel with explicit sharding (make_mesh, NamedSharding, device_put, set_mesh, reshard)."""

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")

from jax import NamedSharding
import numpy as np
import numpy.random as npr
import jax
from jax import jit, grad
from jax.sharding import PartitionSpec as P, AxisType, reshard
from jax.scipy.special import logsumexp
import jax.numpy as jnp
import datasets


def init_random_params(scale, layer_sizes, rng=npr.RandomState(0)):  # noqa: B008 (as JAX's example)
    return [
        (scale * rng.randn(m, n), scale * rng.randn(n)) for m, n in zip(layer_sizes[:-1], layer_sizes[1:])
    ]


def predict(params, inputs):
    activations = inputs
    for w, b in params[:-1]:
        activations = jnp.tanh(jnp.dot(activations, w) + b)
    final_w, final_b = params[-1]
    logits = jnp.dot(activations, final_w) + final_b
    return logits - logsumexp(logits, axis=1, keepdims=True)


def loss(params, batch):
    inputs, targets = batch
    return -jnp.mean(jnp.sum(predict(params, inputs) * targets, axis=1))


@jax.jit(donate_argnums=0)
def train_step(params, batch):
    grads = grad(loss)(params, batch)
    return [(w - step_size * dw, b - step_size * db) for (w, b), (dw, db) in zip(params, grads)]


@jit
def accuracy(params, batch):
    inputs, targets = batch
    return jnp.mean(jnp.argmax(predict(params, inputs), axis=1) == jnp.argmax(targets, axis=1))


if __name__ == "__main__":
    layer_sizes = [784, 256, 256, 10]
    param_scale, step_size, num_epochs, batch_size = 0.1, 0.001, 1, 128

    train_images, train_labels, test_images, test_labels = datasets.mnist()
    num_train = train_images.shape[0]
    num_devices = jax.device_count()
    print(f"Using {num_devices} devices")
    num_complete_batches, leftover = divmod(num_train, batch_size)
    num_batches = num_complete_batches + bool(leftover)

    mesh = jax.make_mesh((jax.device_count(),), ("batch",), axis_types=(AxisType.Explicit,))
    replicated_sharding = NamedSharding(mesh, P())
    data_sharding = NamedSharding(mesh, P("batch"))

    def data_stream():
        rng = npr.RandomState(0)
        while True:
            perm = rng.permutation(num_train)
            for i in range(num_batches):
                idx = perm[i * batch_size : (i + 1) * batch_size]
                images_np, labels_np = train_images[idx], train_labels[idx]
                if images_np.shape[0] < batch_size:
                    pad = batch_size - images_np.shape[0]
                    images_np = np.concatenate([images_np, images_np[:pad]], axis=0)
                    labels_np = np.concatenate([labels_np, labels_np[:pad]], axis=0)
                yield jax.device_put(images_np, data_sharding), jax.device_put(labels_np, data_sharding)

    batches = data_stream()
    params = init_random_params(param_scale, layer_sizes)
    replicated_params = jax.device_put(params, replicated_sharding)
    print(jax.typeof(replicated_params[0][0]))

    for epoch in range(num_epochs):
        for i in range(num_batches):
            batch = next(batches)
            if i == 0:
                print(jax.typeof(batch[0]))
            with jax.set_mesh(mesh):
                replicated_params = train_step(replicated_params, batch)
        print(replicated_params[0][0].sharding)
        sharded_train = reshard(train_images, data_sharding), reshard(train_labels, data_sharding)
        sharded_test = reshard(test_images, data_sharding), reshard(test_labels, data_sharding)
        print(f"Epoch {epoch}")
        print(f"Training set accuracy {accuracy(replicated_params, sharded_train)}")
        print(f"Test set accuracy {accuracy(replicated_params, sharded_test)}")
        with jax.set_mesh(mesh):
            print(f"Final training loss {jit(loss)(replicated_params, sharded_train)}")
