"""JAX's examples/mnist_classifier.py, shortened: an MLP from stax trained with optimizers.momentum."""

import itertools

import numpy.random as npr

import jax.numpy as jnp
from jax import jit, grad, random
from jax.example_libraries import optimizers
from jax.example_libraries import stax
from jax.example_libraries.stax import Dense, Relu, LogSoftmax
import datasets

init_random_params, predict = stax.serial(Dense(1024), Relu, Dense(1024), Relu, Dense(10), LogSoftmax)


def loss(params, batch):
    inputs, targets = batch
    return -jnp.mean(jnp.sum(predict(params, inputs) * targets, axis=1))


def accuracy(params, batch):
    inputs, targets = batch
    return jnp.mean(jnp.argmax(predict(params, inputs), axis=1) == jnp.argmax(targets, axis=1))


if __name__ == "__main__":
    rng = random.key(0)
    step_size, num_epochs, batch_size, momentum_mass = 0.001, 2, 128, 0.9

    train_images, train_labels, test_images, test_labels = datasets.mnist()
    num_train = train_images.shape[0]
    num_complete_batches, leftover = divmod(num_train, batch_size)
    num_batches = num_complete_batches + bool(leftover)

    def data_stream():
        perm_rng = npr.RandomState(0)
        while True:
            perm = perm_rng.permutation(num_train)
            for i in range(num_batches):
                idx = perm[i * batch_size : (i + 1) * batch_size]
                yield train_images[idx], train_labels[idx]

    batches = data_stream()
    opt_init, opt_update, get_params = optimizers.momentum(step_size, mass=momentum_mass)

    @jit
    def update(i, opt_state, batch):
        params = get_params(opt_state)
        return opt_update(i, grad(loss)(params, batch), opt_state)

    _, init_params = init_random_params(rng, (-1, 28 * 28))
    opt_state = opt_init(init_params)
    itercount = itertools.count()
    for epoch in range(num_epochs):
        for _ in range(num_batches):
            opt_state = update(next(itercount), opt_state, next(batches))
        params = get_params(opt_state)
        print(f"Epoch {epoch}")
        print(f"Training set accuracy {accuracy(params, (train_images, train_labels))}")
        print(f"Test set accuracy {accuracy(params, (test_images, test_labels))}")
    print(f"Final training loss {loss(params, (train_images, train_labels))}")
    print(f"Final test loss {loss(params, (test_images, test_labels))}")
