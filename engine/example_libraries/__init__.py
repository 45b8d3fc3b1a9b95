"""``jax.example_libraries``: ``stax`` (neural network layers) and ``optimizers``, as in JAX 0.10.2.

>>> from engine.example_libraries import optimizers, stax
"""
