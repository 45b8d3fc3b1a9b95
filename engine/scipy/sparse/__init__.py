"""``jax.scipy.sparse``: iterative (Krylov) solvers for linear systems given as matrices or functions.

>>> from engine.scipy.sparse.linalg import cg
>>> cg(jnp.array([[4.0, 1.0], [1.0, 3.0]]), jnp.array([1.0, 2.0]))[0]
Array([0.09090909, 0.6363636 ], dtype=float32)
"""

from . import linalg  # noqa: F401
