"""JAX's examples/differentially_private_sgd.py, shortened (no absl flags, no privacy accounting):
a stax conv net trained with DP-SGD (per-example gradients by vmap, clipped, noised)."""

import itertools

import numpy.random as npr

from jax import grad, jit, random, vmap
from jax.example_libraries import optimizers
from jax.example_libraries import stax
import jax.numpy as jnp
from jax.tree_util import tree_flatten, tree_unflatten
import datasets

LEARNING_RATE, NOISE_MULTIPLIER, L2_NORM_CLIP = 0.15, 1.1, 1.0
BATCH_SIZE, EPOCHS, SEED = 32, 1, 0
STEPS = 3

init_random_params, predict = stax.serial(
    stax.Conv(16, (8, 8), padding="SAME", strides=(2, 2)),
    stax.Relu,
    stax.MaxPool((2, 2), (1, 1)),
    stax.Conv(32, (4, 4), padding="VALID", strides=(2, 2)),
    stax.Relu,
    stax.MaxPool((2, 2), (1, 1)),
    stax.Flatten,
    stax.Dense(32),
    stax.Relu,
    stax.Dense(10),
)


def loss(params, batch):
    inputs, targets = batch
    logits = stax.logsoftmax(predict(params, inputs))
    return -jnp.mean(jnp.sum(logits * targets, axis=1))


def accuracy(params, batch):
    inputs, targets = batch
    return jnp.mean(jnp.argmax(predict(params, inputs), axis=1) == jnp.argmax(targets, axis=1))


def clipped_grad(params, l2_norm_clip, single_example_batch):
    grads = grad(loss)(params, single_example_batch)
    nonempty_grads, tree_def = tree_flatten(grads)
    total_grad_norm = jnp.linalg.norm(jnp.array([jnp.linalg.norm(g.ravel()) for g in nonempty_grads]))
    divisor = jnp.maximum(total_grad_norm / l2_norm_clip, 1.0)
    return tree_unflatten(tree_def, [g / divisor for g in nonempty_grads])


def private_grad(params, batch, rng, l2_norm_clip, noise_multiplier, batch_size):
    clipped_grads = vmap(clipped_grad, (None, None, 0))(params, l2_norm_clip, batch)
    clipped_grads_flat, grads_treedef = tree_flatten(clipped_grads)
    aggregated = [g.sum(0) for g in clipped_grads_flat]
    rngs = random.split(rng, len(aggregated))
    noised = [
        g + l2_norm_clip * noise_multiplier * random.normal(r, g.shape) for r, g in zip(rngs, aggregated)
    ]
    return tree_unflatten(grads_treedef, [g / batch_size for g in noised])


def shape_as_image(images, labels, dummy_dim=False):
    target_shape = (-1, 1, 28, 28, 1) if dummy_dim else (-1, 28, 28, 1)
    return jnp.reshape(images, target_shape), labels


if __name__ == "__main__":
    train_images, train_labels, test_images, test_labels = datasets.mnist()
    num_train = train_images.shape[0]
    num_batches = num_train // BATCH_SIZE
    key = random.key(SEED)

    def data_stream():
        rng = npr.RandomState(SEED)
        while True:
            perm = rng.permutation(num_train)
            for i in range(num_batches):
                idx = perm[i * BATCH_SIZE : (i + 1) * BATCH_SIZE]
                yield train_images[idx], train_labels[idx]

    batches = data_stream()
    opt_init, opt_update, get_params = optimizers.sgd(LEARNING_RATE)

    @jit
    def private_update(rng, i, opt_state, batch):
        params = get_params(opt_state)
        rng = random.fold_in(rng, i)
        g = private_grad(params, batch, rng, L2_NORM_CLIP, NOISE_MULTIPLIER, BATCH_SIZE)
        return opt_update(i, g, opt_state)

    _, init_params = init_random_params(key, (-1, 28, 28, 1))
    opt_state = opt_init(init_params)
    itercount = itertools.count()
    for _ in range(STEPS):
        batch = shape_as_image(*next(batches), dummy_dim=True)
        opt_state = private_update(key, next(itercount), opt_state, batch)
    params = get_params(opt_state)
    test_batch = shape_as_image(test_images, test_labels)
    print(
        f"Test set loss, accuracy (%): ({loss(params, test_batch):.4f}, {100 * accuracy(params, test_batch):.2f})"
    )
