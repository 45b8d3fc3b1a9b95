"""``jax.scipy``: special functions, distributions and linear algebra on the engine's primitives.

>>> from engine.scipy.special import logsumexp
>>> logsumexp(jnp.array([0.0, 0.0]))
Array(0.6931472, dtype=float32)
"""

from . import linalg, special, stats  # noqa: F401
from . import cluster, fft, integrate, interpolate, ndimage, optimize, signal, sparse, spatial  # noqa: F401,E402
