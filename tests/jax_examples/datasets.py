"""A synthetic stand-in for JAX's ``examples/datasets.py``: MNIST's shapes and dtypes, no download.

Images are float32 in [0, 1) of shape (N, 784); labels are float32 one-hot (N, 10), set by a fixed
random linear teacher so that the classes are learnable.
"""

import numpy as np

NUM_TRAIN, NUM_TEST = 512, 256


def mnist(permute_train=False):
    rng = np.random.RandomState(1234)
    teacher = rng.randn(28 * 28, 10)

    def make(n):
        images = rng.rand(n, 28 * 28).astype(np.float32)
        classes = np.argmax((images - 0.5) @ teacher, axis=1)
        return images, np.eye(10, dtype=np.float32)[classes]

    train_images, train_labels = make(NUM_TRAIN)
    test_images, test_labels = make(NUM_TEST)
    if permute_train:
        perm = np.random.RandomState(0).permutation(NUM_TRAIN)
        train_images, train_labels = train_images[perm], train_labels[perm]
    return train_images, train_labels, test_images, test_labels
