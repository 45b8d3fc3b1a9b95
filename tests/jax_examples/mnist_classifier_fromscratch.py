"""JAX's examples/mnist_classifier_fromscratch.py, shortened: an MLP in plain jax.numpy."""

import numpy.random as npr

from jax import jit, grad
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


def accuracy(params, batch):
    inputs, targets = batch
    return jnp.mean(jnp.argmax(predict(params, inputs), axis=1) == jnp.argmax(targets, axis=1))


if __name__ == "__main__":
    layer_sizes = [784, 1024, 1024, 10]
    param_scale, step_size, num_epochs, batch_size = 0.1, 0.001, 2, 128

    train_images, train_labels, test_images, test_labels = datasets.mnist()
    num_train = train_images.shape[0]
    num_complete_batches, leftover = divmod(num_train, batch_size)
    num_batches = num_complete_batches + bool(leftover)

    def data_stream():
        rng = npr.RandomState(0)
        while True:
            perm = rng.permutation(num_train)
            for i in range(num_batches):
                idx = perm[i * batch_size : (i + 1) * batch_size]
                yield train_images[idx], train_labels[idx]

    batches = data_stream()

    @jit
    def update(params, batch):
        grads = grad(loss)(params, batch)
        return [(w - step_size * dw, b - step_size * db) for (w, b), (dw, db) in zip(params, grads)]

    params = init_random_params(param_scale, layer_sizes)
    for epoch in range(num_epochs):
        for _ in range(num_batches):
            params = update(params, next(batches))
        print(f"Epoch {epoch}")
        print(f"Training set accuracy {accuracy(params, (train_images, train_labels))}")
        print(f"Test set accuracy {accuracy(params, (test_images, test_labels))}")
    print(f"Final training loss {loss(params, (train_images, train_labels))}")
    print(f"Final test loss {loss(params, (test_images, test_labels))}")
