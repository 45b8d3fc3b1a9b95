"""``jax.scipy``: special functions, distributions and linear algebra on the engine's primitives.

>>> from engine.scipy.special import logsumexp
>>> logsumexp(jnp.array([0.0, 0.0]))
Array(0.6931472, dtype=float32)
"""

from . import linalg, special, stats  # noqa: F401
from . import cluster, fft, integrate, interpolate, ndimage, signal, sparse  # noqa: F401,E402

# jax.scipy.optimize and jax.scipy.spatial are not among the submodules ``jax.scipy`` binds on first
# use (JAX 0.10.2's lazy list): each is an attribute only once imported (measured), so a script
# reaching ``jax.scipy.optimize.minimize`` after a bare ``import jax.scipy`` fails as it does in JAX.
